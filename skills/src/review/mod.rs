//! The clause-by-clause review of a contract, in three modes, each with one entry point:
//!
//! | mode | call | who reviews each clause |
//! |---|---|---|
//! | checklist | [`run_checklist_review`] (blocks) | each checklist item's `required_skills`, run through [`Dispatcher::prepare_and_call`](toolwright::Dispatcher::prepare_and_call) with the clause in focus; the outputs become risks by the documented [`rules`]. No model. |
//! | agent | [`review_with_agent`] (async, cancellable) | a model in a ReAct loop chooses the skills and writes the risks ([`ReviewAgent`], [`AgentSettings`]); a clause it fails on, or every clause when no agent is given or its settings leave it off, is reviewed by the checklist |
//! | orchestrated | [`review_orchestrated`] (async, cancellable) | the checklist review first, then a planner model reads the contract's outline and sends the clauses that need it to deep ReAct reviews, within one budget, and writes a synthesis ([`OrchestrateSettings`]) |
//!
//! Which to call: the checklist review for a fast, reproducible review without a model (the
//! CLI's default, the evaluation); the agent when a model should read every clause (and from
//! async code, or to cancel on Ctrl-C, even without a model); the orchestrated review when a
//! model should decide where to look in a long contract within a budget.
//!
//! Every mode writes the same report ([`ReviewReport`] with its [`ClauseReview`]s, each
//! [`Risk`] a placed [`Finding`]; [`Orchestration`] for the planner's part), rendered with
//! [`render`], and shares the findings pipeline: the [`rules`], the [`provisions`]
//! scan, the classifier stage ([`LearnedStage`]), the [`Playbook`] and consolidation.
//! [`build_review_state`] reads a review's files. Any mode runs as a durable run with
//! [`review_as_run`]: recorded as it goes, resumed after a crash without paying twice.
//!
//! ```no_run
//! use clausewright_skills::review::{build_review_state, run_checklist_review, render, Domain, ReportFormat, ReviewInputs, ReviewOptions};
//! use toolwright::Dispatcher;
//!
//! let state = build_review_state(&ReviewInputs {
//!     primary: "PC.md".into(),
//!     baseline: Some("GC.md".into()),
//!     references: vec!["ER.md".into()],
//!     domain: Domain::Fidic,
//!     ..Default::default()
//! })?;
//! let dispatcher = Dispatcher::from_inventory()?;
//! let report = run_checklist_review(&dispatcher, &state, &ReviewOptions::default());
//! println!("{}", render(&report, ReportFormat::Table));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod agent;
mod checklist;
#[cfg(feature = "train")]
pub mod cv;
mod durable;
mod engine;
pub mod eval;
mod findings;
mod inputs;
mod orchestrated;
mod render;
mod types;

pub use crate::state::{Domain, UnknownDomain};
pub use agent::{
    build_react_agent_messages, normalize_risk_level, parse_final_response, review_with_agent,
    AgentSettings, AgentSettingsError, DomainPrompt, FinalAnswerError, Language, ModelProvider,
    ModelRisk, ReactPromptInput, ReviewAgent, ReviewAgentError, CLAUSE_END, CLAUSE_START,
    ENV_REACT_FINAL_ANSWER_AT_LIMIT, ENV_REACT_MAX_ITERATIONS, ENV_REACT_TEMPERATURE,
    ENV_USE_REACT_AGENT, MODEL_ENV_VARS, REACT_SOURCE,
};
pub use checklist::{generate_checklist, run_checklist_review};
pub use durable::{review_as_run, RunModel, RunReview, CLAUSE_UNIT, REVIEW_RUN_KIND};
pub use engine::DEFAULT_AGENT_CONCURRENCY;
pub use findings::{
    kinds, provisions, rules, KindLevels, LearnedStage, LearnedStageError, Playbook, PlaybookError,
    Probability, LEARNED_SOURCE,
};
pub use inputs::{build_review_state, ContractFolder, ReviewInputError, ReviewInputs};
#[doc(hidden)]
pub use inventory as __inventory;
pub use orchestrated::{
    planner_tools, read_synthesis, review_orchestrated, ClauseOutline, OrchestrateSettings,
    OutlineEntry, OutlineFinding, Synthesis, SynthesisError, REVIEW_DEEP,
};
pub use render::{
    render, render_json, render_markdown, render_table, render_table_within, ReportFormat,
};
pub use types::{
    ClausePlan, ClauseReview, CrossClauseFinding, DeepRun, Finding, Orchestration, PlanDepth,
    ProgressFn, ProgressHook, ReviewMode, ReviewOptions, ReviewReport, ReviewSummary, Risk,
    RiskKind, RiskLevel, RunReport, SkillRun, Subject, UnknownRiskLevel, DOCUMENT_ANCHOR,
};

#[cfg(feature = "train")]
pub(crate) use findings::learned;
