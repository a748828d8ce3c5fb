//! One JSON POST with timeout and retries, shared by the HTTP clients: statuses become
//! [`LlmError`]s here; what a body means (answer or error text) is read by `dialect`.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::client::LlmError;
use super::gate::RequestGate;
use super::retry::{parse_retry_after, RetryPolicy};
use crate::dialect::{error_message, excerpt, DialectError};

/// Transport settings common to every HTTP client.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    pub(crate) client: reqwest::Client,
    pub(crate) provider: &'static str,
    pub(crate) timeout: Duration,
    pub(crate) retry: RetryPolicy,
    /// Shared by every clone: a 429 pauses them all; the requests-per-minute cap.
    pub(crate) gate: Arc<RequestGate>,
}

/// Writes, as inherent methods of `$config`, the setters of the HTTP settings every client
/// config has as public fields (`timeout`, `requests_per_minute`, `retry`) and the
/// [`Transport`] they describe for `$provider`.
macro_rules! http_settings {
    ($config:ty, $provider:expr) => {
        impl $config {
            /// The transport these settings describe, with a connection pool of its own.
            pub(crate) fn transport(
                &self,
            ) -> Result<$crate::agent::http::Transport, $crate::agent::LlmError> {
                $crate::agent::http::Transport::new(
                    $provider,
                    self.timeout,
                    self.retry.clone(),
                    self.requests_per_minute,
                )
            }

            /// Sets the per-request timeout.
            #[must_use]
            pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.timeout = timeout;
                self
            }

            /// Caps the client at `n` requests a minute (0: no cap).
            #[must_use]
            pub fn with_requests_per_minute(mut self, n: u32) -> Self {
                self.requests_per_minute = (n > 0).then_some(n);
                self
            }

            /// Sets the retry policy.
            #[must_use]
            pub fn with_retry(mut self, retry: $crate::agent::RetryPolicy) -> Self {
                self.retry = retry;
                self
            }
        }
    };
}
pub(crate) use http_settings;

enum Failure {
    /// The provider refused for its rate limits (429), with the server's hint.
    RateLimited(LlmError, Option<Duration>),
    /// Worth another attempt (5xx, connection, timeout), with the server's hint.
    Retryable(LlmError, Option<Duration>),
    /// Final.
    Fatal(LlmError),
}

impl Transport {
    /// A transport for `provider` with its own connection pool; `requests_per_minute` caps
    /// every clone of it together (`None`: no cap).
    pub(crate) fn new(
        provider: &'static str,
        timeout: Duration,
        retry: RetryPolicy,
        requests_per_minute: Option<u32>,
    ) -> Result<Self, LlmError> {
        Ok(Self {
            client: build_client(provider)?,
            provider,
            timeout,
            retry,
            gate: RequestGate::new(requests_per_minute),
        })
    }

    /// POSTs `body` to `url` and returns the JSON answer, retrying transient failures.
    /// Every attempt passes the client's gate first; a 429 pauses the whole client for the
    /// server's `Retry-After` (or the computed backoff), and the retry waits at the gate.
    pub(crate) async fn post_json(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &Value,
    ) -> Result<Value, LlmError> {
        // The model turn's span continues at the provider (or a gateway in front of it).
        let trace = super::trace_context::current_headers();
        let headers: Vec<(&str, &str)> = headers
            .iter()
            .copied()
            .chain(trace.iter().map(|(k, v)| (*k, v.as_str())))
            .collect();
        let mut attempt: u32 = 1;
        loop {
            let permit = self.gate.admit().await;
            let outcome = self.attempt(url, &headers, body, attempt).await;
            match outcome {
                Ok(value) => {
                    permit.answered();
                    return Ok(value);
                }
                Err(Failure::Fatal(err)) => {
                    permit.answered();
                    return Err(err);
                }
                Err(Failure::RateLimited(err, hint)) => {
                    let wait = hint.unwrap_or_else(|| self.retry.backoff(attempt));
                    permit.refused(wait.min(self.retry.max_retry_after));
                    if self.retry.delay(attempt, hint).is_none() {
                        return Err(err);
                    }
                    tracing::warn!(provider = self.provider, attempt, wait_ms = wait.as_millis() as u64, error = %err, "rate limited; retrying after the pause");
                    attempt += 1;
                }
                Err(Failure::Retryable(err, hint)) => match self.retry.delay(attempt, hint) {
                    Some(wait) => {
                        // A probe after a pause hands over while this one backs off.
                        drop(permit);
                        tracing::warn!(provider = self.provider, attempt, wait_ms = wait.as_millis() as u64, error = %err, "retrying LLM request");
                        tokio::time::sleep(wait).await;
                        attempt += 1;
                    }
                    None => return Err(err),
                },
            }
        }
    }

