//! The dispatcher: every registered skill by id, their tool definitions, and calls.
//!
//! Built once (from the link-time registry or an explicit list), then shared: lookups are a
//! hash probe, rendered definition lists are cached per dialect and filter, and a call is one
//! deserialization of the arguments, the skill body and one serialization of its output.
//!
//! | file | job |
//! |---|---|
//! | `registry.rs` | id rules, duplicate and wire-name checks, the builder |
//! | `tool_set.rs` | [`ToolSet`] and the per-(dialect, filter) cache |
//! | `execute.rs` | one call: fast path, lenient retry, panics, time limits |
//! | `call_threads.rs` | the pool of reused threads timed calls start on |
//! | `series.rs` | several calls on one hand-over to a call thread |
//! | `confirmation.rs` | calls parked for a person's decision, and the one place a decision becomes a result ([`Dispatcher::decide`]) |
//! | `shared_confirmations.rs` | those calls kept in a store several servers share ([`SharedConfirmations`]) |

mod call_threads;
mod confirmation;
mod execute;
mod registry;
mod series;
mod shared_confirmations;
mod tool_set;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;

use serde_json::Value;

pub use call_threads::{CallThreadStats, DEFAULT_MAX_CALL_THREADS};
pub use registry::{validate_skill_id, DispatcherBuilder, RegistryError};
pub use series::SeriesCall;
pub use shared_confirmations::{
    ConfirmationStore, ConfirmationStoreError, SharedConfirmationError, SharedConfirmations,
    StoredConfirmation, TakenConfirmation, SHARED_CONFIRMATION_PREFIX,
};
pub use tool_set::ToolSet;

use crate::args::{parse_arguments, ArgumentParse};
use crate::catalog::ToolCatalog;
use crate::confirm::ConfirmationQueue;
use crate::context::SkillContext;
use crate::dialect::{self, Dialect, DialectError, ProviderCall};
use crate::limits::ArgumentLimits;
use crate::registration::{CallArgs, PrepareMode, SkillRegistration};
use crate::result::SkillResult;
use crate::tools::{ParsedCall, ToolFilter};
use call_threads::CallThreads;

type ToolCache = RwLock<HashMap<ToolFilter, Result<ToolSet, DialectError>>>;

#[derive(Debug)]
struct Inner {
    skills: Vec<&'static SkillRegistration>,
    by_name: HashMap<&'static str, usize>,
    default_timeout: Option<Duration>,
    limits: ArgumentLimits,
    strict_arguments: bool,
    /// Rendered tool sets, one map per dialect (indexed by `Dialect as usize`).
    tool_cache: [ToolCache; Dialect::ALL.len()],
    catalog: OnceLock<ToolCatalog>,
    confirmations: ConfirmationQueue,
    /// Where timed calls start (no thread exists until the first one).
    call_threads: CallThreads,
}

/// Finds skills by id and runs them. Cheap to clone; share one per process.
#[derive(Debug, Clone)]
pub struct Dispatcher {
    inner: Arc<Inner>,
}

impl Dispatcher {
    /// Every skill linked into the binary.
    ///
    /// `inventory` only sees crates the binary links: a skill crate that nothing refers to is
    /// dropped by the linker. Name it once, e.g. `use clausewright_skills as _;` or
    /// `toolwright::link_skills!(clausewright_skills);`, in the binary.
    pub fn from_inventory() -> Result<Self, RegistryError> {
        Self::builder().with_inventory().build()
    }

    /// Starts from an empty list.
    pub fn builder() -> DispatcherBuilder {
        DispatcherBuilder::default()
    }

    /// All skills, sorted by id (active or not).
    pub fn list_skills(&self) -> &[&'static SkillRegistration] {
        &self.inner.skills
    }

    /// All ids, sorted.
    pub fn skill_ids(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.inner.skills.iter().map(|s| s.id)
    }

