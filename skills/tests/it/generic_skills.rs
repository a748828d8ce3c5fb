//! Each generic skill against the fixture contract, called as the review calls it
//! (`prepare_and_call` with the review state and a clause in focus).

use crate::generic_fixture::*;
use clausewright_skills::{DocumentRole, ReviewState};
use serde_json::json;

#[tokio::test]
async fn get_clause_context_gives_tree_neighbours_and_terms() {
    let out = ok(call("get_clause_context", "4.2", None).await);
    assert_eq!(out["title"], "Performance Security");
    assert_eq!(
        out["parent"],
        json!({"clause_id": "4", "title": "The Contractor"})
    );
    assert_eq!(out["previous"]["clause_id"], "4.1");
    assert_eq!(out["next"], json!(null));
    assert_eq!(out["defined_terms_used"], json!(["Employer"]));
    assert_eq!(out["children"], json!([]));

    let top = ok(call(
        "get_clause_context",
        "4.1",
        Some(json!({"clause_id": "Clause 4"})),
    )
    .await);
    assert_eq!(ids(&top["children"], "clause_id"), ["4.1", "4.2"]);
    assert_eq!(top["previous"]["clause_id"], "2");
    assert_eq!(top["next"]["clause_id"], "8.5");
    assert_eq!(top["parent"], json!(null));

    let refs = ok(call("get_clause_context", "20.1", None).await);
    assert_eq!(refs["referenced_clauses"], json!(["8.5", "99.1", "14"]));
}

#[tokio::test]
async fn unknown_clause_is_not_found_with_suggestions() {
    for skill in [
        "get_clause_context",
        "resolve_definition",
        "compare_with_baseline",
        "cross_reference_check",
        "extract_financial_terms",
        "load_review_criteria",
        "assess_deviation",
        "classify_provisions",
    ] {
        let (code, message) = err(call(skill, "77", None).await);
        assert_eq!(code, "not_found", "{skill}");
        assert!(
            message.contains("`77`") && message.contains("1, 1.1, 2"),
            "{skill}: {message}"
        );
    }
}

#[tokio::test]
async fn missing_focus_and_state_are_reported() {
    let d = dispatcher();
    let r = d
        .prepare_and_call("get_clause_context", &context(state(), None), None)
        .await;
    let (code, message) = err(r);
    assert_eq!(code, "prepare_failed");
    assert!(message.contains("clause_id"), "{message}");
    let r = d
        .prepare_and_call(
            "get_clause_context",
            &toolwright::SkillContext::new(),
            Some(&json!({"clause_id": "1"})),
        )
        .await;
    assert_eq!(err(r).0, "missing_injection");
    let no_primary = ReviewState::default();
    let (code, message) = err(call_with(no_primary, "get_clause_context", "1", None).await);
    assert_eq!(code, "not_found");
    assert!(message.contains("primary"), "{message}");
}

#[tokio::test]
async fn resolve_definition_finds_defined_and_undefined_terms() {
    let out = ok(call("resolve_definition", "4.2", None).await);
    assert_eq!(
        out["definitions"],
        json!([
            {"term": "Employer", "definition": "Harbour Authority", "source": "contract"},
            {"term": "Contractor", "definition": "the person named as contractor in the Contract Data", "source": "baseline"}
        ])
    );
    assert_eq!(
        out["undefined_terms"],
        json!(["Letter of Acceptance", "Performance Security"])
    );

    let none = ok(call("resolve_definition", "8.5", None).await);
    assert_eq!(none["definitions"], json!([]));
    assert_eq!(none["undefined_terms"], json!([]));
    assert_eq!(none["summary"], "Clause 8.5: uses no defined terms");
}

#[tokio::test]
async fn compare_with_baseline_classifies_and_diffs() {
    let modified = ok(call("compare_with_baseline", "4.2", None).await);
    assert_eq!(modified["modification_type"], "modified");
    assert_eq!(
        modified["changes"],
        json!([{"kind": "deleted", "text": "28"}, {"kind": "inserted", "text": "14"}])
    );
    assert_eq!(
        (
            modified["inserted_words"].as_u64(),
            modified["deleted_words"].as_u64()
        ),
        (Some(1), Some(1))
    );
    let similarity = modified["similarity"].as_f64().unwrap();
    assert!(similarity > 0.9 && similarity < 1.0, "{similarity}");

    let same = ok(call("compare_with_baseline", "2.1", None).await);
    assert_eq!(same["modification_type"], "unmodified");
    assert_eq!(same["changes"], json!([]));
    assert_eq!(same["similarity"], 1.0);

    assert_eq!(
        ok(call("compare_with_baseline", "8.5", None).await)["modification_type"],
        "deleted"
    );
    assert_eq!(
        ok(call("compare_with_baseline", "20.1", None).await)["modification_type"],
        "added"
    );
    // In the standard form only: deleted, although the contract lacks the clause.
    let gone = ok(call("compare_with_baseline", "14.3", None).await);
    assert_eq!(gone["modification_type"], "deleted");
    assert_eq!(
        gone["changes"][0]["text"],
        "The Contractor shall submit a Statement after the end of each month."
    );
}

