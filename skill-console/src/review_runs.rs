//! The console's reviews as durable runs ([`toolwright::runs`]): started (or resumed) on a
//! blocking thread once admitted, recorded in the console's run store, listed from the store
//! (every review run in it, also those another process started), stopped on request,
//! resumed from the spec they recorded; finished runs beyond the kept number or age are
//! deleted from the store at each start.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, Utc};
use maud::{html, Markup, PreEscaped};
use toolwright::runs::{JournalOptions, NewRun, RunJournal, RunRecord, RunStatus, RunStore};

use crate::layout::{csrf_field, error_page, page, Section};
use crate::review_report::report;
use crate::review_spec::ConsoleSpec;
use crate::reviews::{
    no_runner, save_upload, without_server_paths, FinishedReview, ReviewError, ReviewRequest,
    ReviewRunner, ReviewSource,
};
use crate::ConsoleState;

/// The kind review runs are recorded under (the same as `clausewright review`'s).
pub const REVIEW_KIND: &str = "review";

/// Runs read from the store for the list (the newest; other kinds are left out after).
const LISTED: usize = 500;

/// Which run a [`ReviewRun`] records into.
#[derive(Debug, Clone)]
pub(crate) enum RunTarget {
    /// A new run with this spec and fingerprint.
    New {
        /// What the console needs to run it again.
        spec: serde_json::Value,
        /// Digest of the spec.
        fingerprint: String,
    },
    /// The run of this id, taken over to go on.
    Resume,
}

/// One review to run as a recorded run: the request, and the run it records into (new, or
/// one to go on with). The runner takes the run's journal with [`ReviewRun::journal`] once
/// it knows how many clauses there are.
pub struct ReviewRun {
    /// The review asked for.
    pub request: ReviewRequest,
    id: String,
    store: Arc<dyn RunStore>,
    target: RunTarget,
    started: Mutex<Option<tokio::sync::oneshot::Sender<String>>>,
}

impl std::fmt::Debug for ReviewRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReviewRun")
            .field("id", &self.id)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl ReviewRun {
    /// The run's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether the run goes on from what an earlier process recorded.
    pub fn resumed(&self) -> bool {
        matches!(self.target, RunTarget::Resume)
    }

    /// Records the run (`units_total` clauses; a resumed run keeps its own) and holds it:
    /// from then on the console shows the run's page. Needs a tokio runtime that lives as
    /// long as the review (the journal's heartbeat runs on it).
    pub async fn journal(&self, units_total: u64) -> Result<Arc<RunJournal>, ReviewError> {
        let store = Arc::clone(&self.store);
        let options = JournalOptions::default();
        let journal = match &self.target {
            RunTarget::New { spec, fingerprint } => {
                let run = NewRun {
                    id: self.id.clone(),
                    kind: REVIEW_KIND.into(),
                    fingerprint: fingerprint.clone(),
                    spec: spec.clone(),
                    units_total,
                };
                RunJournal::create(store, &run, options)
                    .await
                    .map_err(|e| ReviewError(format!("the review could not be recorded: {e}")))?
            }
            RunTarget::Resume => RunJournal::resume(store, &self.id, options)
                .await
                .map_err(|e| ReviewError(format!("review {} cannot go on: {e}", self.id)))?,
        };
        let sender = self
            .started
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(sender) = sender {
            let _ = sender.send(self.id.clone());
        }
        Ok(journal)
    }
}

/// A new run id: the time it started and six random hex digits, sortable (the form
/// `clausewright review` gives its runs).
fn new_run_id() -> String {
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("r{}-{}", Utc::now().format("%Y%m%d-%H%M%S"), &random[..6])
}

/// One of the reviews running at once; the place is given back when it is dropped.
struct Slot(ConsoleState);

