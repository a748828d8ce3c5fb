// Over 700 lines, kept whole: one store implementing the four store traits over one
// connection, in the order of the PostgreSQL store so the two read side by side.

//! All four stores on one SQLite file (WAL, busy timeout), so several gateway instances on
//! one machine share subscriptions, quotas, the audit log and state.
//!
//! rusqlite is blocking: each store owns one connection behind a mutex and runs every
//! statement on tokio's blocking pool. Quota checks run in `BEGIN IMMEDIATE` transactions,
//! which SQLite serialises across connections and processes.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde_json::Value;

use super::parked::{confirmation_store, shared_id, ParkedCalls};
use super::{
    subscription_holds, AuditId, AuditLog, AuditQuery, AuditRecord, AuditedQuotaStore,
    QuotaDecision, QuotaRequest, QuotaStore, StateStore, StoreError, StoredConfirmation,
    SubscriptionStore, STARTED_OUTCOME,
};
use crate::rate::Window;

mod runs;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS pack_subscriptions (
    user_id  TEXT NOT NULL,
    pack     TEXT NOT NULL,
    until_ms INTEGER,
    PRIMARY KEY (user_id, pack)
);
CREATE TABLE IF NOT EXISTS pack_quota (
    user_id      TEXT NOT NULL,
    tool         TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    used         INTEGER NOT NULL,
    PRIMARY KEY (user_id, tool, window_start)
);
CREATE TABLE IF NOT EXISTS pack_audit (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    consumer    TEXT NOT NULL,
    provider    TEXT NOT NULL,
    tool        TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    at          TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    message     TEXT,
    duration_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS pack_audit_user ON pack_audit (user_id);
-- The outcome of a record written when its call started (one row per record, appended
-- when the call ends): the audit log stays append-only.
CREATE TABLE IF NOT EXISTS pack_audit_outcome (
    audit_id    INTEGER PRIMARY KEY, -- the id of its row in pack_audit
    outcome     TEXT NOT NULL,
    message     TEXT,
    duration_ms REAL NOT NULL
);
-- Calls parked for a person's consent, shared by the servers on this file.
CREATE TABLE IF NOT EXISTS pending_confirmations (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    skill_id   TEXT NOT NULL,
    arguments  TEXT NOT NULL,
    summary    TEXT NOT NULL,
    from_state INTEGER NOT NULL,
    parked_ms  INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS pending_confirmations_expires ON pending_confirmations (expires_ms);
CREATE TABLE IF NOT EXISTS pack_state (
    user_id TEXT NOT NULL,
    path    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (user_id, path)
);
";

/// Subscriptions, quotas, audit log and pack state in one SQLite database.
///
/// Cheap to clone (clones share the connection). Open the same file from several stores or
/// processes to share the data; each holds its own connection.
#[derive(Clone)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    path: Option<PathBuf>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, in WAL mode with a 5 s busy
    /// timeout so concurrent writers wait instead of failing.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        let conn = Connection::open(path)?;
        Self::init(conn, Some(path.to_path_buf()))
    }

    /// A private in-memory database (tests, single-process tools).
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::init(Connection::open_in_memory()?, None)
    }

    /// The database file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn init(conn: Connection, path: Option<PathBuf>) -> Result<Self, StoreError> {
        conn.busy_timeout(Duration::from_secs(5))?;
        if path.is_some() {
            let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::new(format!(
                    "could not switch the database to WAL mode (it reports `{mode}`)"
                )));
            }
            conn.pragma_update(None, "synchronous", "NORMAL")?;
        }
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch(runs::SCHEMA)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            path,
        })
    }

    /// Runs `f` with the connection on the blocking pool.
    async fn with_conn<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        let run = move || {
            let mut guard = conn.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut guard)
        };
        match tokio::runtime::Handle::try_current() {
            Ok(_) => tokio::task::spawn_blocking(run)
                .await
                .map_err(|e| StoreError::new(format!("storage task failed: {e}")))?,
            Err(_) => run(),
        }
    }
}

