//! `review` as a recorded run: which store, a new run or the one `--resume` names, and the
//! checks that make a resumed run the same run (options, documents, no other live process).

use std::sync::Arc;

use clausewright_skills::review::{AgentSettings, ReviewReport, RunModel, REVIEW_RUN_KIND};
use toolwright::runs::{
    JournalOptions, NewRun, ResumeRefused, RunJournal, RunRecord, RunStoreError,
};

use super::spec::{absolute, RecordedReview};
use super::ReviewArgs;
use crate::commands::run_store::{self, OpenStore, RetentionArgs};
use crate::commands::CliError;

/// Whether and where the review is recorded.
pub enum Recording {
    /// Not recorded (`--no-record`, or the default store could not be opened).
    Off,
    /// A new run in this store; `named` when the user chose the store (a failure to record
    /// is then an error, not a warning).
    New {
        /// The store.
        store: OpenStore,
        /// Whether `--store` or the environment named it.
        named: bool,
    },
    /// The run `--resume` names.
    Resume {
        /// Its store.
        store: OpenStore,
        /// The run as recorded.
        record: Box<RunRecord>,
        /// The options it was started with.
        recorded: Box<RecordedReview>,
    },
}

fn store_error(store: &OpenStore, err: RunStoreError) -> CliError {
    CliError::Usage(format!("run store {}: {err}", store.shown))
}

/// Opens the store and reads the run to resume. The default store failing to open is a
/// warning (the review runs unrecorded); a store the user named failing is an error.
pub async fn recording(args: &ReviewArgs) -> Result<Recording, CliError> {
    if args.run.no_record {
        return Ok(Recording::Off);
    }
    let named = args.run.store.store.is_some() || std::env::var_os(run_store::STORE_ENV).is_some();
    let store = match (run_store::open(&args.run.store).await, &args.run.resume) {
        (Ok(store), _) => store,
        (Err(err), None) if !named => {
            eprintln!("warning: {err}; the review is not recorded (nothing to resume)");
            return Ok(Recording::Off);
        }
        (Err(err), _) => return Err(err),
    };
    let Some(id) = &args.run.resume else {
        return Ok(Recording::New { store, named });
    };
    let record = store
        .runs
        .get(id)
        .await
        .map_err(|e| store_error(&store, e))?
        .ok_or_else(|| {
            CliError::Usage(format!(
                "--resume {id}: no such run in {}; `clausewright runs list` shows the runs there",
                store.shown
            ))
        })?;
    if record.kind != REVIEW_RUN_KIND {
        return Err(CliError::Usage(format!(
            "--resume {id}: the run is a `{}`, not a review",
            record.kind
        )));
    }
    let recorded: RecordedReview = serde_json::from_value(record.spec.clone()).map_err(|e| {
        CliError::Usage(format!(
            "--resume {id}: its recorded options cannot be read by this version ({e})"
        ))
    })?;
    Ok(Recording::Resume {
        store,
        record: Box::new(record),
        recorded: Box::new(recorded),
    })
}

/// The report a finished run recorded; `None` when it kept its summary only.
pub async fn recorded_report(recording: &Recording) -> Result<Option<ReviewReport>, CliError> {
    let Recording::Resume { store, record, .. } = recording else {
        return Err(CliError::Usage("no run to read a report from".into()));
    };
    let text = store
        .runs
        .result(&record.id)
        .await
        .map_err(|e| store_error(store, e))?
        .ok_or_else(|| {
            CliError::Usage(format!(
                "run {} finished without a recorded report",
                record.id
            ))
        })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        CliError::Usage(format!(
            "run {}: its recorded report is not JSON ({e})",
            record.id
        ))
    })?;
    if value.get("kept").and_then(serde_json::Value::as_str) == Some("summary") {
        return Ok(None);
    }
    serde_json::from_value(value).map(Some).map_err(|e| {
        CliError::Usage(format!(
            "run {}: its recorded report cannot be read by this version ({e})",
            record.id
        ))
    })
}

