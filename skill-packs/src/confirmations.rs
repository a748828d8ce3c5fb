//! Calls parked for a person's consent, shared by several servers through a
//! [`ConfirmationStore`]: a call one server parks is listed, confirmed or rejected by any
//! server on the same store, exactly once.
//!
//! The dispatcher parks a call in its own queue (one process); [`SharedConfirmations::adopt`]
//! moves it into the store, under an id the store gives (`shared-<n>`), with the expiry the
//! dispatcher's time to live gives it. Confirming takes the call out of the store atomically
//! and runs it on this server's dispatcher, exactly as the dispatcher would have run it.

use std::collections::VecDeque;
use std::sync::Arc;

use chrono::Utc;
use serde_json::json;
use toolwright::{
    codes, ConfirmationError, Confirmed, Dispatcher, PendingConfirmation, SkillContext, SkillError,
    SkillResult,
};

use crate::store::{
    ConfirmationStore, StoreError, StoredConfirmation, TakenConfirmation,
    SHARED_CONFIRMATION_PREFIX,
};

/// Why a shared call could not be decided.
#[derive(Debug, thiserror::Error)]
pub enum SharedConfirmationError {
    /// It is not pending: never parked, decided already (here or on another server), or
    /// expired.
    #[error(transparent)]
    Decision(#[from] ConfirmationError),
    /// The store could not be read or written; nothing ran.
    #[error("the shared confirmation store failed, so nothing ran: {0}")]
    Store(#[from] StoreError),
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
    ) -> Result<StoredConfirmation, StoreError> {
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
            return Err(StoreError::new(format!(
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
    pub async fn adopt_all(&self) -> Result<(), StoreError> {
        for pending in self.dispatcher.pending_confirmations() {
            self.adopt(&pending).await?;
        }
        Ok(())
    }

    /// The calls waiting for a decision on any server, oldest first (this server's own
    /// parked calls are shared first).
    pub async fn pending(&self) -> Result<Vec<StoredConfirmation>, StoreError> {
        self.adopt_all().await?;
        self.store.pending(Utc::now()).await
    }

    /// The calls that expired undecided, newest first, at most `limit`.
    pub async fn expired(&self, limit: usize) -> Result<Vec<StoredConfirmation>, StoreError> {
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
        if !id.starts_with(SHARED_CONFIRMATION_PREFIX) {
            return Ok(self.dispatcher.confirm(id, ctx).await?);
        }
        let call = self.take(id).await?;
        tracing::info!(skill = %call.skill_id, pending = id, "shared call confirmed");
        let ctx = ctx.clone().with(Confirmed);
        Ok(if call.from_state {
            self.dispatcher
                .call(&call.skill_id, &call.arguments, &ctx)
                .await
        } else {
            self.dispatcher
                .call_unprepared(&call.skill_id, &call.arguments, &ctx)
                .await
        })
    }

    /// Drops a parked call a person refused; the result tells the model not to retry.
    pub async fn reject(
        &self,
        id: &str,
        reason: Option<&str>,
    ) -> Result<SkillResult, SharedConfirmationError> {
        if !id.starts_with(SHARED_CONFIRMATION_PREFIX) {
            return Ok(self.dispatcher.reject(id, reason)?);
        }
        let call = self.take(id).await?;
        tracing::info!(skill = %call.skill_id, pending = id, "shared call rejected");
        let registration = self.dispatcher.registration(&call.skill_id);
        let wire = registration.map_or(call.skill_id.as_str(), |s| s.wire_name);
        let mut message = format!("the user rejected the call of `{wire}`");
        if let Some(reason) = reason {
            message.push_str(": ");
            message.push_str(reason);
        }
        message.push_str("; do not retry it unless the user asks");
        let err = SkillError::new(codes::CONFIRMATION_REJECTED, message).with_details(json!({
            "pending_confirmation": {
                "id": call.id,
                "skill_id": call.skill_id,
                "arguments": call.arguments,
                "summary": call.summary,
            }
        }));
        let skill_id = registration.map_or_else(
            || std::borrow::Cow::Owned(call.skill_id.clone()),
            |s| std::borrow::Cow::Borrowed(s.id),
        );
        Ok(SkillResult::err(skill_id, err, 0.0))
    }
}
