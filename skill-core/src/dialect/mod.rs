//! One neutral tool description rendered into each provider's dialect: OpenAI Chat function
//! tools (plain and strict), OpenAI Responses tools, Anthropic tools (plain and strict),
//! Gemini function declarations (`parameters` and `parametersJsonSchema`) and MCP tools.
//!
//! Every dialect uses the skill's wire name (`crm.search_client` → `crm_search_client`), which
//! all of them accept; the dispatcher maps it back when a call comes in. Tool calls and results
//! in each dialect are in [`calls`].

pub mod calls;
pub mod schema;

use std::fmt;
use std::str::FromStr;

use serde_json::{json, Map, Value};

pub use calls::{ProviderCall, WireArguments};

use crate::registration::SkillRegistration;
use schema::Unfit;

/// A provider's tool dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI Chat Completions function tools (SPEC-19 shape), non-strict.
    OpenAi,
    /// OpenAI Chat Completions function tools with `strict: true`.
    OpenAiStrict,
    /// OpenAI Responses API function tools (flat shape, explicit `strict`).
    Responses,
    /// Anthropic Messages tools (`input_schema`).
    Anthropic,
    /// Anthropic tools with `strict: true` (grammar-constrained, within its limits).
    AnthropicStrict,
    /// Gemini function declarations with OpenAPI-subset `parameters` (falling back to
    /// `parametersJsonSchema` per tool when the subset cannot express a schema).
    Gemini,
    /// Gemini function declarations with `parametersJsonSchema`.
    GeminiJsonSchema,
    /// MCP tools (`inputSchema`, `outputSchema`, `annotations`).
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 8] = [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Responses,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ];

    /// The name used on the command line (`openai-strict`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::Responses => "responses",
            Dialect::Anthropic => "anthropic",
            Dialect::AnthropicStrict => "anthropic-strict",
            Dialect::Gemini => "gemini",
            Dialect::GeminiJsonSchema => "gemini-json-schema",
            Dialect::Mcp => "mcp",
        }
    }

    /// Renders the tool definitions of `skills` (in the given order), hiding
    /// `exclude_fields`.
    pub fn render_tools(
        self,
        skills: &[&'static SkillRegistration],
        exclude_fields: &[String],
    ) -> Result<Vec<Value>, DialectError> {
        let defs = skills
            .iter()
            .map(|s| self.render_tool(s, exclude_fields))
            .collect::<Result<Vec<_>, _>>()?;
        if self == Dialect::AnthropicStrict {
            check_anthropic_budget(skills, &defs)?;
        }
        Ok(defs)
    }

    /// Renders one tool definition.
    pub fn render_tool(
        self,
        skill: &'static SkillRegistration,
        exclude_fields: &[String],
    ) -> Result<Value, DialectError> {
        let params = neutral_parameters(skill, exclude_fields);
        let unfit = |reason: Unfit| DialectError::Unfit {
            dialect: self,
            skill_id: skill.id.to_string(),
            reason: reason.to_string(),
        };
        Ok(match self {
            Dialect::OpenAi => json!({
                "type": "function",
                "function": {
                    "name": skill.wire_name,
                    "description": skill.description,
                    "parameters": params,
                }
            }),
            Dialect::OpenAiStrict => {
                let (parameters, strict) =
                    strict_or_downgrade(skill, &params, self).map_err(unfit)?;
                json!({
                    "type": "function",
                    "function": {
                        "name": skill.wire_name,
                        "description": skill.description,
                        "parameters": parameters,
                        "strict": strict,
                    }
                })
            }
            Dialect::Responses => {
                let (parameters, strict) =
                    strict_or_downgrade(skill, &params, self).map_err(unfit)?;
                json!({
                    "type": "function",
                    "name": skill.wire_name,
                    "description": skill.description,
                    "parameters": parameters,
                    "strict": strict,
                })
            }
            Dialect::Anthropic => json!({
                "name": skill.wire_name,
                "description": skill.description,
                "input_schema": params,
            }),
            Dialect::AnthropicStrict => {
                if let Some(name) = schema::recursion_in(&params) {
                    return Err(unfit(Unfit::Recursive(name)));
                }
                let (input_schema, strict) =
                    strict_or_downgrade(skill, &params, self).map_err(unfit)?;
                let mut def = json!({
                    "name": skill.wire_name,
                    "description": skill.description,
                    "input_schema": input_schema,
                });
                if strict {
                    def["strict"] = Value::Bool(true);
                }
                def
            }
            Dialect::Gemini => {
                check_gemini_name(self, skill)?;
                let mut def = json!({ "name": skill.wire_name, "description": skill.description });
                let empty = params["properties"].as_object().is_none_or(Map::is_empty);
                if !empty {
                    match schema::gemini_openapi(&params) {
                        Ok(parameters) => def["parameters"] = parameters,
                        Err(reason) => {
                            tracing::warn!(skill = skill.id, %reason, "Gemini `parameters` cannot express the input; using `parametersJsonSchema`");
                            def["parametersJsonSchema"] = schema::gemini_json_schema(&params);
                        }
                    }
                }
                def
            }
            Dialect::GeminiJsonSchema => {
                check_gemini_name(self, skill)?;
                json!({
                    "name": skill.wire_name,
                    "description": skill.description,
                    "parametersJsonSchema": schema::gemini_json_schema(&params),
                })
            }
            Dialect::Mcp => mcp_tool(skill, params),
        })
    }

    /// The value of a request's `tools` field for these definitions: the list itself, except
    /// Gemini, which nests declarations as `[{"functionDeclarations": [...]}]`.
    pub fn request_tools(self, definitions: &[Value]) -> Value {
        match self {
            Dialect::Gemini | Dialect::GeminiJsonSchema => {
                json!([{ "functionDeclarations": definitions }])
            }
            _ => Value::Array(definitions.to_vec()),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = DialectError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let normalized = s.trim().to_ascii_lowercase().replace('_', "-");
        Ok(match normalized.as_str() {
            "openai" | "openai-chat" | "chat" => Dialect::OpenAi,
            "openai-strict" | "strict" => Dialect::OpenAiStrict,
            "responses" | "openai-responses" => Dialect::Responses,
            "anthropic" | "claude" => Dialect::Anthropic,
            "anthropic-strict" | "claude-strict" => Dialect::AnthropicStrict,
            "gemini" | "google" => Dialect::Gemini,
            "gemini-json-schema" | "gemini-jsonschema" => Dialect::GeminiJsonSchema,
            "mcp" => Dialect::Mcp,
            _ => return Err(DialectError::UnknownDialect(s.to_string())),
        })
    }
}

/// A tool set that a dialect cannot carry, or a call that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DialectError {
    /// The name is not one of [`Dialect::ALL`].
    #[error("unknown dialect `{0}`; expected one of openai, openai-strict, responses, anthropic, anthropic-strict, gemini, gemini-json-schema, mcp")]
    UnknownDialect(String),
    /// One skill's schema cannot be expressed.
    #[error("tool `{skill_id}` cannot be rendered for {dialect}: {reason}")]
    Unfit {
        /// The dialect.
        dialect: Dialect,
        /// The skill.
        skill_id: String,
        /// Why.
        reason: String,
    },
    /// The name breaks the dialect's name rule.
    #[error("tool name `{name}` is not valid for {dialect}: {reason}")]
    InvalidName {
        /// The dialect.
        dialect: Dialect,
        /// The wire name.
        name: String,
        /// Why.
        reason: String,
    },
    /// Anthropic strict mode's per-request budget is exceeded.
    #[error("the tool set does not fit Anthropic strict mode: {reason}; offer fewer strict tools (filter by domain or category) or use the `anthropic` dialect")]
    AnthropicLimits {
        /// Which limit and by how much.
        reason: String,
    },
    /// A tool call in a provider's payload is malformed.
    #[error("malformed {dialect} tool call at {location}: {reason}")]
    MalformedCall {
        /// The dialect.
        dialect: Dialect,
        /// Where in the payload.
        location: String,
        /// What is wrong.
        reason: String,
    },
}

