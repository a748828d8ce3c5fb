//! The ReAct loop (SPEC-20 section 3): the model reads the task and the tools, calls tools,
//! reads their results, and finally answers. What the final answer means is the caller's:
//! the loop hands the model's last text to a reader the caller supplies.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use serde_json::Value;
use tracing::field::Empty;
use tracing::Instrument;

use super::client::{LlmClient, LlmError};
use super::deferred::{run_search, DeferredTools, Offered, SEARCH_TOOLS};
use crate::confirm::PendingConfirmation;
use crate::context::SkillContext;
use crate::dialect::{ChatMessage, Dialect, LlmResponse, TokenUsage};
use crate::dispatch::Dispatcher;
use crate::error::{codes, SkillError};
use crate::registration::SkillRegistration;
use crate::result::SkillResult;
use crate::tools::{ParsedCall, ToolCall, ToolFilter};
use std::fmt::Display;

/// Longest tool result (in characters) the model reads; longer ones are cut.
pub const MAX_TOOL_RESULT_CHARS: usize = 3000;

/// Settings of one loop run.
#[derive(Debug, Clone)]
pub struct ReactOptions {
    /// Model turns at most (SPEC-20 default 5).
    pub max_iterations: usize,
    /// Sampling temperature (SPEC-20 default 0.1).
    pub temperature: f32,
    /// Tool calls of one round run at the same time, at most this many at once.
    pub max_parallel_tools: usize,
    /// Which skills are offered (e.g. the review's domain).
    pub tool_filter: ToolFilter,
    /// Longest tool result the model reads, in characters.
    pub max_tool_result_chars: usize,
    /// Outer time limit per tool call, on top of each skill's own `timeout_ms`.
    pub tool_timeout: Option<Duration>,
    /// Names the run in logs and warnings (e.g. the task or item it works on).
    pub label: String,
    /// When `max_iterations` turns end with the model still calling tools, this message is
    /// sent for one more turn without tools, asking for the final answer from what was
    /// gathered. `None` (the default, SPEC-20's behaviour): the loop stops without an
    /// answer.
    pub final_answer_prompt: Option<String>,
    /// `None` (the default): every tool the filter accepts is sent from the first turn.
    /// `Some`: the model starts with the core tools and `search_tools`, and each tool a
    /// search finds is appended to the set sent (never reordering what was sent). Choose
    /// it per model: some models never call the search tool.
    pub deferred_tools: Option<DeferredTools>,
}

impl Default for ReactOptions {
    fn default() -> Self {
        Self {
            max_iterations: 5,
            temperature: 0.1,
            max_parallel_tools: 8,
            tool_filter: ToolFilter::default(),
            max_tool_result_chars: MAX_TOOL_RESULT_CHARS,
            tool_timeout: None,
            label: String::new(),
            final_answer_prompt: None,
            deferred_tools: None,
        }
    }
}

impl ReactOptions {
    /// Sets `max_iterations`.
    #[must_use]
    pub fn max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// Sets the temperature.
    #[must_use]
    pub fn temperature(mut self, t: f32) -> Self {
        self.temperature = t;
        self
    }

    /// Sets the tool filter.
    #[must_use]
    pub fn tool_filter(mut self, filter: ToolFilter) -> Self {
        self.tool_filter = filter;
        self
    }

    /// Sets the parallelism of one round.
    #[must_use]
    pub fn max_parallel_tools(mut self, n: usize) -> Self {
        self.max_parallel_tools = n;
        self
    }

    /// Sets the label of the run in logs and warnings.
    #[must_use]
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// At the iteration limit, asks for the final answer with `prompt` in one more turn
    /// without tools (see [`ReactOptions::final_answer_prompt`]).
    #[must_use]
    pub fn final_answer_at_limit(mut self, prompt: impl Into<String>) -> Self {
        self.final_answer_prompt = Some(prompt.into());
        self
    }

    /// Starts the model with a core set and `search_tools` instead of every tool (see
    /// [`ReactOptions::deferred_tools`]).
    #[must_use]
    pub fn deferred_tools(mut self, deferred: DeferredTools) -> Self {
        self.deferred_tools = Some(deferred);
        self
    }

