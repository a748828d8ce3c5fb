//! The playbook: how serious each kind of provision the classifier finds is, when it binds
//! our party, when it binds only the other party, and whether its absence is reported. A
//! JSON file per domain ships with the library (`skills/playbooks/*.json`); a firm copies
//! one (`clausewright playbook --domain fidic > ours.json`), edits the levels and reviews with
//! `--playbook ours.json`. The kinds are the classifier's categories and the provisions the
//! rules find (`notice_time_bar`, `deadlock`, ...); both take their levels from here, not
//! from code (a rule may only move a level one step, for what it read: a maximum, a
//! compensation, the defaulting party paying).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::kinds::Provision;
use crate::review::types::RiskLevel;
use crate::state::Domain;

/// The levels of one kind of provision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KindLevels {
    /// Level when the provision binds our party, both parties, or a party the text does not
    /// name; `null` leaves the kind out of the report.
    pub binds_us: Option<RiskLevel>,
    /// Level when it binds only the other party; `null` leaves such findings out.
    pub binds_them: Option<RiskLevel>,
    /// The party the sentence names holds a right (to terminate, to audit, a cap that
    /// protects it), so the provision binds the other side.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub holder_benefits: bool,
    /// Level of the finding that the agreement has no such provision (reported only when
    /// the whole agreement was reviewed); absent or `null`: not reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent: Option<RiskLevel>,
    /// The classifier's probability from which a finding of this kind may be medium or
    /// high; below it the finding is listed at low, to check. Absent: the model's own
    /// threshold, chosen on held-out training contracts for a clause precision of 0.8.
    /// Lower it to see more, raise it to be surer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serious_at: Option<Probability>,
}

/// A probability from 0 to 1, as a playbook writes it; anything else is refused when read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Probability(f32);

// Never NaN: `Deserialize` refuses what is not in [0, 1].
impl Eq for Probability {}

impl Probability {
    /// `value` as a probability; `None` unless it is from 0 to 1.
    pub fn new(value: f32) -> Option<Probability> {
        (0.0..=1.0).contains(&value).then_some(Probability(value))
    }

    /// The probability.
    pub fn get(self) -> f32 {
        self.0
    }
}

impl<'de> Deserialize<'de> for Probability {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f32::deserialize(deserializer)?;
        Probability::new(value).ok_or_else(|| {
            serde::de::Error::custom(format!("expected a probability from 0 to 1, found {value}"))
        })
    }
}

/// How serious each kind of provision is for one domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Playbook {
    /// The domain it was written for (`generic`, `fidic`, `sha_spa`, or a firm's own name).
    pub domain: String,
    /// What the playbook is for, for whoever edits it.
    #[serde(default)]
    pub about: String,
    /// Levels by kind, written by name (`cap_on_liability`, `governing_law`,
    /// `notice_time_bar`, ...: the [catalogue](super::kinds)'s). A kind left out is not
    /// reported; a name the catalogue does not declare is refused when the playbook is read.
    pub kinds: BTreeMap<Provision, KindLevels>,
}

/// A playbook that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PlaybookError {
    /// The file cannot be read.
    #[error("cannot read playbook `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a playbook.
    #[error("playbook `{path}` at `{at}`: {message} (expected {{\"domain\": ..., \"kinds\": {{\"cap_on_liability\": {{\"binds_us\": \"high\"|\"medium\"|\"low\"|null, \"binds_them\": ..., \"holder_benefits\"?: bool, \"absent\"?: level, \"serious_at\"?: 0..1}}}}}})")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The JSON path of the problem.
        at: String,
        /// What is wrong.
        message: String,
    },
}

impl Playbook {
    /// The playbook shipped for `domain` (the generic one for [`Domain::Generic`]).
    pub fn for_domain(domain: Domain) -> Playbook {
        Self::shipped(domain).clone()
    }

