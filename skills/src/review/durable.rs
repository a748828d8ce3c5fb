//! A review as a durable run ([`toolwright::runs`]): every finished clause is recorded in
//! the run's store, every model answer too, and a run taken over after its process died
//! goes on from there — recorded clauses are not reviewed again, recorded answers are
//! replayed instead of asked for, so the finished report is the one an uninterrupted run
//! gives and no completed model request is paid for twice.
//!
//! The caller owns what makes a run the same run: it creates or resumes the
//! [`RunJournal`] (checking the run's fingerprint and options against its own) and hands it
//! here with the models of the mode.

use std::sync::Arc;

use toolwright::agent::LlmClient;
use toolwright::runs::{JournaledClient, RunEnd, RunJournal, RunStatus, RunStoreError};
use toolwright::Dispatcher;

use super::agent::ReviewAgent;
use super::orchestrated::{review_orchestrated, OrchestrateSettings};
use super::types::{ReviewOptions, ReviewReport, RunReport};
use crate::state::ReviewState;

pub use super::engine::CLAUSE_UNIT;

/// The kind a review's run is recorded under.
pub const REVIEW_RUN_KIND: &str = "review";

/// Who reviews the clauses of a run.
#[derive(Debug, Clone, Copy)]
pub enum RunModel<'a> {
    /// The checklist alone (no model).
    Checklist,
    /// A model per clause ([`super::review_with_agent`]).
    Agent(&'a ReviewAgent),
    /// A planner and deep reviews ([`review_orchestrated`]).
    Orchestrated(&'a OrchestrateSettings),
}

/// What a review run ended with.
#[derive(Debug)]
pub struct RunReview {
    /// The report (marked incomplete when the run stopped before the end).
    pub report: ReviewReport,
    /// How the run was recorded as ending.
    pub status: RunStatus,
    /// Why the run's record could not be completed, when it could not (the report above
    /// is whole all the same; a resume reviews again what was not recorded).
    pub record_error: Option<RunStoreError>,
}

/// Reviews in `journal`'s run: clauses it recorded are taken from it, the others reviewed
/// and recorded; the models' answers go through the run's record (replayed when recorded,
/// else asked and recorded). Stops at the next clause when `cancel` completes, when
/// someone asks the run to stop ([`toolwright::runs::RunStore::request_cancel`]) or when
/// another process takes the run over. The run ends `succeeded` with the report as its
/// result, or `cancelled` / `interrupted`.
pub async fn review_as_run(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
    model: RunModel<'_>,
    journal: Arc<RunJournal>,
    cancel: impl std::future::Future<Output = ()>,
) -> RunReview {
    let options = ReviewOptions {
        run: Some(Arc::clone(&journal)),
        ..options.clone()
    };
    let recorded = |client: &Arc<dyn LlmClient>, label: &str| -> Arc<dyn LlmClient> {
        Arc::new(JournaledClient::new(
            Arc::clone(client),
            Arc::clone(&journal),
            label,
        ))
    };
    let stop = async {
        tokio::select! {
            () = cancel => {}
            () = journal.stopped() => {}
        }
    };
    let report = match model {
        RunModel::Checklist => {
            super::review_with_agent(dispatcher, state, &options, None, stop).await
        }
        RunModel::Agent(agent) => {
            let agent = ReviewAgent::new(recorded(&agent.client, "clause"), agent.settings);
            super::review_with_agent(dispatcher, state, &options, Some(&agent), stop).await
        }
        RunModel::Orchestrated(settings) => {
            let settings = OrchestrateSettings {
                planner: recorded(&settings.planner, "planner"),
                deep_model: Some(recorded(
                    settings.deep_model.as_ref().unwrap_or(&settings.planner),
                    "deep",
                )),
                ..settings.clone()
            };
            review_orchestrated(dispatcher, state, &options, &settings, stop).await
        }
    };
    let status = if !report.incomplete {
        RunStatus::Succeeded
    } else if journal.stop_requested() {
        RunStatus::Cancelled
    } else {
        RunStatus::Interrupted
    };
    let end = RunEnd {
        status,
        result: (status == RunStatus::Succeeded).then(|| kept(&report, options.run_report)),
        error: match status {
            RunStatus::Cancelled => Some("stopped on request".into()),
            RunStatus::Interrupted if journal.lease_lost() => {
                Some("another process took the run over".into())
            }
            RunStatus::Interrupted => Some("interrupted".into()),
            _ => None,
        },
    };
    let mut record_error = journal.finish(&end).await.err();
    if record_error.is_none() {
        record_error = journal.write_failure().map(RunStoreError::backend);
    }
    RunReview {
        report,
        status,
        record_error,
    }
}

/// What a succeeded run keeps of `report`: the report, or a summary object
/// (`{"kept": "summary", document_id, domain, summary}`), as [`RunReport`] says.
fn kept(report: &ReviewReport, what: RunReport) -> String {
    match what {
        RunReport::Whole => serde_json::to_string(report),
        RunReport::Summary => serde_json::to_string(&serde_json::json!({
            "kept": "summary",
            "document_id": report.document_id,
            "domain": report.domain,
            "summary": report.summary,
        })),
    }
    .unwrap_or_default()
}
