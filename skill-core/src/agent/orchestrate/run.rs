//! The engine of an orchestrated run: the agent loop of the planner (and of workers allowed
//! to delegate), workers run as ReAct loops behind their budget slices, parking for
//! consent and resuming.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use futures_util::stream::{self, StreamExt};
use serde_json::Value;
use tokio::sync::Semaphore;
use tracing::field::Empty;
use tracing::Instrument;

use super::budget::{left_in_words, Account, Clock, Counts, Meter, IN, OUT, REQ, TOOLS};
use super::metered::{MeterNotes, MeteredClient};
use super::outcome::{AgentStats, OrchestrateOutcome, OrchestrateStop, PendingAction};
use super::worker::{Worker, WorkerReport, WorkerStatus};
use super::Orchestrator;
use crate::agent::client::LlmClient;
use crate::agent::react::{
    react_agent_loop, resume_agent_loop, run_call, tool_span, traced_turn, truncate_tool_result,
    unique_call_ids, Decision, PendingToolCall, ReactOptions, ReactOutcome, ResumeError,
    StopReason,
};
use crate::confirm::PendingConfirmation;
use crate::context::SkillContext;
use crate::dialect::{ChatMessage, TokenUsage};
use crate::dispatch::Dispatcher;
use crate::error::{codes, SkillError};
use crate::result::SkillResult;
use crate::tools::{ParsedCall, ToolCall, ToolFilter};

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Skill calls of one round running at once, per agent.
const SKILL_SLOTS: usize = 8;

/// What stays the same through a run.
struct Env<'a> {
    orch: &'a Orchestrator,
    dispatcher: &'a Dispatcher,
    ctx: &'a SkillContext,
    /// The settings `run_call` reads (time limit per call).
    call_options: ReactOptions,
}

impl<'a> Env<'a> {
    fn new(orch: &'a Orchestrator, dispatcher: &'a Dispatcher, ctx: &'a SkillContext) -> Self {
        let call_options = ReactOptions {
            tool_timeout: orch.tool_timeout,
            max_tool_result_chars: orch.max_tool_result_chars,
            ..ReactOptions::default()
        };
        Self {
            orch,
            dispatcher,
            ctx,
            call_options,
        }
    }

    fn fenced(&self, tool: &str, text: &str) -> String {
        crate::fence::fence_tool_output(
            tool,
            &truncate_tool_result(text, self.orch.max_tool_result_chars),
        )
    }
}

/// Whose loop a node is: the planner's prompts differ from a delegating worker's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Planner,
    Worker,
}

/// A call waiting for a decision in an agent's last round.
enum Pending {
    /// The agent's own skill call.
    Skill {
        call_id: String,
        confirmation: PendingConfirmation,
    },
    /// A worker it called that is parked itself.
    Worker {
        call_id: String,
        parked: Box<ParkedWorker>,
    },
}

/// A worker parked for consent, with everything needed to go on.
enum ParkedWorker {
    Leaf {
        start: WorkerStart,
        leaf: Box<Leaf>,
        elapsed: Duration,
    },
    Node {
        start: WorkerStart,
        state: Box<NodeState>,
        elapsed: Duration,
    },
}

/// Which worker a call started, on what.
#[derive(Clone)]
struct WorkerStart {
    index: usize,
    call_id: String,
    task: String,
    path: String,
    /// The call's own system message, instead of the worker's.
    instructions: Option<String>,
    /// The call's turn limit.
    max_iterations: usize,
    /// The call's own skill context, instead of the run's.
    ctx: Option<SkillContext>,
}

impl std::fmt::Debug for WorkerStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerStart")
            .field("index", &self.index)
            .field("call_id", &self.call_id)
            .field("path", &self.path)
            .field("max_iterations", &self.max_iterations)
            .finish_non_exhaustive()
    }
}

/// The loop state of an agent that may delegate (the planner, or a worker when depth
/// allows).
struct NodeState {
    path: String,
    role: Role,
    model: Arc<dyn LlmClient>,
    filter: Option<ToolFilter>,
    max_turns: usize,
    temperature: f32,
    depth_left: usize,
    meter: Meter,
    messages: Vec<ChatMessage>,
    turns: usize,
    tool_calls: usize,
    usage: TokenUsage,
    skill_context: BTreeMap<String, Value>,
    warnings: Vec<String>,
    workers: Vec<WorkerReport>,
    pending: Vec<Pending>,
    asked_to_conclude: Option<String>,
    used_ids: HashSet<String>,
    /// The skill context of its calls instead of the run's (a worker's [`super::Brief`]).
    ctx: Option<SkillContext>,
}

