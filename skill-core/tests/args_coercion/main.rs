//! The coercion table of seed 003 (and pydantic v2 lax mode where the seed is silent), row by
//! row; the parameter catalog; and the dispatcher's lenient path, model-fixable errors and
//! confirmation gating.
//!
//! A binary of its own: its skills join the link-time registry it reads
//! (`Dispatcher::from_inventory`), which the suites in `tests/it` must not see.

#[path = "../common/dialect_examples.rs"]
mod examples;

use std::sync::atomic::Ordering;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use toolwright::args::coerce::{coerce, Report};
use toolwright::args::ShapeTree;
use toolwright::catalog::{Cardinality, ValueKind};
use toolwright::prelude::*;
use toolwright::{codes, ConfirmationError, Confirmed};

/// Coerces `input` against `schema` (as the value of one required property) and returns
/// the fixed value, the warning codes and the error codes.
fn run(schema: Value, input: Value) -> (Value, Vec<String>, Vec<String>) {
    let root = json!({"type": "object", "properties": {"v": schema}, "required": ["v"]});
    let tree = ShapeTree::compile(&root);
    let mut report = Report::default();
    let out = coerce(&tree, &tree.root, json!({ "v": input }), "$", &mut report);
    for w in &report.warnings {
        assert!(
            w.path.starts_with("$.v"),
            "warning path {} names the argument",
            w.path
        );
        assert!(!w.message.is_empty() && !w.expected.is_empty());
    }
    for e in &report.errors {
        assert!(
            e.path.starts_with("$.v"),
            "error path {} names the argument",
            e.path
        );
        assert!(!e.message.is_empty() && !e.expected.is_empty());
    }
    (
        out["v"].clone(),
        report.warnings.iter().map(|w| w.code.clone()).collect(),
        report.errors.iter().map(|e| e.code.clone()).collect(),
    )
}

