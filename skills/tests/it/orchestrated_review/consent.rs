//! A deep review that needs consent, and the planner's tools over the outline.

use super::*;

/// Strike a clause out of the contract (needs a person's consent). Kept out of the
/// inventory: only the consent test's dispatcher has it.
#[toolwright::skill(
    id = "orch_test.strike_clause",
    domain = "fidic",
    confirm = "Strike clause {clause_id}",
    register = false
)]
fn orch_test_strike_clause(
    /// The clause.
    clause_id: String,
) -> String {
    format!("struck {clause_id}")
}

#[tokio::test]
async fn a_deep_review_that_needs_consent_does_not_hold_the_review() {
    use toolwright::Skill;
    let striker = |turn: &Seen<'_>| {
        Ok(if turn.tool_results() == 0 {
            LlmResponse::tool_calls(vec![call(
                "s1",
                "orch_test_strike_clause",
                json!({"clause_id": turn.clause()}),
            )])
        } else {
            LlmResponse::text("[]")
        })
    };
    let model = model(
        Duration::ZERO,
        planner(vec![deep("d1", "4.1", "strike it")]),
        striker,
    );
    let dispatcher =
        toolwright::DispatcherBuilder::from_dispatcher(&Dispatcher::from_inventory().unwrap())
            .skill(<OrchTestStrikeClause as Skill>::registration())
            .build()
            .unwrap();
    let settings = OrchestrateSettings::new(Arc::clone(&model) as Arc<dyn LlmClient>);
    let report = review_orchestrated(
        &dispatcher,
        &state(),
        &options(),
        &settings,
        std::future::pending(),
    )
    .await;
    let orchestration = report.orchestration.as_ref().unwrap();
    let reason = orchestration.fallback_reason.as_deref().unwrap_or_default();
    assert!(reason.contains("consent"), "{orchestration:?}");
    // The review ended: every clause is reported, the checklist's where no deep review
    // answered, and nothing was struck.
    assert_eq!(orchestration.plan.len(), 9);
    assert!(report.clauses.iter().all(|c| c.mode != ReviewMode::React));
    assert_eq!(model.requests(), 2, "the planner's turn and the reviewer's");
}

#[tokio::test]
async fn the_planner_tools_page_the_outline_and_name_bad_arguments() {
    use clausewright_skills::review::planner_tools::{ListClauses, ReviewQuick};
    use toolwright::{Skill, SkillContext};
    let state = Arc::new(state());
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let checklist = clausewright_skills::review::review_with_agent(
        &dispatcher,
        &state,
        &options(),
        None,
        std::future::pending(),
    )
    .await;
    let outline = Arc::new(ClauseOutline::new(&state, &checklist));
    let tools = Dispatcher::builder()
        .skill(<ListClauses as Skill>::registration())
        .skill(<ReviewQuick as Skill>::registration())
        .build()
        .unwrap();
    let ctx = SkillContext::new().with_arc(Arc::clone(&outline));
    let call = |name: &'static str, args: Value| {
        let (tools, ctx) = (&tools, &ctx);
        async move { tools.call(name, &args.to_string(), ctx).await }
    };

    // Nine clauses, four a page: the second page holds the fifth to the eighth.
    let page = call("list_clauses", json!({"page": 2, "page_size": 4})).await;
    let data = page.data_value();
    assert_eq!(
        (data["page"].as_u64(), data["pages"].as_u64()),
        (Some(2), Some(3))
    );
    let ids: Vec<&str> = data["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["clause_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["8.3", "8.7", "14.7", "17.6"]);
    let kinds = &data["clauses"][1]["kinds"];
    assert!(
        kinds
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k == "liquidated_damages"),
        "{kinds}"
    );
    for (args, says) in [
        (json!({"page": 0}), "`page` is 0"),
        (json!({"page_size": 0}), "`page_size` is 0"),
        (json!({"page_size": 201}), "expected 1 to 200"),
        (json!({"page": 4, "page_size": 4}), "has 3 page(s)"),
    ] {
        let refused = call("list_clauses", args.clone()).await;
        let message = refused
            .error
            .as_ref()
            .map(|e| e.message.clone())
            .unwrap_or_default();
        assert!(message.contains(says), "{args}: {message}");
    }

    // The quick review hands out the rules' findings, records the reason, names strangers.
    let quick = call(
        "review_quick",
        json!({"clause_ids": ["Sub-Clause 8.7", "99"], "reason": "routine"}),
    )
    .await;
    let data = quick.data_value();
    assert_eq!(data["clauses"][0]["clause_id"], "8.7");
    assert_eq!(
        data["clauses"][0]["risks"].as_array().unwrap().len(),
        checklist
            .clauses
            .iter()
            .find(|c| c.clause_id == "8.7")
            .unwrap()
            .risks
            .len()
    );
    assert_eq!(data["unknown"], json!(["99"]));
    let empty = call("review_quick", json!({"clause_ids": []})).await;
    assert!(empty
        .error
        .unwrap()
        .message
        .contains("`clause_ids` is empty"));
    // Without an outline in the context, the tools say what is missing instead of guessing.
    let bare = tools.call("list_clauses", "{}", &SkillContext::new()).await;
    assert_eq!(
        bare.error_code(),
        Some(toolwright::codes::MISSING_INJECTION)
    );
}
