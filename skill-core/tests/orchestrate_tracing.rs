//! The orchestrator's spans read back: an `invoke_agent` span for the planner and each
//! worker, nested in the `execute_tool` span of its call, with `gen_ai.usage.*`. Its own
//! binary: a span callsite first hit on another test's thread (with no subscriber) could
//! be cached as disabled for this one.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolwright::agent::orchestrate::{Orchestrator, Worker};
use toolwright::prelude::*;

#[path = "common/orchestrate.rs"]
mod support;
use support::*;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

#[derive(Debug, Clone)]
struct Recorded {
    name: &'static str,
    parent: Option<&'static str>,
    fields: BTreeMap<String, String>,
}

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Recorded>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().into(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let record = Recorded {
            name: span.name(),
            parent: span.parent().map(|p| p.name()),
            fields,
        };
        span.extensions_mut().insert(record);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(record) = span.extensions_mut().get_mut::<Recorded>() {
                values.record(&mut Fields(&mut record.fields));
            }
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id) {
            if let Some(record) = span.extensions_mut().remove::<Recorded>() {
                self.0.lock().unwrap().push(record);
            }
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn planner_and_workers_are_nested_invoke_agent_spans_with_usage() {
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let (planner_count, worker_count) = (Counter::default(), Counter::default());
    let orchestrator = Orchestrator::new(planner(
        &planner_count,
        vec![
            delegate("d1", "counter", "a b c"),
            delegate("d2", "shouter", "hello"),
        ],
    ))
    .worker(
        Worker::new(
            "counter",
            "Counts.",
            tool_then_answer(&worker_count, Duration::ZERO, "orch_count_words", "3"),
        )
        .tools(ids(&["orch.count_words"])),
    )
    .worker(
        Worker::new(
            "shouter",
            "Shouts.",
            tool_then_answer(&worker_count, Duration::ZERO, "orch_upper", "HELLO"),
        )
        .tools(ids(&["orch.upper"])),
    );
    orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();

    let spans = recorder.0.lock().unwrap().clone();
    let agents: Vec<&Recorded> = spans.iter().filter(|s| s.name == "invoke_agent").collect();
    assert_eq!(agents.len(), 3);
    let planner_span = agents
        .iter()
        .find(|s| s.fields.get("gen_ai.agent.name").map(String::as_str) == Some("planner"))
        .unwrap();
    assert_eq!(planner_span.parent, None);
    assert_eq!(planner_span.fields["gen_ai.usage.input_tokens"], "600");
    assert_eq!(planner_span.fields["toolwright.agent.model_requests"], "6");
    for name in ["counter", "shouter"] {
        let worker = agents
            .iter()
            .find(|s| s.fields.get("gen_ai.agent.name").map(String::as_str) == Some(name))
            .unwrap();
        assert_eq!(worker.parent, Some("execute_tool"), "{name}");
        assert_eq!(worker.fields["gen_ai.usage.input_tokens"], "200");
        assert_eq!(worker.fields["gen_ai.usage.output_tokens"], "20");
        assert_eq!(worker.fields["toolwright.agent.status"], "complete");
    }
    // Delegations are execute_tool spans of the planner; the workers' skill calls are
    // execute_tool spans of the workers; every model turn is a chat span of its agent.
    let tools: Vec<&Recorded> = spans.iter().filter(|s| s.name == "execute_tool").collect();
    assert_eq!(tools.len(), 4);
    assert!(tools.iter().all(|s| s.parent == Some("invoke_agent")));
    let chats: Vec<&Recorded> = spans.iter().filter(|s| s.name == "chat").collect();
    assert_eq!(chats.len(), 6);
    assert!(chats.iter().all(|s| s.parent == Some("invoke_agent")));
}
