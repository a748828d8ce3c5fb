//! The stdio transport: JSON-RPC lines on standard input and output. Nothing else may reach
//! stdout, so logs go to stderr (the `tracing` subscriber is the binary's business). A line
//! that is no valid message is answered with its JSON-RPC error, never dropped unsaid.

use rmcp::service::ServerInitializeError;
use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};
use toolwright::{Dispatcher, SkillContext};

use crate::{McpServer, ServeError};

/// Serves every active skill of `dispatcher` on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(dispatcher: Dispatcher, context: SkillContext) -> Result<(), ServeError> {
    serve_stdio_with(McpServer::new(dispatcher, context)?).await
}

/// Serves a configured server on stdin/stdout until the client closes stdin.
///
/// Standard input and output each get a thread of their own, fed through channels, rather
/// than Tokio's `stdin()`/`stdout()`, which hand every read and every write to the blocking
/// pool and back: two wake-ups each way per message (BENCHMARKS.md, "The shipped binary").
pub async fn serve_stdio_with(server: McpServer) -> Result<(), ServeError> {
    tracing::info!(tools = server.tool_count(), "serving MCP on stdio");
    let reader = ThreadReader::spawn(std::io::stdin(), "mcp-stdin").map_err(ServeError::Io)?;
    let (writer, written) =
        ThreadWriter::spawn(std::io::stdout(), "mcp-stdout").map_err(ServeError::Io)?;
    let served = serve_io(server, reader, writer).await;
    // The writer is dropped by now: its thread writes what is left, then ends.
    let flushed = written.await.unwrap_or_else(|_| {
        Err(std::io::Error::other(
            "the output thread ended without saying whether it wrote everything",
        ))
    });
    served?;
    flushed.map_err(ServeError::Io)
}

/// Chunks read by the reader thread waiting for the server (a few: the thread reads ahead
/// no further).
const READ_AHEAD: usize = 4;

/// Lines the server may hand the writer thread before it waits for the client to read.
const WRITE_BEHIND: usize = 64;

/// A byte stream read by a thread of its own, which blocks in `read` and hands each chunk
/// over a channel: one wake-up per chunk.
struct ThreadReader {
    chunks: tokio::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
}

impl ThreadReader {
    fn spawn(mut source: impl std::io::Read + Send + 'static, name: &str) -> std::io::Result<Self> {
        let (sender, chunks) = tokio::sync::mpsc::channel(READ_AHEAD);
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let mut buffer = vec![0u8; 64 << 10];
                loop {
                    let read = match source.read(&mut buffer) {
                        Ok(0) => return,
                        Ok(n) => Ok(buffer[..n].to_vec()),
                        Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(err) => Err(err),
                    };
                    let failed = read.is_err();
                    // The server stopped reading: nobody to hand it to.
                    if sender.blocking_send(read).is_err() || failed {
                        return;
                    }
                }
            })?;
        Ok(ThreadReader {
            chunks,
            chunk: Vec::new(),
            at: 0,
        })
    }
}

impl AsyncRead for ThreadReader {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        let this = &mut *self;
        while this.at == this.chunk.len() {
            match std::task::ready!(this.chunks.poll_recv(cx)) {
                Some(Ok(chunk)) => {
                    this.chunk = chunk;
                    this.at = 0;
                }
                Some(Err(err)) => return Poll::Ready(Err(err)),
                // The end of the input.
                None => return Poll::Ready(Ok(())),
            }
        }
        let n = buf.remaining().min(this.chunk.len() - this.at);
        buf.put_slice(&this.chunk[this.at..this.at + n]);
        this.at += n;
        Poll::Ready(Ok(()))
    }
}

/// A byte sink written by a thread of its own: a flush hands what was written to the
/// thread, which writes and flushes it (and whatever else is waiting) and takes the next.
/// At most [`WRITE_BEHIND`] flushes wait for it; when the thread cannot write (the client
/// left), the next write fails with its error. Once the writer is dropped, the thread writes
/// what is left and reports on the receiver `spawn` returned.
struct ThreadWriter {
    lines: tokio_util::sync::PollSender<Vec<u8>>,
    pending: Vec<u8>,
    failure: std::sync::Arc<std::sync::Mutex<Option<std::io::Error>>>,
}

