//! The run of an orchestrator: the planner's agent loop (see `node`) from start or from
//! consent, with the caller's reader on its final text (a refused answer is mended by the
//! loop's repair policy, [`Orchestrator::answer_repairs`] turns within the budget), and
//! the outcome with the run's ledger.

use std::collections::HashMap;
use std::fmt::Display;
use std::sync::Arc;

use tracing::field::Empty;
use tracing::Instrument;

use super::budget::{Account, Clock, Meter, IN, OUT, REQ, TOOLS};
use super::node::{drive, resume_node, NodeState, NodeStop, Role};
use super::outcome::{AgentStats, OrchestrateOutcome, OrchestrateStop};
use super::Orchestrator;
use crate::agent::react::{truncate_tool_result, Decision, ReactOptions, ResumeError};
use crate::context::SkillContext;
use crate::dialect::ChatMessage;
use crate::dispatch::Dispatcher;

/// What stays the same through a run.
pub(super) struct Env<'a> {
    pub(super) orch: &'a Orchestrator,
    pub(super) dispatcher: &'a Dispatcher,
    pub(super) ctx: &'a SkillContext,
    /// The settings `run_call` reads (time limit per call).
    pub(super) call_options: ReactOptions,
}

impl<'a> Env<'a> {
    fn new(orch: &'a Orchestrator, dispatcher: &'a Dispatcher, ctx: &'a SkillContext) -> Self {
        let call_options = ReactOptions {
            tool_timeout: orch.tool_timeout,
            max_tool_result_chars: orch.max_tool_result_chars,
            ..ReactOptions::default()
        };
        Self {
            orch,
            dispatcher,
            ctx,
            call_options,
        }
    }

    pub(super) fn fenced(&self, tool: &str, text: &str) -> String {
        crate::fence::fence_tool_output(
            tool,
            &truncate_tool_result(text, self.orch.max_tool_result_chars),
        )
    }
}

/// A paused run: the planner's state and the run's ledger.
pub(crate) struct Paused {
    node: NodeState,
    root: Arc<Account>,
}

/// The `invoke_agent` span of one agent (OpenTelemetry GenAI conventions).
pub(super) fn agent_span(name: &str, model: Option<&str>, path: &str) -> tracing::Span {
    tracing::info_span!(
        "invoke_agent",
        otel.name = %format_args!("invoke_agent {name}"),
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = name,
        gen_ai.request.model = model.unwrap_or_default(),
        toolwright.agent.path = path,
        toolwright.agent.status = Empty,
        toolwright.agent.turns = Empty,
        toolwright.agent.model_requests = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    )
}

pub(super) async fn start<A, E>(
    orch: &Orchestrator,
    dispatcher: &Dispatcher,
    messages: Vec<ChatMessage>,
    ctx: &SkillContext,
    read_answer: impl FnMut(&str) -> Result<A, E> + Send,
) -> OrchestrateOutcome<A>
where
    E: Display,
{
    let root = Account::root(&orch.budget, Clock::start(orch.budget.wall_time));
    let mut node = NodeState::new(
        orch.name.clone(),
        Role::Planner,
        Arc::clone(&orch.model),
        orch.skills.clone(),
        orch.max_turns,
        orch.temperature,
        orch.max_depth,
        Meter::new(Arc::clone(&root), orch.turn_output_tokens),
        messages,
        None,
    );
    let env = Env::new(orch, dispatcher, ctx);
    let span = agent_span(&orch.name, orch.model.model(), &orch.name);
    let mut read_answer = read_answer;
    let mut answer = None;
    let mut read = typed(&mut read_answer, &mut answer);
    let stop = drive(&env, &mut node, &mut read)
        .instrument(span.clone())
        .await;
    drop(read);
    finish_run(node, root, stop, &span, answer)
}

/// The planner's reader on the loop: the caller's `read_answer`, its answer kept in
/// `answer`, the text kept as the loop's.
fn typed<'r, A, E>(
    read_answer: &'r mut impl FnMut(&str) -> Result<A, E>,
    answer: &'r mut Option<A>,
) -> impl FnMut(&str) -> Result<String, E> + 'r {
    move |text| {
        let read = read_answer(text)?;
        *answer = Some(read);
        Ok(text.to_string())
    }
}