    async fn attempt(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &Value,
        attempt: u32,
    ) -> Result<Value, Failure> {
        let mut request = self.client.post(url).timeout(self.timeout).json(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request
            .send()
            .await
            .map_err(|e| self.transport_failure(e, attempt))?;
        let status = response.status();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let hint = parse_retry_after(
            header("retry-after-ms").as_deref(),
            header("retry-after").as_deref(),
            SystemTime::now(),
        );
        let bytes = response
            .bytes()
            .await
            .map_err(|e| self.transport_failure(e, attempt))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(|e| {
                Failure::Fatal(LlmError::InvalidResponse {
                    provider: self.provider,
                    message: format!("body is not JSON ({e}): {}", excerpt(&bytes)),
                })
            });
        }
        let err = LlmError::Http {
            provider: self.provider,
            status: status.as_u16(),
            message: error_message(&bytes),
            attempts: attempt,
        };
        if status.as_u16() == 429 {
            Err(Failure::RateLimited(err, hint))
        } else if status.is_server_error() {
            Err(Failure::Retryable(err, hint))
        } else {
            Err(Failure::Fatal(err))
        }
    }

    fn transport_failure(&self, err: reqwest::Error, attempt: u32) -> Failure {
        if err.is_timeout() {
            Failure::Retryable(
                LlmError::Timeout {
                    provider: self.provider,
                    timeout: self.timeout,
                    attempts: attempt,
                },
                None,
            )
        } else if err.is_builder() {
            Failure::Fatal(LlmError::Config(format!(
                "{}: invalid request: {err}",
                self.provider
            )))
        } else {
            let mut message = err.to_string();
            let mut source = std::error::Error::source(&err);
            while let Some(s) = source {
                message.push_str(": ");
                message.push_str(&s.to_string());
                source = s.source();
            }
            Failure::Retryable(
                LlmError::Connection {
                    provider: self.provider,
                    message,
                    attempts: attempt,
                },
                None,
            )
        }
    }
}

/// A successful answer the dialect could not read, as the client's error: the dialect's
/// reason for a wrong shape, its full message for a malformed tool call.
pub(crate) fn unreadable(provider: &'static str, err: DialectError) -> LlmError {
    let message = match err {
        DialectError::UnreadableResponse { reason, .. } => reason,
        other => other.to_string(),
    };
    LlmError::InvalidResponse { provider, message }
}

/// Joins a base URL and a path without doubling or dropping the slash.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// Reads an API key from environment variable `var`; empty counts as missing.
#[cfg(feature = "openai")]
pub(crate) fn key_from_env(var: &str) -> Result<String, LlmError> {
    match std::env::var(var) {
        Ok(key) if !key.trim().is_empty() => Ok(key.trim().to_string()),
        _ => Err(LlmError::Config(format!(
            "environment variable {var} is not set; it must hold the API key"
        ))),
    }
}

/// A reqwest client (connection pool) for the given provider.
fn build_client(provider: &'static str) -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
        .user_agent(concat!("toolwright/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| LlmError::Config(format!("{provider}: cannot build HTTP client: {e}")))
}
