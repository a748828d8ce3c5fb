//! An agent that may delegate (the planner, or a worker when depth allows) runs on the
//! ReAct turn loop with the orchestrator's hooks: its skills and its workers as tools, the
//! conclude policy (its last turn, or a budget that pays for little more than the
//! concluding turn), budget metering of every turn (the planner's answer-repair turns
//! included), and rounds whose delegations run behind reserved slices. Its own calls and
//! its workers' park for consent together and go on through the loop's one resume.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::fmt::Display;
use std::sync::Arc;
use std::time::Instant;

use futures_util::future::join_all;
use futures_util::stream::{self, StreamExt};
use serde_json::Value;
use tokio::sync::Semaphore;
use tracing::Instrument;

use super::budget::{left_in_words, Meter, Ticket, TOOLS};
use super::delegate::{resume_worker, run_worker, ParkedWorker, WorkerRun};
use super::outcome::PendingAction;
use super::plan::{plan_round, Plan};
use super::run::Env;
use super::worker::{WorkerReport, WorkerStatus};
use crate::agent::client::LlmClient;
use crate::agent::react::{
    absorb_result, run_call, settle_pending, tool_span, turn_loop, unmended_warning, AnswerRepair,
    BoxFuture, Decision, Halted, ReactOptions, ReactOutcome, StopReason, TurnHooks, TurnKind,
    TurnPlan, Unmended,
};
use crate::context::SkillContext;
use crate::dialect::{ChatMessage, TokenUsage};
use crate::result::SkillResult;
use crate::tools::{ToolCall, ToolFilter};

/// Skill calls of one round running at once, per agent.
const SKILL_SLOTS: usize = 8;

/// Whose loop a node is: the planner's prompts differ from a delegating worker's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Planner,
    Worker,
}

/// An agent that may delegate: its conversation and counts as the turn loop keeps them,
/// and what the orchestrator's hooks keep.
pub(super) struct NodeState {
    /// The conversation, turns, calls, tokens, skill outputs, warnings and own parked calls.
    pub(super) out: ReactOutcome<String>,
    pub(super) agent: Agent,
}

/// What the orchestrator keeps of an agent beside its loop's outcome.
pub(super) struct Agent {
    pub(super) path: String,
    role: Role,
    pub(super) model: Arc<dyn LlmClient>,
    filter: Option<ToolFilter>,
    max_turns: usize,
    pub(super) temperature: f32,
    pub(super) depth_left: usize,
    pub(super) meter: Meter,
    pub(super) workers: Vec<WorkerReport>,
    /// Workers it called that are parked themselves, by the call's id.
    parked: Vec<(String, Box<ParkedWorker>)>,
    pub(super) asked_to_conclude: Option<String>,
    /// Set when no turn fitted in the budget: the unit that ran out.
    exhausted: Option<String>,
    /// The skill context of its calls instead of the run's (a worker's [`super::Brief`]).
    ctx: Option<SkillContext>,
}

/// How an agent's loop stopped.
pub(super) enum NodeStop {
    Answer(String),
    BudgetExhausted(String),
    LlmError(String),
    Parked,
}

