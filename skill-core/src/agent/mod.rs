//! The agent layer: chat types, the model client trait and its implementations, and the
//! ReAct loop (SPEC-20), generic over what the final answer is.
//!
//! Real clients sit behind cargo features: `openai` (`OpenAiClient`, any server speaking
//! Chat Completions) and `anthropic` (`AnthropicClient`). [`ScriptedClient`] is always
//! there for tests and examples.
//!
//! ```
//! use toolwright::agent::{extract_json, react_agent_loop, ChatMessage, LlmResponse, ReactOptions, ScriptedClient};
//! use toolwright::prelude::*;
//! use toolwright::{Skill, ToolCall};
//!
//! /// Count the words of a text.
//! #[skill(id = "doc_word_count")]
//! fn doc_word_count(
//!     /// The text.
//!     text: String,
//! ) -> usize {
//!     text.split_whitespace().count()
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let model = ScriptedClient::from_responses([
//!     LlmResponse::tool_calls(vec![ToolCall {
//!         id: "c1".into(),
//!         name: "doc_word_count".into(),
//!         arguments: r#"{"text": "a b c"}"#.into(),
//!     }]),
//!     LlmResponse::text(r#"The text has {"words": 3}."#),
//! ]);
//! let dispatcher = Dispatcher::builder().skill(DocWordCount::registration()).build().unwrap();
//! let messages = vec![ChatMessage::system("count words"), ChatMessage::user("a b c")];
//! let read = |text: &str| extract_json(text).ok_or("no JSON in the answer");
//! let outcome =
//!     react_agent_loop(&model, &dispatcher, messages, &SkillContext::new(), &ReactOptions::default(), read).await;
//! assert_eq!(outcome.answer.unwrap()["words"], 3);
//! assert_eq!(outcome.skill_context["doc_word_count"], 3);
//! # });
//! ```

mod answer;
mod client;
mod deferred;
pub mod orchestrate;
mod react;
mod retry;
mod scripted;

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod gate;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod http;
#[cfg(feature = "mock-model")]
pub mod mock;
#[cfg(feature = "openai")]
mod openai;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod trace_context;

pub use crate::dialect::{ChatMessage, LlmResponse, TokenUsage};
pub use answer::extract_json;
pub use client::{LlmClient, LlmError};
pub use deferred::DeferredTools;
pub use react::{
    react_agent_loop, resume_agent_loop, serialize_tool_result, truncate_tool_result, AnswerRepair,
    Decision, PendingToolCall, ReactOptions, ReactOutcome, ResumeError, StopReason, ToolRun,
    WithoutTools, MAX_TOOL_RESULT_CHARS,
};
pub use retry::RetryPolicy;
pub use scripted::{ScriptedClient, ScriptedRequest};

#[cfg(feature = "anthropic")]
pub use anthropic::{AnthropicClient, AnthropicConfig, ANTHROPIC_VERSION};
#[cfg(feature = "openai")]
pub use openai::{OpenAiClient, OpenAiConfig};
