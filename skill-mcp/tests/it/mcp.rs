//! The MCP server end to end: in memory over the stdio framing, over HTTP on loopback, and
//! against the official Python SDK client. Every message the server sends is checked
//! against the official MCP schema of the client's protocol era.

use crate::{schema, skills, wire};

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use toolwright::{Dispatcher, DispatcherBuilder, SkillContext, ToolFilter};
use toolwright_mcp::{HttpOptions, McpServer};

use schema::{check_tool, Era};
use skills::{DropProbe, Notes};
use wire::{HttpClient, LineClient};

toolwright::link_skills!(toolwright);

/// All test skills in sorted id order, as served without a filter.
const ALL_TOOLS: [&str; 7] = [
    "always_fails",
    "check_clause",
    "delete_note",
    "echo_upper",
    "math_add",
    "too_slow",
    "wait_long",
];

struct Fixture {
    notes: Arc<Notes>,
    probe: Arc<DropProbe>,
    context: SkillContext,
}

fn fixture() -> Fixture {
    let notes = Arc::new(Notes::default());
    let probe = Arc::new(DropProbe::default());
    let mut context = SkillContext::new();
    context.insert_arc(Arc::clone(&notes));
    context.insert_arc(Arc::clone(&probe));
    Fixture {
        notes,
        probe,
        context,
    }
}

fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("test registry is valid")
}

fn server(f: &Fixture) -> McpServer {
    McpServer::new(dispatcher(), f.context.clone()).expect("server builds")
}

fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .expect("tools is an array")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn structured(response: &Value) -> &Value {
    let result = &response["result"];
    assert_eq!(result["isError"], false, "call failed: {response}");
    let text = result["content"][0]["text"].as_str().expect("a text copy");
    let copy: Value = serde_json::from_str(text).expect("the text copy is JSON");
    assert_eq!(
        copy, result["structuredContent"],
        "text copy equals structuredContent"
    );
    &result["structuredContent"]
}

fn error_text(response: &Value) -> &str {
    let result = &response["result"];
    assert_eq!(
        result["isError"], true,
        "expected an error result: {response}"
    );
    result["content"][0]["text"].as_str().expect("error text")
}

fn legacy_caps() -> Value {
    json!({})
}

#[tokio::test]
async fn lists_every_tool_sorted_with_schemas_and_annotations() {
    let f = fixture();
    for era in [Era::Legacy, Era::Modern] {
        let mut client = LineClient::connect(server(&f), era, legacy_caps()).await;
        let list = client.request("tools/list", json!({})).await;
        let result = &list["result"];
        assert_eq!(names(&result["tools"]), ALL_TOOLS, "{era:?}");
        assert!(result.get("nextCursor").is_none());
        for tool in result["tools"].as_array().unwrap() {
            check_tool(era, tool);
            assert!(tool["inputSchema"]["type"] == "object");
            assert!(tool["outputSchema"]["type"] == "object");
            assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
        }
        let by_name = |n: &str| {
            result["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == n)
                .unwrap()
                .clone()
        };
        let check = by_name("check_clause");
        assert_eq!(
            check["annotations"]["readOnlyHint"], true,
            "validation reads only"
        );
        assert!(check["annotations"].get("destructiveHint").is_none());
        let delete = by_name("delete_note");
        assert_eq!(delete["annotations"]["readOnlyHint"], false);
        assert_eq!(delete["annotations"]["destructiveHint"], true);
        assert_eq!(by_name("echo_upper")["title"], "echo_upper");
        if era == Era::Modern {
            assert_eq!(result["resultType"], "complete");
            assert_eq!(result["cacheScope"], "public");
            assert!(result["ttlMs"].as_u64().is_some());
        } else {
            assert!(
                result.get("resultType").is_none(),
                "legacy peers get no resultType"
            );
        }
    }
}

#[tokio::test]
async fn pages_follow_opaque_cursors_and_bad_cursors_are_refused() {
    let f = fixture();
    for era in [Era::Legacy, Era::Modern] {
        let server = McpServer::builder(dispatcher())
            .context(f.context.clone())
            .page_size(3)
            .build()
            .unwrap();
        let mut client = LineClient::connect(server, era, legacy_caps()).await;
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = client.request("tools/list", params).await;
            pages += 1;
            seen.extend(names(&page["result"]["tools"]));
            match page["result"]["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_string()),
                None => break,
            }
        }
        assert_eq!(pages, 3);
        assert_eq!(seen, ALL_TOOLS);
        let bad = client
            .request("tools/list", json!({"cursor": "not-a-cursor"}))
            .await;
        assert_eq!(bad["error"]["code"], -32602, "{bad}");
    }
}

