//! The agent mode, the ReAct branch of the clause review (SPEC-20 section 5): the model
//! reads the clause, chooses the skills itself, and writes the risks. Off by default; when
//! it fails for a clause (model error, no tool to offer) the checklist reviews that clause
//! instead.
//!
//! Entry point: [`review_with_agent`].
//!
//! ```
//! use clausewright_skills::review::AgentSettings;
//!
//! let settings = AgentSettings::from_lookup(|name| match name {
//!     "USE_REACT_AGENT" => Some("true".into()),
//!     "REACT_MAX_ITERATIONS" => Some("3".into()),
//!     _ => None,
//! })?;
//! assert!(settings.use_react_agent);
//! assert_eq!(settings.react_max_iterations, 3);
//! assert_eq!(settings.react_temperature, 0.1);
//! # Ok::<(), clausewright_skills::review::AgentSettingsError>(())
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use toolwright::agent::{
    react_agent_loop, ChatMessage, LlmClient, ReactOptions, ReactOutcome, StopReason,
};
use toolwright::fence::{fenced_body, TOOL_OUTPUT_TAG};
use toolwright::{Dispatcher, SkillContext, ToolFilter};

mod answer;
mod prompts;
mod react_prompt;

pub use answer::{parse_final_response, FinalAnswerError, ModelRisk};
pub use react_prompt::{
    build_react_agent_messages, DomainPrompt, Language, ReactPromptInput, CLAUSE_END, CLAUSE_START,
};

use super::checklist::review_item;
use super::engine;
use super::types::{
    ClauseReview, ReviewMode, ReviewOptions, ReviewReport, Risk, RiskKind, RiskLevel, SkillRun,
};
use crate::state::{ChecklistItem, ClauseFocus, Domain, Priority, ReviewState};

/// `source_skill` of risks the model wrote.
pub const REACT_SOURCE: &str = "react_agent";

/// Environment variable switching the ReAct branch on.
pub const ENV_USE_REACT_AGENT: &str = "USE_REACT_AGENT";
/// Environment variable with the loop's turn limit.
pub const ENV_REACT_MAX_ITERATIONS: &str = "REACT_MAX_ITERATIONS";
/// Environment variable with the model's temperature.
pub const ENV_REACT_TEMPERATURE: &str = "REACT_TEMPERATURE";
/// Environment variable: whether the iteration limit gets one more turn without tools
/// for the final answer (default true; false is SPEC-20's stop without risks).
pub const ENV_REACT_FINAL_ANSWER_AT_LIMIT: &str = "REACT_FINAL_ANSWER_AT_LIMIT";

/// Settings of the ReAct branch (SPEC-20 section 6.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgentSettings {
    /// Review clauses with the ReAct loop (default `false`: checklist mode).
    pub use_react_agent: bool,
    /// Model turns per clause at most (default 5).
    pub react_max_iterations: usize,
    /// Sampling temperature (default 0.1: steady tool choice).
    pub react_temperature: f32,
    /// When the turns run out while the model still calls tools, ask it in one more turn
    /// without tools for its answer from what it gathered (default `true`), so a long
    /// investigation is not lost; `false` keeps SPEC-20's behaviour: no risks.
    pub react_final_answer_at_limit: bool,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            use_react_agent: false,
            react_max_iterations: 5,
            react_temperature: 0.1,
            react_final_answer_at_limit: true,
        }
    }
}

/// A setting variable holds a value that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("environment variable {variable}={value:?} is invalid: expected {expected}")]
pub struct AgentSettingsError {
    /// The variable (`REACT_TEMPERATURE`).
    pub variable: &'static str,
    /// What it held.
    pub value: String,
    /// What it should hold.
    pub expected: &'static str,
}

