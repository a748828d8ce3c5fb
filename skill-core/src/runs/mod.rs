//! Durable runs: long work that outlives its process.
//!
//! A run is a piece of work with an id — a contract review, an orchestrated task — that
//! records itself in a [`RunStore`] as it goes: what it was started with (a fingerprint of
//! its inputs and the options to resume with), each finished unit of work, and every model
//! request with its answer and token usage. A process that dies at any point leaves the run
//! behind; another process resumes it through a [`RunJournal`]: finished units are handed
//! back instead of done again, and a [`JournaledClient`] answers each model request that was
//! already answered from the record, so no completed request is paid for twice and the
//! budget spent before the crash stays spent (the replayed answers carry their usage).
//!
//! One process at a time works on a run: it holds the run's lease, renewed while it works;
//! a write from a process whose lease was taken over is refused ([`RunStoreError::LeaseLost`]).
//!
//! The store engines (SQLite, PostgreSQL) are the packs crate's; [`MemoryRunStore`] keeps runs
//! for one process (tests, hosts without a database).

mod journal;
mod memory;

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use journal::{
    request_key, JournalOptions, JournaledClient, ResumeRefused, RunJournal, Started,
};
pub use memory::MemoryRunStore;

use crate::agent::TokenUsage;

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// A process works on it (or did until it died; see [`RunRecord::status_at`]).
    Running,
    /// Stopped before the end (Ctrl-C, a lost lease, a process that died); resumable.
    Interrupted,
    /// Finished with a result.
    Succeeded,
    /// Ended with an error; resumable.
    Failed,
    /// Stopped because it was asked to; resumable.
    Cancelled,
}

impl RunStatus {
    /// The status as stored and shown (`running`, `interrupted`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Interrupted => "interrupted",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the run ended (no process works on it).
    pub fn is_terminal(self) -> bool {
        !matches!(self, Self::Running)
    }
}

impl std::str::FromStr for RunStatus {
    type Err = RunStoreError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "running" => Self::Running,
            "interrupted" => Self::Interrupted,
            "succeeded" => Self::Succeeded,
            "failed" => Self::Failed,
            "cancelled" => Self::Cancelled,
            other => {
                return Err(RunStoreError::Corrupt(format!(
                    "unknown run status `{other}`; expected running, interrupted, succeeded, failed or cancelled"
                )))
            }
        })
    }
}

/// A run as the store keeps it (its result is read apart: [`RunStore::result`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Its id.
    pub id: String,
    /// What kind of work it is (`review`, ...), for listing.
    pub kind: String,
    /// As stored; [`RunRecord::status_at`] tells a live run from one whose process died.
    pub status: RunStatus,
    /// When it was created.
    pub started_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
    /// When it ended, if it did.
    pub finished_at: Option<DateTime<Utc>>,
    /// Digest of what the result depends on (documents, options): a resume with other
    /// inputs is refused.
    pub fingerprint: String,
    /// The options it was started with, to resume with.
    pub spec: Value,
    /// Units of work it has in all (clauses, for a review).
    pub units_total: u64,
    /// Units finished and recorded.
    pub units_done: u64,
    /// Model requests answered and recorded.
    pub model_requests: u64,
    /// Their input tokens.
    pub input_tokens: u64,
    /// Their output tokens.
    pub output_tokens: u64,
    /// The process holding the lease, while one does.
    pub lease_holder: Option<String>,
    /// Until when the lease holds unless renewed.
    pub lease_until: Option<DateTime<Utc>>,
    /// Whether someone asked the run to stop.
    pub cancel_requested: bool,
    /// Why it failed or stopped.
    pub error: Option<String>,
}

impl RunRecord {
    /// The status at `now`: a `running` run whose lease lapsed is `interrupted` (its process
    /// died without saying so).
    pub fn status_at(&self, now: DateTime<Utc>) -> RunStatus {
        match (self.status, self.lease_until) {
            (RunStatus::Running, Some(until)) if until < now => RunStatus::Interrupted,
            (RunStatus::Running, None) => RunStatus::Interrupted,
            (status, _) => status,
        }
    }

