//! Calls that need a person's consent in the ReAct loop (seed 004 `pendingToolCalls`): the
//! loop stops with the pending calls, the host asks, and `resume_agent_loop` goes on with
//! the decisions.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};
use toolwright::agent::{
    extract_json, react_agent_loop, resume_agent_loop, ChatMessage, Decision, LlmResponse,
    ReactOptions, ReactOutcome, ResumeError, ScriptedClient, StopReason,
};
use toolwright::prelude::*;
use toolwright::{codes, Confirmed, Skill, ToolCall};

/// Notes deleted so far (a write the test can observe).
#[derive(Default)]
struct Deleted(AtomicUsize);

/// Delete a note for good.
#[skill(
    id = "notes.delete",
    category = "delete",
    confirm = "Delete note {note_id}"
)]
fn notes_delete(
    /// The note to delete.
    note_id: u32,
    deleted: Inject<Deleted>,
) -> String {
    deleted.0 .0.fetch_add(1, Ordering::SeqCst);
    format!("note {note_id} deleted")
}

/// Look up a note's title.
#[skill(id = "notes.title", category = "query")]
fn notes_title(
    /// The note.
    note_id: u32,
) -> String {
    format!("title of note {note_id}")
}

fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skill(NotesDelete::registration())
        .skill(NotesTitle::registration())
        .build()
        .expect("valid registry")
}

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    }
}

fn read(text: &str) -> Result<Value, String> {
    extract_json(text).ok_or_else(|| "no JSON in the answer".to_string())
}

type Outcome = ReactOutcome<Value>;

/// The model deletes note 7 and reads note 8's title in one round, then answers.
fn model() -> ScriptedClient {
    ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![
            call("call_del", "notes_delete", r#"{"note_id": 7}"#),
            call("call_title", "notes_title", r#"{"note_id": 8}"#),
        ]),
        LlmResponse::text(r#"{"done": true}"#),
    ])
}

fn start_messages() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("you manage notes"),
        ChatMessage::user("delete note 7"),
    ]
}

async fn paused(model: &ScriptedClient, d: &Dispatcher, ctx: &SkillContext) -> Outcome {
    react_agent_loop(
        model,
        d,
        start_messages(),
        ctx,
        &ReactOptions::default(),
        read,
    )
    .await
}

/// Resumes `paused` with `decisions`, as the tests' host does.
async fn resume(
    model: &ScriptedClient,
    d: &Dispatcher,
    paused: Outcome,
    decisions: impl IntoIterator<Item = (String, Decision)>,
    ctx: &SkillContext,
) -> Result<Outcome, ResumeError> {
    resume_agent_loop(
        model,
        d,
        paused,
        decisions,
        ctx,
        &ReactOptions::default(),
        read,
    )
    .await
}