impl AgentSettings {
    /// Reads `USE_REACT_AGENT`, `REACT_MAX_ITERATIONS`, `REACT_TEMPERATURE` (SPEC-20
    /// section 6.3) and `REACT_FINAL_ANSWER_AT_LIMIT` from the process environment.
    pub fn from_env() -> Result<Self, AgentSettingsError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the settings through `lookup` (a variable name to its value). Unset or blank
    /// variables keep their defaults; anything else must parse, or the error names the
    /// variable, its value and what was expected.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, AgentSettingsError> {
        let mut settings = Self::default();
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let boolean =
            |variable: &'static str, raw: String| match raw.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" | "y" | "t" => Ok(true),
                "0" | "false" | "no" | "off" | "n" | "f" => Ok(false),
                _ => Err(AgentSettingsError {
                    variable,
                    value: raw,
                    expected: "a boolean (true/false, 1/0, yes/no, on/off)",
                }),
            };
        if let Some(raw) = get(ENV_USE_REACT_AGENT) {
            settings.use_react_agent = boolean(ENV_USE_REACT_AGENT, raw)?;
        }
        if let Some(raw) = get(ENV_REACT_FINAL_ANSWER_AT_LIMIT) {
            settings.react_final_answer_at_limit = boolean(ENV_REACT_FINAL_ANSWER_AT_LIMIT, raw)?;
        }
        if let Some(raw) = get(ENV_REACT_MAX_ITERATIONS) {
            settings.react_max_iterations = raw
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or(AgentSettingsError {
                    variable: ENV_REACT_MAX_ITERATIONS,
                    value: raw,
                    expected: "a whole number of turns, at least 1",
                })?;
        }
        if let Some(raw) = get(ENV_REACT_TEMPERATURE) {
            settings.react_temperature = raw
                .trim()
                .parse::<f32>()
                .ok()
                .filter(|t| t.is_finite() && (0.0..=2.0).contains(t))
                .ok_or(AgentSettingsError {
                    variable: ENV_REACT_TEMPERATURE,
                    value: raw,
                    expected: "a number from 0 to 2",
                })?;
        }
        Ok(settings)
    }
}

/// The model of the ReAct branch and its settings, shared by every clause task of a review
/// (cheap to clone: the client is reference counted and keeps one connection pool).
#[derive(Clone)]
pub struct ReviewAgent {
    /// The model.
    pub client: Arc<dyn LlmClient>,
    /// How the branch runs (and whether it runs at all: `use_react_agent`).
    pub settings: AgentSettings,
}

impl ReviewAgent {
    /// The branch with `client` and `settings`.
    pub fn new(client: Arc<dyn LlmClient>, settings: AgentSettings) -> Self {
        Self { client, settings }
    }
}

/// A model provider the environment can configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelProvider {
    /// Any OpenAI-compatible Chat Completions server (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
    /// `OPENAI_MODEL`).
    OpenAi,
    /// The Anthropic Messages API (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`,
    /// `ANTHROPIC_MODEL`).
    Anthropic,
}

impl ModelProvider {
    /// The provider the variables of `lookup` configure: OpenAI-compatible when
    /// `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set (a local server needs no key), else
    /// Anthropic when `ANTHROPIC_API_KEY` is set, else none. Blank values count as unset.
    pub fn configured(lookup: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let set = |name: &str| lookup(name).is_some_and(|v| !v.trim().is_empty());
        if set("OPENAI_API_KEY") || set("OPENAI_BASE_URL") {
            Some(Self::OpenAi)
        } else if set("ANTHROPIC_API_KEY") {
            Some(Self::Anthropic)
        } else {
            None
        }
    }
}

/// Environment variables a review reads to choose and configure the model (besides
/// [`ENV_USE_REACT_AGENT`], [`ENV_REACT_MAX_ITERATIONS`], [`ENV_REACT_TEMPERATURE`] and
/// [`ENV_REACT_FINAL_ANSWER_AT_LIMIT`]).
pub const MODEL_ENV_VARS: [&str; 6] = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
];

