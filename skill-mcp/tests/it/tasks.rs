//! Task tools over the tasks extension (SEP-2663): a plain `tools/call` that answers when the
//! run ends, a task for clients that declare the extension, `tasks/get` progress and result,
//! cancellation, a second server on the same store, resumption of an interrupted run, and the
//! errors. The runs live in a `MemoryRunStore`; the work is a counter that records one unit
//! per permit the test hands it.

use crate::counter::{count_tool, Counter, KIND};
use crate::{schema, wire};

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use toolwright::runs::{
    MemoryRunStore, NewRun, RunEnd, RunRecord, RunStatus, RunStore, RunStoreError, RunUnit,
};
use toolwright::{Dispatcher, SkillContext};
use toolwright_mcp::{McpServer, TaskTool};

use schema::Era;
use wire::LineClient;

fn server_on(store: Arc<dyn RunStore>, runner: Arc<Counter>) -> McpServer {
    McpServer::builder(Dispatcher::from_inventory().expect("test registry is valid"))
        .context(SkillContext::new())
        .task_tool(count_tool(), runner, store)
        .build()
        .expect("server builds")
}

fn tasks_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// `tasks/get` of `id`, as a 2026 client that declared the extension.
async fn get(client: &mut LineClient, id: &str) -> Value {
    let response = client.request("tasks/get", json!({"taskId": id})).await;
    response
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("tasks/get failed: {response}"))
}

/// Polls `tasks/get` until `done` holds (10 s at most).
async fn poll_until(client: &mut LineClient, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..200 {
        let task = get(client, id).await;
        if done(&task) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "task {id} never reached the awaited state: {}",
        get(client, id).await
    )
}

/// Starts a count of `units` as a task and returns its id.
async fn start_task(client: &mut LineClient, units: u64) -> String {
    let created = client.call("count", json!({"units": units})).await;
    let result = &created["result"];
    assert_eq!(result["resultType"], "task", "{created}");
    assert_eq!(result["status"], "working", "{created}");
    assert!(
        result["ttlMs"].is_null(),
        "runs are kept until pruned: {created}"
    );
    assert_eq!(result["pollIntervalMs"], 250, "{created}");
    result["taskId"].as_str().expect("a task id").to_string()
}

#[tokio::test]
async fn the_task_tool_is_listed_first_and_the_extension_declared() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let runner = Counter::new(Arc::clone(&store), Arc::new(Semaphore::new(0)));
    for era in [Era::Legacy, Era::Modern] {
        let server = server_on(Arc::clone(&store), Arc::clone(&runner));
        let mut client = LineClient::connect(server, era, tasks_caps()).await;
        let list = client.request("tools/list", json!({})).await;
        let tools = list["result"]["tools"].as_array().expect("tools");
        assert_eq!(tools[0]["name"], "count", "{list}");
        assert_eq!(tools[0]["inputSchema"]["required"], json!(["units"]));
        schema::check_tool(era, &tools[0]);
        assert!(tools.len() > 1, "the skills are served too");
    }
    // With tool search, beside the two search tools.
    let searching = McpServer::builder(Dispatcher::from_inventory().expect("valid registry"))
        .tool_search(true)
        .task_tool(count_tool(), runner.clone(), Arc::clone(&store))
        .build()
        .expect("server builds");
    let mut client = LineClient::connect(searching, Era::Modern, tasks_caps()).await;
    let list = client.request("tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["count", "search_tools", "call_tool"], "{list}");

    let server = server_on(Arc::clone(&store), runner);
    let mut client = LineClient::connect(server, Era::Modern, tasks_caps()).await;
    let discover = client.request("server/discover", json!({})).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({}),
        "{discover}"
    );
}

