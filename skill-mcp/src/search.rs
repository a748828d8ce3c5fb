//! Tool search ([`crate::McpServerBuilder::tool_search`]): `tools/list` offers two tools,
//! `search_tools` and `call_tool`, instead of every definition, so a client with hundreds of
//! tools sends its model two definitions and the few a search finds.
//!
//! `search_tools` ranks the served tools with the runtime's [`ToolSearch`] (the ranking
//! `clausewright search` and the agent loop use) and answers with each tool's name, description
//! and input schema. `call_tool` names a served tool and its arguments; the handler runs it
//! exactly as a direct `tools/call` (consent, limits, gateway, audit, argument checks), and
//! argument problems name their path under `arguments` (`$.arguments.clause_id`), the place
//! in `call_tool`'s own input the model has to fix. The served tools stay callable directly
//! by name.

use std::sync::OnceLock;

use rmcp::model::{CallToolResult, JsonObject, Tool};
use serde_json::{json, Value};
use toolwright::args::ParseError;
use toolwright::search::tool::{
    Delivery, SearchRequest, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SEARCH_TOOLS,
};
use toolwright::search::ToolSearch;
use toolwright::{Dialect, McpCallResult, Outcome, SkillError, SkillResult};

use crate::registry::{ServedSkill, ToolList};

/// Name of the tool that runs a found tool.
pub const CALL_TOOL: &str = "call_tool";

const CALL_DESCRIPTION: &str = "Run a tool that search_tools found: `name` is the tool's \
name, `arguments` an object matching that tool's inputSchema. The answer is the tool's own \
result. Call search_tools first when you do not know the tool's name.";

/// The two tools `tools/list` offers, as rmcp's type: `search_tools` as the runtime defines
/// it for hosts that list what it finds, and `call_tool`.
pub(crate) fn tools() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let search = Dialect::Mcp
            .render_tool(Delivery::List.registration(), &[])
            .expect("search_tools renders as an MCP tool");
        [search, call_tool_json()]
            .into_iter()
            .map(|json| serde_json::from_value(json).expect("the tool-search tools parse"))
            .collect()
    })
}

/// One of the two tools by name.
pub(crate) fn tool(name: &str) -> Option<Tool> {
    tools().iter().find(|t| t.name == name).cloned()
}

fn call_tool_json() -> Value {
    json!({
        "name": CALL_TOOL,
        "title": "Call a tool",
        "description": CALL_DESCRIPTION,
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": "The name of a tool search_tools returned."
                },
                "arguments": {
                    "type": "object",
                    "description": "The tool's arguments, as its inputSchema describes.",
                    "additionalProperties": true
                }
            },
            "required": ["name"]
        },
        "annotations": {
            "title": "Call a tool",
            "readOnlyHint": false
        }
    })
}

/// The answer to `search_tools`: the served tools ranked against `query`.
pub(crate) fn search(
    index: &ToolSearch,
    list: &ToolList,
    arguments: Option<&JsonObject>,
) -> CallToolResult {
    let started = std::time::Instant::now();
    let request = match SearchRequest::read(arguments, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT) {
        Ok(request) => request,
        Err(problem) => return invalid(SEARCH_TOOLS, vec![*problem], started),
    };
    let found = request.run(index, |skill| {
        list.skill(skill.wire_name)
            .is_some_and(|served| served.id() == skill.id)
    });
    let tools: Vec<Value> = found
        .iter()
        .filter_map(|skill| list.definition(skill.wire_name))
        .map(|definition| {
            json!({
                "name": definition["name"],
                "description": definition["description"],
                "inputSchema": definition["inputSchema"],
            })
        })
        .collect();
    tracing::debug!(query = %request.query, found = tools.len(), "search_tools");
    let data = Delivery::List.answer(tools);
    let raw = serde_json::value::to_raw_value(&data).expect("a JSON value serializes");
    answer(&SkillResult::ok(SEARCH_TOOLS, raw, elapsed_ms(started)))
}

/// What a `call_tool` call asks for.
pub(crate) enum Proxied {
    /// Run this served tool with these arguments (as sent: not always an object).
    Run(ServedSkill, Option<Value>),
    /// The call cannot run: its own arguments are wrong (the answer says where).
    Refused(CallToolResult),
}

