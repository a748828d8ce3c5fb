//! What the review finds, as data: a [`Finding`] of a [`RiskKind`] about a [`Subject`], and
//! the [`Risk`] it becomes once placed in a clause of the report. The rules, the model's
//! answers, consolidation, the reports and the eval read these values, never message text,
//! so rewording a message cannot change what the review merges, drops or scores.

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Provision;
use crate::RiskLevel;

macro_rules! risk_kinds {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal,)*) => {
        /// What kind of risk a finding is. Its [`name`](RiskKind::name) is the report's
        /// `risk_type`; [`RiskKind::from_name`] reads any name back to the same value.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum RiskKind {
            $($(#[doc = $doc])* $variant,)*
            /// A provision the scan found, or whose absence a skill reported.
            Provision(Provision),
            /// A kind this library does not name: a skill's rating of a clause (named after
            /// the skill), an outside skill's own rule, or the model's words.
            Named(Cow<'static, str>),
        }

        impl RiskKind {
            /// The kinds this library names, other than provisions.
            const NAMED: &'static [(RiskKind, &'static str)] = &[$((RiskKind::$variant, $name),)*];

            /// The kind's name: the report's `risk_type`.
            pub fn name(&self) -> &str {
                match self {
                    $(Self::$variant => $name,)*
                    Self::Provision(provision) => provision.name(),
                    Self::Named(name) => name,
                }
            }
        }
    };
}

risk_kinds! {
    /// A notice or claim period whose miss loses the right (`fidic_calculate_time_bar`).
    TimeBar => "time_bar",
    /// A time bar shorter than the General Conditions' or the usual period.
    TimeBarShortened => "time_bar_shortened",
    /// A time limit that is not a bar.
    TimeLimit => "time_limit",
    /// A standard-form clause the contract deleted.
    ClauseDeleted => "clause_deleted",
    /// A clause the standard form does not have.
    ClauseAdded => "clause_added",
    /// Less than half of the standard-form wording remains.
    BaselineDeviation => "baseline_deviation",
    /// A rewrite of most of the standard-form clause (`assess_deviation`).
    SubstantialRewrite => "substantial_rewrite",
    /// A significant change to the standard-form clause.
    SignificantChange => "significant_change",
    /// A minor change to the standard-form clause.
    MinorChange => "minor_change",
    /// Wording that moves risk was added ("fit for purpose", "sole discretion").
    RiskWordingAdded => "risk_wording_added",
    /// Protective wording was deleted ("extension of time", "reasonable").
    ProtectionRemoved => "protection_removed",
    /// A period of the standard form was shortened.
    TimePeriodShortened => "time_period_shortened",
    /// A period of the standard form was extended.
    TimePeriodExtended => "time_period_extended",
    /// A percentage of the standard form was changed.
    PercentageChanged => "percentage_changed",
    /// A keyword of the review criteria was found.
    CriterionKeyword => "criterion_keyword",
    /// A reference to a clause that does not exist.
    BrokenCrossReference => "broken_cross_reference",
    /// A reference to a clause the contract deleted.
    ReferenceToDeletedClause => "reference_to_deleted_clause",
    /// Delay damages without a stated cap.
    UncappedDelayDamages => "uncapped_delay_damages",
    /// Retention above the usual 5-10%.
    HighRetention => "high_retention",
    /// A payment period longer than the standard form's.
    LongPaymentPeriod => "long_payment_period",
    /// Terms written as defined terms that the contract never defines.
    UndefinedTerm => "undefined_term",
}

impl RiskKind {
    /// The kind named `name`: a kind this library names, a provision, else [`RiskKind::Named`].
    pub fn from_name(name: &str) -> Self {
        let name = name.trim();
        if let Some((kind, _)) = Self::NAMED.iter().find(|(_, n)| *n == name) {
            return kind.clone();
        }
        match Provision::from_name(name) {
            Some(provision) => Self::Provision(provision),
            None => Self::Named(Cow::Owned(name.to_string())),
        }
    }

    /// The kind of a skill's own rating of a clause, named after the skill.
    pub fn of_skill(skill: &str) -> Self {
        Self::from_name(skill)
    }
}

impl fmt::Display for RiskKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Provision> for RiskKind {
    fn from(provision: Provision) -> Self {
        Self::Provision(provision)
    }
}

