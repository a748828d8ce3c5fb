//! The dispatcher: every registered skill by id, their tool definitions, and calls.
//!
//! Built once (from the link-time registry or an explicit list), then shared: lookups are a
//! hash probe, rendered definition lists are cached per filter, and a call is one
//! deserialization of the arguments, the skill body and one serialization of its output.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::{json, Value};

use crate::args::{parse_arguments, parse_for_tool, retry_message, ArgumentParse};
use crate::catalog::ToolCatalog;
use crate::confirm::{ConfirmationError, ConfirmationQueue, Confirmed, PendingConfirmation};
use crate::context::SkillContext;
use crate::dialect::{Dialect, DialectError};
use crate::error::{codes, SkillError};
use crate::registration::{
    linked_skills, wire_name_of, CallArgs, InvokeError, PrepareMode, SkillRegistration,
    SkillStatus, SourceLocation,
};
use crate::result::SkillResult;
use crate::tools::{exclude_fields, ParsedCall, ToolFilter};

/// A problem with the set of registered skills, found when the dispatcher is built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Two skills share one id.
    #[error("skill id `{id}` is registered twice: at {first} and at {second}")]
    DuplicateId {
        /// The shared id.
        id: &'static str,
        /// Where the first one is defined.
        first: SourceLocation,
        /// Where the second one is defined.
        second: SourceLocation,
    },
    /// Two different ids map to the same wire name.
    #[error("skills `{first_id}` ({first}) and `{second_id}` ({second}) both go on the wire as `{wire}`; rename one", wire = wire_name_of(.first_id))]
    WireNameClash {
        /// The first id.
        first_id: &'static str,
        /// Where the first one is defined.
        first: SourceLocation,
        /// The second id.
        second_id: &'static str,
        /// Where the second one is defined.
        second: SourceLocation,
    },
    /// A registration made by hand carries an id that is not a valid tool name.
    #[error("skill id `{id}` at {source_location} is not a valid tool name: {reason}")]
    InvalidId {
        /// The id.
        id: &'static str,
        /// Where it is defined.
        source_location: SourceLocation,
        /// What is wrong with it.
        reason: String,
    },
}

/// Checks an id: 1 to 64 characters of `[A-Za-z0-9_-]`, optionally in `.`-separated parts
/// (`crm.search_client`), which go on the wire with `_` instead of `.`.
pub fn validate_skill_id(id: &str) -> Result<(), String> {
    // The same rule `#[skill]` applies at compile time.
    crate::__private::rules::id_problem(id).map_or(Ok(()), Err)
}

/// A finished list of tool definitions, shared. The JSON text is what a provider request
/// carries; the parsed values are built on first access.
#[derive(Debug)]
pub struct ToolSet {
    json: String,
    len: usize,
    definitions: OnceLock<Vec<Value>>,
}

impl ToolSet {
    /// A set from already rendered definition JSON fragments.
    fn from_fragments<'a>(fragments: impl Iterator<Item = &'a str>) -> Self {
        let mut json = String::from("[");
        let mut len = 0;
        for fragment in fragments {
            if len > 0 {
                json.push(',');
            }
            json.push_str(fragment);
            len += 1;
        }
        json.push(']');
        Self {
            json,
            len,
            definitions: OnceLock::new(),
        }
    }

    fn from_values(definitions: Vec<Value>) -> Self {
        Self {
            json: serde_json::to_string(&definitions).unwrap_or_else(|_| "[]".into()),
            len: definitions.len(),
            definitions: OnceLock::from(definitions),
        }
    }

    /// The definitions as JSON values.
    pub fn definitions(&self) -> &[Value] {
        self.definitions
            .get_or_init(|| serde_json::from_str(&self.json).unwrap_or_default())
    }

    /// The definitions as one JSON array.
    pub fn to_json(&self) -> &str {
        &self.json
    }

    /// Number of definitions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::ops::Deref for ToolSet {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        self.definitions()
    }
}

/// Tool definitions as handed out by the dispatcher: cheap to clone, immutable.
pub type ToolDefinitions = Arc<ToolSet>;