#[tokio::test]
async fn compare_with_baseline_prepares_text_for_the_requested_clause() {
    // The focus is 2.1 but the model asks about 4.2: the baseline text follows the request.
    let out = ok(call(
        "compare_with_baseline",
        "2.1",
        Some(json!({"clause_id": "4.2"})),
    )
    .await);
    assert_eq!(out["clause_id"], "4.2");
    assert_eq!(out["modification_type"], "modified");
    // A baseline text given by the model wins.
    let given = ok(call(
        "compare_with_baseline",
        "2.1",
        Some(json!({"baseline_text": "Nothing alike at all"})),
    )
    .await);
    assert_eq!(given["modification_type"], "modified");
    assert!(given["similarity"].as_f64().unwrap() < 0.3);
}

#[tokio::test]
async fn compare_without_baseline_fails_clearly() {
    let state = without(state(), DocumentRole::Baseline);
    let (code, message) = err(call_with(state, "compare_with_baseline", "4.2", None).await);
    assert_eq!(code, "prepare_failed");
    assert!(
        message.contains("baseline_text") && message.contains("no baseline"),
        "{message}"
    );
}

#[tokio::test]
async fn cross_reference_check_resolves_breaks_and_flags_deleted() {
    let out = ok(call("cross_reference_check", "20.1", None).await);
    assert_eq!(
        out["references"],
        json!([
            {"reference_text": "Sub-Clause 8.5", "target_clause_id": "8.5", "status": "deleted", "target_title": "Extension of Time"},
            {"reference_text": "Sub-Clause 99.1", "target_clause_id": "99.1", "status": "broken", "target_title": ""},
            {"reference_text": "Clause 14", "target_clause_id": "14", "status": "resolved", "target_title": "Contract Price and Payment"}
        ])
    );
    assert_eq!(
        (
            out["resolved_count"].as_u64(),
            out["broken_count"].as_u64(),
            out["deleted_count"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );

    let baseline_only = ok(call("cross_reference_check", "14.7", None).await);
    assert_eq!(
        baseline_only["references"][0]["status"],
        "resolved_in_baseline"
    );
    assert_eq!(
        baseline_only["references"][0]["target_title"],
        "Application for Interim Payment"
    );

    let none = ok(call("cross_reference_check", "4.2", None).await);
    assert_eq!(none["references"], json!([]));
    assert_eq!(none["summary"], "Clause 4.2 refers to no other clause");
}

#[tokio::test]
async fn extract_financial_terms_reads_figures_with_sources() {
    let out = ok(call("extract_financial_terms", "14.7", None).await);
    let terms: Vec<(String, String, f64)> = out["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["category"].as_str().unwrap().into(),
                t["kind"].as_str().unwrap().into(),
                t["value"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        terms,
        [
            ("payment".to_string(), "period".to_string(), 84.0),
            ("retention".into(), "percentage".into(), 15.0),
            ("delay_damages".into(), "percentage".into(), 0.5)
        ]
    );
    assert_eq!(out["retention_percent"], 15.0);
    assert_eq!(out["delay_damages_rate_percent"], 0.5);
    assert_eq!(out["delay_damages_cap_percent"], json!(null));
    assert_eq!(out["payment_period_days"], 84.0);
    assert_eq!(
        out["terms"][1]["source_text"],
        "Retention shall be 15% of each payment."
    );

    let price = ok(call("extract_financial_terms", "1.1", None).await);
    assert_eq!(price["amounts_by_currency"], json!({"USD": 1_500_000.0}));
    assert_eq!(price["terms"][0]["text"], "USD 1,500,000");

    let none = ok(call("extract_financial_terms", "2.1", None).await);
    assert_eq!(none["terms"], json!([]));
}

#[tokio::test]
async fn search_reference_doc_ranks_passages() {
    let prepared = ok(call("search_reference_doc", "4.2", None).await);
    assert!(prepared["query"]
        .as_str()
        .unwrap()
        .starts_with("Performance Security The Contractor"));
    assert_eq!(prepared["hits"][0]["passage_id"], "1");
    assert_eq!(prepared["hits"][0]["document"], "ER.md");
    assert_eq!(prepared["documents_searched"], json!(["ER.md"]));
    assert_eq!(prepared["passages_searched"], 3);

    let roads = ok(call(
        "search_reference_doc",
        "4.2",
        Some(json!({"query": "access roads", "top_k": 1})),
    )
    .await);
    assert_eq!(ids(&roads["hits"], "passage_id"), ["2"]);
    assert_eq!(
        roads["hits"][0]["snippet"],
        "Access roads to the Site shall be maintained by the Contractor."
    );
    assert!(roads["hits"][0]["score"].as_f64().unwrap() > 0.0);

    let nothing = ok(call(
        "search_reference_doc",
        "4.2",
        Some(json!({"query": "zebra crossing"})),
    )
    .await);
    assert_eq!(nothing["hits"], json!([]));
}

#[tokio::test]
async fn search_reference_doc_errors() {
    let (code, message) = err(call("search_reference_doc", "4.2", Some(json!({"top_k": 0}))).await);
    assert_eq!(code, "invalid_arguments");
    assert!(message.contains("top_k"), "{message}");
    let (code, message) = err(call(
        "search_reference_doc",
        "4.2",
        Some(json!({"document": "XYZ"})),
    )
    .await);
    assert_eq!(code, "not_found");
    assert!(
        message.contains("XYZ") && message.contains("ER.md"),
        "{message}"
    );
    let (code, _) = err(call_with(
        without(state(), DocumentRole::Reference),
        "search_reference_doc",
        "4.2",
        None,
    )
    .await);
    assert_eq!(code, "not_found");
}

#[tokio::test]
async fn search_uses_an_injected_index() {
    let state = state();
    let index = clausewright_skills::index::ReferenceIndex::build(&state);
    let ctx = context(state, Some("4.2")).with(index);
    let out = ok(dispatcher()
        .prepare_and_call(
            "search_reference_doc",
            &ctx,
            Some(&json!({"query": "bank guarantee"})),
        )
        .await);
    assert_eq!(out["hits"][0]["passage_id"], "1");
}

#[tokio::test]
async fn load_review_criteria_filters_to_the_clause() {
    let fit = ok(call("load_review_criteria", "4.1", None).await);
    assert_eq!(ids(&fit["criteria"], "criterion_id"), ["C-1"]);
    assert_eq!(fit["criteria"][0]["applies_because"], "clause");
    assert_eq!(
        fit["criteria"][0]["matched_keywords"],
        json!(["fit for purpose"])
    );
    assert_eq!(fit["total_loaded"], 3);

    let payment = ok(call("load_review_criteria", "14.7", None).await);
    assert_eq!(ids(&payment["criteria"], "criterion_id"), ["C-2", "C-3"]);
    assert_eq!(
        ids(&payment["criteria"], "applies_because"),
        ["keyword", "clause"]
    );

    let none = ok(call("load_review_criteria", "2.1", None).await);
    assert_eq!(none["criteria"], json!([]));
}

fn temp_file(name: &str, content: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("skills-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

#[tokio::test]
async fn load_review_criteria_reads_csv_and_json_files() {
    let csv = temp_file(
        "criteria.csv",
        "criterion_id,clause_id,topic,requirement,risk_level,keywords\nF-1,4.2,Security,\"Security within 28 days, not less\",high,days;security\nF-2,9,Tests,Tests,low,\n",
    );
    let mut s = state();
    s.criteria.clear();
    s.criteria_file = Some(csv.display().to_string());
    let out = ok(call_with(s.clone(), "load_review_criteria", "4.2", None).await);
    assert_eq!(ids(&out["criteria"], "criterion_id"), ["F-1"]);
    assert_eq!(
        out["criteria"][0]["requirement"],
        "Security within 28 days, not less"
    );
    assert_eq!(
        out["criteria"][0]["matched_keywords"],
        json!(["days", "security"])
    );
    assert_eq!(out["total_loaded"], 2);

    let json_file = temp_file(
        "criteria.json",
        r#"{"criteria": [{"criterion_id": "J-1", "clause_id": "4.2", "requirement": "r", "risk_level": "low"}]}"#,
    );
    s.criteria_file = Some(json_file.display().to_string());
    let out = ok(call_with(s.clone(), "load_review_criteria", "4.2", None).await);
    assert_eq!(ids(&out["criteria"], "criterion_id"), ["J-1"]);

    let bad = temp_file("bad.json", r#"[{"clause_id": "4.2"}]"#);
    s.criteria_file = Some(bad.display().to_string());
    let (code, message) = err(call_with(s.clone(), "load_review_criteria", "4.2", None).await);
    assert_eq!(code, "invalid_criteria");
    assert!(message.contains("bad.json"), "{message}");

    s.criteria_file = Some("/nonexistent/criteria.csv".into());
    let (code, message) = err(call_with(s, "assess_deviation", "4.2", None).await);
    assert_eq!(code, "not_found");
    assert!(message.contains("/nonexistent/criteria.csv"), "{message}");
}

fn rules(out: &serde_json::Value) -> Vec<(String, String)> {
    out["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[tokio::test]
async fn assess_deviation_names_the_rule_of_each_finding() {
    let fit = ok(call("assess_deviation", "4.1", None).await);
    assert_eq!(fit["severity"], "high");
    assert_eq!(
        rules(&fit),
        pairs(&[
            ("risk_wording_added", "high"),
            ("protection_removed", "high"),
            ("criterion_keyword", "high"),
            ("significant_change", "medium"),
        ])
    );
    assert_eq!(
        fit["findings"][0]["description"],
        "Risk-shifting wording was added: fit for purpose"
    );
    assert_eq!(
        fit["findings"][1]["description"],
        "Protective wording was removed: extension of time, entitled"
    );

    let security = ok(call("assess_deviation", "4.2", None).await);
    assert_eq!(
        rules(&security),
        pairs(&[("time_period_shortened", "high"), ("minor_change", "low")])
    );
    assert_eq!(security["findings"][0]["evidence"], "28 days -> 14 days");

    let payment = ok(call("assess_deviation", "14.7", None).await);
    assert_eq!(
        rules(&payment),
        pairs(&[
            ("significant_change", "medium"),
            ("percentage_changed", "medium"),
            ("criterion_keyword", "medium"),
            ("time_period_extended", "low")
        ])
    );

    assert_eq!(
        rules(&ok(call("assess_deviation", "8.5", None).await)),
        pairs(&[("clause_deleted", "high")])
    );
    assert_eq!(
        rules(&ok(call("assess_deviation", "20.1", None).await)),
        pairs(&[("clause_added", "medium")])
    );

    let clean = ok(call("assess_deviation", "2.1", None).await);
    assert_eq!(clean["severity"], "none");
    assert_eq!(clean["findings"], json!([]));
    assert_eq!(clean["modification_type"], "unmodified");
}

#[tokio::test]
async fn assess_deviation_without_baseline_uses_criteria_only() {
    let out = ok(call_with(
        without(state(), DocumentRole::Baseline),
        "assess_deviation",
        "4.1",
        None,
    )
    .await);
    assert_eq!(out["modification_type"], "no_baseline");
    assert_eq!(out["similarity"], json!(null));
    assert_eq!(rules(&out), pairs(&[("criterion_keyword", "high")]));
}

#[tokio::test]
async fn chinese_contract_end_to_end() {
    let text = "第一条 定义\n“合同价格”是指人民币500万元。\n第二条 付款\n发包人应在收到发票后30天内支付合同价格，保留金为百分之五。\n第三条 违约\n违约责任见第二条及第九条。";
    let mut s = state();
    s.documents = vec![document(DocumentRole::Primary, "合同.md", text)];
    let context = ok(call_with(s.clone(), "get_clause_context", "第二条", None).await);
    assert_eq!(context["title"], "付款");
    assert_eq!(context["defined_terms_used"], json!(["合同价格"]));
    let money = ok(call_with(s.clone(), "extract_financial_terms", "2", None).await);
    assert_eq!(money["payment_period_days"], 30.0);
    assert_eq!(money["retention_percent"], 5.0);
    let refs = ok(call_with(s.clone(), "cross_reference_check", "3", None).await);
    assert_eq!(ids(&refs["references"], "status"), ["resolved", "broken"]);
    let defs = ok(call_with(s, "resolve_definition", "2", None).await);
    assert_eq!(defs["definitions"][0]["definition"], "人民币500万元");
}
