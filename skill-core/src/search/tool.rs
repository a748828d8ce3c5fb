//! `search_tools`, the tool that finds tools: its one definition (name, input schema, limits,
//! how its arguments are read, what it answers), served by every host that defers tool
//! definitions — the agent loop's deferred tools and the MCP server's tool search.
//!
//! The hosts differ only in what becomes of the tools found ([`Delivery`]): the agent loop
//! loads them into the model's tool set, the MCP server lists them with their input schemas
//! for `call_tool`. The description and the answer's note say which.

use std::sync::OnceLock;

use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};

use super::ToolSearch;
use crate::args::ParseError;
use crate::error::{codes, SkillError};
use crate::registration::{
    CallArgs, InvokeError, PrepareMode, SkillRegistration, SkillStatus, SourceLocation,
};
use crate::SkillContext;

/// The name of the tool.
pub const SEARCH_TOOLS: &str = "search_tools";
/// Tools one search returns unless the caller asks for another number.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;
/// Most tools one search returns, whatever the caller asks.
pub const MAX_SEARCH_LIMIT: usize = 20;

/// What becomes of the tools a search finds; it decides what the tool says of itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// They join the model's tool set from its next turn (the agent loop).
    Load,
    /// They are listed with their input schemas and run through `call_tool` (MCP).
    List,
}

const LOAD_DESCRIPTION: &str = "Find more tools. Only some of your tools are loaded; call \
this whenever none of the tools you have fits the task, before answering without one. \
Describe what you need to do in plain words (e.g. \"convert an amount between currencies\"); \
the best matching tools are loaded and you can call them from your next turn.";

const LIST_DESCRIPTION: &str = "Find the tools for a task. This server has many more tools \
than are listed: call search_tools FIRST, before any other tool, whenever you need to do \
something (look up, compute, change or check anything), and again when the tools found do not \
fit. Describe the task in plain words (e.g. \"the notice period for a contractor's claim\"). \
The answer lists the best matching tools, best first, each with its name, description and \
inputSchema; run one with call_tool.";

impl Delivery {
    /// The tool, described like a skill so every dialect renders it. It is registered with
    /// no dispatcher: the host answers it (see [`SearchRequest::read`] and
    /// [`Delivery::answer`]).
    pub fn registration(self) -> &'static SkillRegistration {
        match self {
            Delivery::Load => &LOAD,
            Delivery::List => &LIST,
        }
    }

    /// The answer the caller reads: the tools found (best first) and what to do next.
    pub fn answer(self, tools: Vec<Value>) -> Value {
        let note = match (self, tools.is_empty()) {
            (Delivery::Load, true) => {
                "No tool matches; try other words, or answer without a tool."
            }
            (Delivery::Load, false) => "These tools are loaded: call them directly from now on.",
            (Delivery::List, true) => "No tool matches; try other words.",
            (Delivery::List, false) => {
                "Run one with call_tool: {\"name\": NAME, \"arguments\": {...}} matching its inputSchema."
            }
        };
        json!({"tools": tools, "note": note})
    }
}

fn input_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What you need to do, in plain words."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_SEARCH_LIMIT,
                    "description": format!("How many tools to return at most (default {DEFAULT_SEARCH_LIMIT}).")
                }
            },
            "required": ["query"]
        })
    })
}

/// The answer's shape; a listed tool also carries its `inputSchema`.
fn output_schema(with_schemas: bool) -> Value {
    let mut item = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "description": {"type": "string"}},
        "required": ["name", "description"]
    });
    if with_schemas {
        item["properties"]["inputSchema"] = json!({"type": "object"});
        item["required"] = json!(["name", "description", "inputSchema"]);
    }
    json!({
        "type": "object",
        "properties": {
            "tools": {"type": "array", "description": "The tools found, best first.", "items": item},
            "note": {"type": "string"}
        },
        "required": ["tools", "note"]
    })
}

fn load_output_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| output_schema(false))
}

fn list_output_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| output_schema(true))
}

/// The host answers `search_tools` itself; a dispatcher never holds it, so this only runs
/// if a host forwards the call to one by mistake, and then says so.
fn invoke_by_host<'a>(
    _: &'a SkillContext,
    _: CallArgs<'a>,
    _: PrepareMode,
) -> BoxFuture<'a, Result<Box<serde_json::value::RawValue>, InvokeError>> {
    Box::pin(async {
        Err(InvokeError::Run(SkillError::new(
            codes::UNKNOWN_SKILL,
            "search_tools is answered by the host that offers it, not dispatched",
        )))
    })
}

macro_rules! search_registration {
    ($name:ident, $description:expr, $output:expr) => {
        static $name: SkillRegistration = SkillRegistration {
            id: SEARCH_TOOLS,
            wire_name: SEARCH_TOOLS,
            name: "Search tools",
            description: $description,
            long_help: $description,
            domain: "*",
            category: "query",
            status: SkillStatus::Active,
            version: "",
            timeout_ms: None,
            requires_confirmation: Some(false),
            confirm_summary: None,
            idempotent: Some(true),
            open_world: Some(false),
            params: &[],
            input_schema,
            output_schema: $output,
            input_type: "SearchToolsInput",
            output_type: "Value",
            source: SourceLocation {
                file: file!(),
                line: line!(),
                module_path: module_path!(),
            },
            invoke: invoke_by_host,
        };
    };
}