/// The options this review runs with, as a run records them.
pub fn spec_of(
    args: &ReviewArgs,
    model: RunModel<'_>,
    settings: &AgentSettings,
) -> Result<RecordedReview, CliError> {
    let c = &args.contract;
    let (mode, model_name, provider) = match model {
        RunModel::Checklist => ("checklist", None, None),
        RunModel::Agent(agent) => ("agent", agent.client.model(), args.provider.clone()),
        RunModel::Orchestrated(o) => ("orchestrate", o.planner.model(), args.provider.clone()),
    };
    let with_model = mode != "checklist";
    RecordedReview {
        path: absolute(args.path.as_deref().unwrap_or(std::path::Path::new(""))),
        domain: c.domain.clone(),
        checklist: c.checklist.as_deref().map(absolute),
        criteria: c.criteria.as_deref().map(absolute),
        baseline: c.baseline.as_deref().map(absolute),
        references: c.references.iter().map(|p| absolute(p)).collect(),
        our_party: c.our_party.clone(),
        language: c.language.clone(),
        mode: mode.into(),
        provider,
        model: model_name.map(str::to_string),
        base_url: args.base_url.clone().filter(|_| with_model),
        deep_model: args.deep_model.clone(),
        max_workers: args.max_workers,
        budget_requests: args.budget_requests,
        budget_tokens: args.budget_tokens,
        budget_output_tokens: args.budget_output_tokens,
        fallback: args.fallback,
        rpm: args.rpm,
        max_iterations: settings.react_max_iterations,
        temperature: settings.react_temperature,
        final_answer_at_limit: settings.react_final_answer_at_limit,
        provision_model: args.classifier.provision_model.as_deref().map(absolute),
        playbook: args.classifier.playbook.as_deref().map(absolute),
        rules_only: args.classifier.rules_only,
        files: Default::default(),
    }
    .with_digests()
}

/// Creates the run, or takes over the one to resume after checking it is the same run.
pub async fn start(
    recording: &Recording,
    spec: &RecordedReview,
    clauses: usize,
) -> Result<Option<Arc<RunJournal>>, CliError> {
    let options = JournalOptions::default();
    match recording {
        Recording::Off => Ok(None),
        Recording::New { store, named } => {
            let run = NewRun {
                id: run_store::new_run_id(),
                kind: REVIEW_RUN_KIND.into(),
                fingerprint: spec.fingerprint(),
                spec: serde_json::to_value(spec).map_err(|e| CliError::Usage(e.to_string()))?,
                units_total: clauses as u64,
            };
            match RunJournal::create(Arc::clone(&store.runs), &run, options).await {
                Ok(journal) => Ok(Some(journal)),
                Err(err) if !*named => {
                    eprintln!(
                        "warning: {}; the review is not recorded (nothing to resume)",
                        store_error(store, err)
                    );
                    Ok(None)
                }
                Err(err) => Err(store_error(store, err)),
            }
        }
        Recording::Resume {
            store,
            record,
            recorded,
        } => {
            if let Some(diff) = spec.differences(recorded) {
                return Err(CliError::Usage(format!(
                    "--resume {}: the run cannot go on, what it depends on changed: {diff}",
                    record.id
                )));
            }
            if spec.fingerprint() != record.fingerprint {
                return Err(CliError::Usage(format!(
                    "--resume {}: the run's fingerprint does not match its recorded options",
                    record.id
                )));
            }
            let journal = RunJournal::resume(Arc::clone(&store.runs), &record.id, options)
                .await
                .map_err(|e| match e {
                    ResumeRefused::Store(e) => store_error(store, e),
                    held => CliError::Usage(format!("--resume: {held}")),
                })?;
            Ok(Some(journal))
        }
    }
}

/// Applies the retention to the store the run was recorded in.
pub async fn prune(recording: &Recording, retention: &RetentionArgs) {
    match recording {
        Recording::New { store, .. } | Recording::Resume { store, .. } => {
            run_store::prune(store.runs.as_ref(), retention).await;
        }
        Recording::Off => {}
    }
}
