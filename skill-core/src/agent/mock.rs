//! A local OpenAI-compatible model server with a fixed latency and a log of every request,
//! for tests and benchmarks of code that talks to a model over HTTP (feature `mock-model`).
//!
//! It runs on its own thread and runtime, so it serves synchronous tests, `#[tokio::test]`s
//! and criterion benches alike without competing with the runtime under test, and stops
//! when dropped.
//!
//! ```no_run
//! use std::time::Duration;
//! use toolwright::agent::mock::MockModel;
//! use toolwright::agent::{ChatMessage, LlmClient, OpenAiClient, OpenAiConfig};
//!
//! // Every conversation: one round calling `lookup`, then a final answer; 10 ms a request.
//! let model = MockModel::react(Duration::from_millis(10), 1, "lookup", "[]").unwrap();
//! let client = OpenAiClient::new(OpenAiConfig::new(model.base_url(), "mock")).unwrap();
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let first = client.chat_with_tools(&[ChatMessage::user("go")], &[], 0.0).await.unwrap();
//! assert_eq!(first.tool_calls[0].name, "lookup");
//! # });
//! assert_eq!(model.log().len(), 1);
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::tools::ToolCall;

/// One request as the script sees it.
#[derive(Debug, Clone)]
pub struct MockRequest {
    /// Arrival number, from 0.
    pub index: usize,
    /// The request body (`null` when it was not JSON).
    pub body: Value,
}

impl MockRequest {
    /// How many tool results the conversation carries (tool rounds already made).
    pub fn tool_results(&self) -> usize {
        self.messages()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("tool"))
            .count()
    }

    /// Whether tools were offered with this request.
    pub fn offers_tools(&self) -> bool {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty())
    }

    /// The text of the first user message (where a task usually names what it is about).
    pub fn user_text(&self) -> String {
        self.messages()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }

    fn messages(&self) -> impl Iterator<Item = &Value> {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    }
}

/// What the model answers.
#[derive(Debug, Clone)]
pub enum MockAnswer {
    /// An assistant turn calling these tools.
    ToolCalls(Vec<ToolCall>),
    /// An assistant turn with this text and no tool calls.
    Text(String),
    /// An HTTP error with an OpenAI-style error body, and a `Retry-After` when given.
    Status {
        /// The status (429, 500, ...).
        status: u16,
        /// Sent as `retry-after` in (fractional) seconds.
        retry_after: Option<Duration>,
    },
}

/// Token counts the answer reports in `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MockUsage {
    /// `prompt_tokens`.
    pub prompt: u64,
    /// `completion_tokens`.
    pub completion: u64,
    /// `prompt_tokens_details.cached_tokens`, left out when `None`.
    pub cached: Option<u64>,
}

/// The script's reply to one request.
#[derive(Debug, Clone)]
pub struct MockReply {
    /// How long the server waits before answering.
    pub delay: Duration,
    /// The answer.
    pub answer: MockAnswer,
    /// Token usage reported with a successful answer (no `usage` when `None`).
    pub usage: Option<MockUsage>,
}

/// One request in the server's log.
#[derive(Debug, Clone)]
pub struct MockLogEntry {
    /// Arrival number, from 0.
    pub index: usize,
    /// When it arrived, from the server's start.
    pub started: Duration,
    /// When the answer was sent, from the server's start; `None` when the client went
    /// away first (the request was dropped).
    pub finished: Option<Duration>,
    /// The status answered.
    pub status: u16,
    /// The first user message.
    pub user: String,
    /// Tool results in the conversation.
    pub tool_results: usize,
    /// Whether tools were offered.
    pub offered_tools: bool,
}

type Script = dyn Fn(&MockRequest) -> MockReply + Send + Sync;

struct Shared {
    script: Box<Script>,
    epoch: Instant,
    arrivals: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    log: Mutex<Vec<MockLogEntry>>,
}