pub(super) async fn resume<A, E>(
    orch: &Orchestrator,
    dispatcher: &Dispatcher,
    paused: OrchestrateOutcome<A>,
    decisions: HashMap<String, Decision>,
    ctx: &SkillContext,
    read_answer: impl FnMut(&str) -> Result<A, E> + Send,
) -> Result<OrchestrateOutcome<A>, ResumeError>
where
    E: Display,
{
    let (Some(Paused { mut node, root }), OrchestrateStop::AwaitingConfirmation) =
        (paused.paused, &paused.stop_reason)
    else {
        return Err(ResumeError::NotAwaitingConfirmation(format!(
            "{:?}",
            paused.stop_reason
        )));
    };
    let missing: Vec<String> = paused
        .pending
        .iter()
        .map(|p| p.call.confirmation.id.clone())
        .filter(|id| !decisions.contains_key(id))
        .collect();
    if !missing.is_empty() {
        return Err(ResumeError::Undecided(missing));
    }
    root.clock.resume();
    let env = Env::new(orch, dispatcher, ctx);
    let span = agent_span(&orch.name, orch.model.model(), &orch.name);
    let mut read_answer = read_answer;
    let mut answer = None;
    let mut read = typed(&mut read_answer, &mut answer);
    let stop = resume_node(&env, &mut node, &decisions, &mut read)
        .instrument(span.clone())
        .await;
    drop(read);
    Ok(finish_run(node, root, stop, &span, answer))
}

fn finish_run<A>(
    node: NodeState,
    root: Arc<Account>,
    stop: NodeStop,
    span: &tracing::Span,
    answer: Option<A>,
) -> OrchestrateOutcome<A> {
    let spent = root.spent();
    span.record("toolwright.agent.turns", node.out.iterations);
    span.record("toolwright.agent.model_requests", spent.model_requests);
    span.record("gen_ai.usage.input_tokens", spent.input_tokens);
    span.record("gen_ai.usage.output_tokens", spent.output_tokens);
    let stop_reason = match stop {
        NodeStop::Answer(_) => OrchestrateStop::FinalAnswer,
        NodeStop::BudgetExhausted(short) => OrchestrateStop::BudgetExhausted(short),
        NodeStop::LlmError(err) => OrchestrateStop::LlmError(err),
        NodeStop::Parked => OrchestrateStop::AwaitingConfirmation,
    };
    span.record(
        "toolwright.agent.status",
        match &stop_reason {
            OrchestrateStop::FinalAnswer => "final_answer",
            OrchestrateStop::BudgetExhausted(_) => "budget_exhausted",
            OrchestrateStop::AwaitingConfirmation => "awaiting_confirmation",
            OrchestrateStop::LlmError(_) => "llm_error",
        },
    );
    let elapsed_ms = root.clock.elapsed().as_secs_f64() * 1000.0;
    let mut outcome = OrchestrateOutcome {
        answer,
        stop_reason,
        final_messages: node.out.final_messages.clone(),
        workers: node.agent.workers.clone(),
        planner: AgentStats {
            turns: node.out.iterations,
            tool_calls: node.out.tool_calls,
            usage: node.out.usage,
        },
        spent,
        budget: node_budget(&root),
        elapsed_ms,
        asked_to_conclude: node.agent.asked_to_conclude.clone(),
        repairs: node.out.repairs.clone(),
        skill_context: node.out.skill_context.clone(),
        warnings: node.out.warnings.clone(),
        pending: node.pending_actions(),
        paused: None,
    };
    if !outcome.pending.is_empty() {
        root.clock.pause();
        tracing::info!(
            pending = outcome.pending.len(),
            "orchestrated run waits for confirmation"
        );
        outcome.paused = Some(Paused { node, root });
    }
    outcome
}

fn node_budget(root: &Account) -> super::Budget {
    let caps = root.caps();
    super::Budget {
        model_requests: caps[REQ],
        input_tokens: caps[IN],
        output_tokens: caps[OUT],
        tool_calls: caps[TOOLS],
        wall_time: root.clock.limit(),
    }
}
