//! Preparing arguments the model left out from the host's state (SPEC-19 `prepare_input`).
//!
//! A preparer is a plain fn named in `#[arg(prepare = path)]`, in one of two shapes:
//! `fn(&SkillContext) -> Result<T, SkillError>`, or
//! `fn(&SkillContext, &PrepareScope) -> Result<T, SkillError>` when the value depends on the
//! call's other arguments (the baseline text *of the clause the model asked about*).

use std::sync::OnceLock;

use serde_json::Value;

use crate::context::SkillContext;
use crate::error::SkillError;
use crate::registration::CallArgs;

/// The call a value is being prepared for: the skill and the arguments the model gave.
pub struct PrepareScope<'a> {
    skill_id: &'static str,
    args: CallArgs<'a>,
    parsed: OnceLock<Value>,
}

impl<'a> PrepareScope<'a> {
    /// A scope over the raw arguments of a call.
    pub fn new(skill_id: &'static str, args: CallArgs<'a>) -> Self {
        Self {
            skill_id,
            args,
            parsed: OnceLock::new(),
        }
    }

    /// The skill being called.
    pub fn skill_id(&self) -> &'static str {
        self.skill_id
    }

    /// An argument as the model sent it (`None` when absent or `null`).
    pub fn argument(&self, name: &str) -> Option<&Value> {
        let value = match self.args {
            CallArgs::Value(v) => v,
            CallArgs::Text(text) => self
                .parsed
                .get_or_init(|| serde_json::from_str(text).unwrap_or(Value::Null)),
            CallArgs::None => return None,
        };
        value.get(name).filter(|v| !v.is_null())
    }

    /// A string argument as the model sent it (numbers are given as text).
    pub fn str_argument(&self, name: &str) -> Option<String> {
        match self.argument(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
}

/// Marker for preparers that only read the context.
pub struct ContextOnly;
/// Marker for preparers that also read the call's arguments.
pub struct WithScope;

/// A function that can prepare a value of type `T` (see the module docs for the two shapes).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot prepare this argument",
    label = "not a preparer for this argument's type",
    note = "a preparer is `fn(&SkillContext) -> Result<T, SkillError>` or `fn(&SkillContext, &PrepareScope) -> Result<T, SkillError>`, where `T` is the argument's type"
)]
pub trait Preparer<T, M> {
    /// Prepares the value.
    fn prepare(&self, ctx: &SkillContext, scope: &PrepareScope<'_>) -> Result<T, SkillError>;
}

impl<T, F> Preparer<T, ContextOnly> for F
where
    F: Fn(&SkillContext) -> Result<T, SkillError>,
{
    fn prepare(&self, ctx: &SkillContext, _scope: &PrepareScope<'_>) -> Result<T, SkillError> {
        self(ctx)
    }
}

impl<T, F> Preparer<T, WithScope> for F
where
    F: Fn(&SkillContext, &PrepareScope<'_>) -> Result<T, SkillError>,
{
    fn prepare(&self, ctx: &SkillContext, scope: &PrepareScope<'_>) -> Result<T, SkillError> {
        self(ctx, scope)
    }
}
