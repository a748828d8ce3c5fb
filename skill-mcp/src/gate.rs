//! What every JSON-RPC message passes before rmcp reads it, on both transports: bytes that
//! are no JSON get -32700, a batch or a message that is no request object -32600, a
//! `tools/call` whose `arguments` is not an object -32602 naming `params.arguments`.
//!
//! Over HTTP ([`gate`]) also: new sessions are counted against the server's cap and the
//! client's, a request reusing the id of one still in progress in its session is refused
//! (-32600), and `DELETE` of a session the server does not have is 404.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{json, Value};

/// JSON-RPC: the text is not JSON.
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC: the JSON is not a valid request (a batch, a duplicate id in flight).
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC: the method's parameters are not valid.
pub const INVALID_PARAMS: i32 = -32602;
/// Server error: too many sessions (implementation-defined range).
pub const TOO_MANY_SESSIONS: i32 = -32001;

/// The session header of streamable HTTP.
const SESSION_HEADER: &str = "mcp-session-id";

/// Why a message is refused before rmcp reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    /// The JSON-RPC error code.
    pub code: i32,
    /// What is wrong, where, and what was expected.
    pub message: String,
    /// The request's id when it could be read, else null.
    pub id: Value,
}

impl Refusal {
    fn new(code: i32, message: impl Into<String>, id: Value) -> Self {
        Self {
            code,
            message: message.into(),
            id,
        }
    }

    /// A request whose id is that of one still in progress (answered without an id, so the
    /// client cannot take it for the first request's answer).
    pub fn duplicate_id(id: &Value) -> Self {
        Self::new(
            INVALID_REQUEST,
            format!(
                "invalid request: a request with id {id} is still in progress; give each request its own id"
            ),
            Value::Null,
        )
    }

    /// A stdio line longer than `max` bytes.
    pub fn line_too_long(max: usize) -> Self {
        Self::new(
            INVALID_REQUEST,
            format!("invalid request: the line is longer than {max} bytes; send smaller messages (contracts by clause id)"),
            Value::Null,
        )
    }

    /// The JSON-RPC error answer; without an id when none could be read (MCP's schema
    /// leaves it out rather than sending null).
    pub fn to_json(&self) -> Value {
        let mut answer = json!({
            "jsonrpc": "2.0",
            "error": {"code": self.code, "message": self.message},
        });
        if !self.id.is_null() {
            answer["id"] = self.id.clone();
        }
        answer
    }

