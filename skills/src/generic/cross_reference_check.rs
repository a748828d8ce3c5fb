//! `cross_reference_check`: do the clauses a clause points to exist?

use toolwright::prelude::*;

use super::compare_with_baseline::is_deletion_marker;
use crate::document::find_references;
use crate::index::lookup_for;
use crate::state::ReviewState;

/// What a reference points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceStatus {
    /// The target clause exists in the contract.
    Resolved,
    /// The target is not in the contract but is in the standard form (e.g. a General
    /// Condition the Particular Conditions leave unchanged).
    ResolvedInBaseline,
    /// The target exists but the contract marks it deleted.
    Deleted,
    /// The target exists nowhere.
    Broken,
}

/// One reference and where it leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckedReference {
    /// The reference as written (`Sub-Clause 20.1`).
    pub reference_text: String,
    /// Clause id it points to (`20.1`).
    pub target_clause_id: String,
    /// `resolved`, `resolved_in_baseline`, `deleted` or `broken`.
    pub status: ReferenceStatus,
    /// Title of the target, when found.
    pub target_title: String,
}

/// The references of a clause, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CrossReferenceReport {
    /// The clause checked.
    pub clause_id: String,
    /// Every reference in the clause and its sub-clauses, in order.
    pub references: Vec<CheckedReference>,
    /// References whose target exists (in the contract or the standard form).
    pub resolved_count: usize,
    /// References to clauses that exist nowhere.
    pub broken_count: usize,
    /// References to clauses the contract deleted.
    pub deleted_count: usize,
    /// One line the model can read directly.
    pub summary: String,
}

/// Check every cross reference in a clause ("Sub-Clause 20.1", "Clause 14", "第4.1条"):
/// resolved, broken (target exists nowhere), or pointing to a clause the contract deleted.
///
/// Use it to catch references left dangling by amendments and renumbering.
#[skill(id = "cross_reference_check", domain = "*", category = "validation")]
pub fn cross_reference_check(
    /// Clause number whose references to check, for example "20.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<CrossReferenceReport, SkillError> {
    let lookup = lookup_for(&review.0);
    let doc = lookup.primary_or_not_found()?;
    let clause = doc.clause_or_not_found(&clause_id)?;
    let text = doc.full_text(&clause.clause_id).unwrap_or_default();
    let baseline = lookup.baseline();
    let mut references = Vec::new();
    for found in find_references(&text) {
        if found.is_to_itself(&clause.clause_id) {
            continue;
        }
        // Read from the clause: a schedule's `Section 2.2` is its own paragraph 2.2 first.
        let (status, title) = match found.resolve_from(&doc, &clause.clause_id) {
            Some(target) if is_deletion_marker(&target.text) && target.children.is_empty() => {
                (ReferenceStatus::Deleted, target.title.clone())
            }
            Some(target) => (ReferenceStatus::Resolved, target.title.clone()),
            None => match baseline.and_then(|b| found.resolve(|id| b.clause(id))) {
                Some(target) => (ReferenceStatus::ResolvedInBaseline, target.title.clone()),
                None => (ReferenceStatus::Broken, String::new()),
            },
        };
        references.push(CheckedReference {
            reference_text: found.text,
            target_clause_id: found.target,
            status,
            target_title: title,
        });
    }
    let count = |wanted: &[ReferenceStatus]| {
        references
            .iter()
            .filter(|r| wanted.contains(&r.status))
            .count()
    };
    let resolved_count = count(&[
        ReferenceStatus::Resolved,
        ReferenceStatus::ResolvedInBaseline,
    ]);
    let broken_count = count(&[ReferenceStatus::Broken]);
    let deleted_count = count(&[ReferenceStatus::Deleted]);
    let problems: Vec<String> = references
        .iter()
        .filter(|r| matches!(r.status, ReferenceStatus::Broken | ReferenceStatus::Deleted))
        .map(|r| {
            format!(
                "{} ({})",
                r.reference_text,
                if r.status == ReferenceStatus::Broken {
                    "missing"
                } else {
                    "deleted"
                }
            )
        })
        .collect();
    let summary = if references.is_empty() {
        format!("Clause {} refers to no other clause", clause.clause_id)
    } else if problems.is_empty() {
        format!(
            "Clause {}: all {} reference(s) resolve",
            clause.clause_id,
            references.len()
        )
    } else {
        format!(
            "Clause {}: {} of {} reference(s) do not resolve: {}",
            clause.clause_id,
            problems.len(),
            references.len(),
            problems.join(", ")
        )
    };
    Ok(CrossReferenceReport {
        clause_id: clause.clause_id.clone(),
        references,
        resolved_count,
        broken_count,
        deleted_count,
        summary,
    })
}