#[tokio::test]
async fn a_plain_call_answers_with_the_result_when_the_run_ends() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let gate = Arc::new(Semaphore::new(1000));
    let runner = Counter::new(Arc::clone(&store), gate);
    // Handshake era, and a 2026 client that did not declare the extension.
    for (era, caps) in [(Era::Legacy, tasks_caps()), (Era::Modern, json!({}))] {
        let server = server_on(Arc::clone(&store), Arc::clone(&runner));
        let mut client = LineClient::connect(server, era, caps).await;
        let answer = client.call("count", json!({"units": 3})).await;
        let result = &answer["result"];
        assert_eq!(result["isError"], false, "{answer}");
        assert_eq!(
            result["structuredContent"],
            json!({"counted": 3}),
            "{era:?}"
        );
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap())
            .expect("the text is the JSON result");
        assert_eq!(text, json!({"counted": 3}));

        let failed = client
            .call("count", json!({"units": 2, "fail": true}))
            .await;
        assert_eq!(failed["result"]["isError"], true, "{failed}");
        let why = failed["result"]["content"][0]["text"].as_str().unwrap();
        assert!(why.contains("asked to fail"), "{why}");
    }
    assert_eq!(runner.started.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_task_shows_progress_then_completes_with_its_result() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let gate = Arc::new(Semaphore::new(0));
    let runner = Counter::new(Arc::clone(&store), Arc::clone(&gate));
    let server = server_on(Arc::clone(&store), runner);
    let mut client = LineClient::connect(server, Era::Modern, tasks_caps()).await;
    let id = start_task(&mut client, 5).await;

    let first = get(&mut client, &id).await;
    assert_eq!(first["status"], "working", "{first}");
    assert_eq!(first["statusMessage"], "0 of 5 units done", "{first}");

    gate.add_permits(2);
    let partway = poll_until(&mut client, &id, |t| {
        t["_meta"]["toolwright/progress"]["unitsDone"] == 2
    })
    .await;
    assert_eq!(partway["status"], "working", "{partway}");
    assert_eq!(
        partway["_meta"]["toolwright/progress"],
        json!({"unitsDone": 2, "unitsTotal": 5})
    );
    assert_eq!(partway["statusMessage"], "2 of 5 units done");

    gate.add_permits(3);
    let done = poll_until(&mut client, &id, |t| t["status"] != "working").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"], json!({"counted": 5}));
    assert_eq!(done["result"]["isError"], false);
    // Read again: the result stays with the run.
    let again = get(&mut client, &id).await;
    assert_eq!(again["result"], done["result"]);
}

#[tokio::test]
async fn cancel_stops_the_work_at_its_next_unit() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let gate = Arc::new(Semaphore::new(0));
    let runner = Counter::new(Arc::clone(&store), Arc::clone(&gate));
    let server = server_on(Arc::clone(&store), runner);
    let mut client = LineClient::connect(server, Era::Modern, tasks_caps()).await;
    let id = start_task(&mut client, 10).await;
    gate.add_permits(1);
    poll_until(&mut client, &id, |t| {
        t["_meta"]["toolwright/progress"]["unitsDone"] == 1
    })
    .await;

    let ack = client.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let cancelled = poll_until(&mut client, &id, |t| t["status"] != "working").await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(
        cancelled["statusMessage"]
            .as_str()
            .unwrap()
            .contains("stopped on request after 1 units"),
        "{cancelled}"
    );
    let record = store.get(&id).await.unwrap().unwrap();
    assert_eq!(
        (record.status, record.units_done),
        (RunStatus::Cancelled, 1)
    );
    // Cancelling an ended task is acknowledged and changes nothing.
    let again = client.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(
        again["result"],
        json!({"resultType": "complete"}),
        "{again}"
    );
}

