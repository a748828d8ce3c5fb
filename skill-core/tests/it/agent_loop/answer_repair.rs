//! The answer-repair policy: a final text the reader refuses goes back to the model with
//! the reader's error, for turns without tools, until the reader takes an answer.

use super::*;
use toolwright::agent::resume_agent_loop;

const PROMPT: &str = "Answer again as a JSON list:";
const NO_LIST: &str = "the final answer contains no JSON list";

fn repairing(turns: usize) -> ReactOptions {
    ReactOptions::default()
        .label("repair")
        .repair_answers(turns, PROMPT)
}

fn usage(prompt_tokens: u64, completion_tokens: u64) -> TokenUsage {
    TokenUsage {
        prompt_tokens,
        completion_tokens,
        cached_tokens: 0,
    }
}

#[tokio::test]
async fn a_refused_answer_is_mended_in_a_turn_without_tools() {
    let model = ScriptedClient::from_responses([
        LlmResponse::text("No risks, I think.").with_usage(usage(100, 10)),
        LlmResponse::text(r#"[{"risk_level": "low"}]"#).with_usage(usage(130, 12)),
    ]);
    let outcome = run(&model, &repairing(2)).await;
    assert_eq!(risks(&outcome), [json!({"risk_level": "low"})]);
    assert_eq!(outcome.repairs, [NO_LIST]);
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.iterations, 2, "the repair turn counts");
    assert_eq!(
        outcome.usage,
        usage(230, 22),
        "the repair turn's tokens count"
    );
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        !requests[0].tool_names.is_empty(),
        "the first turn offers tools"
    );
    assert!(
        requests[1].tool_names.is_empty(),
        "the repair turn offers none"
    );
    let mut sent = initial();
    sent.push(ChatMessage::assistant("No risks, I think."));
    sent.push(ChatMessage::user(format!("{PROMPT} {NO_LIST}")));
    assert_eq!(
        requests[1].messages, sent,
        "the refused text stays, the reader's error follows"
    );
    sent.push(ChatMessage::assistant(r#"[{"risk_level": "low"}]"#));
    assert_eq!(outcome.final_messages, sent);
}

#[tokio::test]
async fn repair_turns_follow_the_answer_past_the_turn_limit() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("a", "get_clause_context", "{}")]),
        LlmResponse::text("Done."),
        LlmResponse::text("[]"),
    ]);
    let options = repairing(1)
        .max_iterations(1)
        .final_answer_at_limit("Answer now.");
    let outcome = run(&model, &options).await;
    assert_eq!(outcome.answer, Some(Vec::new()));
    assert_eq!(outcome.repairs, [NO_LIST]);
    assert_eq!(
        outcome.stop_reason,
        StopReason::AnsweredAtLimit,
        "the answering turn's stop reason stays"
    );
    assert_eq!(outcome.iterations, 3);
    assert_eq!(outcome.tool_calls, 1);
    assert!(
        outcome
            .warnings
            .iter()
            .all(|w| w.contains("max_iterations = 1")),
        "{:?}",
        outcome.warnings
    );
}

