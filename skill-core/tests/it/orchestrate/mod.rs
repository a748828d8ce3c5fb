//! The orchestrator (`agent::orchestrate`): a planner delegating to workers as tools, one
//! budget shared by all of them and reserved before a worker starts, failures and consent.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolwright::agent::orchestrate::{Budget, OrchestrateStop, Orchestrator, Worker, WorkerStatus};
use toolwright::agent::{ChatMessage, Decision, LlmError, LlmResponse, ResumeError};
use toolwright::prelude::*;
use toolwright::{ToolCall, ToolFilter};

#[path = "../../common/orchestrate.rs"]
pub(crate) mod support;
use support::*;

mod failures;
mod turns;

#[tokio::test]
async fn a_planner_runs_two_workers_with_their_own_tools_at_the_same_time() {
    let (planner_count, worker_count) = (Counter::default(), Counter::default());
    let counter = tool_then_answer(
        &worker_count,
        Duration::from_millis(80),
        "orch_count_words",
        "three words",
    );
    let shouter = tool_then_answer(
        &worker_count,
        Duration::from_millis(80),
        "orch_upper",
        "HELLO",
    );
    let orchestrator = Orchestrator::new(planner(
        &planner_count,
        vec![
            delegate("d1", "counter", "a b c"),
            delegate("d2", "shouter", "hello"),
        ],
    ))
    .worker(
        Worker::new("counter", "Counts words.", counter.clone())
            .tools(ids(&["orch.count_words"]))
            .max_iterations(3),
    )
    .worker(
        Worker::new("shouter", "Writes in capitals.", shouter.clone())
            .tools(ids(&["orch.upper"]))
            .max_iterations(3),
    )
    .budget(Budget::unlimited().model_requests(20));
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();

    assert_eq!(outcome.stop_reason, OrchestrateStop::FinalAnswer);
    let answer = outcome.answer.clone().unwrap();
    assert!(
        answer.contains("three words") && answer.contains("HELLO"),
        "{answer}"
    );
    // Each worker was offered its own tool set only, and they ran at the same time.
    assert!(counter
        .seen()
        .iter()
        .all(|(tools, _)| tools == &["orch_count_words"]));
    assert!(shouter
        .seen()
        .iter()
        .all(|(tools, _)| tools == &["orch_upper"]));
    assert_eq!(worker_count.max_in_flight(), 2);
    // Usage and timing per worker and for the run.
    assert_eq!(outcome.workers.len(), 2);
    for report in &outcome.workers {
        assert_eq!(report.status, WorkerStatus::Complete, "{report:?}");
        assert_eq!((report.turns, report.tool_calls), (2, 1));
        assert_eq!(report.usage.prompt_tokens, 200);
        assert_eq!(report.spent.model_requests, 2);
        assert!(report.elapsed_ms >= 150.0, "{}", report.elapsed_ms);
    }
    assert_eq!(outcome.workers[0].skill_context["orch.count_words"], 3);
    assert_eq!(outcome.planner.turns, 2);
    assert_eq!(outcome.planner.tool_calls, 2);
    assert_eq!(outcome.spent.model_requests, 6);
    assert_eq!(
        outcome.spent.model_requests as usize,
        planner_count.requests() + worker_count.requests()
    );
    assert_eq!(outcome.spent.input_tokens, 600);
    assert_eq!(outcome.spent.tool_calls, 4);
    assert!(outcome.spent.within(&outcome.budget));
}

#[tokio::test]
async fn max_workers_bounds_the_workers_running_at_once() {
    let (planner_count, worker_count) = (Counter::default(), Counter::default());
    let model = tool_then_answer(
        &worker_count,
        Duration::from_millis(30),
        "orch_count_words",
        "ok",
    );
    let calls = (1..=4)
        .map(|i| delegate(&format!("d{i}"), "counter", "a b"))
        .collect();
    let orchestrator = Orchestrator::new(planner(&planner_count, calls))
        .worker(Worker::new("counter", "Counts words.", model).tools(ids(&["orch.count_words"])))
        .max_workers(1);
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();
    assert_eq!(worker_count.max_in_flight(), 1);
    assert_eq!(outcome.workers.len(), 4);
    assert!(outcome
        .workers
        .iter()
        .all(|w| w.status == WorkerStatus::Complete));
}

