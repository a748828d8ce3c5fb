//! The review state the host injects into skills (`Inject<ReviewState>`), and the clause the
//! review is currently looking at (`ClauseFocus`), from which arguments are prepared.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

// The domain of a review and how much a clause matters are the report's
// (`clausewright-report`), re-exported here where the review state uses them.
pub use clausewright_report::{Domain, Priority, UnknownDomain};

use crate::document::DocumentStructure;

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
    /// The parsed document, shared: a review and the tasks it runs read one copy of it
    /// (a long contract's structure is several times its text).
    pub structure: Arc<DocumentStructure>,
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
        self.document(DocumentRole::Primary).map(|d| &*d.structure)
    }

    /// The standard form, if one was given.
    pub fn baseline(&self) -> Option<&DocumentStructure> {
        self.document(DocumentRole::Baseline).map(|d| &*d.structure)
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