impl NodeState {
    /// An agent that has taken no turn yet.
    #[allow(clippy::too_many_arguments)]
    fn new(
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
            path,
            role,
            model,
            filter,
            max_turns,
            temperature,
            depth_left,
            meter,
            messages,
            turns: 0,
            tool_calls: 0,
            usage: TokenUsage::default(),
            skill_context: BTreeMap::new(),
            warnings: Vec::new(),
            workers: Vec::new(),
            pending: Vec::new(),
            asked_to_conclude: None,
            used_ids: HashSet::new(),
            ctx,
        }
    }

    fn warn(&mut self, message: String) {
        tracing::warn!(agent = %self.path, "{message}");
        self.warnings.push(message);
    }

    fn pending_actions(&self) -> Vec<PendingAction> {
        let mut out = Vec::new();
        for item in &self.pending {
            match item {
                Pending::Skill {
                    call_id,
                    confirmation,
                } => out.push(PendingAction {
                    path: self.path.clone(),
                    call: PendingToolCall {
                        call_id: call_id.clone(),
                        confirmation: confirmation.clone(),
                    },
                }),
                Pending::Worker { parked, .. } => match parked.as_ref() {
                    ParkedWorker::Leaf { start, leaf, .. } => {
                        out.extend(leaf.outcome.pending_tool_calls.iter().map(|call| {
                            PendingAction {
                                path: start.path.clone(),
                                call: call.clone(),
                            }
                        }))
                    }
                    ParkedWorker::Node { state, .. } => out.extend(state.pending_actions()),
                },
            }
        }
        out
    }

    fn replace_result(&mut self, call_id: &str, content: String, is_error: bool) {
        for message in &mut self.messages {
            if let ChatMessage::Tool {
                tool_call_id,
                content: old,
                is_error: old_error,
            } = message
            {
                if tool_call_id == call_id {
                    *old = content.clone();
                    *old_error = is_error;
                }
            }
        }
    }
}

/// How an agent's loop stopped.
enum NodeStop {
    Answer(String),
    BudgetExhausted(String),
    LlmError(String),
    Parked,
}

/// A paused run: the planner's state and the run's ledger.
pub(crate) struct Paused {
    node: NodeState,
    root: Arc<Account>,
}

/// A worker call's result for its caller.
enum WorkerRun {
    /// It ended: its report, after those of its own delegations.
    Done(Vec<WorkerReport>),
    Parked(Box<ParkedWorker>),
}

/// The `invoke_agent` span of one agent (OpenTelemetry GenAI conventions).
fn agent_span(name: &str, model: Option<&str>, path: &str) -> tracing::Span {
    tracing::info_span!(
        "invoke_agent",
        otel.name = %format_args!("invoke_agent {name}"),
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = name,
        gen_ai.request.model = model.unwrap_or_default(),
        toolwright.agent.path = path,
        toolwright.agent.status = Empty,
        toolwright.agent.turns = Empty,
        toolwright.agent.model_requests = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    )
}

pub(super) async fn start<A, E>(
    orch: &Orchestrator,
    dispatcher: &Dispatcher,
    messages: Vec<ChatMessage>,
    ctx: &SkillContext,
    read_answer: impl FnMut(&str) -> Result<A, E> + Send,
) -> OrchestrateOutcome<A>
where
    E: Display,
{
    let root = Account::root(&orch.budget, Clock::start(orch.budget.wall_time));
    let mut node = NodeState::new(
        orch.name.clone(),
        Role::Planner,
        Arc::clone(&orch.model),
        orch.skills.clone(),
        orch.max_turns,
        orch.temperature,
        orch.max_depth,
        Meter::new(Arc::clone(&root), orch.turn_output_tokens),
        messages,
        None,
    );
    let env = Env::new(orch, dispatcher, ctx);
    let span = agent_span(&orch.name, orch.model.model(), &orch.name);
    let mut read_answer = read_answer;
    let stop = drive(&env, &mut node).instrument(span.clone()).await;
    let (stop, answer, repairs) = read_final(&env, &mut node, stop, &mut read_answer)
        .instrument(span.clone())
        .await;
    finish_run(node, root, stop, &span, answer, repairs)
}

/// Reads the planner's final answer, giving it [`Orchestrator::answer_repairs`] turns
/// without tools to mend one its reader refused: the answer read, and the reader's errors
/// that were sent back.
async fn read_final<A, E: Display>(
    env: &Env<'_>,
    node: &mut NodeState,
    mut stop: NodeStop,
    read_answer: &mut (impl FnMut(&str) -> Result<A, E> + Send),
) -> (NodeStop, Option<A>, Vec<String>) {
    let mut repairs = Vec::new();
    loop {
        let NodeStop::Answer(text) = &stop else {
            return (stop, None, repairs);
        };
        let err = match read_answer(text) {
            Ok(answer) => return (stop, Some(answer), repairs),
            Err(err) => err.to_string(),
        };
        let unreadable = format!("the planner's final answer is unreadable: {err}");
        if repairs.len() >= env.orch.answer_repairs {
            node.warn(unreadable);
            return (stop, None, repairs);
        }
        let mut messages = node.messages.clone();
        messages.push(ChatMessage::user(format!(
            "{} {err}",
            env.orch.repair_prompt
        )));
        let ticket = match node.meter.begin(node.meter.estimate(&messages, &[])) {
            Ok(ticket) => ticket,
            Err(short) => {
                node.warn(format!(
                    "{unreadable}; no turn to mend it: the budget ran out of {short}"
                ));
                return (stop, None, repairs);
            }
        };
        // Only a repair turn actually sent is recorded.
        repairs.push(err);
        node.messages = messages;
        node.turns += 1;
        tracing::info!(agent = %node.path, turn = node.turns, "planner asked to mend its answer");
        match traced_turn(&*node.model, &node.messages, &[], node.temperature).await {
            Ok(response) => {
                node.meter.end(ticket, Some(response.usage));
                node.usage += response.usage.unwrap_or_default();
                node.messages
                    .push(ChatMessage::assistant(response.text.clone()));
                stop = NodeStop::Answer(response.text);
            }
            Err(failure) => {
                node.meter.end(ticket, None);
                node.warn(format!(
                    "{unreadable}; the turn to mend it failed: {failure}"
                ));
                return (stop, None, repairs);
            }
        }
    }
}

