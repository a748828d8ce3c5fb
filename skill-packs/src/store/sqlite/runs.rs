//! Durable runs ([`toolwright::runs::RunStore`]) in the SQLite file: the run, its finished
//! units and its answered model requests, each write checked against the lease in the same
//! `BEGIN IMMEDIATE` transaction, so a process that lost the lease cannot write.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use toolwright::runs::{
    Lease, NewRun, RunEnd, RunRecord, RunRequest, RunStore, RunStoreError, RunUnit,
};

use super::{millis_to_time, SqliteStore};
use crate::store::runs::{
    backend, cancel_outcome, read_request, read_run, read_unit, signed, RunRow,
};
use crate::store::StoreError;

/// The run tables (created with the store's other tables).
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id               TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    status           TEXT NOT NULL,
    started_ms       INTEGER NOT NULL,
    updated_ms       INTEGER NOT NULL,
    finished_ms      INTEGER,
    fingerprint      TEXT NOT NULL,
    spec             TEXT NOT NULL,
    units_total      INTEGER NOT NULL,
    units_done       INTEGER NOT NULL DEFAULT 0,
    model_requests   INTEGER NOT NULL DEFAULT 0,
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    lease_holder     TEXT,
    lease_until_ms   INTEGER,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    error            TEXT,
    result           TEXT
);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_ms);
CREATE TABLE IF NOT EXISTS run_units (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    kind   TEXT NOT NULL,
    key    TEXT NOT NULL,
    counts INTEGER NOT NULL,
    body   TEXT NOT NULL,
    PRIMARY KEY (run_id, kind, key)
);
CREATE TABLE IF NOT EXISTS run_requests (
    run_id        TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key           TEXT NOT NULL,
    occurrence    INTEGER NOT NULL,
    label         TEXT NOT NULL,
    response      TEXT NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    PRIMARY KEY (run_id, key, occurrence)
);
";

const RUN_COLUMNS: &str = "id, kind, status, started_ms, updated_ms, finished_ms, fingerprint, \
     spec, units_total, units_done, model_requests, input_tokens, output_tokens, lease_holder, \
     lease_until_ms, cancel_requested, error";

impl RunRow for rusqlite::Row<'_> {
    fn text(&self, i: usize) -> Result<String, RunStoreError> {
        self.get(i).map_err(backend)
    }

    fn maybe_text(&self, i: usize) -> Result<Option<String>, RunStoreError> {
        self.get(i).map_err(backend)
    }

    fn int(&self, i: usize) -> Result<i64, RunStoreError> {
        self.get(i).map_err(backend)
    }

    fn flag(&self, i: usize) -> Result<bool, RunStoreError> {
        Ok(self.int(i)? != 0)
    }

    fn maybe_time(&self, i: usize) -> Result<Option<DateTime<Utc>>, RunStoreError> {
        Ok(self
            .get::<_, Option<i64>>(i)
            .map_err(backend)?
            .map(millis_to_time))
    }
}

/// The rows `sql` (with `params`) selects, each read by `read`.
fn read_rows<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl Fn(&rusqlite::Row<'_>) -> Result<T, RunStoreError>,
) -> Result<Vec<T>, RunStoreError> {
    let mut stmt = conn.prepare(sql).map_err(backend)?;
    let mut rows = stmt.query(params).map_err(backend)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(backend)? {
        out.push(read(row)?);
    }
    Ok(out)
}

/// In a write transaction: refuses unless `holder` holds run `id`'s lease.
fn check_holder(conn: &Connection, id: &str, holder: &str) -> Result<(), RunStoreError> {
    let current: Option<String> = conn
        .query_row(
            "SELECT lease_holder FROM runs WHERE id = ?1",
            params![id],
            |r| r.get(0),
        )
        .optional()
        .map_err(backend)?
        .ok_or_else(|| RunStoreError::NotFound(id.to_string()))?;
    Lease::require_held(id, current.as_deref(), holder)
}

impl SqliteStore {
    /// Runs `f` in a `BEGIN IMMEDIATE` transaction on the blocking pool.
    async fn run_tx<T, F>(&self, f: F) -> Result<T, RunStoreError>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T, RunStoreError> + Send + 'static,
    {
        self.with_conn(move |conn| {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(StoreError::from)?;
            let out = f(&tx);
            if out.is_ok() {
                tx.commit()?;
            }
            Ok(out)
        })
        .await
        .map_err(backend)?
    }

    /// Runs `f` for a write to run `id` by `holder` in a `BEGIN IMMEDIATE` transaction,
    /// refused unless `holder` holds the run's lease; `f` is given the run's id.
    async fn run_held<T, F>(&self, id: &str, holder: &str, f: F) -> Result<T, RunStoreError>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>, &str) -> Result<T, RunStoreError> + Send + 'static,
    {
        let (id, holder) = (id.to_string(), holder.to_string());
        self.run_tx(move |tx| {
            check_holder(tx, &id, &holder)?;
            f(tx, &id)
        })
        .await
    }

    /// Runs a read `f` on the blocking pool.
    async fn run_read<T, F>(&self, f: F) -> Result<T, RunStoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, RunStoreError> + Send + 'static,
    {
        self.with_conn(move |conn| Ok(f(conn)))
            .await
            .map_err(backend)?
    }
}

