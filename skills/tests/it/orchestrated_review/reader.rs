//! The planner's answer read leniently: what the reader keeps, fixes and names, and the
//! repair after a failed one.

use super::*;

/// The outline of the FIDIC sample's checklist review, which answers are read against.
fn outline() -> ClauseOutline {
    let state = Arc::new(state());
    let checklist =
        run_checklist_review(&Dispatcher::from_inventory().unwrap(), &state, &options());
    ClauseOutline::new(&state, &checklist)
}

#[test]
fn the_synthesis_reader_names_every_problem() {
    let outline = outline();
    let read = read_synthesis(&synthesis(), &outline).unwrap();
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    assert_eq!(
        read_synthesis("no json here", &outline),
        Err(SynthesisError::NoJson)
    );
    let err = read_synthesis(r#"{"risks": "x"}"#, &outline).unwrap_err();
    let SynthesisError::Problems(problems) = &err else {
        panic!("an object is read field by field: {err:?}");
    };
    assert_eq!(problems.len(), 3, "{problems:?}");
    for part in [
        "`summary` is missing",
        "`risks` is not a list",
        "`cross_clause` is missing",
    ] {
        assert!(err.to_string().contains(part), "{err}");
    }
    let err = read_synthesis(
        r#"{"summary": "s", "risks": [{"clause_id": "4.1"}], "cross_clause": [{"clause_ids": ["4.1", "77"], "description": "d"}]}"#,
        &outline,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("`risks[0]` has no `description`"), "{err}");
    assert!(err.contains("`77`"), "{err}");
    // An empty review is a valid answer.
    let empty = read_synthesis(
        r#"{"summary": "Nothing to report.", "risks": [], "cross_clause": []}"#,
        &outline,
    )
    .unwrap();
    assert!(empty.risks.is_empty() && empty.cross_clause.is_empty());
}

#[test]
fn a_risk_in_no_clause_is_kept_for_the_whole_agreement_and_said() {
    let outline = outline();
    let read = read_synthesis(
        r#"{"summary": "s", "cross_clause": [], "risks": [
            {"risk_level": "high", "description": "No limit on the Contractor's total liability."},
            {"clause_id": null, "risk_level": "low", "description": "Notices by e-mail are not provided for."},
            {"clause_id": "8.7", "risk_level": "medium", "description": "Delay damages accrue daily."}]}"#,
        &outline,
    )
    .unwrap();
    let placed: Vec<(&str, &str)> = read
        .risks
        .iter()
        .map(|r| (r.clause_id.as_str(), r.id.as_str()))
        .collect();
    assert_eq!(
        placed,
        [
            (DOCUMENT_ANCHOR, "S-document-1"),
            ("8.7", "S-8.7-1"),
            (DOCUMENT_ANCHOR, "S-document-2")
        ]
    );
    assert_eq!(read.warnings.len(), 2, "{:?}", read.warnings);
    for (warning, i) in read.warnings.iter().zip([0, 1]) {
        assert!(
            warning.contains(&format!("`risks[{i}]`")) && warning.contains("whole agreement"),
            "{warning}"
        );
    }
    // A clause the contract does not have is not an unplaced risk: the planner must mend it.
    let err = read_synthesis(
        r#"{"summary": "s", "cross_clause": [], "risks": [
            {"clause_id": "99.9", "description": "d"}]}"#,
        &outline,
    )
    .unwrap_err();
    assert_eq!(
        err,
        SynthesisError::Problems(vec![
            "`risks[0].clause_id` is `99.9`, which is not a clause of the contract".into()
        ])
    );
}

#[test]
fn the_field_names_a_model_writes_are_read_and_each_is_said() {
    let outline = outline();
    let read = read_synthesis(
        r#"{"summary": "s",
            "findings": [{"clause": "17.6", "risk_level": "high", "description": "Cap excludes indemnities."}],
            "cross_clause": [{"clauses": ["8.7", "17.6"], "risk_level": "high", "description": "Delay damages sit outside the cap."},
                             {"clause_ids": "4.1, 17.6", "description": "The design duty is uncapped."}]}"#,
        &outline,
    )
    .unwrap();
    assert_eq!(read.risks.len(), 1);
    assert_eq!(read.risks[0].clause_id, "17.6");
    assert_eq!(read.cross_clause[0].clause_ids, ["8.7", "17.6"]);
    assert_eq!(read.cross_clause[1].clause_ids, ["4.1", "17.6"]);
    assert_eq!(
        read.warnings,
        [
            "read the answer's `findings` as `risks`",
            "read `risks[0].clause` as `clause_id`",
            "read `cross_clause[0].clauses` as `clause_ids`",
        ]
    );
    // An alias does not excuse what the finding lacks: one clause is not a cross-clause finding.
    let err = read_synthesis(
        r#"{"summary": "s", "risks": [], "cross_clause": [{"clauses": ["8.7"], "description": "d"}]}"#,
        &outline,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("`cross_clause[0]` names fewer than two clauses"),
        "{err}"
    );
    // An answer wrapped in one more object is read from inside, and that is said too.
    let read = read_synthesis(
        r#"{"synthesis": {"summary": "s", "risks": [], "cross_clause": []}}"#,
        &outline,
    )
    .unwrap();
    assert_eq!(read.summary, "s");
    assert_eq!(
        read.warnings,
        ["the planner's answer was inside `synthesis`; read from there"]
    );
}

