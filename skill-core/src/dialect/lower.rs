//! Lowering passes shared by the providers: `$ref` inlining, const-union collapsing, the
//! strict-mode normalisation (OpenAI and Anthropic flavours) and field exclusion.

use serde_json::{json, Map, Value};

use super::anthropic::{ANTHROPIC_STRICT_FORMATS, ANTHROPIC_STRICT_KEYWORDS};
use super::openai::{OPENAI_STRICT_FORMATS, OPENAI_STRICT_KEYWORDS};
use crate::args::shape::ref_name;
use crate::registration::SkillRegistration;

/// The neutral `parameters` object the model sees — `type`, `properties`, `required` (and
/// `$defs` when the input uses named nested types) — with `exclude_fields` removed.
/// Injected values are never part of it.
pub(crate) fn neutral_parameters(skill: &SkillRegistration, exclude_fields: &[String]) -> Value {
    let schema = (skill.input_schema)();
    let mut params = Map::new();
    params.insert("type".into(), Value::String("object".into()));
    params.insert(
        "properties".into(),
        schema
            .get("properties")
            .cloned()
            .unwrap_or_else(|| json!({})),
    );
    params.insert(
        "required".into(),
        schema.get("required").cloned().unwrap_or_else(|| json!([])),
    );
    if let Some(defs) = schema.get("$defs") {
        params.insert("$defs".into(), defs.clone());
    }
    let mut params = Value::Object(params);
    exclude_fields_from(&mut params, exclude_fields);
    params
}

/// Removes `fields` from a `parameters` object's `properties` and `required`.
pub(crate) fn exclude_fields_from(params: &mut Value, fields: &[String]) {
    if fields.is_empty() {
        return;
    }
    if let Some(Value::Object(props)) = params.get_mut("properties") {
        for field in fields {
            props.remove(field);
        }
    }
    if let Some(Value::Array(required)) = params.get_mut("required") {
        required.retain(|v| !v.as_str().is_some_and(|n| fields.iter().any(|f| f == n)));
    }
}

/// Why a schema cannot be expressed in a dialect's subset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unfit {
    /// A definition refers to itself.
    Recursive(String),
    /// Something the subset cannot express, with its JSON Pointer.
    Unsupported {
        /// Where.
        pointer: String,
        /// What.
        reason: String,
    },
    /// The schema is over one of the provider's size limits (properties, nesting, enum
    /// values, characters): no downgrade helps, the tool must be made smaller.
    OverLimit(String),
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfit::Recursive(name) => write!(f, "type `{name}` is recursive"),
            Unfit::OverLimit(what) => write!(f, "{what} at `/`"),
            Unfit::Unsupported { pointer, reason } => write!(
                f,
                "{reason} at `{}`",
                if pointer.is_empty() { "/" } else { pointer }
            ),
        }
    }
}

pub(crate) fn unsupported(pointer: &str, reason: impl Into<String>) -> Unfit {
    Unfit::Unsupported {
        pointer: pointer.to_string(),
        reason: reason.into(),
    }
}

/// Replaces every local `$ref` by the definition it names (sibling keywords of the `$ref`
/// win) and drops `$defs`; fails on recursion.
pub(crate) fn inline_refs(schema: &Value) -> Result<Value, Unfit> {
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

pub(crate) fn inline_node(
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
pub(crate) fn collapse_const_unions(node: &mut Value) {
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

/// Rewrites every multi-type `type` (schemars' `["number", "null"]` for an `Option`) as
/// `anyOf` branches with one `type` each. The two spellings accept the same values, but
/// clients that map schemas onto a single-`type` dialect (MCP Inspector's strict check, the
/// OpenAPI subset behind Gemini) reject or drop the array form. Other keywords stay beside
/// the `anyOf`: each applies to one instance type only, so its meaning does not change.
/// Values (`enum`, `const`, `default`, `examples`) are data and left alone.
pub(crate) fn split_type_arrays(node: &mut Value) {
    match node {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if !matches!(key.as_str(), "enum" | "const" | "default" | "examples") {
                    split_type_arrays(value);
                }
            }
            let Some(Value::Array(types)) = map.get("type") else {
                return;
            };
            if types.len() == 1 {
                let only = types[0].clone();
                map.insert("type".into(), only);
                return;
            }
            let branches: Vec<Value> = types.iter().map(|t| json!({ "type": t })).collect();
            map.remove("type");
            let union = Value::Array(branches);
            if !map.contains_key("anyOf") {
                map.insert("anyOf".into(), union);
            } else {
                let entry = map
                    .entry("allOf")
                    .or_insert_with(|| Value::Array(Vec::new()));
                match entry {
                    Value::Array(all) => all.push(json!({ "anyOf": union })),
                    other => *other = json!([other.take(), { "anyOf": union }]),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(split_type_arrays),
        _ => {}
    }
}

/// Keywords whose value is one subschema.
const SUBSCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const SUBSCHEMA_ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const SUBSCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];
/// Keywords that constrain the instance (anything else is an annotation).
const CONSTRAINING_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];

/// Spells out the schemas that accept anything (schemars' `true` or `{"description": ..}`
/// for a `serde_json::Value`): an `anyOf` over the six JSON types, which accepts the same
/// values but says so, where clients' schema checks flag a bare `true` (an error in MCP
/// Inspector's strict mode) or a schema without a constraint. A bare `false` becomes the
/// object form `{"not": {}}`. Boolean-valued keywords (`additionalProperties: true`) stay.
pub(crate) fn explicit_any_schemas(node: &mut Value) {
    let Value::Object(map) = node else { return };
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if key == "items" && value.is_array() || SUBSCHEMA_ARRAY_KEYWORDS.contains(&key) {
            if let Value::Array(items) = value {
                items.iter_mut().for_each(|v| explicit_any_schema(v, key));
            }
        } else if SUBSCHEMA_KEYWORDS.contains(&key) {
            explicit_any_schema(value, key);
        } else if SUBSCHEMA_MAP_KEYWORDS.contains(&key) {
            if let Value::Object(children) = value {
                children
                    .values_mut()
                    .for_each(|v| explicit_any_schema(v, key));
            }
        }
    }
}

/// Keywords that take `true` / `false` as their own spelling.
const BOOLEAN_VALUED_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];

