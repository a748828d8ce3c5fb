//! OpenAI: Chat Completions function tools (plain and strict), Responses API tools, and the
//! strict-mode lowering of the neutral schema.
//!
//! The plain Chat Completions definition is the hot path (every agent turn offers it): it is
//! serialized straight from the cached schema into a JSON fragment once per registration and
//! process, and a tool set is those fragments joined.

use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::{Map, Value};

use super::lower::*;
use super::Dialect;
use crate::registration::SkillRegistration;

/// The one shape of an OpenAI Chat Completions function tool:
/// `{"type": "function", "function": {"name", "description", "parameters"[, "strict"]}}`.
#[derive(Serialize)]
pub(crate) struct ChatTool<'a, P> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a, P>,
}

/// The flat Responses API shape: `{"type": "function", "name", "description", "parameters",
/// "strict"}`.
#[derive(Serialize)]
pub(crate) struct ResponsesTool<'a, P> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    function: Function<'a, P>,
}

#[derive(Serialize)]
struct Function<'a, P> {
    name: &'a str,
    description: &'a str,
    parameters: P,
    #[serde(skip_serializing_if = "Option::is_none")]
    strict: Option<bool>,
}

impl<'a, P: Serialize> ChatTool<'a, P> {
    pub(crate) fn new(skill: &'a SkillRegistration, parameters: P, strict: Option<bool>) -> Self {
        Self {
            kind: "function",
            function: Function {
                name: skill.wire_name,
                description: skill.description,
                parameters,
                strict,
            },
        }
    }
}

impl<'a, P: Serialize> ResponsesTool<'a, P> {
    pub(crate) fn new(skill: &'a SkillRegistration, parameters: P, strict: bool) -> Self {
        Self {
            kind: "function",
            function: Function {
                name: skill.wire_name,
                description: skill.description,
                parameters,
                strict: Some(strict),
            },
        }
    }
}

/// The plain Chat Completions definition as JSON text, rendered once per registration for
/// the life of the process and shared by every dispatcher.
pub(crate) fn chat_fragment(skill: &'static SkillRegistration) -> Arc<str> {
    super::fragment(Dialect::OpenAi, skill, || {
        serde_json::to_string(&ChatTool::new(skill, NeutralParameters::of(skill), None))
            .expect("a JSON schema always serializes")
    })
}

/// The neutral `parameters` object borrowed from the cached input schema (no clone).
#[derive(Serialize)]
pub(crate) struct NeutralParameters<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    properties: &'a Value,
    required: &'a Value,
    #[serde(rename = "$defs", skip_serializing_if = "Option::is_none")]
    defs: Option<&'a Value>,
}

static EMPTY_OBJECT: OnceLock<Value> = OnceLock::new();
static EMPTY_ARRAY: OnceLock<Value> = OnceLock::new();

impl NeutralParameters<'static> {
    pub(crate) fn of(skill: &SkillRegistration) -> Self {
        let schema: &'static Value = (skill.input_schema)();
        Self {
            kind: "object",
            properties: schema
                .get("properties")
                .unwrap_or_else(|| EMPTY_OBJECT.get_or_init(|| Value::Object(Map::new()))),
            required: schema
                .get("required")
                .unwrap_or_else(|| EMPTY_ARRAY.get_or_init(|| Value::Array(Vec::new()))),
            defs: schema.get("$defs"),
        }
    }
}

/// Keywords OpenAI's strict mode accepts.
pub(crate) const OPENAI_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
    "$ref",
    "$defs",
];

/// String formats OpenAI's strict mode accepts.
pub(crate) const OPENAI_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// OpenAI strict-mode limits.
pub(crate) mod openai_limits {
    /// Object properties in one schema.
    pub(crate) const MAX_PROPERTIES: usize = 5000;
    /// Nesting levels of objects.
    pub(crate) const MAX_NESTING: usize = 10;
    /// Enum values in one schema.
    pub(crate) const MAX_ENUM_VALUES: usize = 1000;
    /// Characters of property names, definition names, enum and const values.
    pub(crate) const MAX_STRING_BUDGET: usize = 120_000;
}

/// OpenAI strict form: `additionalProperties: false` and every property required on every
/// object, optionals as `null` unions, only supported keywords, limits checked. Recursive
/// definitions stay in `$defs` (OpenAI allows them), other `$ref`s are inlined.
pub(crate) fn openai_strict(params: &Value) -> Result<Value, Unfit> {
    let mut schema = match inline_refs(params) {
        Ok(inlined) => inlined,
        Err(Unfit::Recursive(_)) => {
            let mut kept = params.clone();
            strip_ref_siblings(&mut kept);
            kept
        }
        Err(other) => return Err(other),
    };
    collapse_const_unions(&mut schema);
    strict_node(&mut schema, "", Flavor::OpenAi)?;
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            strict_node(def, &format!("/$defs/{name}"), Flavor::OpenAi)?;
        }
    }
    check_openai_limits(&schema)?;
    Ok(schema)
}

/// Counts against OpenAI's strict limits.
pub(crate) fn check_openai_limits(schema: &Value) -> Result<(), Unfit> {
    #[derive(Default)]
    struct Tally {
        properties: usize,
        enum_values: usize,
        budget: usize,
        depth: usize,
    }
    fn walk(node: &Value, depth: usize, t: &mut Tally) {
        match node {
            Value::Object(map) => {
                let mut depth = depth;
                if let Some(Value::Object(props)) = map.get("properties") {
                    depth += 1;
                    t.depth = t.depth.max(depth);
                    t.properties += props.len();
                    t.budget += props.keys().map(String::len).sum::<usize>();
                }
                if let Some(Value::Object(defs)) = map.get("$defs") {
                    t.budget += defs.keys().map(String::len).sum::<usize>();
                }
                if let Some(Value::Array(values)) = map.get("enum") {
                    t.enum_values += values.len();
                    t.budget += values
                        .iter()
                        .map(|v| v.as_str().map_or(0, str::len))
                        .sum::<usize>();
                }
                if let Some(Value::String(c)) = map.get("const") {
                    t.budget += c.len();
                }
                for (k, v) in map {
                    if k != "enum" && k != "const" {
                        walk(v, depth, t);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, depth, t)),
            _ => {}
        }
    }
    use openai_limits::*;
    let mut t = Tally::default();
    walk(schema, 0, &mut t);
    if t.properties > MAX_PROPERTIES {
        return Err(unsupported(
            "",
            format!(
                "{} properties exceed the limit of {MAX_PROPERTIES}",
                t.properties
            ),
        ));
    }
    if t.depth > MAX_NESTING {
        return Err(unsupported(
            "",
            format!(
                "{} levels of nesting exceed the limit of {MAX_NESTING}",
                t.depth
            ),
        ));
    }
    if t.enum_values > MAX_ENUM_VALUES {
        return Err(unsupported(
            "",
            format!(
                "{} enum values exceed the limit of {MAX_ENUM_VALUES}",
                t.enum_values
            ),
        ));
    }
    if t.budget > MAX_STRING_BUDGET {
        return Err(unsupported(
            "",
            format!(
                "{} characters of names and enum values exceed the limit of {MAX_STRING_BUDGET}",
                t.budget
            ),
        ));
    }
    Ok(())
}
