//! Confirmation of write operations (seed 004): a call of a skill that needs confirmation
//! does not run; it becomes a [`PendingConfirmation`] the host shows to a person, then
//! confirms ([`Dispatcher::confirm`](crate::Dispatcher::confirm)) or rejects
//! ([`Dispatcher::reject`](crate::Dispatcher::reject)).
//!
//! A host that has already asked (or runs unattended by policy) puts [`Confirmed`] into the
//! [`SkillContext`](crate::SkillContext) to run such calls directly.
//!
//! The queue keeps the one clock: a call nobody decided on within the dispatcher's time to
//! live ([`DEFAULT_CONFIRMATION_TTL`] unless the builder sets another) is dropped the next
//! time anyone looks, and deciding on it is refused with [`ConfirmationError::Expired`].

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::registration::PrepareMode;
use crate::result::SkillResult;

/// How long a call waits for a decision unless
/// [`DispatcherBuilder::confirmation_ttl`](crate::DispatcherBuilder::confirmation_ttl) says
/// otherwise: ten minutes.
pub const DEFAULT_CONFIRMATION_TTL: Duration = Duration::from_secs(600);

/// Expired calls remembered for hosts that show them ([`crate::Dispatcher::expired_confirmations`]).
const EXPIRED_KEPT: usize = 50;

/// A person's answer to a call parked for confirmation, as every host hands it to
/// [`Dispatcher::decide`](crate::Dispatcher::decide) (agent loops, MCP servers, the console).
#[derive(Debug, Clone)]
pub enum Decision {
    /// Run the call with the arguments shown.
    Approve,
    /// Do not run it; the reason, if any, is told to the model.
    Reject(Option<String>),
    /// The host decided already and has the outcome (it called
    /// [`Dispatcher::confirm`](crate::Dispatcher::confirm) or
    /// [`Dispatcher::reject`](crate::Dispatcher::reject) itself, for example from a
    /// console's approval): the model reads this result.
    Decided(SkillResult),
}

/// Context marker: the host has confirmed the calls made with this context.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confirmed;

/// A call waiting for the host's decision.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// When the call was parked (by the queue's clock); `None` for one read from JSON.
    #[serde(skip)]
    parked_at: Option<Instant>,
}

impl PartialEq for PendingConfirmation {
    /// The same call: id, skill, arguments, summary and preparation (not the instant).
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.skill_id == other.skill_id
            && self.arguments == other.arguments
            && self.summary == other.summary
            && self.mode == other.mode
    }
}

impl PendingConfirmation {
    /// A call parked outside the dispatcher's queue (a store several servers share), to be
    /// decided by [`Dispatcher::apply_decision`](crate::Dispatcher::apply_decision):
    /// `from_state` says whether it fills left-out arguments from the host's state, as
    /// [`prepares_from_state`](Self::prepares_from_state) reported when it was parked.
    pub fn parked_elsewhere(
        id: impl Into<String>,
        skill_id: impl Into<String>,
        arguments: Value,
        summary: impl Into<String>,
        from_state: bool,
    ) -> Self {
        Self {
            id: id.into(),
            skill_id: skill_id.into(),
            arguments,
            summary: summary.into(),
            mode: if from_state {
                PrepareMode::FromState
            } else {
                PrepareMode::ArgumentsOnly
            },
            parked_at: None,
        }
    }

    /// How long the call has waited so far (zero for one read from JSON).
    pub fn waited(&self) -> Duration {
        self.parked_at.map_or(Duration::ZERO, |at| at.elapsed())
    }

    /// Whether the call, once confirmed, fills the arguments it left out from the host's
    /// state ([`Dispatcher::call`](crate::Dispatcher::call)) or runs with its arguments and
    /// declared defaults only ([`Dispatcher::call_unprepared`](crate::Dispatcher::call_unprepared)):
    /// a host that keeps the call elsewhere (a store shared by several servers) runs it the
    /// same way the dispatcher would have.
    pub fn prepares_from_state(&self) -> bool {
        self.mode == PrepareMode::FromState
    }
}

