//! `clausewright serve --store`: two servers on one PostgreSQL store with quotas in Redis start
//! together (the store's migrations run once, under a lock) and both serve; what a store
//! cannot hold, a short request-state key and an unreachable store are refused before
//! anything is served.
//!
//! PostgreSQL and Redis are `TOOLWRIGHT_TEST_POSTGRES_URL` (default
//! `postgres://root@127.0.0.1:5432/test`) and `TOOLWRIGHT_TEST_REDIS_URL` (default
//! `redis://127.0.0.1:6379`); a test whose server does not answer is skipped with a message,
//! or fails under `CI=true`. Calls parked on one server and confirmed on another, and quotas
//! across processes, are tested where the skills that need them are linked: toolwright-packs'
//! `shared_servers` and `cross_process` tests (this binary links no pack and no skill that
//! waits for consent).

use std::io::Write as _;
use std::net::{TcpStream, ToSocketAddrs};
use std::process::Command;
use std::time::Duration;

use crate::http_server::HttpServer;

const STATE_KEY: &str = "0123456789abcdef0123456789abcdef-shared";
const TOKEN: &str = "a-launch-token-of-the-test";

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// `url` when its server accepts connections; else `None` after saying why the test is
/// skipped (a panic under `CI=true`).
fn reachable(what: &str, url: &str, default_port: u16) -> Option<String> {
    let authority = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['/', '?'])
        .next()
        .unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let with_port = if host_port.contains(':') {
        host_port.to_string()
    } else {
        format!("{host_port}:{default_port}")
    };
    let ok = with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .is_some_and(|addr| TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok());
    if ok {
        return Some(url.to_string());
    }
    let shown = toolwright_packs::redact_url(url);
    if in_ci() {
        panic!("{what} is not reachable at {shown}, and CI=true makes that a failure");
    }
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {what} is not reachable at {shown} (start it, or set CI=true to fail instead of skipping)"
    );
    None
}

pub(crate) fn postgres() -> Option<String> {
    let url = std::env::var("TOOLWRIGHT_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into());
    reachable("PostgreSQL", &url, 5432)
}

fn redis() -> Option<String> {
    let url = std::env::var("TOOLWRIGHT_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    reachable("Redis", &url, 6379)
}

/// A name of this test run only.
pub(crate) fn unique(base: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
        % 1_000_000_000_000;
    format!("{base}_{}_{nanos}", std::process::id())
}

/// A PostgreSQL schema of one test, dropped with everything in it when this goes away.
pub(crate) struct Schema {
    pub(crate) url: String,
    pub(crate) name: String,
}

impl Schema {
    pub(crate) fn store_url(&self) -> String {
        format!("{}?schema={}", self.url, self.name)
    }

    /// Whether the store's tables for parked calls and audit outcomes exist in the schema.
    fn tables(&self) -> Vec<String> {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let store = toolwright_packs::PgStore::connect_in_schema(&self.url, &self.name)
                .await
                .unwrap();
            let client = store.client().await.unwrap();
            client
                .query(
                    "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
                    &[&self.name],
                )
                .await
                .unwrap()
                .iter()
                .map(|r| r.get::<_, String>(0))
                .collect()
        })
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let (url, name) = (self.url.clone(), self.name.clone());
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async {
                if let Ok(store) = toolwright_packs::PgStore::connect_in_schema(&url, &name).await {
                    if let Ok(client) = store.client().await {
                        let _ = client
                            .batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                            .await;
                    }
                }
            });
        })
        .join();
    }
}

/// `POST /mcp` of an `initialize` with the token; the HTTP status line.
fn initialize(addr: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"shared-store-test","version":"0"}}}"#;
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    let _ = std::io::Read::read_to_end(&mut stream, &mut answer);
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn two_servers_start_on_one_postgres_store_with_redis_quotas_and_both_serve() {
    let (Some(pg), Some(redis)) = (postgres(), redis()) else {
        return;
    };
    let schema = Schema {
        url: pg,
        name: unique("serve_shared"),
    };
    let store = schema.store_url();
    let quotas = format!("{redis}?prefix={}:", unique("serve_shared"));
    let args = [
        "--no-console",
        "--store",
        store.as_str(),
        "--store",
        quotas.as_str(),
        "--state-key",
        STATE_KEY,
        "--token",
        TOKEN,
    ];
    // Started together: the migrations run once, under PostgreSQL's advisory lock.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| HttpServer::start_with(&args, &[]));
        let b = s.spawn(|| HttpServer::start_with(&args, &[]));
        (a.join().unwrap(), b.join().unwrap())
    });
    for server in [&a, &b] {
        assert!(server.banner.contains("serving"), "{}", server.banner);
        let status = initialize(&server.addr);
        assert!(
            status.contains(" 200 "),
            "initialize on {}: {status}",
            server.addr
        );
    }
    let tables = schema.tables();
    for wanted in [
        "pack_audit",
        "pack_audit_outcome",
        "pack_quota",
        "pending_confirmations",
    ] {
        assert!(
            tables.iter().any(|t| t == wanted),
            "{wanted} missing: {tables:?}"
        );
    }
}

