//! The orchestrated review (SPEC-21): a planner model reads the contract's outline (every
//! clause with its length, provision kinds and rule findings), decides per clause whether
//! it needs a deep review (a ReAct worker over the review skills), a quick one (the rules'
//! checklist, no model) or none, runs the deep reviews in parallel within one budget, and
//! writes the synthesis: a summary, the risks de-duplicated across clauses, and the
//! findings that span clauses. When the planner fails, the checklist review stands, the
//! reason stated.
//!
//! The planner's tools: `list_clauses` and `review_quick` ([`super::planner_tools`]),
//! `get_clause_context`, and the worker `review_deep` (`clause_id`, `focus`, optional
//! `max_iterations`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use toolwright::agent::orchestrate::{
    Brief, Budget, BudgetUsage, OrchestrateOutcome, OrchestrateStop, Orchestrator, Worker,
    WorkerReport, WorkerStatus,
};
use toolwright::agent::{extract_json, ChatMessage, LlmClient, TokenUsage};
use toolwright::{Dispatcher, DispatcherBuilder, Skill, SkillContext, ToolFilter};

use super::answer::{parse_final_response, ModelRisk};
use super::outline::ClauseOutline;
use super::planner_tools::{ListClauses, ReviewQuick};
use super::react_prompt::{build_react_agent_messages, Language, ReactPromptInput};
use super::{
    agent, summarize, ClauseReview, ReviewMode, ReviewOptions, ReviewReport, Risk, RiskLevel,
};
use crate::generic::get_clause_context::GetClauseContext;
use crate::index::ReferenceIndex;
use crate::state::{ClauseFocus, ReviewState};

/// The planner's worker: a deep review of one clause.
pub const REVIEW_DEEP: &str = "review_deep";

/// Clauses listed in the planner's first message; the rest through `list_clauses`.
const OUTLINE_IN_PROMPT: usize = 300;

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

/// How deeply the planner had a clause reviewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanDepth {
    /// A ReAct worker reviewed it.
    Deep,
    /// The rules' checklist reviewed it, at the planner's choice.
    Quick,
    /// The planner chose neither; the rules' findings of the outline stand.
    None,
}

/// The planner's decision for one clause, in its words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClausePlan {
    /// The clause.
    pub clause_id: String,
    /// Deep, quick or none.
    pub depth: PlanDepth,
    /// Why: the planner's focus for a deep review, its reason for a quick one or none.
    pub reason: String,
}

/// A finding that spans clauses (a cap in one, an uncapped indemnity in another).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CrossClauseFinding {
    /// Every clause involved (two or more).
    pub clause_ids: Vec<String>,
    /// How serious.
    pub risk_level: RiskLevel,
    /// Its kind, in the planner's words (may be empty).
    #[serde(default)]
    pub risk_type: String,
    /// What the clauses do together.
    pub description: String,
}

/// One deep review as it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeepRun {
    /// The clause.
    pub clause_id: String,
    /// `complete`, `incomplete`, `failed` or `not_run`.
    pub status: String,
    /// Why it was incomplete, failed or did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Model turns.
    pub turns: usize,
    /// Skill calls.
    pub tool_calls: usize,
    /// Tokens, as reported.
    pub usage: TokenUsage,
    /// Wall time in milliseconds.
    pub elapsed_ms: f64,
}

/// Limits of the run, as given (`None`: no limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetLimits {
    /// Model requests at most.
    pub model_requests: Option<u64>,
    /// Input tokens at most.
    pub input_tokens: Option<u64>,
    /// Output tokens at most.
    pub output_tokens: Option<u64>,
    /// Tool calls at most.
    pub tool_calls: Option<u64>,
    /// Wall time at most, in milliseconds.
    pub wall_time_ms: Option<u64>,
}

/// What the run spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetSpent {
    /// Model requests sent.
    pub model_requests: u64,
    /// Input tokens reported.
    pub input_tokens: u64,
    /// Output tokens reported.
    pub output_tokens: u64,
    /// Tool calls run (deep reviews included).
    pub tool_calls: u64,
}

impl From<BudgetUsage> for BudgetSpent {
    fn from(u: BudgetUsage) -> Self {
        Self {
            model_requests: u.model_requests,
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            tool_calls: u.tool_calls,
        }
    }
}