impl Serialize for RiskKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for RiskKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Self::from_name(&name))
    }
}

/// What a finding is about, as data. Not written to the JSON report (whose fields stay as
/// they were).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Subject {
    /// The words of the clause the finding is in.
    #[default]
    Clause,
    /// Terms written as defined terms that the contract never defines.
    UndefinedTerms(Vec<String>),
    /// The agreement lacks a provision of this kind.
    Absence(RiskKind),
}

/// One thing the review found, before it is placed in the report: what kind, how serious,
/// about what, in which words, and where it belongs when that is not the clause reviewed.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// What kind of risk it is.
    pub kind: RiskKind,
    /// How serious it is.
    pub level: RiskLevel,
    /// What it is about.
    pub subject: Subject,
    /// The contract's words concerned; empty when the finding quotes none.
    pub quote: String,
    /// Where it belongs when that is not the clause reviewed: another clause's id, or
    /// [`DOCUMENT_ANCHOR`] for the agreement as a whole (reported once).
    pub anchor: Option<String>,
    /// What the risk is.
    pub description: String,
    /// Why it is a risk (the rule that fired).
    pub reason: String,
    /// Detail: the skill's summary and evidence.
    pub analysis: String,
    /// The skill (or review pass) that found it.
    pub source_skill: String,
    /// The provision classifier's calibrated probability that the quoted sentence is a
    /// provision of this kind, when the classifier found or confirmed it.
    pub probability: Option<f32>,
}

/// The clause id of findings about the agreement as a whole ("no quorum provision").
pub const DOCUMENT_ANCHOR: &str = "document";

impl Finding {
    /// Whether the finding is that the agreement lacks a provision (of its kind).
    pub fn is_absence(&self) -> bool {
        matches!(self.subject, Subject::Absence(_))
    }

    /// A finding of `kind` about the clause reviewed; the other fields start empty.
    pub fn new(kind: RiskKind, level: RiskLevel, description: impl Into<String>) -> Self {
        Self {
            kind,
            level,
            subject: Subject::Clause,
            quote: String::new(),
            anchor: None,
            description: description.into(),
            reason: String::new(),
            analysis: String::new(),
            source_skill: String::new(),
            probability: None,
        }
    }
}

/// A finding placed in the report: its id and the clause it is reported under. Written to
/// JSON in SPEC-20's risk shape (`risk_level`, `risk_type`, `location.original_text`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Risk {
    /// Stable id: `R-{clause}-{n}`.
    pub id: String,
    /// Clause the risk is reported under ([`DOCUMENT_ANCHOR`] for the agreement as a whole).
    pub clause_id: String,
    /// What was found.
    pub finding: Finding,
}

impl Risk {
    /// `finding` reported under `clause_id`, numbered later.
    pub fn new(clause_id: impl Into<String>, finding: Finding) -> Self {
        Self {
            id: String::new(),
            clause_id: clause_id.into(),
            finding,
        }
    }
}

/// The report's risk shape (SPEC-20 section 5.2, plus the clause and the skill): written
/// from a [`Risk`] by borrowing, read back into one.
#[derive(Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Risk")]
struct RiskRecord<'a> {
    /// Stable id: `R-{clause}-{n}`.
    id: Cow<'a, str>,
    /// Clause the risk is in.
    clause_id: Cow<'a, str>,
    /// How serious it is.
    risk_level: RiskLevel,
    /// Short machine-readable type (`clause_deleted`, `uncapped_delay_damages`, ...).
    #[schemars(with = "String")]
    risk_type: Cow<'a, RiskKind>,
    /// What the risk is.
    description: Cow<'a, str>,
    /// Why it is a risk (the rule that fired).
    reason: Cow<'a, str>,
    /// Detail: the skill's summary and evidence.
    analysis: Cow<'a, str>,
    /// The skill whose output produced the risk.
    source_skill: Cow<'a, str>,
    /// The contract's words, when known.
    location: Option<RiskLocation<'a>>,
    /// The provision classifier's probability, when it found or confirmed the risk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    probability: Option<f32>,
    /// `true` when the finding is that the agreement lacks a provision of `risk_type` (not
    /// written otherwise): a program tells having from lacking by this field, never by the
    /// description's words.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    absent: bool,
}