#[tokio::test]
async fn filters_serve_a_domain_and_hide_the_rest() {
    let f = fixture();
    let server = McpServer::builder(dispatcher())
        .context(f.context.clone())
        .filter(ToolFilter::all().domain("demo"))
        .build()
        .unwrap();
    let mut client = LineClient::connect(server, Era::Legacy, legacy_caps()).await;
    let list = client.request("tools/list", json!({})).await;
    let served = names(&list["result"]["tools"]);
    assert!(served.contains(&"echo_upper".to_string()));
    assert!(
        served.contains(&"math_add".to_string()),
        "universal skills stay"
    );
    assert!(!served.contains(&"always_fails".to_string()));
    let hidden = client.call("always_fails", json!({})).await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
}

#[tokio::test]
async fn calls_return_structured_content_and_a_text_copy() {
    let f = fixture();
    for era in [Era::Legacy, Era::Modern] {
        let mut client = LineClient::connect(server(&f), era, legacy_caps()).await;
        let echo = client
            .call("echo_upper", json!({"text": "ab", "times": 2}))
            .await;
        assert_eq!(structured(&echo), &json!({"text": "ABAB", "times": 2}));
        assert!(echo["result"]["_meta"]
            .get(toolwright_mcp::META_WARNINGS)
            .is_none());
        // A non-object output is wrapped as its outputSchema says.
        let sum = client.call("math_add", json!({"a": 2, "b": 3})).await;
        assert_eq!(structured(&sum), &json!({"result": 5}));
        let valid = client
            .call("check_clause", json!({"clause_id": "20.1"}))
            .await;
        assert_eq!(structured(&valid), &json!({"result": true}));
    }
}

#[tokio::test]
async fn loose_arguments_are_fixed_and_the_fixes_reported_in_meta() {
    let f = fixture();
    let mut client = LineClient::connect(server(&f), Era::Legacy, legacy_caps()).await;
    let echo = client
        .call("echo_upper", json!({"text": "ab", "times": "2"}))
        .await;
    assert_eq!(structured(&echo), &json!({"text": "ABAB", "times": 2}));
    let warnings = &echo["result"]["_meta"][toolwright_mcp::META_WARNINGS];
    assert_eq!(warnings[0]["path"], "$.times", "{echo}");
    assert_eq!(warnings[0]["raw"], "2");
}

#[tokio::test]
async fn bad_arguments_are_an_error_result_with_path_expected_and_got() {
    let f = fixture();
    for era in [Era::Legacy, Era::Modern] {
        let mut client = LineClient::connect(server(&f), era, legacy_caps()).await;
        let bad = client
            .call("echo_upper", json!({"text": "ab", "times": "many"}))
            .await;
        let text = error_text(&bad);
        assert!(text.starts_with("invalid_arguments"), "{text}");
        assert!(
            text.contains("$.times") && text.contains("\"many\""),
            "{text}"
        );
        let problems = &bad["result"]["_meta"][toolwright_mcp::META_ERROR]["problems"];
        assert_eq!(problems[0]["path"], "$.times", "{bad}");
        assert_eq!(problems[0]["got"], "many");
        assert!(
            problems[0]["expected"]
                .as_str()
                .is_some_and(|e| e.contains("integer")),
            "{bad}"
        );
        let missing = client.call("echo_upper", json!({"times": 1})).await;
        let text = error_text(&missing);
        assert!(text.contains("$.text"), "{text}");
    }
}

/// A contract pasted whole into a call's arguments is over the argument limit: refused
/// unparsed with a result the model can act on, and the server keeps serving.
#[tokio::test]
async fn a_contract_over_the_argument_limit_is_refused_and_the_server_goes_on() {
    let f = fixture();
    let mut client = LineClient::connect(server(&f), Era::Legacy, legacy_caps()).await;
    let contract = "Clause 1. The Contractor shall ... ".repeat(32 * 1024);
    assert!(contract.len() > toolwright::limits::DEFAULT_MAX_ARGUMENT_BYTES);
    let refused = client
        .call("echo_upper", json!({"text": contract, "times": 1}))
        .await;
    let text = error_text(&refused);
    assert!(text.starts_with("arguments_too_large"), "{text}");
    assert!(text.contains("refer to long text"), "{text}");
    let echo = client
        .call("echo_upper", json!({"text": "ab", "times": 1}))
        .await;
    assert_eq!(structured(&echo), &json!({"text": "AB", "times": 1}));
}

