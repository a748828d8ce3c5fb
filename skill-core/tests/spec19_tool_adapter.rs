//! SPEC-19 section 7 ported: `to_tool_definition` (7.1.1), `skills_to_tool_definitions`
//! (7.1.2), `parse_tool_calls` (7.1.3), argument preparation (7.2) and the dispatcher's
//! tool definitions (7.3).
//!
//! A binary of its own: it reads the whole link-time registry (`linked_skills`,
//! `Dispatcher::from_inventory`) and asserts its tool definitions.

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::{
    parse_tool_calls, skills_to_tool_definitions, Dispatcher, SkillRegistration, ToolFilter,
};

/// Host state the skills read; the SPEC's `document_structure` / `state_snapshot`.
#[derive(Debug, Default)]
pub struct DocumentStructure {
    clauses: Vec<(String, String)>,
}

fn clause_text(ctx: &SkillContext, scope: &PrepareScope) -> Result<String, SkillError> {
    let doc = ctx
        .get::<DocumentStructure>()
        .ok_or_else(|| SkillError::not_found("no document"))?;
    let id = scope.str_argument("clause_id").unwrap_or_default();
    doc.clauses
        .iter()
        .find(|(cid, _)| *cid == id)
        .map(|(_, text)| text.clone())
        .ok_or_else(|| SkillError::not_found(format!("clause {id} not found")))
}

/// Test skill with the SPEC's DummyInput fields.
#[skill(id = "test_skill", name = "测试技能")]
fn test_skill(
    /// Clause number.
    clause_id: String,
    /// Free-text query.
    #[arg(default)]
    query: String,
    /// How many results.
    #[arg(default = 5)]
    top_k: u32,
    document_structure: Inject<DocumentStructure>,
    state_snapshot: &SkillContext,
) -> Value {
    let _ = (&document_structure, state_snapshot);
    json!({ "clause_id": clause_id, "query": query, "top_k": top_k })
}

/// A skill without any argument.
#[skill(id = "no_input")]
fn no_input() -> &'static str {
    "done"
}

/// Generic skill a.
#[skill(id = "a", category = "analysis")]
fn skill_a() -> u8 {
    1
}

/// Generic skill b.
#[skill(id = "b", category = "validation")]
fn skill_b() -> u8 {
    2
}

/// A FIDIC-only skill.
#[skill(id = "fidic_only", domain = "fidic")]
fn fidic_only() -> u8 {
    3
}

/// An SHA/SPA-only skill.
#[skill(id = "sha_only", domain = "sha_spa")]
fn sha_only() -> u8 {
    4
}

/// A disabled skill.
#[skill(id = "disabled_one", status = "disabled")]
fn disabled_one() -> u8 {
    5
}

/// Returns the clause text, prepared from the document when the model leaves it out.
#[skill(id = "clause_text")]
fn clause_text_skill(
    /// Clause number.
    clause_id: String,
    /// The clause's text.
    #[arg(prepare = clause_text, default = String::from("(no text)"))]
    text: String,
) -> String {
    format!("{clause_id}: {text}")
}

fn reg(id: &str) -> &'static SkillRegistration {
    toolwright::linked_skills()
        .find(|r| r.id == id)
        .expect("linked")
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect()
}

// ---- 7.1.1 to_tool_definition -------------------------------------------------------------

#[test]
fn basic_structure() {
    let def = reg("test_skill").to_tool_definition();
    assert_eq!(def["type"], "function");
    assert_eq!(def["function"]["name"], "test_skill");
    assert_eq!(
        def["function"]["description"],
        "Test skill with the SPEC's DummyInput fields."
    );
    assert_eq!(def["function"]["parameters"]["type"], "object");
    assert_eq!(reg("test_skill").name, "测试技能");
}

#[test]
fn internal_fields_excluded() {
    let def = reg("test_skill").to_tool_definition();
    let props = def["function"]["parameters"]["properties"]
        .as_object()
        .unwrap();
    assert!(
        props.contains_key("clause_id")
            && props.contains_key("query")
            && props.contains_key("top_k")
    );
    assert!(!props.contains_key("document_structure"));
    assert!(!props.contains_key("state_snapshot"));
}

#[test]
fn required_fields_correct() {
    let def = reg("test_skill").to_tool_definition();
    assert_eq!(
        def["function"]["parameters"]["required"],
        json!(["clause_id"])
    );
}

#[test]
fn no_input_schema() {
    let params = &reg("no_input").to_tool_definition()["function"]["parameters"];
    assert_eq!(params["properties"], json!({}));
    assert_eq!(params["required"], json!([]));
}

// ---- 7.1.2 skills_to_tool_definitions -----------------------------------------------------

#[test]
fn basic_conversion() {
    let tools = skills_to_tool_definitions([reg("a"), reg("b")], &ToolFilter::all());
    assert_eq!(names(&tools), ["a", "b"]);
}

