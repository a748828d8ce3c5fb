//! MCP: tools with `inputSchema`, an object-rooted `outputSchema` and behaviour
//! `annotations` derived from the category.

use serde_json::{json, Map, Value};

use super::lower::{explicit_any_schemas, split_type_arrays};
use crate::registration::SkillRegistration;

/// MCP behaviour hints derived from the category (seed 004): `query`/`stats`, `validation`
/// and analysis kinds read only; `delete` and `update` are destructive, `create` only adds.
pub(crate) fn mcp_annotations(skill: &SkillRegistration) -> Value {
    let category = skill.category;
    let read_only = matches!(
        category,
        "query" | "stats" | "analysis" | "retrieval" | "search" | "report" | "validation"
    ) || category.starts_with("analysis");
    let mut a = Map::new();
    a.insert("title".into(), Value::String(skill.name.to_string()));
    a.insert("readOnlyHint".into(), Value::Bool(read_only));
    if !read_only {
        let destructive = match category {
            "delete" | "update" => Some(true),
            "create" | "ui" => Some(false),
            _ => None,
        };
        if let Some(d) = destructive {
            a.insert("destructiveHint".into(), Value::Bool(d));
        }
        if let Some(idempotent) = skill.idempotent {
            a.insert("idempotentHint".into(), Value::Bool(idempotent));
        }
    }
    a.insert(
        "openWorldHint".into(),
        Value::Bool(skill.open_world.unwrap_or(false)),
    );
    Value::Object(a)
}

/// The MCP `outputSchema` (object-rooted, as MCP 2025-11-25 requires): an object output as
/// is, any other output wrapped as `{"result": ...}` — the same wrapping
/// [`calls::render_result`] applies to `structuredContent`.
pub(crate) fn mcp_output_schema(skill: &SkillRegistration) -> Value {
    let mut schema = (skill.output_schema)().clone();
    if is_object_schema(&schema) {
        if let Value::Object(map) = &mut schema {
            map.insert("type".into(), json!("object"));
        }
        return schema;
    }
    let defs = schema.as_object_mut().and_then(|m| m.remove("$defs"));
    if let Value::Object(map) = &mut schema {
        map.remove("title");
    }
    let mut wrapped = json!({
        "type": "object",
        "properties": { "result": schema },
        "required": ["result"],
    });
    if let Some(defs) = defs {
        wrapped["$defs"] = defs;
    }
    wrapped
}

/// A skill's output as MCP `structuredContent`: an object output as is, anything else
/// wrapped as `{"result": ...}`, matching the `outputSchema` the tool is listed with.
/// Without the skill, only the value's own shape decides.
pub fn mcp_structured_content(skill: Option<&SkillRegistration>, data: Value) -> Value {
    let object_output = skill.map_or(data.is_object(), |s| is_object_schema((s.output_schema)()));
    if object_output && data.is_object() {
        data
    } else {
        json!({ "result": data })
    }
}

/// Whether an output schema is an object at the root (so output goes to
/// `structuredContent` unwrapped).
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object")) && schema.get("properties").is_some()
}

/// The MCP tool of a skill. Multi-type `type`s (nullable fields) are written as `anyOf`
/// branches and schemas that accept anything say so, the forms MCP clients' schema checks
/// accept without warnings.
pub(crate) fn mcp_tool(skill: &SkillRegistration, mut params: Value) -> Value {
    let mut output = mcp_output_schema(skill);
    for schema in [&mut params, &mut output] {
        explicit_any_schemas(schema);
        split_type_arrays(schema);
    }
    json!({
        "name": skill.wire_name,
        "title": skill.name,
        "description": skill.description,
        "inputSchema": params,
        "outputSchema": output,
        "annotations": mcp_annotations(skill),
    })
}

/// The MCP tool of a skill with nothing hidden, as JSON text rendered once per process.
pub(crate) fn mcp_fragment(skill: &'static SkillRegistration) -> std::sync::Arc<str> {
    super::fragment(super::Dialect::Mcp, skill, || {
        mcp_tool(skill, super::lower::neutral_parameters(skill, &[])).to_string()
    })
}
