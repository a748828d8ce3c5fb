//! One neutral tool description rendered into each provider's dialect: OpenAI Chat function
//! tools (plain and strict), OpenAI Responses tools, Anthropic tools (plain and strict),
//! Gemini function declarations (`parameters` and `parametersJsonSchema`) and MCP tools.
//!
//! This module is the only owner of each provider's wire format: one file per provider
//! (`openai`, `anthropic`, `gemini`, `mcp`), the lowering passes they share (`lower`), and
//! tool calls and results in each dialect ([`calls`]).
//!
//! Every dialect uses the skill's wire name (`crm.search_client` → `crm_search_client`), which
//! all of them accept; the dispatcher maps it back when a call comes in.

pub(crate) mod anthropic;
mod calls;
mod chat;
mod deferral;
mod gemini;
mod lower;
pub(crate) mod mcp;
pub(crate) mod openai;

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, OnceLock, RwLock};

use serde_json::{json, Map, Value};

pub(crate) use calls::render_result;
pub use calls::{ProviderCall, WireArguments};
pub use chat::{ChatMessage, LlmResponse, TokenUsage};
pub use deferral::NativeToolSearch;
pub use mcp::{mcp_structured_content, McpCallResult};

use crate::registration::SkillRegistration;
use lower::Unfit;

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
            anthropic::check_anthropic_budget(skills, &defs)?;
        }
        Ok(defs)
    }

    /// The definitions of a tool set: pre-rendered fragments where the dialect has them
    /// (plain OpenAI and MCP without hidden fields: neither depends on the rest of the set),
    /// values otherwise.
    pub(crate) fn render_set(
        self,
        skills: &[&'static SkillRegistration],
        exclude_fields: &[String],
    ) -> Result<RenderedTools, DialectError> {
        if exclude_fields.is_empty() {
            match self {
                Dialect::OpenAi => {
                    return Ok(RenderedTools::Fragments(
                        skills.iter().map(|s| openai::chat_fragment(s)).collect(),
                    ))
                }
                Dialect::Mcp => {
                    return Ok(RenderedTools::Fragments(
                        skills.iter().map(|s| mcp::mcp_fragment(s)).collect(),
                    ))
                }
                _ => {}
            }
        }
        self.render_tools(skills, exclude_fields)
            .map(RenderedTools::Values)
    }

    /// Renders one tool definition.
    pub fn render_tool(
        self,
        skill: &SkillRegistration,
        exclude_fields: &[String],
    ) -> Result<Value, DialectError> {
        let params = lower::neutral_parameters(skill, exclude_fields);
        let unfit = |reason: Unfit| DialectError::Unfit {
            dialect: self,
            skill_id: skill.id.to_string(),
            reason: reason.to_string(),
        };
        let to_value = |def: Result<Value, serde_json::Error>| {
            def.expect("a tool definition always serializes")
        };
        Ok(match self {
            Dialect::OpenAi => to_value(serde_json::to_value(openai::ChatTool::new(
                skill, params, None,
            ))),
            Dialect::OpenAiStrict => {
                let (parameters, strict) =
                    strict_or_downgrade(skill, &params, self).map_err(unfit)?;
                to_value(serde_json::to_value(openai::ChatTool::new(
                    skill,
                    parameters,
                    Some(strict),
                )))
            }
            Dialect::Responses => {
                let (parameters, strict) =
                    strict_or_downgrade(skill, &params, self).map_err(unfit)?;
                to_value(serde_json::to_value(openai::ResponsesTool::new(
                    skill, parameters, strict,
                )))
            }
            Dialect::Anthropic => anthropic::tool(skill, params),
            Dialect::AnthropicStrict => {
                if let Some(name) = lower::recursion_in(&params) {
                    return Err(unfit(Unfit::Recursive(name)));
                }
                let (input_schema, strict) =
                    strict_or_downgrade(skill, &params, self).map_err(unfit)?;
                let mut def = anthropic::tool(skill, input_schema);
                if strict {
                    def["strict"] = Value::Bool(true);
                }
                def
            }
            Dialect::Gemini => {
                gemini::check_gemini_name(self, skill)?;
                let mut def = json!({ "name": skill.wire_name, "description": skill.description });
                let empty = params["properties"].as_object().is_none_or(Map::is_empty);
                if !empty {
                    match gemini::gemini_openapi(&params) {
                        Ok(parameters) => def["parameters"] = parameters,
                        Err(reason) => {
                            tracing::warn!(skill = skill.id, %reason, "Gemini `parameters` cannot express the input; using `parametersJsonSchema`");
                            def["parametersJsonSchema"] = gemini::gemini_json_schema(&params);
                        }
                    }
                }
                def
            }
            Dialect::GeminiJsonSchema => {
                gemini::check_gemini_name(self, skill)?;
                json!({
                    "name": skill.wire_name,
                    "description": skill.description,
                    "parametersJsonSchema": gemini::gemini_json_schema(&params),
                })
            }
            Dialect::Mcp => mcp::mcp_tool(skill, params),
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

    /// The value of a request's `tools` field with provider-native deferral: the provider's
    /// search tool (see [`NativeToolSearch`]) first, then `definitions` (of this dialect) in
    /// their order, each whose name is not in `core` marked `defer_loading: true`. Chosen
    /// per request, for models that call the provider's search tool; refused for a dialect
    /// without it (OpenAI Chat Completions, Gemini, MCP, or the other provider's search),
    /// for a definition that is not this dialect's, and for a name given twice.
    pub fn deferred_request_tools(
        self,
        definitions: &[Value],
        core: &[&str],
        search: NativeToolSearch,
    ) -> Result<Value, DialectError> {
        deferral::deferred_request_tools(self, definitions, core, search)
    }

    /// Reads the tool calls of a provider payload (see [`ProviderCall`]).
    pub fn parse_calls(self, payload: &Value) -> Result<Vec<ProviderCall>, DialectError> {
        calls::parse_calls(self, payload)
    }

    /// Reads a whole provider answer (its text, tool calls and token usage) the way the
    /// agent's model clients do: an OpenAI Chat completion for [`Dialect::OpenAi`] and
    /// [`Dialect::OpenAiStrict`] (feature `openai`), an Anthropic message for
    /// [`Dialect::Anthropic`] and [`Dialect::AnthropicStrict`] (feature `anthropic`). Other
    /// dialects have no model client; their answers are read with [`Dialect::parse_calls`],
    /// and this returns [`DialectError::UnreadableResponse`] for them.
    pub fn read_response(self, body: &Value) -> Result<LlmResponse, DialectError> {
        match self {
            #[cfg(feature = "openai")]
            Dialect::OpenAi | Dialect::OpenAiStrict => openai::read_chat_completion(body),
            #[cfg(feature = "anthropic")]
            Dialect::Anthropic | Dialect::AnthropicStrict => anthropic::read_message(body),
            _ => {
                let _ = body;
                Err(DialectError::UnreadableResponse {
                    dialect: self,
                    reason: "no model client reads whole answers in this dialect (build with \
                             the `openai` or `anthropic` feature for those); read its tool \
                             calls with `parse_calls`"
                        .into(),
                })
            }
        }
    }

    /// The answer to `call` in this dialect .
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

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The answer a model client read from `dialect`'s `body`: its `text` and `tool_calls`,
/// and the token usage `usage` reads from the body's `usage` object (none without one).
/// One the provider `cut` at its output limit is logged: its text or its calls may stop
/// short.
pub(crate) fn model_answer(
    dialect: Dialect,
    body: &Value,
    cut: bool,
    text: String,
    tool_calls: Vec<crate::tools::ToolCall>,
    usage: fn(&Value) -> TokenUsage,
) -> LlmResponse {
    if cut {
        tracing::warn!(provider = dialect.as_str(), "answer was cut at max_tokens");
    }
    LlmResponse {
        text,
        tool_calls,
        usage: body.get("usage").filter(|u| u.is_object()).map(usage),
    }
}

/// A rendered tool set before it is joined: JSON fragments shared per registration, or
/// values rendered for this set.
pub(crate) enum RenderedTools {
    /// One JSON text per tool.
    Fragments(Vec<Arc<str>>),
    /// One value per tool.
    Values(Vec<Value>),
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
    /// A provider's answer is not its documented response shape.
    #[error("unreadable {dialect} response: {reason}")]
    UnreadableResponse {
        /// The dialect.
        dialect: Dialect,
        /// What is wrong.
        reason: String,
    },
    /// A request's provider-native tool search cannot be built as asked.
    #[error("native tool search{}: {reason}", .dialect.map(|d| format!(" ({d})")).unwrap_or_default())]
    NativeSearch {
        /// The dialect of the request, when there is one.
        dialect: Option<Dialect>,
        /// What is wrong and what to do.
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

/// The strict schema, or — when the input cannot be strict (free-form maps, untyped values)
/// — the plain schema with `strict: false` and a warning in the log.
fn strict_or_downgrade(
    skill: &SkillRegistration,
    params: &Value,
    dialect: Dialect,
) -> Result<(Value, bool), Unfit> {
    let strict = match dialect {
        Dialect::AnthropicStrict => anthropic::anthropic_strict(params),
        _ => openai::openai_strict(params),
    };
    match strict {
        Ok(schema) => Ok((schema, true)),
        Err(Unfit::Unsupported { pointer, reason }) => {
            tracing::warn!(skill = skill.id, %dialect, %reason, pointer, "input cannot be strict; sending it with strict: false");
            Ok((params.clone(), false))
        }
        Err(other) => Err(other),
    }
}

/// The neutral `parameters` object of a skill (nothing hidden).
pub(crate) fn neutral_parameters(skill: &SkillRegistration) -> Value {
    lower::neutral_parameters(skill, &[])
}

/// A skill's definition in `dialect` as JSON text, rendered by `render` once per (dialect,
/// registration) for the life of the process and shared by every dispatcher: a tool set's
/// first render is then a join of fragments.
fn fragment(
    dialect: Dialect,
    skill: &'static SkillRegistration,
    render: impl FnOnce() -> String,
) -> Arc<str> {
    type Fragments = RwLock<HashMap<usize, Arc<str>>>;
    static RENDERED: OnceLock<[Fragments; Dialect::ALL.len()]> = OnceLock::new();
    let cache = &RENDERED.get_or_init(Default::default)[dialect as usize];
    let key = skill as *const SkillRegistration as usize;
    if let Some(hit) = cache.read().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Arc::clone(hit);
    }
    let json: Arc<str> = Arc::from(render());
    let mut cache = cache.write().unwrap_or_else(|p| p.into_inner());
    Arc::clone(cache.entry(key).or_insert(json))
}

/// Longest provider body quoted in an error.
#[cfg(any(feature = "openai", feature = "anthropic"))]
const MAX_ERROR_BODY_CHARS: usize = 500;

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The provider's own error text: `error.message` (OpenAI and Anthropic), `error` as a
/// string, `message`, or the start of the body.
pub(crate) fn error_message(body: &[u8]) -> String {
    if let Ok(json) = serde_json::from_slice::<Value>(body) {
        let found = json
            .pointer("/error/message")
            .or_else(|| json.get("error").filter(|e| e.is_string()))
            .or_else(|| json.get("message"))
            .or_else(|| json.get("detail"))
            .and_then(Value::as_str);
        if let Some(text) = found {
            return text.to_string();
        }
    }
    let text = excerpt(body);
    if text.is_empty() {
        "(empty body)".to_string()
    } else {
        text
    }
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The start of a body, as text, for an error message.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(MAX_ERROR_BODY_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}
