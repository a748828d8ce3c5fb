//! Round trips through the MCP server, next to rmcp's figures for the same workloads.
//!
//! Each case sends one JSON-RPC request on an initialized (2025-11-25) session and waits
//! for its response, with a minimal client: write one line (or POST one body), read one
//! line (or the whole body). The client does not decode the response; a check before the
//! timing makes sure every case answers what it should.
//! - `duplex/*`: [`toolwright_mcp::serve_io`] over `tokio::io::duplex` (the stdio framing), client
//!   and server on one `current_thread` runtime.
//! - `http/*`: [`toolwright_mcp::serve_listener`] on 127.0.0.1, a `reqwest` client, JSON
//!   responses, on the same kind of runtime.
//! - `tools_list/16`: the whole list of 16 skills (one page).
//! - `tools_list/1000_page`: the first page (the default 100 tools) of 1,000 skills.
//! - `tools_list/1000_all`: all 1,000 tools in one response (page size 1,000), as rmcp
//!   answers.
//! - `tools_list/1000_all_typed` (duplex only): the same list from the same server handed
//!   to rmcp directly, which answers with typed tools and serializes them per response.
//! - `tools_call`: a three-argument skill with a trivial body, the call rmcp was timed on.
//! - `render/build_1000`: building a server of 1,000 skills on a fresh dispatcher (the MCP
//!   list rendered from per-skill fragments), and `render/first_list_1000`: that plus
//!   writing its one 1,000-tool page, what a server does before its first answer.
//!
//! Run: `cargo bench -p toolwright-mcp --bench mcp`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::runtime::Runtime;
use toolwright::prelude::*;
use toolwright::{Dispatcher, SkillRegistration};
use toolwright_mcp::{HttpOptions, McpServer};

/// One passage found.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Hit {
    /// Passage id.
    pub id: String,
    /// Relevance.
    pub score: f64,
}

/// Search result.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Hits {
    /// Clause searched.
    pub clause_id: String,
    /// Hits, best first.
    pub hits: Vec<Hit>,
    /// One line for the model.
    pub summary: String,
}

/// Search the reference documents for passages relevant to a clause.
#[skill(id = "search_reference_doc", category = "retrieval")]
fn search_reference_doc(
    /// Clause number, for example "4.1".
    clause_id: String,
    /// Free-text query.
    query: String,
    /// How many passages to return.
    #[arg(default = 5)]
    top_k: u32,
) -> Hits {
    let hits = (1..=top_k)
        .map(|i| Hit {
            id: format!("{clause_id}#p{i}"),
            score: 1.0 / f64::from(i),
        })
        .collect();
    let summary = format!("top {top_k} passages for '{query}' in {clause_id}");
    Hits {
        clause_id,
        hits,
        summary,
    }
}

const TOOL: &str = "search_reference_doc";

/// Buffer of the in-memory duplex: larger than the whole 1,000-tool list, so the server
/// writes a response without waiting for the client to read.
const DUPLEX_BYTES: usize = 4 << 20;

/// The arguments rmcp's round trip was timed with.
fn call_params() -> Value {
    json!({
        "name": TOOL,
        "arguments": {"clause_id": "ISO-26262-6:9.4.3", "query": "unit test coverage criteria", "top_k": 3},
    })
}

/// The skill itself and `n - 1` copies with distinct ids (ids are leaked once).
fn registrations(n: usize) -> Vec<&'static SkillRegistration> {
    let template = toolwright::linked_skills()
        .find(|r| r.id == TOOL)
        .expect("the bench skill is linked");
    let copies = (1..n).map(|i| {
        let id: &'static str = Box::leak(format!("{TOOL}_{i:04}").into_boxed_str());
        &*Box::leak(Box::new(SkillRegistration {
            id,
            wire_name: id,
            ..*template
        }))
    });
    std::iter::once(template).chain(copies).collect()
}

fn server(n: usize, page_size: usize) -> McpServer {
    let dispatcher = Dispatcher::builder()
        .skills(registrations(n))
        .build()
        .expect("dispatcher builds");
    let server = McpServer::builder(dispatcher)
        .page_size(page_size)
        .build()
        .expect("server builds");
    assert_eq!(server.tool_count(), n);
    server
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn request(id: u64, method: &str, params: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn initialize_params() -> Value {
    json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "skill-mcp-bench", "version": "0"},
    })
}