#[tokio::test]
async fn unknown_tools_are_a_protocol_error() {
    let f = fixture();
    for era in [Era::Legacy, Era::Modern] {
        let mut client = LineClient::connect(server(&f), era, legacy_caps()).await;
        let unknown = client.call("no_such_tool", json!({})).await;
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
        assert!(unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_tool"));
    }
}

#[tokio::test]
async fn failures_and_timeouts_are_error_results_the_model_can_read() {
    let f = fixture();
    let mut client = LineClient::connect(server(&f), Era::Legacy, legacy_caps()).await;
    let failed = client.call("always_fails", json!({})).await;
    assert_eq!(
        error_text(&failed),
        "not_found: there is no such record; ask the user for its number"
    );
    let slow = client.call("too_slow", json!({"ms": 2000})).await;
    assert!(error_text(&slow).starts_with("timeout:"), "{slow}");
    assert_eq!(
        slow["result"]["_meta"][toolwright_mcp::META_ERROR]["timeout_ms"],
        50
    );
}

#[tokio::test]
async fn cancellation_stops_the_running_skill() {
    let f = fixture();
    let mut client = LineClient::connect(server(&f), Era::Legacy, legacy_caps()).await;
    let id = client
        .send_request(
            "tools/call",
            json!({"name": "wait_long", "arguments": {"ms": 60_000}}),
        )
        .await;
    for _ in 0..200 {
        if f.probe.started.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(f.probe.started.load(Ordering::SeqCst), "the skill started");
    client
        .notify(
            "notifications/cancelled",
            json!({"requestId": id.parse::<i64>().unwrap(), "reason": "user stopped it"}),
        )
        .await;
    for _ in 0..200 {
        if f.probe.dropped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        f.probe.dropped.load(Ordering::SeqCst),
        "the skill was stopped"
    );
    // The connection still serves.
    let sum = client.call("math_add", json!({"a": 1, "b": 1})).await;
    assert_eq!(structured(&sum), &json!({"result": 2}));
}

#[tokio::test]
async fn progress_is_reported_when_asked_for() {
    let f = fixture();
    let mut client = LineClient::connect(server(&f), Era::Legacy, legacy_caps()).await;
    let sum = client
        .request(
            "tools/call",
            json!({"name": "math_add", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": "p1"}}),
        )
        .await;
    assert_eq!(structured(&sum), &json!({"result": 3}));
    let progress: Vec<&Value> = client
        .inbox
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 2, "{:?}", client.inbox);
    assert_eq!(progress[0]["params"]["progressToken"], "p1");
    assert_eq!(progress[0]["params"]["progress"], 0.0);
    assert_eq!(progress[1]["params"]["progress"], 1.0);
}

#[tokio::test]
async fn writes_wait_for_consent_when_the_client_cannot_ask() {
    let f = fixture();
    for era in [Era::Legacy, Era::Modern] {
        let mut client = LineClient::connect(server(&f), era, legacy_caps()).await;
        let pending = client.call("delete_note", json!({"title": "draft"})).await;
        assert!(
            error_text(&pending).starts_with("confirmation_required"),
            "{pending}"
        );
        let meta = &pending["result"]["_meta"][toolwright_mcp::META_PENDING];
        assert_eq!(meta["arguments"], json!({"title": "draft"}), "{pending}");
        assert!(f.notes.0.lock().unwrap().is_empty(), "nothing ran");
    }
}

#[tokio::test]
async fn legacy_clients_are_asked_by_elicitation() {
    let f = fixture();
    let caps = json!({"elicitation": {"form": {}}});
    for (accept, expect_run) in [(true, true), (false, false)] {
        let mut client = LineClient::connect(server(&f), Era::Legacy, caps.clone()).await;
        let ran_before = f.notes.0.lock().unwrap().len();
        let id = client
            .send_request(
                "tools/call",
                json!({"name": "delete_note", "arguments": {"title": "old"}}),
            )
            .await;
        let ask = client.next_message().await;
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        assert!(ask["params"]["message"]
            .as_str()
            .unwrap()
            .contains("delete_note"));
        assert_eq!(
            f.notes.0.lock().unwrap().len(),
            ran_before,
            "nothing ran before the answer"
        );
        let answer = if accept {
            json!({"action": "accept", "content": {"confirm": true}})
        } else {
            json!({"action": "decline"})
        };
        client.respond(&ask["id"], answer).await;
        let done = client.response(&id).await;
        if expect_run {
            assert_eq!(structured(&done), &json!({"result": "deleted old"}));
        } else {
            assert!(
                error_text(&done).starts_with("confirmation_rejected"),
                "{done}"
            );
        }
    }
    assert_eq!(*f.notes.0.lock().unwrap(), vec!["deleted old".to_string()]);
}

#[tokio::test]
async fn modern_clients_are_asked_by_an_input_required_result() {
    let f = fixture();
    let caps = json!({"elicitation": {"form": {}}});
    let mut client = LineClient::connect(server(&f), Era::Modern, caps).await;
    let first = client.call("delete_note", json!({"title": "x"})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let question = &result["inputRequests"]["confirm"];
    assert_eq!(question["method"], "elicitation/create", "{first}");
    let state = result["requestState"].as_str().unwrap().to_string();
    assert!(f.notes.0.lock().unwrap().is_empty());

    let mut forged = state.clone();
    forged.insert(forged.len() / 2, 'x');
    let tampered = client
        .request(
            "tools/call",
            json!({"name": "delete_note", "arguments": {"title": "x"},
                   "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
                   "requestState": forged}),
        )
        .await;
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");
    let other_tool = client
        .request(
            "tools/call",
            json!({"name": "math_add", "arguments": {"a": 1, "b": 1},
                   "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
                   "requestState": state}),
        )
        .await;
    assert_eq!(other_tool["error"]["code"], -32602, "{other_tool}");
    assert!(
        f.notes.0.lock().unwrap().is_empty(),
        "no forged consent ran"
    );

    let done = client
        .request(
            "tools/call",
            json!({"name": "delete_note", "arguments": {"title": "x"},
                   "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
                   "requestState": state}),
        )
        .await;
    assert_eq!(structured(&done), &json!({"result": "deleted x"}));
    assert_eq!(*f.notes.0.lock().unwrap(), vec!["deleted x".to_string()]);
}

/// The next line the server wrote, as JSON.
async fn next_json<R: tokio::io::AsyncBufRead + Unpin>(lines: &mut tokio::io::Lines<R>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    serde_json::from_str(&line).unwrap()
}

#[tokio::test]
async fn malformed_lines_and_handshake_free_clients_end_cleanly() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let f = fixture();
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    let task = tokio::spawn(toolwright_mcp::serve_io(
        server(&f),
        server_read,
        server_write,
    ));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": wire::modern_meta(json!({}))}});
    let text_args = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "math_add", "arguments": "{\"a\": 1, \"b\": 2}",
                   "_meta": wire::modern_meta(json!({}))}});
    let batch = json!([{"jsonrpc": "2.0", "id": 8, "method": "ping"}]);
    write.write_all(b"{not json\n\n").await.unwrap();
    write
        .write_all(format!("{text_args}\n{batch}\n").as_bytes())
        .await
        .unwrap();
    write
        .write_all(format!("{discover}\n").as_bytes())
        .await
        .unwrap();
    // Each bad line is answered with its error, in order; the blank line is skipped.
    let parse = next_json(&mut lines).await;
    schema::check_server_message(Era::Modern, Some("tools/call"), &parse);
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    let params = next_json(&mut lines).await;
    assert_eq!(params["error"]["code"], -32602, "{params}");
    assert_eq!(params["id"], 7, "{params}");
    assert!(params["error"]["message"]
        .as_str()
        .unwrap()
        .contains("params.arguments"));
    let batched = next_json(&mut lines).await;
    assert_eq!(batched["error"]["code"], -32600, "{batched}");
    assert!(batched["error"]["message"]
        .as_str()
        .unwrap()
        .contains("batch"));
    let answer = next_json(&mut lines).await;
    schema::check_server_message(Era::Modern, Some("server/discover"), &answer);
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&json!("2026-07-28")));
    drop(write);
    drop(lines);
    let ended = tokio::time::timeout(Duration::from_secs(10), task).await;
    assert!(matches!(ended, Ok(Ok(Ok(())))), "{ended:?}");
}