pub(super) async fn resume<A, E>(
    orch: &Orchestrator,
    dispatcher: &Dispatcher,
    paused: OrchestrateOutcome<A>,
    decisions: HashMap<String, Decision>,
    ctx: &SkillContext,
    read_answer: impl FnMut(&str) -> Result<A, E> + Send,
) -> Result<OrchestrateOutcome<A>, ResumeError>
where
    E: Display,
{
    let (Some(Paused { mut node, root }), OrchestrateStop::AwaitingConfirmation) =
        (paused.paused, &paused.stop_reason)
    else {
        return Err(ResumeError::NotAwaitingConfirmation(format!(
            "{:?}",
            paused.stop_reason
        )));
    };
    let missing: Vec<String> = paused
        .pending
        .iter()
        .map(|p| p.call.confirmation.id.clone())
        .filter(|id| !decisions.contains_key(id))
        .collect();
    if !missing.is_empty() {
        return Err(ResumeError::Undecided(missing));
    }
    root.clock.resume();
    let env = Env::new(orch, dispatcher, ctx);
    let span = agent_span(&orch.name, orch.model.model(), &orch.name);
    let mut read_answer = read_answer;
    let stop = resume_node(&env, &mut node, &decisions)
        .instrument(span.clone())
        .await;
    let (stop, answer, repairs) = read_final(&env, &mut node, stop, &mut read_answer)
        .instrument(span.clone())
        .await;
    Ok(finish_run(node, root, stop, &span, answer, repairs))
}

fn finish_run<A>(
    node: NodeState,
    root: Arc<Account>,
    stop: NodeStop,
    span: &tracing::Span,
    answer: Option<A>,
    repairs: Vec<String>,
) -> OrchestrateOutcome<A> {
    let spent = root.spent();
    span.record("toolwright.agent.turns", node.turns);
    span.record("toolwright.agent.model_requests", spent.model_requests);
    span.record("gen_ai.usage.input_tokens", spent.input_tokens);
    span.record("gen_ai.usage.output_tokens", spent.output_tokens);
    let stop_reason = match stop {
        NodeStop::Answer(_) => OrchestrateStop::FinalAnswer,
        NodeStop::BudgetExhausted(short) => OrchestrateStop::BudgetExhausted(short),
        NodeStop::LlmError(err) => OrchestrateStop::LlmError(err),
        NodeStop::Parked => OrchestrateStop::AwaitingConfirmation,
    };
    span.record(
        "toolwright.agent.status",
        match &stop_reason {
            OrchestrateStop::FinalAnswer => "final_answer",
            OrchestrateStop::BudgetExhausted(_) => "budget_exhausted",
            OrchestrateStop::AwaitingConfirmation => "awaiting_confirmation",
            OrchestrateStop::LlmError(_) => "llm_error",
        },
    );
    let elapsed_ms = root.clock.elapsed().as_secs_f64() * 1000.0;
    let mut outcome = OrchestrateOutcome {
        answer,
        stop_reason,
        final_messages: node.messages.clone(),
        workers: node.workers.clone(),
        planner: AgentStats {
            turns: node.turns,
            tool_calls: node.tool_calls,
            usage: node.usage,
        },
        spent,
        budget: node_budget(&root),
        elapsed_ms,
        asked_to_conclude: node.asked_to_conclude.clone(),
        repairs,
        skill_context: node.skill_context.clone(),
        warnings: node.warnings.clone(),
        pending: node.pending_actions(),
        paused: None,
    };
    if !outcome.pending.is_empty() {
        root.clock.pause();
        tracing::info!(
            pending = outcome.pending.len(),
            "orchestrated run waits for confirmation"
        );
        outcome.paused = Some(Paused { node, root });
    }
    outcome
}

fn node_budget(root: &Account) -> super::Budget {
    let caps = root.caps();
    super::Budget {
        model_requests: caps[REQ],
        input_tokens: caps[IN],
        output_tokens: caps[OUT],
        tool_calls: caps[TOOLS],
        wall_time: root.clock.limit(),
    }
}

/// One planned call of a round.
enum Plan<'w> {
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

/// What a call of a round came back with.
enum CallResult {
    Skill(SkillResult),
    Worker(WorkerRun),
}

