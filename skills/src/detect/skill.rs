//! `classify_provisions`: what kind of provision a clause is, by the learned model.

use toolwright::prelude::*;

use super::model::ProvisionModel;
use crate::index::lookup_for;
use crate::review::kinds::{Catalogued, Provision};
use crate::state::ReviewState;

/// One CUAD category a clause carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClassifiedProvision {
    /// CUAD category name (`Governing Law`, `Cap On Liability`, ...).
    pub category: String,
    /// The category as a kind (`governing_law`, `cap_on_liability`, `rofr_rofo_rofn`).
    pub kind: Provision,
    /// Calibrated probability (0 to 1) that the quoted sentence is such a provision.
    pub probability: f32,
    /// The sentence of the clause the category rests on, quoted as the clause has it.
    pub sentence: String,
}

/// The provision categories of one clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseClassification {
    /// Clause number as the document writes it (`4.1`).
    pub clause_id: String,
    /// Categories found, most probable first; empty when none reaches its threshold.
    pub categories: Vec<ClassifiedProvision>,
    /// One line the model can read directly.
    pub summary: String,
}

/// Classify a clause into CUAD provision categories (governing law, cap on liability,
/// anti-assignment, termination for convenience, ... 41 in all) with a calibrated
/// probability and the sentence each category rests on.
///
/// Call this to learn what a clause is before choosing how to analyse it. It judges the
/// clause's own text and heading, not its sub-clauses (classify those by their own ids).
/// The model is trained on English contracts; on other languages it finds little.
#[skill(id = "classify_provisions", domain = "*", category = "analysis")]
pub fn classify_provisions(
    /// Clause number to classify, for example "4.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    /// Lowest probability (0 to 1) a category needs to be listed; defaults to each category's calibrated threshold.
    min_probability: Option<f32>,
    review: Inject<ReviewState>,
) -> Result<ClauseClassification, SkillError> {
    if let Some(min) = min_probability {
        if !(0.0..=1.0).contains(&min) {
            return Err(SkillError::invalid_arguments(format!(
                "`min_probability` must be between 0 and 1, got {min}"
            )));
        }
    }
    let model = ProvisionModel::embedded().map_err(|e| {
        SkillError::new(
            toolwright::codes::SKILL_FAILED,
            format!("the built-in provision model cannot be read: {e}"),
        )
    })?;
    let lookup = lookup_for(&review.0);
    let doc = lookup.primary_or_not_found()?;
    let clause = doc.clause_or_not_found(&clause_id)?;
    let (found, read) = model.classify_clause(&doc, clause, min_probability);
    let categories: Vec<ClassifiedProvision> = found
        .into_iter()
        .map(|p| ClassifiedProvision {
            kind: p.kind,
            category: p.kind.title().to_string(),
            probability: p.probability,
            sentence: p.sentence,
        })
        .collect();
    let summary = if categories.is_empty() {
        format!(
            "Clause {}: no provision category reached its threshold ({} sentence(s) read)",
            clause.clause_id, read
        )
    } else {
        let listed: Vec<String> = categories
            .iter()
            .map(|c| format!("{} ({:.2})", c.category, c.probability))
            .collect();
        format!("Clause {}: {}", clause.clause_id, listed.join(", "))
    };
    Ok(ClauseClassification {
        clause_id: clause.clause_id.clone(),
        categories,
        summary,
    })
}
