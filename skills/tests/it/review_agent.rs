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

// --- end to end on the FIDIC sample ----------------------------------------------------

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

#[test]
fn fidic_review_with_a_scripted_model() {
    let state = fidic_state("en");
    let model = fidic_script(&state.review_checklist);
    let model = Arc::new(model);
    let settings = AgentSettings {
        react_temperature: 0.3,
        ..react_on()
    };
    let report = run_review(
        &dispatcher(),
        &state,
        &sequential(),
        Some(&agent(&model, settings)),
    );
    assert_eq!(model.remaining(), 0, "every scripted reply was used");
    assert_eq!(report.clauses.len(), state.review_checklist.len());
    assert!(report.clauses.iter().all(|c| c.mode == ReviewMode::React));
    assert_eq!(report.summary.react_clauses, report.clauses.len());
    assert_eq!(report.summary.react_fallbacks, 0);

    // What the model was given for clause 4.1.
    let requests = model.requests();
    let first = &requests[0];
    assert_eq!(first.temperature, 0.3);
    assert!(first.tool_names.iter().any(|t| t == "fidic_merge_gc_pc"));
    assert!(first.tool_names.iter().any(|t| t == "get_clause_context"));
    assert!(
        !first.tool_names.iter().any(|t| t.starts_with("spa_")),
        "the domain filter keeps SPA tools out: {:?}",
        first.tool_names
    );
    let system = first.messages[0].content().unwrap();
    assert!(system.contains("[FIDIC review]"), "{system}");
    assert!(system.contains("Contractor"), "{system}");
    assert!(system.contains("[Suggested tools]"), "{system}");
    let user = first.messages[1].content().unwrap();
    assert!(user.contains("4.1") && user.contains("critical"), "{user}");
    assert!(
        user.contains("design, execute and complete the Works")
            || user.contains("Contractor shall"),
        "the clause text comes from the primary document: {user}"
    );

    // The three tools ran in one round, and their results came back in the order asked.
    let review = clause(&report, "4.1");
    assert_eq!(
        review.tools_chosen,
        [
            "get_clause_context",
            "fidic_merge_gc_pc",
            "compare_with_baseline"
        ]
    );
    let ran: Vec<(&str, bool)> = review
        .skills
        .iter()
        .map(|s| (s.skill_id.as_str(), s.success))
        .collect();
    assert_eq!(
        ran,
        [
            ("get_clause_context", true),
            ("fidic_merge_gc_pc", true),
            ("compare_with_baseline", true)
        ],
        "{:#?}",
        review.skills
    );
    let roles: Vec<&str> = review
        .agent_messages
        .iter()
        .map(ChatMessage::role)
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "tool",
            "assistant"
        ]
    );
    assert_eq!(review.agent_messages[2].tool_calls().len(), 3);
    let ids: Vec<&str> = review.agent_messages[3..6]
        .iter()
        .map(|m| m.tool_call_id().unwrap())
        .collect();
    assert_eq!(ids, ["c1", "c2", "c3"]);
    // Long results are cut for the model (and then are no longer JSON); read the start.
    let results: Vec<&str> = review.agent_messages[3..6]
        .iter()
        .map(|m| {
            let content = m.content().unwrap();
            // Fenced as data for the model; the JSON is inside.
            toolwright::fence::fenced_body(toolwright::fence::TOOL_OUTPUT_TAG, content)
                .unwrap_or(content)
        })
        .collect();
    assert!(
        results
            .iter()
            .all(|r| r.starts_with(r#"{"success":true,"data":{"#)),
        "{results:#?}"
    );
    assert!(
        results.iter().all(|r| r.chars().count() <= 3100),
        "{results:#?}"
    );
    assert!(
        results[0].contains(r#""clause_id":"4.1""#),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("fit for the purposes"),
        "PC 4.1 is merged: {}",
        results[1]
    );
    assert!(results[1].contains(r#""status":"#), "{}", results[1]);
    assert!(results[2].contains("modification_type"), "{}", results[2]);
    // The second request carried the results back to the model.
    assert_eq!(requests[1].messages.len(), 6);

    // Risks: normalised, most serious first, ids assigned.
    let risks: Vec<(&str, &str, &str)> = review
        .risks
        .iter()
        .map(|r| {
            (
                r.id.as_str(),
                r.finding.level.as_str(),
                r.finding.kind.name(),
            )
        })
        .collect();
    assert_eq!(
        risks,
        [
            ("R-4.1-1", "high", "fitness_for_purpose"),
            ("R-4.1-2", "medium", "reliance_on_deleted_clause"),
            ("R-4.1-3", "low", "unclassified"),
        ]
    );
    assert!(review
        .risks
        .iter()
        .all(|r| r.finding.source_skill == "react_agent" && r.clause_id == "4.1"));
    assert_eq!(
        review.risks[1].finding.quote,
        "limited to that stated in Sub-Clause 4.12"
    );
    assert!(
        review.risks[2].finding.quote.is_empty(),
        "empty original_text gives no location"
    );

    let claims = clause(&report, "20.1");
    assert_eq!(claims.risks.len(), 1);
    assert_eq!(
        claims.risks[0].finding.level,
        clausewright_skills::review::RiskLevel::Medium
    );
    assert_eq!(claims.risks[0].id, "R-20.1-1");
    assert!(claims.tools_chosen.is_empty());
    assert_eq!(claims.agent_messages.len(), 3);

    assert_eq!(report.summary.total_risks, 4);
    assert_eq!(
        (
            report.summary.high,
            report.summary.medium,
            report.summary.low
        ),
        (1, 2, 1)
    );
    assert_eq!(report.summary.skill_calls, 3);

    // The report keeps the history and the mode in its JSON, and reads back.
    let json = serde_json::to_value(&report).unwrap();
    let first_clause = &json["clauses"][0];
    assert_eq!(first_clause["mode"], "react");
    assert_eq!(
        first_clause["agent_messages"][2]["tool_calls"][1]["function"]["name"],
        "fidic_merge_gc_pc"
    );
    let back: ReviewReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, report);

    let mut stable = review.clone();
    stable.agent_messages.clear();
    for run in &mut stable.skills {
        assert!(run.elapsed_ms > 0.0, "tool runs are timed: {run:?}");
        run.elapsed_ms = 0.0;
    }
    insta::assert_json_snapshot!("react_fidic_clause_4_1", stable);
}

#[test]
fn chinese_review_gets_the_chinese_prompt_and_default_type() {
    let mut state = fidic_state("zh-CN");
    state.review_checklist.truncate(1);
    let model = ScriptedClient::from_responses([LlmResponse::text(
        r#"[{"risk_level": "高", "description": "适用性保证"}]"#,
    )]);
    let model = Arc::new(model);
    let report = run_review(
        &dispatcher(),
        &state,
        &sequential(),
        Some(&agent(&model, react_on())),
    );
    let system = model.requests()[0].messages[0]
        .content()
        .unwrap()
        .to_string();
    assert!(system.contains("【FIDIC 专项审查】"), "{system}");
    let risk = &report.clauses[0].risks[0];
    assert_eq!(
        (risk.finding.level.as_str(), risk.finding.kind.name()),
        ("high", "未分类风险")
    );
}

#[test]
fn model_error_falls_back_for_that_clause_only() {
    let state = fidic_state("en");
    let items = &state.review_checklist;
    assert_eq!(items[0].clause_id, "4.1");
    // 4.1: one round of tools, then the model fails; every other clause answers.
    let mut replies = vec![
        Ok(LlmResponse::tool_calls(vec![
            call("c1", "get_clause_context", r#"{"clause_id": "4.1"}"#),
            call("c2", "no_such_tool", "{}"),
        ])),
        Err(LlmError::Scripted("upstream 503".into())),
    ];
    replies.extend(items[1..].iter().map(|_| Ok(LlmResponse::text("[]"))));
    let model = ScriptedClient::new(replies);
    let model = Arc::new(model);
    let report = run_review(
        &dispatcher(),
        &state,
        &sequential(),
        Some(&agent(&model, react_on())),
    );

    let review = clause(&report, "4.1");
    assert_eq!(review.mode, ReviewMode::ReactFallback);
    assert!(review
        .fallback_reason
        .as_deref()
        .unwrap()
        .contains("upstream 503"));
    assert!(review
        .agent_warnings
        .iter()
        .any(|w| w.contains("upstream 503")));
    assert_eq!(review.tools_chosen, ["get_clause_context", "no_such_tool"]);
    // The conversation up to the failure is kept.
    let roles: Vec<&str> = review
        .agent_messages
        .iter()
        .map(ChatMessage::role)
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "tool"]);

    // The checklist reviewed the clause: same risks as a pure checklist review of it.
    let mut only_4_1 = state.clone();
    only_4_1.review_checklist.truncate(1);
    let checklist = run_checklist_review(&dispatcher(), &only_4_1, &sequential());
    assert_eq!(review.risks, checklist.clauses[0].risks);
    assert!(
        !review.risks.is_empty(),
        "the checklist finds the PC changes of 4.1"
    );
    // Skill runs: the agent's two calls, then the checklist's.
    let ran: Vec<(&str, Option<&str>)> = review
        .skills
        .iter()
        .map(|s| (s.skill_id.as_str(), s.error_code.as_deref()))
        .collect();
    assert_eq!(
        ran[..2],
        [
            ("get_clause_context", None),
            ("no_such_tool", Some("unknown_skill"))
        ]
    );
    let checklist_runs: Vec<&str> = ran[2..].iter().map(|r| r.0).collect();
    assert_eq!(checklist_runs, items[0].required_skills);

    assert!(report.clauses[1..]
        .iter()
        .all(|c| c.mode == ReviewMode::React));
    assert_eq!(report.summary.react_fallbacks, 1);
    assert_eq!(report.summary.react_clauses, items.len() - 1);
}

#[test]
fn react_disabled_on_the_fidic_sample_is_the_checklist_review() {
    let state = fidic_state("en");
    let model = fidic_script(&state.review_checklist);
    let model = Arc::new(model);
    let settings = AgentSettings {
        use_react_agent: false,
        ..react_on()
    };
    let report = without_times(run_review(
        &dispatcher(),
        &state,
        &sequential(),
        Some(&agent(&model, settings)),
    ));
    let checklist = without_times(run_checklist_review(&dispatcher(), &state, &sequential()));
    assert_eq!(report, checklist);
    assert!(model.requests().is_empty());
    assert!(report
        .clauses
        .iter()
        .all(|c| c.mode == ReviewMode::Checklist));
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["clauses"][0].get("mode").is_none());
    assert!(json["clauses"][0].get("agent_messages").is_none());
    assert!(json["summary"].get("react_clauses").is_none());
}

#[test]
fn no_tools_to_offer_falls_back() {
    let empty = Dispatcher::builder().build().unwrap();
    let mut state = fidic_state("en");
    state.review_checklist.truncate(1);
    let model = ScriptedClient::from_responses([LlmResponse::text("[]")]);
    let model = Arc::new(model);
    let report = run_review(
        &empty,
        &state,
        &sequential(),
        Some(&agent(&model, react_on())),
    );
    let review = &report.clauses[0];
    assert_eq!(review.mode, ReviewMode::ReactFallback);
    assert!(review.fallback_reason.as_deref().unwrap().contains("fidic"));
    assert!(
        model.requests().is_empty(),
        "no tools: the model is not asked"
    );
    // The checklist then meets the same empty registry.
    assert_eq!(
        review.skipped_skills,
        state.review_checklist[0].required_skills
    );
}

#[test]
fn iteration_limit_asks_for_the_answer_without_tools() {
    let mut state = fidic_state("en");
    state.review_checklist.truncate(1);
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("a", "get_clause_context", "{}")]),
        LlmResponse::text(r#"[{"risk_level": "high", "risk_type": "scope", "description": "found in the context"}]"#)
            .with_usage(toolwright::agent::TokenUsage {
                prompt_tokens: 900,
                completion_tokens: 30,
                cached_tokens: 512,
            }),
    ]);
    let model = Arc::new(model);
    let settings = AgentSettings {
        react_max_iterations: 1,
        ..react_on()
    };
    let report = run_review(
        &dispatcher(),
        &state,
        &sequential(),
        Some(&agent(&model, settings)),
    );
    let review = &report.clauses[0];
    assert_eq!(review.mode, ReviewMode::React);
    assert_eq!(review.risks.len(), 1, "{review:#?}");
    assert_eq!(review.risks[0].finding.kind.name(), "scope");
    assert_eq!(review.model_turns, 2);
    assert_eq!(review.usage.cached_tokens, 512);
    // The prepared clause_id came from the clause in focus.
    assert_eq!(review.skills[0].skill_id, "get_clause_context");
    assert!(review.skills[0].success, "{:?}", review.skills[0]);
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(!requests[0].tool_names.is_empty());
    assert!(
        requests[1].tool_names.is_empty(),
        "the last turn offers no tools"
    );
    let last = requests[1].messages.last().unwrap();
    assert_eq!(last.role(), "user");
    assert!(last.content().unwrap().contains("final list of risks"));
}