    /// Sets the outer per-call time limit.
    #[must_use]
    pub fn tool_timeout(mut self, limit: Duration) -> Self {
        self.tool_timeout = Some(limit);
        self
    }
}

/// Why the loop stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum StopReason {
    /// The model answered without calling tools.
    FinalAnswer,
    /// No tool passed the filter; the model was not asked.
    NoTools,
    /// `max_iterations` turns were used up while the model kept calling tools.
    MaxIterations,
    /// `max_iterations` turns were used up, and the model answered in the extra turn
    /// without tools ([`ReactOptions::final_answer_prompt`]).
    AnsweredAtLimit,
    /// A round's tool calls included calls that need a person's confirmation (seed 004
    /// `pendingToolCalls`): the other calls of the round ran, the model was not asked
    /// again. The calls are in [`ReactOutcome::pending_tool_calls`]; ask, then continue
    /// with [`resume_agent_loop`].
    AwaitingConfirmation,
    /// A model turn failed; the text is the error.
    LlmError(String),
}

/// What one loop run produced (SPEC-20 `(answer, skill_context, final_messages)` plus why
/// it stopped). `A` is whatever the caller's reader makes of the final text.
#[derive(Debug, Clone)]
pub struct ReactOutcome<A> {
    /// The final answer as the caller's reader read it (`None` when there was none or the
    /// reader refused it; the reason is in `warnings`).
    pub answer: Option<A>,
    /// Output of every successful tool call, by skill id (a later call of the same skill
    /// replaces an earlier one).
    pub skill_context: BTreeMap<String, Value>,
    /// The whole conversation: the initial messages, each assistant turn, each tool result.
    pub final_messages: Vec<ChatMessage>,
    /// Why the loop stopped.
    pub stop_reason: StopReason,
    /// Model turns made (the extra turn at the limit included).
    pub iterations: usize,
    /// Tool calls run (errors included).
    pub tool_calls: usize,
    /// Every tool call run, in the order the model asked, with its wall time.
    pub tool_runs: Vec<ToolRun>,
    /// Tokens of every model turn, summed as the provider reported them.
    pub usage: TokenUsage,
    /// Things the host should know (unreadable final answer, iteration limit, model error).
    pub warnings: Vec<String>,
    /// Calls the model made that wait for a person's confirmation (seed 004
    /// `pendingToolCalls`); non-empty exactly when `stop_reason` is
    /// [`StopReason::AwaitingConfirmation`].
    pub pending_tool_calls: Vec<PendingToolCall>,
    /// Ids of the tools `search_tools` loaded, in the order they were appended to the set
    /// sent (empty without [`ReactOptions::deferred_tools`]).
    pub loaded_tools: Vec<String>,
}

/// A tool call the loop could not run without a person's consent.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingToolCall {
    /// The model's id of the call (its tool result is in `final_messages`).
    pub call_id: String,
    /// What to show the person; its `id` is what [`resume_agent_loop`] decides on (and
    /// what [`Dispatcher::confirm`] and [`Dispatcher::reject`] take).
    pub confirmation: PendingConfirmation,
}

/// A person's answer to a [`PendingToolCall`].
#[derive(Debug, Clone)]
pub enum Decision {
    /// Run the call with the arguments shown.
    Approve,
    /// Do not run it; the reason, if any, is told to the model.
    Reject(Option<String>),
    /// The host decided already and has the outcome (it called [`Dispatcher::confirm`] or
    /// [`Dispatcher::reject`] itself, for example from a console's approval): the model
    /// reads this result.
    Decided(SkillResult),
}

/// Why [`resume_agent_loop`] did not continue a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    /// The run did not stop for confirmations.
    #[error("the run did not stop for confirmations (it stopped with {0}); nothing to resume")]
    NotAwaitingConfirmation(String),
    /// Some pending calls have no decision; nothing was run or changed.
    #[error("no decision for the pending call(s) {}; decide every pending call before resuming", .0.join(", "))]
    Undecided(Vec<String>),
}

