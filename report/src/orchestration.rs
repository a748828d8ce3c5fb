//! The orchestrated review's part of the report: the planner's plan, its synthesis, the
//! budget given and spent, every deep review.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwright::agent::orchestrate::{Budget, BudgetUsage};
use toolwright::agent::TokenUsage;

use crate::{Risk, RiskLevel};

/// How deeply the planner had a clause reviewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanDepth {
    /// A ReAct worker reviewed it.
    Deep,
    /// The rules' checklist reviewed it, at the planner's choice.
    Quick,
    /// The planner chose neither; the rules' findings of the outline stand.
    None,
}

impl PlanDepth {
    /// The depth as written in JSON and shown to people: `deep`, `quick` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Deep => "deep",
            Self::Quick => "quick",
            Self::None => "none",
        }
    }
}

/// The planner's decision for one clause, in its words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClausePlan {
    /// The clause.
    pub clause_id: String,
    /// Deep, quick or none.
    pub depth: PlanDepth,
    /// Why: the planner's focus for a deep review, its reason for a quick one or none.
    pub reason: String,
}

/// A finding that spans clauses (a cap in one, an uncapped indemnity in another).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CrossClauseFinding {
    /// Every clause involved (two or more).
    pub clause_ids: Vec<String>,
    /// How serious.
    pub risk_level: RiskLevel,
    /// Its kind, in the planner's words (may be empty).
    #[serde(default)]
    pub risk_type: String,
    /// What the clauses do together.
    pub description: String,
}

/// One deep review as it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeepRun {
    /// The clause.
    pub clause_id: String,
    /// `complete`, `incomplete`, `failed` or `not_run`.
    pub status: String,
    /// Why it was incomplete, failed or did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Model turns.
    pub turns: usize,
    /// Skill calls.
    pub tool_calls: usize,
    /// Tokens, as reported.
    pub usage: TokenUsage,
    /// Wall time in milliseconds.
    pub elapsed_ms: f64,
}

/// The JSON form of the orchestrator's [`Budget`]: each limit or `null`, wall time in
/// milliseconds.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Budget")]
struct BudgetJson {
    /// Model requests at most.
    model_requests: Option<u64>,
    /// Input tokens at most.
    input_tokens: Option<u64>,
    /// Output tokens at most.
    output_tokens: Option<u64>,
    /// Tool calls at most.
    tool_calls: Option<u64>,
    /// Wall time at most, in milliseconds.
    #[serde(rename = "wall_time_ms", with = "millis")]
    #[schemars(with = "Option<u64>")]
    wall_time: Option<Duration>,
}

/// The JSON form of the orchestrator's [`BudgetUsage`].
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(remote = "BudgetUsage")]
struct BudgetUsageJson {
    /// Model requests sent.
    model_requests: u64,
    /// Input tokens reported.
    input_tokens: u64,
    /// Output tokens reported.
    output_tokens: u64,
    /// Tool calls run (deep reviews included).
    tool_calls: u64,
}

/// An optional duration as whole milliseconds.
mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

/// The orchestration of a review: the plan, the synthesis, the budget and who spent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Orchestration {
    /// Every clause: reviewed deep, quick or not at all, and why.
    pub plan: Vec<ClausePlan>,
    /// The planner's summary for a person (`None` when the planner failed).
    pub summary: Option<String>,
    /// The planner's risks, de-duplicated across clauses, most serious first.
    pub risks: Vec<Risk>,
    /// Findings that span clauses.
    pub cross_clause: Vec<CrossClauseFinding>,
    /// The budget given (JSON: each limit or `null`, wall time as `wall_time_ms`).
    #[serde(with = "BudgetJson")]
    pub budget: Budget,
    /// What the run spent of it.
    #[serde(with = "BudgetUsageJson")]
    pub spent: BudgetUsage,
    /// The planner's own turns and tokens.
    pub planner_turns: usize,
    /// Tokens of the planner's own turns.
    pub planner_usage: TokenUsage,
    /// Every deep review.
    pub deep: Vec<DeepRun>,
    /// Why the checklist review stands instead of the planner's (the planner failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// Why the planner's answers sent back for repair could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
    /// What the host should know (worker failures, dropped calls, what the reader of the
    /// planner's answer mended).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Wall time of the orchestration, in milliseconds.
    pub elapsed_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_depth_is_written_as_its_name() {
        for depth in [PlanDepth::Deep, PlanDepth::Quick, PlanDepth::None] {
            assert_eq!(
                serde_json::to_value(depth).unwrap(),
                serde_json::json!(depth.as_str())
            );
        }
    }
}