search_registration!(LOAD, LOAD_DESCRIPTION, load_output_schema);
search_registration!(LIST, LIST_DESCRIPTION, list_output_schema);

/// A `search_tools` call's arguments, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The task, in plain words (never blank).
    pub query: String,
    /// How many tools to return at most (at least 1).
    pub limit: usize,
}

impl SearchRequest {
    /// Reads a call's arguments: `query` a non-blank string; `limit` absent or null (then
    /// `default`), an integer of at least 1 or a string holding one, capped at `max`. A
    /// problem names its path (`$.query`, `$.limit`), what was expected and what came.
    pub fn read(
        arguments: Option<&Map<String, Value>>,
        default: usize,
        max: usize,
    ) -> Result<Self, Box<ParseError>> {
        let max = max.max(1);
        let query = arguments.and_then(|a| a.get("query"));
        let Some(text) = query
            .and_then(Value::as_str)
            .filter(|q| !q.trim().is_empty())
        else {
            return Err(Box::new(ParseError {
                code: if query.is_none() { "missing" } else { "type_mismatch" }.into(),
                path: "$.query".into(),
                expected: "a non-empty string: the task, in plain words".into(),
                raw: query.cloned().unwrap_or(Value::Null),
                message: "search_tools needs `query`: the task in plain words, e.g. {\"query\": \"convert currency\"}".into(),
            }));
        };
        let limit = match arguments.and_then(|a| a.get("limit")) {
            None | Some(Value::Null) => default.clamp(1, max),
            Some(limit) => {
                let n = match limit {
                    Value::String(s) => s.trim().parse::<u64>().ok(),
                    other => other.as_u64(),
                };
                match n {
                    Some(n) if n >= 1 => usize::try_from(n).map_or(max, |n| n.min(max)),
                    _ => {
                        return Err(Box::new(ParseError {
                            code: "type_mismatch".into(),
                            path: "$.limit".into(),
                            expected: format!("an integer from 1 to {max}"),
                            raw: limit.clone(),
                            message: format!("`limit` is how many tools to return, 1 to {max}"),
                        }))
                    }
                }
            }
        };
        Ok(Self {
            query: text.to_string(),
            limit,
        })
    }

    /// The active skills `keep` accepts, best first, at most [`limit`](Self::limit).
    pub fn run(
        &self,
        search: &ToolSearch,
        keep: impl Fn(&'static SkillRegistration) -> bool,
    ) -> Vec<&'static SkillRegistration> {
        search
            .search_where(&self.query, self.limit, keep)
            .into_iter()
            .map(|hit| hit.skill)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(args: Value) -> Result<SearchRequest, Box<ParseError>> {
        SearchRequest::read(args.as_object(), DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT)
    }

    #[test]
    fn limits_default_cap_and_accept_numeric_text() {
        assert_eq!(read(json!({"query": "x"})).unwrap().limit, 5);
        assert_eq!(read(json!({"query": "x", "limit": null})).unwrap().limit, 5);
        assert_eq!(read(json!({"query": "x", "limit": 3})).unwrap().limit, 3);
        assert_eq!(read(json!({"query": "x", "limit": "7"})).unwrap().limit, 7);
        assert_eq!(read(json!({"query": "x", "limit": 500})).unwrap().limit, 20);
    }

    #[test]
    fn problems_name_their_path() {
        let missing = read(json!({})).unwrap_err();
        assert_eq!(
            (missing.code.as_str(), missing.path.as_str()),
            ("missing", "$.query")
        );
        let blank = read(json!({"query": "  "})).unwrap_err();
        assert_eq!(blank.code, "type_mismatch");
        let zero = read(json!({"query": "x", "limit": 0})).unwrap_err();
        assert_eq!(
            (zero.path.as_str(), zero.raw.clone()),
            ("$.limit", json!(0))
        );
        let words = read(json!({"query": "x", "limit": "many"})).unwrap_err();
        assert_eq!(words.expected, "an integer from 1 to 20");
        assert!(SearchRequest::read(None, 5, 20).is_err());
    }

    #[test]
    fn the_two_deliveries_differ_only_in_what_they_say() {
        let (load, list) = (Delivery::Load.registration(), Delivery::List.registration());
        assert_eq!(load.wire_name, list.wire_name);
        assert_eq!((load.input_schema)(), (list.input_schema)());
        assert_ne!(load.description, list.description);
        assert!(
            (list.output_schema)()["properties"]["tools"]["items"]["required"]
                .as_array()
                .unwrap()
                .contains(&json!("inputSchema"))
        );
        assert_eq!(
            Delivery::List.answer(Vec::new())["note"],
            "No tool matches; try other words."
        );
    }
}
