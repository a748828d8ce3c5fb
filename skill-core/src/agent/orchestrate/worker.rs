//! A worker: a ReAct loop with its own instructions, tools, model, turn limit and budget
//! slice, which the planner calls as a tool with one `task` argument (agent-as-tool).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use super::budget::{Budget, BudgetUsage};
use crate::agent::answer::extract_json;
use crate::agent::client::LlmClient;
use crate::context::SkillContext;
use crate::dialect::{Dialect, TokenUsage};
use crate::tools::ToolFilter;

/// What one call of a worker with arguments of its own runs on (see
/// [`Worker::arguments`]): the host turns the planner's arguments into it.
#[derive(Clone, Default)]
pub struct Brief {
    /// The worker's first user message.
    pub task: String,
    /// A system message for this call instead of [`Worker::instructions`].
    pub instructions: Option<String>,
    /// Turns for this call; at most [`Worker::max_iterations`], which applies when `None`.
    pub max_iterations: Option<usize>,
    /// The context this call's skills see instead of the run's (a focus, a subject).
    pub context: Option<SkillContext>,
}

impl Brief {
    /// A brief of `task` alone.
    pub fn new(task: impl Into<String>) -> Self {
        Self {
            task: task.into(),
            ..Self::default()
        }
    }
}

impl std::fmt::Debug for Brief {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Brief")
            .field("task", &self.task)
            .field("instructions", &self.instructions.is_some())
            .field("max_iterations", &self.max_iterations)
            .field("context", &self.context.is_some())
            .finish()
    }
}

/// Turns a worker call's arguments into its [`Brief`]; an error is the reason the call
/// was not started, as the planner reads it.
pub type BriefFn = dyn Fn(&Value) -> Result<Brief, String> + Send + Sync;

/// How a worker's final text becomes its answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AnswerFormat {
    /// The text itself (trimmed); an empty text is no answer.
    #[default]
    Text,
    /// The JSON value in the text ([`extract_json`]); a text without one is unreadable and
    /// the worker fails, so the planner can ask again or do without.
    Json,
}

impl AnswerFormat {
    pub(crate) fn read(self, text: &str) -> Result<Value, String> {
        match self {
            AnswerFormat::Text if text.trim().is_empty() => Err("the answer is empty".into()),
            AnswerFormat::Text => Ok(Value::String(text.trim().to_string())),
            AnswerFormat::Json => extract_json(text).ok_or_else(|| {
                if text.trim().is_empty() {
                    "the answer is empty".to_string()
                } else {
                    "no JSON value in the answer".to_string()
                }
            }),
        }
    }
}

/// One kind of worker the planner may delegate to. It appears to the planner as a tool
/// named [`name`](Self::name) taking a `task`; each call runs a fresh ReAct loop.
#[derive(Clone)]
pub struct Worker {
    /// The tool name the planner calls it by: 1 to 64 ASCII letters, digits, `_` or `-`.
    pub name: String,
    /// What the worker is good for, as the planner reads it in the tool definition.
    pub description: String,
    /// The worker's system message.
    pub instructions: String,
    /// The model the worker runs on (a cheaper or a deeper one than the planner's).
    pub model: Arc<dyn LlmClient>,
    /// Which skills the worker may call.
    pub tools: ToolFilter,
    /// Model turns at most; at the limit it is asked for its answer in one more turn
    /// without tools.
    pub max_iterations: usize,
    /// The most its slice may take of the run's budget; a unit left `None` gets an even
    /// share of what is left among the workers started in the same round (model requests:
    /// at least one, at most `max_iterations` + 1). Its `wall_time`
    /// cuts each call like [`time_limit`](Self::time_limit).
    pub budget: Budget,
    /// Wall time at most for one call (also cut by the run's wall time left).
    pub time_limit: Option<Duration>,
    /// How its final text is read.
    pub answer: AnswerFormat,
    /// Sampling temperature.
    pub temperature: f32,
    /// Arguments of its own instead of `task`: their JSON Schema and how they become a
    /// call's [`Brief`] (see [`Worker::arguments`]).
    pub parameters: Option<(Value, Arc<BriefFn>)>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("name", &self.name)
            .field("model", &self.model.model())
            .field("tools", &self.tools)
            .field("max_iterations", &self.max_iterations)
            .field("budget", &self.budget)
            .field("time_limit", &self.time_limit)
            .field("answer", &self.answer)
            .finish_non_exhaustive()
    }
}

