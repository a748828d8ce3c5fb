//! Every provider rule of the reference notes, asserted on every registered skill in every
//! dialect; MCP tools and results validated against the official MCP JSON schema; tool calls
//! and results read and written in each dialect.
//!
//! The checks here are written independently of the renderers: they restate each provider's
//! documented constraints, so a renderer bug cannot hide behind its own logic.
//!
//! A binary of its own: it asserts every rule on every skill of the link-time registry, and
//! the root crate's binary mounts this file again over the review library's skills.

#[path = "common/dialect_examples.rs"]
mod examples;

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::{Dialect, DialectError, Dispatcher, SkillRegistration};

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

// ---- rules on every registered skill ---------------------------------------------------

#[test]
fn every_dialect_obeys_its_rules_for_every_skill() {
    let d = dispatcher();
    let skills = active_skills(&d);
    assert!(skills.len() >= 8);
    for dialect in Dialect::ALL {
        for skill in &skills {
            let rendered = dialect.render_tool(skill, &[]);
            let neutral = skill.parameters();
            let tool = format!("{dialect}:{}", skill.id);
            let def = match (dialect, rendered) {
                (Dialect::AnthropicStrict, Err(DialectError::Unfit { reason, .. })) => {
                    assert!(
                        reason.contains("recursive"),
                        "{tool}: only recursion is refused, got {reason}"
                    );
                    assert_eq!(skill.id, "doc.outline_size");
                    continue;
                }
                (_, Ok(def)) => def,
                (_, Err(err)) => panic!("{tool}: {err}"),
            };
            let name = match dialect {
                Dialect::OpenAi | Dialect::OpenAiStrict => def["function"]["name"].as_str(),
                _ => def["name"].as_str(),
            }
            .unwrap();
            assert_eq!(
                d.registration(name).map(|s| s.id),
                Some(skill.id),
                "{tool}: wire name maps back"
            );
            match dialect {
                Dialect::OpenAi => {
                    assert!(openai_name(name), "{tool}: name");
                    assert_eq!(def["type"], "function");
                    assert_eq!(
                        def["function"]["parameters"], neutral,
                        "{tool}: SPEC-19 shape, neutral schema"
                    );
                    assert_eq!(
                        def,
                        skill.to_tool_definition(),
                        "{tool}: same as SPEC-19 definition"
                    );
                }
                Dialect::OpenAiStrict | Dialect::Responses => {
                    assert!(openai_name(name), "{tool}: name");
                    let (params, strict) = if dialect == Dialect::Responses {
                        assert_eq!(def["type"], "function");
                        assert!(def.get("function").is_none(), "{tool}: flat shape");
                        (&def["parameters"], &def["strict"])
                    } else {
                        (&def["function"]["parameters"], &def["function"]["strict"])
                    };
                    match strict {
                        Value::Bool(true) => assert_openai_strict(&tool, params, &neutral),
                        Value::Bool(false) => assert!(
                            has_open_or_untyped(&neutral),
                            "{tool}: downgraded only for maps/untyped values"
                        ),
                        other => panic!("{tool}: strict must be explicit, got {other}"),
                    }
                }
                Dialect::Anthropic => {
                    assert!(openai_name(name), "{tool}: name");
                    assert_eq!(def["input_schema"], neutral);
                    assert_eq!(def["input_schema"]["type"], "object");
                }
                Dialect::AnthropicStrict => {
                    assert!(openai_name(name), "{tool}: name");
                    if def.get("strict") == Some(&json!(true)) {
                        assert_anthropic_strict(&tool, &def["input_schema"]);
                    } else {
                        assert!(
                            has_open_or_untyped(&neutral),
                            "{tool}: non-strict only for maps/untyped values"
                        );
                    }
                }
                Dialect::Gemini => {
                    assert!(gemini_name(name), "{tool}: name");
                    assert!(
                        !(def.get("parameters").is_some()
                            && def.get("parametersJsonSchema").is_some()),
                        "{tool}: one form"
                    );
                    match (def.get("parameters"), def.get("parametersJsonSchema")) {
                        (Some(p), None) => assert_gemini_parameters(&tool, p),
                        (None, Some(p)) => {
                            let recursive =
                                nodes(&neutral).iter().any(|(_, n)| n.get("$ref").is_some())
                                    && skill.id == "doc.outline_size";
                            assert!(
                                recursive || has_open_or_untyped(&neutral),
                                "{tool}: falls back only when `parameters` cannot express it"
                            );
                            assert_gemini_json_schema(&tool, p);
                        }
                        (None, None) => assert!(
                            key_set(neutral.get("properties")).is_empty(),
                            "{tool}: no parameters only without arguments"
                        ),
                        _ => unreachable!(),
                    }
                }
                Dialect::GeminiJsonSchema => {
                    assert!(gemini_name(name), "{tool}: name");
                    assert_gemini_json_schema(&tool, &def["parametersJsonSchema"]);
                }
                Dialect::Mcp => {
                    assert!(mcp_name(name), "{tool}: name");
                    assert_eq!(
                        key_set(def["inputSchema"].get("properties")),
                        key_set(neutral.get("properties")),
                        "{tool}: inputSchema has the neutral properties"
                    );
                    assert_eq!(def["inputSchema"]["required"], neutral["required"]);
                    assert_eq!(
                        def["outputSchema"]["type"], "object",
                        "{tool}: object-rooted outputSchema"
                    );
                    for schema in ["inputSchema", "outputSchema"] {
                        for (path, node) in nodes(&def[schema]) {
                            assert!(
                                !node.get("type").is_some_and(Value::is_array),
                                "{tool}: {schema}{path} has a `type` array (clients' strict \
                                 checks want one `type` per anyOf branch)"
                            );
                        }
                    }
                    assert_eq!(def["title"], skill.name);
                }
            }
        }
    }
}

