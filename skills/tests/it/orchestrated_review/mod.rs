//! The orchestrated review (SPEC-21) with scripted models: the plan from the outline, deep
//! reviews in parallel, the budget at both levels, a failing worker, the repair turn, the
//! fallback to the checklist, and the synthesis reader.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use clausewright_skills::review::{
    build_review_state, read_synthesis, review_orchestrated, run_checklist_review, ClauseOutline,
    OrchestrateSettings, PlanDepth, ReviewInputs, ReviewMode, ReviewOptions, ReviewReport,
    SynthesisError, DOCUMENT_ANCHOR,
};
use clausewright_skills::ReviewState;
use serde_json::{json, Value};
use toolwright::agent::orchestrate::Budget;
use toolwright::agent::{ChatMessage, LlmClient, LlmError, LlmResponse, TokenUsage};
use toolwright::{Dispatcher, ToolCall};

mod consent;
mod reader;

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../samples/fidic")
        .join(name)
}

/// The FIDIC sample with its nine-item checklist.
fn state() -> ReviewState {
    build_review_state(&ReviewInputs {
        primary: sample("general_conditions.md"),
        checklist_file: Some(sample("checklist.json")),
        domain: clausewright_skills::review::Domain::Fidic,
        our_party: "Contractor".into(),
        ..Default::default()
    })
    .expect("the FIDIC sample loads")
}

fn options() -> ReviewOptions {
    ReviewOptions {
        generate_checklist: false,
        ..ReviewOptions::default()
    }
}

/// One request as a script sees it.
struct Seen<'a> {
    messages: &'a [ChatMessage],
    tools: Vec<String>,
}

