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

mod http;
mod lifecycle;
mod python_sdk;

pub(crate) use python_sdk::{peer_server, python_sdk_available};

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