#[tokio::test]
async fn another_server_on_the_same_store_answers_for_the_task() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let gate = Arc::new(Semaphore::new(0));
    let first = Counter::new(Arc::clone(&store), Arc::clone(&gate));
    let second = Counter::new(Arc::clone(&store), Arc::new(Semaphore::new(0)));
    let mut starter = LineClient::connect(
        server_on(Arc::clone(&store), Arc::clone(&first)),
        Era::Modern,
        tasks_caps(),
    )
    .await;
    let mut other = LineClient::connect(
        server_on(Arc::clone(&store), Arc::clone(&second)),
        Era::Modern,
        tasks_caps(),
    )
    .await;
    let id = start_task(&mut starter, 4).await;

    gate.add_permits(3);
    let partway = poll_until(&mut other, &id, |t| {
        t["_meta"]["toolwright/progress"]["unitsDone"] == 3
    })
    .await;
    assert_eq!(partway["status"], "working", "{partway}");
    gate.add_permits(1);
    let done = poll_until(&mut other, &id, |t| t["status"] != "working").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"], json!({"counted": 4}));
    assert_eq!(
        second.resume_calls.load(Ordering::SeqCst),
        0,
        "a live run is not taken over"
    );
    assert_eq!(second.started.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_interrupted_run_is_resumed_once_when_polled() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    // A run left behind by a process that died after two of its four units.
    let run = NewRun {
        id: "count-left-behind".into(),
        kind: KIND.into(),
        fingerprint: "units=4".into(),
        spec: json!({"units": 4, "fail": false}),
        units_total: 4,
    };
    let dead = "gone-host/999999/0";
    store
        .create(&run, dead, Utc::now() - chrono::Duration::seconds(1))
        .await
        .unwrap();
    let units: Vec<RunUnit> = (0..2)
        .map(|i| RunUnit {
            kind: "unit".into(),
            key: i.to_string(),
            counts: true,
            body: "{}".into(),
        })
        .collect();
    store.record_units(&run.id, dead, &units).await.unwrap();
    let record: RunRecord = store.get(&run.id).await.unwrap().unwrap();
    assert_eq!(record.status_at(Utc::now()), RunStatus::Interrupted);

    let gate = Arc::new(Semaphore::new(0));
    let runner = Counter::new(Arc::clone(&store), Arc::clone(&gate));
    let server = server_on(Arc::clone(&store), Arc::clone(&runner));
    let mut client = LineClient::connect(server, Era::Modern, tasks_caps()).await;
    // Two polls at once: one resumes, the other finds it being resumed.
    let first = client
        .send_request("tasks/get", json!({"taskId": run.id}))
        .await;
    let second = client
        .send_request("tasks/get", json!({"taskId": run.id}))
        .await;
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let message = client.next_message().await;
        let id = message["id"].to_string();
        if [&first, &second].iter().any(|i| **i == id) {
            answers.push(message);
        }
    }
    for resumed in answers {
        assert_eq!(resumed["result"]["status"], "working", "{resumed}");
        assert_eq!(resumed["result"]["statusMessage"], "2 of 4 units done");
    }
    let again = get(&mut client, &run.id).await;
    assert_eq!(again["status"], "working", "{again}");
    assert_eq!(
        runner.resume_calls.load(Ordering::SeqCst),
        1,
        "resumed once"
    );
    assert_eq!(runner.resumed.load(Ordering::SeqCst), 1);

    gate.add_permits(2);
    let done = poll_until(&mut client, &run.id, |t| t["status"] != "working").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"], json!({"counted": 4}));
    assert_eq!(runner.resumed.load(Ordering::SeqCst), 1);
    assert_eq!(
        store.units(&run.id).await.unwrap().len(),
        4,
        "the first two kept"
    );
}

#[tokio::test]
async fn a_cancelled_interrupted_run_is_ended_not_resumed() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let run = NewRun {
        id: "count-orphan".into(),
        kind: KIND.into(),
        fingerprint: "units=3".into(),
        spec: json!({"units": 3}),
        units_total: 3,
    };
    store
        .create(
            &run,
            "gone-host/999999/0",
            Utc::now() - chrono::Duration::seconds(1),
        )
        .await
        .unwrap();
    let runner = Counter::new(Arc::clone(&store), Arc::new(Semaphore::new(0)));
    let server = server_on(Arc::clone(&store), Arc::clone(&runner));
    let mut client = LineClient::connect(server, Era::Modern, tasks_caps()).await;
    let ack = client
        .request("tasks/cancel", json!({"taskId": run.id}))
        .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let task = get(&mut client, &run.id).await;
    assert_eq!(task["status"], "cancelled", "{task}");
    assert_eq!(runner.resumed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_failed_run_is_a_failed_task_with_its_error() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let runner = Counter::new(Arc::clone(&store), Arc::new(Semaphore::new(1000)));
    let server = server_on(Arc::clone(&store), runner);
    let mut client = LineClient::connect(server, Era::Modern, tasks_caps()).await;
    let created = client
        .call("count", json!({"units": 1, "fail": true}))
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let failed = poll_until(&mut client, &id, |t| t["status"] != "working").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(failed["error"]["message"], "the counter was asked to fail");
}

