//! `review_contract`, the review itself as an MCP task tool of `clausewright serve --stdio`:
//! a plain call answers with the report (of the served contract, or of a document sent),
//! bad arguments name themselves, a client of the tasks extension follows a task to its
//! report, a review survives its server's SIGKILL and is finished by a second server on the
//! same store without sending a recorded model request again, and a task is cancelled.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolwright::agent::mock::{react_answer, MockModel, MockReply, MockRequest, MockUsage};

use crate::binary::isolated as command;

/// The decoded size limit of a sent document (as the server states it).
const LIMIT: usize = 4 << 20;

/// A `clausewright serve --stdio` child and a line client of it.
struct Served {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    next: u64,
    /// A 2026-07-28 client declaring the tasks extension; else a 2025-11-25 one.
    modern: bool,
}

fn folder(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "clausewright-serve-review-{tag}-{}",
        std::process::id()
    ));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Served {
    fn start(home: &Path, args: &[&str], env: &[(&str, &str)], modern: bool) -> Self {
        let mut cmd = command(home);
        cmd.args(["serve", "--stdio"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("clausewright serve starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    if tx.send(v).is_err() {
                        break;
                    }
                }
            }
        });
        let mut served = Self {
            child,
            stdin,
            lines,
            next: 0,
            modern,
        };
        if !modern {
            let init = served.request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "serve-review-tests", "version": "0"}}),
            );
            assert!(init.get("result").is_some(), "{}", short(&init));
            served.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        served
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits (60 s at most) for its response.
    fn request(&mut self, method: &str, mut params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        if self.modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities":
                    {"extensions": {"io.modelcontextprotocol/tasks": {}}},
                "io.modelcontextprotocol/clientInfo": {"name": "serve-review-tests", "version": "0"},
            });
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if v["id"] == id => return v,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => panic!("no answer to {method} in 60 s"),
                Err(RecvTimeoutError::Disconnected) => panic!("the server exited during {method}"),
            }
        }
    }

    fn call(&mut self, arguments: Value) -> Value {
        self.request(
            "tools/call",
            json!({"name": "review_contract", "arguments": arguments}),
        )
    }

    fn get(&mut self, task: &str) -> Value {
        let answer = self.request("tasks/get", json!({"taskId": task}));
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tasks/get failed: {answer}"))
    }

    /// Polls `tasks/get` until the task leaves `working` (`within` at most).
    fn until_done(&mut self, task: &str, within: Duration) -> (Value, Vec<Value>) {
        let until = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let got = self.get(task);
            if got["status"] != "working" {
                return (got, seen);
            }
            seen.push(got.clone());
            assert!(
                Instant::now() < until,
                "task {task} still working: {}",
                short(&got)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn kill(mut self) {
        self.child.kill().unwrap(); // SIGKILL: no handler runs
        self.child.wait().unwrap();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// `v` as text, cut to a readable length for a failure message.
fn short(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(800) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The report of a successful plain call.
fn report_of(answer: &Value) -> Value {
    let result = &answer["result"];
    assert_eq!(result["isError"], false, "{}", short(answer));
    result["structuredContent"].clone()
}

fn error_text(answer: &Value) -> String {
    assert_eq!(answer["result"]["isError"], true, "{}", short(answer));
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn samples() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/fidic")
        .display()
        .to_string()
}

fn runs(home: &Path, store: &str) -> Vec<Value> {
    let out = command(home)
        .args(["runs", "list", "--format", "json", "--store", store])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_plain_call_reviews_the_served_contract_or_a_sent_one_and_names_bad_arguments() {
    let dir = folder("plain");
    let store = dir.join("runs.db").display().to_string();
    let contract = samples();
    let mut server = Served::start(
        &dir,
        &["--contract", &contract, "--store", &store],
        &[],
        false,
    );
    let list = server.request("tools/list", json!({}));
    let first = &list["result"]["tools"][0];
    assert_eq!(first["name"], "review_contract", "{}", short(&list));
    assert!(first["inputSchema"]["properties"]["document"].is_object());

    let report = report_of(&server.call(json!({})));
    assert_eq!(report["domain_id"], "fidic", "{}", short(&report));
    let clauses = report["clauses"].as_array().expect("clauses");
    assert!(clauses.len() > 3, "{}", short(&report));
    assert!(report["summary"]["clauses_reviewed"].as_u64().unwrap() > 3);

    let text = "SUPPLY AGREEMENT\n\n1 Delivery\n\nThe Supplier shall deliver the goods within 30 days.\n\n2 Liability\n\nThe Supplier's liability is unlimited.\n";
    let sent = report_of(&server.call(json!({
        "document": {"name": "supply.md", "text": text}, "our_party": "Buyer"
    })));
    assert_eq!(sent["our_party"], "Buyer", "{}", short(&sent));
    let ids: Vec<&str> = sent["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["clause_id"].as_str())
        .collect();
    assert!(ids.contains(&"1") && ids.contains(&"2"), "{ids:?}");

    let big = "a".repeat(LIMIT + 1);
    let refused = error_text(&server.call(json!({"document": {"name": "big.md", "text": big}})));
    assert!(refused.contains(&LIMIT.to_string()), "{refused}");
    assert!(refused.contains("$.document.text"), "{refused}");
    let refused = error_text(&server.call(json!({"mode": "fast"})));
    assert!(
        refused.contains("$.mode") && refused.contains("fast"),
        "{refused}"
    );
    // No model in the server's environment: a model mode is refused, saying why.
    let refused = error_text(&server.call(json!({"mode": "agent"})));
    assert!(refused.contains("OPENAI_BASE_URL"), "{refused}");

    let listed = runs(&dir, &store);
    assert_eq!(listed.len(), 2, "one run per started review: {listed:?}");
    assert!(
        listed.iter().all(|r| r["status"] == "succeeded"),
        "{listed:?}"
    );
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_tasks_client_follows_the_review_to_its_report() {
    let dir = folder("task");
    let store = dir.join("runs.db").display().to_string();
    let contract = samples();
    let mut server = Served::start(
        &dir,
        &["--contract", &contract, "--store", &store],
        &[],
        true,
    );
    let created = server.call(json!({}));
    assert_eq!(
        created["result"]["resultType"],
        "task",
        "{}",
        short(&created)
    );
    let task = created["result"]["taskId"].as_str().unwrap().to_string();
    let (done, _) = server.until_done(&task, Duration::from_secs(60));
    assert_eq!(done["status"], "completed", "{}", short(&done));
    let progress = &done["_meta"]["toolwright/progress"];
    let total = progress["unitsTotal"].as_u64().unwrap();
    assert!(total > 3, "{}", short(&done));
    assert_eq!(progress["unitsDone"], total, "{}", short(&done));
    let report = &done["result"]["structuredContent"];
    assert_eq!(report["domain_id"], "fidic", "{}", short(&done));
    let clauses = report["clauses"].as_array().unwrap().len() as u64;
    assert!(
        clauses >= total,
        "a unit per checklist clause: {clauses} < {total}"
    );
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

const CLAUSES: usize = 8;

/// A contract folder of `clauses` clauses with its checklist.
fn clause_folder(dir: &Path, clauses: usize) -> String {
    let contract = dir.join("contract");
    std::fs::create_dir_all(&contract).unwrap();
    let mut text = String::from("SUPPLY AGREEMENT\n\n");
    let mut checklist = Vec::new();
    for n in 1..=clauses {
        text.push_str(&format!(
            "{n} Topic {n}\n\nThe Supplier shall deliver lot {n} within {} days.\n\n",
            7 * n
        ));
        checklist.push(json!({
            "clause_id": n.to_string(), "clause_name": format!("Topic {n}"), "priority": "high",
            "required_skills": ["get_clause_context"], "description": ""
        }));
    }
    std::fs::write(contract.join("contract.md"), text).unwrap();
    std::fs::write(
        contract.join("checklist.json"),
        Value::from(checklist).to_string(),
    )
    .unwrap();
    contract.display().to_string()
}

/// Each clause: one tool round, then one risk; slow, so a review is in flight for a while.
fn slow_agent(req: &MockRequest) -> MockReply {
    MockReply {
        delay: Duration::from_millis(400),
        answer: react_answer(
            req,
            1,
            "get_clause_context",
            r#"[{"risk_level": "high", "risk_type": "probe", "description": "a risk"}]"#,
        ),
        usage: Some(MockUsage {
            prompt: 100,
            completion: 10,
            cached: None,
        }),
    }
}

#[cfg(unix)]
#[test]
fn a_review_killed_with_its_server_is_finished_by_another_on_the_same_store() {
    let dir = folder("restart");
    let store = dir.join("runs.db").display().to_string();
    let contract = clause_folder(&dir, CLAUSES);
    let model = MockModel::start(slow_agent).unwrap();
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("OPENAI_MODEL", "mock-model"),
    ];
    let args = ["--contract", contract.as_str(), "--store", store.as_str()];
    let mut a = Served::start(&dir, &args, &env, true);
    let created = a.call(json!({"mode": "agent"}));
    assert_eq!(
        created["result"]["resultType"],
        "task",
        "{}",
        short(&created)
    );
    let task = created["result"]["taskId"].as_str().unwrap().to_string();
    let guard = Instant::now() + Duration::from_secs(30);
    // The first turn of every clause answered, and recorded (the journal writes every
    // 200 ms); the second turns are in flight (400 ms each).
    while model.log().iter().filter(|e| e.finished.is_some()).count() < CLAUSES {
        assert!(
            Instant::now() < guard,
            "the review never got {CLAUSES} answers"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(300));
    a.kill();
    let sent_before = model.requests();
    let run = runs(&dir, &store).remove(0);
    assert_eq!(run["id"], task.as_str(), "{}", short(&run));
    let recorded = run["model_requests"].as_u64().unwrap() as usize;
    assert!(
        recorded > 0 && recorded < 2 * CLAUSES,
        "killed in flight, with answers recorded: {run}"
    );

    let mut b = Served::start(&dir, &args, &env, true);
    // Working while A's lease lasts, then resumed by B through tasks/get.
    let (done, working) = b.until_done(&task, Duration::from_secs(60));
    // While working, tasks/get tells the progress in clauses.
    let progress =
        &working.first().expect("working while A's lease lasted")["_meta"]["toolwright/progress"];
    assert_eq!(progress["unitsTotal"], CLAUSES, "{progress}");
    assert!(
        progress["unitsDone"].as_u64().unwrap() < CLAUSES as u64,
        "{progress}"
    );
    assert_eq!(done["status"], "completed", "{}", short(&done));
    let report = &done["result"]["structuredContent"];
    assert_eq!(
        report["summary"]["react_clauses"],
        CLAUSES,
        "{}",
        short(&done)
    );
    let sent_after = model.requests() - sent_before;
    let run = runs(&dir, &store)
        .into_iter()
        .find(|r| r["id"] == task.as_str())
        .unwrap();
    assert_eq!(run["status"], "succeeded", "{}", short(&run));
    let needed = run["model_requests"].as_u64().unwrap() as usize;
    eprintln!("{sent_before} sent before the kill, {recorded} recorded, {sent_after} sent after, {needed} in all");
    assert_eq!(
        sent_after,
        needed - recorded,
        "only the requests not recorded are sent again"
    );
    assert_eq!(run["clauses_done"], CLAUSES, "{}", short(&run));
    drop(b);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tasks_cancel_stops_the_review_run() {
    let dir = folder("cancel");
    let store = dir.join("runs.db").display().to_string();
    let contract = clause_folder(&dir, 4 * CLAUSES);
    let model = MockModel::start(slow_agent).unwrap();
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("OPENAI_MODEL", "mock-model"),
    ];
    let args = ["--contract", contract.as_str(), "--store", store.as_str()];
    let mut server = Served::start(&dir, &args, &env, true);
    let created = server.call(json!({"mode": "agent"}));
    let task = created["result"]["taskId"].as_str().unwrap().to_string();
    let working = server.get(&task);
    assert_eq!(working["status"], "working", "{}", short(&working));
    let cancelled = server.request("tasks/cancel", json!({"taskId": task}));
    assert!(cancelled.get("error").is_none(), "{}", short(&cancelled));
    let (done, _) = server.until_done(&task, Duration::from_secs(30));
    assert_eq!(done["status"], "cancelled", "{}", short(&done));
    let run = runs(&dir, &store).remove(0);
    assert_eq!(run["status"], "cancelled", "{}", short(&run));
    assert!(
        run["clauses_done"].as_u64().unwrap() < 4 * CLAUSES as u64,
        "stopped before the end: {run}"
    );
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

/// One raw HTTP/1.1 POST of a 2026-07-28 request to `/mcp`; returns the status and body.
fn post(addr: &str, method: &str, name: Option<&str>, body: &Value) -> (u16, String) {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nAuthorization: Bearer serve-review-token-0123\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n",
        body.len()
    );
    if let Some(name) = name {
        request.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn over_http_a_tasks_client_gets_the_report_of_a_sent_document() {
    let dir = folder("http");
    let store = dir.join("runs.db").display().to_string();
    let server = crate::http_server::HttpServer::start_with(
        &["--store", &store, "--no-console"],
        &[
            ("TOOLWRIGHT_TOKEN", "serve-review-token-0123"),
            ("HOME", dir.to_str().unwrap()),
        ],
    );
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "serve-review-tests", "version": "0"},
    });
    let text = "LEASE\n\n1 Rent\n\nThe Tenant shall pay the rent monthly.\n\n2 Term\n\nThe term is two years.\n";
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "review_contract", "_meta": meta,
        "arguments": {"document": {"name": "lease.md", "text": text}}}});
    let (status, body) = post(&server.addr, "tools/call", Some("review_contract"), &call);
    assert_eq!(status, 200, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        created["result"]["resultType"],
        "task",
        "{}",
        short(&created)
    );
    let task = created["result"]["taskId"].as_str().unwrap().to_string();
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                         "params": {"taskId": task, "_meta": meta}});
        let (status, body) = post(&server.addr, "tasks/get", Some(&task), &get);
        assert_eq!(status, 200, "{body}");
        let got: Value = serde_json::from_str(&body).unwrap();
        let result = &got["result"];
        if result["status"] == "completed" {
            let ids: Vec<&str> = result["result"]["structuredContent"]["clauses"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|c| c["clause_id"].as_str())
                .collect();
            assert!(ids.contains(&"1") && ids.contains(&"2"), "{ids:?}");
            break;
        }
        assert_eq!(result["status"], "working", "{}", short(&got));
        assert!(Instant::now() < until, "still working: {}", short(&got));
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}
