//! The tool definitions of the generic skills: valid for every check of toolwright, and
//! snapshotted so any change to what the model sees is reviewed.

use clausewright_skills::generic::GENERIC_SKILL_IDS;
use serde_json::Value;
use toolwright::testing::assert_registry_valid;

#[test]
fn registry_is_valid_and_has_every_generic_skill() {
    let dispatcher = assert_registry_valid();
    for id in GENERIC_SKILL_IDS {
        let reg = dispatcher
            .registration(id)
            .unwrap_or_else(|| panic!("`{id}` is not registered"));
        assert_eq!(reg.domain, "*", "{id}");
        assert!(
            ["analysis", "retrieval", "validation"].contains(&reg.category),
            "{id}: {}",
            reg.category
        );
        let clause = reg
            .param("clause_id")
            .unwrap_or_else(|| panic!("{id} has no clause_id"));
        assert!(
            clause.prepared && !clause.required,
            "{id}: clause_id must be prepared and optional"
        );
        let output = (reg.output_schema)();
        assert!(
            output["properties"].get("summary").is_some(),
            "{id}: output has no summary"
        );
    }
}

#[test]
fn injected_state_never_reaches_the_model() {
    let dispatcher = assert_registry_valid();
    for id in GENERIC_SKILL_IDS {
        let def = dispatcher.registration(id).unwrap().to_tool_definition();
        let props = def["function"]["parameters"]["properties"]
            .as_object()
            .unwrap();
        for hidden in ["review", "index", "state", "document_structure"] {
            assert!(!props.contains_key(hidden), "{id} exposes `{hidden}`");
        }
    }
}

#[test]
fn generic_tool_definitions_snapshot() {
    let dispatcher = assert_registry_valid();
    let definitions: Vec<Value> = GENERIC_SKILL_IDS
        .iter()
        .map(|id| dispatcher.registration(id).unwrap().to_tool_definition())
        .collect();
    insta::assert_json_snapshot!("generic_tool_definitions", definitions);
}

#[test]
fn generic_output_schemas_snapshot() {
    let dispatcher = assert_registry_valid();
    let schemas: serde_json::Map<String, Value> = GENERIC_SKILL_IDS
        .iter()
        .map(|id| {
            (
                id.to_string(),
                (dispatcher.registration(id).unwrap().output_schema)().clone(),
            )
        })
        .collect();
    insta::assert_json_snapshot!("generic_output_schemas", schemas);
}

/// Every linked skill as the model sees it (after the domain modules are merged this
/// snapshot grows with every skill and must be re-accepted then).
#[test]
fn all_tool_definitions_snapshot() {
    let dispatcher = assert_registry_valid();
    let tools = dispatcher.tools(&toolwright::ToolFilter::all());
    insta::assert_json_snapshot!("all_tool_definitions", tools.definitions());
}

#[test]
fn the_seventeen_skills_of_the_library_are_registered() {
    let dispatcher = toolwright::testing::assert_registry_valid();
    let expected = [
        ("get_clause_context", "*"),
        ("resolve_definition", "*"),
        ("compare_with_baseline", "*"),
        ("cross_reference_check", "*"),
        ("extract_financial_terms", "*"),
        ("search_reference_doc", "*"),
        ("load_review_criteria", "*"),
        ("assess_deviation", "*"),
        ("classify_provisions", "*"),
        ("fidic_merge_gc_pc", "fidic"),
        ("fidic_calculate_time_bar", "fidic"),
        ("fidic_check_pc_consistency", "fidic"),
        ("fidic_search_er", "fidic"),
        ("spa_extract_conditions", "sha_spa"),
        ("spa_extract_reps_warranties", "sha_spa"),
        ("spa_indemnity_analysis", "sha_spa"),
        ("sha_governance_check", "sha_spa"),
    ];
    for (id, domain) in expected {
        let reg = dispatcher
            .registration(id)
            .unwrap_or_else(|| panic!("skill `{id}` is not registered"));
        assert_eq!(reg.domain, domain, "{id}");
        assert!(reg.is_active(), "{id}");
    }
    assert_eq!(
        dispatcher.len(),
        expected.len(),
        "no other skills in the library"
    );
    let fidic = dispatcher.tools(&toolwright::ToolFilter::all().domain("fidic"));
    assert_eq!(fidic.len(), 13, "9 universal + 4 FIDIC skills");
}
