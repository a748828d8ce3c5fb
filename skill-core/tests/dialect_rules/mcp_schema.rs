//! Tool definitions validated against the official MCP schema.

use super::*;

/// The MCP schema folder: `TOOLWRIGHT_MCP_SCHEMA_DIR`, else the copy in the repository
/// (`skill-mcp/tests/schema`, see its README), found from any crate that includes this file.
fn mcp_schema_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("TOOLWRIGHT_MCP_SCHEMA_DIR") {
        return Some(PathBuf::from(dir)).filter(|p| p.is_dir());
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .map(|a| a.join("skill-mcp/tests/schema"))
        .find(|p| p.is_dir())
}

/// Validators for `$defs/<definition>` of every schema version in the schema folder.
fn mcp_validators(definition: &str) -> Vec<(String, jsonschema::Validator)> {
    let dir = mcp_schema_dir().expect(
        "MCP schema folder skill-mcp/tests/schema not found (or TOOLWRIGHT_MCP_SCHEMA_DIR is not a folder)",
    );
    let mut validators = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("schema folder readable") {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".schema.json") {
            continue;
        }
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let root = json!({
            "$schema": doc["$schema"],
            "$defs": doc["$defs"],
            "$ref": format!("#/$defs/{definition}"),
        });
        let validator = jsonschema::validator_for(&root).expect("MCP schema compiles");
        validators.push((
            path.file_name().unwrap().to_string_lossy().into_owned(),
            validator,
        ));
    }
    assert!(
        !validators.is_empty(),
        "no *.schema.json in {}",
        dir.display()
    );
    validators
}

fn assert_valid(validators: &[(String, jsonschema::Validator)], what: &str, instance: &Value) {
    for (version, validator) in validators {
        let errors: Vec<String> = validator
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{what} is not a valid MCP object ({version}): {errors:?}\n{instance}"
        );
    }
}

#[test]
fn mcp_tools_validate_against_the_official_schema() {
    let tool = mcp_validators("Tool");
    let list = mcp_validators("ListToolsResult");
    let d = dispatcher();
    let set = d
        .tools_in(Dialect::Mcp, &toolwright::ToolFilter::all())
        .unwrap();
    for def in set.iter() {
        assert_valid(&tool, def["name"].as_str().unwrap(), def);
    }
    // `cacheScope`, `ttlMs` and `resultType` are required from MCP 2026-07-28 on.
    let listing = json!({ "tools": set.definitions(), "cacheScope": "public", "ttlMs": 0, "resultType": "complete" });
    assert_valid(&list, "tools/list result", &listing);
    // The validator really rejects a broken tool.
    let broken = json!({"name": "x", "inputSchema": {"type": "string"}});
    assert!(tool.iter().all(|(_, v)| !v.is_valid(&broken)));
}

#[tokio::test]
async fn mcp_call_results_validate_against_the_official_schema() {
    let validators = mcp_validators("CallToolResult");
    let d = dispatcher();
    let ctx = SkillContext::new().with(toolwright::Confirmed);
    for (request, success) in [
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "crm_search_client", "arguments": {"keyword": "cit"}}}),
            true,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "crm_create_client", "arguments": {"name": "Acme"}}}),
            true,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "crm_search_client", "arguments": {"limit": "x"}}}),
            false,
        ),
    ] {
        let call = Dialect::Mcp.parse_calls(&request).unwrap().remove(0);
        let result = d.dispatch(&call.to_parsed_call(), &ctx).await;
        assert_eq!(result.success, success, "{:?}", result.error);
        let rendered = Dialect::Mcp.render_result(&call, &result, d.registration(&call.name));
        assert_valid(&validators, "CallToolResult", &rendered);
        assert_eq!(rendered["isError"], !success);
        if success {
            assert!(rendered["structuredContent"].is_object());
        }
    }
}
