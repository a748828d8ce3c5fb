//! Runs kept in this process's memory: the [`RunStore`] of tests and of hosts that need
//! the bookkeeping (progress, stop requests) but not survival.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{
    Lease, NewRun, RunEnd, RunRecord, RunRequest, RunStatus, RunStore, RunStoreError, RunUnit,
};

#[derive(Debug, Default)]
struct Entry {
    record: Option<RunRecord>,
    units: Vec<RunUnit>,
    requests: Vec<RunRequest>,
    result: Option<String>,
    order: u64,
}

/// A [`RunStore`] in memory, gone with the process.
#[derive(Debug, Default)]
pub struct MemoryRunStore {
    runs: Mutex<HashMap<String, Entry>>,
    created: Mutex<u64>,
}

impl MemoryRunStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<R>(
        &self,
        id: &str,
        f: impl FnOnce(&mut Entry, &mut RunRecord) -> Result<R, RunStoreError>,
    ) -> Result<R, RunStoreError> {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let entry = runs
            .get_mut(id)
            .ok_or_else(|| RunStoreError::NotFound(id.to_string()))?;
        let mut record = entry.record.take().expect("a stored run has its record");
        let out = f(entry, &mut record);
        entry.record = Some(record);
        out
    }

    /// [`Self::with`] for a write by `holder`, refused unless it holds the run's lease.
    fn held<R>(
        &self,
        id: &str,
        holder: &str,
        f: impl FnOnce(&mut Entry, &mut RunRecord) -> Result<R, RunStoreError>,
    ) -> Result<R, RunStoreError> {
        self.with(id, |entry, record| {
            Lease::require_held(&record.id, record.lease_holder.as_deref(), holder)?;
            f(entry, record)
        })
    }
}

