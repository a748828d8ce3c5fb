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

#[path = "../common/orchestrate.rs"]
pub(crate) mod support;
use support::*;

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

#[tokio::test]
async fn a_failing_worker_is_a_tool_result_and_the_others_go_on() {
    let (count, workers) = (Counter::default(), Counter::default());
    let broken = Model::new(&workers, Duration::ZERO, |_| {
        Err(LlmError::Scripted("model down".into()))
    });
    let slow = Model::new(&workers, Duration::from_secs(5), |_| {
        Ok(LlmResponse::text("late"))
    });
    let garbled = Model::new(&workers, Duration::ZERO, |_| {
        Ok(LlmResponse::text("no json here"))
    });
    let fine = tool_then_answer(&workers, Duration::ZERO, "orch_count_words", "fine");
    let planner_model = planner(
        &count,
        vec![
            delegate("d1", "broken", "x"),
            delegate("d2", "slow", "x"),
            delegate("d3", "garbled", "x"),
            delegate("d4", "fine", "a b"),
        ],
    );
    let orchestrator = Orchestrator::new(planner_model.clone())
        .worker(Worker::new("broken", "Breaks.", broken).tools(ids(&["orch.count_words"])))
        .worker(
            Worker::new("slow", "Is slow.", slow)
                .tools(ids(&[]))
                .time_limit(Duration::from_millis(50)),
        )
        .worker(
            Worker::new("garbled", "Mumbles.", garbled)
                .tools(ids(&[]))
                .json_answer(),
        )
        .worker(Worker::new("fine", "Works.", fine).tools(ids(&["orch.count_words"])));
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();

    assert_eq!(outcome.stop_reason, OrchestrateStop::FinalAnswer);
    let status = |id: &str| outcome.worker(id).unwrap().status.clone();
    assert!(matches!(status("d1"), WorkerStatus::Failed(r) if r.contains("model down")));
    assert!(matches!(status("d2"), WorkerStatus::Failed(r) if r.contains("time-out")));
    assert!(matches!(status("d3"), WorkerStatus::Failed(r) if r.contains("unreadable")));
    assert_eq!(status("d4"), WorkerStatus::Complete);
    // The planner read each failure as an error result it can act on, and answered.
    let (_, messages) = planner_model.seen().pop().unwrap();
    let errors: Vec<bool> = messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool { is_error, .. } => Some(*is_error),
            _ => None,
        })
        .collect();
    assert_eq!(errors, [true, true, true, false]);
    assert!(outcome.answer.unwrap().contains(r#""status":"failed""#));
    assert_eq!(outcome.warnings.len(), 3, "{:?}", outcome.warnings);
}

#[tokio::test]
async fn a_worker_call_needing_consent_parks_the_run_and_resumes() {
    let dispatcher = dispatcher();
    let ctx = SkillContext::new().with(Deleted::default());
    let setup = || {
        let (count, workers) = (Counter::default(), Counter::default());
        let janitor = tool_then_answer_with(
            &workers,
            "orch_delete_note",
            serde_json::json!({"note_id": 7}),
            "note 7 is gone",
        );
        let orchestrator = Orchestrator::new(planner(
            &count,
            vec![delegate("d1", "janitor", "delete note 7")],
        ))
        .worker(Worker::new("janitor", "Deletes notes.", janitor).tools(ids(&["orch.delete_note"])))
        .budget(Budget::unlimited().model_requests(10));
        (orchestrator, count, workers)
    };

    // Undecided: nothing runs.
    let (orchestrator, _, _) = setup();
    let paused = orchestrator
        .run(&dispatcher, start(), &ctx, text)
        .await
        .unwrap();
    let err = orchestrator
        .resume(&dispatcher, paused, [], &ctx, text)
        .await
        .unwrap_err();
    assert!(matches!(err, ResumeError::Undecided(ids) if ids.len() == 1));

    let (orchestrator, count, workers) = setup();
    let paused = orchestrator
        .run(&dispatcher, start(), &ctx, text)
        .await
        .unwrap();
    assert_eq!(paused.stop_reason, OrchestrateStop::AwaitingConfirmation);
    assert_eq!(paused.pending.len(), 1);
    assert_eq!(paused.pending[0].path, "planner/janitor#d1");
    assert_eq!(
        paused.pending[0].call.confirmation.skill_id,
        "orch.delete_note"
    );
    assert!(paused.workers.is_empty());
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 0);
    assert_eq!(count.requests() + workers.requests(), 2);

    let id = paused.pending[0].call.confirmation.id.clone();
    let outcome = orchestrator
        .resume(&dispatcher, paused, [(id, Decision::Approve)], &ctx, text)
        .await
        .unwrap();
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.stop_reason, OrchestrateStop::FinalAnswer);
    let report = outcome.worker("d1").unwrap();
    assert_eq!(report.status, WorkerStatus::Complete);
    assert_eq!(report.answer, Some(Value::from("note 7 is gone")));
    assert_eq!(report.turns, 2);
    assert_eq!(report.skill_context["orch.delete_note"], "note 7 deleted");
    let answer = outcome.answer.unwrap();
    assert!(
        answer.contains("note 7 is gone") && !answer.contains("waiting"),
        "{answer}"
    );
    assert_eq!(outcome.spent.model_requests, 4);
    assert_eq!(count.requests() + workers.requests(), 4);
}