#[async_trait]
impl SubscriptionStore for SqliteStore {
    async fn is_subscribed(
        &self,
        user: &str,
        pack: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let (user, pack) = (user.to_owned(), pack.to_owned());
        self.with_conn(move |conn| {
            let until: Option<Option<i64>> = conn
                .query_row(
                    "SELECT until_ms FROM pack_subscriptions WHERE user_id = ?1 AND pack = ?2",
                    params![user, pack],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(until.is_some_and(|until| subscription_holds(until.map(millis_to_time), now)))
        })
        .await
    }

    async fn subscribe(
        &self,
        user: &str,
        pack: &str,
        until: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        let (user, pack) = (user.to_owned(), pack.to_owned());
        let until = until.map(|t| t.timestamp_millis());
        self.with_conn(move |conn| {
            conn.execute(
                "INSERT INTO pack_subscriptions (user_id, pack, until_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (user_id, pack) DO UPDATE SET until_ms = excluded.until_ms",
                params![user, pack, until],
            )?;
            Ok(())
        })
        .await
    }

    async fn unsubscribe(&self, user: &str, pack: &str) -> Result<(), StoreError> {
        let (user, pack) = (user.to_owned(), pack.to_owned());
        self.with_conn(move |conn| {
            conn.execute(
                "DELETE FROM pack_subscriptions WHERE user_id = ?1 AND pack = ?2",
                params![user, pack],
            )?;
            Ok(())
        })
        .await
    }
}

/// Counts one call in the counter `key` of the window starting at `start` if it has room;
/// the count after it, or `None` when the counter is full.
fn count_call(
    tx: &rusqlite::Transaction<'_>,
    user: &str,
    key: &str,
    start: i64,
    max: u32,
) -> Result<Option<u32>, StoreError> {
    Ok(tx
        .query_row(
            "INSERT INTO pack_quota (user_id, tool, window_start, used) VALUES (?1, ?2, ?3, 1)
             ON CONFLICT (user_id, tool, window_start) DO UPDATE SET used = used + 1
             WHERE used < ?4
             RETURNING used",
            params![user, key, start, max],
            |r| r.get(0),
        )
        .optional()?)
}

impl SqliteStore {
    /// In one `IMMEDIATE` transaction: counts the call in every limit of `requests`, then
    /// runs `then`; a call refused by one limit is counted in none (the transaction is rolled
    /// back) and its index returned.
    async fn admit<T: Send + 'static>(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
        then: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<Result<T, usize>, StoreError> {
        if let Some(i) = requests.iter().position(|r| r.max == 0) {
            return Ok(Err(i));
        }
        let user = user.to_owned();
        let limits: Vec<(String, u32, i64)> = requests
            .iter()
            .map(|r| (r.key.to_owned(), r.max, r.window.start_of(now)))
            .collect();
        self.with_conn(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            for (i, (key, max, start)) in limits.iter().enumerate() {
                if count_call(&tx, &user, key, *start, *max)?.is_none() {
                    // Dropping the transaction rolls back the counts taken so far.
                    return Ok(Err(i));
                }
            }
            let out = then(&tx)?;
            tx.commit()?;
            Ok(Ok(out))
        })
        .await
    }
}

#[async_trait]
impl QuotaStore for SqliteStore {
    /// Every limit in one `IMMEDIATE` transaction: a call refused by one limit is counted in
    /// none (the transaction is rolled back).
    async fn try_acquire_all(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
    ) -> Result<Option<usize>, StoreError> {
        Ok(self.admit(user, requests, now, |_| Ok(())).await?.err())
    }

    async fn try_acquire(
        &self,
        user: &str,
        tool: &str,
        max: u32,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<QuotaDecision, StoreError> {
        if max == 0 {
            return Ok(QuotaDecision::Exhausted);
        }
        let (user, tool) = (user.to_owned(), tool.to_owned());
        let start = window.start_of(now);
        self.with_conn(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let used = count_call(&tx, &user, &tool, start, max)?;
            tx.commit()?;
            Ok(QuotaDecision::of(used))
        })
        .await
    }

