//! Skills and scripted models shared by the orchestrator's tests (included with
//! `#[path]`). Every model is a script keyed on the conversation it is sent, so workers
//! running at the same time get the right replies; requests are counted at the model.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use toolwright::agent::orchestrate::OrchestrateOutcome;
use toolwright::agent::{ChatMessage, LlmClient, LlmError, LlmResponse, TokenUsage};
use toolwright::prelude::*;
use toolwright::{Skill, ToolCall, ToolFilter};

/// Count the words of a text.
#[skill(id = "orch.count_words", category = "count")]
pub fn orch_count_words(
    /// The text.
    text: String,
) -> usize {
    text.split_whitespace().count()
}

/// Write a text in capitals.
#[skill(id = "orch.upper", category = "case")]
pub fn orch_upper(
    /// The text.
    text: String,
) -> String {
    text.to_uppercase()
}

/// Notes deleted so far.
#[derive(Default)]
pub struct Deleted(pub AtomicUsize);

/// Delete a note for good.
#[skill(
    id = "orch.delete_note",
    category = "delete",
    confirm = "Delete note {note_id}"
)]
pub fn orch_delete_note(
    /// The note.
    note_id: u32,
    deleted: Inject<Deleted>,
) -> String {
    deleted.0 .0.fetch_add(1, Ordering::SeqCst);
    format!("note {note_id} deleted")
}

pub fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skill(OrchCountWords::registration())
        .skill(OrchUpper::registration())
        .skill(OrchDeleteNote::registration())
        .build()
        .expect("valid registry")
}

/// What a scripted model sees of one request.
pub struct Turn<'a> {
    messages: &'a [ChatMessage],
    tools: Vec<String>,
}

