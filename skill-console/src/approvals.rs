//! Calls waiting for a person's confirmation, from any client of the dispatcher (this
//! console, MCP clients, an agent loop): listed with their arguments, approved or rejected
//! with a reason. They expire on the dispatcher's clock
//! ([`Dispatcher::confirmation_ttl`](toolwright::Dispatcher::confirmation_ttl)); the page
//! lists the expired ones beside this console's decisions.
//!
//! With a shared store ([`crate::ConsoleBuilder::confirmations`]) the page lists the calls
//! of every server on the store, and a decision taken here holds for all of them.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Form;
use chrono::{DateTime, Utc};
use maud::{html, Markup};
use serde::Deserialize;
use toolwright::StoredConfirmation;
use toolwright::{ExpiredConfirmation, PendingConfirmation, SkillResult};

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

    /// This console's decisions and the `expired` calls, newest first.
    fn decisions(&self, expired: Vec<Decision>) -> Vec<Decision> {
        let mut all: Vec<Decision> = self
            .decided
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect();
        all.extend(expired);
        all.sort_by_key(|d| std::cmp::Reverse(d.at));
        all.truncate(HISTORY);
        all
    }
}

/// A call waiting for a decision, as the page shows it.
struct Waiting {
    pending: PendingConfirmation,
    waited: Duration,
    left: Duration,
}

/// What the page lists: the waiting calls, the decisions, and why the shared store could not
/// be read (the page then shows what it has).
struct Listing {
    waiting: Vec<Waiting>,
    decisions: Vec<Decision>,
    ttl: Duration,
    trouble: Option<String>,
}

/// A stored call as the dispatcher's type, for the page.
fn as_pending(call: &StoredConfirmation) -> PendingConfirmation {
    let value = serde_json::json!({
        "id": call.id,
        "skill_id": call.skill_id,
        "arguments": call.arguments,
        "summary": call.summary,
    });
    serde_json::from_value(value).unwrap_or_else(|err| {
        unreachable!("a pending confirmation is read from its own fields: {err}")
    })
}

/// The waiting calls and the decisions: from the shared store when there is one (with this
/// server's own parked calls moved there first), else from the dispatcher's queue.
async fn listing(state: &ConsoleState) -> Listing {
    let dispatcher = &state.inner.dispatcher;
    let ttl = dispatcher.confirmation_ttl();
    let Some(shared) = &state.inner.confirmations else {
        let waiting = dispatcher
            .pending_confirmations()
            .into_iter()
            .map(|pending| {
                let waited = pending.waited();
                Waiting {
                    pending,
                    waited,
                    left: ttl.saturating_sub(waited),
                }
            })
            .collect();
        let expired = dispatcher
            .expired_confirmations()
            .into_iter()
            .map(Decision::expired)
            .collect();
        return Listing {
            waiting,
            decisions: state.inner.approvals.decisions(expired),
            ttl,
            trouble: None,
        };
    };
    let now = Utc::now();
    let mut trouble = None;
    let waiting = match shared.pending().await {
        Ok(calls) => calls
            .iter()
            .map(|call| Waiting {
                pending: as_pending(call),
                waited: (now - call.parked_at).to_std().unwrap_or_default(),
                left: (call.expires_at - now).to_std().unwrap_or_default(),
            })
            .collect(),
        Err(err) => {
            tracing::warn!(error = %err, "waiting calls not read from the shared store");
            trouble = Some(format!(
                "The shared confirmation store could not be read ({}); waiting calls are not shown.",
                err.message
            ));
            Vec::new()
        }
    };
    let expired = match shared.expired(HISTORY).await {
        Ok(calls) => calls
            .iter()
            .map(|call| {
                let ttl = (call.expires_at - call.parked_at)
                    .to_std()
                    .unwrap_or_default();
                Decision::expired(ExpiredConfirmation {
                    pending: as_pending(call),
                    at: call.expires_at,
                    ttl,
                })
            })
            .collect(),
        Err(err) => {
            tracing::warn!(error = %err, "expired calls not read from the shared store");
            Vec::new()
        }
    };
    Listing {
        waiting,
        decisions: state.inner.approvals.decisions(expired),
        ttl,
        trouble,
    }
}

