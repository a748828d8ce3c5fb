//! Durable runs ([`toolwright::runs::RunStore`]) in PostgreSQL: each write for a run in
//! progress locks the run's row (`FOR UPDATE`) and checks the lease holder in the same
//! transaction, so two processes on two machines cannot both write one run.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use toolwright::runs::{
    Lease, NewRun, RunEnd, RunRecord, RunRequest, RunStore, RunStoreError, RunUnit,
};

use super::PgStore;
use crate::store::runs::{
    backend, cancel_outcome, read_request, read_run, read_unit, signed, RunRow,
};

const RUN_COLUMNS: &str = "id, kind, status, started_at, updated_at, finished_at, fingerprint, \
     spec, units_total, units_done, model_requests, input_tokens, output_tokens, lease_holder, \
     lease_until, cancel_requested, error";

impl RunRow for tokio_postgres::Row {
    fn text(&self, i: usize) -> Result<String, RunStoreError> {
        self.try_get(i).map_err(backend)
    }

    fn maybe_text(&self, i: usize) -> Result<Option<String>, RunStoreError> {
        self.try_get(i).map_err(backend)
    }

    fn int(&self, i: usize) -> Result<i64, RunStoreError> {
        self.try_get(i).map_err(backend)
    }

    fn flag(&self, i: usize) -> Result<bool, RunStoreError> {
        self.try_get(i).map_err(backend)
    }

    fn maybe_time(&self, i: usize) -> Result<Option<DateTime<Utc>>, RunStoreError> {
        self.try_get(i).map_err(backend)
    }
}

impl PgStore {
    /// A transaction on `client` for a write to run `id` by `holder`: the run's row locked,
    /// refused unless `holder` holds its lease.
    async fn held<'c>(
        &self,
        client: &'c mut deadpool_postgres::Object,
        id: &str,
        holder: &str,
    ) -> Result<deadpool_postgres::Transaction<'c>, RunStoreError> {
        let s = &self.schema;
        let tx = client.transaction().await.map_err(backend)?;
        let row = tx
            .query_opt(
                &format!("SELECT lease_holder FROM {s}.runs WHERE id = $1 FOR UPDATE"),
                &[&id],
            )
            .await
            .map_err(backend)?
            .ok_or_else(|| RunStoreError::NotFound(id.to_string()))?;
        Lease::require_held(id, row.get(0), holder)?;
        Ok(tx)
    }
}