/// Builds a [`Dispatcher`] from explicit registrations and/or the link-time registry.
#[derive(Debug, Default)]
pub struct DispatcherBuilder {
    skills: Vec<&'static SkillRegistration>,
    default_timeout: Option<Duration>,
}

impl DispatcherBuilder {
    /// Adds one skill.
    #[must_use]
    pub fn skill(mut self, skill: &'static SkillRegistration) -> Self {
        self.skills.push(skill);
        self
    }

    /// Adds several skills.
    #[must_use]
    pub fn skills(mut self, skills: impl IntoIterator<Item = &'static SkillRegistration>) -> Self {
        self.skills.extend(skills);
        self
    }

    /// Adds every skill linked into the binary.
    #[must_use]
    pub fn with_inventory(self) -> Self {
        self.skills(linked_skills())
    }

    /// Time limit for skills that declare none (by default there is none).
    #[must_use]
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// Checks ids (valid, unique, unique on the wire) and builds the dispatcher.
    pub fn build(mut self) -> Result<Dispatcher, RegistryError> {
        self.skills.sort_by(|a, b| a.id.cmp(b.id));
        let mut by_name: HashMap<&'static str, usize> =
            HashMap::with_capacity(self.skills.len() * 2);
        let mut unique: Vec<&'static SkillRegistration> = Vec::with_capacity(self.skills.len());
        for skill in self.skills {
            if let Err(reason) = validate_skill_id(skill.id) {
                return Err(RegistryError::InvalidId {
                    id: skill.id,
                    source_location: skill.source,
                    reason,
                });
            }
            if let Some(prev) = unique.last() {
                if prev.id == skill.id {
                    if std::ptr::eq(*prev, skill) {
                        continue; // the same registration added twice
                    }
                    return Err(RegistryError::DuplicateId {
                        id: skill.id,
                        first: prev.source,
                        second: skill.source,
                    });
                }
            }
            let index = unique.len();
            unique.push(skill);
            by_name.insert(skill.id, index);
        }
        for (index, skill) in unique.iter().enumerate() {
            if skill.wire_name == skill.id {
                continue;
            }
            if let Some(&other) = by_name.get(skill.wire_name) {
                let other = unique[other];
                return Err(RegistryError::WireNameClash {
                    first_id: other.id,
                    first: other.source,
                    second_id: skill.id,
                    second: skill.source,
                });
            }
            by_name.insert(skill.wire_name, index);
        }
        Ok(Dispatcher {
            inner: Arc::new(Inner {
                skills: unique,
                by_name,
                default_timeout: self.default_timeout,
                tool_cache: RwLock::new(HashMap::new()),
                dialect_cache: RwLock::new(HashMap::new()),
                catalog: OnceLock::new(),
                confirmations: ConfirmationQueue::default(),
            }),
        })
    }
}

