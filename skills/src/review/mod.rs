//! The clause-by-clause review. Checklist mode (SPEC-20's default, and the fallback of the
//! agent): for each checklist item, run its `required_skills` through
//! [`Dispatcher::prepare_and_call`] with the review state and the clause in focus, then turn
//! the outputs into risks by the documented rules of [`rules`]. ReAct mode ([`run_review`]
//! with [`AgentSettings::use_react_agent`]): a model chooses the skills and writes the risks,
//! see [`run_review`] and [`AgentSettings`].
//!
//! ```no_run
//! use clausewright_skills::review::{build_review_state, run_checklist_review, render, ReportFormat, ReviewInputs, ReviewOptions};
//! use toolwright::Dispatcher;
//!
//! let state = build_review_state(&ReviewInputs {
//!     primary: "PC.md".into(),
//!     baseline: Some("GC.md".into()),
//!     references: vec!["ER.md".into()],
//!     domain_id: "fidic".into(),
//!     ..Default::default()
//! })?;
//! let dispatcher = Dispatcher::from_inventory()?;
//! let report = run_checklist_review(&dispatcher, &state, &ReviewOptions::default());
//! println!("{}", render(&report, ReportFormat::Table));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod agent;
mod answer;
mod checklist;
mod consolidate;
pub mod cv;
mod engine;
pub mod eval;
mod finding;
mod inputs;
pub mod kinds;
pub(crate) mod learned;
mod orchestrated;
mod outline;
pub mod planner_tools;
mod playbook;
mod prompts;
pub mod provisions;
mod react_prompt;
mod report;
mod risk;
pub mod rules;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use toolwright::agent::{ChatMessage, TokenUsage};
use toolwright::{codes, Dispatcher, SeriesCall, SkillContext, SkillResult};

pub use agent::{
    normalize_risk_level, run_review, AgentSettings, AgentSettingsError, ModelProvider,
    ReviewAgent, ReviewAgentError, ENV_REACT_FINAL_ANSWER_AT_LIMIT, ENV_REACT_MAX_ITERATIONS,
    ENV_REACT_TEMPERATURE, ENV_USE_REACT_AGENT, MODEL_ENV_VARS, REACT_SOURCE,
};
pub use answer::{parse_final_response, FinalAnswerError, ModelRisk};
pub use checklist::generate_checklist;
pub use engine::DEFAULT_AGENT_CONCURRENCY;
pub use finding::{Finding, Risk, RiskKind, Subject, DOCUMENT_ANCHOR};
pub use learned::{LearnedStage, LearnedStageError, SOURCE as LEARNED_SOURCE};
pub use orchestrated::{
    read_synthesis, review_orchestrated, BudgetLimits, BudgetSpent, ClausePlan, CrossClauseFinding,
    DeepRun, OrchestrateSettings, Orchestration, PlanDepth, Synthesis, REVIEW_DEEP,
};
pub use outline::{ClauseOutline, OutlineEntry, OutlineFinding};
pub use playbook::{KindLevels, Playbook, PlaybookError, Probability};
pub use react_prompt::{
    build_react_agent_messages, DomainPrompt, Language, ReactPromptInput, CLAUSE_END, CLAUSE_START,
};

pub use inputs::{
    build_review_state, ContractFolder, Domain, ReviewInputError, ReviewInputs, UnknownDomain,
};
#[doc(hidden)]
pub use inventory as __inventory;
pub use report::{
    render, render_json, render_markdown, render_table, render_table_within, ReportFormat,
};
pub use risk::{RiskLevel, UnknownRiskLevel};

use crate::state::{ChecklistItem, ClauseFocus, Priority, ReviewState};
use crate::text::truncate_chars;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewOptions {
    /// Clauses reviewed at the same time (tasks in flight); 0 means
    /// [`DEFAULT_AGENT_CONCURRENCY`] when a model reviews and one per CPU core otherwise.
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
}

impl Default for ReviewOptions {
    fn default() -> Self {
        Self {
            progress: None,
            concurrency: 0,
            generate_checklist: true,
            learned: None,
            playbook: None,
        }
    }
}