#[async_trait]
impl RunStore for PgStore {
    async fn create(
        &self,
        run: &NewRun,
        holder: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<(), RunStoreError> {
        let s = &self.schema;
        let client = self.pool.get().await.map_err(backend)?;
        let now = Utc::now();
        let inserted = client
            .execute(
                &format!(
                    "INSERT INTO {s}.runs (id, kind, status, started_at, updated_at, fingerprint, \
                     spec, units_total, lease_holder, lease_until) \
                     VALUES ($1, $2, 'running', $3, $3, $4, $5, $6, $7, $8) \
                     ON CONFLICT (id) DO NOTHING"
                ),
                &[
                    &run.id,
                    &run.kind,
                    &now,
                    &run.fingerprint,
                    &run.spec.to_string(),
                    &signed(run.units_total),
                    &holder,
                    &lease_until,
                ],
            )
            .await
            .map_err(backend)?;
        if inserted == 0 {
            return Err(RunStoreError::Exists(run.id.clone()));
        }
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<RunRecord>, RunStoreError> {
        let s = &self.schema;
        let client = self.pool.get().await.map_err(backend)?;
        let row = client
            .query_opt(
                &format!("SELECT {RUN_COLUMNS} FROM {s}.runs WHERE id = $1"),
                &[&id],
            )
            .await
            .map_err(backend)?;
        row.as_ref().map(read_run).transpose()
    }

    async fn list(&self, limit: usize) -> Result<Vec<RunRecord>, RunStoreError> {
        let s = &self.schema;
        let client = self.pool.get().await.map_err(backend)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client
            .query(
                &format!(
                    "SELECT {RUN_COLUMNS} FROM {s}.runs ORDER BY started_at DESC, seq DESC LIMIT $1"
                ),
                &[&limit],
            )
            .await
            .map_err(backend)?;
        rows.iter().map(read_run).collect()
    }

    async fn acquire(
        &self,
        id: &str,
        holder: &str,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        takeover: Option<&str>,
    ) -> Result<Lease, RunStoreError> {
        let s = &self.schema;
        let mut client = self.pool.get().await.map_err(backend)?;
        let tx = client.transaction().await.map_err(backend)?;
        let row = tx
            .query_opt(
                &format!("SELECT lease_holder, lease_until FROM {s}.runs WHERE id = $1 FOR UPDATE"),
                &[&id],
            )
            .await
            .map_err(backend)?
            .ok_or_else(|| RunStoreError::NotFound(id.to_string()))?;
        let lease = Lease::decide(row.get(0), row.get(1), holder, now, takeover);
        if lease != Lease::Acquired {
            return Ok(lease);
        }
        tx.execute(
            &format!(
                "UPDATE {s}.runs SET lease_holder = $2, lease_until = $3, status = 'running', \
                 cancel_requested = FALSE, finished_at = NULL, error = NULL, updated_at = $4 \
                 WHERE id = $1"
            ),
            &[&id, &holder, &until, &now],
        )
        .await
        .map_err(backend)?;
        tx.commit().await.map_err(backend)?;
        Ok(Lease::Acquired)
    }

    async fn renew(
        &self,
        id: &str,
        holder: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, RunStoreError> {
        let s = &self.schema;
        let mut client = self.pool.get().await.map_err(backend)?;
        let tx = self.held(&mut client, id, holder).await?;
        let row = tx
            .query_one(
                &format!(
                    "UPDATE {s}.runs SET lease_until = $2 WHERE id = $1 RETURNING cancel_requested"
                ),
                &[&id, &until],
            )
            .await
            .map_err(backend)?;
        tx.commit().await.map_err(backend)?;
        Ok(row.get(0))
    }

    async fn set_units_total(
        &self,
        id: &str,
        holder: &str,
        total: u64,
    ) -> Result<(), RunStoreError> {
        let s = &self.schema;
        let mut client = self.pool.get().await.map_err(backend)?;
        let tx = self.held(&mut client, id, holder).await?;
        tx.execute(
            &format!("UPDATE {s}.runs SET units_total = $2 WHERE id = $1"),
            &[&id, &signed(total)],
        )
        .await
        .map_err(backend)?;
        tx.commit().await.map_err(backend)
    }

    async fn record_units(
        &self,
        id: &str,
        holder: &str,
        units: &[RunUnit],
    ) -> Result<(), RunStoreError> {
        let s = &self.schema;
        let mut client = self.pool.get().await.map_err(backend)?;
        let tx = self.held(&mut client, id, holder).await?;
        let kinds: Vec<&str> = units.iter().map(|u| u.kind.as_str()).collect();
        let keys: Vec<&str> = units.iter().map(|u| u.key.as_str()).collect();
        let counts: Vec<bool> = units.iter().map(|u| u.counts).collect();
        let bodies: Vec<&str> = units.iter().map(|u| u.body.as_str()).collect();
        // One statement for the batch, in the batch's order; a unit already kept stays.
        let row = tx
            .query_one(
                &format!(
                    "WITH added AS ( \
                       INSERT INTO {s}.run_units (run_id, kind, key, counts, body) \
                       SELECT $1, u.kind, u.key, u.counts, u.body \
                       FROM unnest($2::text[], $3::text[], $4::bool[], $5::text[]) \
                         WITH ORDINALITY AS u(kind, key, counts, body, n) \
                       ORDER BY u.n \
                       ON CONFLICT (run_id, kind, key) DO NOTHING \
                       RETURNING counts) \
                     SELECT COUNT(*) FILTER (WHERE counts) FROM added"
                ),
                &[&id, &kinds, &keys, &counts, &bodies],
            )
            .await
            .map_err(backend)?;
        let counted: i64 = row.get(0);
        tx.execute(
            &format!(
                "UPDATE {s}.runs SET units_done = units_done + $2, updated_at = $3 WHERE id = $1"
            ),
            &[&id, &counted, &Utc::now()],
        )
        .await
        .map_err(backend)?;
        tx.commit().await.map_err(backend)
    }

    async fn units(&self, id: &str) -> Result<Vec<RunUnit>, RunStoreError> {
        let s = &self.schema;
        let client = self.pool.get().await.map_err(backend)?;
        let rows = client
            .query(
                &format!(
                    "SELECT kind, key, counts, body FROM {s}.run_units WHERE run_id = $1 ORDER BY seq"
                ),
                &[&id],
            )
            .await
            .map_err(backend)?;
        rows.iter().map(read_unit).collect()
    }

    async fn record_request(
        &self,
        id: &str,
        holder: &str,
        request: &RunRequest,
    ) -> Result<(), RunStoreError> {
        let s = &self.schema;
        let mut client = self.pool.get().await.map_err(backend)?;
        let tx = self.held(&mut client, id, holder).await?;
        let usage = request.usage;
        let occurrence = i32::try_from(request.occurrence).unwrap_or(i32::MAX);
        let (input, output) = (signed(usage.prompt_tokens), signed(usage.completion_tokens));
        let added = tx
            .execute(
                &format!(
                    "INSERT INTO {s}.run_requests (run_id, key, occurrence, label, response, \
                     input_tokens, output_tokens, cached_tokens) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                     ON CONFLICT (run_id, key, occurrence) DO NOTHING"
                ),
                &[
                    &id,
                    &request.key,
                    &occurrence,
                    &request.label,
                    &request.response.to_string(),
                    &input,
                    &output,
                    &signed(usage.cached_tokens),
                ],
            )
            .await
            .map_err(backend)?;
        if added > 0 {
            tx.execute(
                &format!(
                    "UPDATE {s}.runs SET model_requests = model_requests + 1, \
                     input_tokens = input_tokens + $2, output_tokens = output_tokens + $3, \
                     updated_at = $4 WHERE id = $1"
                ),
                &[&id, &input, &output, &Utc::now()],
            )
            .await
            .map_err(backend)?;
        }
        tx.commit().await.map_err(backend)
    }

    async fn requests(&self, id: &str) -> Result<Vec<RunRequest>, RunStoreError> {
        let s = &self.schema;
        let client = self.pool.get().await.map_err(backend)?;
        let rows = client
            .query(
                &format!(
                    "SELECT key, occurrence::bigint, label, response, input_tokens, output_tokens, \
                     cached_tokens FROM {s}.run_requests WHERE run_id = $1 ORDER BY seq"
                ),
                &[&id],
            )
            .await
            .map_err(backend)?;
        rows.iter().map(read_request).collect()
    }

    async fn finish(&self, id: &str, holder: &str, end: &RunEnd) -> Result<(), RunStoreError> {
        let s = &self.schema;
        let mut client = self.pool.get().await.map_err(backend)?;
        let tx = self.held(&mut client, id, holder).await?;
        tx.execute(
            &format!(
                "UPDATE {s}.runs SET status = $2, result = $3, error = $4, finished_at = $5, \
                 updated_at = $5, lease_holder = NULL, lease_until = NULL WHERE id = $1"
            ),
            &[
                &id,
                &end.status.as_str(),
                &end.result,
                &end.error,
                &Utc::now(),
            ],
        )
        .await
        .map_err(backend)?;
        tx.commit().await.map_err(backend)
    }

    async fn result(&self, id: &str) -> Result<Option<String>, RunStoreError> {
        let s = &self.schema;
        let client = self.pool.get().await.map_err(backend)?;
        let row = client
            .query_opt(
                &format!("SELECT result FROM {s}.runs WHERE id = $1"),
                &[&id],
            )
            .await
            .map_err(backend)?
            .ok_or_else(|| RunStoreError::NotFound(id.to_string()))?;
        Ok(row.get(0))
    }

    async fn request_cancel(&self, id: &str) -> Result<bool, RunStoreError> {
        let s = &self.schema;
        let client = self.pool.get().await.map_err(backend)?;
        let row = client
            .query_opt(
                &format!(
                    "WITH asked AS (UPDATE {s}.runs SET cancel_requested = TRUE \
                       WHERE id = $1 AND status = 'running' RETURNING 1) \
                     SELECT EXISTS (SELECT 1 FROM asked), \
                            EXISTS (SELECT 1 FROM {s}.runs WHERE id = $1)"
                ),
                &[&id],
            )
            .await
            .map_err(backend)?;
        let (asked, exists) = row.map_or((false, false), |r| (r.get(0), r.get(1)));
        cancel_outcome(id, asked, exists)
    }

    async fn prune(&self, keep: usize, ended_before: DateTime<Utc>) -> Result<u64, RunStoreError> {
        let s = &self.schema;
        let client = self.pool.get().await.map_err(backend)?;
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        let deleted = client
            .execute(
                &format!(
                    "DELETE FROM {s}.runs WHERE status <> 'running' AND \
                     (COALESCE(finished_at, updated_at) < $1 OR id NOT IN \
                      (SELECT id FROM {s}.runs WHERE status <> 'running' \
                       ORDER BY started_at DESC, seq DESC LIMIT $2))"
                ),
                &[&ended_before, &keep],
            )
            .await
            .map_err(backend)?;
        Ok(deleted)
    }
}
