// Over 700 lines, kept whole: the review page's handlers, its run registry and the view of
// the report it renders. The view mirrors the report's fields because the console links no
// review library (it knows no contract domain); the host converts once.

//! Reviews: the console knows no contract domain; a host plugs one in as a [`ReviewRunner`].
//! A review runs on a blocking thread of its own; its page shows a progress bar (refreshed
//! by the browser, no script) while it runs, then the risks by clause with their evidence
//! and the report to download as Markdown or JSON. No page waits for a running review.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{Multipart, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup, PreEscaped};

use crate::layout::{csrf_field, error_page, page, Section};
use crate::ConsoleState;

/// A contract that comes with the host, offered on the reviews page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewSample {
    /// What the form sends back to pick it.
    pub id: String,
    /// What people read.
    pub title: String,
}

/// What to review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewSource {
    /// A sample, by its [`ReviewSample::id`].
    Sample(String),
    /// Uploaded files (a contract, or the files of a folder: contract, standard form,
    /// references), saved in a private folder under distinct names; the folder is removed
    /// when the review is over.
    Upload(crate::UploadedFiles),
}

/// One review asked for on the reviews page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRequest {
    /// The contract.
    pub source: ReviewSource,
    /// The domain (one of [`ReviewRunner::domains`]; empty lets the runner guess).
    pub domain: String,
    /// The party the review acts for.
    pub our_party: String,
    /// Language of the review (`en`, `zh-CN`).
    pub language: String,
    /// Who judges the clauses.
    pub mode: ReviewMode,
    /// Model requests the whole review may make at most ([`ReviewMode::Orchestrate`]).
    pub budget_requests: Option<u64>,
}

/// Who judges the clauses of a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReviewMode {
    /// Fixed rules over the skills' outputs (deterministic, no model).
    #[default]
    Checklist,
    /// A model chooses the skills and judges the clauses (needs
    /// [`ReviewRunner::agent_model`]).
    Agent,
    /// A planner model decides which clauses get a deep review by the model and which a
    /// quick one by the rules, within a budget, and sums up (needs
    /// [`ReviewRunner::agent_model`]).
    Orchestrate,
}

impl ReviewMode {
    /// `checklist`, `agent`, `orchestrate`: what the form sends.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewMode::Checklist => "checklist",
            ReviewMode::Agent => "agent",
            ReviewMode::Orchestrate => "orchestrate",
        }
    }
}

/// How a planner organised a review ([`ReviewMode::Orchestrate`]), for the review page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReviewPlan {
    /// The planner's summary for a person (`None` when it failed).
    pub summary: Option<String>,
    /// The budget used against the budget given, in a sentence.
    pub budget: String,
    /// Why the rules' review stands instead of the planner's, when it failed.
    pub fallback: Option<String>,
    /// Every clause: how deeply it was reviewed and why.
    pub clauses: Vec<PlannedClause>,
    /// Findings that span clauses.
    pub cross_clause: Vec<CrossClauseRisk>,
}

/// One clause of a [`ReviewPlan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedClause {
    /// The clause.
    pub clause_id: String,
    /// `deep`, `quick` or `none`.
    pub depth: String,
    /// The planner's reason.
    pub reason: String,
    /// Model turns and tokens of its deep review, when it had one.
    pub turns_tokens: Option<(usize, u64)>,
}

/// A finding that spans clauses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrossClauseRisk {
    /// Every clause involved.
    pub clause_ids: Vec<String>,
    /// How serious.
    pub level: ReviewLevel,
    /// What the clauses do together.
    pub description: String,
}

/// How serious a risk is, for the level colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReviewLevel {
    /// Loss of a right, unlimited exposure, a contradiction.
    High,
    /// Needs negotiation.
    Medium,
    /// Worth noting.
    Low,
}

impl ReviewLevel {
    /// `high`, `medium`, `low`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewLevel::High => "high",
            ReviewLevel::Medium => "medium",
            ReviewLevel::Low => "low",
        }
    }
}