// ---------------------------------------------------------------------------------------
// HTTP

struct HttpServer {
    url: String,
    shutdown: toolwright_mcp::CancellationToken,
    task: tokio::task::JoinHandle<Result<(), toolwright_mcp::ServeError>>,
}

async fn http_server(f: &Fixture, options: HttpOptions) -> HttpServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = options.shutdown.clone();
    let task = tokio::spawn(toolwright_mcp::serve_listener(
        listener,
        server(f),
        options,
        std::future::pending(),
    ));
    HttpServer {
        url: format!("http://{addr}/mcp"),
        shutdown,
        task,
    }
}

#[tokio::test]
async fn http_serves_both_eras() {
    let f = fixture();
    let srv = http_server(&f, HttpOptions::default()).await;

    let mut legacy = HttpClient::new(srv.url.clone(), Era::Legacy, None);
    legacy.initialize().await;
    let list = legacy.request("tools/list", json!({})).await;
    assert_eq!(list.status, 200, "{}", list.body);
    assert_eq!(names(&list.response()["result"]["tools"]), ALL_TOOLS);
    let call = legacy
        .request(
            "tools/call",
            json!({"name": "math_add", "arguments": {"a": 4, "b": 5}}),
        )
        .await;
    assert_eq!(structured(call.response()), &json!({"result": 9}));
    let bad = legacy
        .request(
            "tools/call",
            json!({"name": "math_add", "arguments": {"a": "four", "b": 5}}),
        )
        .await;
    assert!(error_text(bad.response()).contains("$.a"));
    let unknown = legacy
        .request("tools/call", json!({"name": "nope", "arguments": {}}))
        .await;
    assert_eq!(unknown.response()["error"]["code"], -32602);
    assert_eq!(legacy.end_session().await, 204, "session ended cleanly");

    let mut modern = HttpClient::new(srv.url.clone(), Era::Modern, None);
    let discover = modern.request("server/discover", json!({})).await;
    assert_eq!(discover.status, 200, "{}", discover.body);
    let supported = &discover.response()["result"]["supportedVersions"];
    assert!(
        supported.as_array().unwrap().contains(&json!("2026-07-28")),
        "{supported}"
    );
    let list = modern.request("tools/list", json!({})).await;
    assert_eq!(list.status, 200, "{}", list.body);
    assert_eq!(list.response()["result"]["resultType"], "complete");
    assert_eq!(names(&list.response()["result"]["tools"]), ALL_TOOLS);
    let call = modern
        .request(
            "tools/call",
            json!({"name": "echo_upper", "arguments": {"text": "x", "times": 3}}),
        )
        .await;
    assert_eq!(
        structured(call.response()),
        &json!({"text": "XXX", "times": 3})
    );

    srv.shutdown.cancel();
    let ended = tokio::time::timeout(Duration::from_secs(10), srv.task).await;
    assert!(
        matches!(ended, Ok(Ok(Ok(())))),
        "graceful shutdown: {ended:?}"
    );
}

