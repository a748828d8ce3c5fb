//! The plain ReAct loop's hooks: the dispatcher's tools (every tool the filter accepts,
//! or a core set that `search_tools` grows), each round's calls run at once up to
//! [`ReactOptions::max_parallel_tools`], no metering, no conclude policy; with no tool to
//! offer and [`WithoutTools::Answer`], one turn without tools whose text is the answer.

use std::collections::HashSet;
use std::fmt::Display;
use std::time::Instant;

use futures_util::stream::{self, StreamExt};
use serde_json::Value;
use tracing::Instrument;

use super::telemetry::tool_span;
use super::turns::{absorb_result, turn_loop, BoxFuture, TurnHooks, TurnPlan};
use super::{ReactOptions, ReactOutcome, StopReason, WithoutTools};
use crate::agent::client::LlmClient;
use crate::agent::deferred::{run_search, Offered, SEARCH_TOOLS};
use crate::context::SkillContext;
use crate::dispatch::Dispatcher;
use crate::error::{codes, SkillError};
use crate::registration::SkillRegistration;
use crate::result::SkillResult;
use crate::tools::{ParsedCall, ToolCall};

/// The tools a run sends: every tool the filter accepts (the dispatcher's cached set), a
/// core set that searches grow, or none (a run that answers without tools).
enum Sent {
    All(crate::ToolSet),
    Deferred(Box<Offered>),
    None,
}

impl Sent {
    fn definitions(&self) -> &[Value] {
        match self {
            Sent::All(tools) => tools,
            Sent::Deferred(offered) => &offered.definitions,
            Sent::None => &[],
        }
    }

    fn names(&self) -> HashSet<&'static str> {
        match self {
            Sent::All(tools) => tools.names().collect(),
            Sent::Deferred(offered) => offered.names.clone(),
            Sent::None => HashSet::new(),
        }
    }
}

/// A search's loaded tools, when the call was `search_tools`.
type Found = Option<Vec<&'static SkillRegistration>>;

/// The hooks of a plain run.
struct Plain<'a> {
    dispatcher: &'a Dispatcher,
    ctx: &'a SkillContext,
    options: &'a ReactOptions,
    sent: Sent,
    offered: HashSet<&'static str>,
}

impl<A> TurnHooks<A> for Plain<'_> {
    type Done = (SkillResult, f64, Found);

    fn tools(&self) -> &[Value] {
        self.sent.definitions()
    }

    /// With no tools to send, the one turn is the answer; else every turn offers them.
    fn plan(&mut self, _out: &ReactOutcome<A>, _turn: usize) -> TurnPlan {
        match self.sent {
            Sent::None => TurnPlan::Answer,
            _ => TurnPlan::Tools,
        }
    }

    fn round<'a>(&'a mut self, calls: &'a [ToolCall]) -> BoxFuture<'a, Vec<Self::Done>> {
        let this = &*self;
        let options = this.options;
        let deferred = options.deferred_tools.as_ref();
        // Indices, not `&ToolCall` items: the round's future stays `Send` (a closure over a
        // borrowed item trips the higher-ranked lifetime check of spawned tasks).
        Box::pin(
            stream::iter(0..calls.len())
                .map(move |i| async move {
                    let call = &calls[i];
                    let span = tool_span(call);
                    let started = Instant::now();
                    let (result, found) = match deferred {
                        Some(deferred) if call.name == SEARCH_TOOLS => {
                            let (found, result) = span.in_scope(|| {
                                run_search(deferred, &options.tool_filter, &call.arguments)
                            });
                            (result, Some(found))
                        }
                        _ => (
                            run_call(this.dispatcher, this.ctx, &this.offered, call, options)
                                .instrument(span.clone())
                                .await,
                            None,
                        ),
                    };
                    if let Some(err) = &result.error {
                        span.record("error.type", err.code.as_ref());
                        span.record("otel.status_code", "ERROR");
                    }
                    (result, started.elapsed().as_secs_f64() * 1000.0, found)
                })
                .buffered(options.max_parallel_tools.max(1))
                .collect(),
        )
    }

    fn absorb(&mut self, out: &mut ReactOutcome<A>, call: ToolCall, done: Self::Done) {
        let (result, elapsed_ms, found) = done;
        let searched = found.is_some();
        if let (Some(found), Sent::Deferred(list)) = (found, &mut self.sent) {
            let added = list.append(&found, &self.options.tool_filter);
            tracing::info!(label = %self.options.label, loaded = ?added, "search_tools loaded tools");
            out.loaded_tools.extend(added);
            self.offered = list.names.clone();
        }
        let skill_id = self
            .dispatcher
            .registration(&call.name)
            .map_or_else(|| call.name.clone(), |reg| reg.id.to_string());
        absorb_result(
            out,
            call,
            (skill_id, result, elapsed_ms),
            !searched,
            self.options.max_tool_result_chars,
        );
    }
}