#[test]
fn gemini_uses_the_openapi_form_whenever_it_can() {
    let d = dispatcher();
    let set = d
        .tools_in(Dialect::Gemini, &toolwright::ToolFilter::all())
        .unwrap();
    let form = |name: &str| {
        let def = set.iter().find(|t| t["name"] == name).unwrap();
        if def.get("parameters").is_some() {
            "parameters"
        } else {
            "parametersJsonSchema"
        }
    };
    assert_eq!(
        form("crm_search_client"),
        "parameters",
        "documented enums collapse to a string enum"
    );
    assert_eq!(form("crm_create_client"), "parameters");
    assert_eq!(
        form("doc_outline_size"),
        "parametersJsonSchema",
        "recursion"
    );
    assert_eq!(
        form("crm_contact_stats"),
        "parametersJsonSchema",
        "free-form map"
    );
    let search = set
        .iter()
        .find(|t| t["name"] == "crm_search_client")
        .unwrap();
    assert_eq!(
        search["parameters"]["properties"]["status"]["enum"],
        json!(["active", "dormant", "archived"])
    );
    assert_eq!(
        search["parameters"]["properties"]["status"]["nullable"],
        true
    );
}

#[test]
fn anthropic_strict_budget_is_enforced_per_request() {
    let d = dispatcher();
    let crm = d
        .tools_in(
            Dialect::AnthropicStrict,
            &toolwright::ToolFilter::all().domain("crm"),
        )
        .unwrap();
    let (mut optional, mut unions) = (0, 0);
    for def in crm.iter().filter(|d| d.get("strict") == Some(&json!(true))) {
        let (o, u) = assert_anthropic_strict(def["name"].as_str().unwrap(), &def["input_schema"]);
        optional += o;
        unions += u;
    }
    assert!(
        optional <= 24 && unions <= 16,
        "{optional} optional, {unions} unions"
    );

    // The same tools twice over in one request no longer fit.
    let report_and_crm: Vec<&'static SkillRegistration> = active_skills(&d)
        .into_iter()
        .filter(|s| s.domain == "crm" || s.domain == "report")
        .filter(|s| s.id != "report.summarise")
        .collect();
    let many: Vec<&'static SkillRegistration> = report_and_crm
        .iter()
        .chain(report_and_crm.iter())
        .copied()
        .collect();
    let err = Dialect::AnthropicStrict
        .render_tools(&many, &[])
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, DialectError::AnthropicLimits { .. }),
        "{text}"
    );
    assert!(text.contains("optional parameters (limit 24)"), "{text}");
    assert!(
        text.contains("report.wide_search (13 optional"),
        "names the biggest contributors: {text}"
    );
}

#[test]
fn recursion_gives_a_clear_error_where_it_is_not_allowed() {
    let d = dispatcher();
    let outline = d.registration("doc.outline_size").unwrap();
    let err = Dialect::AnthropicStrict
        .render_tool(outline, &[])
        .unwrap_err()
        .to_string();
    assert_eq!(err, "tool `doc.outline_size` cannot be rendered for anthropic-strict: type `Section` is recursive");
    let strict = Dialect::OpenAiStrict.render_tool(outline, &[]).unwrap();
    assert!(
        strict["function"]["parameters"]["$defs"]["Section"].is_object(),
        "OpenAI keeps recursive $defs"
    );
    let json_schema = Dialect::GeminiJsonSchema.render_tool(outline, &[]).unwrap();
    assert!(json_schema["parametersJsonSchema"]["$defs"]["Section"].is_object());
}

