//! One budget per orchestrated run: limits ([`Budget`]), what was spent ([`BudgetUsage`]),
//! and the ledger that reserves before spending, so agents running at the same time can
//! never spend more than the run was given.
//!
//! Every model turn reserves one request and its estimated tokens before it is sent and
//! settles the reservation with what the provider reported; every tool call takes one tool
//! call before it runs. A worker does not draw on the run directly: it is granted a slice
//! (reserved in the run's ledger when it starts) and spends from that; what it leaves is
//! returned when it ends. A reservation is all-or-nothing under one lock, so sixteen
//! workers asking at once for the last nine requests get nine between them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::dialect::{ChatMessage, TokenUsage};

/// Limits of one orchestrated run, shared by the planner and every worker (or, on a
/// [`super::Worker`], the most its slice may take). `None` in a field: no limit there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    /// Model requests (turns) at most.
    pub model_requests: Option<u64>,
    /// Input (prompt) tokens at most, as the provider counts them.
    pub input_tokens: Option<u64>,
    /// Output (completion) tokens at most.
    pub output_tokens: Option<u64>,
    /// Tool calls at most (a delegation to a worker is a tool call of its caller).
    pub tool_calls: Option<u64>,
    /// Wall time at most; time spent parked waiting for a person's consent does not count.
    pub wall_time: Option<Duration>,
}

impl Budget {
    /// No limit anywhere.
    pub fn unlimited() -> Self {
        Self::default()
    }

    /// Sets the model request limit.
    #[must_use]
    pub fn model_requests(mut self, n: u64) -> Self {
        self.model_requests = Some(n);
        self
    }

    /// Sets the input token limit.
    #[must_use]
    pub fn input_tokens(mut self, n: u64) -> Self {
        self.input_tokens = Some(n);
        self
    }

    /// Sets the output token limit.
    #[must_use]
    pub fn output_tokens(mut self, n: u64) -> Self {
        self.output_tokens = Some(n);
        self
    }

    /// Sets the tool call limit.
    #[must_use]
    pub fn tool_calls(mut self, n: u64) -> Self {
        self.tool_calls = Some(n);
        self
    }

    /// Sets the wall time limit.
    #[must_use]
    pub fn wall_time(mut self, limit: Duration) -> Self {
        self.wall_time = Some(limit);
        self
    }

    pub(crate) fn caps(&self) -> Counts {
        [
            self.model_requests,
            self.input_tokens,
            self.output_tokens,
            self.tool_calls,
        ]
    }
}

/// What a run, an agent or a slice spent (or was granted), in the budget's counted units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct BudgetUsage {
    /// Model requests sent.
    pub model_requests: u64,
    /// Input tokens the provider reported.
    pub input_tokens: u64,
    /// Output tokens the provider reported.
    pub output_tokens: u64,
    /// Tool calls run (delegations included).
    pub tool_calls: u64,
}

impl BudgetUsage {
    fn from_amounts(a: Amounts) -> Self {
        Self {
            model_requests: a[REQ],
            input_tokens: a[IN],
            output_tokens: a[OUT],
            tool_calls: a[TOOLS],
        }
    }

    /// Whether this usage stays within `budget` in every counted unit.
    pub fn within(&self, budget: &Budget) -> bool {
        let used = [
            self.model_requests,
            self.input_tokens,
            self.output_tokens,
            self.tool_calls,
        ];
        budget
            .caps()
            .iter()
            .zip(used)
            .all(|(cap, used)| cap.is_none_or(|cap| used <= cap))
    }
}

pub(crate) const REQ: usize = 0;
pub(crate) const IN: usize = 1;
pub(crate) const OUT: usize = 2;
pub(crate) const TOOLS: usize = 3;
const NAMES: [&str; 4] = [
    "model requests",
    "input tokens",
    "output tokens",
    "tool calls",
];

