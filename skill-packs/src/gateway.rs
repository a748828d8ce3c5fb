//! The gateway every call of a pack goes through: import declared, subscription, rate limit,
//! execution, audit record.
//!
//! Calls of a pack's own tools and of core tools run directly; calls into another pack are
//! checked and audited. The audit record is written whatever the outcome: a refused call, a
//! failed or panicking skill (the dispatcher turns panics into error results), or a call
//! dropped half-way (recorded as `cancelled`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use chrono::{DateTime, NaiveDate, Utc};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use skill_core::ParsedCall;
use skill_core::{Dispatcher, Skill, SkillContext, SkillError, SkillRegistration, SkillResult};

use crate::check::{check_manifests, PackProblem};
use crate::manifest::{linked_packs, Imports, Pack, PackManifest};
use crate::rate::RateLimit;
use crate::session::PackSession;
use crate::store::{
    AuditLog, AuditRecord, QuotaDecision, QuotaStore, SqliteStore, StateStore, StoreError,
    SubscriptionStore,
};

/// Error codes of the gateway (in [`SkillResult::error`]).
pub mod codes {
    /// The calling pack did not import the tool.
    pub const TOOL_NOT_IMPORTED: &str = "tool_not_imported";
    /// The provider does not export the tool.
    pub const TOOL_NOT_EXPORTED: &str = "tool_not_exported";
    /// The tool's removal date has passed.
    pub const TOOL_REMOVED: &str = "tool_removed";
    /// The user has no subscription to the provider (details carry
    /// `action: "show_subscribe_card"`).
    pub const SUBSCRIPTION_REQUIRED: &str = "subscription_required";
    /// The user used up the tool's quota (details carry `retry_after` in seconds).
    pub const RATE_LIMITED: &str = "rate_limited";
    /// No pack with that id.
    pub const UNKNOWN_PACK: &str = "unknown_pack";
    /// A pack called in the name of another pack.
    pub const CONSUMER_MISMATCH: &str = "consumer_mismatch";
    /// Cross-pack calls nested deeper than [`super::MAX_CALL_DEPTH`].
    pub const CALL_DEPTH_EXCEEDED: &str = "call_depth_exceeded";
    /// A pack wrote outside `skills.<pack>.*`.
    pub const CROSS_PACK_WRITE: &str = "cross_pack_write";
    /// A pack read another pack's state instead of calling its accessor tools.
    pub const CROSS_PACK_READ: &str = "cross_pack_read";
    /// Subscriptions, quotas or state could not be read or written.
    pub const STORAGE_FAILED: &str = "storage_failed";
}

/// The `action` a `subscription_required` error asks the host to take.
pub const SHOW_SUBSCRIBE_CARD: &str = "show_subscribe_card";

/// How deep calls may nest (pack A calls B which calls C ...); stops runaway recursion.
pub const MAX_CALL_DEPTH: u32 = 8;

/// Why a gateway could not be built or a tool set not made.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The packs break their contracts; every problem is listed.
    #[error("{} pack contract problem(s):\n{}", .0.len(), .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Contracts(Vec<PackProblem>),
    /// A pack exports or a host names as core a tool the dispatcher does not know.
    #[error("tool `{tool}` ({role}) is not registered in the dispatcher")]
    UnregisteredTool {
        /// The tool id.
        tool: String,
        /// Why it was needed (`exported by <pack>`, `core tool`).
        role: String,
    },
    /// No pack with that id.
    #[error("there is no pack `{0}`")]
    UnknownPack(String),
    /// The default SQLite store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Tool definitions (OpenAI function shape) offered to one pack's model; shared.
pub type PackTools = Arc<Vec<Value>>;

type Clock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// Builds a [`Gateway`].
pub struct GatewayBuilder {
    dispatcher: Dispatcher,
    packs: Vec<&'static PackManifest>,
    core_tools: Vec<String>,
    subscriptions: Option<Arc<dyn SubscriptionStore>>,
    quotas: Option<Arc<dyn QuotaStore>>,
    audit: Option<Arc<dyn AuditLog>>,
    state: Option<Arc<dyn StateStore>>,
    sqlite_path: Option<std::path::PathBuf>,
    clock: Clock,
}

impl GatewayBuilder {
    /// Adds every pack linked into the binary.
    #[must_use]
    pub fn linked_packs(mut self) -> Self {
        self.packs.extend(linked_packs());
        self
    }

