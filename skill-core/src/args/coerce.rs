// Over 700 lines, kept whole: one recursive walk of the shape tree whose arms per JSON kind
// share the path and the warning list; split apart, each part would take that state as
// arguments and the rules would no longer read as one table.

//! Lenient coercion of one JSON value against a compiled [`Shape`] ("lenient in, strict
//! out"): every fix is recorded as a [`ParseWarning`], every value that cannot be fixed as a
//! [`ParseError`], each with its JSON path, the expected kind and the raw value.
//!
//! The rules follow seed 003's provider contract; where the seed is silent they follow
//! pydantic v2's lax mode (`validate_json`). The one deliberate departure from pydantic, asked
//! for by the seed: a decimal for an integer is truncated (with a warning) instead of refused.

use serde_json::{Map, Number, Value};

use super::shape::{Shape, ShapeTree};
use super::{ParseError, ParseWarning};
use crate::catalog::ValueKind;

/// Warnings and errors collected while coercing.
#[derive(Debug, Default, Clone)]
pub struct Report {
    /// Fixes applied.
    pub warnings: Vec<ParseWarning>,
    /// Values that could not be used.
    pub errors: Vec<ParseError>,
}

impl Report {
    fn warn(&mut self, code: &str, path: &str, expected: String, raw: &Value, message: String) {
        self.warnings.push(ParseWarning {
            code: code.into(),
            path: path.into(),
            expected,
            raw: raw.clone(),
            message,
        });
    }

    fn error(&mut self, code: &str, path: &str, expected: String, raw: &Value, message: String) {
        self.errors.push(ParseError {
            code: code.into(),
            path: path.into(),
            expected,
            raw: raw.clone(),
            message,
        });
    }

    /// Records that `value` is not the kind `path` expects and hands it back unchanged:
    /// `expected` names the kind in the error, `wanted` in its message ("an integer").
    fn refuse_as(
        &mut self,
        code: &str,
        path: &str,
        expected: String,
        wanted: &str,
        value: Value,
    ) -> Value {
        let message = format!("{path}: expected {wanted}, got {}", describe(&value));
        self.error(code, path, expected, &value, message);
        value
    }

    /// [`Report::refuse_as`] with the kind named in the message as in the error.
    fn refuse(&mut self, code: &str, path: &str, expected: String, value: Value) -> Value {
        let wanted = expected.clone();
        self.refuse_as(code, path, expected, &wanted, value)
    }
}

/// Coerces `value` to `shape`; returns the (possibly fixed) value. Problems go to `report`.
pub fn coerce(
    tree: &ShapeTree,
    shape: &Shape,
    value: Value,
    path: &str,
    report: &mut Report,
) -> Value {
    coerce_at(tree, shape, value, path, report, 0)
}

/// Depth limit against pathological nesting (arguments are finite, but a deep array of arrays
/// must not exhaust the stack).
const MAX_DEPTH: usize = 128;

fn coerce_at(
    tree: &ShapeTree,
    shape: &Shape,
    value: Value,
    path: &str,
    report: &mut Report,
    depth: usize,
) -> Value {
    if depth > MAX_DEPTH {
        report.error(
            "too_deep",
            path,
            "a less nested value".into(),
            &Value::Null,
            format!("{path}: value is nested more than {MAX_DEPTH} levels"),
        );
        return value;
    }
    match shape {
        Shape::Any => value,
        Shape::Ref(_) => {
            let resolved = tree.resolve(shape);
            if matches!(resolved, Shape::Ref(_)) {
                return value;
            }
            coerce_at(tree, resolved, value, path, report, depth + 1)
        }
        Shape::Null if value.is_null() => value,
        Shape::Null => report.refuse("null_type", path, "null".into(), value),
        Shape::Nullable(inner) => match value {
            Value::Null => Value::Null,
            other => coerce_at(tree, inner, other, path, report, depth + 1),
        },
        Shape::Boolean => to_boolean(value, path, report),
        Shape::Bounded { inner, min, max } => {
            let errors_before = report.errors.len();
            let fixed = coerce_at(tree, inner, value, path, report, depth + 1);
            if report.errors.len() == errors_before {
                if let Some(x) = fixed.as_f64() {
                    if min.is_some_and(|lo| x < lo) || max.is_some_and(|hi| x > hi) {
                        let expected = shape.expected(tree);
                        report.error(
                            "out_of_range",
                            path,
                            expected.clone(),
                            &fixed,
                            format!("{path}: {x} is out of range; expected {expected}"),
                        );
                    }
                }
            }
            fixed
        }
        Shape::Integer => to_numeric(Numeric::Integer, value, path, report),
        Shape::Number => to_numeric(Numeric::Number, value, path, report),
        Shape::String { kind } => to_string_kind(*kind, value, path, report),
        Shape::Enum {
            values,
            case_sensitive,
        } => to_enum(values, *case_sensitive, value, path, report, tree, shape),
        Shape::Array(item) => to_array(tree, shape, item, value, path, report, depth),
        Shape::Map(inner) => to_map(tree, shape, inner, value, path, report, depth),
        Shape::Object {
            properties,
            required,
        } => to_object(
            tree, shape, properties, required, value, path, report, depth,
        ),
        Shape::Union(options) => to_union(tree, shape, options, value, path, report, depth),
    }
}

