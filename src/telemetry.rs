//! Logging and traces: log lines on standard error (filter `TOOLWRIGHT_LOG`, default `error`)
//! and, with the `otlp` feature, the spans of reviews, model turns and tool calls (named and
//! attributed by the OpenTelemetry GenAI semantic conventions) sent to a collector over
//! OTLP/HTTP with protobuf bodies.

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// The environment variable naming the collector when `--otlp` is not given.
#[cfg(feature = "otlp")]
pub const OTLP_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// What must happen at exit: the spans still buffered are sent.
pub struct Telemetry {
    #[cfg(feature = "otlp")]
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Telemetry {
    /// Sends the spans still buffered and stops the exporter (a no-op without one).
    pub fn shutdown(self) {
        #[cfg(feature = "otlp")]
        if let Some(provider) = self.provider {
            if let Err(err) = provider.shutdown() {
                eprintln!("warning: traces not all sent to the collector: {err}");
            }
        }
    }
}

/// Why traces cannot be sent.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// `--otlp` in a build without the exporter.
    #[cfg(not(feature = "otlp"))]
    #[error("--otlp {0}: this toolwright was built without the `otlp` feature; rebuild with `cargo build --release --features otlp` to send traces to a collector")]
    NotBuilt(String),
    /// The exporter refused the endpoint.
    #[cfg(feature = "otlp")]
    #[error("--otlp {endpoint}: cannot set up the OTLP exporter: {reason}")]
    Exporter {
        /// The collector's URL.
        endpoint: String,
        /// What the exporter said.
        reason: String,
    },
}

fn log_layer<S>() -> impl Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    tracing_subscriber::fmt::layer()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .with_filter(
            EnvFilter::try_from_env("TOOLWRIGHT_LOG").unwrap_or_else(|_| EnvFilter::new("error")),
        )
}

/// The collector's traces URL: `endpoint` as a base (`http://host:4318`) gets the OTLP
/// path `/v1/traces`; a URL already ending in it is kept.
#[cfg(feature = "otlp")]
pub fn traces_url(endpoint: &str) -> String {
    let base = endpoint.trim().trim_end_matches('/');
    if base.ends_with("/v1/traces") {
        base.to_string()
    } else {
        format!("{base}/v1/traces")
    }
}

/// Sets up logging, and the OTLP exporter when `otlp` (the `--otlp` flag) or
/// `OTEL_EXPORTER_OTLP_ENDPOINT` names a collector. Without the `otlp` feature an explicit
/// `--otlp` is refused; the variable alone is ignored (it may be meant for another program).
pub fn init(otlp: Option<&str>) -> Result<Telemetry, TelemetryError> {
    #[cfg(not(feature = "otlp"))]
    {
        if let Some(endpoint) = otlp {
            return Err(TelemetryError::NotBuilt(endpoint.to_string()));
        }
        tracing_subscriber::registry().with(log_layer()).init();
        Ok(Telemetry {})
    }
    #[cfg(feature = "otlp")]
    {
        let endpoint = otlp.map(str::to_string).or_else(|| {
            std::env::var(OTLP_ENDPOINT_VAR)
                .ok()
                .filter(|v| !v.trim().is_empty())
        });
        let Some(endpoint) = endpoint else {
            tracing_subscriber::registry().with(log_layer()).init();
            return Ok(Telemetry { provider: None });
        };
        let provider = otlp_provider(&endpoint)?;
        let tracer = opentelemetry::trace::TracerProvider::tracer(&provider, "toolwright");
        // The review's spans are at INFO in the skill crates; nothing else is exported.
        let spans = tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(EnvFilter::new("skills=info,toolwright=info"));
        tracing_subscriber::registry()
            .with(log_layer())
            .with(spans)
            .init();
        Ok(Telemetry {
            provider: Some(provider),
        })
    }
}

#[cfg(feature = "otlp")]
fn otlp_provider(
    endpoint: &str,
) -> Result<opentelemetry_sdk::trace::SdkTracerProvider, TelemetryError> {
    use opentelemetry_otlp::{Protocol, WithExportConfig};
    let url = traces_url(endpoint);
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(url)
        .with_timeout(std::time::Duration::from_secs(10))
        .build()
        .map_err(|err| TelemetryError::Exporter {
            endpoint: endpoint.to_string(),
            reason: err.to_string(),
        })?;
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name("toolwright")
        .build();
    Ok(opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build())
}

#[cfg(all(test, feature = "otlp"))]
mod tests {
    use super::traces_url;

    #[test]
    fn the_traces_path_is_added_once() {
        assert_eq!(
            traces_url("http://127.0.0.1:4318"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://127.0.0.1:4318/"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://collector/v1/traces"),
            "http://collector/v1/traces"
        );
    }
}