#[derive(Debug)]
struct Inner {
    skills: Vec<&'static SkillRegistration>,
    by_name: HashMap<&'static str, usize>,
    default_timeout: Option<Duration>,
    tool_cache: RwLock<HashMap<ToolFilter, ToolDefinitions>>,
    dialect_cache: RwLock<HashMap<(Dialect, ToolFilter), Result<ToolDefinitions, DialectError>>>,
    catalog: OnceLock<ToolCatalog>,
    confirmations: ConfirmationQueue,
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
    /// dropped by the linker. Name it once, e.g. `use skills as _;` or
    /// `skill_core::link_skills!(skills);`, in the binary.
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
    pub fn get_registration(&self, id: &str) -> Option<&'static SkillRegistration> {
        self.inner.by_name.get(id).map(|&i| self.inner.skills[i])
    }

    /// Number of registered skills.
    pub fn len(&self) -> usize {
        self.inner.skills.len()
    }

    /// Whether no skill is registered.
    pub fn is_empty(&self) -> bool {
        self.inner.skills.is_empty()
    }

    /// OpenAI function-tool definitions of the active skills that pass `filter`, sorted by
    /// id. Rendered once per filter and cached.
    pub fn get_tool_definitions(&self, filter: &ToolFilter) -> ToolDefinitions {
        if let Some(hit) = self
            .inner
            .tool_cache
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(filter)
        {
            return Arc::clone(hit);
        }
        let accepted = self.inner.skills.iter().filter(|s| filter.accepts(s));
        let rendered = Arc::new(if filter.exclude_fields.is_empty() {
            let fragments: Vec<Arc<str>> = accepted.map(|s| s.tool_definition_json()).collect();
            ToolSet::from_fragments(fragments.iter().map(|f| &**f))
        } else {
            ToolSet::from_values(
                accepted
                    .map(|s| {
                        let mut def = s.to_tool_definition();
                        exclude_fields(&mut def, &filter.exclude_fields);
                        def
                    })
                    .collect(),
            )
        });
        let mut cache = self
            .inner
            .tool_cache
            .write()
            .unwrap_or_else(|p| p.into_inner());
        Arc::clone(cache.entry(filter.clone()).or_insert(rendered))
    }

    /// Runs a skill with exactly the given arguments (plus declared defaults); arguments the
    /// skill could prepare from state are required here.
    pub async fn call<'a>(
        &self,
        id: &str,
        args: impl Into<CallArgs<'a>>,
        ctx: &SkillContext,
    ) -> SkillResult {
        self.run(id, args.into(), ctx, PrepareMode::ArgumentsOnly)
            .await
    }

    /// Runs a skill the way an agent does (SPEC-19 `prepare_and_call`): the model's arguments
    /// win over values prepared from the context, which win over declared defaults.
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

    async fn run(
        &self,
        id: &str,
        args: CallArgs<'_>,
        ctx: &SkillContext,
        mode: PrepareMode,
    ) -> SkillResult {
        let started = Instant::now();
        let Some(skill) = self.get_registration(id) else {
            return self.unknown_skill(id, started);
        };
        if skill.status == SkillStatus::Disabled {
            let err = SkillError::new(
                codes::SKILL_DISABLED,
                format!(
                    "tool `{}` is disabled and cannot be called",
                    skill.wire_name
                ),
            );
            return SkillResult::err(skill.id, err, elapsed_ms(started));
        }
        if skill.needs_confirmation() && !ctx.contains::<Confirmed>() {
            return self.hold_for_confirmation(skill, args, mode, started);
        }
        let result = match self.execute(skill, args, ctx, mode).await {
            Ok(data) => SkillResult::ok(skill.id, data, elapsed_ms(started)),
            Err(InvokeError::Input(err)) if err.code == codes::INVALID_ARGUMENTS => {
                // The strict fast path failed before the skill body ran: read the arguments
                // leniently against the catalog and run once more with the fixed value.
                // Boxed: keeps the fast path's future small.
                Box::pin(self.run_lenient(skill, args, ctx, mode, err, started)).await
            }
            Err(InvokeError::Input(err)) | Err(InvokeError::Run(err)) => {
                tracing::debug!(skill = skill.id, code = %err.code, error = %err.message, "skill call failed");
                SkillResult::err(skill.id, err, elapsed_ms(started))
            }
        };
        tracing::debug!(
            skill = skill.id,
            success = result.success,
            elapsed_ms = result.elapsed_ms,
            "skill call"
        );
        result
    }

    /// Second chance for arguments the strict path refused: coerce, then either answer with
    /// a list of problems the model can fix, or run with the fixed arguments.
    async fn run_lenient(
        &self,
        skill: &'static SkillRegistration,
        args: CallArgs<'_>,
        ctx: &SkillContext,
        mode: PrepareMode,
        strict_error: SkillError,
        started: Instant,
    ) -> SkillResult {
        let Some(tool) = self.catalog().get(skill.id) else {
            return SkillResult::err(skill.id, strict_error, elapsed_ms(started));
        };
        let parse = parse_for_tool(tool, args);
        let (fixed, warnings) = match parse.into_executable() {
            Ok(ok) => ok,
            Err(errors) => {
                return self.fixable_error(skill, &errors, Some(strict_error), Vec::new(), started)
            }
        };
        if warnings.is_empty() {
            // Nothing the catalog could fix: the strict error says it best.
            return SkillResult::err(skill.id, strict_error, elapsed_ms(started));
        }
        for warning in &warnings {
            tracing::debug!(skill = skill.id, code = %warning.code, path = %warning.path, "argument coerced");
        }
        let mut result = match self
            .execute(skill, CallArgs::Value(&fixed), ctx, mode)
            .await
        {
            Ok(data) => SkillResult::ok(skill.id, data, elapsed_ms(started)),
            Err(InvokeError::Input(err)) | Err(InvokeError::Run(err)) => {
                SkillResult::err(skill.id, err, elapsed_ms(started))
            }
        };
        result.warnings = warnings;
        result
    }

    /// The model-fixable answer to unusable arguments (code `invalid_arguments`).
    fn fixable_error(
        &self,
        skill: &'static SkillRegistration,
        errors: &[crate::args::ParseError],
        strict_error: Option<SkillError>,
        warnings: Vec<crate::args::ParseWarning>,
        started: Instant,
    ) -> SkillResult {
        let first_path = errors.first().map_or("$", |e| e.path.as_str());
        let mut details = json!({ "path": first_path, "errors": errors });
        if let Some(strict) = strict_error.and_then(|e| e.details) {
            details["strict"] = strict;
        }
        let err = SkillError::invalid_arguments(retry_message(skill.wire_name, errors))
            .with_details(details);
        tracing::debug!(
            skill = skill.id,
            problems = errors.len(),
            "arguments refused"
        );
        let mut result = SkillResult::err(skill.id, err, elapsed_ms(started));
        result.warnings = warnings;
        result
    }

    /// Checks the arguments of a call that needs confirmation and parks it.
    fn hold_for_confirmation(
        &self,
        skill: &'static SkillRegistration,
        args: CallArgs<'_>,
        mode: PrepareMode,
        started: Instant,
    ) -> SkillResult {
        let Some(tool) = self.catalog().get(skill.id) else {
            let err = SkillError::invalid_arguments(format!(
                "tool `{}` has no metadata",
                skill.wire_name
            ));
            return SkillResult::err(skill.id, err, elapsed_ms(started));
        };
        let parse = parse_for_tool(tool, args);
        let (arguments, warnings) = match parse.into_executable() {
            Ok(ok) => ok,
            Err(errors) => return self.fixable_error(skill, &errors, None, Vec::new(), started),
        };
        let pending = self.inner.confirmations.push(skill.id, arguments, mode);
        tracing::info!(skill = skill.id, pending = %pending.id, "call waits for confirmation");
        let err = SkillError::new(
            codes::CONFIRMATION_REQUIRED,
            format!(
                "`{}` changes data and waits for the user's confirmation (request {}); do not call it again, tell the user what will be done",
                skill.wire_name, pending.id
            ),
        )
        .with_details(json!({ "pending_confirmation": pending }));
        let mut result = SkillResult::err(skill.id, err, elapsed_ms(started));
        result.warnings = warnings;
        result
    }

    /// One invocation with panic isolation and the time limit; errors before the body runs
    /// stay [`InvokeError::Input`].
    async fn execute(
        &self,
        skill: &'static SkillRegistration,
        args: CallArgs<'_>,
        ctx: &SkillContext,
        mode: PrepareMode,
    ) -> Result<Box<serde_json::value::RawValue>, InvokeError> {
        let invocation = AssertUnwindSafe((skill.invoke)(ctx, args, mode)).catch_unwind();
        let timeout = skill
            .timeout_ms
            .map(Duration::from_millis)
            .or(self.inner.default_timeout);
        let outcome = match timeout {
            Some(limit) if tokio::runtime::Handle::try_current().is_ok() => {
                match tokio::time::timeout(limit, invocation).await {
                    Ok(outcome) => outcome,
                    Err(_) => {
                        tracing::warn!(
                            skill = skill.id,
                            timeout_ms = limit.as_millis() as u64,
                            "skill timed out"
                        );
                        return Err(InvokeError::Run(
                            SkillError::new(
                                codes::TIMEOUT,
                                format!(
                                    "tool `{}` did not finish within {} ms; try again with a narrower request",
                                    skill.wire_name,
                                    limit.as_millis()
                                ),
                            )
                            .with_details(json!({ "timeout_ms": limit.as_millis() as u64 })),
                        ));
                    }
                }
            }
            _ => invocation.await,
        };
        match outcome {
            Ok(result) => result,
            Err(payload) => {
                let text = panic_text(payload.as_ref());
                tracing::error!(skill = skill.id, panic = %text, "skill panicked");
                Err(InvokeError::Run(
                    SkillError::new(
                        codes::PANIC,
                        format!("tool `{}` failed with an internal error", skill.wire_name),
                    )
                    .with_details(json!({ "panic": text })),
                ))
            }
        }
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
        parse_arguments(self.catalog(), name, args.into())
    }

    /// Tool definitions of the active skills that pass `filter`, in one provider's dialect.
    /// Rendered once per dialect and filter, then cached (errors too).
    pub fn tool_definitions_for(
        &self,
        dialect: Dialect,
        filter: &ToolFilter,
    ) -> Result<ToolDefinitions, DialectError> {
        let key = (dialect, filter.clone());
        if let Some(hit) = self
            .inner
            .dialect_cache
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return hit.clone();
        }
        let skills: Vec<&'static SkillRegistration> = self
            .inner
            .skills
            .iter()
            .copied()
            .filter(|s| filter.accepts(s))
            .collect();
        let rendered = dialect
            .render_tools(&skills, &filter.exclude_fields)
            .map(|defs| Arc::new(ToolSet::from_values(defs)));
        let mut cache = self
            .inner
            .dialect_cache
            .write()
            .unwrap_or_else(|p| p.into_inner());
        cache.entry(key).or_insert(rendered).clone()
    }

    /// Calls waiting for the host's confirmation, oldest first.
    pub fn pending_confirmations(&self) -> Vec<PendingConfirmation> {
        self.inner.confirmations.list()
    }

    /// Runs a call that waited for confirmation, with the arguments it was parked with.
    pub async fn confirm(
        &self,
        pending_id: &str,
        ctx: &SkillContext,
    ) -> Result<SkillResult, ConfirmationError> {
        let pending = self.inner.confirmations.take(pending_id)?;
        tracing::info!(skill = %pending.skill_id, pending = pending_id, "call confirmed");
        let ctx = ctx.clone().with(Confirmed);
        Ok(self
            .run(
                &pending.skill_id,
                CallArgs::Value(&pending.arguments),
                &ctx,
                pending.mode,
            )
            .await)
    }

    /// Drops a call that waited for confirmation; the result tells the model it was refused.
    pub fn reject(
        &self,
        pending_id: &str,
        reason: Option<&str>,
    ) -> Result<SkillResult, ConfirmationError> {
        let pending = self.inner.confirmations.take(pending_id)?;
        tracing::info!(skill = %pending.skill_id, pending = pending_id, "call rejected");
        let wire = self
            .get_registration(&pending.skill_id)
            .map_or(pending.skill_id.as_str(), |s| s.wire_name);
        let mut message = format!("the user rejected the call of `{wire}`");
        if let Some(reason) = reason {
            message.push_str(": ");
            message.push_str(reason);
        }
        message.push_str("; do not retry it unless the user asks");
        let err = SkillError::new(codes::CONFIRMATION_REJECTED, message)
            .with_details(json!({ "pending_confirmation": pending }));
        let skill_id = self.get_registration(&pending.skill_id).map_or_else(
            || std::borrow::Cow::Owned(pending.skill_id.clone()),
            |s| std::borrow::Cow::Borrowed(s.id),
        );
        Ok(SkillResult::err(skill_id, err, 0.0))
    }

    fn unknown_skill(&self, id: &str, started: Instant) -> SkillResult {
        let available: Vec<&str> = self
            .inner
            .skills
            .iter()
            .filter(|s| s.is_active())
            .map(|s| s.wire_name)
            .collect();
        let err = SkillError::new(
            codes::UNKNOWN_SKILL,
            format!(
                "there is no tool named `{id}`; available tools: {}",
                available.join(", ")
            ),
        )
        .with_details(json!({ "requested": id }));
        tracing::warn!(requested = id, "call of an unknown skill");
        SkillResult::err(id.to_string(), err, elapsed_ms(started))
    }
}

fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// Maps an id to the name providers see (see [`wire_name_of`]).
pub fn wire_name(id: &str) -> std::borrow::Cow<'_, str> {
    wire_name_of(id)
}