/// Short description of a JSON value for messages.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => {
            let short: String = s.chars().take(60).collect();
            if short.len() < s.len() {
                format!("string \"{short}…\"")
            } else {
                format!("string \"{short}\"")
            }
        }
        Value::Array(items) => format!("array of {} items", items.len()),
        Value::Object(_) => "object".into(),
    }
}

fn to_boolean(value: Value, path: &str, report: &mut Report) -> Value {
    let expected = || "boolean".to_string();
    match &value {
        Value::Bool(_) => value,
        Value::Number(n) => match n.as_f64() {
            Some(x) if x == 0.0 || x == 1.0 => {
                report.warn(
                    "number_to_boolean",
                    path,
                    expected(),
                    &value,
                    format!("{path}: number {n} coerced to boolean"),
                );
                Value::Bool(x == 1.0)
            }
            _ => {
                report.error("bool_parsing", path, expected(), &value, format!("{path}: expected a boolean, got number {n}; only 0 and 1 can be read as booleans"));
                value
            }
        },
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "t" | "yes" | "y" | "on" | "1" => {
                report.warn(
                    "string_to_boolean",
                    path,
                    expected(),
                    &value,
                    format!("{path}: string \"{s}\" coerced to boolean true"),
                );
                Value::Bool(true)
            }
            "false" | "f" | "no" | "n" | "off" | "0" => {
                report.warn(
                    "string_to_boolean",
                    path,
                    expected(),
                    &value,
                    format!("{path}: string \"{s}\" coerced to boolean false"),
                );
                Value::Bool(false)
            }
            _ => {
                report.error(
                    "bool_parsing",
                    path,
                    expected(),
                    &value,
                    format!(
                        "{path}: expected a boolean, got {}; use true or false",
                        describe(&value)
                    ),
                );
                value
            }
        },
        _ => report.refuse_as("bool_type", path, expected(), "a boolean", value),
    }
}

/// Largest float that still converts to an `i64` exactly enough (pydantic refuses ≥ 2^63).
const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

fn float_to_integer(x: f64, value: &Value, path: &str, report: &mut Report, what: &str) -> Value {
    if !x.is_finite() || x.abs() >= I64_LIMIT {
        report.error(
            "int_parsing_size",
            path,
            "integer".into(),
            value,
            format!("{path}: {what} {x} is out of range for an integer"),
        );
        return value.clone();
    }
    let truncated = x.trunc();
    if truncated == x {
        report.warn(
            "float_to_integer",
            path,
            "integer".into(),
            value,
            format!("{path}: {what} {x} coerced to integer {}", truncated as i64),
        );
    } else {
        report.warn(
            "decimal_truncated",
            path,
            "integer".into(),
            value,
            format!(
                "{path}: decimal {x} truncated to integer {}",
                truncated as i64
            ),
        );
    }
    Value::Number(Number::from(truncated as i64))
}

/// The two numeric kinds a value is coerced to. They read booleans, integer text and
/// wrong types alike and differ in their codes, their wording and what they make of a
/// fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numeric {
    Integer,
    Number,
}

