//! Chat messages in neutral form, serialized in the OpenAI Chat Completions shape.
//!
//! The OpenAI shape is the lingua franca of tool-calling servers (OpenAI, DeepSeek, vLLM,
//! Ollama, llama.cpp), so a stored history (`final_messages`) can be replayed against any of
//! them; the Anthropic client converts it to content blocks itself.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::tools::ToolCall;

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

/// `{"id", "type": "function", "function": {"name", "arguments"}}` on the wire.
#[derive(Serialize, Deserialize)]
struct WireToolCall {
    #[serde(default)]
    id: String,
    #[serde(rename = "type", default = "function_type")]
    kind: String,
    function: WireFunction,
}

#[derive(Serialize, Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default, deserialize_with = "de_arguments")]
    arguments: String,
}

fn function_type() -> String {
    "function".into()
}

/// Arguments are a JSON string in the OpenAI shape; some servers send the object itself.
fn de_arguments<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => "{}".into(),
        other => other.to_string(),
    })
}

fn ser_tool_calls<S: Serializer>(calls: &[ToolCall], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(calls.iter().map(|c| WireToolCall {
        id: c.id.clone(),
        kind: function_type(),
        function: WireFunction {
            name: c.name.clone(),
            arguments: c.arguments.clone(),
        },
    }))
}

fn de_tool_calls<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ToolCall>, D::Error> {
    let wire = Option::<Vec<WireToolCall>>::deserialize(d)?.unwrap_or_default();
    Ok(wire
        .into_iter()
        .map(|w| ToolCall {
            id: w.id,
            name: w.function.name,
            arguments: w.function.arguments,
        })
        .collect())
}

/// Reads tool calls in the OpenAI wire shape (used by the OpenAI client's response parser).
#[cfg(feature = "openai")]
pub(crate) fn tool_calls_from_openai(
    value: serde_json::Value,
) -> Result<Vec<ToolCall>, serde_json::Error> {
    de_tool_calls(value)
}