fn serve_stdio(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["serve", "--stdio"])
        .args(args)
        .env_remove("TOOLWRIGHT_STATE_KEY")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_short_request_state_key_is_refused() {
    for (args, env, from) in [
        (vec!["--state-key", "short"], vec![], "--state-key"),
        (
            vec![],
            vec![("TOOLWRIGHT_STATE_KEY", "   only-twenty-bytes!   ")],
            "TOOLWRIGHT_STATE_KEY",
        ),
    ] {
        let out = serve_stdio(&args, &env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(from) && stderr.contains("at least 32"),
            "{stderr}"
        );
    }
}

#[test]
fn stores_that_cannot_serve_are_refused_before_serving() {
    let redis_alone = serve_stdio(&["--store", "redis://:secret@127.0.0.1:6379"], &[]);
    let stderr = String::from_utf8_lossy(&redis_alone.stderr);
    assert_eq!(redis_alone.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("quotas only") && stderr.contains(":***@") && !stderr.contains("secret"),
        "{stderr}"
    );

    let two_main = serve_stdio(
        &["--store", "a.db", "--store", "postgres://127.0.0.1/x"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&two_main.stderr);
    assert_eq!(two_main.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("one SQLite or PostgreSQL store"),
        "{stderr}"
    );

    // Nothing listens on port 1: the store's URL is named, its password hidden.
    let unreachable = serve_stdio(&["--store", "postgres://app:pw@127.0.0.1:1/test"], &[]);
    let stderr = String::from_utf8_lossy(&unreachable.stderr);
    assert!(!unreachable.status.success(), "{stderr}");
    assert!(
        stderr.contains("--store") && stderr.contains("postgres://app:***@127.0.0.1:1/test"),
        "{stderr}"
    );
}

// ---- a call parked on one server, consented to on another ------------------------------

const WORKER_ENV: &str = "TOOLWRIGHT_SHARED_STORE_WORKER";
/// What a worker prints once it listens, before its address.
const LISTENING: &str = "LISTENING ";

/// What one server process runs on.
#[derive(serde::Serialize, serde::Deserialize)]
struct Worker {
    store: String,
    /// Where quotas are counted when not in `store` (Redis).
    quota: Option<String>,
    state_key: String,
    /// Serve pack `panel` (whose calls of `meter_read` are limited) rather than the demo
    /// skills.
    pack: bool,
}

/// The user the pack's calls run for.
const PACK_USER: &str = "shared-store-user";

/// Reads the meter: at most five calls a day per user, whichever server runs them.
#[toolwright::skill(id = "meter.read", category = "retrieval")]
fn meter_read() -> u32 {
    42
}

toolwright_packs::pack! {
    /// A provider whose one tool is limited per user and day.
    pub struct Meter {
        id: "meter",
        name: "Meter",
        version: "1.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [MeterRead],
            access: {
                requires_subscription: false,
                rate_limits: { MeterRead: "5/day" },
            },
        },
    }
}

toolwright_packs::pack! {
    /// A consumer of the meter: its calls go through the gateway, counted and audited.
    pub struct Panel {
        id: "panel",
        name: "Panel",
        version: "1.0.0",
        imports: [
            { from: Meter, tools: [MeterRead], min_version: "1" },
        ],
    }
}