/// One risk of a finished review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRisk {
    /// The clause it is in.
    pub clause_id: String,
    /// How serious.
    pub level: ReviewLevel,
    /// Short machine-readable type.
    pub risk_type: String,
    /// Whether the risk is that the contract lacks a provision of `risk_type` (shown as
    /// "missing"), rather than something a clause says.
    pub missing: bool,
    /// What the risk is.
    pub description: String,
    /// Why it is a risk.
    pub reason: String,
    /// The evidence: the analysis and the contract's words.
    pub evidence: String,
}

/// A finished review: the risks for the table and the report in both download formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewOutcome {
    /// What was reviewed (document id).
    pub title: String,
    /// Clauses reviewed.
    pub clauses: usize,
    /// Every risk, clause by clause.
    pub risks: Vec<ReviewRisk>,
    /// The report as Markdown.
    pub markdown: String,
    /// The report as JSON.
    pub json: String,
    /// How the clauses were judged, in a sentence (the mode, the model, clauses the model
    /// could not judge).
    pub method: String,
    /// How a planner organised it (orchestrated reviews only).
    pub plan: Option<ReviewPlan>,
}

/// Why a review could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ReviewError(pub String);

/// Called after each reviewed clause with the clauses done and the clauses in all.
pub type ProgressFn<'a> = &'a (dyn Fn(usize, usize) + Send + Sync);

/// Runs reviews for the console; the host implements it with its review library.
pub trait ReviewRunner: Send + Sync {
    /// The samples offered.
    fn samples(&self) -> Vec<ReviewSample>;
    /// The domains to choose from.
    fn domains(&self) -> Vec<String>;
    /// The model agent reviews use (for example `gpt-4o-mini at https://api.openai.com/v1`),
    /// `None` when none is configured: the form then offers the checklist only.
    fn agent_model(&self) -> Option<String> {
        None
    }
    /// Whether files uploaded together make one review, by the names they are saved under
    /// ([`UploadedFile::saved_as`](crate::UploadedFile::saved_as): `my contract.md` is
    /// `my_contract.md`; two or more names): `Err` with the reason, shown to the person with
    /// status 400 before anything is saved (for example two contracts, where a review reads
    /// one). Accepts any by default.
    fn check_upload(&self, names: &[String]) -> Result<(), String> {
        let _ = names;
        Ok(())
    }
    /// Runs one review to its end (on a blocking thread), telling `progress` as clauses
    /// finish.
    fn run(
        &self,
        request: &ReviewRequest,
        progress: ProgressFn<'_>,
    ) -> Result<ReviewOutcome, ReviewError>;
}

#[derive(Debug, Clone)]
enum JobState {
    Running { done: usize, total: usize },
    Done(Arc<ReviewOutcome>),
    Failed(String),
}

#[derive(Debug, Clone)]
struct Job {
    label: String,
    state: JobState,
    /// When it finished (done or failed); `None` while it runs.
    finished: Option<Instant>,
}

/// Reviews started from this console.
#[derive(Debug, Default)]
pub(crate) struct Jobs {
    next: AtomicU64,
    jobs: Mutex<HashMap<u64, Job>>,
}

impl Jobs {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Job>> {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set(&self, id: u64, state: JobState) {
        if let Some(job) = self.lock().get_mut(&id) {
            if !matches!(state, JobState::Running { .. }) {
                job.finished = Some(Instant::now());
            }
            job.state = state;
        }
    }

