//! The gateway every call of a pack goes through: import declared, subscription, rate limit,
//! execution, audit record.
//!
//! Calls of a pack's own tools and of core tools run directly; calls into another pack are
//! checked and audited. The audit record is written whatever the outcome: a refused call, a
//! failed or panicking skill (the dispatcher turns panics into error results), or a call
//! dropped half-way (recorded as `cancelled`).
//!
//! - `builder`: assembling the gateway and checking the contracts;
//! - `route`: where a tool stands for the caller, the contract checks, execution;
//! - `audit`: the audit record, written even for dropped calls;
//! - `tools`: the tool set each pack's model sees.

mod audit;
mod builder;
mod caller;
mod route;
mod tools;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use chrono::{DateTime, NaiveDate, Utc};
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolwright::ParsedCall;
use toolwright::{Dispatcher, Skill, SkillContext, SkillError, SkillRegistration, SkillResult};

use crate::check::PackProblem;
use crate::codes;
use crate::manifest::{Imports, PackManifest};
use crate::store::{
    AuditLog, AuditedQuotaStore, QuotaStore, StateStore, StoreError, SubscriptionStore,
};

pub use builder::GatewayBuilder;
pub use caller::Caller;

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
    /// `TOOLWRIGHT_PACKS_DB` is a URL, not the SQLite file the default store is.
    #[error("TOOLWRIGHT_PACKS_DB is `{0}`, a URL: the default packs store is a SQLite file, so give its path (`sqlite:///path/to/packs.db` also works); PostgreSQL and Redis stores are chosen in code (`GatewayBuilder::subscriptions`, `quotas`, `audit`, `state`)")]
    DatabaseUrl(String),
}

/// The SQLite file of the default packs store: `$TOOLWRIGHT_PACKS_DB` (a path, or a
/// `sqlite://` URL), else `toolwright-packs.db` in the working directory. Another URL
/// (`postgres://…`) is refused rather than taken as a file name.
pub fn default_database_path() -> Result<std::path::PathBuf, GatewayError> {
    database_path_from(std::env::var_os("TOOLWRIGHT_PACKS_DB"))
}

fn database_path_from(
    value: Option<std::ffi::OsString>,
) -> Result<std::path::PathBuf, GatewayError> {
    let Some(value) = value else {
        return Ok("toolwright-packs.db".into());
    };
    let Some(text) = value.to_str() else {
        return Ok(value.into());
    };
    if let Some(path) = text.strip_prefix("sqlite://") {
        if path.is_empty() {
            return Err(GatewayError::DatabaseUrl(text.to_string()));
        }
        return Ok(path.into());
    }
    if text.contains("://") {
        return Err(GatewayError::DatabaseUrl(text.to_string()));
    }
    Ok(value.into())
}

#[cfg(test)]
mod database_path_tests {
    use super::*;

    #[test]
    fn paths_and_sqlite_urls_are_files_other_urls_are_refused() {
        let of = |v: &str| database_path_from(Some(v.into()));
        assert_eq!(
            of("/tmp/p.db").unwrap(),
            std::path::PathBuf::from("/tmp/p.db")
        );
        assert_eq!(
            of("sqlite:///tmp/p.db").unwrap(),
            std::path::PathBuf::from("/tmp/p.db")
        );
        assert_eq!(
            database_path_from(None).unwrap(),
            std::path::PathBuf::from("toolwright-packs.db")
        );
        let err = of("postgres://127.0.0.1/test").unwrap_err().to_string();
        assert!(
            err.contains("postgres://127.0.0.1/test") && err.contains("SQLite"),
            "{err}"
        );
        assert!(matches!(of("redis://x"), Err(GatewayError::DatabaseUrl(_))));
        assert!(matches!(of("sqlite://"), Err(GatewayError::DatabaseUrl(_))));
    }
}

type Clock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// How often, and how far apart, a failed audit write is tried again.
#[derive(Debug, Clone)]
pub(crate) struct AuditRetries {
    /// Waits before each new attempt.
    pub(crate) delays: Vec<std::time::Duration>,
}

