//! The console's reviews, run with the contract-review library: bundled samples or uploaded
//! files, by the checklist or, when the environment configures a model, by the agent.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use skill_console::{
    ProgressFn, ReviewError, ReviewLevel, ReviewMode, ReviewOutcome, ReviewRequest, ReviewRisk,
    ReviewRunner, ReviewSample, ReviewSource,
};
use skill_core::Dispatcher;

use super::review::ClassifierOptions;
use skills::review::{
    render_json, render_markdown, run_review, ContractFolder, Domain, ProgressHook, ReviewAgent,
    ReviewInputError, ReviewInputs, ReviewOptions, ReviewReport, Risk, RiskLevel,
};

/// `serve`'s limits on the console's reviews (RELIABILITY.md): how many run at once, how
/// many finished ones are kept in memory and for how long.
#[derive(Debug, Clone, clap::Args)]
pub struct ReviewLimitArgs {
    /// Console reviews running at once; another start is answered 429 until one ends.
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u64).range(1..=64),
          requires = "http", conflicts_with = "no_console")]
    max_reviews: u64,
    /// Finished console reviews kept in memory; at the next start the oldest beyond it are
    /// dropped (their pages answer 404).
    #[arg(long, value_name = "N", default_value_t = 32,
          value_parser = clap::value_parser!(u64).range(0..=10_000),
          requires = "http", conflicts_with = "no_console")]
    keep_reviews: u64,
    /// Seconds a finished console review is kept; at the next start older ones are dropped.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600,
          value_parser = clap::value_parser!(u64).range(1..=30 * 24 * 3600),
          requires = "http", conflicts_with = "no_console")]
    keep_reviews_for: u64,
}

impl ReviewLimitArgs {
    /// `options` with these limits.
    pub fn apply(&self, options: skill_console::ConsoleOptions) -> skill_console::ConsoleOptions {
        options.review_limits(
            usize::try_from(self.max_reviews).unwrap_or(usize::MAX),
            usize::try_from(self.keep_reviews).unwrap_or(usize::MAX),
            std::time::Duration::from_secs(self.keep_reviews_for),
        )
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
            skills::review::ENV_USE_REACT_AGENT => Some("true".to_string()),
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

/// How the report's clauses were judged, in one sentence.
fn method(report: &ReviewReport, agent: Option<&ReviewAgent>) -> String {
    let Some(agent) = agent else {
        return "Checklist mode: fixed rules over the skills' outputs.".into();
    };
    let model = agent.client.model().unwrap_or("the model");
    let summary = &report.summary;
    let mut text = format!(
        "Agent mode ({model}): {} of {} clause(s) judged by the model",
        summary.react_clauses, summary.clauses_reviewed
    );
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

    fn run(
        &self,
        request: &ReviewRequest,
        progress: ProgressFn<'_>,
    ) -> Result<ReviewOutcome, ReviewError> {
        let path = match &request.source {
            ReviewSource::Sample(id) => {
                let sample = self
                    .samples()
                    .into_iter()
                    .find(|s| &s.id == id)
                    .ok_or_else(|| ReviewError(format!("no sample `{id}`")))?;
                self.samples_dir
                    .as_ref()
                    .map(|d| d.join(&sample.id))
                    .ok_or_else(|| ReviewError("no samples folder".into()))?
            }
            // Saved by the console in its private folder, removed when the review is over.
            ReviewSource::Upload(upload) => upload.review_path().to_path_buf(),
        };
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
        progress(0, total);
        let (sender, updates) = std::sync::mpsc::channel::<(usize, usize)>();
        let sender = std::sync::Mutex::new(sender);
        let hook = ProgressHook(Arc::new(move |_, done, total| {
            if let Ok(sender) = sender.lock() {
                let _ = sender.send((done, total));
            }
        }));
        let (learned, playbook) = self
            .classifier
            .stage()
            .map_err(|e| ReviewError(e.to_string()))?;
        let review_options = ReviewOptions {
            progress: Some(hook),
            learned,
            playbook,
            ..ReviewOptions::default()
        };
        let agent = match request.mode {
            ReviewMode::Checklist => None,
            ReviewMode::Agent => Some(self.agent.as_ref().ok_or_else(|| {
                ReviewError("agent mode needs a model; none is configured".into())
            })?),
        };
        let report = std::thread::scope(|scope| {
            let worker =
                scope.spawn(|| run_review(&self.dispatcher, &state, &review_options, agent));
            // The hook sends from the review's tasks; progress is told here, in order.
            while !worker.is_finished() {
                match updates.recv_timeout(std::time::Duration::from_millis(100)) {
                    Ok((done, total)) => progress(done, total),
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            worker.join()
        })
        .map_err(|_| ReviewError("the review stopped on a panic".into()))?;
        let risks = report.risks().map(console_risk).collect();
        Ok(ReviewOutcome {
            title: report.document_id.clone(),
            clauses: report.summary.clauses_reviewed,
            risks,
            markdown: render_markdown(&report),
            json: render_json(&report),
            method: method(&report, agent),
        })
    }
}

/// The console's view of a risk: the one place a review risk becomes the console's
/// domain-free [`ReviewRisk`].
fn console_risk(risk: &Risk) -> ReviewRisk {
    let f = &risk.finding;
    ReviewRisk {
        clause_id: risk.clause_id.clone(),
        level: match f.level {
            RiskLevel::High => ReviewLevel::High,
            RiskLevel::Medium => ReviewLevel::Medium,
            RiskLevel::Low => ReviewLevel::Low,
        },
        risk_type: f.kind.to_string(),
        description: f.description.clone(),
        reason: f.reason.clone(),
        evidence: match f.quote.as_str() {
            "" => f.analysis.clone(),
            quote => format!("{}\n\nContract text: {quote}", f.analysis),
        },
    }
}