/// One tool call of a run and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRun {
    /// The call's id (unique in the conversation).
    pub call_id: String,
    /// The skill's id when the name is a registered skill, else the name the model wrote.
    pub skill_id: String,
    /// Whether it returned a value.
    pub success: bool,
    /// Wall time from reading the call to its result, in milliseconds.
    pub elapsed_ms: f64,
}

impl<A> ReactOutcome<A> {
    /// The SPEC-20 triple.
    pub fn into_parts(self) -> (Option<A>, BTreeMap<String, Value>, Vec<ChatMessage>) {
        (self.answer, self.skill_context, self.final_messages)
    }

    fn warn(&mut self, message: String) {
        tracing::warn!("{message}");
        self.warnings.push(message);
    }
}

/// Runs the ReAct loop (SPEC-20 `react_agent_loop`).
///
/// `messages` are the initial system and user messages; `ctx` carries the host state skills
/// prepare their input from; `read_answer` reads the model's final text (a text without tool
/// calls) into the caller's answer type — an error becomes a warning and no answer. The tool
/// definitions come from the dispatcher's cache in the dialect the client speaks
/// ([`LlmClient::dialect`]).
///
/// Every round's tool calls run concurrently (at most `max_parallel_tools` at once) and
/// their results are appended in the order the model asked for them. An unknown tool,
/// unreadable arguments, a failing, panicking or timing-out skill each come back to the
/// model as an error result it can act on. A model error ends the loop with what was
/// collected. Never panics on model output.
pub async fn react_agent_loop<C, A, E>(
    llm: &C,
    dispatcher: &Dispatcher,
    messages: Vec<ChatMessage>,
    ctx: &SkillContext,
    options: &ReactOptions,
    mut read_answer: impl FnMut(&str) -> Result<A, E>,
) -> ReactOutcome<A>
where
    C: LlmClient + ?Sized,
    E: Display,
{
    let mut out = ReactOutcome {
        answer: None,
        skill_context: BTreeMap::new(),
        final_messages: messages,
        stop_reason: StopReason::MaxIterations,
        iterations: 0,
        tool_calls: 0,
        tool_runs: Vec::new(),
        usage: TokenUsage::default(),
        warnings: Vec::new(),
        pending_tool_calls: Vec::new(),
        loaded_tools: Vec::new(),
    };
    run_turns(llm, dispatcher, ctx, options, &mut read_answer, &mut out).await;
    out
}

/// Continues a run that stopped with [`StopReason::AwaitingConfirmation`], once a person
/// has decided on every pending call (`decisions` by [`PendingConfirmation::id`]).
///
/// Approved calls run through [`Dispatcher::confirm`], rejected ones through
/// [`Dispatcher::reject`]; each call's tool result in the conversation is replaced by what
/// happened (a call that expired or was decided elsewhere meanwhile is reported to the
/// model as not run), and the loop goes on from the next turn with the same options and
/// turn limit. Nothing runs when a pending call has no decision.
pub async fn resume_agent_loop<C, A, E>(
    llm: &C,
    dispatcher: &Dispatcher,
    mut paused: ReactOutcome<A>,
    decisions: impl IntoIterator<Item = (String, Decision)>,
    ctx: &SkillContext,
    options: &ReactOptions,
    mut read_answer: impl FnMut(&str) -> Result<A, E>,
) -> Result<ReactOutcome<A>, ResumeError>
where
    C: LlmClient + ?Sized,
    E: Display,
{
    if paused.stop_reason != StopReason::AwaitingConfirmation {
        return Err(ResumeError::NotAwaitingConfirmation(format!(
            "{:?}",
            paused.stop_reason
        )));
    }
    let mut decisions: HashMap<String, Decision> = decisions.into_iter().collect();
    let undecided: Vec<String> = paused
        .pending_tool_calls
        .iter()
        .filter(|p| !decisions.contains_key(&p.confirmation.id))
        .map(|p| p.confirmation.id.clone())
        .collect();
    if !undecided.is_empty() {
        return Err(ResumeError::Undecided(undecided));
    }
    for pending in std::mem::take(&mut paused.pending_tool_calls) {
        let id = pending.confirmation.id.as_str();
        let started = Instant::now();
        let decided = match decisions.remove(id) {
            Some(Decision::Approve) => dispatcher.confirm(id, ctx).await,
            Some(Decision::Reject(reason)) => dispatcher.reject(id, reason.as_deref()),
            Some(Decision::Decided(result)) => Ok(result),
            None => unreachable!("every pending call was checked to have a decision"),
        };
        let result = decided.unwrap_or_else(|_| {
            SkillResult::err(
                pending.confirmation.skill_id.clone(),
                SkillError::new(
                    codes::CONFIRMATION_REJECTED,
                    format!(
                        "request {id} no longer waits for a decision (it expired, or was decided elsewhere); this decision did not run it"
                    ),
                ),
                0.0,
            )
        });
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        tracing::info!(label = %options.label, pending = id, success = result.success, "confirmation decided");
        if let Some(run) = paused
            .tool_runs
            .iter_mut()
            .find(|r| r.call_id == pending.call_id)
        {
            run.success = result.success;
            run.elapsed_ms += elapsed_ms;
        }
        if result.success {
            paused
                .skill_context
                .insert(result.skill_id.to_string(), result.data_value());
        }
        let name = dispatcher
            .registration(&pending.confirmation.skill_id)
            .map_or(pending.confirmation.skill_id.as_str(), |r| r.wire_name);
        let fenced = crate::fence::fence_tool_output(
            name,
            &truncate_tool_result(&result.to_model_json(), options.max_tool_result_chars),
        );
        for message in &mut paused.final_messages {
            if let ChatMessage::Tool {
                tool_call_id,
                content,
                is_error,
            } = message
            {
                if *tool_call_id == pending.call_id {
                    *content = fenced.clone();
                    *is_error = !result.success;
                }
            }
        }
    }
    paused.stop_reason = StopReason::MaxIterations;
    run_turns(llm, dispatcher, ctx, options, &mut read_answer, &mut paused).await;
    Ok(paused)
}