impl ThreadWriter {
    fn spawn(
        mut sink: impl std::io::Write + Send + 'static,
        name: &str,
    ) -> std::io::Result<(Self, tokio::sync::oneshot::Receiver<std::io::Result<()>>)> {
        let (sender, mut lines) = tokio::sync::mpsc::channel::<Vec<u8>>(WRITE_BEHIND);
        let (done, written) = tokio::sync::oneshot::channel();
        let failure = std::sync::Arc::new(std::sync::Mutex::new(None));
        let failed = std::sync::Arc::clone(&failure);
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let mut write = || -> std::io::Result<()> {
                    while let Some(first) = lines.blocking_recv() {
                        sink.write_all(&first)?;
                        while let Ok(next) = lines.try_recv() {
                            sink.write_all(&next)?;
                        }
                        sink.flush()?;
                    }
                    Ok(())
                };
                let result = write();
                if let Err(err) = &result {
                    tracing::warn!(%err, "MCP output not written");
                    *failed.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some(std::io::Error::new(err.kind(), err.to_string()));
                }
                // Closed before the server hears of the end, so a line it sends after that
                // fails instead of being taken into a channel nobody reads.
                drop(lines);
                let _ = done.send(result);
            })?;
        let writer = ThreadWriter {
            lines: tokio_util::sync::PollSender::new(sender),
            pending: Vec::new(),
            failure,
        };
        Ok((writer, written))
    }

    /// The thread's write error, once it failed.
    fn failure(&self) -> std::io::Error {
        match &*self.failure.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(err) => std::io::Error::new(err.kind(), err.to_string()),
            None => std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the output thread ended"),
        }
    }
}

impl AsyncWrite for ThreadWriter {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if self.pending.len() >= 64 << 10 {
            std::task::ready!(self.as_mut().poll_flush(cx))?;
        }
        if self.lines.is_closed() {
            return std::task::Poll::Ready(Err(self.failure()));
        }
        self.pending.extend_from_slice(buf);
        std::task::Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        if self.pending.is_empty() {
            return Poll::Ready(Ok(()));
        }
        if std::task::ready!(self.lines.poll_reserve(cx)).is_err() {
            return Poll::Ready(Err(self.failure()));
        }
        let lines = std::mem::take(&mut self.pending);
        if self.lines.send_item(lines).is_err() {
            return Poll::Ready(Err(self.failure()));
        }
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::ready!(self.as_mut().poll_flush(cx))?;
        self.lines.close();
        std::task::Poll::Ready(Ok(()))
    }
}

/// Longest line read (rmcp's own limit): a longer one is answered -32600 and skipped.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Serves over any byte stream pair (a socket, a pipe, an in-memory duplex) until the
/// reader ends.
///
/// Every line is screened first: one that is no JSON is answered -32700, a batch or a
/// message that is no request object -32600, `tools/call` arguments that are not an object
/// -32602, each on a line of its own; the lines that pass go to rmcp.
pub async fn serve_io<R, W>(server: McpServer, reader: R, writer: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_rmcp, rmcp_in) = tokio::io::duplex(64 << 10);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(64 << 10);
    let (refusals, refused) = tokio::sync::mpsc::unbounded_channel::<String>();
    let in_flight = InFlight::default();
    let screen = tokio::spawn(screen_lines(reader, to_rmcp, refusals, in_flight.clone()));
    let merge = tokio::spawn(merge_lines(from_rmcp, refused, writer, in_flight));
    let rmcp_out = crate::pages::SpliceWriter::new(rmcp_out, server.inner.splicer.clone());
    let served = match server.with_pages().serve((rmcp_in, rmcp_out)).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|reason| tracing::info!(?reason, "MCP connection closed"))
            .map_err(|e| ServeError::Transport(e.to_string())),
        // A 2026 client needs no handshake: it may send its stateless requests and leave.
        Err(ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("MCP client left without a handshake");
            Ok(())
        }
        Err(err) => Err(ServeError::Transport(err.to_string())),
    };
    // rmcp's writer is dropped by now: the merger writes what is left and ends.
    screen.abort();
    let merged = merge
        .await
        .map_err(|e| ServeError::Transport(format!("the output task failed: {e}")))?;
    served?;
    merged.map_err(ServeError::Io)
}