    /// The HTTP status it is sent with.
    fn status(&self) -> StatusCode {
        match self.code {
            TOO_MANY_SESSIONS => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

/// Reads one message and refuses what rmcp would misreport: text that is no JSON, a batch
/// (MCP since 2025-06-18 has none), anything but a JSON object, an id that is neither a
/// string nor a number, and `tools/call` arguments that are not an object.
pub(crate) fn screen(bytes: &[u8]) -> Result<Value, Refusal> {
    let message: Value = serde_json::from_slice(bytes).map_err(|err| {
        Refusal::new(
            PARSE_ERROR,
            format!(
                "parse error: the message is not JSON ({err}); expected one JSON-RPC 2.0 object"
            ),
            Value::Null,
        )
    })?;
    let Some(object) = message.as_object() else {
        let what = if message.is_array() {
            "a batch (a JSON array); MCP takes one JSON-RPC message per request or line, so send them one by one"
        } else {
            "not a JSON-RPC 2.0 object"
        };
        return Err(Refusal::new(
            INVALID_REQUEST,
            format!("invalid request: the message is {what}"),
            Value::Null,
        ));
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    if !(id.is_null() || id.is_string() || id.is_number()) {
        return Err(Refusal::new(
            INVALID_REQUEST,
            format!(
                "invalid request: `id` must be a string or a number, got {}",
                kind(&id)
            ),
            Value::Null,
        ));
    }
    // A message with an id is a request and is answered; rmcp would read one whose method
    // names a notification as that notification and answer nothing.
    if let Some(method) = object.get("method").and_then(Value::as_str) {
        if !id.is_null() && method.starts_with("notifications/") {
            return Err(Refusal::new(
                INVALID_REQUEST,
                format!(
                    "invalid request: `{method}` is a notification and takes no `id`; send it without one, or send a request"
                ),
                id,
            ));
        }
    }
    if object.get("method").and_then(Value::as_str) == Some("tools/call") {
        match object.get("params") {
            None | Some(Value::Object(_)) => {}
            Some(other) => {
                return Err(Refusal::new(
                    INVALID_PARAMS,
                    format!(
                        "invalid params: `params` must be an object, got {}",
                        kind(other)
                    ),
                    id,
                ))
            }
        }
        if let Some(arguments) = object.get("params").and_then(|p| p.get("arguments")) {
            if !(arguments.is_object() || arguments.is_null()) {
                return Err(Refusal::new(
                    INVALID_PARAMS,
                    format!(
                        "invalid params: `params.arguments` must be a JSON object of the tool's arguments, got {}",
                        kind(arguments)
                    ),
                    id,
                ));
            }
        }
    }
    Ok(message)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string (send the object itself, not its JSON text)",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Limits on the sessions of handshake-era clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Most sessions alive at once; another `initialize` gets 503 and error -32001.
    pub max_sessions: usize,
    /// Most sessions alive at once from one client address.
    pub max_sessions_per_client: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_sessions: 256,
            max_sessions_per_client: 16,
        }
    }
}

/// The HTTP gate's state: the session manager (to count and find sessions), who opened
/// each session, and the request ids in progress per session.
pub(crate) struct Gate {
    pub sessions: Arc<LocalSessionManager>,
    pub limits: SessionLimits,
    pub max_body_bytes: usize,
    book: Mutex<Book>,
}

#[derive(Default)]
struct Book {
    /// Session id → the client address that opened it.
    owners: HashMap<String, Option<IpAddr>>,
    /// `initialize` requests under way, per client (counted before their session exists).
    opening: HashMap<Option<IpAddr>, usize>,
    /// (session, request id as JSON text) of requests whose answer is not yet sent.
    in_flight: HashSet<(String, String)>,
}

impl Gate {
    pub fn new(
        sessions: Arc<LocalSessionManager>,
        limits: SessionLimits,
        max_body_bytes: usize,
    ) -> Self {
        Self {
            sessions,
            limits,
            max_body_bytes,
            book: Mutex::new(Book::default()),
        }
    }

    fn book(&self) -> std::sync::MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reserves room for one more session of `client`, or says why there is none.
    async fn reserve(&self, client: Option<IpAddr>, id: &Value) -> Result<(), Refusal> {
        let live: HashSet<String> = self
            .sessions
            .sessions
            .read()
            .await
            .keys()
            .map(|k| k.to_string())
            .collect();
        let mut book = self.book();
        book.owners.retain(|session, _| live.contains(session));
        let opening_all: usize = book.opening.values().sum();
        let total = live.len() + opening_all;
        if total >= self.limits.max_sessions {
            return Err(Refusal::new(
                TOO_MANY_SESSIONS,
                format!(
                    "too many MCP sessions: the server keeps at most {} at once; end one (DELETE /mcp) or retry once idle ones expire",
                    self.limits.max_sessions
                ),
                id.clone(),
            ));
        }
        let mine = book.owners.values().filter(|o| **o == client).count()
            + book.opening.get(&client).copied().unwrap_or(0);
        if mine >= self.limits.max_sessions_per_client {
            return Err(Refusal::new(
                TOO_MANY_SESSIONS,
                format!(
                    "too many MCP sessions from this client: at most {} at once; end one (DELETE /mcp) or reuse it",
                    self.limits.max_sessions_per_client
                ),
                id.clone(),
            ));
        }
        *book.opening.entry(client).or_default() += 1;
        Ok(())
    }

    /// The reservation is over: the session was opened (`Some`) or not.
    fn opened(&self, client: Option<IpAddr>, session: Option<String>) {
        let mut book = self.book();
        if let Some(n) = book.opening.get_mut(&client) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                book.opening.remove(&client);
            }
        }
        if let Some(session) = session {
            book.owners.insert(session, client);
        }
    }
}

/// Forgets a request id once its answer is sent (or dropped).
struct InFlight {
    gate: Arc<Gate>,
    key: Option<(String, String)>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.gate.book().in_flight.remove(&key);
        }
    }
}

