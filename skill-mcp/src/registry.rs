//! Registry → MCP tools: the one place that reads the skill registry to describe tools.
//!
//! Every use of `skill-core` for *describing* tools is in this module (calls are in
//! [`crate::calls`]), so a change of the runtime's API touches one file. The MCP definitions
//! come from the runtime's MCP dialect; this module only converts them to rmcp's typed
//! [`Tool`] and corrects the annotations where the dialect is wrong (see [`annotations`]).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, RwLock};

use rmcp::model::{Tool, ToolAnnotations};
use skill_core::{Dialect, Dispatcher, SkillRegistration, ToolFilter};

use crate::error::ServeError;

/// The tools of one filter, rendered once: the list in its served order and an index by name.
#[derive(Debug)]
pub(crate) struct ToolList {
    /// The tools, sorted by skill id (the dispatcher's order), so pages are deterministic.
    pub(crate) tools: Vec<Tool>,
    /// The skill behind each tool, by wire name.
    by_name: HashMap<String, ServedSkill>,
    /// Identifies this list in pagination cursors, so a cursor of another list is refused.
    pub(crate) fingerprint: u64,
}

impl ToolList {
    /// The served skill with this MCP tool name.
    pub(crate) fn skill(&self, name: &str) -> Option<ServedSkill> {
        self.by_name.get(name).copied()
    }

    /// The MCP tool with this name.
    pub(crate) fn tool(&self, name: &str) -> Option<&Tool> {
        self.by_name.get(name).map(|s| &self.tools[s.index])
    }
}

/// A skill that is served as a tool: what the call layer needs to know about it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServedSkill {
    /// The skill's registration.
    pub(crate) registration: &'static SkillRegistration,
    /// Position in [`ToolList::tools`].
    index: usize,
}

impl ServedSkill {
    /// The id the dispatcher knows the skill by.
    pub(crate) fn id(&self) -> &'static str {
        self.registration.id
    }

    /// The tool name on the wire.
    pub(crate) fn wire_name(&self) -> &'static str {
        self.registration.wire_name
    }

    /// Whether a call waits for the user's consent before it runs.
    pub(crate) fn needs_confirmation(&self) -> bool {
        self.registration.needs_confirmation()
    }
}

/// Renders and caches the tool list of each filter a server is asked for.
#[derive(Debug)]
pub(crate) struct Registry {
    dispatcher: Dispatcher,
    cache: RwLock<HashMap<ToolFilter, Arc<ToolList>>>,
}

impl Registry {
    /// A registry over the dispatcher's skills.
    pub(crate) fn new(dispatcher: Dispatcher) -> Self {
        Self {
            dispatcher,
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// The dispatcher the tools run on.
    pub(crate) fn dispatcher(&self) -> &Dispatcher {
        &self.dispatcher
    }

    /// The tools of the active skills that pass `filter`, rendered on first use and cached.
    pub(crate) fn tools(&self, filter: &ToolFilter) -> Result<Arc<ToolList>, ServeError> {
        if let Some(hit) = self
            .cache
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(filter)
        {
            return Ok(Arc::clone(hit));
        }
        let rendered = Arc::new(self.render(filter)?);
        let mut cache = self.cache.write().unwrap_or_else(|p| p.into_inner());
        Ok(Arc::clone(cache.entry(filter.clone()).or_insert(rendered)))
    }

    fn render(&self, filter: &ToolFilter) -> Result<ToolList, ServeError> {
        let definitions = self.dispatcher.tools_in(Dialect::Mcp, filter)?;
        let mut tools = Vec::with_capacity(definitions.len());
        let mut by_name = HashMap::with_capacity(definitions.len());
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for (index, definition) in definitions.definitions().iter().enumerate() {
            let name = definition["name"].as_str().unwrap_or_default();
            let registration = self
                .dispatcher
                .registration(name)
                .filter(|s| s.wire_name == name)
                .ok_or_else(|| ServeError::Render {
                    tool: name.to_string(),
                    reason: "no registered skill has this wire name".into(),
                })?;
            let mut tool: Tool =
                serde_json::from_value(definition.clone()).map_err(|e| ServeError::Render {
                    tool: name.to_string(),
                    reason: e.to_string(),
                })?;
            tool.annotations = Some(annotations(registration, tool.annotations.take()));
            name.hash(&mut hasher);
            by_name.insert(
                name.to_string(),
                ServedSkill {
                    registration,
                    index,
                },
            );
            tools.push(tool);
        }
        tracing::debug!(tools = tools.len(), ?filter, "MCP tool list rendered");
        Ok(ToolList {
            tools,
            by_name,
            fingerprint: hasher.finish(),
        })
    }
}

/// Categories whose skills only read. `validation` checks a document and changes nothing,
/// which the runtime's MCP dialect does not count as read-only.
fn reads_only(category: &str) -> bool {
    matches!(
        category,
        "query" | "stats" | "analysis" | "retrieval" | "search" | "report" | "validation"
    ) || category.starts_with("analysis")
}

/// The dialect's annotations with the read-only rule of [`reads_only`]: a read-only tool
/// carries no destructive or idempotent hint (MCP gives them meaning only for writes).
fn annotations(skill: &SkillRegistration, rendered: Option<ToolAnnotations>) -> ToolAnnotations {
    let mut a = rendered.unwrap_or_default();
    if a.title.is_none() {
        a.title = Some(skill.name.to_string());
    }
    if reads_only(skill.category) {
        a.read_only_hint = Some(true);
        a.destructive_hint = None;
        a.idempotent_hint = None;
    } else if a.read_only_hint.is_none() {
        a.read_only_hint = Some(false);
    }
    if a.open_world_hint.is_none() {
        a.open_world_hint = Some(skill.open_world.unwrap_or(false));
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_and_analysis_kinds_read_only_writes_do_not() {
        assert!(reads_only("validation"));
        assert!(reads_only("analysis_risk"));
        assert!(reads_only("query"));
        assert!(!reads_only("update"));
        assert!(!reads_only("create"));
        assert!(!reads_only("ui"));
    }

    #[test]
    fn each_filter_is_rendered_once() {
        let registry = Registry::new(Dispatcher::builder().build().unwrap());
        let all = ToolFilter::all();
        let demo = ToolFilter::all().domain("demo");
        let first = registry.tools(&all).unwrap();
        assert!(Arc::ptr_eq(&first, &registry.tools(&all).unwrap()));
        let other = registry.tools(&demo).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(Arc::ptr_eq(&other, &registry.tools(&demo).unwrap()));
        assert_eq!(registry.cache.read().unwrap().len(), 2);
    }
}
