//! Skills over MCP (the `io.modelcontextprotocol/skills` extension, SEP-2640): the
//! instructions for using the served tools, as `SKILL.md` files with their supporting files.
//!
//! A host declares [`SkillSpec`]s (a name, a description, instructions, the tools the skill
//! covers and supporting files); the server renders each into a `SKILL.md` whose tool table
//! is written from the tools it serves at that moment, so a skill never names a tool the
//! client cannot call. A folder of hand-written skills ([`McpServerBuilder::skills_dir`])
//! is served next to them, and a hand-written skill replaces a generated one of the same
//! name. Every file is a resource at `skill://<name>/<path>` with a sha256 digest and its
//! size in the skill's entry.
//!
//! [`McpServerBuilder::skills_dir`]: crate::McpServerBuilder::skills_dir

mod render;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::{
    CacheScope, GetSkillResult, ListResourcesResult, ListSkillsResult, ReadResourceResult,
    Resource, ResourceContents, Skill, SkillFrontmatter, SkillResource, SkillResources,
    DIRECTORY_MIME_TYPE, SKILL_MD,
};
use rmcp::ErrorData as McpError;
use serde_json::json;
use toolwright::ToolFilter;

use crate::error::ServeError;
use crate::registry::{Registry, ToolList};

/// How long clients may keep a skills answer before asking again (2026-07-28 `ttlMs`), as
/// for `tools/list`: the skills change only with the served tool set.
pub(crate) const SKILLS_TTL_MS: u64 = 300_000;

/// The URI scheme skills are served under.
const SCHEME: &str = "skill://";

/// A skill the server writes from what it serves: its `SKILL.md` is the front matter
/// (`name`, `description`, `metadata.tools`), the instructions, a table of the tools it
/// covers (name and description, as `tools/list` has them) and a list of its files.
#[derive(Debug, Clone)]
pub struct SkillSpec {
    name: String,
    description: String,
    instructions: String,
    tools: Option<ToolFilter>,
    named_tools: Vec<String>,
    files: Vec<SkillFile>,
    metadata: BTreeMap<String, String>,
}

/// A supporting text file of a generated skill, served at `skill://<skill>/<path>` (text,
/// so `resources/read` returns it as it is and its digest covers exactly those bytes).
#[derive(Debug, Clone)]
pub struct SkillFile {
    path: String,
    mime_type: String,
    description: String,
    bytes: Arc<[u8]>,
}

impl SkillFile {
    /// A file at `path` (relative, `/`-separated, letters, digits, `.`, `_` and `-`) with
    /// its MIME type, a line saying what it is for (listed in `SKILL.md`) and its text.
    pub fn new(
        path: impl Into<String>,
        mime_type: impl Into<String>,
        description: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            path: path.into(),
            mime_type: mime_type.into(),
            description: description.into(),
            bytes: Arc::from(text.into().into_bytes()),
        }
    }
}

impl SkillSpec {
    /// A skill named `name` (the Agent Skills rules: lowercase letters, digits and single
    /// hyphens, at most 64 characters) that a model picks by `description`.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            instructions: String::new(),
            tools: None,
            named_tools: Vec::new(),
            files: Vec::new(),
            metadata: BTreeMap::new(),
        }
    }

    /// The skill's method, in Markdown, placed before the tool table.
    #[must_use]
    pub fn instructions(mut self, markdown: impl Into<String>) -> Self {
        self.instructions = markdown.into();
        self
    }

    /// The tools the skill covers: those the server serves that pass `filter`. A skill
    /// with tools, none of them served, is not offered.
    #[must_use]
    pub fn tools(mut self, filter: ToolFilter) -> Self {
        self.tools = Some(filter);
        self
    }

    /// Tool ids the instructions name: each must be served, else the skill is not offered
    /// (its text would send the model to a tool it cannot call).
    #[must_use]
    pub fn names_tools<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.named_tools.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Adds a supporting file.
    #[must_use]
    pub fn file(mut self, file: SkillFile) -> Self {
        self.files.push(file);
        self
    }

    /// Adds a string to the front matter's `metadata` map.
    #[must_use]
    pub fn metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }

    /// The skill's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// One served file: its URI, MIME type and bytes.
#[derive(Debug)]
struct ServedFile {
    mime_type: String,
    bytes: Arc<[u8]>,
}