    /// Adds pack `P`.
    #[must_use]
    pub fn pack<P: Pack>(mut self) -> Self {
        self.packs.push(P::manifest());
        self
    }

    /// Adds a pack by its manifest.
    #[must_use]
    pub fn manifest(mut self, manifest: &'static PackManifest) -> Self {
        self.packs.push(manifest);
        self
    }

    /// Tools every pack's model sees (ids or wire names), e.g. `read`, `save`, `show`.
    #[must_use]
    pub fn core_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.core_tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Uses one SQLite store for subscriptions, quotas, audit log and state.
    #[must_use]
    pub fn store(self, store: SqliteStore) -> Self {
        let store = Arc::new(store);
        self.subscriptions(store.clone())
            .quotas(store.clone())
            .audit(store.clone())
            .state(store)
    }

    /// Opens the SQLite database at `path` for every store not set otherwise (the default
    /// is `skillkit-packs.db` in the working directory, or `$SKILLKIT_PACKS_DB`).
    #[must_use]
    pub fn sqlite_path(mut self, path: impl AsRef<Path>) -> Self {
        self.sqlite_path = Some(path.as_ref().to_path_buf());
        self
    }

    /// Where subscriptions live.
    #[must_use]
    pub fn subscriptions(mut self, store: Arc<dyn SubscriptionStore>) -> Self {
        self.subscriptions = Some(store);
        self
    }

    /// Where quota counters live.
    #[must_use]
    pub fn quotas(mut self, store: Arc<dyn QuotaStore>) -> Self {
        self.quotas = Some(store);
        self
    }

    /// Where audit records go.
    #[must_use]
    pub fn audit(mut self, log: Arc<dyn AuditLog>) -> Self {
        self.audit = Some(log);
        self
    }

    /// Where pack state lives.
    #[must_use]
    pub fn state(mut self, store: Arc<dyn StateStore>) -> Self {
        self.state = Some(store);
        self
    }

    /// The clock for subscriptions, quota windows and removal dates (tests).
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> DateTime<Utc> + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Checks the pack contracts (all problems at once) and builds the gateway.
    pub fn build(mut self) -> Result<Gateway, GatewayError> {
        self.packs.sort_by(|a, b| a.id.cmp(b.id));
        self.packs.dedup_by(|a, b| std::ptr::eq(*a, *b));
        let today = (self.clock)().date_naive();
        let problems = check_manifests(&self.packs, today);
        if !problems.is_empty() {
            return Err(GatewayError::Contracts(problems));
        }
        let mut packs = BTreeMap::new();
        for pack in &self.packs {
            for tool in pack.exports.tools {
                if self.dispatcher.registration(tool.id).is_none() {
                    return Err(GatewayError::UnregisteredTool {
                        tool: tool.id.into(),
                        role: format!("exported by `{}`", pack.id),
                    });
                }
            }
            packs.insert(pack.id, *pack);
        }
        let mut core = Vec::new();
        for name in &self.core_tools {
            let reg = self.dispatcher.registration(name).ok_or_else(|| {
                GatewayError::UnregisteredTool {
                    tool: name.clone(),
                    role: "core tool".into(),
                }
            })?;
            core.push(reg);
        }
        let mut owner = HashMap::new();
        for skill in self.dispatcher.list_skills() {
            if let Some(pack) = packs.values().find(|p| p.owns(skill.id)) {
                owner.insert(skill.id, pack.id);
            }
        }
        let needs_default = self.subscriptions.is_none()
            || self.quotas.is_none()
            || self.audit.is_none()
            || self.state.is_none();
        if needs_default {
            let path = self.sqlite_path.clone().unwrap_or_else(|| {
                std::env::var_os("SKILLKIT_PACKS_DB")
                    .map_or_else(|| "skillkit-packs.db".into(), Into::into)
            });
            let store = Arc::new(SqliteStore::open(path)?);
            self.subscriptions.get_or_insert_with(|| store.clone());
            self.quotas.get_or_insert_with(|| store.clone());
            self.audit.get_or_insert_with(|| store.clone());
            self.state.get_or_insert_with(|| store.clone());
        }
        let (Some(subscriptions), Some(quotas), Some(audit), Some(state)) =
            (self.subscriptions, self.quotas, self.audit, self.state)
        else {
            unreachable!("every store was set above");
        };
        Ok(Gateway {
            inner: Arc::new(Inner {
                dispatcher: self.dispatcher,
                packs,
                owner,
                core,
                subscriptions,
                quotas,
                audit,
                state,
                clock: self.clock,
                tool_sets: RwLock::new(HashMap::new()),
            }),
        })
    }
}

