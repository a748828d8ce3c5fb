//! `clausewright serve`: the skills as a Model Context Protocol server, on stdio or HTTP; over
//! HTTP the web console is served at `/` next to MCP at `/mcp`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use toolwright_console::{ConsoleOptions, ConsoleState};

use clausewright_skills::review::Domain;
use toolwright::{Dispatcher, DispatcherBuilder, SkillContext};
use toolwright_mcp::{ConnectionLimits, HttpOptions, McpServer, SessionLimits};

use super::call::contract_context;
use super::review::ContractOptions;
use super::serve_review::ServedContract;
use super::{CliError, FilterArgs};

/// Options of `clausewright serve`. Options of the HTTP transport conflict with `--stdio`
/// (clap's `requires = "http"` is satisfied by the transport group whichever member is
/// given, so it would let them pass unused).
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
pub struct ServeArgs {
    /// Serve on standard input and output, for clients that start the server themselves.
    #[arg(long)]
    stdio: bool,
    /// Serve streamable HTTP at http://ADDR/mcp (default 127.0.0.1:8765; a non-loopback
    /// address needs a token).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
    http: Option<SocketAddr>,
    /// A contract (file or sample folder, as for `review`) whose review state the skills are
    /// prepared from; the contract-review skills need one.
    #[arg(long)]
    contract: Option<PathBuf>,
    /// The clause under review: skills prepare `clause_id` from it when a call leaves it out.
    #[arg(long)]
    clause: Option<String>,
    #[command(flatten)]
    filter: FilterArgs,
    /// Serve this pack's tool set (core tools, its own, its authorised imports); calls into
    /// other packs go through the gateway (subscription, rate limit, audit in the packs
    /// database: $TOOLWRIGHT_PACKS_DB, else toolwright-packs.db here).
    #[arg(long, value_name = "NAME")]
    pack: Option<String>,
    /// A store several servers share; repeat for a second one. A SQLite file (a path or
    /// `sqlite://path`) or `postgres://…` holds packs' subscriptions, quotas, audit and state
    /// and the calls waiting for consent; `redis://…` holds quotas only, beside one of those.
    /// A call parked on one server is then decided on any, and quotas hold across them all
    /// (give them the same --state-key too).
    #[arg(long, value_name = "URL")]
    store: Vec<String>,
    /// The key sealing the state of consent questions asked of 2026-07-28 clients, at least
    /// 32 bytes (default: the TOOLWRIGHT_STATE_KEY environment variable, else a random one per
    /// process). Servers behind one address need the same key, so that a client's answer
    /// is read by whichever server gets it.
    #[arg(long, value_name = "KEY")]
    state_key: Option<String>,
    /// The user pack calls run for (subscriptions and rate limits are per user).
    #[arg(long, value_name = "NAME", default_value = "local", requires = "pack")]
    pack_user: String,
    /// The launch token: MCP clients send it as `Authorization: Bearer TOKEN`, the console's
    /// printed address carries it (default: the TOOLWRIGHT_TOKEN environment variable, else a
    /// random one printed at start). At least 16 characters.
    #[arg(long)]
    token: Option<String>,
    /// Serve `/mcp` without a token (any local process may then call the skills); loopback
    /// addresses only. The console keeps its token.
    #[arg(long, conflicts_with_all = ["token", "stdio"])]
    no_auth: bool,
    /// A further `Host` this server answers to (its public name or address, with an optional
    /// port), for a non-loopback bind; repeat for several. Loopback names are always allowed.
    #[arg(long, value_name = "HOST", conflicts_with = "stdio")]
    allow_host: Vec<String>,
    /// A further browser `Origin` accepted (`https://name[:port]`, `:*` for any port);
    /// repeat for several.
    #[arg(long, value_name = "ORIGIN", conflicts_with = "stdio")]
    allow_origin: Vec<String>,
    /// Serve MCP only: no web console at `/`.
    #[arg(long, conflicts_with = "stdio")]
    no_console: bool,
    /// Limits on the console's reviews.
    #[command(flatten)]
    review_limits: super::console_reviews::ReviewLimitArgs,
    /// Seconds a call needing confirmation waits for a decision (asked of an MCP client's
    /// user or in the console) before it is dropped without running.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    confirmation_ttl: u64,
    /// Most HTTP connections open at once; over it the longest-idle one is closed, or the
    /// new one gets 503 when all are busy. Keep it below the open-files limit (`ulimit -n`).
    #[arg(long, value_name = "N", default_value_t = ConnectionLimits::DEFAULT_MAX_CONNECTIONS as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000), conflicts_with = "stdio")]
    max_connections: u64,
    /// Seconds a request's head may take to arrive (also how long a kept-alive connection
    /// waits for its next request).
    #[arg(long, value_name = "SECONDS", default_value_t = ConnectionLimits::DEFAULT_HEADER_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "stdio")]
    header_timeout: u64,
    /// Seconds of silence while a request is under way (a body that stops arriving, a client
    /// that stops reading) before its connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = ConnectionLimits::DEFAULT_IDLE_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "stdio")]
    idle_timeout: u64,
    /// Seconds a request's body may take to arrive in full, however it trickles in, before
    /// its connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = ConnectionLimits::DEFAULT_BODY_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "stdio")]
    body_timeout: u64,
    /// Seconds shutdown (Ctrl-C, SIGTERM) waits for requests in progress before dropping
    /// their connections.
    #[arg(long, value_name = "SECONDS", default_value_t = ConnectionLimits::DEFAULT_SHUTDOWN_GRACE.as_secs(),
          conflicts_with = "stdio")]
    shutdown_grace: u64,
    /// Most MCP sessions alive at once (another `initialize` gets 503, error -32001).
    #[arg(long, value_name = "N", default_value_t = SessionLimits::default().max_sessions as u64,
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "stdio")]
    max_sessions: u64,
    /// Most MCP sessions alive at once from one client address.
    #[arg(long, value_name = "N", default_value_t = SessionLimits::default().max_sessions_per_client as u64,
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "stdio")]
    max_sessions_per_client: u64,
    /// Seconds an MCP session may go without a message before it is ended.
    #[arg(long, value_name = "SECONDS", default_value_t = toolwright_mcp::http::DEFAULT_SESSION_IDLE.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "stdio")]
    session_idle: u64,
    /// List two tools, `search_tools` and `call_tool`, in place of the served ones: a client
    /// searches for the tools a task needs and calls them through `call_tool` (same consent,
    /// limits, gateway and audit as a direct call). For large registries, whose full list
    /// costs a model many prompt tokens per turn; only for clients whose model calls the
    /// search tool.
    #[arg(long)]
    tool_search: bool,
    /// A folder of hand-written skills served over MCP beside the review skills: each
    /// folder in it holding a SKILL.md (front matter `name`, the folder's name, and
    /// `description`) is a skill, every file beside it one of its resources. One named like
    /// a review skill (`contract-review`, `fidic-review`, `sha-spa-review`) replaces it.
    #[arg(long, value_name = "DIR")]
    skills: Option<PathBuf>,
    /// Leave out the `review_contract` tool (the review itself as an MCP task, recorded in
    /// the --store given, else the default run store).
    #[arg(long)]
    no_review_tool: bool,
    /// How the console's reviews use the provision classifier.
    #[command(flatten)]
    classifier: super::review::ClassifierOptions,
}

