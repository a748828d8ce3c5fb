//! Trace context through MCP: a client's span, sent as `_meta.traceparent` /
//! `_meta.tracestate` with a `tools/call`, is the parent of the server's `tools/call` span,
//! which is the parent of the span the skill opens itself: one trace, read back from an
//! in-memory OpenTelemetry exporter. Over the stdio framing and HTTP, in both eras; a
//! malformed `traceparent` is a JSON-RPC error that says what was expected.
//!
//! A binary of its own: its skill joins the link-time registry, which the shared binary
//! (`tests/it`) asserts alone, and span callsites first hit on another test's thread (with
//! no subscriber) could be cached as disabled for this one.

// Shared with `mcp.rs`.
#[allow(dead_code)]
#[path = "support/schema.rs"]
mod schema;
// Shared with `mcp.rs`.
#[allow(dead_code)]
#[path = "support/wire.rs"]
mod wire;

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanId, TraceContextExt, TraceId, TracerProvider as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::{Dispatcher, SkillContext, ToolFilter};
use toolwright_mcp::{HttpOptions, McpServer};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;

use schema::Era;
use wire::{HttpClient, LineClient};

toolwright::link_skills!(toolwright);

/// Looks a key up, in a span of its own (what a skill that traces its work does).
#[skill(id = "traced_lookup", category = "query", domain = "trace")]
pub fn traced_lookup(
    /// The key to look up.
    key: String,
) -> String {
    let _work = tracing::info_span!("traced_lookup.work", key = %key).entered();
    tracing::info!("looking up");
    key.to_uppercase()
}

/// The exporter every span of this test binary goes to (one global subscriber: the server
/// answers on other tasks and threads).
fn exporter() -> &'static InMemorySpanExporter {
    static EXPORTER: OnceLock<InMemorySpanExporter> = OnceLock::new();
    EXPORTER.get_or_init(|| {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("trace-test"));
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::set_global_default(subscriber).expect("one global subscriber");
        // Kept for the life of the process.
        std::mem::forget(provider);
        exporter
    })
}

fn server() -> McpServer {
    McpServer::builder(Dispatcher::from_inventory().expect("valid registry"))
        .context(SkillContext::new())
        .filter(ToolFilter::all().ids(["traced_lookup"]))
        .build()
        .expect("server builds")
}

/// A client span, and the `_meta` that carries it (traceparent and a tracestate).
fn client_span(name: &'static str) -> (tracing::Span, Value) {
    exporter();
    let span = tracing::info_span!("client.request", case = name);
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&span.context(), &mut carrier);
    assert!(carrier.contains_key("traceparent"), "{carrier:?}");
    let meta = json!({
        "traceparent": carrier["traceparent"],
        "tracestate": "vendor=client-state",
    });
    (span, meta)
}

fn ids(span: &tracing::Span) -> (TraceId, SpanId) {
    let cx = span.context();
    let otel = cx.span();
    let sc = otel.span_context();
    (sc.trace_id(), sc.span_id())
}

/// Waits (up to five seconds) for the exported span named `name` in trace `trace`.
fn exported(trace: TraceId, name: &str) -> SpanData {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let spans = exporter().get_finished_spans().expect("exporter readable");
        if let Some(span) = spans
            .into_iter()
            .find(|s| s.span_context.trace_id() == trace && s.name == name)
        {
            return span;
        }
        assert!(
            Instant::now() < deadline,
            "no span `{name}` in trace {trace}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The one trace: client span → server `tools/call` span → the skill's span.
fn assert_one_trace(client: &tracing::Span, what: &str) {
    let (trace, client_id) = ids(client);
    assert_ne!(
        trace,
        TraceId::INVALID,
        "{what}: the client span is recorded"
    );
    let call = exported(trace, "tools/call traced_lookup");
    assert_eq!(
        call.parent_span_id, client_id,
        "{what}: parent is the client"
    );
    assert_eq!(
        call.span_kind,
        opentelemetry::trace::SpanKind::Server,
        "{what}"
    );
    assert_eq!(
        call.span_context.trace_state().get("vendor"),
        Some("client-state"),
        "{what}: tracestate carried"
    );
    let attribute = |span: &SpanData, key: &str| {
        span.attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.to_string())
    };
    assert_eq!(
        attribute(&call, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(
        attribute(&call, "gen_ai.tool.name").as_deref(),
        Some("traced_lookup")
    );
    let work = exported(trace, "traced_lookup.work");
    assert_eq!(
        work.parent_span_id,
        call.span_context.span_id(),
        "{what}: the skill's span is under the call"
    );
}

fn call_params(meta: Value) -> Value {
    json!({"name": "traced_lookup", "arguments": {"key": "ab"}, "_meta": meta})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_from_the_client_through_the_call_to_the_skill_over_stdio() {
    for era in [Era::Legacy, Era::Modern] {
        let (span, meta) = client_span("stdio");
        let mut client = LineClient::connect(server(), era, json!({})).await;
        let answer = client.request("tools/call", call_params(meta)).await;
        assert_eq!(
            answer["result"]["structuredContent"],
            json!({"result": "AB"}),
            "{answer}"
        );
        assert_one_trace(&span, &format!("stdio {era:?}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_from_the_client_through_the_call_to_the_skill_over_http() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let options = HttpOptions::default();
    let shutdown = options.shutdown.clone();
    tokio::spawn(toolwright_mcp::serve_listener(
        listener,
        server(),
        options,
        std::future::pending(),
    ));
    for era in [Era::Legacy, Era::Modern] {
        let (span, meta) = client_span("http");
        let mut client = HttpClient::new(url.clone(), era, None);
        if era == Era::Legacy {
            client.initialize().await;
        }
        let exchange = client.request("tools/call", call_params(meta)).await;
        assert_eq!(exchange.status, 200, "{}", exchange.body);
        assert_eq!(
            exchange.response()["result"]["structuredContent"],
            json!({"result": "AB"}),
            "{}",
            exchange.body
        );
        assert_one_trace(&span, &format!("http {era:?}"));
    }
    shutdown.cancel();
}

#[tokio::test]
async fn a_malformed_traceparent_is_refused_with_what_was_expected() {
    exporter();
    for era in [Era::Legacy, Era::Modern] {
        let mut client = LineClient::connect(server(), era, json!({})).await;
        let answer = client
            .request(
                "tools/call",
                call_params(json!({"traceparent": "00-not-a-trace-01"})),
            )
            .await;
        let error = &answer["error"];
        assert_eq!(error["code"], -32602, "{answer}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("00-not-a-trace-01"), "{message}");
        assert!(
            message.contains("expected 00-<32 lowercase hex trace id"),
            "{message}"
        );
        // Other requests read it too.
        let answer = client
            .request("tools/list", json!({"_meta": {"traceparent": 7}}))
            .await;
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
}