impl NodeState {
    /// An agent that has taken no turn yet.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        path: String,
        role: Role,
        model: Arc<dyn LlmClient>,
        filter: Option<ToolFilter>,
        max_turns: usize,
        temperature: f32,
        depth_left: usize,
        meter: Meter,
        messages: Vec<ChatMessage>,
        ctx: Option<SkillContext>,
    ) -> Self {
        Self {
            out: ReactOutcome::starting(messages),
            agent: Agent {
                path,
                role,
                model,
                filter,
                max_turns,
                temperature,
                depth_left,
                meter,
                workers: Vec::new(),
                parked: Vec::new(),
                asked_to_conclude: None,
                exhausted: None,
                ctx,
            },
        }
    }

    /// The calls waiting for consent, its own and its workers', in call order.
    pub(super) fn pending_actions(&self) -> Vec<PendingAction> {
        let position = |call_id: &str| {
            self.out.final_messages.iter().position(
                |m| matches!(m, ChatMessage::Tool { tool_call_id, .. } if tool_call_id == call_id),
            )
        };
        let mut by_call: Vec<(Option<usize>, Vec<PendingAction>)> = Vec::new();
        for call in &self.out.pending_tool_calls {
            let action = PendingAction {
                path: self.agent.path.clone(),
                call: call.clone(),
            };
            by_call.push((position(&call.call_id), vec![action]));
        }
        for (call_id, parked) in &self.agent.parked {
            let actions = match parked.as_ref() {
                ParkedWorker::Leaf { start, leaf, .. } => leaf
                    .outcome
                    .pending_tool_calls
                    .iter()
                    .map(|call| PendingAction {
                        path: start.path.clone(),
                        call: call.clone(),
                    })
                    .collect(),
                ParkedWorker::Node { state, .. } => state.pending_actions(),
            };
            by_call.push((position(call_id), actions));
        }
        by_call.sort_by_key(|(at, _)| *at);
        by_call
            .into_iter()
            .flat_map(|(_, actions)| actions)
            .collect()
    }
}

/// What a call of a round came back with.
pub(super) enum CallResult {
    Skill(SkillResult),
    Worker(WorkerRun),
}

/// The orchestrator's hooks on one agent's turn loop.
struct NodeTurns<'a> {
    env: &'a Env<'a>,
    agent: &'a mut Agent,
    tools: Vec<Value>,
    offered: HashSet<String>,
    /// What the last planned turn would cost with the tools.
    estimate: [u64; 4],
    ticket: Option<Ticket>,
}