struct Inner {
    dispatcher: Dispatcher,
    packs: BTreeMap<&'static str, &'static PackManifest>,
    owner: HashMap<&'static str, &'static str>,
    core: Vec<&'static SkillRegistration>,
    subscriptions: Arc<dyn SubscriptionStore>,
    quotas: Arc<dyn QuotaStore>,
    audit: Arc<dyn AuditLog>,
    state: Arc<dyn StateStore>,
    clock: Clock,
    tool_sets: RwLock<HashMap<(&'static str, NaiveDate), PackTools>>,
}

/// Runs calls of packs under their contracts. Cheap to clone; share one per process (or one
/// per instance: instances on the same store share quotas, subscriptions and the audit log).
#[derive(Clone)]
pub struct Gateway {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("packs", &self.inner.packs.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Where a tool stands relative to a calling pack.
enum Route {
    /// Core tool or the caller's own: runs without contract checks.
    Direct(&'static SkillRegistration, &'static str),
    /// Another pack's tool.
    Cross(&'static SkillRegistration, &'static PackManifest),
    /// A skill of no pack that is not a core tool.
    Outside(&'static SkillRegistration),
}

impl Gateway {
    /// Starts a gateway over `dispatcher`.
    pub fn builder(dispatcher: Dispatcher) -> GatewayBuilder {
        GatewayBuilder {
            dispatcher,
            packs: Vec::new(),
            core_tools: Vec::new(),
            subscriptions: None,
            quotas: None,
            audit: None,
            state: None,
            sqlite_path: None,
            clock: Arc::new(Utc::now),
        }
    }

    /// The dispatcher underneath.
    pub fn dispatcher(&self) -> &Dispatcher {
        &self.inner.dispatcher
    }

    /// The pack with this id.
    pub fn pack(&self, id: &str) -> Option<&'static PackManifest> {
        self.inner.packs.get(id).copied()
    }

    /// The subscription store.
    pub fn subscriptions(&self) -> &Arc<dyn SubscriptionStore> {
        &self.inner.subscriptions
    }

    /// The quota store.
    pub fn quotas(&self) -> &Arc<dyn QuotaStore> {
        &self.inner.quotas
    }

    /// The audit log.
    pub fn audit_log(&self) -> &Arc<dyn AuditLog> {
        &self.inner.audit
    }

    /// The state store.
    pub fn state_store(&self) -> &Arc<dyn StateStore> {
        &self.inner.state
    }

    /// The current time by the gateway's clock.
    pub fn now(&self) -> DateTime<Utc> {
        (self.inner.clock)()
    }

    /// The pack owning skill `id`, if any.
    pub fn owner_of(&self, id: &str) -> Option<&'static str> {
        self.inner.owner.get(id).copied()
    }

    /// The tools the model of `pack` may call (SPEC `get_tools_for_skill`): core tools, the
    /// pack's own active tools, then the tools it imports that the provider exports and has
    /// not removed. An import that is not authorised never appears.
    pub fn tools_for_pack(&self, pack: &str) -> Result<PackTools, GatewayError> {
        let manifest = self
            .pack(pack)
            .ok_or_else(|| GatewayError::UnknownPack(pack.into()))?;
        let today = self.now().date_naive();
        let key = (manifest.id, today);
        if let Some(hit) = self
            .inner
            .tool_sets
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(Arc::clone(hit));
        }
        let mut chosen: Vec<&'static SkillRegistration> = Vec::new();
        let mut push = |reg: &'static SkillRegistration| {
            if reg.is_active() && !chosen.iter().any(|c| std::ptr::eq(*c, reg)) {
                chosen.push(reg);
            }
        };
        self.inner.core.iter().for_each(|r| push(r));
        self.inner
            .dispatcher
            .list_skills()
            .iter()
            .filter(|s| manifest.owns(s.id))
            .for_each(|r| push(r));
        for import in manifest.imports {
            let Some(provider) = self.pack(import.from) else {
                continue;
            };
            for tool in import.tools {
                if !provider.exports.exports(tool) || is_removed(provider, tool, today) {
                    continue;
                }
                if let Some(reg) = self.inner.dispatcher.registration(tool) {
                    push(reg);
                }
            }
        }
        let set: PackTools = Arc::new(skill_core::skills_to_tool_definitions(
            chosen,
            &skill_core::ToolFilter::all(),
        ));
        let mut cache = self
            .inner
            .tool_sets
            .write()
            .unwrap_or_else(|p| p.into_inner());
        Ok(Arc::clone(cache.entry(key).or_insert(set)))
    }

