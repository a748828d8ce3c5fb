//! Delegation: a worker call runs as a ReAct loop behind its budget slice (or, when depth
//! allows, as an agent that delegates in turn), is cut at its time limit, parks for
//! consent and goes on, and ends in a report for its caller.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tracing::Instrument;

use super::budget::{Account, Meter};
use super::metered::{MeterNotes, MeteredClient};
use super::node::{drive, keep_text, resume_node, NodeState, NodeStop, Role};
use super::plan::{first_messages, not_started};
use super::run::{agent_span, Env};
use super::worker::{Worker, WorkerReport, WorkerStatus};
use crate::agent::client::LlmClient;
use crate::agent::react::{
    react_agent_loop, resume_agent_loop, BoxFuture, Decision, ReactOptions, ReactOutcome,
    StopReason,
};
use crate::context::SkillContext;

/// A worker call's result for its caller.
pub(super) enum WorkerRun {
    /// It ended: its report, after those of its own delegations.
    Done(Vec<WorkerReport>),
    Parked(Box<ParkedWorker>),
}

/// A worker parked for consent, with everything needed to go on.
pub(super) enum ParkedWorker {
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
pub(super) struct WorkerStart {
    pub(super) index: usize,
    pub(super) call_id: String,
    pub(super) task: String,
    pub(super) path: String,
    /// The call's own system message, instead of the worker's.
    pub(super) instructions: Option<String>,
    /// The call's turn limit.
    pub(super) max_iterations: usize,
    /// The call's own skill context, instead of the run's.
    pub(super) ctx: Option<SkillContext>,
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

fn worker_options(env: &Env<'_>, worker: &Worker, start: &WorkerStart) -> ReactOptions {
    let path = start.path.as_str();
    let mut options = ReactOptions::default()
        .max_iterations(start.max_iterations)
        .temperature(worker.temperature)
        .tool_filter(worker.tools.clone())
        .label(path)
        .final_answer_at_limit(env.orch.worker_conclude_prompt.clone())
        .answer_without_tools();
    options.max_tool_result_chars = env.orch.max_tool_result_chars;
    options.tool_timeout = env.orch.tool_timeout;
    options
}

/// A ReAct worker's loop as it ended (or parked): its metered client, options and outcome.
pub(super) struct Leaf {
    pub(super) client: MeteredClient,
    pub(super) options: ReactOptions,
    pub(super) outcome: ReactOutcome<Value>,
}

/// How a worker's body ended, before it is reported.
enum Body {
    Leaf(Box<Leaf>),
    Node(Box<NodeState>, NodeStop),
    TimedOut(Duration),
}

/// Runs one worker call in its `invoke_agent` span: a ReAct loop behind its slice (or,
/// when depth allows, an agent loop that may delegate), cut at its time limit.
pub(super) fn run_worker<'a>(
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
            let stop = drive(env, &mut state, &mut keep_text).await;
            return Body::Node(state, stop);
        }
        let client = MeteredClient::new(
            Arc::clone(&worker.model),
            meter,
            env.orch.worker_conclude_prompt.clone(),
        );
        let options = worker_options(env, worker, start);
        let ctx = start.ctx.as_ref().unwrap_or(env.ctx);
        let read = |text: &str| worker.answer.read(text);
        let outcome =
            react_agent_loop(&client, env.dispatcher, messages, ctx, &options, read).await;
        Body::Leaf(Box::new(Leaf {
            client,
            options,
            outcome,
        }))
    })
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
            let mut reports = std::mem::take(&mut state.agent.workers);
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
    mut outcome: ReactOutcome<Value>,
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
    if notes.calls_dropped > 0 {
        outcome.warnings.push(format!(
            "{} tool call(s) not run: no tool calls left in the slice",
            notes.calls_dropped
        ));
    }
    let answer = outcome.answer.take();
    ran_report(worker, start, status, answer, outcome, slice, elapsed)
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
                match &state.agent.asked_to_conclude {
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
    ran_report(worker, start, status, answer, state.out, slice, elapsed)
}

/// The report of a worker whose loop ran: the turns, calls, tokens, skill outputs and
/// warnings its outcome `out` counted, with the status and answer its kind of run read
/// from it, closed with the slice's figures.
fn ran_report<A>(
    worker: &Worker,
    start: WorkerStart,
    status: WorkerStatus,
    answer: Option<Value>,
    out: ReactOutcome<A>,
    slice: &Account,
    elapsed: Duration,
) -> WorkerReport {
    let mut report = WorkerReport {
        path: start.path,
        worker: worker.name.clone(),
        call_id: start.call_id,
        task: start.task,
        status,
        answer,
        skill_context: out.skill_context,
        turns: out.iterations,
        tool_calls: out.tool_calls,
        usage: out.usage,
        granted: [None; 4],
        spent: Default::default(),
        elapsed_ms: 0.0,
        warnings: out.warnings,
    };
    finish_report(&mut report, slice, elapsed);
    report
}

/// Goes on with a parked worker once its calls are decided.
pub(super) fn resume_worker<'a>(
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
                    let slice = Arc::clone(&state.agent.meter.account);
                    let stop = resume_node(env, &mut state, decisions, &mut keep_text).await;
                    let body = Body::Node(state, stop);
                    settle_worker(worker, start, slice, body, elapsed + resumed.elapsed())
                }
            }
        }
        .instrument(span)
        .await
    })
}
