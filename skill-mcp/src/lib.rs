//! # toolwright-mcp
//!
//! Serves the skills of a [`Dispatcher`] as a Model Context Protocol server, so any MCP
//! client (desktop assistants, editors, agent frameworks) can list and call them. Built on
//! the official Rust SDK (`rmcp`): one endpoint speaks both protocol eras, the
//! `initialize` handshake (2025-06-18, 2025-11-25) and the stateless 2026-07-28 version
//! (`server/discover`, per-request `_meta`).
//!
//! Calls go through the dispatcher exactly as an agent's calls do: lenient argument
//! parsing (fixes are returned in `_meta`), preparation of left-out arguments from the
//! server's [`SkillContext`], time limits and panic isolation. Skills that write wait for the
//! user's consent, asked through the client (elicitation) when it can, and never run without;
//! a call nobody answers expires on the dispatcher's clock
//! ([`toolwright::DispatcherBuilder::confirmation_ttl`]), whichever client parked it.
//!
//! ```no_run
//! # async fn demo() -> Result<(), toolwright_mcp::ServeError> {
//! let dispatcher = toolwright::Dispatcher::from_inventory().expect("valid registry");
//! toolwright_mcp::serve_stdio(dispatcher, toolwright::SkillContext::new()).await
//! # }
//! ```
//!
//! Layout: `registry` maps the registry to MCP tools, `calls` maps MCP calls to
//! dispatcher calls, `handler` speaks the protocol, `pages` writes pre-rendered
//! `tools/list` pages into the transports' output, and the transports are [`serve_stdio`]
//! and [`http`].
//!
//! For large registries, [`McpServerBuilder::tool_search`] lists two tools instead of all:
//! `search_tools` ranks the served tools against a task, `call_tool` runs one of them as a
//! direct call would.
//!
//! Skills ([`McpServerBuilder::skill`], [`McpServerBuilder::skills_dir`]) are served over
//! the skills extension (`skills/list`, `skills/get`, their files through `resources/read`),
//! each `SKILL.md` written from the tools served. A request's `_meta.traceparent` is the
//! parent of the server's span for it, so a tool call joins the caller's trace.
//!
//! Long work is served as tasks (the tasks extension, `io.modelcontextprotocol/tasks`):
//! [`McpServerBuilder::task_tool`] registers a [`TaskTool`] whose [`TaskRunner`] records runs
//! in a [`toolwright::runs::RunStore`]; `tasks/get`, `tasks/cancel` and `tasks/update` answer
//! from the store, so any server on it answers for any task.
//!
//! The served tool set can change while serving ([`McpServer::set_filter`], a pack's set
//! changing with the date): the cached list is replaced and connected clients get
//! `notifications/tools/list_changed` (handshake sessions directly, 2026-07-28 clients on
//! their `subscriptions/listen` stream).

#![warn(missing_docs)]

mod calls;
mod error;
mod gate;
mod handler;
pub mod http;
mod pages;
mod registry;
mod search;
mod skills;
mod stdio;
mod tasks;
mod trace;

use std::sync::{Arc, Mutex, RwLock};
#[cfg(feature = "packs")]
use std::time::{Duration, Instant};

use rmcp::model::RequestStateCodec;
use rmcp::service::Peer;
use rmcp::RoleServer;
use toolwright::{Dispatcher, SkillContext, ToolFilter};

pub use calls::{META_ERROR, META_PENDING, META_WARNINGS};
pub use error::ServeError;
pub use http::{
    router, serve_http, serve_listener, CancellationToken, ConnectionLimits, HttpOptions,
    SessionLimits,
};
pub use search::CALL_TOOL;
pub use skills::{SkillFile, SkillSpec};
pub use stdio::{serve_io, serve_stdio, serve_stdio_with, MAX_LINE_BYTES};
pub use tasks::{TaskError, TaskRunner, TaskTool, DEFAULT_POLL_INTERVAL, META_PROGRESS};

/// Tools per `tools/list` page unless [`McpServerBuilder::page_size`] says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// How often a pack's tool set is read again (it changes with removal dates).
#[cfg(feature = "packs")]
const PACK_RECHECK: Duration = Duration::from_secs(60);

