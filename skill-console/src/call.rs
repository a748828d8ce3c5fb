//! The call form generated from a skill's parameter metadata, turning the submitted fields
//! into arguments, and showing what the call returned.

use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Form;
use maud::{html, Markup};
use serde_json::{Map, Number, Value};
use toolwright::catalog::{Cardinality, ToolDescriptor, ToolParameter, ValueKind};
use toolwright::{Outcome, SkillRegistration, SkillResult};

use crate::catalog::{render_skill, unknown_skill};
use crate::layout::{csrf_field, pretty};
use crate::ConsoleState;

/// Prefix of the form fields that carry arguments (`arg.top_k`).
const ARG: &str = "arg.";

/// The fields of a submitted form, in order (empty when the page was just opened).
#[derive(Debug, Default, Clone)]
pub(crate) struct FormValues {
    fields: Vec<(String, String)>,
}

impl FormValues {
    pub(crate) fn new(fields: Vec<(String, String)>) -> Self {
        Self { fields }
    }

    fn submitted(&self) -> bool {
        !self.fields.is_empty()
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn arg(&self, param: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k.strip_prefix(ARG) == Some(param))
            .map(|(_, v)| v.as_str())
    }

    fn raw_mode(&self) -> bool {
        self.get("mode") == Some("json")
    }
}

/// What a submitted form led to.
#[derive(Debug)]
pub(crate) enum CallOutcome {
    /// The skill was called (successfully or not).
    Called {
        /// What the dispatcher returned.
        result: SkillResult,
        /// Wall time of the call as the console saw it, in milliseconds.
        wall_ms: f64,
    },
    /// The form could not be turned into arguments; nothing was called.
    Invalid(Vec<String>),
}

impl CallOutcome {
    /// The result card.
    pub(crate) fn render(&self) -> Markup {
        match self {
            CallOutcome::Invalid(errors) => html! {
                section.card.result-err #result {
                    h2 { "Not called: the form has errors" }
                    ul { @for e in errors { li.error-text { (e) } } }
                }
            },
            CallOutcome::Called { result, wall_ms } => render_result(result, *wall_ms),
        }
    }
}

/// A result: the summary first, the data pretty, the parse warnings, the error with its code
/// and details, the elapsed time.
pub(crate) fn render_result(result: &SkillResult, wall_ms: f64) -> Markup {
    let data: Option<Value> = result
        .data
        .as_ref()
        .and_then(|raw| serde_json::from_str(raw.get()).ok());
    let summary = data
        .as_ref()
        .and_then(|d| d.get("summary"))
        .and_then(Value::as_str);
    let pending = result.pending_confirmation();
    html! {
        section #result class={ "card " (if result.success { "result-ok" } else { "result-err" }) } {
            h2 {
                @if result.success { "Result: ok" } @else { "Result: failed" }
                " " span.count #elapsed { (format!("{:.1}", result.elapsed_ms)) " ms in the skill, " (format!("{wall_ms:.1}")) " ms in all" }
            }
            @if let Some(summary) = summary { p.summary #summary { (summary) } }
            @if let Some(pending) = &pending {
                p #pending-notice {
                    "The call waits for a person's decision as " code { (pending.id) } ": "
                    a href="/approvals" { "review it in Approvals" } "."
                }
            }
            @if let Some(error) = &result.error {
                p.error-text #error { strong { code #error-code { (error.code) } } ": " (error.message) }
                @if let Some(Outcome::InvalidArguments(problems)) = error.outcome.as_deref() {
                    h3 { "Argument problems" }
                    table #problems {
                        thead { tr { th { "Path" } th { "Expected" } th { "Sent" } th { "Message" } } }
                        tbody {
                            @for p in problems {
                                tr { td.mono { (p.path) } td { (p.expected) } td.mono { (p.raw.to_string()) } td { (p.message) } }
                            }
                        }
                    }
                }
                @if let Some(Outcome::TimedOut { limit_ms }) = error.outcome.as_deref() {
                    p #timeout { "Stopped waiting after the time limit of " (limit_ms) " ms." }
                }
                @if let Some(details) = error.details.as_ref().and_then(details_for_people) {
                    details { summary { "Error details" } pre { (pretty(&details)) } }
                }
            }
            @if !result.warnings.is_empty() {
                h3 { "Parse warnings" }
                table #warnings {
                    thead { tr { th { "Code" } th { "Path" } th { "Expected" } th { "Sent" } th { "Message" } } }
                    tbody {
                        @for w in &result.warnings {
                            tr { td.mono { (w.code) } td.mono { (w.path) } td { (w.expected) } td.mono { (w.raw.to_string()) } td { (w.message) } }
                        }
                    }
                }
            }
            @if let Some(data) = &data {
                h3 { "Data" }
                pre #data { (pretty(data)) }
            }
        }
    }
}

