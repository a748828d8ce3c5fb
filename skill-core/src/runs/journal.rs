//! One process's hold on a run: the lease kept alive, finished units written in batches,
//! model answers recorded before they are used and replayed on resume.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use super::{Lease, NewRun, RunEnd, RunRequest, RunStore, RunStoreError, RunUnit, DEFAULT_LEASE};
use crate::agent::{ChatMessage, LlmClient, LlmError, LlmResponse};
use crate::Dialect;

/// Units buffered before a write is started without waiting for the next tick.
const UNIT_BATCH: usize = 512;

/// How a journal keeps its lease and writes its units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JournalOptions {
    /// How long the lease lasts unless renewed: how long another host waits to resume a run
    /// whose process died without a word.
    pub lease: Duration,
    /// How often the lease is renewed and a stop request read.
    pub heartbeat: Duration,
    /// How often buffered units are written.
    pub flush_every: Duration,
}

impl Default for JournalOptions {
    fn default() -> Self {
        Self {
            lease: DEFAULT_LEASE,
            heartbeat: Duration::from_secs(1),
            flush_every: Duration::from_millis(200),
        }
    }
}

/// Whether a journal started a run or resumed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Started {
    /// A new run.
    New,
    /// A run resumed with what it had recorded.
    Resumed {
        /// Units recorded before.
        units: usize,
        /// Model answers recorded before.
        requests: usize,
    },
}

/// Why a run could not be resumed.
#[derive(Debug, thiserror::Error)]
pub enum ResumeRefused {
    /// Another live process works on it.
    #[error("run `{run}` is being worked on by {holder} (lease until {until}); wait for it to end or lapse")]
    Held {
        /// The run.
        run: String,
        /// The process.
        holder: String,
        /// Until when its lease holds.
        until: chrono::DateTime<Utc>,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] RunStoreError),
}

/// This process's hold on one run (see the [module docs](super)). Shared by every task of
/// the run; dropping the last handle stops the heartbeat (the lease then lapses).
pub struct RunJournal {
    store: Arc<dyn RunStore>,
    id: String,
    holder: String,
    started: Started,
    recorded_units: Vec<RunUnit>,
    replay: Mutex<HashMap<(String, u32), Value>>,
    occurrences: Mutex<HashMap<String, u32>>,
    buffer: Mutex<Vec<RunUnit>>,
    /// Held while a batch is taken and written, so that ending the run waits for a batch
    /// in flight instead of cutting it off.
    flushing: tokio::sync::Mutex<()>,
    wake_writer: Notify,
    stop_requested: AtomicBool,
    lease_lost: AtomicBool,
    write_failed: Mutex<Option<String>>,
    replayed: AtomicU64,
    sent: AtomicU64,
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    options: JournalOptions,
}

impl std::fmt::Debug for RunJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunJournal")
            .field("id", &self.id)
            .field("holder", &self.holder)
            .field("started", &self.started)
            .finish_non_exhaustive()
    }
}

impl RunJournal {
    /// Creates `run` in `store` and holds it. Needs a tokio runtime (the heartbeat and the
    /// unit writer are tasks on it).
    pub async fn create(
        store: Arc<dyn RunStore>,
        run: &NewRun,
        options: JournalOptions,
    ) -> Result<Arc<Self>, RunStoreError> {
        let holder = holder_id();
        store.create(run, &holder, lease_until(&options)).await?;
        Ok(Self::start(
            store,
            run.id.clone(),
            holder,
            Started::New,
            Vec::new(),
            Vec::new(),
            options,
        ))
    }

