//! The ReAct branch of the review (SPEC-20 sections 5, 6 and 7.1.3): settings, domain
//! prompts, the fallback to the checklist, and an end-to-end review of the FIDIC sample
//! driven by a scripted model.

use std::path::PathBuf;
use std::sync::Arc;

use clausewright_skills::review::DomainPrompt;
use clausewright_skills::review::{
    build_review_state, normalize_risk_level, review_with_agent, run_checklist_review,
    AgentSettings, ClauseReview, ReviewAgent, ReviewInputs, ReviewMode, ReviewOptions,
    ReviewReport,
};
use clausewright_skills::{ChecklistItem, Priority, ReviewState};
use toolwright::agent::{ChatMessage, LlmError, LlmResponse, ScriptedClient};
use toolwright::{Dispatcher, ToolCall};

mod fidic;
mod limits;

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../samples/fidic")
        .join(name)
}

/// The FIDIC sample as SPEC-20 section 8.3 reviews it: the General Conditions are both the
/// contract and the standard form, the PC and ER are references.
fn fidic_state(language: &str) -> ReviewState {
    build_review_state(&ReviewInputs {
        primary: sample("general_conditions.md"),
        baseline: Some(sample("general_conditions.md")),
        references: vec![
            sample("particular_conditions.md"),
            sample("employers_requirements.md"),
        ],
        criteria_file: Some(sample("criteria.json")),
        checklist_file: Some(sample("checklist.json")),
        domain: clausewright_skills::review::Domain::Fidic,
        our_party: "Contractor".into(),
        language: language.into(),
        ..Default::default()
    })
    .expect("the FIDIC sample loads")
}

fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("registry builds")
}

fn sequential() -> ReviewOptions {
    ReviewOptions {
        concurrency: 1,
        generate_checklist: false,
        progress: None,
        learned: None,
        playbook: None,
        run: None,
        run_report: Default::default(),
    }
}

fn react_on() -> AgentSettings {
    AgentSettings {
        use_react_agent: true,
        react_max_iterations: 5,
        react_temperature: 0.1,
        react_final_answer_at_limit: true,
    }
}

/// The ReAct branch with a scripted model the test keeps a handle on.
fn agent(model: &Arc<ScriptedClient>, settings: AgentSettings) -> ReviewAgent {
    ReviewAgent::new(
        Arc::clone(model) as Arc<dyn toolwright::agent::LlmClient>,
        settings,
    )
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

fn clause<'a>(report: &'a ReviewReport, id: &str) -> &'a ClauseReview {
    report
        .clauses
        .iter()
        .find(|c| c.clause_id == id)
        .unwrap_or_else(|| panic!("clause {id} missing"))
}

/// Elapsed times vary from run to run.
fn without_times(mut report: ReviewReport) -> ReviewReport {
    for clause in &mut report.clauses {
        for run in &mut clause.skills {
            run.elapsed_ms = 0.0;
        }
    }
    report
}

/// The SPEC-20 section 7.1.3 state: one item, no documents, a Chinese review.
fn spec_state() -> ReviewState {
    ReviewState {
        our_party: "承包商".into(),
        language: "zh-CN".into(),
        review_checklist: vec![ChecklistItem {
            clause_id: "1.1".into(),
            clause_name: "test".into(),
            priority: Priority::Medium,
            required_skills: Vec::new(),
            description: String::new(),
        }],
        ..Default::default()
    }
}

// --- settings -------------------------------------------------------------------------

#[test]
fn settings_default_to_checklist_mode() {
    let settings = AgentSettings::from_lookup(|_| None).unwrap();
    assert_eq!(settings, AgentSettings::default());
    assert!(!settings.use_react_agent);
    assert_eq!(settings.react_max_iterations, 5);
    assert_eq!(settings.react_temperature, 0.1);
}

