//! Gemini: function declarations with the OpenAPI-subset `parameters` (or
//! `parametersJsonSchema`), and the name rule.

use serde_json::{json, Map, Value};

use super::lower::*;
use super::{Dialect, DialectError};
use crate::registration::SkillRegistration;

pub(crate) fn check_gemini_name(
    dialect: Dialect,
    skill: &SkillRegistration,
) -> Result<(), DialectError> {
    let name = skill.wire_name;
    let first_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || name.len() > 128 {
        return Err(DialectError::InvalidName {
            dialect,
            name: name.to_string(),
            reason: "must start with a letter or `_` and be at most 128 characters".into(),
        });
    }
    Ok(())
}

/// Gemini's `parameters` form (OpenAPI 3.0 subset): refs inlined, upper-case types,
/// `nullable` instead of type arrays, string-only enums, no `additionalProperties`, `oneOf`,
/// `const`, `$defs` or `title`.
pub(crate) fn gemini_openapi(params: &Value) -> Result<Value, Unfit> {
    let mut schema = inline_refs(params)?;
    collapse_const_unions(&mut schema);
    openapi_node(&mut schema, "")?;
    Ok(schema)
}

/// Gemini's `parametersJsonSchema` form: JSON Schema with `$defs`/`$ref` kept; `const`
/// becomes a one-value `enum`; `title`, `examples`, exclusive bounds and string formats move
/// out (as pydantic-ai does).
pub(crate) fn gemini_json_schema(params: &Value) -> Value {
    let mut schema = params.clone();
    json_schema_node(&mut schema);
    schema
}

pub(crate) fn json_schema_node(node: &mut Value) {
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
pub(crate) fn is_gemini_property_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
}

pub(crate) const GEMINI_OPENAPI_KEYWORDS: &[&str] = &[
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

pub(crate) fn openapi_node(node: &mut Value, pointer: &str) -> Result<(), Unfit> {
    let Value::Object(map) = node else {
        return Err(unsupported(
            pointer,
            "an untyped value needs `parametersJsonSchema`",
        ));
    };
    rename_one_of_and_const(map);
    if let Some(Value::Array(examples)) = map.remove("examples") {
        if let Some(first) = examples.into_iter().next() {
            map.insert("example".into(), first);
        }
    }
    fold_null_option(map);
    fold_type_array(map);
    stringify_enum(map);
    // Folding a single option in may bring `oneOf` or `const` back.
    rename_one_of_and_const(map);
    move_unsupported_format(map);
    reject_free_form_map(map, pointer)?;
    move_unknown_keywords(map);
    if !map.contains_key("type") && !map.contains_key("anyOf") {
        return Err(unsupported(
            pointer,
            "an untyped value needs `parametersJsonSchema`",
        ));
    }
    lower_children(map, pointer)?;
    if let Some(Value::String(t)) = map.get_mut("type") {
        *t = t.to_ascii_uppercase();
    }
    Ok(())
}

/// OpenAPI has neither `oneOf` nor `const`: they become `anyOf` and a one-value `enum`.
fn rename_one_of_and_const(map: &mut Map<String, Value>) {
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if let Some(c) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![c]));
    }
}

/// OpenAPI marks optionality with `nullable`: `anyOf: [X, {type: null}]` becomes X + nullable.
fn fold_null_option(map: &mut Map<String, Value>) {
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
}

/// OpenAPI has no type arrays: they become one type + nullable, or `anyOf`.
fn fold_type_array(map: &mut Map<String, Value>) {
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
}

/// Gemini's enums are strings only: values are stringified and a `null` becomes nullable.
fn stringify_enum(map: &mut Map<String, Value>) {
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
}

/// Gemini knows only a few string formats; any other moves into the description.
fn move_unsupported_format(map: &mut Map<String, Value>) {
    if let Some(Value::String(f)) = map.get("format") {
        if !matches!(f.as_str(), "date-time" | "date" | "time" | "enum") {
            let v = map.remove("format").unwrap_or(Value::Null);
            note_in_description(map, "format", &v);
        }
    }
}

/// `parameters` cannot say "any keys": an open object without properties is unfit.
fn reject_free_form_map(map: &Map<String, Value>, pointer: &str) -> Result<(), Unfit> {
    let is_object = map.get("type") == Some(&json!("object")) || map.contains_key("properties");
    if is_object && is_free_form_map(map) {
        return Err(unsupported(
            pointer,
            "a free-form map needs `parametersJsonSchema`",
        ));
    }
    Ok(())
}

/// Keywords outside the OpenAPI subset are removed; the meaningful ones are kept as prose.
fn move_unknown_keywords(map: &mut Map<String, Value>) {
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
}

/// Every nested schema (properties, items, options) must fit `parameters` too.
fn lower_children(map: &mut Map<String, Value>, pointer: &str) -> Result<(), Unfit> {
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
    Ok(())
}
