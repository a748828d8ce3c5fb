//! Deferred tools in the ReAct loop: the model starts with a core set and a `search_tools`
//! tool, and each tool a search finds is appended to the set sent from the next turn on.
//! What was sent is never reordered, so a provider's prompt cache of the earlier tools
//! survives.

use std::collections::HashSet;
use std::sync::OnceLock;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use crate::dialect::{Dialect, DialectError};
use crate::error::{codes, SkillError};
use crate::registration::{
    CallArgs, InvokeError, PrepareMode, SkillRegistration, SkillStatus, SourceLocation,
};
use crate::result::SkillResult;
use crate::search::ToolSearch;
use crate::tools::ToolFilter;
use crate::{Dispatcher, SkillContext};

/// The name of the search tool the model is offered.
pub const SEARCH_TOOLS: &str = "search_tools";

/// Tools found per search unless [`DeferredTools::per_search`] says otherwise.
pub const DEFAULT_TOOLS_PER_SEARCH: usize = 5;

/// Most tools one search may load, whatever the model asks.
const MAX_TOOLS_PER_SEARCH: usize = 20;

const SEARCH_DESCRIPTION: &str = "Find more tools. Only some of your tools are loaded; call \
this whenever none of the tools you have fits the task, before answering without one. \
Describe what you need to do in plain words (e.g. \"convert an amount between currencies\"); \
the best matching tools are loaded and you can call them from your next turn.";

fn search_input_schema() -> &'static Value {
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
                    "maximum": MAX_TOOLS_PER_SEARCH,
                    "description": "How many tools to load at most (default 5)."
                }
            },
            "required": ["query"]
        })
    })
}

fn search_output_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| json!({"type": "object"}))
}

/// Never called: the loop answers `search_tools` itself (the registration exists so every
/// dialect renders the tool like any other).
fn search_invoke<'a>(
    _: &'a SkillContext,
    _: CallArgs<'a>,
    _: PrepareMode,
) -> BoxFuture<'a, Result<Box<serde_json::value::RawValue>, InvokeError>> {
    Box::pin(async {
        Err(InvokeError::Run(SkillError::new(
            codes::UNKNOWN_SKILL,
            "search_tools is answered by the agent loop, not dispatched",
        )))
    })
}

/// The `search_tools` tool, described like a skill so each dialect renders it. It is not
/// registered: no dispatcher serves it.
static SEARCH_TOOL: SkillRegistration = SkillRegistration {
    id: SEARCH_TOOLS,
    wire_name: SEARCH_TOOLS,
    name: SEARCH_TOOLS,
    description: SEARCH_DESCRIPTION,
    long_help: SEARCH_DESCRIPTION,
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
    input_schema: search_input_schema,
    output_schema: search_output_schema,
    input_type: "SearchToolsInput",
    output_type: "Value",
    source: SourceLocation {
        file: file!(),
        line: line!(),
        module_path: module_path!(),
    },
    invoke: search_invoke,
};

/// The option of [`ReactOptions::deferred_tools`](super::ReactOptions::deferred_tools):
/// which tools the model starts with and how the others are found.
#[derive(Debug, Clone)]
pub struct DeferredTools {
    /// The index searched (built once per dispatcher with [`ToolSearch::new`]).
    pub search: ToolSearch,
    /// Ids of the tools sent from the first turn (those the loop's filter accepts).
    pub core: Vec<String>,
    /// Tools loaded per search at most, unless the model asks for fewer.
    pub per_search: usize,
}

impl DeferredTools {
    /// Starts with the tools `core` names (plus `search_tools`); the others are found with
    /// `search`.
    pub fn new<I, S>(search: ToolSearch, core: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            search,
            core: core.into_iter().map(Into::into).collect(),
            per_search: DEFAULT_TOOLS_PER_SEARCH,
        }
    }

    /// Sets how many tools one search loads at most.
    #[must_use]
    pub fn per_search(mut self, n: usize) -> Self {
        self.per_search = n.clamp(1, MAX_TOOLS_PER_SEARCH);
        self
    }
}