/// Per counted unit: requests, input tokens, output tokens, tool calls.
pub(crate) type Amounts = [u64; 4];
/// Per counted unit, `None` for no limit.
pub(crate) type Counts = [Option<u64>; 4];

/// The run's wall clock: counts active time only (a parked run's clock stands still).
#[derive(Debug)]
pub(crate) struct Clock {
    limit: Option<Duration>,
    before: Mutex<Duration>,
    since: Mutex<Option<Instant>>,
}

impl Clock {
    pub(crate) fn start(limit: Option<Duration>) -> Arc<Self> {
        Arc::new(Self {
            limit,
            before: Mutex::new(Duration::ZERO),
            since: Mutex::new(Some(Instant::now())),
        })
    }

    /// The limit, `None` without one.
    pub(crate) fn limit(&self) -> Option<Duration> {
        self.limit
    }

    /// Active time so far.
    pub(crate) fn elapsed(&self) -> Duration {
        let before = *self.before.lock().unwrap_or_else(|p| p.into_inner());
        let since = *self.since.lock().unwrap_or_else(|p| p.into_inner());
        before + since.map_or(Duration::ZERO, |s| s.elapsed())
    }

    /// Time left, `None` without a limit.
    pub(crate) fn remaining(&self) -> Option<Duration> {
        self.limit.map(|l| l.saturating_sub(self.elapsed()))
    }

    pub(crate) fn expired(&self) -> bool {
        self.remaining().is_some_and(|r| r.is_zero())
    }

    pub(crate) fn pause(&self) {
        let mut since = self.since.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = since.take() {
            *self.before.lock().unwrap_or_else(|p| p.into_inner()) += s.elapsed();
        }
    }

    pub(crate) fn resume(&self) {
        let mut since = self.since.lock().unwrap_or_else(|p| p.into_inner());
        if since.is_none() {
            *since = Some(Instant::now());
        }
    }
}

#[derive(Debug, Default)]
struct Pool {
    caps: Counts,
    used: Amounts,
    reserved: Amounts,
}

impl Pool {
    fn available(&self, dim: usize) -> u64 {
        self.caps[dim].map_or(u64::MAX, |cap| {
            cap.saturating_sub(self.used[dim])
                .saturating_sub(self.reserved[dim])
        })
    }
}

/// A ledger: the run's, or a worker's slice of its caller's. Reservations are
/// all-or-nothing under the one lock.
#[derive(Debug)]
pub(crate) struct Account {
    pool: Mutex<Pool>,
    parent: Option<(Arc<Account>, Amounts)>,
    closed: AtomicBool,
    pub(crate) clock: Arc<Clock>,
}

