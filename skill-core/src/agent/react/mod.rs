//! The ReAct loop (SPEC-20 section 3): the model reads the task and the tools, calls tools,
//! reads their results, and finally answers. What the final answer means is the caller's:
//! the loop hands the model's last text to a reader the caller supplies.
//!
//! | file | job |
//! |---|---|
//! | `turns.rs` | the one turn loop every agent runs on, its hooks, and the one resume after consent |
//! | `plain.rs` | the plain loop's hooks: the dispatcher's (or deferred) tools, calls and searches |
//! | `telemetry.rs` | `chat` and `execute_tool` spans, call ids |

mod plain;
mod telemetry;
mod turns;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde_json::Value;

use super::client::LlmClient;
use super::deferred::DeferredTools;
pub use crate::confirm::Decision;
use crate::confirm::PendingConfirmation;
use crate::context::SkillContext;
use crate::dialect::{ChatMessage, TokenUsage};
use crate::dispatch::Dispatcher;
use crate::tools::ToolFilter;
use std::fmt::Display;

pub(crate) use plain::run_call;
pub(crate) use telemetry::tool_span;
pub(crate) use turns::{
    absorb_result, replace_result, settle_pending, turn_loop, unmended_warning, BoxFuture, Halted,
    TurnHooks, TurnKind, TurnPlan, Unmended,
};

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
    /// What the run does when no tool passes the filter: stop without asking the model
    /// (the default, SPEC-20's behaviour), or let the model answer in one turn without
    /// tools.
    pub without_tools: WithoutTools,
    /// `None` (the default): a final text the reader refuses is no answer. `Some`: the
    /// model gets turns without tools to mend it, each sent with the reader's error (see
    /// [`AnswerRepair`]).
    pub answer_repair: Option<AnswerRepair>,
}

/// The repair policy of a run: how a final answer the caller's reader refused is sent
/// back to the model to mend.
///
/// The model's text stays in the conversation as its answer, then `"{prompt} {error}"`
/// (the reader's error) goes to the model as a user message, and one more turn is sent
/// without tools; its text is read again, up to `turns` times. Repair turns count in
/// [`ReactOutcome::iterations`] and [`ReactOutcome::usage`] and are not bounded by
/// [`ReactOptions::max_iterations`] (they follow an answer); the stop reason stays the
/// answering turn's. Each error sent back is in [`ReactOutcome::repairs`]. When no repair
/// turn is left, the turn cannot be paid for, or it fails, there is no answer and a
/// warning names the reader's error and why it was not mended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerRepair {
    /// Repair turns at most, per run.
    pub turns: usize,
    /// Sent before the reader's error in each repair turn (e.g. "Your answer could not be
    /// read; answer again in the asked format:").
    pub prompt: String,
}

/// What a run does when no tool passes its filter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WithoutTools {
    /// The model is not asked: the run stops with [`StopReason::NoTools`] and a warning
    /// (a task that needs tools cannot be done without them).
    #[default]
    Skip,
    /// The model is asked once, with no tools offered, and its text is the final answer
    /// (for an agent whose tools are optional, such as a worker given none).
    Answer,
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
            without_tools: WithoutTools::Skip,
            answer_repair: None,
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

    /// When no tool passes the filter, asks the model for its answer in one turn without
    /// tools instead of skipping the run (see [`ReactOptions::without_tools`]).
    #[must_use]
    pub fn answer_without_tools(mut self) -> Self {
        self.without_tools = WithoutTools::Answer;
        self
    }

    /// Gives the model up to `turns` turns without tools to mend a final answer the reader
    /// refused, each sending `prompt` and the reader's error (see [`AnswerRepair`]).
    #[must_use]
    pub fn repair_answers(mut self, turns: usize, prompt: impl Into<String>) -> Self {
        self.answer_repair = Some(AnswerRepair {
            turns,
            prompt: prompt.into(),
        });
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
    /// No tool passed the filter (or the tools cannot be offered in the client's
    /// dialect); the model was not asked.
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
    /// Model turns made (the extra turn at the limit and repair turns included).
    pub iterations: usize,
    /// Tool calls run (errors included).
    pub tool_calls: usize,
    /// Every tool call run, in the order the model asked, with its wall time.
    pub tool_runs: Vec<ToolRun>,
    /// Tokens of every model turn (repair turns included), summed as the provider
    /// reported them.
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
    /// The reader's errors that were sent back to the model to mend its answer, in order:
    /// one per repair turn actually sent (empty without [`ReactOptions::answer_repair`]).
    pub repairs: Vec<String>,
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

    pub(crate) fn warn(&mut self, message: String) {
        tracing::warn!("{message}");
        self.warnings.push(message);
    }
}

/// Runs the ReAct loop (SPEC-20 `react_agent_loop`).
///
/// `messages` are the initial system and user messages; `ctx` carries the host state skills
/// prepare their input from; `read_answer` reads the model's final text (a text without tool
/// calls) into the caller's answer type — an error becomes a warning and no answer, unless
/// [`ReactOptions::answer_repair`] gives the model turns to mend it. The tool
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
    let mut out = ReactOutcome::starting(messages);
    plain::run_turns(llm, dispatcher, ctx, options, &mut read_answer, &mut out).await;
    out
}

/// Continues a run that stopped with [`StopReason::AwaitingConfirmation`], once a person
/// has decided on every pending call (`decisions` by [`PendingConfirmation::id`]).
///
/// Each decision goes through [`Dispatcher::decide`] (approved calls run, rejected ones are
/// refused); each call's tool result in the conversation is replaced by what happened (a
/// call that expired or was decided elsewhere meanwhile is reported to the model as not
/// run), and the loop goes on from the next turn with the same options and turn limit.
/// Nothing runs when a pending call has no decision.
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
    let decisions: HashMap<String, Decision> = decisions.into_iter().collect();
    paused.check_resumable(&decisions)?;
    settle_pending(dispatcher, &mut paused, &decisions, ctx, options).await;
    paused.stop_reason = StopReason::MaxIterations;
    plain::run_turns(llm, dispatcher, ctx, options, &mut read_answer, &mut paused).await;
    Ok(paused)
}

impl<A> ReactOutcome<A> {
    /// Refuses to resume a run that did not stop for confirmations, or whose pending calls
    /// are not all decided.
    pub(crate) fn check_resumable(
        &self,
        decisions: &HashMap<String, Decision>,
    ) -> Result<(), ResumeError> {
        if self.stop_reason != StopReason::AwaitingConfirmation {
            return Err(ResumeError::NotAwaitingConfirmation(format!(
                "{:?}",
                self.stop_reason
            )));
        }
        let undecided: Vec<String> = self
            .pending_tool_calls
            .iter()
            .filter(|p| !decisions.contains_key(&p.confirmation.id))
            .map(|p| p.confirmation.id.clone())
            .collect();
        if undecided.is_empty() {
            Ok(())
        } else {
            Err(ResumeError::Undecided(undecided))
        }
    }

    /// An outcome of no turn yet, on `messages`.
    pub(crate) fn starting(messages: Vec<ChatMessage>) -> Self {
        ReactOutcome {
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
            repairs: Vec::new(),
        }
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
