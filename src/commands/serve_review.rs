//! `review_contract`: the contract review itself as an MCP task tool of `clausewright serve`.
//! A call starts a review as a durable run ([`review_as_run`]) in the server's run store and
//! answers with its report; a client of the tasks extension gets a task to follow, cancel
//! and read the report from, and a run whose server died is resumed by any server on the
//! same store. The tool is not a skill: it is never in the dispatcher, so a review's own
//! model never sees it.

mod request;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use clausewright_skills::review::{
    review_as_run, AgentSettings, ModelProvider, OrchestrateSettings, Playbook, ReviewAgent,
    ReviewOptions, RunModel, REVIEW_RUN_KIND,
};
use clausewright_skills::ReviewState;
use serde_json::Value;
use toolwright::agent::orchestrate::Budget;
use toolwright::runs::{JournalOptions, NewRun, RunJournal, RunStore};
use toolwright::Dispatcher;
use toolwright_mcp::{TaskError, TaskRunner, TaskTool};

use self::request::{ReviewSpec, SentDocument, Source, SpecModel};
use super::model_client::{model_client, ModelChoice};
use super::review::{contract_inputs, ClassifierOptions, ContractOptions};
use super::CliError;

/// The tool's name on the wire.
pub const TOOL_NAME: &str = "review_contract";

/// How long a server holds a review run without renewing it: a run whose server died is
/// resumed this long after its last heartbeat (every second) at the latest.
const LEASE: std::time::Duration = std::time::Duration::from_secs(10);

fn journal_options() -> JournalOptions {
    JournalOptions {
        lease: LEASE,
        ..JournalOptions::default()
    }
}

/// The contract `serve --contract` names, which a call without a document reviews.
#[derive(Debug, Clone)]
pub struct ServedContract {
    /// Its file or folder, absolute.
    pub path: PathBuf,
    /// Its domain, when `serve --domain` names one.
    pub domain: Option<String>,
}

/// The runner of `review_contract`: starts and resumes review runs in `store`.
pub struct ReviewRunner {
    dispatcher: Dispatcher,
    store: Arc<dyn RunStore>,
    served: Option<ServedContract>,
    /// Where sent documents are written for the review to read, one folder per run.
    documents: PathBuf,
    classifier: ClassifierOptions,
}

/// The tool as `tools/list` shows it.
pub fn task_tool() -> Result<TaskTool, toolwright_mcp::ServeError> {
    Ok(TaskTool::new(
        TOOL_NAME,
        "Review a contract clause by clause and return the report (clauses with their risks, a summary). \
         Reviews the contract the server was started with, or the `document` sent. Long: a client of \
         the tasks extension gets a task to poll, cancel and read the report from.",
        request::input_schema(),
    )?
    .title("Review a contract")
    .run_kind(REVIEW_RUN_KIND))
}

/// A review ready to run: its state, options and model.
struct Prepared {
    state: ReviewState,
    options: ReviewOptions,
    model: Model,
    clauses: usize,
    /// The folder a sent document was written to (removed when the run ends).
    folder: Option<PathBuf>,
}

/// Who reviews, owned (the run's task holds it).
enum Model {
    Checklist,
    Agent(ReviewAgent),
    Orchestrated(OrchestrateSettings),
}

fn refused(err: CliError) -> TaskError {
    TaskError::Refused(err.to_string())
}

impl ReviewRunner {
    /// A runner recording in `store`, reviewing `served` when a call sends no document;
    /// sent documents go to `documents/RUN/`.
    pub fn new(
        dispatcher: Dispatcher,
        store: Arc<dyn RunStore>,
        served: Option<ServedContract>,
        documents: PathBuf,
        classifier: ClassifierOptions,
    ) -> Self {
        Self {
            dispatcher,
            store,
            served,
            documents,
            classifier,
        }
    }

    /// The spec of a new run from the call's arguments, the model filled in from the
    /// server's environment.
    fn spec_of(&self, arguments: &Value) -> Result<ReviewSpec, TaskError> {
        let req = request::parse(arguments)?;
        let source = match (&req.document, &self.served) {
            (Some(doc), _) => doc.source(),
            (None, Some(served)) => Source::Served {
                path: served.path.clone(),
                files: super::review::spec::digests(&[served.path.as_path()])
                    .map_err(refused)?,
            },
            (None, None) => {
                return Err(TaskError::invalid_argument(
                    "$.document",
                    "missing: this server was started without a contract (`serve --contract`), so a call must send one",
                ))
            }
        };
        let domain = req.domain.clone().or_else(|| match &source {
            Source::Served { .. } => self.served.as_ref().and_then(|s| s.domain.clone()),
            Source::Sent { .. } => None,
        });
        let model = if req.mode == "checklist" {
            None
        } else {
            Some(env_model(&req.mode)?)
        };
        Ok(ReviewSpec {
            source,
            mode: req.mode,
            our_party: req.our_party,
            language: req.language,
            domain,
            playbook: req.playbook,
            budget: req.budget,
            model,
        })
    }