/// The schema under `keyword`: rewritten when it accepts anything, else walked.
fn explicit_any_schema(node: &mut Value, keyword: &str) {
    match node {
        Value::Bool(_) if BOOLEAN_VALUED_KEYWORDS.contains(&keyword) => {}
        Value::Bool(true) => *node = any_value(Map::new()),
        Value::Bool(false) => *node = json!({ "not": {} }),
        Value::Object(map) => {
            let constrains = map
                .keys()
                .any(|k| CONSTRAINING_KEYWORDS.contains(&k.as_str()))
                || (map.contains_key("if")
                    && (map.contains_key("then") || map.contains_key("else")));
            // `{"not": {}}` is the object form of `false`: its `{}` stays.
            if constrains || keyword == "not" {
                explicit_any_schemas(node);
            } else {
                *node = any_value(std::mem::take(map));
            }
        }
        _ => {}
    }
}

/// `annotations` (a description, a title ...) plus an `anyOf` of every JSON type.
fn any_value(mut annotations: Map<String, Value>) -> Value {
    let types = ["object", "array", "string", "number", "boolean", "null"];
    annotations.insert(
        "anyOf".into(),
        Value::Array(types.iter().map(|t| json!({ "type": t })).collect()),
    );
    Value::Object(annotations)
}

/// Whether the schema contains a recursive definition.
pub(crate) fn recursion_in(schema: &Value) -> Option<String> {
    match inline_refs(schema) {
        Err(Unfit::Recursive(name)) => Some(name),
        _ => None,
    }
}

/// Moves a constraint the subset lacks into the description, so the model still reads it.
pub(crate) fn note_in_description(map: &mut Map<String, Value>, key: &str, value: &Value) {
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

/// Keywords silently dropped (annotations with no constraint the model must follow).
pub(crate) const DROPPED_KEYWORDS: &[&str] = &[
    "default",
    "examples",
    "example",
    "$schema",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    OpenAi,
    Anthropic,
}

pub(crate) fn strip_ref_siblings(node: &mut Value) {
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

pub(crate) fn type_names(map: &Map<String, Value>) -> Vec<String> {
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

pub(crate) fn strict_node(node: &mut Value, pointer: &str, flavor: Flavor) -> Result<(), Unfit> {
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
    inline_single_all_of(map, pointer, flavor)?;
    move_unstrict_keywords(map, flavor);
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
        strict_object(map, pointer, flavor)?;
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

/// OpenAI strict rejects `allOf`: a single-member one is merged in, any other is unfit.
fn inline_single_all_of(
    map: &mut Map<String, Value>,
    pointer: &str,
    flavor: Flavor,
) -> Result<(), Unfit> {
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
    Ok(())
}

/// Strict mode accepts only the flavour's keywords and formats; the rest is removed, and the
/// meaningful part kept as prose in the description.
fn move_unstrict_keywords(map: &mut Map<String, Value>, flavor: Flavor) {
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
}

/// An object that takes any keys (`additionalProperties` left open) and names none: a
/// free-form map, which neither strict mode nor Gemini's `parameters` can describe.
pub(crate) fn is_free_form_map(map: &Map<String, Value>) -> bool {
    let open = !matches!(
        map.get("additionalProperties"),
        Some(Value::Bool(false)) | None
    );
    let empty = map
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|p| p.is_empty());
    open && empty
}

/// Strict objects are closed and list their `required` keys: free-form maps are unfit, and
/// each property is made strict, optional ones nullable (OpenAI) or non-null (Anthropic).
fn strict_object(map: &mut Map<String, Value>, pointer: &str, flavor: Flavor) -> Result<(), Unfit> {
    if is_free_form_map(map) {
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
    Ok(())
}

/// Makes a property accept `null` (OpenAI strict's way of saying "optional").
pub(crate) fn make_nullable(node: &mut Value) {
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
pub(crate) fn drop_null(node: &mut Value) {
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

#[cfg(test)]
mod tests;
