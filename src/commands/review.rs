//! `clausewright review`: review a contract with the skill library, in checklist mode (offline,
//! deterministic), with a model choosing the skills (`--agent`, or `USE_REACT_AGENT=true`
//! with a model in the environment), or organised by a planner model (`--orchestrate`). The
//! whole review runs on one tokio runtime; Ctrl-C
//! stops it, writes the report of the clauses finished (marked incomplete) and exits 130.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clausewright_skills::review::{
    review_as_run, review_orchestrated, review_with_agent, AgentSettings, Domain, LearnedStage,
    ModelProvider, OrchestrateSettings, Playbook, ProgressHook, ReviewAgent, ReviewInputError,
    ReviewInputs, ReviewOptions, ReviewReport, RunModel, RunReport,
};
use toolwright::agent::orchestrate::Budget;
use toolwright::agent::LlmClient;
use toolwright::Dispatcher;

use super::model_client::{model_client, ModelChoice};
use super::run_store::{RetentionArgs, StoreArgs};
use super::CliError;

mod as_run;
mod output;
pub(super) mod spec;

use output::write_report;

/// Which documents make up a contract review, and for whom (shared by `review` and `call`).
#[derive(Debug, Clone, clap::Args)]
pub struct ContractOptions {
    /// Domain of the contract: `fidic` or `sha_spa` (guessed from a folder when left out).
    #[arg(long)]
    pub domain: Option<String>,
    /// Checklist file (JSON array of {clause_id, clause_name, priority, required_skills,
    /// description}); generated from the contract's clauses when absent.
    #[arg(long)]
    pub checklist: Option<PathBuf>,
    /// Review criteria (`.json` or `.csv`).
    #[arg(long)]
    pub criteria: Option<PathBuf>,
    /// Standard form the contract is compared with.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Reference document to search (repeatable).
    #[arg(long = "reference")]
    pub references: Vec<PathBuf>,
    /// The party the review acts for.
    #[arg(long, default_value = "")]
    pub our_party: String,
    /// Language of the review: `en` or `zh-CN`.
    #[arg(long, default_value = "en", value_parser = ["en", "zh-CN"])]
    pub language: String,
}

