//! A pack served over MCP: only its tool set is listed and callable, and calls into another
//! pack go through the gateway (subscription, rate limit, audit).
//!
//! A binary of its own: its pack skills join the link-time registry, and the shared binary
//! (`tests/it`) asserts the exact tool list of the test skills alone.

// Shared with `mcp.rs`; this file uses only the stdio client.
#[allow(dead_code)]
#[path = "support/schema.rs"]
mod schema;
#[allow(dead_code)]
#[path = "support/wire.rs"]
mod wire;

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::Dispatcher;
use toolwright_mcp::McpServer;
use toolwright_packs::{AuditQuery, Gateway, SqliteStore};

use schema::Era;
use wire::LineClient;

toolwright::link_skills!(toolwright);

/// Answer a question (the provider's paid tool).
#[skill(id = "oracle.predict", category = "query")]
pub fn oracle_predict(
    /// The question.
    question: String,
) -> String {
    format!("yes: {question}")
}

/// A free look at the oracle.
#[skill(id = "oracle.peek", category = "query")]
pub fn oracle_peek() -> String {
    "the oracle is in".into()
}

/// Kept by the oracle for itself (not exported).
#[skill(id = "oracle.secret", category = "query")]
pub fn oracle_secret() -> String {
    "secret".into()
}

/// Ask a question the seeker's way.
#[skill(id = "seeker.ask", category = "query")]
pub fn seeker_ask(
    /// The question.
    question: String,
) -> String {
    format!("asked: {question}")
}

/// Show a text to the user (a core tool).
#[skill(id = "show_text", category = "ui")]
pub fn show_text(
    /// The text.
    text: String,
) -> String {
    text
}

/// A skill of no pack that is not a core tool.
#[skill(id = "loose_end", category = "query")]
pub fn loose_end() -> String {
    "loose".into()
}

toolwright_packs::pack! {
    /// Answers questions, on subscription.
    pub struct Oracle {
        id: "oracle",
        name: "Oracle",
        version: "1.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [OraclePredict, OraclePeek],
            access: {
                requires_subscription: true,
                free_tools: [OraclePeek],
                rate_limits: { OraclePredict: "2/day", OraclePeek: "unlimited" },
            },
        },
    }
}

toolwright_packs::pack! {
    /// Asks the oracle.
    pub struct Seeker {
        id: "seeker",
        name: "Seeker",
        version: "1.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [SeekerAsk],
        },
        imports: [
            { from: Oracle, tools: [OraclePredict, OraclePeek], min_version: "1.0" },
        ],
    }
}

fn gateway() -> Gateway {
    Gateway::builder(Dispatcher::from_inventory().expect("valid registry"))
        .linked_packs()
        .core_tools(["show_text"])
        .store(SqliteStore::open_in_memory().expect("in-memory store"))
        .build()
        .expect("pack contracts hold")
}

fn seeker_server(gateway: &Gateway) -> McpServer {
    McpServer::builder(gateway.dispatcher().clone())
        .pack(gateway.clone(), "seeker", "ann")
        .build()
        .expect("server builds")
}