/// The turns of a run, from the one after `out.iterations` to the limit.
async fn run_turns<C, A, E>(
    llm: &C,
    dispatcher: &Dispatcher,
    ctx: &SkillContext,
    options: &ReactOptions,
    read_answer: &mut impl FnMut(&str) -> Result<A, E>,
    out: &mut ReactOutcome<A>,
) where
    C: LlmClient + ?Sized,
    E: Display,
{
    let label = options.label.as_str();
    let sent = match &options.deferred_tools {
        None => dispatcher
            .tools_in(llm.dialect(), &options.tool_filter)
            .map(Sent::All),
        Some(deferred) => Offered::start(
            dispatcher,
            llm.dialect(),
            &options.tool_filter,
            deferred,
            &out.loaded_tools,
        )
        .map(|o| Sent::Deferred(Box::new(o))),
    };
    let any_tool = match &sent {
        Ok(Sent::All(tools)) => !tools.is_empty(),
        Ok(Sent::Deferred(_)) => dispatcher
            .list_skills()
            .iter()
            .any(|s| options.tool_filter.accepts(s)),
        Err(_) => true,
    };
    let mut sent = match sent {
        Ok(sent) if any_tool => sent,
        Ok(_) => {
            out.stop_reason = StopReason::NoTools;
            out.warn(format!(
                "no tool definitions pass the filter; ReAct loop skipped ({label})"
            ));
            return;
        }
        Err(err) => {
            out.stop_reason = StopReason::NoTools;
            out.warn(format!(
                "the tools cannot be offered in the client's dialect: {err}; ReAct loop skipped ({label})"
            ));
            return;
        }
    };
    let mut offered: HashSet<&'static str> = sent.names();
    let mut used_ids: HashSet<String> = out
        .final_messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool { tool_call_id, .. } => Some(tool_call_id.clone()),
            _ => None,
        })
        .collect();

    for iteration in out.iterations + 1..=options.max_iterations {
        out.iterations = iteration;
        tracing::info!(
            label,
            iteration,
            max = options.max_iterations,
            tools = sent.definitions().len(),
            messages = out.final_messages.len(),
            "ReAct turn"
        );
        let response = match traced_turn(
            llm,
            &out.final_messages,
            sent.definitions(),
            options.temperature,
        )
        .await
        {
            Ok(response) => response,
            Err(err) => {
                out.warn(format!(
                    "LLM call failed in turn {iteration} ({label}): {err}"
                ));
                out.stop_reason = StopReason::LlmError(err.to_string());
                return;
            }
        };
        out.usage += response.usage.unwrap_or_default();

        if response.tool_calls.is_empty() {
            match read_answer(&response.text) {
                Ok(answer) => out.answer = Some(answer),
                Err(err) => out.warn(format!("final answer unreadable ({label}): {err}")),
            }
            out.final_messages
                .push(ChatMessage::assistant(response.text));
            out.stop_reason = StopReason::FinalAnswer;
            return;
        }

        let calls = unique_call_ids(response.tool_calls, iteration, &mut used_ids);
        let (offered_now, calls_ref) = (&offered, &calls);
        // Indices, not `&ToolCall` items: the round's future stays `Send` (a closure over a
        // borrowed item trips the higher-ranked lifetime check of spawned tasks).
        let deferred = options.deferred_tools.as_ref();
        let results: Vec<(SkillResult, f64, Option<Vec<&'static SkillRegistration>>)> =
            stream::iter(0..calls.len())
                .map(|i| async move {
                    let call = &calls_ref[i];
                    let span = tool_span(call);
                    let started = Instant::now();
                    let (result, found) = match deferred {
                        Some(deferred) if call.name == SEARCH_TOOLS => {
                            let (found, result) = span.in_scope(|| {
                                run_search(deferred, &options.tool_filter, &call.arguments)
                            });
                            (result, Some(found))
                        }
                        _ => (
                            run_call(dispatcher, ctx, offered_now, call, options)
                                .instrument(span.clone())
                                .await,
                            None,
                        ),
                    };
                    if let Some(err) = &result.error {
                        span.record("error.type", err.code.as_ref());
                        span.record("otel.status_code", "ERROR");
                    }
                    (result, started.elapsed().as_secs_f64() * 1000.0, found)
                })
                .buffered(options.max_parallel_tools.max(1))
                .collect()
                .await;
        out.tool_calls += calls.len();
        out.final_messages.push(ChatMessage::assistant_tool_calls(
            Some(response.text),
            calls.clone(),
        ));
        for (call, (result, elapsed_ms, found)) in calls.into_iter().zip(results) {
            let searched = found.is_some();
            if let (Some(found), Sent::Deferred(list)) = (found, &mut sent) {
                let added = list.append(&found, &options.tool_filter);
                tracing::info!(label, loaded = ?added, "search_tools loaded tools");
                out.loaded_tools.extend(added);
                offered = list.names.clone();
            }
            tracing::info!(label, tool = %call.name, call_id = %call.id, success = result.success, elapsed_ms, "tool call");
            out.tool_runs.push(ToolRun {
                call_id: call.id.clone(),
                skill_id: dispatcher
                    .registration(&call.name)
                    .map_or_else(|| call.name.clone(), |reg| reg.id.to_string()),
                success: result.success,
                elapsed_ms,
            });
            if result.success && !searched {
                out.skill_context
                    .insert(result.skill_id.to_string(), result.data_value());
            }
            // Truncated first, then fenced as data: the closing fence is never cut off.
            let content = crate::fence::fence_tool_output(
                &call.name,
                &truncate_tool_result(&result.to_model_json(), options.max_tool_result_chars),
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
        if !out.pending_tool_calls.is_empty() {
            tracing::info!(
                label,
                pending = out.pending_tool_calls.len(),
                "ReAct run waits for confirmation"
            );
            out.stop_reason = StopReason::AwaitingConfirmation;
            return;
        }
    }

    out.warn(format!(
        "ReAct loop reached max_iterations = {} without a final answer ({label})",
        options.max_iterations
    ));
    out.stop_reason = StopReason::MaxIterations;
    if let Some(prompt) = &options.final_answer_prompt {
        answer_at_limit(llm, prompt, options, out, read_answer).await;
    }
}

/// The tools a run sends: every tool the filter accepts (the dispatcher's cached set), or
/// a core set that searches grow.
enum Sent {
    All(crate::ToolSet),
    Deferred(Box<Offered>),
}

impl Sent {
    fn definitions(&self) -> &[Value] {
        match self {
            Sent::All(tools) => tools,
            Sent::Deferred(offered) => &offered.definitions,
        }
    }

    fn names(&self) -> HashSet<&'static str> {
        match self {
            Sent::All(tools) => tools.names().collect(),
            Sent::Deferred(offered) => offered.names.clone(),
        }
    }
}

/// The extra turn at the iteration limit: `prompt` as a user message, no tools offered, the
/// model's text read as the final answer. Tool calls the model still makes are not run.
async fn answer_at_limit<C, A, E>(
    llm: &C,
    prompt: &str,
    options: &ReactOptions,
    out: &mut ReactOutcome<A>,
    read_answer: &mut impl FnMut(&str) -> Result<A, E>,
) where
    C: LlmClient + ?Sized,
    E: Display,
{
    let label = options.label.as_str();
    out.iterations += 1;
    out.final_messages.push(ChatMessage::user(prompt));
    tracing::info!(
        label,
        iteration = out.iterations,
        "ReAct turn without tools for the final answer"
    );
    let response = match traced_turn(llm, &out.final_messages, &[], options.temperature).await {
        Ok(response) => response,
        Err(err) => {
            out.warn(format!(
                "LLM call failed in the final turn without tools ({label}): {err}"
            ));
            out.stop_reason = StopReason::LlmError(err.to_string());
            return;
        }
    };
    out.usage += response.usage.unwrap_or_default();
    if !response.tool_calls.is_empty() {
        out.warn(format!(
            "the model called {} tool(s) in the final turn without tools; not run ({label})",
            response.tool_calls.len()
        ));
    }
    match read_answer(&response.text) {
        Ok(answer) => out.answer = Some(answer),
        Err(err) => out.warn(format!("final answer unreadable ({label}): {err}")),
    }
    out.final_messages
        .push(ChatMessage::assistant(response.text));
    out.stop_reason = StopReason::AnsweredAtLimit;
}

/// The `gen_ai.provider.name` of a client speaking `dialect` (OpenTelemetry GenAI
/// semantic conventions).
fn provider_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Anthropic | Dialect::AnthropicStrict => "anthropic",
        Dialect::Gemini | Dialect::GeminiJsonSchema => "gcp.gemini",
        _ => "openai",
    }
}