/// Options of `clausewright review`.
#[derive(Debug, clap::Args)]
pub struct ReviewArgs {
    /// The contract to review (`.docx`, `.pdf`, `.md`, `.txt`, `.json`; at most 50 MiB), or a
    /// folder whose files get their roles by name: `checklist.json`, `criteria.json|csv`, general conditions as baseline and
    /// contract, particular conditions and employer's requirements as references. Left
    /// out with `--resume`.
    #[arg(required_unless_present = "resume")]
    path: Option<PathBuf>,
    #[command(flatten)]
    contract: ContractOptions,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json", "markdown"])]
    format: String,
    /// Write the report to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Clauses reviewed at the same time (0: 8 with `--agent`, as a model turn takes seconds;
    /// one per CPU core in checklist mode). Every clause shares one runtime and one
    /// connection pool to the model.
    #[arg(long, default_value_t = 0)]
    concurrency: usize,
    /// Let a model choose the skills per clause (ReAct); the checklist becomes a hint.
    /// Without `--agent` or `--no-agent`, the agent reviews when USE_REACT_AGENT is true
    /// and a model is configured in the environment (OPENAI_API_KEY or OPENAI_BASE_URL,
    /// else ANTHROPIC_API_KEY).
    #[arg(long, value_parser = ["react"], num_args = 0..=1, default_missing_value = "react")]
    agent: Option<String>,
    /// Review by the checklist only, whatever USE_REACT_AGENT says.
    #[arg(long, conflicts_with = "agent")]
    no_agent: bool,
    /// Model provider for the agent: `openai` (any Chat Completions server: OpenAI,
    /// DeepSeek, vLLM, Ollama, llama.cpp) or `anthropic` (default: the one configured in
    /// the environment, else `openai`).
    #[arg(long, value_parser = ["openai", "anthropic"])]
    provider: Option<String>,
    /// Model name (default from OPENAI_MODEL / ANTHROPIC_MODEL).
    #[arg(long)]
    model: Option<String>,
    /// Endpoint (default from OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's).
    #[arg(long)]
    base_url: Option<String>,
    /// When the model cannot be used, review in checklist mode instead of failing.
    #[arg(long)]
    fallback: bool,
    /// Requests per minute to the model at most, spaced evenly over all clauses in flight
    /// (0: no cap). A 429 from the provider pauses every clause for its `Retry-After`
    /// either way.
    #[arg(long, default_value_t = 0)]
    rpm: u32,
    /// Let a planner model organise the whole review (same model settings as `--agent`):
    /// it reads the outline, sends the clauses that need it to deep reviews (a ReAct
    /// worker each, in parallel), the routine ones to the rules' checklist, and writes a
    /// summary, the risks de-duplicated across clauses and the findings that span clauses.
    /// When the planner fails, the checklist review stands, the reason stated.
    #[arg(long, conflicts_with_all = ["agent", "no_agent"])]
    orchestrate: bool,
    /// Model of the deep reviews, when it differs from the planner's (same provider and
    /// endpoint).
    #[arg(long, value_name = "MODEL", requires = "orchestrate")]
    deep_model: Option<String>,
    /// Deep reviews running at once at most.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "orchestrate",
          value_parser = clap::value_parser!(u64).range(1..=256))]
    max_workers: u64,
    /// Model requests of the whole orchestrated review at most, planner and deep reviews
    /// together (reserved before a deep review starts, so never exceeded).
    #[arg(long, value_name = "N", requires = "orchestrate",
          value_parser = clap::value_parser!(u64).range(1..))]
    budget_requests: Option<u64>,
    /// Input (prompt) tokens of the whole orchestrated review at most, as the provider
    /// counts them.
    #[arg(long, value_name = "N", requires = "orchestrate",
          value_parser = clap::value_parser!(u64).range(1..))]
    budget_tokens: Option<u64>,
    /// Output (completion) tokens of the whole orchestrated review at most.
    #[arg(long, value_name = "N", requires = "orchestrate",
          value_parser = clap::value_parser!(u64).range(1..))]
    budget_output_tokens: Option<u64>,
    #[command(flatten)]
    classifier: ClassifierOptions,
    #[command(flatten)]
    run: RunArgs,
}

/// How a review is recorded as a run, and which run to resume.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Go on with run RUN (its id, from `clausewright runs list`) after a crash, Ctrl-C or
    /// a lost connection: the recorded options apply (any option given must agree with
    /// them), recorded clauses and model answers are not done or paid for again. A run
    /// whose documents changed is refused.
    #[arg(long, value_name = "RUN")]
    resume: Option<String>,
    /// Do not record the review as a run (nothing to resume, nothing written).
    #[arg(long, conflicts_with_all = ["resume", "store"])]
    no_record: bool,
    #[command(flatten)]
    retention: RetentionArgs,
}

/// How the provision classifier takes part in a review (shared by `review` and the console).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ClassifierOptions {
    /// Provision model made by `clausewright train` (default: the built-in one, trained on the
    /// CUAD training split). It says what each English clause is (41 CUAD categories);
    /// rules say whom it binds and whether it is negated.
    #[arg(long, value_name = "FILE")]
    pub provision_model: Option<PathBuf>,
    /// Levels of the provisions found, the rules' and the classifier's, by kind (default:
    /// the built-in playbook of the contract's domain; `clausewright playbook --domain D` prints
    /// it to copy and edit).
    #[arg(long, value_name = "FILE")]
    pub playbook: Option<PathBuf>,
    /// Keyword rules only: leave the provision classifier out (levels still come from the
    /// playbook).
    #[arg(long, conflicts_with = "provision_model")]
    pub rules_only: bool,
}

