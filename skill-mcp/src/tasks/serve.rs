//! The protocol side of task tools: `tools/call` of one, `tasks/get`, `tasks/cancel` and
//! `tasks/update`, each answered from the run store.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, CreateTaskResult, DetailedTask, GetTaskResult,
    JsonObject, MetaObject, ProgressNotificationParam, Task, TaskPayload, TaskStatus, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{json, Value};
use toolwright::runs::{Lease, RunEnd, RunRecord, RunStatus, RunStore, RunStoreError};

use super::{TaskError, TaskRunner, TaskTool, META_PROGRESS};

/// How often a plain `tools/call` of a task tool reads the store while the run works.
const WAIT_POLL: Duration = Duration::from_millis(200);

/// How long this process holds a run it takes over only to end it as cancelled.
const CANCEL_LEASE: chrono::Duration = chrono::Duration::seconds(30);

/// One served task tool: its definition, its runner, the store its runs live in.
struct Served {
    tool: TaskTool,
    runner: Arc<dyn TaskRunner>,
    store: Arc<dyn RunStore>,
}

/// The task tools of a server, and which interrupted runs this process resumed.
#[derive(Default)]
pub(crate) struct TaskTools {
    served: Vec<Served>,
    /// Runs being resumed now: a second poll meanwhile does not resume them again.
    resuming: Mutex<HashSet<String>>,
    /// Runs this process resumed (or failed to): resumed at most once per process.
    resumed: Mutex<HashSet<String>>,
}