/// Checks a response before it is timed: the right id, a result, and what `check` wants.
fn check_response(text: &str, id: u64, check: &dyn Fn(&Value)) {
    // An SSE body carries the response as the last `data:` line.
    let json = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|data| !data.is_empty())
        .unwrap_or(text);
    let message: Value = serde_json::from_str(json).expect("response is JSON");
    assert_eq!(message["id"], id, "{text:.300}");
    assert!(message.get("result").is_some(), "{text:.300}");
    check(&message["result"]);
}

fn list_check(tools: usize, more: bool) -> impl Fn(&Value) {
    move |result: &Value| {
        assert_eq!(result["tools"].as_array().map(Vec::len), Some(tools));
        assert_eq!(result.get("nextCursor").is_some(), more);
    }
}

fn call_check(result: &Value) {
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"]["hits"].as_array().map(Vec::len),
        Some(3)
    );
}

/// Newline-delimited JSON-RPC over an in-memory duplex, the stdio framing.
struct LineClient {
    writer: WriteHalf<DuplexStream>,
    reader: BufReader<ReadHalf<DuplexStream>>,
    line: String,
    next_id: u64,
}

impl LineClient {
    /// Starts `server` on a duplex (on the current runtime) and completes the handshake.
    async fn connect(server: McpServer) -> Self {
        let (client_end, server_end) = tokio::io::duplex(DUPLEX_BYTES);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(async move {
            if let Err(err) = toolwright_mcp::serve_io(server, server_read, server_write).await {
                eprintln!("server ended: {err}");
            }
        });
        Self::handshake(client_end).await
    }

    /// Like [`LineClient::connect`], but the server is handed to rmcp directly, so it
    /// answers `tools/list` with typed tools that rmcp serializes (the way before pages
    /// were written from pre-rendered JSON).
    async fn connect_typed(server: McpServer) -> Self {
        use rmcp::ServiceExt;
        let (client_end, server_end) = tokio::io::duplex(DUPLEX_BYTES);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(async move {
            if let Ok(running) = server.serve((server_read, server_write)).await {
                let _ = running.waiting().await;
            }
        });
        Self::handshake(client_end).await
    }

    async fn handshake(client_end: DuplexStream) -> Self {
        let (read, writer) = tokio::io::split(client_end);
        let mut client = Self {
            writer,
            reader: BufReader::with_capacity(64 << 10, read),
            line: String::new(),
            next_id: 0,
        };
        let id = client.round_trip("initialize", &initialize_params()).await;
        check_response(&client.line, id, &|r| {
            assert_eq!(r["protocolVersion"], "2025-11-25");
        });
        client
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    async fn send(&mut self, message: &Value) {
        let mut bytes = serde_json::to_vec(message).expect("serializable");
        bytes.push(b'\n');
        self.writer.write_all(&bytes).await.expect("writable");
        self.writer.flush().await.expect("flushable");
    }

    /// One request → one response line (left in `self.line`); returns the request id.
    async fn round_trip(&mut self, method: &str, params: &Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&request(id, method, params)).await;
        self.line.clear();
        let read = self
            .reader
            .read_line(&mut self.line)
            .await
            .expect("readable");
        assert!(read > 0, "server closed the stream");
        id
    }
}

/// A legacy-session client of the streamable HTTP endpoint, JSON responses.
struct HttpClient {
    url: String,
    http: reqwest::Client,
    session: Option<String>,
    body: String,
    next_id: u64,
}

impl HttpClient {
    /// Serves `server` on 127.0.0.1 (on the current runtime) through
    /// [`toolwright_mcp::serve_listener`] as shipped, and completes the handshake.
    async fn connect(server: McpServer) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("bound address");
        tokio::spawn(toolwright_mcp::serve_listener(
            listener,
            server,
            HttpOptions::default(),
            std::future::pending(),
        ));
        let mut client = Self {
            url: format!("http://{addr}/mcp"),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .expect("HTTP client"),
            session: None,
            body: String::new(),
            next_id: 0,
        };
        let id = client.round_trip("initialize", &initialize_params()).await;
        check_response(&client.body, id, &|r| {
            assert_eq!(r["protocolVersion"], "2025-11-25");
        });
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let status = client.post(&note).send().await.expect("sent").status();
        assert_eq!(status.as_u16(), 202);
        client
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut req = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(serde_json::to_vec(body).expect("serializable"));
        if let Some(session) = &self.session {
            req = req
                .header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25");
        }
        req
    }

    /// One POST → its whole body (left in `self.body`); returns the request id.
    async fn round_trip(&mut self, method: &str, params: &Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let resp = self
            .post(&request(id, method, params))
            .send()
            .await
            .expect("sent");
        assert_eq!(resp.status().as_u16(), 200);
        if self.session.is_none() {
            self.session = resp
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
        }
        self.body = resp.text().await.expect("body readable");
        id
    }
}