    /// Takes run `id` over to go on with it: refused while another live process holds it.
    /// A holder on this host whose process is gone is taken over at once; elsewhere, once
    /// its lease lapsed. The caller checks beforehand that the run is the one it means to
    /// resume (its fingerprint and options).
    pub async fn resume(
        store: Arc<dyn RunStore>,
        id: &str,
        options: JournalOptions,
    ) -> Result<Arc<Self>, ResumeRefused> {
        let record = store
            .get(id)
            .await?
            .ok_or_else(|| RunStoreError::NotFound(id.to_string()))?;
        let holder = holder_id();
        let dead = record.lease_holder.as_deref().filter(|h| holder_is_gone(h));
        match store
            .acquire(id, &holder, lease_until(&options), Utc::now(), dead)
            .await?
        {
            Lease::Acquired => {}
            Lease::Held { holder, until } => {
                return Err(ResumeRefused::Held {
                    run: id.to_string(),
                    holder,
                    until,
                })
            }
        }
        let units = store.units(id).await?;
        let requests = store.requests(id).await?;
        let started = Started::Resumed {
            units: units.len(),
            requests: requests.len(),
        };
        Ok(Self::start(
            store,
            id.to_string(),
            holder,
            started,
            units,
            requests,
            options,
        ))
    }

    fn start(
        store: Arc<dyn RunStore>,
        id: String,
        holder: String,
        started: Started,
        recorded_units: Vec<RunUnit>,
        requests: Vec<RunRequest>,
        options: JournalOptions,
    ) -> Arc<Self> {
        let replay = requests
            .into_iter()
            .map(|r| ((r.key, r.occurrence), r.response))
            .collect();
        let journal = Arc::new(Self {
            store,
            id,
            holder,
            started,
            recorded_units,
            replay: Mutex::new(replay),
            occurrences: Mutex::new(HashMap::new()),
            buffer: Mutex::new(Vec::new()),
            flushing: tokio::sync::Mutex::new(()),
            wake_writer: Notify::new(),
            stop_requested: AtomicBool::new(false),
            lease_lost: AtomicBool::new(false),
            write_failed: Mutex::new(None),
            replayed: AtomicU64::new(0),
            sent: AtomicU64::new(0),
            tasks: Mutex::new(Vec::new()),
            options,
        });
        let heartbeat = tokio::spawn(heartbeat(Arc::downgrade(&journal)));
        let writer = tokio::spawn(unit_writer(Arc::downgrade(&journal)));
        *lock(&journal.tasks) = vec![heartbeat, writer];
        journal
    }

    /// The run's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// This process's name as the lease holder (`host/pid/nonce`).
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Whether the run is new or resumed.
    pub fn started(&self) -> Started {
        self.started
    }

    /// The units recorded before this process took the run.
    pub fn recorded_units(&self) -> &[RunUnit] {
        &self.recorded_units
    }

    /// The store it records in.
    pub fn store(&self) -> &Arc<dyn RunStore> {
        &self.store
    }

    /// Model answers replayed from the record, and sent to the model, by this process.
    pub fn request_counts(&self) -> (u64, u64) {
        (
            self.replayed.load(Ordering::Relaxed),
            self.sent.load(Ordering::Relaxed),
        )
    }

    /// Whether someone asked the run to stop (read at each heartbeat).
    pub fn stop_requested(&self) -> bool {
        self.stop_requested.load(Ordering::Relaxed)
    }

    /// Whether another process took the lease over: this one must stop.
    pub fn lease_lost(&self) -> bool {
        self.lease_lost.load(Ordering::Relaxed)
    }

    /// Completes when the run should stop: a stop was requested or the lease was lost.
    pub async fn stopped(&self) {
        loop {
            if self.stop_requested() || self.lease_lost() {
                return;
            }
            tokio::time::sleep(self.options.heartbeat.min(Duration::from_millis(250))).await;
        }
    }

    /// Sets how many units the run has in all (written now).
    pub async fn set_units_total(&self, total: u64) -> Result<(), RunStoreError> {
        let written = self
            .store
            .set_units_total(&self.id, &self.holder, total)
            .await;
        if let Err(RunStoreError::LeaseLost { .. }) = &written {
            self.lease_lost.store(true, Ordering::Relaxed);
        }
        written
    }

    /// Records a finished unit; it is written within [`JournalOptions::flush_every`] (a
    /// process killed before that does the unit again on resume).
    pub fn record_unit(&self, unit: RunUnit) {
        let full = {
            let mut buffer = lock(&self.buffer);
            buffer.push(unit);
            buffer.len() >= UNIT_BATCH
        };
        if full {
            self.wake_writer.notify_one();
        }
    }