impl Slot {
    /// A place, or `Err(running)` when the limit is reached.
    fn take(state: &ConsoleState) -> Result<Self, usize> {
        let max = state.inner.options.max_running_reviews;
        state
            .inner
            .running
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .map(|_| Self(state.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.inner.running.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Deletes finished runs beyond the number kept and older than kept (running ones stay).
async fn prune(state: &ConsoleState) {
    let options = &state.inner.options;
    let age = chrono::Duration::from_std(options.review_ttl).unwrap_or(chrono::Duration::MAX);
    let before = Utc::now()
        .checked_sub_signed(age)
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    match state
        .inner
        .runs
        .prune(options.max_kept_reviews, before)
        .await
    {
        Ok(0) => {}
        Ok(n) => tracing::info!(
            deleted = n,
            "finished runs beyond the console's retention deleted"
        ),
        Err(err) => tracing::warn!(error = %err, "cannot delete old runs"),
    }
}

fn refused(status: StatusCode, title: &str, message: &str) -> Response {
    (status, error_page(title, message)).into_response()
}

/// Starts `request` in the background into `target` once a place is free; returns the
/// run's id once the runner recorded it, or the page saying why it did not start.
pub(crate) async fn launch(
    state: &ConsoleState,
    runner: Arc<dyn ReviewRunner>,
    request: ReviewRequest,
    id: Option<String>,
    target: RunTarget,
) -> Result<String, Response> {
    let slot = Slot::take(state).map_err(|running| {
        refused(
            StatusCode::TOO_MANY_REQUESTS,
            "Review not started",
            &format!(
                "{running} review(s) are running, the most this console runs at once ({}); \
                 start this one when one has finished",
                state.inner.options.max_running_reviews
            ),
        )
    })?;
    prune(state).await;
    let (sender, started) = tokio::sync::oneshot::channel();
    let source = request.source.clone();
    let run = ReviewRun {
        request,
        id: id.unwrap_or_else(new_run_id),
        store: Arc::clone(&state.inner.runs),
        target,
        started: Mutex::new(Some(sender)),
    };
    let worker = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let id = run.id.clone();
        (id, runner.run(run))
    });
    if let Ok(id) = started.await {
        let run = id.clone();
        tokio::spawn(async move {
            match worker.await {
                Ok((_, Ok(()))) => tracing::info!(%run, "console review ended"),
                Ok((_, Err(err))) => tracing::warn!(%run, %err, "console review failed"),
                Err(_) => tracing::warn!(%run, "console review stopped on a panic"),
            }
        });
        return Ok(id);
    }
    let why = match worker.await {
        Ok((_, Err(err))) => err.0,
        Ok((_, Ok(()))) => "the review ended before it was recorded".into(),
        Err(_) => "the review stopped on a panic".into(),
    };
    Err(refused(
        StatusCode::UNPROCESSABLE_ENTITY,
        "Review not started",
        &without_server_paths(&why, &source),
    ))
}

fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// What people read for the contract of a run: the console's label, else the file name
/// `clausewright review` recorded.
fn label(record: &RunRecord) -> String {
    let spec = &record.spec;
    if let Some(label) = spec.get("label").and_then(|l| l.as_str()) {
        return label.to_string();
    }
    spec.get("path")
        .and_then(|p| p.as_str())
        .map(|p| {
            std::path::Path::new(p)
                .file_name()
                .map_or_else(|| p.to_string(), |n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

fn budget(record: &RunRecord, key: &str) -> Option<u64> {
    record.spec.get(key).and_then(serde_json::Value::as_u64)
}

/// `n`, or `n of budget` when the spec gives one.
fn against(n: u64, budget: Option<u64>) -> String {
    match budget {
        Some(b) => format!("{n} of {b}"),
        None => n.to_string(),
    }
}

fn requests_text(r: &RunRecord) -> String {
    against(r.model_requests, budget(r, "budget_requests"))
}

fn tokens_text(r: &RunRecord) -> String {
    format!(
        "{} in, {} out",
        against(r.input_tokens, budget(r, "budget_tokens")),
        against(r.output_tokens, budget(r, "budget_output_tokens"))
    )
}

/// The table of review runs in the store, newest first.
pub(crate) async fn list_markup(state: &ConsoleState) -> Markup {
    let runs = match state.inner.runs.list(LISTED).await {
        Ok(runs) => runs,
        Err(err) => {
            return html! { p.error-text #runs-error { "The run store cannot be read: " (err) } }
        }
    };
    let reviews: Vec<RunRecord> = runs.into_iter().filter(|r| r.kind == REVIEW_KIND).collect();
    html! {
        @if reviews.is_empty() {
            p.hint { "No review yet." }
        } @else {
            table #runs {
                thead { tr {
                    th { "Run" } th { "Contract" } th { "Status" } th { "Clauses" }
                    th { "Model requests" } th { "Tokens" } th { "Started" } th { "Finished" }
                } }
                tbody {
                    @for r in &reviews {
                        @let status = r.status_now();
                        tr {
                            td.mono { a href={ "/reviews/" (r.id) } { (r.id) } }
                            td { (label(r)) }
                            td class={ "status-" (status.as_str()) } { (status.as_str()) }
                            td { (r.units_done) " of " (r.units_total) }
                            td { (requests_text(r)) }
                            td { (tokens_text(r)) }
                            td { (when(r.started_at)) }
                            td { @if let Some(at) = r.finished_at { (when(at)) } }
                        }
                    }
                }
            }
        }
    }
}

/// The console's review runner and its run `id`, or the page that says why either is
/// missing.
async fn runner_and_run(
    state: &ConsoleState,
    id: &str,
) -> Result<(Arc<dyn ReviewRunner>, RunRecord), Response> {
    let Some(runner) = state.inner.reviews.clone() else {
        return Err(no_runner(state));
    };
    Ok((runner, find(state, id).await?))
}

/// The review run `id`, or the page saying there is none.
async fn find(state: &ConsoleState, id: &str) -> Result<RunRecord, Response> {
    match state.inner.runs.get(id).await {
        Ok(Some(record)) if record.kind == REVIEW_KIND => Ok(record),
        Ok(_) => Err(refused(
            StatusCode::NOT_FOUND,
            "Unknown review",
            &format!("no review run `{id}` in the run store"),
        )),
        Err(err) => Err(refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Run store unavailable",
            &format!("review `{id}` cannot be read from the run store: {err}"),
        )),
    }
}

/// The view of a finished run's recorded report.
async fn outcome(
    state: &ConsoleState,
    runner: &dyn ReviewRunner,
    record: &RunRecord,
) -> Result<FinishedReview, String> {
    let text = state
        .inner
        .runs
        .result(&record.id)
        .await
        .map_err(|e| format!("its report cannot be read from the run store: {e}"))?
        .ok_or_else(|| "it finished without a recorded report".to_string())?;
    runner.outcome(record, &text).map_err(|e| e.0)
}

fn facts(r: &RunRecord, status: RunStatus) -> Markup {
    html! {
        table #run-facts {
            tbody {
                tr { th { "Status" } td #run-status { (status.as_str()) } }
                tr { th { "Clauses" } td { (r.units_done) " of " (r.units_total) " reviewed" } }
                tr { th { "Model requests" } td { (requests_text(r)) } }
                tr { th { "Tokens" } td { (tokens_text(r)) } }
                tr { th { "Started" } td { (when(r.started_at)) } }
                @if let Some(at) = r.finished_at { tr { th { "Finished" } td { (when(at)) } } }
            }
        }
    }
}

fn running(state: &ConsoleState, r: &RunRecord) -> Markup {
    html! {
        // A meta refresh (no script) polls until the review is done.
        (PreEscaped("<meta http-equiv=\"refresh\" content=\"1\">"))
        p #progress-text { "Reviewing: " (r.units_done) " of " (r.units_total) " clauses." }
        progress #progress max=(r.units_total.max(1)) value=(r.units_done) {}
        @if r.cancel_requested {
            p.hint #cancel-requested { "Asked to stop: it stops after the clauses under way." }
        } @else {
            form #cancel-form method="post" action={ "/reviews/" (r.id) "/cancel" } {
                (csrf_field(state))
                button type="submit" #review-cancel { "Stop this review" }
            }
        }
    }
}

fn ended(state: &ConsoleState, r: &RunRecord, status: RunStatus) -> Markup {
    let resumable = ConsoleSpec::of_record(&r.spec);
    html! {
        p.error-text #review-error {
            "The review " (status.as_str())
            @if let Some(why) = &r.error { ": " (why) }
            "."
        }
        @match &resumable {
            Ok(_) => form #resume-form method="post" action={ "/reviews/" (r.id) "/resume" } {
                (csrf_field(state))
                button type="submit" #review-resume { "Resume this review" }
                " " span.hint { "Clauses already reviewed and model answers already recorded are not asked for again." }
            },
            Err(why) => p.hint #not-resumable { "It cannot be resumed here: " (why) },
        }
    }
}

/// `GET /reviews/{id}`: the run's facts; its progress while it runs (the page refreshes
/// itself), then its report, or why it ended and how to go on.
pub(crate) async fn run_page(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
) -> Response {
    let (runner, record) = match runner_and_run(&state, &id).await {
        Ok(found) => found,
        Err(page) => return page,
    };
    let status = record.status_now();
    let body = match status {
        RunStatus::Running => running(&state, &record),
        RunStatus::Succeeded => match outcome(&state, runner.as_ref(), &record).await {
            Ok(outcome) => report(&id, &outcome),
            Err(why) => {
                html! { p.error-text #review-error { "The report cannot be shown: " (why) } }
            }
        },
        ended_as => ended(&state, &record, ended_as),
    };
    let body = html! {
        p { a href="/reviews" { "← Reviews" } }
        h1 { "Review " span.mono { (id) } " " span.count { (label(&record)) } }
        (facts(&record, status))
        (body)
    };
    page(&state, Section::Reviews, &format!("Review {id}"), body).into_response()
}

/// `POST /reviews/{id}/cancel`: asks a running review to stop (whichever process runs it).
pub(crate) async fn cancel(State(state): State<ConsoleState>, Path(id): Path<String>) -> Response {
    if state.inner.reviews.is_none() {
        return no_runner(&state);
    }
    let record = match find(&state, &id).await {
        Ok(record) => record,
        Err(page) => return page,
    };
    let status = record.status_now();
    if status != RunStatus::Running {
        return refused(
            StatusCode::CONFLICT,
            "Not running",
            &format!("review {id} is not running (it is {})", status.as_str()),
        );
    }
    match state.inner.runs.request_cancel(&id).await {
        Ok(_) => Redirect::to(&format!("/reviews/{id}")).into_response(),
        Err(err) => refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Not stopped",
            &format!("review {id} could not be asked to stop: {err}"),
        ),
    }
}

/// The request a recorded console spec runs again, or why it cannot.
async fn rebuilt(
    state: &ConsoleState,
    runner: &dyn ReviewRunner,
    record: &RunRecord,
) -> Result<ReviewRequest, String> {
    let spec = ConsoleSpec::of_record(&record.spec)?;
    if spec.fingerprint() != record.fingerprint {
        return Err("its recorded spec does not match its fingerprint".into());
    }
    if spec.model.is_some() && runner.agent_model() != spec.model {
        return Err(format!(
            "it was started with the model {}, and this server has {}",
            spec.model.as_deref().unwrap_or_default(),
            runner
                .agent_model()
                .unwrap_or_else(|| "none configured".to_string())
        ));
    }
    let source = match &spec.sample {
        Some(sample) => {
            if !runner.samples().iter().any(|s| &s.id == sample) {
                return Err(format!("this server offers no sample `{sample}`"));
            }
            ReviewSource::Sample(sample.clone())
        }
        None => ReviewSource::Upload(save_upload(state, spec.file_bytes()?).await?),
    };
    spec.request(source)
}

/// `POST /reviews/{id}/resume`: goes on with an interrupted, failed or cancelled review
/// the console started, from its recorded spec.
pub(crate) async fn resume(State(state): State<ConsoleState>, Path(id): Path<String>) -> Response {
    let (runner, record) = match runner_and_run(&state, &id).await {
        Ok(found) => found,
        Err(page) => return page,
    };
    let status = record.status_now();
    if !matches!(
        status,
        RunStatus::Interrupted | RunStatus::Failed | RunStatus::Cancelled
    ) {
        return refused(
            StatusCode::CONFLICT,
            "Not resumed",
            &format!(
                "review {id} is {}; only an interrupted, failed or cancelled review goes on",
                status.as_str()
            ),
        );
    }
    let request = match rebuilt(&state, runner.as_ref(), &record).await {
        Ok(request) => request,
        Err(why) => {
            return refused(
                StatusCode::CONFLICT,
                "Not resumed",
                &format!("review {id} cannot be resumed here: {why}"),
            )
        }
    };
    match launch(&state, runner, request, Some(id), RunTarget::Resume).await {
        Ok(id) => Redirect::to(&format!("/reviews/{id}")).into_response(),
        Err(page) => page,
    }
}

async fn download(state: &ConsoleState, id: &str, json: bool) -> Response {
    let Some(runner) = state.inner.reviews.clone() else {
        return no_runner(state);
    };
    let record = match find(state, id).await {
        Ok(record) => record,
        Err(page) => return page,
    };
    if record.status_now() != RunStatus::Succeeded {
        return refused(
            StatusCode::CONFLICT,
            "Not finished",
            &format!("review {id} has no report yet"),
        );
    }
    let outcome = match outcome(state, runner.as_ref(), &record).await {
        Ok(outcome) => outcome,
        Err(why) => {
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "No report",
                &format!("review {id}: {why}"),
            )
        }
    };
    let (kind, ext, text) = if json {
        ("application/json", "json", outcome.json)
    } else {
        ("text/markdown; charset=utf-8", "md", outcome.markdown)
    };
    (
        [
            (header::CONTENT_TYPE, kind.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"review-{id}.{ext}\""),
            ),
        ],
        text,
    )
        .into_response()
}

/// `GET /reviews/{id}/report.md`.
pub(crate) async fn download_markdown(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
) -> Response {
    download(&state, &id, false).await
}

/// `GET /reviews/{id}/report.json`.
pub(crate) async fn download_json(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
) -> Response {
    download(&state, &id, true).await
}