/// The turns of an agent that may delegate, until it answers, the budget is spent, or
/// calls wait for consent.
fn drive<'a>(env: &'a Env<'a>, st: &'a mut NodeState) -> BoxFuture<'a, NodeStop> {
    Box::pin(async move {
        let dialect = st.model.dialect();
        let mut tools: Vec<Value> = Vec::new();
        let mut offered: HashSet<String> = HashSet::new();
        if let Some(filter) = st.filter.clone() {
            match env.dispatcher.tools_in(dialect, &filter) {
                Ok(set) => {
                    offered.extend(set.names().map(str::to_string));
                    tools.extend(set.iter().cloned());
                }
                Err(err) => st.warn(format!(
                    "the skills cannot be offered in the client's dialect: {err}; going on without them"
                )),
            }
        }
        if st.depth_left > 0 {
            for worker in &env.orch.workers {
                offered.insert(worker.name.clone());
                tools.push(worker.definition(dialect));
            }
        }
        let (conclude_prompt, last_prompt) = match st.role {
            Role::Planner => (&env.orch.conclude_prompt, &env.orch.last_turn_prompt),
            Role::Worker => (
                &env.orch.worker_conclude_prompt,
                &env.orch.worker_conclude_prompt,
            ),
        };
        loop {
            let turn = st.turns + 1;
            let estimate = st.meter.estimate(&st.messages, &tools);
            let conclude = if tools.is_empty() {
                None
            } else if turn >= st.max_turns {
                Some(last_prompt.clone())
            } else if !st.meter.affords(estimate, 2) || st.meter.account.available()[TOOLS] == 0 {
                Some(format!(
                    "{conclude_prompt} (Budget left: {}.)",
                    left_in_words(&st.meter.account)
                ))
            } else {
                None
            };
            let sent: &[Value] = match &conclude {
                Some(prompt) => {
                    tracing::info!(agent = %st.path, turn, "agent asked to conclude");
                    st.messages.push(ChatMessage::user(prompt.clone()));
                    st.asked_to_conclude = Some(prompt.clone());
                    &[]
                }
                None => &tools,
            };
            let ticket = match st.meter.begin(st.meter.estimate(&st.messages, sent)) {
                Ok(ticket) => ticket,
                Err(short) => {
                    st.warn(format!(
                        "no turn left: the budget ran out of {short} (turn {turn})"
                    ));
                    return NodeStop::BudgetExhausted(short.to_string());
                }
            };
            st.turns = turn;
            let response = match traced_turn(&*st.model, &st.messages, sent, st.temperature).await {
                Ok(response) => response,
                Err(err) => {
                    st.meter.end(ticket, None);
                    st.warn(format!("LLM call failed in turn {turn}: {err}"));
                    return NodeStop::LlmError(err.to_string());
                }
            };
            st.meter.end(ticket, Some(response.usage));
            st.usage += response.usage.unwrap_or_default();
            if response.tool_calls.is_empty() || conclude.is_some() {
                if !response.tool_calls.is_empty() {
                    st.warn(format!(
                        "the model called {} tool(s) in its concluding turn; not run",
                        response.tool_calls.len()
                    ));
                }
                st.messages
                    .push(ChatMessage::assistant(response.text.clone()));
                return NodeStop::Answer(response.text);
            }

            let calls = unique_call_ids(response.tool_calls, turn, &mut st.used_ids);
            let plans = plan_round(env, st, &calls, estimate);
            let offered_now: HashSet<&str> = offered.iter().map(String::as_str).collect();
            let worker_slots = Semaphore::new(env.orch.max_workers.max(1));
            let st_ctx = st.ctx.as_ref().unwrap_or(env.ctx);
            let skill_slots = Semaphore::new(SKILL_SLOTS);
            let depth_left = st.depth_left;
            let futures: Vec<BoxFuture<'_, (CallResult, f64)>> = calls
                .iter()
                .zip(plans)
                .map(|(call, plan)| {
                    let (worker_slots, skill_slots, offered_now) =
                        (&worker_slots, &skill_slots, &offered_now);
                    let span = tool_span(call);
                    let fut: BoxFuture<'_, (CallResult, f64)> = Box::pin(
                        async move {
                            let started = Instant::now();
                            let result = match plan {
                                Plan::Refused(result) => CallResult::Skill(result),
                                Plan::NotStarted(report) => {
                                    CallResult::Worker(WorkerRun::Done(vec![report]))
                                }
                                Plan::Skill => {
                                    let _slot = skill_slots.acquire().await.ok();
                                    CallResult::Skill(
                                        run_call(
                                            env.dispatcher,
                                            st_ctx,
                                            offered_now,
                                            call,
                                            &env.call_options,
                                        )
                                        .await,
                                    )
                                }
                                Plan::Worker {
                                    worker,
                                    start,
                                    slice,
                                    time_holdback,
                                } => {
                                    let _slot = worker_slots.acquire().await.ok();
                                    CallResult::Worker(
                                        run_worker(
                                            env,
                                            worker,
                                            start,
                                            slice,
                                            depth_left - 1,
                                            time_holdback,
                                        )
                                        .await,
                                    )
                                }
                            };
                            let span = tracing::Span::current();
                            if let CallResult::Skill(SkillResult {
                                error: Some(err), ..
                            }) = &result
                            {
                                span.record("error.type", err.code.as_ref());
                                span.record("otel.status_code", "ERROR");
                            }
                            (result, started.elapsed().as_secs_f64() * 1000.0)
                        }
                        .instrument(span),
                    );
                    fut
                })
                .collect();
            let results = join_all(futures).await;
            st.tool_calls += calls.len();
            st.messages.push(ChatMessage::assistant_tool_calls(
                Some(response.text),
                calls.clone(),
            ));
            for (call, (result, elapsed_ms)) in calls.into_iter().zip(results) {
                tracing::info!(agent = %st.path, tool = %call.name, call_id = %call.id, elapsed_ms, "tool call");
                match result {
                    CallResult::Skill(result) => {
                        if result.success {
                            st.skill_context
                                .insert(result.skill_id.to_string(), result.data_value());
                        }
                        if let Some(confirmation) = result.pending_confirmation() {
                            st.pending.push(Pending::Skill {
                                call_id: call.id.clone(),
                                confirmation,
                            });
                        }
                        let content = env.fenced(&call.name, &result.to_model_json());
                        st.messages
                            .push(ChatMessage::tool(call.id, content, !result.success));
                    }
                    CallResult::Worker(WorkerRun::Done(reports)) => {
                        let (content, failed) = worker_result(env, &call.name, &reports, st);
                        st.workers.extend(reports);
                        st.messages
                            .push(ChatMessage::tool(call.id, content, failed));
                    }
                    CallResult::Worker(WorkerRun::Parked(parked)) => {
                        let content = env.fenced(
                            &call.name,
                            r#"{"status": "waiting", "reason": "a call of this worker waits for a person's consent"}"#,
                        );
                        st.pending.push(Pending::Worker {
                            call_id: call.id.clone(),
                            parked,
                        });
                        st.messages.push(ChatMessage::tool(call.id, content, false));
                    }
                }
            }
            if !st.pending.is_empty() {
                return NodeStop::Parked;
            }
        }
    })
}