#[tokio::test]
async fn unknown_tasks_bad_arguments_and_undeclared_clients_are_refused() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let runner = Counter::new(Arc::clone(&store), Arc::new(Semaphore::new(0)));
    let server = server_on(Arc::clone(&store), Arc::clone(&runner));
    let mut client = LineClient::connect(server, Era::Modern, tasks_caps()).await;
    for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
        let params = match method {
            "tasks/update" => json!({"taskId": "no-such-task", "inputResponses": {}}),
            _ => json!({"taskId": "no-such-task"}),
        };
        let unknown = client.request(method, params).await;
        assert_eq!(unknown["error"]["code"], -32602, "{method}: {unknown}");
        let message = unknown["error"]["message"].as_str().unwrap();
        assert!(message.contains("`no-such-task`"), "{message}");
    }
    // A run of another kind in the same store is not a task of this tool.
    store
        .create(
            &NewRun {
                id: "other-kind".into(),
                kind: "review".into(),
                fingerprint: String::new(),
                spec: json!({}),
                units_total: 1,
            },
            "somebody/1/0",
            Utc::now() + chrono::Duration::seconds(30),
        )
        .await
        .unwrap();
    let foreign = client
        .request("tasks/get", json!({"taskId": "other-kind"}))
        .await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");

    let bad = client.call("count", json!({"units": "many"})).await;
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    let text = bad["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("$.units") && text.contains("integer"),
        "{text}"
    );
    assert_eq!(
        bad["result"]["_meta"]["toolwright/error"]["problems"][0]["path"],
        "$.units"
    );
    assert_eq!(runner.started.load(Ordering::SeqCst), 0, "nothing started");

    // A client that did not declare the extension gets no task methods.
    let server = server_on(Arc::clone(&store), runner);
    let mut plain = LineClient::connect(server, Era::Modern, json!({})).await;
    let refused = plain
        .request("tasks/get", json!({"taskId": "other-kind"}))
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
}

/// A store whose reads fail, to see a store failure answered as an error.
struct BrokenStore(MemoryRunStore);

#[async_trait]
impl RunStore for BrokenStore {
    async fn create(
        &self,
        run: &NewRun,
        holder: &str,
        lease_until: chrono::DateTime<Utc>,
    ) -> Result<(), RunStoreError> {
        self.0.create(run, holder, lease_until).await
    }
    async fn get(&self, _id: &str) -> Result<Option<RunRecord>, RunStoreError> {
        Err(RunStoreError::backend("the database is unreachable"))
    }
    async fn list(&self, limit: usize) -> Result<Vec<RunRecord>, RunStoreError> {
        self.0.list(limit).await
    }
    async fn acquire(
        &self,
        id: &str,
        holder: &str,
        until: chrono::DateTime<Utc>,
        now: chrono::DateTime<Utc>,
        takeover: Option<&str>,
    ) -> Result<toolwright::runs::Lease, RunStoreError> {
        self.0.acquire(id, holder, until, now, takeover).await
    }
    async fn renew(
        &self,
        id: &str,
        holder: &str,
        until: chrono::DateTime<Utc>,
    ) -> Result<bool, RunStoreError> {
        self.0.renew(id, holder, until).await
    }
    async fn set_units_total(
        &self,
        id: &str,
        holder: &str,
        total: u64,
    ) -> Result<(), RunStoreError> {
        self.0.set_units_total(id, holder, total).await
    }
    async fn record_units(
        &self,
        id: &str,
        holder: &str,
        units: &[RunUnit],
    ) -> Result<(), RunStoreError> {
        self.0.record_units(id, holder, units).await
    }
    async fn units(&self, id: &str) -> Result<Vec<RunUnit>, RunStoreError> {
        self.0.units(id).await
    }
    async fn record_request(
        &self,
        id: &str,
        holder: &str,
        request: &toolwright::runs::RunRequest,
    ) -> Result<(), RunStoreError> {
        self.0.record_request(id, holder, request).await
    }
    async fn requests(&self, id: &str) -> Result<Vec<toolwright::runs::RunRequest>, RunStoreError> {
        self.0.requests(id).await
    }
    async fn finish(&self, id: &str, holder: &str, end: &RunEnd) -> Result<(), RunStoreError> {
        self.0.finish(id, holder, end).await
    }
    async fn result(&self, id: &str) -> Result<Option<String>, RunStoreError> {
        self.0.result(id).await
    }
    async fn request_cancel(&self, id: &str) -> Result<bool, RunStoreError> {
        self.0.request_cancel(id).await
    }
    async fn prune(
        &self,
        keep: usize,
        ended_before: chrono::DateTime<Utc>,
    ) -> Result<u64, RunStoreError> {
        self.0.prune(keep, ended_before).await
    }
}

