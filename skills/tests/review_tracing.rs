//! Traces of an agent review against the local model server: the review, each clause,
//! each model turn and each tool call is a span carrying the attributes of the
//! OpenTelemetry GenAI semantic conventions, read back by an in-memory layer.
//!
//! A binary of its own: a span callsite first hit on another test's thread (with no
//! subscriber) could be cached as disabled for this one.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clausewright_skills::review::{review_with_agent, AgentSettings, ReviewAgent, ReviewMode};
use toolwright::agent::mock::{react_answer, MockAnswer, MockModel, MockReply, MockUsage};
use toolwright::agent::{LlmClient, OpenAiClient, OpenAiConfig, RetryPolicy};
use toolwright::Dispatcher;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

mod support;

/// A closed span: its name, its parent's name and its fields as text.
#[derive(Debug, Clone)]
struct Recorded {
    name: &'static str,
    parent: Option<&'static str>,
    fields: BTreeMap<String, String>,
}

impl Recorded {
    fn get(&self, field: &str) -> Option<&str> {
        self.fields.get(field).map(String::as_str)
    }
}

/// The in-memory exporter: every span, with the fields it was given and recorded later,
/// kept when it closes.
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

#[test]
fn a_review_its_clauses_model_turns_and_tool_calls_are_genai_spans() {
    // Clause 1 calls a real tool, clause 2 one that does not exist, clause 3's model turn
    // fails with a 500 (no retries): the checklist reviews it.
    let model = MockModel::start(|req| {
        let clause = support::clause_of(&req.user_text());
        let answer = match clause.as_str() {
            "1" => react_answer(req, 1, "get_clause_context", &support::answer_for(&clause)),
            "2" => react_answer(req, 1, "no_such_tool", &support::answer_for(&clause)),
            _ => MockAnswer::Status {
                status: 500,
                retry_after: None,
            },
        };
        MockReply {
            delay: Duration::from_millis(5),
            answer,
            usage: Some(MockUsage {
                prompt: 100,
                completion: 10,
                cached: Some(30),
            }),
        }
    })
    .unwrap();
    let client = OpenAiClient::new(
        OpenAiConfig::new(model.base_url(), "mock-model").with_retry(RetryPolicy::none()),
    )
    .unwrap();
    let agent = ReviewAgent::new(
        Arc::new(client) as Arc<dyn LlmClient>,
        AgentSettings {
            use_react_agent: true,
            ..AgentSettings::default()
        },
    );
    let state = support::contract(3);
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    // A current-thread runtime: every clause task runs where the subscriber is set.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let report = tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(review_with_agent(
            &dispatcher,
            &state,
            &support::options(3),
            Some(&agent),
            std::future::pending(),
        ))
    });
    let modes: Vec<ReviewMode> = report.clauses.iter().map(|c| c.mode).collect();
    assert_eq!(
        modes,
        [
            ReviewMode::React,
            ReviewMode::React,
            ReviewMode::ReactFallback
        ]
    );

    let spans = recorder.0.lock().unwrap().clone();
    let named =
        |name: &str| -> Vec<&Recorded> { spans.iter().filter(|s| s.name == name).collect() };

    let reviews = named("review");
    assert_eq!(reviews.len(), 1, "{spans:#?}");
    let whole = reviews[0];
    assert_eq!(whole.get("gen_ai.operation.name"), Some("invoke_agent"));
    assert_eq!(whole.get("gen_ai.request.model"), Some("mock-model"));
    assert_eq!(whole.get("clausewright.review.clauses"), Some("3"));
    assert_eq!(whole.get("clausewright.review.concurrency"), Some("3"));
    assert_eq!(whole.get("clausewright.review.incomplete"), Some("false"));
    assert_eq!(
        whole.get("gen_ai.usage.input_tokens"),
        Some("400"),
        "four answered turns"
    );
    assert_eq!(whole.get("gen_ai.usage.output_tokens"), Some("40"));

    let clauses = named("review_clause");
    assert_eq!(clauses.len(), 3);
    assert!(clauses.iter().all(|c| c.parent == Some("review")));
    let mode_of = |id: &str| {
        clauses
            .iter()
            .find(|c| c.get("clausewright.clause.id") == Some(id))
            .and_then(|c| c.get("clausewright.clause.mode"))
    };
    assert_eq!(mode_of("1"), Some("react"));
    assert_eq!(mode_of("3"), Some("react_fallback"));

    let turns = named("chat");
    assert_eq!(
        turns.len(),
        5,
        "two turns each for clauses 1 and 2, one failed"
    );
    for turn in &turns {
        assert_eq!(turn.parent, Some("review_clause"));
        assert_eq!(turn.get("gen_ai.operation.name"), Some("chat"));
        assert_eq!(turn.get("gen_ai.provider.name"), Some("openai"));
        assert_eq!(turn.get("gen_ai.request.model"), Some("mock-model"));
        assert_eq!(turn.get("otel.name"), Some("chat mock-model"));
    }
    let answered: Vec<_> = turns
        .iter()
        .filter(|t| t.get("error.type").is_none())
        .collect();
    assert_eq!(answered.len(), 4);
    for turn in &answered {
        assert_eq!(turn.get("gen_ai.usage.input_tokens"), Some("100"));
        assert_eq!(turn.get("gen_ai.usage.output_tokens"), Some("10"));
        assert_eq!(turn.get("gen_ai.usage.cache_read.input_tokens"), Some("30"));
    }
    let failed: Vec<_> = turns
        .iter()
        .filter(|t| t.get("error.type").is_some())
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].get("error.type"), Some("500"));
    assert_eq!(failed[0].get("otel.status_code"), Some("ERROR"));

    let mut tools = named("execute_tool");
    tools.sort_by_key(|t| t.get("gen_ai.tool.name").map(str::to_string));
    assert_eq!(tools.len(), 2, "{tools:#?}");
    assert!(tools.iter().all(|t| t.parent == Some("review_clause")
        && t.get("gen_ai.operation.name") == Some("execute_tool")
        && t.get("gen_ai.tool.call.id") == Some("call_1")
        && t.get("gen_ai.tool.type") == Some("function")));
    assert_eq!(tools[0].get("gen_ai.tool.name"), Some("get_clause_context"));
    assert_eq!(tools[0].get("error.type"), None);
    assert_eq!(tools[1].get("gen_ai.tool.name"), Some("no_such_tool"));
    assert_eq!(tools[1].get("error.type"), Some("unknown_skill"));
}