/// The tool result of a finished worker call (its report is the last) and whether it
/// failed; failures and incomplete runs become warnings of the caller.
fn worker_result(
    env: &Env<'_>,
    name: &str,
    reports: &[WorkerReport],
    st: &mut NodeState,
) -> (String, bool) {
    let Some(report) = reports.last() else {
        return (env.fenced(name, "{}"), true);
    };
    if let Some(reason) = report.status.reason() {
        st.warn(format!(
            "worker {} {}: {reason}",
            report.path,
            report.status.as_str()
        ));
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

/// Decides, in call order, what each call of a round does: tool calls beyond the budget
/// are refused; each delegation gets its slice reserved now (its own cap, else an even
/// share of what is left after the caller's concluding turn).
fn plan_round<'w>(
    env: &'w Env<'_>,
    st: &NodeState,
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
            let time_left = account.clock.remaining();
            let share = delegations_left.max(1);
            delegations_left = delegations_left.saturating_sub(1);
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
                (REQ, None, Some(_)) => Some(
                    wanted
                        .min((available[REQ].saturating_sub(holdback[REQ]) / share).max(1)),
                ),
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
        })
        .collect()
}

fn not_started(worker: &Worker, start: WorkerStart, reason: String) -> WorkerReport {
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

fn first_messages(worker: &Worker, start: &WorkerStart) -> Vec<ChatMessage> {
    let mut messages = Vec::with_capacity(2);
    let instructions = start.instructions.as_ref().unwrap_or(&worker.instructions);
    if !instructions.trim().is_empty() {
        messages.push(ChatMessage::system(instructions.clone()));
    }
    messages.push(ChatMessage::user(start.task.clone()));
    messages
}

fn worker_options(env: &Env<'_>, worker: &Worker, start: &WorkerStart) -> ReactOptions {
    let path = start.path.as_str();
    let mut options = ReactOptions::default()
        .max_iterations(start.max_iterations)
        .temperature(worker.temperature)
        .tool_filter(worker.tools.clone())
        .label(path)
        .final_answer_at_limit(env.orch.worker_conclude_prompt.clone());
    options.max_tool_result_chars = env.orch.max_tool_result_chars;
    options.tool_timeout = env.orch.tool_timeout;
    options
}

/// A ReAct worker's loop as it ended (or parked): its metered client, options and outcome.
struct Leaf {
    client: MeteredClient,
    options: ReactOptions,
    outcome: ReactOutcome<Value>,
}

/// How a worker's body ended, before it is reported.
enum Body {
    Leaf(Box<Leaf>),
    Node(Box<NodeState>, NodeStop),
    TimedOut(Duration),
}

/// Runs one worker call in its `invoke_agent` span: a ReAct loop behind its slice (or,
/// when depth allows, an agent loop that may delegate), cut at its time limit.
fn run_worker<'a>(
    env: &'a Env<'a>,
    worker: &'a Worker,
    start: WorkerStart,
    slice: Arc<Account>,
    depth_left: usize,
    time_holdback: Duration,
) -> BoxFuture<'a, WorkerRun> {
    let span = agent_span(&worker.name, worker.model.model(), &start.path);
    Box::pin(
        async move {
            let started = Instant::now();
            let meter = Meter::new(Arc::clone(&slice), env.orch.turn_output_tokens);
            let limit = [
                worker.time_limit,
                worker.budget.wall_time,
                slice
                    .clock
                    .remaining()
                    .map(|left| left.saturating_sub(time_holdback)),
            ]
            .into_iter()
            .flatten()
            .min();
            let body = worker_body(env, worker, &start, meter, depth_left);
            let body = match limit {
                Some(limit) => tokio::time::timeout(limit, body)
                    .await
                    .unwrap_or(Body::TimedOut(limit)),
                None => body.await,
            };
            settle_worker(worker, start, slice, body, started.elapsed())
        }
        .instrument(span),
    )
}

