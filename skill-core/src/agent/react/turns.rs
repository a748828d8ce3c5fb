//! The one turn loop every agent runs on: the plain ReAct loop, the orchestrator's planner
//! and its delegating workers. What differs between them is in [`TurnHooks`]: the tools a
//! turn offers, when a turn must conclude without tools (the conclude policy), what a turn
//! costs (budget metering), how a round's calls run (skills, searches, workers) and what
//! waits for consent. Resuming after consent is [`settle_pending`] then the same loop.
//!
//! The answer-repair policy ([`ReactOptions::answer_repair`]) is the loop's too: a final
//! text the caller's reader refuses is sent back with the reader's error for turns without
//! tools, each one paid for through the hooks like any turn ([`TurnKind::Repair`]), until
//! the reader takes an answer. How an answer left unread is worded is a hook
//! ([`TurnHooks::unmended`]): the loop's own wording, or the agent's.

use std::collections::HashMap;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use super::telemetry::{answered_ids, traced_turn, unique_call_ids};
use super::{
    truncate_tool_result, PendingToolCall, ReactOptions, ReactOutcome, StopReason, ToolRun,
};
use crate::agent::client::LlmClient;
use crate::confirm::{ConfirmationError, Decision};
use crate::context::SkillContext;
use crate::dialect::{ChatMessage, LlmResponse, TokenUsage};
use crate::dispatch::Dispatcher;
use crate::result::SkillResult;
use crate::tools::ToolCall;

/// A boxed future that may cross threads (a round's calls, a worker's run).
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a turn sends, as the hooks decide before it.
pub(crate) enum TurnPlan {
    /// The conversation and the tools.
    Tools,
    /// The conversation and this prompt as a user message, no tools: the model's text is
    /// the answer, and tool calls it still makes are not run.
    Conclude(String),
    /// The conversation as it is, in a run with no tools to offer: the model's text is
    /// the answer, tool calls it still makes are not run (and, as no tool was offered,
    /// not warned about), and this turn is the run's only one.
    Answer,
}

/// What kind of turn the hooks are asked to pay for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnKind {
    /// A turn that offers the tools.
    Tools,
    /// A turn without tools whose text is the answer (a concluding turn, or a run's only
    /// turn).
    Answer,
    /// A turn without tools that mends a final answer the reader refused
    /// ([`ReactOptions::answer_repair`]): it follows an answer, so refusing it ends no run
    /// early, it only leaves the answer unread.
    Repair,
}

/// The hooks refused the turn about to be sent.
pub(crate) struct Halted {
    /// Why, in words that follow "no turn to mend it: " (e.g. "the budget ran out of
    /// requests"). The loop words a refused repair turn with it; a refused turn of another
    /// kind ends the loop, and the hooks have said why themselves.
    pub(crate) why: String,
}

