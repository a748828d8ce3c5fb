//! The report itself: the [`ReviewReport`] with one [`ClauseReview`] per checklist item,
//! the [`SkillRun`]s of each, the [`ReviewMode`] that reviewed it, and the counts of
//! [`ReviewSummary`]. Every review mode writes these; renderers, evaluations and pages read
//! them.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolwright::agent::{ChatMessage, TokenUsage};

use crate::{Domain, Orchestration, Priority, Risk, RiskLevel};

/// One skill call of the review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkillRun {
    // A registered skill's own id is shared rather than copied into each of a long
    // review's runs; a name no skill has, or a report read back, is an owned string.
    /// The skill.
    pub skill_id: Cow<'static, str>,
    /// Whether it returned a value.
    pub success: bool,
    /// Error code when it failed (`unknown_skill`, `not_found`, ...).
    pub error_code: Option<String>,
    /// Error message when it failed.
    pub error_message: Option<String>,
    /// The output's `summary`, when it has a string one.
    pub summary: Option<String>,
    /// Wall time in milliseconds.
    pub elapsed_ms: f64,
}

/// The review of one checklist item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseReview {
    /// The clause.
    pub clause_id: String,
    /// Its name from the checklist.
    pub clause_name: String,
    /// Its priority.
    pub priority: Priority,
    /// Every skill called: in checklist order, or in the order the model called them (on
    /// fallback the model's calls first, then the checklist's).
    pub skills: Vec<SkillRun>,
    /// Skills of the checklist that are not registered (skipped).
    pub skipped_skills: Vec<String>,
    /// Risks found, most serious first.
    pub risks: Vec<Risk>,
    /// Which branch produced the risks (left out of the JSON in checklist mode).
    #[serde(default, skip_serializing_if = "ReviewMode::is_checklist")]
    pub mode: ReviewMode,
    /// Skills the model called, in the order it called them (ReAct mode).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_chosen: Vec<String>,
    /// The whole ReAct conversation of this clause, kept for audit (also on fallback).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<Value>")]
    pub agent_messages: Vec<ChatMessage>,
    /// Why the ReAct branch gave way to the checklist (mode `react_fallback`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// What the ReAct loop reported (unreadable final answer, iteration limit, model error).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_warnings: Vec<String>,
    /// Model turns made for this clause (ReAct mode; on fallback, the turns before it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub model_turns: usize,
    /// Tokens those turns cost, as the provider reported them.
    #[serde(default, skip_serializing_if = "TokenUsage::is_empty")]
    pub usage: TokenUsage,
}

impl ClauseReview {
    /// Clause `clause_id`'s review by the checklist, with no skill run or risk yet and no
    /// model part: the start every mode fills in.
    pub fn checklist(clause_id: String, clause_name: String, priority: Priority) -> Self {
        Self {
            clause_id,
            clause_name,
            priority,
            skills: Vec::new(),
            skipped_skills: Vec::new(),
            risks: Vec::new(),
            mode: ReviewMode::Checklist,
            tools_chosen: Vec::new(),
            agent_messages: Vec::new(),
            fallback_reason: None,
            agent_warnings: Vec::new(),
            model_turns: 0,
            usage: TokenUsage::default(),
        }
    }
}

/// Which branch reviewed a clause (SPEC-20 section 5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewMode {
    /// The checklist's `required_skills` and the review library's rules (`review::rules`).
    // The schema's description, as the mode has always been described in schemas.
    #[schemars(
        description = "The checklist's `required_skills` and the rules of [`rules`](crate::review::rules)."
    )]
    #[default]
    Checklist,
    /// The model chose the tools and wrote the risks.
    React,
    /// The ReAct branch failed (model error, no tools); the checklist reviewed the clause.
    ReactFallback,
    /// The clause was not reviewed: the review was cancelled (or could not start) before
    /// it finished. Its skills are listed as not run; it has no risks.
    NotRun,
}

impl ReviewMode {
    /// Whether this is the checklist mode (the default, not written to JSON).
    pub fn is_checklist(&self) -> bool {
        *self == Self::Checklist
    }
}

