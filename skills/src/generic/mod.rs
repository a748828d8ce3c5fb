//! The eight generic skills (domain `*`): they work on any contract, FIDIC or SPA/SHA,
//! English or Chinese. One module per skill, plus the clause reference they share.

pub mod assess_deviation;
pub mod compare_with_baseline;
pub mod cross_reference_check;
pub mod extract_financial_terms;
pub mod get_clause_context;
pub mod load_review_criteria;
pub mod resolve_definition;
pub mod search_reference_doc;

use toolwright::prelude::*;

use crate::document::Clause;

/// Ids of the generic skills, in the order a checklist runs them.
pub const GENERIC_SKILL_IDS: [&str; 8] = [
    <get_clause_context::GetClauseContext as Skill>::ID,
    <resolve_definition::ResolveDefinition as Skill>::ID,
    <compare_with_baseline::CompareWithBaseline as Skill>::ID,
    <cross_reference_check::CrossReferenceCheck as Skill>::ID,
    <extract_financial_terms::ExtractFinancialTerms as Skill>::ID,
    <search_reference_doc::SearchReferenceDoc as Skill>::ID,
    <load_review_criteria::LoadReviewCriteria as Skill>::ID,
    <assess_deviation::AssessDeviation as Skill>::ID,
];

/// A clause named by number and title, for parents, children and neighbours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseRef {
    /// Clause number (`4.1`).
    pub clause_id: String,
    /// Heading text, empty when the clause has none.
    pub title: String,
}

impl From<&Clause> for ClauseRef {
    fn from(clause: &Clause) -> Self {
        Self {
            clause_id: clause.clause_id.clone(),
            title: clause.title.clone(),
        }
    }
}
