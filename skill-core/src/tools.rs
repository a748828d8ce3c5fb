//! Tool definitions for the model (SPEC-19 OpenAI function shape) and tool calls coming back.
//!
//! [`skills_to_tool_definitions`] and [`parse_tool_calls`] are the two halves of the adapter
//! between registered skills and a chat model: what the model may call, and what it asked for.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::args::ParseWarning;
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

    /// Whether `skill` passes the filter (only active skills do).
    pub fn accepts(&self, skill: &SkillRegistration) -> bool {
        skill.is_active()
            && self
                .domain
                .as_deref()
                .is_none_or(|d| skill.domain == "*" || skill.domain == d)
            && self.category.as_deref().is_none_or(|c| skill.category == c)
    }
}

impl SkillRegistration {
    /// The `parameters` object the model sees: `type`, `properties`, `required` (and `$defs`
    /// when the input uses named nested types). Injected values are never part of it.
    pub fn parameters(&self) -> Value {
        let schema = (self.input_schema)();
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
        Value::Object(params)
    }

    /// The OpenAI function-tool definition as JSON text, rendered once per registration for
    /// the life of the process and shared by every dispatcher.
    pub fn tool_definition_json(&'static self) -> std::sync::Arc<str> {
        use std::collections::HashMap;
        use std::sync::{Arc, OnceLock, RwLock};
        static RENDERED: OnceLock<RwLock<HashMap<usize, Arc<str>>>> = OnceLock::new();
        let cache = RENDERED.get_or_init(Default::default);
        let key = self as *const SkillRegistration as usize;
        if let Some(hit) = cache.read().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return Arc::clone(hit);
        }
        let json: Arc<str> = Arc::from(self.render_definition_json());
        let mut cache = cache.write().unwrap_or_else(|p| p.into_inner());
        Arc::clone(cache.entry(key).or_insert(json))
    }

    /// Serializes the definition straight from the cached schema, without cloning it.
    fn render_definition_json(&self) -> String {
        #[derive(Serialize)]
        struct Parameters<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            properties: &'a Value,
            required: &'a Value,
            #[serde(rename = "$defs", skip_serializing_if = "Option::is_none")]
            defs: Option<&'a Value>,
        }
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            description: &'a str,
            parameters: Parameters<'a>,
        }
        #[derive(Serialize)]
        struct Definition<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            function: Function<'a>,
        }
        let (empty_object, empty_array) = (Value::Object(Map::new()), Value::Array(Vec::new()));
        let schema = (self.input_schema)();
        let definition = Definition {
            kind: "function",
            function: Function {
                name: self.wire_name,
                description: self.description,
                parameters: Parameters {
                    kind: "object",
                    properties: schema.get("properties").unwrap_or(&empty_object),
                    required: schema.get("required").unwrap_or(&empty_array),
                    defs: schema.get("$defs"),
                },
            },
        };
        serde_json::to_string(&definition).expect("a JSON schema always serializes")
    }

    /// The OpenAI function-tool definition of SPEC-19 section 1.2:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    pub fn to_tool_definition(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.wire_name,
                "description": self.description,
                "parameters": self.parameters(),
            }
        })
    }
}

/// Removes `fields` from a definition's `properties` and `required`.
pub fn exclude_fields(definition: &mut Value, fields: &[String]) {
    if fields.is_empty() {
        return;
    }
    let Some(params) = definition.pointer_mut("/function/parameters") else {
        return;
    };
    if let Some(Value::Object(props)) = params.get_mut("properties") {
        for field in fields {
            props.remove(field);
        }
    }
    if let Some(Value::Array(required)) = params.get_mut("required") {
        required.retain(|v| !v.as_str().is_some_and(|n| fields.iter().any(|f| f == n)));
    }
}

/// Converts skills to OpenAI function tools (SPEC-19 `skills_to_tool_definitions`): inactive
/// skills are left out, `filter` picks domain and category and hides fields. Order follows
/// the input.
pub fn skills_to_tool_definitions<'a>(
    skills: impl IntoIterator<Item = &'a SkillRegistration>,
    filter: &ToolFilter,
) -> Vec<Value> {
    skills
        .into_iter()
        .filter(|s| filter.accepts(s))
        .map(|s| {
            let mut def = s.to_tool_definition();
            exclude_fields(&mut def, &filter.exclude_fields);
            def
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
    tool_calls
        .iter()
        .map(|tc| {
            let function = tc.get("function");
            let name = function
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let arguments: Cow<'_, str> = match function.and_then(|f| f.get("arguments")) {
                Some(Value::String(text)) => Cow::Borrowed(text),
                Some(Value::Null) | None => Cow::Borrowed("{}"),
                Some(other) => Cow::Owned(other.to_string()),
            };
            ParsedCall::from_tool_call(ToolCall {
                id: tc
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                name: name.to_string(),
                arguments: arguments.into_owned(),
            })
        })
        .collect()
}
