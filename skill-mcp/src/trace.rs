//! Trace context in: a request's `_meta.traceparent` / `_meta.tracestate` (W3C Trace
//! Context, the 2026-07-28 convention) becomes the parent of the span the server opens for
//! the request, so a host sees the tool call, and the skill's own spans under it, inside its
//! own trace. Read with OpenTelemetry's `TraceContextPropagator`; the spans reach an
//! exporter through the host's `tracing-opentelemetry` layer (without one they are plain
//! `tracing` spans).

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use rmcp::model::RequestMetaObject;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{json, Value};
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The `_meta` keys of the trace context.
const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

/// What a valid `traceparent` looks like, for error messages.
const EXPECTED: &str = "00-<32 lowercase hex trace id, not all zero>-<16 lowercase hex parent span id, not all zero>-<2 hex flags>";

/// The caller's trace context, when the request carries one; an error naming the value and
/// the expected form when `traceparent` is there but is not a W3C traceparent. A
/// `tracestate` that cannot be read is dropped (as W3C Trace Context says), keeping the
/// parent.
pub(crate) fn remote_parent(
    meta: &RequestMetaObject,
) -> Result<Option<opentelemetry::Context>, McpError> {
    let Some(value) = meta.0 .0.get(TRACEPARENT) else {
        return Ok(None);
    };
    let Some(traceparent) = value.as_str() else {
        return Err(bad_traceparent(value));
    };
    let mut carrier = HashMap::from([(TRACEPARENT.to_string(), traceparent.to_string())]);
    match meta.0 .0.get(TRACESTATE) {
        None => {}
        Some(Value::String(state)) => {
            carrier.insert(TRACESTATE.to_string(), state.clone());
        }
        Some(other) => {
            return Err(McpError::invalid_params(
                format!("_meta.tracestate is {other}; expected a W3C tracestate string (vendor=value pairs separated by commas)"),
                Some(json!({ "tracestate": other })),
            ));
        }
    }
    let context = TraceContextPropagator::new().extract(&carrier);
    let span_context = context.span().span_context().clone();
    // The propagator answers an empty context for anything it cannot read; a version the
    // spec reserves (`ff`) or trailing fields of version 00 are refused there too.
    if !span_context.is_valid() || !span_context.is_remote() {
        return Err(bad_traceparent(value));
    }
    if carrier.contains_key(TRACESTATE) && span_context.trace_state().header().is_empty() {
        let state = &carrier[TRACESTATE];
        if !state.trim().is_empty() {
            tracing::warn!(tracestate = %state, "unreadable _meta.tracestate dropped; the traceparent is kept");
        }
    }
    Ok(Some(context))
}

fn bad_traceparent(value: &Value) -> McpError {
    McpError::invalid_params(
        format!("_meta.traceparent {value} is not a W3C traceparent; expected {EXPECTED}"),
        Some(json!({ "traceparent": value, "expected": EXPECTED })),
    )
}

/// The span of one request: named `<method> <target>` (OpenTelemetry's MCP conventions),
/// a server span, the child of the caller's span when the request carries a trace context.
pub(crate) fn request_span(
    method: &'static str,
    target: Option<&str>,
    cx: &RequestContext<RoleServer>,
) -> Result<tracing::Span, McpError> {
    let parent = remote_parent(&cx.meta)?;
    let name = match target {
        Some(target) => format!("{method} {target}"),
        None => method.to_string(),
    };
    let span = tracing::info_span!(
        target: "toolwright::mcp",
        "mcp.request",
        otel.name = %name,
        otel.kind = "server",
        mcp.method.name = method,
        jsonrpc.request.id = %cx.id,
        gen_ai.operation.name = tracing::field::Empty,
        gen_ai.tool.name = tracing::field::Empty,
    );
    if method == "tools/call" {
        // OpenTelemetry's GenAI conventions for a tool's execution.
        span.record("gen_ai.operation.name", "execute_tool");
        if let Some(tool) = target {
            span.record("gen_ai.tool.name", tool);
        }
    }
    if let Some(parent) = parent {
        if let Err(err) = span.set_parent(parent) {
            // No OpenTelemetry layer in this process: there is no trace to continue.
            tracing::trace!(error = %err, "trace context not attached");
        }
    }
    Ok(span)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(value: Value) -> RequestMetaObject {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_w3c_traceparent_is_read_with_its_tracestate() {
        let parent = remote_parent(&meta(json!({
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate": "congo=t61rcWkgMzE",
        })))
        .unwrap()
        .expect("a parent");
        let span = parent.span();
        let sc = span.span_context();
        assert_eq!(
            sc.trace_id().to_string(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert_eq!(sc.span_id().to_string(), "b7ad6b7169203331");
        assert!(sc.is_sampled());
        assert_eq!(sc.trace_state().get("congo"), Some("t61rcWkgMzE"));
    }

    #[test]
    fn no_traceparent_is_no_parent() {
        assert!(remote_parent(&meta(json!({}))).unwrap().is_none());
        assert!(remote_parent(&meta(json!({"tracestate": "a=b"})))
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_malformed_traceparent_names_the_value_and_the_expected_form() {
        for bad in [
            json!("garbage"),
            json!("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331"),
            json!("00-00000000000000000000000000000000-b7ad6b7169203331-01"),
            json!("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"),
            json!("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            json!("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"),
            json!(42),
        ] {
            let err = remote_parent(&meta(json!({ "traceparent": bad }))).unwrap_err();
            assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{bad}");
            assert!(err.message.contains("_meta.traceparent"), "{}", err.message);
            assert!(err.message.contains(&bad.to_string()), "{}", err.message);
            assert!(err.message.contains("expected 00-"), "{}", err.message);
        }
        let err = remote_parent(&meta(json!({
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate": ["a=b"],
        })))
        .unwrap_err();
        assert!(err.message.contains("_meta.tracestate"), "{}", err.message);
    }
}