/// The environment asks for a review agent it cannot make.
#[derive(Debug, thiserror::Error)]
pub enum ReviewAgentError {
    /// A setting variable holds an unusable value.
    #[error(transparent)]
    Settings(#[from] AgentSettingsError),
    /// The model client cannot be built from the variables (empty model name, no key).
    #[cfg(feature = "clients")]
    #[error("the model configured in the environment cannot be used: {0}")]
    Client(#[from] toolwright::agent::LlmError),
}

#[cfg(feature = "clients")]
impl ReviewAgent {
    /// The review agent the process environment configures (SPEC-20 section 6): see
    /// [`ReviewAgent::from_lookup`]. Feature `clients`.
    pub fn from_env() -> Result<Option<Self>, ReviewAgentError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// The review agent the variables of `lookup` configure: `None` unless
    /// `USE_REACT_AGENT` is true **and** a model is configured ([`ModelProvider::configured`]:
    /// `OPENAI_API_KEY` or `OPENAI_BASE_URL`, else `ANTHROPIC_API_KEY`), so
    /// `review(.., ReviewAgent::from_env()?.as_ref())` reviews by the checklist unless the
    /// environment asks for the agent. The client reads the rest of its provider's
    /// variables (`*_MODEL`, `*_BASE_URL`); the settings `REACT_MAX_ITERATIONS`,
    /// `REACT_TEMPERATURE` and `REACT_FINAL_ANSWER_AT_LIMIT`. Feature `clients`.
    ///
    /// ```
    /// use clausewright_skills::review::ReviewAgent;
    ///
    /// let env = |pairs: &'static [(&'static str, &'static str)]| {
    ///     move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    /// };
    /// // A local server and the switch: the agent, on.
    /// let agent = ReviewAgent::from_lookup(env(&[
    ///     ("USE_REACT_AGENT", "true"),
    ///     ("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1"),
    ///     ("OPENAI_MODEL", "qwen2.5"),
    /// ]))?
    /// .expect("configured");
    /// assert!(agent.settings.use_react_agent);
    /// assert_eq!(agent.client.model(), Some("qwen2.5"));
    /// // The switch without a model, or a model without the switch: no agent.
    /// assert!(ReviewAgent::from_lookup(env(&[("USE_REACT_AGENT", "true")]))?.is_none());
    /// assert!(ReviewAgent::from_lookup(env(&[("ANTHROPIC_API_KEY", "k")]))?.is_none());
    /// # Ok::<(), clausewright_skills::review::ReviewAgentError>(())
    /// ```
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, ReviewAgentError> {
        use toolwright::agent::{AnthropicClient, AnthropicConfig, OpenAiClient, OpenAiConfig};
        let settings = AgentSettings::from_lookup(&lookup)?;
        if !settings.use_react_agent {
            return Ok(None);
        }
        let client: Arc<dyn LlmClient> = match ModelProvider::configured(&lookup) {
            None => {
                tracing::warn!(
                    "USE_REACT_AGENT is on but no model is configured (OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY); reviewing by the checklist"
                );
                return Ok(None);
            }
            Some(ModelProvider::OpenAi) => {
                Arc::new(OpenAiClient::new(OpenAiConfig::from_lookup(&lookup))?)
            }
            Some(ModelProvider::Anthropic) => Arc::new(AnthropicClient::new(
                AnthropicConfig::from_lookup(&lookup)?,
            )?),
        };
        Ok(Some(Self::new(client, settings)))
    }
}

impl std::fmt::Debug for ReviewAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReviewAgent")
            .field("dialect", &self.client.dialect())
            .field("settings", &self.settings)
            .finish()
    }
}