#[tokio::test]
async fn a_planner_call_needing_consent_parks_and_a_rejection_is_read() {
    let dispatcher = dispatcher();
    let ctx = SkillContext::new().with(Deleted::default());
    let count = Counter::default();
    let planner_model = planner(
        &count,
        vec![call(
            "p1",
            "orch_delete_note",
            serde_json::json!({"note_id": 3}),
        )],
    );
    let orchestrator = Orchestrator::new(planner_model).skills(ids(&["orch.delete_note"]));
    let paused = orchestrator
        .run(&dispatcher, start(), &ctx, text)
        .await
        .unwrap();
    assert_eq!(paused.pending[0].path, "planner");
    let id = paused.pending[0].call.confirmation.id.clone();
    let outcome = orchestrator
        .resume(
            &dispatcher,
            paused,
            [(id, Decision::Reject(Some("keep it".into())))],
            &ctx,
            text,
        )
        .await
        .unwrap();
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 0);
    let answer = outcome.answer.unwrap();
    assert!(answer.contains("keep it"), "{answer}");
}

#[tokio::test]
async fn workers_do_not_delegate_unless_the_depth_allows_it() {
    let count = Counter::default();
    let workers = Counter::default();
    let helper_model = helper(&workers);
    let build = |depth| {
        Orchestrator::new(planner(&count, vec![delegate("d1", "helper", "main")]))
            .worker(
                Worker::new("helper", "Helps.", helper_model.clone())
                    .tools(ids(&["orch.count_words"])),
            )
            .max_depth(depth)
    };

    let outcome = build(1)
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();
    assert_eq!(outcome.workers.len(), 1);
    let report = &outcome.workers[0];
    let answer = report.answer.as_ref().unwrap().as_str().unwrap();
    assert!(
        answer.contains("there is no tool named `helper`"),
        "{answer}"
    );
    assert!(helper_model
        .seen()
        .iter()
        .all(|(tools, _)| tools == &["orch_count_words"]));

    let outcome = build(2)
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();
    let paths: Vec<&str> = outcome.workers.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(paths, ["planner/helper#d1/helper#h1", "planner/helper#d1"]);
    let outer = outcome.worker("d1").unwrap();
    assert!(outer
        .answer
        .as_ref()
        .unwrap()
        .as_str()
        .unwrap()
        .contains("sub done"));
    assert_eq!(
        outer.spent.model_requests, 3,
        "its own two turns and its worker's one"
    );
    assert_eq!(outer.tool_calls, 1);
    assert_eq!(
        statuses(&outcome)
            .values()
            .filter(|s| *s == "complete")
            .count(),
        2
    );
}

#[tokio::test]
async fn a_wrong_set_up_is_refused_before_anything_runs() {
    let count = Counter::default();
    let model = planner(&count, vec![]);
    let dispatcher = dispatcher();
    let bad_name =
        Orchestrator::new(model.clone()).worker(Worker::new("no spaces", "x", model.clone()));
    let err = bad_name
        .run(&dispatcher, start(), &SkillContext::new(), text)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("`no spaces` is not a valid tool name"),
        "{err}"
    );
    let shadow = Orchestrator::new(model.clone())
        .skills(ToolFilter::default())
        .worker(Worker::new("orch.upper", "x", model.clone()));
    assert!(shadow.validate(&dispatcher).is_err());
    let twice = Orchestrator::new(model.clone())
        .worker(Worker::new("a", "x", model.clone()))
        .worker(Worker::new("a", "y", model.clone()));
    assert!(twice.validate(&dispatcher).is_err());
    assert_eq!(count.requests(), 0);
}

