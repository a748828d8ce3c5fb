//! The options every review mode takes.

use std::sync::Arc;

use toolwright::runs::RunJournal;

use super::ClauseReview;
use crate::review::findings::{LearnedStage, Playbook};

/// Called after each reviewed clause with the clause, the number done and the total (for
/// progress bars), in the order clauses finish. Runs on the task that reviewed the clause:
/// keep it short.
#[derive(Clone)]
pub struct ProgressHook(pub Arc<ProgressFn>);

/// The callback of a [`ProgressHook`]: the finished clause, clauses done, clauses in all.
pub type ProgressFn = dyn Fn(&ClauseReview, usize, usize) + Send + Sync;

impl std::fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressHook")
    }
}

impl PartialEq for ProgressHook {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ProgressHook {}

/// How to run a review.
#[derive(Debug, Clone)]
pub struct ReviewOptions {
    /// Clauses reviewed at the same time (tasks in flight); 0 means
    /// [`DEFAULT_AGENT_CONCURRENCY`](crate::review::DEFAULT_AGENT_CONCURRENCY) when a model reviews and one per CPU core otherwise.
    pub concurrency: usize,
    /// Make a checklist from the document's clauses when the state has none.
    pub generate_checklist: bool,
    /// Told about every finished clause.
    pub progress: Option<ProgressHook>,
    /// The provision classifier's stage (English documents): what each reviewed clause is.
    /// `None` keeps the rule path alone.
    pub learned: Option<LearnedStage>,
    /// Levels of every provision found, the rules' and the classifier's, by kind; `None`:
    /// the shipped playbook of the contract's domain.
    pub playbook: Option<Arc<Playbook>>,
    /// The durable run the review records itself in: each finished clause is written to it,
    /// and clauses it recorded before are taken from it instead of reviewed again (set by
    /// [`review_as_run`](crate::review::review_as_run)).
    pub run: Option<Arc<RunJournal>>,
    /// What a run keeps of the report when it succeeds.
    pub run_report: RunReport,
}

/// What a durable run keeps of its report when it succeeds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RunReport {
    /// The whole report (a client reads it from the store: MCP tasks, the console).
    #[default]
    Whole,
    /// Its summary only, for a review that gives the same report when run again without
    /// cost (the checklist's): a 22,200-clause report is some 40 MB.
    Summary,
}

impl Default for ReviewOptions {
    fn default() -> Self {
        Self {
            progress: None,
            concurrency: 0,
            generate_checklist: true,
            learned: None,
            playbook: None,
            run: None,
            run_report: RunReport::Whole,
        }
    }
}