#[tokio::test]
async fn http_refuses_foreign_origins_and_hosts() {
    let f = fixture();
    let srv = http_server(&f, HttpOptions::default()).await;
    let mut client = HttpClient::new(srv.url.clone(), Era::Modern, None);
    let body = client.body("tools/list", json!({}));
    let foreign = client
        .exchange(
            client
                .post("tools/list", None)
                .header("Origin", "http://evil.example.com")
                .json(&body),
            "tools/list",
        )
        .await;
    assert_eq!(foreign.status, 403, "{}", foreign.body);
    let local = client
        .exchange(
            client
                .post("tools/list", None)
                .header("Origin", srv.url.trim_end_matches("/mcp"))
                .json(&body),
            "tools/list",
        )
        .await;
    assert_eq!(local.status, 200, "{}", local.body);
    let rebound = client
        .exchange(
            client
                .post("tools/list", None)
                .header("Host", "evil.example.com")
                .json(&body),
            "tools/list",
        )
        .await;
    assert_eq!(rebound.status, 403, "{}", rebound.body);
    srv.shutdown.cancel();
}

#[tokio::test]
async fn http_token_is_required_when_set() {
    let f = fixture();
    let secret = "s3cret-0123456789abcdef";
    let srv = http_server(&f, HttpOptions::default().token(secret)).await;
    for (token, status) in [(None, 401), (Some("wrong"), 401), (Some(secret), 200)] {
        let mut client = HttpClient::new(srv.url.clone(), Era::Modern, token.map(String::from));
        let list = client.request("tools/list", json!({})).await;
        assert_eq!(list.status, status, "token {token:?}: {}", list.body);
    }
    // The scheme is case-insensitive.
    let client = HttpClient::new(srv.url.clone(), Era::Modern, None);
    let mut body = HttpClient::new(srv.url.clone(), Era::Modern, None);
    let body = body.body("tools/list", json!({}));
    let upper = client
        .exchange(
            client
                .post("tools/list", None)
                .header("Authorization", format!("BEARER {secret}"))
                .json(&body),
            "tools/list",
        )
        .await;
    assert_eq!(upper.status, 200, "{}", upper.body);
    srv.shutdown.cancel();
}

#[tokio::test]
async fn blank_and_short_tokens_are_refused_at_start() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    for (token, expected) in [("", "blank"), ("   ", "blank"), ("x", "1 characters")] {
        let options = HttpOptions::default().token(token);
        let err = toolwright_mcp::http::check_exposure(addr, &options).unwrap_err();
        assert!(err.to_string().contains(expected), "{token:?}: {err}");
        assert!(err.to_string().contains("at least 16"), "{err}");
    }
    let f = fixture();
    let refused = toolwright_mcp::serve_listener(
        listener,
        server(&f),
        HttpOptions::default().token("short"),
        std::future::pending(),
    )
    .await;
    assert!(
        matches!(refused, Err(toolwright_mcp::ServeError::Config(_))),
        "{refused:?}"
    );
}