    /// Builds the review `spec` describes for run `run_id`: a sent document written under
    /// the run's folder, a served one checked against its recorded digests.
    fn prepare(&self, spec: &ReviewSpec, run_id: &str) -> Result<Prepared, TaskError> {
        let (path, folder) = match &spec.source {
            Source::Served { path, files } => {
                let now = super::review::spec::digests(&[path.as_path()]).map_err(refused)?;
                if &now != files {
                    return Err(TaskError::Refused(format!(
                        "the contract {} changed since the run started (its files' digests differ)",
                        path.display()
                    )));
                }
                (path.clone(), None)
            }
            Source::Sent {
                name,
                sha256,
                base64,
            } => {
                let doc =
                    SentDocument::from_source(name, sha256, base64).map_err(TaskError::Refused)?;
                let folder = self.documents.join(run_id);
                let path = write_document(&folder, &doc)?;
                (path, Some(folder))
            }
        };
        let options = ContractOptions {
            domain: spec.domain.clone(),
            checklist: None,
            criteria: None,
            baseline: None,
            references: Vec::new(),
            our_party: spec.our_party.clone(),
            language: spec.language.clone(),
        };
        let inputs = contract_inputs(&path, &options).map_err(refused)?;
        let state = super::review_state(&inputs).map_err(refused)?;
        let clauses = if state.review_checklist.is_empty() {
            state.primary().map_or(0, |d| d.total_clauses)
        } else {
            state.review_checklist.len()
        };
        let (learned, mut playbook) = self.classifier.stage().map_err(refused)?;
        if let Some(domain) = request::domain_of(spec.playbook.as_deref()) {
            playbook = Some(Arc::new(Playbook::for_domain(domain)));
        }
        let options = ReviewOptions {
            learned,
            playbook,
            ..ReviewOptions::default()
        };
        Ok(Prepared {
            state,
            options,
            model: model_of(spec)?,
            clauses,
            folder,
        })
    }

    /// Runs `prepared` in `journal`'s run on the server's runtime.
    fn spawn(&self, prepared: Prepared, journal: Arc<RunJournal>) {
        let dispatcher = self.dispatcher.clone();
        let id = journal.id().to_string();
        tokio::spawn(async move {
            let model = match &prepared.model {
                Model::Checklist => RunModel::Checklist,
                Model::Agent(agent) => RunModel::Agent(agent),
                Model::Orchestrated(settings) => RunModel::Orchestrated(settings),
            };
            let review = review_as_run(
                &dispatcher,
                &prepared.state,
                &prepared.options,
                model,
                journal,
                std::future::pending::<()>(),
            )
            .await;
            if let Some(err) = &review.record_error {
                tracing::warn!(run = %id, error = %err, "the review run's record is incomplete");
            }
            tracing::info!(run = %id, status = ?review.status, "review run ended");
            // The spec holds the document: a resume writes it again.
            if let Some(folder) = &prepared.folder {
                std::fs::remove_dir_all(folder).ok();
            }
        });
    }
}

/// Writes `doc` into `folder` (made when missing), as a whole file or not at all.
fn write_document(folder: &Path, doc: &SentDocument) -> Result<PathBuf, TaskError> {
    let failed = |what: &Path, e: std::io::Error| {
        TaskError::Refused(format!(
            "the document cannot be written to {}: {e}",
            what.display()
        ))
    };
    std::fs::create_dir_all(folder).map_err(|e| failed(folder, e))?;
    let path = folder.join(&doc.name);
    let part = folder.join(format!(".{}.part", doc.name));
    std::fs::write(&part, &doc.bytes).map_err(|e| failed(&part, e))?;
    std::fs::rename(&part, &path).map_err(|e| failed(&path, e))?;
    Ok(path)
}

/// The model of the server's environment for `mode`, refused when none is configured.
fn env_model(mode: &str) -> Result<SpecModel, TaskError> {
    let Some(provider) = ModelProvider::configured(|name| std::env::var(name).ok()) else {
        return Err(TaskError::invalid_argument(
            "$.mode",
            format!("mode `{mode}` needs a model, and the server's environment configures none: set OPENAI_API_KEY or OPENAI_BASE_URL (or ANTHROPIC_API_KEY) where `clausewright serve` starts, or use mode `checklist`"),
        ));
    };
    let settings = AgentSettings::from_env()
        .map_err(|e| TaskError::Refused(format!("the server's model settings: {e}")))?;
    let flag = format!("mode `{mode}`");
    let choice = ModelChoice {
        model: None,
        base_url: None,
        rpm: 0,
    };
    let (client, endpoint) = model_client(provider, &choice, &flag).map_err(refused)?;
    Ok(SpecModel {
        provider: match provider {
            ModelProvider::Anthropic => "anthropic".into(),
            ModelProvider::OpenAi => "openai".into(),
        },
        model: client.model().map(str::to_string),
        base_url: endpoint,
        max_iterations: settings.react_max_iterations,
        temperature: settings.react_temperature,
        final_answer_at_limit: settings.react_final_answer_at_limit,
    })
}