#[test]
fn definitions_are_cached_and_filtered() {
    let d = dispatcher();
    let filter = toolwright::ToolFilter::all()
        .domain("crm")
        .exclude_field("limit");
    let a = d.tools_in(Dialect::Mcp, &filter).unwrap();
    let b = d.tools_in(Dialect::Mcp, &filter).unwrap();
    assert!(a.ptr_eq(&b), "cached");
    let search = a.iter().find(|t| t["name"] == "crm_search_client").unwrap();
    assert!(
        search["inputSchema"]["properties"].get("limit").is_none(),
        "excluded field"
    );
    for tool in a.iter() {
        let reg = d.registration(tool["name"].as_str().unwrap()).unwrap();
        assert!(
            reg.domain == "crm" || reg.domain == "*",
            "{} (domain {}) passed the crm filter",
            reg.id,
            reg.domain
        );
    }
    assert!(
        a.iter().any(|t| t["name"] == "ui_open_form"),
        "universal skills are kept"
    );
    assert_eq!(a.json(), serde_json::to_string(a.definitions()).unwrap());
}

#[test]
fn dialect_names_parse() {
    for dialect in Dialect::ALL {
        assert_eq!(dialect.as_str().parse::<Dialect>().unwrap(), dialect);
    }
    assert_eq!(
        "OpenAI_Strict".parse::<Dialect>().unwrap(),
        Dialect::OpenAiStrict
    );
    let err = "cohere".parse::<Dialect>().unwrap_err().to_string();
    assert!(
        err.contains("unknown dialect `cohere`") && err.contains("openai-strict"),
        "{err}"
    );
}

#[test]
fn mcp_annotations_follow_the_category() {
    let d = dispatcher();
    let set = d
        .tools_in(Dialect::Mcp, &toolwright::ToolFilter::all())
        .unwrap();
    let ann = |name: &str| set.iter().find(|t| t["name"] == name).unwrap()["annotations"].clone();
    assert_eq!(ann("crm_search_client")["readOnlyHint"], true);
    assert_eq!(ann("crm_contact_stats")["readOnlyHint"], true);
    assert_eq!(ann("crm_create_client")["readOnlyHint"], false);
    assert_eq!(ann("crm_create_client")["destructiveHint"], false);
    assert_eq!(ann("crm_delete_client")["destructiveHint"], true);
    assert_eq!(
        ann("crm_delete_client")["idempotentHint"],
        true,
        "#[skill(idempotent = true)]"
    );
    assert_eq!(ann("crm_delete_client")["openWorldHint"], false);
    assert_eq!(ann("crm_search_client")["title"], "Search clients");
    let create = set
        .iter()
        .find(|t| t["name"] == "crm_create_client")
        .unwrap();
    assert_eq!(
        create["outputSchema"]["properties"]["result"]["type"], "string",
        "scalar output wrapped"
    );
    let stats = set
        .iter()
        .find(|t| t["name"] == "crm_contact_stats")
        .unwrap();
    assert!(
        stats["outputSchema"]["properties"]["summary"].is_object(),
        "object output as is"
    );
}

// ---- MCP schema validation -------------------------------------------------------------

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

// ---- calls and results in every dialect ------------------------------------------------