    /// Registers a review to start, or `Err(running)` when `limits` allow no more at once.
    /// Finished reviews past their time or beyond the number kept (oldest first) go.
    fn admit(&self, label: String, limits: &crate::ConsoleOptions) -> Result<u64, usize> {
        let mut jobs = self.lock();
        let now = Instant::now();
        jobs.retain(|_, job| {
            job.finished
                .is_none_or(|at| now.duration_since(at) < limits.review_ttl)
        });
        let running = jobs.values().filter(|j| j.finished.is_none()).count();
        if running >= limits.max_running_reviews {
            return Err(running);
        }
        let mut finished: Vec<u64> = jobs
            .iter()
            .filter(|(_, j)| j.finished.is_some())
            .map(|(id, _)| *id)
            .collect();
        finished.sort_unstable();
        let excess = finished.len().saturating_sub(limits.max_kept_reviews);
        for id in &finished[..excess] {
            jobs.remove(id);
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        jobs.insert(
            id,
            Job {
                label,
                state: JobState::Running { done: 0, total: 0 },
                finished: None,
            },
        );
        Ok(id)
    }

    fn get(&self, id: u64) -> Option<Job> {
        self.lock().get(&id).cloned()
    }

    fn list(&self) -> Vec<(u64, Job)> {
        let mut all: Vec<(u64, Job)> = self.lock().iter().map(|(k, v)| (*k, v.clone())).collect();
        all.sort_by_key(|(id, _)| std::cmp::Reverse(*id));
        all
    }
}

fn no_runner(state: &ConsoleState) -> Response {
    (
        StatusCode::NOT_FOUND,
        page(
            state,
            Section::Reviews,
            "Reviews",
            html! { h1 { "Reviews" } p #no-reviews { "This server runs no reviews." } },
        ),
    )
        .into_response()
}

/// `GET /reviews`: the form and the reviews started.
pub(crate) async fn reviews_page(State(state): State<ConsoleState>) -> Response {
    let Some(runner) = state.inner.reviews.clone() else {
        return no_runner(&state);
    };
    let samples = runner.samples();
    let domains = runner.domains();
    let agent_model = runner.agent_model();
    let upload_limit = crate::security::human_bytes(state.inner.options.max_upload_bytes);
    let jobs = state.inner.jobs.list();
    let body = html! {
        h1 { "Reviews" }
        form #review-form method="post" action="/reviews" enctype="multipart/form-data" {
            (csrf_field(&state))
            div.field {
                label for="sample" { "Sample contract" }
                select id="sample" name="sample" {
                    option value="" { "(upload instead)" }
                    @for s in &samples { option value=(s.id) { (s.title) } }
                }
            }
            div.field {
                label for="files" { "Or upload " small { "Markdown, text, JSON, Word or PDF, up to " (upload_limit) " in all; several files for a contract with its standard form and references" } }
                input type="file" id="files" name="files" multiple accept=".md,.markdown,.txt,.json,.docx,.pdf";
            }
            div.field {
                label for="domain" { "Domain" }
                select id="domain" name="domain" {
                    option value="" { "(guess)" }
                    @for d in &domains { option value=(d) { (d) } }
                }
            }
            div.field {
                label for="our_party" { "Our party" }
                input type="text" id="our_party" name="our_party" placeholder="e.g. Contractor";
            }
            div.field {
                label for="language" { "Language" }
                select id="language" name="language" {
                    option value="en" { "en" }
                    option value="zh-CN" { "zh-CN" }
                }
            }
            div.field {
                label for="mode" { "Mode" }
                select id="mode" name="mode" {
                    option value="checklist" { "checklist (rules over the skills' outputs)" }
                    @match &agent_model {
                        Some(model) => {
                            option value="agent" { "agent (the model chooses the skills: " (model) ")" }
                            option value="orchestrate" { "orchestrate (a planner sends clauses to deep or quick reviews: " (model) ")" }
                        },
                        None => {
                            option value="agent" disabled { "agent (no model configured)" }
                            option value="orchestrate" disabled { "orchestrate (no model configured)" }
                        },
                    }
                }
            }
            div.field {
                label for="budget_requests" { "Model requests at most " small { "orchestrate only; empty: no limit" } }
                input type="number" id="budget_requests" name="budget_requests" min="1";
            }
            button type="submit" #review-submit { "Start review" }
        }
        h2 { "Started" }
        @if jobs.is_empty() {
            p.hint { "No review yet." }
        } @else {
            table #jobs {
                thead { tr { th { "Review" } th { "Contract" } th { "State" } } }
                tbody {
                    @for (id, job) in &jobs {
                        tr {
                            td { a href={ "/reviews/" (id) } { "#" (id) } }
                            td { (job.label) }
                            td { (state_text(&job.state)) }
                        }
                    }
                }
            }
        }
    };
    page(&state, Section::Reviews, "Reviews", body).into_response()
}

fn state_text(state: &JobState) -> String {
    match state {
        JobState::Running { done, total } => format!("running: {done} of {total} clauses"),
        JobState::Done(outcome) => format!("done: {} risks", outcome.risks.len()),
        JobState::Failed(why) => format!("failed: {why}"),
    }
}

/// `POST /reviews` (multipart): starts a review in the background and shows its page.
pub(crate) async fn start(State(state): State<ConsoleState>, mut form: Multipart) -> Response {
    let Some(runner) = state.inner.reviews.clone() else {
        return no_runner(&state);
    };
    let mut sample = String::new();
    let mut files = Vec::new();
    let mut request = ReviewRequest {
        source: ReviewSource::Sample(String::new()),
        domain: String::new(),
        our_party: String::new(),
        language: "en".into(),
        mode: ReviewMode::Checklist,
        budget_requests: None,
    };
    let mut mode = String::new();
    let mut budget = String::new();
    loop {
        let field = match form.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(err) => return bad_request(&format!("the form could not be read: {err}")),
        };
        let name = field.name().unwrap_or_default().to_string();
        let file_name = field.file_name().map(str::to_string);
        let bytes = match field.bytes().await {
            Ok(bytes) => bytes,
            Err(err) => return bad_request(&format!("field `{name}` could not be read: {err}")),
        };
        let text = || String::from_utf8_lossy(&bytes).trim().to_string();
        match name.as_str() {
            "sample" => sample = text(),
            "domain" => request.domain = text(),
            "our_party" => request.our_party = text(),
            "language" => request.language = text(),
            "mode" => mode = text(),
            "budget_requests" => budget = text(),
            "files" => {
                if let Some(file_name) = file_name.filter(|n| !n.is_empty()) {
                    if !bytes.is_empty() {
                        files.push((file_name, bytes.to_vec()));
                    }
                }
            }
            _ => {}
        }
    }
    let domains = runner.domains();
    if !request.domain.is_empty() && !domains.contains(&request.domain) {
        return bad_request(&format!(
            "unknown domain `{}`; expected one of: {}",
            request.domain,
            domains.join(", ")
        ));
    }
    request.mode = match mode.as_str() {
        "" | "checklist" => ReviewMode::Checklist,
        "agent" | "orchestrate" if runner.agent_model().is_none() => {
            return bad_request(&format!(
                "{mode} mode needs a model and this server has none configured; choose the checklist mode"
            ))
        }
        "agent" => ReviewMode::Agent,
        "orchestrate" => ReviewMode::Orchestrate,
        other => {
            return bad_request(&format!(
                "unknown mode `{other}`; expected `checklist`, `agent` or `orchestrate`"
            ))
        }
    };
    if !budget.is_empty() {
        match budget.parse::<u64>() {
            Ok(n) if n >= 1 => request.budget_requests = Some(n),
            _ => {
                return bad_request(&format!(
                    "`budget_requests` is `{budget}`; expected a whole number of model requests, at least 1, or nothing"
                ))
            }
        }
    }
    let label = if !sample.is_empty() {
        let Some(found) = runner.samples().into_iter().find(|s| s.id == sample) else {
            return bad_request(&format!("no sample `{sample}`"));
        };
        request.source = ReviewSource::Sample(sample);
        found.title
    } else if !files.is_empty() {
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        if names.len() > 1 {
            if let Err(why) = runner.check_upload(&crate::uploads::saved_names(&names)) {
                return bad_request(&why);
            }
        }
        let label = names.join(", ");
        let saver = state.clone();
        let saved = tokio::task::spawn_blocking(move || match &saver.inner.uploads {
            Ok(root) => root.save(files).map_err(|err| {
                tracing::warn!(%err, "upload not saved");
                format!(
                    "the upload could not be saved on the server ({})",
                    err.kind()
                )
            }),
            Err(why) => Err(why.clone()),
        })
        .await
        .unwrap_or_else(|_| Err("the upload could not be saved on the server".into()));
        match saved {
            Ok(saved) => request.source = ReviewSource::Upload(saved),
            Err(why) => {
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    error_page("Review not started", &why),
                )
                    .into_response()
            }
        }
        label
    } else {
        return bad_request("choose a sample or upload a contract");
    };
    let limits = &state.inner.options;
    let id = match state.inner.jobs.admit(label, limits) {
        Ok(id) => id,
        Err(running) => {
            return (
                StatusCode::TOO_MANY_REQUESTS,
                error_page(
                    "Review not started",
                    &format!(
                        "{running} review(s) are running, the most this console runs at once \
                         ({}); start this one when one has finished",
                        limits.max_running_reviews
                    ),
                ),
            )
                .into_response()
        }
    };
    let worker = state.clone();
    tokio::task::spawn_blocking(move || {
        let report = |done: usize, total: usize| {
            worker.inner.jobs.set(id, JobState::Running { done, total });
        };
        let outcome = runner.run(&request, &report);
        let next = match outcome {
            Ok(outcome) => JobState::Done(Arc::new(outcome)),
            Err(err) => JobState::Failed(without_server_paths(&err.0, &request.source)),
        };
        tracing::info!(review = id, state = %state_text(&next), "console review finished");
        worker.inner.jobs.set(id, next);
    });
    Redirect::to(&format!("/reviews/{id}")).into_response()
}

