//! The coercion table of seed 003 (and pydantic v2 lax mode where the seed is silent), row by
//! row; the parameter catalog; and the dispatcher's lenient path, model-fixable errors and
//! confirmation gating.
//!
//! A binary of its own: its skills join the link-time registry it reads
//! (`Dispatcher::from_inventory`), which the suites in `tests/it` must not see.

#[path = "common/dialect_examples.rs"]
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

// ---- catalog ---------------------------------------------------------------------------

/// Attach a file to a client record.
#[skill(
    id = "files.attach",
    domain = "files",
    category = "update",
    requires_confirmation = false
)]
fn attach(
    /// Attachment reference of the uploaded file.
    #[arg(kind = "attachment_reference")]
    file: String,
    /// Exact status token (case matters here).
    #[arg(case_sensitive = true)]
    status: examples::ClientStatus,
    /// When the file was received.
    received: DateTime<Utc>,
    /// Related record ids.
    ids: Vec<i64>,
    /// Free-form labels.
    labels: std::collections::HashMap<String, String>,
    /// Score between 0 and 1.
    score: Option<f64>,
) -> String {
    format!(
        "{file} {status:?} {received} {} {} {score:?}",
        ids.len(),
        labels.len()
    )
}

/// Input of an `#[input]` skill.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RenameInput {
    /// The record to rename.
    pub id: String,
    /// Whether to keep the old name as an alias.
    #[serde(default)]
    pub keep_alias: bool,
}

/// Rename a record.
#[skill(
    id = "files.rename",
    category = "update",
    requires_confirmation = false
)]
fn rename(#[input] input: RenameInput) -> String {
    format!("{} {}", input.id, input.keep_alias)
}

fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("registry is valid")
}

#[test]
fn catalog_derives_kind_cardinality_and_constraints_from_types() {
    let d = dispatcher();
    let search = d.catalog().get("crm_search_client").expect("by wire name");
    assert_eq!(search.id, "crm.search_client");
    let keyword = search.parameter("keyword").unwrap();
    assert_eq!(
        (keyword.value_kind, keyword.cardinality, keyword.required),
        (ValueKind::String, Cardinality::Single, true)
    );
    assert!(keyword.description.starts_with("Search keyword"));
    let limit = search.parameter("limit").unwrap();
    assert_eq!(
        (limit.value_kind, limit.cardinality, limit.required),
        (ValueKind::Integer, Cardinality::Optional, false)
    );
    assert_eq!(limit.default, Some(json!(10)));
    assert_eq!(limit.example, Some(json!(25)));
    let status = search.parameter("status").unwrap();
    assert_eq!(
        (status.value_kind, status.cardinality),
        (ValueKind::EnumToken, Cardinality::Optional)
    );
    let constraint = status.enum_constraint.as_ref().unwrap();
    assert_eq!(constraint.allowed_values, ["active", "dormant", "archived"]);
    assert!(!constraint.case_sensitive);
    assert_eq!(
        search.parameter("include_archived").unwrap().default,
        Some(json!(false))
    );

    let attach = d.catalog().get("files.attach").unwrap();
    let kinds: Vec<(&str, ValueKind, Cardinality)> = attach
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.value_kind, p.cardinality))
        .collect();
    assert!(kinds.contains(&("file", ValueKind::AttachmentReference, Cardinality::Single)));
    assert!(kinds.contains(&("received", ValueKind::Timestamp, Cardinality::Single)));
    assert!(kinds.contains(&("ids", ValueKind::Integer, Cardinality::List)));
    assert!(kinds.contains(&("labels", ValueKind::String, Cardinality::Map)));
    assert!(kinds.contains(&("score", ValueKind::Number, Cardinality::Optional)));
    assert!(
        attach
            .parameter("status")
            .unwrap()
            .enum_constraint
            .as_ref()
            .unwrap()
            .case_sensitive
    );

    let create = d.catalog().get("crm.create_client").unwrap();
    assert!(create.requires_confirmation);
    assert_eq!(
        create.parameter("website").unwrap().value_kind,
        ValueKind::Uri
    );
    assert_eq!(
        create.parameter("tags").unwrap().cardinality,
        Cardinality::List
    );
    let stats = d.catalog().get("crm.contact_stats").unwrap();
    let range = stats.parameter("date_range").unwrap();
    assert_eq!(
        (range.value_kind, range.cardinality),
        (ValueKind::JsonObject, Cardinality::Optional)
    );
    assert_eq!(range.description, "Only projects in this period.");
    assert_eq!(
        stats.parameter("weights").unwrap().cardinality,
        Cardinality::Map
    );

    // `#[input]` skills have no ParamInfo; the catalog comes from the schema alone.
    let rename = d.catalog().get("files.rename").unwrap();
    assert_eq!(rename.parameters.len(), 2);
    assert_eq!(
        rename.parameter("id").unwrap().description,
        "The record to rename."
    );
    assert_eq!(
        rename.parameter("keep_alias").unwrap().value_kind,
        ValueKind::Boolean
    );

    // The catalog serializes for a planner or UI.
    let json = serde_json::to_value(&**search).unwrap();
    assert_eq!(json["parameters"][0]["value_kind"], "Boolean");
}

