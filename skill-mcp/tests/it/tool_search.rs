//! Tool search over MCP: `tools/list` offers `search_tools` and `call_tool`; a search ranks
//! the served tools; `call_tool` runs one exactly as a direct `tools/call` would (results,
//! argument fixes and problems, consent, limits), argument paths moved under `arguments`.

use crate::{schema, skills, wire};

use std::sync::Arc;

use serde_json::{json, Value};
use toolwright::search::tool::{DEFAULT_SEARCH_LIMIT, SEARCH_TOOLS};
use toolwright::{Dispatcher, SkillContext, ToolFilter};
use toolwright_mcp::{McpServer, CALL_TOOL};

use schema::{check_tool, Era};
use skills::{DropProbe, Notes};
use wire::LineClient;

toolwright::link_skills!(toolwright);

const ERAS: [Era; 2] = [Era::Legacy, Era::Modern];

fn context(notes: &Arc<Notes>) -> SkillContext {
    let mut context = SkillContext::new();
    context.insert_arc(Arc::clone(notes));
    context.insert_arc(Arc::new(DropProbe::default()));
    context
}

fn server(notes: &Arc<Notes>, tool_search: bool, filter: ToolFilter) -> McpServer {
    McpServer::builder(Dispatcher::from_inventory().expect("test registry is valid"))
        .context(context(notes))
        .filter(filter)
        .tool_search(tool_search)
        .build()
        .expect("server builds")
}

/// A searching client and a direct one over the same skills.
async fn clients(era: Era, capabilities: Value) -> (LineClient, LineClient, Arc<Notes>) {
    let notes = Arc::new(Notes::default());
    let searching = LineClient::connect(
        server(&notes, true, ToolFilter::all()),
        era,
        capabilities.clone(),
    )
    .await;
    let direct =
        LineClient::connect(server(&notes, false, ToolFilter::all()), era, capabilities).await;
    (searching, direct, notes)
}

async fn search(client: &mut LineClient, arguments: Value) -> Value {
    let found = client.call(SEARCH_TOOLS, arguments).await;
    let result = &found["result"];
    assert_eq!(result["isError"], false, "{found}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"], "text copy of the answer");
    result["structuredContent"].clone()
}