/// One skill call of the review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkillRun {
    /// The skill.
    pub skill_id: String,
    /// Whether it returned a value.
    pub success: bool,
    /// Error code when it failed (`unknown_skill`, `not_found`, ...).
    pub error_code: Option<String>,
    /// Error message when it failed.
    pub error_message: Option<String>,
    /// The output's `summary`, when it has a string one.
    pub summary: Option<String>,
    /// Wall time in milliseconds.
    pub elapsed_ms: f64,
}

/// The review of one checklist item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseReview {
    /// The clause.
    pub clause_id: String,
    /// Its name from the checklist.
    pub clause_name: String,
    /// Its priority.
    pub priority: Priority,
    /// Every skill called: in checklist order, or in the order the model called them (on
    /// fallback the model's calls first, then the checklist's).
    pub skills: Vec<SkillRun>,
    /// Skills of the checklist that are not registered (skipped).
    pub skipped_skills: Vec<String>,
    /// Risks found, most serious first.
    pub risks: Vec<Risk>,
    /// Which branch produced the risks (left out of the JSON in checklist mode).
    #[serde(default, skip_serializing_if = "ReviewMode::is_checklist")]
    pub mode: ReviewMode,
    /// Skills the model called, in the order it called them (ReAct mode).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_chosen: Vec<String>,
    /// The whole ReAct conversation of this clause, kept for audit (also on fallback).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<Value>")]
    pub agent_messages: Vec<ChatMessage>,
    /// Why the ReAct branch gave way to the checklist (mode `react_fallback`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// What the ReAct loop reported (unreadable final answer, iteration limit, model error).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_warnings: Vec<String>,
    /// Model turns made for this clause (ReAct mode; on fallback, the turns before it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub model_turns: usize,
    /// Tokens those turns cost, as the provider reported them.
    #[serde(default, skip_serializing_if = "TokenUsage::is_empty")]
    pub usage: TokenUsage,
}

/// Which branch reviewed a clause (SPEC-20 section 5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewMode {
    /// The checklist's `required_skills` and the rules of [`rules`].
    #[default]
    Checklist,
    /// The model chose the tools and wrote the risks.
    React,
    /// The ReAct branch failed (model error, no tools); the checklist reviewed the clause.
    ReactFallback,
    /// The clause was not reviewed: the review was cancelled (or could not start) before
    /// it finished. Its skills are listed as not run; it has no risks.
    NotRun,
}

impl ReviewMode {
    /// Whether this is the checklist mode (the default, not written to JSON).
    pub fn is_checklist(&self) -> bool {
        *self == Self::Checklist
    }
}

/// Counts over the whole review.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewSummary {
    /// Checklist items reviewed.
    pub clauses_reviewed: usize,
    /// Skill calls made.
    pub skill_calls: usize,
    /// Skill calls that failed (unknown skills included).
    pub skill_failures: usize,
    /// Checklist skills that are not registered, each once.
    pub unknown_skills: Vec<String>,
    /// Risks in total.
    pub total_risks: usize,
    /// High risks.
    pub high: usize,
    /// Medium risks.
    pub medium: usize,
    /// Low risks.
    pub low: usize,
    /// Clauses the model reviewed (ReAct mode).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub react_clauses: usize,
    /// Clauses where the ReAct branch failed and the checklist took over.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub react_fallbacks: usize,
    /// Clauses of the checklist that were not reviewed (the review was cancelled first);
    /// not counted in `clauses_reviewed`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub clauses_not_run: usize,
    /// Model turns over all clauses.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub model_turns: usize,
    /// Tokens of every model turn, summed over all clauses.
    #[serde(default, skip_serializing_if = "TokenUsage::is_empty")]
    pub usage: TokenUsage,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The result of an offline review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewReport {
    /// The contract reviewed.
    pub document_id: String,
    /// Domain of the review.
    pub domain_id: String,
    /// The party the review acts for.
    pub our_party: String,
    /// Whether the checklist was made from the document (none was given).
    pub checklist_generated: bool,
    /// The review was cancelled before every clause finished: the clauses not finished are
    /// in `clauses` with mode [`ReviewMode::NotRun`] (left out of the JSON when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
    /// Per checklist item, in checklist order.
    pub clauses: Vec<ClauseReview>,
    /// Counts.
    pub summary: ReviewSummary,
    /// How a planner organised the review ([`review_orchestrated`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orchestration: Option<Orchestration>,
}