impl Numeric {
    /// The kind's name in codes and messages (`boolean_to_integer`, "coerced to number").
    fn name(self) -> &'static str {
        match self {
            Numeric::Integer => "integer",
            Numeric::Number => "number",
        }
    }

    /// The prefix of its error codes (pydantic's `int_type`, `float_parsing`).
    fn code_prefix(self) -> &'static str {
        match self {
            Numeric::Integer => "int",
            Numeric::Number => "float",
        }
    }

    /// The kind with its article, for "expected ...".
    fn with_article(self) -> &'static str {
        match self {
            Numeric::Integer => "an integer",
            Numeric::Number => "a number",
        }
    }

    /// Records that `value` cannot be read as this kind (`suffix`: `type` or `parsing`).
    fn refuse(self, suffix: &str, value: Value, path: &str, report: &mut Report) -> Value {
        let code = format!("{}_{suffix}", self.code_prefix());
        report.refuse_as(&code, path, self.name().into(), self.with_article(), value)
    }
}

fn to_numeric(kind: Numeric, value: Value, path: &str, report: &mut Report) -> Value {
    let name = kind.name();
    match &value {
        Value::Number(n) if kind == Numeric::Number || n.is_i64() || n.is_u64() => value,
        Value::Number(n) => float_to_integer(
            n.as_f64().unwrap_or(f64::NAN),
            &value,
            path,
            report,
            "number",
        ),
        Value::Bool(b) => {
            report.warn(
                &format!("boolean_to_{name}"),
                path,
                name.into(),
                &value,
                format!("{path}: boolean {b} coerced to {name} {}", u8::from(*b)),
            );
            Value::Number(Number::from(u8::from(*b)))
        }
        Value::String(s) => {
            let text_to_number = |n: Number, report: &mut Report| {
                report.warn(
                    &format!("string_to_{name}"),
                    path,
                    name.into(),
                    &value,
                    format!("{path}: string \"{s}\" coerced to {name} {n}"),
                );
                Value::Number(n)
            };
            if let Some(n) = parse_integer_text(s) {
                return text_to_number(n, report);
            }
            match (kind, parse_float_text(s)) {
                (Numeric::Integer, Some(x)) if x.is_finite() => {
                    float_to_integer(x, &value, path, report, "numeric string")
                }
                (Numeric::Number, Some(x)) => match Number::from_f64(x) {
                    Some(n) => text_to_number(n, report),
                    None => {
                        report.error(
                            "finite_number",
                            path,
                            "finite number".into(),
                            &value,
                            format!("{path}: {s} is not a finite number"),
                        );
                        value
                    }
                },
                _ => kind.refuse("parsing", value, path, report),
            }
        }
        _ => kind.refuse("type", value, path, report),
    }
}

/// pydantic's lax integer grammar: surrounding whitespace, a sign, digits with single `_`
/// between them, and an optional all-zero fraction (`"42.00"`).
pub(crate) fn parse_integer_text(text: &str) -> Option<Number> {
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let (negative, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (whole, fraction) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    let digits = underscored_digits(whole)?;
    if let Some(f) = fraction {
        let f = underscored_digits(f)?;
        if !f.bytes().all(|b| b == b'0') {
            return None;
        }
    }
    if negative {
        let n: i64 = format!("-{digits}").parse().ok()?;
        Some(Number::from(n))
    } else if let Ok(n) = digits.parse::<u64>() {
        Some(Number::from(n))
    } else {
        None
    }
}

/// Digits with single `_` between them (`1_000`), as a plain digit string.
fn underscored_digits(text: &str) -> Option<String> {
    if text.is_empty() || text.starts_with('_') || text.ends_with('_') || text.contains("__") {
        return None;
    }
    if !text.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return None;
    }
    Some(text.replace('_', ""))
}

/// pydantic's lax float grammar: whitespace, sign, `_` between digits, leading or trailing
/// `.`, exponents, `inf`/`infinity`/`nan` in any case.
pub(crate) fn parse_float_text(text: &str) -> Option<f64> {
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    if t.is_empty() {
        return None;
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    match unsigned.to_ascii_lowercase().as_str() {
        "inf" | "infinity" | "nan" => return t.to_ascii_lowercase().parse::<f64>().ok(),
        _ => {}
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, f),
        None => (mantissa, ""),
    };
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let whole = if whole.is_empty() {
        String::new()
    } else {
        underscored_digits(whole)?
    };
    let fraction = if fraction.is_empty() {
        String::new()
    } else {
        underscored_digits(fraction)?
    };
    let mut canonical = format!(
        "{}{whole}.{fraction}",
        if t.starts_with('-') { "-" } else { "" }
    );
    if canonical.ends_with('.') {
        canonical.push('0');
    }
    if let Some(exp) = exponent {
        let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        canonical.push('e');
        canonical.push_str(exp);
    }
    canonical.parse().ok()
}