/// An MCP server over a dispatcher: cheap to clone (one per HTTP session), all clones share
/// the rendered tool list and the state skills are prepared from.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
    /// Whether the transport writes `tools/list` pages from page tokens (this crate's
    /// transports do; a server handed to rmcp directly answers with typed tools).
    pages: bool,
}

struct Inner {
    registry: registry::Registry,
    /// What is served: the filter and, with a pack, the pack's set.
    source: Mutex<Source>,
    /// The list served now.
    tools: RwLock<Arc<registry::ToolList>>,
    /// What is served as skills, and the skills rendered for the list served now.
    skill_sources: skills::Sources,
    skills: RwLock<Arc<skills::Catalog>>,
    splicer: pages::Splicer,
    /// Counts list changes; 2026-07-28 listeners wait on it.
    changes: tokio::sync::watch::Sender<u64>,
    /// Handshake-era clients, told of list changes directly.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    context: SkillContext,
    page_size: usize,
    name: String,
    version: String,
    instructions: Option<String>,
    /// Seals the `requestState` of a confirmation asked through the 2026 input-required
    /// round trip, so a client cannot forge consent to another call.
    state_codec: RequestStateCodec,
    /// With tool search: the index `search_tools` ranks the served tools with.
    search: Option<toolwright::search::ToolSearch>,
    /// Where calls waiting for consent are kept and decided.
    consent: calls::Consent,
    /// Tools whose calls start long work, served as tasks.
    tasks: tasks::TaskTools,
}

/// What a server serves.
#[derive(Debug, Clone)]
struct Source {
    filter: ToolFilter,
    #[cfg(feature = "packs")]
    pack: Option<PackRoute>,
}

/// A pack served through the gateway.
#[cfg(feature = "packs")]
#[derive(Debug, Clone)]
struct PackRoute {
    gateway: toolwright_packs::Gateway,
    caller: toolwright_packs::Caller,
    checked: Instant,
}

impl Source {
    /// The filter of the served set: the filter, narrowed to the pack's tools.
    fn served_filter(&self) -> Result<ToolFilter, ServeError> {
        #[cfg(feature = "packs")]
        if let Some(route) = &self.pack {
            let pack = route
                .gateway
                .pack_filter(route.caller.pack())
                .map_err(|e| ServeError::Config(format!("pack `{}`: {e}", route.caller.pack())))?;
            let mut filter = self.filter.clone();
            let pack_ids = pack.ids.unwrap_or_default();
            filter.ids = Some(match filter.ids.take() {
                Some(own) => own.intersection(&pack_ids).cloned().collect(),
                None => pack_ids,
            });
            return Ok(filter);
        }
        Ok(self.filter.clone())
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.inner.name)
            .field("tools", &self.tool_count())
            .field("page_size", &self.inner.page_size)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server for every active skill of `dispatcher`, prepared from `context`.
    pub fn new(dispatcher: Dispatcher, context: SkillContext) -> Result<Self, ServeError> {
        Self::builder(dispatcher).context(context).build()
    }

    /// Starts a server with options (filter, page size, name).
    pub fn builder(dispatcher: Dispatcher) -> McpServerBuilder {
        McpServerBuilder {
            dispatcher,
            context: SkillContext::new(),
            filter: ToolFilter::all(),
            page_size: DEFAULT_PAGE_SIZE,
            name: "toolwright".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            instructions: None,
            state_key: None,
            tool_search: false,
            skills: Vec::new(),
            skills_dir: None,
            #[cfg(feature = "packs")]
            pack: None,
            confirmations: None,
            task_tools: Vec::new(),
        }
    }

    /// The filter of the tools served: the server's filter, narrowed to the pack's tool set
    /// when it serves a pack (what a console next to it shows).
    pub fn served_filter(&self) -> Result<ToolFilter, ServeError> {
        self.source().served_filter()
    }

    /// Number of tools served (with tool search, those `search_tools` finds and
    /// `call_tool` runs).
    pub fn tool_count(&self) -> usize {
        self.list().len()
    }

    /// Whether `tools/list` offers `search_tools` and `call_tool` in place of the tools
    /// ([`McpServerBuilder::tool_search`]).
    pub fn tool_search(&self) -> bool {
        self.inner.search.is_some()
    }