/// The ids (as JSON text) of the client's requests not yet answered: a second request with
/// one of them is refused (-32600), as rmcp would answer only one of the two.
#[derive(Debug, Clone, Default)]
struct InFlight(std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Notes a request passing to rmcp; false when its id is already in flight.
    fn start(&self, message: &serde_json::Value) -> bool {
        if message.get("method").is_none() {
            return true;
        }
        if message.get("method").and_then(serde_json::Value::as_str)
            == Some("notifications/cancelled")
        {
            // A cancelled request gets no answer: its id is free again.
            if let Some(id) = message.pointer("/params/requestId") {
                self.lock().remove(&id.to_string());
            }
            return true;
        }
        match message.get("id") {
            None | Some(serde_json::Value::Null) => true,
            Some(id) => self.lock().insert(id.to_string()),
        }
    }

    /// Frees the id of an answer rmcp wrote (a line with an id and no method).
    fn answered(&self, line: &[u8]) {
        #[derive(serde::Deserialize)]
        struct Head {
            id: Option<serde_json::Value>,
            method: Option<serde::de::IgnoredAny>,
        }
        if self.lock().is_empty() {
            return;
        }
        if let Ok(Head {
            id: Some(id),
            method: None,
        }) = serde_json::from_slice::<Head>(line)
        {
            self.lock().remove(&id.to_string());
        }
    }
}

/// Reads lines from the client: those that pass [`crate::gate::screen`] go to rmcp, the
/// others are answered through `refusals`.
async fn screen_lines<R: AsyncRead + Unpin>(
    reader: R,
    mut to_rmcp: tokio::io::DuplexStream,
    refusals: tokio::sync::mpsc::UnboundedSender<String>,
    in_flight: InFlight,
) {
    use tokio::io::AsyncWriteExt;
    let mut reader = tokio::io::BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        let too_long = match read_line(&mut reader, &mut line, MAX_LINE_BYTES).await {
            Ok(None) => break,
            Ok(Some(too_long)) => too_long,
            Err(err) => {
                tracing::warn!(%err, "MCP input not read");
                break;
            }
        };
        let refusal = if too_long {
            Some(crate::gate::Refusal::line_too_long(MAX_LINE_BYTES))
        } else if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        } else {
            match crate::gate::screen(&line) {
                Ok(message) if !in_flight.start(&message) => Some(
                    crate::gate::Refusal::duplicate_id(message.get("id").unwrap_or_default()),
                ),
                Ok(_) => None,
                Err(why) => Some(why),
            }
        };
        if let Some(why) = refusal {
            tracing::info!(code = why.code, message = %why.message, "MCP line refused");
            if refusals.send(why.to_json().to_string()).is_err() {
                break;
            }
            continue;
        }
        line.push(b'\n');
        if to_rmcp.write_all(&line).await.is_err() {
            break;
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Reads one line (without its newline) into `line`; `None` at the end, `Some(true)` when
/// the line was longer than `max` (the rest of it is skipped).
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    use tokio::io::AsyncBufReadExt;
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(read_any.then_some(too_long));
        }
        read_any = true;
        let (chunk, found) = match memchr::memchr(b'\n', available) {
            Some(at) => (&available[..at], Some(at)),
            None => (available, None),
        };
        if !too_long && line.len() + chunk.len() <= max {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
        let used = found.map_or(available.len(), |at| at + 1);
        reader.consume(used);
        if found.is_some() {
            return Ok(Some(too_long));
        }
    }
}