#[tokio::test]
async fn http_refuses_big_bodies_and_unknown_protocol_versions() {
    let f = fixture();
    let srv = http_server(&f, HttpOptions::default().max_body_bytes(4096)).await;
    let mut client = HttpClient::new(srv.url.clone(), Era::Modern, None);
    let big = client.body(
        "tools/call",
        json!({"name": "echo_upper", "arguments": {"text": "x".repeat(10_000), "times": 1}}),
    );
    let too_large = client
        .exchange(
            client.post("tools/call", Some("echo_upper")).json(&big),
            "tools/call",
        )
        .await;
    assert_eq!(too_large.status, 413, "{}", too_large.body);

    let body = client.body("tools/list", json!({}));
    let wrong = client
        .exchange(
            client
                .http
                .post(&srv.url)
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "1999-01-01")
                .json(&body),
            "tools/list",
        )
        .await;
    assert_eq!(wrong.status, 400, "{}", wrong.body);

    let garbage = client
        .exchange(
            client.post("tools/list", None).body("{not json"),
            "tools/list",
        )
        .await;
    assert!((400..500).contains(&garbage.status), "{}", garbage.body);
    srv.shutdown.cancel();
}

// ---------------------------------------------------------------------------------------
// The official Python SDK as a peer

/// Whether the Python SDK is importable; without it the peer test is skipped, except on CI.
pub(crate) fn python_sdk_available() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("the MCP Python SDK is not installed: pip install 'mcp==2.3.0'");
        }
        eprintln!("skipped: the MCP Python SDK is not installed (pip install 'mcp==2.3.0')");
    }
    ok
}

/// The `peer_server` example, which `cargo test -p toolwright-mcp` builds next to the tests
/// (`--test mcp` alone does not: then the peer test is skipped, except on CI).
pub(crate) fn peer_server() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|p| p.parent()).unwrap();
    let path = dir
        .join("examples")
        .join(format!("peer_server{}", std::env::consts::EXE_SUFFIX));
    if path.exists() {
        return Some(path);
    }
    let message = format!(
        "{} is missing: run `cargo test -p toolwright-mcp` or `cargo build -p toolwright-mcp --example peer_server`",
        path.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("skipped: {message}");
    None
}

fn run_python_client(mode: &str, target: &[&str], token: Option<&str>) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/python_client.py");
    let mut command = std::process::Command::new("python3");
    command.arg(script).arg(mode).args(target);
    if let Some(token) = token {
        command.env("TOOLWRIGHT_TOKEN", token);
    }
    let output = command.output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "Python SDK client ({mode}, {target:?}) failed:\n{stdout}\n{stderr}"
    );
    assert!(
        !stderr.contains("Session termination failed"),
        "the client could not end its session cleanly:\n{stderr}"
    );
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no report from the Python client ({e}): {stdout}"));
    report
}

#[test]
fn python_sdk_client_over_stdio_and_http_in_both_modes() {
    if !python_sdk_available() {
        return;
    }
    let Some(server) = peer_server() else {
        return;
    };
    let server = server.to_str().unwrap();
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let report = run_python_client(mode, &[server, "--stdio"], None);
        assert_eq!(report["protocol_version"], version, "{report}");
        assert_eq!(report["tools"], ALL_TOOLS.len(), "{report}");
        assert_eq!(report["unknown_tool"], -32602, "{report}");
        assert!(report["consent"].is_string(), "{report}");
    }

    use std::io::BufRead;
    let mut child = std::process::Command::new(server)
        .args(["--http", "127.0.0.1:0", "--token", "peer-token-0123456789"])
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
    let outcome = std::panic::catch_unwind(|| {
        for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
            let report = run_python_client(mode, &[&url], Some("peer-token-0123456789"));
            assert_eq!(report["transport"], "http");
            assert_eq!(report["protocol_version"], version, "{report}");
            assert_eq!(report["unknown_tool"], -32602, "{report}");
            assert!(report["consent"].is_string(), "{report}");
        }
    });
    child.kill().ok();
    child.wait().ok();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

// ---------------------------------------------------------------------------------------
// Pre-rendered pages, list changes, expiring confirmations, shutdown

/// Every page over the stdio framing, following `nextCursor`, as (names, raw result).
async fn all_pages(client: &mut LineClient) -> (Vec<String>, Vec<Value>) {
    let mut names_seen = Vec::new();
    let mut results = Vec::new();
    let mut params = json!({});
    loop {
        let page = client.request("tools/list", params.clone()).await;
        let result = page["result"].clone();
        names_seen.extend(names(&result["tools"]));
        let next = result.get("nextCursor").cloned();
        results.push(result);
        match next {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => break,
        }
    }
    (names_seen, results)
}

