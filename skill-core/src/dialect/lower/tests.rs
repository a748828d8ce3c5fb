use serde_json::json;

use super::{explicit_any_schemas, split_type_arrays};

#[test]
fn schemas_that_accept_anything_say_so() {
    let any = json!([
        { "type": "object" }, { "type": "array" }, { "type": "string" },
        { "type": "number" }, { "type": "boolean" }, { "type": "null" }
    ]);
    let mut schema = json!({
        "type": "object",
        "properties": {
            "payload": true,
            "documented": { "description": "Anything." },
            "never": false,
            "list": { "type": "array", "items": true },
            "map": { "type": "object", "additionalProperties": true },
            "typed": { "type": "string", "description": "Text." },
            "nothing": { "not": {} }
        },
        "$defs": { "Free": {} }
    });
    explicit_any_schemas(&mut schema);
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "payload": { "anyOf": any },
                "documented": { "description": "Anything.", "anyOf": any },
                "never": { "not": {} },
                "list": { "type": "array", "items": { "anyOf": any } },
                "map": { "type": "object", "additionalProperties": true },
                "typed": { "type": "string", "description": "Text." },
                "nothing": { "not": {} }
            },
            "$defs": { "Free": { "anyOf": any } }
        })
    );
    let validator = jsonschema::validator_for(&schema).unwrap();
    for value in [
        json!(1),
        json!("x"),
        json!(null),
        json!([1]),
        json!({"a": 1}),
        json!(true),
    ] {
        assert!(validator.is_valid(&json!({ "payload": value, "list": [value] })));
    }
    assert!(!validator.is_valid(&json!({ "never": 1 })));
}

#[test]
fn nullable_types_become_single_type_branches() {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "rate": { "type": ["number", "null"], "minimum": 0, "description": "d" },
            "tags": { "type": ["array", "null"], "items": { "type": ["string", "null"] } },
            "one": { "type": ["integer"] }
        },
        "$defs": { "T": { "type": ["string", "null"], "format": "date" } }
    });
    split_type_arrays(&mut schema);
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "rate": {
                    "anyOf": [{ "type": "number" }, { "type": "null" }],
                    "minimum": 0,
                    "description": "d"
                },
                "tags": {
                    "anyOf": [{ "type": "array" }, { "type": "null" }],
                    "items": { "anyOf": [{ "type": "string" }, { "type": "null" }] }
                },
                "one": { "type": "integer" }
            },
            "$defs": {
                "T": { "anyOf": [{ "type": "string" }, { "type": "null" }], "format": "date" }
            }
        })
    );
}

#[test]
fn an_existing_any_of_is_kept_and_values_are_not_rewritten() {
    let mut schema = json!({
        "type": ["object", "null"],
        "anyOf": [{ "required": ["a"] }, { "required": ["b"] }],
        "default": { "type": ["x", "y"] },
        "enum": [{ "type": ["x", "y"] }, null],
        "properties": { "type": { "type": "string" } }
    });
    split_type_arrays(&mut schema);
    assert_eq!(
        schema,
        json!({
            "anyOf": [{ "required": ["a"] }, { "required": ["b"] }],
            "allOf": [{ "anyOf": [{ "type": "object" }, { "type": "null" }] }],
            "default": { "type": ["x", "y"] },
            "enum": [{ "type": ["x", "y"] }, null],
            "properties": { "type": { "type": "string" } }
        })
    );
}

#[test]
fn accepted_values_do_not_change() {
    let original = json!({
        "type": "object",
        "properties": {
            "n": { "type": ["integer", "null"], "minimum": 1 },
            "s": { "type": ["string", "null"], "maxLength": 3 }
        }
    });
    let mut split = original.clone();
    split_type_arrays(&mut split);
    let before = jsonschema::validator_for(&original).unwrap();
    let after = jsonschema::validator_for(&split).unwrap();
    for value in [
        json!({}),
        json!({ "n": null, "s": null }),
        json!({ "n": 2, "s": "abc" }),
        json!({ "n": 0 }),
        json!({ "n": "2" }),
        json!({ "s": "abcd" }),
        json!({ "s": 1 }),
        json!({ "n": 1.5 }),
    ] {
        assert_eq!(before.is_valid(&value), after.is_valid(&value), "{value}");
    }
}