/// Where a risk is in the contract.
#[derive(Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "RiskLocation")]
struct RiskLocation<'a> {
    /// The contract's words concerned.
    original_text: Cow<'a, str>,
}

impl Serialize for Risk {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let f = &self.finding;
        RiskRecord {
            id: Cow::Borrowed(&self.id),
            clause_id: Cow::Borrowed(&self.clause_id),
            risk_level: f.level,
            risk_type: Cow::Borrowed(&f.kind),
            description: Cow::Borrowed(&f.description),
            reason: Cow::Borrowed(&f.reason),
            analysis: Cow::Borrowed(&f.analysis),
            source_skill: Cow::Borrowed(&f.source_skill),
            location: (!f.quote.is_empty()).then(|| RiskLocation {
                original_text: Cow::Borrowed(&f.quote),
            }),
            probability: f.probability,
            absent: f.is_absence(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Risk {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let r = RiskRecord::deserialize(deserializer)?;
        let clause_id = r.clause_id.into_owned();
        let kind = r.risk_type.into_owned();
        Ok(Self {
            id: r.id.into_owned(),
            finding: Finding {
                subject: if r.absent {
                    Subject::Absence(kind.clone())
                } else {
                    Subject::Clause
                },
                kind,
                level: r.risk_level,
                quote: r
                    .location
                    .map(|l| l.original_text.into_owned())
                    .unwrap_or_default(),
                anchor: None,
                description: r.description.into_owned(),
                reason: r.reason.into_owned(),
                analysis: r.analysis.into_owned(),
                source_skill: r.source_skill.into_owned(),
                probability: r.probability,
            },
            clause_id,
        })
    }
}

impl JsonSchema for Risk {
    fn schema_name() -> Cow<'static, str> {
        RiskRecord::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        RiskRecord::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name() {
        let mut kinds: Vec<RiskKind> = RiskKind::NAMED.iter().map(|(k, _)| k.clone()).collect();
        kinds.extend(Provision::all().map(RiskKind::Provision));
        kinds.push(RiskKind::Named("acme_review".into()));
        for kind in kinds {
            assert_eq!(RiskKind::from_name(kind.name()), kind, "{kind}");
        }
    }

    #[test]
    fn names_are_distinct() {
        let mut names: Vec<&str> = RiskKind::NAMED.iter().map(|(_, n)| *n).collect();
        names.extend(Provision::all().map(Provision::name));
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "two kinds share a name");
    }

    #[test]
    fn a_skill_named_like_a_kind_is_that_kind() {
        assert_eq!(RiskKind::from_name(" time_bar "), RiskKind::TimeBar);
        assert_eq!(
            RiskKind::from_name("deadlock"),
            RiskKind::Provision(Provision::Deadlock)
        );
        assert_eq!(
            RiskKind::of_skill("acme_governance_check"),
            RiskKind::Named("acme_governance_check".into())
        );
    }

    #[test]
    fn a_risk_is_written_in_the_report_shape_and_read_back() {
        let mut finding = Finding::new(RiskKind::UncappedDelayDamages, RiskLevel::High, "no cap");
        finding.quote = "0.1% per day".into();
        finding.source_skill = "acme_financial_terms".into();
        let risk = Risk {
            id: "R-8.8-1".into(),
            clause_id: "8.8".into(),
            finding,
        };
        let json = serde_json::to_value(&risk).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "id": "R-8.8-1",
                "clause_id": "8.8",
                "risk_level": "high",
                "risk_type": "uncapped_delay_damages",
                "description": "no cap",
                "reason": "",
                "analysis": "",
                "source_skill": "acme_financial_terms",
                "location": {"original_text": "0.1% per day"}
            })
        );
        let back: Risk = serde_json::from_value(json).unwrap();
        assert_eq!(back, risk);
        let mut unquoted = risk.clone();
        unquoted.finding.quote.clear();
        assert_eq!(
            serde_json::to_value(&unquoted).unwrap()["location"],
            serde_json::Value::Null
        );
    }

    #[test]
    fn a_report_risk_without_a_field_is_refused_with_its_name() {
        let err = serde_json::from_str::<Risk>(r#"{"id": "R-1", "clause_id": "1"}"#).unwrap_err();
        assert!(err.to_string().contains("risk_level"), "{err}");
    }
}