    /// The holder of the lease when it is a process of this host that no longer exists (its
    /// lease may be taken over at once).
    pub fn dead_holder(&self) -> Option<&str> {
        self.lease_holder
            .as_deref()
            .filter(|holder| journal::holder_is_gone(holder))
    }

    /// The status now, as well as this process can tell: also `interrupted` when the holder
    /// is a process of this host that no longer exists (killed before its lease lapsed).
    pub fn status_now(&self) -> RunStatus {
        match (self.status_at(Utc::now()), self.lease_holder.as_deref()) {
            (RunStatus::Running, Some(holder)) if journal::holder_is_gone(holder) => {
                RunStatus::Interrupted
            }
            (status, _) => status,
        }
    }
}

/// A run to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRun {
    /// Its id (unique in the store).
    pub id: String,
    /// What kind of work it is.
    pub kind: String,
    /// Digest of what its result depends on.
    pub fingerprint: String,
    /// The options to resume with.
    pub spec: Value,
    /// Units of work in all.
    pub units_total: u64,
}

/// One finished unit of work.
#[derive(Debug, Clone, PartialEq)]
pub struct RunUnit {
    /// What kind of unit (`clause`, `deep_review`, ...).
    pub kind: String,
    /// Its key, unique within the run and kind (a clause id).
    pub key: String,
    /// Whether it counts towards [`RunRecord::units_done`].
    pub counts: bool,
    /// What it produced, as JSON text.
    pub body: String,
}

/// One answered model request.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    /// Digest of the request ([`request_key`]).
    pub key: String,
    /// Which time the same request was made in the run, from 0.
    pub occurrence: u32,
    /// Who asked (`planner`, `deep`, `clause`, ...), for reading the record.
    pub label: String,
    /// The answer, as JSON (text, tool calls, usage).
    pub response: Value,
    /// Its usage as the provider reported it.
    pub usage: TokenUsage,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    /// `succeeded`, `failed`, `interrupted` or `cancelled`.
    pub status: RunStatus,
    /// The result as JSON text (a report), when there is one.
    pub result: Option<String>,
    /// Why it did not succeed.
    pub error: Option<String>,
}

/// Whether a lease was granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lease {
    /// The caller holds it until the given time.
    Acquired,
    /// Another process holds it.
    Held {
        /// That process.
        holder: String,
        /// Until when, unless renewed.
        until: DateTime<Utc>,
    },
}

impl Lease {
    /// The answer to `holder` asking at `now` for the lease of a run held by `current` until
    /// `current_until`: granted when the lease is free, lapsed, already `holder`'s, or held
    /// by `takeover` (a holder known dead). The rule of [`RunStore::acquire`], for every
    /// store to apply to what it read under its lock.
    pub fn decide(
        current: Option<&str>,
        current_until: Option<DateTime<Utc>>,
        holder: &str,
        now: DateTime<Utc>,
        takeover: Option<&str>,
    ) -> Lease {
        match (current, current_until) {
            (Some(other), Some(until))
                if other != holder && takeover != Some(other) && until >= now =>
            {
                Lease::Held {
                    holder: other.to_string(),
                    until,
                }
            }
            _ => Lease::Acquired,
        }
    }

    /// Refuses a write to run `run` by `holder` unless it holds the lease (`current`, as
    /// read under the store's lock), with [`RunStoreError::LeaseLost`].
    pub fn require_held(
        run: &str,
        current: Option<&str>,
        holder: &str,
    ) -> Result<(), RunStoreError> {
        if current == Some(holder) {
            Ok(())
        } else {
            Err(RunStoreError::LeaseLost {
                run: run.to_string(),
            })
        }
    }
}

