//! A failing worker, consent in the planner and in a worker, the depth of delegation, a
//! wrong set-up, a slow worker.

use super::*;

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