#[test]
fn iteration_limit_without_the_final_turn_keeps_spec_20_behaviour() {
    let mut state = fidic_state("en");
    state.review_checklist.truncate(1);
    let model = ScriptedClient::from_responses([LlmResponse::tool_calls(vec![call(
        "a",
        "get_clause_context",
        "{}",
    )])]);
    let model = Arc::new(model);
    let settings = AgentSettings {
        react_max_iterations: 1,
        react_final_answer_at_limit: false,
        ..react_on()
    };
    let report = run_review(
        &dispatcher(),
        &state,
        &sequential(),
        Some(&agent(&model, settings)),
    );
    let limited = &report.clauses[0];
    assert_eq!(limited.mode, ReviewMode::React);
    assert!(limited.risks.is_empty());
    assert!(limited
        .agent_warnings
        .iter()
        .any(|w| w.contains("max_iterations")));
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn unreadable_or_empty_answers_fall_back_to_the_checklist() {
    let mut state = fidic_state("en");
    state.review_checklist.truncate(2);
    let model = ScriptedClient::from_responses([
        LlmResponse::text("I cannot decide."),
        LlmResponse::text("  "),
    ]);
    let model = Arc::new(model);
    let report = run_review(
        &dispatcher(),
        &state,
        &sequential(),
        Some(&agent(&model, react_on())),
    );
    let checklist = run_checklist_review(&dispatcher(), &state, &sequential());
    let ids: Vec<&str> = state
        .review_checklist
        .iter()
        .map(|i| i.clause_id.as_str())
        .collect();
    for id in &ids {
        let review = clause(&report, id);
        assert_eq!(review.mode, ReviewMode::ReactFallback, "{review:#?}");
        let reason = review.fallback_reason.as_deref().unwrap();
        assert!(reason.contains("no readable answer"), "{reason}");
        assert_eq!(review.risks, clause(&checklist, id).risks);
        assert_eq!(review.model_turns, 1);
    }
    let reason = |id: &str| clause(&report, id).fallback_reason.clone().unwrap();
    assert!(
        reason(ids[0]).contains("no JSON risk list"),
        "{}",
        reason(ids[0])
    );
    assert!(reason(ids[1]).contains("empty"), "{}", reason(ids[1]));
    assert!(
        !clause(&report, ids[0]).risks.is_empty(),
        "never reported risk-free"
    );
    assert_eq!(report.summary.react_fallbacks, 2);
}

#[test]
fn clauses_share_the_model_across_workers() {
    let state = fidic_state("en");
    let n = state.review_checklist.len();
    let model = ScriptedClient::from_responses(
        (0..n).map(|_| LlmResponse::text(r#"[{"risk_level": "low", "description": "x"}]"#)),
    );
    let model = Arc::new(model);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&seen);
    let options = ReviewOptions {
        concurrency: 4,
        generate_checklist: false,
        progress: Some(clausewright_skills::review::ProgressHook(
            std::sync::Arc::new(move |clause, done, total| {
                log.lock()
                    .unwrap()
                    .push((clause.clause_id.clone(), done, total))
            }),
        )),
        learned: None,
        playbook: None,
        run: None,
        run_report: Default::default(),
    };
    let report = run_review(
        &dispatcher(),
        &state,
        &options,
        Some(&agent(&model, react_on())),
    );
    assert_eq!(model.remaining(), 0);
    let mut progress = seen.lock().unwrap().clone();
    assert_eq!(
        progress.len(),
        report.clauses.len(),
        "one progress call per clause"
    );
    progress.sort_by_key(|p| p.1);
    assert_eq!(
        progress.last().map(|p| (p.1, p.2)),
        Some((report.clauses.len(), report.clauses.len()))
    );
    let order: Vec<&str> = report
        .clauses
        .iter()
        .map(|c| c.clause_id.as_str())
        .collect();
    let expected: Vec<&str> = state
        .review_checklist
        .iter()
        .map(|c| c.clause_id.as_str())
        .collect();
    assert_eq!(order, expected, "the report keeps checklist order");
    assert!(report
        .clauses
        .iter()
        .all(|c| c.mode == ReviewMode::React && c.risks.len() == 1));
}

/// In agent mode the model judges the clauses; the classifier still reads the whole
/// contract, so an agreement with a governing-law clause is never reported as lacking one,
/// while a lacking cap on liability is.
#[test]
fn absences_in_agent_mode_read_the_whole_contract() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("services.md");
    std::fs::write(
        &path,
        "# Services Agreement\n\n## 1 Services\n\n1.1 The Supplier shall provide the Services with reasonable skill and care.\n\n## 2 Governing Law\n\n2.1 This Agreement shall be governed by the laws of England and Wales.\n",
    )
    .unwrap();
    let state = build_review_state(&ReviewInputs {
        primary: path,
        language: "en".into(),
        ..Default::default()
    })
    .unwrap();
    let stage = clausewright_skills::review::LearnedStage::embedded().unwrap();
    let options = ReviewOptions {
        concurrency: 1,
        learned: Some(stage),
        ..ReviewOptions::default()
    };
    let replies = (0..8).map(|_| Ok(LlmResponse::text("[]")));
    let model = Arc::new(ScriptedClient::new(replies));
    let report = run_review(
        &dispatcher(),
        &state,
        &options,
        Some(&agent(&model, react_on())),
    );
    let absent: Vec<&str> = report
        .risks()
        .filter(|r| {
            matches!(
                r.finding.subject,
                clausewright_skills::review::Subject::Absence(_)
            )
        })
        .map(|r| r.finding.kind.name())
        .collect();
    assert!(!absent.contains(&"governing_law"), "{absent:?}");
    assert!(absent.contains(&"cap_on_liability"), "{absent:?}");
}