/// Reads `call_tool`'s arguments: a served tool's name and an object of arguments.
pub(crate) fn proxied(list: &ToolList, arguments: Option<JsonObject>) -> Proxied {
    let started = std::time::Instant::now();
    let mut arguments = arguments.unwrap_or_default();
    let name = arguments.remove("name");
    let Some(name) = name.as_ref().and_then(Value::as_str) else {
        let problem = ParseError {
            code: if name.is_none() {
                "missing"
            } else {
                "type_mismatch"
            }
            .into(),
            path: "$.name".into(),
            expected: "string: the name of a tool search_tools returned".into(),
            raw: name.clone().unwrap_or(Value::Null),
            message: "call_tool needs `name`: a tool's name from search_tools".into(),
        };
        return Proxied::Refused(invalid(CALL_TOOL, vec![problem], started));
    };
    let Some(skill) = list.skill(name) else {
        tracing::warn!(tool = %name, "call_tool of an unknown tool");
        let problem = ParseError {
            code: "unknown_tool".into(),
            path: "$.name".into(),
            expected: "the name of a tool search_tools returned".into(),
            raw: Value::String(name.to_string()),
            message: format!(
                "no tool is named `{name}`; call search_tools to find the tool for the task"
            ),
        };
        return Proxied::Refused(invalid(CALL_TOOL, vec![problem], started));
    };
    // Anything but an object (a JSON string holding one, a list) goes to the dispatcher as
    // it came, which reads it as it reads a model's arguments: decoded with a warning, or
    // refused with the problem at `$`, reported here at `$.arguments`.
    match arguments.remove("arguments") {
        None | Some(Value::Null) => Proxied::Run(skill, None),
        Some(args) => Proxied::Run(skill, Some(args)),
    }
}

/// A result as a proxied call's caller reads it: every argument path (problems and fixes)
/// moved under `arguments`, in the typed outcome and in the text the model reads.
pub(crate) fn under_arguments(result: &mut SkillResult) {
    for warning in &mut result.warnings {
        warning.path = reroot(&warning.path);
    }
    let Some(error) = &mut result.error else {
        return;
    };
    let Some(Outcome::InvalidArguments(problems)) = error.outcome.as_deref_mut() else {
        return;
    };
    let moved: Vec<(String, String)> = problems
        .iter_mut()
        .map(|p| {
            let new = reroot(&p.path);
            let old = std::mem::replace(&mut p.path, new.clone());
            (old, new)
        })
        .collect();
    // One problem per line of the message: each line's own path is replaced once, so a
    // path that is a prefix of another is never replaced twice.
    let mut text = String::with_capacity(error.message.len() + 16 * moved.len());
    for (i, line) in error.message.split('\n').enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let replaced = moved.iter().find_map(|(old, new)| {
            [
                (format!("(at {old})"), format!("(at {new})")),
                (format!("- {old}:"), format!("- {new}:")),
            ]
            .into_iter()
            .find(|(from, _)| line.contains(from.as_str()))
            .map(|(from, to)| line.replacen(&from, &to, 1))
        });
        text.push_str(replaced.as_deref().unwrap_or(line));
    }
    error.message = text;
}

/// `$.x` → `$.arguments.x` (and `$` → `$.arguments`).
fn reroot(path: &str) -> String {
    match path.strip_prefix('$') {
        Some(rest) => format!("$.arguments{rest}"),
        None => format!("$.arguments.{path}"),
    }
}

/// An `invalid_arguments` answer of one of the two tools.
fn invalid(
    tool: &'static str,
    problems: Vec<ParseError>,
    started: std::time::Instant,
) -> CallToolResult {
    let mut message = format!("problem with the arguments of `{tool}`:");
    for p in &problems {
        message.push_str(&format!("\n- {}", p.message));
    }
    let err = SkillError::from_outcome(Outcome::InvalidArguments(problems), message);
    answer(&SkillResult::err(tool, err, elapsed_ms(started)))
}

fn elapsed_ms(started: std::time::Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

/// The MCP answer to a result of one of the two tools, built as every call's answer is.
fn answer(result: &SkillResult) -> CallToolResult {
    crate::calls::answer_of(McpCallResult::of(result, None))
}
