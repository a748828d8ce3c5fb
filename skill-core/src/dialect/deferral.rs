//! Provider-native tool search: the provider keeps deferred definitions out of the model's
//! context and loads the ones its own search tool finds.
//!
//! A request opts in with a [`NativeToolSearch`] passed to
//! [`Dialect::deferred_request_tools`]: definitions not named as core get
//! `defer_loading: true` and the provider's search tool joins the list. Nothing is deferred
//! unless a request asks: several models never call a search tool and would then silently
//! go without their tools, so the choice belongs to whoever picks the model.
//!
//! Shapes, as documented:
//!
//! - `defer_loading` is a field of an Anthropic Messages tool definition and of an OpenAI
//!   Responses function tool (the project's provider reference,
//!   `provider-dialects.md` §A.2 and §A.3, from the providers' Python SDKs: Anthropic
//!   `types/tool_param.py`, OpenAI `types/responses/function_tool_param.py`). OpenAI Chat
//!   Completions and Gemini definitions have no such field, so they get no native deferral
//!   (the local `search_tools` of the agent loop and of `clausewright serve --tool-search` works
//!   with any model that calls tools).
//! - Anthropic's search tool comes in two variants, `{"type":
//!   "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}` (the model writes
//!   a regular expression) and `{"type": "tool_search_tool_bm25_20251119", "name":
//!   "tool_search_tool_bm25"}` (the model writes a query in plain words); the search tool
//!   itself is never deferred (platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool;
//!   SDK type `ToolSearchToolRegex20251119`).
//! - OpenAI's is the hosted `{"type": "tool_search"}` tool of the Responses API, with the
//!   functions to load later marked `defer_loading: true`
//!   (developers.openai.com/api/docs/guides/tools-tool-search).

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use super::{Dialect, DialectError};

/// A provider's own tool search, chosen per request (and so per model).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NativeToolSearch {
    /// Anthropic's regex variant: the model searches with a regular expression over names,
    /// descriptions and argument names and descriptions.
    AnthropicRegex,
    /// Anthropic's BM25 variant: the model searches with a query in plain words.
    AnthropicBm25,
    /// OpenAI Responses' hosted `tool_search`.
    OpenAi,
}

impl NativeToolSearch {
    /// Every variant.
    pub const ALL: [NativeToolSearch; 3] = [
        NativeToolSearch::AnthropicRegex,
        NativeToolSearch::AnthropicBm25,
        NativeToolSearch::OpenAi,
    ];

    /// The name used on the command line and in configuration (`anthropic-bm25`).
    pub const fn as_str(self) -> &'static str {
        match self {
            NativeToolSearch::AnthropicRegex => "anthropic-regex",
            NativeToolSearch::AnthropicBm25 => "anthropic-bm25",
            NativeToolSearch::OpenAi => "openai",
        }
    }

    /// The search tool's entry in the request's `tools`.
    pub fn tool(self) -> Value {
        match self {
            NativeToolSearch::AnthropicRegex => super::anthropic::tool_search_tool(false),
            NativeToolSearch::AnthropicBm25 => super::anthropic::tool_search_tool(true),
            NativeToolSearch::OpenAi => super::openai::responses_tool_search(),
        }
    }

    /// The name of the search tool, where it has one (Anthropic's); no definition of the
    /// request may take it.
    pub fn tool_name(self) -> Option<&'static str> {
        match self {
            NativeToolSearch::AnthropicRegex => Some("tool_search_tool_regex"),
            NativeToolSearch::AnthropicBm25 => Some("tool_search_tool_bm25"),
            NativeToolSearch::OpenAi => None,
        }
    }

    /// Whether requests in `dialect` can carry it.
    pub fn fits(self, dialect: Dialect) -> bool {
        match self {
            NativeToolSearch::AnthropicRegex | NativeToolSearch::AnthropicBm25 => {
                matches!(dialect, Dialect::Anthropic | Dialect::AnthropicStrict)
            }
            NativeToolSearch::OpenAi => dialect == Dialect::Responses,
        }
    }
}

impl fmt::Display for NativeToolSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for NativeToolSearch {
    type Err = DialectError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|n| n.as_str() == s)
            .ok_or_else(|| DialectError::NativeSearch {
                dialect: None,
                reason: format!(
                    "unknown native tool search `{s}`; expected anthropic-regex, anthropic-bm25 or openai"
                ),
            })
    }
}

/// The name of a definition of `dialect` (Anthropic and Responses keep it at the top).
fn definition_name(dialect: Dialect, i: usize, def: &Value) -> Result<&str, DialectError> {
    let kind_ok = match dialect {
        Dialect::Responses => def.get("type").and_then(Value::as_str) == Some("function"),
        _ => def.get("input_schema").is_some_and(Value::is_object),
    };
    let name = def.get("name").and_then(Value::as_str);
    match name {
        Some(name) if kind_ok => Ok(name),
        _ => Err(DialectError::NativeSearch {
            dialect: Some(dialect),
            reason: format!(
                "definition {i} is not a {dialect} tool definition (expected {})",
                match dialect {
                    Dialect::Responses => "`type: \"function\"` and `name`",
                    _ => "`name` and an `input_schema` object",
                }
            ),
        }),
    }
}

/// See [`Dialect::deferred_request_tools`].
pub(super) fn deferred_request_tools(
    dialect: Dialect,
    definitions: &[Value],
    core: &[&str],
    search: NativeToolSearch,
) -> Result<Value, DialectError> {
    if !search.fits(dialect) {
        return Err(DialectError::NativeSearch {
            dialect: Some(dialect),
            reason: format!(
                "{search} tool search is not available in {dialect} requests; {}",
                match search {
                    NativeToolSearch::OpenAi => "use the `responses` dialect",
                    _ => "use the `anthropic` or `anthropic-strict` dialect",
                }
            ),
        });
    }
    let core: HashSet<&str> = core.iter().copied().collect();
    let mut tools = Vec::with_capacity(definitions.len() + 1);
    tools.push(search.tool());
    let mut seen = HashSet::new();
    for (i, def) in definitions.iter().enumerate() {
        let name = definition_name(dialect, i, def)?;
        if Some(name) == search.tool_name() {
            return Err(DialectError::NativeSearch {
                dialect: Some(dialect),
                reason: format!("definition {i} takes the search tool's name `{name}`"),
            });
        }
        if !seen.insert(name) {
            return Err(DialectError::NativeSearch {
                dialect: Some(dialect),
                reason: format!("definition {i}: `{name}` is defined twice"),
            });
        }
        let mut def = def.clone();
        if !core.contains(name) {
            def["defer_loading"] = Value::Bool(true);
        }
        tools.push(def);
    }
    Ok(Value::Array(tools))
}
