//! What a skill running inside a pack sees of the gateway: calls in the pack's name and
//! state confined to the pack's namespace.
//!
//! The gateway puts a [`PackSession`] into the context of every call it runs; a skill takes
//! it as `session: Inject<PackSession>`.

use serde::de::DeserializeOwned;
use serde_json::Value;
use toolwright::{Skill, SkillContext, SkillError, SkillResult};

use crate::codes;
use crate::gateway::{result_into, Caller, Gateway};
use crate::manifest::Imports;

/// The pack and user a call runs for, with the gateway to make further calls.
#[derive(Clone)]
pub struct PackSession {
    gateway: Gateway,
    caller: Caller,
    base: SkillContext,
}

impl std::fmt::Debug for PackSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackSession")
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

impl PackSession {
    pub(crate) fn new(gateway: Gateway, caller: Caller, base: SkillContext) -> Self {
        Self {
            gateway,
            caller,
            base,
        }
    }

    /// Who calls from inside the running tool: its pack, the user, and how deep the call is
    /// nested (1 for a tool the host called).
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The host's context, without this session.
    pub fn base_context(&self) -> &SkillContext {
        &self.base
    }

    /// The gateway.
    pub fn gateway(&self) -> &Gateway {
        &self.gateway
    }

    /// Typed call of tool `T` in the name of pack `C`; compiles only if `C` imports `T`, and
    /// fails with `consumer_mismatch` unless `C` is the pack this session runs for.
    pub async fn call<C, T>(&self, input: &T::Input) -> Result<T::Output, SkillError>
    where
        C: Imports<T>,
        T: Skill,
        T::Output: DeserializeOwned,
    {
        self.gateway
            .call::<C, T>(&self.caller, input, &self.base)
            .await
    }

    /// Untyped call of `tool` (id or wire name) by this pack, with all runtime checks.
    pub async fn call_tool(&self, tool: &str, args: Option<&Value>) -> SkillResult {
        self.gateway
            .call_tool(&self.caller, tool, args, &self.base)
            .await
    }

    /// Untyped call whose output is read into `T`.
    pub async fn call_tool_as<T: DeserializeOwned>(
        &self,
        tool: &str,
        args: Option<&Value>,
    ) -> Result<T, SkillError> {
        result_into(self.call_tool(tool, args).await)
    }

    /// The namespace this pack writes to: `skills.<pack>.`.
    pub fn namespace(&self) -> String {
        format!("skills.{}.", self.caller.pack())
    }

    /// Writes `value` at `path` for the user; `path` must lie in `skills.<pack>.*`.
    pub async fn save(&self, path: &str, value: &Value) -> Result<(), SkillError> {
        self.check_own(path, codes::CROSS_PACK_WRITE, "write")?;
        self.gateway
            .state_store()
            .save(self.caller.user(), path, value)
            .await
            .map_err(|e| {
                SkillError::new(codes::STORAGE_FAILED, format!("could not save `{path}`"))
                    .with_source(e)
            })
    }

    /// Reads the value at `path` for the user; only `skills.<pack>.*` is readable, another
    /// pack's data is read through its accessor tools.
    pub async fn read(&self, path: &str) -> Result<Option<Value>, SkillError> {
        self.check_own(path, codes::CROSS_PACK_READ, "read")?;
        self.gateway
            .state_store()
            .read(self.caller.user(), path)
            .await
            .map_err(|e| {
                SkillError::new(codes::STORAGE_FAILED, format!("could not read `{path}`"))
                    .with_source(e)
            })
    }

    fn check_own(&self, path: &str, code: &'static str, verb: &str) -> Result<(), SkillError> {
        let ns = self.namespace();
        if path.starts_with(&ns) && path.len() > ns.len() {
            return Ok(());
        }
        let hint = match path
            .strip_prefix("skills.")
            .and_then(|rest| rest.split('.').next())
        {
            Some(other) if other != self.caller.pack() && self.gateway.pack(other).is_some() => {
                format!(
                    "; data of pack `{other}` is read only through the accessor tools it exports"
                )
            }
            _ => String::new(),
        };
        Err(SkillError::new(
            code,
            format!(
                "pack `{}` may only {verb} paths under `{ns}*`, not `{path}`{hint}",
                self.caller.pack()
            ),
        )
        .with_details(serde_json::json!({ "pack": self.caller.pack(), "path": path })))
    }
}