impl ReviewReport {
    /// Every risk, clause by clause.
    pub fn risks(&self) -> impl Iterator<Item = &Risk> {
        self.clauses.iter().flat_map(|c| c.risks.iter())
    }
}

/// Runs the checklist review: every item's skills through `prepare_and_call`, risks by the
/// rules of [`rules`]. Blocks: it runs [`review`] without a model on a runtime of its own
/// (one worker thread per core); from async code, await [`review`] instead.
pub fn run_checklist_review(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
) -> ReviewReport {
    engine::run_blocking(dispatcher, state, options, None)
}

/// Reviews the contract of `state`, clause by clause: by the ReAct branch when `agent` is
/// given, its settings switch it on and the state has a primary document, by the checklist
/// otherwise (see [`run_review`] for the fallback rules).
///
/// One runtime serves the whole review, the caller's: each clause is reviewed by a task,
/// at most `options.concurrency` at once (0: [`DEFAULT_AGENT_CONCURRENCY`] with a model,
/// one per CPU core without), all sharing `agent`'s client and its connection pool. The
/// report keeps checklist order whatever order clauses finish in; `options.progress` hears
/// of each as it finishes. Preparing the review (checklist, reference index) and the
/// document-level pass run on the blocking pool. Dropping the future aborts every clause
/// task and the model requests they wait on. The checklist mode is CPU work: on a
/// current-thread runtime its clauses run one at a time, on a multi-threaded one in
/// parallel.
///
/// ```no_run
/// # async fn demo(state: clausewright_skills::ReviewState) -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use toolwright::agent::{OpenAiClient, OpenAiConfig};
/// use toolwright::Dispatcher;
/// use clausewright_skills::review::{review, AgentSettings, ReviewAgent, ReviewOptions};
///
/// let client = OpenAiClient::new(OpenAiConfig::from_env())?;
/// let settings = AgentSettings { use_react_agent: true, ..AgentSettings::from_env()? };
/// let agent = ReviewAgent::new(Arc::new(client), settings);
/// let dispatcher = Dispatcher::from_inventory()?;
/// let report = review(&dispatcher, &state, &ReviewOptions::default(), Some(&agent)).await;
/// println!("{} risks", report.summary.total_risks);
/// # Ok(()) }
/// ```
pub async fn review(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
    agent: Option<&ReviewAgent>,
) -> ReviewReport {
    engine::run(dispatcher, state, options, agent, std::future::pending()).await
}

/// [`review`] until `cancel` completes (Ctrl-C, a deadline, a shutdown signal), whichever
/// comes first. On cancellation every clause task is aborted at once, the model requests
/// in flight are dropped, and the report holds the clauses already finished, the others
/// marked [`ReviewMode::NotRun`], with [`ReviewReport::incomplete`] set. Document-level
/// risks are then drawn from the finished clauses only.
///
/// ```no_run
/// # async fn demo(state: clausewright_skills::ReviewState, dispatcher: toolwright::Dispatcher) {
/// use clausewright_skills::review::{review_until, ReviewOptions};
///
/// // At most ten minutes; a CLI would wait on `tokio::signal::ctrl_c()` instead.
/// let deadline = tokio::time::sleep(std::time::Duration::from_secs(600));
/// let report = review_until(&dispatcher, &state, &ReviewOptions::default(), None, deadline).await;
/// if report.incomplete {
///     eprintln!("interrupted: {} clause(s) not reviewed", report.summary.clauses_not_run);
/// }
/// # }
/// ```
pub async fn review_until(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
    agent: Option<&ReviewAgent>,
    cancel: impl std::future::Future<Output = ()>,
) -> ReviewReport {
    engine::run(dispatcher, state, options, agent, cancel).await
}

