//! The one thing the agent loop needs from a model: a chat turn with tools.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use crate::dialect::{ChatMessage, Dialect, LlmResponse};

/// Why a chat turn failed.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The client is not set up right (missing API key, bad base URL).
    #[error("LLM client configuration: {0}")]
    Config(String),
    /// The provider refused the request (4xx other than 429, or retries exhausted on 429/5xx).
    #[error("{provider} returned HTTP {status}: {message}")]
    Http {
        /// Which client (`"openai"`, `"anthropic"`).
        provider: &'static str,
        /// HTTP status.
        status: u16,
        /// The provider's own error message (or the start of the body).
        message: String,
        /// Attempts made, retries included.
        attempts: u32,
    },
    /// The provider could not be reached.
    #[error("{provider}: connection failed after {attempts} attempt(s): {message}")]
    Connection {
        /// Which client.
        provider: &'static str,
        /// What the transport said.
        message: String,
        /// Attempts made, retries included.
        attempts: u32,
    },
    /// No answer within the request timeout.
    #[error("{provider}: no response within {timeout:?} (after {attempts} attempt(s))")]
    Timeout {
        /// Which client.
        provider: &'static str,
        /// The per-request timeout.
        timeout: Duration,
        /// Attempts made, retries included.
        attempts: u32,
    },
    /// The provider answered with something that is not the documented response shape.
    #[error("{provider}: unreadable response: {message}")]
    InvalidResponse {
        /// Which client.
        provider: &'static str,
        /// What was wrong.
        message: String,
    },
    /// A scripted client has no reply left for this turn.
    #[error("scripted client has no reply left for turn {turn}")]
    ScriptExhausted {
        /// 1-based number of the turn that found the script empty.
        turn: usize,
    },
    /// A scripted failure (tests and examples).
    #[error("{0}")]
    Scripted(String),
    /// The answer came, but the durable run it belongs to could not record it (so it is not
    /// used: the run would otherwise depend on an answer a resume cannot replay).
    #[error("the model's answer could not be recorded in the run: {0}")]
    Record(String),
}

/// A chat model that can call tools.
///
/// Implemented by the OpenAI-compatible and Anthropic clients (features `openai`,
/// `anthropic`) and by [`super::ScriptedClient`]. Object safe: hosts pick a provider at run
/// time and pass `&dyn LlmClient`.
#[async_trait]
pub trait LlmClient: Send + Sync {
    /// The tool dialect this client sends; the agent loop asks the dispatcher for the
    /// definitions in it ([`crate::Dispatcher::tools_in`]). OpenAI Chat by default.
    fn dialect(&self) -> Dialect {
        Dialect::OpenAi
    }

    /// The model requests go to, when the client knows it (traced as
    /// `gen_ai.request.model`). `None` by default.
    fn model(&self) -> Option<&str> {
        None
    }

    /// One turn: the model reads `messages` and may call any of `tools` (definitions in
    /// [`dialect`](Self::dialect), as [`crate::Dispatcher::tools_in`] returns them).
    async fn chat_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Result<LlmResponse, LlmError>;
}

/// A client behind a reference or a pointer is the client: one forwarding impl per pointer.
macro_rules! forward_client {
    ($($pointer:ty),*) => {$(
        #[async_trait]
        impl<T: LlmClient + ?Sized> LlmClient for $pointer {
            fn dialect(&self) -> Dialect {
                (**self).dialect()
            }

            fn model(&self) -> Option<&str> {
                (**self).model()
            }

            async fn chat_with_tools(
                &self,
                messages: &[ChatMessage],
                tools: &[Value],
                temperature: f32,
            ) -> Result<LlmResponse, LlmError> {
                (**self).chat_with_tools(messages, tools, temperature).await
            }
        }
    )*};
}

forward_client!(&T, Box<T>, std::sync::Arc<T>);