/// `POST /skills/{id}/call`: calls the skill with the server's state and shows the result
/// above the form, which keeps what was entered.
pub(crate) async fn call_skill(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    let dispatcher = &state.inner.dispatcher;
    let Some(reg) = state.shows(&id) else {
        return unknown_skill(&id);
    };
    let Some(tool) = dispatcher.catalog().get(reg.id).cloned() else {
        return unknown_skill(&id);
    };
    let values = FormValues::new(fields);
    let started = Instant::now();
    let outcome = if values.raw_mode() {
        let raw = values.get("raw").unwrap_or_default().trim();
        let raw = if raw.is_empty() { "{}" } else { raw };
        let result = state.run_call(reg, raw).await;
        CallOutcome::Called {
            result,
            wall_ms: started.elapsed().as_secs_f64() * 1e3,
        }
    } else {
        match arguments_from_form(&tool, &values) {
            Ok(args) => {
                let result = state.run_call(reg, &args.to_string()).await;
                CallOutcome::Called {
                    result,
                    wall_ms: started.elapsed().as_secs_f64() * 1e3,
                }
            }
            Err(errors) => CallOutcome::Invalid(errors),
        }
    };
    if let CallOutcome::Called { result, .. } = &outcome {
        tracing::info!(skill = reg.id, success = result.success, "console call");
    }
    let status = match &outcome {
        CallOutcome::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
        CallOutcome::Called { .. } => StatusCode::OK,
    };
    match render_skill(&state, reg.id, &values, Some(&outcome)) {
        Some(page) => (status, page).into_response(),
        None => unknown_skill(&id),
    }
}

/// The arguments of a form submission: empty fields are left out (the skill's default or
/// the state fills them in); numbers, booleans, lists and JSON are read by the parameter's
/// kind. Every field that cannot be read is reported, by name.
pub(crate) fn arguments_from_form(
    tool: &ToolDescriptor,
    values: &FormValues,
) -> Result<Value, Vec<String>> {
    let mut args = Map::new();
    let mut errors = Vec::new();
    for param in &tool.parameters {
        if param.value_kind == ValueKind::Boolean && param.cardinality != Cardinality::List {
            args.insert(
                param.name.clone(),
                Value::Bool(values.arg(&param.name) == Some("true")),
            );
            continue;
        }
        let text = values.arg(&param.name).unwrap_or_default();
        if text.trim().is_empty() {
            continue;
        }
        match read_field(param, text) {
            Ok(value) => {
                args.insert(param.name.clone(), value);
            }
            Err(why) => errors.push(format!("{}: {why}", param.name)),
        }
    }
    if errors.is_empty() {
        Ok(Value::Object(args))
    } else {
        Err(errors)
    }
}

fn read_field(param: &ToolParameter, text: &str) -> Result<Value, String> {
    match param.cardinality {
        Cardinality::List => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .enumerate()
            .map(|(i, line)| {
                read_scalar(param.value_kind, line).map_err(|e| format!("line {}: {e}", i + 1))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        Cardinality::Map => read_json(text, "a JSON object").and_then(|v| {
            if v.is_object() {
                Ok(v)
            } else {
                Err(format!("expected a JSON object, got `{}`", short(text)))
            }
        }),
        Cardinality::Single | Cardinality::Optional => read_scalar(param.value_kind, text.trim()),
    }
}

fn read_scalar(kind: ValueKind, text: &str) -> Result<Value, String> {
    match kind {
        ValueKind::Integer => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("expected a whole number, got `{}`", short(text))),
        ValueKind::Number => text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("expected a number, got `{}`", short(text))),
        ValueKind::Boolean => match text.to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "0" => Ok(Value::Bool(false)),
            _ => Err(format!("expected true or false, got `{}`", short(text))),
        },
        ValueKind::JsonObject | ValueKind::JsonArray => read_json(text, "JSON"),
        ValueKind::String
        | ValueKind::Timestamp
        | ValueKind::Uri
        | ValueKind::EnumToken
        | ValueKind::AttachmentReference => Ok(Value::String(text.to_string())),
    }
}

