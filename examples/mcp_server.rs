//! The skill library as an MCP server, in a few lines.
//!
//! ```text
//! cargo run --example mcp_server                    # stdio: for a client that starts it
//! cargo run --example mcp_server -- 127.0.0.1:8765  # streamable HTTP at /mcp
//! ```
//!
//! Logs go to stderr: on stdio, stdout carries only the protocol.

use toolwright::{Dispatcher, SkillContext};

// Link the library so its `#[skill]`s register.
toolwright::link_skills!(clausewright_skills);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let dispatcher = Dispatcher::from_inventory()?;
    match std::env::args().nth(1) {
        None => toolwright_mcp::serve_stdio(dispatcher, SkillContext::new()).await?,
        Some(addr) => {
            let server = toolwright_mcp::McpServer::new(dispatcher, SkillContext::new())?;
            let options = toolwright_mcp::HttpOptions::default();
            let stop = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            toolwright_mcp::serve_http(addr.parse()?, server, options, stop).await?;
        }
    }
    Ok(())
}