fn to_string_kind(kind: ValueKind, value: Value, path: &str, report: &mut Report) -> Value {
    let expected = match kind {
        ValueKind::Timestamp => "timestamp (ISO-8601)",
        ValueKind::Uri => "absolute URI",
        _ => "string",
    };
    match (&value, kind) {
        (Value::String(s), ValueKind::Timestamp) => to_timestamp(s, &value, path, report),
        (Value::Number(n), ValueKind::Timestamp) => match n.as_f64().and_then(unix_timestamp) {
            Some(text) => {
                report.warn(
                    "unix_to_timestamp",
                    path,
                    expected.into(),
                    &value,
                    format!("{path}: unix time {n} coerced to timestamp {text}"),
                );
                Value::String(text)
            }
            None => {
                report.error(
                    "timestamp_parsing",
                    path,
                    expected.into(),
                    &value,
                    format!("{path}: number {n} is not a valid unix time"),
                );
                value
            }
        },
        (Value::String(s), ValueKind::Uri) => to_uri(s, &value, path, report),
        (Value::String(_), _) => value,
        (Value::Number(_) | Value::Bool(_), ValueKind::String | ValueKind::AttachmentReference) => {
            let text = value.to_string();
            report.warn(
                "non_string_literal_retained",
                path,
                expected.into(),
                &value,
                format!("{path}: non-string literal {text} retained as text"),
            );
            Value::String(text)
        }
        _ => report.refuse("string_type", path, expected.into(), value),
    }
}

