//! One JSON POST with timeout and retries, shared by the HTTP clients.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::client::LlmError;
use super::retry::{parse_retry_after, RetryPolicy};

/// Longest provider body quoted in an error.
const MAX_ERROR_BODY_CHARS: usize = 500;

/// Transport settings common to every HTTP client.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    pub(crate) client: reqwest::Client,
    pub(crate) provider: &'static str,
    pub(crate) timeout: Duration,
    pub(crate) retry: RetryPolicy,
}

enum Failure {
    /// Worth another attempt (429, 5xx, connection, timeout), with the server's hint.
    Retryable(LlmError, Option<Duration>),
    /// Final.
    Fatal(LlmError),
}

impl Transport {
    /// POSTs `body` to `url` and returns the JSON answer, retrying transient failures.
    pub(crate) async fn post_json(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &Value,
    ) -> Result<Value, LlmError> {
        let mut attempt: u32 = 1;
        loop {
            match self.attempt(url, headers, body, attempt).await {
                Ok(value) => return Ok(value),
                Err(Failure::Fatal(err)) => return Err(err),
                Err(Failure::Retryable(err, hint)) => match self.retry.delay(attempt, hint) {
                    Some(wait) => {
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
            message: provider_message(&bytes),
            attempts: attempt,
        };
        if status.as_u16() == 429 || status.is_server_error() {
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

/// The provider's own error text: `error.message` (OpenAI and Anthropic), `error` as a
/// string, `message`, or the start of the body.
pub(crate) fn provider_message(body: &[u8]) -> String {
    if let Ok(json) = serde_json::from_slice::<Value>(body) {
        let found = json
            .pointer("/error/message")
            .or_else(|| json.get("error").filter(|e| e.is_string()))
            .or_else(|| json.get("message"))
            .or_else(|| json.get("detail"))
            .and_then(Value::as_str);
        if let Some(text) = found {
            return text.to_string();
        }
    }
    let text = excerpt(body);
    if text.is_empty() {
        "(empty body)".to_string()
    } else {
        text
    }
}

fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(MAX_ERROR_BODY_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
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
pub(crate) fn key_from_env(var: &str) -> Result<String, LlmError> {
    match std::env::var(var) {
        Ok(key) if !key.trim().is_empty() => Ok(key.trim().to_string()),
        _ => Err(LlmError::Config(format!(
            "environment variable {var} is not set; it must hold the API key"
        ))),
    }
}

/// A reqwest client (connection pool) for the given provider.
pub(crate) fn build_client(provider: &'static str) -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
        .user_agent(concat!("skillkit/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| LlmError::Config(format!("{provider}: cannot build HTTP client: {e}")))
}