fn found_names(found: &Value) -> Vec<String> {
    found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

async fn proxy(client: &mut LineClient, name: &str, arguments: Value) -> Value {
    client
        .call(CALL_TOOL, json!({"name": name, "arguments": arguments}))
        .await
}

/// The answer without what differs between two calls of one tool (its time).
fn comparable(response: &Value) -> Value {
    let mut result = response["result"].clone();
    if let Some(meta) = result.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.remove("progressToken");
    }
    result
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn the_list_is_two_schema_valid_tools_on_one_page() {
    for era in ERAS {
        let (mut client, _, _) = clients(era, json!({})).await;
        let list = client.request("tools/list", json!({})).await;
        let tools = list["result"]["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, [SEARCH_TOOLS, CALL_TOOL], "{era:?}");
        assert!(list["result"].get("nextCursor").is_none());
        for tool in tools {
            check_tool(era, tool);
        }
        let search = &tools[0];
        let description = search["description"].as_str().unwrap();
        assert!(
            description.contains("FIRST") && description.contains("call_tool"),
            "the description says when to call it: {description}"
        );
        assert_eq!(search["inputSchema"]["required"], json!(["query"]));
        assert_eq!(tools[1]["inputSchema"]["required"], json!(["name"]));
        let paged = client
            .request("tools/list", json!({"cursor": "anything"}))
            .await;
        assert_eq!(paged["error"]["code"], -32602, "{paged}");
    }
}

#[tokio::test]
async fn a_search_ranks_the_tools_with_their_listed_schemas() {
    for era in ERAS {
        let (mut client, mut direct, _) = clients(era, json!({})).await;
        let found = search(&mut client, json!({"query": "repeat a text in capitals"})).await;
        let names = found_names(&found);
        assert_eq!(names[0], "echo_upper", "{found}");
        assert!(names.len() <= DEFAULT_SEARCH_LIMIT);
        // Each found tool as the direct list describes it.
        let listed = direct.request("tools/list", json!({})).await;
        let listed = listed["result"]["tools"].as_array().unwrap().clone();
        for tool in found["tools"].as_array().unwrap() {
            let same = listed.iter().find(|t| t["name"] == tool["name"]).unwrap();
            assert_eq!(tool["description"], same["description"]);
            assert_eq!(tool["inputSchema"], same["inputSchema"]);
        }
        let sum = search(
            &mut client,
            json!({"query": "add two integers", "limit": 1}),
        )
        .await;
        assert_eq!(found_names(&sum), ["math_add"], "{sum}");
        let nothing = search(&mut client, json!({"query": "zzyzx qqq"})).await;
        assert_eq!(nothing["tools"], json!([]));

        for (arguments, path) in [
            (json!({}), "$.query"),
            (json!({"query": "  "}), "$.query"),
            (json!({"query": "add", "limit": 0}), "$.limit"),
        ] {
            let bad = client.call(SEARCH_TOOLS, arguments.clone()).await;
            assert_eq!(bad["result"]["isError"], true, "{bad}");
            assert!(text(&bad).starts_with("invalid_arguments"), "{bad}");
            let problems = &bad["result"]["_meta"][toolwright_mcp::META_ERROR]["problems"];
            assert_eq!(problems[0]["path"], path, "{arguments}: {bad}");
        }
    }
}

#[tokio::test]
async fn the_proxy_answers_as_a_direct_call_with_paths_under_arguments() {
    for era in ERAS {
        let (mut client, mut direct, _) = clients(era, json!({})).await;
        // Success, and a loose argument fixed: the same answer, the fix's path moved.
        for arguments in [
            json!({"text": "ab", "times": 2}),
            json!({"text": "ab", "times": "2"}),
            json!({"text": "ab", "times": 1, "colour": "red"}),
        ] {
            let proxied = proxy(&mut client, "echo_upper", arguments.clone()).await;
            let mut expected = comparable(&direct.call("echo_upper", arguments).await);
            let warnings = format!(
                "/_meta/{}",
                toolwright_mcp::META_WARNINGS.replace('/', "~1")
            );
            if let Some(warnings) = expected
                .pointer_mut(&warnings)
                .and_then(Value::as_array_mut)
            {
                for w in warnings {
                    w["path"] = json!(w["path"].as_str().unwrap().replace('$', "$.arguments"));
                }
            }
            assert_eq!(comparable(&proxied), expected, "{era:?}");
        }
        // Invalid: the same error, each path under `arguments`.
        for arguments in [json!({"text": "ab", "times": "many"}), json!({"times": 1})] {
            let proxied = proxy(&mut client, "echo_upper", arguments.clone()).await;
            let plain = direct.call("echo_upper", arguments.clone()).await;
            assert_eq!(plain["result"]["isError"], true, "{plain}");
            let mut expected = comparable(&plain);
            let rerooted = text(&plain)
                .replace("(at $.", "(at $.arguments.")
                .replace("- at $.", "- at $.arguments.");
            expected["content"][0]["text"] = json!(rerooted);
            let problems = format!(
                "/_meta/{}/problems",
                toolwright_mcp::META_ERROR.replace('/', "~1")
            );
            if let Some(problems) = expected
                .pointer_mut(&problems)
                .and_then(Value::as_array_mut)
            {
                for p in problems {
                    p["path"] = json!(p["path"].as_str().unwrap().replace('$', "$.arguments"));
                }
            }
            assert_eq!(comparable(&proxied), expected, "{arguments}");
        }
        let bad = proxy(
            &mut client,
            "echo_upper",
            json!({"text": "ab", "times": "many"}),
        )
        .await;
        assert!(text(&bad).contains("$.arguments.times"), "{bad}");
        // Arguments as a JSON string holding an object are read as the dispatcher reads a
        // model's: decoded, and the fix reported at `$.arguments`.
        let text_args = proxy(
            &mut client,
            "echo_upper",
            json!("{\"text\": \"ab\", \"times\": 2}"),
        )
        .await;
        assert_eq!(
            text_args["result"]["structuredContent"],
            json!({"text": "ABAB", "times": 2}),
            "{text_args}"
        );
        let warnings = &text_args["result"]["_meta"][toolwright_mcp::META_WARNINGS];
        assert_eq!(warnings[0]["code"], "json_string_decoded", "{text_args}");
        assert_eq!(warnings[0]["path"], "$.arguments", "{text_args}");
        // Failures and limits pass through unchanged.
        let fails = proxy(&mut client, "always_fails", json!({})).await;
        assert_eq!(
            comparable(&fails),
            comparable(&direct.call("always_fails", json!({})).await)
        );
        let contract = "Clause 1. The Contractor shall ... ".repeat(32 * 1024);
        let big = proxy(
            &mut client,
            "echo_upper",
            json!({"text": contract, "times": 1}),
        )
        .await;
        assert!(text(&big).starts_with("arguments_too_large"), "{big}");
        // The served tools stay callable by name.
        let by_name = client.call("math_add", json!({"a": 2, "b": 3})).await;
        assert_eq!(by_name["result"]["structuredContent"], json!({"result": 5}));
    }
}

#[tokio::test]
async fn the_proxy_refuses_what_it_cannot_run_with_the_place() {
    let notes = Arc::new(Notes::default());
    // `always_fails` is outside the served domain: not found, not callable.
    let served = server(&notes, true, ToolFilter::all().domain("demo"));
    let mut client = LineClient::connect(served, Era::Legacy, json!({})).await;
    let found = search(
        &mut client,
        json!({"query": "there is no such record", "limit": 20}),
    )
    .await;
    assert!(
        !found_names(&found).contains(&"always_fails".to_string()),
        "{found}"
    );
    for (arguments, path, says) in [
        (json!({"name": "always_fails"}), "$.name", "search_tools"),
        (json!({"name": "nope", "arguments": {}}), "$.name", "`nope`"),
        (json!({"arguments": {}}), "$.name", "needs `name`"),
        (json!({"name": 7}), "$.name", "needs `name`"),
        (
            json!({"name": "echo_upper", "arguments": [1]}),
            "$.arguments",
            "JSON object",
        ),
    ] {
        let refused = client.call(CALL_TOOL, arguments.clone()).await;
        assert_eq!(refused["result"]["isError"], true, "{refused}");
        assert!(text(&refused).contains(says), "{arguments}: {refused}");
        let problems = &refused["result"]["_meta"][toolwright_mcp::META_ERROR]["problems"];
        assert_eq!(problems[0]["path"], path, "{arguments}: {refused}");
    }
    let unknown = client.call("always_fails", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("search_tools"),
        "{unknown}"
    );
}

#[tokio::test]
async fn writes_through_the_proxy_wait_for_the_same_consent() {
    // A client that cannot ask: the write waits, nothing runs.
    let (mut client, _, notes) = clients(Era::Legacy, json!({})).await;
    let pending = proxy(&mut client, "delete_note", json!({"title": "draft"})).await;
    assert!(
        text(&pending).starts_with("confirmation_required"),
        "{pending}"
    );
    assert!(notes.0.lock().unwrap().is_empty());

    // Handshake era: asked by elicitation, runs on consent.
    let (mut client, _, notes) = clients(Era::Legacy, json!({"elicitation": {"form": {}}})).await;
    let id = client
        .send_request(
            "tools/call",
            json!({"name": CALL_TOOL, "arguments": {"name": "delete_note", "arguments": {"title": "old"}}}),
        )
        .await;
    let ask = client.next_message().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert!(
        notes.0.lock().unwrap().is_empty(),
        "nothing ran before the answer"
    );
    client
        .respond(
            &ask["id"],
            json!({"action": "accept", "content": {"confirm": true}}),
        )
        .await;
    let done = client.response(&id).await;
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"result": "deleted old"}),
        "{done}"
    );

    // 2026: an input-required result; the retry through the proxy carries the answer.
    let (mut client, _, notes) = clients(Era::Modern, json!({"elicitation": {"form": {}}})).await;
    let call = json!({"name": "delete_note", "arguments": {"title": "x"}});
    let first = client.call(CALL_TOOL, call.clone()).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let retry = |tool: &str| {
        json!({"name": tool, "arguments": {"title": "x"},
               "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
               "requestState": state})
    };
    let mut other = retry(CALL_TOOL);
    other["arguments"] = json!({"name": "math_add", "arguments": {"a": 1, "b": 1}});
    let forged = client.request("tools/call", other).await;
    assert_eq!(
        forged["error"]["code"], -32602,
        "consent is for one tool: {forged}"
    );
    assert!(notes.0.lock().unwrap().is_empty());
    let mut again = retry(CALL_TOOL);
    again["arguments"] = call;
    let done = client.request("tools/call", again).await;
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"result": "deleted x"}),
        "{done}"
    );
    assert_eq!(*notes.0.lock().unwrap(), ["deleted x".to_string()]);
}

#[test]
fn search_is_off_unless_asked_for() {
    let notes = Arc::new(Notes::default());
    assert!(!server(&notes, false, ToolFilter::all()).tool_search());
    let searching = server(&notes, true, ToolFilter::all());
    assert!(searching.tool_search());
    assert_eq!(
        searching.tool_count(),
        server(&notes, false, ToolFilter::all()).tool_count(),
        "the count is of the tools behind the search"
    );
}
