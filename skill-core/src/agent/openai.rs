//! Client for OpenAI-compatible Chat Completions: OpenAI, DeepSeek, vLLM, Ollama,
//! llama.cpp server and any other server speaking `POST {base}/chat/completions`.
//!
//! Only HTTP lives here (URL, headers, retries); the body and the answer are written and read
//! by the OpenAI dialect.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use super::client::{LlmClient, LlmError};
use super::http::{http_settings, join_url, key_from_env, unreadable, Transport};
use super::retry::RetryPolicy;
use crate::dialect::{openai, ChatMessage, LlmResponse};

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
    /// Requests per minute at most, spaced evenly over every clone of the client (`None`:
    /// no cap; the provider's 429s still pause every request of the client).
    pub requests_per_minute: Option<u32>,
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
            requests_per_minute: None,
            retry: RetryPolicy::default(),
            max_tokens: None,
        }
    }

    /// From `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_MODEL`
    /// (default `gpt-4o-mini`) and `OPENAI_API_KEY` (optional, for local servers).
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`OpenAiConfig::from_env`] with the variables read through `lookup` (a name to its
    /// value; blank values count as unset), so a host or a test can supply them without
    /// touching the process environment.
    ///
    /// ```
    /// use toolwright::agent::OpenAiConfig;
    ///
    /// let config = OpenAiConfig::from_lookup(|name| match name {
    ///     "OPENAI_BASE_URL" => Some("http://127.0.0.1:11434/v1".into()),
    ///     "OPENAI_MODEL" => Some("qwen2.5".into()),
    ///     _ => None,
    /// });
    /// assert_eq!(config.model, "qwen2.5");
    /// assert_eq!(config.api_key, None);
    /// ```
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        Self {
            api_key: var("OPENAI_API_KEY").map(|k| k.trim().to_string()),
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

    /// Sets `max_tokens`.
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }
}

http_settings!(OpenAiConfig, PROVIDER);

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
        let transport = config.transport()?;
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

    /// The request body for one turn, rendered by the OpenAI dialect.
    pub fn request_body(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Value {
        openai::chat_request(
            &self.config.model,
            messages,
            tools,
            temperature,
            self.config.max_tokens,
        )
    }
}

#[async_trait]
impl LlmClient for OpenAiClient {
    fn model(&self) -> Option<&str> {
        Some(&self.config.model)
    }

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
        openai::read_chat_completion(&answer).map_err(|e| unreadable(PROVIDER, e))
    }
}