impl Account {
    /// The run's ledger.
    pub(crate) fn root(budget: &Budget, clock: Arc<Clock>) -> Arc<Self> {
        Arc::new(Self {
            pool: Mutex::new(Pool {
                caps: budget.caps(),
                ..Pool::default()
            }),
            parent: None,
            closed: AtomicBool::new(false),
            clock,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What could still be reserved, per unit (`u64::MAX` where there is no limit).
    pub(crate) fn available(&self) -> Amounts {
        let pool = self.lock();
        std::array::from_fn(|d| pool.available(d))
    }

    /// Spent so far, counting reservations in flight (a request sent is spent).
    pub(crate) fn spent(&self) -> BudgetUsage {
        let pool = self.lock();
        BudgetUsage::from_amounts(std::array::from_fn(|d| pool.used[d] + pool.reserved[d]))
    }

    /// The limits of this ledger (a slice's are its grant).
    pub(crate) fn caps(&self) -> Counts {
        self.lock().caps
    }

    /// Reserves `want` in every unit, or nothing (naming the first unit short).
    pub(crate) fn try_reserve(&self, want: Amounts) -> Result<(), &'static str> {
        let mut pool = self.lock();
        if let Some(short) = (0..4).find(|&d| want[d] > pool.available(d)) {
            return Err(NAMES[short]);
        }
        for (d, w) in want.iter().enumerate() {
            pool.reserved[d] += w;
        }
        Ok(())
    }

    /// Takes up to `n` tool calls at once; returns how many were granted.
    pub(crate) fn take_tool_calls(&self, n: u64) -> u64 {
        let mut pool = self.lock();
        let granted = n.min(pool.available(TOOLS));
        pool.used[TOOLS] += granted;
        granted
    }

    /// Ends a reservation: `reserved` is freed and `actual` spent.
    pub(crate) fn settle(&self, reserved: Amounts, actual: Amounts) {
        let mut pool = self.lock();
        for d in 0..4 {
            pool.reserved[d] = pool.reserved[d].saturating_sub(reserved[d]);
            pool.used[d] += actual[d];
        }
    }

    /// Grants a slice: per unit the worker's own cap (`want`, `None` for no cap of its
    /// own) within what is available after `holdback` (kept for the caller's concluding
    /// turn). Where this ledger has no limit the slice has the worker's cap, if any.
    pub(crate) fn slice(self: &Arc<Self>, want: Counts, holdback: Amounts) -> Arc<Account> {
        let mut pool = self.lock();
        let mut caps: Counts = [None; 4];
        let mut grant: Amounts = [0; 4];
        for d in 0..4 {
            match pool.caps[d] {
                None => caps[d] = want[d],
                Some(_) => {
                    let avail = pool.available(d).saturating_sub(holdback[d]);
                    let g = want[d].map_or(avail, |w| w.min(avail));
                    caps[d] = Some(g);
                    grant[d] = g;
                    pool.reserved[d] += g;
                }
            }
        }
        drop(pool);
        Arc::new(Account {
            pool: Mutex::new(Pool {
                caps,
                ..Pool::default()
            }),
            parent: Some((Arc::clone(self), grant)),
            closed: AtomicBool::new(false),
            clock: Arc::clone(&self.clock),
        })
    }

    /// Returns a slice's unused grant to its caller and charges what it spent (requests
    /// in flight count as spent). Idempotent; also done on drop.
    pub(crate) fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Some((parent, grant)) = &self.parent {
            let spent = {
                let pool = self.lock();
                std::array::from_fn::<u64, 4, _>(|d| pool.used[d] + pool.reserved[d])
            };
            parent.settle(*grant, spent);
        }
    }
}

impl Drop for Account {
    fn drop(&mut self) {
        self.close();
    }
}

/// What a model turn reserved, and when it was sent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ticket(Amounts, Instant);

/// Meters one agent's model turns against its ledger: estimates a turn, reserves it,
/// settles it with the provider's figures.
#[derive(Debug, Clone)]
pub(crate) struct Meter {
    pub(crate) account: Arc<Account>,
    turn_output_tokens: u64,
    last_input: Arc<AtomicU64>,
    /// The longest turn so far, in microseconds: what a next turn is expected to take.
    longest_turn_us: Arc<AtomicU64>,
}

impl Meter {
    pub(crate) fn new(account: Arc<Account>, turn_output_tokens: u64) -> Self {
        Self {
            account,
            turn_output_tokens,
            last_input: Arc::new(AtomicU64::new(0)),
            longest_turn_us: Arc::new(AtomicU64::new(0)),
        }
    }

    /// A turn's reservation: one request, the input estimated as a quarter of the bytes
    /// sent (never less than the previous turn's input: a conversation only grows), and
    /// the output reserve per turn.
    pub(crate) fn estimate(&self, messages: &[ChatMessage], tools: &[Value]) -> Amounts {
        let bytes = serde_json::to_string(messages).map_or(0, |s| s.len())
            + tools.iter().map(|t| t.to_string().len()).sum::<usize>();
        let input = (bytes as u64 / 4).max(self.last_input.load(Ordering::Relaxed));
        [1, input, self.turn_output_tokens, 0]
    }

