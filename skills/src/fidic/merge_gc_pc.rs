//! `fidic_merge_gc_pc`: the sub-clause as it applies once the Particular Conditions have
//! deleted, replaced or added to the General Conditions, with the list of modifications.

use toolwright::prelude::*;

use super::documents::{review_of, scoped_clause_id, ClausePair, FidicDocuments};
use super::pc_instructions::{
    merge, word_changes, ClauseStatus, Merged, Modification, ModificationKind, TextChange,
};
use super::periods::find_periods;
use crate::document::normalize_clause_id;
use crate::review::RiskLevel;
use crate::state::ReviewState;

/// A time period the PC changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PeriodChange {
    /// The General Conditions period (`28 days`).
    pub from: String,
    /// The Particular Conditions period (`14 days`).
    pub to: String,
    /// Days added (positive) or removed (negative).
    pub difference_days: i64,
}

/// How one sub-clause stands after the PC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SubClauseStatus {
    /// The sub-clause.
    pub clause_id: String,
    /// `unchanged`, `amended`, `replaced`, `deleted` or `added`.
    pub status: ClauseStatus,
}

/// The merged sub-clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MergedClause {
    /// The clause merged.
    pub clause_id: String,
    /// `unchanged`, `amended`, `replaced`, `deleted` or `added`.
    pub status: ClauseStatus,
    /// The General Conditions text.
    pub gc_text: String,
    /// The Particular Conditions text for the clause (instructions as written).
    pub pc_text: String,
    /// The text that applies; empty when the sub-clause is deleted.
    pub merged_text: String,
    /// What the PC changed, in order.
    pub modifications: Vec<Modification>,
    /// Word-level changes from the GC text to the merged text.
    pub text_changes: Vec<TextChange>,
    /// For a clause with sub-clauses: how each one stands (empty for a single sub-clause).
    pub sub_clauses: Vec<SubClauseStatus>,
    /// Periods changed by the PC (`28 days` -> `14 days`).
    pub changed_periods: Vec<PeriodChange>,
    /// Number of modifications.
    pub modification_count: usize,
    /// Modifications that could not be applied (words not found in the GC).
    pub unapplied_count: usize,
    /// `high` when the sub-clause is deleted or replaced, a period is shortened or a change
    /// cannot be applied; `medium` for other amendments; `low` when unchanged.
    pub severity: RiskLevel,
    /// One paragraph for the reader.
    pub summary: String,
}

/// Merge a FIDIC General Conditions sub-clause with its Particular Conditions: the text that
/// applies, and each deletion, replacement or addition the PC make.
///
/// Applies the PC instructions (delete the sub-clause, replace it, delete or replace words,
/// add text, or introduce a new sub-clause) to the GC text and returns the text that applies,
/// every modification, the word-level changes and the periods the PC changed. Use it first
/// on any FIDIC clause: later analysis should read the merged text.
#[skill(id = "fidic_merge_gc_pc", domain = "fidic", category = "analysis")]
pub fn fidic_merge_gc_pc(
    /// Sub-clause number, e.g. "4.1" or "20.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    /// General Conditions text of the sub-clause; defaults to the baseline document's text
    /// (a clause with sub-clauses is merged sub-clause by sub-clause).
    #[arg(prepare = prepare_gc_text)]
    gc_text: Option<String>,
    /// Particular Conditions text for the sub-clause; defaults to the PC document's text.
    #[arg(prepare = prepare_pc_text)]
    pc_text: Option<String>,
    review: Inject<ReviewState>,
) -> Result<MergedClause, SkillError> {
    let clause_id = normalize_clause_id(&clause_id);
    let lookup = crate::index::lookup_for(&review.0);
    let docs = FidicDocuments::of(&lookup);
    if gc_text.is_none() && pc_text.is_none() && !docs.has_clause(&clause_id) {
        return Err(docs.clause_not_found("fidic_merge_gc_pc", &clause_id));
    }
    if gc_text.is_none() && pc_text.is_none() {
        return Ok(merged_tree(&clause_id, &docs.clause_pairs(&clause_id)));
    }
    let gc_text = gc_text
        .or_else(|| docs.gc_text(&clause_id))
        .unwrap_or_default();
    let pc_text = pc_text
        .or_else(|| docs.pc_text(&clause_id))
        .unwrap_or_default();
    Ok(merged_clause(&clause_id, &gc_text, &pc_text))
}

/// The clause as it applies (GC with the PC applied, sub-clause by sub-clause), and where the
/// text came from: `gc`, `pc` or `gc_with_pc`.
pub(crate) fn effective_text(docs: &FidicDocuments<'_>, clause_id: &str) -> (String, &'static str) {
    let merged = merged_tree(clause_id, &docs.clause_pairs(clause_id));
    let source = match merged.status {
        ClauseStatus::Unchanged => "gc",
        ClauseStatus::Added => "pc",
        _ => "gc_with_pc",
    };
    (merged.merged_text, source)
}