/// The generated checklist without skills the state cannot feed (no reference documents:
/// no `search_reference_doc`; no baseline: no `compare_with_baseline`; no Particular
/// Conditions: no `fidic_merge_gc_pc` or `fidic_check_pc_consistency`; no Employer's
/// Requirements: no `fidic_search_er`).
pub(super) fn generated_checklist_for(
    state: &Arc<ReviewState>,
    classified: Option<&learned::Classified>,
    playbook: &Playbook,
) -> Vec<ChecklistItem> {
    use crate::fidic::check_pc_consistency::FidicCheckPcConsistency;
    use crate::fidic::merge_gc_pc::FidicMergeGcPc;
    use crate::fidic::search_er::FidicSearchEr;
    use crate::generic::compare_with_baseline::CompareWithBaseline;
    use crate::generic::search_reference_doc::SearchReferenceDoc;
    use toolwright::Skill;

    let Some(doc) = state.primary() else {
        return Vec::new();
    };
    let has_references = state.references().next().is_some();
    let has_baseline = state.baseline().is_some();
    let lookup = crate::index::lookup_for(state);
    let fidic = crate::fidic::documents::FidicDocuments::of(&lookup);
    let mut items = generate_checklist(doc, &state.domain_id);
    if let Some(classified) = classified {
        let domain: Domain = state.domain_id.parse().unwrap_or(Domain::Generic);
        for item in &mut items {
            if let Some(found) = classified.clause(&item.clause_id) {
                checklist::guide_by_provisions(item, found, playbook, domain);
            }
        }
    }
    for item in &mut items {
        item.required_skills.retain(|s| {
            if s == <SearchReferenceDoc as Skill>::ID {
                has_references
            } else if s == <CompareWithBaseline as Skill>::ID {
                has_baseline
            } else if s == <FidicMergeGcPc as Skill>::ID
                || s == <FidicCheckPcConsistency as Skill>::ID
            {
                fidic.pc.is_some()
            } else if s == <FidicSearchEr as Skill>::ID {
                fidic.er.is_some()
            } else {
                true
            }
        });
    }
    items
}

/// `f` over every item on one worker thread per CPU core (contiguous chunks), results in
/// item order: for per-clause steps outside the worker pool (checklist, provisions).
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    if threads < 2 || items.len() < 64 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(part) => part,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// A clause no task finished: `code` and `why` on each of its skills.
pub(super) fn not_run(item: &ChecklistItem, code: &str, why: &str) -> ClauseReview {
    ClauseReview {
        clause_id: item.clause_id.clone(),
        clause_name: item.clause_name.clone(),
        priority: item.priority,
        skills: item
            .required_skills
            .iter()
            .map(|skill_id| SkillRun {
                skill_id: skill_id.clone(),
                success: false,
                error_code: Some(code.into()),
                error_message: Some(why.into()),
                summary: None,
                elapsed_ms: 0.0,
            })
            .collect(),
        skipped_skills: Vec::new(),
        risks: Vec::new(),
        mode: ReviewMode::NotRun,
        tools_chosen: Vec::new(),
        agent_messages: Vec::new(),
        fallback_reason: None,
        agent_warnings: Vec::new(),
        model_turns: 0,
        usage: TokenUsage::default(),
    }
}

/// The checklist branch for one item: its `required_skills` through `prepare_and_call`,
/// risks by the rules.
pub(super) async fn review_item(
    dispatcher: &Dispatcher,
    base: &SkillContext,
    state: &Arc<ReviewState>,
    item: &ChecklistItem,
) -> ClauseReview {
    let spans = [tracing::Span::current()];
    let mut reviews =
        review_items(dispatcher, base, state, std::slice::from_ref(item), &spans).await;
    reviews.pop().expect("one review per item")
}

/// The checklist branch for several items at once: all their skills as one series of calls
/// (`prepare_and_call_all`: one hand-over to a call thread for all of them when calls are
/// timed, each call under its own limit and recorded under its item's span), then each
/// item's risks by the rules.
pub(super) async fn review_items(
    dispatcher: &Dispatcher,
    base: &SkillContext,
    state: &Arc<ReviewState>,
    items: &[ChecklistItem],
    spans: &[tracing::Span],
) -> Vec<ClauseReview> {
    let mut calls = Vec::new();
    for (item, span) in items.iter().zip(spans) {
        let ctx = base.clone().with(ClauseFocus(item.clause_id.clone()));
        let _entered = span.enter();
        calls.extend(
            item.required_skills
                .iter()
                .map(|skill| SeriesCall::new(skill.as_str(), ctx.clone())),
        );
    }
    let mut results = dispatcher.prepare_and_call_all(calls).await.into_iter();
    items
        .iter()
        .map(|item| {
            let item_results = results.by_ref().take(item.required_skills.len());
            clause_review(state, item, item_results)
        })
        .collect()
}

