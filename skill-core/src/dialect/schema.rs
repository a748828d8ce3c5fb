//! Lowering the neutral input schema into what each provider accepts: `$ref` inlining,
//! OpenAI strict normalisation, Anthropic strict subset, Gemini's OpenAPI subset.

use serde_json::{json, Map, Value};

use crate::catalog::ref_name;

/// Why a schema cannot be expressed in a dialect's subset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfit {
    /// A definition refers to itself.
    Recursive(String),
    /// Something the subset cannot express, with its JSON Pointer.
    Unsupported {
        /// Where.
        pointer: String,
        /// What.
        reason: String,
    },
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfit::Recursive(name) => write!(f, "type `{name}` is recursive"),
            Unfit::Unsupported { pointer, reason } => write!(
                f,
                "{reason} at `{}`",
                if pointer.is_empty() { "/" } else { pointer }
            ),
        }
    }
}

fn unsupported(pointer: &str, reason: impl Into<String>) -> Unfit {
    Unfit::Unsupported {
        pointer: pointer.to_string(),
        reason: reason.into(),
    }
}

/// Replaces every local `$ref` by the definition it names (sibling keywords of the `$ref`
/// win) and drops `$defs`; fails on recursion.
pub fn inline_refs(schema: &Value) -> Result<Value, Unfit> {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut stack = Vec::new();
    let mut out = inline_node(schema, &defs, &mut stack)?;
    if let Value::Object(map) = &mut out {
        map.remove("$defs");
    }
    Ok(out)
}

fn inline_node(
    node: &Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
) -> Result<Value, Unfit> {
    match node {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(ref_name) {
                if stack.iter().any(|s| s == name) {
                    return Err(Unfit::Recursive(name.to_string()));
                }
                let Some(def) = defs.get(name) else {
                    return Err(unsupported(
                        "",
                        format!("`$ref` to unknown definition `{name}`"),
                    ));
                };
                stack.push(name.to_string());
                let mut resolved = inline_node(def, defs, stack)?;
                stack.pop();
                if let Value::Object(target) = &mut resolved {
                    for (k, v) in map {
                        if k != "$ref" {
                            target.insert(k.clone(), inline_node(v, defs, stack)?);
                        }
                    }
                }
                return Ok(resolved);
            }
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                if k == "$defs" {
                    continue;
                }
                out.insert(k.clone(), inline_node(v, defs, stack)?);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => items
            .iter()
            .map(|v| inline_node(v, defs, stack))
            .collect::<Result<_, _>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
}

/// Replaces a union whose options are all `const`s (schemars' form of a documented Rust
/// enum) by one `enum`; the variants' descriptions move into the description.
pub fn collapse_const_unions(node: &mut Value) {
    match node {
        Value::Object(map) => {
            for key in ["anyOf", "oneOf"] {
                let Some(Value::Array(options)) = map.get(key) else {
                    continue;
                };
                if options.len() < 2 || !options.iter().all(|o| o.get("const").is_some()) {
                    continue;
                }
                let values: Vec<Value> = options
                    .iter()
                    .filter_map(|o| o.get("const").cloned())
                    .collect();
                let notes: Vec<String> = options
                    .iter()
                    .filter_map(|o| {
                        let d = o.get("description")?.as_str()?.trim().trim_end_matches('.');
                        let v = o.get("const")?;
                        Some(format!(
                            "{}: {d}",
                            v.as_str().map_or_else(|| v.to_string(), str::to_string)
                        ))
                    })
                    .collect();
                let types: Vec<&Value> = options.iter().filter_map(|o| o.get("type")).collect();
                let shared_type = (types.len() == options.len()
                    && types.windows(2).all(|w| w[0] == w[1]))
                .then(|| types[0].clone());
                map.remove(key);
                if let Some(t) = shared_type {
                    map.insert("type".into(), t);
                }
                map.insert("enum".into(), Value::Array(values));
                if !notes.is_empty() {
                    let text = match map.get("description").and_then(Value::as_str) {
                        Some(d) => format!("{d} ({})", notes.join("; ")),
                        None => notes.join("; "),
                    };
                    map.insert("description".into(), Value::String(text));
                }
            }
            map.values_mut().for_each(collapse_const_unions);
        }
        Value::Array(items) => items.iter_mut().for_each(collapse_const_unions),
        _ => {}
    }
}

/// Whether the schema contains a recursive definition.
pub fn recursion_in(schema: &Value) -> Option<String> {
    match inline_refs(schema) {
        Err(Unfit::Recursive(name)) => Some(name),
        _ => None,
    }
}

/// Moves a constraint the subset lacks into the description, so the model still reads it.
fn note_in_description(map: &mut Map<String, Value>, key: &str, value: &Value) {
    let note = match value {
        Value::String(s) => format!("{key}: {s}"),
        other => format!("{key}: {other}"),
    };
    let text = match map.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} ({note})"),
        _ => format!("({note})"),
    };
    map.insert("description".into(), Value::String(text));
}