impl ClassifierOptions {
    /// The classifier's stage (`None` with `--rules-only`) and the playbook given (`None`:
    /// the shipped one of the contract's domain), checked against each other.
    pub fn stage(&self) -> Result<(Option<LearnedStage>, Option<Arc<Playbook>>), CliError> {
        let usage = |e: &dyn std::fmt::Display| CliError::Usage(e.to_string());
        let stage = match (&self.provision_model, self.rules_only) {
            (_, true) => None,
            (Some(model), false) => Some(LearnedStage::load(model).map_err(|e| usage(&e))?),
            (None, false) => Some(LearnedStage::embedded().map_err(|e| usage(&e))?),
        };
        let playbook = match &self.playbook {
            Some(path) => Some(Arc::new(Playbook::load(path).map_err(|e| usage(&e))?)),
            None => None,
        };
        Ok((stage, playbook))
    }
}

/// What `clausewright review --help` ends with: the environment variables read.
pub const REVIEW_ENV_HELP: &str = "\
Environment (an explicit --agent or --no-agent wins over USE_REACT_AGENT):
  USE_REACT_AGENT=true         review with the agent when a model is configured below
  OPENAI_API_KEY               key of the OpenAI-compatible server (local servers need none)
  OPENAI_BASE_URL              its endpoint, default https://api.openai.com/v1
  OPENAI_MODEL                 its model, default gpt-4o-mini
  ANTHROPIC_API_KEY            key of the Anthropic Messages API (used when no OPENAI_* is set)
  ANTHROPIC_BASE_URL           its endpoint, default https://api.anthropic.com
  ANTHROPIC_MODEL              its model, default claude-sonnet-4-5
  REACT_MAX_ITERATIONS=5       model turns per clause at most
  REACT_TEMPERATURE=0.1        sampling temperature, 0 to 2
  REACT_FINAL_ANSWER_AT_LIMIT  one more turn without tools at the limit (default true)
  TOOLWRIGHT_LOG                 log filter (tracing), default error
  OTEL_EXPORTER_OTLP_ENDPOINT  collector for the traces when --otlp is not given (--features otlp)
Ctrl-C stops the review: the clauses finished are reported, marked incomplete, exit status 130.";

/// Exit status of a review stopped by Ctrl-C: 128 + SIGINT, as a shell reports it.
pub const EXIT_INTERRUPTED: u8 = 130;

/// The model client `--agent` asks for, with the settings of the clause-analysis node;
/// `model` names another model than `--model` on the same endpoint.
fn agent_client(
    args: &ReviewArgs,
    provider: ModelProvider,
    model: Option<&str>,
) -> Result<(Arc<dyn LlmClient>, String), CliError> {
    let flag = if args.orchestrate {
        "--orchestrate"
    } else {
        "--agent"
    };
    model_client(
        provider,
        &ModelChoice {
            model: model.or(args.model.as_deref()),
            base_url: args.base_url.as_deref(),
            rpm: args.rpm,
        },
        flag,
    )
}

/// The orchestrated review's models and budget from the flags (`--orchestrate`); `None`
/// when the endpoint cannot be reached and `--fallback` accepts the checklist review.
fn orchestrate_settings(
    args: &ReviewArgs,
    settings: &AgentSettings,
) -> Result<Option<OrchestrateSettings>, CliError> {
    let provider = match args.provider.as_deref() {
        Some("anthropic") => ModelProvider::Anthropic,
        Some(_) => ModelProvider::OpenAi,
        None => ModelProvider::configured(|name| std::env::var(name).ok())
            .unwrap_or(ModelProvider::OpenAi),
    };
    let prepared = agent_client(args, provider, None).and_then(|(client, endpoint)| {
        reachable(&endpoint)
            .map(|()| client)
            .map_err(|why| CliError::Usage(format!("the model endpoint cannot be reached: {why}")))
    });
    let planner = match prepared {
        Ok(client) => client,
        Err(err) if args.fallback => {
            eprintln!("warning: {err}; reviewing in checklist mode (--fallback)");
            return Ok(None);
        }
        Err(err) => return Err(err),
    };
    let mut orchestrate = OrchestrateSettings::new(planner);
    if let Some(model) = &args.deep_model {
        orchestrate.deep_model = Some(agent_client(args, provider, Some(model))?.0);
    }
    orchestrate.max_workers = usize::try_from(args.max_workers).unwrap_or(usize::MAX);
    orchestrate.deep_max_iterations = settings.react_max_iterations;
    orchestrate.temperature = settings.react_temperature;
    let mut budget = Budget::unlimited();
    budget.model_requests = args.budget_requests;
    budget.input_tokens = args.budget_tokens;
    budget.output_tokens = args.budget_output_tokens;
    orchestrate.budget = budget;
    Ok(Some(orchestrate))
}