    /// Writes the buffered units now (after a batch already being written).
    pub async fn flush(&self) -> Result<(), RunStoreError> {
        let _writing = self.flushing.lock().await;
        self.write_buffered().await
    }

    /// Writes the buffered units; the caller holds `flushing`.
    async fn write_buffered(&self) -> Result<(), RunStoreError> {
        let units = std::mem::take(&mut *lock(&self.buffer));
        if units.is_empty() {
            return Ok(());
        }
        let written = self
            .store
            .record_units(&self.id, &self.holder, &units)
            .await;
        if let Err(RunStoreError::LeaseLost { .. }) = &written {
            self.lease_lost.store(true, Ordering::Relaxed);
        }
        written
    }

    /// The first failure of a background write, if any.
    pub fn write_failure(&self) -> Option<String> {
        lock(&self.write_failed).clone()
    }

    /// Writes what is buffered and ends the run with `end`; the lease is released.
    pub async fn finish(&self, end: &RunEnd) -> Result<(), RunStoreError> {
        {
            // No batch is in flight while the lock is held: the writer stops between batches.
            let _writing = self.flushing.lock().await;
            self.write_buffered().await?;
            self.stop_tasks();
        }
        self.store.finish(&self.id, &self.holder, end).await
    }

    /// The recorded answer to the `occurrence`-th request with `key`, taken out of the
    /// replay table.
    fn replayed(&self, key: &str, occurrence: u32) -> Option<Value> {
        lock(&self.replay).remove(&(key.to_string(), occurrence))
    }

    /// Which time this run makes the request with `key`, from 0.
    fn occurrence(&self, key: &str) -> u32 {
        let mut seen = lock(&self.occurrences);
        let n = seen.entry(key.to_string()).or_insert(0);
        let occurrence = *n;
        *n += 1;
        occurrence
    }

    async fn record_request(&self, request: &RunRequest) -> Result<(), RunStoreError> {
        let written = self
            .store
            .record_request(&self.id, &self.holder, request)
            .await;
        if let Err(RunStoreError::LeaseLost { .. }) = &written {
            self.lease_lost.store(true, Ordering::Relaxed);
        }
        written
    }

    fn stop_tasks(&self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }
}

impl Drop for RunJournal {
    fn drop(&mut self) {
        self.stop_tasks();
    }
}

/// Renews the lease every heartbeat and reads the stop request, until the journal goes.
async fn heartbeat(journal: std::sync::Weak<RunJournal>) {
    loop {
        let period = match journal.upgrade() {
            Some(j) => j.options.heartbeat,
            None => return,
        };
        tokio::time::sleep(period).await;
        let Some(j) = journal.upgrade() else { return };
        match j
            .store
            .renew(&j.id, &j.holder, lease_until(&j.options))
            .await
        {
            Ok(stop) => j.stop_requested.store(stop, Ordering::Relaxed),
            Err(RunStoreError::LeaseLost { .. }) => {
                tracing::warn!(run = %j.id, "lease of the run taken over by another process");
                j.lease_lost.store(true, Ordering::Relaxed);
                return;
            }
            Err(err) => tracing::warn!(run = %j.id, error = %err, "cannot renew the run's lease"),
        }
    }
}

/// Writes buffered units every `flush_every` or when a batch is full.
async fn unit_writer(journal: std::sync::Weak<RunJournal>) {
    loop {
        let (period, wake) = match journal.upgrade() {
            Some(j) => (j.options.flush_every, Arc::clone(&j)),
            None => return,
        };
        tokio::select! {
            () = tokio::time::sleep(period) => {}
            () = wake.wake_writer.notified() => {}
        }
        drop(wake);
        let Some(j) = journal.upgrade() else { return };
        if let Err(err) = j.flush().await {
            tracing::warn!(run = %j.id, error = %err, "cannot record finished units");
            lock(&j.write_failed).get_or_insert_with(|| err.to_string());
        }
    }
}