fn worker_body<'a>(
    env: &'a Env<'a>,
    worker: &'a Worker,
    start: &'a WorkerStart,
    meter: Meter,
    depth_left: usize,
) -> BoxFuture<'a, Body> {
    Box::pin(async move {
        let messages = first_messages(worker, start);
        if depth_left > 0 {
            let mut state = Box::new(NodeState::new(
                start.path.clone(),
                Role::Worker,
                Arc::clone(&worker.model),
                Some(worker.tools.clone()),
                start.max_iterations + 1,
                worker.temperature,
                depth_left,
                meter,
                messages,
                start.ctx.clone(),
            ));
            let stop = drive(env, &mut state).await;
            return Body::Node(state, stop);
        }
        let client = MeteredClient::new(
            Arc::clone(&worker.model),
            meter,
            env.orch.worker_conclude_prompt.clone(),
        );
        let options = worker_options(env, worker, start);
        let ctx = start.ctx.as_ref().unwrap_or(env.ctx);
        let has_tools = env
            .dispatcher
            .tools_in(client.dialect(), &worker.tools)
            .map_or(true, |set| !set.is_empty());
        let read = |text: &str| worker.answer.read(text);
        let outcome = if has_tools {
            react_agent_loop(&client, env.dispatcher, messages, ctx, &options, read).await
        } else {
            single_turn(&client, messages, &options, read).await
        };
        Body::Leaf(Box::new(Leaf {
            client,
            options,
            outcome,
        }))
    })
}

/// A worker with no tool: one turn, its text the answer.
async fn single_turn(
    client: &MeteredClient,
    mut messages: Vec<ChatMessage>,
    options: &ReactOptions,
    read: impl Fn(&str) -> Result<Value, String>,
) -> ReactOutcome<Value> {
    let mut outcome = ReactOutcome {
        answer: None,
        skill_context: BTreeMap::new(),
        final_messages: Vec::new(),
        stop_reason: StopReason::FinalAnswer,
        iterations: 1,
        tool_calls: 0,
        tool_runs: Vec::new(),
        usage: TokenUsage::default(),
        warnings: Vec::new(),
        pending_tool_calls: Vec::new(),
        loaded_tools: Vec::new(),
    };
    match traced_turn(client, &messages, &[], options.temperature).await {
        Ok(response) => {
            outcome.usage = response.usage.unwrap_or_default();
            match read(&response.text) {
                Ok(answer) => outcome.answer = Some(answer),
                Err(err) => outcome.warnings.push(format!(
                    "final answer unreadable ({}): {err}",
                    options.label
                )),
            }
            messages.push(ChatMessage::assistant(response.text));
        }
        Err(err) => {
            outcome
                .warnings
                .push(format!("LLM call failed ({}): {err}", options.label));
            outcome.stop_reason = StopReason::LlmError(err.to_string());
        }
    }
    outcome.final_messages = messages;
    outcome
}

/// Turns a worker's ended (or parked) body into its caller's result.
fn settle_worker(
    worker: &Worker,
    start: WorkerStart,
    slice: Arc<Account>,
    body: Body,
    elapsed: Duration,
) -> WorkerRun {
    match body {
        Body::Leaf(leaf) if leaf.outcome.stop_reason == StopReason::AwaitingConfirmation => {
            WorkerRun::Parked(Box::new(ParkedWorker::Leaf {
                start,
                leaf,
                elapsed,
            }))
        }
        Body::Node(state, NodeStop::Parked) => WorkerRun::Parked(Box::new(ParkedWorker::Node {
            start,
            state,
            elapsed,
        })),
        Body::Leaf(leaf) => {
            let Leaf {
                client, outcome, ..
            } = *leaf;
            let notes = client.notes();
            drop(client);
            let report = leaf_report(worker, start, &slice, outcome, &notes, elapsed);
            WorkerRun::Done(vec![report])
        }
        Body::Node(mut state, stop) => {
            let mut reports = std::mem::take(&mut state.workers);
            reports.push(node_report(worker, start, &slice, *state, stop, elapsed));
            WorkerRun::Done(reports)
        }
        Body::TimedOut(limit) => {
            let mut report = not_started(
                worker,
                start,
                format!(
                    "time-out: no answer within {} ms; what it gathered is lost",
                    limit.as_millis()
                ),
            );
            report.status = match report.status {
                WorkerStatus::NotRun(reason) => WorkerStatus::Failed(reason),
                other => other,
            };
            finish_report(&mut report, &slice, elapsed);
            WorkerRun::Done(vec![report])
        }
    }
}

