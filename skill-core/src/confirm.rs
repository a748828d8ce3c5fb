//! Confirmation of write operations (seed 004): a call of a skill that needs confirmation
//! does not run; it becomes a [`PendingConfirmation`] the host shows to a person, then
//! confirms ([`Dispatcher::confirm`](crate::Dispatcher::confirm)) or rejects
//! ([`Dispatcher::reject`](crate::Dispatcher::reject)).
//!
//! A host that has already asked (or runs unattended by policy) puts [`Confirmed`] into the
//! [`SkillContext`](crate::SkillContext) to run such calls directly.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::registration::PrepareMode;

/// Context marker: the host has confirmed the calls made with this context.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confirmed;

/// A call waiting for the host's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingConfirmation {
    /// Id to confirm or reject it by.
    pub id: String,
    /// The skill to run.
    pub skill_id: String,
    /// The arguments it will run with (already checked and leniently fixed).
    pub arguments: Value,
    /// One sentence for the person deciding.
    pub summary: String,
    #[serde(skip, default = "default_mode")]
    pub(crate) mode: PrepareMode,
}

fn default_mode() -> PrepareMode {
    PrepareMode::FromState
}

/// Why a confirmation or rejection could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfirmationError {
    /// No pending call has this id (never created, or already decided).
    #[error("no pending confirmation with id `{0}`; it was never created or was already confirmed or rejected")]
    UnknownPending(String),
}

/// Pending calls of one dispatcher.
#[derive(Debug, Default)]
pub(crate) struct ConfirmationQueue {
    next: AtomicU64,
    pending: Mutex<HashMap<String, PendingConfirmation>>,
}

impl ConfirmationQueue {
    /// Stores a new pending call, with the sentence a person is asked to agree to, and
    /// returns it.
    pub(crate) fn push(
        &self,
        skill_id: &str,
        summary: String,
        arguments: Value,
        mode: PrepareMode,
    ) -> PendingConfirmation {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let pending = PendingConfirmation {
            id: format!("confirm-{n}"),
            skill_id: skill_id.to_string(),
            summary,
            arguments,
            mode,
        };
        self.lock().insert(pending.id.clone(), pending.clone());
        pending
    }

    /// Removes and returns a pending call.
    pub(crate) fn take(&self, id: &str) -> Result<PendingConfirmation, ConfirmationError> {
        self.lock()
            .remove(id)
            .ok_or_else(|| ConfirmationError::UnknownPending(id.to_string()))
    }

    /// All pending calls, oldest first.
    pub(crate) fn list(&self) -> Vec<PendingConfirmation> {
        let mut list: Vec<PendingConfirmation> = self.lock().values().cloned().collect();
        list.sort_by_key(|p| {
            p.id.trim_start_matches("confirm-")
                .parse::<u64>()
                .unwrap_or(0)
        });
        list
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, PendingConfirmation>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}