/// Keywords OpenAI's strict mode accepts.
const OPENAI_STRICT_KEYWORDS: &[&str] = &[
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
pub const OPENAI_STRICT_FORMATS: &[&str] = &[
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

/// Keywords silently dropped (annotations with no constraint the model must follow).
const DROPPED_KEYWORDS: &[&str] = &[
    "default",
    "examples",
    "example",
    "$schema",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// OpenAI strict-mode limits.
pub mod openai_limits {
    /// Object properties in one schema.
    pub const MAX_PROPERTIES: usize = 5000;
    /// Nesting levels of objects.
    pub const MAX_NESTING: usize = 10;
    /// Enum values in one schema.
    pub const MAX_ENUM_VALUES: usize = 1000;
    /// Characters of property names, definition names, enum and const values.
    pub const MAX_STRING_BUDGET: usize = 120_000;
}

/// OpenAI strict form: `additionalProperties: false` and every property required on every
/// object, optionals as `null` unions, only supported keywords, limits checked. Recursive
/// definitions stay in `$defs` (OpenAI allows them), other `$ref`s are inlined.
pub fn openai_strict(params: &Value) -> Result<Value, Unfit> {
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

/// Anthropic strict form: `additionalProperties: false` everywhere, optional properties may
/// stay out of `required` (without a redundant `null`), unsupported keywords moved into the
/// description, no recursion.
pub fn anthropic_strict(params: &Value) -> Result<Value, Unfit> {
    let mut schema = inline_refs(params)?;
    collapse_const_unions(&mut schema);
    strict_node(&mut schema, "", Flavor::Anthropic)?;
    Ok(schema)
}

/// String formats Anthropic's strict mode accepts.
pub const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
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
const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    OpenAi,
    Anthropic,
}

fn strip_ref_siblings(node: &mut Value) {
    match node {
        Value::Object(map) => {
            if map.contains_key("$ref") {
                map.retain(|k, _| k == "$ref");
                return;
            }
            map.values_mut().for_each(strip_ref_siblings);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_ref_siblings),
        _ => {}
    }
}

fn type_names(map: &Map<String, Value>) -> Vec<String> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

fn strict_node(node: &mut Value, pointer: &str, flavor: Flavor) -> Result<(), Unfit> {
    let Value::Object(map) = node else {
        return Err(unsupported(
            pointer,
            "an untyped value (`serde_json::Value`) cannot be strict",
        ));
    };
    if map.contains_key("$ref") {
        return Ok(());
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if let Some(Value::Array(all)) = map.get("allOf") {
        if all.len() == 1 && flavor == Flavor::OpenAi {
            if let Some(Value::Object(inner)) = map
                .remove("allOf")
                .and_then(|mut a| a.as_array_mut().map(|a| a.remove(0)))
            {
                for (k, v) in inner {
                    map.entry(k).or_insert(v);
                }
            }
        } else if flavor == Flavor::OpenAi {
            return Err(unsupported(
                pointer,
                "`allOf` is not supported in strict mode",
            ));
        }
    }
    let allowed: &[&str] = match flavor {
        Flavor::OpenAi => OPENAI_STRICT_KEYWORDS,
        Flavor::Anthropic => ANTHROPIC_STRICT_KEYWORDS,
    };
    let formats: &[&str] = match flavor {
        Flavor::OpenAi => OPENAI_STRICT_FORMATS,
        Flavor::Anthropic => ANTHROPIC_STRICT_FORMATS,
    };
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let keep = match key.as_str() {
            "format" => map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| formats.contains(&f)),
            "minItems" if flavor == Flavor::Anthropic => map
                .get("minItems")
                .and_then(Value::as_u64)
                .is_some_and(|n| n <= 1),
            "default" if flavor == Flavor::Anthropic => true,
            k => allowed.contains(&k),
        };
        if !keep {
            let value = map.remove(&key).unwrap_or(Value::Null);
            if !DROPPED_KEYWORDS.contains(&key.as_str()) {
                note_in_description(map, &key, &value);
            }
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        if flavor == Flavor::Anthropic && values.iter().any(|v| v.is_object() || v.is_array()) {
            return Err(unsupported(pointer, "enum with complex values"));
        }
    }
    let types = type_names(map);
    let is_object = types.iter().any(|t| t == "object") || map.contains_key("properties");
    if types.iter().any(|t| t == "array") {
        match map.get_mut("items") {
            Some(items @ Value::Object(_)) => {
                strict_node(items, &format!("{pointer}/items"), flavor)?
            }
            _ => return Err(unsupported(pointer, "an array must type its items")),
        }
    }
    if is_object {
        let open = match map.get("additionalProperties") {
            Some(Value::Bool(false)) | None => false,
            Some(_) => true,
        };
        let empty = map
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(|p| p.is_empty());
        if open && empty {
            return Err(unsupported(
                pointer,
                "a free-form map (`HashMap`/`BTreeMap`) cannot be strict",
            ));
        }
        map.insert("additionalProperties".into(), Value::Bool(false));
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let mut names = Vec::new();
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                strict_node(prop, &format!("{pointer}/properties/{name}"), flavor)?;
                let is_required = required.contains(name);
                match flavor {
                    Flavor::OpenAi if !is_required => make_nullable(prop),
                    Flavor::Anthropic if !is_required => drop_null(prop),
                    _ => {}
                }
                names.push(Value::String(name.clone()));
            }
        } else {
            map.insert("properties".into(), json!({}));
        }
        match flavor {
            Flavor::OpenAi => {
                map.insert("required".into(), Value::Array(names));
            }
            Flavor::Anthropic => {
                map.insert(
                    "required".into(),
                    Value::Array(required.into_iter().map(Value::String).collect()),
                );
            }
        }
    } else if types.is_empty()
        && !map.contains_key("anyOf")
        && !map.contains_key("enum")
        && !map.contains_key("const")
        && !map.contains_key("allOf")
    {
        return Err(unsupported(
            pointer,
            "an untyped value (`serde_json::Value`) cannot be strict",
        ));
    }
    for key in ["anyOf", "allOf"] {
        if let Some(Value::Array(options)) = map.get_mut(key) {
            for (i, option) in options.iter_mut().enumerate() {
                strict_node(option, &format!("{pointer}/{key}/{i}"), flavor)?;
            }
        }
    }
    Ok(())
}

/// Makes a property accept `null` (OpenAI strict's way of saying "optional").
fn make_nullable(node: &mut Value) {
    let Value::Object(map) = node else { return };
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.iter().any(Value::is_null) {
            values.push(Value::Null);
        }
    }
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            map.insert("type".into(), json!([t, "null"]));
            return;
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(options)) = map.get_mut("anyOf") {
        if !options
            .iter()
            .any(|o| o.get("type") == Some(&json!("null")))
        {
            options.push(json!({"type": "null"}));
        }
        return;
    }
    if map.contains_key("enum") {
        return;
    }
    let description = map.remove("description");
    let inner = Value::Object(std::mem::take(map));
    map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
    if let Some(d) = description {
        map.insert("description".into(), d);
    }
}