/// A failure as people should read it: uploaded files by the names they were sent under,
/// the server's upload folder not shown.
fn without_server_paths(message: &str, source: &ReviewSource) -> String {
    let ReviewSource::Upload(upload) = source else {
        return message.to_string();
    };
    let mut text = message.to_string();
    for file in upload.files() {
        text = text.replace(&file.path.display().to_string(), &file.name);
    }
    text.replace(&upload.folder().display().to_string(), "the uploaded files")
}

fn bad_request(message: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        error_page("Review not started", message),
    )
        .into_response()
}

fn find_job(state: &ConsoleState, id: &str) -> Option<Job> {
    id.parse().ok().and_then(|id| state.inner.jobs.get(id))
}

fn unknown_job(id: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        error_page(
            "Unknown review",
            &format!("no review `{id}` was started here"),
        ),
    )
        .into_response()
}

/// `GET /reviews/{id}`: progress while it runs (the page refreshes itself), then the report.
pub(crate) async fn job_page(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
) -> Response {
    let Some(job) = find_job(&state, &id) else {
        return unknown_job(&id);
    };
    let body = html! {
        p { a href="/reviews" { "← Reviews" } }
        h1 { "Review #" (id) " " span.count { (job.label) } }
        @match &job.state {
            JobState::Running { done, total } => {
                // A meta refresh (no script) polls until the review is done.
                (PreEscaped("<meta http-equiv=\"refresh\" content=\"1\">"))
                p #progress-text { "Reviewing: " (done) " of " (total) " clauses." }
                progress #progress max=((*total).max(1)) value=(done) {}
            },
            JobState::Failed(why) => p.error-text #review-error { "The review failed: " (why) },
            JobState::Done(outcome) => (report(&id, outcome)),
        }
    };
    page(&state, Section::Reviews, &format!("Review #{id}"), body).into_response()
}