fn names(response: &Value) -> Vec<String> {
    response["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn error_code(response: &Value) -> String {
    assert_eq!(response["result"]["isError"], true, "{response}");
    response["result"]["_meta"][toolwright_mcp::META_ERROR]["code"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn a_pack_lists_core_own_and_imported_tools_only() {
    let gateway = gateway();
    for era in [Era::Legacy, Era::Modern] {
        let mut client = LineClient::connect(seeker_server(&gateway), era, json!({})).await;
        let list = client.request("tools/list", json!({})).await;
        assert_eq!(
            names(&list),
            ["oracle_peek", "oracle_predict", "seeker_ask", "show_text"],
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn tools_outside_the_pack_set_are_refused() {
    let gateway = gateway();
    let mut client = LineClient::connect(seeker_server(&gateway), Era::Legacy, json!({})).await;
    for outside in ["oracle_secret", "loose_end"] {
        let refused = client.call(outside, json!({})).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains(outside),
            "{refused}"
        );
    }
    let own = client.call("seeker_ask", json!({"question": "q"})).await;
    assert_eq!(own["result"]["isError"], false, "{own}");
    let core = client.call("show_text", json!({"text": "hi"})).await;
    assert_eq!(core["result"]["isError"], false, "{core}");
}

#[tokio::test]
async fn cross_pack_calls_are_subscribed_rate_limited_and_audited() {
    let gateway = gateway();
    let mut client = LineClient::connect(seeker_server(&gateway), Era::Legacy, json!({})).await;
    let args = json!({"question": "rain?"});

    let unsubscribed = client.call("oracle_predict", args.clone()).await;
    assert_eq!(error_code(&unsubscribed), "subscription_required");
    let free = client.call("oracle_peek", json!({})).await;
    assert_eq!(free["result"]["isError"], false, "{free}");

    gateway
        .subscriptions()
        .subscribe("ann", "oracle", None)
        .await
        .unwrap();
    for _ in 0..2 {
        let ok = client.call("oracle_predict", args.clone()).await;
        assert_eq!(ok["result"]["isError"], false, "{ok}");
    }
    let limited = client.call("oracle_predict", args).await;
    assert_eq!(error_code(&limited), "rate_limited");

    let records = gateway
        .audit_log()
        .query(&AuditQuery {
            consumer: Some("seeker".into()),
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    let outcomes: Vec<(&str, &str, &str)> = records
        .iter()
        .rev()
        .map(|r| (r.tool.as_str(), r.user.as_str(), r.outcome.as_str()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("oracle.predict", "ann", "subscription_required"),
            ("oracle.peek", "ann", "ok"),
            ("oracle.predict", "ann", "ok"),
            ("oracle.predict", "ann", "ok"),
            ("oracle.predict", "ann", "rate_limited"),
        ]
    );
}

#[tokio::test]
async fn leaving_the_pack_changes_the_list_and_tells_the_client() {
    let gateway = gateway();
    let server = seeker_server(&gateway);
    let mut client = LineClient::connect(server.clone(), Era::Legacy, json!({})).await;
    // Once the client has listed (its `initialized` notification is handled by then).
    let first = client.request("tools/list", json!({})).await;
    assert_eq!(names(&first).len(), 4, "{first}");
    assert!(server.set_pack(None).await.unwrap());
    let note = client.next_message().await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    let all = client.request("tools/list", json!({})).await;
    assert!(names(&all).contains(&"oracle_secret".to_string()), "{all}");

    let back = server
        .set_pack(Some((
            gateway.clone(),
            toolwright_packs::Caller::new("seeker", "ann"),
        )))
        .await
        .unwrap();
    assert!(back);
    let note = client.next_message().await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(server.tool_count(), 4);
}

#[test]
fn an_unknown_pack_is_a_clear_error() {
    let gateway = gateway();
    let err = McpServer::builder(gateway.dispatcher().clone())
        .pack(gateway.clone(), "nobody", "ann")
        .build()
        .expect_err("no such pack");
    assert!(err.to_string().contains("nobody"), "{err}");
}

/// With tool search, a search offers only the pack's set, and `call_tool` goes through the
/// gateway like a direct call: subscription, rate limit and audit alike.
#[tokio::test]
async fn tool_search_finds_the_pack_set_and_calls_through_the_gateway() {
    let gateway = gateway();
    let server = McpServer::builder(gateway.dispatcher().clone())
        .pack(gateway.clone(), "seeker", "ann")
        .tool_search(true)
        .build()
        .expect("server builds");
    let mut client = LineClient::connect(server, Era::Legacy, json!({})).await;
    let list = client.request("tools/list", json!({})).await;
    assert_eq!(names(&list), ["search_tools", "call_tool"]);

    let found = client
        .call(
            "search_tools",
            json!({"query": "oracle secret question", "limit": 20}),
        )
        .await;
    let found: Vec<&str> = found["result"]["structuredContent"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(found.contains(&"oracle_predict"), "{found:?}");
    assert!(
        !found.contains(&"oracle_secret") && !found.contains(&"loose_end"),
        "only the pack's set is searched: {found:?}"
    );

    let proxy = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    let args = json!({"question": "rain?"});
    let unsubscribed = client
        .call("call_tool", proxy("oracle_predict", args.clone()))
        .await;
    assert_eq!(error_code(&unsubscribed), "subscription_required");
    gateway
        .subscriptions()
        .subscribe("ann", "oracle", None)
        .await
        .unwrap();
    for _ in 0..2 {
        let ok = client
            .call("call_tool", proxy("oracle_predict", args.clone()))
            .await;
        assert_eq!(ok["result"]["isError"], false, "{ok}");
    }
    let limited = client
        .call("call_tool", proxy("oracle_predict", args))
        .await;
    assert_eq!(error_code(&limited), "rate_limited");
    let outside = client
        .call("call_tool", proxy("oracle_secret", json!({})))
        .await;
    assert_eq!(error_code(&outside), "invalid_arguments", "{outside}");

    let records = gateway
        .audit_log()
        .query(&AuditQuery {
            consumer: Some("seeker".into()),
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    let outcomes: Vec<&str> = records.iter().rev().map(|r| r.outcome.as_str()).collect();
    assert_eq!(
        outcomes,
        ["subscription_required", "ok", "ok", "rate_limited"],
        "proxied calls are audited"
    );
}