#[test]
fn inactive_skill_excluded() {
    let tools = skills_to_tool_definitions([reg("a"), reg("disabled_one")], &ToolFilter::all());
    assert_eq!(names(&tools), ["a"]);
}

#[test]
fn domain_filter() {
    let tools = skills_to_tool_definitions(
        [reg("a"), reg("fidic_only"), reg("sha_only")],
        &ToolFilter::all().domain("fidic"),
    );
    assert_eq!(names(&tools), ["a", "fidic_only"]);
}

#[test]
fn category_filter() {
    let tools = skills_to_tool_definitions(
        [reg("a"), reg("b")],
        &ToolFilter::all().category("validation"),
    );
    assert_eq!(names(&tools), ["b"]);
}

#[test]
fn excluded_fields_stripped() {
    let filter = ToolFilter::all()
        .exclude_field("query")
        .exclude_field("clause_id");
    let tools = skills_to_tool_definitions([reg("test_skill")], &filter);
    let params = &tools[0]["function"]["parameters"];
    assert_eq!(
        params["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["top_k"]
    );
    assert_eq!(params["required"], json!([]));
}

#[test]
fn empty_input() {
    assert!(skills_to_tool_definitions([], &ToolFilter::all()).is_empty());
}

// ---- 7.1.3 parse_tool_calls -----------------------------------------------------------------

#[test]
fn basic_parsing() {
    let parsed = parse_tool_calls(&[json!({
        "id": "call_001",
        "function": {"name": "compare_with_baseline", "arguments": "{\"clause_id\": \"4.1\", \"baseline_text\": \"原文\"}"}
    })]);
    assert_eq!(parsed.len(), 1);
    assert_eq!(parsed[0].id, "call_001");
    assert_eq!(parsed[0].skill_id, "compare_with_baseline");
    assert_eq!(parsed[0].argument("clause_id"), Some(json!("4.1")));
    assert_eq!(parsed[0].argument("baseline_text"), Some(json!("原文")));
    assert!(parsed[0].warnings.is_empty());
}

#[test]
fn multiple_tool_calls() {
    let parsed = parse_tool_calls(&[
        json!({"id": "call_001", "function": {"name": "skill_a", "arguments": "{}"}}),
        json!({"id": "call_002", "function": {"name": "skill_b", "arguments": "{\"x\": 1}"}}),
    ]);
    assert_eq!(parsed.len(), 2);
    assert_eq!(parsed[0].skill_id, "skill_a");
    assert_eq!(parsed[1].argument("x"), Some(json!(1)));
}

#[test]
fn invalid_json_arguments() {
    let parsed = parse_tool_calls(&[
        json!({"id": "call_001", "function": {"name": "skill_a", "arguments": "not json"}}),
    ]);
    assert_eq!(parsed[0].arguments_value(), json!({}));
    assert_eq!(parsed[0].warnings.len(), 1, "the failure is recorded");
    assert_eq!(parsed[0].warnings[0].code, "invalid_json_arguments");
    assert_eq!(parsed[0].warnings[0].raw, json!("not json"));
}

#[test]
fn non_object_arguments() {
    let parsed = parse_tool_calls(&[
        json!({"id": "c", "function": {"name": "skill_a", "arguments": "[1, 2]"}}),
    ]);
    assert_eq!(parsed[0].arguments_value(), json!({}));
    assert_eq!(parsed[0].warnings[0].code, "arguments_not_object");
}

#[test]
fn dict_arguments() {
    let parsed = parse_tool_calls(&[
        json!({"id": "call_001", "function": {"name": "skill_a", "arguments": {"key": "val"}}}),
    ]);
    assert_eq!(parsed[0].argument("key"), Some(json!("val")));
}

#[test]
fn empty_tool_calls() {
    assert!(parse_tool_calls(&[]).is_empty());
}

#[test]
fn missing_fields_graceful() {
    let parsed = parse_tool_calls(&[
        json!({"function": {"name": "skill_a", "arguments": "{}"}}),
        json!({}),
    ]);
    assert_eq!(parsed[0].id, "");
    assert_eq!(parsed[0].skill_id, "skill_a");
    assert_eq!(parsed[1].skill_id, "");
    assert_eq!(parsed[1].arguments_value(), json!({}));
}

// ---- 7.2 argument preparation ---------------------------------------------------------------

fn ctx() -> SkillContext {
    SkillContext::new().with(DocumentStructure {
        clauses: vec![(
            "4.1".into(),
            "The Contractor shall design the Works.".into(),
        )],
    })
}

#[tokio::test]
async fn prepared_value_takes_priority_over_default() {
    let d = Dispatcher::from_inventory().unwrap();
    let r = d
        .prepare_and_call("clause_text", &ctx(), Some(&json!({"clause_id": "4.1"})))
        .await;
    assert_eq!(
        r.data_as::<String>().unwrap(),
        "4.1: The Contractor shall design the Works."
    );
}

#[tokio::test]
async fn default_when_nothing_is_prepared() {
    let d = Dispatcher::from_inventory().unwrap();
    let r = d
        .call_unprepared("clause_text", r#"{"clause_id": "4.1"}"#, &ctx())
        .await;
    assert_eq!(
        r.data_as::<String>().unwrap(),
        "4.1: (no text)",
        "call_unprepared() never prepares"
    );
}

#[tokio::test]
async fn default_when_preparing_fails() {
    let d = Dispatcher::from_inventory().unwrap();
    let r = d
        .prepare_and_call("clause_text", &ctx(), Some(&json!({"clause_id": "9.9"})))
        .await;
    assert_eq!(r.data_as::<String>().unwrap(), "9.9: (no text)");
    let r = d
        .prepare_and_call(
            "clause_text",
            &SkillContext::new(),
            Some(&json!({"clause_id": "4.1"})),
        )
        .await;
    assert_eq!(
        r.data_as::<String>().unwrap(),
        "4.1: (no text)",
        "no document at all"
    );
}

#[tokio::test]
async fn model_arguments_win() {
    let d = Dispatcher::from_inventory().unwrap();
    let r = d
        .prepare_and_call(
            "clause_text",
            &ctx(),
            Some(&json!({"clause_id": "4.1", "text": "given"})),
        )
        .await;
    assert_eq!(r.data_as::<String>().unwrap(), "4.1: given");
}

// ---- 7.3 dispatcher tool definitions ------------------------------------------------------

#[test]
fn get_all_tool_definitions() {
    let d = Dispatcher::from_inventory().unwrap();
    let tools = d.tools(&ToolFilter::all());
    assert!(!tools.is_empty());
    for tool in tools.iter() {
        assert_eq!(tool["type"], "function");
        assert!(tool["function"]["name"].is_string());
        assert!(!tool["function"]["description"].as_str().unwrap().is_empty());
        assert!(tool["function"]["parameters"].is_object());
    }
    assert_eq!(
        names(&tools),
        [
            "a",
            "b",
            "clause_text",
            "fidic_only",
            "no_input",
            "sha_only",
            "test_skill"
        ],
        "sorted by id, disabled left out"
    );
}

#[test]
fn tool_definitions_with_domain_filter() {
    let d = Dispatcher::from_inventory().unwrap();
    let tools = d.tools(&ToolFilter::all().domain("fidic"));
    let names = names(&tools);
    assert!(names.contains(&"a") && names.contains(&"fidic_only"));
    assert!(!names.contains(&"sha_only"));
}

#[test]
fn tool_definitions_names_match_skill_ids() {
    let d = Dispatcher::from_inventory().unwrap();
    let tools = d.tools(&ToolFilter::all());
    let tool_names = names(&tools);
    for id in d.skill_ids() {
        if d.registration(id).unwrap().is_active() {
            assert!(
                tool_names.contains(&id),
                "skill `{id}` missing from the definitions"
            );
        }
    }
}

#[test]
fn tool_definitions_passable_to_llm_client() {
    let d = Dispatcher::from_inventory().unwrap();
    for tool in d.tools(&ToolFilter::all()).iter() {
        let params = &tool["function"]["parameters"];
        assert_eq!(params["type"], "object");
        assert!(params["properties"].is_object());
        assert!(params["required"].is_array());
    }
}

#[test]
fn definitions_are_cached_per_filter() {
    let d = Dispatcher::from_inventory().unwrap();
    let first = d.tools(&ToolFilter::all().domain("fidic"));
    let second = d.tools(&ToolFilter::all().domain("fidic"));
    assert!(first.ptr_eq(&second));
    let reparsed: Vec<Value> = serde_json::from_str(first.json()).unwrap();
    assert_eq!(reparsed, first.definitions());
    assert_eq!(first.len(), 6, "five universal skills and fidic_only");
}

#[test]
fn registry_is_valid() {
    toolwright::testing::assert_registry_valid();
}

#[test]
fn cached_json_matches_the_value_rendering() {
    let d = Dispatcher::from_inventory().unwrap();
    for skill in toolwright::linked_skills().filter(|s| s.is_active()) {
        // The cached set of one skill is its pre-rendered JSON fragment.
        let one = d.tools(&ToolFilter::all().ids([skill.id]));
        let from_json: Vec<Value> = serde_json::from_str(one.json()).unwrap();
        assert_eq!(from_json, vec![skill.to_tool_definition()], "{}", skill.id);
    }
    let with_exclusions = d.tools(&ToolFilter::all().exclude_field("query"));
    let parsed: Vec<Value> = serde_json::from_str(with_exclusions.json()).unwrap();
    assert_eq!(parsed, with_exclusions.definitions());
}

#[test]
fn definitions_snapshot() {
    let d = Dispatcher::from_inventory().unwrap();
    insta::assert_json_snapshot!(
        "tool_definitions",
        d.tools(&ToolFilter::all()).definitions()
    );
}