#[tokio::test]
async fn a_slow_worker_is_cut_so_the_planner_still_answers_within_the_wall_time() {
    let (count, workers) = (Counter::default(), Counter::default());
    let planner_model = Model::new(&count, Duration::from_millis(100), |turn| {
        Ok(if turn.tool_results() == 0 {
            LlmResponse::tool_calls(vec![delegate("d1", "sleeper", "x")])
        } else {
            LlmResponse::text("answered without the sleeper")
        })
    });
    let sleeper = Model::new(&workers, Duration::from_secs(10), |_| {
        Ok(LlmResponse::text("too late"))
    });
    let limit = Duration::from_millis(1500);
    let orchestrator = Orchestrator::new(planner_model)
        .worker(Worker::new("sleeper", "Sleeps.", sleeper).tools(ids(&[])))
        .budget(Budget::unlimited().wall_time(limit));
    let started = std::time::Instant::now();
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();
    let wall = started.elapsed();

    assert_eq!(
        outcome.answer.as_deref(),
        Some("answered without the sleeper")
    );
    assert!(
        matches!(&outcome.workers[0].status, WorkerStatus::Failed(r) if r.contains("time-out")),
        "{:?}",
        outcome.workers[0].status
    );
    assert!(wall < limit, "{wall:?}");
    assert!(outcome.elapsed_ms < limit.as_secs_f64() * 1000.0);
}

/// A planner that makes `calls` while it is offered tools, and answers "concluded" when
/// it is not.
fn calling_until_told(counter: &Counter, calls: Vec<ToolCall>) -> Arc<Model> {
    Model::new(counter, Duration::ZERO, move |turn| {
        Ok(if turn.offers_none() {
            LlmResponse::text("concluded")
        } else {
            LlmResponse::tool_calls(calls.clone())
        })
    })
}

