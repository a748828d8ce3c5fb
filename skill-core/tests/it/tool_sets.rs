//! Tool sets as the dispatcher hands them out: filtering by explicit ids, serialization as
//! the JSON array of definitions, and the MCP behaviour hints of read-only categories.

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::{Dialect, Skill};

/// Look up a contract party.
#[skill(id = "party.lookup", category = "query")]
fn party_lookup(
    /// Party name.
    name: String,
) -> String {
    name
}

/// Check that a date range is well formed.
#[skill(id = "dates.validate_range", category = "validation")]
fn validate_range(
    /// First day, `YYYY-MM-DD`.
    from: String,
    /// Last day, `YYYY-MM-DD`.
    to: String,
) -> bool {
    from <= to
}

/// Delete a party.
#[skill(id = "party.delete", category = "delete", domain = "crm")]
fn party_delete(
    /// Party id.
    id: String,
) -> String {
    id
}

fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skill(PartyLookup::registration())
        .skill(ValidateRange::registration())
        .skill(PartyDelete::registration())
        .build()
        .unwrap()
}

fn names(set: &toolwright::ToolSet) -> Vec<&'static str> {
    set.names().collect()
}

#[test]
fn an_id_set_keeps_only_those_skills_and_ands_with_domain_and_category() {
    let d = dispatcher();
    let picked = d.tools(&ToolFilter::all().ids(["party.lookup", "party.delete"]));
    assert_eq!(names(&picked), ["party_delete", "party_lookup"]);
    let crm_only = d.tools(
        &ToolFilter::all()
            .ids(["party.lookup", "party.delete"])
            .domain("crm"),
    );
    assert_eq!(
        names(&crm_only),
        ["party_delete", "party_lookup"],
        "universal and crm"
    );
    let queries = d.tools(
        &ToolFilter::all()
            .ids(["party.lookup", "party.delete"])
            .category("query"),
    );
    assert_eq!(names(&queries), ["party_lookup"]);
    assert!(d
        .tools(&ToolFilter::all().ids(Vec::<String>::new()))
        .is_empty());
    assert!(d.tools(&ToolFilter::all().ids(["nope"])).is_empty());
    let mcp = d
        .tools_in(
            Dialect::Mcp,
            &ToolFilter::all().ids(["dates.validate_range"]),
        )
        .unwrap();
    assert_eq!(mcp.len(), 1);
    assert_eq!(mcp.dialect(), Dialect::Mcp);
    assert_eq!(mcp[0]["name"], "dates_validate_range");
}

#[test]
fn a_tool_set_serializes_as_the_array_of_definitions() {
    let d = dispatcher();
    let tools = d.tools(&ToolFilter::all());
    let text = serde_json::to_string(&tools).unwrap();
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed, Value::Array(tools.definitions().to_vec()));
    let from_json: Value = serde_json::from_str(tools.json()).unwrap();
    assert_eq!(from_json, parsed, "`json()` is the same array");
    assert_eq!(parsed.as_array().unwrap().len(), 3);
    assert_eq!(parsed[0]["type"], "function");
    assert_eq!(parsed[0]["function"]["name"], "dates_validate_range");
    let again = d.tools(&ToolFilter::all());
    assert!(tools.ptr_eq(&again), "cached");
}

#[test]
fn validation_skills_are_read_only_in_mcp() {
    let d = dispatcher();
    let tools = d.tools_in(Dialect::Mcp, &ToolFilter::all()).unwrap();
    let annotations =
        |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["annotations"].clone();
    let validate = annotations("dates_validate_range");
    assert_eq!(validate["readOnlyHint"], json!(true));
    assert!(validate.get("destructiveHint").is_none());
    assert_eq!(annotations("party_lookup")["readOnlyHint"], json!(true));
    let delete = annotations("party_delete");
    assert_eq!(delete["readOnlyHint"], json!(false));
    assert_eq!(delete["destructiveHint"], json!(true));
}