/// Writes rmcp's lines and the refusals to the client, whole lines at a time, until rmcp's
/// output ends.
async fn merge_lines<W: AsyncWrite + Unpin>(
    from_rmcp: tokio::io::DuplexStream,
    mut refused: tokio::sync::mpsc::UnboundedReceiver<String>,
    mut writer: W,
    in_flight: InFlight,
) -> std::io::Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut from_rmcp = tokio::io::BufReader::new(from_rmcp);
    let mut line = Vec::new();
    let mut refusals_open = true;
    loop {
        tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line) => {
                if read? == 0 {
                    break;
                }
                in_flight.answered(&line);
                writer.write_all(&line).await?;
                line.clear();
                // Several answers ready at once go out in one flush.
                if from_rmcp.buffer().is_empty() {
                    writer.flush().await?;
                }
            }
            refusal = refused.recv(), if refusals_open => match refusal {
                Some(refusal) => {
                    writer.write_all(refusal.as_bytes()).await?;
                    writer.write_all(b"\n").await?;
                    writer.flush().await?;
                }
                None => refusals_open = false,
            },
        }
    }
    while let Ok(refusal) = refused.try_recv() {
        writer.write_all(refusal.as_bytes()).await?;
        writer.write_all(b"\n").await?;
    }
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::{read_line, ThreadReader, ThreadWriter};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A sink the test reads back, or one that fails every write.
    #[derive(Clone, Default)]
    struct Sink {
        bytes: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
        broken: bool,
    }

    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.broken {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            self.bytes.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn the_reader_thread_hands_over_every_byte_then_the_end() {
        let input: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let mut reader =
            ThreadReader::spawn(std::io::Cursor::new(input.clone()), "test-in").unwrap();
        let mut read = Vec::new();
        reader.read_to_end(&mut read).await.unwrap();
        assert_eq!(read, input);
    }

    #[tokio::test]
    async fn the_writer_thread_writes_in_order_and_everything_before_it_ends() {
        let sink = Sink::default();
        let (mut writer, written) = ThreadWriter::spawn(sink.clone(), "test-out").unwrap();
        let mut expected = Vec::new();
        for i in 0..1_000 {
            let line = format!("{{\"id\":{i}}}\n");
            writer.write_all(line.as_bytes()).await.unwrap();
            if i % 3 == 0 {
                writer.flush().await.unwrap();
            }
            expected.extend_from_slice(line.as_bytes());
        }
        writer.flush().await.unwrap();
        drop(writer);
        written.await.unwrap().unwrap();
        assert_eq!(*sink.bytes.lock().unwrap(), expected);
    }

    #[tokio::test]
    async fn a_failed_write_is_reported_to_the_server() {
        let sink = Sink {
            broken: true,
            ..Sink::default()
        };
        let (mut writer, written) = ThreadWriter::spawn(sink, "test-out").unwrap();
        writer.write_all(b"{}\n").await.unwrap();
        writer.flush().await.unwrap();
        let err = written.await.unwrap().unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
        // The thread has ended: the next line fails with its error instead of vanishing.
        let next = async {
            writer.write_all(b"{}\n").await?;
            writer.flush().await
        };
        assert_eq!(
            next.await.unwrap_err().kind(),
            std::io::ErrorKind::BrokenPipe
        );
    }

    #[tokio::test]
    async fn lines_over_the_limit_are_flagged_and_skipped_whole() {
        let input: &[u8] = b"abcdef\n{}\r\nlast";
        let mut reader = tokio::io::BufReader::with_capacity(2, input);
        let mut line = Vec::new();
        assert_eq!(
            read_line(&mut reader, &mut line, 4).await.unwrap(),
            Some(true)
        );
        assert!(line.is_empty());
        line.clear();
        assert_eq!(
            read_line(&mut reader, &mut line, 4).await.unwrap(),
            Some(false)
        );
        assert_eq!(line, b"{}\r");
        line.clear();
        assert_eq!(
            read_line(&mut reader, &mut line, 4).await.unwrap(),
            Some(false)
        );
        assert_eq!(line, b"last");
        line.clear();
        assert_eq!(read_line(&mut reader, &mut line, 4).await.unwrap(), None);
    }
}