/// The growing tool list of one run: what was sent, in order, and the names the model may
/// call.
#[derive(Debug)]
pub(crate) struct Offered {
    pub(crate) definitions: Vec<Value>,
    pub(crate) names: HashSet<&'static str>,
    dialect: Dialect,
}

impl Offered {
    /// The core tools the filter accepts, then `search_tools`, plus the tools loaded before
    /// (`loaded`, ids, in the order they were found).
    pub(crate) fn start(
        dispatcher: &Dispatcher,
        dialect: Dialect,
        filter: &ToolFilter,
        deferred: &DeferredTools,
        loaded: &[String],
    ) -> Result<Self, DialectError> {
        let mut offered = Self {
            definitions: Vec::new(),
            names: HashSet::new(),
            dialect,
        };
        let core: Vec<&'static SkillRegistration> = dispatcher
            .list_skills()
            .iter()
            .copied()
            .filter(|s| filter.accepts(s) && deferred.core.iter().any(|c| c == s.id))
            .collect();
        for skill in core {
            offered.push(skill, filter)?;
        }
        offered
            .definitions
            .push(dialect.render_tool(&SEARCH_TOOL, &[])?);
        offered.names.insert(SEARCH_TOOLS);
        for id in loaded {
            if let Some(skill) = dispatcher.registration(id).filter(|s| filter.accepts(s)) {
                offered.push(skill, filter)?;
            }
        }
        Ok(offered)
    }

    fn push(
        &mut self,
        skill: &'static SkillRegistration,
        filter: &ToolFilter,
    ) -> Result<bool, DialectError> {
        if self.names.contains(skill.wire_name) {
            return Ok(false);
        }
        self.definitions
            .push(self.dialect.render_tool(skill, &filter.exclude_fields)?);
        self.names.insert(skill.wire_name);
        self.names.insert(skill.id);
        Ok(true)
    }

    /// Appends the skills a search found (those not sent yet) at the end of the list;
    /// returns the ids appended.
    pub(crate) fn append(
        &mut self,
        found: &[&'static SkillRegistration],
        filter: &ToolFilter,
    ) -> Vec<String> {
        let mut added = Vec::new();
        for skill in found {
            match self.push(skill, filter) {
                Ok(true) => added.push(skill.id.to_string()),
                Ok(false) => {}
                Err(err) => {
                    tracing::warn!(skill = skill.id, error = %err, "a found tool cannot be rendered in the client's dialect; not loaded")
                }
            }
        }
        added
    }
}

/// Runs one `search_tools` call: the skills found (best first) and the result the model
/// reads (each tool's name and description, or an error naming what to send).
pub(crate) fn run_search(
    deferred: &DeferredTools,
    filter: &ToolFilter,
    arguments: &str,
) -> (Vec<&'static SkillRegistration>, SkillResult) {
    let started = std::time::Instant::now();
    let elapsed = || started.elapsed().as_secs_f64() * 1000.0;
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let Some(query) = args
        .get("query")
        .and_then(Value::as_str)
        .filter(|q| !q.trim().is_empty())
    else {
        let err = SkillError::new(
            codes::INVALID_ARGUMENTS,
            "search_tools needs `query`: what you need to do, in plain words, e.g. {\"query\": \"convert currency\"}",
        );
        return (Vec::new(), SkillResult::err(SEARCH_TOOLS, err, elapsed()));
    };
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .map_or(deferred.per_search, |n| n as usize)
        .clamp(1, deferred.per_search.max(1));
    let found: Vec<&'static SkillRegistration> = deferred
        .search
        .search(query, filter, limit)
        .into_iter()
        .map(|hit| hit.skill)
        .collect();
    let tools: Vec<Value> = found
        .iter()
        .map(|s| json!({"name": s.wire_name, "description": s.description}))
        .collect();
    let note = if tools.is_empty() {
        "No tool matches; try other words, or answer without a tool."
    } else {
        "These tools are loaded: call them directly from now on."
    };
    let data = json!({"tools": tools, "note": note});
    let raw = serde_json::value::to_raw_value(&data).expect("a JSON value serializes");
    (found, SkillResult::ok(SEARCH_TOOLS, raw, elapsed()))
}
