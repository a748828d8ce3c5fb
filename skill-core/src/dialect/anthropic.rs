//! Anthropic Messages: tools as `{name, description, input_schema[, strict]}`, the strict-mode
//! subset and its per-request budget, `tool_use` / `tool_result` blocks.

use serde_json::{json, Map, Value};

use super::lower::*;
use super::DialectError;
use crate::registration::SkillRegistration;

/// The plain Anthropic tool definition.
pub(crate) fn tool(skill: &SkillRegistration, input_schema: Value) -> Value {
    json!({
        "name": skill.wire_name,
        "description": skill.description,
        "input_schema": input_schema,
    })
}

/// A `tool_use` block: the assistant's call as it goes back into the history. The input is
/// always an object (`{}` when the model's arguments were not one).
pub(crate) fn tool_use_block(id: &str, name: &str, input: Value) -> Value {
    let input = match input {
        Value::Object(map) => Value::Object(map),
        _ => Value::Object(Map::new()),
    };
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// A `tool_result` block answering call `id`; `is_error` only when the call failed.
pub(crate) fn tool_result_block(id: &str, content: &str, is_error: bool) -> Value {
    let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": content});
    if is_error {
        block["is_error"] = Value::Bool(true);
    }
    block
}

/// Anthropic strict-mode budget per request.
pub(crate) mod anthropic_limits {
    /// Tools with `strict: true`.
    pub(crate) const MAX_STRICT_TOOLS: usize = 20;
    /// Properties not in `required`, summed over all strict schemas.
    pub(crate) const MAX_OPTIONAL: usize = 24;
    /// Properties with union types (`anyOf`, type arrays), summed over all strict schemas.
    pub(crate) const MAX_UNIONS: usize = 16;
}

pub(crate) fn check_anthropic_budget(
    skills: &[&'static SkillRegistration],
    defs: &[Value],
) -> Result<(), DialectError> {
    use anthropic_limits::*;
    let mut strict_tools = 0;
    let mut optional = 0;
    let mut unions = 0;
    let mut per_tool = Vec::new();
    for (skill, def) in skills.iter().zip(defs) {
        if def.get("strict") != Some(&Value::Bool(true)) {
            continue;
        }
        strict_tools += 1;
        let (o, u) = anthropic_budget(&def["input_schema"]);
        optional += o;
        unions += u;
        per_tool.push(format!("{} ({o} optional, {u} union)", skill.id));
    }
    let mut over = Vec::new();
    if strict_tools > MAX_STRICT_TOOLS {
        over.push(format!(
            "{strict_tools} strict tools (limit {MAX_STRICT_TOOLS})"
        ));
    }
    if optional > MAX_OPTIONAL {
        over.push(format!(
            "{optional} optional parameters (limit {MAX_OPTIONAL})"
        ));
    }
    if unions > MAX_UNIONS {
        over.push(format!(
            "{unions} parameters with union types (limit {MAX_UNIONS})"
        ));
    }
    if over.is_empty() {
        return Ok(());
    }
    Err(DialectError::AnthropicLimits {
        reason: format!("{}; per tool: {}", over.join(", "), per_tool.join(", ")),
    })
}

/// Anthropic strict form: `additionalProperties: false` everywhere, optional properties may
/// stay out of `required` (without a redundant `null`), unsupported keywords moved into the
/// description, no recursion.
pub(crate) fn anthropic_strict(params: &Value) -> Result<Value, Unfit> {
    let mut schema = inline_refs(params)?;
    collapse_const_unions(&mut schema);
    strict_node(&mut schema, "", Flavor::Anthropic)?;
    Ok(schema)
}

/// String formats Anthropic's strict mode accepts.
pub(crate) const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords Anthropic's strict mode accepts.
pub(crate) const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "description",
    "title",
    "pattern",
    "format",
    "minItems",
    "default",
];

/// Optional and union-typed properties of a strict Anthropic schema (what its per-request
/// budget counts).
pub(crate) fn anthropic_budget(schema: &Value) -> (usize, usize) {
    fn walk(node: &Value, optional: &mut usize, unions: &mut usize) {
        match node {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    let required: Vec<&str> = map
                        .get("required")
                        .and_then(Value::as_array)
                        .map(|r| r.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    for (name, prop) in props {
                        if !required.contains(&name.as_str()) {
                            *optional += 1;
                        }
                        if is_union(prop) {
                            *unions += 1;
                        }
                    }
                }
                map.values().for_each(|v| walk(v, optional, unions));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, optional, unions)),
            _ => {}
        }
    }
    let (mut optional, mut unions) = (0, 0);
    walk(schema, &mut optional, &mut unions);
    (optional, unions)
}

/// Whether a property schema is a union (`anyOf` or a type array).
pub(crate) fn is_union(prop: &Value) -> bool {
    prop.get("anyOf").is_some() || prop.get("type").is_some_and(Value::is_array)
}