/// Reviews the contract of `state`, clause by clause: by the ReAct branch when `agent` is
/// given, its settings switch it on and the state has a primary document, by the checklist
/// otherwise. A clause whose ReAct run fails (model error, no tool passes the domain
/// filter) is reviewed by the checklist and marked [`ReviewMode::ReactFallback`], its
/// conversation and the reason kept.
///
/// One runtime serves the whole review, the caller's: each clause is reviewed by a task,
/// at most `options.concurrency` at once (0: [`DEFAULT_AGENT_CONCURRENCY`] with a model,
/// one per CPU core without), all sharing `agent`'s client and its connection pool. The
/// report keeps checklist order whatever order clauses finish in; `options.progress` hears
/// of each as it finishes. Preparing the review (checklist, reference index) and the
/// document-level pass run on the blocking pool. The checklist mode is CPU work: on a
/// current-thread runtime its clauses run one at a time, on a multi-threaded one in
/// parallel.
///
/// The review runs until `cancel` completes (Ctrl-C, a deadline, a shutdown signal; give
/// [`std::future::pending`] for none), or until it is done. On cancellation, or when the
/// future is dropped, every clause task is aborted at once and the model requests in flight
/// are dropped; a cancelled report holds the clauses already finished, the others marked
/// [`ReviewMode::NotRun`], with [`ReviewReport::incomplete`] set, and its document-level
/// risks are drawn from the finished clauses only.
///
/// [`DEFAULT_AGENT_CONCURRENCY`]: crate::review::DEFAULT_AGENT_CONCURRENCY
///
/// ```no_run
/// # async fn demo(state: clausewright_skills::ReviewState) -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use toolwright::agent::{OpenAiClient, OpenAiConfig};
/// use toolwright::Dispatcher;
/// use clausewright_skills::review::{review_with_agent, AgentSettings, ReviewAgent, ReviewOptions};
///
/// let client = OpenAiClient::new(OpenAiConfig::from_env())?;
/// let settings = AgentSettings { use_react_agent: true, ..AgentSettings::from_env()? };
/// let agent = ReviewAgent::new(Arc::new(client), settings);
/// let dispatcher = Dispatcher::from_inventory()?;
/// // At most ten minutes; a CLI would wait on `tokio::signal::ctrl_c()` instead.
/// let deadline = tokio::time::sleep(std::time::Duration::from_secs(600));
/// let report =
///     review_with_agent(&dispatcher, &state, &ReviewOptions::default(), Some(&agent), deadline)
///         .await;
/// if report.incomplete {
///     eprintln!("interrupted: {} clause(s) not reviewed", report.summary.clauses_not_run);
/// }
/// println!("{} risks", report.summary.total_risks);
/// # Ok(()) }
/// ```
pub async fn review_with_agent(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
    agent: Option<&ReviewAgent>,
    cancel: impl std::future::Future<Output = ()>,
) -> ReviewReport {
    engine::run(dispatcher, state, options, agent, cancel).await
}

/// SPEC-20 `_normalize_risk_level`: `high`/`medium`/`low` in any case (and the Chinese
/// 高/中/低, with or without 风险), everything else is `medium`.
pub fn normalize_risk_level(level: &str) -> &'static str {
    RiskLevel::from_model_answer(level).as_str()
}