fn read_json(text: &str, expected: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("expected {expected}: {e}"))
}

/// At most 60 characters of what was typed, for error messages.
fn short(text: &str) -> String {
    let mut out: String = text.chars().take(60).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// The form for `reg`: one field per parameter, by kind and cardinality, and a raw-JSON
/// form as fallback.
pub(crate) fn call_form(
    state: &ConsoleState,
    reg: &SkillRegistration,
    tool: &ToolDescriptor,
    values: &FormValues,
) -> Markup {
    let action = format!("/skills/{}/call", reg.id);
    let raw = values
        .get("raw")
        .map(str::to_string)
        .unwrap_or_else(|| pretty(&example_arguments(tool)));
    html! {
        form #call-form method="post" action=(action) {
            (csrf_field(state))
            input type="hidden" name="mode" value="form";
            @for p in &tool.parameters { (field(p, values)) }
            button type="submit" #call-submit { "Call " (reg.id) }
        }
        details #raw-json open[values.raw_mode()] {
            summary { "Raw JSON arguments" }
            form method="post" action=(action) {
                (csrf_field(state))
                input type="hidden" name="mode" value="json";
                textarea name="raw" rows="8" aria-label="Arguments as JSON" { (raw) }
                p { button type="submit" #raw-submit { "Call with this JSON" } }
            }
        }
    }
}

/// Arguments built from each parameter's example or default (required ones first), to start
/// the raw-JSON editor from.
fn example_arguments(tool: &ToolDescriptor) -> Value {
    let mut args = Map::new();
    for p in &tool.parameters {
        if let Some(v) = p.example.as_ref().or(p.default.as_ref()) {
            args.insert(p.name.clone(), v.clone());
        } else if p.required {
            args.insert(p.name.clone(), placeholder(p));
        }
    }
    Value::Object(args)
}

fn placeholder(p: &ToolParameter) -> Value {
    if p.cardinality == Cardinality::List {
        return Value::Array(Vec::new());
    }
    match p.value_kind {
        ValueKind::Integer | ValueKind::Number => Value::from(0),
        ValueKind::Boolean => Value::Bool(false),
        ValueKind::JsonObject => Value::Object(Map::new()),
        ValueKind::JsonArray => Value::Array(Vec::new()),
        ValueKind::EnumToken => p
            .enum_constraint
            .as_ref()
            .and_then(|e| e.allowed_values.first())
            .map_or(Value::String(String::new()), |v| Value::String(v.clone())),
        _ => Value::String(String::new()),
    }
}

