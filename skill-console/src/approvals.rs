//! Calls waiting for a person's confirmation, from any client of the dispatcher (this
//! console, MCP clients, an agent loop): listed with their arguments, approved or rejected
//! with a reason. They expire on the dispatcher's clock
//! ([`Dispatcher::confirmation_ttl`](skill_core::Dispatcher::confirmation_ttl)); the page
//! lists the expired ones beside this console's decisions.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Form;
use chrono::{DateTime, Utc};
use maud::{html, Markup};
use serde::Deserialize;
use skill_core::{Dispatcher, ExpiredConfirmation, PendingConfirmation, SkillResult};

use crate::call::render_result;
use crate::layout::{csrf_field, page, pretty, Section};
use crate::ConsoleState;

/// Decisions kept for the page, newest first.
const HISTORY: usize = 50;

/// How a pending call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Approved,
    Rejected,
    Expired,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::Rejected => "rejected",
            Verdict::Expired => "expired",
        }
    }
}

#[derive(Debug, Clone)]
struct Decision {
    pending: PendingConfirmation,
    verdict: Verdict,
    reason: Option<String>,
    at: DateTime<Utc>,
    /// What the call came to (none for an expired call: it never ran).
    result: Option<SkillResult>,
}

impl Decision {
    fn expired(expired: ExpiredConfirmation) -> Self {
        Decision {
            reason: Some(format!(
                "expired: no decision within {} s",
                expired.ttl.as_secs()
            )),
            pending: expired.pending,
            verdict: Verdict::Expired,
            at: expired.at,
            result: None,
        }
    }
}

/// The decisions taken in this console, newest first.
#[derive(Debug, Default)]
pub(crate) struct Book {
    decided: Mutex<VecDeque<Decision>>,
}

impl Book {
    fn record(
        &self,
        pending: PendingConfirmation,
        verdict: Verdict,
        reason: Option<String>,
        result: SkillResult,
    ) {
        let mut decided = self.decided.lock().unwrap_or_else(|p| p.into_inner());
        decided.push_front(Decision {
            pending,
            verdict,
            reason,
            at: Utc::now(),
            result: Some(result),
        });
        decided.truncate(HISTORY);
    }

    /// This console's decisions and the dispatcher's expired calls, newest first.
    fn decisions(&self, dispatcher: &Dispatcher) -> Vec<Decision> {
        let mut all: Vec<Decision> = self
            .decided
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect();
        all.extend(
            dispatcher
                .expired_confirmations()
                .into_iter()
                .map(Decision::expired),
        );
        all.sort_by_key(|d| std::cmp::Reverse(d.at));
        all.truncate(HISTORY);
        all
    }
}

/// `GET /approvals`.
pub(crate) async fn approvals_page(State(state): State<ConsoleState>) -> Response {
    render(&state, None).into_response()
}

/// The reason field of a rejection.
#[derive(Debug, Deserialize)]
pub(crate) struct RejectForm {
    #[serde(default)]
    reason: String,
}

/// `POST /approvals/{id}/approve`: runs the parked call with the server's state.
pub(crate) async fn approve(State(state): State<ConsoleState>, Path(id): Path<String>) -> Response {
    let pending = waiting_call(&state, &id);
    match state
        .inner
        .dispatcher
        .confirm(&id, &state.inner.context)
        .await
    {
        Ok(result) => {
            tracing::info!(pending = %id, success = result.success, "approved in the console");
            if let Some(pending) = pending {
                state
                    .inner
                    .approvals
                    .record(pending, Verdict::Approved, None, result);
            }
            render(&state, Some(&id)).into_response()
        }
        Err(err) => gone(&state, &id, &err.to_string()),
    }
}

/// `POST /approvals/{id}/reject`: drops the parked call, with the reason given.
pub(crate) async fn reject(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
    Form(form): Form<RejectForm>,
) -> Response {
    let pending = waiting_call(&state, &id);
    let reason = Some(form.reason.trim().to_string()).filter(|r| !r.is_empty());
    match state.inner.dispatcher.reject(&id, reason.as_deref()) {
        Ok(result) => {
            tracing::info!(pending = %id, "rejected in the console");
            if let Some(pending) = pending {
                state
                    .inner
                    .approvals
                    .record(pending, Verdict::Rejected, reason, result);
            }
            render(&state, Some(&id)).into_response()
        }
        Err(err) => gone(&state, &id, &err.to_string()),
    }
}

