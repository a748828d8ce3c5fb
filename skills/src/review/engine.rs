//! The review engine shared by the checklist and agent modes (and under the orchestrated
//! mode's first pass): one async runtime for the whole review, each clause a task, a
//! bounded number of them in flight, results in checklist order.
//!
//! The review is prepared (state copied, checklist made, reference index built) and
//! finished (document-level risks) on the blocking pool, as both are CPU work of a whole
//! document; clauses are reviewed by `concurrency` worker tasks that take the next clause
//! as they finish one. Model clients are shared by every task (one connection pool). The
//! tasks live in a [`JoinSet`]: dropping the review's future aborts them all.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::task::JoinSet;
use toolwright::runs::{RunJournal, RunUnit};
use toolwright::{Dispatcher, SkillContext};
use tracing::field::Empty;
use tracing::Instrument;

use super::agent::{self, ReviewAgent};
use super::checklist::{generated_checklist_for, review_items};
use super::findings::{consolidate, Classified, LearnedStage, Playbook};
use super::types::{
    ClauseReview, NotRun, ProgressHook, ReviewMode, ReviewOptions, ReviewReport, ReviewSummary,
};
use crate::index::ReferenceIndex;
use crate::parallel::cores;
use crate::state::{ChecklistItem, ReviewState};

/// Clauses in flight by default in an agent review: a model turn takes seconds, so several
/// clauses wait on the model at once.
pub const DEFAULT_AGENT_CONCURRENCY: usize = 8;

/// Clauses a checklist task takes at a time: their skills go to a call thread as one series
/// (one hand-over for some fifty calls instead of one per call), few enough that clauses
/// still spread over every task and progress is reported often.
const CLAUSES_PER_SERIES: usize = 8;

/// The span of one clause's review.
fn clause_span(item: &ChecklistItem) -> tracing::Span {
    tracing::info_span!(
        "review_clause",
        otel.name = %format_args!("review clause {}", item.clause_id),
        clausewright.clause.id = %item.clause_id,
        clausewright.clause.mode = Empty,
        clausewright.clause.risks = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    )
}

/// Everything the clause tasks share.
struct Job {
    dispatcher: Dispatcher,
    state: Arc<ReviewState>,
    base: SkillContext,
    checklist: Vec<ChecklistItem>,
    checklist_generated: bool,
    agent: Option<ReviewAgent>,
    progress: Option<ProgressHook>,
    /// The classifier's stage and what it found in the contract.
    classified: Option<(LearnedStage, Classified)>,
    /// Levels of the provisions found.
    playbook: Arc<Playbook>,
    /// The durable run it records in, if any.
    run: Option<Arc<RunJournal>>,
    /// Indexes of the clauses still to review (all of them unless a run recorded some).
    todo: Vec<usize>,
    next: AtomicUsize,
    finished: AtomicUsize,
    results: Mutex<Vec<Option<ClauseReview>>>,
}

/// The unit kind a finished clause is recorded under in a durable run.
pub const CLAUSE_UNIT: &str = "clause";

/// The key of checklist item `i` in a durable run: its place and id, so a resume matches
/// a recorded review only to the same item.
fn clause_key(i: usize, item: &ChecklistItem) -> String {
    format!("{i}/{}", item.clause_id)
}

/// The clause reviews `run` recorded, in checklist places; a clause recorded without its
/// review (the checklist's) and a record that does not read back (said so) are reviewed
/// again.
fn recorded_reviews(run: &RunJournal, checklist: &[ChecklistItem]) -> Vec<Option<ClauseReview>> {
    let mut results = vec![None; checklist.len()];
    let places: std::collections::HashMap<String, usize> = checklist
        .iter()
        .enumerate()
        .map(|(i, item)| (clause_key(i, item), i))
        .collect();
    for unit in run
        .recorded_units()
        .iter()
        .filter(|u| u.kind == CLAUSE_UNIT && !u.body.is_empty())
    {
        let Some(&i) = places.get(&unit.key) else {
            continue;
        };
        match serde_json::from_str::<ClauseReview>(&unit.body) {
            Ok(review) => results[i] = Some(review),
            Err(err) => tracing::warn!(
                run = run.id(), clause = %unit.key, error = %err,
                "a recorded clause review is unreadable; reviewing the clause again"
            ),
        }
    }
    results
}

