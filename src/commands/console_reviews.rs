//! The console's reviews, run with the contract-review library: bundled samples or uploaded
//! files, by the checklist or, when the environment configures a model, by the agent, each
//! a durable run in the console's run store ([`review_as_run`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolwright::runs::{MemoryRunStore, RunRecord, RunStore};
use toolwright::Dispatcher;
use toolwright_console::{
    FinishedReview, ReviewError, ReviewMode, ReviewRun, ReviewRunner, ReviewSample, ReviewSource,
};

use super::review::ClassifierOptions;
use clausewright_skills::review::{
    render_json, render_markdown, review_as_run, ContractFolder, Domain, OrchestrateSettings,
    ReviewAgent, ReviewInputError, ReviewInputs, ReviewOptions, ReviewReport, RunModel,
};

/// `serve`'s limits on the console's reviews (RELIABILITY.md): how many run at once, and how
/// many finished runs the run store keeps and for how long.
#[derive(Debug, Clone, clap::Args)]
pub struct ReviewLimitArgs {
    /// Console reviews running at once; another start is answered 429 until one ends.
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u64).range(1..=64),
          requires = "http", conflicts_with = "no_console")]
    max_reviews: u64,
    /// Finished runs kept in the run store: at each console review start the oldest beyond
    /// it are deleted from the store (runs of any kind, also those `review` recorded there;
    /// running ones stay), and their pages answer 404.
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(0..=10_000),
          requires = "http", conflicts_with = "no_console")]
    keep_reviews: u64,
    /// Seconds a finished run is kept in the run store: at each console review start older
    /// ones are deleted from the store.
    #[arg(long, value_name = "SECONDS", default_value_t = 30 * 24 * 3600,
          value_parser = clap::value_parser!(u64).range(1..=36_500 * 24 * 3600),
          requires = "http", conflicts_with = "no_console")]
    keep_reviews_for: u64,
}

impl ReviewLimitArgs {
    /// `options` with these limits.
    pub fn apply(
        &self,
        options: toolwright_console::ConsoleOptions,
    ) -> toolwright_console::ConsoleOptions {
        options.review_limits(
            usize::try_from(self.max_reviews).unwrap_or(usize::MAX),
            usize::try_from(self.keep_reviews).unwrap_or(usize::MAX),
            std::time::Duration::from_secs(self.keep_reviews_for),
        )
    }
}

/// Where the console records its reviews: the main store of `serve --store` when given,
/// else the store `review` records in by default (`$CLAUSEWRIGHT_STORE`, else the user's
/// SQLite file); when that cannot be opened, memory (with a warning: the reviews go with
/// the server).
pub async fn run_store(stores: Option<&toolwright_packs::Stores>) -> Arc<dyn RunStore> {
    if let Some(stores) = stores {
        return Arc::clone(&stores.runs);
    }
    match super::run_store::open(&super::run_store::StoreArgs::default()).await {
        Ok(store) => {
            tracing::info!(store = %store.shown, "the console records its reviews here");
            store.runs
        }
        Err(err) => {
            tracing::warn!(%err, "the console keeps its reviews in memory");
            Arc::new(MemoryRunStore::new())
        }
    }
}

/// Reviews contracts for the console with the skills of `dispatcher`.
pub struct LibraryReviews {
    dispatcher: Dispatcher,
    samples_dir: Option<PathBuf>,
    agent: Option<ReviewAgent>,
    classifier: ClassifierOptions,
}

impl LibraryReviews {
    /// Offers the folders of `samples/` (here, else next to the sources) as samples, and the
    /// agent mode when `agent` is given.
    pub fn new(dispatcher: Dispatcher, agent: Option<ReviewAgent>) -> Self {
        let samples_dir = [
            PathBuf::from("samples"),
            Path::new(env!("CARGO_MANIFEST_DIR")).join("samples"),
        ]
        .into_iter()
        .find(|p| p.is_dir());
        Self {
            dispatcher,
            samples_dir,
            agent,
            classifier: ClassifierOptions::default(),
        }
    }

    /// Reviews with this provision model and playbook (default: the built-in ones), or
    /// with the keyword rules only.
    pub fn classifier(mut self, classifier: ClassifierOptions) -> Self {
        self.classifier = classifier;
        self
    }