/// The skills served now: the generated ones (rendered for the current tool set) and the
/// folder of hand-written ones.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    /// Generated skills not replaced by a hand-written one, by URI.
    generated: Vec<Skill>,
    files: HashMap<String, ServedFile>,
    /// Directory URI → its direct children.
    directories: HashMap<String, Vec<Resource>>,
    /// Hand-written skills.
    folder: Option<Arc<SkillCatalog>>,
}

/// What a server was given to serve as skills.
#[derive(Debug, Default, Clone)]
pub(crate) struct Sources {
    pub(crate) specs: Vec<SkillSpec>,
    pub(crate) folder: Option<Arc<SkillCatalog>>,
}

impl Sources {
    /// Whether the server serves skills at all (and declares the extension).
    pub(crate) fn any(&self) -> bool {
        !self.specs.is_empty() || self.folder.is_some()
    }
}

/// Loads a folder of hand-written skills: each folder below `root` that holds a `SKILL.md`.
pub(crate) fn load_folder(root: PathBuf) -> Result<Arc<SkillCatalog>, ServeError> {
    let catalog = SkillCatalog::from_dir(&root)
        .map_err(|e| ServeError::Config(format!("skills folder {}: {e}", root.display())))?;
    if catalog.skills().is_empty() {
        return Err(ServeError::Config(format!(
            "skills folder {}: no skill found; expected folders holding a SKILL.md whose front matter has `name` (the folder's name) and `description`",
            root.display()
        )));
    }
    for skill in catalog.skills() {
        tracing::info!(uri = %skill.uri, "hand-written skill loaded");
    }
    Ok(Arc::new(catalog))
}

impl Catalog {
    /// Renders `sources` for the tools of `list`. A spec whose named tools are not all
    /// served, or whose tool filter selects no served tool, is left out (logged).
    pub(crate) fn render(
        sources: &Sources,
        registry: &Registry,
        list: &ToolList,
    ) -> Result<Self, ServeError> {
        let folder_names: BTreeSet<String> = sources
            .folder
            .iter()
            .flat_map(|f| f.skills())
            .map(|s| s.frontmatter.name)
            .collect();
        let mut catalog = Catalog {
            folder: sources.folder.clone(),
            ..Catalog::default()
        };
        for spec in &sources.specs {
            if folder_names.contains(&spec.name) {
                tracing::info!(skill = %spec.name, "a hand-written skill replaces the generated one");
                continue;
            }
            let Some(tools) = served_tools(spec, registry, list) else {
                continue;
            };
            catalog.add(spec, &tools)?;
        }
        catalog.generated.sort_by(|a, b| a.uri.cmp(&b.uri));
        Ok(catalog)
    }

    fn add(&mut self, spec: &SkillSpec, tools: &[render::ToolLine]) -> Result<(), ServeError> {
        let invalid = |reason: String| ServeError::Skill {
            skill: spec.name.clone(),
            reason,
        };
        let root = format!("{SCHEME}{}", spec.name);
        let mut seen = BTreeSet::new();
        for file in &spec.files {
            check_path(&file.path).map_err(&invalid)?;
            if !seen.insert(file.path.as_str()) {
                return Err(invalid(format!("file `{}` is given twice", file.path)));
            }
        }
        let (skill_md, frontmatter) = render::skill_md(spec, tools);
        let mut files = vec![(SKILL_MD.to_string(), "text/markdown".to_string(), skill_md)];
        files.extend(
            spec.files
                .iter()
                .map(|f| (f.path.clone(), f.mime_type.clone(), Arc::clone(&f.bytes))),
        );
        let mut manifest = Vec::with_capacity(files.len());
        for (path, mime_type, bytes) in files {
            let uri = format!("{root}/{path}");
            manifest.push(SkillResource::from_bytes(&uri, &bytes));
            self.index_directories(&root, &path, &mime_type, bytes.len());
            self.files.insert(uri, ServedFile { mime_type, bytes });
        }
        let entry = Skill::new(
            format!("{root}/{SKILL_MD}"),
            frontmatter,
            SkillResources::Files(manifest),
        );
        entry.validate().map_err(|e| invalid(e.to_string()))?;
        tracing::debug!(skill = %spec.name, tools = tools.len(), "skill rendered");
        self.generated.push(entry);
        Ok(())
    }

    /// Records `path` under every directory from the skill's root down.
    fn index_directories(&mut self, root: &str, path: &str, mime_type: &str, size: usize) {
        let mut dir = root.to_string();
        let segments: Vec<&str> = path.split('/').collect();
        for (i, segment) in segments.iter().enumerate() {
            let uri = format!("{dir}/{segment}");
            let last = i + 1 == segments.len();
            let children = self.directories.entry(dir.clone()).or_default();
            if !children.iter().any(|c| c.uri == uri) {
                let child = Resource::new(&uri, *segment);
                children.push(if last {
                    child.with_mime_type(mime_type).with_size(size as u64)
                } else {
                    child.with_mime_type(DIRECTORY_MIME_TYPE)
                });
            }
            dir = uri;
        }
    }