fn unix_timestamp(seconds: f64) -> Option<String> {
    // pydantic reads values above 2e10 as milliseconds.
    let millis = if seconds.abs() > 2e10 {
        seconds
    } else {
        seconds * 1000.0
    };
    if !millis.is_finite() || millis.abs() > 8.2e15 {
        return None;
    }
    let dt = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(millis as i64)?;
    Some(dt.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

fn to_timestamp(text: &str, value: &Value, path: &str, report: &mut Report) -> Value {
    use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat};
    let expected = || "timestamp (ISO-8601)".to_string();
    if text.as_bytes().get(10) == Some(&b'T') && DateTime::parse_from_rfc3339(text).is_ok() {
        return value.clone();
    }
    // Every reading below is a fix: it is recorded under `code` and its text kept.
    let mut fixed_as = |code: &str, fixed: String, message: String| {
        report.warn(code, path, expected(), value, message);
        Value::String(fixed)
    };
    let trimmed = text.trim();
    let normalized = trimmed.replacen(' ', "T", 1);
    for candidate in [trimmed, normalized.as_str()] {
        if let Ok(dt) = DateTime::parse_from_rfc3339(candidate) {
            let fixed = dt.to_rfc3339_opts(SecondsFormat::AutoSi, true);
            let message = format!("{path}: timestamp \"{text}\" normalised to {fixed}");
            return fixed_as("timestamp_normalized", fixed, message);
        }
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(&normalized, format) {
            let fixed = naive.and_utc().to_rfc3339_opts(SecondsFormat::AutoSi, true);
            let message =
                format!("{path}: timestamp \"{text}\" has no offset; read as UTC {fixed}");
            return fixed_as("timestamp_assumed_utc", fixed, message);
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(trimmed, "%Y-%m-%d") {
        let fixed = date
            .and_hms_opt(0, 0, 0)
            .map(|d| d.and_utc().to_rfc3339_opts(SecondsFormat::AutoSi, true))
            .unwrap_or_default();
        let message = format!("{path}: date \"{text}\" read as midnight UTC {fixed}");
        return fixed_as("date_to_timestamp", fixed, message);
    }
    report.error(
        "timestamp_parsing",
        path,
        expected(),
        value,
        format!("{path}: \"{text}\" is not an ISO-8601 timestamp such as 2024-05-01T12:00:00Z"),
    );
    value.clone()
}

fn to_uri(text: &str, value: &Value, path: &str, report: &mut Report) -> Value {
    let expected = || "absolute URI".to_string();
    let trimmed = text.trim();
    match url::Url::parse(trimmed) {
        Ok(_) if trimmed == text => value.clone(),
        Ok(_) => {
            report.warn(
                "uri_trimmed",
                path,
                expected(),
                value,
                format!("{path}: whitespace around URI removed"),
            );
            Value::String(trimmed.to_string())
        }
        Err(err) => {
            report.error("uri_parsing", path, expected(), value, format!("{path}: \"{text}\" is not an absolute URI ({err}); send a full URI such as https://example.com/x"));
            value.clone()
        }
    }
}

fn token_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn to_enum(
    values: &[Value],
    case_sensitive: bool,
    value: Value,
    path: &str,
    report: &mut Report,
    tree: &ShapeTree,
    shape: &Shape,
) -> Value {
    if values.contains(&value) {
        return value;
    }
    // Equal numbers written differently (1 vs 1.0).
    if let Some(x) = value.as_f64() {
        if let Some(hit) = values.iter().find(|v| v.as_f64() == Some(x)) {
            return hit.clone();
        }
    }
    if let Some(text) = token_text(&value) {
        let trimmed = text.trim();
        let hit = values
            .iter()
            .find(|v| token_text(v).is_some_and(|t| t == trimmed))
            .or_else(|| {
                if case_sensitive {
                    None
                } else {
                    values.iter().find(|v| {
                        token_text(v).is_some_and(|t| {
                            t.eq_ignore_ascii_case(trimmed)
                                || t.to_lowercase() == trimmed.to_lowercase()
                        })
                    })
                }
            });
        if let Some(hit) = hit {
            report.warn(
                "enum_normalized",
                path,
                shape.expected(tree),
                &value,
                format!(
                    "{path}: {} normalised to enum token {hit}",
                    describe(&value)
                ),
            );
            return hit.clone();
        }
    }
    report.error(
        "enum",
        path,
        shape.expected(tree),
        &value,
        format!(
            "{path}: {} is not allowed; expected {}",
            describe(&value),
            shape.expected(tree)
        ),
    );
    value
}

/// A list, a map or an object sent as JSON text: decoded, and kept only if it then
/// validates; any other value, or text that does not, is handed back.
fn decode_json_string(
    tree: &ShapeTree,
    shape: &Shape,
    value: Value,
    path: &str,
    report: &mut Report,
    depth: usize,
) -> Result<Value, Value> {
    let decoded = match &value {
        Value::String(text) => {
            let trimmed = text.trim();
            (trimmed.starts_with('{') || trimmed.starts_with('['))
                .then(|| serde_json::from_str::<Value>(trimmed).ok())
                .flatten()
                .filter(|decoded| decoded.is_object() || decoded.is_array())
        }
        _ => None,
    };
    let Some(decoded) = decoded else {
        return Err(value);
    };
    let mut trial = Report::default();
    let fixed = coerce_at(tree, shape, decoded, path, &mut trial, depth + 1);
    if !trial.errors.is_empty() {
        return Err(value);
    }
    report.warn(
        "json_string_decoded",
        path,
        shape.expected(tree),
        &value,
        format!("{path}: JSON text decoded into {}", shape.expected(tree)),
    );
    report.warnings.extend(trial.warnings);
    Ok(fixed)
}

#[allow(clippy::too_many_arguments)]
fn to_array(
    tree: &ShapeTree,
    shape: &Shape,
    item: &Shape,
    value: Value,
    path: &str,
    report: &mut Report,
    depth: usize,
) -> Value {
    match value {
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| coerce_at(tree, item, v, &format!("{path}[{i}]"), report, depth + 1))
                .collect(),
        ),
        Value::Null => report.refuse("list_type", path, shape.expected(tree), value),
        other => decode_json_string(tree, shape, other, path, report, depth)
            .unwrap_or_else(|other| wrap_scalar(tree, shape, item, other, path, report, depth)),
    }
}

fn wrap_scalar(
    tree: &ShapeTree,
    shape: &Shape,
    item: &Shape,
    value: Value,
    path: &str,
    report: &mut Report,
    depth: usize,
) -> Value {
    let mut trial = Report::default();
    let fixed = coerce_at(
        tree,
        item,
        value.clone(),
        &format!("{path}[0]"),
        &mut trial,
        depth + 1,
    );
    if trial.errors.is_empty() {
        report.warn(
            "scalar_wrapped",
            path,
            shape.expected(tree),
            &value,
            format!("{path}: single value wrapped into a one-element list"),
        );
        report.warnings.extend(trial.warnings);
        Value::Array(vec![fixed])
    } else {
        report.refuse("list_type", path, shape.expected(tree), value)
    }
}

#[allow(clippy::too_many_arguments)]
fn to_map(
    tree: &ShapeTree,
    shape: &Shape,
    inner: &Shape,
    value: Value,
    path: &str,
    report: &mut Report,
    depth: usize,
) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let p = child_path(path, &k);
                    let v = coerce_at(tree, inner, v, &p, report, depth + 1);
                    (k, v)
                })
                .collect(),
        ),
        other => decode_json_string(tree, shape, other, path, report, depth)
            .unwrap_or_else(|other| report.refuse("dict_type", path, shape.expected(tree), other)),
    }
}

