//! A chat turn in neutral form: the messages sent ([`ChatMessage`]) and the answer read
//! ([`LlmResponse`]). Each provider file renders the messages into its request shape and reads
//! its response into an [`LlmResponse`].
//!
//! The types live here, not in `agent`, so that the dialect layer depends on nothing of the
//! agent loop: `agent` (clients, loop) uses `dialect`, never the other way round.
//!
//! A stored history (`final_messages`) serializes in the OpenAI Chat Completions shape, the
//! lingua franca of tool-calling servers (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp), so it can
//! be replayed against any of them; the tool-call entries are written and read by
//! [`super::openai`], the one owner of that shape.

use serde::{Deserialize, Serialize};

use super::openai::{de_tool_calls, ser_tool_calls};
use crate::tools::ToolCall;

/// What the model answered in one turn. Its serde form (calls in the OpenAI Chat shape) is
/// how a durable run records it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LlmResponse {
    /// The text it wrote (empty when it only called tools).
    #[serde(default)]
    pub text: String,
    /// The tools it asked for, in order, in neutral form.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "ser_tool_calls",
        deserialize_with = "de_tool_calls"
    )]
    pub tool_calls: Vec<ToolCall>,
    /// The tokens the provider says the turn cost (`None` when it did not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
}

/// Tokens a model turn (or a sum of turns) cost, as the provider reported them: what it
/// bills and what rate limits count.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct TokenUsage {
    /// Tokens read: the prompt, cached part included.
    pub prompt_tokens: u64,
    /// Tokens written.
    pub completion_tokens: u64,
    /// Part of `prompt_tokens` the provider served from its prompt cache (0 when it does
    /// not report one).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl TokenUsage {
    /// Prompt and completion tokens together.
    pub fn total(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The usage a provider reader (`read`) finds in a recorded answer `body` (JSON text).
#[cfg(all(test, any(feature = "openai", feature = "anthropic")))]
pub(crate) fn recorded_usage(
    read: fn(&serde_json::Value) -> Result<LlmResponse, super::DialectError>,
    body: &str,
) -> TokenUsage {
    let body: serde_json::Value = serde_json::from_str(body).expect("a recorded answer is JSON");
    read(&body)
        .expect("a recorded answer is readable")
        .usage
        .expect("a recorded answer reports usage")
}

#[cfg(all(test, any(feature = "openai", feature = "anthropic")))]
impl TokenUsage {
    /// `(prompt_tokens, completion_tokens, cached_tokens)`, to compare all three at once.
    pub(crate) fn counts(&self) -> (u64, u64, u64) {
        (
            self.prompt_tokens,
            self.completion_tokens,
            self.cached_tokens,
        )
    }
}

impl std::ops::AddAssign for TokenUsage {
    fn add_assign(&mut self, other: Self) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.cached_tokens += other.cached_tokens;
    }
}

impl std::iter::Sum for TokenUsage {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        let mut total = Self::default();
        for usage in iter {
            total += usage;
        }
        total
    }
}

impl LlmResponse {
    /// A final answer without tool calls.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            tool_calls: Vec::new(),
            usage: None,
        }
    }

    /// A turn that calls tools.
    pub fn tool_calls(tool_calls: Vec<ToolCall>) -> Self {
        Self {
            text: String::new(),
            tool_calls,
            usage: None,
        }
    }

    /// The same answer with the provider's token count.
    #[must_use]
    pub fn with_usage(mut self, usage: TokenUsage) -> Self {
        self.usage = Some(usage);
        self
    }
}

/// One message of a chat with tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum ChatMessage {
    /// Instructions for the model.
    System {
        /// The instructions.
        content: String,
    },
    /// A user turn.
    User {
        /// The user's text.
        content: String,
    },
    /// A model turn: text, tool calls, or both.
    Assistant {
        /// What the model wrote (`None` when it only called tools).
        content: Option<String>,
        /// The tools it asked for, in the order it asked.
        #[serde(
            default,
            skip_serializing_if = "Vec::is_empty",
            serialize_with = "ser_tool_calls",
            deserialize_with = "de_tool_calls"
        )]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    Tool {
        /// Id of the call this answers; equals the `id` of a call in the assistant turn
        /// before it.
        tool_call_id: String,
        /// The result as the model reads it.
        content: String,
        /// Whether the call failed (Anthropic's `is_error`; OpenAI has no such field, the
        /// content says it).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl ChatMessage {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::Assistant {
            content: Some(content.into()),
            tool_calls: Vec::new(),
        }
    }

    /// An assistant message calling tools (with the text it wrote alongside, if any).
    pub fn assistant_tool_calls(content: Option<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self::Assistant {
            content: content.filter(|c| !c.is_empty()),
            tool_calls,
        }
    }

    /// The result of tool call `tool_call_id`.
    pub fn tool(
        tool_call_id: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        Self::Tool {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
            is_error,
        }
    }

    /// `"system"`, `"user"`, `"assistant"` or `"tool"`.
    pub fn role(&self) -> &'static str {
        match self {
            Self::System { .. } => "system",
            Self::User { .. } => "user",
            Self::Assistant { .. } => "assistant",
            Self::Tool { .. } => "tool",
        }
    }

    /// The text of the message, if it has any.
    pub fn content(&self) -> Option<&str> {
        match self {
            Self::System { content } | Self::User { content } | Self::Tool { content, .. } => {
                Some(content)
            }
            Self::Assistant { content, .. } => content.as_deref(),
        }
    }

    /// The tool calls of an assistant message (empty for every other role).
    pub fn tool_calls(&self) -> &[ToolCall] {
        match self {
            Self::Assistant { tool_calls, .. } => tool_calls,
            _ => &[],
        }
    }

    /// The call id a tool message answers.
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            Self::Tool { tool_call_id, .. } => Some(tool_call_id),
            _ => None,
        }
    }
}