    /// Every skill, hand-written and generated, ordered by URI.
    fn skills(&self) -> Vec<Skill> {
        let mut all: Vec<Skill> = self.folder.iter().flat_map(|f| f.skills()).collect();
        all.extend(self.generated.iter().cloned());
        all.sort_by(|a, b| a.uri.cmp(&b.uri));
        all
    }

    /// `skills/list`: every skill on one page.
    pub(crate) fn list(&self, cursor: Option<String>) -> Result<ListSkillsResult, McpError> {
        if let Some(cursor) = cursor {
            return Err(McpError::invalid_params(
                "invalid cursor: this server lists all its skills on one page; call skills/list without a cursor",
                Some(json!({ "cursor": cursor })),
            ));
        }
        Ok(ListSkillsResult::with_all_items(self.skills())
            .with_ttl_ms(SKILLS_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`.
    pub(crate) fn get(&self, uri: &str) -> Result<GetSkillResult, McpError> {
        check_scheme(uri, "skills/get")?;
        let skill = self
            .skills()
            .into_iter()
            .find(|s| s.uri == uri)
            .ok_or_else(|| {
                McpError::invalid_params(
                    format!(
                        "no skill is served at {uri}; expected the uri of a SKILL.md that skills/list names ({})",
                        self.known()
                    ),
                    Some(json!({ "uri": uri })),
                )
            })?;
        Ok(GetSkillResult::new(skill)
            .with_ttl_ms(SKILLS_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    /// `resources/read` of a skill file.
    pub(crate) fn read(&self, uri: &str) -> Result<ReadResourceResult, McpError> {
        check_scheme(uri, "resources/read")?;
        if let Some(file) = self.files.get(uri) {
            // Every generated file is text: `SKILL.md` is written here, the others are
            // given as strings.
            let text = String::from_utf8_lossy(&file.bytes);
            let contents = ResourceContents::text(text, uri);
            return Ok(ReadResourceResult::new(vec![
                contents.with_mime_type(file.mime_type.clone())
            ])
            .with_ttl_ms(SKILLS_TTL_MS)
            .with_cache_scope(CacheScope::Public));
        }
        if let Some(found) = self.folder.as_ref().and_then(|f| f.read_resource(uri)) {
            return Ok(found
                .with_ttl_ms(SKILLS_TTL_MS)
                .with_cache_scope(CacheScope::Public));
        }
        Err(McpError::resource_not_found(
            format!(
                "no resource at {uri}; this server serves the files its skills list in skills/list ({})",
                self.known()
            ),
            Some(json!({ "uri": uri })),
        ))
    }

    /// `resources/directory/read`: the direct children of a skill directory.
    pub(crate) fn directory(&self, uri: &str) -> Result<ListResourcesResult, McpError> {
        check_scheme(uri, "resources/directory/read")?;
        if let Some(children) = self.directories.get(uri) {
            return Ok(ListResourcesResult::with_all_items(children.clone())
                .with_ttl_ms(SKILLS_TTL_MS)
                .with_cache_scope(CacheScope::Public));
        }
        if let Some(folder) = &self.folder {
            if let Ok(found) = folder.read_resource_directory(uri) {
                return Ok(found
                    .with_ttl_ms(SKILLS_TTL_MS)
                    .with_cache_scope(CacheScope::Public));
            }
        }
        Err(McpError::invalid_params(
            format!(
                "{uri} is not a directory of a served skill; expected a skill's root (skill://<name>, no trailing slash) or a folder inside it"
            ),
            Some(json!({ "uri": uri })),
        ))
    }

    /// `resources/list`: every file of every skill.
    pub(crate) fn resources(&self) -> ListResourcesResult {
        let mut all: Vec<Resource> = self.folder.iter().flat_map(|f| f.resources()).collect();
        for skill in &self.generated {
            let SkillResources::Files(files) = &skill.resources else {
                continue;
            };
            for file in files {
                let name = file.uri.rsplit('/').next().unwrap_or(&file.uri);
                let mut resource = Resource::new(&file.uri, name).with_size(file.size);
                if let Some(served) = self.files.get(&file.uri) {
                    resource = resource.with_mime_type(served.mime_type.clone());
                }
                if file.uri == skill.uri {
                    resource = resource
                        .with_description(skill.frontmatter.description.clone())
                        .with_title(skill.frontmatter.name.clone());
                }
                all.push(resource);
            }
        }
        all.sort_by(|a, b| a.uri.cmp(&b.uri));
        ListResourcesResult::with_all_items(all)
            .with_ttl_ms(SKILLS_TTL_MS)
            .with_cache_scope(CacheScope::Public)
    }

    /// The URIs of the served skills, for error messages.
    fn known(&self) -> String {
        let uris: Vec<String> = self.skills().into_iter().map(|s| s.uri).collect();
        if uris.is_empty() {
            "none are served".into()
        } else {
            uris.join(", ")
        }
    }

    /// Number of skills served.
    pub(crate) fn len(&self) -> usize {
        self.skills().len()
    }
}

/// The served tools of `spec`, or `None` when it cannot be offered with the served set.
fn served_tools(
    spec: &SkillSpec,
    registry: &Registry,
    list: &ToolList,
) -> Option<Vec<render::ToolLine>> {
    let dispatcher = registry.dispatcher();
    for id in &spec.named_tools {
        let served = dispatcher
            .registration(id)
            .is_some_and(|r| list.skill(r.wire_name).is_some());
        if !served {
            tracing::info!(skill = %spec.name, tool = %id, "skill not offered: a tool its instructions name is not served");
            return None;
        }
    }
    let Some(filter) = &spec.tools else {
        return Some(Vec::new());
    };
    let tools: Vec<render::ToolLine> = list
        .names()
        .filter_map(|name| list.skill(name))
        .filter(|s| filter.accepts(s.registration))
        .map(|s| render::ToolLine {
            name: s.wire_name(),
            description: s.registration.description,
            writes: s.needs_confirmation(),
        })
        .collect();
    if tools.is_empty() {
        tracing::info!(skill = %spec.name, "skill not offered: none of its tools is served");
        return None;
    }
    Some(tools)
}

/// A file path inside a skill: relative, `/`-separated, plain characters, not `SKILL.md`.
fn check_path(path: &str) -> Result<(), String> {
    let plain = |s: &str| {
        !s.is_empty()
            && s != "."
            && s != ".."
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    };
    if path == SKILL_MD {
        return Err("SKILL.md is written by the server; give its text as instructions".into());
    }
    if !path.split('/').all(plain) {
        return Err(format!(
            "file path `{path}` is not a relative path of letters, digits, `.`, `_` and `-` separated by `/`"
        ));
    }
    Ok(())
}

/// Refuses a URI outside the `skill://` scheme with what was expected.
fn check_scheme(uri: &str, method: &str) -> Result<(), McpError> {
    if uri.starts_with(SCHEME) {
        return Ok(());
    }
    Err(McpError::invalid_params(
        format!(
            "{method}: `{uri}` is not a skill URI; expected skill://<skill name>/<file> (skills/list names them)"
        ),
        Some(json!({ "uri": uri })),
    ))
}

/// The front matter a generated skill carries, as its `skills/list` entry shows it.
fn frontmatter(spec: &SkillSpec, tools: &[render::ToolLine]) -> SkillFrontmatter {
    let mut metadata = serde_json::Map::new();
    for (key, value) in &spec.metadata {
        metadata.insert(key.clone(), value.clone().into());
    }
    if !tools.is_empty() {
        let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        metadata.insert("tools".into(), names.join(" ").into());
    }
    let front = SkillFrontmatter::new(&spec.name, &spec.description);
    if metadata.is_empty() {
        front
    } else {
        front.with_field("metadata", serde_json::Value::Object(metadata))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_paths_are_plain_relative_paths() {
        assert!(check_path("playbook.json").is_ok());
        assert!(check_path("references/checklist.json").is_ok());
        for bad in [
            "",
            "/abs.md",
            "a//b",
            "../up.md",
            "a/./b",
            "sp ace.md",
            "q?.md",
            "SKILL.md",
        ] {
            assert!(check_path(bad).is_err(), "{bad:?} refused");
        }
    }

    #[test]
    fn a_uri_outside_the_scheme_names_what_was_expected() {
        let err = check_scheme("file:///etc/passwd", "resources/read").unwrap_err();
        assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(
            err.message.contains("file:///etc/passwd"),
            "{}",
            err.message
        );
        assert!(err.message.contains("expected skill://"), "{}", err.message);
    }
}