/// Counts over the whole review.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewSummary {
    /// Checklist items reviewed.
    pub clauses_reviewed: usize,
    /// Skill calls made.
    pub skill_calls: usize,
    /// Skill calls that failed (unknown skills included).
    pub skill_failures: usize,
    /// Checklist skills that are not registered, each once.
    pub unknown_skills: Vec<String>,
    /// Risks in total.
    pub total_risks: usize,
    /// High risks.
    pub high: usize,
    /// Medium risks.
    pub medium: usize,
    /// Low risks.
    pub low: usize,
    /// Clauses the model reviewed (ReAct mode).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub react_clauses: usize,
    /// Clauses where the ReAct branch failed and the checklist took over.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub react_fallbacks: usize,
    /// Clauses of the checklist that were not reviewed (the review was cancelled first);
    /// not counted in `clauses_reviewed`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub clauses_not_run: usize,
    /// Model turns over all clauses.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub model_turns: usize,
    /// Tokens of every model turn, summed over all clauses.
    #[serde(default, skip_serializing_if = "TokenUsage::is_empty")]
    pub usage: TokenUsage,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The result of an offline review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewReport {
    /// The contract reviewed.
    pub document_id: String,
    /// Domain of the review (JSON: `domain_id`, `fidic`, `sha_spa` or empty).
    #[serde(rename = "domain_id")]
    pub domain: Domain,
    /// The party the review acts for.
    pub our_party: String,
    /// Whether the checklist was made from the document (none was given).
    pub checklist_generated: bool,
    /// The review was cancelled before every clause finished: the clauses not finished are
    /// in `clauses` with mode [`ReviewMode::NotRun`] (left out of the JSON when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
    /// Per checklist item, in checklist order.
    pub clauses: Vec<ClauseReview>,
    /// Counts.
    pub summary: ReviewSummary,
    /// How a planner organised the review (the review library's `review_orchestrated`);
    /// absent otherwise.
    // The schema's description, as the field has always been described in schemas.
    #[schemars(
        description = "How a planner organised the review ([`review_orchestrated`](crate::review::review_orchestrated)); absent otherwise."
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orchestration: Option<Orchestration>,
}

impl ReviewReport {
    /// Every risk, clause by clause.
    pub fn risks(&self) -> impl Iterator<Item = &Risk> {
        self.clauses.iter().flat_map(|c| c.risks.iter())
    }
}

impl ReviewSummary {
    /// The counts over `clauses` (a clause not run is counted apart, not as reviewed).
    pub fn of(clauses: &[ClauseReview]) -> Self {
        let mut summary = ReviewSummary::default();
        for clause in clauses {
            match clause.mode {
                ReviewMode::Checklist => {}
                ReviewMode::React => summary.react_clauses += 1,
                ReviewMode::ReactFallback => summary.react_fallbacks += 1,
                ReviewMode::NotRun => {
                    summary.clauses_not_run += 1;
                    continue;
                }
            }
            summary.clauses_reviewed += 1;
            summary.model_turns += clause.model_turns;
            summary.usage += clause.usage;
            summary.skill_calls += clause.skills.len();
            summary.skill_failures += clause.skills.iter().filter(|s| !s.success).count();
            for skipped in &clause.skipped_skills {
                if !summary.unknown_skills.contains(skipped) {
                    summary.unknown_skills.push(skipped.clone());
                }
            }
            for risk in &clause.risks {
                summary.total_risks += 1;
                match risk.finding.level {
                    RiskLevel::High => summary.high += 1,
                    RiskLevel::Medium => summary.medium += 1,
                    RiskLevel::Low => summary.low += 1,
                }
            }
        }
        summary.unknown_skills.sort();
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Finding, RiskKind};

    fn clause(id: &str, mode: ReviewMode, levels: &[RiskLevel], skipped: &[&str]) -> ClauseReview {
        ClauseReview {
            clause_id: id.into(),
            clause_name: String::new(),
            priority: Priority::Medium,
            skills: vec![
                SkillRun {
                    skill_id: "a".into(),
                    success: true,
                    error_code: None,
                    error_message: None,
                    summary: None,
                    elapsed_ms: 1.0,
                },
                SkillRun {
                    skill_id: "b".into(),
                    success: false,
                    error_code: Some("unknown_skill".into()),
                    error_message: None,
                    summary: None,
                    elapsed_ms: 0.0,
                },
            ],
            skipped_skills: skipped.iter().map(|s| s.to_string()).collect(),
            risks: levels
                .iter()
                .map(|&level| Risk::new(id, Finding::new(RiskKind::TimeBar, level, "late")))
                .collect(),
            mode,
            tools_chosen: Vec::new(),
            agent_messages: Vec::new(),
            fallback_reason: None,
            agent_warnings: Vec::new(),
            model_turns: if mode == ReviewMode::React { 2 } else { 0 },
            usage: TokenUsage::default(),
        }
    }

    #[test]
    fn the_summary_counts_reviewed_clauses_and_sets_apart_those_not_run() {
        let clauses = [
            clause("1", ReviewMode::Checklist, &[RiskLevel::High], &["z", "y"]),
            clause(
                "2",
                ReviewMode::React,
                &[RiskLevel::Low, RiskLevel::Medium],
                &["y"],
            ),
            clause("3", ReviewMode::ReactFallback, &[], &[]),
            clause("4", ReviewMode::NotRun, &[RiskLevel::High], &["x"]),
        ];
        let summary = ReviewSummary::of(&clauses);
        assert_eq!(
            summary,
            ReviewSummary {
                clauses_reviewed: 3,
                skill_calls: 6,
                skill_failures: 3,
                unknown_skills: vec!["y".into(), "z".into()],
                total_risks: 3,
                high: 1,
                medium: 1,
                low: 1,
                react_clauses: 1,
                react_fallbacks: 1,
                clauses_not_run: 1,
                model_turns: 2,
                usage: TokenUsage::default(),
            }
        );
    }
}