#[test]
fn case_sensitive_override_reaches_the_parser() {
    let d = dispatcher();
    let args = json!({"file": "att-1", "status": "Active", "received": "2024-05-01", "ids": 5, "labels": {}});
    let parse = d.parse_arguments("files.attach", &args);
    assert_eq!(parse.errors.len(), 1, "{:?}", parse.errors);
    assert_eq!(parse.errors[0].path, "$.status");
    let args = json!({"file": "att-1", "status": "active", "received": "2024-05-01", "ids": "5", "labels": "{\"a\": \"b\"}"});
    let parse = d.parse_arguments("files.attach", &args);
    assert!(parse.errors.is_empty(), "{:?}", parse.errors);
    assert_eq!(parse.arguments["ids"], json!([5]));
    assert_eq!(parse.arguments["labels"], json!({"a": "b"}));
    assert_eq!(parse.arguments["received"], json!("2024-05-01T00:00:00Z"));
}

#[test]
fn unknown_tools_are_read_permissively_with_a_warning() {
    let d = dispatcher();
    let parse = d.parse_arguments("crm.nope", r#"{"a": "1"}"#);
    assert_eq!(parse.skill_id, None);
    assert_eq!(
        parse.arguments,
        json!({"a": "1"}),
        "no type guidance: nothing coerced"
    );
    assert_eq!(parse.warnings[0].code, "tool_definition_missing");
    assert_eq!(parse.raw.as_str(), r#"{"a": "1"}"#);
    let parse = d.parse_arguments("crm.nope", "not json");
    assert_eq!(parse.errors[0].code, "invalid_json");
}

#[test]
fn raw_arguments_are_kept_and_whole_call_problems_are_reported_at_root() {
    let d = dispatcher();
    let raw = r#"{"keyword": "cit", "limit": "3", "surprise": 1}"#;
    let parse = d.parse_arguments("crm.search_client", raw);
    assert_eq!(parse.raw.as_str(), raw);
    assert_eq!(parse.arguments["limit"], json!(3));
    let codes: Vec<&str> = parse.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["unknown_argument", "string_to_integer"]);
    let parse = d.parse_arguments("crm.search_client", "[1, 2]");
    assert_eq!(
        (parse.errors[0].code.as_str(), parse.errors[0].path.as_str()),
        ("arguments_not_object", "$")
    );
    let parse = d.parse_arguments("crm.search_client", r#""{\"keyword\": \"x\"}""#);
    assert!(parse.errors.is_empty());
    assert_eq!(parse.warnings[0].code, "json_string_decoded");
}

// ---- dispatcher: lenient path, fixable errors ------------------------------------------

/// Serializes the tests that count runs of `crm.search_client` (the counter is global).
static SEARCH_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn well_typed_calls_take_the_fast_path_without_warnings() {
    let _serial = SEARCH_LOCK.lock().await;
    let d = dispatcher();
    let r = d
        .call(
            "crm.search_client",
            r#"{"keyword": "cit", "limit": 1}"#,
            &SkillContext::new(),
        )
        .await;
    assert!(r.success, "{:?}", r.error);
    assert!(r.warnings.is_empty());
    assert_eq!(r.data_value()["total"], 1);
}

#[tokio::test]
async fn coerced_calls_run_once_and_carry_warnings() {
    let _serial = SEARCH_LOCK.lock().await;
    let d = dispatcher();
    let before = examples::SEARCH_RUNS.load(Ordering::SeqCst);
    let r = d
        .call(
            "crm_search_client",
            r#"{"keyword": "cit", "limit": "1", "include_archived": "yes", "status": "ACTIVE"}"#,
            &SkillContext::new(),
        )
        .await;
    assert!(r.success, "{:?}", r.error);
    assert_eq!(
        examples::SEARCH_RUNS.load(Ordering::SeqCst) - before,
        1,
        "the body ran exactly once"
    );
    let codes: Vec<&str> = r.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(
        codes,
        ["string_to_boolean", "string_to_integer", "enum_normalized"]
    );
    assert_eq!(r.data_value()["items"][0]["name"], "CITIC Press");
    assert!(
        r.to_json().contains("string_to_integer"),
        "warnings travel with the result"
    );
}

#[tokio::test]
async fn unusable_arguments_return_a_retry_message_and_do_not_run() {
    let _serial = SEARCH_LOCK.lock().await;
    let d = dispatcher();
    let before = examples::SEARCH_RUNS.load(Ordering::SeqCst);
    let r = d
        .call(
            "crm.search_client",
            r#"{"limit": "many", "include_archived": "perhaps"}"#,
            &SkillContext::new(),
        )
        .await;
    assert_eq!(
        examples::SEARCH_RUNS.load(Ordering::SeqCst),
        before,
        "not executed"
    );
    let err = r.error.as_ref().unwrap();
    assert_eq!(err.code, codes::INVALID_ARGUMENTS);
    let msg = &err.message;
    assert!(
        msg.starts_with("3 problems with the arguments of `crm_search_client`"),
        "{msg}"
    );
    assert!(msg.contains("- `include_archived` (at $.include_archived): expected boolean, got string \"perhaps\""), "{msg}");
    assert!(
        msg.contains("- `keyword` (at $.keyword): expected string, got nothing"),
        "{msg}"
    );
    assert!(
        msg.contains("- `limit` (at $.limit): expected integer, got string \"many\""),
        "{msg}"
    );
    assert!(
        msg.ends_with("Correct these arguments and call `crm_search_client` again."),
        "{msg}"
    );
    let problems = r.outcome().expect("a typed outcome").problems();
    assert_eq!(problems.len(), 3);
    assert_eq!(problems[0].raw, "perhaps");
    // On the wire the problems stay where JSON consumers read them.
    let wire: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let errors = wire["error"]["details"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 3);
    assert_eq!(errors[0]["raw"], "perhaps");
    assert_eq!(wire["error"]["details"]["path"], problems[0].path.as_str());
    assert!(r.to_model_json().contains("Correct these arguments"));
}

#[tokio::test]
async fn negative_values_for_unsigned_parameters_are_listed_for_the_model() {
    let _serial = SEARCH_LOCK.lock().await;
    let d = dispatcher();
    let r = d
        .call(
            "crm.search_client",
            r#"{"keyword": "cit", "limit": "-3"}"#,
            &SkillContext::new(),
        )
        .await;
    let err = r.error.unwrap();
    assert_eq!(err.code, codes::INVALID_ARGUMENTS);
    assert!(
        err.message
            .contains("- `limit` (at $.limit): expected integer >= 0, got number -3"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn invalid_json_is_answered_with_a_fixable_error() {
    let d = dispatcher();
    let r = d
        .call(
            "crm.search_client",
            r#"{"keyword": "cit""#,
            &SkillContext::new(),
        )
        .await;
    let err = r.error.unwrap();
    assert_eq!(err.code, codes::INVALID_ARGUMENTS);
    assert!(
        err.message.contains("$: expected JSON object"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn nested_strict_mode_nulls_are_read_as_absent() {
    let d = dispatcher();
    let args = json!({"outline": {"title": "A", "children": [{"title": "B", "children": null}]}});
    let r = d
        .call("doc.outline_size", &args, &SkillContext::new())
        .await;
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.data_as::<usize>().unwrap(), 2);
    assert_eq!(r.warnings[0].code, "null_as_absent");
    assert_eq!(r.warnings[0].path, "$.outline.children[0].children");
}

#[tokio::test]
async fn json_text_for_an_object_is_decoded_and_validated() {
    let d = dispatcher();
    let args = json!({"outline": "{\"title\": \"A\", \"children\": [{\"title\": \"B\"}]}"});
    let r = d
        .call("doc.outline_size", &args, &SkillContext::new())
        .await;
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.data_as::<usize>().unwrap(), 2);
    let args = json!({"outline": "{\"name\": \"A\"}"});
    let r = d
        .call("doc.outline_size", &args, &SkillContext::new())
        .await;
    assert_eq!(r.error_code(), Some(codes::INVALID_ARGUMENTS));
}

// ---- confirmation ----------------------------------------------------------------------

#[tokio::test]
async fn undecided_calls_expire_on_the_dispatchers_clock() {
    let ctx = SkillContext::new();
    let waiting = dispatcher();
    assert_eq!(
        waiting.confirmation_ttl(),
        toolwright::DEFAULT_CONFIRMATION_TTL
    );
    let r = waiting
        .call("crm.create_client", r#"{"name": "Kept"}"#, &ctx)
        .await;
    let kept = r.pending_confirmation().expect("parked");
    assert!(waiting
        .pending_confirmations()
        .iter()
        .any(|p| p.id == kept.id));
    assert!(waiting.expired_confirmations().is_empty());

    let hasty = toolwright::DispatcherBuilder::from_dispatcher(&waiting)
        .confirmation_ttl(std::time::Duration::ZERO)
        .build()
        .unwrap();
    assert_eq!(hasty.len(), waiting.len(), "the same skills");
    let r = hasty
        .call("crm.create_client", r#"{"name": "Gone"}"#, &ctx)
        .await;
    let gone = r.pending_confirmation().expect("parked");
    assert!(hasty.pending_confirmations().is_empty(), "expired at once");
    let expired = hasty.expired_confirmations();
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0].pending, gone);
    assert_eq!(
        hasty.confirm(&gone.id, &ctx).await.unwrap_err(),
        ConfirmationError::Expired {
            id: gone.id.clone(),
            ttl: std::time::Duration::ZERO
        }
    );
    assert!(matches!(
        hasty.reject(&gone.id, None),
        Err(ConfirmationError::Expired { .. })
    ));
}

#[tokio::test]
async fn write_calls_wait_for_confirmation_then_run_once() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let before = examples::CREATED.load(Ordering::SeqCst);
    let r = d
        .call("crm.create_client", r#"{"name": 42, "tags": "vip"}"#, &ctx)
        .await;
    assert_eq!(r.error_code(), Some(codes::CONFIRMATION_REQUIRED));
    assert_eq!(
        examples::CREATED.load(Ordering::SeqCst),
        before,
        "nothing ran yet"
    );
    // JSON consumers read the pending call where they always did.
    let wire: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let pending: toolwright::PendingConfirmation =
        serde_json::from_value(wire["error"]["details"]["pending_confirmation"].clone()).unwrap();
    assert_eq!(
        r.pending_confirmation().as_ref(),
        Some(&pending),
        "the typed accessor reads the same pending call"
    );
    let read_back: toolwright::SkillResult = serde_json::from_value(wire).unwrap();
    assert_eq!(
        read_back.outcome(),
        r.outcome(),
        "the typed outcome survives the wire"
    );
    assert_eq!(pending.skill_id, "crm.create_client");
    assert_eq!(
        pending.arguments,
        json!({"name": "42", "tags": ["vip"]}),
        "checked and fixed before parking"
    );
    assert_eq!(r.warnings.len(), 2);
    assert!(r.error.as_ref().unwrap().message.contains(&pending.id));
    assert!(d.pending_confirmations().iter().any(|p| p.id == pending.id));

    let done = d.confirm(&pending.id, &ctx).await.unwrap();
    assert!(done.success, "{:?}", done.error);
    assert!(done.pending_confirmation().is_none());
    assert_eq!(done.data_as::<String>().unwrap(), "created 42");
    assert_eq!(examples::CREATED.load(Ordering::SeqCst), before + 1);
    assert_eq!(
        d.confirm(&pending.id, &ctx).await.unwrap_err(),
        ConfirmationError::UnknownPending(pending.id.clone())
    );
}

#[tokio::test]
async fn rejected_calls_never_run_and_bad_arguments_are_not_parked() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let r = d
        .call("crm.delete_client", r#"{"client_id": "c1"}"#, &ctx)
        .await;
    let pending = r.pending_confirmation().unwrap().id;
    let rejected = d.reject(&pending, Some("wrong client")).unwrap();
    assert_eq!(rejected.error_code(), Some(codes::CONFIRMATION_REJECTED));
    assert!(rejected.error.unwrap().message.contains("wrong client"));
    assert!(d.reject(&pending, None).is_err());
    assert!(d.pending_confirmations().iter().all(|p| p.id != pending));

    let r = d.call("crm.delete_client", "{}", &ctx).await;
    assert_eq!(
        r.error_code(),
        Some(codes::INVALID_ARGUMENTS),
        "fix the arguments before asking the user"
    );
}

#[tokio::test]
async fn a_confirmed_context_runs_write_calls_directly() {
    let d = dispatcher();
    let ctx = SkillContext::new().with(Confirmed);
    let r = d
        .call("crm.delete_client", r#"{"client_id": "c1"}"#, &ctx)
        .await;
    assert!(r.success, "{:?}", r.error);
    // An explicit `requires_confirmation = false` runs without asking.
    let r = d
        .call("files.rename", r#"{"id": "r1"}"#, &SkillContext::new())
        .await;
    assert!(r.success);
}