impl Seen<'_> {
    fn system(&self) -> &str {
        self.messages
            .iter()
            .find_map(|m| match m {
                ChatMessage::System { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    }

    fn is_planner(&self) -> bool {
        self.system().contains("You organise the legal review")
    }

    fn first_user(&self) -> &str {
        self.messages
            .iter()
            .find_map(|m| match m {
                ChatMessage::User { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    }

    fn last_user(&self) -> &str {
        self.messages
            .iter()
            .rev()
            .find_map(|m| match m {
                ChatMessage::User { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The clause a deep review is about (`- Number: 4.1` in its task).
    fn clause(&self) -> String {
        self.first_user()
            .lines()
            .find_map(|l| l.trim().strip_prefix("- Number: "))
            .unwrap_or_default()
            .to_string()
    }

    fn tool_results(&self) -> usize {
        self.messages
            .iter()
            .filter(|m| matches!(m, ChatMessage::Tool { .. }))
            .count()
    }

    fn offers(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t == name)
    }
}

type Script = dyn Fn(&Seen<'_>) -> Result<LlmResponse, LlmError> + Send + Sync;

/// A model answering from a script keyed on the conversation (workers run at the same
/// time), counting requests and how many were in flight at once.
struct Keyed {
    script: Box<Script>,
    delay: Duration,
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    seen: std::sync::Mutex<Vec<(bool, Vec<String>, String)>>,
}

impl Keyed {
    fn new(
        delay: Duration,
        script: impl Fn(&Seen<'_>) -> Result<LlmResponse, LlmError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            script: Box::new(script),
            delay,
            requests: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            seen: std::sync::Mutex::new(Vec::new()),
        })
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// Per request: whether it was the planner's, the tools offered, the first user message.
    fn seen(&self) -> Vec<(bool, Vec<String>, String)> {
        self.seen.lock().unwrap().clone()
    }
}

#[async_trait]
impl LlmClient for Keyed {
    fn model(&self) -> Option<&str> {
        Some("keyed")
    }

    async fn chat_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        _temperature: f32,
    ) -> Result<LlmResponse, LlmError> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(self.delay).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        let seen = Seen {
            messages,
            tools: tools
                .iter()
                .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
                .map(str::to_string)
                .collect(),
        };
        self.seen.lock().unwrap().push((
            seen.is_planner(),
            seen.tools.clone(),
            seen.first_user().to_string(),
        ));
        (self.script)(&seen).map(|r| {
            r.with_usage(TokenUsage {
                prompt_tokens: 100,
                completion_tokens: 10,
                cached_tokens: 0,
            })
        })
    }
}

fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

fn deep(id: &str, clause: &str, focus: &str) -> ToolCall {
    call(
        id,
        "review_deep",
        json!({"clause_id": clause, "focus": focus}),
    )
}

/// The synthesis the planner writes when its reviews are back.
fn synthesis() -> String {
    json!({
        "summary": "Two clauses need attention: the cap and the design duty.",
        "risks": [
            {"clause_id": "17.6", "risk_level": "high", "risk_type": "liability_cap",
             "description": "The cap excludes the Contractor's indemnities."},
            {"clause_id": "17.6", "risk_level": "high", "risk_type": "liability_cap",
             "description": "The cap  excludes the Contractor's indemnities."},
            {"clause_id": "Sub-Clause 4.1", "risk_level": "medium", "risk_type": "design",
             "description": "Fitness for purpose of the design."}
        ],
        "cross_clause": [
            {"clause_ids": ["8.7", "17.6"], "risk_level": "high", "risk_type": "delay_damages_cap",
             "description": "Delay damages are capped in 8.7 but 17.6 leaves them outside the total cap."}
        ],
        "not_reviewed": [{"clause_ids": ["20.1"], "reason": "claims procedure unchanged"}]
    })
    .to_string()
}

/// A planner sending `first` in its first turn, then the synthesis.
fn planner(first: Vec<ToolCall>) -> impl Fn(&Seen<'_>) -> Result<LlmResponse, LlmError> {
    move |turn| {
        Ok(if turn.tool_results() == 0 {
            LlmResponse::tool_calls(first.clone())
        } else {
            LlmResponse::text(synthesis())
        })
    }
}

/// A deep reviewer: fetches the clause's context, then writes one risk naming the clause.
fn reviewer(turn: &Seen<'_>) -> Result<LlmResponse, LlmError> {
    let clause = turn.clause();
    Ok(
        if turn.tool_results() == 0 && turn.offers("get_clause_context") {
            LlmResponse::tool_calls(vec![call(
                "c1",
                "get_clause_context",
                json!({ "clause_id": clause }),
            )])
        } else {
            LlmResponse::text(
                json!([{"risk_level": "high", "risk_type": "deep_finding",
                        "description": format!("deep finding in {clause}"),
                        "original_text": "the Contractor shall"}])
                .to_string(),
            )
        },
    )
}

/// One model for planner and reviewers, told apart by their instructions.
fn model(
    delay: Duration,
    planner: impl Fn(&Seen<'_>) -> Result<LlmResponse, LlmError> + Send + Sync + 'static,
    reviewer: impl Fn(&Seen<'_>) -> Result<LlmResponse, LlmError> + Send + Sync + 'static,
) -> Arc<Keyed> {
    Keyed::new(delay, move |turn| {
        if turn.is_planner() {
            planner(turn)
        } else {
            reviewer(turn)
        }
    })
}

async fn run(model: &Arc<Keyed>, settings: impl FnOnce(&mut OrchestrateSettings)) -> ReviewReport {
    let mut s = OrchestrateSettings::new(Arc::clone(model) as Arc<dyn LlmClient>);
    settings(&mut s);
    let dispatcher = Dispatcher::from_inventory().unwrap();
    review_orchestrated(
        &dispatcher,
        &state(),
        &options(),
        &s,
        std::future::pending(),
    )
    .await
}

/// The checklist review of the same state.
async fn checklist() -> ReviewReport {
    let dispatcher = Dispatcher::from_inventory().unwrap();
    clausewright_skills::review::review_with_agent(
        &dispatcher,
        &state(),
        &options(),
        None,
        std::future::pending(),
    )
    .await
}

fn plan_of(report: &ReviewReport, clause: &str) -> (PlanDepth, String) {
    let plan = &report.orchestration.as_ref().unwrap().plan;
    let entry = plan
        .iter()
        .find(|p| p.clause_id == clause)
        .unwrap_or_else(|| panic!("no plan for {clause}: {plan:?}"));
    (entry.depth, entry.reason.clone())
}

fn clause<'a>(report: &'a ReviewReport, id: &str) -> &'a clausewright_skills::review::ClauseReview {
    report.clauses.iter().find(|c| c.clause_id == id).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_plans_from_the_outline_runs_deep_reviews_in_parallel_and_synthesises() {
    let model = model(
        Duration::from_millis(40),
        planner(vec![
            deep("d1", "4.1", "design responsibility"),
            deep("d2", "17.6", "whether the cap covers the indemnities"),
            call(
                "q1",
                "review_quick",
                json!({"clause_ids": ["1.1", "4.2", "8.3"], "reason": "routine definitions and security"}),
            ),
        ]),
        reviewer,
    );
    let report = run(&model, |_| {}).await;
    let orchestration = report.orchestration.as_ref().expect("orchestrated");
    assert_eq!(orchestration.fallback_reason, None, "{orchestration:?}");

    // The plan: deep, quick and none, each with the planner's words.
    assert_eq!(
        plan_of(&report, "4.1"),
        (PlanDepth::Deep, "design responsibility".into())
    );
    assert_eq!(
        plan_of(&report, "8.3"),
        (PlanDepth::Quick, "routine definitions and security".into())
    );
    assert_eq!(
        plan_of(&report, "20.1"),
        (PlanDepth::None, "claims procedure unchanged".into())
    );
    assert_eq!(plan_of(&report, "14.7").0, PlanDepth::None);
    assert_eq!(orchestration.plan.len(), 9);

    // Deep clauses carry the reviewer's risks; the others the checklist's.
    let deep_clause = clause(&report, "4.1");
    assert_eq!(deep_clause.mode, ReviewMode::React);
    assert_eq!(deep_clause.risks.len(), 1);
    assert_eq!(
        deep_clause.risks[0].finding.description,
        "deep finding in 4.1"
    );
    assert_eq!(
        deep_clause.tools_chosen,
        vec!["get_clause_context".to_string()]
    );
    assert_eq!(deep_clause.model_turns, 2);
    let checklist = checklist().await;
    assert_eq!(
        clause(&report, "8.3").risks,
        clause(&checklist, "8.3").risks
    );
    assert_eq!(clause(&report, "8.3").mode, ReviewMode::Checklist);

    // The two deep reviews ran at the same time.
    assert_eq!(orchestration.deep.len(), 2);
    assert!(orchestration.deep.iter().all(|d| d.status == "complete"));
    assert!(model.max_in_flight.load(Ordering::SeqCst) >= 2);

    // The synthesis: duplicates merged, clause names read as numbers, the cross-clause
    // finding naming both clauses.
    assert_eq!(
        orchestration.summary.as_deref(),
        Some("Two clauses need attention: the cap and the design duty.")
    );
    assert_eq!(orchestration.risks.len(), 2, "{:?}", orchestration.risks);
    assert_eq!(orchestration.risks[1].clause_id, "4.1");
    assert_eq!(orchestration.cross_clause.len(), 1);
    assert_eq!(
        orchestration.cross_clause[0].clause_ids,
        vec!["8.7", "17.6"]
    );

    // Budget: the planner's two turns and two per deep review, every request counted.
    assert_eq!(orchestration.spent.model_requests, 6);
    assert_eq!(model.requests(), 6);
    assert_eq!(orchestration.planner_turns, 2);
    assert_eq!(orchestration.spent.tool_calls, 3 + 2);

    // The planner saw the outline and its own tools; reviewers the review skills only.
    let seen = model.seen();
    let (_, planner_tools, planner_task) = seen.iter().find(|(p, _, _)| *p).unwrap();
    assert!(planner_task.contains("- 17.6 |"), "{planner_task}");
    for tool in [
        "list_clauses",
        "review_quick",
        "get_clause_context",
        "review_deep",
    ] {
        assert!(planner_tools.iter().any(|t| t == tool), "{planner_tools:?}");
    }
    for (_, tools, _) in seen.iter().filter(|(p, _, _)| !p) {
        assert!(!tools
            .iter()
            .any(|t| t == "review_quick" || t == "list_clauses" || t == "review_deep"));
        if !tools.is_empty() {
            assert!(
                tools.iter().any(|t| t == "fidic_calculate_time_bar"),
                "{tools:?}"
            );
        }
    }
    // The JSON report carries the orchestration.
    let json: Value =
        serde_json::from_str(&clausewright_skills::review::render_json(&report)).unwrap();
    assert_eq!(json["orchestration"]["plan"][0]["depth"], "deep");
    // The table and the Markdown show the plan, the budget and the synthesis.
    let table = clausewright_skills::review::render_table(&report);
    assert!(
        table.contains("budget used: 6 (no limit) model request(s)"),
        "{table}"
    );
    assert!(
        table.contains("4.1     deep   2      220     design responsibility"),
        "{table}"
    );
    assert!(table.contains("high   8.7, 17.6"), "{table}");
    let markdown = clausewright_skills::review::render_markdown(&report);
    assert!(markdown.contains("## Orchestration"), "{markdown}");
    assert!(
        markdown.contains("| 20.1 | none |  |  | claims procedure unchanged |"),
        "{markdown}"
    );
}

#[tokio::test]
async fn the_run_budget_is_never_exceeded_and_workers_out_of_it_are_not_started() {
    let calls = ["4.1", "4.2", "8.7", "14.7", "17.6", "20.1"]
        .iter()
        .enumerate()
        .map(|(i, c)| deep(&format!("d{i}"), c, "look"))
        .collect();
    let model = model(Duration::ZERO, planner(calls), reviewer);
    let report = run(&model, |s| s.budget = Budget::unlimited().model_requests(6)).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    assert!(orchestration.spent.model_requests <= 6, "{orchestration:?}");
    assert!(model.requests() <= 6);
    assert!(
        orchestration.deep.iter().any(|d| d.status == "not_run"),
        "{:?}",
        orchestration.deep
    );
    // A clause whose deep review never ran keeps the checklist's review, and says why.
    let not_run = orchestration
        .deep
        .iter()
        .find(|d| d.status == "not_run")
        .unwrap();
    let (depth, reason) = plan_of(&report, &not_run.clause_id);
    assert_eq!(depth, PlanDepth::Deep);
    assert!(reason.contains("not_run"), "{reason}");
    assert_eq!(
        clause(&report, &not_run.clause_id).mode,
        ReviewMode::ReactFallback
    );
    // The planner still answered, within the budget.
    assert!(orchestration.summary.is_some(), "{orchestration:?}");
}

#[tokio::test]
async fn a_deep_review_out_of_turns_answers_from_what_it_has_marked_incomplete() {
    // A reviewer that calls a tool whenever it may.
    let greedy = |turn: &Seen<'_>| {
        Ok(if turn.offers("get_clause_context") {
            LlmResponse::tool_calls(vec![call(
                &format!("c{}", turn.tool_results()),
                "get_clause_context",
                json!({}),
            )])
        } else {
            LlmResponse::text(
                r#"[{"risk_level": "low", "risk_type": "x", "description": "partial"}]"#,
            )
        })
    };
    let model = model(
        Duration::ZERO,
        planner(vec![deep("d1", "4.1", "look")]),
        greedy,
    );
    let report = run(&model, |s| s.deep_max_iterations = 2).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    assert_eq!(orchestration.deep[0].status, "incomplete");
    assert!(orchestration.deep[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("turn limit"));
    // Two turns with tools and the concluding one.
    assert_eq!(orchestration.deep[0].turns, 3);
    let reviewed = clause(&report, "4.1");
    assert_eq!(reviewed.mode, ReviewMode::React);
    assert_eq!(reviewed.risks[0].finding.description, "partial");
}

#[tokio::test]
async fn a_failing_deep_review_leaves_the_checklist_review_and_the_others_go_on() {
    let failing = |turn: &Seen<'_>| {
        if turn.clause() == "17.6" {
            Err(LlmError::Scripted("upstream 500".into()))
        } else {
            reviewer(turn)
        }
    };
    let model = model(
        Duration::ZERO,
        planner(vec![deep("d1", "4.1", "design"), deep("d2", "17.6", "cap")]),
        failing,
    );
    let report = run(&model, |_| {}).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    let failed = clause(&report, "17.6");
    assert_eq!(failed.mode, ReviewMode::ReactFallback);
    assert!(
        failed
            .fallback_reason
            .as_deref()
            .unwrap()
            .contains("upstream 500"),
        "{failed:?}"
    );
    let checklist = checklist().await;
    assert_eq!(failed.risks, clause(&checklist, "17.6").risks);
    assert_eq!(clause(&report, "4.1").mode, ReviewMode::React);
    assert!(orchestration.summary.is_some());
    assert!(orchestration.warnings.iter().any(|w| w.contains("failed")));
}

#[tokio::test]
async fn an_unreadable_synthesis_gets_one_repair_turn() {
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    let planner = move |turn: &Seen<'_>| {
        Ok(if turn.tool_results() == 0 {
            LlmResponse::tool_calls(vec![deep("d1", "4.1", "design")])
        } else if turn.last_user().contains("could not be read") {
            count.fetch_add(1, Ordering::SeqCst);
            LlmResponse::text(synthesis())
        } else {
            LlmResponse::text(
                json!({"summary": "s", "risks": [{"clause_id": "99.9", "risk_level": "high", "description": "d"}],
                       "cross_clause": [{"clause_ids": ["17.6"], "description": "alone"}]})
                .to_string(),
            )
        })
    };
    let model = model(Duration::ZERO, planner, reviewer);
    let report = run(&model, |_| {}).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(orchestration.repairs.len(), 1);
    let why = &orchestration.repairs[0];
    assert!(
        why.contains("`99.9`") && why.contains("fewer than two clauses"),
        "{why}"
    );
    assert_eq!(orchestration.risks.len(), 2);
    assert_eq!(orchestration.fallback_reason, None);
    assert_eq!(orchestration.planner_turns, 3);
}

#[tokio::test]
async fn when_the_planner_fails_the_checklist_review_stands_with_the_reason() {
    let planner = |_: &Seen<'_>| Err(LlmError::Scripted("connection refused".into()));
    let first = model(Duration::ZERO, planner, reviewer);
    let report = run(&first, |_| {}).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    let reason = orchestration.fallback_reason.as_deref().unwrap();
    assert!(reason.contains("connection refused"), "{reason}");
    assert!(orchestration
        .plan
        .iter()
        .all(|p| p.depth == PlanDepth::Quick && p.reason.contains("fallback")));
    let checklist = checklist().await;
    let risks = |r: &ReviewReport| {
        r.clauses
            .iter()
            .map(|c| (c.clause_id.clone(), c.mode, c.risks.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(risks(&report), risks(&checklist));
    assert_eq!(report.summary, checklist.summary);
    assert_eq!(first.requests(), 1);

    // A planner that never gives a readable answer, also after the repair: the same.
    let planner = |turn: &Seen<'_>| {
        Ok(if turn.tool_results() == 0 && turn.offers("review_deep") {
            LlmResponse::tool_calls(vec![deep("d1", "4.1", "design")])
        } else {
            LlmResponse::text("I reviewed it all, it is fine.")
        })
    };
    let second = model(Duration::ZERO, planner, reviewer);
    let report = run(&second, |_| {}).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    let reason = orchestration.fallback_reason.as_deref().unwrap();
    assert!(reason.contains("could not be read"), "{reason}");
    // The deep review that did complete is kept.
    assert_eq!(clause(&report, "4.1").mode, ReviewMode::React);
    assert_eq!(plan_of(&report, "8.3").0, PlanDepth::Quick);
}