    /// The agent of the model the environment configures (the variables `review --agent`
    /// reads), whether or not USE_REACT_AGENT is set: in the console the person chooses
    /// the mode. `None`, with a warning, when no model is configured or it cannot be used.
    pub fn agent_from_env() -> Option<ReviewAgent> {
        let lookup = |name: &str| match name {
            clausewright_skills::review::ENV_USE_REACT_AGENT => Some("true".to_string()),
            _ => std::env::var(name).ok(),
        };
        match ReviewAgent::from_lookup(lookup) {
            Ok(agent) => agent,
            Err(err) => {
                tracing::warn!(%err, "the console offers the checklist mode only");
                None
            }
        }
    }
}

/// How the report's clauses were judged, in one sentence; `model` names the model of the
/// agent and orchestrated modes (as the run's spec recorded it).
fn method(report: &ReviewReport, mode: &str, model: Option<&str>) -> String {
    if mode == "checklist" && report.summary.model_turns == 0 {
        return "Checklist mode: fixed rules over the skills' outputs.".into();
    }
    let model = model.unwrap_or("the model");
    let summary = &report.summary;
    let mut text = match &report.orchestration {
        Some(_) => format!(
            "Orchestrated ({model}): a planner sent {} of {} clause(s) to a deep review by the model",
            summary.react_clauses + summary.react_fallbacks,
            summary.clauses_reviewed
        ),
        None => format!(
            "Agent mode ({model}): {} of {} clause(s) judged by the model",
            summary.react_clauses, summary.clauses_reviewed
        ),
    };
    if summary.react_fallbacks > 0 {
        text.push_str(&format!(
            ", {} by the checklist after the model failed on them",
            summary.react_fallbacks
        ));
    }
    if summary.model_turns > 0 {
        text.push_str(&format!(
            "; {} model turn(s), {} input and {} output tokens",
            summary.model_turns, summary.usage.prompt_tokens, summary.usage.completion_tokens
        ));
    }
    text.push('.');
    text
}

/// A folder holding two files for one role, told to a person at the console: upload one
/// contract with the files that go with it, and start another review for the next.
fn several_in_upload(role: &str, files: &[String]) -> String {
    format!(
        "the upload holds several {role} ({}) and a review reads one: upload one contract \
         with the files that go with it (general_conditions, particular_conditions, \
         employers_requirements, a checklist, criteria, named so), and start another review \
         for the next",
        files.join(", ")
    )
}

impl ReviewRunner for LibraryReviews {
    fn check_upload(&self, names: &[String]) -> Result<(), String> {
        match ContractFolder::of_files(Path::new("upload"), names.iter().map(PathBuf::from)) {
            Err(ReviewInputError::SeveralForOneRole { role, files, .. }) => {
                Err(several_in_upload(role, &files))
            }
            _ => Ok(()),
        }
    }