/// The ReAct branch for one item, falling back to the checklist branch when it fails.
pub(crate) async fn review_item_react(
    client: &dyn LlmClient,
    settings: &AgentSettings,
    dispatcher: &Dispatcher,
    base: &SkillContext,
    state: &Arc<ReviewState>,
    item: &ChecklistItem,
) -> ClauseReview {
    let language = Language::from_tag(&state.language);
    let clause_text = clause_text(state, item);
    let suggested: Vec<&str> = item.required_skills.iter().map(String::as_str).collect();
    let domain_id = (state.domain != Domain::Generic).then_some(state.domain.as_str());
    let messages = build_react_agent_messages(&ReactPromptInput {
        language,
        our_party: &state.our_party,
        clause_id: &item.clause_id,
        clause_name: &item.clause_name,
        description: &item.description,
        priority: priority_name(item.priority),
        clause_text: &clause_text,
        domain_id,
        domain_prompt: None,
        suggested_skills: &suggested,
        dispatcher: Some(dispatcher),
    });
    let mut options = ReactOptions::default()
        .max_iterations(settings.react_max_iterations)
        .temperature(settings.react_temperature)
        .label(format!("clause {}", item.clause_id));
    if let Some(domain) = domain_id {
        options = options.tool_filter(ToolFilter::all().domain(domain));
    }
    if settings.react_final_answer_at_limit {
        options = options.final_answer_at_limit(final_answer_prompt(language));
    }
    let ctx = base.clone().with(ClauseFocus(item.clause_id.clone()));
    let outcome = react_agent_loop(
        client,
        dispatcher,
        messages,
        &ctx,
        &options,
        parse_final_response,
    )
    .await;
    let (tools_chosen, agent_runs) = tool_runs(dispatcher, &outcome);

    // SPEC-20 section 0.5: a clause the model gave no readable answer for is never reported
    // risk-free; the checklist reviews it.
    let failure = match &outcome.stop_reason {
        StopReason::LlmError(err) => Some(format!("model error: {err}")),
        StopReason::NoTools => Some(format!(
            "no tool passes the filter of domain `{}`",
            state.domain
        )),
        StopReason::AwaitingConfirmation => Some(format!(
            "the model called {} tool(s) that wait for a person's confirmation; a review does not wait",
            outcome.pending_tool_calls.len()
        )),
        StopReason::FinalAnswer | StopReason::AnsweredAtLimit if outcome.answer.is_none() => {
            Some(unreadable_reason(&outcome))
        }
        StopReason::FinalAnswer | StopReason::AnsweredAtLimit | StopReason::MaxIterations => None,
    };
    let model_turns = outcome.iterations;
    let usage = outcome.usage;
    if let Some(reason) = failure {
        tracing::warn!(clause = %item.clause_id, %reason, "ReAct branch failed; the checklist reviews the clause");
        let mut review = review_item(dispatcher, base, state, item).await;
        review.mode = ReviewMode::ReactFallback;
        review.skills.splice(0..0, agent_runs);
        review.tools_chosen = tools_chosen;
        review.agent_messages = outcome.final_messages;
        review.fallback_reason = Some(reason);
        review.agent_warnings = outcome.warnings;
        review.model_turns = model_turns;
        review.usage = usage;
        return review;
    }
    let risks = react_risks(outcome.answer.iter().flatten(), &item.clause_id, language);
    ClauseReview {
        clause_id: item.clause_id.clone(),
        clause_name: item.clause_name.clone(),
        priority: item.priority,
        skills: agent_runs,
        skipped_skills: Vec::new(),
        risks,
        mode: ReviewMode::React,
        tools_chosen,
        agent_messages: outcome.final_messages,
        fallback_reason: None,
        agent_warnings: outcome.warnings,
        model_turns,
        usage,
    }
}

/// The message of the extra turn at the iteration limit.
fn final_answer_prompt(language: Language) -> &'static str {
    match language {
        Language::ZhCn => "工具调用次数已用完，不能再调用工具。请根据以上已收集的信息，直接给出最终的风险列表（JSON 数组，格式同上）；若确无风险，返回 []。",
        Language::En => "You have used up your tool calls and cannot call tools any more. From what you gathered above, give your final list of risks now (a JSON array in the format asked for); if there is truly no risk, answer [].",
    }
}

/// Why the model's last text gave no risk list: the reader's warning, or that it was empty.
fn unreadable_reason<A>(outcome: &ReactOutcome<A>) -> String {
    let detail = outcome
        .warnings
        .iter()
        .rev()
        .find(|w| w.starts_with("final answer unreadable"))
        .map_or("the final answer is empty", String::as_str);
    format!("the model gave no readable answer ({detail})")
}

