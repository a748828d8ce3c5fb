//! Calls parked for a person's consent, shared by several servers through a
//! [`ConfirmationStore`]: a call one server parks is listed, confirmed or rejected by any
//! server on the same store, exactly once. It sits beside the dispatcher's own queue
//! because it is the same consent: a shared call is decided by the dispatcher's
//! [`Dispatcher::apply_decision`], as one of its own queue by [`Dispatcher::decide`].
//!
//! The dispatcher parks a call in its own queue (one process); [`SharedConfirmations::adopt`]
//! moves it into the store, under an id the store gives (`shared-<n>`), with the expiry the
//! dispatcher's time to live gives it. Confirming takes the call out of the store atomically
//! and runs it on this server's dispatcher, exactly as the dispatcher would have run it.
//! The stores themselves (SQLite, PostgreSQL) are the packs crate's.

use std::collections::VecDeque;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Dispatcher;
use crate::confirm::{ConfirmationError, Decision, PendingConfirmation};
use crate::context::SkillContext;
use crate::result::SkillResult;

/// A failure of the store shared consent is kept in; nothing was decided.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ConfirmationStoreError {
    /// What went wrong.
    pub message: String,
    /// The underlying error.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl ConfirmationStoreError {
    /// An error with a message only.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }
}

/// A call parked for a person's consent, as a store shared by several servers keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredConfirmation {
    /// Its id, given by the store (`shared-<n>`); unique across the servers sharing it.
    pub id: String,
    /// The skill to run.
    pub skill_id: String,
    /// The arguments it runs with (already checked and leniently fixed).
    pub arguments: Value,
    /// The sentence a person is asked to agree to.
    pub summary: String,
    /// Whether it fills left-out arguments from the host's state when it runs.
    pub from_state: bool,
    /// When it was parked.
    pub parked_at: DateTime<Utc>,
    /// When it is dropped without running if nobody decided.
    pub expires_at: DateTime<Utc>,
}

/// What taking a parked call out of the store found.
#[derive(Debug, Clone, PartialEq)]
pub enum TakenConfirmation {
    /// The call, now removed: the taker decides it, no one else can.
    Taken(StoredConfirmation),
    /// The call waited past its expiry: it stays listed as expired and never runs.
    Expired(StoredConfirmation),
    /// No call has this id (never parked, or already decided).
    Unknown,
}

