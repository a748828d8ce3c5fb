//! Where the model gives way to the checklist: no tools, iteration limits, unreadable
//! answers; the model shared across workers; absences read from the whole contract.

use super::*;

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
