//! Deferred tools in the ReAct loop: the model starts with a core set and a `search_tools`
//! tool, and each tool a search finds is appended to the set sent from the next turn on.
//! What was sent is never reordered, so a provider's prompt cache of the earlier tools
//! survives.

use std::collections::HashSet;

use serde_json::Value;

use crate::dialect::{Dialect, DialectError};
use crate::error::SkillError;
use crate::outcome::Outcome;
use crate::registration::SkillRegistration;
use crate::result::SkillResult;
pub(crate) use crate::search::tool::SEARCH_TOOLS;
use crate::search::tool::{Delivery, SearchRequest, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT};
use crate::search::ToolSearch;
use crate::tools::ToolFilter;
use crate::Dispatcher;

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
            per_search: DEFAULT_SEARCH_LIMIT,
        }
    }

    /// Sets how many tools one search loads at most.
    #[must_use]
    pub fn per_search(mut self, n: usize) -> Self {
        self.per_search = n.clamp(1, MAX_SEARCH_LIMIT);
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
            .push(dialect.render_tool(Delivery::Load.registration(), &[])?);
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
    let request =
        match SearchRequest::read(args.as_object(), deferred.per_search, deferred.per_search) {
            Ok(request) => request,
            Err(problem) => {
                let message = format!(
                    "problem with the arguments of `{SEARCH_TOOLS}`:\n- {}",
                    problem.message
                );
                let err =
                    SkillError::from_outcome(Outcome::InvalidArguments(vec![*problem]), message);
                return (Vec::new(), SkillResult::err(SEARCH_TOOLS, err, elapsed()));
            }
        };
    let found = request.run(&deferred.search, |skill| filter.accepts(skill));
    let tools: Vec<Value> = found
        .iter()
        .map(|s| serde_json::json!({"name": s.wire_name, "description": s.description}))
        .collect();
    let data = Delivery::Load.answer(tools);
    let raw = serde_json::value::to_raw_value(&data).expect("a JSON value serializes");
    (found, SkillResult::ok(SEARCH_TOOLS, raw, elapsed()))
}