impl TurnHooks<String> for NodeTurns<'_> {
    type Done = (CallResult, f64);

    fn tools(&self) -> &[Value] {
        &self.tools
    }

    fn plan(&mut self, out: &ReactOutcome<String>, turn: usize) -> TurnPlan {
        let (orch, agent) = (self.env.orch, &mut *self.agent);
        self.estimate = agent.meter.estimate(&out.final_messages, &self.tools);
        let (conclude_prompt, last_prompt) = match agent.role {
            Role::Planner => (&orch.conclude_prompt, &orch.last_turn_prompt),
            Role::Worker => (&orch.worker_conclude_prompt, &orch.worker_conclude_prompt),
        };
        let conclude = if self.tools.is_empty() {
            None
        } else if turn >= agent.max_turns {
            Some(last_prompt.clone())
        } else if !agent.meter.affords(self.estimate, 2)
            || agent.meter.account.available()[TOOLS] == 0
        {
            Some(format!(
                "{conclude_prompt} (Budget left: {}.)",
                left_in_words(&agent.meter.account)
            ))
        } else {
            None
        };
        match conclude {
            Some(prompt) => {
                tracing::info!(agent = %agent.path, turn, "agent asked to conclude");
                agent.asked_to_conclude = Some(prompt.clone());
                TurnPlan::Conclude(prompt)
            }
            None => TurnPlan::Tools,
        }
    }

    fn begin(
        &mut self,
        out: &mut ReactOutcome<String>,
        turn: usize,
        kind: TurnKind,
    ) -> Result<(), Halted> {
        let sent: &[Value] = if kind == TurnKind::Tools {
            &self.tools
        } else {
            &[]
        };
        let meter = &self.agent.meter;
        match meter.begin(meter.estimate(&out.final_messages, sent)) {
            Ok(ticket) => {
                self.ticket = Some(ticket);
                if kind == TurnKind::Repair {
                    tracing::info!(agent = %self.agent.path, turn, "{} asked to mend its answer", self.agent.role.noun());
                }
                Ok(())
            }
            Err(short) => {
                let why = format!("the budget ran out of {short}");
                // A repair turn follows an answer: without it the answer stays unread, and
                // the agent still stopped with its answer, not for want of budget.
                if kind != TurnKind::Repair {
                    let message = format!("no turn left: {why} (turn {turn})");
                    tracing::warn!(agent = %self.agent.path, "{message}");
                    out.warnings.push(message);
                    self.agent.exhausted = Some(short.to_string());
                }
                Err(Halted { why })
            }
        }
    }

    fn end(&mut self, usage: Option<Option<TokenUsage>>) {
        if let Some(ticket) = self.ticket.take() {
            self.agent.meter.end(ticket, usage);
        }
    }

    fn round<'a>(&'a mut self, calls: &'a [ToolCall]) -> BoxFuture<'a, Vec<Self::Done>> {
        let env = self.env;
        let plans = plan_round(env, self.agent, calls, self.estimate);
        let agent = &*self.agent;
        let offered = &self.offered;
        Box::pin(async move {
            let offered_now: HashSet<&str> = offered.iter().map(String::as_str).collect();
            let worker_slots = Semaphore::new(env.orch.max_workers.max(1));
            let skill_slots = Semaphore::new(SKILL_SLOTS);
            let ctx = agent.ctx.as_ref().unwrap_or(env.ctx);
            let (depth_left, slots) = (agent.depth_left, (&worker_slots, &skill_slots));
            let futures: Vec<BoxFuture<'_, (CallResult, f64)>> = calls
                .iter()
                .zip(plans)
                .map(|(call, plan)| {
                    let fut: BoxFuture<'_, (CallResult, f64)> = Box::pin(
                        run_planned(env, ctx, &offered_now, slots, call, plan, depth_left)
                            .instrument(tool_span(call)),
                    );
                    fut
                })
                .collect();
            join_all(futures).await
        })
    }

    fn absorb(&mut self, out: &mut ReactOutcome<String>, call: ToolCall, done: Self::Done) {
        let (result, elapsed_ms) = done;
        let env = self.env;
        match result {
            CallResult::Skill(result) => {
                let skill_id = env
                    .dispatcher
                    .registration(&call.name)
                    .map_or_else(|| call.name.clone(), |reg| reg.id.to_string());
                let run = (skill_id, result, elapsed_ms);
                absorb_result(out, call, run, true, env.orch.max_tool_result_chars);
            }
            CallResult::Worker(WorkerRun::Done(reports)) => {
                tracing::info!(agent = %self.agent.path, tool = %call.name, call_id = %call.id, elapsed_ms, "worker call");
                let (content, failed) = worker_result(env, &call.name, &reports, self.agent, out);
                self.agent.workers.extend(reports);
                out.final_messages
                    .push(ChatMessage::tool(call.id, content, failed));
            }
            CallResult::Worker(WorkerRun::Parked(parked)) => {
                tracing::info!(agent = %self.agent.path, tool = %call.name, call_id = %call.id, elapsed_ms, "worker call parked");
                let content = env.fenced(
                    &call.name,
                    r#"{"status": "waiting", "reason": "a call of this worker waits for a person's consent"}"#,
                );
                self.agent.parked.push((call.id.clone(), parked));
                out.final_messages
                    .push(ChatMessage::tool(call.id, content, false));
            }
        }
    }

    fn parked(&self, out: &ReactOutcome<String>) -> bool {
        !out.pending_tool_calls.is_empty() || !self.agent.parked.is_empty()
    }

    /// The planner's answer left unread in the orchestrator's words (hosts look for "final
    /// answer is unreadable"); no word on repair turns used up, as the outcome counts them.
    fn unmended(
        &mut self,
        out: &mut ReactOutcome<String>,
        label: &str,
        err: &str,
        why: Unmended<'_>,
    ) {
        let message = match self.agent.role {
            Role::Worker => unmended_warning(label, err, why),
            Role::Planner => {
                let unreadable = format!("the planner's final answer is unreadable: {err}");
                match why {
                    Unmended::NoPolicy | Unmended::UsedUp(_) => unreadable,
                    Unmended::Refused(why) => format!("{unreadable}; no turn to mend it: {why}"),
                    Unmended::Failed(failure) => {
                        format!("{unreadable}; the turn to mend it failed: {failure}")
                    }
                }
            }
        };
        tracing::warn!(agent = %self.agent.path, "{message}");
        out.warnings.push(message);
    }
}

