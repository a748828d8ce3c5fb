//! Client for OpenAI-compatible Chat Completions: OpenAI, DeepSeek, vLLM, Ollama,
//! llama.cpp server and any other server speaking `POST {base}/chat/completions`.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::client::{LlmClient, LlmError, LlmResponse};
use super::http::{build_client, join_url, key_from_env, Transport};
use super::messages::{tool_calls_from_openai, ChatMessage};
use super::retry::RetryPolicy;

const PROVIDER: &str = "openai";

/// Where and how to reach an OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// Base URL including the version path, e.g. `https://api.openai.com/v1`,
    /// `https://api.deepseek.com/v1`, `http://127.0.0.1:11434/v1` (Ollama).
    pub base_url: String,
    /// Model name as the server knows it.
    pub model: String,
    /// Bearer token; local servers usually need none.
    pub api_key: Option<String>,
    /// Limit for one HTTP request (each retry gets its own).
    pub timeout: Duration,
    /// Retries on 429, 5xx, connection errors and timeouts.
    pub retry: RetryPolicy,
    /// `max_tokens` of the answer (server default when `None`).
    pub max_tokens: Option<u32>,
}

impl OpenAiConfig {
    /// A config for `model` at `base_url`, without key, 120 s timeout, default retries.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            max_tokens: None,
        }
    }

    /// From `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_MODEL`
    /// (default `gpt-4o-mini`) and `OPENAI_API_KEY` (optional, for local servers).
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self {
            api_key: var("OPENAI_API_KEY"),
            ..Self::new(
                var("OPENAI_BASE_URL").unwrap_or_else(|| "https://api.openai.com/v1".into()),
                var("OPENAI_MODEL").unwrap_or_else(|| "gpt-4o-mini".into()),
            )
        }
    }

    /// Sets the key.
    #[must_use]
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Reads the key from environment variable `var` (e.g. `DEEPSEEK_API_KEY`); fails with a
    /// message naming the variable when it is unset.
    pub fn with_api_key_from_env(mut self, var: &str) -> Result<Self, LlmError> {
        self.api_key = Some(key_from_env(var)?);
        Ok(self)
    }

    /// Sets the per-request timeout.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the retry policy.
    #[must_use]
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Sets `max_tokens`.
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }
}

/// Chat Completions client with tool calling.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    config: OpenAiConfig,
    url: String,
    transport: Transport,
}

impl OpenAiClient {
    /// A client for `config` (keeps one connection pool).
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        if config.model.trim().is_empty() {
            return Err(LlmError::Config("openai: model name is empty".into()));
        }
        let transport = Transport {
            client: build_client(PROVIDER)?,
            provider: PROVIDER,
            timeout: config.timeout,
            retry: config.retry.clone(),
        };
        Ok(Self {
            url: join_url(&config.base_url, "chat/completions"),
            config,
            transport,
        })
    }

    /// The settings in use.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The request body for one turn.
    pub fn request_body(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert(
            "messages".into(),
            Value::Array(messages.iter().map(wire_message).collect()),
        );
        if !tools.is_empty() {
            // `tool_choice` is left out: "auto" is the default when tools are sent, and some
            // servers (vLLM without --enable-auto-tool-choice) reject it spelled out.
            body.insert("tools".into(), Value::Array(tools.to_vec()));
        }
        body.insert("temperature".into(), json!(temperature));
        if let Some(max) = self.config.max_tokens {
            body.insert("max_tokens".into(), json!(max));
        }
        Value::Object(body)
    }
}

/// A message in the wire shape: the neutral serde shape minus `is_error`, which OpenAI does
/// not define.
fn wire_message(message: &ChatMessage) -> Value {
    let mut value = serde_json::to_value(message)
        .unwrap_or_else(|_| json!({"role": message.role(), "content": ""}));
    if let Value::Object(map) = &mut value {
        map.remove("is_error");
    }
    value
}

/// Reads the first choice of a Chat Completions answer.
pub(crate) fn parse_chat_completion(body: &Value) -> Result<LlmResponse, LlmError> {
    let invalid = |message: String| LlmError::InvalidResponse {
        provider: PROVIDER,
        message,
    };
    if let Some(err) = body.get("error").filter(|e| !e.is_null()) {
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| err.to_string());
        return Err(invalid(format!(
            "error in a successful response: {message}"
        )));
    }
    let message = body
        .pointer("/choices/0/message")
        .ok_or_else(|| invalid("no `choices[0].message` in the response".into()))?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    let tool_calls = match message.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(calls) => tool_calls_from_openai(calls.clone())
            .map_err(|e| invalid(format!("`tool_calls` is not a list of function calls: {e}")))?,
    };
    if body
        .pointer("/choices/0/finish_reason")
        .and_then(Value::as_str)
        == Some("length")
    {
        tracing::warn!(provider = PROVIDER, "answer was cut at max_tokens");
    }
    Ok(LlmResponse { text, tool_calls })
}

#[async_trait]
impl LlmClient for OpenAiClient {
    async fn chat_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Result<LlmResponse, LlmError> {
        let body = self.request_body(messages, tools, temperature);
        let auth = self.config.api_key.as_ref().map(|k| format!("Bearer {k}"));
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("authorization", a.as_str())).collect();
        let answer = self.transport.post_json(&self.url, &headers, &body).await?;
        parse_chat_completion(&answer)
    }
}