    async fn used(
        &self,
        user: &str,
        tool: &str,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        let (user, tool) = (user.to_owned(), tool.to_owned());
        let start = window.start_of(now);
        self.with_conn(move |conn| {
            let used: Option<u32> = conn
                .query_row(
                    "SELECT used FROM pack_quota WHERE user_id = ?1 AND tool = ?2 AND window_start = ?3",
                    params![user, tool, start],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(used.unwrap_or(0))
        })
        .await
    }
}

/// One `pack_audit` row as a record, whatever its cells hold: SQLite keeps any value in any
/// column, so a row written by hand or by another tool may have a time that is not RFC 3339
/// or a number stored as text. Such a row is returned with [`AuditRecord::unreadable`] naming
/// each column that could not be read (and its value, cut short), never as an error that
/// would hide every other row.
fn read_audit_row(r: &rusqlite::Row<'_>) -> AuditRecord {
    use rusqlite::types::ValueRef;
    let mut problems: Vec<String> = Vec::new();
    let shown = |value: ValueRef<'_>| -> String {
        let text = match value {
            ValueRef::Null => return "NULL".into(),
            ValueRef::Integer(i) => i.to_string(),
            ValueRef::Real(f) => f.to_string(),
            ValueRef::Text(t) => format!("`{}`", String::from_utf8_lossy(t)),
            ValueRef::Blob(b) => return format!("a blob of {} bytes", b.len()),
        };
        let mut cut: String = text.chars().take(40).collect();
        if cut.len() < text.len() {
            cut.push('…');
        }
        cut
    };
    let text = |i: usize, name: &str, problems: &mut Vec<String>| -> Option<String> {
        match r.get_ref(i) {
            Ok(ValueRef::Text(t)) => match std::str::from_utf8(t) {
                Ok(t) => Some(t.to_owned()),
                Err(_) => {
                    problems.push(format!("{name} is not UTF-8"));
                    None
                }
            },
            Ok(ValueRef::Null) => None,
            Ok(other) => {
                problems.push(format!("{name} is {}, not text", shown(other)));
                None
            }
            Err(err) => {
                problems.push(format!("{name}: {err}"));
                None
            }
        }
    };
    let required = |i: usize, name: &str, problems: &mut Vec<String>| -> String {
        let value = text(i, name, problems);
        if value.is_none() && matches!(r.get_ref(i), Ok(ValueRef::Null)) {
            problems.push(format!("{name} is missing"));
        }
        value.unwrap_or_default()
    };
    let consumer = required(0, "consumer", &mut problems);
    let provider = required(1, "provider", &mut problems);
    let tool = required(2, "tool", &mut problems);
    let user = required(3, "user_id", &mut problems);
    let at_text = required(4, "at", &mut problems);
    let at = if at_text.is_empty() {
        None
    } else {
        match DateTime::parse_from_rfc3339(&at_text) {
            Ok(at) => Some(at.with_timezone(&Utc)),
            Err(err) => {
                problems.push(format!(
                    "at {} is not an RFC 3339 time ({err})",
                    shown(ValueRef::Text(at_text.as_bytes()))
                ));
                None
            }
        }
    };
    let outcome = required(5, "outcome", &mut problems);
    let message = text(6, "message", &mut problems);
    let duration_ms = match r.get_ref(7) {
        Ok(ValueRef::Real(f)) => f,
        Ok(ValueRef::Integer(i)) => i as f64,
        Ok(other) => {
            problems.push(format!("duration_ms is {}, not a number", shown(other)));
            0.0
        }
        Err(err) => {
            problems.push(format!("duration_ms: {err}"));
            0.0
        }
    };
    AuditRecord {
        consumer,
        provider,
        tool,
        user,
        at: at.unwrap_or(DateTime::<Utc>::UNIX_EPOCH),
        outcome,
        message,
        duration_ms,
        unreadable: (!problems.is_empty()).then(|| problems.join("; ")),
    }
}