/// Anthropic strict-mode budget per request.
pub mod anthropic_limits {
    /// Tools with `strict: true`.
    pub const MAX_STRICT_TOOLS: usize = 20;
    /// Properties not in `required`, summed over all strict schemas.
    pub const MAX_OPTIONAL: usize = 24;
    /// Properties with union types (`anyOf`, type arrays), summed over all strict schemas.
    pub const MAX_UNIONS: usize = 16;
}

/// The neutral `parameters` object with `exclude_fields` removed.
fn neutral_parameters(skill: &SkillRegistration, exclude_fields: &[String]) -> Value {
    let mut params = skill.parameters();
    if !exclude_fields.is_empty() {
        if let Some(Value::Object(props)) = params.get_mut("properties") {
            for field in exclude_fields {
                props.remove(field);
            }
        }
        if let Some(Value::Array(required)) = params.get_mut("required") {
            required.retain(|v| {
                !v.as_str()
                    .is_some_and(|n| exclude_fields.iter().any(|f| f == n))
            });
        }
    }
    params
}

/// The strict schema, or — when the input cannot be strict (free-form maps, untyped values)
/// — the plain schema with `strict: false` and a warning in the log.
fn strict_or_downgrade(
    skill: &SkillRegistration,
    params: &Value,
    dialect: Dialect,
) -> Result<(Value, bool), Unfit> {
    let strict = match dialect {
        Dialect::AnthropicStrict => schema::anthropic_strict(params),
        _ => schema::openai_strict(params),
    };
    match strict {
        Ok(schema) => Ok((schema, true)),
        Err(Unfit::Unsupported { pointer, reason }) if !reason.contains("exceed") => {
            tracing::warn!(skill = skill.id, %dialect, %reason, pointer, "input cannot be strict; sending it with strict: false");
            Ok((params.clone(), false))
        }
        Err(other) => Err(other),
    }
}