/// The content of the tool message answering `call_id`.
fn tool_result(outcome: &Outcome, call_id: &str) -> (String, bool) {
    outcome
        .final_messages
        .iter()
        .find_map(|m| match m {
            ChatMessage::Tool {
                tool_call_id,
                content,
                is_error,
            } if tool_call_id == call_id => Some((content.clone(), *is_error)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool message for {call_id}"))
}

#[tokio::test]
async fn a_call_needing_consent_stops_the_loop_with_the_pending_call() {
    let (model, d) = (model(), dispatcher());
    let ctx = SkillContext::new().with(Deleted::default());
    let outcome = paused(&model, &d, &ctx).await;

    assert_eq!(outcome.stop_reason, StopReason::AwaitingConfirmation);
    assert_eq!(model.requests().len(), 1, "the model is not asked again");
    assert!(outcome.answer.is_none());
    let [pending] = outcome.pending_tool_calls.as_slice() else {
        panic!("one pending call: {:?}", outcome.pending_tool_calls)
    };
    assert_eq!(pending.call_id, "call_del");
    assert_eq!(pending.confirmation.skill_id, "notes.delete");
    assert_eq!(pending.confirmation.summary, "Delete note 7");
    assert_eq!(pending.confirmation.arguments, json!({"note_id": 7}));
    assert_eq!(
        d.pending_confirmations(),
        vec![pending.confirmation.clone()]
    );
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 0);
    // The other call of the round ran.
    assert_eq!(outcome.skill_context["notes.title"], "title of note 8");
    let (content, is_error) = tool_result(&outcome, "call_del");
    assert!(is_error);
    assert!(content.contains(codes::CONFIRMATION_REQUIRED), "{content}");
}

#[tokio::test]
async fn an_approved_call_runs_and_the_model_reads_its_result() {
    let (model, d) = (model(), dispatcher());
    let ctx = SkillContext::new().with(Deleted::default());
    let outcome = paused(&model, &d, &ctx).await;
    let id = outcome.pending_tool_calls[0].confirmation.id.clone();

    let done = resume(&model, &d, outcome, [(id, Decision::Approve)], &ctx)
        .await
        .expect("every call decided");

    assert_eq!(done.stop_reason, StopReason::FinalAnswer);
    assert_eq!(done.answer, Some(json!({"done": true})));
    assert!(done.pending_tool_calls.is_empty());
    assert_eq!(done.iterations, 2);
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 1);
    assert!(d.pending_confirmations().is_empty());
    assert_eq!(done.skill_context["notes.delete"], "note 7 deleted");
    let run = done.tool_runs.iter().find(|r| r.call_id == "call_del");
    assert!(run.is_some_and(|r| r.success));
    // The second turn carries the real result in place of the waiting notice.
    let second = &model.requests()[1].messages;
    let seen = second.iter().find_map(|m| match m {
        ChatMessage::Tool {
            tool_call_id,
            content,
            is_error,
        } if tool_call_id == "call_del" => Some((content.clone(), *is_error)),
        _ => None,
    });
    let (content, is_error) = seen.expect("the result is in the conversation");
    assert!(!is_error);
    assert!(content.contains("note 7 deleted"), "{content}");
    assert!(!content.contains(codes::CONFIRMATION_REQUIRED));
}

#[tokio::test]
async fn a_rejected_call_does_not_run_and_the_model_reads_the_reason() {
    let (model, d) = (model(), dispatcher());
    let ctx = SkillContext::new().with(Deleted::default());
    let outcome = paused(&model, &d, &ctx).await;
    let id = outcome.pending_tool_calls[0].confirmation.id.clone();

    let done = resume(
        &model,
        &d,
        outcome,
        [(id, Decision::Reject(Some("note 7 is still needed".into())))],
        &ctx,
    )
    .await
    .unwrap();

    assert_eq!(done.stop_reason, StopReason::FinalAnswer);
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 0);
    let (content, is_error) = tool_result(&done, "call_del");
    assert!(is_error);
    assert!(content.contains(codes::CONFIRMATION_REJECTED), "{content}");
    assert!(content.contains("note 7 is still needed"), "{content}");
    assert!(!done.skill_context.contains_key("notes.delete"));
}