impl Role {
    /// The agent in logs.
    fn noun(self) -> &'static str {
        match self {
            Role::Planner => "planner",
            Role::Worker => "worker",
        }
    }
}

/// The reader of an agent whose answer is its text as it is (a delegating worker's).
pub(super) fn keep_text(text: &str) -> Result<String, Infallible> {
    Ok(text.to_string())
}

/// Runs one planned call of a round in its slot: a skill call, or a worker behind its
/// slice; refusals and workers not started come back as they are.
async fn run_planned(
    env: &Env<'_>,
    ctx: &SkillContext,
    offered: &HashSet<&str>,
    (worker_slots, skill_slots): (&Semaphore, &Semaphore),
    call: &ToolCall,
    plan: Plan<'_>,
    depth_left: usize,
) -> (CallResult, f64) {
    let started = Instant::now();
    let result = match plan {
        Plan::Refused(result) => CallResult::Skill(result),
        Plan::NotStarted(report) => CallResult::Worker(WorkerRun::Done(vec![report])),
        Plan::Skill => {
            let _slot = skill_slots.acquire().await.ok();
            CallResult::Skill(run_call(env.dispatcher, ctx, offered, call, &env.call_options).await)
        }
        Plan::Worker {
            worker,
            start,
            slice,
            time_holdback,
        } => {
            let _slot = worker_slots.acquire().await.ok();
            let run = run_worker(env, worker, start, slice, depth_left - 1, time_holdback);
            CallResult::Worker(run.await)
        }
    };
    if let CallResult::Skill(SkillResult {
        error: Some(err), ..
    }) = &result
    {
        let span = tracing::Span::current();
        span.record("error.type", err.code.as_ref());
        span.record("otel.status_code", "ERROR");
    }
    (result, started.elapsed().as_secs_f64() * 1000.0)
}