#[test]
fn an_answer_that_cannot_be_read_is_named_for_what_it_is() {
    let outline = outline();
    // An object with a syntax error: the parser's error, not "not an object".
    let err = read_synthesis(
        "Here is the review:\n{\"summary\": \"s\", \"risks\": [{\"clause_id\": \"4.1\", \"description\": \"d\"}], \"cross_clause\": [],}",
        &outline,
    )
    .unwrap_err();
    let SynthesisError::Malformed(why) = &err else {
        panic!("a broken object is named as one: {err:?}");
    };
    assert!(why.contains("trailing comma"), "{why}");
    assert!(!err.to_string().contains("not an object"), "{err}");
    // A list is not an object, and is named as a list.
    let err =
        read_synthesis(r#"[{"clause_id": "4.1", "description": "d"}]"#, &outline).unwrap_err();
    assert_eq!(err, SynthesisError::NotAnObject("a list"));
    assert!(
        err.to_string()
            .starts_with("the answer's JSON is a list, not an object"),
        "{err}"
    );
}

#[tokio::test]
async fn the_fixes_of_the_reader_are_warnings_of_the_orchestration() {
    let planner = |turn: &Seen<'_>| {
        Ok(if turn.tool_results() == 0 {
            LlmResponse::tool_calls(vec![deep("d1", "4.1", "design")])
        } else {
            LlmResponse::text(
                json!({"summary": "s", "cross_clause": [],
                       "risks": [{"risk_level": "high", "description": "No overall cap."}]})
                .to_string(),
            )
        })
    };
    let model = model(Duration::ZERO, planner, reviewer);
    let report = run(&model, |_| {}).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    assert!(
        orchestration.repairs.is_empty(),
        "{:?}",
        orchestration.repairs
    );
    assert_eq!(orchestration.fallback_reason, None);
    assert_eq!(orchestration.risks.len(), 1);
    assert_eq!(orchestration.risks[0].clause_id, DOCUMENT_ANCHOR);
    assert!(
        orchestration
            .warnings
            .iter()
            .any(|w| w == "`risks[0]` names no clause: kept as a risk of the whole agreement"),
        "{:?}",
        orchestration.warnings
    );
}

#[tokio::test]
async fn after_a_failed_repair_the_reason_names_the_broken_object() {
    let planner = |turn: &Seen<'_>| {
        Ok(if turn.tool_results() == 0 && turn.offers("review_deep") {
            LlmResponse::tool_calls(vec![deep("d1", "4.1", "design")])
        } else {
            LlmResponse::text(r#"{"summary": "s", "risks": [], "cross_clause": [],}"#)
        })
    };
    let model = model(Duration::ZERO, planner, reviewer);
    let report = run(&model, |_| {}).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    assert_eq!(orchestration.repairs.len(), 1);
    let reason = orchestration.fallback_reason.as_deref().unwrap();
    assert!(
        reason.starts_with("the planner's answer could not be read: the answer's JSON object does not parse: trailing comma"),
        "{reason}"
    );
    assert!(!reason.contains("not an object"), "{reason}");
}

#[tokio::test]
async fn a_budget_too_small_for_the_planner_leaves_the_checklist_review() {
    let model = model(
        Duration::ZERO,
        planner(vec![deep("d1", "4.1", "design")]),
        reviewer,
    );
    let report = run(&model, |s| s.budget = Budget::unlimited().model_requests(1)).await;
    let orchestration = report.orchestration.as_ref().unwrap();
    assert!(model.requests() <= 1);
    assert!(orchestration.spent.model_requests <= 1);
    let reason = orchestration.fallback_reason.as_deref().unwrap_or_default();
    assert_eq!(
        reason,
        "the planner's answer could not be read: no JSON object in the answer; no turn to mend it: the budget ran out of model requests"
    );
    assert!(orchestration.repairs.is_empty());
    assert!(report
        .clauses
        .iter()
        .all(|c| c.mode == ReviewMode::Checklist));
}
