//! What the SQLite and PostgreSQL run stores ([`toolwright::runs::RunStore`]) share: how a
//! row of the run tables is read back into a record, checked, and how their failures and
//! numbers are carried. Each engine keeps its SQL and says how it reads one cell.

use chrono::{DateTime, Utc};
use serde_json::Value;
use toolwright::agent::TokenUsage;
use toolwright::runs::{RunRecord, RunRequest, RunStatus, RunStoreError, RunUnit};

use super::StoreError;

/// A database failure as a run store reports it.
pub(super) fn backend(err: impl Into<StoreError>) -> RunStoreError {
    let err = err.into();
    RunStoreError::Backend {
        message: err.message,
        source: err.source,
    }
}

/// A stored count; a negative one (never written) reads as 0.
pub(super) fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// A count as stored (signed 64-bit), saturating.
pub(super) fn signed(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// One row of a run table, as each engine reads a cell of it (SQLite keeps times as
/// milliseconds and flags as integers, PostgreSQL as `timestamptz` and `bool`).
pub(super) trait RunRow {
    /// A text cell.
    fn text(&self, i: usize) -> Result<String, RunStoreError>;
    /// A text cell that may be NULL.
    fn maybe_text(&self, i: usize) -> Result<Option<String>, RunStoreError>;
    /// An integer cell.
    fn int(&self, i: usize) -> Result<i64, RunStoreError>;
    /// A yes/no cell.
    fn flag(&self, i: usize) -> Result<bool, RunStoreError>;
    /// A time cell that may be NULL.
    fn maybe_time(&self, i: usize) -> Result<Option<DateTime<Utc>>, RunStoreError>;

    /// A time cell.
    fn time(&self, i: usize) -> Result<DateTime<Utc>, RunStoreError> {
        Ok(self.maybe_time(i)?.unwrap_or_default())
    }
}

/// Reads a row of `runs` selected with the engine's run columns (id, kind, status, started,
/// updated, finished, fingerprint, spec, units_total, units_done, model_requests,
/// input_tokens, output_tokens, lease_holder, lease_until, cancel_requested, error); the
/// stored status and spec are checked.
pub(super) fn read_run(r: &impl RunRow) -> Result<RunRecord, RunStoreError> {
    let id = r.text(0)?;
    let status: RunStatus = r.text(2)?.parse()?;
    let spec: Value = serde_json::from_str(&r.text(7)?).map_err(|e| {
        RunStoreError::Corrupt(format!("run `{id}`: its options are not JSON: {e}"))
    })?;
    Ok(RunRecord {
        kind: r.text(1)?,
        status,
        started_at: r.time(3)?,
        updated_at: r.time(4)?,
        finished_at: r.maybe_time(5)?,
        fingerprint: r.text(6)?,
        spec,
        units_total: count(r.int(8)?),
        units_done: count(r.int(9)?),
        model_requests: count(r.int(10)?),
        input_tokens: count(r.int(11)?),
        output_tokens: count(r.int(12)?),
        lease_holder: r.maybe_text(13)?,
        lease_until: r.maybe_time(14)?,
        cancel_requested: r.flag(15)?,
        error: r.maybe_text(16)?,
        id,
    })
}

/// Reads a row of `run_units` selected as kind, key, counts, body.
pub(super) fn read_unit(r: &impl RunRow) -> Result<RunUnit, RunStoreError> {
    Ok(RunUnit {
        kind: r.text(0)?,
        key: r.text(1)?,
        counts: r.flag(2)?,
        body: r.text(3)?,
    })
}

/// Reads a row of `run_requests` selected as key, occurrence, label, response,
/// input_tokens, output_tokens, cached_tokens; the recorded answer is checked.
pub(super) fn read_request(r: &impl RunRow) -> Result<RunRequest, RunStoreError> {
    let response = serde_json::from_str(&r.text(3)?)
        .map_err(|e| RunStoreError::Corrupt(format!("a recorded model answer is not JSON: {e}")))?;
    Ok(RunRequest {
        key: r.text(0)?,
        occurrence: u32::try_from(r.int(1)?).unwrap_or(0),
        label: r.text(2)?,
        response,
        usage: TokenUsage {
            prompt_tokens: count(r.int(4)?),
            completion_tokens: count(r.int(5)?),
            cached_tokens: count(r.int(6)?),
        },
    })
}

/// What asking run `id` to stop did, from whether the ask changed a running run and
/// whether the run exists: `false` when it has already ended.
pub(super) fn cancel_outcome(id: &str, asked: bool, exists: bool) -> Result<bool, RunStoreError> {
    if exists {
        Ok(asked)
    } else {
        Err(RunStoreError::NotFound(id.to_string()))
    }
}
