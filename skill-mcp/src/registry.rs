//! Registry → MCP tools: the one place that reads the skill registry to describe tools.
//!
//! Every use of `toolwright` for *describing* tools is in this module (calls are in
//! [`crate::calls`]), so a change of the runtime's API touches one file. The definitions
//! are the runtime's MCP dialect (per-skill JSON fragments rendered once per process and
//! joined); this module cuts them into `tools/list` pages, each page's JSON text written
//! once, and parses a tool into rmcp's typed [`Tool`] only when rmcp asks for one.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use bytes::Bytes;
use rmcp::model::Tool;
use toolwright::{Dialect, Dispatcher, SkillRegistration, ToolFilter, ToolSet};

use crate::error::ServeError;

/// Gives every rendered list its own id, so a page token names exactly one list.
static NEXT_LIST_ID: AtomicU64 = AtomicU64::new(1);

/// The tools of one filter, rendered once: definitions in served order, pages of JSON text
/// written on first use, and an index by name.
#[derive(Debug)]
pub(crate) struct ToolList {
    /// Unique among the lists of this process.
    pub(crate) id: u64,
    /// The MCP definitions, sorted by skill id (the dispatcher's order).
    set: ToolSet,
    /// The skill behind each tool, by wire name.
    by_name: HashMap<&'static str, ServedSkill>,
    /// Identifies the list's content in pagination cursors, so a cursor of another list is
    /// refused.
    pub(crate) fingerprint: u64,
    /// Tools per page.
    pub(crate) page_size: usize,
    /// The JSON array of each page, written on first request.
    pages: Vec<OnceLock<Bytes>>,
    /// rmcp's typed tools, parsed only for callers that need them.
    typed: Vec<OnceLock<Option<Tool>>>,
}

impl ToolList {
    /// Number of tools.
    pub(crate) fn len(&self) -> usize {
        self.set.len()
    }

    /// The served skill with this MCP tool name.
    pub(crate) fn skill(&self, name: &str) -> Option<ServedSkill> {
        self.by_name.get(name).copied()
    }

    /// The wire names of the tools, in served order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.set.names()
    }

    /// The MCP tool with this name as rmcp's type.
    pub(crate) fn tool(&self, name: &str) -> Option<Tool> {
        let index = self.by_name.get(name)?.index;
        self.typed_tool(index)
    }

    /// The MCP definition of the tool with this name, as JSON.
    pub(crate) fn definition(&self, name: &str) -> Option<serde_json::Value> {
        let index = self.by_name.get(name)?.index;
        let json = self.set.definitions_json().nth(index)?;
        serde_json::from_str(json)
            .inspect_err(|e| tracing::error!(index, error = %e, "MCP tool does not parse"))
            .ok()
    }

    fn typed_tool(&self, index: usize) -> Option<Tool> {
        self.typed[index]
            .get_or_init(|| {
                let json = self.set.definitions_json().nth(index)?;
                serde_json::from_str(json)
                    .inspect_err(|e| tracing::error!(index, error = %e, "MCP tool does not parse"))
                    .ok()
            })
            .clone()
    }

    /// The tools at `start..end` as rmcp's type (for servers driven without the page
    /// writer).
    pub(crate) fn typed_tools(&self, start: usize, end: usize) -> Vec<Tool> {
        (start..end).filter_map(|i| self.typed_tool(i)).collect()
    }

    /// The JSON array of page `page`, joined from the definitions once.
    pub(crate) fn page(&self, page: usize) -> Option<Bytes> {
        let slot = self.pages.get(page)?;
        Some(
            slot.get_or_init(|| {
                let start = page * self.page_size;
                let end = (start + self.page_size).min(self.len());
                if start == 0 && end == self.len() {
                    return Bytes::copy_from_slice(self.set.json().as_bytes());
                }
                let pieces: Vec<&str> = self
                    .set
                    .definitions_json()
                    .skip(start)
                    .take(end - start)
                    .collect();
                let mut json =
                    Vec::with_capacity(2 + pieces.iter().map(|p| p.len() + 1).sum::<usize>());
                json.push(b'[');
                for (i, piece) in pieces.iter().enumerate() {
                    if i > 0 {
                        json.push(b',');
                    }
                    json.extend_from_slice(piece.as_bytes());
                }
                json.push(b']');
                Bytes::from(json)
            })
            .clone(),
        )
    }
}

/// A skill that is served as a tool: what the call layer needs to know about it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServedSkill {
    /// The skill's registration.
    pub(crate) registration: &'static SkillRegistration,
    /// Position in the list.
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
    page_size: usize,
    cache: RwLock<HashMap<ToolFilter, Arc<ToolList>>>,
}

impl Registry {
    /// A registry over the dispatcher's skills, cut into pages of `page_size` tools.
    pub(crate) fn new(dispatcher: Dispatcher, page_size: usize) -> Self {
        Self {
            dispatcher,
            page_size: page_size.max(1),
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
        let set = self.dispatcher.tools_in(Dialect::Mcp, filter)?;
        let mut by_name = HashMap::with_capacity(set.len());
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for (index, name) in set.names().enumerate() {
            let registration = self
                .dispatcher
                .registration(name)
                .filter(|s| s.wire_name == name)
                .ok_or_else(|| ServeError::Render {
                    tool: name.to_string(),
                    reason: "no registered skill has this wire name".into(),
                })?;
            name.hash(&mut hasher);
            by_name.insert(
                name,
                ServedSkill {
                    registration,
                    index,
                },
            );
        }
        let len = set.len();
        let pages = len.div_ceil(self.page_size).max(1);
        tracing::debug!(tools = len, ?filter, "MCP tool list rendered");
        Ok(ToolList {
            id: NEXT_LIST_ID.fetch_add(1, Ordering::Relaxed),
            by_name,
            fingerprint: hasher.finish(),
            page_size: self.page_size,
            pages: (0..pages).map(|_| OnceLock::new()).collect(),
            typed: (0..len).map(|_| OnceLock::new()).collect(),
            set,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_filter_is_rendered_once() {
        let registry = Registry::new(Dispatcher::builder().build().unwrap(), 10);
        let all = ToolFilter::all();
        let demo = ToolFilter::all().domain("demo");
        let first = registry.tools(&all).unwrap();
        assert!(Arc::ptr_eq(&first, &registry.tools(&all).unwrap()));
        let other = registry.tools(&demo).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(Arc::ptr_eq(&other, &registry.tools(&demo).unwrap()));
        assert_eq!(registry.cache.read().unwrap().len(), 2);
        assert_ne!(first.id, other.id);
    }

    #[test]
    fn an_empty_list_has_one_empty_page() {
        let registry = Registry::new(Dispatcher::builder().build().unwrap(), 10);
        let list = registry.tools(&ToolFilter::all()).unwrap();
        assert_eq!(&list.page(0).unwrap()[..], b"[]");
        assert!(list.page(1).is_none());
    }
}