    /// Reserves a turn, or names the unit that is short (or the wall time).
    pub(crate) fn begin(&self, estimate: Amounts) -> Result<Ticket, &'static str> {
        if self.account.clock.expired() {
            return Err("wall time");
        }
        self.account
            .try_reserve(estimate)
            .map(|()| Ticket(estimate, Instant::now()))
    }

    /// Whether `turns` more turns like `estimate` (each one's input grown by the output
    /// reserve) would fit after what is reserved now, in the units and in the wall time
    /// left (each expected to take as long as this agent's longest turn).
    pub(crate) fn affords(&self, estimate: Amounts, turns: u64) -> bool {
        let available = self.account.available();
        let input = (1..=turns)
            .map(|k| estimate[IN] + (k - 1) * estimate[OUT])
            .sum::<u64>();
        available[REQ] >= turns
            && available[IN] >= input
            && available[OUT] >= turns * estimate[OUT]
            && self
                .account
                .clock
                .remaining()
                .is_none_or(|left| !left.is_zero() && left >= self.turn_time() * turns as u32)
    }

    /// What a turn of this agent is expected to take: its longest so far.
    pub(crate) fn turn_time(&self) -> Duration {
        Duration::from_micros(self.longest_turn_us.load(Ordering::Relaxed))
    }

    /// Settles a turn with the provider's usage (no report: the estimate is charged); a
    /// failed turn charges its request only.
    pub(crate) fn end(&self, ticket: Ticket, usage: Option<Option<TokenUsage>>) {
        let took = u64::try_from(ticket.1.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.longest_turn_us.fetch_max(took, Ordering::Relaxed);
        let actual = match usage {
            None => [1, 0, 0, 0],
            Some(None) => ticket.0,
            Some(Some(u)) => {
                self.last_input.store(u.prompt_tokens, Ordering::Relaxed);
                [1, u.prompt_tokens, u.completion_tokens, 0]
            }
        };
        self.account.settle(ticket.0, actual);
    }
}

/// Says what is left of a ledger in words, for the message asking an agent to conclude.
pub(crate) fn left_in_words(account: &Account) -> String {
    let caps = account.caps();
    let available = account.available();
    let mut parts: Vec<String> = (0..4)
        .filter_map(|d| caps[d].map(|cap| format!("{} of {cap} {}", available[d], NAMES[d])))
        .collect();
    if let Some(left) = account.clock.remaining() {
        parts.push(format!("{} ms of wall time", left.as_millis()));
    }
    if parts.is_empty() {
        "no limit".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_all_or_nothing_and_slices_return_what_they_leave() {
        let run = Account::root(&Budget::unlimited().model_requests(5), Clock::start(None));
        let slice = run.slice([Some(3), None, None, None], [1, 0, 0, 0]);
        assert_eq!(slice.caps()[REQ], Some(3));
        assert_eq!(run.available()[REQ], 2);
        // The holdback keeps the caller's last request out of a second slice's reach.
        let second = run.slice([Some(3), None, None, None], [1, 0, 0, 0]);
        assert_eq!(second.caps()[REQ], Some(1));
        slice.try_reserve([1, 10, 10, 0]).unwrap();
        assert!(second.try_reserve([2, 0, 0, 0]).is_err());
        slice.settle([1, 10, 10, 0], [1, 7, 3, 0]);
        slice.close();
        drop(second);
        assert_eq!(run.spent().model_requests, 1);
        assert_eq!(run.spent().input_tokens, 7);
        assert_eq!(run.available()[REQ], 4);
    }

    #[test]
    fn a_paused_clock_stands_still() {
        let clock = Clock::start(Some(Duration::from_secs(60)));
        clock.pause();
        let at_pause = clock.elapsed();
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(clock.elapsed(), at_pause);
        clock.resume();
        assert!(!clock.expired());
    }
}