/// The `error.type` of a failed model turn: the HTTP status, else the kind of failure.
fn llm_error_type(err: &LlmError) -> String {
    match err {
        LlmError::Http { status, .. } => status.to_string(),
        LlmError::Config(_) => "config".into(),
        LlmError::Connection { .. } => "connection".into(),
        LlmError::Timeout { .. } => "timeout".into(),
        LlmError::InvalidResponse { .. } => "invalid_response".into(),
        LlmError::ScriptExhausted { .. } | LlmError::Scripted(_) => "scripted".into(),
    }
}

/// One model turn in a `chat` span following the OpenTelemetry GenAI semantic conventions:
/// operation, provider, model, temperature, then the token usage the provider reported
/// (input tokens include the cached ones, as the conventions count them), or `error.type`.
pub(crate) async fn traced_turn<C: LlmClient + ?Sized>(
    llm: &C,
    messages: &[ChatMessage],
    tools: &[Value],
    temperature: f32,
) -> Result<LlmResponse, LlmError> {
    let model = llm.model().unwrap_or_default();
    let span = tracing::info_span!(
        "chat",
        otel.name = %format_args!("chat {model}"),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider_name(llm.dialect()),
        gen_ai.request.model = model,
        gen_ai.request.temperature = f64::from(temperature),
        gen_ai.tools.offered = tools.len(),
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        gen_ai.response.tool_calls = Empty,
        error.type = Empty,
    );
    let result = llm
        .chat_with_tools(messages, tools, temperature)
        .instrument(span.clone())
        .await;
    match &result {
        Ok(response) => {
            if let Some(usage) = response.usage {
                span.record("gen_ai.usage.input_tokens", usage.prompt_tokens);
                span.record("gen_ai.usage.output_tokens", usage.completion_tokens);
                span.record("gen_ai.usage.cache_read.input_tokens", usage.cached_tokens);
            }
            span.record("gen_ai.response.tool_calls", response.tool_calls.len());
        }
        Err(err) => {
            span.record("error.type", llm_error_type(err).as_str());
            span.record("otel.status_code", "ERROR");
        }
    }
    result
}