/// Whether the endpoint's host accepts a TCP connection (no request, no tokens spent).
fn reachable(endpoint: &str) -> Result<(), String> {
    use std::net::ToSocketAddrs;
    let url =
        url_host_port(endpoint).ok_or_else(|| format!("`{endpoint}` is not an http(s) URL"))?;
    let addrs: Vec<_> = url
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve `{url}`: {e}"))?
        .collect();
    for addr in &addrs {
        if std::net::TcpStream::connect_timeout(addr, Duration::from_secs(3)).is_ok() {
            return Ok(());
        }
    }
    Err(format!("nothing answers at `{url}`"))
}

/// `host:port` of an http(s) URL.
fn url_host_port(endpoint: &str) -> Option<String> {
    let (scheme, rest) = endpoint.split_once("://")?;
    let default_port = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = rest.split('/').next()?.rsplit('@').next()?;
    if authority.is_empty() {
        return None;
    }
    Some(
        if authority
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        {
            authority.to_string()
        } else {
            format!("{authority}:{default_port}")
        },
    )
}

/// A progress bar on a terminal for reviews of many clauses.
fn progress_hook(total: usize) -> Option<ProgressHook> {
    if total < 10 || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} clauses {msg}")
    {
        bar.set_style(style);
    }
    let bar = bar.with_finish(indicatif::ProgressFinish::AndClear);
    Some(ProgressHook(Arc::new(move |clause, done, total| {
        bar.set_message(clause.clause_id.clone());
        bar.set_position(done as u64);
        if done == total {
            bar.finish_and_clear();
        }
    })))
}

/// Builds the review inputs from a contract file or folder (roles of a folder's files by
/// [`clausewright_skills::review::ContractFolder`]) and the options, which win over the folder.
pub fn contract_inputs(path: &Path, opts: &ContractOptions) -> Result<ReviewInputs, CliError> {
    let domain = match opts.domain.as_deref().filter(|d| !d.is_empty()) {
        Some(d) => Some(
            d.parse::<Domain>()
                .map_err(|e| CliError::Usage(e.to_string()))?,
        ),
        None => None,
    };
    let mut inputs = ReviewInputs::for_path(path, domain).map_err(|e| {
        let hint = match &e {
            ReviewInputError::SeveralForOneRole {
                role: "contracts",
                folder,
                files,
            } => format!(
                "; to review one, name its file, e.g. `clausewright review {}`, with --baseline, \
                 --reference, --checklist and --criteria for the files that go with it",
                folder.join(&files[0]).display()
            ),
            _ => String::new(),
        };
        match e {
            ReviewInputError::FolderIo { path, source } => CliError::Read {
                path: path.display().to_string(),
                source,
            },
            other => CliError::Usage(format!("{other}{hint}")),
        }
    })?;
    if opts.baseline.is_some() {
        inputs.baseline = opts.baseline.clone();
    }
    inputs.references.extend(opts.references.iter().cloned());
    if opts.checklist.is_some() {
        inputs.checklist_file = opts.checklist.clone();
    }
    if opts.criteria.is_some() {
        inputs.criteria_file = opts.criteria.clone();
    }
    inputs.our_party = opts.our_party.clone();
    inputs.language = opts.language.clone();
    Ok(inputs)
}

/// Fails when the model could not review a single clause (every ReAct attempt fell back),
/// unless `--fallback` accepts the checklist results.
fn model_failed(report: &ReviewReport, fallback: bool) -> Result<(), CliError> {
    let s = &report.summary;
    if s.react_clauses > 0 || s.react_fallbacks == 0 {
        return Ok(());
    }
    let reason = report
        .clauses
        .iter()
        .find_map(|c| c.fallback_reason.clone())
        .unwrap_or_default();
    if fallback {
        eprintln!("warning: the model failed on every clause ({reason}); the report is from checklist mode (--fallback)");
        Ok(())
    } else {
        Err(CliError::Usage(format!(
            "the model failed on every clause: {reason}; check the endpoint, model and key, or pass --fallback"
        )))
    }
}

