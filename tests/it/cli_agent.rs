//! `clausewright review --agent react` against a local OpenAI-compatible server: the model calls
//! tools in parallel, answers with risks, and the report shows which tools it chose.

use std::process::Command;

use serde_json::{json, Value};
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn completion(message: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "mock-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))
}

#[tokio::test]
async fn react_review_through_a_local_model_server() {
    let server = MockServer::start().await;
    // Second turn (the request carries tool results): the final answer.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_string_contains("tool_call_id"))
        .respond_with(completion(json!({
            "role": "assistant",
            "content": "```json\n[{\"risk_level\": \"high\", \"risk_type\": \"fitness_for_purpose\", \"description\": \"PC adds a fitness-for-purpose duty relying on deleted 4.12\", \"reason\": \"strict liability\", \"analysis\": \"merge shows the added paragraph\", \"original_text\": \"fit for the purposes\"}]\n```"
        })))
        .with_priority(1)
        .mount(&server)
        .await;
    // First turn: two tools at once.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(completion(json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_clause_context", "arguments": "{\"clause_id\": \"4.1\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "fidic_merge_gc_pc", "arguments": "{\"clause_id\": \"4.1\"}"}}
            ]
        })))
        .with_priority(2)
        .mount(&server)
        .await;

    let dir = std::env::temp_dir().join(format!("toolwright-agent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checklist = dir.join("checklist.json");
    std::fs::write(
        &checklist,
        r#"[{"clause_id": "4.1", "clause_name": "Contractor's General Obligations", "priority": "critical",
             "required_skills": ["get_clause_context", "fidic_merge_gc_pc"], "description": "scope of obligations"}]"#,
    )
    .unwrap();

    let base_url = format!("{}/v1", server.uri());
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_clausewright"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("OPENAI_API_KEY")
            .env_remove("USE_REACT_AGENT")
            .args([
                "review",
                "samples/fidic",
                "--our-party",
                "Contractor",
                "--agent",
                "react",
            ])
            .args([
                "--base-url",
                &base_url,
                "--model",
                "mock-model",
                "--format",
                "json",
            ])
            .arg("--checklist")
            .arg(&checklist)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let clause = &report["clauses"][0];
    assert_eq!(clause["mode"], "react");
    assert_eq!(
        clause["tools_chosen"],
        json!(["get_clause_context", "fidic_merge_gc_pc"])
    );
    assert_eq!(clause["risks"][0]["risk_level"], "high");
    assert_eq!(clause["risks"][0]["risk_type"], "fitness_for_purpose");
    let messages = clause["agent_messages"].as_array().unwrap();
    let tool_ids: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    assert_eq!(
        tool_ids,
        ["call_1", "call_2"],
        "results in the order the model asked"
    );

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(first["model"], "mock-model");
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"fidic_merge_gc_pc") && !offered.contains(&"spa_extract_conditions"),
        "fidic tools only: {offered:?}"
    );
}

/// A contract of three clauses and a checklist of them, in a fresh folder.
fn three_clause_contract(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolwright-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::from("SERVICES AGREEMENT\n\n");
    let mut checklist = Vec::new();
    for n in 1..=3 {
        text.push_str(&format!(
            "{n} Topic {n}\n\nThe Contractor shall perform obligation number {n} within 28 days.\n\n"
        ));
        checklist.push(json!({
            "clause_id": n.to_string(), "clause_name": format!("Topic {n}"), "priority": "medium",
            "required_skills": ["get_clause_context"], "description": ""
        }));
    }
    std::fs::write(dir.join("contract.md"), text).unwrap();
    std::fs::write(
        dir.join("list.json"),
        serde_json::to_string(&checklist).unwrap(),
    )
    .unwrap();
    dir
}