/// Removes a `null` alternative from an optional property (it can simply be left out),
/// which keeps Anthropic's union budget for real unions.
fn drop_null(node: &mut Value) {
    let Value::Object(map) = node else { return };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Array(options)) = map.get_mut("anyOf") {
        options.retain(|o| o.get("type") != Some(&json!("null")));
        if options.len() == 1 {
            if let Some(Value::Object(only)) = options.pop() {
                map.remove("anyOf");
                for (k, v) in only {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
}

/// Counts against OpenAI's strict limits.
fn check_openai_limits(schema: &Value) -> Result<(), Unfit> {
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

/// Optional and union-typed properties of a strict Anthropic schema (what its per-request
/// budget counts).
pub fn anthropic_budget(schema: &Value) -> (usize, usize) {
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
pub fn is_union(prop: &Value) -> bool {
    prop.get("anyOf").is_some() || prop.get("type").is_some_and(Value::is_array)
}

/// Gemini's `parameters` form (OpenAPI 3.0 subset): refs inlined, upper-case types,
/// `nullable` instead of type arrays, string-only enums, no `additionalProperties`, `oneOf`,
/// `const`, `$defs` or `title`.
pub fn gemini_openapi(params: &Value) -> Result<Value, Unfit> {
    let mut schema = inline_refs(params)?;
    collapse_const_unions(&mut schema);
    openapi_node(&mut schema, "")?;
    Ok(schema)
}

/// Gemini's `parametersJsonSchema` form: JSON Schema with `$defs`/`$ref` kept; `const`
/// becomes a one-value `enum`; `title`, `examples`, exclusive bounds and string formats move
/// out (as pydantic-ai does).
pub fn gemini_json_schema(params: &Value) -> Value {
    let mut schema = params.clone();
    json_schema_node(&mut schema);
    schema
}

fn json_schema_node(node: &mut Value) {
    match node {
        Value::Object(map) => {
            let is_schema = map.contains_key("type")
                || map.contains_key("$ref")
                || map.contains_key("anyOf")
                || map.contains_key("enum")
                || map.contains_key("const")
                || map.contains_key("oneOf");
            if is_schema {
                if let Some(c) = map.remove("const") {
                    map.insert("enum".into(), Value::Array(vec![c]));
                }
                for key in ["title", "examples", "$schema"] {
                    map.remove(key);
                }
                for key in ["exclusiveMinimum", "exclusiveMaximum", "format"] {
                    if let Some(v) = map.remove(key) {
                        note_in_description(map, key, &v);
                    }
                }
            }
            for (key, value) in map.iter_mut() {
                match key.as_str() {
                    "properties" | "$defs" => {
                        if let Value::Object(children) = value {
                            children.values_mut().for_each(json_schema_node);
                        }
                    }
                    "enum" | "const" | "required" | "description" => {}
                    _ => json_schema_node(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(json_schema_node),
        _ => {}
    }
}

/// Property names Gemini's `parameters` form accepts.
pub fn is_gemini_property_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
}

const GEMINI_OPENAPI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "example",
    "default",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "anyOf",
    "propertyOrdering",
];

fn openapi_node(node: &mut Value, pointer: &str) -> Result<(), Unfit> {
    let Value::Object(map) = node else {
        return Err(unsupported(
            pointer,
            "an untyped value needs `parametersJsonSchema`",
        ));
    };
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if let Some(c) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![c]));
    }
    if let Some(Value::Array(examples)) = map.remove("examples") {
        if let Some(first) = examples.into_iter().next() {
            map.insert("example".into(), first);
        }
    }
    // `anyOf: [X, {type: null}]` → X + nullable.
    if let Some(Value::Array(options)) = map.get("anyOf") {
        let non_null: Vec<Value> = options
            .iter()
            .filter(|o| o.get("type") != Some(&json!("null")))
            .cloned()
            .collect();
        let had_null = non_null.len() < options.len();
        if had_null {
            map.insert("nullable".into(), Value::Bool(true));
            if non_null.len() == 1 {
                map.remove("anyOf");
                if let Value::Object(only) = non_null.into_iter().next().unwrap_or(Value::Null) {
                    for (k, v) in only {
                        map.entry(k).or_insert(v);
                    }
                }
            } else {
                map.insert("anyOf".into(), Value::Array(non_null));
            }
        }
    }
    // Type arrays → one type + nullable, or anyOf.
    if let Some(Value::Array(types)) = map.get("type").cloned() {
        let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if non_null.len() < types.len() {
            map.insert("nullable".into(), Value::Bool(true));
        }
        match non_null.len() {
            1 => {
                map.insert("type".into(), non_null[0].clone());
            }
            _ => {
                map.remove("type");
                map.insert(
                    "anyOf".into(),
                    Value::Array(non_null.into_iter().map(|t| json!({"type": t})).collect()),
                );
            }
        }
    }
    // Enums are strings only.
    if let Some(Value::Array(values)) = map.get("enum").cloned() {
        let nullable = values.iter().any(Value::is_null);
        let strings: Vec<Value> = values
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| Value::String(v.as_str().map_or_else(|| v.to_string(), str::to_string)))
            .collect();
        map.insert("enum".into(), Value::Array(strings));
        map.insert("type".into(), json!("string"));
        if nullable {
            map.insert("nullable".into(), Value::Bool(true));
        }
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if let Some(c) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![c]));
    }
    if let Some(Value::String(f)) = map.get("format") {
        if !matches!(f.as_str(), "date-time" | "date" | "time" | "enum") {
            let v = map.remove("format").unwrap_or(Value::Null);
            note_in_description(map, "format", &v);
        }
    }
    let is_object = map.get("type") == Some(&json!("object")) || map.contains_key("properties");
    if is_object {
        let open = !matches!(
            map.get("additionalProperties"),
            Some(Value::Bool(false)) | None
        );
        let empty = map
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(|p| p.is_empty());
        if open && empty {
            return Err(unsupported(
                pointer,
                "a free-form map needs `parametersJsonSchema`",
            ));
        }
    }
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        if !GEMINI_OPENAPI_KEYWORDS.contains(&key.as_str()) {
            let value = map.remove(&key).unwrap_or(Value::Null);
            if !matches!(
                key.as_str(),
                "additionalProperties"
                    | "title"
                    | "$schema"
                    | "uniqueItems"
                    | "deprecated"
                    | "readOnly"
                    | "writeOnly"
            ) {
                note_in_description(map, &key, &value);
            }
        }
    }
    if !map.contains_key("type") && !map.contains_key("anyOf") {
        return Err(unsupported(
            pointer,
            "an untyped value needs `parametersJsonSchema`",
        ));
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if !is_gemini_property_name(name) {
                return Err(unsupported(
                    pointer,
                    format!("property name `{name}` is not allowed in `parameters`"),
                ));
            }
            openapi_node(prop, &format!("{pointer}/properties/{name}"))?;
        }
    }
    if let Some(items) = map.get_mut("items") {
        openapi_node(items, &format!("{pointer}/items"))?;
    } else if map.get("type") == Some(&json!("array")) {
        return Err(unsupported(pointer, "an array must type its items"));
    }
    if let Some(Value::Array(options)) = map.get_mut("anyOf") {
        for (i, option) in options.iter_mut().enumerate() {
            openapi_node(option, &format!("{pointer}/anyOf/{i}"))?;
        }
    }
    if let Some(Value::String(t)) = map.get_mut("type") {
        *t = t.to_ascii_uppercase();
    }
    Ok(())
}