#[tokio::test]
async fn written_pages_equal_the_typed_tools_rmcp_would_send() {
    use rmcp::ServiceExt;
    let f = fixture();
    let build = || {
        McpServer::builder(dispatcher())
            .context(f.context.clone())
            .page_size(3)
            .build()
            .unwrap()
    };
    for era in [Era::Legacy, Era::Modern] {
        let mut written = LineClient::connect(build(), era, legacy_caps()).await;
        let (names_written, pages_written) = all_pages(&mut written).await;
        assert_eq!(names_written, ALL_TOOLS, "{era:?}");
        assert_eq!(pages_written.len(), 3);
        for page in &pages_written {
            assert!(page.get("_meta").is_none(), "no page token left: {page}");
        }

        // The same server handed to rmcp directly answers with typed tools.
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_end);
        let typed_server = build();
        tokio::spawn(async move {
            if let Ok(running) = typed_server.serve((server_read, server_write)).await {
                let _ = running.waiting().await;
            }
        });
        let mut typed = LineClient::over(client_end, era, legacy_caps()).await;
        let (names_typed, pages_typed) = all_pages(&mut typed).await;
        assert_eq!(names_typed, names_written);
        for (w, t) in pages_written.iter().zip(&pages_typed) {
            assert_eq!(w["tools"], t["tools"], "{era:?}");
            assert_eq!(w.get("ttlMs"), t.get("ttlMs"));
            assert_eq!(w.get("cacheScope"), t.get("cacheScope"));
            assert_eq!(w.get("resultType"), t.get("resultType"));
        }
    }
}

#[tokio::test]
async fn modern_lists_carry_the_required_cache_hints() {
    let f = fixture();
    let mut client = LineClient::connect(server(&f), Era::Modern, legacy_caps()).await;
    let list = client.request("tools/list", json!({})).await;
    let result = &list["result"];
    assert_eq!(result["resultType"], "complete", "{list}");
    assert!(result["ttlMs"].as_u64().is_some_and(|ms| ms > 0), "{list}");
    assert_eq!(result["cacheScope"], "public", "{list}");
}

#[tokio::test]
async fn legacy_clients_are_told_when_the_tool_set_changes() {
    let f = fixture();
    let srv = server(&f);
    let mut client = LineClient::connect(srv.clone(), Era::Legacy, legacy_caps()).await;
    let before = client.request("tools/list", json!({})).await;
    assert_eq!(names(&before["result"]["tools"]), ALL_TOOLS);

    let changed = srv
        .set_filter(ToolFilter::all().category("query"))
        .await
        .unwrap();
    assert!(changed);
    let note = client.next_message().await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    let after = client.request("tools/list", json!({})).await;
    let queries = ["always_fails", "too_slow", "wait_long"];
    assert_eq!(names(&after["result"]["tools"]), queries, "{after}");
    assert_eq!(srv.tool_names(), queries);
    // A stale cursor of the old list is refused, the unlisted tool is unknown now.
    let gone = client.call("echo_upper", json!({"text": "a"})).await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");

    // The same set again: no change, no notification.
    let same = srv
        .set_filter(ToolFilter::all().category("query"))
        .await
        .unwrap();
    assert!(!same);
    let ping = client.request("ping", json!({})).await;
    assert!(ping.get("result").is_some(), "{ping}");
    assert!(
        client
            .inbox
            .iter()
            .all(|m| m["method"] != "notifications/tools/list_changed"),
        "{:?}",
        client.inbox
    );
}

#[tokio::test]
async fn the_list_changed_capability_is_advertised() {
    let f = fixture();
    let mut client = LineClient::connect(server(&f), Era::Modern, legacy_caps()).await;
    let discover = client.request("server/discover", json!({})).await;
    assert_eq!(
        discover["result"]["capabilities"]["tools"]["listChanged"], true,
        "{discover}"
    );
}

#[tokio::test]
async fn modern_listeners_are_told_when_the_tool_set_changes() {
    let f = fixture();
    let srv = server(&f);
    let mut client = LineClient::connect(srv.clone(), Era::Modern, legacy_caps()).await;
    let listen = client
        .send_request(
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        )
        .await;
    let ack = client.next_message().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);

    assert!(srv
        .set_filter(ToolFilter::all().category("delete"))
        .await
        .unwrap());
    let note = client.next_message().await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].to_string(),
        listen,
        "{note}"
    );
    let after = client.request("tools/list", json!({})).await;
    assert_eq!(names(&after["result"]["tools"]), ["delete_note"], "{after}");
}