/// A list case: skills served, page size, tools in the first response, more pages or not.
struct ListCase {
    name: &'static str,
    skills: usize,
    page_size: usize,
    tools: usize,
    more: bool,
}

const LIST_CASES: [ListCase; 3] = [
    ListCase {
        name: "16",
        skills: 16,
        page_size: toolwright_mcp::DEFAULT_PAGE_SIZE,
        tools: 16,
        more: false,
    },
    ListCase {
        name: "1000_page",
        skills: 1000,
        page_size: toolwright_mcp::DEFAULT_PAGE_SIZE,
        tools: toolwright_mcp::DEFAULT_PAGE_SIZE,
        more: true,
    },
    ListCase {
        name: "1000_all",
        skills: 1000,
        page_size: 1000,
        tools: 1000,
        more: false,
    },
];

fn bench_duplex(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("duplex");
    for case in &LIST_CASES {
        let mut client = rt.block_on(LineClient::connect(server(case.skills, case.page_size)));
        let params = json!({});
        let id = rt.block_on(client.round_trip("tools/list", &params));
        check_response(&client.line, id, &list_check(case.tools, case.more));
        eprintln!(
            "duplex/tools_list/{}: {} bytes per response",
            case.name,
            client.line.len()
        );
        group.bench_function(format!("tools_list/{}", case.name), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(client.round_trip("tools/list", &params).await);
                    }
                    start.elapsed()
                })
            })
        });
    }
    let mut typed = rt.block_on(LineClient::connect_typed(server(1000, 1000)));
    let params = json!({});
    let id = rt.block_on(typed.round_trip("tools/list", &params));
    check_response(&typed.line, id, &list_check(1000, false));
    group.bench_function("tools_list/1000_all_typed", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(typed.round_trip("tools/list", &params).await);
                }
                start.elapsed()
            })
        })
    });
    let mut client = rt.block_on(LineClient::connect(server(
        16,
        toolwright_mcp::DEFAULT_PAGE_SIZE,
    )));
    let params = call_params();
    let id = rt.block_on(client.round_trip("tools/call", &params));
    check_response(&client.line, id, &call_check);
    eprintln!(
        "duplex/tools_call: {} bytes per response",
        client.line.len()
    );
    group.bench_function("tools_call", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(client.round_trip("tools/call", &params).await);
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

fn bench_http(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("http");
    for case in &LIST_CASES {
        let mut client = rt.block_on(HttpClient::connect(server(case.skills, case.page_size)));
        let params = json!({});
        let id = rt.block_on(client.round_trip("tools/list", &params));
        check_response(&client.body, id, &list_check(case.tools, case.more));
        group.bench_function(format!("tools_list/{}", case.name), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(client.round_trip("tools/list", &params).await);
                    }
                    start.elapsed()
                })
            })
        });
    }
    let mut client = rt.block_on(HttpClient::connect(server(
        16,
        toolwright_mcp::DEFAULT_PAGE_SIZE,
    )));
    let params = call_params();
    let id = rt.block_on(client.round_trip("tools/call", &params));
    check_response(&client.body, id, &call_check);
    group.bench_function("tools_call", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(client.round_trip("tools/call", &params).await);
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

fn bench_render(c: &mut Criterion) {
    let mut group = c.benchmark_group("render");
    let regs = registrations(1000);
    let fresh = || {
        Dispatcher::builder()
            .skills(regs.clone())
            .build()
            .expect("dispatcher builds")
    };
    group.bench_function("build_1000", |b| {
        b.iter_batched(
            fresh,
            |dispatcher| {
                black_box(
                    McpServer::builder(dispatcher)
                        .page_size(1000)
                        .build()
                        .expect("server builds"),
                )
            },
            criterion::BatchSize::SmallInput,
        )
    });
    let rt = runtime();
    group.bench_function("first_list_1000", |b| {
        b.iter_batched(
            fresh,
            |dispatcher| {
                let server = McpServer::builder(dispatcher)
                    .page_size(1000)
                    .build()
                    .expect("server builds");
                rt.block_on(async {
                    let mut client = LineClient::connect(server).await;
                    black_box(client.round_trip("tools/list", &json!({})).await);
                    assert!(client.line.len() > 1_000_000);
                })
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench_duplex, bench_http, bench_render);
criterion_main!(benches);
