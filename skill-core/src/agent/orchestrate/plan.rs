//! What each call of a planner's (or delegating worker's) round does, decided in call
//! order before any runs: tool calls beyond the budget are refused, each delegation gets
//! its budget slice reserved (or is not started, with the reason).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::budget::{Account, Counts, Meter, IN, OUT, REQ};
use super::delegate::WorkerStart;
use super::node::Agent;
use super::run::Env;
use super::worker::{Worker, WorkerReport, WorkerStatus};
use crate::dialect::{ChatMessage, TokenUsage};
use crate::error::{codes, SkillError};
use crate::result::SkillResult;
use crate::tools::{ParsedCall, ToolCall};

/// One planned call of a round.
pub(super) enum Plan<'w> {
    Skill,
    Worker {
        worker: &'w Worker,
        start: WorkerStart,
        slice: Arc<Account>,
        /// Wall time the worker must leave for its caller's concluding turn.
        time_holdback: Duration,
    },
    /// Answered without running: its result for the model.
    Refused(SkillResult),
    /// A worker that was not started.
    NotStarted(WorkerReport),
}

/// Decides, in call order, what each call of a round does: tool calls beyond the budget
/// are refused; each delegation gets its slice reserved now (its own cap, else an even
/// share of what is left after the caller's concluding turn).
pub(super) fn plan_round<'w>(
    env: &'w Env<'_>,
    st: &Agent,
    calls: &[ToolCall],
    estimate: [u64; 4],
) -> Vec<Plan<'w>> {
    let account = &st.meter.account;
    let granted = account.take_tool_calls(calls.len() as u64) as usize;
    let worker_of = |call: &ToolCall| {
        (st.depth_left > 0)
            .then(|| env.orch.workers.iter().position(|w| w.name == call.name))
            .flatten()
    };
    // The caller's concluding turn: one request, its conversation grown by every result.
    let results_tokens = calls.len() as u64 * (env.orch.max_tool_result_chars as u64 / 2);
    let holdback = [
        1,
        estimate[IN] + estimate[OUT] + results_tokens,
        estimate[OUT],
        0,
    ];
    // Wall time kept for the caller's concluding turn: twice its longest turn so far.
    let time_holdback = st.meter.turn_time() * 2;
    let mut delegations_left = calls
        .iter()
        .take(granted)
        .filter(|c| worker_of(c).is_some())
        .count() as u64;
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            if i >= granted {
                return Plan::Refused(SkillResult::err(
                    call.name.clone(),
                    SkillError::new(
                        codes::BUDGET_EXHAUSTED,
                        format!(
                            "not run: the budget has no tool call left for `{}`; conclude with what you have",
                            call.name
                        ),
                    ),
                    0.0,
                ));
            }
            let Some(index) = worker_of(call) else {
                return Plan::Skill;
            };
            let share = delegations_left.max(1);
            delegations_left = delegations_left.saturating_sub(1);
            plan_delegation(env, st, call, index, share, (holdback, time_holdback))
        })
        .collect()
}

/// Reserves the slice of delegation `call` to worker `index` (an even `share` of what is
/// left after `holdback`, the caller's concluding turn, unless the worker has caps of its
/// own), or says why the worker is not started.
fn plan_delegation<'w>(
    env: &'w Env<'_>,
    st: &Agent,
    call: &ToolCall,
    index: usize,
    share: u64,
    (holdback, time_holdback): ([u64; 4], Duration),
) -> Plan<'w> {
    let account = &st.meter.account;
    let time_left = account.clock.remaining();
    let worker = &env.orch.workers[index];
    let start = WorkerStart {
        index,
        call_id: call.id.clone(),
        task: call.arguments.clone(),
        path: format!("{}/{}#{}", st.path, worker.name, call.id),
        instructions: None,
        max_iterations: worker.max_iterations,
        ctx: None,
    };
    let arguments = ParsedCall::from_tool_call(call.clone()).arguments_value();
    let brief = match worker.brief(&arguments) {
        Ok(brief) => brief,
        Err(reason) => return Plan::NotStarted(not_started(worker, start, reason)),
    };
    let start = WorkerStart {
        task: brief.task,
        instructions: brief.instructions,
        max_iterations: brief.max_iterations.unwrap_or(worker.max_iterations),
        ctx: brief.context,
        ..start
    };
    let wanted = worker.requests_wanted(start.max_iterations);
    if time_left.is_some_and(|left| left <= time_holdback) {
        return Plan::NotStarted(not_started(
            worker,
            start,
            format!(
                "the run's wall time is nearly spent ({} ms left, kept for the caller's concluding turn)",
                time_left.unwrap_or_default().as_millis()
            ),
        ));
    }
    let available = account.available();
    let caps = account.caps();
    let own = worker.budget.caps();
    let want: Counts = std::array::from_fn(|d| match (d, own[d], caps[d]) {
        (REQ, Some(_), _) | (REQ, None, None) => Some(wanted),
        (REQ, None, Some(_)) => {
            Some(wanted.min((available[REQ].saturating_sub(holdback[REQ]) / share).max(1)))
        }
        (_, Some(cap), _) => Some(cap),
        (_, None, Some(_)) => Some(available[d].saturating_sub(holdback[d]) / share),
        (_, None, None) => None,
    });
    let slice = account.slice(want, holdback);
    let first = Meter::new(Arc::clone(&slice), env.orch.turn_output_tokens)
        .estimate(&first_messages(worker, &start), &[]);
    let slice_caps = slice.caps();
    let short = [REQ, IN, OUT]
        .into_iter()
        .find(|&d| slice_caps[d].is_some_and(|cap| cap < first[d]));
    if let Some(d) = short {
        drop(slice);
        let unit = ["model requests", "input tokens", "output tokens"][d];
        return Plan::NotStarted(not_started(
            worker,
            start,
            format!(
                "the budget has too few {unit} left for this worker ({} left after keeping the caller's concluding turn)",
                available[d].saturating_sub(holdback[d])
            ),
        ));
    }
    Plan::Worker {
        worker,
        start,
        slice,
        time_holdback,
    }
}

pub(super) fn not_started(worker: &Worker, start: WorkerStart, reason: String) -> WorkerReport {
    tracing::info!(worker = %worker.name, path = %start.path, %reason, "worker not started");
    WorkerReport {
        path: start.path,
        worker: worker.name.clone(),
        call_id: start.call_id,
        task: start.task,
        status: WorkerStatus::NotRun(reason),
        answer: None,
        skill_context: BTreeMap::new(),
        turns: 0,
        tool_calls: 0,
        usage: TokenUsage::default(),
        granted: [Some(0); 4],
        spent: Default::default(),
        elapsed_ms: 0.0,
        warnings: Vec::new(),
    }
}

pub(super) fn first_messages(worker: &Worker, start: &WorkerStart) -> Vec<ChatMessage> {
    let mut messages = Vec::with_capacity(2);
    let instructions = start.instructions.as_ref().unwrap_or(&worker.instructions);
    if !instructions.trim().is_empty() {
        messages.push(ChatMessage::system(instructions.clone()));
    }
    messages.push(ChatMessage::user(start.task.clone()));
    messages
}
