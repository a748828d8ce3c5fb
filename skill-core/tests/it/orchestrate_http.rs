//! The orchestrator against the local model server (feature `mock-model`): sixteen
//! delegations at once against a budget of nine requests, counted by the server.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use toolwright::agent::mock::{MockAnswer, MockModel, MockReply, MockRequest, MockUsage};
use toolwright::agent::orchestrate::{Budget, Orchestrator, Worker, WorkerStatus};
use toolwright::agent::{ChatMessage, LlmClient, OpenAiClient, OpenAiConfig};
use toolwright::prelude::*;
use toolwright::{ToolCall, ToolFilter};

use super::orchestrate::support;

fn offered(req: &MockRequest) -> Vec<String> {
    req.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// The planner delegates sixteen tasks while it is offered its worker; a worker calls its
/// tool while it is offered it; a turn without tools answers.
fn script(req: &MockRequest) -> MockAnswer {
    let tools = offered(req);
    if tools.iter().any(|t| t == "w") {
        return MockAnswer::ToolCalls(
            (1..=16)
                .map(|i| ToolCall {
                    id: format!("d{i}"),
                    name: "w".into(),
                    arguments: json!({ "task": format!("task {i}") }).to_string(),
                })
                .collect(),
        );
    }
    if tools.iter().any(|t| t == "orch_count_words") {
        return MockAnswer::ToolCalls(vec![ToolCall {
            id: format!("t{}", req.tool_results() + 1),
            name: "orch_count_words".into(),
            arguments: json!({ "text": req.user_text() }).to_string(),
        }]);
    }
    MockAnswer::Text("as far as the budget went".into())
}

#[tokio::test]
async fn sixteen_delegations_against_nine_requests_reach_the_server_at_most_nine_times() {
    let server = MockModel::start(|req| MockReply {
        delay: Duration::from_millis(30),
        answer: script(req),
        usage: Some(MockUsage {
            prompt: 50,
            completion: 5,
            cached: None,
        }),
    })
    .unwrap();
    let client: Arc<dyn LlmClient> =
        Arc::new(OpenAiClient::new(OpenAiConfig::new(server.base_url(), "mock")).unwrap());
    for worker_cap in [None, Some(1)] {
        let before = server.requests();
        let mut worker = Worker::new("w", "Works.", Arc::clone(&client))
            .tools(ToolFilter::default().ids(["orch.count_words"]))
            .max_iterations(3);
        if let Some(cap) = worker_cap {
            worker = worker.budget(Budget::unlimited().model_requests(cap));
        }
        let orchestrator = Orchestrator::new(Arc::clone(&client))
            .worker(worker)
            .max_workers(16)
            .budget(Budget::unlimited().model_requests(9));
        let messages = vec![ChatMessage::system("delegate"), ChatMessage::user("go")];
        let outcome = orchestrator
            .run(
                &support::dispatcher(),
                messages,
                &SkillContext::new(),
                support::text,
            )
            .await
            .unwrap();

        let made = server.requests() - before;
        assert!(made <= 9, "{made} requests reached the server");
        assert_eq!(outcome.spent.model_requests as usize, made);
        assert_eq!(outcome.answer.as_deref(), Some("as far as the budget went"));
        assert!(outcome
            .workers
            .iter()
            .any(|w| matches!(w.status, WorkerStatus::NotRun(_))));
    }
    assert!(server.max_in_flight() >= 2, "{}", server.max_in_flight());
}
