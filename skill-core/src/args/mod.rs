//! Reading the model's tool-call arguments: what was fixed ([`ParseWarning`]) and what could
//! not be ([`ParseError`]), each with the JSON path, the expected kind and the raw value.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A value the model sent that was accepted after a fix (or a notable oddity of the call).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParseWarning {
    /// Machine-readable kind of fix, e.g. `string_to_boolean`, `invalid_json_arguments`.
    pub code: String,
    /// JSON path of the value, e.g. `$.top_k` or `$.items[2]`; `$` for the whole call.
    pub path: String,
    /// What the parameter expects, e.g. `integer`.
    pub expected: String,
    /// The value as the model sent it.
    pub raw: Value,
    /// One sentence for logs.
    pub message: String,
}

/// A value the model sent that could not be used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParseError {
    /// Machine-readable kind of problem, e.g. `missing_required`, `type_mismatch`.
    pub code: String,
    /// JSON path of the value.
    pub path: String,
    /// What the parameter expects.
    pub expected: String,
    /// The value as the model sent it (`null` when missing).
    pub raw: Value,
    /// One sentence the model can act on.
    pub message: String,
}

pub mod coerce;
pub(crate) mod shape;

pub use shape::{Shape, ShapeTree};

use std::fmt::Write as _;

use crate::catalog::{ToolCatalog, ToolDescriptor};
use crate::registration::CallArgs;

/// The arguments exactly as the model sent them (empty when there were none).
fn raw_text(args: CallArgs<'_>) -> String {
    match args {
        CallArgs::None => String::new(),
        CallArgs::Text(text) => text.to_string(),
        CallArgs::Value(value) => value.to_string(),
    }
}

/// The model's arguments read against a tool's metadata.
#[derive(Debug, Clone)]
pub struct ArgumentParse {
    /// Id of the tool, when it is known.
    pub skill_id: Option<&'static str>,
    /// The arguments after every fix (a JSON object, `{}` when unreadable).
    pub arguments: Value,
    /// The arguments exactly as the model sent them, kept next to the parsed value for logs
    /// and replays.
    pub raw: String,
    /// What was fixed.
    pub warnings: Vec<ParseWarning>,
    /// What could not be used.
    pub errors: Vec<ParseError>,
}

impl ArgumentParse {
    /// The answer for arguments over a [`limits`](crate::limits) bound: nothing parsed, one
    /// error at `$`.
    pub(crate) fn over_limit(
        skill_id: Option<&'static str>,
        args: CallArgs<'_>,
        err: &crate::limits::LimitError,
    ) -> Self {
        let raw = match args {
            CallArgs::Text(text) => text.chars().take(200).collect(),
            _ => String::new(),
        };
        Self {
            skill_id,
            arguments: Value::Object(Default::default()),
            raw,
            warnings: Vec::new(),
            errors: vec![ParseError {
                code: err.code().into(),
                path: "$".into(),
                expected: err.expected(),
                raw: Value::Null,
                message: err.to_string(),
            }],
        }
    }

    /// Whether no value was unusable.
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty()
    }

    /// Arguments ready to run, or every problem the model must fix first. Any unusable
    /// value blocks the call — for a required argument because it cannot run without it, for
    /// an optional one because the model asked for something specific and silently using
    /// the default instead would do something else than asked.
    pub fn into_executable(self) -> Result<(Value, Vec<ParseWarning>), Vec<ParseError>> {
        if self.errors.is_empty() {
            Ok((self.arguments, self.warnings))
        } else {
            Err(self.errors)
        }
    }
}

