//! Which tools to offer ([`ToolFilter`]) and tool calls coming back ([`ToolCall`],
//! [`ParsedCall`]). Definitions are rendered by [`crate::Dialect`]; the SPEC-19 names
//! [`skills_to_tool_definitions`] and [`parse_tool_calls`] are the OpenAI-shape entry points.
//!
//! Why two call types: a [`ToolCall`] is the call exactly as the model sent it, arguments as
//! raw text, because that text goes back into the history verbatim (the provider checks the
//! echo) and is what [`crate::agent::LlmResponse`] carries and a stored history serializes.
//! A [`ParsedCall`] is the same call after checking: its arguments are always a JSON object
//! and what was wrong travels as warnings to the result. Folding them into one type would
//! either lose the verbatim text or the "always an object" guarantee the dispatcher relies on.
//! The provider-side forms are [`crate::ProviderCall`] (a call in one dialect, with its
//! dialect-only fields such as Gemini's `thoughtSignature`) and [`crate::WireArguments`].

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::args::ParseWarning;
use crate::dialect::Dialect;
use crate::error::SkillError;
use crate::registration::SkillRegistration;

/// Which skills to offer, and which arguments to hide from the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ToolFilter {
    /// Keep skills of this domain and of the universal domain `"*"`.
    pub domain: Option<String>,
    /// Keep only skills of this category.
    pub category: Option<String>,
    /// Argument names removed from every definition (the skill must be able to do without
    /// them: a default or a prepared value).
    pub exclude_fields: Vec<String>,
    /// Keep only skills with these ids (AND-ed with domain and category); `None` keeps all.
    /// A pack's tool set (core, its own skills, its imports) is such a set.
    pub ids: Option<BTreeSet<String>>,
}

impl ToolFilter {
    /// No filtering: every active skill.
    pub fn all() -> Self {
        Self::default()
    }

    /// Skills of `domain` plus the universal ones.
    #[must_use]
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Skills of `category` only.
    #[must_use]
    pub fn category(mut self, category: impl Into<String>) -> Self {
        self.category = Some(category.into());
        self
    }

    /// Hides an argument from every definition.
    #[must_use]
    pub fn exclude_field(mut self, name: impl Into<String>) -> Self {
        self.exclude_fields.push(name.into());
        self
    }

    /// Keeps only the skills with these ids (on top of domain and category).
    #[must_use]
    pub fn ids<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.ids = Some(ids.into_iter().map(Into::into).collect());
        self
    }

    /// Whether `skill` passes the filter (only active skills do).
    pub fn accepts(&self, skill: &SkillRegistration) -> bool {
        skill.is_active() && self.selects(skill)
    }

    /// Whether `skill` is in the filter's domain, category and ids, whatever its status
    /// (a catalog shows disabled skills too; a tool list offers only what
    /// [`accepts`](Self::accepts)).
    pub fn selects(&self, skill: &SkillRegistration) -> bool {
        self.domain
            .as_deref()
            .is_none_or(|d| skill.domain == "*" || skill.domain == d)
            && self.category.as_deref().is_none_or(|c| skill.category == c)
            && self.ids.as_ref().is_none_or(|ids| ids.contains(skill.id))
    }
}

impl SkillRegistration {
    /// The `parameters` object the model sees: `type`, `properties`, `required` (and `$defs`
    /// when the input uses named nested types). Injected values are never part of it.
    pub fn parameters(&self) -> Value {
        crate::dialect::neutral_parameters(self)
    }

    /// The OpenAI function-tool definition of SPEC-19 section 1.2:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`, rendered
    /// by [`Dialect::OpenAi`].
    pub fn to_tool_definition(&self) -> Value {
        Dialect::OpenAi
            .render_tool(self, &[])
            .expect("every skill renders as an OpenAI function tool")
    }
}

/// Converts skills to OpenAI function tools (SPEC-19 `skills_to_tool_definitions`): inactive
/// skills are left out, `filter` picks domain and category and hides fields. Order follows
/// the input. Rendered by [`Dialect::OpenAi`], like [`crate::Dispatcher::tools`] (which also
/// caches).
pub fn skills_to_tool_definitions<'a>(
    skills: impl IntoIterator<Item = &'a SkillRegistration>,
    filter: &ToolFilter,
) -> Vec<Value> {
    skills
        .into_iter()
        .filter(|s| filter.accepts(s))
        .map(|s| {
            Dialect::OpenAi
                .render_tool(s, &filter.exclude_fields)
                .expect("every skill renders as an OpenAI function tool")
        })
        .collect()
}

/// A tool call in neutral form: the provider's call id, the tool name and the arguments as
/// the JSON text the model produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider's id of the call, echoed in the result message.
    pub id: String,
    /// Tool name as the model wrote it (an id or a wire name).
    pub name: String,
    /// Arguments as JSON text.
    pub arguments: String,
}