#[tokio::test]
async fn when_the_repair_turns_are_used_up_there_is_no_answer() {
    let model = ScriptedClient::from_responses([
        LlmResponse::text("nothing"),
        LlmResponse::text("still nothing"),
        LlmResponse::text(r#"{"risk_level": "low"}"#),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &repairing(2)).await;
    assert_eq!(outcome.answer, None);
    assert_eq!(outcome.repairs, [NO_LIST, NO_LIST]);
    assert_eq!(outcome.iterations, 3);
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(model.remaining(), 1, "no third repair turn");
    assert_eq!(
        outcome.warnings,
        [
            r#"final answer unreadable (repair): the final answer's JSON is not a list: {"risk_level":"low"}; no turn left to mend it: the 2 repair turn(s) were used"#
        ]
    );
    assert_eq!(
        outcome.final_messages.last(),
        Some(&ChatMessage::assistant(r#"{"risk_level": "low"}"#))
    );
}

#[tokio::test]
async fn a_failing_repair_turn_leaves_the_answer_unread() {
    let model = ScriptedClient::new([
        Ok(LlmResponse::text("nothing")),
        Err(LlmError::Scripted("overloaded".into())),
    ]);
    let outcome = run(&model, &repairing(2)).await;
    assert_eq!(outcome.answer, None);
    assert_eq!(outcome.repairs, [NO_LIST], "the repair turn was sent");
    assert_eq!(outcome.iterations, 2);
    assert_eq!(
        outcome.stop_reason,
        StopReason::FinalAnswer,
        "the model answered; only the mending failed"
    );
    assert_eq!(
        outcome.warnings,
        [format!(
            "final answer unreadable (repair): {NO_LIST}; the turn to mend it failed: overloaded"
        )]
    );
    assert_eq!(
        outcome.final_messages.last(),
        Some(&ChatMessage::user(format!("{PROMPT} {NO_LIST}")))
    );
}

#[tokio::test]
async fn tool_calls_in_a_repair_turn_are_not_run() {
    let mut mended = LlmResponse::tool_calls(vec![call("a", "get_clause_context", "{}")]);
    mended.text = "[]".into();
    let model = ScriptedClient::from_responses([LlmResponse::text("nothing"), mended]);
    let outcome = run(&model, &repairing(1)).await;
    assert_eq!(outcome.answer, Some(Vec::new()));
    assert_eq!(outcome.tool_calls, 0);
    assert!(outcome.tool_runs.is_empty());
    assert!(outcome.skill_context.is_empty());
    assert_eq!(
        outcome.warnings,
        ["the model called 1 tool(s) in a turn without tools; not run (repair)"]
    );
    assert_eq!(
        outcome.final_messages.last(),
        Some(&ChatMessage::assistant("[]"))
    );
}

#[tokio::test]
async fn without_a_repair_policy_a_refused_answer_gets_no_other_turn() {
    for options in [
        ReactOptions::default().label("plain"),
        ReactOptions::default()
            .label("plain")
            .repair_answers(0, PROMPT),
    ] {
        let model =
            ScriptedClient::from_responses([LlmResponse::text("nothing"), LlmResponse::text("[]")]);
        let outcome = run(&model, &options).await;
        assert_eq!(outcome.answer, None);
        assert!(outcome.repairs.is_empty());
        assert_eq!(outcome.iterations, 1);
        assert_eq!((model.requests().len(), model.remaining()), (1, 1));
        assert_eq!(
            outcome.warnings,
            [format!("final answer unreadable (plain): {NO_LIST}")]
        );
    }
}

/// Archive a note (a person consents first).
#[skill(id = "notes.archive", confirm = "Archive note {note_id}")]
fn notes_archive(
    /// The note.
    note_id: u32,
) -> String {
    format!("note {note_id} archived")
}

#[tokio::test]
async fn a_resumed_run_mends_its_answer_too() {
    let d = Dispatcher::builder()
        .skill(NotesArchive::registration())
        .build()
        .unwrap();
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("c1", "notes_archive", r#"{"note_id": 7}"#)]),
        LlmResponse::text("Archived."),
        LlmResponse::text("[]"),
    ]);
    let (options, ctx) = (repairing(1), ctx());
    let paused = react_agent_loop(&model, &d, initial(), &ctx, &options, read_list).await;
    assert_eq!(paused.stop_reason, StopReason::AwaitingConfirmation);
    let id = paused.pending_tool_calls[0].confirmation.id.clone();
    let decisions = [(id, toolwright::agent::Decision::Approve)];
    let outcome = resume_agent_loop(&model, &d, paused, decisions, &ctx, &options, read_list)
        .await
        .unwrap();
    assert_eq!(outcome.answer, Some(Vec::new()));
    assert_eq!(outcome.repairs, [NO_LIST]);
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.iterations, 3);
    assert!(model.requests()[2].tool_names.is_empty());
}