/// `limit` for `$.limit`, `$.limit[2]` or `$.limit.x`; `None` for `$`.
pub(crate) fn top_level_name(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("$.")?;
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Reads the model's arguments for the tool `name` (id or wire name) leniently. An unknown
/// tool is read permissively (any JSON object) with a `tool_definition_missing` warning.
pub fn parse_arguments(catalog: &ToolCatalog, name: &str, args: CallArgs<'_>) -> ArgumentParse {
    match catalog.get(name) {
        Some(tool) => parse_for_tool(tool, args),
        None => {
            let raw = raw_text(args);
            let mut warnings = vec![ParseWarning {
                code: "tool_definition_missing".into(),
                path: "$".into(),
                expected: "a known tool".into(),
                raw: Value::String(name.to_string()),
                message: format!(
                    "no definition for tool `{name}`; arguments read without type guidance"
                ),
            }];
            tracing::warn!(
                tool = name,
                "arguments of an unknown tool read without metadata"
            );
            let mut errors = Vec::new();
            let arguments = read_object(args, &mut warnings, &mut errors);
            ArgumentParse {
                skill_id: None,
                arguments,
                raw,
                warnings,
                errors,
            }
        }
    }
}

/// Reads the arguments of a known tool against its metadata; an argument the tool does not
/// have is left out with a warning (see [`parse_for_tool_strict`] to refuse it).
pub(crate) fn parse_for_tool(tool: &ToolDescriptor, args: CallArgs<'_>) -> ArgumentParse {
    parse_for_tool_strict(tool, args, false)
}

/// Reads the arguments of a known tool against its metadata. An argument the tool does not
/// have is taken out of the arguments and reported with the nearest real name: as a warning
/// (`unknown_argument`), or with `strict` as an error that blocks the call.
pub(crate) fn parse_for_tool_strict(
    tool: &ToolDescriptor,
    args: CallArgs<'_>,
    strict: bool,
) -> ArgumentParse {
    let raw = raw_text(args);
    let mut report = coerce::Report::default();
    let mut value = read_object(args, &mut report.warnings, &mut report.errors);
    let tree = &tool.shape;
    if let (Shape::Object { properties, .. }, Value::Object(map)) = (&tree.root, &mut value) {
        let unknown: Vec<String> = map
            .keys()
            .filter(|key| !properties.iter().any(|(n, _)| n == *key))
            .cloned()
            .collect();
        for key in unknown {
            let raw = map.remove(&key).unwrap_or(Value::Null);
            let names = properties.iter().map(|(n, _)| n.as_str());
            let message = unknown_argument_message(&key, tool.wire_name, names, strict);
            let path = coerce::child_path("$", &key);
            let expected = "a declared argument".to_string();
            let code = "unknown_argument".to_string();
            if strict {
                report.errors.push(ParseError {
                    code,
                    path,
                    expected,
                    raw,
                    message,
                });
            } else {
                report.warnings.push(ParseWarning {
                    code,
                    path,
                    expected,
                    raw,
                    message,
                });
            }
        }
    }
    let arguments = if report.errors.is_empty() {
        coerce::coerce(tree, &tree.root, value, "$", &mut report)
    } else {
        value
    };
    ArgumentParse {
        skill_id: Some(tool.id),
        arguments,
        raw,
        warnings: report.warnings,
        errors: report.errors,
    }
}

/// "unknown argument `tmies` of `repeat`; did you mean `times`?" (or the list of the
/// tool's arguments when none is close), and what happened to it.
pub(crate) fn unknown_argument_message<'a>(
    key: &str,
    tool: &str,
    names: impl Iterator<Item = &'a str> + Clone,
    strict: bool,
) -> String {
    let hint = match crate::__private::rules::closest(key, names.clone()) {
        Some(near) => format!("did you mean `{near}`?"),
        None => {
            let all: Vec<&str> = names.collect();
            if all.is_empty() {
                "it takes no arguments".to_string()
            } else {
                format!("its arguments are {}", all.join(", "))
            }
        }
    };
    let outcome = if strict { "" } else { " (ignored)" };
    format!("unknown argument `{key}` of `{tool}`{outcome}; {hint}")
}

/// The arguments as a JSON object: missing or blank → `{}`; a JSON string holding an object
/// is decoded (with a warning); anything else is an error at `$`.
fn read_object(
    args: CallArgs<'_>,
    warnings: &mut Vec<ParseWarning>,
    errors: &mut Vec<ParseError>,
) -> Value {
    let value = match args {
        CallArgs::None => return Value::Object(Default::default()),
        CallArgs::Text(text) if text.trim().is_empty() => return Value::Object(Default::default()),
        CallArgs::Text(text) => match serde_json::from_str::<Value>(text) {
            Ok(v) => v,
            Err(err) => {
                errors.push(ParseError {
                    code: "invalid_json".into(),
                    path: "$".into(),
                    expected: "JSON object".into(),
                    raw: Value::String(text.chars().take(200).collect()),
                    message: format!("arguments are not valid JSON ({err})"),
                });
                return Value::Object(Default::default());
            }
        },
        CallArgs::Value(v) => v.clone(),
    };
    match value {
        Value::Object(_) => value,
        Value::Null => Value::Object(Default::default()),
        Value::String(ref text) => match serde_json::from_str::<Value>(text) {
            Ok(inner @ Value::Object(_)) => {
                warnings.push(ParseWarning {
                    code: "json_string_decoded".into(),
                    path: "$".into(),
                    expected: "JSON object".into(),
                    raw: value.clone(),
                    message: "arguments were a JSON string holding an object; decoded".into(),
                });
                inner
            }
            _ => not_an_object(value, errors),
        },
        other => not_an_object(other, errors),
    }
}

fn not_an_object(value: Value, errors: &mut Vec<ParseError>) -> Value {
    errors.push(ParseError {
        code: "arguments_not_object".into(),
        path: "$".into(),
        expected: "JSON object".into(),
        message: format!(
            "arguments must be a JSON object, got {}",
            coerce::describe(&value)
        ),
        raw: value,
    });
    Value::Object(Default::default())
}

/// The message a model reads when its arguments cannot be used: every problem with its path,
/// what was expected and what was sent, and a request to correct and retry (the way
/// pydantic-ai answers validation errors).
pub(crate) fn retry_message(tool: &str, errors: &[ParseError]) -> String {
    let mut text = format!(
        "{} problem{} with the arguments of `{tool}`:\n",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    for error in errors {
        let got = if error.code == "missing" {
            "nothing".to_string()
        } else {
            coerce::describe(&error.raw)
        };
        if error.code == "unknown_argument" {
            let _ = writeln!(text, "- {}", error.message);
            continue;
        }
        match top_level_name(&error.path) {
            Some(name) => {
                let _ = writeln!(
                    text,
                    "- `{name}` (at {}): expected {}, got {}",
                    error.path, error.expected, got
                );
            }
            None => {
                let _ = writeln!(
                    text,
                    "- {}: expected {}, got {}",
                    error.path, error.expected, got
                );
            }
        }
    }
    let _ = write!(text, "Correct these arguments and call `{tool}` again.");
    text
}