/// Middleware in front of rmcp's endpoint: see the module documentation.
pub(crate) async fn gate(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if request.method() == Method::DELETE {
        if let Some(session) = &session {
            let known = gate
                .sessions
                .sessions
                .read()
                .await
                .contains_key(session.as_str());
            if !known {
                return (
                    StatusCode::NOT_FOUND,
                    format!("no MCP session `{session}` here (it ended, expired or never was)\n"),
                )
                    .into_response();
            }
        }
        return next.run(request).await;
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, gate.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return refuse_with(
                StatusCode::PAYLOAD_TOO_LARGE,
                &Refusal::new(
                    INVALID_REQUEST,
                    format!(
                        "the request body is larger than the limit of {} bytes",
                        gate.max_body_bytes
                    ),
                    Value::Null,
                ),
            )
        }
    };
    let message = match screen(&bytes) {
        Ok(message) => message,
        Err(why) => {
            tracing::info!(code = why.code, message = %why.message, "MCP message refused");
            return refuse(&why);
        }
    };
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let method = message.get("method").and_then(Value::as_str);
    let is_request = method.is_some() && !id.is_null();
    let request = Request::from_parts(parts, Body::from(bytes));
    match (&session, method) {
        (None, Some("initialize")) => {
            if let Err(why) = gate.reserve(client, &id).await {
                tracing::warn!(?client, message = %why.message, "MCP session refused");
                return refuse(&why);
            }
            let response = next.run(request).await;
            let opened = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            gate.opened(client, opened);
            response
        }
        (Some(session), Some(_)) if is_request => {
            let key = (session.clone(), id.to_string());
            if !gate.book().in_flight.insert(key.clone()) {
                return refuse(&Refusal::duplicate_id(&id));
            }
            let guard = InFlight {
                gate: Arc::clone(&gate),
                key: Some(key),
            };
            let response = next.run(request).await;
            let (parts, body) = response.into_parts();
            // The id is free again once the answer has been sent (or given up).
            let body = Body::from_stream(futures_util::StreamExt::map(
                body.into_data_stream(),
                move |chunk| {
                    let _ = &guard;
                    chunk
                },
            ));
            Response::from_parts(parts, body)
        }
        _ => next.run(request).await,
    }
}

fn refuse(why: &Refusal) -> Response {
    refuse_with(why.status(), why)
}

fn refuse_with(status: StatusCode, why: &Refusal) -> Response {
    let mut response = (status, why.to_json().to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_method_with_an_id_is_answered_as_an_invalid_request() {
        // Two `method` keys: the last wins, as serde reads it, and names a notification.
        let refused = screen(
            br#"{"jsonrpc":"2.0","id":3,"method":"4.0","method":"notifications/cancelled","params":{}}"#,
        )
        .unwrap_err();
        assert_eq!(refused.code, INVALID_REQUEST);
        assert_eq!(refused.id, json!(3));
        assert!(
            refused.message.contains("takes no `id`"),
            "{}",
            refused.message
        );
        assert!(
            screen(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#).is_ok()
        );
        assert!(
            screen(br#"{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}"#).is_ok()
        );
    }

    #[test]
    fn screening_names_the_error_and_keeps_the_id() {
        let bad = screen(b"{not json").unwrap_err();
        assert_eq!(bad.code, PARSE_ERROR);
        assert_eq!(bad.id, Value::Null);
        let batch = screen(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap_err();
        assert_eq!(batch.code, INVALID_REQUEST);
        assert!(batch.message.contains("batch"), "{}", batch.message);
        assert_eq!(screen(b"42").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(
            screen(br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#)
                .unwrap_err()
                .code,
            INVALID_REQUEST
        );
        let text_args = screen(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":"{\"a\":1}"}}"#,
        )
        .unwrap_err();
        assert_eq!(text_args.code, INVALID_PARAMS);
        assert_eq!(text_args.id, json!(7));
        assert!(
            text_args.message.contains("params.arguments")
                && text_args.message.contains("a string"),
            "{}",
            text_args.message
        );
        let bad_params =
            screen(br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":[1]}"#)
                .unwrap_err();
        assert_eq!(bad_params.code, INVALID_PARAMS);
        assert_eq!(bad_params.id, json!("a"));
        assert!(screen(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}"#
        )
        .is_ok());
        assert!(screen(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_ok());
    }
}