impl Worker {
    /// A worker called `name`, described to the planner by `description`, running on
    /// `model`: every skill offered, 4 turns, text answers, no cap of its own.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        model: Arc<dyn LlmClient>,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            instructions: String::new(),
            model,
            tools: ToolFilter::default(),
            max_iterations: 4,
            budget: Budget::unlimited(),
            time_limit: None,
            answer: AnswerFormat::Text,
            temperature: 0.1,
            parameters: None,
        }
    }

    /// Sets the system message.
    #[must_use]
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = text.into();
        self
    }

    /// Sets the skills it may call.
    #[must_use]
    pub fn tools(mut self, filter: ToolFilter) -> Self {
        self.tools = filter;
        self
    }

    /// Sets the turn limit.
    #[must_use]
    pub fn max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// Caps its slice of the run's budget.
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Sets its wall time limit per call.
    #[must_use]
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Reads its answer as JSON (see [`AnswerFormat::Json`]).
    #[must_use]
    pub fn json_answer(mut self) -> Self {
        self.answer = AnswerFormat::Json;
        self
    }

    /// Sets the sampling temperature.
    #[must_use]
    pub fn temperature(mut self, t: f32) -> Self {
        self.temperature = t;
        self
    }

    /// Takes arguments of its own instead of `task`: `schema` (a JSON Schema object) is
    /// what the planner sees, and `brief` turns each call's arguments (an object) into
    /// what the call runs on: its task, and optionally its instructions, turn limit and
    /// skill context. A host can so give the planner `{"clause_id", "focus"}` and hand the
    /// worker the clause's text and a context focused on it.
    #[must_use]
    pub fn arguments(
        mut self,
        schema: Value,
        brief: impl Fn(&Value) -> Result<Brief, String> + Send + Sync + 'static,
    ) -> Self {
        self.parameters = Some((schema, Arc::new(brief)));
        self
    }

    /// The brief of a call with `arguments` (its JSON text): the `task` argument, or what
    /// the worker's own [`BriefFn`] makes of them; the turn limit is capped by the
    /// worker's own.
    pub(crate) fn brief(&self, arguments: &Value) -> Result<Brief, String> {
        let mut brief = match &self.parameters {
            Some((_, make)) => {
                if !arguments.is_object() {
                    return Err("the arguments are not a JSON object".into());
                }
                make(arguments)?
            }
            None => {
                let task = arguments
                    .get("task")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .ok_or("the call has no `task`: pass the work to do as a non-empty string argument `task`")?;
                Brief::new(task)
            }
        };
        if brief.task.trim().is_empty() {
            return Err("the worker's task is empty".into());
        }
        brief.max_iterations = Some(
            brief
                .max_iterations
                .map_or(self.max_iterations, |n| n.clamp(1, self.max_iterations)),
        );
        Ok(brief)
    }

    /// Requests a call with `max_iterations` turns asks for: the worker's own cap, else
    /// every turn it may take (the extra concluding turn included).
    pub(crate) fn requests_wanted(&self, max_iterations: usize) -> u64 {
        let turns = max_iterations as u64 + 1;
        self.budget
            .model_requests
            .map_or(turns, |cap| cap.min(turns))
    }

    /// The worker's tool definition in `dialect`: one required string argument, `task`,
    /// or the schema of its own [`arguments`](Self::arguments).
    pub(crate) fn definition(&self, dialect: Dialect) -> Value {
        let parameters = self.parameters.as_ref().map_or_else(|| json!({
            "type": "object",
            "properties": {
                "task": {
                    "type": "string",
                    "description": "What to do, self-contained: the worker sees nothing else of the conversation."
                }
            },
            "required": ["task"],
            "additionalProperties": false,
        }), |(schema, _)| schema.clone());
        let (name, description) = (&self.name, &self.description);
        match dialect {
            Dialect::OpenAi => json!({"type": "function", "function": {
                "name": name, "description": description, "parameters": parameters}}),
            Dialect::OpenAiStrict => json!({"type": "function", "function": {
                "name": name, "description": description, "parameters": parameters, "strict": true}}),
            Dialect::Responses => json!({"type": "function", "name": name,
                "description": description, "parameters": parameters, "strict": true}),
            Dialect::Anthropic => json!({"name": name, "description": description,
                "input_schema": parameters}),
            Dialect::AnthropicStrict => json!({"name": name, "description": description,
                "input_schema": parameters, "strict": true}),
            Dialect::Gemini | Dialect::GeminiJsonSchema => json!({"name": name,
                "description": description, "parametersJsonSchema": parameters}),
            Dialect::Mcp => json!({"name": name, "description": description,
                "inputSchema": parameters}),
        }
    }
}