/// The state calls are prepared from: the review state of `--contract` (the domain filter,
/// when it names a contract domain, is the contract's domain), its reference index and the
/// clause of `--clause`.
fn context(args: &ServeArgs) -> Result<SkillContext, CliError> {
    let options = ContractOptions {
        domain: args
            .filter
            .domain
            .clone()
            .filter(|d| Domain::NAMED.iter().any(|named| named.as_str() == d)),
        checklist: None,
        criteria: None,
        baseline: None,
        references: Vec::new(),
        our_party: String::new(),
        language: "en".into(),
    };
    contract_context(args.contract.as_deref(), args.clause.as_deref(), &options)
}

/// The launch token: `--token`, else TOOLWRIGHT_TOKEN, else a random one; a given token that
/// is blank or shorter than 16 characters is refused.
fn launch_token(args: &ServeArgs) -> Result<String, CliError> {
    let given = match &args.token {
        Some(token) => Some(("--token", token.clone())),
        None => std::env::var("TOOLWRIGHT_TOKEN")
            .ok()
            .map(|t| ("TOOLWRIGHT_TOKEN", t)),
    };
    match given {
        Some((from, token)) => {
            toolwright_http::check_token(&token)
                .map_err(|why| CliError::Usage(format!("{from}: {why}")))?;
            Ok(token)
        }
        None => Ok(ConsoleOptions::random_token()),
    }
}