/// Path of a property below `path`.
pub(crate) fn child_path(path: &str, key: &str) -> String {
    if key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !key.is_empty()
    {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

#[allow(clippy::too_many_arguments)]
fn to_object(
    tree: &ShapeTree,
    shape: &Shape,
    properties: &[(String, Shape)],
    required: &[String],
    value: Value,
    path: &str,
    report: &mut Report,
    depth: usize,
) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (key, v) in map {
                match properties.iter().find(|(name, _)| *name == key) {
                    Some((_, prop))
                        if v.is_null() && !required.contains(&key) && !accepts_null(tree, prop) =>
                    {
                        // Strict-mode providers send `null` for optional fields: read it as absent.
                        let p = child_path(path, &key);
                        report.warn(
                            "null_as_absent",
                            &p,
                            prop.expected(tree),
                            &v,
                            format!("{p}: null for an optional field read as absent"),
                        );
                    }
                    Some((_, prop)) => {
                        let p = child_path(path, &key);
                        let fixed = coerce_at(tree, prop, v, &p, report, depth + 1);
                        out.insert(key, fixed);
                    }
                    None => {
                        out.insert(key, v);
                    }
                }
            }
            for name in required {
                if !out.contains_key(name) {
                    let p = child_path(path, name);
                    let expected = properties
                        .iter()
                        .find(|(n, _)| n == name)
                        .map_or_else(|| "a value".to_string(), |(_, s)| s.expected(tree));
                    report.error(
                        "missing",
                        &p,
                        expected,
                        &Value::Null,
                        format!("{p}: required argument is missing"),
                    );
                }
            }
            Value::Object(out)
        }
        other => {
            decode_json_string(tree, shape, other, path, report, depth).unwrap_or_else(|other| {
                report.refuse_as("model_type", path, "object".into(), "an object", other)
            })
        }
    }
}

fn accepts_null(tree: &ShapeTree, shape: &Shape) -> bool {
    match tree.resolve(shape) {
        Shape::Any | Shape::Null | Shape::Nullable(_) => true,
        Shape::Union(options) => options.iter().any(|o| accepts_null(tree, o)),
        _ => false,
    }
}

#[allow(clippy::too_many_arguments)]
fn to_union(
    tree: &ShapeTree,
    shape: &Shape,
    options: &[Shape],
    value: Value,
    path: &str,
    report: &mut Report,
    depth: usize,
) -> Value {
    // pydantic's smart mode: an exact match wins, else the first lax success.
    let mut first_lax: Option<(Value, Report)> = None;
    for option in options {
        let mut trial = Report::default();
        let fixed = coerce_at(tree, option, value.clone(), path, &mut trial, depth + 1);
        if trial.errors.is_empty() {
            if trial.warnings.is_empty() {
                return fixed;
            }
            if first_lax.is_none() {
                first_lax = Some((fixed, trial));
            }
        }
    }
    match first_lax {
        Some((fixed, trial)) => {
            report.warnings.extend(trial.warnings);
            fixed
        }
        None => report.refuse("union_mismatch", path, shape.expected(tree), value),
    }
}