fn tool_result(messages: &[ChatMessage], id: &str) -> (String, bool) {
    messages
        .iter()
        .find_map(|m| match m {
            ChatMessage::Tool {
                tool_call_id,
                content,
                is_error,
            } if tool_call_id == id => Some((content.clone(), *is_error)),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn tool_calls_beyond_the_budget_are_refused_not_run() {
    let upper = |id: &str| call(id, "orch_upper", serde_json::json!({"text": "x"}));
    let count = Counter::default();
    let orchestrator = Orchestrator::new(calling_until_told(
        &count,
        vec![upper("p1"), upper("p2"), upper("p3")],
    ))
    .skills(ids(&["orch.upper"]))
    .budget(Budget::unlimited().tool_calls(2));
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();
    assert_eq!(outcome.spent.tool_calls, 2);
    assert!(!tool_result(&outcome.final_messages, "p2").1);
    let (content, is_error) = tool_result(&outcome.final_messages, "p3");
    assert!(
        is_error && content.contains("budget_exhausted"),
        "{content}"
    );
    // No call left: the planner was asked to conclude.
    assert!(outcome.asked_to_conclude.is_some());
    assert_eq!(outcome.answer.as_deref(), Some("concluded"));
}

#[tokio::test]
async fn a_worker_out_of_tool_calls_is_asked_for_its_answer() {
    let (count, workers) = (Counter::default(), Counter::default());
    // Three tool calls: the planner's round takes two (a delegation and a skill call); the
    // worker's slice holds the one left, so it runs one tool and is then asked to answer.
    let orchestrator = Orchestrator::new(calling_until_told(
        &count,
        vec![
            delegate("d1", "digger", "a b"),
            call("p2", "orch_upper", serde_json::json!({"text": "x"})),
        ],
    ))
    .skills(ids(&["orch.upper"]))
    .worker(
        Worker::new(
            "digger",
            "Digs.",
            greedy(&workers, Duration::ZERO, "orch_count_words", "partial"),
        )
        .tools(ids(&["orch.count_words"]))
        .max_iterations(4),
    )
    .budget(Budget::unlimited().tool_calls(3));
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), text)
        .await
        .unwrap();

    let report = outcome.worker("d1").unwrap();
    assert_eq!(report.granted[3], Some(1));
    assert_eq!((report.tool_calls, report.turns), (1, 2));
    assert!(
        matches!(&report.status, WorkerStatus::Incomplete(_)),
        "{report:?}"
    );
    assert_eq!(report.answer, Some(Value::from("partial")));
    assert_eq!(outcome.spent.tool_calls, 3);
    assert!(outcome.asked_to_conclude.is_some());
    assert_eq!(outcome.answer.as_deref(), Some("concluded"));
    assert_eq!(workers.requests(), 2);
}

#[tokio::test]
async fn workers_parked_in_one_round_go_on_together_once_decided() {
    let dispatcher = dispatcher();
    let ctx = SkillContext::new().with(Deleted::default());
    let (count, workers) = (Counter::default(), Counter::default());
    // The janitor deletes the note its task names, then says so.
    let janitor = Model::new(&workers, Duration::from_millis(60), |turn| {
        Ok(if turn.tool_results() == 0 {
            let note: u32 = turn.task().parse().unwrap_or_default();
            LlmResponse::tool_calls(vec![call(
                "t1",
                "orch_delete_note",
                serde_json::json!({ "note_id": note }),
            )])
        } else {
            LlmResponse::text(format!("note {} handled", turn.task()))
        })
    });
    let orchestrator = Orchestrator::new(planner(
        &count,
        vec![
            delegate("d1", "janitor", "7"),
            delegate("d2", "janitor", "8"),
        ],
    ))
    .worker(Worker::new("janitor", "Deletes notes.", janitor).tools(ids(&["orch.delete_note"])));
    let paused = orchestrator
        .run(&dispatcher, start(), &ctx, text)
        .await
        .unwrap();
    assert_eq!(paused.pending.len(), 2);
    let paths: Vec<&str> = paused.pending.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["planner/janitor#d1", "planner/janitor#d2"]);

    let decisions: Vec<(String, Decision)> = paused
        .pending
        .iter()
        .map(|p| (p.call.confirmation.id.clone(), Decision::Approve))
        .collect();
    let before = workers.reset_max_in_flight();
    assert_eq!(before, 2);
    let outcome = orchestrator
        .resume(&dispatcher, paused, decisions, &ctx, text)
        .await
        .unwrap();
    assert_eq!(workers.max_in_flight(), 2, "both resumed at the same time");
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 2);
    let answers: Vec<Option<Value>> = outcome.workers.iter().map(|w| w.answer.clone()).collect();
    assert_eq!(
        answers,
        [
            Some(Value::from("note 7 handled")),
            Some(Value::from("note 8 handled"))
        ]
    );
    assert_eq!(outcome.stop_reason, OrchestrateStop::FinalAnswer);
}

/// The subject a worker's brief puts in the context of its skills.
struct Subject(String);

/// Say which subject is in focus.
#[skill(id = "orch.subject", category = "query")]
fn orch_subject(subject: Option<Inject<Subject>>) -> String {
    subject.map_or_else(|| "none".to_string(), |s| s.0 .0.clone())
}