/// A failure of a run store.
#[derive(Debug, thiserror::Error)]
pub enum RunStoreError {
    /// No run has this id.
    #[error("no run `{0}` in the store")]
    NotFound(String),
    /// A run with this id exists.
    #[error("a run `{0}` already exists in the store")]
    Exists(String),
    /// The writer no longer holds the run's lease: another process took it over.
    #[error("run `{run}`: this process no longer holds its lease (another process resumed it)")]
    LeaseLost {
        /// The run.
        run: String,
    },
    /// A record could not be read back.
    #[error("the run store holds an unreadable record: {0}")]
    Corrupt(String),
    /// The database failed.
    #[error("run store: {message}")]
    Backend {
        /// What failed.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
}

impl RunStoreError {
    /// A database failure with a message only.
    pub fn backend(message: impl Into<String>) -> Self {
        Self::Backend {
            message: message.into(),
            source: None,
        }
    }
}

/// Runs kept in a database shared by every process that may resume them.
///
/// Every write made for a run in progress names the lease `holder`; it is refused with
/// [`RunStoreError::LeaseLost`] when another holder has taken the lease over.
#[async_trait]
pub trait RunStore: Send + Sync {
    /// Creates `run`, `running`, its lease held by `holder` until `lease_until`.
    async fn create(
        &self,
        run: &NewRun,
        holder: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<(), RunStoreError>;

    /// The run with this id.
    async fn get(&self, id: &str) -> Result<Option<RunRecord>, RunStoreError>;

    /// Up to `limit` runs, newest first.
    async fn list(&self, limit: usize) -> Result<Vec<RunRecord>, RunStoreError>;

    /// Takes the lease of run `id` for `holder` until `until` when it is free, lapsed
    /// before `now`, already `holder`'s, or held by `takeover` (a holder known dead);
    /// the run becomes `running` again, its cancel request cleared.
    async fn acquire(
        &self,
        id: &str,
        holder: &str,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        takeover: Option<&str>,
    ) -> Result<Lease, RunStoreError>;

    /// Extends `holder`'s lease to `until`; returns whether a stop was requested.
    async fn renew(
        &self,
        id: &str,
        holder: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, RunStoreError>;

    /// Sets how many units the run has in all, once the work knows (a review's checklist is
    /// made after the run starts).
    async fn set_units_total(
        &self,
        id: &str,
        holder: &str,
        total: u64,
    ) -> Result<(), RunStoreError>;

    /// Appends finished units (a unit already recorded under its kind and key is kept as
    /// it was) and counts those with `counts` set.
    async fn record_units(
        &self,
        id: &str,
        holder: &str,
        units: &[RunUnit],
    ) -> Result<(), RunStoreError>;

    /// Every unit recorded for the run, in the order written.
    async fn units(&self, id: &str) -> Result<Vec<RunUnit>, RunStoreError>;

    /// Appends an answered model request and adds its usage to the run's spending.
    async fn record_request(
        &self,
        id: &str,
        holder: &str,
        request: &RunRequest,
    ) -> Result<(), RunStoreError>;

    /// Every model request recorded for the run.
    async fn requests(&self, id: &str) -> Result<Vec<RunRequest>, RunStoreError>;

    /// Ends the run (its lease released), keeping its result.
    async fn finish(&self, id: &str, holder: &str, end: &RunEnd) -> Result<(), RunStoreError>;

    /// The result kept when the run ended.
    async fn result(&self, id: &str) -> Result<Option<String>, RunStoreError>;

    /// Asks the run to stop at its next unit of work; `false` when it has already ended.
    async fn request_cancel(&self, id: &str) -> Result<bool, RunStoreError>;

    /// Deletes runs that ended before `ended_before`, and the oldest ended runs beyond the
    /// newest `keep`; running ones are never deleted. Returns how many were deleted.
    async fn prune(&self, keep: usize, ended_before: DateTime<Utc>) -> Result<u64, RunStoreError>;
}

/// How long a lease lasts unless renewed, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

#[cfg(test)]
mod tests;