/// The `execute_tool` span of one tool call (OpenTelemetry GenAI semantic conventions);
/// `error.type` is set to the error code when the call fails.
pub(crate) fn tool_span(call: &ToolCall) -> tracing::Span {
    tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.id,
        gen_ai.tool.type = "function",
        error.type = Empty,
    )
}

/// Gives every call an id that is non-empty and unique in the conversation, so each tool
/// result can be matched to its call (some local servers send no ids or repeat them).
pub(crate) fn unique_call_ids(
    calls: Vec<ToolCall>,
    iteration: usize,
    used: &mut HashSet<String>,
) -> Vec<ToolCall> {
    calls
        .into_iter()
        .enumerate()
        .map(|(index, mut call)| {
            if call.id.trim().is_empty() || used.contains(&call.id) {
                let mut n = 0;
                call.id = loop {
                    let candidate = if n == 0 {
                        format!("call_{iteration}_{index}")
                    } else {
                        format!("call_{iteration}_{index}_{n}")
                    };
                    if !used.contains(&candidate) {
                        break candidate;
                    }
                    n += 1;
                };
            }
            used.insert(call.id.clone());
            call
        })
        .collect()
}

pub(crate) async fn run_call(
    dispatcher: &Dispatcher,
    ctx: &SkillContext,
    offered: &HashSet<&str>,
    call: &ToolCall,
    options: &ReactOptions,
) -> SkillResult {
    let started = Instant::now();
    let elapsed = || started.elapsed().as_secs_f64() * 1000.0;
    let offered_name = offered.contains(call.name.as_str())
        || dispatcher
            .registration(&call.name)
            .is_some_and(|reg| offered.contains(reg.wire_name));
    if !offered_name {
        let mut names: Vec<&str> = offered.iter().copied().collect();
        names.sort_unstable();
        let err = SkillError::new(
            codes::UNKNOWN_SKILL,
            format!(
                "there is no tool named `{}`; available tools: {}",
                call.name,
                names.join(", ")
            ),
        );
        tracing::warn!(requested = %call.name, "model called a tool it was not offered");
        return SkillResult::err(call.name.clone(), err, elapsed());
    }
    let parsed = ParsedCall::from_tool_call(call.clone());
    if let Some(err) = parsed.unreadable_arguments() {
        let mut result = SkillResult::err(call.name.clone(), err, elapsed());
        result.warnings = parsed.warnings;
        return result;
    }
    match options.tool_timeout {
        Some(limit) => match tokio::time::timeout(limit, dispatcher.dispatch(&parsed, ctx)).await {
            Ok(result) => result,
            Err(_) => SkillResult::err(
                call.name.clone(),
                SkillError::new(
                    codes::TIMEOUT,
                    format!(
                        "tool `{}` did not finish within {} ms; try again with a narrower request or use another tool",
                        call.name,
                        limit.as_millis()
                    ),
                ),
                elapsed(),
            ),
        },
        None => dispatcher.dispatch(&parsed, ctx).await,
    }
}

/// Cuts `text` to `max_chars` characters (never inside a character, so CJK text is safe)
/// and says how long the original was (SPEC-20 `_truncate`).
pub fn truncate_tool_result(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => {
            let total = text.chars().count();
            Cow::Owned(format!(
                "{}\n... (truncated: original {total} characters / 截断，原文 {total} 字符)",
                &text[..cut]
            ))
        }
    }
}

/// Renders a tool's output for the model (SPEC-20 `_serialize_tool_result`): `null` is
/// `{}`, a string is itself, anything else compact JSON; all cut to `max_chars`.
pub fn serialize_tool_result(data: &Value, max_chars: usize) -> String {
    match data {
        Value::Null => "{}".to_string(),
        Value::String(s) => truncate_tool_result(s, max_chars).into_owned(),
        other => truncate_tool_result(&other.to_string(), max_chars).into_owned(),
    }
}