/// A running mock model; stops when dropped.
pub struct MockModel {
    shared: Arc<Shared>,
    addr: std::net::SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for MockModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockModel")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl MockModel {
    /// Starts a server on `127.0.0.1` answering `POST /v1/chat/completions` with whatever
    /// `script` replies for each request.
    pub fn start(
        script: impl Fn(&MockRequest) -> MockReply + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            script: Box::new(script),
            epoch: Instant::now(),
            arrivals: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            log: Mutex::new(Vec::new()),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let state = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("mock-model".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(err) => {
                            tracing::error!(error = %err, "mock model cannot listen");
                            return;
                        }
                    };
                    let app = axum::Router::new()
                        .route("/v1/chat/completions", axum::routing::post(answer))
                        .with_state(state);
                    // Stop at once, open connections included: a client keeping its pool
                    // open must not keep the server alive (the runtime's drop ends them).
                    tokio::select! {
                        result = axum::serve(listener, app) => {
                            if let Err(err) = result {
                                tracing::error!(error = %err, "mock model stopped");
                            }
                        }
                        _ = stop => {}
                    }
                });
            })?;
        Ok(Self {
            shared,
            addr,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The usual ReAct conversation: while the conversation has fewer than `tool_rounds`
    /// rounds of tool results the model calls `tool` (arguments `{}`), then it answers
    /// `final_text`; every request takes `latency`. Usage: a quarter of the request's
    /// bytes as prompt tokens, 20 completion tokens, no cache report.
    pub fn react(
        latency: Duration,
        tool_rounds: usize,
        tool: &str,
        final_text: &str,
    ) -> std::io::Result<Self> {
        let tool = tool.to_string();
        let final_text = final_text.to_string();
        Self::start(move |req| MockReply {
            delay: latency,
            answer: react_answer(req, tool_rounds, &tool, &final_text),
            usage: Some(MockUsage {
                prompt: req.body.to_string().len() as u64 / 4,
                completion: 20,
                cached: None,
            }),
        })
    }

    /// Base URL for an OpenAI-compatible client: `http://127.0.0.1:{port}/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn log(&self) -> Vec<MockLogEntry> {
        let mut log = self
            .shared
            .log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        log.sort_by_key(|e| e.index);
        log
    }

    /// Requests received so far.
    pub fn requests(&self) -> usize {
        self.shared.arrivals.load(Ordering::SeqCst)
    }

    /// Requests being answered right now.
    pub fn in_flight(&self) -> usize {
        self.shared.in_flight.load(Ordering::SeqCst)
    }

    /// The most requests that were being answered at the same time.
    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        if let Some(stop) = self.shutdown.take() {
            stop.send(()).ok();
        }
        if let Some(thread) = self.thread.take() {
            thread.join().ok();
        }
    }
}

/// The answer of [`MockModel::react`]'s script: `tool` while fewer than `tool_rounds` tool
/// results came back (and tools are offered), then `final_text`.
pub fn react_answer(
    req: &MockRequest,
    tool_rounds: usize,
    tool: &str,
    final_text: &str,
) -> MockAnswer {
    let round = req.tool_results();
    if round < tool_rounds && req.offers_tools() {
        MockAnswer::ToolCalls(vec![ToolCall {
            id: format!("call_{}", round + 1),
            name: tool.to_string(),
            arguments: "{}".into(),
        }])
    } else {
        MockAnswer::Text(final_text.to_string())
    }
}

/// Counts a request in flight until dropped; records its end in the log.
struct InFlight<'a> {
    shared: &'a Shared,
    entry: MockLogEntry,
    done: bool,
}

impl InFlight<'_> {
    fn finish(mut self, status: u16) {
        self.entry.status = status;
        self.entry.finished = Some(self.shared.epoch.elapsed());
        self.done = true;
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.shared.in_flight.fetch_sub(1, Ordering::SeqCst);
        if !self.done {
            tracing::debug!(
                index = self.entry.index,
                "mock model: client went away mid-request"
            );
        }
        self.shared
            .log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(self.entry.clone());
    }
}

async fn answer(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let index = shared.arrivals.fetch_add(1, Ordering::SeqCst);
    let request = MockRequest {
        index,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let guard = InFlight {
        shared: &shared,
        entry: MockLogEntry {
            index,
            started: shared.epoch.elapsed(),
            finished: None,
            status: 0,
            user: request.user_text(),
            tool_results: request.tool_results(),
            offered_tools: request.offers_tools(),
        },
        done: false,
    };
    let reply = (shared.script)(&request);
    tokio::time::sleep(reply.delay).await;
    let response = render(index, &reply);
    guard.finish(response.status().as_u16());
    response
}

fn render(index: usize, reply: &MockReply) -> Response {
    let message = match &reply.answer {
        MockAnswer::Status {
            status,
            retry_after,
        } => {
            let code = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let body =
                json!({"error": {"message": format!("mock status {status}"), "type": "mock"}});
            let mut response = json_response(code, &body);
            if let Some(wait) = retry_after {
                if let Ok(value) = HeaderValue::from_str(&format!("{}", wait.as_secs_f64())) {
                    response.headers_mut().insert("retry-after", value);
                }
            }
            return response;
        }
        MockAnswer::ToolCalls(calls) => json!({
            "role": "assistant",
            "content": null,
            "tool_calls": calls.iter().map(|c| json!({
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments}
            })).collect::<Vec<_>>()
        }),
        MockAnswer::Text(text) => json!({"role": "assistant", "content": text}),
    };
    let mut body = json!({
        "id": format!("chatcmpl-mock-{index}"),
        "object": "chat.completion",
        "model": "mock-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    });
    if let Some(usage) = reply.usage {
        let mut u = json!({
            "prompt_tokens": usage.prompt,
            "completion_tokens": usage.completion,
            "total_tokens": usage.prompt + usage.completion,
        });
        if let Some(cached) = usage.cached {
            u["prompt_tokens_details"] = json!({ "cached_tokens": cached });
        }
        body["usage"] = u;
    }
    json_response(StatusCode::OK, &body)
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}
