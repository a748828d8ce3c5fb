//! The server over HTTP on loopback: both protocol eras, the origin and host guard,
//! tokens, limits.

use super::*;

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