/// The turns of an agent that may delegate, on the ReAct turn loop, until it answers, the
/// budget is spent, or calls wait for consent. `read` takes the final text (the text kept,
/// or the reader's error); the planner's refused answer gets the orchestrator's
/// [`answer_repairs`](super::Orchestrator::answer_repairs) turns to mend it, as the loop's
/// repair policy.
pub(super) async fn drive<R, E>(env: &Env<'_>, st: &mut NodeState, read: &mut R) -> NodeStop
where
    R: FnMut(&str) -> Result<String, E>,
    E: Display,
{
    let NodeState { out, agent } = st;
    let dialect = agent.model.dialect();
    let mut tools: Vec<Value> = Vec::new();
    let mut offered: HashSet<String> = HashSet::new();
    if let Some(filter) = agent.filter.clone() {
        match env.dispatcher.tools_in(dialect, &filter) {
            Ok(set) => {
                offered.extend(set.names().map(str::to_string));
                tools.extend(set.iter().cloned());
            }
            Err(err) => {
                let message = format!(
                    "the skills cannot be offered in the client's dialect: {err}; going on without them"
                );
                tracing::warn!(agent = %agent.path, "{message}");
                out.warnings.push(message);
            }
        }
    }
    if agent.depth_left > 0 {
        for worker in &env.orch.workers {
            offered.insert(worker.name.clone());
            tools.push(worker.definition(dialect));
        }
    }
    let orch = env.orch;
    let answer_repair =
        (agent.role == Role::Planner && orch.answer_repairs > 0).then(|| AnswerRepair {
            turns: orch.answer_repairs,
            prompt: orch.repair_prompt.clone(),
        });
    // The conclude policy bounds the turns; the loop's own limit never ends a node.
    let options = ReactOptions {
        max_iterations: usize::MAX,
        temperature: agent.temperature,
        label: agent.path.clone(),
        answer_repair,
        ..env.call_options.clone()
    };
    let model = Arc::clone(&agent.model);
    agent.exhausted = None;
    let mut hooks = NodeTurns {
        env,
        agent: &mut *agent,
        tools,
        offered,
        estimate: [0; 4],
        ticket: None,
    };
    turn_loop(&*model, &mut hooks, &options, read, out).await;
    node_stop(out, agent)
}

/// How the loop's outcome and the hooks' state say an agent stopped.
fn node_stop(out: &ReactOutcome<String>, agent: &Agent) -> NodeStop {
    if let Some(short) = &agent.exhausted {
        return NodeStop::BudgetExhausted(short.clone());
    }
    match &out.stop_reason {
        StopReason::FinalAnswer | StopReason::AnsweredAtLimit => {
            NodeStop::Answer(out.answer.clone().unwrap_or_default())
        }
        StopReason::LlmError(err) => NodeStop::LlmError(err.clone()),
        StopReason::AwaitingConfirmation => NodeStop::Parked,
        StopReason::MaxIterations | StopReason::NoTools => {
            NodeStop::BudgetExhausted("turns".into())
        }
    }
}

/// The tool result of a finished worker call (its report is the last) and whether it
/// failed; failures and incomplete runs become warnings of the caller.
pub(super) fn worker_result(
    env: &Env<'_>,
    name: &str,
    reports: &[WorkerReport],
    agent: &Agent,
    out: &mut ReactOutcome<String>,
) -> (String, bool) {
    let Some(report) = reports.last() else {
        return (env.fenced(name, "{}"), true);
    };
    if let Some(reason) = report.status.reason() {
        let message = format!(
            "worker {} {}: {reason}",
            report.path,
            report.status.as_str()
        );
        tracing::warn!(agent = %agent.path, "{message}");
        out.warnings.push(message);
    }
    let failed = matches!(
        report.status,
        WorkerStatus::Failed(_) | WorkerStatus::NotRun(_)
    );
    (
        env.fenced(name, &report.to_model_json().to_string()),
        failed,
    )
}

/// Decides the parked calls of an agent (its own through the loop's one resume, then its
/// workers'), then goes on, its final text taken by `read` (as in [`drive`]).
pub(super) async fn resume_node<R, E>(
    env: &Env<'_>,
    st: &mut NodeState,
    decisions: &HashMap<String, Decision>,
    read: &mut R,
) -> NodeStop
where
    R: FnMut(&str) -> Result<String, E>,
    E: Display,
{
    let ctx = st.agent.ctx.as_ref().unwrap_or(env.ctx);
    settle_pending(
        env.dispatcher,
        &mut st.out,
        decisions,
        ctx,
        &env.call_options,
    )
    .await;
    // Parked workers go on at the same time, as they ran, in call order.
    let parked_workers = std::mem::take(&mut st.agent.parked);
    let resumed: Vec<(String, WorkerRun)> =
        stream::iter(parked_workers)
            .map(|(call_id, parked)| async move {
                (call_id, resume_worker(env, *parked, decisions).await)
            })
            .buffered(env.orch.max_workers.max(1))
            .collect()
            .await;
    for (call_id, run) in resumed {
        match run {
            WorkerRun::Done(reports) => {
                let name = reports.last().map(|r| r.worker.clone()).unwrap_or_default();
                let (content, failed) = worker_result(env, &name, &reports, &st.agent, &mut st.out);
                st.agent.workers.extend(reports);
                crate::agent::react::replace_result(
                    &mut st.out.final_messages,
                    &call_id,
                    content,
                    failed,
                );
            }
            WorkerRun::Parked(parked) => st.agent.parked.push((call_id, parked)),
        }
    }
    if !st.agent.parked.is_empty() {
        st.out.stop_reason = StopReason::AwaitingConfirmation;
        return NodeStop::Parked;
    }
    st.out.stop_reason = StopReason::MaxIterations;
    drive(env, st, read).await
}
