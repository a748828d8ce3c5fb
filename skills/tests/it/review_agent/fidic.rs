//! End to end on the FIDIC sample with a scripted model.

use super::*;

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
        .map(|s| (s.skill_id.as_ref(), s.success))
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
        .map(|s| (s.skill_id.as_ref(), s.error_code.as_deref()))
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