impl Turn<'_> {
    pub fn tool_results(&self) -> usize {
        self.messages
            .iter()
            .filter(|m| matches!(m, ChatMessage::Tool { .. }))
            .count()
    }

    pub fn offers(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t == name)
    }

    pub fn offers_none(&self) -> bool {
        self.tools.is_empty()
    }

    /// The first user message: a worker's task.
    pub fn task(&self) -> &str {
        self.messages
            .iter()
            .find_map(|m| match m {
                ChatMessage::User { content } => Some(content.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Every message's text, joined.
    pub fn messages_text(&self) -> String {
        self.messages
            .iter()
            .map(|m| format!("{m:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn tool_contents(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter_map(|m| match m {
                ChatMessage::Tool { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Requests counted across every model of a run.
#[derive(Clone, Default)]
pub struct Counter {
    requests: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

impl Counter {
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    /// Starts counting the most requests at once afresh; returns the count so far.
    pub fn reset_max_in_flight(&self) -> usize {
        self.max_in_flight.swap(0, Ordering::SeqCst)
    }
}

pub type Script = dyn Fn(&Turn<'_>) -> Result<LlmResponse, LlmError> + Send + Sync;

/// A model answering from a script, counting its requests and how many run at once.
pub struct Model {
    counter: Counter,
    delay: Duration,
    script: Box<Script>,
    seen: Mutex<Vec<(Vec<String>, Vec<ChatMessage>)>>,
}

impl Model {
    pub fn new(
        counter: &Counter,
        delay: Duration,
        script: impl Fn(&Turn<'_>) -> Result<LlmResponse, LlmError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            counter: counter.clone(),
            delay,
            script: Box::new(script),
            seen: Mutex::new(Vec::new()),
        })
    }

    /// Tools offered and messages sent, per request.
    pub fn seen(&self) -> Vec<(Vec<String>, Vec<ChatMessage>)> {
        self.seen.lock().unwrap().clone()
    }
}

#[async_trait]
impl LlmClient for Model {
    fn model(&self) -> Option<&str> {
        Some("script")
    }

    async fn chat_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        _temperature: f32,
    ) -> Result<LlmResponse, LlmError> {
        self.counter.requests.fetch_add(1, Ordering::SeqCst);
        let now = self.counter.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.counter.max_in_flight.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(self.delay).await;
        self.counter.in_flight.fetch_sub(1, Ordering::SeqCst);
        let names: Vec<String> = tools
            .iter()
            .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
            .map(str::to_string)
            .collect();
        self.seen
            .lock()
            .unwrap()
            .push((names.clone(), messages.to_vec()));
        (self.script)(&Turn {
            messages,
            tools: names,
        })
        .map(|r| {
            r.with_usage(TokenUsage {
                prompt_tokens: 100,
                completion_tokens: 10,
                cached_tokens: 0,
            })
        })
    }
}

pub fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

pub fn delegate(id: &str, worker: &str, task: &str) -> ToolCall {
    call(id, worker, serde_json::json!({ "task": task }))
}

/// A worker that calls `tool` with its task while tools are offered and it has no result
/// yet, then answers `answer`.
pub fn tool_then_answer(
    counter: &Counter,
    delay: Duration,
    tool: &'static str,
    answer: &'static str,
) -> Arc<Model> {
    Model::new(counter, delay, move |turn| {
        Ok(if turn.offers(tool) && turn.tool_results() == 0 {
            LlmResponse::tool_calls(vec![call(
                "t1",
                tool,
                serde_json::json!({ "text": turn.task() }),
            )])
        } else {
            LlmResponse::text(answer)
        })
    })
}

/// A worker that calls `tool` whenever tools are offered, and answers `answer` only in a
/// turn without tools.
pub fn greedy(
    counter: &Counter,
    delay: Duration,
    tool: &'static str,
    answer: &'static str,
) -> Arc<Model> {
    Model::new(counter, delay, move |turn| {
        Ok(if turn.offers(tool) {
            LlmResponse::tool_calls(vec![call(
                &format!("t{}", turn.tool_results() + 1),
                tool,
                serde_json::json!({ "text": turn.task() }),
            )])
        } else {
            LlmResponse::text(answer)
        })
    })
}

/// A planner that makes `calls` in its first turn, then answers with every tool result.
pub fn planner(counter: &Counter, calls: Vec<ToolCall>) -> Arc<Model> {
    Model::new(counter, Duration::ZERO, move |turn| {
        Ok(if turn.tool_results() == 0 {
            LlmResponse::tool_calls(calls.clone())
        } else {
            LlmResponse::text(format!("done: {}", turn.tool_contents().join(" | ")))
        })
    })
}

pub fn start() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("Split the work between your workers."),
        ChatMessage::user("Count the words of 'a b c' and shout 'hello'."),
    ]
}

pub fn text(answer: &str) -> Result<String, std::convert::Infallible> {
    Ok(answer.to_string())
}

pub fn ids(ids: &[&str]) -> ToolFilter {
    ToolFilter::default().ids(ids.iter().copied())
}

pub fn statuses<A>(outcome: &OrchestrateOutcome<A>) -> BTreeMap<String, String> {
    outcome
        .workers
        .iter()
        .map(|w| (w.call_id.clone(), w.status.as_str().to_string()))
        .collect()
}

/// A worker calling `tool` with `args` first, then answering.
pub fn tool_then_answer_with(
    counter: &Counter,
    tool: &'static str,
    args: Value,
    answer: &'static str,
) -> Arc<Model> {
    Model::new(counter, Duration::ZERO, move |turn| {
        Ok(if turn.offers(tool) && turn.tool_results() == 0 {
            LlmResponse::tool_calls(vec![call("t1", tool, args.clone())])
        } else {
            LlmResponse::text(answer)
        })
    })
}

/// A helper that tries to delegate `sub` to `helper` unless it was given `sub` itself.
pub fn helper(counter: &Counter) -> Arc<Model> {
    Model::new(counter, Duration::ZERO, |turn| {
        Ok(if turn.task() == "sub" {
            LlmResponse::text("sub done")
        } else if turn.tool_results() == 0 {
            LlmResponse::tool_calls(vec![delegate("h1", "helper", "sub")])
        } else {
            LlmResponse::text(format!("helper saw: {}", turn.tool_contents().join(" | ")))
        })
    })
}
