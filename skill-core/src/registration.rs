//! What `#[skill]` records about a skill at compile time: one `'static` [`SkillRegistration`]
//! per skill, submitted to a link-time registry.
//!
//! Everything here is constant data and function pointers, so registration allocates nothing;
//! schemas are built on first use and cached for the life of the process.

use std::fmt;

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::context::SkillContext;
use crate::error::SkillError;

/// Whether a skill is offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillStatus {
    /// Offered and callable.
    Active,
    /// Registered but neither offered nor callable.
    Disabled,
    /// Callable by existing callers, no longer offered to the model.
    Deprecated,
}

impl SkillStatus {
    /// The status as written in `#[skill(status = "...")]`.
    pub const fn as_str(self) -> &'static str {
        match self {
            SkillStatus::Active => "active",
            SkillStatus::Disabled => "disabled",
            SkillStatus::Deprecated => "deprecated",
        }
    }
}

impl fmt::Display for SkillStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a skill is defined (for duplicate-id errors and diagnostics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SourceLocation {
    /// Source file, as `file!()` gives it.
    pub file: &'static str,
    /// Line of the skill fn.
    pub line: u32,
    /// Module path of the skill fn.
    pub module_path: &'static str,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.module_path)
    }
}

/// One argument the model fills in, as declared in the skill's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ParamInfo {
    /// Name on the wire (after `#[arg(rename)]`).
    pub name: &'static str,
    /// Name of the Rust parameter.
    pub rust_name: &'static str,
    /// Rust type as written.
    pub rust_type: &'static str,
    /// The parameter's doc comment.
    pub description: &'static str,
    /// The model must supply it (no default, not optional, not prepared).
    pub required: bool,
    /// Declared as `Option<T>`.
    pub optional: bool,
    /// Has `#[arg(default)]` or `#[arg(default = ...)]`.
    pub has_default: bool,
    /// Has `#[arg(prepare = ...)]`: filled from the host's state when the model leaves it out.
    pub prepared: bool,
    /// `#[arg(example = ...)]` as JSON text.
    pub example: Option<&'static str>,
    /// `#[arg(kind = "...")]`: overrides the value kind derived from the type.
    pub kind: Option<&'static str>,
    /// `#[arg(case_sensitive = ...)]` for enum tokens (default: case-insensitive).
    pub case_sensitive: Option<bool>,
}

/// Arguments of a call, as they arrive: JSON text straight from the model, an already parsed
/// value, or nothing.
#[derive(Debug, Clone, Copy)]
pub enum CallArgs<'a> {
    /// No arguments (same as `{}`).
    None,
    /// JSON text, e.g. OpenAI's `function.arguments` string.
    Text(&'a str),
    /// A parsed JSON value (Anthropic's `input`, MCP's `arguments`).
    Value(&'a Value),
}

impl<'a> From<&'a str> for CallArgs<'a> {
    fn from(text: &'a str) -> Self {
        CallArgs::Text(text)
    }
}

impl<'a> From<&'a String> for CallArgs<'a> {
    fn from(text: &'a String) -> Self {
        CallArgs::Text(text)
    }
}

impl<'a> From<&'a Value> for CallArgs<'a> {
    fn from(value: &'a Value) -> Self {
        CallArgs::Value(value)
    }
}

impl<'a> From<&'a RawValue> for CallArgs<'a> {
    fn from(raw: &'a RawValue) -> Self {
        CallArgs::Text(raw.get())
    }
}

impl<'a, T: Into<CallArgs<'a>>> From<Option<T>> for CallArgs<'a> {
    fn from(args: Option<T>) -> Self {
        args.map_or(CallArgs::None, Into::into)
    }
}

/// Whether arguments the model left out are prepared from the host's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrepareMode {
    /// Only the given arguments and declared defaults (`Dispatcher::call`).
    ArgumentsOnly,
    /// Given arguments, then prepared values, then defaults (`Dispatcher::prepare_and_call`).
    FromState,
}

/// Why an invocation failed: before the skill ran (arguments) or while it ran.
#[derive(Debug)]
pub enum InvokeError {
    /// The input could not be built; the skill body did not run.
    Input(SkillError),
    /// The skill ran and failed.
    Run(SkillError),
}

/// The type-erased entry point `#[skill]` generates for each skill.
pub type InvokeFn = for<'a> fn(
    &'a SkillContext,
    CallArgs<'a>,
    PrepareMode,
) -> BoxFuture<'a, Result<Box<RawValue>, InvokeError>>;