impl From<Budget> for BudgetLimits {
    fn from(b: Budget) -> Self {
        Self {
            model_requests: b.model_requests,
            input_tokens: b.input_tokens,
            output_tokens: b.output_tokens,
            tool_calls: b.tool_calls,
            wall_time_ms: b
                .wall_time
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        }
    }
}

/// The orchestration of a review: the plan, the synthesis, the budget and who spent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Orchestration {
    /// Every clause: reviewed deep, quick or not at all, and why.
    pub plan: Vec<ClausePlan>,
    /// The planner's summary for a person (`None` when the planner failed).
    pub summary: Option<String>,
    /// The planner's risks, de-duplicated across clauses, most serious first.
    pub risks: Vec<Risk>,
    /// Findings that span clauses.
    pub cross_clause: Vec<CrossClauseFinding>,
    /// The budget given.
    pub budget: BudgetLimits,
    /// What the run spent of it.
    pub spent: BudgetSpent,
    /// The planner's own turns and tokens.
    pub planner_turns: usize,
    /// Tokens of the planner's own turns.
    pub planner_usage: TokenUsage,
    /// Every deep review.
    pub deep: Vec<DeepRun>,
    /// Why the checklist review stands instead of the planner's (the planner failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// Why the planner's answers sent back for repair could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
    /// What the host should know (worker failures, dropped calls).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Wall time of the orchestration, in milliseconds.
    pub elapsed_ms: f64,
}

/// The planner's final answer, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Synthesis {
    /// For a person.
    pub summary: String,
    /// The risks, each placed in a clause of the contract, de-duplicated.
    pub risks: Vec<Risk>,
    /// Findings that span clauses.
    pub cross_clause: Vec<CrossClauseFinding>,
    /// The planner's reasons for clauses it did not review, by clause.
    pub not_reviewed: BTreeMap<String, String>,
}

/// Reads the planner's final answer: a JSON object with `summary` (text), `risks` (SPEC-20
/// risk objects, each with the `clause_id` it is in), `cross_clause` (each with
/// `clause_ids`, two or more, `risk_level` and `description`) and optionally
/// `not_reviewed` (`clause_ids` and `reason`). Every clause named must be in the outline;
/// every problem found is listed in the error, for the planner to mend.
pub fn read_synthesis(text: &str, outline: &ClauseOutline) -> Result<Synthesis, String> {
    let value = extract_json(text.trim()).ok_or("no JSON object in the answer")?;
    let Value::Object(mut object) = value else {
        return Err(
            "the answer's JSON is not an object with `summary`, `risks` and `cross_clause`".into(),
        );
    };
    let mut problems: Vec<String> = Vec::new();
    let known = |raw: &str| outline.resolve(raw);
    let summary = match object.remove("summary") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        _ => {
            problems
                .push("`summary` is missing or empty: write a few sentences for a person".into());
            String::new()
        }
    };
    let mut risks: Vec<Risk> = Vec::new();
    let mut seen: HashSet<(String, String, String)> = HashSet::new();
    match object.remove("risks") {
        Some(Value::Array(items)) => {
            for (i, item) in items.into_iter().enumerate() {
                let Value::Object(mut map) = item else {
                    problems.push(format!("`risks[{i}]` is not an object"));
                    continue;
                };
                let clause = map.remove("clause_id").and_then(|v| match v {
                    Value::String(s) => Some(s),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                });
                let Some(raw) = clause else {
                    problems.push(format!("`risks[{i}]` has no `clause_id`"));
                    continue;
                };
                let Some(clause_id) = known(&raw) else {
                    problems.push(format!(
                        "`risks[{i}].clause_id` is `{raw}`, which is not a clause of the contract"
                    ));
                    continue;
                };
                let risk = ModelRisk::from_object(map);
                if risk.finding.description.trim().is_empty() {
                    problems.push(format!("`risks[{i}]` has no `description`"));
                    continue;
                }
                let key = (
                    clause_id.clone(),
                    risk.finding.kind.name().to_ascii_lowercase(),
                    risk.finding
                        .description
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .to_lowercase(),
                );
                if seen.insert(key) {
                    risks.extend(agent::react_risks(
                        std::iter::once(&risk),
                        &clause_id,
                        Language::En,
                    ));
                }
            }
        }
        Some(_) => problems.push("`risks` is not a list".into()),
        None => problems.push("`risks` is missing (give [] when there is none)".into()),
    }
    risks.sort_by_key(|r| std::cmp::Reverse(r.finding.level));
    let mut per_clause: HashMap<String, usize> = HashMap::new();
    for risk in &mut risks {
        let n = per_clause.entry(risk.clause_id.clone()).or_default();
        *n += 1;
        risk.id = format!("S-{}-{n}", risk.clause_id);
    }
    let mut cross_clause = Vec::new();
    match object.remove("cross_clause") {
        Some(Value::Array(items)) => {
            for (i, item) in items.into_iter().enumerate() {
                let Value::Object(map) = item else {
                    problems.push(format!("`cross_clause[{i}]` is not an object"));
                    continue;
                };
                match cross_finding(&map, &known) {
                    Ok(found) => cross_clause.push(found),
                    Err(why) => problems.push(format!("`cross_clause[{i}]` {why}")),
                }
            }
        }
        Some(_) => problems.push("`cross_clause` is not a list".into()),
        None => problems.push("`cross_clause` is missing (give [] when there is none)".into()),
    }
    let mut not_reviewed = BTreeMap::new();
    if let Some(Value::Array(items)) = object.remove("not_reviewed") {
        for item in items {
            let reason = item
                .get("reason")
                .and_then(Value::as_str)
                .map(str::trim)
                .unwrap_or_default()
                .to_string();
            for id in item
                .get("clause_ids")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter_map(known)
            {
                not_reviewed.insert(id, reason.clone());
            }
        }
    }
    if problems.is_empty() {
        Ok(Synthesis {
            summary,
            risks,
            cross_clause,
            not_reviewed,
        })
    } else {
        Err(problems.join("; "))
    }
}