/// A value as a form shows it: strings bare, everything else as JSON.
fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn field(p: &ToolParameter, values: &FormValues) -> Markup {
    let name = format!("{ARG}{}", p.name);
    let id = format!("arg-{}", p.name);
    let submitted = values.arg(&p.name).map(str::to_string);
    let initial = || {
        submitted
            .clone()
            .or_else(|| p.default.as_ref().map(as_text))
    };
    let example = p.example.as_ref().map(as_text);
    let label = html! {
        label for=(id) {
            span.mono { (p.name) }
            @if p.required { " *" }
            " " small { (p.value_kind.as_str()) ", " (match p.cardinality { Cardinality::List => "list", Cardinality::Map => "map", Cardinality::Single => "single", Cardinality::Optional => "optional" }) }
        }
    };
    let hint = html! {
        @if !p.description.is_empty() { div.hint { (p.description) } }
        @if p.prepared && !p.required { div.hint { "Left empty, it is filled in from the loaded state." } }
    };
    let control = match (p.cardinality, p.value_kind) {
        (Cardinality::List, kind) => {
            let text = submitted.or_else(|| {
                p.default
                    .as_ref()
                    .and_then(Value::as_array)
                    .map(|items| items.iter().map(as_text).collect::<Vec<_>>().join("\n"))
            });
            let kind_hint = match kind {
                ValueKind::JsonObject | ValueKind::JsonArray => "one JSON value per line",
                _ => "one item per line",
            };
            html! {
                textarea id=(id) name=(name) rows="4" placeholder=(kind_hint) { (text.unwrap_or_default()) }
                @if let Some(values) = p.enum_constraint.as_ref() { div.hint { "Allowed: " (values.allowed_values.join(", ")) } }
            }
        }
        (Cardinality::Map, _) | (_, ValueKind::JsonObject | ValueKind::JsonArray) => html! {
            textarea id=(id) name=(name) rows="4" placeholder="JSON" { (initial().unwrap_or_default()) }
        },
        (_, ValueKind::Boolean) => {
            let checked = match &submitted {
                Some(v) => v == "true",
                None if values.submitted() => false,
                None => p.default.as_ref().and_then(Value::as_bool).unwrap_or(false),
            };
            html! { input type="checkbox" id=(id) name=(name) value="true" checked[checked]; }
        }
        (_, ValueKind::EnumToken) => {
            let current = initial().unwrap_or_default();
            let allowed = p
                .enum_constraint
                .as_ref()
                .map(|e| e.allowed_values.clone())
                .unwrap_or_default();
            html! {
                select id=(id) name=(name) required[p.required] {
                    @if !p.required { option value="" { "(not set)" } }
                    @for v in &allowed { option value=(v) selected[*v == current] { (v) } }
                }
            }
        }
        (_, ValueKind::Integer | ValueKind::Number) => html! {
            input type="number" id=(id) name=(name)
                step=(if p.value_kind == ValueKind::Integer { "1" } else { "any" })
                value=[initial()] placeholder=[example] required[p.required];
        },
        _ => html! {
            input type="text" id=(id) name=(name) value=[initial()] placeholder=[example] required[p.required];
        },
    };
    html! { div.field { (label) (control) (hint) } }
}

/// An error's details as the page shows them: values naming Rust types (a `type` a skill
/// could not be given, `clausewright_skills::state::ReviewState`, and hints written about such types) are
/// for the operator's log, where the dispatcher already writes them, not for the person at
/// the page. `None` when nothing is left to show.
fn details_for_people(details: &Value) -> Option<Value> {
    fn keep(value: &Value) -> Option<Value> {
        match value {
            Value::String(text) if names_a_rust_type(text) => None,
            Value::Object(map) => {
                let kept: Map<String, Value> = map
                    .iter()
                    .filter_map(|(k, v)| keep(v).map(|v| (k.clone(), v)))
                    .collect();
                (!kept.is_empty() || map.is_empty()).then_some(Value::Object(kept))
            }
            Value::Array(items) => Some(Value::Array(items.iter().filter_map(keep).collect())),
            other => Some(other.clone()),
        }
    }
    keep(details).filter(|v| !matches!(v, Value::Object(m) if m.is_empty()))
}

/// Whether `text` holds a Rust path such as `clausewright_skills::state::ReviewState` (identifiers joined
/// by `::`; an IPv6 address like `::1` is not one).
fn names_a_rust_type(text: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .any(|word| {
            let parts: Vec<&str> = word.split("::").collect();
            parts.len() >= 2
                && parts.iter().all(|p| {
                    p.chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_')
                        && !p.contains(':')
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolwright::SkillError;

    #[test]
    fn a_missing_value_is_shown_without_its_rust_type() {
        let err = SkillError::missing_injection(
            "get_clause_context",
            "clausewright_skills::state::ReviewState",
        );
        let result = SkillResult::err("get_clause_context", err, 0.0);
        let page = render_result(&result, 1.0).into_string();
        assert!(!page.contains("::"), "{page}");
        assert!(page.contains("missing_injection"), "{page}");
        assert!(page.contains("get_clause_context"), "{page}");
    }

    #[test]
    fn details_without_type_names_are_kept_whole() {
        let details = json!({"reason": "x", "limit": 3, "address": "::1", "list": ["a", "std::io::Error"], "hint": "an `Arc<my_crate::Thing>`"});
        assert_eq!(
            details_for_people(&details),
            Some(json!({"reason": "x", "limit": 3, "address": "::1", "list": ["a"]}))
        );
        assert_eq!(details_for_people(&json!({"type": "a::B"})), None);
        assert_eq!(details_for_people(&json!({})), None);
    }
}
