//! The provider's limits, shared by every request of one client (and its clones): a 429
//! with a `Retry-After` holds back *every* request of the client, not only the one that got
//! it; after the pause one request goes first as a probe and the others follow only when it
//! was not refused, so a pause never ends in a burst; and an optional requests-per-minute
//! cap spaces requests evenly.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Admission of a client's requests; see the module docs.
#[derive(Debug)]
pub(crate) struct RequestGate {
    state: Mutex<GateState>,
    changed: Notify,
    /// Time between two requests under a requests-per-minute cap.
    spacing: Option<Duration>,
}

#[derive(Debug, Default)]
struct GateState {
    /// No request is sent before this (the provider asked to wait).
    paused_until: Option<Instant>,
    /// A pause ended and no request has been answered since: one probe at a time.
    recovering: bool,
    /// A probe is out.
    probing: bool,
    /// The next free slot under the cap.
    next_slot: Option<Instant>,
}

enum Admission {
    Go { probe: bool },
    WaitUntil(Instant),
    WaitForProbe,
}

impl RequestGate {
    /// A gate with an optional cap of `requests_per_minute` (0 or `None`: no cap).
    pub(crate) fn new(requests_per_minute: Option<u32>) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(GateState::default()),
            changed: Notify::new(),
            spacing: requests_per_minute
                .filter(|n| *n > 0)
                .map(|n| Duration::from_secs(60) / n),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until a request may be sent: its slot under the cap has come, no pause is
    /// on, and no probe is out. The permit must be told how the request went.
    pub(crate) async fn admit(self: &Arc<Self>) -> Permit {
        if let Some(spacing) = self.spacing {
            let slot = {
                let mut state = self.lock();
                let now = Instant::now();
                let slot = state.next_slot.map_or(now, |next| next.max(now));
                state.next_slot = Some(slot + spacing);
                slot
            };
            tokio::time::sleep_until(slot).await;
        }
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            match self.check() {
                Admission::Go { probe } => {
                    return Permit {
                        gate: Arc::clone(self),
                        probe,
                        settled: false,
                    }
                }
                Admission::WaitUntil(until) => {
                    tokio::select! {
                        _ = tokio::time::sleep_until(until) => {}
                        _ = notified => {}
                    }
                }
                Admission::WaitForProbe => notified.await,
            }
        }
    }

    fn check(&self) -> Admission {
        let mut state = self.lock();
        if let Some(until) = state.paused_until {
            if until > Instant::now() {
                return Admission::WaitUntil(until);
            }
            state.paused_until = None;
            state.recovering = true;
        }
        if !state.recovering {
            return Admission::Go { probe: false };
        }
        if state.probing {
            return Admission::WaitForProbe;
        }
        state.probing = true;
        Admission::Go { probe: true }
    }

    /// The provider asked every request to wait `wait` (a 429 and its `Retry-After`).
    pub(crate) fn pause(&self, wait: Duration) {
        let until = Instant::now() + wait;
        {
            let mut state = self.lock();
            state.paused_until = Some(state.paused_until.map_or(until, |u| u.max(until)));
        }
        tracing::warn!(
            wait_ms = wait.as_millis() as u64,
            "provider rate limit: every request of this client waits"
        );
        self.changed.notify_waiters();
    }

    /// Whether a pause is on now.
    #[cfg(test)]
    fn paused(&self) -> bool {
        self.lock().paused_until.is_some_and(|u| u > Instant::now())
    }
}

/// Leave to send one request; says how it went when settled or dropped.
#[derive(Debug)]
pub(crate) struct Permit {
    gate: Arc<RequestGate>,
    probe: bool,
    settled: bool,
}

impl Permit {
    /// The provider answered without refusing for its limits: after a pause, traffic
    /// resumes.
    pub(crate) fn answered(mut self) {
        self.settled = true;
        let mut state = self.gate.lock();
        if state.recovering && state.paused_until.is_none() {
            state.recovering = false;
        }
        if self.probe {
            state.probing = false;
        }
        drop(state);
        self.gate.changed.notify_waiters();
    }

    /// The provider refused for its limits and asked for `wait`.
    pub(crate) fn refused(mut self, wait: Duration) {
        self.settled = true;
        if self.probe {
            self.gate.lock().probing = false;
        }
        self.gate.pause(wait);
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        // Failed without an answer (connection, timeout) or cancelled: a probe hands over
        // to the next request.
        if !self.settled && self.probe {
            self.gate.lock().probing = false;
            self.gate.changed.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_pause_holds_every_request_and_one_probe_goes_first() {
        let gate = RequestGate::new(None);
        let first = gate.admit().await;
        first.refused(Duration::from_secs(2));
        assert!(gate.paused());
        let started = Instant::now();
        let probe = gate.admit().await;
        assert_eq!(started.elapsed(), Duration::from_secs(2));
        assert!(probe.probe);
        // Others wait for the probe's answer.
        let other = tokio::spawn({
            let gate = Arc::clone(&gate);
            async move {
                let permit = gate.admit().await;
                (Instant::now(), permit.probe)
            }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!other.is_finished(), "held back while the probe is out");
        let answered_at = Instant::now();
        probe.answered();
        let (admitted_at, was_probe) = other.await.unwrap();
        assert_eq!(admitted_at, answered_at);
        assert!(!was_probe, "traffic resumed");
    }

    #[tokio::test(start_paused = true)]
    async fn a_refused_probe_pauses_again_and_a_dropped_probe_hands_over() {
        let gate = RequestGate::new(None);
        gate.admit().await.refused(Duration::from_secs(1));
        let probe = gate.admit().await;
        let t = Instant::now();
        probe.refused(Duration::from_secs(3));
        let next = gate.admit().await;
        assert_eq!(t.elapsed(), Duration::from_secs(3));
        assert!(next.probe);
        drop(next);
        let after_drop = gate.admit().await;
        assert!(
            after_drop.probe,
            "a cancelled probe hands over to the next request"
        );
        after_drop.answered();
        assert!(!gate.admit().await.probe);
    }

    #[tokio::test(start_paused = true)]
    async fn a_cap_spaces_requests_evenly() {
        let gate = RequestGate::new(Some(120));
        let start = Instant::now();
        let mut times = Vec::new();
        for _ in 0..4 {
            gate.admit().await.answered();
            times.push(start.elapsed());
        }
        assert_eq!(
            times,
            [0, 500, 1000, 1500].map(Duration::from_millis),
            "120 a minute: one every 500 ms"
        );
        assert!(RequestGate::new(Some(0)).spacing.is_none());
    }
}
