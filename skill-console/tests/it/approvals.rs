//! The approvals page: calls waiting for confirmation, approved, rejected, expired.

use std::time::Duration;

use crate::support::*;
use axum::http::StatusCode;
use toolwright::{DispatcherBuilder, SkillContext};
use toolwright_console::{router, ConsoleOptions, ConsoleState};

/// A call from another client of the same dispatcher (an MCP client, an agent).
async fn park(state: &ConsoleState, id: u32) -> String {
    let result = state
        .dispatcher()
        .call(
            "demo.delete_note",
            &serde_json::json!({ "id": id }),
            &SkillContext::new(),
        )
        .await;
    result.pending_confirmation().expect("the call waits").id
}

#[tokio::test]
async fn pending_calls_are_listed_with_their_arguments() {
    let state = state();
    let app = app(&state);
    let empty = get(&app, "/approvals").await;
    assert!(empty.body.contains("Nothing waits for a decision."));

    let id = park(&state, 42).await;
    let page = get(&app, "/approvals").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains(&id));
    assert!(page.body.contains("Delete note 42"), "{}", page.body);
    assert!(page.body.contains("&quot;id&quot;: 42"));
    assert!(page
        .body
        .contains(r#"<span class="badge" id="pending-count">1</span>"#));
    // The waiting time is the only text that changes between runs.
    let at = page.body.find(" s, expires in ").unwrap();
    let start = page.body[..at].rfind("<td>").unwrap() + 4;
    let end = at + page.body[at..].find("</td>").unwrap();
    let masked = format!("{}[waiting]{}", &page.body[..start], &page.body[end..]);
    insta::assert_snapshot!("approvals_pending", outline(&masked));
}

#[tokio::test]
async fn approving_runs_the_call_and_shows_the_outcome() {
    let state = state();
    let app = app(&state);
    let id = park(&state, 7).await;
    let answer = post(
        &app,
        &format!("/approvals/{id}/approve"),
        &[("csrf", state.csrf_token())],
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.body.contains("approved"), "{}", answer.body);
    assert!(answer.body.contains("note 7 deleted"));
    assert!(state.dispatcher().pending_confirmations().is_empty());

    // A second decision on the same call finds nothing to decide.
    let again = post(
        &app,
        &format!("/approvals/{id}/approve"),
        &[("csrf", state.csrf_token())],
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
    assert!(
        again.body.contains("no pending confirmation"),
        "{}",
        again.body
    );
}

#[tokio::test]
async fn rejecting_keeps_the_reason_and_does_not_run_the_call() {
    let state = state();
    let app = app(&state);
    let id = park(&state, 9).await;
    let answer = post(
        &app,
        &format!("/approvals/{id}/reject"),
        &[("csrf", state.csrf_token()), ("reason", "<b>not today</b>")],
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.body.contains("rejected"));
    assert!(
        answer.body.contains("Reason: &lt;b&gt;not today&lt;/b&gt;"),
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("note 9 deleted"));
    assert!(answer.body.contains("confirmation_rejected"));
    assert!(state.dispatcher().pending_confirmations().is_empty());
}

#[tokio::test]
async fn decisions_need_the_csrf_token() {
    let state = state();
    let app = app(&state);
    let id = park(&state, 1).await;
    let answer = post(&app, &format!("/approvals/{id}/approve"), &[]).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(state.dispatcher().pending_confirmations().len(), 1);
}

#[tokio::test]
async fn undecided_calls_expire_after_the_configured_time() {
    // The dispatcher's clock decides, whichever client parked the call.
    let dispatcher = DispatcherBuilder::from_dispatcher(&dispatcher())
        .confirmation_ttl(Duration::ZERO)
        .build()
        .unwrap();
    let state = ConsoleState::builder(dispatcher)
        .options(ConsoleOptions::new(TOKEN))
        .build();
    let app = router(state.clone());
    let id = park(&state, 3).await;
    let page = get(&app, "/approvals").await;
    assert!(
        page.body.contains("Nothing waits for a decision."),
        "{}",
        page.body
    );
    assert!(page.body.contains("expired: no decision within 0 s"));
    assert!(page.body.contains(&id));
    assert!(state.dispatcher().pending_confirmations().is_empty());
}

#[tokio::test]
async fn calls_within_their_time_do_not_expire() {
    let state = state();
    let id = park(&state, 5).await;
    let app = app(&state);
    get(&app, "/approvals").await;
    get(&app, "/approvals").await;
    assert_eq!(state.dispatcher().pending_confirmations()[0].id, id);
    assert!(state.dispatcher().expired_confirmations().is_empty());
}
