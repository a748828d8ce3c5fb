//! The review state the host injects into skills (`Inject<ReviewState>`), and the clause the
//! review is currently looking at (`ClauseFocus`), from which arguments are prepared.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::fmt;
use std::str::FromStr;

use crate::document::DocumentStructure;

/// The domain of a review: which domain skills, checklist items and prompts apply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Domain {
    /// No domain: the generic skills only.
    #[default]
    Generic,
    /// FIDIC construction contracts.
    Fidic,
    /// Share purchase and shareholders' agreements.
    ShaSpa,
}

impl Domain {
    /// The named domains, as a host offers them.
    pub const NAMED: [Domain; 2] = [Domain::Fidic, Domain::ShaSpa];

    /// The domain id skills and reports use: `fidic`, `sha_spa`, or empty for none.
    pub const fn as_str(self) -> &'static str {
        match self {
            Domain::Generic => "",
            Domain::Fidic => "fidic",
            Domain::ShaSpa => "sha_spa",
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A domain id that names no domain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown domain `{0}`; expected `fidic` or `sha_spa`")]
pub struct UnknownDomain(pub String);

impl FromStr for Domain {
    type Err = UnknownDomain;

    /// `fidic`, `sha_spa`, or empty for [`Domain::Generic`].
    fn from_str(id: &str) -> Result<Self, Self::Err> {
        match id {
            "" => Ok(Domain::Generic),
            "fidic" => Ok(Domain::Fidic),
            "sha_spa" => Ok(Domain::ShaSpa),
            other => Err(UnknownDomain(other.to_string())),
        }
    }
}

impl Serialize for Domain {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Domain {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        id.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Domain {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Domain".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let ids = [Domain::Generic, Domain::Fidic, Domain::ShaSpa].map(Domain::as_str);
        schemars::json_schema!({
            "type": "string",
            "enum": ids,
            "description": "The domain id: `fidic`, `sha_spa`, or empty for none."
        })
    }
}

/// What a document is for in a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DocumentRole {
    /// The contract under review.
    Primary,
    /// The standard form it is compared with (e.g. FIDIC General Conditions).
    Baseline,
    /// Supporting material (Employer's Requirements, Particular Conditions, guidance).
    Reference,
}

/// One document of the review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewDocument {
    /// What the document is for.
    pub role: DocumentRole,
    /// File name as uploaded (`ER.md`, `PC.txt`).
    pub filename: String,
    /// The parsed document.
    pub structure: DocumentStructure,
}

/// How much a checklist item matters.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Must be reviewed first.
    Critical,
    /// Important.
    High,
    /// Normal.
    #[default]
    Medium,
    /// Nice to have.
    Low,
}

/// One clause to review and the skills suggested for it. Unknown fields are refused, so a
/// file of another kind (criteria, say) passed as a checklist is an error, not an empty review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChecklistItem {
    /// Clause number (`4.1`).
    pub clause_id: String,
    /// Clause name (`Contractor's General Obligations`).
    #[serde(default)]
    pub clause_name: String,
    /// How much it matters.
    #[serde(default)]
    pub priority: Priority,
    /// Skills to run in checklist mode (hints in agent mode).
    #[serde(default)]
    pub required_skills: Vec<String>,
    /// What to look for.
    #[serde(default)]
    pub description: String,
}

/// A review criterion: what a clause must (not) contain, and how serious a miss is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewCriterion {
    /// Identifier (`C-014`).
    pub criterion_id: String,
    /// Clause it applies to (`4.1`); `*` or empty for every clause.
    #[serde(default)]
    pub clause_id: String,
    /// Short topic (`Fitness for purpose`).
    #[serde(default)]
    pub topic: String,
    /// The requirement in words.
    pub requirement: String,
    /// `high`, `medium` or `low`.
    #[serde(default)]
    pub risk_level: String,
    /// Words whose presence triggers the criterion.
    #[serde(default)]
    pub keywords: Vec<String>,
}

/// Everything a review knows; injected into skills, never shown to the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewState {
    /// Domain of the contract (JSON: `domain_id`, `fidic`, `sha_spa`, or empty).
    #[serde(default, rename = "domain_id")]
    pub domain: Domain,
    /// The party the review acts for (`Contractor`, `Buyer`, `承包商`).
    #[serde(default)]
    pub our_party: String,
    /// Output language: `en` or `zh-CN`.
    #[serde(default)]
    pub language: String,
    /// Kind of material (`design-build`, `EPC`, ...), used to sharpen searches.
    #[serde(default)]
    pub material_type: String,
    /// Sub-type of the domain (`yellow_book`, `spa`, `sha`).
    #[serde(default)]
    pub domain_subtype: String,
    /// The documents of the review.
    #[serde(default)]
    pub documents: Vec<ReviewDocument>,
    /// Clauses to review.
    #[serde(default)]
    pub review_checklist: Vec<ChecklistItem>,
    /// Criteria given inline.
    #[serde(default)]
    pub criteria: Vec<ReviewCriterion>,
    /// A JSON or CSV file of criteria.
    #[serde(default)]
    pub criteria_file: Option<String>,
}

impl ReviewState {
    /// The first document with this role.
    pub fn document(&self, role: DocumentRole) -> Option<&ReviewDocument> {
        self.documents.iter().find(|d| d.role == role)
    }

    /// The contract under review.
    pub fn primary(&self) -> Option<&DocumentStructure> {
        self.document(DocumentRole::Primary).map(|d| &d.structure)
    }

    /// The standard form, if one was given.
    pub fn baseline(&self) -> Option<&DocumentStructure> {
        self.document(DocumentRole::Baseline).map(|d| &d.structure)
    }

    /// Every reference document.
    pub fn references(&self) -> impl Iterator<Item = &ReviewDocument> {
        self.documents
            .iter()
            .filter(|d| d.role == DocumentRole::Reference)
    }
}

/// The clause the review is looking at: put it in the `SkillContext` per checklist item so
/// skills can prepare `clause_id` (and what depends on it) when the model leaves it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClauseFocus(pub String);