/// Calls parked for a person's consent, shared by every server on the store: parked by one,
/// listed, confirmed or rejected by any, each decided exactly once.
#[async_trait]
pub trait ConfirmationStore: Send + Sync {
    /// Parks `call` (its `id` is ignored) and returns the id the store gave it.
    async fn park(&self, call: &StoredConfirmation) -> Result<String, ConfirmationStoreError>;
    /// Takes the call `id` out, atomically: of several servers taking it at once, one gets
    /// it. An expired call is not taken.
    async fn take(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<TakenConfirmation, ConfirmationStoreError>;
    /// The calls waiting at `now`, oldest first.
    async fn pending(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<StoredConfirmation>, ConfirmationStoreError>;
    /// The calls that expired undecided, newest first, at most `limit`.
    async fn expired(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<StoredConfirmation>, ConfirmationStoreError>;
}

/// The prefix of the ids a [`ConfirmationStore`] gives.
pub const SHARED_CONFIRMATION_PREFIX: &str = "shared-";

/// Why a shared call could not be decided.
#[derive(Debug, thiserror::Error)]
pub enum SharedConfirmationError {
    /// It is not pending: never parked, decided already (here or on another server), or
    /// expired.
    #[error(transparent)]
    Decision(#[from] ConfirmationError),
    /// The store could not be read or written; nothing ran.
    #[error("the shared confirmation store failed, so nothing ran: {0}")]
    Store(#[from] ConfirmationStoreError),
}

/// How many recent moves into the store are remembered (local id → stored call), so a call
/// two clients of one server move at once (an MCP answer, the console's page) is stored once.
const ADOPTIONS_KEPT: usize = 256;

/// A dispatcher's consent queue, kept in a store several servers share.
#[derive(Clone)]
pub struct SharedConfirmations {
    dispatcher: Dispatcher,
    store: Arc<dyn ConfirmationStore>,
    /// The latest calls moved into the store, newest first; held while one is moved.
    adopted: Arc<tokio::sync::Mutex<VecDeque<(String, StoredConfirmation)>>>,
}

impl std::fmt::Debug for SharedConfirmations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedConfirmations")
            .field("ttl", &self.dispatcher.confirmation_ttl())
            .finish_non_exhaustive()
    }
}

impl SharedConfirmations {
    /// Calls parked by `dispatcher` wait in `store`; confirmed ones run on `dispatcher`.
    pub fn new(dispatcher: Dispatcher, store: Arc<dyn ConfirmationStore>) -> Self {
        Self {
            dispatcher,
            store,
            adopted: Arc::default(),
        }
    }

    /// The dispatcher confirmed calls run on.
    pub fn dispatcher(&self) -> &Dispatcher {
        &self.dispatcher
    }

    /// Moves a call the dispatcher parked into the store and returns it as stored (with the
    /// store's id). It expires when it would have in the dispatcher's queue. When the store
    /// cannot be written the call stays in the dispatcher's queue, decidable on this server
    /// only, and the error says so. Moving a call already moved returns the stored call;
    /// a call no longer in the dispatcher's queue (decided, expired) is an error.
    pub async fn adopt(
        &self,
        pending: &PendingConfirmation,
    ) -> Result<StoredConfirmation, ConfirmationStoreError> {
        let mut adopted = self.adopted.lock().await;
        if let Some((_, stored)) = adopted.iter().find(|(local, _)| *local == pending.id) {
            return Ok(stored.clone());
        }
        if !self
            .dispatcher
            .pending_confirmations()
            .iter()
            .any(|p| p.id == pending.id)
        {
            return Err(ConfirmationStoreError::new(format!(
                "the parked call `{}` no longer waits on this server (decided or expired), so it was not shared",
                pending.id
            )));
        }
        let now = Utc::now();
        let left = self
            .dispatcher
            .confirmation_ttl()
            .saturating_sub(pending.waited());
        let expires_at = now + chrono::TimeDelta::from_std(left).unwrap_or(chrono::TimeDelta::MAX);
        let mut call = StoredConfirmation {
            id: String::new(),
            skill_id: pending.skill_id.clone(),
            arguments: pending.arguments.clone(),
            summary: pending.summary.clone(),
            from_state: pending.prepares_from_state(),
            parked_at: now,
            expires_at,
        };
        call.id = self.store.park(&call).await.map_err(|err| {
            tracing::warn!(pending = %pending.id, error = %err, "parked call not shared; it can be decided on this server only");
            err
        })?;
        // Out of the local queue: from now on the store's copy is the only one.
        if self
            .dispatcher
            .reject(&pending.id, Some("moved to the shared confirmation store"))
            .is_err()
        {
            tracing::debug!(pending = %pending.id, "parked call was decided meanwhile");
        }
        tracing::info!(local = %pending.id, shared = %call.id, skill = %call.skill_id, "parked call shared");
        adopted.push_front((pending.id.clone(), call.clone()));
        adopted.truncate(ADOPTIONS_KEPT);
        Ok(call)
    }

    /// Moves every call waiting in the dispatcher's own queue into the store (calls parked by
    /// this server's other clients, such as its console).
    pub async fn adopt_all(&self) -> Result<(), ConfirmationStoreError> {
        for pending in self.dispatcher.pending_confirmations() {
            self.adopt(&pending).await?;
        }
        Ok(())
    }

    /// The calls waiting for a decision on any server, oldest first (this server's own
    /// parked calls are shared first).
    pub async fn pending(&self) -> Result<Vec<StoredConfirmation>, ConfirmationStoreError> {
        self.adopt_all().await?;
        self.store.pending(Utc::now()).await
    }

    /// The calls that expired undecided, newest first, at most `limit`.
    pub async fn expired(
        &self,
        limit: usize,
    ) -> Result<Vec<StoredConfirmation>, ConfirmationStoreError> {
        self.store.expired(Utc::now(), limit).await
    }

    /// Takes call `id` out of the store (a local id goes to the dispatcher's queue).
    async fn take(&self, id: &str) -> Result<StoredConfirmation, SharedConfirmationError> {
        match self.store.take(id, Utc::now()).await? {
            TakenConfirmation::Taken(call) => Ok(call),
            TakenConfirmation::Expired(call) => Err(ConfirmationError::Expired {
                id: id.to_string(),
                ttl: (call.expires_at - call.parked_at)
                    .to_std()
                    .unwrap_or_default(),
            }
            .into()),
            TakenConfirmation::Unknown => {
                Err(ConfirmationError::UnknownPending(id.to_string()).into())
            }
        }
    }

    /// Runs a parked call a person agreed to, on this server, with the arguments it was
    /// parked with; no other server can run it too.
    pub async fn confirm(
        &self,
        id: &str,
        ctx: &SkillContext,
    ) -> Result<SkillResult, SharedConfirmationError> {
        self.decide(id, Decision::Approve, ctx).await
    }

    /// Drops a parked call a person refused; the result tells the model not to retry.
    pub async fn reject(
        &self,
        id: &str,
        reason: Option<&str>,
    ) -> Result<SkillResult, SharedConfirmationError> {
        let decision = Decision::Reject(reason.map(str::to_string));
        self.decide(id, decision, &SkillContext::new()).await
    }

    /// A person's decision on call `id`, wherever it waits: a shared call is taken out of
    /// the store (so no other server decides it too) and decided by this server's
    /// dispatcher ([`Dispatcher::apply_decision`]) exactly as a call of its own queue
    /// ([`Dispatcher::decide`]).
    pub async fn decide(
        &self,
        id: &str,
        decision: Decision,
        ctx: &SkillContext,
    ) -> Result<SkillResult, SharedConfirmationError> {
        if !id.starts_with(SHARED_CONFIRMATION_PREFIX) || matches!(decision, Decision::Decided(_)) {
            return Ok(self.dispatcher.decide(id, decision, ctx).await?);
        }
        let call = self.take(id).await?;
        let pending = PendingConfirmation::parked_elsewhere(
            call.id,
            call.skill_id,
            call.arguments,
            call.summary,
            call.from_state,
        );
        Ok(self.dispatcher.apply_decision(pending, decision, ctx).await)
    }
}
