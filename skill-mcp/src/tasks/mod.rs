//! Long work served as tasks: the MCP tasks extension (`io.modelcontextprotocol/tasks`,
//! SEP-2663, with the 2026-07-28 protocol).
//!
//! A *task tool* is a tool whose work outlives a request: a [`TaskTool`] describes it (name,
//! description, input schema), a host-supplied [`TaskRunner`] starts its work and resumes it,
//! and a [`RunStore`](toolwright::runs::RunStore) keeps its runs. A task is a run: the task id is the run id, its status
//! and progress are the run's, read from the store on every request. Nothing about a task is
//! kept in this process, so every server on one store answers for every task on it, whichever
//! server started it.
//!
//! On `tools/call`, a client that declared the extension on its request gets the task back at
//! once (`resultType: "task"`, status `working`) and polls `tasks/get`; the result is inlined
//! there when the run succeeds. Any other client gets a plain tool result when the run ends.
//! A run whose process died (its lease lapsed, or it stopped as `interrupted`) is resumed
//! through [`TaskRunner::resume`] when its task is read.
//!
//! Task tools are not skills: they are never in the [`toolwright::Dispatcher`], so an agent
//! running inside a task's work is never offered them.

mod serve;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{JsonObject, Tool};
use serde_json::Value;
use toolwright::runs::{ResumeRefused, RunStoreError};

use crate::error::ServeError;

pub(crate) use serve::TaskTools;

/// `_meta` key of a task's progress in `tasks/get`: `{"unitsDone": n, "unitsTotal": m}`
/// (the extension defines no progress field; `statusMessage` says the same in words).
pub const META_PROGRESS: &str = "toolwright/progress";

/// How often clients are asked to poll `tasks/get`, unless [`TaskTool::poll_interval`] says
/// otherwise.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A tool whose calls start long work: what `tools/list` shows of it and the kind of run its
/// runner records.
#[derive(Debug, Clone)]
pub struct TaskTool {
    name: String,
    title: Option<String>,
    description: String,
    input_schema: JsonObject,
    run_kind: String,
    poll_interval: Duration,
}

impl TaskTool {
    /// A task tool named `name` (as called on the wire), described to the model by
    /// `description`, taking arguments described by `input_schema` (a JSON Schema object of
    /// `type` `object`). Its runs are of kind `name` until [`run_kind`](Self::run_kind) says
    /// otherwise.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Result<Self, ServeError> {
        let name = name.into();
        let schema_error = |reason: &str| ServeError::Render {
            tool: name.clone(),
            reason: format!("input schema {reason}"),
        };
        let Value::Object(input_schema) = input_schema else {
            return Err(schema_error("is not a JSON object"));
        };
        if input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(schema_error("must have `\"type\": \"object\"`"));
        }
        if name.is_empty() {
            return Err(ServeError::Config("a task tool needs a name".into()));
        }
        Ok(Self {
            run_kind: name.clone(),
            name,
            title: None,
            description: description.into(),
            input_schema,
            poll_interval: DEFAULT_POLL_INTERVAL,
        })
    }

    /// A title for people (client interfaces show it in place of the name).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The kind its runner records its runs under ([`toolwright::runs::RunRecord::kind`]):
    /// a task is found by its run's id and kind, so runs of other kinds in the same store are
    /// never served as tasks of this tool.
    #[must_use]
    pub fn run_kind(mut self, kind: impl Into<String>) -> Self {
        self.run_kind = kind.into();
        self
    }

    /// How often clients are asked to poll `tasks/get` (`pollIntervalMs`).
    #[must_use]
    pub fn poll_interval(mut self, every: Duration) -> Self {
        self.poll_interval = every;
        self
    }

    /// The name it is called by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kind of its runs.
    pub fn kind(&self) -> &str {
        &self.run_kind
    }

    /// The tool as `tools/list` shows it.
    pub(crate) fn tool(&self) -> Tool {
        let tool = Tool::new(
            self.name.clone(),
            self.description.clone(),
            Arc::new(self.input_schema.clone()),
        );
        match &self.title {
            Some(title) => tool.with_title(title.clone()),
            None => tool,
        }
    }
}

/// Why a task's work could not be started or resumed.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// An argument is missing or has the wrong shape; nothing was started.
    #[error("argument `{path}`: {message}")]
    InvalidArgument {
        /// Where, as a JSON path into the arguments (`$.documents[0]`).
        path: String,
        /// What was expected.
        message: String,
    },
    /// Another live process works on the run (it holds the run's lease).
    #[error("run `{run}` is being worked on by {holder}")]
    Held {
        /// The run.
        run: String,
        /// The process holding its lease.
        holder: String,
    },
    /// The run store failed.
    #[error(transparent)]
    Store(#[from] RunStoreError),
    /// The work cannot be started or resumed for another reason (its inputs are gone, its
    /// options no longer match).
    #[error("{0}")]
    Refused(String),
}

impl TaskError {
    /// An argument error at `path` (a JSON path into the arguments).
    pub fn invalid_argument(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidArgument {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl From<ResumeRefused> for TaskError {
    fn from(refused: ResumeRefused) -> Self {
        match refused {
            ResumeRefused::Held { run, holder, .. } => Self::Held { run, holder },
            ResumeRefused::Store(err) => Self::Store(err),
        }
    }
}

/// The host's side of a task tool: starts its work and resumes runs whose process died.
///
/// The work records itself in the tool's [`RunStore`](toolwright::runs::RunStore) through a
/// [`toolwright::runs::RunJournal`]: progress as `units_done` of `units_total`, and its end
/// with the result as JSON text (the task's result) or an error. It stops at its next unit
/// when a stop is requested ([`toolwright::runs::RunJournal::stop_requested`]), ending the run
/// as `cancelled`.
#[async_trait]
pub trait TaskRunner: Send + Sync {
    /// Checks `arguments`, records a new run (of the tool's [`TaskTool::kind`]) in the store,
    /// starts its work in the background and returns the run's id once it is recorded.
    async fn start(&self, arguments: Value) -> Result<String, TaskError>;

    /// Takes run `run_id` over ([`toolwright::runs::RunJournal::resume`], refused while
    /// another live process holds it) and goes on with its work in the background; returns
    /// once the run is held.
    async fn resume(&self, run_id: &str) -> Result<(), TaskError>;
}
