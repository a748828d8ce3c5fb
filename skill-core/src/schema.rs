//! The canonical input schema of a skill, built once from the input struct's `JsonSchema`.
//!
//! schemars gives a JSON Schema 2020-12 document; the canonical form keeps it as the neutral
//! description (with `$defs` when types are shared or nested) and removes only what no
//! consumer wants: the root `$schema` and `title`, and Rust-specific numeric `format`s such as
//! `uint32` that providers reject. Dialect renderers lower it further.

use schemars::JsonSchema;
use serde_json::{Map, Value};

/// Numeric formats schemars emits for Rust integer and float types.
const RUST_NUMERIC_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64",
    "uint128", "uint", "float", "double",
];

/// The root schema of `T` as schemars writes it: the one step of building a schema that
/// depends on the type. Everything after it is done once, by the non-generic fns below, so
/// each skill instantiates only this.
pub fn root_schema_of<T: JsonSchema>() -> Value {
    schemars::schema_for!(T).to_value()
}

/// Canonical input schema of `T`; names in `prepared` are dropped from `required` because the
/// host fills them in when the model leaves them out.
pub fn input_schema_of<T: JsonSchema>(prepared: &[&str]) -> Value {
    canonical_input_schema(root_schema_of::<T>(), prepared)
}

/// The canonical input schema from schemars' root schema (see [`input_schema_of`]).
pub fn canonical_input_schema(mut schema: Value, prepared: &[&str]) -> Value {
    if let Value::Object(root) = &mut schema {
        root.remove("$schema");
        root.remove("title");
        if !root.contains_key("type") {
            root.insert("type".into(), Value::String("object".into()));
        }
        if !root.contains_key("properties") {
            root.insert("properties".into(), Value::Object(Map::new()));
        }
        let required = root
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = required {
            list.retain(|v| !v.as_str().is_some_and(|name| prepared.contains(&name)));
        }
    }
    strip_numeric_formats(&mut schema);
    schema
}

/// Canonical output schema of `T`.
pub fn output_schema_of<T: JsonSchema>() -> Value {
    canonical_output_schema(root_schema_of::<T>())
}

/// The canonical output schema from schemars' root schema (see [`output_schema_of`]).
pub fn canonical_output_schema(mut schema: Value) -> Value {
    if let Value::Object(root) = &mut schema {
        root.remove("$schema");
    }
    strip_numeric_formats(&mut schema);
    schema
}

/// Removes Rust numeric `format`s everywhere in a schema.
pub(crate) fn strip_numeric_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| RUST_NUMERIC_FORMATS.contains(&f))
            {
                map.remove("format");
            }
            for value in map.values_mut() {
                strip_numeric_formats(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_numeric_formats),
        _ => {}
    }
}