#[tokio::test]
async fn a_worker_whose_slice_runs_out_answers_from_what_it_has_marked_incomplete() {
    let (planner_count, worker_count) = (Counter::default(), Counter::default());
    let digger = greedy(
        &worker_count,
        Duration::ZERO,
        "orch_count_words",
        "partial: two words so far",
    );
    let orchestrator = Orchestrator::new(planner(
        &planner_count,
        vec![delegate("d1", "digger", "a b")],
    ))
    .worker(
        Worker::new("digger", "Digs.", digger.clone())
            .tools(ids(&["orch.count_words"]))
            .max_iterations(6)
            .budget(Budget::unlimited().model_requests(2)),
    );
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();

    let report = &outcome.workers[0];
    assert!(
        matches!(&report.status, WorkerStatus::Incomplete(reason) if reason.contains("budget slice")),
        "{report:?}"
    );
    assert_eq!(
        report.answer,
        Some(Value::from("partial: two words so far"))
    );
    assert_eq!(worker_count.requests(), 2);
    assert_eq!(report.spent.model_requests, 2);
    assert_eq!(report.granted[0], Some(2));
    // Its last turn was sent without tools, asking for the answer.
    let seen = digger.seen();
    assert!(seen[1].0.is_empty());
    assert!(seen[1]
        .1
        .last()
        .unwrap()
        .content()
        .unwrap()
        .contains("Your budget is spent"));
    // The planner read that the result is incomplete, and went on.
    assert!(outcome.answer.unwrap().contains(r#""status":"incomplete""#));
    assert_eq!(outcome.stop_reason, OrchestrateStop::FinalAnswer);
}

#[tokio::test]
async fn when_the_run_budget_runs_low_the_planner_is_asked_to_conclude() {
    let (count, workers) = (Counter::default(), Counter::default());
    // A planner that would delegate forever while it is offered its workers.
    let planner_model = Model::new(&count, Duration::ZERO, |turn| {
        Ok(if turn.offers("digger") {
            LlmResponse::tool_calls(vec![delegate(
                &format!("d{}", turn.tool_results() + 1),
                "digger",
                "a b c",
            )])
        } else {
            LlmResponse::text("summary from what I have")
        })
    });
    let digger = greedy(&workers, Duration::ZERO, "orch_count_words", "partial");
    let orchestrator = Orchestrator::new(planner_model.clone())
        .worker(
            Worker::new("digger", "Digs.", digger)
                .tools(ids(&["orch.count_words"]))
                .max_iterations(5),
        )
        .budget(Budget::unlimited().model_requests(4));
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();

    assert_eq!(outcome.stop_reason, OrchestrateStop::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("summary from what I have"));
    let asked = outcome.asked_to_conclude.clone().unwrap();
    assert!(
        asked.contains("nearly spent") && asked.contains("1 of 4 model requests"),
        "{asked}"
    );
    let last = planner_model.seen().pop().unwrap();
    assert!(last.0.is_empty(), "the concluding turn offers no tools");
    assert_eq!(last.1.last().unwrap().content(), Some(asked.as_str()));
    // The worker got what was left after keeping the planner's last turn.
    assert_eq!(outcome.workers[0].granted[0], Some(2));
    assert_eq!(count.requests() + workers.requests(), 4);
    assert_eq!(outcome.spent.model_requests, 4);
    assert!(outcome.spent.within(&outcome.budget));
}

#[tokio::test]
async fn a_run_out_of_tokens_concludes_and_never_passes_the_token_limit() {
    let (count, workers) = (Counter::default(), Counter::default());
    let planner_model = Model::new(&count, Duration::ZERO, |turn| {
        Ok(if turn.offers("digger") {
            LlmResponse::tool_calls(vec![delegate(
                &format!("d{}", turn.tool_results() + 1),
                "digger",
                "a b c",
            )])
        } else {
            LlmResponse::text("concluded")
        })
    });
    let digger = greedy(&workers, Duration::ZERO, "orch_count_words", "partial");
    // Every turn reports 10 output tokens and reserves 10; 60 allow six turns in all.
    let orchestrator = Orchestrator::new(planner_model)
        .worker(
            Worker::new("digger", "Digs.", digger)
                .tools(ids(&["orch.count_words"]))
                .max_iterations(8),
        )
        .turn_output_tokens(10)
        .budget(Budget::unlimited().output_tokens(60));
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();
    assert_eq!(outcome.answer.as_deref(), Some("concluded"));
    assert!(outcome.asked_to_conclude.is_some());
    assert!(outcome.spent.output_tokens <= 60, "{:?}", outcome.spent);
    assert_eq!(
        outcome.spent.model_requests as usize,
        count.requests() + workers.requests()
    );
}

/// The complaint this answers: concurrent delegations overshooting a shared limit.
#[tokio::test]
async fn sixteen_concurrent_delegations_against_nine_requests_make_at_most_nine() {
    for worker_cap in [None, Some(1)] {
        let count = Counter::default();
        let calls = (1..=16)
            .map(|i| delegate(&format!("d{i}"), "w", "a b c"))
            .collect();
        let planner_model = Model::new(&count, Duration::ZERO, {
            let calls: Vec<ToolCall> = calls;
            move |turn| {
                Ok(if turn.offers("w") {
                    LlmResponse::tool_calls(calls.clone())
                } else {
                    LlmResponse::text("as far as the budget went")
                })
            }
        });
        let mut worker = Worker::new(
            "w",
            "Works.",
            greedy(
                &count,
                Duration::from_millis(20),
                "orch_count_words",
                "partial",
            ),
        )
        .tools(ids(&["orch.count_words"]))
        .max_iterations(3);
        if let Some(cap) = worker_cap {
            worker = worker.budget(Budget::unlimited().model_requests(cap));
        }
        let orchestrator = Orchestrator::new(planner_model)
            .worker(worker)
            .max_workers(16)
            .budget(Budget::unlimited().model_requests(9));
        let outcome = orchestrator
            .run(&dispatcher(), start(), &SkillContext::new(), text)
            .await
            .unwrap();

        assert!(count.requests() <= 9, "{} requests", count.requests());
        assert_eq!(outcome.spent.model_requests as usize, count.requests());
        assert!(outcome.spent.within(&outcome.budget));
        assert_eq!(outcome.answer.as_deref(), Some("as far as the budget went"));
        let ran = outcome
            .workers
            .iter()
            .filter(|w| !matches!(w.status, WorkerStatus::NotRun(_)))
            .count();
        let not_run = outcome.workers.len() - ran;
        assert_eq!(outcome.workers.len(), 16);
        assert!(not_run >= 9, "{not_run} not run");
        if worker_cap == Some(1) {
            // Seven one-request slices, all at the same time.
            assert_eq!(ran, 7);
            assert!(count.max_in_flight() >= 2, "{}", count.max_in_flight());
        }
        assert!(outcome
            .workers
            .iter()
            .all(|w| w.spent.model_requests <= w.granted[0].unwrap()));
    }
}