/// Fills in what the slice says and closes it (its unused grant goes back to the caller).
fn finish_report(report: &mut WorkerReport, slice: &Account, elapsed: Duration) {
    report.granted = slice.caps();
    report.spent = slice.spent();
    report.elapsed_ms = elapsed.as_secs_f64() * 1000.0;
    slice.close();
    let span = tracing::Span::current();
    span.record("toolwright.agent.status", report.status.as_str());
    span.record("toolwright.agent.turns", report.turns);
    span.record(
        "toolwright.agent.model_requests",
        report.spent.model_requests,
    );
    span.record("gen_ai.usage.input_tokens", report.usage.prompt_tokens);
    span.record("gen_ai.usage.output_tokens", report.usage.completion_tokens);
}

fn leaf_report(
    worker: &Worker,
    start: WorkerStart,
    slice: &Account,
    outcome: ReactOutcome<Value>,
    notes: &MeterNotes,
    elapsed: Duration,
) -> WorkerReport {
    let mut cut = Vec::new();
    if let Some(refused) = &notes.refused {
        cut.push(refused.clone());
    }
    if notes.concluded {
        cut.push("its budget slice allowed no more tool rounds, so it was asked to answer from what it had".into());
    }
    if notes.calls_dropped > 0 {
        cut.push(format!(
            "{} of its tool call(s) were not run: its slice has no tool calls left",
            notes.calls_dropped
        ));
    }
    if outcome.stop_reason == StopReason::AnsweredAtLimit {
        cut.push(format!(
            "it reached its turn limit ({}) and answered from what it had",
            start.max_iterations
        ));
    }
    let status = match (&outcome.stop_reason, &outcome.answer) {
        (StopReason::LlmError(err), _) => WorkerStatus::Failed(format!("model error: {err}")),
        (_, Some(_)) if cut.is_empty() => WorkerStatus::Complete,
        (_, _) if !cut.is_empty() => WorkerStatus::Incomplete(cut.join("; ")),
        (StopReason::MaxIterations, None) => WorkerStatus::Incomplete(format!(
            "it reached its turn limit ({}) without an answer",
            start.max_iterations
        )),
        (_, _) => WorkerStatus::Failed(format!(
            "unreadable answer: {}",
            outcome
                .warnings
                .iter()
                .rev()
                .find(|w| w.starts_with("final answer unreadable"))
                .map_or("no answer", String::as_str)
        )),
    };
    let mut warnings = outcome.warnings;
    if notes.calls_dropped > 0 {
        warnings.push(format!(
            "{} tool call(s) not run: no tool calls left in the slice",
            notes.calls_dropped
        ));
    }
    let mut report = WorkerReport {
        path: start.path,
        worker: worker.name.clone(),
        call_id: start.call_id,
        task: start.task,
        status,
        answer: outcome.answer,
        skill_context: outcome.skill_context,
        turns: outcome.iterations,
        tool_calls: outcome.tool_calls,
        usage: outcome.usage,
        granted: [None; 4],
        spent: Default::default(),
        elapsed_ms: 0.0,
        warnings,
    };
    finish_report(&mut report, slice, elapsed);
    report
}

fn node_report(
    worker: &Worker,
    start: WorkerStart,
    slice: &Account,
    state: NodeState,
    stop: NodeStop,
    elapsed: Duration,
) -> WorkerReport {
    let mut answer = None;
    let status = match stop {
        NodeStop::Answer(text) => match worker.answer.read(&text) {
            Ok(read) => {
                answer = Some(read);
                match &state.asked_to_conclude {
                    None => WorkerStatus::Complete,
                    Some(_) => WorkerStatus::Incomplete(
                        "its turns or budget slice ran out; it answered from what it had".into(),
                    ),
                }
            }
            Err(err) => WorkerStatus::Failed(format!("unreadable answer: {err}")),
        },
        NodeStop::BudgetExhausted(short) => {
            WorkerStatus::Incomplete(format!("its budget slice ran out of {short}"))
        }
        NodeStop::LlmError(err) => WorkerStatus::Failed(format!("model error: {err}")),
        NodeStop::Parked => WorkerStatus::Failed("parked for consent and never resumed".into()),
    };
    let mut report = WorkerReport {
        path: start.path,
        worker: worker.name.clone(),
        call_id: start.call_id,
        task: start.task,
        status,
        answer,
        skill_context: state.skill_context,
        turns: state.turns,
        tool_calls: state.tool_calls,
        usage: state.usage,
        granted: [None; 4],
        spent: Default::default(),
        elapsed_ms: 0.0,
        warnings: state.warnings,
    };
    finish_report(&mut report, slice, elapsed);
    report
}

