//! Preparers shared by the skills: values taken from the review state for arguments the
//! model leaves out (SPEC-19 `prepare_input`).

use toolwright::prelude::*;

use crate::index::{lookup_for, StateLookup};
use crate::state::{ClauseFocus, ReviewState};

/// The clause under review, for `clause_id` arguments the model leaves out.
pub(crate) fn focus_clause_id(ctx: &SkillContext) -> Result<String, SkillError> {
    ctx.get::<ClauseFocus>()
        .map(|f| f.0.clone())
        .ok_or_else(|| SkillError::invalid_arguments("no clause is under review; pass `clause_id`"))
}

/// The clause the model asked about (`clause_id` argument), else the clause under review.
pub(crate) fn requested_clause_id(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<String, SkillError> {
    match scope.str_argument("clause_id") {
        Some(id) if !id.trim().is_empty() => Ok(id),
        _ => focus_clause_id(ctx),
    }
}

fn review_state(ctx: &SkillContext) -> Result<StateLookup, SkillError> {
    ctx.get_arc::<ReviewState>()
        .map(|state| lookup_for(&state))
        .ok_or_else(|| {
            SkillError::missing_injection("prepare", std::any::type_name::<ReviewState>())
        })
}

/// The standard-form text of the requested clause (with its sub-clauses), from the baseline
/// document; empty when the baseline has no such clause (an added clause). Fails when the
/// review has no baseline document.
pub(crate) fn baseline_text_for_clause(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<String, SkillError> {
    let state = review_state(ctx)?;
    let baseline = state.baseline().ok_or_else(|| {
        SkillError::not_found(
            "the review has no baseline (standard form) document; pass `baseline_text`",
        )
    })?;
    let clause_id = requested_clause_id(ctx, scope)?;
    Ok(baseline.full_text(&clause_id).unwrap_or_default())
}

/// Like [`baseline_text_for_clause`], but empty when the review has no baseline document, for
/// skills that still have something to say without one.
pub(crate) fn baseline_text_if_any(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<String, SkillError> {
    let state = review_state(ctx)?;
    if state.baseline().is_none() {
        return Ok(String::new());
    }
    baseline_text_for_clause(ctx, scope)
}

/// Maximum characters of clause text used in a prepared search query.
pub(crate) const QUERY_CLAUSE_CHARS: usize = 500;

/// A search query for the requested clause: its title and the start of its text, plus the
/// review's material type and domain sub-type (as SPEC-19 `fidic_search_er` does).
pub(crate) fn clause_search_query(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<String, SkillError> {
    let state = review_state(ctx)?;
    let clause_id = requested_clause_id(ctx, scope)?;
    let mut parts: Vec<String> = Vec::new();
    if let Some(clause) = state.primary().and_then(|doc| doc.clause(&clause_id)) {
        let head: String = clause.text.chars().take(QUERY_CLAUSE_CHARS).collect();
        parts.extend([clause.title.clone(), head]);
    }
    let state = state.state();
    parts.extend([state.material_type.clone(), state.domain_subtype.clone()]);
    parts.retain(|p| !p.trim().is_empty());
    if parts.is_empty() {
        Ok(clause_id)
    } else {
        Ok(parts.join(" "))
    }
}
