//! Quota counters in Redis (feature `redis`), for gateways on several machines.
//!
//! One counter per user, limit key and fixed window, `<prefix>q:{<user>}:<key>:<window
//! start>`, expiring a minute after its window ends (so old windows purge themselves). A check runs
//! one Lua script: it reads every counter the call must fit in, and only when all have room
//! increments them all, so a refused call is counted nowhere and concurrent checks from any
//! number of processes are exact. The user is the key's hash tag, so on a cluster all of a
//! user's counters of one call live on one slot.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::Script;

use super::{QuotaDecision, QuotaRequest, QuotaStore, StoreError, DEFAULT_PREFIX};
use crate::rate::Window;

/// Checks every counter (`KEYS[i]` may reach `ARGV[2i-1]`), then increments them all and
/// sets a new counter to expire after `ARGV[2i]` seconds (a minute past its window's end). Returns the count of
/// the first counter after the increment, or `-i` when counter `i` is full.
const ACQUIRE: &str = r"
for i, key in ipairs(KEYS) do
  local max = tonumber(ARGV[2 * i - 1])
  local used = tonumber(redis.call('GET', key) or '0')
  if used >= max then
    return -i
  end
end
local first = 0
for i, key in ipairs(KEYS) do
  local used = redis.call('INCR', key)
  if used == 1 then
    redis.call('EXPIRE', key, tonumber(ARGV[2 * i]))
  end
  if i == 1 then
    first = used
  end
end
return first
";

/// How long to wait for Redis before a call is refused.
const TIMEOUT: Duration = Duration::from_secs(2);

impl From<redis::RedisError> for StoreError {
    fn from(err: redis::RedisError) -> Self {
        Self {
            message: format!("redis: {err}"),
            source: Some(Box::new(err)),
        }
    }
}

/// Quota counters in Redis. Cheap to clone (clones share one multiplexed connection, which
/// reconnects by itself after a failure).
#[derive(Clone)]
pub struct RedisQuotaStore {
    conn: ConnectionManager,
    prefix: String,
    url: String,
    script: std::sync::Arc<Script>,
}

impl std::fmt::Debug for RedisQuotaStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisQuotaStore")
            .field("url", &self.url)
            .field("prefix", &self.prefix)
            .finish()
    }
}

impl RedisQuotaStore {
    /// Connects to `url` (`redis://[:password@]host:port[/db]`) with keys under `toolwright:`.
    ///
    /// A server that does not answer within 2 s is an error naming the URL (password
    /// hidden).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with_prefix(url, DEFAULT_PREFIX).await
    }

    /// Like [`RedisQuotaStore::connect`], with every key under `prefix`: several
    /// deployments, or tests, can share one server.
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> Result<Self, StoreError> {
        let shown = super::redact_url(url);
        let client = redis::Client::open(url).map_err(|e| {
            StoreError::not_a_url(&shown, "Redis", e, "redis://[:password@]host:port[/db]")
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(TIMEOUT)
            .set_response_timeout(TIMEOUT)
            .set_number_of_retries(1);
        let conn = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|e| {
                StoreError::cannot_open("Redis", &shown, StoreError::new(e.to_string()))
            })?;
        Ok(Self {
            conn,
            prefix: prefix.to_string(),
            url: shown,
            script: std::sync::Arc::new(Script::new(ACQUIRE)),
        })
    }

    /// The URL the store was opened on, password hidden.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The key of one counter.
    pub fn counter_key(&self, user: &str, key: &str, window: Window, now: DateTime<Utc>) -> String {
        format!(
            "{}q:{{{user}}}:{key}:{}:{}",
            self.prefix,
            window.as_str(),
            window.start_of(now)
        )
    }

    async fn run(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let mut invocation = self.script.prepare_invoke();
        for r in requests {
            // Relative to the gateway's clock, not Redis's; a minute past the window's end
            // for gateways whose clocks are a little apart.
            let ttl = r.window.start_of(now) + r.window.seconds() + 60 - now.timestamp();
            invocation
                .key(self.counter_key(user, r.key, r.window, now))
                .arg(r.max)
                .arg(ttl);
        }
        let mut conn = self.conn.clone();
        Ok(invocation.invoke_async(&mut conn).await?)
    }
}

#[async_trait]
impl QuotaStore for RedisQuotaStore {
    async fn try_acquire(
        &self,
        user: &str,
        tool: &str,
        max: u32,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<QuotaDecision, StoreError> {
        let request = QuotaRequest {
            key: tool,
            max,
            window,
        };
        let answer = self.run(user, &[request], now).await?;
        Ok(QuotaDecision::of((answer > 0).then_some(answer as u32)))
    }

    async fn try_acquire_all(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
    ) -> Result<Option<usize>, StoreError> {
        if requests.is_empty() {
            return Ok(None);
        }
        let answer = self.run(user, requests, now).await?;
        Ok((answer <= 0).then(|| (-answer).max(1) as usize - 1))
    }

    async fn used(
        &self,
        user: &str,
        tool: &str,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        let mut conn = self.conn.clone();
        let used: Option<u32> = redis::cmd("GET")
            .arg(self.counter_key(user, tool, window, now))
            .query_async(&mut conn)
            .await?;
        Ok(used.unwrap_or(0))
    }
}