    /// Runs `tool` (id or wire name) for pack `consumer` on behalf of `user`, the way the
    /// model calls it: `args` are the model's arguments, missing ones are prepared from `ctx`.
    pub async fn call_tool(
        &self,
        consumer: &str,
        tool: &str,
        args: Option<&Value>,
        user: &str,
        ctx: &SkillContext,
    ) -> SkillResult {
        self.call_at_depth(consumer, tool, args, user, ctx, 0).await
    }

    /// Runs a tool call the model made (arguments already parsed and repaired); parse
    /// warnings travel with the result.
    pub async fn dispatch(
        &self,
        consumer: &str,
        call: &ParsedCall,
        user: &str,
        ctx: &SkillContext,
    ) -> SkillResult {
        let args: Option<Value> = serde_json::from_str(&call.arguments).ok();
        let mut result = self
            .call_tool(consumer, &call.skill_id, args.as_ref(), user, ctx)
            .await;
        result.warnings.splice(0..0, call.warnings.iter().cloned());
        result
    }

    /// Typed call of tool `T` by pack `C`: compiles only if `C` imports `T`.
    pub async fn call<C, T>(
        &self,
        user: &str,
        input: &T::Input,
        ctx: &SkillContext,
    ) -> Result<T::Output, SkillError>
    where
        C: Imports<T>,
        T: Skill,
        T::Output: DeserializeOwned,
    {
        self.call_typed_at_depth::<C, T>(user, input, ctx, 0).await
    }

    pub(crate) async fn call_typed_at_depth<C, T>(
        &self,
        user: &str,
        input: &T::Input,
        ctx: &SkillContext,
        depth: u32,
    ) -> Result<T::Output, SkillError>
    where
        C: Imports<T>,
        T: Skill,
        T::Output: DeserializeOwned,
    {
        let args = serde_json::to_value(input)?;
        let result = self
            .call_at_depth(C::ID, T::ID, Some(&args), user, ctx, depth)
            .await;
        result_into::<T::Output>(result)
    }

