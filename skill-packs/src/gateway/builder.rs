//! Assembling a gateway: packs, core tools, stores and clock; the pack contracts are checked
//! before anything runs.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use chrono::{DateTime, Utc};
use toolwright::Dispatcher;

use super::{AuditRetries, Clock, Gateway, GatewayError, Inner};
use crate::check::check_manifests;
use crate::manifest::{linked_packs, Pack, PackManifest};
use crate::store::{
    AuditLog, AuditedQuotaStore, QuotaStore, SqliteStore, StateStore, Stores, SubscriptionStore,
};

/// Builds a [`Gateway`].
pub struct GatewayBuilder {
    dispatcher: Dispatcher,
    packs: Vec<&'static PackManifest>,
    core_tools: Vec<String>,
    subscriptions: Option<Arc<dyn SubscriptionStore>>,
    quotas: Option<Arc<dyn QuotaStore>>,
    audit: Option<Arc<dyn AuditLog>>,
    audited_quotas: Option<Arc<dyn AuditedQuotaStore>>,
    state: Option<Arc<dyn StateStore>>,
    sqlite_path: Option<PathBuf>,
    clock: Clock,
    fail_open_free_tools: bool,
    audit_retries: AuditRetries,
}

impl GatewayBuilder {
    pub(super) fn new(dispatcher: Dispatcher) -> Self {
        Self {
            dispatcher,
            packs: Vec::new(),
            core_tools: Vec::new(),
            subscriptions: None,
            quotas: None,
            audit: None,
            audited_quotas: None,
            state: None,
            sqlite_path: None,
            clock: Arc::new(Utc::now),
            fail_open_free_tools: false,
            audit_retries: AuditRetries::default(),
        }
    }

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
        let mut builder = self
            .subscriptions(store.clone())
            .quotas(store.clone())
            .audit(store.clone())
            .state(store.clone());
        builder.audited_quotas = Some(store);
        builder
    }

    /// Opens the SQLite database at `path` for every store not set otherwise (the default
    /// is `toolwright-packs.db` in the working directory, or `$TOOLWRIGHT_PACKS_DB`).
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

    /// Uses the stores chosen by URL ([`Stores::connect`]).
    #[must_use]
    pub fn stores(self, stores: Stores) -> Self {
        let mut builder = self
            .subscriptions(stores.subscriptions)
            .quotas(stores.quotas)
            .audit(stores.audit)
            .state(stores.state);
        builder.audited_quotas = stores.audited_quotas;
        builder
    }

    /// When the quota store cannot be reached, admit calls of free tools (those callable
    /// without a subscription) without a quota check instead of refusing them with
    /// `quota_unavailable`. Off by default: a refused call is safer than an uncounted one.
    #[must_use]
    pub fn fail_open_free_tools(mut self, fail_open: bool) -> Self {
        self.fail_open_free_tools = fail_open;
        self
    }

    /// How long to wait before each new attempt at a failed audit write (default 20 ms,
    /// 100 ms, 500 ms: four attempts). When every attempt fails the call reports
    /// `audit_failed` instead of its result.
    #[must_use]
    pub fn audit_retry_delays(mut self, delays: Vec<std::time::Duration>) -> Self {
        self.audit_retries = AuditRetries { delays };
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
            let path = match self.sqlite_path.clone() {
                Some(path) => path,
                None => super::default_database_path()?,
            };
            let store = Arc::new(SqliteStore::open(path)?);
            self.subscriptions.get_or_insert_with(|| store.clone());
            if self.quotas.is_none() && self.audit.is_none() {
                self.audited_quotas = Some(store.clone());
            }
            self.quotas.get_or_insert_with(|| store.clone());
            self.audit.get_or_insert_with(|| store.clone());
            self.state.get_or_insert_with(|| store.clone());
        }
        let (Some(subscriptions), Some(quotas), Some(audit), Some(state)) =
            (self.subscriptions, self.quotas, self.audit, self.state)
        else {
            unreachable!("every store was set above");
        };
        // One transaction for a quota unit and its record only when the store that can do
        // it is the one holding both (a quota or audit store set on its own afterwards
        // breaks the pair).
        let audited_quotas = self.audited_quotas.filter(|both| {
            let both = Arc::as_ptr(both).cast::<()>();
            both == Arc::as_ptr(&quotas).cast::<()>() && both == Arc::as_ptr(&audit).cast::<()>()
        });
        Ok(Gateway {
            inner: Arc::new(Inner {
                dispatcher: self.dispatcher,
                packs,
                owner,
                core,
                subscriptions,
                quotas,
                audit,
                audited_quotas,
                state,
                clock: self.clock,
                fail_open_free_tools: self.fail_open_free_tools,
                audit_retries: self.audit_retries,
                tool_sets: RwLock::new(HashMap::new()),
            }),
        })
    }
}
