//! PostgreSQL and Redis for the tests that need them: where they are, whether they answer,
//! a fresh schema or key prefix per test, and a TCP relay a test can cut to make a server
//! vanish mid-run.
//!
//! A server that does not answer skips the test with a message on stderr, except when
//! `CI=true`, where it fails the test.

// Without the engine features only a part of this is used.
#![cfg_attr(not(all(feature = "postgres", feature = "redis")), allow(dead_code))]

use std::io::Write as _;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The PostgreSQL URL of the tests (`TOOLWRIGHT_TEST_POSTGRES_URL`, default
/// `postgres://root@127.0.0.1:5432/test`).
pub(crate) fn postgres_url() -> String {
    std::env::var("TOOLWRIGHT_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into())
}

/// The Redis URL of the tests (`TOOLWRIGHT_TEST_REDIS_URL`, default
/// `redis://127.0.0.1:6379`).
pub(crate) fn redis_url() -> String {
    std::env::var("TOOLWRIGHT_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// `host:port` of a URL such as `postgres://user@host:port/db`.
fn address_of(url: &str, default_port: u16) -> Option<SocketAddr> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let with_port = if host_port.contains(':') {
        host_port.to_string()
    } else {
        format!("{host_port}:{default_port}")
    };
    with_port.to_socket_addrs().ok()?.next()
}

/// Whether the server behind `url` accepts connections. When it does not: `None` after
/// printing why the test is skipped, or a panic under `CI=true`.
pub(crate) fn reachable(what: &str, url: &str, default_port: u16) -> Option<String> {
    let ok = address_of(url, default_port)
        .is_some_and(|addr| TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok());
    if ok {
        return Some(url.to_string());
    }
    let shown = toolwright_packs::redact_url(url);
    if in_ci() {
        panic!("{what} is not reachable at {shown}, and CI=true makes that a failure");
    }
    // Straight to stderr, past the harness's capture, so the skip is seen.
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {what} is not reachable at {shown} (start it, or set CI=true to fail instead of skipping)"
    );
    None
}

/// The PostgreSQL URL when the server answers (see [`reachable`]).
pub(crate) fn postgres() -> Option<String> {
    reachable("PostgreSQL", &postgres_url(), 5432)
}

/// The Redis URL when the server answers (see [`reachable`]).
pub(crate) fn redis() -> Option<String> {
    reachable("Redis", &redis_url(), 6379)
}

/// A name no other test, process or earlier run uses: `<base>_<pid>_<nanos>_<n>`.
pub(crate) fn unique(base: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
        % 1_000_000_000_000;
    format!(
        "{base}_{}_{nanos}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A PostgreSQL schema of one test, dropped (with everything in it) when this goes away.
#[cfg(feature = "postgres")]
pub(crate) struct TestSchema {
    pub(crate) url: String,
    pub(crate) name: String,
}

#[cfg(feature = "postgres")]
impl TestSchema {
    pub(crate) fn new(url: &str, base: &str) -> Self {
        Self {
            url: url.to_string(),
            name: unique(base),
        }
    }

    /// The store URL naming this schema.
    pub(crate) fn store_url(&self) -> String {
        format!("{}?schema={}", self.url, self.name)
    }
}

#[cfg(feature = "postgres")]
impl Drop for TestSchema {
    fn drop(&mut self) {
        let (url, name) = (self.url.clone(), self.name.clone());
        // Its own thread and runtime: drop may run inside or outside one.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                if let Ok((client, conn)) =
                    tokio_postgres::connect(&url, tokio_postgres::NoTls).await
                {
                    tokio::spawn(conn);
                    let _ = client
                        .batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                        .await;
                }
            });
        })
        .join();
    }
}

/// Redis keys of one test, deleted when this goes away.
#[cfg(feature = "redis")]
pub(crate) struct TestPrefix {
    pub(crate) url: String,
    pub(crate) prefix: String,
}

#[cfg(feature = "redis")]
impl TestPrefix {
    pub(crate) fn new(url: &str, base: &str) -> Self {
        Self {
            url: url.to_string(),
            prefix: format!("{}:", unique(base)),
        }
    }

    /// The store URL naming this prefix.
    pub(crate) fn store_url(&self) -> String {
        format!("{}?prefix={}", self.url, self.prefix)
    }

    /// The keys under the prefix.
    pub(crate) fn keys(&self) -> Vec<String> {
        let client = redis::Client::open(self.url.as_str()).unwrap();
        let mut conn = client.get_connection().unwrap();
        redis::cmd("KEYS")
            .arg(format!("{}*", self.prefix))
            .query(&mut conn)
            .unwrap()
    }
}

#[cfg(feature = "redis")]
impl Drop for TestPrefix {
    fn drop(&mut self) {
        let Ok(client) = redis::Client::open(self.url.as_str()) else {
            return;
        };
        let Ok(mut conn) = client.get_connection() else {
            return;
        };
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{}*", self.prefix))
            .query(&mut conn)
            .unwrap_or_default();
        if !keys.is_empty() {
            let _: Result<(), _> = redis::cmd("DEL").arg(keys).query(&mut conn);
        }
    }
}

/// A TCP relay in front of a server. [`Relay::cut`] closes every connection and refuses
/// new ones: to the client, the server is gone.
pub(crate) struct Relay {
    pub(crate) port: u16,
    accept: JoinHandle<()>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Relay {
    /// Starts relaying a local port to `target` (`host:port`).
    pub(crate) async fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let links: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let held = links.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let link = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                held.lock().unwrap().push(link);
            }
        });
        Self {
            port,
            accept,
            links,
        }
    }

    /// `url` with its host and port replaced by this relay's.
    pub(crate) fn url_for(&self, url: &str) -> String {
        let (scheme, rest) = url.split_once("://").unwrap();
        let authority = rest.split(['/', '?']).next().unwrap();
        let tail = &rest[authority.len()..];
        let userinfo = authority
            .rsplit_once('@')
            .map_or(String::new(), |(u, _)| format!("{u}@"));
        format!("{scheme}://{userinfo}127.0.0.1:{}{tail}", self.port)
    }

    /// Closes every relayed connection and stops accepting.
    pub(crate) fn cut(&self) {
        self.accept.abort();
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
    }
}

/// The socket address of a URL's server.
pub(crate) fn server_address(url: &str, default_port: u16) -> SocketAddr {
    address_of(url, default_port).unwrap()
}