/// The shortest key accepted for sealing request state (what the MCP SDK requires).
const MIN_STATE_KEY_BYTES: usize = 32;

/// The request-state key: `--state-key`, else TOOLWRIGHT_STATE_KEY, else none (the server
/// draws one); a given key shorter than 32 bytes (after trimming) is refused.
fn state_key(args: &ServeArgs) -> Result<Option<String>, CliError> {
    let given = match &args.state_key {
        Some(key) => Some(("--state-key", key.clone())),
        None => std::env::var("TOOLWRIGHT_STATE_KEY")
            .ok()
            .map(|k| ("TOOLWRIGHT_STATE_KEY", k)),
    };
    let Some((from, key)) = given else {
        return Ok(None);
    };
    if key.trim().len() < MIN_STATE_KEY_BYTES {
        return Err(CliError::Usage(format!(
            "{from}: the request-state key has {} bytes; give at least {MIN_STATE_KEY_BYTES} (for example 64 hex digits from `openssl rand -hex 32`)",
            key.trim().len()
        )));
    }
    Ok(Some(key))
}

/// The `--store` URLs as (main store, quota store): at most one SQLite or PostgreSQL store,
/// at most one Redis store, and Redis only beside one of the others.
fn store_urls(args: &ServeArgs) -> Result<Option<(String, Option<String>)>, CliError> {
    let (quota, main): (Vec<&String>, Vec<&String>) = args
        .store
        .iter()
        .partition(|url| url.starts_with("redis://") || url.starts_with("rediss://"));
    let shown = |urls: &[&String]| {
        urls.iter()
            .map(|u| toolwright_packs::redact_url(u))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if main.len() > 1 {
        return Err(CliError::Usage(format!(
            "--store: one SQLite or PostgreSQL store at most, got {}",
            shown(&main)
        )));
    }
    if quota.len() > 1 {
        return Err(CliError::Usage(format!(
            "--store: one Redis store at most, got {}",
            shown(&quota)
        )));
    }
    match (main.first(), quota.first()) {
        (None, None) => Ok(None),
        (None, Some(redis)) => Err(CliError::Usage(format!(
            "--store {}: Redis holds quotas only; give a SQLite file or a postgres:// store too (for subscriptions, audit and the calls waiting for consent)",
            toolwright_packs::redact_url(redis)
        ))),
        (Some(main), quota) => Ok(Some(((*main).clone(), quota.map(|q| (*q).clone())))),
    }
}

/// The listener's limits from the flags.
fn connection_limits(args: &ServeArgs) -> ConnectionLimits {
    ConnectionLimits {
        max_connections: usize::try_from(args.max_connections).unwrap_or(usize::MAX),
        header_timeout: Duration::from_secs(args.header_timeout),
        idle_timeout: Duration::from_secs(args.idle_timeout),
        body_timeout: Duration::from_secs(args.body_timeout),
        shutdown_grace: Duration::from_secs(args.shutdown_grace),
    }
}

/// Completes on Ctrl-C (and on SIGTERM where there is one).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// The audit log the console shows when no pack is served: the packs database the gateway
/// writes ($TOOLWRIGHT_PACKS_DB, else toolwright-packs.db here), when there is one.
fn audit_log(args: &ServeArgs) -> Option<Arc<dyn toolwright_packs::AuditLog>> {
    if args.http.is_none() || args.no_console {
        return None;
    }
    let path = match toolwright_packs::default_database_path() {
        Ok(path) => path,
        Err(err) => {
            tracing::warn!(%err, "the console shows no audit records");
            return None;
        }
    };
    if !path.is_file() {
        return None;
    }
    match toolwright_packs::SqliteStore::open(&path) {
        Ok(store) => Some(Arc::new(store)),
        Err(err) => {
            tracing::warn!(path = %path.display(), %err, "packs database not opened; the console shows no audit records");
            None
        }
    }
}

/// The console over the same dispatcher and state as the MCP endpoint, behind the same
/// HTTP guard (`Host` and `Origin` allow-lists), with the launch token MCP clients send.
// One call site, and each argument is a separate part of what `serve` set up.
#[allow(clippy::too_many_arguments)]
fn console_state(
    dispatcher: &Dispatcher,
    pack: Option<(toolwright_packs::Gateway, toolwright_packs::Caller)>,
    shared: Option<toolwright::SharedConfirmations>,
    filter: toolwright::ToolFilter,
    context: SkillContext,
    options: &HttpOptions,
    audit: Option<Arc<dyn toolwright_packs::AuditLog>>,
    token: String,
    reviews: super::console_reviews::LibraryReviews,
    review_limits: &super::console_reviews::ReviewLimitArgs,
    runs: Arc<dyn toolwright::runs::RunStore>,
) -> ConsoleState {
    let console_options = ConsoleOptions::new(token)
        .max_body_bytes(options.max_body_bytes)
        // Whole contracts (Word, PDF) are uploaded: as large as `review` reads.
        .max_upload_bytes(
            clausewright_skills::document::formats::MAX_DOCUMENT_BYTES as usize + (64 << 10),
        );
    let mut console_options = review_limits.apply(console_options);
    console_options.guard = options.guard.clone();
    let mut builder = ConsoleState::builder(dispatcher.clone())
        .filter(filter)
        .context(context)
        .options(console_options)
        .reviews(Arc::new(reviews))
        .runs(runs);
    if let Some(audit) = audit {
        builder = builder.audit(audit);
    }
    if let Some(shared) = shared {
        builder = builder.confirmations(shared);
    }
    // With --pack, the console's calls go through the gateway like the MCP endpoint's.
    if let Some((gateway, caller)) = pack {
        builder = builder.pack(gateway, caller);
    }
    builder.build()
}

/// Serves MCP at `/mcp` and the console at `/` on one listener until Ctrl-C or SIGTERM.
async fn serve_with_console(
    listener: tokio::net::TcpListener,
    server: McpServer,
    options: HttpOptions,
    console: ConsoleState,
) -> Result<(), CliError> {
    let app =
        toolwright_mcp::http::router(server, &options).merge(toolwright_console::router(console));
    let cancel = options.shutdown.clone();
    toolwright_http::serve(listener, app, options.limits, async move {
        shutdown_signal().await;
        tracing::info!("HTTP server shutting down");
        cancel.cancel();
    })
    .await?;
    Ok(())
}

/// Connects the `--store` stores, if any.
fn open_stores(
    runtime: &tokio::runtime::Runtime,
    urls: Option<(String, Option<String>)>,
    consent_shared: bool,
) -> Result<Option<toolwright_packs::Stores>, CliError> {
    let Some((main, quota)) = urls else {
        return Ok(None);
    };
    let stores = runtime
        .block_on(toolwright_packs::Stores::connect(&main, quota.as_deref()))
        .map_err(|e| toolwright_mcp::ServeError::Config(format!("--store: {}", e.message)))?;
    tracing::info!(store = %stores.urls.0, quotas = %stores.urls.1, "shared store");
    if !consent_shared {
        tracing::warn!("--store without --state-key: a 2026 client's consent answer is read only by the server that asked");
    }
    Ok(Some(stores))
}

/// The HTTP transport's guard, token and limits from the flags.
fn http_options(args: &ServeArgs, launch_token: &str) -> Result<HttpOptions, CliError> {
    let mut guard = toolwright_http::HttpGuard::loopback();
    for host in &args.allow_host {
        guard
            .allow_host(host)
            .map_err(|e| CliError::Usage(format!("--allow-host: {e}")))?;
    }
    for origin in &args.allow_origin {
        guard
            .allow_origin(origin)
            .map_err(|e| CliError::Usage(format!("--allow-origin: {e}")))?;
    }
    Ok(HttpOptions {
        guard,
        token: (!args.no_auth).then(|| launch_token.to_string()),
        limits: connection_limits(args),
        sessions: SessionLimits {
            max_sessions: usize::try_from(args.max_sessions).unwrap_or(usize::MAX),
            max_sessions_per_client: usize::try_from(args.max_sessions_per_client)
                .unwrap_or(usize::MAX),
        },
        session_idle: Some(Duration::from_secs(args.session_idle)),
        ..HttpOptions::default()
    })
}

/// Tells the bound address (a port of 0 is chosen at binding), for people and scripts.
fn announce(server: &McpServer, options: &HttpOptions, args: &ServeArgs, addr: SocketAddr) {
    let auth = match &options.token {
        None => " (no token: --no-auth)".to_string(),
        // A token the user chose is not echoed; a drawn one must be told.
        Some(token) if args.token.is_none() && std::env::var_os("TOOLWRIGHT_TOKEN").is_none() => {
            format!(" (send Authorization: Bearer {token})")
        }
        Some(_) => " (bearer token required)".to_string(),
    };
    eprintln!(
        "serving {} tools{} over MCP at http://{addr}/mcp{auth}; Ctrl-C stops",
        server.tool_count(),
        if server.tool_search() {
            " behind search_tools and call_tool"
        } else {
            ""
        },
    );
}

/// The gateway of `--pack`, checked against the packs linked into this build.
fn pack_gateway(
    dispatcher: &Dispatcher,
    args: &ServeArgs,
    stores: Option<&toolwright_packs::Stores>,
) -> Result<Option<(toolwright_packs::Gateway, String)>, CliError> {
    let Some(pack) = &args.pack else {
        return Ok(None);
    };
    let linked = toolwright_packs::linked_packs();
    if !linked.iter().any(|p| p.id == pack) {
        let known: Vec<&str> = linked.iter().map(|p| p.id).collect();
        return Err(CliError::Usage(format!(
            "--pack {pack}: no such pack; packs in this build: {}",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    }
    let mut gateway = toolwright_packs::Gateway::builder(dispatcher.clone()).linked_packs();
    if let Some(stores) = stores {
        gateway = gateway.stores(stores.clone());
    }
    let gateway = gateway
        .build()
        .map_err(|e| CliError::Usage(format!("--pack {pack}: {e}")))?;
    Ok(Some((gateway, pack.clone())))
}

/// The review itself as a task tool; not with `--pack`, whose calls all go through the
/// gateway, nor with `--no-review-tool`.
fn with_review_tool(
    builder: toolwright_mcp::McpServerBuilder,
    dispatcher: &Dispatcher,
    args: &ServeArgs,
    stores: Option<&toolwright_packs::Stores>,
    runtime: &tokio::runtime::Runtime,
) -> Result<toolwright_mcp::McpServerBuilder, CliError> {
    if args.pack.is_none() && !args.no_review_tool {
        let served = args.contract.as_deref().map(|path| ServedContract {
            path: super::review::spec::absolute(path),
            domain: args.filter.domain.clone(),
        });
        let runs = stores.map(|stores| stores.runs.clone());
        return super::serve_review::register(
            builder,
            dispatcher,
            runs,
            served,
            &args.classifier,
            runtime,
        );
    }
    Ok(builder)
}

/// Serves until the client goes away (stdio) or the process is told to stop (HTTP).
pub fn run(dispatcher: &Dispatcher, args: &ServeArgs) -> Result<ExitCode, CliError> {
    // One clock for every client's confirmations: the dispatcher's queue.
    let dispatcher = &DispatcherBuilder::from_dispatcher(dispatcher)
        .confirmation_ttl(Duration::from_secs(args.confirmation_ttl))
        .build()
        .map_err(|e| CliError::Usage(format!("the skill registry is not valid: {e}")))?;
    let context = context(args)?;
    let state_key = state_key(args)?;
    let store_urls = store_urls(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let stores = open_stores(
        &runtime,
        store_urls,
        state_key.is_some() || args.http.is_none(),
    )?;
    // Calls waiting for consent live in the shared store, for MCP and the console alike.
    let shared = stores.as_ref().map(|stores| {
        toolwright::SharedConfirmations::new(dispatcher.clone(), stores.confirmations.clone())
    });
    let mut builder = McpServer::builder(dispatcher.clone())
        .context(context.clone())
        .filter(args.filter.to_filter())
        .tool_search(args.tool_search)
        .skills(super::serve_skills::review_skills(dispatcher))
        .server_info("toolwright", env!("CARGO_PKG_VERSION"));
    if let Some(dir) = &args.skills {
        builder = builder.skills_dir(dir);
    }
    if let Some(key) = &state_key {
        builder = builder.request_state_key(key.as_bytes().to_vec());
    }
    if let Some(shared) = &shared {
        builder = builder.confirmations(shared.clone());
    }
    builder = with_review_tool(builder, dispatcher, args, stores.as_ref(), &runtime)?;
    let mut gateway_audit = None;
    let mut console_pack = None;
    if let Some((gateway, pack)) = pack_gateway(dispatcher, args, stores.as_ref())? {
        gateway_audit = Some(gateway.audit_log().clone());
        console_pack = Some((
            gateway.clone(),
            toolwright_packs::Caller::new(pack.clone(), args.pack_user.clone()),
        ));
        builder = builder.pack(gateway, pack, args.pack_user.clone());
    }
    let server = builder.build()?;
    let audit = match (gateway_audit, &stores) {
        (Some(log), _) => Some(log),
        (None, Some(stores)) => Some(stores.audit.clone()),
        (None, None) => audit_log(args),
    };
    match args.http {
        Some(addr) => {
            let launch_token = launch_token(args)?;
            let options = http_options(args, &launch_token)?;
            toolwright_mcp::http::check_exposure(addr, &options)?;
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind(addr))
                .map_err(|source| toolwright_mcp::ServeError::Bind { addr, source })?;
            announce(&server, &options, args, listener.local_addr()?);
            if args.no_console {
                runtime.block_on(toolwright_mcp::serve_listener(
                    listener,
                    server,
                    options,
                    shutdown_signal(),
                ))?;
            } else {
                // The console shows the skills MCP serves (`--domain`, `--category`, `--pack`).
                let filter = server.served_filter()?;
                // A provision model or playbook that cannot be used stops the start, not
                // the first review.
                args.classifier.stage()?;
                let console = console_state(
                    dispatcher,
                    console_pack,
                    shared,
                    filter,
                    context,
                    &options,
                    audit,
                    launch_token,
                    super::console_reviews::LibraryReviews::new(
                        dispatcher.clone(),
                        super::console_reviews::LibraryReviews::agent_from_env(),
                    )
                    .classifier(args.classifier.clone()),
                    &args.review_limits,
                    runtime.block_on(super::console_reviews::run_store(stores.as_ref())),
                );
                eprintln!(
                    "console at http://{}/?token={}",
                    listener.local_addr()?,
                    console.options().token
                );
                let uploads = console.clone();
                let served =
                    runtime.block_on(serve_with_console(listener, server, options, console));
                // Uploads go with the server, even while a review is still running; a crash
                // leaves them to the next start, which removes them.
                uploads.remove_uploads();
                served?;
            }
        }
        None => runtime.block_on(toolwright_mcp::serve_stdio_with(server))?,
    }
    // Served and answered: threads still blocked (the stdin reader) need not hold up the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}
