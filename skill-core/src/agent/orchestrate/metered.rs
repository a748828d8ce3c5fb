//! A worker's model behind its budget slice: the ReAct loop talks to this client, which
//! reserves each turn before sending it, makes the last turn the slice can pay for a
//! concluding turn without tools, and refuses (without a request) once the slice is spent.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;

use super::budget::{left_in_words, Meter, TOOLS};
use crate::agent::client::{LlmClient, LlmError};
use crate::dialect::{ChatMessage, Dialect, LlmResponse};

/// What the metering did to a worker's run, for its report.
#[derive(Debug, Default, Clone)]
pub(crate) struct MeterNotes {
    /// Why a turn was refused (the slice or the run's wall time was spent).
    pub(crate) refused: Option<String>,
    /// A turn was sent without tools because the slice could pay for no more.
    pub(crate) concluded: bool,
    /// Tool calls the model asked for that the slice could not pay for (not run).
    pub(crate) calls_dropped: usize,
}

/// The client a worker's ReAct loop talks to.
pub(crate) struct MeteredClient {
    inner: Arc<dyn LlmClient>,
    pub(crate) meter: Meter,
    conclude_prompt: String,
    pub(crate) notes: Mutex<MeterNotes>,
}

impl MeteredClient {
    pub(crate) fn new(inner: Arc<dyn LlmClient>, meter: Meter, conclude_prompt: String) -> Self {
        Self {
            inner,
            meter,
            conclude_prompt,
            notes: Mutex::new(MeterNotes::default()),
        }
    }

    pub(crate) fn notes(&self) -> MeterNotes {
        self.notes.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn note(&self, f: impl FnOnce(&mut MeterNotes)) {
        f(&mut self.notes.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

#[async_trait]
impl LlmClient for MeteredClient {
    fn dialect(&self) -> Dialect {
        self.inner.dialect()
    }

    fn model(&self) -> Option<&str> {
        self.inner.model()
    }

    async fn chat_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Result<LlmResponse, LlmError> {
        let estimate = self.meter.estimate(messages, tools);
        let ticket = match self.meter.begin(estimate) {
            Ok(ticket) => ticket,
            Err(short) => {
                // No request is made: the loop reads an empty final answer and the
                // worker's report says why.
                self.note(|n| {
                    n.refused
                        .get_or_insert_with(|| format!("its budget slice ran out of {short}"));
                });
                return Ok(LlmResponse::text(""));
            }
        };
        let last = !tools.is_empty()
            && (!self.meter.affords(estimate, 1) || self.meter.account.available()[TOOLS] == 0);
        let concluding: Vec<ChatMessage>;
        let (messages, tools) = if last {
            self.note(|n| n.concluded = true);
            concluding = messages
                .iter()
                .cloned()
                .chain([ChatMessage::user(format!(
                    "{} (Budget left: {}.)",
                    self.conclude_prompt,
                    left_in_words(&self.meter.account)
                ))])
                .collect();
            (concluding.as_slice(), &[][..])
        } else {
            (messages, tools)
        };
        let result = self
            .inner
            .chat_with_tools(messages, tools, temperature)
            .await;
        match result {
            Err(err) => {
                self.meter.end(ticket, None);
                Err(err)
            }
            Ok(mut response) => {
                self.meter.end(ticket, Some(response.usage));
                let asked = response.tool_calls.len();
                let granted = if last {
                    0
                } else {
                    self.meter.account.take_tool_calls(asked as u64) as usize
                };
                if granted < asked {
                    response.tool_calls.truncate(granted);
                    self.note(|n| n.calls_dropped += asked - granted);
                }
                Ok(response)
            }
        }
    }
}