    fn samples(&self) -> Vec<ReviewSample> {
        let Some(dir) = &self.samples_dir else {
            return Vec::new();
        };
        let mut samples: Vec<ReviewSample> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().into_string().ok())
            .map(|name| ReviewSample {
                title: format!("samples/{name}"),
                id: name,
            })
            .collect();
        samples.sort_by(|a, b| a.id.cmp(&b.id));
        samples
    }

    fn domains(&self) -> Vec<String> {
        Domain::NAMED
            .iter()
            .map(|d| d.as_str().to_string())
            .collect()
    }

    fn agent_model(&self) -> Option<String> {
        self.agent.as_ref().map(|agent| {
            agent
                .client
                .model()
                .map_or_else(|| "a model".to_string(), str::to_string)
        })
    }

    fn run(&self, run: ReviewRun) -> Result<(), ReviewError> {
        let request = &run.request;
        let path = self.contract_path(&request.source)?;
        let domain = match request.domain.as_str() {
            "" => None,
            id => Some(
                id.parse::<Domain>()
                    .map_err(|e| ReviewError(e.to_string()))?,
            ),
        };
        let mut inputs = ReviewInputs::for_path(&path, domain).map_err(|e| match e {
            ReviewInputError::SeveralForOneRole { role, files, .. } => {
                ReviewError(several_in_upload(role, &files))
            }
            other => ReviewError(other.to_string()),
        })?;
        inputs.our_party = request.our_party.clone();
        inputs.language = if request.language == "zh-CN" {
            "zh-CN".into()
        } else {
            "en".into()
        };
        let state = super::review_state(&inputs).map_err(|e| ReviewError(e.to_string()))?;
        let total = if state.review_checklist.is_empty() {
            state.primary().map_or(0, |d| d.total_clauses)
        } else {
            state.review_checklist.len()
        };
        let (learned, playbook) = self
            .classifier
            .stage()
            .map_err(|e| ReviewError(e.to_string()))?;
        let review_options = ReviewOptions {
            learned,
            playbook,
            ..ReviewOptions::default()
        };
        let agent = match request.mode {
            ReviewMode::Checklist => None,
            ReviewMode::Agent | ReviewMode::Orchestrate => {
                Some(self.agent.as_ref().ok_or_else(|| {
                    ReviewError(format!(
                        "{} mode needs a model; none is configured",
                        request.mode.as_str()
                    ))
                })?)
            }
        };
        let orchestrate = match (request.mode, agent) {
            (ReviewMode::Orchestrate, Some(agent)) => {
                let mut settings = OrchestrateSettings::new(Arc::clone(&agent.client));
                settings.deep_max_iterations = agent.settings.react_max_iterations;
                settings.temperature = agent.settings.react_temperature;
                settings.budget.model_requests = request.budget_requests;
                Some(settings)
            }
            _ => None,
        };
        let model = match (&orchestrate, agent) {
            (Some(settings), _) => RunModel::Orchestrated(settings),
            (None, Some(agent)) => RunModel::Agent(agent),
            (None, None) => RunModel::Checklist,
        };
        // A runtime of its own (on a thread of its own: this one is the server's blocking
        // pool) for the journal's heartbeat, the store and every clause task of the review.
        let review = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let runtime = tokio::runtime::Builder::new_multi_thread()
                        .thread_name("clausewright-review")
                        .enable_all()
                        .build()
                        .map_err(|e| {
                            ReviewError(format!("cannot start the review runtime: {e}"))
                        })?;
                    runtime.block_on(async {
                        let journal = run.journal(total as u64).await?;
                        let cancel = std::future::pending();
                        Ok(review_as_run(
                            &self.dispatcher,
                            &state,
                            &review_options,
                            model,
                            journal,
                            cancel,
                        )
                        .await)
                    })
                })
                .join()
        })
        .map_err(|_| ReviewError("the review stopped on a panic".into()))??;
        if let Some(err) = review.record_error {
            return Err(ReviewError(format!(
                "run {}: its record is incomplete: {err}",
                run.id()
            )));
        }
        tracing::info!(
            run = run.id(),
            status = review.status.as_str(),
            "console review run ended"
        );
        Ok(())
    }

    fn outcome(&self, record: &RunRecord, result: &str) -> Result<FinishedReview, ReviewError> {
        let unreadable = |e: serde_json::Error| {
            ReviewError(format!(
                "run {}: its recorded report cannot be read by this version ({e})",
                record.id
            ))
        };
        let value: serde_json::Value = serde_json::from_str(result).map_err(unreadable)?;
        if value.get("kept").and_then(serde_json::Value::as_str) == Some("summary") {
            return Err(ReviewError(format!(
                "run {id} kept its summary only (a checklist review gives the same report \
                 again); `clausewright review --resume {id}` reviews it again and shows it",
                id = record.id
            )));
        }
        let report: ReviewReport = serde_json::from_value(value).map_err(unreadable)?;
        let text = |key: &str| record.spec.get(key).and_then(|v| v.as_str());
        Ok(FinishedReview {
            markdown: render_markdown(&report),
            json: render_json(&report),
            method: method(&report, text("mode").unwrap_or("checklist"), text("model")),
            report,
        })
    }
}

impl LibraryReviews {
    /// The file or folder `source` names on this server.
    fn contract_path(&self, source: &ReviewSource) -> Result<PathBuf, ReviewError> {
        match source {
            ReviewSource::Sample(id) => {
                let sample = self
                    .samples()
                    .into_iter()
                    .find(|s| &s.id == id)
                    .ok_or_else(|| ReviewError(format!("no sample `{id}`")))?;
                self.samples_dir
                    .as_ref()
                    .map(|d| d.join(&sample.id))
                    .ok_or_else(|| ReviewError("no samples folder".into()))
            }
            // Saved by the console in its private folder, removed when the review is over.
            ReviewSource::Upload(upload) => Ok(upload.review_path().to_path_buf()),
        }
    }
}