#[tokio::test]
async fn calls_are_read_and_answered_in_every_dialect() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let args = json!({"keyword": "cit", "limit": "1"});
    let payloads = [
        (
            Dialect::OpenAi,
            json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "crm_search_client", "arguments": args.to_string()}}]}}]}),
        ),
        (
            Dialect::Responses,
            json!({"output": [
            {"type": "reasoning", "id": "rs_1"},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "crm_search_client", "arguments": args.to_string()}]}),
        ),
        (
            Dialect::Anthropic,
            json!({"role": "assistant", "content": [
            {"type": "text", "text": "Searching."},
            {"type": "tool_use", "id": "call_1", "name": "crm_search_client", "input": args}]}),
        ),
        (
            Dialect::Gemini,
            json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"id": "call_1", "name": "crm_search_client", "args": args}, "thoughtSignature": "c2ln"}]}}]}),
        ),
        (
            Dialect::Mcp,
            json!({"jsonrpc": "2.0", "id": "call_1", "method": "tools/call", "params": {"name": "crm_search_client", "arguments": args}}),
        ),
    ];
    for (dialect, payload) in payloads {
        let calls = dialect.parse_calls(&payload).unwrap();
        assert_eq!(calls.len(), 1, "{dialect}");
        let call = &calls[0];
        assert_eq!(
            (call.id.as_str(), call.name.as_str()),
            ("call_1", "crm_search_client"),
            "{dialect}"
        );
        let result = d.dispatch(&call.to_parsed_call(), &ctx).await;
        assert!(result.success, "{dialect}: {:?}", result.error);
        assert_eq!(
            result.skill_id, "crm.search_client",
            "{dialect}: wire name mapped back"
        );
        assert_eq!(
            result.warnings[0].code, "string_to_integer",
            "{dialect}: lenient parse"
        );
        let answer = dialect.render_result(call, &result, d.registration(&call.name));
        let history = call.render();
        let (again, rendered) = d.answer_call(call, &ctx).await;
        assert!(again.success);
        assert_eq!(
            rendered, answer,
            "{dialect}: answer_call renders the same answer"
        );
        match dialect {
            Dialect::OpenAi => {
                assert_eq!(answer["role"], "tool");
                assert_eq!(answer["tool_call_id"], "call_1");
                assert!(answer["content"].as_str().unwrap().contains("CITIC Press"));
                assert_eq!(history["function"]["arguments"], args.to_string());
            }
            Dialect::Responses => {
                assert_eq!(answer["type"], "function_call_output");
                assert_eq!(answer["call_id"], "call_1");
                assert!(answer["output"].is_string());
            }
            Dialect::Anthropic => {
                assert_eq!(answer["type"], "tool_result");
                assert_eq!(answer["tool_use_id"], "call_1");
                assert!(answer.get("is_error").is_none());
                assert_eq!(history["input"], args);
            }
            Dialect::Gemini => {
                assert_eq!(call.thought_signature.as_deref(), Some("c2ln"));
                assert_eq!(
                    history["thoughtSignature"], "c2ln",
                    "signature echoed in history"
                );
                assert_eq!(answer["functionResponse"]["name"], "crm_search_client");
                assert_eq!(answer["functionResponse"]["id"], "call_1");
                assert_eq!(answer["functionResponse"]["response"]["output"]["total"], 1);
            }
            Dialect::Mcp => {
                assert_eq!(answer["isError"], false);
                assert_eq!(answer["structuredContent"]["total"], 1);
                assert_eq!(history["params"]["name"], "crm_search_client");
            }
            _ => unreachable!(),
        }
    }
}

#[tokio::test]
async fn errors_are_flagged_the_way_each_dialect_expects() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let result = d
        .call("crm.search_client", r#"{"limit": "lots"}"#, &ctx)
        .await;
    assert!(!result.success);
    let call = |dialect| toolwright::ProviderCall {
        dialect,
        id: "call_9".into(),
        name: "crm_search_client".into(),
        arguments: toolwright::WireArguments::Text(r#"{"limit": "lots"}"#.into()),
        thought_signature: None,
    };
    let anthropic = Dialect::Anthropic.render_result(&call(Dialect::Anthropic), &result, None);
    assert_eq!(anthropic["is_error"], true);
    assert!(anthropic["content"]
        .as_str()
        .unwrap()
        .contains("Correct these arguments"));
    let gemini = Dialect::Gemini.render_result(&call(Dialect::Gemini), &result, None);
    assert_eq!(
        gemini["functionResponse"]["response"]["error"]["code"],
        "invalid_arguments"
    );
    assert!(gemini["functionResponse"].get("id").is_some());
    let mcp = Dialect::Mcp.render_result(&call(Dialect::Mcp), &result, None);
    assert_eq!(mcp["isError"], true);
    assert!(mcp["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("invalid_arguments: "));
    let openai = Dialect::OpenAi.render_result(&call(Dialect::OpenAi), &result, None);
    assert!(openai["content"]
        .as_str()
        .unwrap()
        .contains("\"success\":false"));
}

#[test]
fn malformed_calls_are_reported_with_their_location() {
    let err = Dialect::OpenAi
        .parse_calls(&json!({"tool_calls": [{"id": "x", "function": {}}]}))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "malformed openai tool call at tool_calls[0].function: no `name`"
    );
    let err = Dialect::Anthropic
        .parse_calls(&json!([{"type": "tool_use", "name": "a"}]))
        .unwrap_err();
    assert!(err.to_string().contains("content[0]: no `id`"));
    let err = Dialect::Mcp
        .parse_calls(&json!({"method": "tools/list"}))
        .unwrap_err();
    assert!(err.to_string().contains("`tools/list` is not `tools/call`"));
    assert!(Dialect::Gemini
        .parse_calls(&json!({"parts": [{"text": "hi"}]}))
        .unwrap()
        .is_empty());
    let calls = Dialect::OpenAi
        .parse_calls(&json!([{"id": "c", "function": {"name": "n", "arguments": {"a": 1}}}]))
        .unwrap();
    assert_eq!(
        calls[0].arguments.to_text(),
        r#"{"a":1}"#,
        "object arguments tolerated"
    );
}
