//! Tool definitions as the dispatcher hands them out, rendered once per dialect and filter.

use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::Dispatcher;
use crate::dialect::{Dialect, DialectError, RenderedTools};
use crate::registration::SkillRegistration;
use crate::tools::ToolFilter;

/// A finished list of tool definitions in one dialect. Cheap to clone (shared), immutable.
///
/// The JSON text is what a provider request carries and is built first; the parsed values
/// are built on first access. Serializes as the JSON array of definitions, so
/// `serde_json::to_string(&dispatcher.tools(&filter))` gives the array.
#[derive(Debug, Clone)]
pub struct ToolSet(Arc<Rendered>);

#[derive(Debug)]
struct Rendered {
    dialect: Dialect,
    json: String,
    /// Byte range of each definition in `json`, in order.
    spans: Vec<std::ops::Range<usize>>,
    skills: Vec<&'static SkillRegistration>,
    definitions: OnceLock<Vec<Value>>,
}

impl ToolSet {
    fn new(
        dialect: Dialect,
        skills: Vec<&'static SkillRegistration>,
        tools: RenderedTools,
    ) -> Self {
        let mut spans = Vec::with_capacity(skills.len());
        let mut join = |pieces: &mut dyn Iterator<Item = &str>, capacity: usize| {
            let mut json = String::with_capacity(capacity);
            json.push('[');
            for (i, piece) in pieces.enumerate() {
                if i > 0 {
                    json.push(',');
                }
                let start = json.len();
                json.push_str(piece);
                spans.push(start..json.len());
            }
            json.push(']');
            json
        };
        let (json, definitions) = match tools {
            RenderedTools::Fragments(fragments) => {
                let capacity = 2 + fragments.iter().map(|f| f.len() + 1).sum::<usize>();
                let json = join(&mut fragments.iter().map(|f| &**f), capacity);
                (json, OnceLock::new())
            }
            RenderedTools::Values(values) => {
                let texts: Vec<String> = values
                    .iter()
                    .map(|v| serde_json::to_string(v).unwrap_or_else(|_| "null".into()))
                    .collect();
                let capacity = 2 + texts.iter().map(|t| t.len() + 1).sum::<usize>();
                let json = join(&mut texts.iter().map(String::as_str), capacity);
                (json, OnceLock::from(values))
            }
        };
        Self(Arc::new(Rendered {
            dialect,
            json,
            spans,
            skills,
            definitions,
        }))
    }

    /// The dialect the definitions are written in.
    pub fn dialect(&self) -> Dialect {
        self.0.dialect
    }

    /// The definitions as JSON values.
    pub fn definitions(&self) -> &[Value] {
        self.0
            .definitions
            .get_or_init(|| serde_json::from_str(&self.0.json).unwrap_or_default())
    }

    /// The definitions as the text of one JSON array.
    pub fn json(&self) -> &str {
        &self.0.json
    }

    /// Each definition as JSON text, in order: slices of [`ToolSet::json`], for a host that
    /// writes pages of the list without parsing it.
    pub fn definitions_json(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.0.spans.iter().map(|span| &self.0.json[span.clone()])
    }

    /// The tool names the model sees (wire names), in the order of the definitions.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.0.skills.iter().map(|s| s.wire_name)
    }

    /// Number of definitions.
    pub fn len(&self) -> usize {
        self.0.skills.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.skills.is_empty()
    }

    /// Whether two handles share one rendering (the cache handed out the same set).
    pub fn ptr_eq(&self, other: &ToolSet) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for ToolSet {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        self.definitions()
    }
}

impl Serialize for ToolSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.definitions().serialize(serializer)
    }
}

impl Dispatcher {
    /// OpenAI function-tool definitions (the SPEC-19 shape most servers speak) of the active
    /// skills that pass `filter`, sorted by id. Rendered once per filter and cached.
    pub fn tools(&self, filter: &ToolFilter) -> ToolSet {
        // The hot path of every agent turn: a hit is one probe and an `Arc` clone.
        if let Some(Ok(hit)) = self.inner.tool_cache[Dialect::OpenAi as usize]
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(filter)
        {
            return hit.clone();
        }
        self.tools_in(Dialect::OpenAi, filter)
            .expect("every skill renders as an OpenAI function tool")
    }

    /// Tool definitions of the active skills that pass `filter`, in one provider's dialect,
    /// sorted by id. Rendered once per dialect and filter, then cached (errors too).
    pub fn tools_in(&self, dialect: Dialect, filter: &ToolFilter) -> Result<ToolSet, DialectError> {
        // One map per dialect, so a hit needs no owned key.
        let cache = &self.inner.tool_cache[dialect as usize];
        if let Some(hit) = cache.read().unwrap_or_else(|p| p.into_inner()).get(filter) {
            return hit.clone();
        }
        let skills: Vec<&'static SkillRegistration> = self
            .inner
            .skills
            .iter()
            .copied()
            .filter(|s| filter.accepts(s))
            .collect();
        let rendered = dialect
            .render_set(&skills, &filter.exclude_fields)
            .map(|tools| ToolSet::new(dialect, skills, tools));
        let mut cache = cache.write().unwrap_or_else(|p| p.into_inner());
        cache.entry(filter.clone()).or_insert(rendered).clone()
    }
}