/// One `cross_clause` object, checked.
fn cross_finding(
    map: &Map<String, Value>,
    known: &impl Fn(&str) -> Option<String>,
) -> Result<CrossClauseFinding, String> {
    let ids: Vec<&str> = map
        .get("clause_ids")
        .and_then(Value::as_array)
        .ok_or("has no `clause_ids` list")?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut clause_ids: Vec<String> = Vec::new();
    for raw in &ids {
        let id = known(raw)
            .ok_or_else(|| format!("names `{raw}`, which is not a clause of the contract"))?;
        if !clause_ids.contains(&id) {
            clause_ids.push(id);
        }
    }
    if clause_ids.len() < 2 {
        return Err("names fewer than two clauses; a finding of one clause goes in `risks`".into());
    }
    let description = map
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .ok_or("has no `description`")?
        .to_string();
    let level = map
        .get("risk_level")
        .and_then(Value::as_str)
        .map_or(RiskLevel::Medium, RiskLevel::from_model_answer);
    Ok(CrossClauseFinding {
        clause_ids,
        risk_level: level,
        risk_type: map
            .get("risk_type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_string(),
        description,
    })
}

/// The planner's system message.
fn planner_instructions(language: Language) -> String {
    let write_in = match language {
        Language::ZhCn => "Write `summary`, descriptions and reasons in Chinese (简体中文).",
        Language::En => "Write in English.",
    };
    format!(
        "You organise the legal review of a whole contract. You see its outline: every clause with its \
length, the provision kinds found in it and the findings of the rule-based checklist so far.\n\
Decide, clause by clause, what each deserves:\n\
- `review_deep` (clause_id, focus, optional max_iterations): a reviewer model reads the clause with the \
review tools. For clauses that shift risk, money or time, clauses with high findings, and clauses whose \
findings you need to judge in context. Call it for several clauses in one turn: they run at the same time.\n\
- `review_quick` (clause_ids, reason): the rules' findings, no model. For routine clauses.\n\
- leave a clause out when it needs nothing (definitions, notices addresses, signatures).\n\
`list_clauses` pages the outline; `get_clause_context` shows one clause's text.\n\
The budget is limited: send deep only what needs it.\n\
When the reviews are back, answer with one JSON object and nothing else:\n\
{{\"summary\": \"a few sentences for the client\",\n\
 \"risks\": [{{\"clause_id\": \"4.1\", \"risk_level\": \"high|medium|low\", \"risk_type\": \"...\", \
\"description\": \"...\", \"reason\": \"...\", \"original_text\": \"quoted words\"}}],\n\
 \"cross_clause\": [{{\"clause_ids\": [\"8.7\", \"17.6\"], \"risk_level\": \"high\", \"risk_type\": \"...\", \
\"description\": \"what the clauses do together\"}}],\n\
 \"not_reviewed\": [{{\"clause_ids\": [\"1.1\"], \"reason\": \"why no review was needed\"}}]}}\n\
List each risk once, in the clause it is in, even when several reviews saw it. `cross_clause` is for \
findings that need two or more clauses read together. {write_in}"
    )
}

/// The planner's first user message: the contract and its outline.
fn planner_task(state: &ReviewState, outline: &ClauseOutline) -> String {
    let total = outline.entries().len();
    let mut task = format!(
        "Contract: {}\nDomain: {}\nWe act for: {}\nClauses in the outline: {total}\n\nOutline (clause | title | length | kinds | rule findings):\n{}",
        state
            .primary()
            .map(|d| d.document_id.as_str())
            .unwrap_or("(unnamed)"),
        if state.domain_id.is_empty() { "generic" } else { &state.domain_id },
        if state.our_party.is_empty() { "(not stated)" } else { &state.our_party },
        outline.compact_lines(OUTLINE_IN_PROMPT),
    );
    if !outline.document_findings().is_empty() {
        task.push_str("\nFindings about the whole agreement:\n");
        for f in outline.document_findings() {
            task.push_str(&format!(
                "- {} {}: {}\n",
                f.level.as_str(),
                f.kind,
                f.description
            ));
        }
    }
    if total > OUTLINE_IN_PROMPT {
        task.push_str(&format!(
            "... {} more clause(s): call list_clauses with page numbers to see them.\n",
            total - OUTLINE_IN_PROMPT
        ));
    }
    task.push_str("\nPlan the review, run it, then give the JSON answer.");
    task
}

/// Everything the deep worker's brief needs.
struct DeepBrief {
    outline: Arc<ClauseOutline>,
    state: Arc<ReviewState>,
    ctx: SkillContext,
    dispatcher: Dispatcher,
    language: Language,
}

impl DeepBrief {
    fn brief(&self, args: &Value) -> Result<Brief, String> {
        let raw = args
            .get("clause_id")
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|s| !s.trim().is_empty())
            .ok_or("`clause_id` is missing: name the clause to review, e.g. \"4.1\"")?;
        let id = self.outline.resolve(&raw).ok_or_else(|| {
            format!("`clause_id` is `{raw}`, which is not a clause of the contract; list_clauses gives the numbers")
        })?;
        let entry = self
            .outline
            .entry(&id)
            .ok_or("the outline lost a clause it resolved")?;
        let focus = args
            .get("focus")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .unwrap_or("the risks of this clause for the party we act for");
        let max_iterations = args
            .get("max_iterations")
            .and_then(Value::as_u64)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        let clause_text = crate::index::lookup_for(&self.state)
            .primary()
            .and_then(|d| d.full_text(&id))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| entry.title.clone());
        let review = self.outline.review(&id);
        let suggested: Vec<&str> = review
            .map(|r| r.skills.iter().map(|s| s.skill_id.as_str()).collect())
            .unwrap_or_default();
        let domain_id = (!self.state.domain_id.is_empty()).then_some(self.state.domain_id.as_str());
        let messages = build_react_agent_messages(&ReactPromptInput {
            language: self.language,
            our_party: &self.state.our_party,
            clause_id: &id,
            clause_name: &entry.title,
            description: focus,
            priority: review.map_or("medium", |r| agent::priority_name(r.priority)),
            clause_text: &clause_text,
            domain_id,
            domain_prompt: None,
            suggested_skills: &suggested,
            dispatcher: Some(&self.dispatcher),
        });
        let mut instructions = None;
        let mut task = String::new();
        for message in messages {
            match message {
                ChatMessage::System { content, .. } => instructions = Some(content),
                ChatMessage::User { content, .. } => task = content,
                _ => {}
            }
        }
        Ok(Brief {
            task,
            instructions,
            max_iterations,
            context: Some(self.ctx.clone().with(ClauseFocus(id))),
        })
    }
}

