//! The report of an orchestrated review from the orchestrator's outcome: each deep review
//! in its clause, the plan of every clause, the planner's synthesis or why the checklist
//! review stands, the budget.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;
use toolwright::agent::orchestrate::{
    Budget, BudgetUsage, OrchestrateOutcome, OrchestrateStop, WorkerReport, WorkerStatus,
};
use toolwright::agent::{ChatMessage, TokenUsage};

use super::outline::ClauseOutline;
use super::synthesis::Synthesis;
use super::REVIEW_DEEP;
use crate::review::agent::{parse_final_response, react_risks, Language};
use crate::review::types::{
    ClausePlan, ClauseReview, DeepRun, Orchestration, PlanDepth, ReviewMode, ReviewReport,
    ReviewSummary,
};

/// The orchestration of a run that never got going: every clause by the checklist.
pub(super) fn fallback_only(
    outline: &ClauseOutline,
    budget: Budget,
    reason: &str,
    elapsed: Duration,
) -> Orchestration {
    tracing::warn!(%reason, "orchestrated review falls back to the checklist");
    Orchestration {
        plan: outline
            .entries()
            .iter()
            .map(|e| ClausePlan {
                clause_id: e.clause_id.clone(),
                depth: PlanDepth::Quick,
                reason: reason.to_string(),
            })
            .collect(),
        summary: None,
        risks: Vec::new(),
        cross_clause: Vec::new(),
        budget,
        spent: BudgetUsage::default(),
        planner_turns: 0,
        planner_usage: TokenUsage::default(),
        deep: Vec::new(),
        fallback_reason: Some(reason.to_string()),
        repairs: Vec::new(),
        warnings: Vec::new(),
        elapsed_ms: elapsed.as_secs_f64() * 1000.0,
    }
}

/// The `review_deep` calls of the planner's conversation: call id to (clause id, focus).
fn deep_calls(
    messages: &[ChatMessage],
    outline: &ClauseOutline,
) -> HashMap<String, (String, String)> {
    let mut calls = HashMap::new();
    for message in messages {
        for call in message.tool_calls() {
            if call.name != REVIEW_DEEP {
                continue;
            }
            let args: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
            let raw = match args.get("clause_id") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => continue,
            };
            let Some(id) = outline.resolve(&raw) else {
                continue;
            };
            let focus = args
                .get("focus")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_string();
            calls.insert(call.id.clone(), (id, focus));
        }
    }
    calls
}

/// The deep review kept for each clause (the last of the clause that gave an answer, else
/// its last), with the focus the planner gave.
type DeepByClause<'a> = HashMap<String, (&'a WorkerReport, String)>;

/// Puts the outcome into the report: deep reviews in their clauses, the plan of every
/// clause, the synthesis or the fallback's reason, the budget.
pub(super) fn assemble(
    report: &mut ReviewReport,
    outline: &ClauseOutline,
    outcome: OrchestrateOutcome<Synthesis>,
    language: Language,
    elapsed: Duration,
) {
    let (deep_by_clause, deep_runs) = deep_reviews(&outcome, outline);
    for clause in &mut report.clauses {
        let Some((worker, _)) = deep_by_clause.get(&clause.clause_id) else {
            continue;
        };
        *clause = deep_clause(clause, worker, language);
    }
    report.summary = ReviewSummary::of(&report.clauses);
    let fallback_reason = outcome.answer.is_none().then(|| fallback_reason(&outcome));
    if let Some(reason) = &fallback_reason {
        tracing::warn!(%reason, "orchestrated review falls back to the checklist for clauses not reviewed deep");
    }
    let plan = plan(
        outline,
        &deep_by_clause,
        outcome.answer.as_ref(),
        fallback_reason.as_deref(),
    );
    let mut warnings = outcome.warnings.clone();
    let (summary, risks, cross_clause) = match outcome.answer.clone() {
        Some(s) => {
            warnings.extend(s.warnings);
            (Some(s.summary), s.risks, s.cross_clause)
        }
        None => (None, Vec::new(), Vec::new()),
    };
    report.orchestration = Some(Orchestration {
        plan,
        summary,
        risks,
        cross_clause,
        budget: outcome.budget,
        spent: outcome.spent,
        planner_turns: outcome.planner.turns,
        planner_usage: outcome.planner.usage,
        deep: deep_runs,
        fallback_reason,
        repairs: outcome.repairs.clone(),
        warnings,
        elapsed_ms: elapsed.as_secs_f64() * 1000.0,
    });
}

/// The deep reviews of the run: the one kept per clause, and every one as it ran.
fn deep_reviews<'a>(
    outcome: &'a OrchestrateOutcome<Synthesis>,
    outline: &ClauseOutline,
) -> (DeepByClause<'a>, Vec<DeepRun>) {
    let calls = deep_calls(&outcome.final_messages, outline);
    let mut deep_by_clause: DeepByClause<'a> = HashMap::new();
    let mut deep_runs = Vec::new();
    for worker in outcome.workers.iter().filter(|w| w.worker == REVIEW_DEEP) {
        let Some((clause_id, focus)) = calls.get(&worker.call_id) else {
            continue;
        };
        deep_runs.push(DeepRun {
            clause_id: clause_id.clone(),
            status: worker.status.as_str().to_string(),
            reason: worker.status.reason().map(str::to_string),
            turns: worker.turns,
            tool_calls: worker.tool_calls,
            usage: worker.usage,
            elapsed_ms: worker.elapsed_ms,
        });
        // The last deep review of a clause that gave an answer wins; else the last one.
        let keep = match deep_by_clause.get(clause_id) {
            Some((prev, _)) => worker.answer.is_some() || prev.answer.is_none(),
            None => true,
        };
        if keep {
            deep_by_clause.insert(clause_id.clone(), (worker, focus.clone()));
        }
    }
    (deep_by_clause, deep_runs)
}