    pub(crate) async fn call_at_depth(
        &self,
        consumer: &str,
        tool: &str,
        args: Option<&Value>,
        user: &str,
        ctx: &SkillContext,
        depth: u32,
    ) -> SkillResult {
        let started = Instant::now();
        let at = self.now();
        let Some(consumer_pack) = self.pack(consumer) else {
            let err = SkillError::new(
                codes::UNKNOWN_PACK,
                format!(
                    "there is no pack `{consumer}`; known packs: {}",
                    self.pack_ids()
                ),
            );
            let result = SkillResult::err(tool.to_string(), err, ms(started));
            self.write_audit(audit_of(consumer, "", tool, user, at, &result))
                .await;
            return result;
        };
        let route = match self.inner.dispatcher.registration(tool) {
            None => None,
            Some(reg) if self.inner.core.iter().any(|c| std::ptr::eq(*c, reg)) => {
                Some(Route::Direct(reg, consumer_pack.id))
            }
            Some(reg) => match self.owner_of(reg.id) {
                Some(owner) if owner == consumer_pack.id => Some(Route::Direct(reg, owner)),
                Some(owner) => Some(Route::Cross(reg, self.inner.packs[owner])),
                None => Some(Route::Outside(reg)),
            },
        };
        match route {
            Some(Route::Direct(reg, pack)) => {
                if depth >= MAX_CALL_DEPTH {
                    return depth_exceeded(reg.id, started);
                }
                let child = self.child_context(ctx, pack, user, depth + 1);
                self.inner
                    .dispatcher
                    .prepare_and_call(reg.id, &child, args)
                    .await
            }
            None => {
                // Unknown tool: name only the tools this pack may call; audit the attempt.
                let offered = self
                    .tools_for_pack(consumer_pack.id)
                    .map(|set| {
                        set.iter()
                            .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                let err = SkillError::new(
                    skill_core::codes::UNKNOWN_SKILL,
                    format!(
                        "there is no tool named `{tool}`; tools of pack `{}`: {offered}",
                        consumer_pack.id
                    ),
                )
                .with_details(json!({ "requested": tool }));
                let result = SkillResult::err(tool.to_string(), err, ms(started));
                self.write_audit(audit_of(consumer_pack.id, "", tool, user, at, &result))
                    .await;
                result
            }
            Some(Route::Outside(reg)) => {
                let err = SkillError::new(
                    codes::TOOL_NOT_IMPORTED,
                    format!(
                        "pack `{}` may not call `{}`: it is neither a core tool, nor its own, nor imported",
                        consumer_pack.id, reg.wire_name
                    ),
                );
                let result = SkillResult::err(reg.id, err, ms(started));
                self.write_audit(audit_of(consumer_pack.id, "", reg.id, user, at, &result))
                    .await;
                result
            }
            Some(Route::Cross(reg, provider)) => {
                let mut guard = AuditGuard::new(
                    self,
                    audit_of_start(consumer_pack.id, provider.id, reg.id, user, at),
                );
                let result = self
                    .cross_call(
                        consumer_pack,
                        provider,
                        reg,
                        args,
                        user,
                        ctx,
                        depth,
                        started,
                    )
                    .await;
                if let Some(mut record) = guard.take() {
                    record.outcome = outcome_of(&result);
                    record.message = result.error.as_ref().map(|e| e.message.clone());
                    record.duration_ms = ms(started);
                    self.write_audit(record).await;
                }
                result
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn cross_call(
        &self,
        consumer: &'static PackManifest,
        provider: &'static PackManifest,
        reg: &'static SkillRegistration,
        args: Option<&Value>,
        user: &str,
        ctx: &SkillContext,
        depth: u32,
        started: Instant,
    ) -> SkillResult {
        let fail = |err: SkillError| SkillResult::err(reg.id, err, ms(started));
        let now = self.now();
        // 1. The import is declared and the provider still exports the tool.
        if !consumer.imports_tool(provider.id, reg.id) {
            return fail(SkillError::new(
                codes::TOOL_NOT_IMPORTED,
                format!(
                    "`{}` is not in the imports of pack `{}`; declare it under `imports: [{{ from: {}, tools: [...] }}]`",
                    reg.wire_name, consumer.id, provider.id
                ),
            ));
        }
        if !provider.exports.exports(reg.id) {
            return fail(SkillError::new(
                codes::TOOL_NOT_EXPORTED,
                format!("pack `{}` does not export `{}`", provider.id, reg.wire_name),
            ));
        }
        if is_removed(provider, reg.id, now.date_naive()) {
            let dep = provider.exports.deprecation(reg.id);
            return fail(SkillError::new(
                codes::TOOL_REMOVED,
                format!(
                    "`{}` was removed on {}{}",
                    reg.wire_name,
                    dep.map_or("", |d| d.removal_date),
                    dep.and_then(|d| d.replacement)
                        .map(|r| format!("; use `{r}` instead"))
                        .unwrap_or_default()
                ),
            ));
        }
        if depth >= MAX_CALL_DEPTH {
            return depth_exceeded(reg.id, started);
        }
        // 2. Subscription, unless the tool is free.
        let access = &provider.exports.access;
        if access.needs_subscription(reg.id) {
            match self.inner.subscriptions.is_subscribed(user, provider.id, now).await {
                Ok(true) => {}
                Ok(false) => {
                    return fail(
                        SkillError::new(
                            codes::SUBSCRIPTION_REQUIRED,
                            format!(
                                "`{}` needs a subscription to `{}`; offer the user the subscription card",
                                reg.wire_name, provider.id
                            ),
                        )
                        .with_details(json!({
                            "skill_id": provider.id,
                            "tool": reg.id,
                            "action": SHOW_SUBSCRIBE_CARD,
                        })),
                    )
                }
                Err(err) => return fail(storage_failed(err)),
            }
        }
        // 3. Rate limit.
        if let RateLimit::PerWindow { max, window } = access.rate_limit(reg.id) {
            match self
                .inner
                .quotas
                .try_acquire(user, reg.id, max, window, now)
                .await
            {
                Ok(QuotaDecision::Admitted { .. }) => {}
                Ok(QuotaDecision::Exhausted) => {
                    let retry_after = window.retry_after(now);
                    return fail(
                        SkillError::new(
                            codes::RATE_LIMITED,
                            format!(
                                "`{}` allows {max} calls per {} per user; try again in {retry_after} seconds",
                                reg.wire_name,
                                window.as_str()
                            ),
                        )
                        .with_details(json!({
                            "retry_after": retry_after,
                            "limit": format!("{max}/{}", window.as_str()),
                        })),
                    );
                }
                Err(err) => return fail(storage_failed(err)),
            }
        }
        // 4. Execution, as the provider.
        let child = self.child_context(ctx, provider.id, user, depth + 1);
        self.inner
            .dispatcher
            .prepare_and_call(reg.id, &child, args)
            .await
    }

    fn child_context(
        &self,
        ctx: &SkillContext,
        pack: &'static str,
        user: &str,
        depth: u32,
    ) -> SkillContext {
        let base = match ctx.get::<PackSession>() {
            Some(session) => session.base_context().clone(),
            None => ctx.clone(),
        };
        let session = PackSession::new(self.clone(), pack, user, depth, base.clone());
        base.with(session)
    }

    async fn write_audit(&self, record: AuditRecord) {
        if let Err(err) = self.inner.audit.record(&record).await {
            tracing::error!(
                consumer = %record.consumer,
                provider = %record.provider,
                tool = %record.tool,
                user = %record.user,
                outcome = %record.outcome,
                error = %err,
                "audit record could not be written"
            );
        }
    }

    fn pack_ids(&self) -> String {
        self.inner
            .packs
            .keys()
            .copied()
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Writes the audit record of a call that is dropped before it finishes.
struct AuditGuard {
    gateway: Gateway,
    record: Option<AuditRecord>,
    started: Instant,
}

impl AuditGuard {
    fn new(gateway: &Gateway, record: AuditRecord) -> Self {
        Self {
            gateway: gateway.clone(),
            record: Some(record),
            started: Instant::now(),
        }
    }

    fn take(&mut self) -> Option<AuditRecord> {
        self.record.take()
    }
}

impl Drop for AuditGuard {
    fn drop(&mut self) {
        let Some(mut record) = self.record.take() else {
            return;
        };
        record.outcome = "cancelled".into();
        record.message = Some("the call was dropped before it finished".into());
        record.duration_ms = ms(self.started);
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                let gateway = self.gateway.clone();
                handle.spawn(async move { gateway.write_audit(record).await });
            }
            Err(_) => tracing::error!(
                ?record,
                "cancelled call outside a runtime; audit record only logged"
            ),
        }
    }
}

fn is_removed(provider: &PackManifest, tool: &str, today: NaiveDate) -> bool {
    provider
        .exports
        .deprecation(tool)
        .and_then(|d| NaiveDate::parse_from_str(d.removal_date, "%Y-%m-%d").ok())
        .is_some_and(|removal| today >= removal)
}

fn depth_exceeded(tool: &'static str, started: Instant) -> SkillResult {
    SkillResult::err(
        tool,
        SkillError::new(
            codes::CALL_DEPTH_EXCEEDED,
            format!("calls between packs nest deeper than {MAX_CALL_DEPTH}; `{tool}` was not run"),
        ),
        ms(started),
    )
}

fn storage_failed(err: StoreError) -> SkillError {
    tracing::error!(error = %err, "pack storage failed");
    SkillError::new(
        codes::STORAGE_FAILED,
        "the call could not be authorised because storage is unavailable; try again later",
    )
    .with_source(err)
}

fn audit_of_start(
    consumer: &str,
    provider: &str,
    tool: &str,
    user: &str,
    at: DateTime<Utc>,
) -> AuditRecord {
    AuditRecord {
        consumer: consumer.into(),
        provider: provider.into(),
        tool: tool.into(),
        user: user.into(),
        at,
        outcome: String::new(),
        message: None,
        duration_ms: 0.0,
    }
}

fn audit_of(
    consumer: &str,
    provider: &str,
    tool: &str,
    user: &str,
    at: DateTime<Utc>,
    result: &SkillResult,
) -> AuditRecord {
    AuditRecord {
        outcome: outcome_of(result),
        message: result.error.as_ref().map(|e| e.message.clone()),
        duration_ms: result.elapsed_ms,
        ..audit_of_start(consumer, provider, tool, user, at)
    }
}

fn outcome_of(result: &SkillResult) -> String {
    match result.error_code() {
        None => "ok".into(),
        Some(code) => code.into(),
    }
}

/// Turns a result into the typed output, or its error.
pub(crate) fn result_into<T: DeserializeOwned>(result: SkillResult) -> Result<T, SkillError> {
    if let Some(error) = result.error {
        let mut err = SkillError::new(error.code, error.message);
        err.details = error.details;
        return Err(err);
    }
    result.data_as::<T>().map_err(|e| {
        SkillError::new(
            skill_core::codes::OUTPUT_ERROR,
            format!(
                "the output of `{}` does not fit the expected type: {e}",
                result.skill_id
            ),
        )
    })
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}