/// What a run comes to for a client, read from the store.
enum View {
    /// Its work goes on (here or in another process).
    Working,
    /// It succeeded: the tool result.
    Completed(CallToolResult),
    /// It ended with an error.
    Failed(String),
    /// It stopped because it was asked to.
    Cancelled(String),
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl TaskTools {
    /// Adds a task tool; `Err` names a tool already served under that name.
    pub(crate) fn add(
        &mut self,
        tool: TaskTool,
        runner: Arc<dyn TaskRunner>,
        store: Arc<dyn RunStore>,
    ) -> Result<(), String> {
        if self.served.iter().any(|s| s.tool.name == tool.name) {
            return Err(tool.name);
        }
        self.served.push(Served {
            tool,
            runner,
            store,
        });
        Ok(())
    }

    /// Whether any task tool is served (then the server declares the extension).
    pub(crate) fn any(&self) -> bool {
        !self.served.is_empty()
    }

    /// The task tools as `tools/list` shows them.
    pub(crate) fn tools(&self) -> Vec<Tool> {
        self.served.iter().map(|s| s.tool.tool()).collect()
    }

    /// The task tool named `name`, as `tools/list` shows it.
    pub(crate) fn tool(&self, name: &str) -> Option<Tool> {
        self.by_name(name).map(|s| s.tool.tool())
    }

    /// Whether `name` is a task tool.
    pub(crate) fn serves(&self, name: &str) -> bool {
        self.by_name(name).is_some()
    }

    fn by_name(&self, name: &str) -> Option<&Served> {
        self.served.iter().find(|s| s.tool.name == name)
    }

    /// `tools/call` of task tool `name`: the task at once for a 2026-07-28 client that
    /// declared the tasks extension on its request, else the tool result when the run ends.
    pub(crate) async fn call(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let served = self
            .by_name(name)
            .ok_or_else(|| McpError::internal_error(format!("no task tool `{name}`"), None))?;
        let arguments = Value::Object(arguments.unwrap_or_default());
        let id = match served.runner.start(arguments).await {
            Ok(id) => id,
            Err(TaskError::InvalidArgument { path, message }) => {
                tracing::info!(tool = name, %path, "task tool called with a bad argument");
                return Ok(invalid_argument(name, &path, &message).into());
            }
            Err(err) => return Err(start_error(name, err)),
        };
        let record = self.recorded(served, &id).await?;
        tracing::info!(tool = name, run = %id, "task started");
        if wants_task(cx) {
            let task = base_task(served, &record, &View::Working);
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        }
        self.wait(served, &id, cx).await
    }

    /// The run `start` just recorded, checked to be one `tasks/get` will find.
    async fn recorded(&self, served: &Served, id: &str) -> Result<RunRecord, McpError> {
        let record = Self::stored(served, id, || {
            format!(
                "the runner of task tool `{}` returned run `{id}`, which its run store does not hold",
                served.tool.name
            )
        })
        .await?;
        if record.kind != served.tool.run_kind {
            return Err(McpError::internal_error(
                format!(
                    "the runner of task tool `{}` recorded run `{id}` as kind `{}`; the tool serves runs of kind `{}`",
                    served.tool.name, record.kind, served.tool.run_kind
                ),
                None,
            ));
        }
        Ok(record)
    }

    /// Reads run `id` until it ends and answers with its tool result; a cancelled request
    /// asks the run to stop.
    async fn wait(
        &self,
        served: &Served,
        id: &str,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let token = cx.meta.get_progress_token();
        let mut reported = None;
        loop {
            let record = self.read(served, id).await?;
            match self.view(served, &record).await? {
                View::Working => {}
                View::Completed(result) => return Ok(result.into()),
                View::Failed(error) => {
                    return Ok(error_result(format!("run `{id}` failed: {error}")).into())
                }
                View::Cancelled(why) => {
                    return Ok(error_result(format!("run `{id}` was cancelled: {why}")).into())
                }
            }
            if let Some(token) = &token {
                let now = (record.units_done, record.units_total);
                if reported != Some(now) {
                    reported = Some(now);
                    let mut param = ProgressNotificationParam::new(token.clone(), now.0 as f64)
                        .with_message(progress_message(&record));
                    if now.1 > 0 {
                        param = param.with_total(now.1 as f64);
                    }
                    if let Err(err) = cx.peer.notify_progress(param).await {
                        tracing::debug!(error = %err, "progress notification not sent");
                    }
                }
            }
            tokio::select! {
                () = cx.ct.cancelled() => {
                    tracing::info!(run = %id, "call of a task tool cancelled: asking its run to stop");
                    if let Err(err) = served.store.request_cancel(id).await {
                        tracing::warn!(run = %id, error = %err, "stop of the run not requested");
                    }
                    return Err(McpError::internal_error("the request was cancelled", None));
                }
                () = tokio::time::sleep(WAIT_POLL) => {}
            }
        }
    }

    /// `tasks/get`: the task's status, its result when it completed.
    pub(crate) async fn get(&self, task_id: &str) -> Result<GetTaskResult, McpError> {
        let (served, record) = self.find(task_id).await?;
        let view = self.view(served, &record).await?;
        let task = base_task(served, &record, &view);
        let payload = match view {
            View::Working => TaskPayload::Working,
            View::Completed(result) => TaskPayload::Completed {
                result: object_of(&result)?,
            },
            View::Failed(error) => TaskPayload::Failed {
                error: json_object(json!({"code": -32603, "message": error})),
            },
            View::Cancelled(_) => TaskPayload::Cancelled,
        };
        let mut result = GetTaskResult::new(DetailedTask::new(task, payload));
        let mut meta = MetaObject::new();
        meta.insert(
            META_PROGRESS.into(),
            json!({"unitsDone": record.units_done, "unitsTotal": record.units_total}),
        );
        result.meta = Some(meta);
        Ok(result)
    }

    /// `tasks/cancel`: asks the run to stop at its next unit; a run nobody works on is ended
    /// as cancelled here.
    pub(crate) async fn cancel(&self, task_id: &str) -> Result<(), McpError> {
        let (served, record) = self.find(task_id).await?;
        let failed = |e: RunStoreError| store_error(&served.tool.name, &e);
        let now = Utc::now();
        match record.status_now() {
            RunStatus::Running => {
                served.store.request_cancel(task_id).await.map_err(failed)?;
                tracing::info!(run = %task_id, "stop of the task requested");
            }
            RunStatus::Interrupted => {
                let holder = format!("toolwright-mcp/cancel/{}", uuid::Uuid::new_v4().simple());
                let until = now + CANCEL_LEASE;
                match served
                    .store
                    .acquire(task_id, &holder, until, now, record.dead_holder())
                    .await
                    .map_err(failed)?
                {
                    Lease::Acquired => {
                        let end = RunEnd {
                            status: RunStatus::Cancelled,
                            result: None,
                            error: Some("cancelled on request while interrupted".into()),
                        };
                        served
                            .store
                            .finish(task_id, &holder, &end)
                            .await
                            .map_err(failed)?;
                        tracing::info!(run = %task_id, "interrupted task ended as cancelled");
                    }
                    // Resumed meanwhile: its new holder reads the request.
                    Lease::Held { .. } => {
                        served.store.request_cancel(task_id).await.map_err(failed)?;
                    }
                }
            }
            // Already ended: nothing to stop.
            RunStatus::Succeeded | RunStatus::Failed | RunStatus::Cancelled => {}
        }
        Ok(())
    }

    /// `tasks/update`: these tasks never wait for input, so no response is outstanding and
    /// every one is ignored; the task must exist.
    pub(crate) async fn update(&self, task_id: &str) -> Result<(), McpError> {
        self.find(task_id).await.map(|_| ())
    }

    /// The task tool and the run of task `id`: the first store holding a run with this id
    /// of a kind one of its task tools serves.
    async fn find(&self, id: &str) -> Result<(&Served, RunRecord), McpError> {
        let mut asked: Vec<&Arc<dyn RunStore>> = Vec::new();
        for served in &self.served {
            if asked.iter().any(|s| Arc::ptr_eq(s, &served.store)) {
                continue;
            }
            asked.push(&served.store);
            let Some(record) = served
                .store
                .get(id)
                .await
                .map_err(|e| store_error(&served.tool.name, &e))?
            else {
                continue;
            };
            let owner = self
                .served
                .iter()
                .find(|s| Arc::ptr_eq(&s.store, &served.store) && s.tool.run_kind == record.kind);
            if let Some(owner) = owner {
                return Ok((owner, record));
            }
        }
        Err(McpError::invalid_params(
            format!("no task `{id}`: no task tool of this server has a run with this id (a task that ended may have been pruned)"),
            Some(json!({"taskId": id})),
        ))
    }

    /// Run `id` of `served`, which must still exist.
    async fn read(&self, served: &Served, id: &str) -> Result<RunRecord, McpError> {
        Self::stored(served, id, || {
            format!(
                "run `{id}` of task tool `{}` left its run store while it was awaited",
                served.tool.name
            )
        })
        .await
    }

    /// Run `id` from `served`'s store; a run it does not hold is an internal error that
    /// `missing` words (the server itself expected the run there).
    async fn stored(
        served: &Served,
        id: &str,
        missing: impl FnOnce() -> String,
    ) -> Result<RunRecord, McpError> {
        served
            .store
            .get(id)
            .await
            .map_err(|e| store_error(&served.tool.name, &e))?
            .ok_or_else(|| McpError::internal_error(missing(), None))
    }

    /// What `record` comes to now: an interrupted run that was not asked to stop is resumed
    /// (once per process) and working.
    async fn view(&self, served: &Served, record: &RunRecord) -> Result<View, McpError> {
        let id = &record.id;
        Ok(match record.status_now() {
            RunStatus::Running => View::Working,
            RunStatus::Succeeded => {
                let text = served
                    .store
                    .result(id)
                    .await
                    .map_err(|e| store_error(&served.tool.name, &e))?
                    .unwrap_or_else(|| "null".into());
                View::Completed(success_result(text))
            }
            RunStatus::Failed => View::Failed(
                record
                    .error
                    .clone()
                    .unwrap_or_else(|| "the work ended with an error it did not name".into()),
            ),
            RunStatus::Cancelled => View::Cancelled(
                record
                    .error
                    .clone()
                    .unwrap_or_else(|| "stopped on request".into()),
            ),
            RunStatus::Interrupted if record.cancel_requested => {
                View::Cancelled("stopped on request; its process ended before it said so".into())
            }
            RunStatus::Interrupted => self.resume(served, record).await?,
        })
    }

    /// Resumes an interrupted run through its runner, once per process.
    async fn resume(&self, served: &Served, record: &RunRecord) -> Result<View, McpError> {
        let id = record.id.clone();
        if lock(&self.resumed).contains(&id) {
            return Ok(View::Failed(format!(
                "the run stopped again after this server resumed it{}",
                record
                    .error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            )));
        }
        if !lock(&self.resuming).insert(id.clone()) {
            // Another request of this process is resuming it now.
            return Ok(View::Working);
        }
        tracing::info!(tool = %served.tool.name, run = %id, "resuming an interrupted task");
        let outcome = served.runner.resume(&id).await;
        // Held elsewhere, or a store failure that may pass: a later poll may try again.
        if !matches!(outcome, Err(TaskError::Held { .. } | TaskError::Store(_))) {
            lock(&self.resumed).insert(id.clone());
        }
        lock(&self.resuming).remove(&id);
        match outcome {
            Ok(()) => Ok(View::Working),
            Err(TaskError::Held { holder, .. }) => {
                tracing::info!(run = %id, %holder, "task resumed by another process");
                Ok(View::Working)
            }
            Err(TaskError::Store(err)) => Err(store_error(&served.tool.name, &err)),
            Err(err) => {
                tracing::warn!(run = %id, error = %err, "interrupted task could not be resumed");
                Ok(View::Failed(format!(
                    "the run was interrupted and cannot be resumed: {err}"
                )))
            }
        }
    }
}

/// Whether the request may be answered with a task: a 2026-07-28 request whose client
/// declared the tasks extension.
fn wants_task(cx: &RequestContext<RoleServer>) -> bool {
    let modern = cx.protocol_version().is_some_and(|v| !v.has_initialize());
    modern && cx.client_capabilities().is_some_and(|c| c.supports_tasks())
}

/// The task fields of `record` as `view` shows it.
fn base_task(served: &Served, record: &RunRecord, view: &View) -> Task {
    let status = match view {
        View::Working => TaskStatus::Working,
        View::Completed(_) => TaskStatus::Completed,
        View::Failed(_) => TaskStatus::Failed,
        View::Cancelled(_) => TaskStatus::Cancelled,
    };
    let message = match view {
        View::Working => progress_message(record),
        View::Completed(_) => format!("finished: {}", progress_message(record)),
        View::Failed(error) => error.clone(),
        View::Cancelled(why) => why.clone(),
    };
    let poll_ms = u64::try_from(served.tool.poll_interval.as_millis()).unwrap_or(u64::MAX);
    // `ttlMs` null: a run is kept until its store prunes it.
    Task::new(
        record.id.clone(),
        status,
        record.started_at.to_rfc3339(),
        record.updated_at.to_rfc3339(),
    )
    .with_status_message(message)
    .with_poll_interval_ms(poll_ms)
}

/// The progress of a run in words: `3 of 10 units done`.
fn progress_message(record: &RunRecord) -> String {
    if record.units_total > 0 {
        format!("{} of {} units done", record.units_done, record.units_total)
    } else {
        format!("{} units done", record.units_done)
    }
}

/// The tool result of a run that succeeded with `text`: the text, and the JSON it holds as
/// structured content.
fn success_result(text: String) -> CallToolResult {
    let structured = serde_json::from_str::<Value>(&text).ok();
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = structured;
    result
}

fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The answer to a call with a bad argument: a tool error naming the argument's path, as
/// the served skills answer (so a model can correct the call).
fn invalid_argument(tool: &str, path: &str, message: &str) -> CallToolResult {
    let mut result = error_result(format!(
        "invalid arguments for `{tool}`: at {path}: {message}; nothing was started"
    ));
    let mut meta = MetaObject::new();
    meta.insert(
        crate::META_ERROR.into(),
        json!({
            "code": "invalid_arguments",
            "problems": [{"path": path, "message": message}],
        }),
    );
    result.meta = Some(meta);
    result
}

fn start_error(tool: &str, err: TaskError) -> McpError {
    match err {
        TaskError::Store(err) => store_error(tool, &err),
        other => McpError::internal_error(
            format!("task tool `{tool}` could not start its work: {other}"),
            None,
        ),
    }
}

fn store_error(tool: &str, err: &RunStoreError) -> McpError {
    tracing::error!(tool, error = %err, "run store failed");
    McpError::internal_error(
        format!("the run store of task tool `{tool}` failed: {err}"),
        None,
    )
}

/// A tool result as the JSON object `tasks/get` inlines.
fn object_of(result: &CallToolResult) -> Result<JsonObject, McpError> {
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(McpError::internal_error(
            format!("a tool result serialized as {other}, not an object"),
            None,
        )),
        Err(e) => Err(McpError::internal_error(
            format!("a tool result does not serialize: {e}"),
            None,
        )),
    }
}

fn json_object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_that_is_json_is_also_structured() {
        let r = success_result(r#"{"ok":1}"#.into());
        assert_eq!(r.structured_content, Some(json!({"ok": 1})));
        assert_eq!(r.is_error, Some(false));
        let plain = success_result("not json".into());
        assert_eq!(plain.structured_content, None);
    }

    #[test]
    fn a_bad_argument_is_a_tool_error_naming_its_path() {
        let r = invalid_argument("long_job", "$.items[2]", "expected a string");
        assert_eq!(r.is_error, Some(true));
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains("$.items[2]"), "{text}");
        assert!(text.contains("invalid_arguments"), "{text}");
    }
}
