//! Preparers shared by the skills: values taken from the review state for arguments the
//! model leaves out (SPEC-19 `prepare_input`).

use skill_core::prelude::*;

use crate::state::ClauseFocus;

/// The clause under review, for `clause_id` arguments the model leaves out.
pub fn focus_clause_id(ctx: &SkillContext) -> Result<String, SkillError> {
    ctx.get::<ClauseFocus>()
        .map(|f| f.0.clone())
        .ok_or_else(|| SkillError::invalid_arguments("no clause is under review; pass `clause_id`"))
}
