//! Why a server could not be built or could not serve.

use std::net::SocketAddr;

/// A failure to build or run an MCP server. Failures of single requests are answered on the
/// protocol and never end up here.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The runtime could not render the MCP tool list.
    #[error("the MCP tool list cannot be rendered: {0}")]
    Dialect(#[from] toolwright::DialectError),
    /// One rendered tool does not fit rmcp's tool type.
    #[error("tool `{tool}` cannot be served over MCP: {reason}")]
    Render {
        /// The tool's wire name.
        tool: String,
        /// Why.
        reason: String,
    },
    /// A skill cannot be served (a name outside the Agent Skills rules, a bad file path).
    #[error("skill `{skill}` cannot be served over MCP: {reason}")]
    Skill {
        /// The skill's name.
        skill: String,
        /// Why.
        reason: String,
    },
    /// The HTTP address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The configuration is refused (for example a non-loopback address without a token).
    #[error("{0}")]
    Config(String),
    /// Reading or writing the transport failed.
    #[error("MCP transport failed: {0}")]
    Transport(String),
    /// Other input/output failure.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
