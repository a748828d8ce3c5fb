//! The HTTP endpoint under hostile load: connection cap, header-read and idle time-outs,
//! session caps and expiry, bounded shutdown, and the JSON-RPC errors of messages that are
//! not valid (duplicate ids in flight, arguments as text, bad JSON, batches).

use crate::{schema, skills, wire};

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolwright::{Dispatcher, SkillContext};
use toolwright_mcp::{ConnectionLimits, HttpOptions, McpServer, SessionLimits};

use schema::Era;
use skills::{DropProbe, Notes};
use wire::HttpClient;

toolwright::link_skills!(toolwright);

const TOKEN: &str = "limits-test-token-0123456789";

fn server() -> McpServer {
    let mut context = SkillContext::new();
    context.insert_arc(Arc::new(Notes::default()));
    context.insert_arc(Arc::new(DropProbe::default()));
    McpServer::new(
        Dispatcher::from_inventory().expect("test registry is valid"),
        context,
    )
    .expect("server builds")
}

struct Running {
    addr: SocketAddr,
    url: String,
    shutdown: toolwright_mcp::CancellationToken,
    task: tokio::task::JoinHandle<Result<(), toolwright_mcp::ServeError>>,
}

async fn start(options: HttpOptions) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = options.shutdown.clone();
    let task = tokio::spawn(toolwright_mcp::serve_listener(
        listener,
        server(),
        options,
        std::future::pending(),
    ));
    Running {
        addr,
        url: format!("http://{addr}/mcp"),
        shutdown,
        task,
    }
}

fn options(limits: ConnectionLimits) -> HttpOptions {
    HttpOptions {
        limits,
        ..HttpOptions::default().token(TOKEN)
    }
}

/// A legacy client with the token, from `from` (any address of 127/8).
fn client(url: &str, from: Ipv4Addr) -> HttpClient {
    let mut client = HttpClient::new(url.to_string(), Era::Legacy, Some(TOKEN.into()));
    client.http = reqwest::Client::builder()
        .local_address(IpAddr::V4(from))
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    client
}

