//! Every provider rule of the reference notes, asserted on every registered skill in every
//! dialect; MCP tools and results validated against the official MCP JSON schema; tool calls
//! and results read and written in each dialect.
//!
//! The checks here are written independently of the renderers: they restate each provider's
//! documented constraints, so a renderer bug cannot hide behind its own logic.
//!
//! A binary of its own: it asserts every rule on every skill of the link-time registry, and
//! the root crate's binary mounts this file again over the review library's skills.

#[path = "../common/dialect_examples.rs"]
mod examples;

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::{Dialect, DialectError, Dispatcher, SkillRegistration};

mod calls;
mod every_skill;
mod mcp_schema;

/// Report a wide search (many optional parameters, to exceed Anthropic's strict budget).
#[skill(id = "report.wide_search", domain = "report", category = "query")]
#[allow(clippy::too_many_arguments)]
fn wide_search(
    /// Field a.
    a: Option<String>,
    /// Field b.
    b: Option<String>,
    /// Field c.
    c: Option<String>,
    /// Field d.
    d: Option<String>,
    /// Field e.
    e: Option<String>,
    /// Field f.
    f: Option<String>,
    /// Field g.
    g: Option<String>,
    /// Field h.
    h: Option<String>,
    /// Field i.
    i: Option<String>,
    /// Field j.
    j: Option<String>,
    /// Field k.
    k: Option<String>,
    /// Field l.
    l: Option<String>,
    /// Field m.
    m: Option<String>,
) -> usize {
    [a, b, c, d, e, f, g, h, i, j, k, l, m]
        .iter()
        .flatten()
        .count()
}

/// Summarise with bounded text lengths and a free-form payload.
#[skill(id = "report.summarise", domain = "report", category = "analysis")]
fn summarise(
    /// Text to summarise.
    text: String,
    /// Extra data, any JSON.
    payload: Option<Value>,
) -> String {
    format!("{} {}", text.len(), payload.is_some())
}

fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("registry is valid")
}

fn active_skills(d: &Dispatcher) -> Vec<&'static SkillRegistration> {
    d.list_skills()
        .iter()
        .copied()
        .filter(|s| s.is_active())
        .collect()
}

// ---- independent rule checkers ---------------------------------------------------------

fn name_matches(
    name: &str,
    first: impl Fn(char) -> bool,
    rest: impl Fn(char) -> bool,
    max: usize,
) -> bool {
    let mut chars = name.chars();
    !name.is_empty() && name.len() <= max && chars.next().is_some_and(first) && chars.all(rest)
}

fn openai_name(name: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    name_matches(name, ok, ok, 64)
}

fn gemini_name(name: &str) -> bool {
    name_matches(
        name,
        |c| c.is_ascii_alphabetic() || c == '_',
        |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'),
        128,
    )
}

fn mcp_name(name: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    name_matches(name, ok, ok, 128)
}

/// Visits every schema node (properties, items, anyOf, $defs ...), with its JSON pointer.
fn each_schema_node<'a>(node: &'a Value, pointer: String, out: &mut Vec<(String, &'a Value)>) {
    let Value::Object(map) = node else { return };
    out.push((pointer.clone(), node));
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(children)) = map.get(key) {
            for (name, child) in children {
                each_schema_node(child, format!("{pointer}/{key}/{name}"), out);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child @ Value::Object(_)) = map.get(key) {
            each_schema_node(child, format!("{pointer}/{key}"), out);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(options)) = map.get(key) {
            for (i, child) in options.iter().enumerate() {
                each_schema_node(child, format!("{pointer}/{key}/{i}"), out);
            }
        }
    }
}

fn nodes(schema: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    each_schema_node(schema, String::new(), &mut out);
    out
}

fn is_object_node(node: &Value) -> bool {
    node.get("properties").is_some()
        || node.get("type") == Some(&json!("object"))
        || node
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.contains(&json!("object")))
}

fn key_set(value: Option<&Value>) -> BTreeSet<String> {
    match value {
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => BTreeSet::new(),
    }
}

fn accepts_null(node: &Value) -> bool {
    node.get("type")
        .and_then(Value::as_array)
        .is_some_and(|t| t.contains(&json!("null")))
        || node
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|o| o.iter().any(|x| x.get("type") == Some(&json!("null"))))
}

/// Whether the neutral schema has something strict modes cannot carry (free-form maps or
/// untyped values) — the only reason a strict dialect may send `strict: false`.
fn has_open_or_untyped(schema: &Value) -> bool {
    nodes(schema).iter().any(|(_, n)| {
        let open_map = is_object_node(n)
            && key_set(n.get("properties")).is_empty()
            && !matches!(
                n.get("additionalProperties"),
                Some(Value::Bool(false)) | None
            );
        let untyped = n.as_object().is_some_and(|m| {
            !["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"]
                .iter()
                .any(|k| m.contains_key(*k))
        });
        open_map || untyped
    }) || schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.values().any(|v| v == &json!(true)))
}