/// Why a final answer the reader refused was not mended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unmended<'a> {
    /// The run has no repair policy.
    NoPolicy,
    /// Every repair turn of the policy was sent (this many).
    UsedUp(usize),
    /// The hooks refused the repair turn (why, as in [`Halted::why`]).
    Refused(&'a str),
    /// The repair turn failed (the model's error).
    Failed(&'a str),
}

/// The loop's warning for a final answer left unread: the reader's `err` and why it was
/// not mended. Without a repair policy it is the plain `final answer unreadable (label):
/// err` hosts look for.
pub(crate) fn unmended_warning(label: &str, err: &str, why: Unmended<'_>) -> String {
    let unreadable = format!("final answer unreadable ({label}): {err}");
    match why {
        Unmended::NoPolicy => unreadable,
        Unmended::UsedUp(turns) => {
            format!("{unreadable}; no turn left to mend it: the {turns} repair turn(s) were used")
        }
        Unmended::Refused(why) => format!("{unreadable}; no turn to mend it: {why}"),
        Unmended::Failed(failure) => format!("{unreadable}; the turn to mend it failed: {failure}"),
    }
}

/// What an agent's loop adds to the plain turn: offered tools, the conclude policy,
/// metering, the round's calls and the consent they wait for.
pub(crate) trait TurnHooks<A> {
    /// What one call of a round came back with.
    type Done: Send;

    /// The tool definitions a turn that does not conclude offers.
    fn tools(&self) -> &[Value];

    /// Before turn `turn`: offer the tools, or conclude.
    fn plan(&mut self, _out: &ReactOutcome<A>, _turn: usize) -> TurnPlan {
        TurnPlan::Tools
    }

    /// Reserves the turn about to be sent (the conversation is `out.final_messages`; the
    /// tools only with [`TurnKind::Tools`]); [`Halted`] ends the loop without it, or, for
    /// a [`TurnKind::Repair`] turn, leaves the refused answer unread.
    fn begin(
        &mut self,
        _out: &mut ReactOutcome<A>,
        _turn: usize,
        _kind: TurnKind,
    ) -> Result<(), Halted> {
        Ok(())
    }

    /// The turn came back with this usage (`None`: it failed).
    fn end(&mut self, _usage: Option<Option<TokenUsage>>) {}

    /// Runs the calls of one round, their results in call order.
    fn round<'a>(&'a mut self, calls: &'a [ToolCall]) -> BoxFuture<'a, Vec<Self::Done>>;

    /// Takes one call's result into the outcome: its tool message, its output, and the
    /// consent it waits for.
    fn absorb(&mut self, out: &mut ReactOutcome<A>, call: ToolCall, done: Self::Done);

    /// Whether calls of the last round wait for a person's consent.
    fn parked(&self, out: &ReactOutcome<A>) -> bool {
        !out.pending_tool_calls.is_empty()
    }

    /// Warns that the final answer stays unread: the reader's `err` and why it was not
    /// mended ([`unmended_warning`], unless the agent words it its own way).
    fn unmended(&mut self, out: &mut ReactOutcome<A>, label: &str, err: &str, why: Unmended<'_>) {
        out.warn(unmended_warning(label, err, why));
    }
}

/// Whether the loop goes on after a turn.
#[derive(PartialEq, Eq)]
enum Flow {
    Next,
    Stop,
}

/// The turns of a run, from the one after `out.iterations` to `options.max_iterations`,
/// then (with [`ReactOptions::final_answer_prompt`]) one concluding turn; after a final
/// text the reader refuses, the repair turns of [`ReactOptions::answer_repair`].
pub(crate) async fn turn_loop<C, A, E, H>(
    llm: &C,
    hooks: &mut H,
    options: &ReactOptions,
    read_answer: &mut impl FnMut(&str) -> Result<A, E>,
    out: &mut ReactOutcome<A>,
) where
    C: LlmClient + ?Sized,
    E: Display,
    H: TurnHooks<A>,
{
    for turn in out.iterations + 1..=options.max_iterations {
        let plan = hooks.plan(out, turn);
        if one_turn(llm, hooks, options, read_answer, out, turn, plan).await == Flow::Stop {
            return;
        }
    }
    out.warn(format!(
        "ReAct loop reached max_iterations = {} without a final answer ({})",
        options.max_iterations, options.label
    ));
    out.stop_reason = StopReason::MaxIterations;
    if let Some(prompt) = &options.final_answer_prompt {
        let plan = TurnPlan::Conclude(prompt.clone());
        let turn = out.iterations + 1;
        one_turn(llm, hooks, options, read_answer, out, turn, plan).await;
    }
}

/// One model turn and, when the model calls tools, the round of calls it asked for.
async fn one_turn<C, A, E, H>(
    llm: &C,
    hooks: &mut H,
    options: &ReactOptions,
    read_answer: &mut impl FnMut(&str) -> Result<A, E>,
    out: &mut ReactOutcome<A>,
    turn: usize,
    plan: TurnPlan,
) -> Flow
where
    C: LlmClient + ?Sized,
    E: Display,
    H: TurnHooks<A>,
{
    let label = options.label.as_str();
    let only_turn = matches!(plan, TurnPlan::Answer);
    let concluding = match plan {
        TurnPlan::Tools => false,
        TurnPlan::Conclude(prompt) => {
            tracing::info!(label, turn, "turn without tools for the final answer");
            out.final_messages.push(ChatMessage::user(prompt));
            true
        }
        TurnPlan::Answer => true,
    };
    let kind = if concluding {
        TurnKind::Answer
    } else {
        TurnKind::Tools
    };
    if let Err(halted) = hooks.begin(out, turn, kind) {
        tracing::info!(label, turn, why = %halted.why, "turn refused");
        return Flow::Stop;
    }
    out.iterations = turn;
    let sent: &[Value] = if concluding { &[] } else { hooks.tools() };
    tracing::info!(
        label,
        iteration = turn,
        max = options.max_iterations,
        tools = sent.len(),
        messages = out.final_messages.len(),
        "ReAct turn"
    );
    let result = traced_turn(llm, &out.final_messages, sent, options.temperature).await;
    hooks.end(result.as_ref().ok().map(|r| r.usage));
    let response = match result {
        Ok(response) => response,
        Err(err) => {
            // A run's only turn needs no number to be found.
            let which = if only_turn {
                String::new()
            } else {
                format!(" in turn {turn}")
            };
            out.warn(format!("LLM call failed{which} ({label}): {err}"));
            out.stop_reason = StopReason::LlmError(err.to_string());
            return Flow::Stop;
        }
    };
    out.usage += response.usage.unwrap_or_default();

    if response.tool_calls.is_empty() || concluding {
        let read = take_answer(out, response, label, !only_turn, read_answer);
        out.stop_reason = if turn > options.max_iterations {
            StopReason::AnsweredAtLimit
        } else {
            StopReason::FinalAnswer
        };
        match read {
            Ok(answer) => out.answer = Some(answer),
            Err(err) => repair(llm, hooks, options, read_answer, out, err.to_string()).await,
        }
        return Flow::Stop;
    }

    let mut used_ids = answered_ids(&out.final_messages);
    let calls = unique_call_ids(response.tool_calls, turn, &mut used_ids);
    let results = hooks.round(&calls).await;
    out.tool_calls += calls.len();
    out.final_messages.push(ChatMessage::assistant_tool_calls(
        Some(response.text),
        calls.clone(),
    ));
    for (call, done) in calls.into_iter().zip(results) {
        hooks.absorb(out, call, done);
    }
    if hooks.parked(out) {
        tracing::info!(
            label,
            pending = out.pending_tool_calls.len(),
            "agent run waits for confirmation"
        );
        out.stop_reason = StopReason::AwaitingConfirmation;
        return Flow::Stop;
    }
    Flow::Next
}

/// Reads a turn's text as the final answer and keeps it in the conversation; tool calls
/// the model made anyway are not run (said in a warning when `warn_calls`).
fn take_answer<A, E>(
    out: &mut ReactOutcome<A>,
    response: LlmResponse,
    label: &str,
    warn_calls: bool,
    read_answer: &mut impl FnMut(&str) -> Result<A, E>,
) -> Result<A, E> {
    if !response.tool_calls.is_empty() && warn_calls {
        out.warn(format!(
            "the model called {} tool(s) in a turn without tools; not run ({label})",
            response.tool_calls.len()
        ));
    }
    let read = read_answer(&response.text);
    out.final_messages
        .push(ChatMessage::assistant(response.text));
    read
}

/// Sends a final answer the reader refused (with `err`) back to the model to mend, in
/// turns without tools ([`ReactOptions::answer_repair`]), until the reader takes one; the
/// stop reason stays the answering turn's. An answer left unread is warned about through
/// [`TurnHooks::unmended`].
async fn repair<C, A, E, H>(
    llm: &C,
    hooks: &mut H,
    options: &ReactOptions,
    read_answer: &mut impl FnMut(&str) -> Result<A, E>,
    out: &mut ReactOutcome<A>,
    mut err: String,
) where
    C: LlmClient + ?Sized,
    E: Display,
    H: TurnHooks<A>,
{
    let label = options.label.as_str();
    let Some(policy) = options.answer_repair.as_ref().filter(|p| p.turns > 0) else {
        hooks.unmended(out, label, &err, Unmended::NoPolicy);
        return;
    };
    for _ in 0..policy.turns {
        out.final_messages
            .push(ChatMessage::user(format!("{} {err}", policy.prompt)));
        let turn = out.iterations + 1;
        if let Err(halted) = hooks.begin(out, turn, TurnKind::Repair) {
            // The request was never sent: the conversation stays as the model last saw it.
            out.final_messages.pop();
            hooks.unmended(out, label, &err, Unmended::Refused(&halted.why));
            return;
        }
        // Only an error actually sent back is recorded.
        out.repairs.push(err.clone());
        out.iterations = turn;
        tracing::info!(
            label,
            turn,
            messages = out.final_messages.len(),
            "turn without tools to mend the final answer"
        );
        let result = traced_turn(llm, &out.final_messages, &[], options.temperature).await;
        hooks.end(result.as_ref().ok().map(|r| r.usage));
        let response = match result {
            Ok(response) => response,
            Err(failure) => {
                let failure = failure.to_string();
                hooks.unmended(out, label, &err, Unmended::Failed(&failure));
                return;
            }
        };
        out.usage += response.usage.unwrap_or_default();
        // As in a run's only turn: with no tool offered at all, calls are not warned about.
        let offered = !hooks.tools().is_empty();
        match take_answer(out, response, label, offered, read_answer) {
            Ok(answer) => {
                out.answer = Some(answer);
                return;
            }
            Err(next) => err = next.to_string(),
        }
    }
    hooks.unmended(out, label, &err, Unmended::UsedUp(policy.turns));
}

/// Takes a skill call's result into the outcome: its run, its output (unless
/// `keep_output` is false), the consent it waits for, and its tool message, cut to
/// `max_chars` and fenced as data.
pub(crate) fn absorb_result<A>(
    out: &mut ReactOutcome<A>,
    call: ToolCall,
    run: (String, SkillResult, f64),
    keep_output: bool,
    max_chars: usize,
) {
    let (skill_id, result, elapsed_ms) = run;
    tracing::info!(tool = %call.name, call_id = %call.id, success = result.success, elapsed_ms, "tool call");
    out.tool_runs.push(ToolRun {
        call_id: call.id.clone(),
        skill_id,
        success: result.success,
        elapsed_ms,
    });
    if result.success && keep_output {
        out.skill_context
            .insert(result.skill_id.to_string(), result.data_value());
    }
    // Truncated first, then fenced as data: the closing fence is never cut off.
    let content = crate::fence::fence_tool_output(
        &call.name,
        &truncate_tool_result(&result.to_model_json(), max_chars),
    );
    if let Some(confirmation) = result.pending_confirmation() {
        out.pending_tool_calls.push(PendingToolCall {
            call_id: call.id.clone(),
            confirmation,
        });
    }
    out.final_messages
        .push(ChatMessage::tool(call.id, content, !result.success));
}

/// The resume after consent, for every agent: each call `out` parked is decided through
/// [`Dispatcher::decide`] (a call without a decision, or that no longer waits, is reported
/// to the model as not run), and its tool result in the conversation is replaced by what
/// happened. The caller then goes on with [`turn_loop`].
pub(crate) async fn settle_pending<A>(
    dispatcher: &Dispatcher,
    out: &mut ReactOutcome<A>,
    decisions: &HashMap<String, Decision>,
    ctx: &SkillContext,
    options: &ReactOptions,
) {
    for pending in std::mem::take(&mut out.pending_tool_calls) {
        let confirmation = &pending.confirmation;
        let id = confirmation.id.as_str();
        let started = std::time::Instant::now();
        let decided = match decisions.get(id) {
            Some(decision) => dispatcher.decide(id, decision.clone(), ctx).await,
            None => Err(ConfirmationError::UnknownPending(id.to_string())),
        };
        let result =
            decided.unwrap_or_else(|why| dispatcher.not_decided(&confirmation.skill_id, id, &why));
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        tracing::info!(label = %options.label, pending = id, success = result.success, "confirmation decided");
        if let Some(run) = out
            .tool_runs
            .iter_mut()
            .find(|r| r.call_id == pending.call_id)
        {
            run.success = result.success;
            run.elapsed_ms += elapsed_ms;
        }
        if result.success {
            out.skill_context
                .insert(result.skill_id.to_string(), result.data_value());
        }
        let name = dispatcher
            .registration(&confirmation.skill_id)
            .map_or(confirmation.skill_id.as_str(), |r| r.wire_name);
        let fenced = crate::fence::fence_tool_output(
            name,
            &truncate_tool_result(&result.to_model_json(), options.max_tool_result_chars),
        );
        replace_result(
            &mut out.final_messages,
            &pending.call_id,
            fenced,
            !result.success,
        );
    }
}

/// Replaces the tool result of call `call_id` in `messages`.
pub(crate) fn replace_result(
    messages: &mut [ChatMessage],
    call_id: &str,
    content: String,
    failed: bool,
) {
    for message in messages {
        if let ChatMessage::Tool {
            tool_call_id,
            content: old,
            is_error,
        } = message
        {
            if tool_call_id == call_id {
                *old = content.clone();
                *is_error = failed;
            }
        }
    }
}