/// Why the planner gave no synthesis, for a run that ended without one.
fn fallback_reason(outcome: &OrchestrateOutcome<Synthesis>) -> String {
    match &outcome.stop_reason {
        OrchestrateStop::LlmError(err) => format!("the planner's model failed: {err}"),
        OrchestrateStop::BudgetExhausted(unit) => {
            format!("the budget ran out of {unit} before the planner answered")
        }
        OrchestrateStop::AwaitingConfirmation => {
            "a tool waits for a person's consent; a review does not wait".into()
        }
        OrchestrateStop::FinalAnswer => outcome
            .warnings
            .iter()
            .rev()
            .find(|w| w.contains("final answer is unreadable"))
            .map_or_else(
                || "the planner gave no answer".to_string(),
                |w| {
                    w.replace(
                        "the planner's final answer is unreadable",
                        "the planner's answer could not be read",
                    )
                },
            ),
    }
}

/// The plan of every clause of the outline: deep (with the planner's focus, or why the
/// checklist review stands), quick (the planner's reason, or the fallback's), or none.
fn plan(
    outline: &ClauseOutline,
    deep_by_clause: &DeepByClause<'_>,
    synthesis: Option<&Synthesis>,
    fallback_reason: Option<&str>,
) -> Vec<ClausePlan> {
    let quick: HashMap<String, String> = outline
        .quick_choices()
        .into_iter()
        .map(|q| (q.clause_id, q.reason))
        .collect();
    let entry = |id: &String, depth: PlanDepth, reason: String| ClausePlan {
        clause_id: id.clone(),
        depth,
        reason,
    };
    outline
        .entries()
        .iter()
        .map(|e| {
            let id = &e.clause_id;
            if let Some((worker, focus)) = deep_by_clause.get(id) {
                let reason = match &worker.status {
                    WorkerStatus::Complete | WorkerStatus::Incomplete(_)
                        if worker.answer.is_some() =>
                    {
                        focus.clone()
                    }
                    status => format!(
                        "{focus} (the deep review {}: {}; the checklist review stands)",
                        status.as_str(),
                        status.reason().unwrap_or("no answer")
                    ),
                };
                entry(id, PlanDepth::Deep, reason)
            } else if let Some(reason) = quick.get(id) {
                entry(id, PlanDepth::Quick, reason.clone())
            } else if let Some(reason) = fallback_reason {
                entry(
                    id,
                    PlanDepth::Quick,
                    format!("fallback to the checklist: {reason}"),
                )
            } else {
                let reason = synthesis
                    .and_then(|s| s.not_reviewed.get(id))
                    .filter(|r| !r.is_empty())
                    .cloned()
                    .unwrap_or_else(|| {
                        "not chosen by the planner (no reason given); the rules' findings stand"
                            .into()
                    });
                entry(id, PlanDepth::None, reason)
            }
        })
        .collect()
}

/// A clause's deep review: the model's risks when it answered, else the checklist's,
/// marked as a fallback with the reason.
fn deep_clause(
    checklist: &ClauseReview,
    worker: &WorkerReport,
    language: Language,
) -> ClauseReview {
    let tools: Vec<String> = worker.skill_context.keys().cloned().collect();
    let mut warnings = worker.warnings.clone();
    if let Some(reason) = worker.status.reason() {
        warnings.push(format!("deep review {}: {reason}", worker.status.as_str()));
    }
    let answer = worker
        .answer
        .as_ref()
        .map(|value| parse_final_response(&value.to_string()));
    match answer {
        Some(Ok(risks)) => ClauseReview {
            clause_id: checklist.clause_id.clone(),
            clause_name: checklist.clause_name.clone(),
            priority: checklist.priority,
            skills: Vec::new(),
            skipped_skills: Vec::new(),
            risks: react_risks(risks.iter(), &checklist.clause_id, language),
            mode: ReviewMode::React,
            tools_chosen: tools,
            agent_messages: Vec::new(),
            fallback_reason: None,
            agent_warnings: warnings,
            model_turns: worker.turns,
            usage: worker.usage,
        },
        other => {
            let reason = match other {
                Some(Err(err)) => format!("the deep review's answer is no risk list: {err}"),
                _ => format!(
                    "the deep review {}: {}",
                    worker.status.as_str(),
                    worker.status.reason().unwrap_or("no answer")
                ),
            };
            ClauseReview {
                mode: ReviewMode::ReactFallback,
                tools_chosen: tools,
                fallback_reason: Some(reason),
                agent_warnings: warnings,
                model_turns: worker.turns,
                usage: worker.usage,
                ..checklist.clone()
            }
        }
    }
}
