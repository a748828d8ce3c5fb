//! Pre-rendered pages, list changes, expiring confirmations and shutdown.

use super::*;

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