/// Ctrl-C in the middle of an agent review: the clause already answered is in the report,
/// the two whose model requests were still open are marked not run, the report says it is
/// incomplete, and the exit status is 130 (128 + SIGINT). The model keeps those requests
/// open for two minutes; the review returns long before.
#[cfg(unix)]
#[test]
fn ctrl_c_writes_the_finished_clauses_marked_incomplete_and_exits_130() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    use toolwright::agent::mock::{react_answer, MockModel, MockReply, MockUsage};

    let model = MockModel::start(|req| {
        let first = req.user_text().contains("- Number: 1\n");
        MockReply {
            delay: if first {
                Duration::ZERO
            } else {
                Duration::from_secs(120)
            },
            answer: react_answer(
                req,
                0,
                "get_clause_context",
                r#"[{"risk_level": "low", "risk_type": "probe", "description": "answered"}]"#,
            ),
            usage: Some(MockUsage {
                prompt: 100,
                completion: 10,
                cached: None,
            }),
        }
    })
    .unwrap();
    let dir = three_clause_contract("sigint");
    let out = dir.join("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .env_remove("USE_REACT_AGENT")
        .env_remove("OPENAI_API_KEY")
        .arg("review")
        .arg(dir.join("contract.md"))
        .arg("--checklist")
        .arg(dir.join("list.json"))
        .args(["--agent", "--concurrency", "3", "--format", "json"])
        .args(["--base-url", &model.base_url(), "--model", "mock-model"])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // Hang guard only: wait until clause 1 is answered and the other two are waiting.
    let guard = Instant::now() + Duration::from_secs(60);
    while !(model.log().iter().any(|e| e.finished.is_some()) && model.in_flight() == 2) {
        assert!(
            Instant::now() < guard,
            "the review never reached the model: {:?}",
            model.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > guard {
            child.kill().ok();
            panic!("the review did not stop after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted: 1 of 3 clause(s) reviewed"),
        "{stderr}"
    );

    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(report["incomplete"], true);
    let modes: Vec<&str> = report["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["react", "not_run", "not_run"]);
    assert_eq!(report["clauses"][0]["risks"][0]["description"], "answered");
    assert_eq!(report["clauses"][1]["skills"][0]["error_code"], "cancelled");
    assert_eq!(report["summary"]["clauses_reviewed"], 1);
    assert_eq!(report["summary"]["clauses_not_run"], 2);
    assert_eq!(report["summary"]["model_turns"], 1);
    assert_eq!(model.requests(), 3, "no request after Ctrl-C");
}

/// A build without the `otlp` feature refuses `--otlp` rather than dropping the traces
/// silently.
#[cfg(not(feature = "otlp"))]
#[test]
fn otlp_is_refused_by_a_build_without_the_exporter() {
    let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["--otlp", "http://127.0.0.1:4318", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("built without the `otlp` feature") && stderr.contains("--features otlp"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// With the `otlp` feature, the spans of an agent review reach a collector as OTLP/HTTP
/// protobuf: the model turns named `chat {model}`, the tool calls `execute_tool {tool}`,
/// with their GenAI attributes.
#[cfg(feature = "otlp")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_review_sends_its_spans_to_an_otlp_collector() {
    use std::time::Duration;

    use toolwright::agent::mock::{react_answer, MockModel, MockReply, MockUsage};

    let collector = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/traces"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&collector)
        .await;
    let model = MockModel::start(|req| MockReply {
        delay: Duration::ZERO,
        answer: react_answer(req, 1, "get_clause_context", "[]"),
        usage: Some(MockUsage {
            prompt: 100,
            completion: 10,
            cached: None,
        }),
    })
    .unwrap();
    let dir = three_clause_contract("otlp");
    let (base_url, endpoint) = (model.base_url(), collector.uri());
    let contract = dir.clone();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_clausewright"))
            .env_remove("USE_REACT_AGENT")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .arg("review")
            .arg(contract.join("contract.md"))
            .arg("--checklist")
            .arg(contract.join("list.json"))
            .args(["--agent", "--format", "json", "--otlp", &endpoint])
            .args(["--base-url", &base_url, "--model", "mock-model"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = collector.received_requests().await.unwrap();
    assert!(!requests.is_empty(), "no traces sent");
    assert!(requests.iter().all(
        |r| r.headers.get("content-type").and_then(|v| v.to_str().ok())
            == Some("application/x-protobuf")
    ));
    let body: Vec<u8> = requests.iter().flat_map(|r| r.body.clone()).collect();
    let has = |text: &str| body.windows(text.len()).any(|w| w == text.as_bytes());
    for text in [
        "toolwright",
        "invoke_agent contract_review",
        "review clause 2",
        "chat mock-model",
        "execute_tool get_clause_context",
        "gen_ai.operation.name",
        "gen_ai.usage.input_tokens",
        "gen_ai.tool.call.id",
    ] {
        assert!(has(text), "`{text}` not in the exported spans");
    }
}