fn report(id: &str, outcome: &ReviewOutcome) -> Markup {
    let count = |level: ReviewLevel| outcome.risks.iter().filter(|r| r.level == level).count();
    html! {
        p #review-summary {
            (outcome.title) ": " (outcome.clauses) " clauses reviewed, " (outcome.risks.len()) " risks ("
            span.badge.level-high { (count(ReviewLevel::High)) " high" } " "
            span.badge.level-medium { (count(ReviewLevel::Medium)) " medium" } " "
            span.badge.level-low { (count(ReviewLevel::Low)) " low" } ")"
        }
        p #review-method.hint { (outcome.method) }
        @if let Some(plan) = &outcome.plan { (plan_section(plan)) }
        p {
            a #download-md href={ "/reviews/" (id) "/report.md" } download { "Download Markdown" } " · "
            a #download-json href={ "/reviews/" (id) "/report.json" } download { "Download JSON" }
        }
        @if outcome.risks.is_empty() {
            p.hint { "No risk found." }
        } @else {
            table #risks {
                thead { tr { th { "Clause" } th { "Level" } th { "Risk" } } }
                tbody {
                    @for r in &outcome.risks {
                        tr {
                            td.mono { (r.clause_id) }
                            td class={ "level-" (r.level.as_str()) } { (r.level.as_str()) }
                            td {
                                details {
                                    summary {
                                        @if r.missing { span.missing { "missing" } " " }
                                        (r.description) " " span.hint.mono { (r.risk_type) }
                                    }
                                    p { strong { "Why: " } (r.reason) }
                                    pre.evidence { (r.evidence) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The plan of an orchestrated review: the budget, the summary, every clause's depth and
/// reason, the findings across clauses.
fn plan_section(plan: &ReviewPlan) -> Markup {
    html! {
        section #review-plan {
            h2 { "Plan" }
            p #plan-budget { "Budget used: " (plan.budget) }
            @if let Some(why) = &plan.fallback {
                p.error-text #plan-fallback { "The planner failed; the rules' review stands: " (why) }
            }
            @if let Some(summary) = &plan.summary { p #plan-summary { (summary) } }
            @if !plan.cross_clause.is_empty() {
                h3 { "Across clauses" }
                table #cross-clause {
                    thead { tr { th { "Clauses" } th { "Level" } th { "Finding" } } }
                    tbody {
                        @for c in &plan.cross_clause {
                            tr {
                                td.mono { (c.clause_ids.join(", ")) }
                                td class={ "level-" (c.level.as_str()) } { (c.level.as_str()) }
                                td { (c.description) }
                            }
                        }
                    }
                }
            }
            table #plan-clauses {
                thead { tr { th { "Clause" } th { "Review" } th { "Turns" } th { "Tokens" } th { "Why" } } }
                tbody {
                    @for c in &plan.clauses {
                        tr {
                            td.mono { (c.clause_id) }
                            td { (c.depth) }
                            td { @if let Some((turns, _)) = c.turns_tokens { (turns) } }
                            td { @if let Some((_, tokens)) = c.turns_tokens { (tokens) } }
                            td { (c.reason) }
                        }
                    }
                }
            }
        }
    }
}

fn download(state: &ConsoleState, id: &str, json: bool) -> Response {
    let Some(job) = find_job(state, id) else {
        return unknown_job(id);
    };
    let JobState::Done(outcome) = job.state else {
        return (
            StatusCode::CONFLICT,
            error_page("Not finished", &format!("review {id} has no report yet")),
        )
            .into_response();
    };
    let (kind, ext, text) = if json {
        ("application/json", "json", outcome.json.clone())
    } else {
        (
            "text/markdown; charset=utf-8",
            "md",
            outcome.markdown.clone(),
        )
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
    download(&state, &id, false)
}

/// `GET /reviews/{id}/report.json`.
pub(crate) async fn download_json(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
) -> Response {
    download(&state, &id, true)
}
