//! Reviews: the console knows no contract domain; a host plugs one in as a [`ReviewRunner`].
//! A review started here is a durable run in the console's run store
//! ([`toolwright::runs`]): it runs on a blocking thread of its own, its page shows its
//! progress as the store records it (refreshed by the browser, no script), then the risks
//! by clause with their evidence and the report to download as Markdown or JSON. The page
//! lists every review run in the store, also those another process started. No page waits
//! for a running review.

use axum::extract::{Multipart, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use clausewright_report::ReviewReport;
use maud::html;

use crate::layout::{csrf_field, error_page, page, Section};
use crate::review_runs::{self, ReviewRun, RunTarget};
use crate::review_spec::{ConsoleSpec, FormReview};
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

/// A finished review as the console shows it: the library's report, with what the host
/// makes of it for people (the downloads, and how the clauses were judged), which the
/// console does not derive itself.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedReview {
    /// The report: the risks by clause for the table, an orchestrated review's plan.
    pub report: ReviewReport,
    /// The report as Markdown.
    pub markdown: String,
    /// The report as JSON.
    pub json: String,
    /// How the clauses were judged, in a sentence (the mode, the model, clauses the model
    /// could not judge).
    pub method: String,
}

/// Why a review could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ReviewError(pub String);

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
    /// Runs one review to its end on the calling (blocking) thread: reads its inputs,
    /// records it in the store through [`ReviewRun::journal`] (the console shows its page
    /// from then on), reviews, and ends the run with the report as its result. An `Err`
    /// before the journal is taken is shown to the person as why the review did not start.
    fn run(&self, run: ReviewRun) -> Result<(), ReviewError>;
    /// The report a finished review run recorded as its result, read back, with its
    /// downloads and method (`record` tells how it was run: its spec holds `mode` and
    /// `model`).
    fn outcome(
        &self,
        record: &toolwright::runs::RunRecord,
        result: &str,
    ) -> Result<FinishedReview, ReviewError>;
}

pub(crate) fn no_runner(state: &ConsoleState) -> Response {
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

/// `GET /reviews`: the form and the review runs in the store.
pub(crate) async fn reviews_page(State(state): State<ConsoleState>) -> Response {
    let Some(runner) = state.inner.reviews.clone() else {
        return no_runner(&state);
    };
    let samples = runner.samples();
    let domains = runner.domains();
    let agent_model = runner.agent_model();
    let upload_limit = crate::security::human_bytes(state.inner.options.max_upload_bytes);
    let listed = review_runs::list_markup(&state).await;
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
        h2 { "Runs" }
        (listed)
    };
    page(&state, Section::Reviews, "Reviews", body).into_response()
}

/// `POST /reviews` (multipart): records a review as a run, starts it in the background and
/// shows its page.
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
    let (label, spec) = match contract(&state, runner.as_ref(), sample, files, &mut request).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    tracing::debug!(contract = %label, "console review asked for");
    let target = RunTarget::New {
        fingerprint: spec.fingerprint(),
        spec: spec.to_value(),
    };
    match review_runs::launch(&state, runner, request, None, target).await {
        Ok(id) => Redirect::to(&format!("/reviews/{id}")).into_response(),
        Err(refused) => refused,
    }
}

/// What to review: the sample chosen, or the files uploaded saved in a private folder; its
/// label and the spec its run records, or the page saying why not.
async fn contract(
    state: &ConsoleState,
    runner: &dyn ReviewRunner,
    sample: String,
    files: Vec<(String, Vec<u8>)>,
    request: &mut ReviewRequest,
) -> Result<(String, ConsoleSpec), Response> {
    let model = runner.agent_model();
    let (label, spec) = if !sample.is_empty() {
        let Some(found) = runner.samples().into_iter().find(|s| s.id == sample) else {
            return Err(bad_request(&format!("no sample `{sample}`")));
        };
        let spec = ConsoleSpec::of_form(&FormReview {
            label: &found.title,
            sample: Some(&sample),
            files: &[],
            request,
            model,
        });
        request.source = ReviewSource::Sample(sample);
        (found.title, spec)
    } else if !files.is_empty() {
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        if names.len() > 1 {
            if let Err(why) = runner.check_upload(&crate::uploads::saved_names(&names)) {
                return Err(bad_request(&why));
            }
        }
        let label = names.join(", ");
        let spec = ConsoleSpec::of_form(&FormReview {
            label: &label,
            sample: None,
            files: &files,
            request,
            model,
        });
        match save_upload(state, files).await {
            Ok(saved) => request.source = ReviewSource::Upload(saved),
            Err(why) => {
                return Err((
                    StatusCode::INTERNAL_SERVER_ERROR,
                    error_page("Review not started", &why),
                )
                    .into_response())
            }
        }
        (label, spec)
    } else {
        return Err(bad_request("choose a sample or upload a contract"));
    };
    Ok((label, spec))
}

/// Saves uploaded files in a private folder of their own, or says why they could not be.
pub(crate) async fn save_upload(
    state: &ConsoleState,
    files: Vec<(String, Vec<u8>)>,
) -> Result<crate::UploadedFiles, String> {
    let saver = state.clone();
    tokio::task::spawn_blocking(move || match &saver.inner.uploads {
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
    .unwrap_or_else(|_| Err("the upload could not be saved on the server".into()))
}

/// A failure as people should read it: uploaded files by the names they were sent under,
/// the server's upload folder not shown.
pub(crate) fn without_server_paths(message: &str, source: &ReviewSource) -> String {
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