    /// The skill with this id or wire name.
    pub fn registration(&self, id: &str) -> Option<&'static SkillRegistration> {
        self.inner.by_name.get(id).map(|&i| self.inner.skills[i])
    }

    /// The size and nesting bounds calls' arguments are checked against.
    pub fn argument_limits(&self) -> ArgumentLimits {
        self.inner.limits
    }

    /// The time limit of skills that declare none (`None`: they run without one).
    pub fn default_timeout(&self) -> Option<Duration> {
        self.inner.default_timeout
    }

    /// The threads timed calls start on: how many exist, wait for work, or are held by
    /// calls abandoned after their time limit, and the bound (for health checks).
    pub fn call_threads(&self) -> CallThreadStats {
        self.inner.call_threads.stats()
    }

    /// Whether an argument the skill does not have is refused rather than reported.
    pub fn strict_arguments(&self) -> bool {
        self.inner.strict_arguments
    }

    /// Number of registered skills.
    pub fn len(&self) -> usize {
        self.inner.skills.len()
    }

    /// Whether no skill is registered.
    pub fn is_empty(&self) -> bool {
        self.inner.skills.is_empty()
    }

    /// Runs the model's call of a skill, taking the arguments as the model wrote them (JSON
    /// text or a value): the model's arguments win over values prepared from the context,
    /// which win over declared defaults. This is the entry point for "run what the model
    /// asked for": what the schema told the model was optional is filled in here.
    pub async fn call<'a>(
        &self,
        id: &str,
        args: impl Into<CallArgs<'a>>,
        ctx: &SkillContext,
    ) -> SkillResult {
        self.run(id, args.into(), ctx, PrepareMode::FromState).await
    }

    /// Runs a skill with exactly the given arguments (plus declared defaults): nothing is
    /// prepared from the context, so arguments the skill could prepare are required. For
    /// hosts and tests that want to pin every input.
    pub async fn call_unprepared<'a>(
        &self,
        id: &str,
        args: impl Into<CallArgs<'a>>,
        ctx: &SkillContext,
    ) -> SkillResult {
        self.run(id, args.into(), ctx, PrepareMode::ArgumentsOnly)
            .await
    }

    /// [`call`](Self::call) with the arguments as an optional JSON value, as SPEC-19's
    /// `prepare_and_call(skill_id, llm_arguments)` names it.
    pub async fn prepare_and_call(
        &self,
        id: &str,
        ctx: &SkillContext,
        llm_arguments: Option<&Value>,
    ) -> SkillResult {
        self.run(
            id,
            CallArgs::from(llm_arguments),
            ctx,
            PrepareMode::FromState,
        )
        .await
    }

    /// Runs a parsed tool call with preparation from state; parse warnings travel with the
    /// result.
    pub async fn dispatch(&self, call: &ParsedCall, ctx: &SkillContext) -> SkillResult {
        let mut result = self
            .run(
                &call.skill_id,
                CallArgs::Text(&call.arguments),
                ctx,
                PrepareMode::FromState,
            )
            .await;
        if !call.warnings.is_empty() {
            result.warnings.splice(0..0, call.warnings.iter().cloned());
        }
        result
    }

    /// Runs one provider tool call (with preparation from state, like
    /// [`dispatch`](Self::dispatch)) and renders the answer in the call's dialect. Returns
    /// both: the result for logs and telemetry (warnings included), the rendered answer for
    /// the conversation.
    pub async fn answer_call(
        &self,
        call: &ProviderCall,
        ctx: &SkillContext,
    ) -> (SkillResult, Value) {
        let result = self.dispatch(&call.to_parsed_call(), ctx).await;
        let rendered = dialect::render_result(call, &result, self.registration(&call.name));
        (result, rendered)
    }

    /// Typed metadata of every registered skill (seed 003 `ToolCatalog`), built on first use.
    pub fn catalog(&self) -> &ToolCatalog {
        self.inner
            .catalog
            .get_or_init(|| ToolCatalog::new(&self.inner.skills))
    }

    /// Reads a call's arguments leniently against the tool's metadata, without running it:
    /// fixed arguments, warnings, errors and the raw text.
    pub fn parse_arguments<'a>(&self, name: &str, args: impl Into<CallArgs<'a>>) -> ArgumentParse {
        let args = args.into();
        if let Err(err) = self.inner.limits.check(args) {
            return ArgumentParse::over_limit(self.registration(name).map(|s| s.id), args, &err);
        }
        parse_arguments(self.catalog(), name, args)
    }
}