#[async_trait]
impl RunStore for MemoryRunStore {
    async fn create(
        &self,
        run: &NewRun,
        holder: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<(), RunStoreError> {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        if runs.contains_key(&run.id) {
            return Err(RunStoreError::Exists(run.id.clone()));
        }
        let order = {
            let mut n = self.created.lock().unwrap_or_else(|p| p.into_inner());
            *n += 1;
            *n
        };
        let now = Utc::now();
        runs.insert(
            run.id.clone(),
            Entry {
                record: Some(RunRecord {
                    id: run.id.clone(),
                    kind: run.kind.clone(),
                    status: RunStatus::Running,
                    started_at: now,
                    updated_at: now,
                    finished_at: None,
                    fingerprint: run.fingerprint.clone(),
                    spec: run.spec.clone(),
                    units_total: run.units_total,
                    units_done: 0,
                    model_requests: 0,
                    input_tokens: 0,
                    output_tokens: 0,
                    lease_holder: Some(holder.to_string()),
                    lease_until: Some(lease_until),
                    cancel_requested: false,
                    error: None,
                }),
                order,
                ..Entry::default()
            },
        );
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<RunRecord>, RunStoreError> {
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        Ok(runs.get(id).and_then(|e| e.record.clone()))
    }

    async fn list(&self, limit: usize) -> Result<Vec<RunRecord>, RunStoreError> {
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let mut all: Vec<&Entry> = runs.values().collect();
        all.sort_by_key(|e| std::cmp::Reverse(e.order));
        Ok(all
            .into_iter()
            .filter_map(|e| e.record.clone())
            .take(limit)
            .collect())
    }

    async fn acquire(
        &self,
        id: &str,
        holder: &str,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        takeover: Option<&str>,
    ) -> Result<Lease, RunStoreError> {
        self.with(id, |_, record| {
            let lease = Lease::decide(
                record.lease_holder.as_deref(),
                record.lease_until,
                holder,
                now,
                takeover,
            );
            if lease != Lease::Acquired {
                return Ok(lease);
            }
            record.lease_holder = Some(holder.to_string());
            record.lease_until = Some(until);
            record.status = RunStatus::Running;
            record.cancel_requested = false;
            record.finished_at = None;
            record.error = None;
            record.updated_at = now;
            Ok(Lease::Acquired)
        })
    }

    async fn renew(
        &self,
        id: &str,
        holder: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, RunStoreError> {
        self.held(id, holder, |_, record| {
            record.lease_until = Some(until);
            Ok(record.cancel_requested)
        })
    }

    async fn set_units_total(
        &self,
        id: &str,
        holder: &str,
        total: u64,
    ) -> Result<(), RunStoreError> {
        self.held(id, holder, |_, record| {
            record.units_total = total;
            Ok(())
        })
    }

    async fn record_units(
        &self,
        id: &str,
        holder: &str,
        units: &[RunUnit],
    ) -> Result<(), RunStoreError> {
        self.held(id, holder, |entry, record| {
            for unit in units {
                let known = entry
                    .units
                    .iter()
                    .any(|u| u.kind == unit.kind && u.key == unit.key);
                if !known {
                    record.units_done += u64::from(unit.counts);
                    entry.units.push(unit.clone());
                }
            }
            record.updated_at = Utc::now();
            Ok(())
        })
    }

    async fn units(&self, id: &str) -> Result<Vec<RunUnit>, RunStoreError> {
        self.with(id, |entry, _| Ok(entry.units.clone()))
    }

    async fn record_request(
        &self,
        id: &str,
        holder: &str,
        request: &RunRequest,
    ) -> Result<(), RunStoreError> {
        self.held(id, holder, |entry, record| {
            let known = entry
                .requests
                .iter()
                .any(|r| r.key == request.key && r.occurrence == request.occurrence);
            if !known {
                record.model_requests += 1;
                record.input_tokens += request.usage.prompt_tokens;
                record.output_tokens += request.usage.completion_tokens;
                entry.requests.push(request.clone());
            }
            record.updated_at = Utc::now();
            Ok(())
        })
    }

    async fn requests(&self, id: &str) -> Result<Vec<RunRequest>, RunStoreError> {
        self.with(id, |entry, _| Ok(entry.requests.clone()))
    }

    async fn finish(&self, id: &str, holder: &str, end: &RunEnd) -> Result<(), RunStoreError> {
        self.held(id, holder, |entry, record| {
            let now = Utc::now();
            record.status = end.status;
            record.error = end.error.clone();
            record.finished_at = Some(now);
            record.updated_at = now;
            record.lease_holder = None;
            record.lease_until = None;
            entry.result = end.result.clone();
            Ok(())
        })
    }

    async fn result(&self, id: &str) -> Result<Option<String>, RunStoreError> {
        self.with(id, |entry, _| Ok(entry.result.clone()))
    }

    async fn request_cancel(&self, id: &str) -> Result<bool, RunStoreError> {
        self.with(id, |_, record| {
            if record.status.is_terminal() {
                return Ok(false);
            }
            record.cancel_requested = true;
            Ok(true)
        })
    }

    async fn prune(&self, keep: usize, ended_before: DateTime<Utc>) -> Result<u64, RunStoreError> {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let mut ended: Vec<(u64, String, DateTime<Utc>)> = runs
            .values()
            .filter_map(|e| e.record.as_ref().map(|r| (e.order, r)))
            .filter(|(_, r)| r.status.is_terminal())
            .map(|(order, r)| (order, r.id.clone(), r.finished_at.unwrap_or(r.updated_at)))
            .collect();
        ended.sort_by_key(|e| std::cmp::Reverse(e.0));
        let doomed: Vec<String> = ended
            .into_iter()
            .enumerate()
            .filter(|(i, (_, _, at))| *i >= keep || *at < ended_before)
            .map(|(_, (_, id, _))| id)
            .collect();
        for id in &doomed {
            runs.remove(id);
        }
        Ok(doomed.len() as u64)
    }
}