/// `GET /approvals`.
pub(crate) async fn approvals_page(State(state): State<ConsoleState>) -> Response {
    render(&state, None).await.into_response()
}

/// The reason field of a rejection.
#[derive(Debug, Deserialize)]
pub(crate) struct RejectForm {
    #[serde(default)]
    reason: String,
}

/// `POST /approvals/{id}/approve`: runs the parked call with the server's state.
pub(crate) async fn approve(State(state): State<ConsoleState>, Path(id): Path<String>) -> Response {
    let pending = waiting_call(&state, &id).await;
    let decided = decide(&state, &id, toolwright::Decision::Approve).await;
    match decided {
        Ok(result) => {
            tracing::info!(pending = %id, success = result.success, "approved in the console");
            if let Some(pending) = pending {
                state
                    .inner
                    .approvals
                    .record(pending, Verdict::Approved, None, result);
            }
            render(&state, Some(&id)).await.into_response()
        }
        Err(err) => gone(&state, &id, &err).await,
    }
}

/// `POST /approvals/{id}/reject`: drops the parked call, with the reason given.
pub(crate) async fn reject(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
    Form(form): Form<RejectForm>,
) -> Response {
    let pending = waiting_call(&state, &id).await;
    let reason = Some(form.reason.trim().to_string()).filter(|r| !r.is_empty());
    let decided = decide(&state, &id, toolwright::Decision::Reject(reason.clone())).await;
    match decided {
        Ok(result) => {
            tracing::info!(pending = %id, "rejected in the console");
            if let Some(pending) = pending {
                state
                    .inner
                    .approvals
                    .record(pending, Verdict::Rejected, reason, result);
            }
            render(&state, Some(&id)).await.into_response()
        }
        Err(err) => gone(&state, &id, &err).await,
    }
}

/// A person's decision applied where call `id` waits (the shared store, else the
/// dispatcher's queue), through the dispatcher's one decision method; the error says why
/// the call no longer waits.
async fn decide(
    state: &ConsoleState,
    id: &str,
    decision: toolwright::Decision,
) -> Result<toolwright::SkillResult, String> {
    let ctx = &state.inner.context;
    match &state.inner.confirmations {
        Some(shared) => shared
            .decide(id, decision, ctx)
            .await
            .map_err(|e| e.to_string()),
        None => state
            .inner
            .dispatcher
            .decide(id, decision, ctx)
            .await
            .map_err(|e| e.to_string()),
    }
}

/// The page, with a 404 status and the reason a decision could not be applied.
async fn gone(state: &ConsoleState, id: &str, message: &str) -> Response {
    tracing::info!(pending = %id, "decision on a call that no longer waits");
    let listed = listing(state).await;
    let body = html! {
        section.card.result-err #outcome { p.error-text { (message) } }
        (list_markup(state, &listed))
    };
    (
        StatusCode::NOT_FOUND,
        page(state, Section::Approvals, "Approvals", body),
    )
        .into_response()
}

async fn render(state: &ConsoleState, decided: Option<&str>) -> axum::response::Html<String> {
    let listed = listing(state).await;
    let outcome = decided.and_then(|id| listed.decisions.iter().find(|d| d.pending.id == id));
    let body = html! {
        @if let Some(d) = &outcome {
            section #outcome class={ "card " (if d.verdict == Verdict::Approved && d.result.as_ref().is_some_and(|r| r.success) { "result-ok" } else { "result-err" }) } {
                h2 { code { (d.pending.id) } " " (d.verdict.as_str()) }
                @if let Some(reason) = &d.reason { p { "Reason: " (reason) } }
                @if let (Verdict::Approved, Some(result)) = (d.verdict, &d.result) { (render_result(result, result.elapsed_ms)) }
            }
        }
        (list_markup(state, &listed))
    };
    page(state, Section::Approvals, "Approvals", body)
}

