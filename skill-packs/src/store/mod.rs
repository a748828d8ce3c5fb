//! Where the gateway keeps what must outlive a process and be shared between instances:
//! subscriptions, quota counters, the audit log and each pack's state.
//!
//! Each is a trait so a multi-instance deployment can put them in PostgreSQL or Redis:
//! [`SqliteStore`] implements all four on one SQLite file (the embedded default),
//! `PgStore` (feature `postgres`) all four in PostgreSQL, `RedisQuotaStore` (feature
//! `redis`) the quota counters in Redis. [`Stores::connect`] picks them by URL.
//!
//! The same SQLite and PostgreSQL stores also keep the calls parked for a person's
//! consent (`toolwright`'s [`ConfirmationStore`], which `SharedConfirmations` reads), so a
//! call parked on one server is decided on another, and count a quota unit and append its
//! audit record in one transaction ([`AuditedQuotaStore`]).

mod parked;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "redis")]
mod redis;
mod runs;
mod sqlite;
mod url;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rate::Window;
pub(crate) use toolwright::{
    ConfirmationStore, ConfirmationStoreError, StoredConfirmation, TakenConfirmation,
    SHARED_CONFIRMATION_PREFIX,
};

#[cfg(feature = "postgres")]
pub use postgres::PgStore;
#[cfg(feature = "redis")]
pub use redis::RedisQuotaStore;
pub use sqlite::SqliteStore;
#[cfg(feature = "postgres")]
pub(crate) use url::take_param;
pub use url::{redact_url, Stores};

/// A storage failure.
#[derive(Debug, thiserror::Error)]
#[error("pack storage failed: {message}")]
pub struct StoreError {
    /// What went wrong.
    pub message: String,
    /// The underlying error.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl StoreError {
    /// An error with a message only.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }
}

impl StoreError {
    /// `shown` (a URL, password hidden) is not a URL of `engine`, which looks like `expected`.
    #[cfg(any(feature = "postgres", feature = "redis"))]
    pub(crate) fn not_a_url(
        shown: &str,
        engine: &str,
        err: impl std::fmt::Display,
        expected: &str,
    ) -> Self {
        Self::new(format!(
            "{shown} is not a {engine} URL: {err}; expected {expected}"
        ))
    }

    /// The `engine` store at `shown` could not be opened because of `err`.
    pub(crate) fn cannot_open(engine: &str, shown: &str, err: StoreError) -> Self {
        Self {
            message: format!("cannot open the {engine} store at {shown}: {}", err.message),
            source: err.source,
        }
    }
}

/// The schema a PostgreSQL store keeps its tables in unless its URL names one.
pub(crate) const DEFAULT_SCHEMA: &str = "public";

/// What a Redis store's keys start with unless its URL names a prefix.
pub(crate) const DEFAULT_PREFIX: &str = "toolwright:";

impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> Self {
        Self {
            message: err.to_string(),
            source: Some(Box::new(err)),
        }
    }
}

/// Whether a subscription ending at `until` (`None`: it has no end) holds at `now`.
pub(crate) fn subscription_holds(until: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
    until.is_none_or(|until| until > now)
}

/// Which users subscribe to which packs.
#[async_trait]
pub trait SubscriptionStore: Send + Sync {
    /// Whether `user` has an active subscription to `pack` at `now`.
    async fn is_subscribed(
        &self,
        user: &str,
        pack: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// Subscribes `user` to `pack` until `until` (`None`: no end).
    async fn subscribe(
        &self,
        user: &str,
        pack: &str,
        until: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError>;
    /// Ends the subscription.
    async fn unsubscribe(&self, user: &str, pack: &str) -> Result<(), StoreError>;
}

/// The answer of a quota check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaDecision {
    /// The call is admitted; `used` calls (this one included) in the window so far.
    Admitted {
        /// Calls counted in the window.
        used: u32,
    },
    /// The window is full.
    Exhausted,
}

impl QuotaDecision {
    /// The decision on a counter that admitted the call with `used` calls counted, or was
    /// full (`None`).
    pub(crate) fn of(used: Option<u32>) -> Self {
        match used {
            Some(used) => Self::Admitted { used },
            None => Self::Exhausted,
        }
    }
}

/// One limit a call must fit in: the counter `key` (a tool id, or `<pack>.*` for a
/// pack-wide limit) may reach `max` per `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaRequest<'a> {
    /// The counter: a tool id, or `<pack>.*` for a limit on the whole pack.
    pub key: &'a str,
    /// Calls admitted per window.
    pub max: u32,
    /// The window.
    pub window: Window,
}