fn default_mode() -> PrepareMode {
    PrepareMode::FromState
}

/// A call nobody decided on within the time to live: dropped, never run.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpiredConfirmation {
    /// The call as it waited.
    pub pending: PendingConfirmation,
    /// When it was dropped.
    pub at: DateTime<Utc>,
    /// The time to live it outlasted.
    pub ttl: Duration,
}

/// Why a confirmation or rejection could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfirmationError {
    /// No pending call has this id (never created, or already decided).
    #[error("no pending confirmation with id `{0}`; it was never created or was already confirmed or rejected")]
    UnknownPending(String),
    /// The call waited longer than the time to live and was dropped without running.
    #[error("the confirmation `{id}` is no longer pending: nobody decided within {ttl:?}, so the call was dropped without running")]
    Expired {
        /// The pending call's id.
        id: String,
        /// The time to live it outlasted.
        ttl: Duration,
    },
}

/// Pending calls of one dispatcher, on one clock: each expires `ttl` after it was parked,
/// whoever asks (an agent loop, an MCP client, the console).
#[derive(Debug)]
pub(crate) struct ConfirmationQueue {
    next: AtomicU64,
    ttl: Duration,
    state: Mutex<QueueState>,
}

#[derive(Debug, Default)]
struct QueueState {
    pending: HashMap<String, PendingConfirmation>,
    /// Newest first, at most [`EXPIRED_KEPT`].
    expired: VecDeque<ExpiredConfirmation>,
}

impl ConfirmationQueue {
    /// An empty queue whose calls wait at most `ttl`.
    pub(crate) fn new(ttl: Duration) -> Self {
        Self {
            next: AtomicU64::new(0),
            ttl,
            state: Mutex::default(),
        }
    }

    /// How long a call waits for a decision.
    pub(crate) fn ttl(&self) -> Duration {
        self.ttl
    }

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
            parked_at: Some(Instant::now()),
        };
        self.lock()
            .pending
            .insert(pending.id.clone(), pending.clone());
        pending
    }

    /// Removes and returns a pending call; an expired one is an error.
    pub(crate) fn take(&self, id: &str) -> Result<PendingConfirmation, ConfirmationError> {
        let mut state = self.lock();
        if let Some(pending) = state.pending.remove(id) {
            return Ok(pending);
        }
        if state.expired.iter().any(|e| e.pending.id == id) {
            return Err(ConfirmationError::Expired {
                id: id.to_string(),
                ttl: self.ttl,
            });
        }
        Err(ConfirmationError::UnknownPending(id.to_string()))
    }

    /// All pending calls, oldest first.
    pub(crate) fn list(&self) -> Vec<PendingConfirmation> {
        let mut list: Vec<PendingConfirmation> = self.lock().pending.values().cloned().collect();
        list.sort_by_key(|p| {
            p.id.trim_start_matches("confirm-")
                .parse::<u64>()
                .unwrap_or(0)
        });
        list
    }

    /// The calls that expired lately, newest first.
    pub(crate) fn expired(&self) -> Vec<ExpiredConfirmation> {
        self.lock().expired.iter().cloned().collect()
    }

    /// The state, with the calls whose time ran out moved to the expired list first, so no
    /// reader ever sees (or decides) an expired call.
    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let ttl = self.ttl;
        let due: Vec<String> = state
            .pending
            .values()
            .filter(|p| p.parked_at.is_some_and(|at| at.elapsed() >= ttl))
            .map(|p| p.id.clone())
            .collect();
        for id in due {
            if let Some(pending) = state.pending.remove(&id) {
                tracing::info!(pending = %pending.id, skill = %pending.skill_id, "pending confirmation expired");
                state.expired.push_front(ExpiredConfirmation {
                    pending,
                    at: Utc::now(),
                    ttl,
                });
            }
        }
        state.expired.truncate(EXPIRED_KEPT);
        state
    }
}