/// Decides the parked calls of an agent (its own and its workers'), then goes on.
fn resume_node<'a>(
    env: &'a Env<'a>,
    st: &'a mut NodeState,
    decisions: &'a HashMap<String, Decision>,
) -> BoxFuture<'a, NodeStop> {
    Box::pin(async move {
        let mut parked_workers = Vec::new();
        for item in std::mem::take(&mut st.pending) {
            match item {
                Pending::Skill {
                    call_id,
                    confirmation,
                } => {
                    let ctx = st.ctx.as_ref().unwrap_or(env.ctx);
                    let result = decide(env, ctx, &confirmation, decisions).await;
                    if result.success {
                        st.skill_context
                            .insert(result.skill_id.to_string(), result.data_value());
                    }
                    let name = env
                        .dispatcher
                        .registration(&confirmation.skill_id)
                        .map_or(confirmation.skill_id.as_str(), |r| r.wire_name);
                    let content = env.fenced(name, &result.to_model_json());
                    st.replace_result(&call_id, content, !result.success);
                }
                Pending::Worker { call_id, parked } => parked_workers.push((call_id, parked)),
            }
        }
        // Parked workers go on at the same time, as they ran, in call order.
        let resumed: Vec<(String, WorkerRun)> = stream::iter(parked_workers)
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
                    let (content, failed) = worker_result(env, &name, &reports, st);
                    st.workers.extend(reports);
                    st.replace_result(&call_id, content, failed);
                }
                WorkerRun::Parked(parked) => {
                    st.pending.push(Pending::Worker { call_id, parked });
                }
            }
        }
        if !st.pending.is_empty() {
            return NodeStop::Parked;
        }
        drive(env, st).await
    })
}

/// Runs or refuses one of the agent's own parked calls as decided.
async fn decide(
    env: &Env<'_>,
    ctx: &SkillContext,
    confirmation: &PendingConfirmation,
    decisions: &HashMap<String, Decision>,
) -> SkillResult {
    let id = confirmation.id.as_str();
    let decided = match decisions.get(id) {
        Some(Decision::Approve) => env.dispatcher.confirm(id, ctx).await,
        Some(Decision::Reject(reason)) => env.dispatcher.reject(id, reason.as_deref()),
        Some(Decision::Decided(result)) => Ok(result.clone()),
        None => Err(crate::confirm::ConfirmationError::UnknownPending(
            id.to_string(),
        )),
    };
    decided.unwrap_or_else(|_| {
        SkillResult::err(
            confirmation.skill_id.clone(),
            SkillError::new(
                codes::CONFIRMATION_REJECTED,
                format!(
                    "request {id} no longer waits for a decision (it expired, or was decided elsewhere); this decision did not run it"
                ),
            ),
            0.0,
        )
    })
}

/// Goes on with a parked worker once its calls are decided.
fn resume_worker<'a>(
    env: &'a Env<'a>,
    parked: ParkedWorker,
    decisions: &'a HashMap<String, Decision>,
) -> BoxFuture<'a, WorkerRun> {
    Box::pin(async move {
        let (start, elapsed) = match &parked {
            ParkedWorker::Leaf { start, elapsed, .. }
            | ParkedWorker::Node { start, elapsed, .. } => (start.clone(), *elapsed),
        };
        let Some(worker) = env.orch.workers.get(start.index) else {
            let reason = format!(
                "the orchestrator resuming the run has no worker {} (it was set up differently)",
                start.index
            );
            tracing::warn!(path = %start.path, "{reason}");
            return WorkerRun::Done(Vec::new());
        };
        let span = agent_span(&worker.name, worker.model.model(), &start.path);
        async move {
            let resumed = Instant::now();
            match parked {
                ParkedWorker::Leaf { leaf, .. } => {
                    let Leaf {
                        client,
                        options,
                        outcome,
                    } = *leaf;
                    let slice = Arc::clone(&client.meter.account);
                    let ids: HashSet<&str> = outcome
                        .pending_tool_calls
                        .iter()
                        .map(|p| p.confirmation.id.as_str())
                        .collect();
                    let mine: Vec<(String, Decision)> = decisions
                        .iter()
                        .filter(|(id, _)| ids.contains(id.as_str()))
                        .map(|(id, d)| (id.clone(), d.clone()))
                        .collect();
                    let read = |text: &str| worker.answer.read(text);
                    let outcome = match resume_agent_loop(
                        &client,
                        env.dispatcher,
                        outcome,
                        mine,
                        start.ctx.as_ref().unwrap_or(env.ctx),
                        &options,
                        read,
                    )
                    .await
                    {
                        Ok(outcome) => outcome,
                        Err(err) => {
                            let mut report = not_started(worker, start, err.to_string());
                            report.status = WorkerStatus::Failed(err.to_string());
                            finish_report(&mut report, &slice, elapsed);
                            return WorkerRun::Done(vec![report]);
                        }
                    };
                    let body = Body::Leaf(Box::new(Leaf {
                        client,
                        options,
                        outcome,
                    }));
                    settle_worker(worker, start, slice, body, elapsed + resumed.elapsed())
                }
                ParkedWorker::Node { mut state, .. } => {
                    let slice = Arc::clone(&state.meter.account);
                    let stop = resume_node(env, &mut state, decisions).await;
                    let body = Body::Node(state, stop);
                    settle_worker(worker, start, slice, body, elapsed + resumed.elapsed())
                }
            }
        }
        .instrument(span)
        .await
    })
}