/// One item's review from the results of its skills, in `required_skills` order.
fn clause_review(
    state: &Arc<ReviewState>,
    item: &ChecklistItem,
    results: impl Iterator<Item = SkillResult>,
) -> ClauseReview {
    let mut skills = Vec::with_capacity(item.required_skills.len());
    let mut skipped_skills = Vec::new();
    let mut outputs: Vec<(String, Box<RawValue>)> = Vec::new();
    for (skill_id, result) in item.required_skills.iter().zip(results) {
        let error = result.error.as_ref();
        if error.is_some_and(|e| e.code == codes::UNKNOWN_SKILL) {
            tracing::debug!(skill = %skill_id, clause = %item.clause_id, "checklist names an unknown skill; skipped");
            skipped_skills.push(skill_id.clone());
        }
        skills.push(SkillRun {
            skill_id: skill_id.clone(),
            success: result.success,
            error_code: error.map(|e| e.code.to_string()),
            error_message: error.map(|e| e.message.clone()),
            summary: result
                .data
                .as_deref()
                .and_then(rules::output_summary)
                .map(String::from),
            elapsed_ms: result.elapsed_ms,
        });
        if let Some(data) = result.data {
            outputs.push((skill_id.clone(), data));
        }
    }
    // The clause's text is quoted only by a finding without words of its own: looked up
    // (and its sub-clauses joined) only then, once.
    let mut clause_text: Option<String> = None;
    let mut findings = rules::risks_from_outputs(&outputs);
    findings.sort_by_key(|f| std::cmp::Reverse(f.level));
    let risks = findings
        .into_iter()
        .enumerate()
        .map(|(n, mut finding)| {
            // A finding about another clause or the whole agreement does not quote this one.
            if finding.quote.is_empty() && finding.anchor.is_none() {
                let text = clause_text.get_or_insert_with(|| {
                    crate::index::lookup_for(state)
                        .primary()
                        .and_then(|d| d.full_text(&item.clause_id))
                        .unwrap_or_default()
                });
                finding.quote = truncate_chars(text, 200);
            }
            Risk {
                id: format!("R-{}-{}", item.clause_id, n + 1),
                clause_id: finding
                    .anchor
                    .clone()
                    .unwrap_or_else(|| item.clause_id.clone()),
                finding,
            }
        })
        .collect();
    ClauseReview {
        clause_id: item.clause_id.clone(),
        clause_name: item.clause_name.clone(),
        priority: item.priority,
        skills,
        skipped_skills,
        risks,
        mode: ReviewMode::Checklist,
        tools_chosen: Vec::new(),
        agent_messages: Vec::new(),
        fallback_reason: None,
        agent_warnings: Vec::new(),
        model_turns: 0,
        usage: TokenUsage::default(),
    }
}

pub(super) fn summarize(clauses: &[ClauseReview]) -> ReviewSummary {
    let mut summary = ReviewSummary::default();
    for clause in clauses {
        match clause.mode {
            ReviewMode::Checklist => {}
            ReviewMode::React => summary.react_clauses += 1,
            ReviewMode::ReactFallback => summary.react_fallbacks += 1,
            ReviewMode::NotRun => {
                summary.clauses_not_run += 1;
                continue;
            }
        }
        summary.clauses_reviewed += 1;
        summary.model_turns += clause.model_turns;
        summary.usage += clause.usage;
        summary.skill_calls += clause.skills.len();
        summary.skill_failures += clause.skills.iter().filter(|s| !s.success).count();
        for skipped in &clause.skipped_skills {
            if !summary.unknown_skills.contains(skipped) {
                summary.unknown_skills.push(skipped.clone());
            }
        }
        for risk in &clause.risks {
            summary.total_risks += 1;
            match risk.finding.level {
                RiskLevel::High => summary.high += 1,
                RiskLevel::Medium => summary.medium += 1,
                RiskLevel::Low => summary.low += 1,
            }
        }
    }
    summary.unknown_skills.sort();
    summary
}
