//! Streamable HTTP at `/mcp` (axum): JSON or SSE answers, `MCP-Protocol-Version` checked,
//! `Host` and `Origin` allow-lists against DNS rebinding (a foreign `Origin` gets 403), an
//! optional bearer token (401 without it), a request body limit (413), caps on live sessions
//! (overall and per client address, idle ones expire), JSON-RPC errors for what is no valid
//! message, and a bounded graceful shutdown (a request arriving once shutdown began gets 503
//! and a JSON-RPC error; connections still busy after the grace period are dropped).
//!
//! The listener is [`toolwright_http::serve`]: a connection cap and header-read and
//! idle time-outs ([`ConnectionLimits`]).
//!
//! The `Host`/`Origin` and token checks are toolwright's one HTTP guard
//! ([`toolwright_http`], shared with the console; rmcp gets the same allow-lists);
//! this module chooses safe settings and writes pre-rendered `tools/list` pages into the
//! responses.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
pub use tokio_util::sync::CancellationToken;
pub use toolwright_http::ConnectionLimits;
use toolwright_http::HttpGuard;

pub use crate::gate::{
    SessionLimits, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, TOO_MANY_SESSIONS,
};

use crate::pages::Splicer;
use crate::{McpServer, ServeError};

/// JSON-RPC error code of a request refused because the server is shutting down
/// (implementation-defined server error range).
pub const SHUTTING_DOWN: i32 = -32000;

/// Largest request body read to find the id of a request refused during shutdown.
const SHUTDOWN_PEEK_BYTES: usize = 64 << 10;

/// The path the endpoint is mounted at.
pub const MCP_PATH: &str = "/mcp";

/// Settings of the HTTP endpoint. The defaults are for a server on this machine: loopback
/// hosts and origins only, no token, 1 MiB bodies.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The `Host` and `Origin` allow-lists (loopback by default); anything else gets 403.
    pub guard: HttpGuard,
    /// When set, every request needs `Authorization: Bearer <token>` (else 401).
    pub token: Option<String>,
    /// Largest request body accepted (else 413).
    pub max_body_bytes: usize,
    /// Answer single requests with one JSON body instead of an SSE stream where the
    /// protocol lets the server choose.
    pub json_response: bool,
    /// Cancelled on shutdown: open streams end and new requests are refused.
    pub shutdown: CancellationToken,
    /// The listener's connection cap, time-outs and shutdown grace period.
    pub limits: ConnectionLimits,
    /// Caps on live sessions of handshake-era clients.
    pub sessions: SessionLimits,
    /// A session with no message for this long is ended (its client must `initialize`
    /// again); `None` keeps idle sessions for ever.
    pub session_idle: Option<Duration>,
}

/// Default [`HttpOptions::session_idle`]: ten minutes.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(600);

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            guard: HttpGuard::loopback(),
            token: None,
            max_body_bytes: 1 << 20,
            json_response: true,
            shutdown: CancellationToken::new(),
            limits: ConnectionLimits::default(),
            sessions: SessionLimits::default(),
            session_idle: Some(DEFAULT_SESSION_IDLE),
        }
    }
}

impl HttpOptions {
    /// Requires this bearer token on every request.
    #[must_use]
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Sets the request body limit.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }
}

/// An axum router serving `server` at [`MCP_PATH`]; merge it into a larger app or serve it
/// with [`serve_http`].
pub fn router(server: McpServer, options: &HttpOptions) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.guard.allowed_hosts.iter().cloned())
        .with_allowed_origins(options.guard.allowed_origins.iter().cloned())
        .enforce_origin_validation()
        .with_json_response(options.json_response)
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_sse_keep_alive(Some(Duration::from_secs(15)))
        .with_cancellation_token(options.shutdown.child_token());
    let server = server.with_pages();
    let splicer = server.inner.splicer.clone();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = options.session_idle;
    let manager = Arc::new(manager);
    let gate = Arc::new(crate::gate::Gate::new(
        Arc::clone(&manager),
        options.sessions,
        options.max_body_bytes,
    ));
    let service = StreamableHttpService::new(move || Ok(server.clone()), manager, config);
    let router = axum::Router::new()
        .nest_service(MCP_PATH, service)
        .layer(middleware::from_fn_with_state(splicer, write_pages))
        .layer(middleware::from_fn(session_end_no_content))
        .layer(middleware::from_fn_with_state(gate, crate::gate::gate))
        .layer(middleware::from_fn_with_state(
            options.shutdown.clone(),
            refuse_after_shutdown,
        ));
    let router = match &options.token {
        Some(token) => router.layer(middleware::from_fn_with_state(
            Arc::<str>::from(token.as_str()),
            toolwright_http::require_bearer,
        )),
        None => router,
    };
    router.layer(middleware::from_fn_with_state(
        Arc::new(options.guard.clone()),
        toolwright_http::enforce,
    ))
}