/// Who reviews, from the spec's mode and recorded model.
fn model_of(spec: &ReviewSpec) -> Result<Model, TaskError> {
    let Some(recorded) = &spec.model else {
        return Ok(Model::Checklist);
    };
    let provider = match recorded.provider.as_str() {
        "anthropic" => ModelProvider::Anthropic,
        _ => ModelProvider::OpenAi,
    };
    let flag = format!("mode `{}`", spec.mode);
    let choice = ModelChoice {
        model: recorded.model.as_deref(),
        base_url: Some(&recorded.base_url),
        rpm: 0,
    };
    let (client, _) = model_client(provider, &choice, &flag).map_err(refused)?;
    let settings = AgentSettings {
        use_react_agent: true,
        react_max_iterations: recorded.max_iterations,
        react_temperature: recorded.temperature,
        react_final_answer_at_limit: recorded.final_answer_at_limit,
    };
    Ok(match spec.mode.as_str() {
        "orchestrate" => {
            let mut orchestrate = OrchestrateSettings::new(client);
            orchestrate.deep_max_iterations = settings.react_max_iterations;
            orchestrate.temperature = settings.react_temperature;
            let mut budget = Budget::unlimited();
            budget.model_requests = spec.budget.model_requests;
            budget.input_tokens = spec.budget.input_tokens;
            budget.output_tokens = spec.budget.output_tokens;
            orchestrate.budget = budget;
            Model::Orchestrated(orchestrate)
        }
        _ => Model::Agent(ReviewAgent::new(client, settings)),
    })
}

#[async_trait]
impl TaskRunner for ReviewRunner {
    async fn start(&self, arguments: Value) -> Result<String, TaskError> {
        let spec = self.spec_of(&arguments)?;
        let id = super::run_store::new_run_id();
        let prepared = self.prepare(&spec, &id)?;
        let run = NewRun {
            id: id.clone(),
            kind: REVIEW_RUN_KIND.into(),
            fingerprint: spec.fingerprint(),
            spec: serde_json::to_value(&spec)
                .map_err(|e| TaskError::Refused(format!("the run's spec: {e}")))?,
            units_total: prepared.clauses as u64,
        };
        let journal = RunJournal::create(Arc::clone(&self.store), &run, journal_options()).await?;
        self.spawn(prepared, journal);
        Ok(id)
    }

    async fn resume(&self, run_id: &str) -> Result<(), TaskError> {
        let record =
            self.store.get(run_id).await?.ok_or_else(|| {
                TaskError::Refused(format!("run `{run_id}` is not in the run store"))
            })?;
        let spec: ReviewSpec = serde_json::from_value(record.spec.clone()).map_err(|e| {
            TaskError::Refused(format!(
                "run `{run_id}` was not started by `{TOOL_NAME}` or by another version ({e})"
            ))
        })?;
        if spec.fingerprint() != record.fingerprint {
            return Err(TaskError::Refused(format!(
                "run `{run_id}`: its fingerprint does not match its recorded spec"
            )));
        }
        let prepared = self.prepare(&spec, run_id)?;
        let journal =
            RunJournal::resume(Arc::clone(&self.store), run_id, journal_options()).await?;
        self.spawn(prepared, journal);
        Ok(())
    }
}

/// Where sent documents are written while their reviews run: a folder of the server's
/// beside the temporary files, one subfolder per run.
fn documents_folder() -> PathBuf {
    std::env::temp_dir().join("clausewright-review-documents")
}

/// Adds `review_contract` to `builder`, recording in `runs` (the `--store` given), else in
/// the default run store; left out, with a warning, when no store can be opened.
pub fn register(
    builder: toolwright_mcp::McpServerBuilder,
    dispatcher: &Dispatcher,
    runs: Option<Arc<dyn RunStore>>,
    served: Option<ServedContract>,
    classifier: &ClassifierOptions,
    runtime: &tokio::runtime::Runtime,
) -> Result<toolwright_mcp::McpServerBuilder, CliError> {
    let store = match runs {
        Some(store) => store,
        None => match runtime.block_on(super::run_store::open(&Default::default())) {
            Ok(open) => {
                tracing::info!(store = %open.shown, "`{TOOL_NAME}` records its runs in the default run store");
                open.runs
            }
            Err(err) => {
                eprintln!("warning: {err}; the `{TOOL_NAME}` tool is not served (give --store)");
                return Ok(builder);
            }
        },
    };
    let tool = task_tool()?;
    let runner = ReviewRunner::new(
        dispatcher.clone(),
        Arc::clone(&store),
        served,
        documents_folder(),
        classifier.clone(),
    );
    Ok(builder.task_tool(tool, Arc::new(runner), store))
}
