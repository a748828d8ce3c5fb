//! The stdio transport: JSON-RPC lines on standard input and output. Nothing else may reach
//! stdout, so logs go to stderr (the `tracing` subscriber is the binary's business).

use rmcp::service::ServerInitializeError;
use rmcp::ServiceExt;
use skill_core::{Dispatcher, SkillContext};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::{McpServer, ServeError};

/// Serves every active skill of `dispatcher` on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(dispatcher: Dispatcher, context: SkillContext) -> Result<(), ServeError> {
    serve_stdio_with(McpServer::new(dispatcher, context)?).await
}

/// Serves a configured server on stdin/stdout until the client closes stdin.
pub async fn serve_stdio_with(server: McpServer) -> Result<(), ServeError> {
    tracing::info!(tools = server.tool_count(), "serving MCP on stdio");
    serve_io(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves over any byte stream pair (a socket, a pipe, an in-memory duplex) until the
/// reader ends.
pub async fn serve_io<R, W>(server: McpServer, reader: R, writer: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let writer = crate::pages::SpliceWriter::new(writer, server.inner.splicer.clone());
    let running = match server.with_pages().serve((reader, writer)).await {
        Ok(running) => running,
        // A 2026 client needs no handshake: it may send its stateless requests and leave.
        Err(ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("MCP client left without a handshake");
            return Ok(());
        }
        Err(err) => return Err(ServeError::Transport(err.to_string())),
    };
    let reason = running
        .waiting()
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    tracing::info!(?reason, "MCP connection closed");
    Ok(())
}
