//! The call context: values the host hands to skills, looked up by type.
//!
//! A skill parameter of type [`Inject<T>`] (or `Option<Inject<T>>`, or `&SkillContext`) is
//! filled from here and never appears in any schema the model sees. The context is a small
//! type map: a handful of entries, so a linear scan over `TypeId`s beats hashing.

use std::any::{type_name, Any, TypeId};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::error::SkillError;

/// Values supplied by the host for one call (or one review): documents, state, clients.
///
/// Cloning is cheap: entries are reference counted.
#[derive(Clone, Default)]
pub struct SkillContext {
    entries: Vec<Entry>,
}

#[derive(Clone)]
struct Entry {
    type_id: TypeId,
    type_name: &'static str,
    value: Arc<dyn Any + Send + Sync>,
}

impl SkillContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `value`, replacing any earlier value of the same type (builder style).
    ///
    /// The value is stored as its own type: `with(Arc::new(x))` stores an `Arc<X>`, which
    /// `Inject<X>` does not find; share an `Arc` with [`SkillContext::with_arc`].
    #[must_use]
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Adds an already shared value, replacing any earlier value of the same type.
    #[must_use]
    pub fn with_arc<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.insert_arc(value);
        self
    }

    /// Adds `value`; returns the value of the same type it replaced, if any.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> Option<Arc<T>> {
        self.insert_arc(Arc::new(value))
    }

    /// Adds a shared value; returns the value of the same type it replaced, if any.
    pub fn insert_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) -> Option<Arc<T>> {
        let entry = Entry {
            type_id: TypeId::of::<T>(),
            type_name: type_name::<T>(),
            value,
        };
        match self.entries.iter_mut().find(|e| e.type_id == entry.type_id) {
            Some(slot) => {
                let old = std::mem::replace(slot, entry);
                old.value.downcast::<T>().ok()
            }
            None => {
                self.entries.push(entry);
                None
            }
        }
    }

    /// The value of type `T`, if the host provided one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.entry::<T>().and_then(|e| e.value.downcast_ref::<T>())
    }

    /// The shared value of type `T`, if the host provided one.
    pub fn get_arc<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.entry::<T>()
            .and_then(|e| Arc::clone(&e.value).downcast::<T>().ok())
    }

    /// Whether a value of type `T` is present.
    pub fn contains<T: Send + Sync + 'static>(&self) -> bool {
        self.entry::<T>().is_some()
    }

    /// Number of values in the context.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the context holds no value.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn entry<T: 'static>(&self) -> Option<&Entry> {
        let id = TypeId::of::<T>();
        self.entries.iter().find(|e| e.type_id == id)
    }
}

impl fmt::Debug for SkillContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|e| e.type_name))
            .finish()
    }
}

/// A value of type `T` taken from the [`SkillContext`] by type.
///
/// Use it as a skill parameter to receive host state (documents, clients, configuration)
/// that the model must never see or fill in.
pub struct Inject<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Inject<T> {
    /// The shared value.
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> Clone for Inject<T> {
    fn clone(&self) -> Self {
        Inject(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for Inject<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Inject<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How a skill parameter that the model never sees is extracted from the context.
///
/// Implemented for [`Inject<T>`], `Option<Inject<T>>` and `&SkillContext`; implement it for
/// your own extractor types and mark such parameters `#[inject]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a skill",
    label = "not something the host can inject",
    note = "injected parameters are `Inject<T>`, `Option<Inject<T>>` or `&SkillContext`; for your own extractor type, implement `FromSkillContext` for it"
)]
pub trait FromSkillContext<'a>: Sized {
    /// Extracts the value, or explains which skill is missing what.
    fn from_skill_context(
        ctx: &'a SkillContext,
        skill_id: &'static str,
    ) -> Result<Self, SkillError>;
}

impl<'a, T: Send + Sync + 'static> FromSkillContext<'a> for Inject<T> {
    fn from_skill_context(
        ctx: &'a SkillContext,
        skill_id: &'static str,
    ) -> Result<Self, SkillError> {
        ctx.get_arc::<T>()
            .map(Inject)
            .ok_or_else(|| missing_injection::<T>(ctx, skill_id))
    }
}

/// The missing-injection error, with the likely fix when the host added the value wrapped
/// in an `Arc`: `with(Arc<T>)` stores an `Arc<T>`, which `Inject<T>` does not look for.
fn missing_injection<T: Send + Sync + 'static>(ctx: &SkillContext, skill_id: &str) -> SkillError {
    let mut err = SkillError::missing_injection(skill_id, type_name::<T>());
    if ctx.contains::<Arc<T>>() {
        let hint = format!(
            "the context holds an `Arc<{0}>`: add shared values with `with_arc`/`insert_arc`, which store the `{0}` itself",
            type_name::<T>()
        );
        tracing::warn!(skill = skill_id, "{hint}");
        if let Some(serde_json::Value::Object(details)) = err.details.as_mut() {
            details.insert("hint".into(), serde_json::Value::String(hint));
        }
    }
    err
}

impl<'a, T: Send + Sync + 'static> FromSkillContext<'a> for Option<Inject<T>> {
    fn from_skill_context(
        ctx: &'a SkillContext,
        _skill_id: &'static str,
    ) -> Result<Self, SkillError> {
        Ok(ctx.get_arc::<T>().map(Inject))
    }
}

impl<'a> FromSkillContext<'a> for &'a SkillContext {
    fn from_skill_context(
        ctx: &'a SkillContext,
        _skill_id: &'static str,
    ) -> Result<Self, SkillError> {
        Ok(ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_found_by_type_and_replaced() {
        let mut ctx = SkillContext::new().with(5_u32).with(String::from("a"));
        assert_eq!(ctx.get::<u32>(), Some(&5));
        assert_eq!(
            ctx.insert(String::from("b")).as_deref().map(String::as_str),
            Some("a")
        );
        assert_eq!(ctx.get::<String>().map(String::as_str), Some("b"));
        assert_eq!(ctx.len(), 2);
        assert!(ctx.get::<i64>().is_none());
    }

    fn hint(err: &SkillError) -> Option<&str> {
        err.details.as_ref()?.get("hint")?.as_str()
    }

    #[test]
    fn missing_injection_points_at_with_arc_when_an_arc_was_added() {
        let ctx = SkillContext::new().with(Arc::new(7_u64));
        let err = Inject::<u64>::from_skill_context(&ctx, "demo").unwrap_err();
        assert!(
            hint(&err).is_some_and(|h| h.contains("with_arc")),
            "{err:?}"
        );
        assert!(!err.message.contains("with_arc"), "{}", err.message);
        let plain = SkillContext::new().with(7_u32);
        let err = Inject::<u64>::from_skill_context(&plain, "demo").unwrap_err();
        assert!(hint(&err).is_none(), "{err:?}");
        assert!(SkillContext::new()
            .with_arc(Arc::new(7_u64))
            .get::<u64>()
            .is_some());
    }

    #[test]
    fn missing_injection_names_skill_and_type() {
        let ctx = SkillContext::new();
        let err = Inject::<Vec<u8>>::from_skill_context(&ctx, "demo").unwrap_err();
        assert_eq!(err.code, crate::error::codes::MISSING_INJECTION);
        assert!(err.message.contains("demo"), "{}", err.message);
        // The type is for the operator; the model reads no Rust type path.
        assert!(!err.message.contains("Vec<u8>"), "{}", err.message);
        assert!(!err.message.contains("::"), "{}", err.message);
        let details = err.details.expect("details");
        assert!(details["type"].as_str().unwrap().contains("Vec<u8>"));
    }
}