fn check_gemini_name(dialect: Dialect, skill: &SkillRegistration) -> Result<(), DialectError> {
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

fn check_anthropic_budget(
    skills: &[&'static SkillRegistration],
    defs: &[Value],
) -> Result<(), DialectError> {
    use anthropic_limits::*;
    let mut strict_tools = 0;
    let mut optional = 0;
    let mut unions = 0;
    let mut per_tool = Vec::new();
    for (skill, def) in skills.iter().zip(defs) {
        if def.get("strict") != Some(&Value::Bool(true)) {
            continue;
        }
        strict_tools += 1;
        let (o, u) = schema::anthropic_budget(&def["input_schema"]);
        optional += o;
        unions += u;
        per_tool.push(format!("{} ({o} optional, {u} union)", skill.id));
    }
    let mut over = Vec::new();
    if strict_tools > MAX_STRICT_TOOLS {
        over.push(format!(
            "{strict_tools} strict tools (limit {MAX_STRICT_TOOLS})"
        ));
    }
    if optional > MAX_OPTIONAL {
        over.push(format!(
            "{optional} optional parameters (limit {MAX_OPTIONAL})"
        ));
    }
    if unions > MAX_UNIONS {
        over.push(format!(
            "{unions} parameters with union types (limit {MAX_UNIONS})"
        ));
    }
    if over.is_empty() {
        return Ok(());
    }
    Err(DialectError::AnthropicLimits {
        reason: format!("{}; per tool: {}", over.join(", "), per_tool.join(", ")),
    })
}

/// MCP behaviour hints derived from the category (seed 004): `query`/`stats` and analysis
/// kinds read only; `delete` and `update` are destructive, `create` only adds.
fn mcp_annotations(skill: &SkillRegistration) -> Value {
    let category = skill.category;
    let read_only = matches!(
        category,
        "query" | "stats" | "analysis" | "retrieval" | "search" | "report"
    ) || category.starts_with("analysis");
    let mut a = Map::new();
    a.insert("title".into(), Value::String(skill.name.to_string()));
    a.insert("readOnlyHint".into(), Value::Bool(read_only));
    if !read_only {
        let destructive = match category {
            "delete" | "update" => Some(true),
            "create" | "ui" => Some(false),
            _ => None,
        };
        if let Some(d) = destructive {
            a.insert("destructiveHint".into(), Value::Bool(d));
        }
        if let Some(idempotent) = skill.idempotent {
            a.insert("idempotentHint".into(), Value::Bool(idempotent));
        }
    }
    a.insert(
        "openWorldHint".into(),
        Value::Bool(skill.open_world.unwrap_or(false)),
    );
    Value::Object(a)
}

/// The MCP `outputSchema` (object-rooted, as MCP 2025-11-25 requires): an object output as
/// is, any other output wrapped as `{"result": ...}` — the same wrapping
/// [`calls::render_result`] applies to `structuredContent`.
pub fn mcp_output_schema(skill: &SkillRegistration) -> Value {
    let mut schema = (skill.output_schema)().clone();
    if is_object_schema(&schema) {
        if let Value::Object(map) = &mut schema {
            map.insert("type".into(), json!("object"));
        }
        return schema;
    }
    let defs = schema.as_object_mut().and_then(|m| m.remove("$defs"));
    if let Value::Object(map) = &mut schema {
        map.remove("title");
    }
    let mut wrapped = json!({
        "type": "object",
        "properties": { "result": schema },
        "required": ["result"],
    });
    if let Some(defs) = defs {
        wrapped["$defs"] = defs;
    }
    wrapped
}

/// Whether an output schema is an object at the root (so output goes to
/// `structuredContent` unwrapped).
pub fn is_object_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object")) && schema.get("properties").is_some()
}

fn mcp_tool(skill: &SkillRegistration, params: Value) -> Value {
    json!({
        "name": skill.wire_name,
        "title": skill.name,
        "description": skill.description,
        "inputSchema": params,
        "outputSchema": mcp_output_schema(skill),
        "annotations": mcp_annotations(skill),
    })
}

impl Dialect {
    /// Reads the tool calls of a provider payload (see [`calls::parse_calls`]).
    pub fn parse_calls(self, payload: &Value) -> Result<Vec<ProviderCall>, DialectError> {
        calls::parse_calls(self, payload)
    }

    /// The answer to `call` in this dialect (see [`calls::render_result`]).
    pub fn render_result(
        self,
        call: &ProviderCall,
        result: &crate::SkillResult,
        skill: Option<&SkillRegistration>,
    ) -> Value {
        let mut call = call.clone();
        call.dialect = self;
        calls::render_result(&call, result, skill)
    }
}