#[async_trait]
impl RunStore for SqliteStore {
    async fn create(
        &self,
        run: &NewRun,
        holder: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<(), RunStoreError> {
        let (run, holder) = (run.clone(), holder.to_string());
        self.run_tx(move |tx| {
            let now = Utc::now().timestamp_millis();
            let inserted = tx
                .execute(
                    "INSERT OR IGNORE INTO runs (id, kind, status, started_ms, updated_ms, \
                     fingerprint, spec, units_total, lease_holder, lease_until_ms) \
                     VALUES (?1, ?2, 'running', ?3, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        run.id,
                        run.kind,
                        now,
                        run.fingerprint,
                        run.spec.to_string(),
                        signed(run.units_total),
                        holder,
                        lease_until.timestamp_millis()
                    ],
                )
                .map_err(backend)?;
            if inserted == 0 {
                return Err(RunStoreError::Exists(run.id));
            }
            Ok(())
        })
        .await
    }

    async fn get(&self, id: &str) -> Result<Option<RunRecord>, RunStoreError> {
        let id = id.to_string();
        self.run_read(move |conn| {
            let runs = read_rows(
                conn,
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
                params![id],
                |r| read_run(r),
            )?;
            Ok(runs.into_iter().next())
        })
        .await
    }

    async fn list(&self, limit: usize) -> Result<Vec<RunRecord>, RunStoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run_read(move |conn| {
            read_rows(
                conn,
                &format!(
                    "SELECT {RUN_COLUMNS} FROM runs ORDER BY started_ms DESC, rowid DESC LIMIT ?1"
                ),
                params![limit],
                |r| read_run(r),
            )
        })
        .await
    }

    async fn acquire(
        &self,
        id: &str,
        holder: &str,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        takeover: Option<&str>,
    ) -> Result<Lease, RunStoreError> {
        let (id, holder) = (id.to_string(), holder.to_string());
        let takeover = takeover.map(str::to_string);
        self.run_tx(move |tx| {
            let current: Option<(Option<String>, Option<i64>)> = tx
                .query_row(
                    "SELECT lease_holder, lease_until_ms FROM runs WHERE id = ?1",
                    params![id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .map_err(backend)?;
            let Some((current, until_ms)) = current else {
                return Err(RunStoreError::NotFound(id));
            };
            // Compared at the millisecond, as the lease is kept.
            let now_ms = millis_to_time(now.timestamp_millis());
            let lease = Lease::decide(
                current.as_deref(),
                until_ms.map(millis_to_time),
                &holder,
                now_ms,
                takeover.as_deref(),
            );
            if lease != Lease::Acquired {
                return Ok(lease);
            }
            tx.execute(
                "UPDATE runs SET lease_holder = ?2, lease_until_ms = ?3, status = 'running', \
                 cancel_requested = 0, finished_ms = NULL, error = NULL, updated_ms = ?4 \
                 WHERE id = ?1",
                params![id, holder, until.timestamp_millis(), now.timestamp_millis()],
            )
            .map_err(backend)?;
            Ok(Lease::Acquired)
        })
        .await
    }

    async fn renew(
        &self,
        id: &str,
        holder: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, RunStoreError> {
        self.run_held(id, holder, move |tx, id| {
            tx.execute(
                "UPDATE runs SET lease_until_ms = ?2 WHERE id = ?1",
                params![id, until.timestamp_millis()],
            )
            .map_err(backend)?;
            tx.query_row(
                "SELECT cancel_requested FROM runs WHERE id = ?1",
                params![id],
                |r| r.get::<_, i64>(0),
            )
            .map(|c| c != 0)
            .map_err(backend)
        })
        .await
    }

    async fn set_units_total(
        &self,
        id: &str,
        holder: &str,
        total: u64,
    ) -> Result<(), RunStoreError> {
        self.run_held(id, holder, move |tx, id| {
            tx.execute(
                "UPDATE runs SET units_total = ?2 WHERE id = ?1",
                params![id, signed(total)],
            )
            .map_err(backend)?;
            Ok(())
        })
        .await
    }

    async fn record_units(
        &self,
        id: &str,
        holder: &str,
        units: &[RunUnit],
    ) -> Result<(), RunStoreError> {
        let units = units.to_vec();
        self.run_held(id, holder, move |tx, id| {
            let mut insert = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO run_units (run_id, kind, key, counts, body) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(backend)?;
            let mut counted = 0i64;
            for unit in &units {
                let added = insert
                    .execute(params![id, unit.kind, unit.key, unit.counts, unit.body])
                    .map_err(backend)?;
                if added > 0 && unit.counts {
                    counted += 1;
                }
            }
            tx.execute(
                "UPDATE runs SET units_done = units_done + ?2, updated_ms = ?3 WHERE id = ?1",
                params![id, counted, Utc::now().timestamp_millis()],
            )
            .map_err(backend)?;
            Ok(())
        })
        .await
    }

    async fn units(&self, id: &str) -> Result<Vec<RunUnit>, RunStoreError> {
        let id = id.to_string();
        self.run_read(move |conn| {
            read_rows(
                conn,
                "SELECT kind, key, counts, body FROM run_units WHERE run_id = ?1 ORDER BY rowid",
                params![id],
                |r| read_unit(r),
            )
        })
        .await
    }

    async fn record_request(
        &self,
        id: &str,
        holder: &str,
        request: &RunRequest,
    ) -> Result<(), RunStoreError> {
        let request = request.clone();
        self.run_held(id, holder, move |tx, id| {
            let usage = request.usage;
            let added = tx
                .execute(
                    "INSERT OR IGNORE INTO run_requests (run_id, key, occurrence, label, \
                     response, input_tokens, output_tokens, cached_tokens) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        id,
                        request.key,
                        request.occurrence,
                        request.label,
                        request.response.to_string(),
                        signed(usage.prompt_tokens),
                        signed(usage.completion_tokens),
                        signed(usage.cached_tokens)
                    ],
                )
                .map_err(backend)?;
            if added > 0 {
                tx.execute(
                    "UPDATE runs SET model_requests = model_requests + 1, \
                     input_tokens = input_tokens + ?2, output_tokens = output_tokens + ?3, \
                     updated_ms = ?4 WHERE id = ?1",
                    params![
                        id,
                        signed(usage.prompt_tokens),
                        signed(usage.completion_tokens),
                        Utc::now().timestamp_millis()
                    ],
                )
                .map_err(backend)?;
            }
            Ok(())
        })
        .await
    }

    async fn requests(&self, id: &str) -> Result<Vec<RunRequest>, RunStoreError> {
        let id = id.to_string();
        self.run_read(move |conn| {
            read_rows(
                conn,
                "SELECT key, occurrence, label, response, input_tokens, output_tokens, \
                 cached_tokens FROM run_requests WHERE run_id = ?1 ORDER BY rowid",
                params![id],
                |r| read_request(r),
            )
        })
        .await
    }

    async fn finish(&self, id: &str, holder: &str, end: &RunEnd) -> Result<(), RunStoreError> {
        let end = end.clone();
        self.run_held(id, holder, move |tx, id| {
            let now = Utc::now().timestamp_millis();
            tx.execute(
                "UPDATE runs SET status = ?2, result = ?3, error = ?4, finished_ms = ?5, \
                 updated_ms = ?5, lease_holder = NULL, lease_until_ms = NULL WHERE id = ?1",
                params![id, end.status.as_str(), end.result, end.error, now],
            )
            .map_err(backend)?;
            Ok(())
        })
        .await
    }

    async fn result(&self, id: &str) -> Result<Option<String>, RunStoreError> {
        let id = id.to_string();
        self.run_read(move |conn| {
            conn.query_row("SELECT result FROM runs WHERE id = ?1", params![id], |r| {
                r.get::<_, Option<String>>(0)
            })
            .optional()
            .map_err(backend)?
            .ok_or(RunStoreError::NotFound(id))
        })
        .await
    }

    async fn request_cancel(&self, id: &str) -> Result<bool, RunStoreError> {
        let id = id.to_string();
        self.run_tx(move |tx| {
            let changed = tx
                .execute(
                    "UPDATE runs SET cancel_requested = 1 WHERE id = ?1 AND status = 'running'",
                    params![id],
                )
                .map_err(backend)?;
            let exists = changed > 0
                || tx
                    .query_row("SELECT 1 FROM runs WHERE id = ?1", params![id], |_| Ok(()))
                    .optional()
                    .map_err(backend)?
                    .is_some();
            cancel_outcome(&id, changed > 0, exists)
        })
        .await
    }

    async fn prune(&self, keep: usize, ended_before: DateTime<Utc>) -> Result<u64, RunStoreError> {
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        self.run_tx(move |tx| {
            // Children first: the file may have been opened without foreign keys enforced.
            let doomed = "SELECT id FROM runs WHERE status <> 'running' AND \
                 (COALESCE(finished_ms, updated_ms) < ?1 OR id NOT IN \
                 (SELECT id FROM runs WHERE status <> 'running' \
                  ORDER BY started_ms DESC, rowid DESC LIMIT ?2))";
            let cutoff = ended_before.timestamp_millis();
            for table in ["run_units", "run_requests"] {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE run_id IN ({doomed})"),
                    params![cutoff, keep],
                )
                .map_err(backend)?;
            }
            let deleted = tx
                .execute(
                    &format!("DELETE FROM runs WHERE id IN ({doomed})"),
                    params![cutoff, keep],
                )
                .map_err(backend)?;
            Ok(deleted as u64)
        })
        .await
    }
}