#[tokio::test]
async fn parked_calls_expire_after_the_confirmation_ttl() {
    let f = fixture();
    let ttl = Duration::from_millis(50);
    let dispatcher = DispatcherBuilder::from_dispatcher(&dispatcher())
        .confirmation_ttl(ttl)
        .build()
        .unwrap();
    let build = || {
        McpServer::builder(dispatcher.clone())
            .context(f.context.clone())
            .build()
            .unwrap()
    };

    // A client that cannot ask: the call is parked, then dropped after the TTL.
    let mut client = LineClient::connect(build(), Era::Legacy, legacy_caps()).await;
    let pending = client.call("delete_note", json!({"title": "old"})).await;
    let id = pending["result"]["_meta"][toolwright_mcp::META_PENDING]["id"]
        .as_str()
        .expect("a pending id")
        .to_string();
    assert!(dispatcher
        .pending_confirmations()
        .iter()
        .any(|p| p.id == id));
    tokio::time::sleep(ttl * 3).await;
    let other = client.call("math_add", json!({"a": 1, "b": 2})).await;
    assert!(other.get("result").is_some(), "{other}");
    assert!(
        dispatcher
            .pending_confirmations()
            .iter()
            .all(|p| p.id != id),
        "the expired call is no longer kept"
    );

    // A 2026 client answering after the TTL: refused, nothing runs.
    let caps = json!({"elicitation": {"form": {}}});
    let mut modern = LineClient::connect(build(), Era::Modern, caps).await;
    let asked = modern.call("delete_note", json!({"title": "late"})).await;
    let state = asked["result"]["requestState"]
        .as_str()
        .expect("input required")
        .to_string();
    tokio::time::sleep(ttl * 3).await;
    let late = modern
        .request(
            "tools/call",
            json!({"name": "delete_note", "arguments": {"title": "late"},
                   "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
                   "requestState": state}),
        )
        .await;
    assert!(error_text(&late).contains("no longer pending"), "{late}");
    assert!(f.notes.0.lock().unwrap().is_empty(), "nothing ran");
}

#[tokio::test]
async fn http_requests_during_shutdown_get_a_protocol_error() {
    let f = fixture();
    let options = HttpOptions::default();
    let shutdown = options.shutdown.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // The router alone (no graceful close of the listener), so requests still arrive.
    let app = toolwright_mcp::router(server(&f), &options);
    tokio::spawn(async move { axum_serve(listener, app).await });
    let mut client = HttpClient::new(format!("http://{addr}/mcp"), Era::Modern, None);
    let before = client.request("tools/list", json!({})).await;
    assert_eq!(before.status, 200);

    shutdown.cancel();
    let body = client.body(
        "tools/call",
        json!({"name": "math_add", "arguments": {"a": 1, "b": 2}}),
    );
    let answer = tokio::time::timeout(
        Duration::from_secs(5),
        client
            .post("tools/call", Some("math_add"))
            .body(body.to_string())
            .send(),
    )
    .await
    .expect("answered at once, no hang")
    .expect("sent");
    assert_eq!(answer.status().as_u16(), 503);
    let error: Value = answer.json().await.unwrap();
    assert_eq!(
        error["error"]["code"],
        toolwright_mcp::http::SHUTTING_DOWN,
        "{error}"
    );
    assert_eq!(error["id"], body["id"], "{error}");
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("shutting down"));
}

async fn axum_serve(listener: tokio::net::TcpListener, app: axum::Router) {
    let _ = axum::serve(listener, app).await;
}

#[tokio::test]
async fn on_stdio_a_second_request_with_an_id_in_flight_is_refused_and_the_first_answered() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let f = fixture();
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(toolwright_mcp::serve_io(
        server(&f),
        server_read,
        server_write,
    ));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let call = |ms: u64| {
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "wait_long", "arguments": {"ms": ms},
                   "_meta": wire::modern_meta(json!({}))}})
    };
    write
        .write_all(format!("{}\n{}\n", call(500), call(10)).as_bytes())
        .await
        .unwrap();
    let refused = next_json(&mut lines).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused.get("id").is_none(),
        "not taken for the first's answer"
    );
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("still in progress"));
    let first = next_json(&mut lines).await;
    assert_eq!(first["id"], 5, "{first}");
    assert_eq!(structured(&first), &json!({"result": 500}));
    // Once answered, the id is free again.
    write
        .write_all(format!("{}\n", call(10)).as_bytes())
        .await
        .unwrap();
    let again = next_json(&mut lines).await;
    assert_eq!(structured(&again), &json!({"result": 10}), "{again}");
}