fn lease_until(options: &JournalOptions) -> chrono::DateTime<Utc> {
    Utc::now() + chrono::Duration::from_std(options.lease).unwrap_or(chrono::Duration::MAX)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// This process as a lease holder: `host/pid/nonce`.
fn holder_id() -> String {
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{}/{}/{nonce:08x}", host_name(), std::process::id())
}

fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && !h.contains('/'))
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.contains('/')))
        .unwrap_or_else(|| "localhost".into())
}

/// Whether `holder` names a process of this host that no longer exists (read from `/proc`
/// where there is one; elsewhere never: the lease must lapse).
pub(super) fn holder_is_gone(holder: &str) -> bool {
    let mut parts = holder.split('/');
    let (Some(host), Some(pid)) = (parts.next(), parts.next()) else {
        return false;
    };
    if host != host_name() || !std::path::Path::new("/proc/self").exists() {
        return false;
    }
    match pid.parse::<u32>() {
        Ok(pid) if pid == std::process::id() => false,
        Ok(pid) => !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        Err(_) => false,
    }
}

/// The digest a model request is recorded under: the model, the dialect, the temperature,
/// the messages and the tools, as sent. Two requests with one key get the same answer from
/// a deterministic model, so the record can stand in for it.
pub fn request_key(
    model: Option<&str>,
    dialect: Dialect,
    messages: &[ChatMessage],
    tools: &[Value],
    temperature: f32,
) -> String {
    let mut hash = Sha256::new();
    hash.update(model.unwrap_or_default().as_bytes());
    hash.update([0]);
    hash.update(format!("{dialect:?}").as_bytes());
    hash.update([0]);
    hash.update(temperature.to_bits().to_le_bytes());
    // Serializing these types cannot fail (string keys, finite numbers).
    hash.update(serde_json::to_vec(messages).unwrap_or_default());
    hash.update([0]);
    hash.update(serde_json::to_vec(tools).unwrap_or_default());
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A model client whose answers belong to a durable run: an answer the run recorded is
/// replayed (no request is sent), any other is requested, recorded, then returned.
pub struct JournaledClient {
    inner: Arc<dyn LlmClient>,
    journal: Arc<RunJournal>,
    label: String,
}

impl std::fmt::Debug for JournaledClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JournaledClient")
            .field("run", &self.journal.id)
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl JournaledClient {
    /// `inner`'s requests, recorded in `journal` under `label` (who asks: `planner`, ...).
    pub fn new(
        inner: Arc<dyn LlmClient>,
        journal: Arc<RunJournal>,
        label: impl Into<String>,
    ) -> Self {
        Self {
            inner,
            journal,
            label: label.into(),
        }
    }
}

#[async_trait]
impl LlmClient for JournaledClient {
    fn dialect(&self) -> Dialect {
        self.inner.dialect()
    }

    fn model(&self) -> Option<&str> {
        self.inner.model()
    }

    async fn chat_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: &[Value],
        temperature: f32,
    ) -> Result<LlmResponse, LlmError> {
        let key = request_key(self.model(), self.dialect(), messages, tools, temperature);
        let occurrence = self.journal.occurrence(&key);
        if let Some(recorded) = self.journal.replayed(&key, occurrence) {
            match serde_json::from_value::<LlmResponse>(recorded) {
                Ok(answer) => {
                    self.journal.replayed.fetch_add(1, Ordering::Relaxed);
                    return Ok(answer);
                }
                Err(err) => tracing::warn!(
                    run = %self.journal.id, error = %err,
                    "a recorded model answer is unreadable; asking the model again"
                ),
            }
        }
        if self.journal.lease_lost() {
            return Err(LlmError::Record(format!(
                "run `{}` was taken over by another process",
                self.journal.id
            )));
        }
        let answer = self
            .inner
            .chat_with_tools(messages, tools, temperature)
            .await?;
        self.journal.sent.fetch_add(1, Ordering::Relaxed);
        let response =
            serde_json::to_value(&answer).map_err(|e| LlmError::Record(e.to_string()))?;
        let request = RunRequest {
            key,
            occurrence,
            label: self.label.clone(),
            response,
            usage: answer.usage.unwrap_or_default(),
        };
        self.journal
            .record_request(&request)
            .await
            .map_err(|e| LlmError::Record(e.to_string()))?;
        Ok(answer)
    }
}