/// The soft limit of open files (Linux, from `/proc/self/limits`).
fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Whether the server closed `stream` (EOF or reset) within `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 512];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_and_initialize_floods_leave_a_token_bearing_client_served() {
    let limits = ConnectionLimits {
        max_connections: 32,
        header_timeout: Duration::from_secs(60),
        ..ConnectionLimits::default()
    };
    let srv = start(HttpOptions {
        sessions: SessionLimits {
            max_sessions: 64,
            max_sessions_per_client: 8,
        },
        ..options(limits)
    })
    .await;
    // Sockets that never say a word: 2,000 where the open-files limit allows, else ten
    // times the cap.
    let idle_count = if open_files_limit().is_some_and(|n| n >= 4_500) {
        2_000
    } else {
        320
    };
    let mut idle = Vec::new();
    for _ in 0..idle_count {
        idle.push(TcpStream::connect(srv.addr).await.unwrap());
    }
    // 20,000 handshakes from one address, half without the token, eight at a time.
    let flood = reqwest::Client::new();
    let unauthorised = Arc::new(AtomicUsize::new(0));
    let capped = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for worker in 0..8 {
        let (flood, url) = (flood.clone(), srv.url.clone());
        let (unauthorised, capped) = (Arc::clone(&unauthorised), Arc::clone(&capped));
        workers.push(tokio::spawn(async move {
            let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "flood", "version": "0"}}});
            for i in 0..2_500 {
                let mut req = flood
                    .post(&url)
                    .header("Accept", "application/json, text/event-stream")
                    .json(&init);
                if (worker + i) % 2 == 1 {
                    req = req.bearer_auth(TOKEN);
                }
                let response = req.send().await.unwrap();
                match response.status().as_u16() {
                    401 => unauthorised.fetch_add(1, Ordering::Relaxed),
                    503 => capped.fetch_add(1, Ordering::Relaxed),
                    200 => 0,
                    other => panic!("unexpected status {other}"),
                };
                // Read the answer through, so the connection is kept for the next one.
                let _ = response.bytes().await;
            }
        }));
    }
    for worker in workers {
        worker.await.unwrap();
    }
    let unauthorised = unauthorised.load(Ordering::Relaxed);
    let capped = capped.load(Ordering::Relaxed);
    assert_eq!(unauthorised, 10_000, "no token, no session");
    assert_eq!(capped, 10_000 - 8, "one address keeps at most 8 sessions");
    // Another client is served at once.
    let mut good = client(&srv.url, Ipv4Addr::new(127, 0, 0, 2));
    good.initialize().await;
    let list = good.request("tools/list", json!({})).await;
    assert_eq!(list.status, 200, "{}", list.body);
    assert!(list.response()["result"]["tools"].is_array());
    // The oldest idle sockets were closed to make room.
    assert!(
        closed_within(&mut idle[0], Duration::from_secs(5)).await,
        "the longest-idle socket was closed"
    );
    srv.shutdown.cancel();
    let ended = tokio::time::timeout(Duration::from_secs(15), srv.task).await;
    assert!(matches!(ended, Ok(Ok(Ok(())))), "{ended:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_every_connection_is_busy_a_new_one_is_refused_at_once() {
    let srv = start(options(ConnectionLimits {
        max_connections: 2,
        ..ConnectionLimits::default()
    }))
    .await;
    let mut busy = Vec::new();
    for id in 0..2 {
        // Each client its own connection, each holding a call that runs for seconds.
        let mut c = HttpClient::new(srv.url.clone(), Era::Modern, Some(TOKEN.into()));
        c.http = reqwest::Client::new();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "wait_long", "arguments": {"ms": 4000},
            "_meta": wire::modern_meta(json!({}))}});
        let req = c.post("tools/call", Some("wait_long")).json(&body);
        busy.push(tokio::spawn(
            async move { req.send().await.map(|r| r.status()) },
        ));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let mut third = TcpStream::connect(srv.addr).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(3), third.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "refused at once"
    );
    for call in busy {
        assert_eq!(
            call.await.unwrap().unwrap().as_u16(),
            200,
            "busy calls finish"
        );
    }
    srv.shutdown.cancel();
}

#[tokio::test]
async fn silent_sockets_and_slow_heads_are_closed_after_the_header_timeout() {
    let srv = start(options(ConnectionLimits {
        header_timeout: Duration::from_millis(300),
        ..ConnectionLimits::default()
    }))
    .await;
    let mut silent = TcpStream::connect(srv.addr).await.unwrap();
    let mut slow = TcpStream::connect(srv.addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    assert!(closed_within(&mut silent, Duration::from_secs(5)).await);
    assert!(closed_within(&mut slow, Duration::from_secs(5)).await);
    srv.shutdown.cancel();
}

#[tokio::test]
async fn a_body_that_stops_arriving_is_closed_after_the_idle_timeout() {
    let srv = start(options(ConnectionLimits {
        idle_timeout: Duration::from_millis(300),
        ..ConnectionLimits::default()
    }))
    .await;
    let mut stalled = TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\
         Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
         Content-Length: 1000\r\n\r\n{{\"jsonrpc\""
    );
    stalled.write_all(head.as_bytes()).await.unwrap();
    assert!(closed_within(&mut stalled, Duration::from_secs(5)).await);
    srv.shutdown.cancel();
}

#[tokio::test]
async fn a_body_trickling_in_is_closed_after_the_body_timeout() {
    let srv = start(options(ConnectionLimits {
        idle_timeout: Duration::from_secs(3600),
        body_timeout: Duration::from_millis(500),
        ..ConnectionLimits::default()
    }))
    .await;
    let mut trickle = TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\
         Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
         Content-Length: 1000\r\n\r\n"
    );
    trickle.write_all(head.as_bytes()).await.unwrap();
    // A byte every 100 ms: never silent for the idle time-out, never done.
    let started = Instant::now();
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if trickle.write_all(b" ").await.is_err() {
            closed = true;
            break;
        }
        let mut buf = [0u8; 512];
        if let Ok(Ok(n)) =
            tokio::time::timeout(Duration::from_millis(1), trickle.read(&mut buf)).await
        {
            if n == 0 {
                closed = true;
                break;
            }
        }
    }
    assert!(closed, "the trickling body was not cut");
    assert!(started.elapsed() < Duration::from_secs(4));
    srv.shutdown.cancel();
}

#[tokio::test]
async fn shutdown_drops_what_is_still_busy_after_the_grace_period() {
    let srv = start(options(ConnectionLimits {
        shutdown_grace: Duration::from_millis(300),
        idle_timeout: Duration::from_secs(3600),
        ..ConnectionLimits::default()
    }))
    .await;
    // A client that sent half a request and went quiet.
    let mut half = TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    );
    half.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    srv.shutdown.cancel();
    let ended = tokio::time::timeout(Duration::from_secs(10), srv.task).await;
    assert!(matches!(ended, Ok(Ok(Ok(())))), "{ended:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the half-sent request does not hold the server"
    );
    assert!(closed_within(&mut half, Duration::from_secs(2)).await);
}

#[tokio::test]
async fn sessions_are_capped_in_all_and_per_client_and_idle_ones_expire() {
    let srv = start(HttpOptions {
        sessions: SessionLimits {
            max_sessions: 3,
            max_sessions_per_client: 2,
        },
        session_idle: Some(Duration::from_millis(400)),
        ..options(ConnectionLimits::default())
    })
    .await;
    let local = Ipv4Addr::LOCALHOST;
    let mut a = client(&srv.url, local);
    a.initialize().await;
    let mut b = client(&srv.url, local);
    b.initialize().await;
    let mut c = client(&srv.url, local);
    let refused = c
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "c", "version": "0"}}),
        )
        .await;
    assert_eq!(refused.status, 503, "{}", refused.body);
    let error = refused.response();
    assert_eq!(
        error["error"]["code"],
        toolwright_mcp::http::TOO_MANY_SESSIONS
    );
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("from this client"),
        "{error}"
    );
    // Another address may open one more: then the server's cap is reached.
    let mut other = client(&srv.url, Ipv4Addr::new(127, 0, 0, 3));
    other.initialize().await;
    let mut fourth = client(&srv.url, Ipv4Addr::new(127, 0, 0, 4));
    let full = fourth
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "d", "version": "0"}}),
        )
        .await;
    assert_eq!(full.status, 503, "{}", full.body);
    assert!(full.response()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("at most 3"));
    // Ending a session makes room.
    assert_eq!(a.end_session().await, 204);
    fourth.initialize().await;
    // Idle sessions expire: their id is unknown afterwards and room is made.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let gone = b.request("tools/list", json!({})).await;
    assert_eq!(gone.status, 404, "{}", gone.body);
    c.initialize().await;
    srv.shutdown.cancel();
}

#[tokio::test]
async fn deleting_an_unknown_session_is_404() {
    let srv = start(options(ConnectionLimits::default())).await;
    let status = reqwest::Client::new()
        .delete(&srv.url)
        .bearer_auth(TOKEN)
        .header("Mcp-Session-Id", "no-such-session")
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 404);
    srv.shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_request_with_an_id_in_flight_is_refused_and_the_first_answered() {
    let srv = start(options(ConnectionLimits::default())).await;
    let mut session = client(&srv.url, Ipv4Addr::LOCALHOST);
    session.initialize().await;
    let call = |ms: u64| {
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
               "params": {"name": "wait_long", "arguments": {"ms": ms}}})
    };
    let first = session.post("tools/call", None).json(&call(1500));
    let first = tokio::spawn(async move {
        let resp = first.send().await.unwrap();
        (resp.status().as_u16(), resp.text().await.unwrap())
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let twin = session
        .exchange(
            session.post("tools/call", None).json(&call(10)),
            "tools/call",
        )
        .await;
    assert_eq!(twin.status, 400, "{}", twin.body);
    assert_eq!(
        twin.response()["error"]["code"],
        toolwright_mcp::http::INVALID_REQUEST
    );
    assert!(twin.body.contains("still in progress"), "{}", twin.body);
    let (status, body) = tokio::time::timeout(Duration::from_secs(10), first)
        .await
        .expect("the first is answered")
        .unwrap();
    assert_eq!(status, 200);
    assert!(body.contains("\"id\":5") && body.contains("1500"), "{body}");
    // Once answered, the id may be used again.
    let again = session
        .exchange(
            session.post("tools/call", None).json(&call(10)),
            "tools/call",
        )
        .await;
    assert_eq!(again.status, 200, "{}", again.body);
    srv.shutdown.cancel();
}

#[tokio::test]
async fn malformed_messages_get_json_rpc_errors() {
    let srv = start(options(ConnectionLimits::default())).await;
    let mut modern = HttpClient::new(srv.url.clone(), Era::Modern, Some(TOKEN.into()));
    // Arguments sent as JSON text.
    let mut body = modern.body("tools/call", json!({"name": "math_add"}));
    body["params"]["arguments"] = json!("{\"a\": 1, \"b\": 2}");
    let text_args = modern
        .exchange(
            modern.post("tools/call", Some("math_add")).json(&body),
            "tools/call",
        )
        .await;
    assert_eq!(text_args.status, 400, "{}", text_args.body);
    let error = text_args.response();
    assert_eq!(error["error"]["code"], toolwright_mcp::http::INVALID_PARAMS);
    assert_eq!(error["id"], body["id"]);
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("params.arguments"));
    // Not JSON.
    let garbage = modern
        .exchange(
            modern.post("tools/list", None).body("{not json"),
            "tools/list",
        )
        .await;
    assert_eq!(garbage.status, 400, "{}", garbage.body);
    assert_eq!(
        garbage.response()["error"]["code"],
        toolwright_mcp::http::PARSE_ERROR
    );
    // A batch.
    let one = modern.body("tools/list", json!({}));
    let batch = modern
        .exchange(
            modern
                .post("tools/list", None)
                .body(Value::Array(vec![one.clone(), one]).to_string()),
            "tools/list",
        )
        .await;
    assert_eq!(batch.status, 400, "{}", batch.body);
    assert_eq!(
        batch.response()["error"]["code"],
        toolwright_mcp::http::INVALID_REQUEST
    );
    assert!(batch.body.contains("batch"), "{}", batch.body);
    srv.shutdown.cancel();
}
