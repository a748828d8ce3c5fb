//! A model that replays a fixed list of replies: deterministic tests and examples.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::Value;

use super::client::{LlmClient, LlmError};
use crate::dialect::ChatMessage;
use crate::dialect::LlmResponse;

/// One request the scripted client received.
#[derive(Debug, Clone)]
pub struct ScriptedRequest {
    /// The messages it was sent.
    pub messages: Vec<ChatMessage>,
    /// Names of the tools offered.
    pub tool_names: Vec<String>,
    /// The temperature asked for.
    pub temperature: f32,
}

/// Replays replies in order; records every request. Once the list is used up each further
/// turn fails with [`LlmError::ScriptExhausted`].
#[derive(Debug, Default)]
pub struct ScriptedClient {
    replies: Mutex<VecDeque<Result<LlmResponse, LlmError>>>,
    requests: Mutex<Vec<ScriptedRequest>>,
    turns: AtomicUsize,
    record: bool,
}

impl ScriptedClient {
    /// A client answering with `replies`, one per turn.
    pub fn new(replies: impl IntoIterator<Item = Result<LlmResponse, LlmError>>) -> Self {
        Self {
            replies: Mutex::new(replies.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
            turns: AtomicUsize::new(0),
            record: true,
        }
    }

    /// A client answering only successfully, with `responses` in order.
    pub fn from_responses(responses: impl IntoIterator<Item = LlmResponse>) -> Self {
        Self::new(responses.into_iter().map(Ok))
    }

    /// Stops recording requests (benchmarks: recording clones every message).
    #[must_use]
    pub fn without_recording(mut self) -> Self {
        self.record = false;
        self
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<ScriptedRequest> {
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// How many replies are left.
    pub fn remaining(&self) -> usize {
        self.replies.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

#[async_trait]
impl LlmClient for ScriptedClient {
    fn model(&self) -> Option<&str> {
        Some("scripted")
    }

    async fn chat_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Result<LlmResponse, LlmError> {
        let turn = self.turns.fetch_add(1, Ordering::Relaxed) + 1;
        if self.record {
            self.requests
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(ScriptedRequest {
                    messages: messages.to_vec(),
                    tool_names: tools
                        .iter()
                        .filter_map(|t| {
                            t.pointer("/function/name")
                                .or_else(|| t.get("name"))
                                .and_then(Value::as_str)
                        })
                        .map(str::to_string)
                        .collect(),
                    temperature,
                });
        }
        self.replies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop_front()
            .unwrap_or(Err(LlmError::ScriptExhausted { turn }))
    }
}
