//! # skill-mcp
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
//! user's consent, asked through the client (elicitation) when it can, and never run without.
//!
//! ```no_run
//! # async fn demo() -> Result<(), skill_mcp::ServeError> {
//! let dispatcher = skill_core::Dispatcher::from_inventory().expect("valid registry");
//! skill_mcp::serve_stdio(dispatcher, skill_core::SkillContext::new()).await
//! # }
//! ```
//!
//! Layout: `registry` maps the registry to MCP tools, `calls` maps MCP calls to
//! dispatcher calls, `handler` speaks the protocol, and the transports are [`serve_stdio`]
//! and [`http`].

#![warn(missing_docs)]

mod calls;
mod error;
mod handler;
pub mod http;
mod registry;
mod stdio;

use std::sync::Arc;

use rmcp::model::RequestStateCodec;
use skill_core::{Dispatcher, SkillContext, ToolFilter};

pub use calls::{META_ERROR, META_PENDING, META_WARNINGS};
pub use error::ServeError;
pub use http::{router, serve_http, serve_listener, CancellationToken, HttpOptions};
pub use stdio::{serve_io, serve_stdio, serve_stdio_with};

/// Tools per `tools/list` page unless [`McpServerBuilder::page_size`] says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// An MCP server over a dispatcher: cheap to clone (one per HTTP session), all clones share
/// the rendered tool list and the state skills are prepared from.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    registry: registry::Registry,
    tools: Arc<registry::ToolList>,
    context: SkillContext,
    page_size: usize,
    name: String,
    version: String,
    instructions: Option<String>,
    /// Seals the `requestState` of a confirmation asked through the 2026 input-required
    /// round trip, so a client cannot forge consent to another call.
    state_codec: RequestStateCodec,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.inner.name)
            .field("tools", &self.inner.tools.tools.len())
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
            name: "skillkit".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            instructions: None,
            state_key: None,
        }
    }

    /// Number of tools served.
    pub fn tool_count(&self) -> usize {
        self.inner.tools.tools.len()
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

    /// Renders the tool list and builds the server.
    pub fn build(self) -> Result<McpServer, ServeError> {
        let registry = registry::Registry::new(self.dispatcher);
        let tools = registry.tools(&self.filter)?;
        let key = self.state_key.unwrap_or_else(|| {
            let mut key = Vec::with_capacity(32);
            key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
            key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
            key
        });
        let state_codec = RequestStateCodec::try_new(key)
            .map_err(|e| ServeError::Config(format!("request state key: {e}")))?;
        tracing::info!(tools = tools.tools.len(), "MCP server ready");
        Ok(McpServer {
            inner: Arc::new(Inner {
                registry,
                tools,
                context: self.context,
                page_size: self.page_size,
                name: self.name,
                version: self.version,
                instructions: self.instructions,
                state_codec,
            }),
        })
    }
}