/// Counts calls per user, tool and window.
#[async_trait]
pub trait QuotaStore: Send + Sync {
    /// Admits one call if every limit in `requests` has room, counting it in each; returns
    /// `None` when admitted, or the index of the first exhausted limit.
    ///
    /// The default runs [`try_acquire`](QuotaStore::try_acquire) limit by limit, so a call
    /// refused by a later limit stays counted in the earlier ones; the stores of this crate
    /// (SQLite, PostgreSQL, Redis) override it to check all limits in one atomic step, so
    /// that nothing is counted for a refused call.
    async fn try_acquire_all(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
    ) -> Result<Option<usize>, StoreError> {
        for (i, r) in requests.iter().enumerate() {
            if self.try_acquire(user, r.key, r.max, r.window, now).await?
                == QuotaDecision::Exhausted
            {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// Atomically admits one call if fewer than `max` were admitted in the window that holds
    /// `now`, counting it. Must hold under concurrency, across processes sharing the store.
    async fn try_acquire(
        &self,
        user: &str,
        tool: &str,
        max: u32,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<QuotaDecision, StoreError>;
    /// Calls counted in the window that holds `now`.
    async fn used(
        &self,
        user: &str,
        tool: &str,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError>;
}

/// One cross-pack call, as the audit log keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// The calling pack.
    pub consumer: String,
    /// The pack owning the tool (empty when the tool is unknown).
    pub provider: String,
    /// The tool id, or the name asked for when unknown.
    pub tool: String,
    /// The user on whose behalf the call ran.
    pub user: String,
    /// When the call started.
    pub at: DateTime<Utc>,
    /// `ok`, or the error code (`subscription_required`, `rate_limited`, `panic`, ...).
    pub outcome: String,
    /// The error message, when the call failed.
    pub message: Option<String>,
    /// Wall time in milliseconds.
    pub duration_ms: f64,
    /// Set on a record read back from a store whose row could not be read in full (a time
    /// that is not RFC 3339, a number stored as text, a missing value): what was wrong, column
    /// by column. The row is still returned, so one damaged row does not hide the others; its
    /// unreadable fields are left empty (text), 0 (numbers) or the Unix epoch (`at`), and mean
    /// nothing. `None` on every record written by the gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

/// Which records to read back.
#[derive(Debug, Clone, Default)]
pub struct AuditQuery {
    /// Only calls by this pack.
    pub consumer: Option<String>,
    /// Only calls of tools of this pack.
    pub provider: Option<String>,
    /// Only calls for this user.
    pub user: Option<String>,
    /// At most this many, newest first (all when `None`).
    pub limit: Option<usize>,
}

/// Append-only log of cross-pack calls.
#[async_trait]
pub trait AuditLog: Send + Sync {
    /// Appends a record.
    async fn record(&self, record: &AuditRecord) -> Result<(), StoreError>;
    /// Reads records matching `query`, newest first.
    async fn query(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError>;

    /// Appends the record of a call that is about to run, with the outcome
    /// [`STARTED_OUTCOME`], and returns its id for [`finish`](AuditLog::finish); the gateway
    /// writes it before counting the call's quota in a store that cannot do both in one
    /// transaction. The default appends nothing and returns `None`: the record is then
    /// written whole when the call ends.
    async fn start(&self, record: &AuditRecord) -> Result<Option<AuditId>, StoreError> {
        let _ = record;
        Ok(None)
    }

    /// Records how a call ended: the outcome of the started record `id`, or `record` whole
    /// when there is none. Records stay append-only: an outcome is a row of its own, read
    /// back with its record.
    async fn finish(&self, id: Option<AuditId>, record: &AuditRecord) -> Result<(), StoreError> {
        let _ = id;
        self.record(record).await
    }
}

/// Per-user state of packs, under dotted paths (`skills.<pack>.<key>`).
///
/// The gateway's [`crate::PackSession`] keeps each pack inside its own namespace; this trait
/// itself does not.
#[async_trait]
pub trait StateStore: Send + Sync {
    /// Writes `value` at `path` for `user`.
    async fn save(&self, user: &str, path: &str, value: &Value) -> Result<(), StoreError>;
    /// Reads the value at `path` for `user`.
    async fn read(&self, user: &str, path: &str) -> Result<Option<Value>, StoreError>;
}

/// The audit row of a call that started: appended before the call runs, its outcome
/// appended when it ends ([`AuditLog::start`], [`AuditLog::finish`]).
pub type AuditId = i64;

/// The outcome an audit record keeps while its call runs; a record still showing it after
/// the call's process ended means the process ended (killed, crashed) before the call did.
pub const STARTED_OUTCOME: &str = "started";

/// Quota counters and the audit log in one database: a call's quota unit and its audit
/// record are written in one transaction, so no process ending at any point leaves a
/// counted call without its record (or a record without its count).
#[async_trait]
pub trait AuditedQuotaStore: Send + Sync {
    /// In one transaction: admits the call if every limit in `requests` has room, counting
    /// it in each, and appends `record` with the outcome [`STARTED_OUTCOME`]. Returns the
    /// record's id when admitted, or the index of the first exhausted limit (nothing is then
    /// written).
    async fn admit_and_audit(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
        record: &AuditRecord,
    ) -> Result<Result<AuditId, usize>, StoreError>;
}

impl From<StoreError> for ConfirmationStoreError {
    fn from(err: StoreError) -> Self {
        let message = err.to_string();
        Self {
            message,
            source: err.source,
        }
    }
}