/// Clause tasks in flight for `options` over `items` clauses: `options.concurrency`, or
/// [`DEFAULT_AGENT_CONCURRENCY`] with a model and one per CPU core without; at least one,
/// at most one per clause.
pub(super) fn tasks_in_flight(options: &ReviewOptions, agent: bool, items: usize) -> usize {
    match options.concurrency {
        0 if agent => DEFAULT_AGENT_CONCURRENCY,
        0 => cores(),
        n => n,
    }
    .min(items)
    .max(1)
}

/// Copies the state, makes the checklist and builds the shared context (CPU work).
fn prepare(
    dispatcher: Dispatcher,
    state: Arc<ReviewState>,
    options: &ReviewOptions,
    agent: Option<ReviewAgent>,
) -> Job {
    let mut checklist_generated = false;
    let classified = options
        .learned
        .as_ref()
        .map(|stage| (stage.clone(), stage.classify_all(&state)));
    let playbook = options
        .playbook
        .clone()
        .unwrap_or_else(|| Arc::new(Playbook::shipped(state.domain).clone()));
    let checklist: Vec<ChecklistItem> =
        if state.review_checklist.is_empty() && options.generate_checklist {
            checklist_generated = true;
            generated_checklist_for(&state, classified.as_ref().map(|(_, c)| c), &playbook)
        } else {
            state.review_checklist.clone()
        };
    let base = SkillContext::new()
        .with(ReferenceIndex::build(&state))
        .with_arc(Arc::clone(&state));
    let results = match &options.run {
        Some(run) => recorded_reviews(run, &checklist),
        None => vec![None; checklist.len()],
    };
    let todo: Vec<usize> = (0..checklist.len())
        .filter(|&i| results[i].is_none())
        .collect();
    let done_before = checklist.len() - todo.len();
    let results = Mutex::new(results);
    Job {
        dispatcher,
        state,
        base,
        checklist,
        checklist_generated,
        agent,
        progress: options.progress.clone(),
        classified,
        playbook,
        run: options.run.clone(),
        todo,
        next: AtomicUsize::new(0),
        finished: AtomicUsize::new(done_before),
        results,
    }
}

impl Job {
    /// One worker: takes the next clauses until none is left: one at a time with a model,
    /// [`CLAUSES_PER_SERIES`] at a time by the checklist (their skills as one series).
    async fn work(self: Arc<Self>) {
        let take = if self.agent.is_some() {
            1
        } else {
            CLAUSES_PER_SERIES
        };
        loop {
            let start = self.next.fetch_add(take, Ordering::Relaxed);
            let Some(places) = self
                .todo
                .get(start..(start + take).min(self.todo.len()))
                .filter(|places| !places.is_empty())
            else {
                break;
            };
            let first = places[0];
            // Places are consecutive unless a resumed run recorded some clauses between them.
            let items: std::borrow::Cow<'_, [ChecklistItem]> =
                if places[places.len() - 1] - first + 1 == places.len() {
                    std::borrow::Cow::Borrowed(&self.checklist[first..first + places.len()])
                } else {
                    places.iter().map(|&i| self.checklist[i].clone()).collect()
                };
            let items = &*items;
            let spans: Vec<tracing::Span> = items.iter().map(clause_span).collect();
            match &self.agent {
                Some(agent) => {
                    let (item, span) = (&items[0], &spans[0]);
                    let review = agent::review_item_react(
                        agent.client.as_ref(),
                        &agent.settings,
                        &self.dispatcher,
                        &self.base,
                        &self.state,
                        item,
                    )
                    .instrument(span.clone())
                    .await;
                    self.record(first, review, span);
                }
                None => {
                    let reviews =
                        review_items(&self.dispatcher, &self.base, &self.state, items, &spans)
                            .await;
                    for ((review, span), &i) in reviews.into_iter().zip(&spans).zip(places) {
                        self.record(i, review, span);
                    }
                }
            }
        }
    }

