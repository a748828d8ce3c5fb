//! What a review produces, as data: the report's types, owned by `clausewright-report` and
//! re-exported here ([`ReviewReport`] with one [`ClauseReview`] per checklist item, each with
//! the [`SkillRun`]s made and the [`Risk`]s found, the counts of [`ReviewSummary`], and
//! (orchestrated mode) the planner's [`Orchestration`]); with the options every mode takes
//! ([`ReviewOptions`]). Every mode writes these types; the renderers, the evaluation and the
//! console read them.

mod options;

pub use clausewright_report::{
    ClausePlan, ClauseReview, CrossClauseFinding, DeepRun, Finding, Orchestration, PlanDepth,
    ReviewMode, ReviewReport, ReviewSummary, Risk, RiskKind, RiskLevel, SkillRun, Subject,
    UnknownRiskLevel, DOCUMENT_ANCHOR,
};
pub use options::{ProgressFn, ProgressHook, ReviewOptions, RunReport};

use crate::state::ChecklistItem;

/// A clause of the checklist that no task finished, as the report lists it.
pub(crate) trait NotRun {
    /// `item` not reviewed: `code` and `why` on each of its skills.
    fn not_run(item: &ChecklistItem, code: &str, why: &str) -> Self;
}

impl NotRun for ClauseReview {
    fn not_run(item: &ChecklistItem, code: &str, why: &str) -> Self {
        Self {
            skills: item
                .required_skills
                .iter()
                .map(|skill_id| SkillRun {
                    skill_id: skill_id.clone().into(),
                    success: false,
                    error_code: Some(code.into()),
                    error_message: Some(why.into()),
                    summary: None,
                    elapsed_ms: 0.0,
                })
                .collect(),
            mode: ReviewMode::NotRun,
            ..Self::checklist(
                item.clause_id.clone(),
                item.clause_name.clone(),
                item.priority,
            )
        }
    }
}