/// The call parked as `id` (if it still waits), kept for the outcome shown once it is
/// decided.
async fn waiting_call(state: &ConsoleState, id: &str) -> Option<PendingConfirmation> {
    match &state.inner.confirmations {
        Some(shared) => shared
            .pending()
            .await
            .ok()?
            .iter()
            .find(|c| c.id == id)
            .map(as_pending),
        None => state
            .inner
            .dispatcher
            .pending_confirmations()
            .into_iter()
            .find(|p| p.id == id),
    }
}

fn list_markup(state: &ConsoleState, listed: &Listing) -> Markup {
    let pending = &listed.waiting;
    let ttl = listed.ttl;
    let decisions = &listed.decisions;
    html! {
        h1 { "Approvals " span.count { (pending.len()) " waiting" } }
        p.hint { "Calls of skills that change data wait here for a decision, whoever made them (this console, an MCP client, an agent). Undecided calls expire after " (ttl.as_secs()) " s." }
        @if let Some(trouble) = &listed.trouble {
            p.error-text #store-trouble { (trouble) }
        }
        @if pending.is_empty() {
            p #no-pending { "Nothing waits for a decision." }
        } @else {
            table #pending {
                thead { tr { th { "Request" } th { "Skill" } th { "What will be done" } th { "Arguments" } th { "Waiting" } th { "Decision" } } }
                tbody {
                    @for w in pending {
                        @let p = &w.pending;
                        tr {
                            td.mono { (p.id) }
                            td { a.mono href={ "/skills/" (p.skill_id) } { (p.skill_id) } }
                            td { (p.summary) }
                            td { pre { (pretty(&p.arguments)) } }
                            td { (w.waited.as_secs()) " s, expires in " (w.left.as_secs()) " s" }
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
                    @for d in decisions {
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use toolwright::prelude::*;
    use toolwright::Outcome;
    use toolwright::SharedConfirmations;
    use toolwright_packs::SqliteStore;

    use super::*;

    /// Erases a record (waits for a person's consent).
    #[skill(
        id = "approvals_test.erase",
        category = "delete",
        confirm = "Erase record {id}"
    )]
    fn approvals_test_erase(
        /// The record to erase.
        id: u32,
    ) -> String {
        format!("record {id} erased")
    }

    fn dispatcher() -> Dispatcher {
        Dispatcher::builder()
            .skills(toolwright::linked_skills().filter(|r| r.id.starts_with("approvals_test.")))
            .build()
            .unwrap()
    }

    /// Two servers on one store: a call parked by the first is listed by the second's
    /// console, approved there (it runs there), and gone from both lists.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_parked_on_another_server_is_listed_and_approved_here() {
        let store = Arc::new(SqliteStore::open_in_memory().unwrap());
        let first = dispatcher();
        let shared_first = SharedConfirmations::new(first.clone(), store.clone());
        let result = first
            .call(
                "approvals_test.erase",
                &json!({"id": 4}),
                &SkillContext::new(),
            )
            .await;
        let Some(Outcome::AwaitingConfirmation(pending)) = result.outcome() else {
            panic!("the call did not wait: {result:?}");
        };
        let stored = shared_first.adopt(pending).await.unwrap();

        let second = dispatcher();
        let console = ConsoleState::builder(second.clone())
            .confirmations(SharedConfirmations::new(second, store))
            .build();
        let listed = listing(&console).await;
        assert!(listed.trouble.is_none());
        let ids: Vec<&str> = listed
            .waiting
            .iter()
            .map(|w| w.pending.id.as_str())
            .collect();
        assert_eq!(ids, [stored.id.as_str()]);
        assert_eq!(listed.waiting[0].pending.summary, "Erase record 4");

        let page = approve(State(console.clone()), Path(stored.id.clone())).await;
        assert_eq!(page.status(), StatusCode::OK);
        let listed = listing(&console).await;
        assert!(listed.waiting.is_empty());
        let decided = &listed.decisions[0];
        assert_eq!(decided.verdict, Verdict::Approved);
        assert_eq!(
            decided.result.as_ref().map(SkillResult::data_value),
            Some(json!("record 4 erased"))
        );
        assert!(shared_first.pending().await.unwrap().is_empty());
        // Decided once: approving again answers 404 with the reason.
        let again = approve(State(console), Path(stored.id)).await;
        assert_eq!(again.status(), StatusCode::NOT_FOUND);
    }
}
