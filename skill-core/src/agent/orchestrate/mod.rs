//! The orchestrator: a planner model that delegates to workers, each worker a ReAct loop
//! with its own instructions, tools, model, turn limit and budget slice, all under one
//! budget for the run.
//!
//! The planner sees each [`Worker`] as a tool taking a `task` (agent-as-tool), beside the
//! ordinary skills it is given, and may call several in one turn: they run at the same
//! time, at most [`Orchestrator::max_workers`] at once. The run's [`Budget`] (model
//! requests, input and output tokens, tool calls, wall time) is shared by the planner and
//! every worker; a worker's slice is reserved before it starts and what it leaves is
//! returned, so workers running at the same time can never spend more than the run has.
//! A worker whose slice runs out answers from what it has and is marked incomplete; when
//! the run's budget runs low the planner is told so and asked to conclude. A worker that
//! fails becomes a tool result the planner can act on; the others go on. Calls that need a
//! person's consent park the run as [`crate::agent::react_agent_loop`] does, and
//! [`Orchestrator::resume`] goes on once they are decided.
//!
//! Each run is an `invoke_agent` span for the planner; each of its calls an `execute_tool`
//! span in it; each worker an `invoke_agent` span in its call's, with the loop's `chat`
//! and `execute_tool` spans inside; `gen_ai.usage.*` is recorded on each `invoke_agent`.
//!
//! ```
//! use std::sync::Arc;
//! use toolwright::agent::orchestrate::{Budget, Orchestrator, Worker};
//! use toolwright::agent::{ChatMessage, LlmResponse, ScriptedClient};
//! use toolwright::prelude::*;
//! use toolwright::ToolCall;
//!
//! /// Count the words of a text.
//! #[skill(id = "words.count")]
//! fn words_count(
//!     /// The text.
//!     text: String,
//! ) -> usize {
//!     text.split_whitespace().count()
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let planner = ScriptedClient::from_responses([
//!     LlmResponse::tool_calls(vec![ToolCall {
//!         id: "d1".into(),
//!         name: "counter".into(),
//!         arguments: r#"{"task": "count the words of: a b c"}"#.into(),
//!     }]),
//!     LlmResponse::text("The text has 3 words."),
//! ]);
//! let worker_model = ScriptedClient::from_responses([
//!     LlmResponse::tool_calls(vec![ToolCall {
//!         id: "w1".into(),
//!         name: "words_count".into(),
//!         arguments: r#"{"text": "a b c"}"#.into(),
//!     }]),
//!     LlmResponse::text("3"),
//! ]);
//! let orchestrator = Orchestrator::new(Arc::new(planner))
//!     .worker(Worker::new("counter", "Counts words.", Arc::new(worker_model)).max_iterations(3))
//!     .budget(Budget::unlimited().model_requests(10));
//! let dispatcher = Dispatcher::builder().skill(WordsCount::registration()).build().unwrap();
//! let messages = vec![ChatMessage::system("delegate"), ChatMessage::user("how many words in: a b c?")];
//! let read = |text: &str| Ok::<_, std::convert::Infallible>(text.to_string());
//! let outcome = orchestrator.run(&dispatcher, messages, &SkillContext::new(), read).await.unwrap();
//! assert_eq!(outcome.answer.as_deref(), Some("The text has 3 words."));
//! assert_eq!(outcome.workers[0].answer, Some("3".into()));
//! assert_eq!(outcome.spent.model_requests, 4);
//! # });
//! ```

mod budget;
mod delegate;
mod metered;
mod node;
mod outcome;
mod plan;
mod run;
mod worker;

use std::collections::{HashMap, HashSet};
use std::fmt::Display;
use std::sync::Arc;
use std::time::Duration;

pub use budget::{Budget, BudgetUsage};
pub use outcome::{AgentStats, OrchestrateOutcome, OrchestrateStop, PendingAction};
pub use worker::{AnswerFormat, Brief, BriefFn, Worker, WorkerReport, WorkerStatus};

use crate::agent::client::LlmClient;
use crate::agent::react::{Decision, ResumeError, MAX_TOOL_RESULT_CHARS};
use crate::context::SkillContext;
use crate::dialect::ChatMessage;
use crate::dispatch::Dispatcher;
use crate::tools::ToolFilter;

/// What the planner is sent when the budget runs low; what is left follows it.
pub const DEFAULT_CONCLUDE_PROMPT: &str = "The run's budget is nearly spent. Call no more tools or workers: give your final answer now from what you have.";

/// What the planner is sent in its last turn.
pub const DEFAULT_LAST_TURN_PROMPT: &str = "This is your last turn. Call no more tools or workers: give your final answer now from what you have.";

/// What the planner is sent when its final answer cannot be read; the reader's error
/// follows it.
pub const DEFAULT_REPAIR_PROMPT: &str = "Your final answer could not be read. Answer again with the whole answer, in exactly the format asked for, and nothing else. The problem:";

/// What a worker is sent when its slice or its turns run out.
pub const DEFAULT_WORKER_CONCLUDE_PROMPT: &str =
    "Your budget is spent: call no more tools and give your answer now from what you have.";

/// Why a run could not start: the orchestrator is set up wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrchestrateError {
    /// A worker's name cannot be a tool name.
    #[error("worker name `{0}` is not a valid tool name; expected 1 to 64 ASCII letters, digits, `_` or `-`")]
    InvalidWorkerName(String),
    /// Two workers have the same name.
    #[error("two workers are named `{0}`; each worker needs its own tool name")]
    DuplicateWorker(String),
    /// A worker has the name of a skill the planner is offered.
    #[error("worker `{0}` has the name of a skill the planner is offered; rename the worker")]
    WorkerShadowsSkill(String),
    /// An agent may take no turn.
    #[error("{0} has a turn limit of 0; it needs at least one turn")]
    NoTurns(String),
    /// `max_workers` is 0.
    #[error("max_workers is 0; at least one worker must be able to run")]
    NoWorkerSlots,
}

/// An orchestrator: the planner's model and settings, the workers it may call, and the
/// budget of each run. Build it once, run it many times.
#[derive(Clone)]
pub struct Orchestrator {
    /// Names the planner in spans (`gen_ai.agent.name`) and worker paths.
    pub name: String,
    /// The planner's model.
    pub model: Arc<dyn LlmClient>,
    /// The ordinary skills the planner may call itself; `None`: only its workers.
    pub skills: Option<ToolFilter>,
    /// The workers it may delegate to.
    pub workers: Vec<Worker>,
    /// Planner turns at most; the last is a concluding turn without tools.
    pub max_turns: usize,
    /// Workers running at the same time at most (per delegating agent).
    pub max_workers: usize,
    /// How deep delegation goes: 1 (the default) lets the planner call workers and
    /// workers call only skills; 2 lets workers call workers, and so on.
    pub max_depth: usize,
    /// The budget of each run.
    pub budget: Budget,
    /// Output tokens reserved per model turn before it is sent. Set the clients' own
    /// output limit (`max_tokens`) to the same figure and the output token limit can never
    /// be passed; otherwise a turn writing more is charged what it wrote.
    pub turn_output_tokens: u64,
    /// Sampling temperature of the planner.
    pub temperature: f32,
    /// Longest tool result (worker results included) an agent reads, in characters.
    pub max_tool_result_chars: usize,
    /// Outer time limit per skill call.
    pub tool_timeout: Option<Duration>,
    /// Sent to the planner when the budget runs low ([`DEFAULT_CONCLUDE_PROMPT`]).
    pub conclude_prompt: String,
    /// Sent to the planner in its last turn ([`DEFAULT_LAST_TURN_PROMPT`]).
    pub last_turn_prompt: String,
    /// Sent to a worker whose slice or turns run out ([`DEFAULT_WORKER_CONCLUDE_PROMPT`]).
    pub worker_conclude_prompt: String,
    /// Turns the planner gets to mend a final answer its reader refused (default 0): each
    /// sends [`repair_prompt`](Self::repair_prompt) and the reader's error, without tools,
    /// within the budget (the turn loop's repair policy,
    /// [`ReactOptions::answer_repair`](crate::agent::ReactOptions::answer_repair)).
    pub answer_repairs: usize,
    /// Sent with the reader's error in a repair turn ([`DEFAULT_REPAIR_PROMPT`]).
    pub repair_prompt: String,
}

impl std::fmt::Debug for Orchestrator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Orchestrator")
            .field("name", &self.name)
            .field("model", &self.model.model())
            .field("skills", &self.skills)
            .field("workers", &self.workers)
            .field("max_turns", &self.max_turns)
            .field("max_workers", &self.max_workers)
            .field("max_depth", &self.max_depth)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl Orchestrator {
    /// A planner on `model` with no workers yet: 6 turns, 4 workers at once, depth 1, no
    /// budget limit, 1024 output tokens reserved per turn.
    pub fn new(model: Arc<dyn LlmClient>) -> Self {
        Self {
            name: "planner".into(),
            model,
            skills: None,
            workers: Vec::new(),
            max_turns: 6,
            max_workers: 4,
            max_depth: 1,
            budget: Budget::unlimited(),
            turn_output_tokens: 1024,
            temperature: 0.1,
            max_tool_result_chars: MAX_TOOL_RESULT_CHARS,
            tool_timeout: None,
            conclude_prompt: DEFAULT_CONCLUDE_PROMPT.into(),
            last_turn_prompt: DEFAULT_LAST_TURN_PROMPT.into(),
            worker_conclude_prompt: DEFAULT_WORKER_CONCLUDE_PROMPT.into(),
            answer_repairs: 0,
            repair_prompt: DEFAULT_REPAIR_PROMPT.into(),
        }
    }

    /// Sets the planner's name.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Adds a worker.
    #[must_use]
    pub fn worker(mut self, worker: Worker) -> Self {
        self.workers.push(worker);
        self
    }

    /// Lets the planner call the skills `filter` accepts itself.
    #[must_use]
    pub fn skills(mut self, filter: ToolFilter) -> Self {
        self.skills = Some(filter);
        self
    }

    /// Sets the planner's turn limit.
    #[must_use]
    pub fn max_turns(mut self, n: usize) -> Self {
        self.max_turns = n;
        self
    }

    /// Sets how many workers run at once.
    #[must_use]
    pub fn max_workers(mut self, n: usize) -> Self {
        self.max_workers = n;
        self
    }

    /// Sets how deep delegation goes.
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Sets the budget of each run.
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Sets the output tokens reserved per turn.
    #[must_use]
    pub fn turn_output_tokens(mut self, n: u64) -> Self {
        self.turn_output_tokens = n;
        self
    }

    /// Gives the planner `n` turns to mend a final answer its reader refused.
    #[must_use]
    pub fn answer_repairs(mut self, n: usize) -> Self {
        self.answer_repairs = n;
        self
    }

    /// Sets the outer time limit per skill call.
    #[must_use]
    pub fn tool_timeout(mut self, limit: Duration) -> Self {
        self.tool_timeout = Some(limit);
        self
    }

    /// Checks the set-up against the skills of `dispatcher`.
    pub fn validate(&self, dispatcher: &Dispatcher) -> Result<(), OrchestrateError> {
        if self.max_turns == 0 {
            return Err(OrchestrateError::NoTurns(format!(
                "planner `{}`",
                self.name
            )));
        }
        if self.max_workers == 0 {
            return Err(OrchestrateError::NoWorkerSlots);
        }
        let mut seen = HashSet::new();
        for worker in &self.workers {
            let name = worker.name.as_str();
            let valid = (1..=64).contains(&name.len())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !valid {
                return Err(OrchestrateError::InvalidWorkerName(name.into()));
            }
            if !seen.insert(name) {
                return Err(OrchestrateError::DuplicateWorker(name.into()));
            }
            if worker.max_iterations == 0 {
                return Err(OrchestrateError::NoTurns(format!("worker `{name}`")));
            }
            let shadows = self.skills.as_ref().is_some_and(|filter| {
                dispatcher
                    .registration(name)
                    .is_some_and(|reg| filter.accepts(reg))
            });
            if shadows {
                return Err(OrchestrateError::WorkerShadowsSkill(name.into()));
            }
        }
        Ok(())
    }

    /// Runs the planner on `messages` (its system and user messages) until it answers,
    /// the budget is spent, or calls wait for consent. `read_answer` reads the planner's
    /// final text (an error becomes a warning and no answer). Only a wrong set-up is an
    /// error; everything that happens during the run is in the outcome.
    pub async fn run<A, E>(
        &self,
        dispatcher: &Dispatcher,
        messages: Vec<ChatMessage>,
        ctx: &SkillContext,
        read_answer: impl FnMut(&str) -> Result<A, E> + Send,
    ) -> Result<OrchestrateOutcome<A>, OrchestrateError>
    where
        E: Display,
    {
        self.validate(dispatcher)?;
        Ok(run::start(self, dispatcher, messages, ctx, read_answer).await)
    }

    /// Continues a run that stopped with [`OrchestrateStop::AwaitingConfirmation`] once
    /// every pending call is decided (`decisions` by confirmation id, as in
    /// [`crate::agent::resume_agent_loop`]): decided calls of the planner run or are
    /// refused, parked workers go on, and the planner continues. Nothing runs when a
    /// pending call has no decision.
    pub async fn resume<A, E>(
        &self,
        dispatcher: &Dispatcher,
        paused: OrchestrateOutcome<A>,
        decisions: impl IntoIterator<Item = (String, Decision)>,
        ctx: &SkillContext,
        read_answer: impl FnMut(&str) -> Result<A, E> + Send,
    ) -> Result<OrchestrateOutcome<A>, ResumeError>
    where
        E: Display,
    {
        let decisions: HashMap<String, Decision> = decisions.into_iter().collect();
        run::resume(self, dispatcher, paused, decisions, ctx, read_answer).await
    }
}