/// A tool call ready to dispatch.
#[derive(Debug, Clone)]
pub struct ParsedCall {
    /// Provider's id of the call (`""` when the model gave none).
    pub id: String,
    /// Tool name as the model wrote it; the dispatcher maps wire names back to ids.
    pub skill_id: String,
    /// The arguments as JSON text: always a valid JSON object (`{}` when they were missing
    /// or unreadable).
    pub arguments: String,
    /// What was wrong with the call as sent (unreadable JSON, not an object).
    pub warnings: Vec<ParseWarning>,
}

impl ParsedCall {
    /// Parses one neutral tool call: invalid JSON or a non-object becomes `{}` with a
    /// warning, so the call can still be dispatched (and fail on its required arguments).
    pub fn from_tool_call(call: ToolCall) -> Self {
        let mut warnings = Vec::new();
        let arguments = checked_arguments(call.arguments, &call.name, &mut warnings);
        ParsedCall {
            id: call.id,
            skill_id: call.name,
            arguments,
            warnings,
        }
    }

    /// The error for a host that will not run a call whose arguments could not be read
    /// (invalid JSON, not an object) with `{}` in their place: what was wrong, and what to
    /// send instead. `None` when the arguments were read.
    pub fn unreadable_arguments(&self) -> Option<SkillError> {
        let warning = self.warnings.first()?;
        let message = format!(
            "the call was not run: {}. Send the arguments as one JSON object matching the parameters of `{}`",
            warning.message.trim_end_matches("; using {}"),
            self.skill_id
        );
        let problem = crate::args::ParseError {
            code: warning.code.clone(),
            path: warning.path.clone(),
            expected: warning.expected.clone(),
            raw: warning.raw.clone(),
            message: message.clone(),
        };
        Some(SkillError::from_outcome(
            crate::Outcome::InvalidArguments(vec![problem]),
            message,
        ))
    }

    /// The arguments as a JSON value.
    pub fn arguments_value(&self) -> Value {
        serde_json::from_str(&self.arguments).unwrap_or_else(|_| json!({}))
    }

    /// One argument by name.
    pub fn argument(&self, name: &str) -> Option<Value> {
        match self.arguments_value() {
            Value::Object(mut map) => map.remove(name),
            _ => None,
        }
    }
}

fn checked_arguments(text: String, tool: &str, warnings: &mut Vec<ParseWarning>) -> String {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return "{}".to_string();
    }
    match serde_json::from_str::<&RawValue>(trimmed) {
        Ok(_) if trimmed.starts_with('{') => text,
        Ok(raw) => {
            warnings.push(ParseWarning {
                code: "arguments_not_object".into(),
                path: "$".into(),
                expected: "object".into(),
                raw: serde_json::from_str(raw.get()).unwrap_or(Value::Null),
                message: format!("arguments of `{tool}` are not a JSON object; using {{}}"),
            });
            tracing::warn!(tool, "tool-call arguments are not a JSON object");
            "{}".to_string()
        }
        Err(err) => {
            warnings.push(ParseWarning {
                code: "invalid_json_arguments".into(),
                path: "$".into(),
                expected: "JSON object".into(),
                raw: Value::String(trimmed.chars().take(200).collect()),
                message: format!("arguments of `{tool}` are not valid JSON ({err}); using {{}}"),
            });
            tracing::warn!(tool, error = %err, "tool-call arguments are not valid JSON");
            "{}".to_string()
        }
    }
}

/// Parses tool calls in the OpenAI Chat shape (SPEC-19 `parse_tool_calls`):
/// `{"id", "function": {"name", "arguments"}}` where `arguments` is a JSON string or an
/// object. Missing fields never fail: a missing id gives `""`, unreadable arguments `{}` plus
/// a warning.
pub fn parse_tool_calls(tool_calls: &[Value]) -> Vec<ParsedCall> {
    use crate::dialect::{openai, Dialect};
    tool_calls
        .iter()
        .map(|entry| {
            let (call, missing) = openai::read_chat_call(Dialect::OpenAi, entry);
            if let Some(missing) = missing {
                // Dispatched under no name: the model reads that there is no such tool.
                tracing::warn!(?missing, "tool call without a function name");
            }
            ParsedCall::from_tool_call(call.into_tool_call())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments sent as an object come back as the same JSON value, numbers included: an
    /// integer over 64 bits is read as the nearest float once (`float_roundtrip`), and that
    /// float is written and read back unchanged.
    #[test]
    fn object_arguments_come_back_as_sent_even_with_huge_numbers() {
        let sent: Value = serde_json::from_str(
            r#"{"id": "c1", "function": {"name": "t", "arguments": {"n": 277777777777777777777777777777237, "x": 0.1, "y": 1e-7}}}"#,
        )
        .unwrap();
        let parsed = parse_tool_calls(std::slice::from_ref(&sent));
        assert!(parsed[0].warnings.is_empty());
        assert_eq!(
            &parsed[0].arguments_value(),
            sent.pointer("/function/arguments").unwrap()
        );
    }
}