/// An MCP server over the demo skills (one of them waits for consent), its parked calls in
/// the worker's store, its request state sealed with the worker's key: what `serve --http
/// --store URL --state-key KEY` assembles, over skills this test binary links. Only does
/// something when started by the test below as a worker process.
#[test]
#[ignore = "a server process of the shared-store tests, started by them"]
fn mcp_server_worker_process() {
    let Ok(worker) = std::env::var(WORKER_ENV) else {
        return;
    };
    let worker: Worker = serde_json::from_str(&worker).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let stores = toolwright_packs::Stores::connect(&worker.store, worker.quota.as_deref())
            .await
            .unwrap();
        let dispatcher = toolwright::Dispatcher::builder()
            .skills(
                toolwright::linked_skills()
                    .filter(|r| r.id.starts_with("demo.") || r.id.starts_with("meter.")),
            )
            .build()
            .unwrap();
        let shared =
            toolwright::SharedConfirmations::new(dispatcher.clone(), stores.confirmations.clone());
        let mut server = toolwright_mcp::McpServer::builder(dispatcher.clone())
            .confirmations(shared)
            .request_state_key(worker.state_key.into_bytes());
        if worker.pack {
            let gateway = toolwright_packs::Gateway::builder(dispatcher)
                .pack::<Meter>()
                .pack::<Panel>()
                .stores(stores)
                .build()
                .unwrap();
            server = server.pack(gateway, "panel", PACK_USER);
        }
        let server = server.build().unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{LISTENING}{}", listener.local_addr().unwrap());
            let _ = out.flush();
        }
        let options = toolwright_mcp::HttpOptions {
            token: Some(TOKEN.into()),
            json_response: true,
            ..toolwright_mcp::HttpOptions::default()
        };
        toolwright_mcp::serve_listener(listener, server, options, std::future::pending())
            .await
            .unwrap();
    });
}

/// A server process, killed on drop.
struct ServerProcess {
    child: std::process::Child,
    addr: String,
}

impl ServerProcess {
    fn start(store: &str, state_key: &str) -> Self {
        Self::start_with(Worker {
            store: store.into(),
            quota: None,
            state_key: state_key.into(),
            pack: false,
        })
    }

    fn start_with(worker: Worker) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "shared_store::mcp_server_worker_process",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(WORKER_ENV, serde_json::to_string(&worker).unwrap())
            .env("RUST_LOG", "off")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .unwrap();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        let addr = loop {
            line.clear();
            let read = std::io::BufRead::read_line(&mut out, &mut line).unwrap();
            assert!(read > 0, "the server process ended before it listened");
            if let Some((_, addr)) = line.trim_end().split_once(LISTENING) {
                break addr.to_string();
            }
        };
        // Keep reading what it prints, so it never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        Self { child, addr }
    }

    /// A 2026-07-28 `tools/call` (no session), with the client's capabilities; the JSON-RPC
    /// answer.
    fn call(
        &self,
        tool: &str,
        params: serde_json::Value,
        capabilities: serde_json::Value,
    ) -> serde_json::Value {
        let mut params = params;
        params["name"] = tool.into();
        params["_meta"] = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "shared-store-test", "version": "0"},
        });
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
            .to_string();
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut answer = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stream, &mut answer);
        let answer = String::from_utf8_lossy(&answer).to_string();
        let (head, body) = answer
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP answer: {answer:?}"));
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(body)
        } else {
            body.to_string()
        };
        let json = body
            .lines()
            .find_map(|l| {
                l.strip_prefix("data:")
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
            })
            .unwrap_or(body.trim());
        serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {head}\n{body}"))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of a chunked HTTP/1.1 answer.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || tail.len() < size {
            break;
        }
        out.push_str(&tail[..size]);
        rest = tail[size..].trim_start_matches("\r\n");
    }
    out
}

