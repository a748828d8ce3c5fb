//! `skillkit serve`: the skills as a Model Context Protocol server, on stdio or HTTP.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use skill_core::{Dispatcher, SkillContext};
use skill_mcp::{HttpOptions, McpServer};

use super::call::contract_context;
use super::review::ContractOptions;
use super::{CliError, FilterArgs};

/// Options of `skillkit serve`.
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
    /// database: $SKILLKIT_PACKS_DB, else skillkit-packs.db here).
    #[arg(long, value_name = "NAME")]
    pack: Option<String>,
    /// The user pack calls run for (subscriptions and rate limits are per user).
    #[arg(long, value_name = "NAME", default_value = "local", requires = "pack")]
    pack_user: String,
    /// Bearer token HTTP clients must send (default: the SKILLKIT_TOKEN environment variable).
    #[arg(long)]
    token: Option<String>,
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
            .filter(|d| matches!(d.as_str(), "fidic" | "sha_spa")),
        checklist: None,
        criteria: None,
        baseline: None,
        references: Vec::new(),
        our_party: String::new(),
        language: "en".into(),
    };
    contract_context(args.contract.as_deref(), args.clause.as_deref(), &options)
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

/// Serves until the client goes away (stdio) or the process is told to stop (HTTP).
pub fn run(dispatcher: &Dispatcher, args: &ServeArgs) -> Result<ExitCode, CliError> {
    let mut builder = McpServer::builder(dispatcher.clone())
        .context(context(args)?)
        .filter(args.filter.to_filter())
        .server_info("skillkit", env!("CARGO_PKG_VERSION"));
    if let Some(pack) = &args.pack {
        let linked = skill_packs::linked_packs();
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
        let gateway = skill_packs::Gateway::builder(dispatcher.clone())
            .linked_packs()
            .build()
            .map_err(|e| CliError::Usage(format!("--pack {pack}: {e}")))?;
        builder = builder.pack(gateway, pack.clone(), args.pack_user.clone());
    }
    let server = builder.build()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    match args.http {
        Some(addr) => {
            let options = HttpOptions {
                token: args
                    .token
                    .clone()
                    .or_else(|| std::env::var("SKILLKIT_TOKEN").ok())
                    .filter(|t| !t.is_empty()),
                ..HttpOptions::default()
            };
            skill_mcp::http::check_exposure(addr, &options)?;
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind(addr))
                .map_err(|source| skill_mcp::ServeError::Bind { addr, source })?;
            // The bound address (a port of 0 is chosen now), for people and scripts alike.
            eprintln!(
                "serving {} tools over MCP at http://{}/mcp{}; Ctrl-C stops",
                server.tool_count(),
                listener.local_addr()?,
                if options.token.is_some() {
                    " (bearer token required)"
                } else {
                    ""
                }
            );
            runtime.block_on(skill_mcp::serve_listener(
                listener,
                server,
                options,
                shutdown_signal(),
            ))?;
        }
        None => runtime.block_on(skill_mcp::serve_stdio_with(server))?,
    }
    // Served and answered: threads still blocked (the stdin reader) need not hold up the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}