#[tokio::test]
async fn resuming_without_every_decision_changes_nothing() {
    let (model, d) = (model(), dispatcher());
    let ctx = SkillContext::new().with(Deleted::default());
    let outcome = paused(&model, &d, &ctx).await;
    let id = outcome.pending_tool_calls[0].confirmation.id.clone();

    let err = resume(
        &model,
        &d,
        outcome,
        [("confirm-999".to_string(), Decision::Approve)],
        &ctx,
    )
    .await
    .unwrap_err();

    assert_eq!(err, ResumeError::Undecided(vec![id.clone()]));
    assert!(err.to_string().contains(&id), "{err}");
    assert_eq!(d.pending_confirmations().len(), 1, "still waiting");
    assert_eq!(model.requests().len(), 1);
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn only_a_run_waiting_for_consent_can_be_resumed() {
    let model = ScriptedClient::from_responses([LlmResponse::text(r#"{"done": true}"#)]);
    let d = dispatcher();
    let ctx = SkillContext::new().with(Deleted::default());
    let finished = paused(&model, &d, &ctx).await;
    assert_eq!(finished.stop_reason, StopReason::FinalAnswer);

    let err = resume(&model, &d, finished, Vec::new(), &ctx)
        .await
        .unwrap_err();
    assert!(
        matches!(err, ResumeError::NotAwaitingConfirmation(_)),
        "{err}"
    );
}

#[tokio::test]
async fn a_call_decided_elsewhere_meanwhile_is_reported_as_not_run() {
    let (model, d) = (model(), dispatcher());
    let ctx = SkillContext::new().with(Deleted::default());
    let outcome = paused(&model, &d, &ctx).await;
    let id = outcome.pending_tool_calls[0].confirmation.id.clone();
    // The console's expiry (or another host) rejected it first.
    d.reject(&id, Some("expired")).unwrap();

    let done = resume(&model, &d, outcome, [(id.clone(), Decision::Approve)], &ctx)
        .await
        .unwrap();

    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 0);
    let (content, is_error) = tool_result(&done, "call_del");
    assert!(is_error);
    assert!(content.contains("no longer waits"), "{content}");
    assert!(content.contains(&id), "{content}");
    assert_eq!(done.stop_reason, StopReason::FinalAnswer);
}

#[tokio::test]
async fn a_call_the_host_decided_itself_gives_the_model_that_outcome() {
    let (model, d) = (model(), dispatcher());
    let ctx = SkillContext::new().with(Deleted::default());
    let outcome = paused(&model, &d, &ctx).await;
    let id = outcome.pending_tool_calls[0].confirmation.id.clone();
    // Approved in a console, which ran it through the same dispatcher.
    let ran = d.confirm(&id, &ctx).await.unwrap();
    assert!(ran.success);

    let done = resume(&model, &d, outcome, [(id, Decision::Decided(ran))], &ctx)
        .await
        .unwrap();

    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 1);
    let (content, is_error) = tool_result(&done, "call_del");
    assert!(!is_error);
    assert!(content.contains("note 7 deleted"), "{content}");
    assert_eq!(done.stop_reason, StopReason::FinalAnswer);
}

#[tokio::test]
async fn a_host_that_has_asked_already_runs_the_call_directly() {
    let (model, d) = (model(), dispatcher());
    let ctx = SkillContext::new().with(Deleted::default()).with(Confirmed);
    let outcome = paused(&model, &d, &ctx).await;

    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert!(outcome.pending_tool_calls.is_empty());
    assert_eq!(ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn every_host_decides_through_the_dispatcher_and_a_stale_decision_runs_nothing() {
    let dispatcher = dispatcher();
    let ctx = SkillContext::new().with(Deleted::default());
    let deleted = || ctx.get::<Deleted>().unwrap().0.load(Ordering::SeqCst);
    let park = || async {
        let parked = dispatcher
            .call("notes.delete", &json!({"note_id": 7}), &ctx)
            .await;
        parked.pending_confirmation().expect("the delete waits").id
    };

    let approved = park().await;
    let ran = dispatcher
        .decide(&approved, Decision::Approve, &ctx)
        .await
        .expect("it waits");
    assert_eq!(ran.data_value(), "note 7 deleted");
    assert_eq!(deleted(), 1);

    let rejected = park().await;
    let refused = dispatcher
        .decide(&rejected, Decision::Reject(Some("keep it".into())), &ctx)
        .await
        .expect("it waits");
    assert_eq!(refused.error_code(), Some(codes::CONFIRMATION_REJECTED));
    assert!(refused.to_model_json().contains("keep it"));
    assert_eq!(deleted(), 1, "a rejected call does not run");

    // Decided twice: the queue no longer has it, nothing runs, the result says why.
    let why = dispatcher
        .decide(&approved, Decision::Approve, &ctx)
        .await
        .expect_err("decided already");
    let stale = dispatcher.not_decided("notes.delete", &approved, &why);
    assert_eq!(stale.error_code(), Some(codes::CONFIRMATION_REJECTED));
    assert!(
        stale.to_model_json().contains("no longer waits"),
        "{stale:?}"
    );
    assert_eq!(deleted(), 1);

    // A result the host already has is passed on without touching the queue.
    let waiting = park().await;
    let data = serde_json::value::to_raw_value(&json!("decided in the console")).unwrap();
    let given = SkillResult::ok("notes.delete", data, 0.0);
    let passed = dispatcher
        .decide(&waiting, Decision::Decided(given), &ctx)
        .await
        .expect("passed on");
    assert_eq!(passed.data_value(), "decided in the console");
    assert_eq!(dispatcher.pending_confirmations().len(), 1);
}