    /// The shipped playbook of `domain`, read once.
    pub fn shipped(domain: Domain) -> &'static Playbook {
        static SHIPPED: [LazyLock<Playbook>; 3] = [
            LazyLock::new(|| Playbook::read_shipped(Domain::Generic)),
            LazyLock::new(|| Playbook::read_shipped(Domain::Fidic)),
            LazyLock::new(|| Playbook::read_shipped(Domain::ShaSpa)),
        ];
        let i = match domain {
            Domain::Generic => 0,
            Domain::Fidic => 1,
            Domain::ShaSpa => 2,
        };
        &SHIPPED[i]
    }

    fn read_shipped(domain: Domain) -> Playbook {
        serde_json::from_str(Self::text_for(domain))
            .expect("the shipped playbooks are valid (tested)")
    }

    /// The shipped playbook's JSON text for `domain`, to copy and edit.
    pub fn text_for(domain: Domain) -> &'static str {
        match domain {
            Domain::Generic => include_str!("../../../playbooks/generic.json"),
            Domain::Fidic => include_str!("../../../playbooks/fidic.json"),
            Domain::ShaSpa => include_str!("../../../playbooks/sha_spa.json"),
        }
    }

    /// Reads a playbook file; an error names the file and the JSON path of the problem.
    pub fn load(path: &Path) -> Result<Playbook, PlaybookError> {
        let text = std::fs::read_to_string(path).map_err(|source| PlaybookError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Reads a playbook from its JSON text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Playbook, PlaybookError> {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de).map_err(|err| PlaybookError::Invalid {
            path: path.to_path_buf(),
            at: err.path().to_string(),
            message: err.inner().to_string(),
        })
    }

    /// The levels of `kind`, if the playbook reports it.
    pub fn levels(&self, kind: Provision) -> Option<&KindLevels> {
        self.kinds.get(&kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_playbooks_level_every_kind_of_the_catalogue() {
        for domain in [Domain::Generic, Domain::Fidic, Domain::ShaSpa] {
            let playbook = Playbook::for_domain(domain);
            for kind in Provision::all() {
                assert!(
                    playbook.levels(kind).is_some(),
                    "{domain:?} playbook leaves out `{kind}`"
                );
            }
        }
    }

    #[test]
    fn domains_weigh_differently() {
        let generic = Playbook::for_domain(Domain::Generic);
        let sha = Playbook::for_domain(Domain::ShaSpa);
        assert_eq!(
            generic.levels(Provision::ChangeOfControl).unwrap().binds_us,
            Some(RiskLevel::Medium)
        );
        assert_eq!(
            sha.levels(Provision::ChangeOfControl).unwrap().binds_us,
            Some(RiskLevel::High)
        );
    }

    #[test]
    fn a_bad_level_is_named_with_its_path() {
        let text = r#"{"domain": "ours", "kinds": {"insurance": {"binds_us": "severe", "binds_them": null}}}"#;
        let err = Playbook::parse(text, Path::new("ours.json")).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("ours.json"), "{message}");
        assert!(message.contains("kinds.insurance.binds_us"), "{message}");
        assert!(message.contains("severe"), "{message}");
    }

    #[test]
    fn an_unknown_field_is_refused() {
        let text = r#"{"domain": "ours", "kinds": {"insurance": {"binds_us": "low", "binds_them": null, "level": "high"}}}"#;
        let err = Playbook::parse(text, Path::new("ours.json")).unwrap_err();
        assert!(err.to_string().contains("level"), "{err}");
    }

    #[test]
    fn an_unknown_kind_is_refused_with_the_known_ones() {
        let text = r#"{"domain": "ours", "kinds": {"insurence": {"binds_us": "low", "binds_them": null}}}"#;
        let message = Playbook::parse(text, Path::new("ours.json"))
            .unwrap_err()
            .to_string();
        assert!(message.contains("ours.json"), "{message}");
        assert!(message.contains("`insurence`"), "{message}");
        assert!(message.contains("kinds.insurence"), "{message}");
        assert!(message.contains("governing_law, insurance"), "{message}");
    }

    #[test]
    fn a_missing_file_is_named() {
        let err = Playbook::load(Path::new("/nonexistent/playbook.json")).unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent/playbook.json"),
            "{err}"
        );
    }
}