#[tokio::test]
async fn a_worker_with_arguments_of_its_own_runs_on_the_brief_the_host_makes() {
    use toolwright::agent::orchestrate::Brief;
    let (planner_count, worker_count) = (Counter::default(), Counter::default());
    let orchestrator = Orchestrator::new(planner(
        &planner_count,
        vec![
            call(
                "d1",
                "inspector",
                serde_json::json!({"subject": "pumps", "turns": 9}),
            ),
            call("d2", "inspector", serde_json::json!({"subject": ""})),
            call("d3", "inspector", serde_json::json!("pumps")),
        ],
    ))
    .worker(
        Worker::new(
            "inspector",
            "Inspects one subject.",
            tool_then_answer_with(
                &worker_count,
                "orch_subject",
                serde_json::json!({}),
                "inspected",
            ),
        )
        .tools(ids(&["orch.subject"]))
        .max_iterations(3)
        .arguments(
            serde_json::json!({
                "type": "object",
                "properties": {"subject": {"type": "string"}, "turns": {"type": "integer"}},
                "required": ["subject"],
            }),
            |args| {
                let subject = args["subject"].as_str().unwrap_or_default().trim();
                if subject.is_empty() {
                    return Err("`subject` is empty: name what to inspect".into());
                }
                Ok(Brief {
                    task: format!("Inspect the {subject}."),
                    instructions: Some(format!("You inspect {subject} only.")),
                    max_iterations: args["turns"].as_u64().map(|n| n as usize),
                    context: Some(SkillContext::new().with(Subject(subject.into()))),
                })
            },
        ),
    );
    let dispatcher = Dispatcher::builder()
        .skill(OrchSubject::registration())
        .build()
        .unwrap();
    let outcome = orchestrator
        .run(&dispatcher, start(), &SkillContext::new(), text)
        .await
        .unwrap();

    // The planner saw the worker's own schema, not `task`.
    let report = outcome.worker("d1").unwrap();
    assert_eq!(report.status, WorkerStatus::Complete, "{report:?}");
    assert_eq!(report.task, "Inspect the pumps.");
    // Its skill read the brief's context, not the run's.
    assert_eq!(
        report.skill_context.get("orch.subject"),
        Some(&serde_json::json!("pumps")),
        "{report:?}"
    );
    // Its turn limit is capped by the worker's: 9 asked, 3 granted (+1 concluding).
    assert_eq!(report.granted[0], Some(4));
    // The brief's refusal is the reason the planner reads; arguments that are no object
    // reach the brief as an empty one.
    let empty = outcome.worker("d2").unwrap();
    assert_eq!(
        empty.status,
        WorkerStatus::NotRun("`subject` is empty: name what to inspect".into())
    );
    assert_eq!(outcome.worker("d3").unwrap().status, empty.status);
    assert_eq!(worker_count.requests(), 2);
}

#[tokio::test]
async fn an_unreadable_final_answer_gets_one_turn_to_mend_it_within_the_budget() {
    let counter = Counter::default();
    // Answers "not json" first, then, asked to mend it, a JSON object.
    let model = Model::new(&counter, Duration::ZERO, |turn| {
        let asked = turn.messages_text().contains("could not be read");
        Ok(LlmResponse::text(if asked {
            r#"{"ok": true}"#
        } else {
            "not json"
        }))
    });
    let read = |text: &str| serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
    let orchestrator = Orchestrator::new(model.clone()).answer_repairs(1);
    let outcome = orchestrator
        .run(&dispatcher(), start(), &SkillContext::new(), read)
        .await
        .unwrap();
    assert_eq!(outcome.answer, Some(serde_json::json!({"ok": true})));
    assert_eq!(outcome.repairs.len(), 1, "{:?}", outcome.repairs);
    assert_eq!(outcome.spent.model_requests, 2);
    assert_eq!(outcome.planner.turns, 2);
    assert!(
        model.seen()[1].0.is_empty(),
        "the repair turn offers no tools"
    );

    // Without a request left for it, no repair turn: the answer is unreadable, said so.
    let counter = Counter::default();
    let model = Model::new(&counter, Duration::ZERO, |_| {
        Ok(LlmResponse::text("not json"))
    });
    let outcome = Orchestrator::new(model)
        .answer_repairs(1)
        .budget(Budget::unlimited().model_requests(1))
        .run(&dispatcher(), start(), &SkillContext::new(), read)
        .await
        .unwrap();
    assert_eq!(outcome.answer, None);
    assert_eq!(counter.requests(), 1);
    assert!(outcome.repairs.is_empty(), "no repair turn was sent");
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("no turn to mend it")),
        "{:?}",
        outcome.warnings
    );
    // A second bad answer after the repair: no answer, both errors kept.
    let counter = Counter::default();
    let model = Model::new(&counter, Duration::ZERO, |_| {
        Ok(LlmResponse::text("still not json"))
    });
    let outcome = Orchestrator::new(model)
        .answer_repairs(1)
        .run(&dispatcher(), start(), &SkillContext::new(), read)
        .await
        .unwrap();
    assert_eq!(outcome.answer, None);
    assert_eq!((outcome.repairs.len(), counter.requests()), (1, 2));
    assert!(outcome
        .warnings
        .iter()
        .any(|w| w.contains("final answer is unreadable")));
}
