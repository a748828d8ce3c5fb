//! The orchestrated review (SPEC-21): a planner model reads the contract's outline (every
//! clause with its length, provision kinds and rule findings), decides per clause whether
//! it needs a deep review (a ReAct worker over the review skills), a quick one (the rules'
//! checklist, no model) or none, runs the deep reviews in parallel within one budget, and
//! writes the synthesis: a summary, the risks de-duplicated across clauses, and the
//! findings that span clauses. When the planner fails, the checklist review stands, the
//! reason stated.
//!
//! The planner's tools: `list_clauses` and `review_quick` ([`planner_tools`]),
//! `get_clause_context`, and the worker `review_deep` (`clause_id`, `focus`, optional
//! `max_iterations`).
//!
//! Entry point: [`review_orchestrated`].

mod assemble;
mod outline;
mod planner;
pub mod planner_tools;
mod synthesis;

use std::sync::Arc;

use toolwright::agent::orchestrate::{Budget, Orchestrator, Worker};
use toolwright::agent::{ChatMessage, LlmClient};
use toolwright::{Dispatcher, DispatcherBuilder, Skill, SkillContext, ToolFilter};

pub use outline::{ClauseOutline, OutlineEntry, OutlineFinding};
pub use synthesis::{read_synthesis, Synthesis, SynthesisError};

use super::agent::Language;
use super::engine;
use super::types::{ReviewOptions, ReviewReport};
use crate::generic::get_clause_context::GetClauseContext;
use crate::index::ReferenceIndex;
use crate::state::{Domain, ReviewState};
use assemble::{assemble, fallback_only};
use planner::{deep_schema, planner_instructions, planner_task, DeepBrief};
use planner_tools::{ListClauses, ReviewQuick};

/// The planner's worker: a deep review of one clause.
pub const REVIEW_DEEP: &str = "review_deep";

/// How an orchestrated review runs: the planner's model, the workers' model, how many
/// workers at once, and the budget of the whole run.
#[derive(Clone)]
pub struct OrchestrateSettings {
    /// The planner's model.
    pub planner: Arc<dyn LlmClient>,
    /// The deep reviews' model; `None`: the planner's.
    pub deep_model: Option<Arc<dyn LlmClient>>,
    /// Deep reviews running at once at most (default 8).
    pub max_workers: usize,
    /// Turns of one deep review at most (default 5); the planner may ask for fewer.
    pub deep_max_iterations: usize,
    /// Planner turns at most (default 8; the last one concludes without tools).
    pub planner_max_turns: usize,
    /// The run's budget, planner and workers together (default: no limit).
    pub budget: Budget,
    /// Sampling temperature of every model (default 0.1).
    pub temperature: f32,
}

impl OrchestrateSettings {
    /// The settings with `planner` as every model's, and the defaults.
    pub fn new(planner: Arc<dyn LlmClient>) -> Self {
        Self {
            planner,
            deep_model: None,
            max_workers: 8,
            deep_max_iterations: 5,
            planner_max_turns: 8,
            budget: Budget::unlimited(),
            temperature: 0.1,
        }
    }
}

impl std::fmt::Debug for OrchestrateSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrchestrateSettings")
            .field("planner", &self.planner.model())
            .field("deep_model", &self.deep_model.as_ref().map(|m| m.model()))
            .field("max_workers", &self.max_workers)
            .field("deep_max_iterations", &self.deep_max_iterations)
            .field("planner_max_turns", &self.planner_max_turns)
            .field("budget", &self.budget)
            .finish()
    }
}

/// The orchestrated review of `state`: the checklist review first (the outline's rule
/// findings, and the fallback), then the planner's plan, deep reviews and synthesis. The
/// report is the checklist report with each deep-reviewed clause replaced by its deep
/// review, and [`ReviewReport::orchestration`] set. Cancelled (`cancel` completes) during
/// the planner's run, the checklist report stands, the reason stated.
pub async fn review_orchestrated(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
    settings: &OrchestrateSettings,
    cancel: impl std::future::Future<Output = ()>,
) -> ReviewReport {
    let mut cancel = std::pin::pin!(cancel);
    let mut report = engine::run(dispatcher, state, options, None, cancel.as_mut()).await;
    if report.incomplete {
        return report;
    }
    let started = std::time::Instant::now();
    let state = Arc::new(state.clone());
    let outline = Arc::new(ClauseOutline::new(&state, &report));
    // The planner's tools are not in the inventory: they join the caller's skills here.
    let dispatcher = match DispatcherBuilder::from_dispatcher(dispatcher)
        .skill(ListClauses::registration())
        .skill(ReviewQuick::registration())
        .build()
    {
        Ok(dispatcher) => dispatcher,
        Err(err) => {
            report.orchestration = Some(fallback_only(
                &outline,
                settings.budget,
                &format!("the planner's tools cannot join the skills: {err}"),
                started.elapsed(),
            ));
            return report;
        }
    };
    let dispatcher = &dispatcher;
    let ctx = SkillContext::new()
        .with(ReferenceIndex::build(&state))
        .with_arc(Arc::clone(&state))
        .with_arc(Arc::clone(&outline));
    let language = Language::from_tag(&state.language);
    let brief = DeepBrief {
        outline: Arc::clone(&outline),
        state: Arc::clone(&state),
        ctx: ctx.clone(),
        dispatcher: dispatcher.clone(),
        language,
    };
    let domain = match state.domain {
        Domain::Generic => "*",
        named => named.as_str(),
    };
    let deep_model = settings
        .deep_model
        .clone()
        .unwrap_or_else(|| Arc::clone(&settings.planner));
    let worker = Worker::new(
        REVIEW_DEEP,
        "Review one clause in depth: a reviewer model reads it with the review tools and returns its risks.",
        deep_model,
    )
    .tools(ToolFilter::all().domain(domain))
    .max_iterations(settings.deep_max_iterations.max(1))
    .temperature(settings.temperature)
    .json_answer()
    .arguments(deep_schema(settings.deep_max_iterations.max(1)), move |args| {
        brief.brief(args)
    });
    let orchestrator = Orchestrator::new(Arc::clone(&settings.planner))
        .name("review_planner")
        .skills(ToolFilter::default().ids([
            <ListClauses as Skill>::ID,
            <ReviewQuick as Skill>::ID,
            <GetClauseContext as Skill>::ID,
        ]))
        .worker(worker)
        .max_workers(settings.max_workers.max(1))
        .max_turns(settings.planner_max_turns.max(2))
        .budget(settings.budget)
        .answer_repairs(1);
    let mut orchestrator = orchestrator;
    orchestrator.temperature = settings.temperature;
    let messages = vec![
        ChatMessage::system(planner_instructions(language)),
        ChatMessage::user(planner_task(&state, &outline)),
    ];
    let read = |text: &str| read_synthesis(text, &outline);
    let run = orchestrator.run(dispatcher, messages, &ctx, read);
    let outcome = tokio::select! {
        outcome = run => outcome,
        () = &mut cancel => {
            report.incomplete = true;
            report.orchestration = Some(fallback_only(
                &outline,
                settings.budget,
                "the review was cancelled while the planner ran; the checklist review stands",
                started.elapsed(),
            ));
            return report;
        }
    };
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(err) => {
            report.orchestration = Some(fallback_only(
                &outline,
                settings.budget,
                &format!("the orchestrator could not start: {err}"),
                started.elapsed(),
            ));
            return report;
        }
    };
    assemble(&mut report, &outline, outcome, language, started.elapsed());
    report
}