/// Appends `r` to the audit log (with `outcome` in place of its own); its id.
fn append_audit(conn: &Connection, r: &AuditRecord, outcome: &str) -> Result<AuditId, StoreError> {
    conn.execute(
        "INSERT INTO pack_audit (consumer, provider, tool, user_id, at, outcome, message, duration_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            r.consumer,
            r.provider,
            r.tool,
            r.user,
            r.at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            outcome,
            r.message,
            r.duration_ms
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

#[async_trait]
impl AuditLog for SqliteStore {
    async fn record(&self, record: &AuditRecord) -> Result<(), StoreError> {
        let r = record.clone();
        self.with_conn(move |conn| append_audit(conn, &r, &r.outcome).map(|_| ()))
            .await
    }

    async fn start(&self, record: &AuditRecord) -> Result<Option<AuditId>, StoreError> {
        let r = record.clone();
        self.with_conn(move |conn| append_audit(conn, &r, STARTED_OUTCOME).map(Some))
            .await
    }

    async fn finish(&self, id: Option<AuditId>, record: &AuditRecord) -> Result<(), StoreError> {
        let r = record.clone();
        self.with_conn(move |conn| {
            match id {
                None => {
                    append_audit(conn, &r, &r.outcome)?;
                }
                Some(id) => {
                    conn.execute(
                        "INSERT INTO pack_audit_outcome (audit_id, outcome, message, duration_ms)
                         VALUES (?1, ?2, ?3, ?4)",
                        params![id, r.outcome, r.message, r.duration_ms],
                    )?;
                }
            }
            Ok(())
        })
        .await
    }

    async fn query(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        let q = query.clone();
        self.with_conn(move |conn| {
            let mut stmt = conn.prepare(
                "SELECT a.consumer, a.provider, a.tool, a.user_id, a.at,
                        COALESCE(o.outcome, a.outcome),
                        CASE WHEN o.audit_id IS NULL THEN a.message ELSE o.message END,
                        COALESCE(o.duration_ms, a.duration_ms)
                 FROM pack_audit a LEFT JOIN pack_audit_outcome o ON o.audit_id = a.id
                 WHERE (?1 IS NULL OR a.consumer = ?1) AND (?2 IS NULL OR a.provider = ?2)
                   AND (?3 IS NULL OR a.user_id = ?3)
                 ORDER BY a.id DESC
                 LIMIT ?4",
            )?;
            let limit = q.limit.map_or(-1, |l| l as i64);
            let rows = stmt.query_map(params![q.consumer, q.provider, q.user, limit], |r| {
                Ok(read_audit_row(r))
            })?;
            let mut out = Vec::new();
            for row in rows {
                out.push(row?);
            }
            Ok(out)
        })
        .await
    }
}

#[async_trait]
impl AuditedQuotaStore for SqliteStore {
    /// The counts and the record in one `IMMEDIATE` transaction.
    async fn admit_and_audit(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
        record: &AuditRecord,
    ) -> Result<Result<AuditId, usize>, StoreError> {
        let record = record.clone();
        self.admit(user, requests, now, move |tx| {
            append_audit(tx, &record, STARTED_OUTCOME)
        })
        .await
    }
}

fn millis_to_time(ms: i64) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
}

fn read_confirmation(r: &rusqlite::Row<'_>) -> rusqlite::Result<(StoredConfirmation, String)> {
    let arguments: String = r.get(2)?;
    Ok((
        StoredConfirmation {
            id: shared_id(r.get(0)?),
            skill_id: r.get(1)?,
            arguments: Value::Null,
            summary: r.get(3)?,
            from_state: r.get(4)?,
            parked_at: millis_to_time(r.get(5)?),
            expires_at: millis_to_time(r.get(6)?),
        },
        arguments,
    ))
}

/// The calls read by `sql` (with `params`), their arguments parsed.
fn confirmations(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<StoredConfirmation>, StoreError> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map(params, read_confirmation)?;
    let mut out = Vec::new();
    for row in rows {
        let (mut call, arguments) = row?;
        call.arguments = serde_json::from_str(&arguments).map_err(|e| {
            StoreError::new(format!(
                "the arguments of parked call `{}` are not JSON: {e}",
                call.id
            ))
        })?;
        out.push(call);
    }
    Ok(out)
}

const CONFIRMATION_COLUMNS: &str =
    "id, skill_id, arguments, summary, from_state, parked_ms, expires_ms";

#[async_trait]
impl ParkedCalls for SqliteStore {
    async fn insert(
        &self,
        call: &StoredConfirmation,
        forget_before: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let call = call.clone();
        self.with_conn(move |conn| {
            conn.execute(
                "DELETE FROM pending_confirmations WHERE expires_ms < ?1",
                params![forget_before.timestamp_millis()],
            )?;
            conn.execute(
                "INSERT INTO pending_confirmations
                 (skill_id, arguments, summary, from_state, parked_ms, expires_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    call.skill_id,
                    call.arguments.to_string(),
                    call.summary,
                    call.from_state,
                    call.parked_at.timestamp_millis(),
                    call.expires_at.timestamp_millis()
                ],
            )?;
            Ok(conn.last_insert_rowid())
        })
        .await
    }

    async fn remove_live(
        &self,
        n: i64,
        now: DateTime<Utc>,
    ) -> Result<Option<StoredConfirmation>, StoreError> {
        let now = now.timestamp_millis();
        self.with_conn(move |conn| {
            let taken = confirmations(
                conn,
                &format!(
                    "DELETE FROM pending_confirmations WHERE id = ?1 AND expires_ms > ?2
                     RETURNING {CONFIRMATION_COLUMNS}"
                ),
                params![n, now],
            )?;
            Ok(taken.into_iter().next())
        })
        .await
    }

    async fn find(&self, n: i64) -> Result<Option<StoredConfirmation>, StoreError> {
        self.with_conn(move |conn| {
            let found = confirmations(
                conn,
                &format!("SELECT {CONFIRMATION_COLUMNS} FROM pending_confirmations WHERE id = ?1"),
                params![n],
            )?;
            Ok(found.into_iter().next())
        })
        .await
    }

    async fn live(&self, now: DateTime<Utc>) -> Result<Vec<StoredConfirmation>, StoreError> {
        let now = now.timestamp_millis();
        self.with_conn(move |conn| {
            confirmations(
                conn,
                &format!(
                    "SELECT {CONFIRMATION_COLUMNS} FROM pending_confirmations
                     WHERE expires_ms > ?1 ORDER BY id"
                ),
                params![now],
            )
        })
        .await
    }

    async fn lapsed(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<StoredConfirmation>, StoreError> {
        let now = now.timestamp_millis();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with_conn(move |conn| {
            confirmations(
                conn,
                &format!(
                    "SELECT {CONFIRMATION_COLUMNS} FROM pending_confirmations
                     WHERE expires_ms <= ?1 ORDER BY expires_ms DESC, id DESC LIMIT ?2"
                ),
                params![now, limit],
            )
        })
        .await
    }
}

confirmation_store!(SqliteStore);

#[async_trait]
impl StateStore for SqliteStore {
    async fn save(&self, user: &str, path: &str, value: &Value) -> Result<(), StoreError> {
        let (user, path) = (user.to_owned(), path.to_owned());
        let text = value.to_string();
        self.with_conn(move |conn| {
            conn.execute(
                "INSERT INTO pack_state (user_id, path, value) VALUES (?1, ?2, ?3)
                 ON CONFLICT (user_id, path) DO UPDATE SET value = excluded.value",
                params![user, path, text],
            )?;
            Ok(())
        })
        .await
    }

    async fn read(&self, user: &str, path: &str) -> Result<Option<Value>, StoreError> {
        let (user, path) = (user.to_owned(), path.to_owned());
        self.with_conn(move |conn| {
            let text: Option<String> = conn
                .query_row(
                    "SELECT value FROM pack_state WHERE user_id = ?1 AND path = ?2",
                    params![user, path],
                    |r| r.get(0),
                )
                .optional()?;
            text.map(|t| {
                serde_json::from_str(&t)
                    .map_err(|e| StoreError::new(format!("state at `{path}` is not JSON: {e}")))
            })
            .transpose()
        })
        .await
    }
}

#[cfg(test)]
mod tests;