    /// Keeps clause `i`'s review: its span's fields, the progress hook, the durable run,
    /// the result.
    fn record(&self, i: usize, review: ClauseReview, span: &tracing::Span) {
        if let Some(run) = &self.run {
            // A clause the checklist reviewed is recorded as done without its review: it is
            // cheap and the same when done again, so a resume reviews it again rather than
            // the run writing every clause twice (here and in the report).
            let body = match review.mode {
                ReviewMode::Checklist => Ok(String::new()),
                _ => serde_json::to_string(&review),
            };
            match body {
                Ok(body) => run.record_unit(RunUnit {
                    kind: CLAUSE_UNIT.into(),
                    key: clause_key(i, &self.checklist[i]),
                    counts: true,
                    body,
                }),
                Err(err) => {
                    tracing::warn!(run = run.id(), error = %err, "cannot record a clause review")
                }
            }
        }
        span.record("clausewright.clause.mode", mode_name(review.mode));
        span.record("clausewright.clause.risks", review.risks.len());
        if !review.usage.is_empty() {
            span.record("gen_ai.usage.input_tokens", review.usage.prompt_tokens);
            span.record("gen_ai.usage.output_tokens", review.usage.completion_tokens);
        }
        if let Some(hook) = &self.progress {
            let done = self.finished.fetch_add(1, Ordering::Relaxed) + 1;
            hook.0(&review, done, self.checklist.len());
        }
        self.results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(review);
    }

    /// The report: the clause reviews in checklist order (a clause no task finished is
    /// marked not run, for the reason `why`), the counts and the document-level risks (CPU
    /// work).
    fn finish(mut self: Arc<Self>, why: NotFinished) -> ReviewReport {
        let results = std::mem::take(&mut *self.results.lock().unwrap_or_else(|p| p.into_inner()));
        let (code, message) = why.describe();
        // Room for the agreement-level entry the consolidation puts first: the report's
        // largest list is not copied to grow by one.
        let mut clauses: Vec<ClauseReview> = Vec::with_capacity(self.checklist.len() + 1);
        clauses.extend(
            results
                .into_iter()
                .chain(std::iter::repeat(None))
                .zip(&self.checklist)
                .map(|(review, item)| {
                    review.unwrap_or_else(|| ClauseReview::not_run(item, code, message))
                }),
        );
        // Every clause task is gone: the checklist (one item a clause) is let go before the
        // consolidation, where a long review's memory peaks.
        if let Some(job) = Arc::get_mut(&mut self) {
            job.checklist = Vec::new();
        }
        let incomplete = clauses.iter().any(|c| c.mode == ReviewMode::NotRun);
        let summary = ReviewSummary::of(&clauses);
        let mut report = ReviewReport {
            document_id: self
                .state
                .primary()
                .map(|d| d.document_id.clone())
                .unwrap_or_default(),
            domain: self.state.domain,
            our_party: self.state.our_party.clone(),
            checklist_generated: self.checklist_generated,
            incomplete,
            clauses,
            summary,
            orchestration: None,
        };
        consolidate::finalize(
            &mut report,
            &self.state,
            true,
            self.classified
                .as_ref()
                .map(|(stage, found)| (stage, found)),
            &self.playbook,
        );
        report
    }
}

/// Why a clause may have no review when the report is made.
#[derive(Debug, Clone, Copy)]
enum NotFinished {
    /// The review was cancelled.
    Cancelled,
    /// No runtime could be started.
    NoRuntime,
}

impl NotFinished {
    /// The error code and message the clause's skills are listed with.
    fn describe(self) -> (&'static str, &'static str) {
        match self {
            Self::Cancelled => (
                "cancelled",
                "the review was cancelled before this clause finished",
            ),
            Self::NoRuntime => ("not_run", "the review runtime could not start"),
        }
    }
}

/// Runs `f` on the blocking pool (CPU work of a whole document), or here when the pool
/// cannot take it.
async fn off_runtime<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    match tokio::task::spawn_blocking(f).await {
        Ok(value) => value,
        Err(err) => std::panic::resume_unwind(err.into_panic()),
    }
}

/// How a clause's mode is named in traces and JSON.
fn mode_name(mode: ReviewMode) -> &'static str {
    match mode {
        ReviewMode::Checklist => "checklist",
        ReviewMode::React => "react",
        ReviewMode::ReactFallback => "react_fallback",
        ReviewMode::NotRun => "not_run",
    }
}