/// The JSON Schema of `review_deep`'s arguments.
fn deep_schema(max_iterations: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "clause_id": {"type": "string", "description": "The clause to review, e.g. \"4.1\"."},
            "focus": {"type": "string", "description": "What the reviewer should look at in it, and why it needs a deep review."},
            "max_iterations": {"type": "integer", "minimum": 1, "maximum": max_iterations,
                "description": format!("Turns the reviewer may take (default and at most {max_iterations}).")}
        },
        "required": ["clause_id", "focus"],
        "additionalProperties": false
    })
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
    let mut report = super::engine::run(dispatcher, state, options, None, cancel.as_mut()).await;
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
    let domain = if state.domain_id.is_empty() {
        "*"
    } else {
        state.domain_id.as_str()
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

/// The orchestration of a run that never got going: every clause by the checklist.
fn fallback_only(
    outline: &ClauseOutline,
    budget: Budget,
    reason: &str,
    elapsed: Duration,
) -> Orchestration {
    tracing::warn!(%reason, "orchestrated review falls back to the checklist");
    Orchestration {
        plan: outline
            .entries()
            .iter()
            .map(|e| ClausePlan {
                clause_id: e.clause_id.clone(),
                depth: PlanDepth::Quick,
                reason: reason.to_string(),
            })
            .collect(),
        summary: None,
        risks: Vec::new(),
        cross_clause: Vec::new(),
        budget: budget.into(),
        spent: BudgetSpent::default(),
        planner_turns: 0,
        planner_usage: TokenUsage::default(),
        deep: Vec::new(),
        fallback_reason: Some(reason.to_string()),
        repairs: Vec::new(),
        warnings: Vec::new(),
        elapsed_ms: elapsed.as_secs_f64() * 1000.0,
    }
}

/// The `review_deep` calls of the planner's conversation: call id to (clause id, focus).
fn deep_calls(
    messages: &[ChatMessage],
    outline: &ClauseOutline,
) -> HashMap<String, (String, String)> {
    let mut calls = HashMap::new();
    for message in messages {
        for call in message.tool_calls() {
            if call.name != REVIEW_DEEP {
                continue;
            }
            let args: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
            let raw = match args.get("clause_id") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => continue,
            };
            let Some(id) = outline.resolve(&raw) else {
                continue;
            };
            let focus = args
                .get("focus")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_string();
            calls.insert(call.id.clone(), (id, focus));
        }
    }
    calls
}