/// Whether the agent reviews, and with which provider: `--no-agent` never, `--agent`
/// always, else when USE_REACT_AGENT is true and a model is configured in the environment.
fn agent_choice(
    args: &ReviewArgs,
    settings: &AgentSettings,
    lookup: impl Fn(&str) -> Option<String>,
) -> Option<ModelProvider> {
    let configured = ModelProvider::configured(lookup);
    let explicit = args.provider.as_deref().map(|p| match p {
        "anthropic" => ModelProvider::Anthropic,
        _ => ModelProvider::OpenAi,
    });
    if args.no_agent {
        return None;
    }
    if args.agent.is_some() {
        return Some(explicit.or(configured).unwrap_or(ModelProvider::OpenAi));
    }
    if !settings.use_react_agent {
        return None;
    }
    match (explicit, configured) {
        (Some(provider), Some(_)) => Some(provider),
        (None, Some(provider)) => Some(provider),
        (_, None) => {
            eprintln!("warning: USE_REACT_AGENT is on but no model is configured (OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY); reviewing in checklist mode");
            None
        }
    }
}

/// Completes on the first Ctrl-C; never when no handler can be installed.
async fn ctrl_c() {
    if let Err(err) = tokio::signal::ctrl_c().await {
        tracing::warn!(error = %err, "cannot listen for Ctrl-C");
        std::future::pending::<()>().await;
    }
}

/// Runs the review (as a recorded run unless `--no-record`) and writes the report.
pub fn run(dispatcher: &Dispatcher, args: &ReviewArgs) -> Result<ExitCode, CliError> {
    // One runtime for the whole review: the store, every clause task, the model
    // connections, the Ctrl-C listener.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .thread_name("clausewright-review")
        .enable_all()
        .build()
        .map_err(|e| CliError::Usage(format!("cannot start the review runtime: {e}")))?;
    let mut recording = runtime.block_on(as_run::recording(args))?;
    let resumed;
    let args = match &recording {
        as_run::Recording::Resume { recorded, .. } => {
            resumed = spec::resumed_args(args, recorded)?;
            &resumed
        }
        _ => args,
    };
    if let as_run::Recording::Resume { record, .. } = &recording {
        if record.status == toolwright::runs::RunStatus::Succeeded {
            let id = record.id.clone();
            match runtime.block_on(as_run::recorded_report(&recording))? {
                Some(report) => {
                    eprintln!("run {id} had finished; its recorded report follows");
                    return write_report(&report, args);
                }
                None => {
                    eprintln!("run {id} had finished; it kept its summary only (a checklist review gives the same report again), so it is reviewed again, unrecorded");
                    recording = as_run::Recording::Off;
                }
            }
        }
    }
    let path = args.path.as_deref().unwrap_or(Path::new(""));
    let inputs = contract_inputs(path, &args.contract)?;
    let mut settings = AgentSettings::from_env().map_err(|e| CliError::Usage(e.to_string()))?;
    if let as_run::Recording::Resume { recorded, .. } = &recording {
        settings.react_max_iterations = recorded.max_iterations;
        settings.react_temperature = recorded.temperature;
        settings.react_final_answer_at_limit = recorded.final_answer_at_limit;
    }
    let provider = if args.orchestrate {
        None
    } else {
        agent_choice(args, &settings, |name| std::env::var(name).ok())
    };
    let state = super::review_state(&inputs)?;
    let total = if state.review_checklist.is_empty() {
        state.primary().map_or(0, |d| d.total_clauses)
    } else {
        state.review_checklist.len()
    };
    let (learned, playbook) = args.classifier.stage()?;
    let mut options = ReviewOptions {
        concurrency: args.concurrency,
        progress: progress_hook(total),
        learned,
        playbook,
        ..ReviewOptions::default()
    };
    let agent = review_agent(args, provider, settings)?;
    let orchestrate = if args.orchestrate {
        orchestrate_settings(args, &settings)?
    } else {
        None
    };
    let model = match (&orchestrate, &agent) {
        (Some(orchestrate), _) => RunModel::Orchestrated(orchestrate),
        (None, Some(agent)) => RunModel::Agent(agent),
        (None, None) => RunModel::Checklist,
    };
    if matches!(model, RunModel::Checklist) {
        options.run_report = RunReport::Summary;
    }
    let spec = as_run::spec_of(args, model, &settings)?;
    let journal = runtime.block_on(as_run::start(&recording, &spec, total))?;
    let (report, run_id) = match journal {
        Some(journal) => {
            let id = journal.id().to_string();
            if !matches!(model, RunModel::Checklist) {
                eprintln!("run {id} (resume with `clausewright review --resume {id}`)");
            }
            let review = runtime.block_on(review_as_run(
                dispatcher,
                &state,
                &options,
                model,
                journal,
                ctrl_c(),
            ));
            if let Some(err) = &review.record_error {
                eprintln!("warning: the run's record is incomplete: {err}");
            }
            runtime.block_on(as_run::prune(&recording, &args.run.retention));
            (review.report, Some(id))
        }
        None => {
            let review = async {
                match &orchestrate {
                    Some(o) => review_orchestrated(dispatcher, &state, &options, o, ctrl_c()).await,
                    None => {
                        review_with_agent(dispatcher, &state, &options, agent.as_ref(), ctrl_c())
                            .await
                    }
                }
            };
            (runtime.block_on(review), None)
        }
    };
    // Requests still open (none after a finished review) are dropped, not awaited.
    runtime.shutdown_background();
    // The progress bar goes with its hook (cleared, also when interrupted).
    drop(options);
    finish(&report, args, agent.is_some(), run_id)
}