const OPENAI_STRICT_KEYS: &[&str] = &[
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
const OPENAI_FORMATS: &[&str] = &[
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

fn assert_openai_strict(tool: &str, schema: &Value, neutral: &Value) {
    assert_eq!(schema["type"], "object", "{tool}: root is an object");
    assert!(schema.get("anyOf").is_none(), "{tool}: root is not anyOf");
    let (mut properties, mut enum_values) = (0, 0);
    for (pointer, node) in nodes(schema) {
        for key in node.as_object().unwrap().keys() {
            assert!(
                OPENAI_STRICT_KEYS.contains(&key.as_str()),
                "{tool}{pointer}: keyword `{key}` is not supported in strict mode"
            );
        }
        if let Some(f) = node.get("format").and_then(Value::as_str) {
            assert!(OPENAI_FORMATS.contains(&f), "{tool}{pointer}: format `{f}`");
        }
        if let Some(r) = node.get("$ref") {
            assert_eq!(
                node.as_object().unwrap().len(),
                1,
                "{tool}{pointer}: `$ref` has no siblings"
            );
            let name = r
                .as_str()
                .unwrap()
                .strip_prefix("#/$defs/")
                .expect("top-level definition");
            assert!(
                schema["$defs"].get(name).is_some(),
                "{tool}{pointer}: `$ref` resolves"
            );
        }
        if is_object_node(node) {
            assert_eq!(
                node.get("additionalProperties"),
                Some(&json!(false)),
                "{tool}{pointer}: additionalProperties:false"
            );
            assert!(
                node.get("required").is_some_and(Value::is_array),
                "{tool}{pointer}: `required` present"
            );
            assert_eq!(
                key_set(node.get("required")),
                key_set(node.get("properties")),
                "{tool}{pointer}: every property required"
            );
            properties += key_set(node.get("properties")).len();
        }
        if node.get("type") == Some(&json!("array"))
            || node
                .get("type")
                .and_then(Value::as_array)
                .is_some_and(|t| t.contains(&json!("array")))
        {
            assert!(
                node.get("items").is_some_and(Value::is_object),
                "{tool}{pointer}: arrays type their items"
            );
        }
        enum_values += node
            .get("enum")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
    }
    assert!(properties <= 5000 && enum_values <= 1000, "{tool}: limits");
    // Optional parameters are required-but-nullable.
    let required = key_set(neutral.get("required"));
    for (name, prop) in schema["properties"].as_object().unwrap() {
        if !required.contains(name) {
            assert!(
                accepts_null(prop)
                    || prop.get("$ref").is_none()
                        && prop
                            .get("enum")
                            .is_some_and(|e| e.as_array().unwrap().contains(&Value::Null)),
                "{tool}: optional `{name}` accepts null: {prop}"
            );
        }
    }
}

const ANTHROPIC_STRICT_BANNED: &[&str] = &[
    "minimum",
    "maximum",
    "multipleOf",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "maxItems",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
];
const ANTHROPIC_FORMATS: &[&str] = &[
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

fn assert_anthropic_strict(tool: &str, schema: &Value) -> (usize, usize) {
    assert_eq!(schema["type"], "object");
    let (mut optional, mut unions) = (0, 0);
    for (pointer, node) in nodes(schema) {
        for key in node.as_object().unwrap().keys() {
            assert!(
                !ANTHROPIC_STRICT_BANNED.contains(&key.as_str()),
                "{tool}{pointer}: `{key}` not allowed (refs are inlined; recursion impossible)"
            );
        }
        if let Some(n) = node.get("minItems") {
            assert!(n.as_u64().unwrap() <= 1, "{tool}{pointer}: minItems 0 or 1");
        }
        if let Some(f) = node.get("format").and_then(Value::as_str) {
            assert!(
                ANTHROPIC_FORMATS.contains(&f),
                "{tool}{pointer}: format `{f}`"
            );
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            assert!(
                values.iter().all(|v| !v.is_object() && !v.is_array()),
                "{tool}{pointer}: primitive enum values"
            );
        }
        if is_object_node(node) {
            assert_eq!(
                node.get("additionalProperties"),
                Some(&json!(false)),
                "{tool}{pointer}: additionalProperties:false"
            );
            let required = key_set(node.get("required"));
            for (name, prop) in node["properties"].as_object().unwrap() {
                optional += usize::from(!required.contains(name));
                unions += usize::from(
                    prop.get("anyOf").is_some() || prop.get("type").is_some_and(Value::is_array),
                );
            }
        }
    }
    (optional, unions)
}

const GEMINI_BANNED: &[&str] = &[
    "$ref",
    "$defs",
    "additionalProperties",
    "oneOf",
    "const",
    "title",
    "$schema",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "allOf",
    "not",
];
const GEMINI_TYPES: &[&str] = &[
    "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
];

fn assert_gemini_parameters(tool: &str, schema: &Value) {
    for (pointer, node) in nodes(schema) {
        for key in node.as_object().unwrap().keys() {
            assert!(
                !GEMINI_BANNED.contains(&key.as_str()),
                "{tool}{pointer}: `{key}` is rejected by Gemini `parameters`"
            );
        }
        match node.get("type") {
            Some(Value::String(t)) => assert!(
                GEMINI_TYPES.contains(&t.as_str()),
                "{tool}{pointer}: type `{t}`"
            ),
            None => assert!(
                node.get("anyOf").is_some(),
                "{tool}{pointer}: type must be specified"
            ),
            Some(other) => panic!("{tool}{pointer}: type arrays are not OpenAPI: {other}"),
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            assert!(
                values.iter().all(Value::is_string),
                "{tool}{pointer}: enums are strings only"
            );
            assert_eq!(node["type"], "STRING");
        }
        if node.get("type") == Some(&json!("ARRAY")) {
            assert!(node.get("items").is_some(), "{tool}{pointer}: items");
        }
        for name in key_set(node.get("properties")) {
            assert!(
                name_matches(
                    &name,
                    |c| c.is_ascii_alphabetic() || c == '_',
                    |c| c.is_ascii_alphanumeric() || c == '_',
                    64
                ),
                "{tool}{pointer}: property `{name}`"
            );
        }
    }
}

fn assert_gemini_json_schema(tool: &str, schema: &Value) {
    for (pointer, node) in nodes(schema) {
        for key in [
            "const",
            "title",
            "$schema",
            "examples",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "format",
        ] {
            assert!(
                node.get(key).is_none(),
                "{tool}{pointer}: `{key}` is stripped for parametersJsonSchema"
            );
        }
    }
}
