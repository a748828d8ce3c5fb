//! MCP: tools with `inputSchema`, an object-rooted `outputSchema` and behaviour
//! `annotations` derived from the category.

use serde_json::{json, Map, Value};

use super::lower::{explicit_any_schemas, split_type_arrays};
use crate::outcome::Outcome;
use crate::registration::SkillRegistration;
use crate::result::SkillResult;

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

/// A skill result as an MCP `tools/call` result, built in this one place for the MCP
/// dialect's renderer and the MCP server alike: on success `structuredContent` shaped like
/// the tool's `outputSchema` and its serialization as text; on failure `isError` with text
/// the model can act on (each argument problem with path, expected and got) and the typed
/// outcome in `_meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct McpCallResult {
    /// The one text content block.
    pub text: String,
    /// `structuredContent` (success only).
    pub structured: Option<Value>,
    /// `isError`.
    pub is_error: bool,
    /// `_meta`: [`Self::META_WARNINGS`], [`Self::META_ERROR`], [`Self::META_PENDING`] as
    /// they apply.
    pub meta: Map<String, Value>,
}

impl McpCallResult {
    /// `_meta` key of the argument fixes the lenient parser applied.
    pub const META_WARNINGS: &str = "toolwright/warnings";
    /// `_meta` key of a failed call's code and, for invalid arguments, its problems (for a
    /// time-out, its limit).
    pub const META_ERROR: &str = "toolwright/error";
    /// `_meta` key of a call that waits for the user's confirmation.
    pub const META_PENDING: &str = "toolwright/pendingConfirmation";

    /// The MCP answer to `result`; `skill` (when known) decides the `structuredContent`
    /// wrapping, matching the `outputSchema` the tool was listed with.
    pub fn of(result: &SkillResult, skill: Option<&SkillRegistration>) -> Self {
        let mut meta = Map::new();
        if !result.warnings.is_empty() {
            meta.insert(
                Self::META_WARNINGS.into(),
                serde_json::to_value(&result.warnings).unwrap_or(Value::Null),
            );
        }
        if result.success {
            let structured = mcp_structured_content(skill, result.data_value());
            return Self {
                text: structured.to_string(),
                structured: Some(structured),
                is_error: false,
                meta,
            };
        }
        let Some(error) = &result.error else {
            return Self {
                text: "the call failed".into(),
                structured: None,
                is_error: true,
                meta,
            };
        };
        let mut text = format!("{}: {}", error.code, error.message);
        let mut error_meta = Map::new();
        error_meta.insert("code".into(), Value::String(error.code.to_string()));
        match error.outcome.as_deref() {
            Some(Outcome::InvalidArguments(problems)) => {
                for p in problems {
                    text.push_str(&format!(
                        "\n- at {}: expected {}, got {}",
                        p.path, p.expected, p.raw
                    ));
                }
                let problems = problems
                    .iter()
                    .map(|p| {
                        json!({
                            "path": p.path,
                            "expected": p.expected,
                            "got": p.raw,
                            "message": p.message,
                        })
                    })
                    .collect();
                error_meta.insert("problems".into(), Value::Array(problems));
            }
            Some(Outcome::TimedOut { limit_ms }) => {
                error_meta.insert("timeout_ms".into(), Value::from(*limit_ms));
            }
            Some(Outcome::AwaitingConfirmation(pending)) => {
                meta.insert(
                    Self::META_PENDING.into(),
                    serde_json::to_value(pending).unwrap_or(Value::Null),
                );
            }
            None => {}
        }
        meta.insert(Self::META_ERROR.into(), Value::Object(error_meta));
        Self {
            text,
            structured: None,
            is_error: true,
            meta,
        }
    }

    /// The JSON of the result (`resultType` `complete`), as the MCP dialect renders it.
    pub fn to_value(&self) -> Value {
        let mut answer = json!({
            "content": [{ "type": "text", "text": self.text }],
            "isError": self.is_error,
            "resultType": "complete",
        });
        if let Some(structured) = &self.structured {
            answer["structuredContent"] = structured.clone();
        }
        if !self.meta.is_empty() {
            answer["_meta"] = Value::Object(self.meta.clone());
        }
        answer
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
