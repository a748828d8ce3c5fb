//! What an orchestrated run produced: the planner's answer, every worker call, the budget
//! spent against the budget given, and the calls waiting for a person's consent.

use std::collections::BTreeMap;

use serde_json::Value;

use super::budget::{Budget, BudgetUsage};
use super::run::Paused;
use super::worker::WorkerReport;
use crate::agent::react::PendingToolCall;
use crate::dialect::{ChatMessage, TokenUsage};

/// Why an orchestrated run stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum OrchestrateStop {
    /// The planner answered (see [`OrchestrateOutcome::asked_to_conclude`] for whether it
    /// was asked to, because of its turn limit or the budget).
    FinalAnswer,
    /// Not even a concluding planner turn fitted in what was left; the text names the unit
    /// that ran out.
    BudgetExhausted(String),
    /// Calls of the planner or of a worker wait for a person's consent; decide them (see
    /// [`OrchestrateOutcome::pending`]) and continue with [`super::Orchestrator::resume`].
    AwaitingConfirmation,
    /// A planner turn failed; the text is the error.
    LlmError(String),
}

/// Turns, calls and tokens of one agent (the planner).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AgentStats {
    /// Model turns made.
    pub turns: usize,
    /// Tool calls made (delegations included).
    pub tool_calls: usize,
    /// Tokens its own turns cost, as reported.
    pub usage: TokenUsage,
}

/// A call somewhere in the run that waits for a person's consent.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingAction {
    /// The agent that made the call: `planner`, or a worker's path
    /// (`planner/notes#call_2`).
    pub path: String,
    /// The call and what to show the person; decide by `call.confirmation.id`.
    pub call: PendingToolCall,
}

/// What one orchestrated run produced. `A` is whatever the caller's reader makes of the
/// planner's final text.
pub struct OrchestrateOutcome<A> {
    /// The planner's final answer as the reader read it (`None` when there was none or
    /// the reader refused it; the reason is in `warnings`).
    pub answer: Option<A>,
    /// Why the run stopped.
    pub stop_reason: OrchestrateStop,
    /// The planner's conversation: the initial messages, its turns, every tool result
    /// (worker results included).
    pub final_messages: Vec<ChatMessage>,
    /// Every worker call that ended, in the order the calls were made (a worker's own
    /// delegations just before it).
    pub workers: Vec<WorkerReport>,
    /// The planner's own turns, calls and tokens.
    pub planner: AgentStats,
    /// What the whole run spent (planner and workers); never more than
    /// [`budget`](Self::budget) allows unless a provider reported more tokens for one
    /// turn than the turn reserved (see [`super::Orchestrator::turn_output_tokens`]).
    pub spent: BudgetUsage,
    /// The budget the run was given.
    pub budget: Budget,
    /// Active wall time of the run, in milliseconds (time parked for consent excluded).
    pub elapsed_ms: f64,
    /// Set when the planner was told to conclude: the message it was sent.
    pub asked_to_conclude: Option<String>,
    /// Why the reader refused the planner's answers that were sent back for repair, in
    /// order (see [`super::Orchestrator::answer_repairs`]).
    pub repairs: Vec<String>,
    /// Output of the planner's own successful skill calls, by skill id.
    pub skill_context: BTreeMap<String, Value>,
    /// Things the host should know (worker failures, dropped calls, unreadable answer).
    pub warnings: Vec<String>,
    /// Calls waiting for a person's consent, the planner's and its workers'; non-empty
    /// exactly when `stop_reason` is [`OrchestrateStop::AwaitingConfirmation`].
    pub pending: Vec<PendingAction>,
    pub(crate) paused: Option<Paused>,
}

impl<A: std::fmt::Debug> std::fmt::Debug for OrchestrateOutcome<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrchestrateOutcome")
            .field("answer", &self.answer)
            .field("stop_reason", &self.stop_reason)
            .field("workers", &self.workers)
            .field("planner", &self.planner)
            .field("spent", &self.spent)
            .field("budget", &self.budget)
            .field("elapsed_ms", &self.elapsed_ms)
            .field("asked_to_conclude", &self.asked_to_conclude)
            .field("repairs", &self.repairs)
            .field("warnings", &self.warnings)
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

impl<A> OrchestrateOutcome<A> {
    /// Model requests of the run: the planner's turns and every worker's.
    pub fn model_requests(&self) -> u64 {
        self.spent.model_requests
    }

    /// The report of the worker call with this call id (the planner's or a worker's).
    pub fn worker(&self, call_id: &str) -> Option<&WorkerReport> {
        self.workers.iter().find(|w| w.call_id == call_id)
    }
}
