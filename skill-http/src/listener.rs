//! The one HTTP/1.1 listener both servers run on (`serve --http`'s MCP endpoint and console):
//! a cap on open connections, a time-out on reading a request's head and on silence while a
//! request is under way, and a bounded shutdown.
//!
//! Over the cap, the connection that has been idle longest (no request in progress: an open
//! socket that sent nothing, or a kept-alive one between requests) is closed to make room,
//! so idle sockets cannot lock clients out; when every connection is busy the new one is
//! answered `503` and closed at once. The accept loop never waits on a connection.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;
use tower::ServiceExt;

/// Limits of [`serve`]. The defaults suit a server on one machine under the usual limit of
/// 1,024 open files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Most connections open at once (at least 1). Over it the longest-idle connection is
    /// closed to make room; when none is idle the new one gets `503` and is closed.
    pub max_connections: usize,
    /// How long a request's head (request line and headers) may take to arrive, counted
    /// from when the connection opens or its previous answer was sent: a socket that says
    /// nothing, or a kept-alive one with no next request, is closed after it.
    pub header_timeout: Duration,
    /// Longest silence while a request is under way: a request body that stops arriving,
    /// or a client that stops reading its answer, closes the connection after it.
    pub idle_timeout: Duration,
    /// Longest time a request's body may take to arrive in full, counted from its head: a
    /// body trickling in a byte now and then, never silent for `idle_timeout`, closes the
    /// connection after it.
    pub body_timeout: Duration,
    /// How long shutdown waits for requests in progress before dropping their connections.
    pub shutdown_grace: Duration,
}

impl ConnectionLimits {
    /// Default [`max_connections`](Self::max_connections).
    pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
    /// Default [`header_timeout`](Self::header_timeout).
    pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    /// Default [`idle_timeout`](Self::idle_timeout).
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// Default [`body_timeout`](Self::body_timeout): a 50 MiB upload at 100 KB/s.
    pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(600);
    /// Default [`shutdown_grace`](Self::shutdown_grace).
    pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            header_timeout: Self::DEFAULT_HEADER_TIMEOUT,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            body_timeout: Self::DEFAULT_BODY_TIMEOUT,
            shutdown_grace: Self::DEFAULT_SHUTDOWN_GRACE,
        }
    }
}

/// The answer to a connection over the cap when every open one is busy.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 55\r\nRetry-After: 1\r\nConnection: close\r\n\r\nthe server has too many open connections; retry shortly";

/// Serves `app` on `listener` within `limits` until `shutdown` completes; then stops
/// accepting, lets requests in progress finish for up to
/// [`shutdown_grace`](ConnectionLimits::shutdown_grace) (kept-alive connections close after
/// their current answer) and drops the connections still open. Each request carries the
/// peer's address as [`ConnectInfo<SocketAddr>`].
pub async fn serve(
    listener: TcpListener,
    app: axum::Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let limits = ConnectionLimits {
        max_connections: limits.max_connections.max(1),
        ..limits
    };
    let open = Arc::new(Registry::default());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let mut next_id = 0u64;
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let (tcp, peer) = match accepted {
                    Ok(pair) => pair,
                    Err(err) => {
                        accept_failed(&err).await;
                        continue;
                    }
                };
                if open.len() >= limits.max_connections && !open.evict_idlest() {
                    tracing::warn!(%peer, max = limits.max_connections, "connection refused: every open connection is busy");
                    // A fresh socket's send buffer takes this at once; no waiting either way.
                    let _ = tcp.try_write(BUSY);
                    continue;
                }
                if let Err(err) = tcp.set_nodelay(true) {
                    tracing::debug!(%err, "TCP_NODELAY not set");
                }
                next_id += 1;
                let conn = open.add(next_id);
                tasks.spawn(connection(tcp, peer, app.clone(), limits, stop_rx.clone(), conn, Arc::clone(&open), next_id));
            }
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let busy = tasks.len();
    if busy > 0 {
        tracing::info!(
            connections = busy,
            grace = ?limits.shutdown_grace,
            "waiting for requests in progress"
        );
    }
    let deadline = tokio::time::sleep(limits.shutdown_grace);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            () = &mut deadline => {
                tracing::warn!(connections = tasks.len(), "shutdown grace period over: connections dropped");
                tasks.abort_all();
                while tasks.join_next().await.is_some() {}
                break;
            }
            next = tasks.join_next() => if next.is_none() { break },
        }
    }
    Ok(())
}