/// What a row expects: the fixed value and the warning code, or the error code.
enum Want {
    /// Accepted unchanged, no warning.
    Same,
    /// Fixed to the value, with this warning code.
    Fixed(Value, &'static str),
    /// Refused with this error code.
    Error(&'static str),
}
use Want::*;

mod catalog;
mod confirmation;
mod lenient;

fn check_table(schema: Value, rows: Vec<(Value, Want)>) {
    for (input, want) in rows {
        let (out, warnings, errors) = run(schema.clone(), input.clone());
        match want {
            Same => {
                assert_eq!(out, input, "{schema} <- {input}: unchanged");
                assert!(
                    warnings.is_empty() && errors.is_empty(),
                    "{schema} <- {input}: clean, got {warnings:?} {errors:?}"
                );
            }
            Fixed(expected, code) => {
                assert_eq!(out, expected, "{schema} <- {input}");
                assert!(
                    errors.is_empty(),
                    "{schema} <- {input}: no error, got {errors:?}"
                );
                assert!(
                    warnings.iter().any(|w| w == code),
                    "{schema} <- {input}: warning {code}, got {warnings:?}"
                );
            }
            Error(code) => {
                assert_eq!(
                    errors,
                    vec![code.to_string()],
                    "{schema} <- {input}: error {code}"
                );
            }
        }
    }
}

#[test]
fn booleans() {
    let mut rows = vec![
        (json!(true), Same),
        (json!(false), Same),
        (json!(1), Fixed(json!(true), "number_to_boolean")),
        (json!(0), Fixed(json!(false), "number_to_boolean")),
        (json!(1.0), Fixed(json!(true), "number_to_boolean")),
        (json!(0.0), Fixed(json!(false), "number_to_boolean")),
        (json!(2), Error("bool_parsing")),
        (json!(-1), Error("bool_parsing")),
        (json!(1.5), Error("bool_parsing")),
        (json!(" true"), Error("bool_parsing")),
        (json!("true "), Error("bool_parsing")),
        (json!(""), Error("bool_parsing")),
        (json!("2"), Error("bool_parsing")),
        (json!("1.0"), Error("bool_parsing")),
        (json!("none"), Error("bool_parsing")),
        (json!("null"), Error("bool_parsing")),
        (json!(null), Error("bool_type")),
        (json!([]), Error("bool_type")),
        (json!({}), Error("bool_type")),
    ];
    for t in [
        "true", "t", "yes", "y", "on", "1", "TRUE", "tRuE", "Yes", "oN",
    ] {
        rows.push((json!(t), Fixed(json!(true), "string_to_boolean")));
    }
    for f in ["false", "f", "no", "n", "off", "0", "OFF", "False"] {
        rows.push((json!(f), Fixed(json!(false), "string_to_boolean")));
    }
    check_table(json!({"type": "boolean"}), rows);
}

#[test]
fn integers() {
    let mut rows = vec![
        (json!(42), Same),
        (json!(-7), Same),
        (json!(u64::MAX), Same),
        (json!(42.0), Fixed(json!(42), "float_to_integer")),
        (json!(-0.0), Fixed(json!(0), "float_to_integer")),
        (json!(1e2), Fixed(json!(100), "float_to_integer")),
        // Seed 003 wins over pydantic: a decimal is truncated with a warning.
        (json!(42.5), Fixed(json!(42), "decimal_truncated")),
        (json!(-42.9), Fixed(json!(-42), "decimal_truncated")),
        (json!(1e20), Error("int_parsing_size")),
        (json!(9.3e18), Error("int_parsing_size")),
        (json!(true), Fixed(json!(1), "boolean_to_integer")),
        (json!(false), Fixed(json!(0), "boolean_to_integer")),
        (json!("42.5"), Fixed(json!(42), "decimal_truncated")),
        // Numeric strings pydantic refuses for `int` but the seed reads as numbers.
        (json!("42."), Fixed(json!(42), "float_to_integer")),
        (json!("1e3"), Fixed(json!(1000), "float_to_integer")),
        (json!("99999999999999999999"), Error("int_parsing_size")),
        (json!(null), Error("int_type")),
        (json!([42]), Error("int_type")),
        (json!({"a": 1}), Error("int_type")),
    ];
    for (text, n) in [
        ("42", 42),
        (" 42 ", 42),
        (" \t42\n", 42),
        (" +42 ", 42),
        ("+42", 42),
        ("-42", -42),
        ("042", 42),
        ("00", 0),
        ("-0", 0),
        ("42.0", 42),
        ("42.00", 42),
        ("4_2.0", 42),
        ("1_000", 1000),
        ("1_000_000", 1_000_000),
    ] {
        rows.push((json!(text), Fixed(json!(n), "string_to_integer")));
    }
    for bad in [
        "1__0",
        "_10",
        "10_",
        "",
        " ",
        "4 2",
        "- 42",
        "\u{2212}42",
        "\u{ff11}\u{ff12}",
        "42\u{0}",
        "0x1A",
        "0b101",
        "0o17",
        "abc",
    ] {
        rows.push((json!(bad), Error("int_parsing")));
    }
    check_table(json!({"type": "integer"}), rows);
}

#[test]
fn numbers() {
    let mut rows = vec![
        (json!(4), Same),
        (json!(4.2), Same),
        (json!(true), Fixed(json!(1), "boolean_to_number")),
        (json!(null), Error("float_type")),
        (json!([1.0]), Error("float_type")),
    ];
    for (text, x) in [
        ("4.2", 4.2),
        (" 4.2 ", 4.2),
        ("+4.2", 4.2),
        ("-4.2", -4.2),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e3", 1000.0),
        ("1E-3", 0.001),
        ("1.5e3", 1500.0),
        ("1_000.5", 1000.5),
        ("1_0.5", 10.5),
    ] {
        rows.push((json!(text), Fixed(json!(x), "string_to_number")));
    }
    rows.push((json!("42"), Fixed(json!(42), "string_to_number")));
    for bad in [
        "0x10", "", "  ", "4,2", "1,000", "1e", "e3", "0.1f", "1d", ".",
    ] {
        rows.push((json!(bad), Error("float_parsing")));
    }
    // JSON cannot carry infinities or NaN, so they are refused rather than kept.
    for non_finite in ["inf", "+inf", "INF", "Infinity", "-inf", "nan", "NaN"] {
        rows.push((json!(non_finite), Error("finite_number")));
    }
    check_table(json!({"type": "number"}), rows);
}

#[test]
fn bounded_numbers_report_out_of_range_values() {
    check_table(
        json!({"type": "integer", "minimum": 0, "maximum": 255}),
        vec![
            (json!(0), Same),
            (json!(255), Same),
            (json!("7"), Fixed(json!(7), "string_to_integer")),
            (json!(-1), Error("out_of_range")),
            (json!("256"), Error("out_of_range")),
            (json!("x"), Error("int_parsing")),
        ],
    );
    let (_, _, errors) = run(json!({"type": "number", "minimum": 0.5}), json!(0.25));
    assert_eq!(errors, ["out_of_range"]);
}

#[test]
fn strings_keep_text_and_retain_literals() {
    check_table(
        json!({"type": "string"}),
        vec![
            (json!("x"), Same),
            (json!(""), Same),
            (json!(" padded "), Same),
            // A JSON-looking string stays a string when the target is a string.
            (json!("{\"a\": 1}"), Same),
            (json!("[1, 2]"), Same),
            (json!("123"), Same),
            // Seed 003: a non-string literal is kept as its text, with a warning.
            (json!(42), Fixed(json!("42"), "non_string_literal_retained")),
            (
                json!(4.2),
                Fixed(json!("4.2"), "non_string_literal_retained"),
            ),
            (
                json!(true),
                Fixed(json!("true"), "non_string_literal_retained"),
            ),
            (json!(null), Error("string_type")),
            (json!([1]), Error("string_type")),
            (json!({"a": 1}), Error("string_type")),
        ],
    );
}

#[test]
fn lists_coerce_items_wrap_scalars_and_decode_json_text() {
    let list_of_int = json!({"type": "array", "items": {"type": "integer"}});
    check_table(
        list_of_int.clone(),
        vec![
            (json!([1, 2]), Same),
            (json!([]), Same),
            (
                json!(["1", 2.0, true]),
                Fixed(json!([1, 2, 1]), "string_to_integer"),
            ),
            (json!(5), Fixed(json!([5]), "scalar_wrapped")),
            (json!("5"), Fixed(json!([5]), "scalar_wrapped")),
            (json!("[1, 2]"), Fixed(json!([1, 2]), "json_string_decoded")),
            (
                json!("[1, \"2\"]"),
                Fixed(json!([1, 2]), "json_string_decoded"),
            ),
            (json!("[1, \"x\"]"), Error("list_type")),
            (json!(null), Error("list_type")),
            (json!("abc"), Error("list_type")),
        ],
    );
    let (out, _, errors) = run(list_of_int, json!([1, "x", 3]));
    assert_eq!(out, json!([1, "x", 3]));
    assert_eq!(errors, ["int_parsing"]);
    let (_, _, errors) = run(
        json!({"type": "array", "items": {"type": "integer"}}),
        json!([1, "x"]),
    );
    assert_eq!(errors.len(), 1);

    check_table(
        json!({"type": "array", "items": {"type": "string"}}),
        vec![
            (json!(["a"]), Same),
            (json!("a"), Fixed(json!(["a"]), "scalar_wrapped")),
            (
                json!("[\"a\", \"b\"]"),
                Fixed(json!(["a", "b"]), "json_string_decoded"),
            ),
            (
                json!(["yes", 1]),
                Fixed(json!(["yes", "1"]), "non_string_literal_retained"),
            ),
        ],
    );
    check_table(
        json!({"type": "array", "items": {"type": "boolean"}}),
        vec![(
            json!(["yes", "0", 1]),
            Fixed(json!([true, false, true]), "string_to_boolean"),
        )],
    );
}

#[test]
fn item_errors_carry_their_index_path() {
    let root = json!({"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "integer"}}}});
    let tree = ShapeTree::compile(&root);
    let mut report = Report::default();
    coerce(
        &tree,
        &tree.root,
        json!({"ids": [1, "two", 3]}),
        "$",
        &mut report,
    );
    let e = &report.errors[0];
    assert_eq!(
        (e.path.as_str(), e.expected.as_str(), &e.raw),
        ("$.ids[1]", "integer", &json!("two"))
    );
}

#[test]
fn objects_and_maps() {
    let object = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "note": {"type": "string"}},
        "required": ["a"]
    });
    check_table(
        object.clone(),
        vec![
            (json!({"a": 1}), Same),
            (json!({"a": 1, "extra": true}), Same),
            (
                json!({"a": "1"}),
                Fixed(json!({"a": 1}), "string_to_integer"),
            ),
            (
                json!("{\"a\": 1}"),
                Fixed(json!({"a": 1}), "json_string_decoded"),
            ),
            (
                json!("{\"a\": \"1\"}"),
                Fixed(json!({"a": 1}), "json_string_decoded"),
            ),
            // Decoded text is kept only if it then validates.
            (json!("{\"a\": \"x\"}"), Error("model_type")),
            (json!("a=1"), Error("model_type")),
            (json!(null), Error("model_type")),
            (json!([1]), Error("model_type")),
            (
                json!({"a": 1, "note": null}),
                Fixed(json!({"a": 1}), "null_as_absent"),
            ),
        ],
    );
    let (_, _, errors) = run(object, json!({}));
    assert_eq!(errors, ["missing"]);

    check_table(
        json!({"type": "object", "additionalProperties": {"type": "number"}}),
        vec![
            (json!({"a": 1.5}), Same),
            (
                json!({"a": "1e3"}),
                Fixed(json!({"a": 1000.0}), "string_to_number"),
            ),
            (
                json!("{\"a\": 1}"),
                Fixed(json!({"a": 1}), "json_string_decoded"),
            ),
            (json!([["a", 1]]), Error("dict_type")),
            (json!("a=1"), Error("dict_type")),
            (json!(null), Error("dict_type")),
        ],
    );
}

#[test]
fn optionals_enums_and_unions() {
    check_table(
        json!({"type": ["integer", "null"]}),
        vec![
            (json!(null), Same),
            (json!(3), Same),
            (json!("3"), Fixed(json!(3), "string_to_integer")),
            (json!("null"), Error("int_parsing")),
            (json!(""), Error("int_parsing")),
        ],
    );
    let colours = json!({"type": "string", "enum": ["red", "green"]});
    check_table(
        colours,
        vec![
            (json!("red"), Same),
            (json!("Red"), Fixed(json!("red"), "enum_normalized")),
            (json!("GREEN"), Fixed(json!("green"), "enum_normalized")),
            (json!(" red "), Fixed(json!("red"), "enum_normalized")),
            (json!("blue"), Error("enum")),
            (json!(1), Error("enum")),
            (json!(null), Error("enum")),
        ],
    );
    // schemars writes documented Rust enums as `oneOf` of `const`s.
    check_table(
        json!({"oneOf": [{"const": "low", "type": "string"}, {"const": "high", "type": "string"}]}),
        vec![
            (json!("high"), Same),
            (json!("HIGH"), Fixed(json!("high"), "enum_normalized")),
            (json!("mid"), Error("enum")),
        ],
    );
    check_table(
        json!({"enum": [1, 2, 3]}),
        vec![
            (json!(2), Same),
            (json!("2"), Fixed(json!(2), "enum_normalized")),
            (json!(4), Error("enum")),
        ],
    );
    // pydantic smart union: an exact match wins over a lax one.
    check_table(
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        vec![
            (json!("42"), Same),
            (json!(42), Same),
            (json!(null), Error("union_mismatch")),
        ],
    );
    check_table(
        json!({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}),
        vec![
            (json!("true"), Fixed(json!(true), "string_to_boolean")),
            (json!("7"), Fixed(json!(7), "string_to_integer")),
        ],
    );
}

#[test]
fn case_sensitive_enums_refuse_other_casing() {
    let root = json!({"type": "object", "properties": {"v": {"enum": ["Red"]}}});
    let mut tree = ShapeTree::compile(&root);
    if let toolwright::args::Shape::Object { properties, .. } = &mut tree.root {
        if let toolwright::args::Shape::Enum { case_sensitive, .. } = &mut properties[0].1 {
            *case_sensitive = true;
        }
    }
    let mut report = Report::default();
    coerce(&tree, &tree.root, json!({"v": "red"}), "$", &mut report);
    assert_eq!(report.errors[0].code, "enum");
}

#[test]
fn timestamps_and_uris() {
    check_table(
        json!({"type": "string", "format": "date-time"}),
        vec![
            (json!("2024-05-01T12:00:00Z"), Same),
            (json!("2024-05-01T12:00:00.5+08:00"), Same),
            (
                json!("2024-05-01 12:00:00Z"),
                Fixed(json!("2024-05-01T12:00:00Z"), "timestamp_normalized"),
            ),
            (
                json!("2024-05-01T12:00:00"),
                Fixed(json!("2024-05-01T12:00:00Z"), "timestamp_assumed_utc"),
            ),
            (
                json!("2024-05-01T12:00"),
                Fixed(json!("2024-05-01T12:00:00Z"), "timestamp_assumed_utc"),
            ),
            (
                json!("2024-05-01"),
                Fixed(json!("2024-05-01T00:00:00Z"), "date_to_timestamp"),
            ),
            (
                json!(1714564800),
                Fixed(json!("2024-05-01T12:00:00Z"), "unix_to_timestamp"),
            ),
            (
                json!(1714564800000_i64),
                Fixed(json!("2024-05-01T12:00:00Z"), "unix_to_timestamp"),
            ),
            (json!("yesterday"), Error("timestamp_parsing")),
            (json!("2024-13-01"), Error("timestamp_parsing")),
            (json!(true), Error("string_type")),
        ],
    );
    check_table(
        json!({"type": "string", "format": "uri"}),
        vec![
            (json!("https://example.com/x?q=1"), Same),
            (json!("mailto:a@example.com"), Same),
            (
                json!(" https://example.com "),
                Fixed(json!("https://example.com"), "uri_trimmed"),
            ),
            (json!("/relative/path"), Error("uri_parsing")),
            (json!("example.com"), Error("uri_parsing")),
            (json!(3), Error("string_type")),
        ],
    );
}

#[test]
fn coerced_timestamps_deserialize_into_chrono() {
    let (out, _, _) = run(
        json!({"type": "string", "format": "date-time"}),
        json!("2024-05-01 08:30:00+02:00"),
    );
    let parsed: DateTime<Utc> = serde_json::from_value(out).unwrap();
    assert_eq!(parsed.to_rfc3339(), "2024-05-01T06:30:00+00:00");
}

/// The dispatcher of every skill registered in this binary.
fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("registry is valid")
}