#[test]
fn settings_read_every_variable() {
    let settings = AgentSettings::from_lookup(|name| {
        match name {
            "USE_REACT_AGENT" => Some(" TRUE "),
            "REACT_MAX_ITERATIONS" => Some("8"),
            "REACT_TEMPERATURE" => Some("0.7"),
            "REACT_FINAL_ANSWER_AT_LIMIT" => Some("off"),
            _ => None,
        }
        .map(str::to_string)
    })
    .unwrap();
    assert_eq!(
        settings,
        AgentSettings {
            use_react_agent: true,
            react_max_iterations: 8,
            react_temperature: 0.7,
            react_final_answer_at_limit: false,
        }
    );
    for (raw, expected) in [
        ("1", true),
        ("yes", true),
        ("on", true),
        ("0", false),
        ("Off", false),
    ] {
        let parsed = AgentSettings::from_lookup(|n| (n == "USE_REACT_AGENT").then(|| raw.into()));
        assert_eq!(parsed.unwrap().use_react_agent, expected, "{raw}");
    }
    // Blank means unset.
    let blank = AgentSettings::from_lookup(|_| Some("  ".into())).unwrap();
    assert_eq!(blank, AgentSettings::default());
}

#[test]
fn bad_settings_name_the_variable() {
    for (variable, value, expected) in [
        ("USE_REACT_AGENT", "maybe", "boolean"),
        ("REACT_MAX_ITERATIONS", "0", "at least 1"),
        ("REACT_MAX_ITERATIONS", "five", "at least 1"),
        ("REACT_MAX_ITERATIONS", "-2", "at least 1"),
        ("REACT_TEMPERATURE", "hot", "from 0 to 2"),
        ("REACT_TEMPERATURE", "NaN", "from 0 to 2"),
        ("REACT_TEMPERATURE", "3.5", "from 0 to 2"),
        ("REACT_FINAL_ANSWER_AT_LIMIT", "sometimes", "boolean"),
    ] {
        let err = AgentSettings::from_lookup(|n| (n == variable).then(|| value.to_string()))
            .expect_err(value);
        assert_eq!(err.variable, variable);
        assert_eq!(err.value, value);
        let message = err.to_string();
        assert!(
            message.contains(variable) && message.contains(value) && message.contains(expected),
            "{message}"
        );
    }
}

#[test]
fn risk_levels_are_normalised() {
    for (raw, level) in [
        ("high", "high"),
        (" HIGH ", "high"),
        ("高", "high"),
        ("高风险", "high"),
        ("Medium", "medium"),
        ("中", "medium"),
        ("low", "low"),
        ("低", "low"),
        ("critical", "medium"),
        ("", "medium"),
        ("severe", "medium"),
    ] {
        assert_eq!(normalize_risk_level(raw), level, "{raw:?}");
    }
}

// --- domain prompts -------------------------------------------------------------------

#[test]
fn domain_prompts_name_registered_skills_of_their_domain() {
    let dispatcher = dispatcher();
    for (domain, tools) in [
        (
            "fidic",
            &[
                "fidic_merge_gc_pc",
                "fidic_calculate_time_bar",
                "fidic_search_er",
            ][..],
        ),
        (
            "sha_spa",
            &[
                "spa_extract_conditions",
                "spa_extract_reps_warranties",
                "spa_indemnity_analysis",
            ][..],
        ),
    ] {
        let prompt = DomainPrompt::registered(domain).expect(domain);
        for tool in tools {
            let reg = dispatcher
                .registration(tool)
                .unwrap_or_else(|| panic!("{tool} is not a registered skill"));
            assert_eq!(reg.domain, domain, "{tool}");
            assert!(prompt.instructions_en.contains(tool), "{domain} en: {tool}");
            assert!(prompt.instructions_zh.contains(tool), "{domain} zh: {tool}");
        }
    }
}

// --- SPEC-20 section 7.1.3: node integration and fallback -----------------------------

/// The agent-mode review of `state`, blocking on a runtime of the test's own.
fn run_review(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
    agent: Option<&ReviewAgent>,
) -> ReviewReport {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(review_with_agent(
            dispatcher,
            state,
            options,
            agent,
            std::future::pending(),
        ))
}

