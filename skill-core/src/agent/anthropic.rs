//! Client for the Anthropic Messages API: tools as `{name, description, input_schema}`,
//! calls as `tool_use` blocks, results as `tool_result` blocks with `is_error`.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::client::{LlmClient, LlmError, LlmResponse};
use super::http::{build_client, join_url, key_from_env, Transport};
use super::messages::ChatMessage;
use super::retry::RetryPolicy;
use crate::dialect::{anthropic, Dialect};
use crate::tools::ToolCall;

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
            retry: RetryPolicy::default(),
        }
    }

    /// From `ANTHROPIC_API_KEY` (required), `ANTHROPIC_MODEL` (default
    /// `claude-sonnet-4-5`) and `ANTHROPIC_BASE_URL` (optional).
    pub fn from_env() -> Result<Self, LlmError> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mut config = Self::new(
            var("ANTHROPIC_MODEL").unwrap_or_else(|| "claude-sonnet-4-5".into()),
            key_from_env("ANTHROPIC_API_KEY")?,
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
        self.max_tokens = max_tokens;
        self
    }
}

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
        let transport = Transport {
            client: build_client(PROVIDER)?,
            provider: PROVIDER,
            timeout: config.timeout,
            retry: config.retry.clone(),
        };
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

    /// The request body for one turn: system messages go to `system`, tool results become
    /// `tool_result` blocks of a user turn, consecutive turns of one role are merged. `tools`
    /// are Anthropic definitions ([`Dialect::Anthropic`]), sent as they are.
    pub fn request_body(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Value {
        let (system, turns) = to_anthropic_messages(messages);
        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert("max_tokens".into(), json!(self.config.max_tokens));
        if !system.is_empty() {
            body.insert("system".into(), json!(system));
        }
        body.insert("messages".into(), Value::Array(turns));
        if !tools.is_empty() {
            body.insert("tools".into(), Value::Array(tools.to_vec()));
        }
        body.insert("temperature".into(), json!(temperature.clamp(0.0, 1.0)));
        Value::Object(body)
    }
}

fn to_anthropic_messages(messages: &[ChatMessage]) -> (String, Vec<Value>) {
    let mut system = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, blocks: Vec<Value>| {
        if blocks.is_empty() {
            return;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    };
    for message in messages {
        match message {
            ChatMessage::System { content } => system.push(content.as_str()),
            ChatMessage::User { content } => push("user", vec![text_block(content)]),
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks = Vec::new();
                if let Some(text) = content.as_deref().filter(|t| !t.trim().is_empty()) {
                    blocks.push(text_block(text));
                }
                blocks.extend(tool_calls.iter().map(tool_use_block));
                push("assistant", blocks);
            }
            ChatMessage::Tool {
                tool_call_id,
                content,
                is_error,
            } => {
                push(
                    "user",
                    vec![anthropic::tool_result_block(
                        tool_call_id,
                        content,
                        *is_error,
                    )],
                );
            }
        }
    }
    let turns = turns
        .into_iter()
        .map(|(role, blocks)| json!({"role": role, "content": blocks}))
        .collect();
    (system.join("\n\n"), turns)
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn tool_use_block(call: &ToolCall) -> Value {
    let input = serde_json::from_str::<Value>(&call.arguments).unwrap_or(Value::Null);
    anthropic::tool_use_block(&call.id, &call.name, input)
}

/// Reads a Messages API answer: text blocks joined, `tool_use` blocks as neutral calls.
pub(crate) fn parse_message_response(body: &Value) -> Result<LlmResponse, LlmError> {
    let invalid = |message: String| LlmError::InvalidResponse {
        provider: PROVIDER,
        message,
    };
    if body.get("type").and_then(Value::as_str) == Some("error") {
        let message = body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("unknown error");
        return Err(invalid(format!(
            "error in a successful response: {message}"
        )));
    }
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("no `content` list in the response".into()))?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            Some("tool_use") => {
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid(format!("content[{i}] is a tool_use without `name`")))?;
                tool_calls.push(ToolCall {
                    id: block
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    name: name.to_string(),
                    arguments: block
                        .get("input")
                        .map_or_else(|| "{}".to_string(), Value::to_string),
                });
            }
            _ => {}
        }
    }
    if body.get("stop_reason").and_then(Value::as_str) == Some("max_tokens") {
        tracing::warn!(provider = PROVIDER, "answer was cut at max_tokens");
    }
    Ok(LlmResponse { text, tool_calls })
}

#[async_trait]
impl LlmClient for AnthropicClient {
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
        parse_message_response(&answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_becomes_alternating_turns_with_blocks() {
        let messages = vec![
            ChatMessage::system("rules"),
            ChatMessage::user("review 4.1"),
            ChatMessage::assistant_tool_calls(
                Some("looking".into()),
                vec![
                    ToolCall {
                        id: "a".into(),
                        name: "x".into(),
                        arguments: r#"{"k":1}"#.into(),
                    },
                    ToolCall {
                        id: "b".into(),
                        name: "y".into(),
                        arguments: "not json".into(),
                    },
                ],
            ),
            ChatMessage::tool("a", "{\"ok\":1}", false),
            ChatMessage::tool("b", "bad", true),
            ChatMessage::user("go on"),
        ];
        let (system, turns) = to_anthropic_messages(&messages);
        assert_eq!(system, "rules");
        assert_eq!(turns.len(), 3);
        assert_eq!(
            turns[1]["content"][1],
            json!({"type": "tool_use", "id": "a", "name": "x", "input": {"k": 1}})
        );
        assert_eq!(turns[1]["content"][2]["input"], json!({}));
        let results = turns[2]["content"].as_array().unwrap();
        assert_eq!(
            results.len(),
            3,
            "two tool results and the user text merge into one user turn"
        );
        assert_eq!(results[0].get("is_error"), None);
        assert_eq!(results[1]["is_error"], json!(true));
        assert_eq!(results[2]["type"], "text");
    }
}
