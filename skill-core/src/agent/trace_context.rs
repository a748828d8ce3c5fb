//! Trace context out: the W3C `traceparent` (and `tracestate`) of the current span, for the
//! headers of a model request, so a provider or a gateway that traces sees the agent's turn
//! as the parent of its work. Written by OpenTelemetry's `TraceContextPropagator` from the
//! span's context as the `tracing-opentelemetry` layer keeps it; without that layer (or
//! outside any span) there is no context and no header.

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The trace-context headers of the current span: `traceparent` and, when the trace has
/// one, `tracestate`. Empty when the span has no OpenTelemetry context.
pub(crate) fn current_headers() -> Vec<(&'static str, String)> {
    let context = tracing::Span::current().context();
    if !context.span().span_context().is_valid() {
        return Vec::new();
    }
    let mut carrier: HashMap<String, String> = HashMap::new();
    TraceContextPropagator::new().inject_context(&context, &mut carrier);
    let mut headers = Vec::with_capacity(2);
    for name in ["traceparent", "tracestate"] {
        if let Some(value) = carrier.remove(name).filter(|v| !v.is_empty()) {
            headers.push((name, value));
        }
    }
    headers
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use serde_json::json;
    use tracing::Instrument;
    use tracing_subscriber::layer::SubscriberExt;
    use wiremock::matchers::method;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;
    use crate::agent::http::Transport;
    use crate::agent::retry::RetryPolicy;

    fn transport() -> Transport {
        Transport::new("test", Duration::from_secs(5), RetryPolicy::default(), None).unwrap()
    }

    async fn sent_headers(server: &MockServer) -> Vec<(String, String)> {
        let requests = server.received_requests().await.unwrap();
        let request = requests.last().expect("a request");
        ["traceparent", "tracestate"]
            .iter()
            .filter_map(|name| {
                request
                    .headers
                    .get(*name)
                    .map(|v| (name.to_string(), v.to_str().unwrap().to_string()))
            })
            .collect()
    }

    #[tokio::test]
    async fn a_model_request_carries_the_traceparent_of_the_current_span() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"ok": true})))
            .mount(&server)
            .await;
        let provider = SdkTracerProvider::builder().build();
        let subscriber = tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
        let _default = tracing::subscriber::set_default(subscriber);

        let span = tracing::info_span!("chat");
        let (trace_id, span_id) = {
            let cx = span.context();
            let otel = cx.span();
            let sc = otel.span_context();
            (sc.trace_id(), sc.span_id())
        };
        transport()
            .post_json(&format!("{}/v1/chat", server.uri()), &[], &json!({}))
            .instrument(span)
            .await
            .unwrap();
        assert_eq!(
            sent_headers(&server).await,
            [(
                "traceparent".to_string(),
                format!("00-{trace_id}-{span_id}-01")
            )]
        );

        // Outside any span: no trace context, no header.
        transport()
            .post_json(&format!("{}/v1/chat", server.uri()), &[], &json!({}))
            .await
            .unwrap();
        assert_eq!(sent_headers(&server).await, []);
    }
}