/// The turns of a plain run, from the one after `out.iterations` to the limit: the tools
/// are set up (none: the model is not asked, or with [`WithoutTools::Answer`] answers in
/// one turn without tools), then the one turn loop runs.
pub(super) async fn run_turns<C, A, E>(
    llm: &C,
    dispatcher: &Dispatcher,
    ctx: &SkillContext,
    options: &ReactOptions,
    read_answer: &mut impl FnMut(&str) -> Result<A, E>,
    out: &mut ReactOutcome<A>,
) where
    C: LlmClient + ?Sized,
    E: Display,
{
    let label = options.label.as_str();
    let sent = match &options.deferred_tools {
        None => dispatcher
            .tools_in(llm.dialect(), &options.tool_filter)
            .map(Sent::All),
        Some(deferred) => Offered::start(
            dispatcher,
            llm.dialect(),
            &options.tool_filter,
            deferred,
            &out.loaded_tools,
        )
        .map(|o| Sent::Deferred(Box::new(o))),
    };
    let any_tool = match &sent {
        Ok(Sent::All(tools)) => !tools.is_empty(),
        Ok(Sent::Deferred(_)) => dispatcher
            .list_skills()
            .iter()
            .any(|s| options.tool_filter.accepts(s)),
        Ok(Sent::None) => false,
        Err(_) => true,
    };
    let sent = match sent {
        Ok(sent) if any_tool => sent,
        Ok(_) if options.without_tools == WithoutTools::Answer => Sent::None,
        Ok(_) => {
            out.stop_reason = StopReason::NoTools;
            out.warn(format!(
                "no tool definitions pass the filter; ReAct loop skipped ({label})"
            ));
            return;
        }
        Err(err) => {
            out.stop_reason = StopReason::NoTools;
            out.warn(format!(
                "the tools cannot be offered in the client's dialect: {err}; ReAct loop skipped ({label})"
            ));
            return;
        }
    };
    let offered = sent.names();
    let mut hooks = Plain {
        dispatcher,
        ctx,
        options,
        sent,
        offered,
    };
    turn_loop(llm, &mut hooks, options, read_answer, out).await;
}

/// Runs one skill call of a round: a name that was not offered, unreadable arguments and
/// a call past the outer time limit each come back as an error result the model can act on.
pub(crate) async fn run_call(
    dispatcher: &Dispatcher,
    ctx: &SkillContext,
    offered: &HashSet<&str>,
    call: &ToolCall,
    options: &ReactOptions,
) -> SkillResult {
    let started = Instant::now();
    let elapsed = || started.elapsed().as_secs_f64() * 1000.0;
    let offered_name = offered.contains(call.name.as_str())
        || dispatcher
            .registration(&call.name)
            .is_some_and(|reg| offered.contains(reg.wire_name));
    if !offered_name {
        let mut names: Vec<&str> = offered.iter().copied().collect();
        names.sort_unstable();
        let err = SkillError::new(
            codes::UNKNOWN_SKILL,
            format!(
                "there is no tool named `{}`; available tools: {}",
                call.name,
                names.join(", ")
            ),
        );
        tracing::warn!(requested = %call.name, "model called a tool it was not offered");
        return SkillResult::err(call.name.clone(), err, elapsed());
    }
    let parsed = ParsedCall::from_tool_call(call.clone());
    if let Some(err) = parsed.unreadable_arguments() {
        let mut result = SkillResult::err(call.name.clone(), err, elapsed());
        result.warnings = parsed.warnings;
        return result;
    }
    match options.tool_timeout {
        Some(limit) => match tokio::time::timeout(limit, dispatcher.dispatch(&parsed, ctx)).await {
            Ok(result) => result,
            Err(_) => SkillResult::err(
                call.name.clone(),
                SkillError::new(
                    codes::TIMEOUT,
                    format!(
                        "tool `{}` did not finish within {} ms; try again with a narrower request or use another tool",
                        call.name,
                        limit.as_millis()
                    ),
                ),
                elapsed(),
            ),
        },
        None => dispatcher.dispatch(&parsed, ctx).await,
    }
}
