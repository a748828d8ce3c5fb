//! Tool calls and turns beyond the budget, parked rounds, a worker's own arguments, mending
//! the final answer.

use super::*;

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
