//! Client for the Anthropic Messages API: tools as `{name, description, input_schema}`,
//! calls as `tool_use` blocks, results as `tool_result` blocks with `is_error`.
//!
//! Only HTTP lives here (URL, headers, retries); the body and the answer are written and read
//! by the Anthropic dialect.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use super::client::{LlmClient, LlmError};
use super::http::{http_settings, join_url, unreadable, Transport};
use super::retry::RetryPolicy;
use crate::dialect::{anthropic, ChatMessage, Dialect, LlmResponse};

const PROVIDER: &str = "anthropic";

/// The API version header this client speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Where and how to reach the Messages API.
#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    /// Base URL without the version path (`https://api.anthropic.com`).
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// The `x-api-key`.
    pub api_key: String,
    /// `max_tokens` of the answer (required by the API).
    pub max_tokens: u32,
    /// Limit for one HTTP request (each retry gets its own).
    pub timeout: Duration,
    /// Requests per minute at most, spaced evenly over every clone of the client (`None`:
    /// no cap; the provider's 429s still pause every request of the client).
    pub requests_per_minute: Option<u32>,
    /// Retries on 429, 5xx (529 overloaded included), connection errors and timeouts.
    pub retry: RetryPolicy,
}

impl AnthropicConfig {
    /// A config for `model` with `api_key`; 4096 answer tokens, 120 s timeout.
    pub fn new(model: impl Into<String>, api_key: impl Into<String>) -> Self {
        Self {
            base_url: "https://api.anthropic.com".into(),
            model: model.into(),
            api_key: api_key.into(),
            max_tokens: 4096,
            timeout: Duration::from_secs(120),
            requests_per_minute: None,
            retry: RetryPolicy::default(),
        }
    }

    /// From `ANTHROPIC_API_KEY` (required), `ANTHROPIC_MODEL` (default
    /// `claude-sonnet-4-5`) and `ANTHROPIC_BASE_URL` (optional).
    pub fn from_env() -> Result<Self, LlmError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`AnthropicConfig::from_env`] with the variables read through `lookup` (a name to
    /// its value; blank values count as unset), so a host or a test can supply them without
    /// touching the process environment.
    ///
    /// ```
    /// use toolwright::agent::AnthropicConfig;
    ///
    /// let config = AnthropicConfig::from_lookup(|name| match name {
    ///     "ANTHROPIC_API_KEY" => Some("sk-ant-test".into()),
    ///     _ => None,
    /// })?;
    /// assert_eq!(config.model, "claude-sonnet-4-5");
    /// assert!(AnthropicConfig::from_lookup(|_| None).is_err());
    /// # Ok::<(), toolwright::agent::LlmError>(())
    /// ```
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, LlmError> {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let key = var("ANTHROPIC_API_KEY").ok_or_else(|| {
            LlmError::Config(
                "environment variable ANTHROPIC_API_KEY is not set; it must hold the API key"
                    .into(),
            )
        })?;
        let mut config = Self::new(
            var("ANTHROPIC_MODEL").unwrap_or_else(|| "claude-sonnet-4-5".into()),
            key.trim(),
        );
        if let Some(base) = var("ANTHROPIC_BASE_URL") {
            config.base_url = base;
        }
        Ok(config)
    }

    /// Sets the base URL (proxies, tests).
    #[must_use]
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into();
        self
    }

    /// Sets `max_tokens`.
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }
}

http_settings!(AnthropicConfig, PROVIDER);

/// Messages API client with tool use.
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    config: AnthropicConfig,
    url: String,
    transport: Transport,
}

impl AnthropicClient {
    /// A client for `config` (keeps one connection pool).
    pub fn new(config: AnthropicConfig) -> Result<Self, LlmError> {
        if config.api_key.trim().is_empty() {
            return Err(LlmError::Config(
                "anthropic: API key is empty (set ANTHROPIC_API_KEY)".into(),
            ));
        }
        let transport = config.transport()?;
        Ok(Self {
            url: join_url(&config.base_url, "v1/messages"),
            config,
            transport,
        })
    }

    /// The settings in use.
    pub fn config(&self) -> &AnthropicConfig {
        &self.config
    }

    /// The request body for one turn, rendered by the Anthropic dialect: system messages go
    /// to `system`, tool results become `tool_result` blocks of a user turn, consecutive turns
    /// of one role are merged. `tools` are Anthropic definitions ([`Dialect::Anthropic`]),
    /// sent as they are.
    pub fn request_body(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Value {
        anthropic::messages_request(
            &self.config.model,
            self.config.max_tokens,
            messages,
            tools,
            temperature,
        )
    }
}

#[async_trait]
impl LlmClient for AnthropicClient {
    fn model(&self) -> Option<&str> {
        Some(&self.config.model)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Anthropic
    }

    async fn chat_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Result<LlmResponse, LlmError> {
        let body = self.request_body(messages, tools, temperature);
        let headers = [
            ("x-api-key", self.config.api_key.as_str()),
            ("anthropic-version", ANTHROPIC_VERSION),
        ];
        let answer = self.transport.post_json(&self.url, &headers, &body).await?;
        anthropic::read_message(&answer).map_err(|e| unreadable(PROVIDER, e))
    }
}