#[tokio::test]
async fn a_store_failure_is_an_internal_error_naming_the_store() {
    let store: Arc<dyn RunStore> = Arc::new(BrokenStore(MemoryRunStore::new()));
    let runner = Counter::new(Arc::clone(&store), Arc::new(Semaphore::new(0)));
    let server = server_on(Arc::clone(&store), runner);
    let mut client = LineClient::connect(server, Era::Modern, tasks_caps()).await;
    let get = client
        .request("tasks/get", json!({"taskId": "count-1"}))
        .await;
    assert_eq!(get["error"]["code"], -32603, "{get}");
    let message = get["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("run store of task tool `count`") && message.contains("unreachable"),
        "{message}"
    );
    // The run is recorded, but cannot be read back to answer with its task.
    let call = client.call("count", json!({"units": 1})).await;
    assert_eq!(call["error"]["code"], -32603, "{call}");
}

#[tokio::test]
async fn a_task_tool_cannot_shadow_a_skill_or_another_task_tool() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let runner = Counter::new(Arc::clone(&store), Arc::new(Semaphore::new(0)));
    let dispatcher = || Dispatcher::from_inventory().expect("test registry is valid");
    let shadow = TaskTool::new("math_add", "Adds.", json!({"type": "object"})).unwrap();
    let err = McpServer::builder(dispatcher())
        .task_tool(shadow, runner.clone(), Arc::clone(&store))
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("`math_add`"), "{err}");
    let err = McpServer::builder(dispatcher())
        .task_tool(count_tool(), runner.clone(), Arc::clone(&store))
        .task_tool(count_tool(), runner, Arc::clone(&store))
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("registered twice"), "{err}");
    let err = TaskTool::new("x", "No schema.", json!({"type": "string"})).unwrap_err();
    assert!(err.to_string().contains("\"type\": \"object\""), "{err}");
}

/// The official Python SDK's run of `tests/peers/tasks_client.py` against `peer_server
/// --tasks` at `target`.
fn run_tasks_client(target: &[&str], token: Option<&str>) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/tasks_client.py");
    let mut command = std::process::Command::new("python3");
    command.arg(script).args(target);
    if let Some(token) = token {
        command.env("TOOLWRIGHT_TOKEN", token);
    }
    let output = command.output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "Python SDK tasks client ({target:?}) failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no report from the Python tasks client ({e}): {stdout}"))
}

fn check_tasks_report(report: &Value) {
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    assert!(report["polls"].as_u64().is_some_and(|n| n >= 2), "{report}");
    assert!(
        report["cancelled"]
            .as_str()
            .is_some_and(|m| m.contains("stopped on request")),
        "{report}"
    );
    assert_eq!(report["unknown_task"], -32602, "{report}");
    assert_eq!(report["plain"], json!({"counted": 3}), "{report}");
}

#[test]
fn python_sdk_client_runs_polls_and_cancels_tasks_over_stdio_and_http() {
    if !crate::mcp::python_sdk_available() {
        return;
    }
    let Some(server) = crate::mcp::peer_server() else {
        return;
    };
    let server = server.to_str().unwrap();
    let report = run_tasks_client(&[server, "--stdio", "--tasks"], None);
    assert_eq!(report["transport"], "stdio");
    check_tasks_report(&report);

    use std::io::BufRead;
    let token = "peer-token-0123456789";
    let mut child = std::process::Command::new(server)
        .args(["--http", "127.0.0.1:0", "--token", token, "--tasks"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("peer server starts");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .to_string();
    let outcome = std::panic::catch_unwind(|| run_tasks_client(&[&url], Some(token)));
    child.kill().ok();
    child.wait().ok();
    match outcome {
        Ok(report) => {
            assert_eq!(report["transport"], "http");
            check_tasks_report(&report);
        }
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