/// How a worker's call ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum WorkerStatus {
    /// It answered within its turns and slice.
    Complete,
    /// It stopped early (its slice, turn limit or the run's wall time ran out) and returns
    /// what it has; the text says why.
    Incomplete(String),
    /// It failed (model error, unreadable answer, time-out); the text says how.
    Failed(String),
    /// It was not started (no budget left for it, a bad `task`, delegation too deep).
    NotRun(String),
}

impl WorkerStatus {
    /// Its name in the planner's tool result (`complete`, `incomplete`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            WorkerStatus::Complete => "complete",
            WorkerStatus::Incomplete(_) => "incomplete",
            WorkerStatus::Failed(_) => "failed",
            WorkerStatus::NotRun(_) => "not_run",
        }
    }

    /// The reason, for every status but `Complete`.
    pub fn reason(&self) -> Option<&str> {
        match self {
            WorkerStatus::Complete => None,
            WorkerStatus::Incomplete(r) | WorkerStatus::Failed(r) | WorkerStatus::NotRun(r) => {
                Some(r)
            }
        }
    }
}

/// One worker call of a run: what it was asked, how it ended, what it spent.
#[derive(Debug, Clone, Serialize)]
pub struct WorkerReport {
    /// Where it ran: the caller's path, then `/name#call_id` (`planner/search#call_1`).
    pub path: String,
    /// The worker's name.
    pub worker: String,
    /// The caller's call id.
    pub call_id: String,
    /// The task it was given.
    pub task: String,
    /// How it ended.
    #[serde(flatten)]
    pub status: WorkerStatus,
    /// Its answer, when it gave one that its [`AnswerFormat`] could read.
    pub answer: Option<Value>,
    /// Output of each of its successful tool calls, by skill id.
    pub skill_context: BTreeMap<String, Value>,
    /// Model turns it made.
    pub turns: usize,
    /// Tool calls it ran.
    pub tool_calls: usize,
    /// Tokens its turns cost, as reported.
    pub usage: TokenUsage,
    /// The slice it was granted (`None` in a unit where neither the run nor the worker
    /// had a limit).
    pub granted: [Option<u64>; 4],
    /// What it spent of the run's budget (its own delegations included).
    pub spent: BudgetUsage,
    /// Wall time of the call, in milliseconds (time parked for consent excluded).
    pub elapsed_ms: f64,
    /// What the host should know (the loop's warnings, dropped calls).
    pub warnings: Vec<String>,
}

impl WorkerReport {
    /// What the caller's model reads as the tool result: status, answer (or what was
    /// gathered when there is none), the reason, and the turns and tokens spent.
    pub(crate) fn to_model_json(&self) -> Value {
        let mut out = json!({
            "worker": self.worker,
            "status": self.status.as_str(),
        });
        if let Some(reason) = self.status.reason() {
            out["reason"] = json!(reason);
        }
        match &self.answer {
            Some(answer) => out["answer"] = answer.clone(),
            None if !self.skill_context.is_empty() => {
                out["gathered"] = json!(self.skill_context);
            }
            None => {}
        }
        out["turns"] = json!(self.turns);
        out["tokens"] = json!(self.usage.total());
        out
    }
}