/// The page, with a 404 status and the reason a decision could not be applied.
fn gone(state: &ConsoleState, id: &str, message: &str) -> Response {
    tracing::info!(pending = %id, "decision on a call that no longer waits");
    let body = html! {
        section.card.result-err #outcome { p.error-text { (message) } }
        (listing(state))
    };
    (
        StatusCode::NOT_FOUND,
        page(state, Section::Approvals, "Approvals", body),
    )
        .into_response()
}

fn render(state: &ConsoleState, decided: Option<&str>) -> axum::response::Html<String> {
    let outcome = decided.and_then(|id| {
        state
            .inner
            .approvals
            .decisions(&state.inner.dispatcher)
            .into_iter()
            .find(|d| d.pending.id == id)
    });
    let body = html! {
        @if let Some(d) = &outcome {
            section #outcome class={ "card " (if d.verdict == Verdict::Approved && d.result.as_ref().is_some_and(|r| r.success) { "result-ok" } else { "result-err" }) } {
                h2 { code { (d.pending.id) } " " (d.verdict.as_str()) }
                @if let Some(reason) = &d.reason { p { "Reason: " (reason) } }
                @if let (Verdict::Approved, Some(result)) = (d.verdict, &d.result) { (render_result(result, result.elapsed_ms)) }
            }
        }
        (listing(state))
    };
    page(state, Section::Approvals, "Approvals", body)
}

/// The call parked as `id` (if it still waits), kept for the outcome shown once it is
/// decided.
fn waiting_call(state: &ConsoleState, id: &str) -> Option<PendingConfirmation> {
    state
        .inner
        .dispatcher
        .pending_confirmations()
        .into_iter()
        .find(|p| p.id == id)
}

fn listing(state: &ConsoleState) -> Markup {
    let pending = state.inner.dispatcher.pending_confirmations();
    let ttl = state.inner.dispatcher.confirmation_ttl();
    let decisions = state.inner.approvals.decisions(&state.inner.dispatcher);
    html! {
        h1 { "Approvals " span.count { (pending.len()) " waiting" } }
        p.hint { "Calls of skills that change data wait here for a decision, whoever made them (this console, an MCP client, an agent). Undecided calls expire after " (ttl.as_secs()) " s." }
        @if pending.is_empty() {
            p #no-pending { "Nothing waits for a decision." }
        } @else {
            table #pending {
                thead { tr { th { "Request" } th { "Skill" } th { "What will be done" } th { "Arguments" } th { "Waiting" } th { "Decision" } } }
                tbody {
                    @for p in &pending {
                        @let waited = p.waited();
                        tr {
                            td.mono { (p.id) }
                            td { a.mono href={ "/skills/" (p.skill_id) } { (p.skill_id) } }
                            td { (p.summary) }
                            td { pre { (pretty(&p.arguments)) } }
                            td { (waited.as_secs()) " s, expires in " (ttl.saturating_sub(waited).as_secs()) " s" }
                            td {
                                form method="post" action={ "/approvals/" (p.id) "/approve" } {
                                    (csrf_field(state))
                                    button type="submit" id={ "approve-" (p.id) } { "Approve" }
                                }
                                form method="post" action={ "/approvals/" (p.id) "/reject" } {
                                    (csrf_field(state))
                                    input type="text" name="reason" placeholder="reason" aria-label="Reason for rejecting";
                                    " "
                                    button.danger type="submit" id={ "reject-" (p.id) } { "Reject" }
                                }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Decided" }
        @if decisions.is_empty() {
            p.hint { "No decision yet." }
        } @else {
            table #decided {
                thead { tr { th { "When (UTC)" } th { "Request" } th { "Skill" } th { "Outcome" } th { "Reason" } th { "Result" } } }
                tbody {
                    @for d in &decisions {
                        tr {
                            td { (d.at.format("%H:%M:%S")) }
                            td.mono { (d.pending.id) }
                            td.mono { (d.pending.skill_id) }
                            td class={ "verdict-" (d.verdict.as_str()) } { (d.verdict.as_str()) }
                            td { (d.reason.as_deref().unwrap_or("")) }
                            td {
                                @if let Some(result) = &d.result {
                                    @if result.success { "ok" }
                                    @else if let Some(e) = &result.error { code { (e.code) } }
                                } @else { "not run" }
                            }
                        }
                    }
                }
            }
        }
    }
}