    /// The wire names of the tools served now, in dispatcher order (with tool search, the
    /// tools behind `search_tools` and `call_tool`).
    pub fn tool_names(&self) -> Vec<&'static str> {
        self.list().names().collect()
    }

    /// Serves the skills that pass `filter` from now on (with a pack, within the pack's
    /// set). When the set changes, connected clients are told (`list_changed`). Returns
    /// whether it changed.
    pub async fn set_filter(&self, filter: ToolFilter) -> Result<bool, ServeError> {
        let source = {
            let mut source = self.source();
            source.filter = filter;
            source.clone()
        };
        self.serve_source(&source).await
    }

    /// Serves pack `pack` through `gateway` from now on, for `user`: the pack's tool set,
    /// cross-pack calls checked and audited by the gateway. `None` serves the filter's
    /// skills directly again. Connected clients are told when the set changes.
    #[cfg(feature = "packs")]
    pub async fn set_pack(
        &self,
        pack: Option<(toolwright_packs::Gateway, toolwright_packs::Caller)>,
    ) -> Result<bool, ServeError> {
        let source = {
            let mut source = self.source();
            source.pack = pack.map(|(gateway, caller)| PackRoute {
                gateway,
                caller,
                checked: Instant::now(),
            });
            source.clone()
        };
        self.serve_source(&source).await
    }

    /// Reads the served set again (a pack's set changes when a tool's removal date comes)
    /// and tells connected clients when it changed. Returns whether it changed.
    pub async fn refresh_tools(&self) -> Result<bool, ServeError> {
        let source = self.source().clone();
        self.serve_source(&source).await
    }

    fn source(&self) -> std::sync::MutexGuard<'_, Source> {
        self.inner.source.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn list(&self) -> Arc<registry::ToolList> {
        Arc::clone(&self.inner.tools.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// The skills served now.
    fn skill_catalog(&self) -> Arc<skills::Catalog> {
        Arc::clone(&self.inner.skills.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Number of skills served over the skills extension (generated and hand-written), so
    /// a host can say what it serves.
    pub fn skill_count(&self) -> usize {
        self.skill_catalog().len()
    }

    /// Renders `source`'s set and serves it; notifies clients when it differs.
    async fn serve_source(&self, source: &Source) -> Result<bool, ServeError> {
        let list = self.inner.registry.tools(&source.served_filter()?)?;
        let catalog =
            skills::Catalog::render(&self.inner.skill_sources, &self.inner.registry, &list)?;
        *self.inner.skills.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(catalog);
        // Known to the page writer before any request can be answered from it.
        self.inner.splicer.serve(&list);
        let changed = {
            let mut served = self.inner.tools.write().unwrap_or_else(|p| p.into_inner());
            let changed = !served.names().eq(list.names());
            *served = Arc::clone(&list);
            changed
        };
        if changed {
            tracing::info!(tools = list.len(), "served tool set changed");
            // With tool search, `tools/list` stays the two tools: nothing to tell.
            if self.inner.search.is_none() {
                self.notify_list_changed().await;
            }
        }
        Ok(changed)
    }

    /// Tells every connected client that the tool list changed.
    async fn notify_list_changed(&self) {
        self.inner.changes.send_modify(|n| *n += 1);
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self.inner.peers.lock().unwrap_or_else(|p| p.into_inner());
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            if let Err(err) = peer.notify_tool_list_changed().await {
                tracing::debug!(error = %err, "list change not sent");
            }
        }
    }

    /// Remembers a handshake-era client for list-change notifications.
    fn add_peer(&self, peer: Peer<RoleServer>) {
        let mut peers = self.inner.peers.lock().unwrap_or_else(|p| p.into_inner());
        peers.retain(|p| !p.is_transport_closed());
        peers.push(peer);
    }

    /// With a pack, reads its set again when the last reading is older than a minute.
    async fn recheck_pack(&self) {
        #[cfg(feature = "packs")]
        {
            let due = {
                let mut source = self.source();
                match &mut source.pack {
                    Some(route) if route.checked.elapsed() >= PACK_RECHECK => {
                        route.checked = Instant::now();
                        true
                    }
                    _ => false,
                }
            };
            if due {
                if let Err(err) = self.refresh_tools().await {
                    tracing::warn!(error = %err, "pack tool set not read again");
                }
            }
        }
    }

    /// This server, with `tools/list` pages written by the transport.
    pub(crate) fn with_pages(mut self) -> Self {
        self.pages = true;
        self
    }
}

/// Options of an [`McpServer`].
#[derive(Debug)]
pub struct McpServerBuilder {
    dispatcher: Dispatcher,
    context: SkillContext,
    filter: ToolFilter,
    page_size: usize,
    name: String,
    version: String,
    instructions: Option<String>,
    state_key: Option<Vec<u8>>,
    tool_search: bool,
    skills: Vec<SkillSpec>,
    skills_dir: Option<std::path::PathBuf>,
    #[cfg(feature = "packs")]
    pack: Option<(toolwright_packs::Gateway, toolwright_packs::Caller)>,
    confirmations: Option<toolwright::SharedConfirmations>,
    task_tools: Vec<TaskToolEntry>,
}

/// A task tool as registered on the builder.
struct TaskToolEntry {
    tool: TaskTool,
    runner: Arc<dyn TaskRunner>,
    store: Arc<dyn toolwright::runs::RunStore>,
}

impl std::fmt::Debug for TaskToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskToolEntry")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl McpServerBuilder {
    /// The host values skills are prepared from and injected with (a review state, a
    /// reference index, ...).
    #[must_use]
    pub fn context(mut self, context: SkillContext) -> Self {
        self.context = context;
        self
    }

    /// Serves only the skills that pass `filter` (domain, category).
    #[must_use]
    pub fn filter(mut self, filter: ToolFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Serves the tool set of pack `pack` (core tools, its own, its authorised imports)
    /// and runs every call through `gateway` for `user`: calls into other packs are checked
    /// (import, subscription, rate limit) and audited. The gateway's dispatcher runs them.
    #[cfg(feature = "packs")]
    #[must_use]
    pub fn pack(
        mut self,
        gateway: toolwright_packs::Gateway,
        pack: impl Into<String>,
        user: impl Into<String>,
    ) -> Self {
        self.dispatcher = gateway.dispatcher().clone();
        self.pack = Some((gateway, toolwright_packs::Caller::new(pack.into(), user)));
        self
    }

    /// Tools per `tools/list` page (at least one).
    #[must_use]
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// The name and version the server reports to clients.
    #[must_use]
    pub fn server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }

    /// Instructions for the model, sent with the server's description.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The key (at least 32 bytes) that seals confirmation state in 2026 input-required
    /// round trips. Replicas behind one load balancer need the same key; by default each
    /// process draws a random one.
    #[must_use]
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.state_key = Some(key.into());
        self
    }

    /// Keeps the calls that wait for consent in a store several servers share: a call
    /// parked here (its id `shared-<n>`) is confirmed or rejected through any server on the
    /// store, in its console or by a 2026 client's retry (which also needs the same
    /// [`request_state_key`](Self::request_state_key) on every server). Confirmed calls run on
    /// the server that is told of the consent.
    #[must_use]
    pub fn confirmations(mut self, shared: toolwright::SharedConfirmations) -> Self {
        self.confirmations = Some(shared);
        self
    }

    /// With `true`, `tools/list` offers two tools in place of the served ones:
    /// `search_tools` (ranks the served tools against a task in plain words, answers with
    /// their names, descriptions and input schemas) and `call_tool` (runs one of them by
    /// name, exactly as a direct `tools/call`). For large registries, whose full list costs a
    /// model tens of thousands of prompt tokens per turn; off by default, since a client
    /// that never searches finds no tool. The served tools stay callable by name (a skill
    /// whose wire name is `search_tools` or `call_tool` is then reached through `call_tool`
    /// only).
    #[must_use]
    pub fn tool_search(mut self, on: bool) -> Self {
        self.tool_search = on;
        self
    }

    /// Serves `skill` over the skills extension (`skills/list`, `skills/get`, its files
    /// through `resources/read`): its `SKILL.md` is written from the tools served, so it
    /// names only tools a client can call. Declaring any skill declares the extension and
    /// the `resources` capability.
    #[must_use]
    pub fn skill(mut self, skill: SkillSpec) -> Self {
        self.skills.push(skill);
        self
    }

    /// Serves every skill of `skills` ([`skill`](Self::skill) for each).
    #[must_use]
    pub fn skills(mut self, skills: impl IntoIterator<Item = SkillSpec>) -> Self {
        self.skills.extend(skills);
        self
    }

    /// Also serves the hand-written skills under `dir`: each folder holding a `SKILL.md`
    /// (front matter `name`, equal to the folder's name, and `description`) is a skill at
    /// `skill://<path from dir>/SKILL.md`, with every file beside it as a resource. Read
    /// once, when the server is built; one named like a generated skill replaces it.
    #[must_use]
    pub fn skills_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.skills_dir = Some(dir.into());
        self
    }

    /// Serves `tool` as a task tool (the tasks extension, `io.modelcontextprotocol/tasks`):
    /// a call starts its work through `runner`, which records the run in `store`. A client
    /// that declared the extension on a 2026-07-28 request gets the task at once and polls
    /// `tasks/get`; any other gets the tool result when the run ends. Every server built on
    /// the same store answers for the task, and resumes it when the process working on it
    /// died. Listed first in `tools/list` (also with tool search); never a skill of the
    /// dispatcher, so never offered to an agent inside the work.
    #[must_use]
    pub fn task_tool(
        mut self,
        tool: TaskTool,
        runner: Arc<dyn TaskRunner>,
        store: Arc<dyn toolwright::runs::RunStore>,
    ) -> Self {
        self.task_tools.push(TaskToolEntry {
            tool,
            runner,
            store,
        });
        self
    }

    /// The task tools, checked against each other and the names the dispatcher serves.
    fn task_tools(&mut self) -> Result<tasks::TaskTools, ServeError> {
        let mut served = tasks::TaskTools::default();
        for entry in std::mem::take(&mut self.task_tools) {
            let name = entry.tool.name().to_string();
            if self
                .dispatcher
                .registration(&name)
                .is_some_and(|s| s.wire_name == name)
            {
                return Err(ServeError::Config(format!(
                    "task tool `{name}` has the name of a skill of the dispatcher; give it another"
                )));
            }
            if self.tool_search
                && [toolwright::search::tool::SEARCH_TOOLS, search::CALL_TOOL]
                    .contains(&name.as_str())
            {
                return Err(ServeError::Config(format!(
                    "task tool `{name}` has the name of a tool-search tool; give it another"
                )));
            }
            served
                .add(entry.tool, entry.runner, entry.store)
                .map_err(|name| {
                    ServeError::Config(format!("task tool `{name}` is registered twice"))
                })?;
        }
        Ok(served)
    }

    /// Renders the tool list and builds the server.
    pub fn build(mut self) -> Result<McpServer, ServeError> {
        let task_tools = self.task_tools()?;
        let search = self
            .tool_search
            .then(|| toolwright::search::ToolSearch::new(&self.dispatcher));
        let consent = calls::Consent::Local(self.dispatcher.clone());
        let consent = match self.confirmations {
            Some(shared) => calls::Consent::Shared(shared),
            None => consent,
        };
        let registry = registry::Registry::new(self.dispatcher, self.page_size);
        let source = Source {
            filter: self.filter,
            #[cfg(feature = "packs")]
            pack: self.pack.map(|(gateway, caller)| PackRoute {
                gateway,
                caller,
                checked: Instant::now(),
            }),
        };
        let tools = registry.tools(&source.served_filter()?)?;
        let skill_sources = skills::Sources {
            specs: self.skills,
            folder: self.skills_dir.map(skills::load_folder).transpose()?,
        };
        let catalog = skills::Catalog::render(&skill_sources, &registry, &tools)?;
        let key = self.state_key.unwrap_or_else(|| {
            let mut key = Vec::with_capacity(32);
            key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
            key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
            key
        });
        let state_codec = RequestStateCodec::try_new(key)
            .map_err(|e| ServeError::Config(format!("request state key: {e}")))?;
        let splicer = pages::Splicer::default();
        splicer.serve(&tools);
        tracing::info!(
            tools = tools.len(),
            skills = catalog.len(),
            "MCP server ready"
        );
        Ok(McpServer {
            inner: Arc::new(Inner {
                registry,
                source: Mutex::new(source),
                tools: RwLock::new(tools),
                skill_sources,
                skills: RwLock::new(Arc::new(catalog)),
                splicer,
                changes: tokio::sync::watch::Sender::new(0),
                peers: Mutex::new(Vec::new()),
                context: self.context,
                page_size: self.page_size,
                name: self.name,
                version: self.version,
                instructions: self.instructions,
                state_codec,
                search,
                consent,
                tasks: task_tools,
            }),
            pages: false,
        })
    }
}

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