/// The review until `cancel` completes: see [`super::review_with_agent`]. The whole review is
/// one `review` span (with a model, an `invoke_agent` operation of the OpenTelemetry GenAI
/// conventions), each clause a `review_clause` span in it, each model turn and tool call a
/// `chat` / `execute_tool` span in the clause's.
pub(crate) async fn run(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
    agent: Option<&ReviewAgent>,
    cancel: impl std::future::Future<Output = ()>,
) -> ReviewReport {
    let agent = agent
        .filter(|a| a.settings.use_react_agent && state.primary().is_some())
        .cloned();
    let model = agent
        .as_ref()
        .and_then(|a| a.client.model())
        .unwrap_or_default();
    let span = tracing::info_span!(
        "review",
        otel.name = if agent.is_some() {
            "invoke_agent contract_review"
        } else {
            "review"
        },
        gen_ai.operation.name = agent.is_some().then_some("invoke_agent"),
        gen_ai.agent.name = agent.is_some().then_some("contract_review"),
        gen_ai.request.model = (!model.is_empty()).then_some(model),
        clausewright.review.document = state.primary().map(|d| d.document_id.as_str()),
        clausewright.review.domain = state.domain.as_str(),
        clausewright.review.clauses = Empty,
        clausewright.review.concurrency = Empty,
        clausewright.review.incomplete = Empty,
        clausewright.review.risks = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    );
    let report = run_in_span(dispatcher, state, options, agent, cancel)
        .instrument(span.clone())
        .await;
    let summary = &report.summary;
    span.record("clausewright.review.incomplete", report.incomplete);
    span.record("clausewright.review.risks", summary.total_risks);
    if !summary.usage.is_empty() {
        span.record("gen_ai.usage.input_tokens", summary.usage.prompt_tokens);
        span.record(
            "gen_ai.usage.output_tokens",
            summary.usage.completion_tokens,
        );
    }
    report
}

async fn run_in_span(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
    agent: Option<ReviewAgent>,
    cancel: impl std::future::Future<Output = ()>,
) -> ReviewReport {
    let (dispatcher, state, prepared_options) =
        (dispatcher.clone(), Arc::new(state.clone()), options.clone());
    let job = off_runtime(move || prepare(dispatcher, state, &prepared_options, agent)).await;
    let workers = tasks_in_flight(options, job.agent.is_some(), job.todo.len());
    let span = tracing::Span::current();
    span.record("clausewright.review.clauses", job.checklist.len());
    span.record("clausewright.review.concurrency", workers);
    if let Some(run) = &job.run {
        if let Err(err) = run.set_units_total(job.checklist.len() as u64).await {
            tracing::warn!(run = run.id(), error = %err, "cannot record the number of clauses");
        }
    }
    let job = Arc::new(job);
    let mut tasks = JoinSet::new();
    for _ in 0..workers {
        tasks.spawn(Arc::clone(&job).work().instrument(span.clone()));
    }
    let mut cancel = std::pin::pin!(cancel);
    loop {
        tokio::select! {
            done = tasks.join_next() => match done {
                None => break,
                Some(Err(err)) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
                Some(_) => {}
            },
            () = &mut cancel => {
                tracing::warn!(
                    finished = job.finished.load(Ordering::Relaxed),
                    clauses = job.checklist.len(),
                    "review cancelled; clause tasks aborted"
                );
                // Aborted tasks drop their model requests; wait until every one is gone.
                tasks.abort_all();
                while tasks.join_next().await.is_some() {}
                break;
            }
        }
    }
    off_runtime(move || job.finish(NotFinished::Cancelled)).await
}

/// The checklist review for a synchronous caller: [`run`] without a model on a new
/// multi-threaded runtime (one worker thread per core), on a thread of its own when the
/// caller is itself inside a runtime (where blocking on another would panic). When no
/// runtime can be started, every clause is reported as not run.
pub(crate) fn run_blocking(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
) -> ReviewReport {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores())
        .thread_name("clausewright-review")
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            tracing::error!(error = %err, "cannot start the review runtime");
            let state = Arc::new(state.clone());
            return Arc::new(prepare(dispatcher.clone(), state, options, None))
                .finish(NotFinished::NoRuntime);
        }
    };
    let review = run(dispatcher, state, options, None, std::future::pending());
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(
            |scope| match scope.spawn(|| runtime.block_on(review)).join() {
                Ok(report) => report,
                Err(panic) => std::panic::resume_unwind(panic),
            },
        )
    } else {
        runtime.block_on(review)
    }
}