impl Default for AuditRetries {
    fn default() -> Self {
        Self {
            delays: [20, 100, 500]
                .into_iter()
                .map(std::time::Duration::from_millis)
                .collect(),
        }
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
    /// Set when quotas and audit are one database: a quota unit and its record are then
    /// written in one transaction; else the record is written first.
    audited_quotas: Option<Arc<dyn AuditedQuotaStore>>,
    state: Arc<dyn StateStore>,
    clock: Clock,
    fail_open_free_tools: bool,
    audit_retries: AuditRetries,
    tool_sets: RwLock<HashMap<(&'static str, NaiveDate), toolwright::ToolSet>>,
}

/// Runs calls of packs under their contracts. Cheap to clone; share one per process (or one
/// per instance: instances on the same store share quotas, subscriptions and the audit log).
///
/// Every call names its [`Caller`]: the pack it is made in the name of and the user it runs
/// for. Three ways in:
///
/// | method | takes | for |
/// |---|---|---|
/// | [`call_tool`](Gateway::call_tool) | a tool id or wire name and JSON arguments | a host running a tool by name |
/// | [`dispatch`](Gateway::dispatch) | a [`ParsedCall`] | the tool calls a pack's model made |
/// | [`call`](Gateway::call) | a typed input, tool and pack as types | Rust code; compiles only if the pack imports the tool |
///
/// A running skill calls other packs through its [`PackSession`](crate::PackSession) instead.
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

impl Gateway {
    /// Starts a gateway over `dispatcher`.
    pub fn builder(dispatcher: Dispatcher) -> GatewayBuilder {
        GatewayBuilder::new(dispatcher)
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

    /// Runs `tool` (id or wire name) for `caller`, the way the model calls it: `args` are the
    /// model's arguments, missing ones are prepared from `ctx`.
    pub async fn call_tool(
        &self,
        caller: &Caller,
        tool: &str,
        args: Option<&Value>,
        ctx: &SkillContext,
    ) -> SkillResult {
        self.route(caller, tool, args, ctx).await
    }

    /// Runs a tool call the model made (arguments already parsed and repaired); parse
    /// warnings travel with the result.
    pub async fn dispatch(
        &self,
        caller: &Caller,
        call: &ParsedCall,
        ctx: &SkillContext,
    ) -> SkillResult {
        let args: Option<Value> = serde_json::from_str(&call.arguments).ok();
        let mut result = self.route(caller, &call.skill_id, args.as_ref(), ctx).await;
        result.warnings.splice(0..0, call.warnings.iter().cloned());
        result
    }

    /// Typed call of tool `T` in the name of pack `C`: compiles only if `C` imports `T`, and
    /// fails with `consumer_mismatch` unless `caller` is pack `C`.
    pub async fn call<C, T>(
        &self,
        caller: &Caller,
        input: &T::Input,
        ctx: &SkillContext,
    ) -> Result<T::Output, SkillError>
    where
        C: Imports<T>,
        T: Skill,
        T::Output: DeserializeOwned,
    {
        if C::ID != caller.pack() {
            let who = if caller.depth() == 0 {
                "a caller of pack"
            } else {
                "a tool of pack"
            };
            return Err(SkillError::new(
                codes::CONSUMER_MISMATCH,
                format!(
                    "{who} `{}` called `{}` in the name of pack `{}`",
                    caller.pack(),
                    T::ID,
                    C::ID
                ),
            ));
        }
        let args = serde_json::to_value(input)?;
        let result = self.route(caller, T::ID, Some(&args), ctx).await;
        result_into::<T::Output>(result)
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

/// Turns a result into the typed output, or its error.
pub(crate) fn result_into<T: DeserializeOwned>(result: SkillResult) -> Result<T, SkillError> {
    if let Some(error) = result.error {
        return Err(error.into());
    }
    result.data_as::<T>().map_err(|e| {
        SkillError::new(
            toolwright::codes::OUTPUT_ERROR,
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