/// Everything known about one skill; created by `#[skill]` as a `'static` value.
#[derive(Clone, Copy)]
pub struct SkillRegistration {
    /// Unique id, `[A-Za-z0-9_-]` with optional `.` separators (`crm.search_client`).
    pub id: &'static str,
    /// Name sent to providers: the id with `.` mapped to `_`.
    pub wire_name: &'static str,
    /// Display name (defaults to the id).
    pub name: &'static str,
    /// First paragraph of the doc comment: the tool description the model reads.
    pub description: &'static str,
    /// The whole doc comment.
    pub long_help: &'static str,
    /// Business domain (`"*"` for every domain).
    pub domain: &'static str,
    /// Category (`query`, `stats`, `create`, `update`, `delete`, `ui`, `analysis`, ...).
    pub category: &'static str,
    /// Whether the skill is offered.
    pub status: SkillStatus,
    /// Version of the skill (empty when not given).
    pub version: &'static str,
    /// Time limit of one call.
    pub timeout_ms: Option<u64>,
    /// Explicit confirmation setting; `None` follows the category.
    pub requires_confirmation: Option<bool>,
    /// `#[skill(confirm = "Delete task {id}")]`: the sentence, written by the skill's
    /// author, that a pending confirmation shows; `{name}` stands for an argument's value.
    /// Fill it in with [`SkillRegistration::confirmation_summary`].
    pub confirm_summary: Option<&'static str>,
    /// Explicit idempotency hint; `None` follows the category.
    pub idempotent: Option<bool>,
    /// Explicit open-world hint (talks to systems outside the host); `None` means false.
    pub open_world: Option<bool>,
    /// The arguments the model fills in, in declaration order.
    pub params: &'static [ParamInfo],
    /// JSON Schema of the input (the canonical 2020-12 form schemars produces), cached.
    pub input_schema: fn() -> &'static Value,
    /// JSON Schema of the output, cached.
    pub output_schema: fn() -> &'static Value,
    /// Rust type of the input struct.
    pub input_type: &'static str,
    /// Rust type of the output.
    pub output_type: &'static str,
    /// Where the skill fn is defined.
    pub source: SourceLocation,
    /// Entry point: prepare the input, run, serialize the output.
    pub invoke: InvokeFn,
}

impl SkillRegistration {
    /// Whether the skill is offered to the model.
    pub fn is_active(&self) -> bool {
        self.status == SkillStatus::Active
    }

    /// Whether calls wait for the host's confirmation: explicit setting, else true for the
    /// write categories `create`, `update` and `delete`.
    pub fn needs_confirmation(&self) -> bool {
        self.requires_confirmation
            .unwrap_or(matches!(self.category, "create" | "update" | "delete"))
    }

    /// The author's confirmation sentence with each `{name}` replaced by that argument's
    /// value in `arguments` (strings without quotes, other values as JSON, a missing
    /// argument as `?`); `None` when the skill has no `confirm` sentence.
    pub fn confirmation_summary(&self, arguments: &Value) -> Option<String> {
        let template = self.confirm_summary?;
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            out.push_str(&rest[..open]);
            let name = &rest[open + 1..open + close];
            match arguments.get(name) {
                Some(Value::String(s)) => out.push_str(s),
                Some(Value::Null) | None => out.push('?'),
                Some(other) => out.push_str(&other.to_string()),
            }
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
        Some(out)
    }

    /// The parameter with this wire name.
    pub fn param(&self, name: &str) -> Option<&'static ParamInfo> {
        self.params.iter().find(|p| p.name == name)
    }
}

impl fmt::Debug for SkillRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillRegistration")
            .field("id", &self.id)
            .field("domain", &self.domain)
            .field("category", &self.category)
            .field("status", &self.status)
            .field("params", &self.params.len())
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// A registration submitted at link time by `#[skill]`.
#[derive(Debug, Clone, Copy)]
pub struct RegisteredSkill(pub &'static SkillRegistration);

inventory::collect!(RegisteredSkill);

/// Every skill linked into this binary, in link order (unsorted, possibly with duplicates).
pub fn linked_skills() -> impl Iterator<Item = &'static SkillRegistration> {
    inventory::iter::<RegisteredSkill>.into_iter().map(|r| r.0)
}

/// Maps an id to its wire name: `.` becomes `_`; everything else is already wire-safe.
pub fn wire_name_of(id: &str) -> std::borrow::Cow<'_, str> {
    if id.contains('.') {
        std::borrow::Cow::Owned(id.replace('.', "_"))
    } else {
        std::borrow::Cow::Borrowed(id)
    }
}