/// The text of a `tools/call` result.
fn text_of(answer: &serde_json::Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_call_parked_on_one_server_is_consented_to_on_another() {
    let Some(pg) = postgres() else {
        return;
    };
    let schema = Schema {
        url: pg,
        name: unique("consent_across"),
    };
    let store = schema.store_url();
    let a = ServerProcess::start(&store, STATE_KEY);
    let b = ServerProcess::start(&store, STATE_KEY);
    let asks = serde_json::json!({"elicitation": {"form": {}}});
    let consent =
        serde_json::json!({"confirm": {"action": "accept", "content": {"confirm": true}}});

    let asked = a.call(
        "demo_delete_note",
        serde_json::json!({"arguments": {"id": 7}}),
        asks.clone(),
    );
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();

    // The client's answer reaches the other server: it opens the state (same key), takes
    // the call out of the shared store and runs it.
    let done = b.call(
        "demo_delete_note",
        serde_json::json!({"arguments": {"id": 7}, "inputResponses": consent, "requestState": state}),
        asks.clone(),
    );
    assert_eq!(
        done["result"]["structuredContent"]["result"], "note 7 deleted",
        "{done}"
    );
    assert_ne!(done["result"]["isError"], true, "{done}");

    // The same answer sent to the first server runs nothing: the call was decided.
    let again = a.call(
        "demo_delete_note",
        serde_json::json!({"arguments": {"id": 7}, "inputResponses": consent, "requestState": state}),
        asks.clone(),
    );
    assert_eq!(again["result"]["isError"], true, "{again}");
    assert!(
        text_of(&again).contains("no pending confirmation"),
        "{again}"
    );

    // A client that cannot be asked: the call waits in the store under a shared id.
    let waiting = a.call(
        "demo_delete_note",
        serde_json::json!({"arguments": {"id": 8}}),
        serde_json::json!({}),
    );
    let pending = &waiting["result"]["_meta"][toolwright_mcp::META_PENDING];
    let id = pending["id"].as_str().unwrap_or_default();
    assert!(
        id.starts_with(toolwright::SHARED_CONFIRMATION_PREFIX),
        "{waiting}"
    );
    assert!(
        text_of(&waiting).contains(id),
        "the message names the shared id: {waiting}"
    );

    // A server sealing with another key cannot read the first ones' state.
    let other = ServerProcess::start(&store, "another-key-of-at-least-thirty-two-bytes");
    let asked = a.call(
        "demo_delete_note",
        serde_json::json!({"arguments": {"id": 9}}),
        asks.clone(),
    );
    let state = asked["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let refused = other.call(
        "demo_delete_note",
        serde_json::json!({"arguments": {"id": 9}, "inputResponses": consent, "requestState": state}),
        asks,
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

/// Two servers serving pack `panel` on one store: twelve calls of `meter_read` (five a day
/// allowed), alternating between them, admit five; the counter and the audit agree.
fn quotas_hold_across_two_servers(store: &str, quota: Option<&str>) {
    let start = || {
        ServerProcess::start_with(Worker {
            store: store.into(),
            quota: quota.map(Into::into),
            state_key: STATE_KEY.into(),
            pack: true,
        })
    };
    let servers = [start(), start()];
    let mut admitted = 0;
    for i in 0..12 {
        let answer = servers[i % 2].call(
            "meter_read",
            serde_json::json!({"arguments": {}}),
            serde_json::json!({}),
        );
        if answer["result"]["isError"] == true {
            assert!(text_of(&answer).contains("5 calls per day"), "{answer}");
        } else {
            assert_eq!(
                answer["result"]["structuredContent"]["result"], 42,
                "{answer}"
            );
            admitted += 1;
        }
    }
    assert_eq!(admitted, 5, "five calls a day, whichever server runs them");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let stores = rt
        .block_on(toolwright_packs::Stores::connect(store, quota))
        .unwrap();
    let used = rt
        .block_on(stores.quotas.used(
            PACK_USER,
            "meter.read",
            toolwright_packs::Window::Day,
            chrono::Utc::now(),
        ))
        .unwrap();
    assert_eq!(used, 5);
    let records = rt
        .block_on(stores.audit.query(&toolwright_packs::AuditQuery {
            user: Some(PACK_USER.into()),
            ..toolwright_packs::AuditQuery::default()
        }))
        .unwrap();
    assert_eq!(records.len(), 12, "{records:?}");
    assert_eq!(records.iter().filter(|r| r.outcome == "ok").count(), 5);
    assert_eq!(
        records
            .iter()
            .filter(|r| r.outcome == "rate_limited")
            .count(),
        7
    );
}

#[test]
fn quotas_hold_across_two_servers_on_postgres() {
    let Some(pg) = postgres() else {
        return;
    };
    let schema = Schema {
        url: pg,
        name: unique("quota_across"),
    };
    quotas_hold_across_two_servers(&schema.store_url(), None);
}

#[test]
fn quotas_hold_across_two_servers_with_redis_quotas() {
    let (Some(pg), Some(redis)) = (postgres(), redis()) else {
        return;
    };
    let schema = Schema {
        url: pg,
        name: unique("redis_quota_across"),
    };
    let quotas = format!("{redis}?prefix={}:", unique("redis_quota_across"));
    quotas_hold_across_two_servers(&schema.store_url(), Some(&quotas));
}