/// Serves `server` on `addr` until `shutdown` completes, then stops taking requests, ends
/// open streams and returns once in-flight requests are answered or the grace period
/// ([`ConnectionLimits::shutdown_grace`]) is over.
///
/// A non-loopback address is refused without a token: the endpoint runs skills.
pub async fn serve_http(
    addr: SocketAddr,
    server: McpServer,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    check_exposure(addr, &options)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    serve_listener(listener, server, options, shutdown).await
}

/// Like [`serve_http`] on an already bound listener (for example one bound to port 0, whose
/// address the caller wants to print first).
pub async fn serve_listener(
    listener: tokio::net::TcpListener,
    server: McpServer,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let local = listener.local_addr()?;
    check_exposure(local, &options)?;
    tracing::info!(%local, tools = server.tool_count(), "serving MCP over HTTP at {MCP_PATH}");
    let app = router(server, &options);
    let token = options.shutdown.clone();
    toolwright_http::serve(listener, app, options.limits, async move {
        tokio::select! {
            () = shutdown => {}
            () = token.cancelled() => {}
        }
        tracing::info!("MCP HTTP server shutting down");
        token.cancel();
    })
    .await?;
    tracing::info!("MCP HTTP server stopped");
    Ok(())
}

/// Refuses to expose the endpoint beyond this machine without a token, and a token that is
/// blank or shorter than [`toolwright_http::MIN_TOKEN_CHARS`].
pub fn check_exposure(addr: SocketAddr, options: &HttpOptions) -> Result<(), ServeError> {
    if let Some(token) = &options.token {
        toolwright_http::check_token(token)
            .map_err(|why| ServeError::Config(format!("the bearer token is refused: {why}")))?;
    }
    if !addr.ip().is_loopback() && options.token.is_none() {
        return Err(ServeError::Config(format!(
            "refusing to serve on {addr} without a token: bind a loopback address or set one"
        )));
    }
    Ok(())
}

/// rmcp answers a session's `DELETE` with 202; clients expect 200 or 204 there (the Python
/// SDK logs a failed termination otherwise), and nothing is pending after the session ended.
async fn session_end_no_content(request: Request, next: Next) -> Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let response = next.run(request).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        return StatusCode::NO_CONTENT.into_response();
    }
    response
}

/// Writes the pre-rendered page into a `tools/list` answer (JSON body or SSE event).
async fn write_pages(State(splicer): State<Splicer>, request: Request, next: Next) -> Response {
    use futures_util::StreamExt;
    let response = next.run(request).await;
    let kind = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if kind.starts_with("application/json") {
        let (mut parts, body) = response.into_parts();
        let bytes = match axum::body::to_bytes(body, usize::MAX).await {
            Ok(bytes) => bytes,
            Err(err) => {
                tracing::warn!(error = %err, "MCP response body not read");
                return StatusCode::INTERNAL_SERVER_ERROR.into_response();
            }
        };
        let Some(pieces) = splicer.splice(&bytes) else {
            return Response::from_parts(parts, Body::from(bytes));
        };
        parts.headers.remove(header::CONTENT_LENGTH);
        Response::from_parts(parts, Body::from(concat(pieces)))
    } else if kind.starts_with("text/event-stream") {
        let (parts, body) = response.into_parts();
        let events = body.into_data_stream().map(move |chunk| {
            chunk.map(|bytes| match splicer.splice(&bytes) {
                Some(pieces) => concat(pieces),
                None => bytes,
            })
        });
        Response::from_parts(parts, Body::from_stream(events))
    } else {
        response
    }
}

fn concat(pieces: [bytes::Bytes; 3]) -> bytes::Bytes {
    let mut out = bytes::BytesMut::with_capacity(pieces.iter().map(bytes::Bytes::len).sum());
    for piece in &pieces {
        out.extend_from_slice(piece);
    }
    out.freeze()
}

/// Once shutdown began, answers every request with 503 and a JSON-RPC error naming the
/// request's id, so a client learns at once instead of waiting on a closing server.
async fn refuse_after_shutdown(
    State(shutdown): State<CancellationToken>,
    request: Request,
    next: Next,
) -> Response {
    if !shutdown.is_cancelled() {
        return next.run(request).await;
    }
    let id = if request.method() == axum::http::Method::POST {
        axum::body::to_bytes(request.into_body(), SHUTDOWN_PEEK_BYTES)
            .await
            .ok()
            .and_then(|body| serde_json::from_slice::<serde_json::Value>(&body).ok())
            .and_then(|message| message.get("id").cloned())
            .filter(|id| id.is_string() || id.is_number())
            .unwrap_or(serde_json::Value::Null)
    } else {
        serde_json::Value::Null
    };
    tracing::info!(%id, "MCP request refused: shutting down");
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": SHUTTING_DOWN,
            "message": "the server is shutting down; send the request again once it is back",
        },
    });
    let mut response = (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