/// A failed `accept`: errors of one connection are skipped; running out of file
/// descriptors waits a moment for some to be released instead of spinning.
async fn accept_failed(err: &io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        err.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(%err, "accept failed; retrying in 100 ms");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// What the accept loop and the watchdog know of one open connection.
#[derive(Debug)]
struct Conn {
    /// Requests whose answer is not yet sent in full.
    in_flight: AtomicUsize,
    /// Request bodies still arriving.
    receiving: AtomicUsize,
    /// Milliseconds since `epoch` of the last byte read or written.
    last_io: AtomicU64,
    /// Milliseconds since `epoch` (+1) since which a write waits on the client; 0 if none.
    write_blocked: AtomicU64,
    /// Milliseconds since `epoch` (+1) when the body now arriving started; 0 if none.
    body_started: AtomicU64,
    /// Set when the connection was closed to make room.
    evicted: AtomicBool,
    wake: Notify,
    epoch: Instant,
}

impl Conn {
    fn new() -> Self {
        Self {
            in_flight: AtomicUsize::new(0),
            receiving: AtomicUsize::new(0),
            last_io: AtomicU64::new(0),
            write_blocked: AtomicU64::new(0),
            body_started: AtomicU64::new(0),
            evicted: AtomicBool::new(false),
            wake: Notify::new(),
            epoch: Instant::now(),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn touch(&self) {
        self.last_io.store(self.now(), Ordering::Relaxed);
    }

    /// Why the connection should be closed now, if it should: silence for `idle` while a
    /// request is under way, or a body arriving for longer than `body`.
    fn stalled(&self, idle: Duration, body: Duration) -> Option<&'static str> {
        let idle = u64::try_from(idle.as_millis()).unwrap_or(u64::MAX);
        let body = u64::try_from(body.as_millis()).unwrap_or(u64::MAX);
        let now = self.now();
        let started = self.body_started.load(Ordering::Relaxed);
        if started != 0
            && self.receiving.load(Ordering::Relaxed) > 0
            && now.saturating_sub(started - 1) > body
        {
            return Some("the request body took longer than the body time limit");
        }
        let blocked = self.write_blocked.load(Ordering::Relaxed);
        if blocked != 0 && now.saturating_sub(blocked - 1) > idle {
            return Some("the client stopped reading its answer");
        }
        if self.receiving.load(Ordering::Relaxed) > 0
            && now.saturating_sub(self.last_io.load(Ordering::Relaxed)) > idle
        {
            return Some("the request body stopped arriving");
        }
        None
    }
}

/// The open connections.
#[derive(Debug, Default)]
struct Registry {
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn len(&self) -> usize {
        self.lock().len()
    }

    fn add(&self, id: u64) -> Arc<Conn> {
        let conn = Arc::new(Conn::new());
        self.lock().insert(id, Arc::clone(&conn));
        conn
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Closes the connection idle longest (no request in progress) and forgets it; false
    /// when every connection is busy.
    fn evict_idlest(&self) -> bool {
        let mut conns = self.lock();
        let idlest = conns
            .iter()
            .filter(|(_, c)| {
                c.in_flight.load(Ordering::Relaxed) == 0 && !c.evicted.load(Ordering::Relaxed)
            })
            .min_by_key(|(id, c)| {
                (
                    c.epoch
                        .checked_add(Duration::from_millis(c.last_io.load(Ordering::Relaxed)))
                        .unwrap_or(c.epoch),
                    **id,
                )
            })
            .map(|(id, _)| *id);
        let Some(id) = idlest else {
            return false;
        };
        if let Some(conn) = conns.remove(&id) {
            conn.evicted.store(true, Ordering::Relaxed);
            conn.wake.notify_one();
        }
        true
    }
}

/// Serves one connection until it ends, stalls, is evicted or the grace period is over.
#[allow(clippy::too_many_arguments)]
async fn connection(
    tcp: TcpStream,
    peer: SocketAddr,
    app: axum::Router,
    limits: ConnectionLimits,
    mut stop: watch::Receiver<bool>,
    conn: Arc<Conn>,
    open: Arc<Registry>,
    id: u64,
) {
    conn.touch();
    let io = TokioIo::new(WatchedIo {
        inner: tcp,
        conn: Arc::clone(&conn),
    });
    let service_conn = Arc::clone(&conn);
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let conn = Arc::clone(&service_conn);
        let app = app.clone();
        async move {
            conn.in_flight.fetch_add(1, Ordering::Relaxed);
            let mut request = request.map(|body| Body::new(CountedBody::arriving(body, &conn)));
            request.extensions_mut().insert(ConnectInfo(peer));
            let response = match app.oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok::<_, std::convert::Infallible>(
                response.map(|body| Body::new(CountedBody::answering(body, conn))),
            )
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let served = builder.serve_connection(io, service);
    tokio::pin!(served);
    let check_every = (limits.idle_timeout.min(limits.body_timeout) / 4)
        .clamp(Duration::from_millis(50), Duration::from_secs(1));
    let mut watchdog = tokio::time::interval(check_every);
    let mut stopping = *stop.borrow();
    if stopping {
        served.as_mut().graceful_shutdown();
    }
    loop {
        tokio::select! {
            result = served.as_mut() => {
                if let Err(err) = result {
                    tracing::debug!(%peer, %err, "connection ended");
                }
                break;
            }
            changed = stop.changed(), if !stopping => {
                stopping = true;
                if changed.is_ok() {
                    served.as_mut().graceful_shutdown();
                }
            }
            () = conn.wake.notified() => {
                tracing::debug!(%peer, "idle connection closed to make room");
                break;
            }
            _ = watchdog.tick() => {
                if let Some(why) = conn.stalled(limits.idle_timeout, limits.body_timeout) {
                    tracing::info!(%peer, why, idle = ?limits.idle_timeout, body = ?limits.body_timeout, "connection closed");
                    break;
                }
            }
        }
    }
    open.remove(id);
}

/// The socket, noting when bytes move and when a write waits on the client.
struct WatchedIo {
    inner: TcpStream,
    conn: Arc<Conn>,
}

impl AsyncRead for WatchedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.conn.touch();
        }
        polled
    }
}

impl AsyncWrite for WatchedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.note_write(polled.is_pending());
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.note_write(polled.is_pending());
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl WatchedIo {
    fn note_write(&self, pending: bool) {
        if pending {
            let since = self.conn.now() + 1;
            let _ = self.conn.write_blocked.compare_exchange(
                0,
                since,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        } else {
            self.conn.write_blocked.store(0, Ordering::Relaxed);
            self.conn.touch();
        }
    }
}

/// What a counted body is counted as on its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counted {
    /// A request body, arriving until its end (or until the handler drops it).
    Arriving,
    /// An answer, in progress until it is sent in full (or dropped).
    Answering,
}

/// A body counted on its connection until it ends or is dropped: the request bodies
/// arriving and the answers being sent.
struct CountedBody<B> {
    inner: B,
    conn: Option<Arc<Conn>>,
    counted: Counted,
}

impl CountedBody<Incoming> {
    fn arriving(inner: Incoming, conn: &Arc<Conn>) -> Self {
        let conn = if hyper::body::Body::is_end_stream(&inner) {
            None
        } else {
            conn.receiving.fetch_add(1, Ordering::Relaxed);
            // The silence and the body's time are counted from the head, not from the
            // connection's last answer.
            conn.touch();
            conn.body_started.store(conn.now() + 1, Ordering::Relaxed);
            Some(Arc::clone(conn))
        };
        Self {
            inner,
            conn,
            counted: Counted::Arriving,
        }
    }
}

impl CountedBody<Body> {
    /// `inner`, already counted in the connection's `in_flight`.
    fn answering(inner: Body, conn: Arc<Conn>) -> Self {
        Self {
            inner,
            conn: Some(conn),
            counted: Counted::Answering,
        }
    }
}

impl<B> CountedBody<B> {
    fn finish(&mut self) {
        let Some(conn) = self.conn.take() else {
            return;
        };
        match self.counted {
            Counted::Arriving => {
                if conn.receiving.fetch_sub(1, Ordering::Relaxed) == 1 {
                    conn.body_started.store(0, Ordering::Relaxed);
                }
            }
            Counted::Answering => {
                conn.in_flight.fetch_sub(1, Ordering::Relaxed);
                conn.touch();
            }
        }
    }
}

impl<B> Drop for CountedBody<B> {
    fn drop(&mut self) {
        self.finish();
    }
}

impl<B: hyper::body::Body + Unpin> hyper::body::Body for CountedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        let ended = match &polled {
            Poll::Ready(None | Some(Err(_))) => true,
            // A request body ends with its last frame: the handler need not poll again.
            Poll::Ready(Some(Ok(_))) => {
                self.counted == Counted::Arriving && hyper::body::Body::is_end_stream(&self.inner)
            }
            Poll::Pending => false,
        };
        if ended {
            self.finish();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        hyper::body::Body::is_end_stream(&self.inner)
    }

    fn size_hint(&self) -> SizeHint {
        hyper::body::Body::size_hint(&self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eviction_takes_the_idlest_connection_not_a_busy_one() {
        let open = Registry::default();
        let busy = open.add(1);
        busy.in_flight.store(1, Ordering::Relaxed);
        let idle = open.add(2);
        let later = open.add(3);
        later.last_io.store(10_000, Ordering::Relaxed);
        assert!(open.evict_idlest());
        assert!(idle.evicted.load(Ordering::Relaxed));
        assert!(!later.evicted.load(Ordering::Relaxed));
        assert_eq!(open.len(), 2);
        assert!(open.evict_idlest());
        assert!(later.evicted.load(Ordering::Relaxed));
        assert!(!open.evict_idlest(), "the busy connection is never evicted");
        assert_eq!(open.len(), 1);
    }

    #[test]
    fn a_stall_is_silence_while_a_request_is_under_way() {
        let conn = Conn::new();
        let idle = Duration::from_millis(0);
        let hour = Duration::from_secs(3600);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(conn.stalled(idle, hour), None, "no request: not a stall");
        conn.receiving.store(1, Ordering::Relaxed);
        assert_eq!(
            conn.stalled(idle, hour),
            Some("the request body stopped arriving")
        );
        conn.receiving.store(0, Ordering::Relaxed);
        conn.write_blocked.store(1, Ordering::Relaxed);
        assert_eq!(
            conn.stalled(idle, hour),
            Some("the client stopped reading its answer")
        );
        assert_eq!(conn.stalled(hour, hour), None);
    }

    #[test]
    fn a_body_arriving_for_longer_than_the_body_limit_is_a_stall_however_it_trickles() {
        let conn = Conn::new();
        let hour = Duration::from_secs(3600);
        conn.receiving.store(1, Ordering::Relaxed);
        conn.body_started.store(1, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(20));
        conn.touch();
        assert_eq!(
            conn.stalled(hour, Duration::from_millis(5)),
            Some("the request body took longer than the body time limit")
        );
        assert_eq!(conn.stalled(hour, hour), None, "within both limits");
        conn.receiving.store(0, Ordering::Relaxed);
        assert_eq!(
            conn.stalled(hour, Duration::from_millis(5)),
            None,
            "no body arriving"
        );
    }
}