#[test]
fn react_disabled_uses_the_checklist() {
    let model = ScriptedClient::from_responses([LlmResponse::text("[]")]);
    let model = Arc::new(model);
    let settings = AgentSettings::default();
    let report = run_review(
        &dispatcher(),
        &spec_state(),
        &sequential(),
        Some(&agent(&model, settings)),
    );
    assert_eq!(report.clauses.len(), 1);
    let review = &report.clauses[0];
    assert_eq!(review.clause_id, "1.1");
    assert_eq!(review.mode, ReviewMode::Checklist);
    assert!(model.requests().is_empty(), "the model must not be asked");
}

#[test]
fn react_failure_falls_back_to_the_checklist() {
    let model = ScriptedClient::new([Err(LlmError::Scripted("ReAct 模拟失败".into()))]);
    let model = Arc::new(model);
    let mut state = spec_state();
    // SPEC-20 runs the ReAct branch only with a primary document.
    state.documents = fidic_state("zh-CN").documents;
    let report = run_review(
        &dispatcher(),
        &state,
        &sequential(),
        Some(&agent(&model, react_on())),
    );
    let review = &report.clauses[0];
    assert_eq!(review.clause_id, "1.1");
    assert_eq!(review.mode, ReviewMode::ReactFallback);
    let reason = review.fallback_reason.as_deref().unwrap();
    assert!(reason.contains("ReAct 模拟失败"), "{reason}");
    assert_eq!(report.summary.react_fallbacks, 1);
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn react_without_a_primary_document_uses_the_checklist() {
    let model = ScriptedClient::from_responses([LlmResponse::text("[]")]);
    let model = Arc::new(model);
    let report = run_review(
        &dispatcher(),
        &spec_state(),
        &sequential(),
        Some(&agent(&model, react_on())),
    );
    assert_eq!(report.clauses[0].clause_id, "1.1");
    assert_eq!(report.clauses[0].mode, ReviewMode::Checklist);
    assert!(model.requests().is_empty());
}

#[test]
fn no_client_means_the_checklist() {
    let state = fidic_state("en");
    let report = without_times(run_review(&dispatcher(), &state, &sequential(), None));
    let checklist = without_times(run_checklist_review(&dispatcher(), &state, &sequential()));
    assert_eq!(report, checklist);
}

const CLAUSE_4_1_ANSWER: &str = r#"The Particular Conditions add a fitness-for-purpose warranty.
```json
[
  {"risk_level": "低", "risk_type": "", "description": "Site data interpretation", "reason": "Contractor bears Site data", "analysis": "", "original_text": ""},
  {"risk_level": "HIGH", "risk_type": "fitness_for_purpose", "description": "Fitness for purpose warranty added by the PC", "reason": "Beyond reasonable skill and care", "analysis": "PC 4.1 adds a warranty", "original_text": "fit for the purposes described in the Employer's Requirements"},
  {"risk_level": "critical", "risk_type": "reliance_on_deleted_clause", "description": "Relies on deleted 4.12", "reason": "4.12 is deleted by the PC", "analysis": "", "location": {"original_text": "limited to that stated in Sub-Clause 4.12"}}
]
```"#;

/// Clause 4.1 calls three tools in one round, then answers; every other item answers at
/// once (one with a Chinese level).
fn fidic_script(items: &[ChecklistItem]) -> ScriptedClient {
    let mut replies = Vec::new();
    for item in items {
        match item.clause_id.as_str() {
            "4.1" => {
                replies.push(LlmResponse::tool_calls(vec![
                    call("c1", "get_clause_context", r#"{"clause_id": "4.1"}"#),
                    call("c2", "fidic_merge_gc_pc", r#"{"clause_id": "4.1"}"#),
                    call("c3", "compare_with_baseline", r#"{"clause_id": "4.1"}"#),
                ]));
                replies.push(LlmResponse::text(CLAUSE_4_1_ANSWER));
            }
            "20.1" => replies.push(LlmResponse::text(
                r#"[{"risk_level": "中", "risk_type": "time_bar", "description": "Claim notice 14 days", "reason": "", "analysis": ""}]"#,
            )),
            _ => replies.push(LlmResponse::text("[]")),
        }
    }
    ScriptedClient::from_responses(replies)
}