/// Puts the outcome into the report: deep reviews in their clauses, the plan of every
/// clause, the synthesis or the fallback's reason, the budget.
fn assemble(
    report: &mut ReviewReport,
    outline: &ClauseOutline,
    outcome: OrchestrateOutcome<Synthesis>,
    language: Language,
    elapsed: Duration,
) {
    let calls = deep_calls(&outcome.final_messages, outline);
    let mut deep_by_clause: HashMap<String, (&WorkerReport, String)> = HashMap::new();
    let mut deep_runs = Vec::new();
    for worker in outcome.workers.iter().filter(|w| w.worker == REVIEW_DEEP) {
        let Some((clause_id, focus)) = calls.get(&worker.call_id) else {
            continue;
        };
        deep_runs.push(DeepRun {
            clause_id: clause_id.clone(),
            status: worker.status.as_str().to_string(),
            reason: worker.status.reason().map(str::to_string),
            turns: worker.turns,
            tool_calls: worker.tool_calls,
            usage: worker.usage,
            elapsed_ms: worker.elapsed_ms,
        });
        // The last deep review of a clause that gave an answer wins; else the last one.
        let keep = match deep_by_clause.get(clause_id) {
            Some((prev, _)) => worker.answer.is_some() || prev.answer.is_none(),
            None => true,
        };
        if keep {
            deep_by_clause.insert(clause_id.clone(), (worker, focus.clone()));
        }
    }
    for clause in &mut report.clauses {
        let Some((worker, _)) = deep_by_clause.get(&clause.clause_id) else {
            continue;
        };
        *clause = deep_clause(clause, worker, language);
    }
    report.summary = summarize(&report.clauses);

    let (synthesis, fallback_reason) = match (&outcome.answer, &outcome.stop_reason) {
        (Some(synthesis), _) => (Some(synthesis.clone()), None),
        (None, OrchestrateStop::LlmError(err)) => {
            (None, Some(format!("the planner's model failed: {err}")))
        }
        (None, OrchestrateStop::BudgetExhausted(unit)) => (
            None,
            Some(format!(
                "the budget ran out of {unit} before the planner answered"
            )),
        ),
        (None, OrchestrateStop::AwaitingConfirmation) => (
            None,
            Some("a tool waits for a person's consent; a review does not wait".into()),
        ),
        (None, OrchestrateStop::FinalAnswer) => (
            None,
            Some(
                outcome
                    .warnings
                    .iter()
                    .rev()
                    .find(|w| w.contains("final answer is unreadable"))
                    .map_or_else(
                        || "the planner gave no answer".to_string(),
                        |w| {
                            w.replace(
                                "the planner's final answer is unreadable",
                                "the planner's answer could not be read",
                            )
                        },
                    ),
            ),
        ),
    };
    if let Some(reason) = &fallback_reason {
        tracing::warn!(%reason, "orchestrated review falls back to the checklist for clauses not reviewed deep");
    }
    let quick: HashMap<String, String> = outline
        .quick_choices()
        .into_iter()
        .map(|q| (q.clause_id, q.reason))
        .collect();
    let plan = outline
        .entries()
        .iter()
        .map(|entry| {
            let id = &entry.clause_id;
            if let Some((worker, focus)) = deep_by_clause.get(id) {
                let reason = match &worker.status {
                    WorkerStatus::Complete | WorkerStatus::Incomplete(_)
                        if worker.answer.is_some() =>
                    {
                        focus.clone()
                    }
                    status => format!(
                        "{focus} (the deep review {}: {}; the checklist review stands)",
                        status.as_str(),
                        status.reason().unwrap_or("no answer")
                    ),
                };
                ClausePlan {
                    clause_id: id.clone(),
                    depth: PlanDepth::Deep,
                    reason,
                }
            } else if let Some(reason) = quick.get(id) {
                ClausePlan {
                    clause_id: id.clone(),
                    depth: PlanDepth::Quick,
                    reason: reason.clone(),
                }
            } else if let Some(reason) = &fallback_reason {
                ClausePlan {
                    clause_id: id.clone(),
                    depth: PlanDepth::Quick,
                    reason: format!("fallback to the checklist: {reason}"),
                }
            } else {
                let reason = synthesis
                    .as_ref()
                    .and_then(|s| s.not_reviewed.get(id))
                    .filter(|r| !r.is_empty())
                    .cloned()
                    .unwrap_or_else(|| {
                        "not chosen by the planner (no reason given); the rules' findings stand"
                            .into()
                    });
                ClausePlan {
                    clause_id: id.clone(),
                    depth: PlanDepth::None,
                    reason,
                }
            }
        })
        .collect();
    let (summary, risks, cross_clause) = match synthesis {
        Some(s) => (Some(s.summary), s.risks, s.cross_clause),
        None => (None, Vec::new(), Vec::new()),
    };
    report.orchestration = Some(Orchestration {
        plan,
        summary,
        risks,
        cross_clause,
        budget: outcome.budget.into(),
        spent: outcome.spent.into(),
        planner_turns: outcome.planner.turns,
        planner_usage: outcome.planner.usage,
        deep: deep_runs,
        fallback_reason,
        repairs: outcome.repairs.clone(),
        warnings: outcome.warnings.clone(),
        elapsed_ms: elapsed.as_secs_f64() * 1000.0,
    });
}