/// The agent review `--agent` asks for: `None` for the checklist, or when the model cannot
/// be reached and `--fallback` accepts the checklist.
fn review_agent(
    args: &ReviewArgs,
    provider: Option<ModelProvider>,
    settings: AgentSettings,
) -> Result<Option<ReviewAgent>, CliError> {
    let Some(provider) = provider else {
        return Ok(None);
    };
    let prepared = agent_client(args, provider, None).and_then(|(client, endpoint)| {
        reachable(&endpoint)
            .map(|()| client)
            .map_err(|why| CliError::Usage(format!("the model endpoint cannot be reached: {why}")))
    });
    match prepared {
        Ok(client) => Ok(Some(ReviewAgent::new(
            client,
            AgentSettings {
                use_react_agent: true,
                ..settings
            },
        ))),
        Err(err) if args.fallback => {
            eprintln!("warning: {err}; reviewing in checklist mode (--fallback)");
            Ok(None)
        }
        Err(err) => Err(err),
    }
}

/// Says what went wrong with the model, writes the report and chooses the exit status
/// (130 when the review was interrupted, naming the run to resume).
fn finish(
    report: &ReviewReport,
    args: &ReviewArgs,
    with_agent: bool,
    run_id: Option<String>,
) -> Result<ExitCode, CliError> {
    if with_agent && !report.incomplete {
        model_failed(report, args.fallback)?;
    }
    if let Some(reason) = report
        .orchestration
        .as_ref()
        .and_then(|o| o.fallback_reason.as_deref())
    {
        eprintln!("warning: the planner failed ({reason}); clauses it had not sent to a deep review were reviewed by the checklist");
    }
    let code = write_report(report, args)?;
    if report.incomplete {
        let resume = run_id
            .map(|id| format!("; resume with `clausewright review --resume {id}`"))
            .unwrap_or_default();
        eprintln!(
            "interrupted: {} of {} clause(s) reviewed; the report is marked incomplete{resume}",
            report.summary.clauses_reviewed,
            report.summary.clauses_reviewed + report.summary.clauses_not_run
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(code)
}

#[cfg(test)]
mod tests;