/// Merges a clause and its sub-clauses one by one.
pub(crate) fn merged_tree(clause_id: &str, pairs: &[ClausePair]) -> MergedClause {
    match pairs {
        [] => return merged_clause(clause_id, "", ""),
        [one] => return merged_clause(clause_id, &one.gc_text, &one.pc_text),
        _ => {}
    }
    let mut gc_parts = Vec::new();
    let mut pc_parts = Vec::new();
    let mut text_parts = Vec::new();
    let mut modifications = Vec::new();
    let mut sub_clauses = Vec::new();
    for pair in pairs {
        let m = merge(&pair.gc_text, &pair.pc_text);
        let id = &pair.clause_id;
        for (parts, text) in [
            (&mut gc_parts, &pair.gc_text),
            (&mut pc_parts, &pair.pc_text),
            (&mut text_parts, &m.text),
        ] {
            if !text.is_empty() {
                parts.push(format!("{id} {text}"));
            }
        }
        modifications.extend(m.modifications.into_iter().map(|mut x| {
            x.description = format!("Sub-Clause {id}: {}", x.description);
            x
        }));
        sub_clauses.push(SubClauseStatus {
            clause_id: id.clone(),
            status: m.status,
        });
    }
    let statuses: Vec<ClauseStatus> = sub_clauses.iter().map(|s| s.status).collect();
    let with_gc: Vec<ClauseStatus> = pairs
        .iter()
        .zip(&statuses)
        .filter(|(p, _)| !p.gc_text.is_empty())
        .map(|(_, s)| *s)
        .collect();
    let status = if statuses.iter().all(|s| *s == ClauseStatus::Unchanged) {
        ClauseStatus::Unchanged
    } else if statuses.iter().all(|s| *s == ClauseStatus::Added) {
        ClauseStatus::Added
    } else if !with_gc.is_empty() && with_gc.iter().all(|s| *s == ClauseStatus::Deleted) {
        ClauseStatus::Deleted
    } else {
        ClauseStatus::Amended
    };
    let merged = Merged {
        status,
        text: text_parts.join("\n"),
        modifications,
    };
    let mut out = describe(
        clause_id,
        &gc_parts.join("\n"),
        &pc_parts.join("\n"),
        merged,
    );
    out.sub_clauses = sub_clauses;
    out
}

fn prepare_gc_text(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<Option<String>, SkillError> {
    single_sub_clause_text(ctx, scope, |docs, id| docs.gc_text(id))
}

fn prepare_pc_text(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<Option<String>, SkillError> {
    single_sub_clause_text(ctx, scope, |docs, id| docs.pc_text(id))
}

/// The clause in focus's text in one document, read by `text`; none for a clause with
/// sub-clauses, which the skill itself merges one sub-clause at a time.
fn single_sub_clause_text(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
    text: fn(&FidicDocuments<'_>, &str) -> Option<String>,
) -> Result<Option<String>, SkillError> {
    let clause_id = scoped_clause_id(ctx, scope)?;
    let lookup = review_of(ctx, scope)?;
    let docs = FidicDocuments::of(&lookup);
    if docs.clause_pairs(&clause_id).len() > 1 {
        return Ok(None);
    }
    Ok(text(&docs, &clause_id))
}

/// Merges the two texts and describes the result.
pub(crate) fn merged_clause(clause_id: &str, gc_text: &str, pc_text: &str) -> MergedClause {
    describe(clause_id, gc_text, pc_text, merge(gc_text, pc_text))
}

fn describe(clause_id: &str, gc_text: &str, pc_text: &str, merged: Merged) -> MergedClause {
    let text_changes = match merged.status {
        ClauseStatus::Amended => word_changes(gc_text, &merged.text),
        _ => Vec::new(),
    };
    let changed_periods: Vec<PeriodChange> = merged
        .modifications
        .iter()
        .filter(|m| m.kind == ModificationKind::WordsReplaced && m.applied)
        .filter_map(|m| {
            let from = find_periods(&m.gc_text).into_iter().next()?;
            let to = find_periods(&m.pc_text).into_iter().next()?;
            Some(PeriodChange {
                from: from.raw,
                to: to.raw,
                difference_days: i64::from(to.days) - i64::from(from.days),
            })
        })
        .collect();
    let unapplied_count = merged.modifications.iter().filter(|m| !m.applied).count();
    let severity = match merged.status {
        ClauseStatus::Unchanged => RiskLevel::Low,
        ClauseStatus::Deleted | ClauseStatus::Replaced => RiskLevel::High,
        _ if unapplied_count > 0 || changed_periods.iter().any(|p| p.difference_days < 0) => {
            RiskLevel::High
        }
        _ => RiskLevel::Medium,
    };
    let summary = summarize(
        clause_id,
        merged.status,
        &merged.modifications,
        &changed_periods,
        unapplied_count,
    );
    MergedClause {
        clause_id: clause_id.to_string(),
        status: merged.status,
        gc_text: gc_text.trim().to_string(),
        pc_text: pc_text.trim().to_string(),
        merged_text: merged.text,
        modification_count: merged.modifications.len(),
        modifications: merged.modifications,
        text_changes,
        sub_clauses: Vec::new(),
        changed_periods,
        unapplied_count,
        severity,
        summary,
    }
}

fn summarize(
    clause_id: &str,
    status: ClauseStatus,
    mods: &[Modification],
    periods: &[PeriodChange],
    unapplied: usize,
) -> String {
    let mut out = match status {
        ClauseStatus::Unchanged => return format!("Sub-Clause {clause_id}: the Particular Conditions make no change; the General Conditions apply as written."),
        ClauseStatus::Deleted => format!("Sub-Clause {clause_id} is deleted by the Particular Conditions"),
        ClauseStatus::Replaced => format!("Sub-Clause {clause_id} is replaced in full by the Particular Conditions"),
        ClauseStatus::Added => format!("Sub-Clause {clause_id} is new, introduced by the Particular Conditions"),
        ClauseStatus::Amended => format!(
            "Sub-Clause {clause_id} is amended by the Particular Conditions: {}",
            mods.iter().map(|m| m.description.as_str()).collect::<Vec<_>>().join("; ")
        ),
    };
    let shortened = periods.iter().filter(|p| p.difference_days < 0).count();
    if shortened > 0 {
        out.push_str(&format!("; {shortened} period(s) shortened"));
    }
    if unapplied > 0 {
        out.push_str(&format!(
            "; {unapplied} instruction(s) refer to words the General Conditions do not contain"
        ));
    }
    out.push('.');
    out
}