/// A clause's deep review: the model's risks when it answered, else the checklist's,
/// marked as a fallback with the reason.
fn deep_clause(
    checklist: &ClauseReview,
    worker: &WorkerReport,
    language: Language,
) -> ClauseReview {
    let tools: Vec<String> = worker.skill_context.keys().cloned().collect();
    let mut warnings = worker.warnings.clone();
    if let Some(reason) = worker.status.reason() {
        warnings.push(format!("deep review {}: {reason}", worker.status.as_str()));
    }
    let answer = worker
        .answer
        .as_ref()
        .map(|value| parse_final_response(&value.to_string()));
    match answer {
        Some(Ok(risks)) => ClauseReview {
            clause_id: checklist.clause_id.clone(),
            clause_name: checklist.clause_name.clone(),
            priority: checklist.priority,
            skills: Vec::new(),
            skipped_skills: Vec::new(),
            risks: agent::react_risks(risks.iter(), &checklist.clause_id, language),
            mode: ReviewMode::React,
            tools_chosen: tools,
            agent_messages: Vec::new(),
            fallback_reason: None,
            agent_warnings: warnings,
            model_turns: worker.turns,
            usage: worker.usage,
        },
        other => {
            let reason = match other {
                Some(Err(err)) => format!("the deep review's answer is no risk list: {err}"),
                _ => format!(
                    "the deep review {}: {}",
                    worker.status.as_str(),
                    worker.status.reason().unwrap_or("no answer")
                ),
            };
            ClauseReview {
                mode: ReviewMode::ReactFallback,
                tools_chosen: tools,
                fallback_reason: Some(reason),
                agent_warnings: warnings,
                model_turns: worker.turns,
                usage: worker.usage,
                ..checklist.clone()
            }
        }
    }
}