/// The clause text from the primary document; else name and description; else the id
/// (SPEC-20 section 5.2).
fn clause_text(state: &Arc<ReviewState>, item: &ChecklistItem) -> String {
    let text = crate::index::lookup_for(state)
        .primary()
        .and_then(|d| d.full_text(&item.clause_id))
        .unwrap_or_default();
    if !text.trim().is_empty() {
        return text;
    }
    let fallback = format!("{}\n{}", item.clause_name, item.description)
        .trim()
        .to_string();
    if fallback.is_empty() {
        item.clause_id.clone()
    } else {
        fallback
    }
}

pub(crate) fn priority_name(priority: Priority) -> &'static str {
    match priority {
        Priority::Critical => "critical",
        Priority::High => "high",
        Priority::Medium => "medium",
        Priority::Low => "low",
    }
}

/// The model's risks in the report's shape: levels normalised, most serious first, ids
/// `R-{clause}-{n}` as in checklist mode.
pub(crate) fn react_risks<'a>(
    answer: impl Iterator<Item = &'a ModelRisk>,
    clause_id: &str,
    language: Language,
) -> Vec<Risk> {
    let unclassified = match language {
        Language::ZhCn => "未分类风险",
        Language::En => "unclassified",
    };
    let mut risks: Vec<Risk> = answer
        .map(|raw| {
            let mut finding = raw.finding.clone();
            if finding.kind.name().is_empty() {
                finding.kind = RiskKind::Named(unclassified.into());
            }
            finding.quote = finding.quote.trim().to_string();
            Risk::new(clause_id, finding)
        })
        .collect();
    risks.sort_by_key(|r| std::cmp::Reverse(r.finding.level));
    for (n, risk) in risks.iter_mut().enumerate() {
        risk.id = format!("R-{clause_id}-{}", n + 1);
    }
    risks
}

/// Reads the conversation back into the skills the model chose (ids, in call order) and
/// one [`SkillRun`] per tool result, timed by the loop.
fn tool_runs<A>(
    dispatcher: &Dispatcher,
    outcome: &ReactOutcome<A>,
) -> (Vec<String>, Vec<SkillRun>) {
    let messages = &outcome.final_messages;
    let mut chosen = Vec::new();
    let mut by_call_id: HashMap<&str, String> = HashMap::new();
    let mut runs = Vec::new();
    let elapsed: HashMap<&str, f64> = outcome
        .tool_runs
        .iter()
        .map(|run| (run.call_id.as_str(), run.elapsed_ms))
        .collect();
    for message in messages {
        for call in message.tool_calls() {
            let skill_id = dispatcher
                .registration(&call.name)
                .map_or_else(|| call.name.clone(), |reg| reg.id.to_string());
            by_call_id.insert(call.id.as_str(), skill_id.clone());
            chosen.push(skill_id);
        }
        let ChatMessage::Tool {
            tool_call_id,
            content,
            is_error,
        } = message
        else {
            continue;
        };
        let skill_id = by_call_id
            .get(tool_call_id.as_str())
            .cloned()
            .unwrap_or_else(|| tool_call_id.clone());
        // Results longer than the model's limit were cut and are no longer JSON; the
        // loop's `skill_context` still holds the whole (last) output of the skill.
        // The model read it fenced as data; the JSON is inside the fence.
        let body = fenced_body(TOOL_OUTPUT_TAG, content).unwrap_or(content);
        let parsed: Option<Value> = serde_json::from_str(body).ok().or_else(|| {
            outcome
                .skill_context
                .get(&skill_id)
                .filter(|_| !is_error)
                .map(|data| serde_json::json!({ "data": data }))
        });
        let field = |pointer: &str| {
            parsed
                .as_ref()
                .and_then(|v| v.pointer(pointer))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        runs.push(SkillRun {
            skill_id: skill_id.into(),
            success: !is_error,
            error_code: field("/error/code"),
            error_message: field("/error/message"),
            summary: field("/data/summary"),
            elapsed_ms: elapsed.get(tool_call_id.as_str()).copied().unwrap_or(0.0),
        });
    }
    (chosen, runs)
}
