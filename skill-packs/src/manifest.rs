//! What a pack declares: its identity, the tools it exports with their access rules and
//! deprecations, and the tools it imports from other packs.
//!
//! `pack!` builds one `'static` [`PackManifest`] per pack and the typed markers
//! ([`Pack`], [`Exports`], [`Imports`]) that let the compiler check imports and calls.

use std::fmt;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use toolwright::{Skill, SkillRegistration};

use crate::rate::RateLimit;

/// A pack: a named group of skills with a contract towards other packs.
///
/// Implemented by `pack!`; the type is a zero-sized marker such as `Zodiac`.
pub trait Pack: Send + Sync + 'static {
    /// The pack id (`zodiac`); its skills have ids `zodiac.<name>`.
    const ID: &'static str;
    /// The declared contract.
    fn manifest() -> &'static PackManifest;
}

/// `Self` is a tool that pack `P` exports. Only `pack!` implements it, for the tools listed
/// under `exports.tools`; an import of anything else does not compile.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not exported by pack `{P}`",
    label = "pack `{P}` does not export this tool",
    note = "only the tools listed under `exports: {{ tools: [...] }}` in the `pack!` of `{P}` are exported"
)]
pub trait Exports<P: Pack>: Skill {}

/// Pack `Self` imports tool `T`. Only `pack!` implements it, for the tools listed under
/// `imports`; a typed call of anything else does not compile.
#[diagnostic::on_unimplemented(
    message = "pack `{Self}` calls `{T}` but does not import it",
    label = "`{T}` is not in the imports of `{Self}`",
    note = "add `{{ from: <Provider>, tools: [{T}], min_version: \"..\" }}` to `imports` in the `pack!` of `{Self}`"
)]
pub trait Imports<T: Skill>: Pack {
    /// The pack that exports `T`.
    type Provider: Pack;
}

/// A type named in `pack!` as a tool: it must be a `#[skill]` marker.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a skill and cannot be listed as a pack tool",
    label = "not a `#[skill]` marker",
    note = "name the marker `#[skill]` generates for a skill fn: `CalculateZodiac` for `fn calculate_zodiac` (the fn's name in CamelCase, or its `marker = \"...\"`)"
)]
pub trait PackTool: Skill {}

impl<T: Skill> PackTool for T {}

/// One exported tool; its schemas come from the skill's own registration.
#[derive(Clone, Copy)]
pub struct ExportedTool {
    /// The skill id.
    pub id: &'static str,
    /// The skill's registration (input and output schema, description).
    pub registration: fn() -> &'static SkillRegistration,
}

impl ExportedTool {
    /// The exported tool for skill marker `T`.
    pub const fn of<T: Skill>() -> Self {
        Self {
            id: T::ID,
            registration: T::registration,
        }
    }
}

impl fmt::Debug for ExportedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

impl Serialize for ExportedTool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let reg = (self.registration)();
        let mut s = serializer.serialize_struct("ExportedTool", 4)?;
        s.serialize_field("name", reg.id)?;
        s.serialize_field("description", reg.description)?;
        s.serialize_field("input_schema", (reg.input_schema)())?;
        s.serialize_field("output_schema", (reg.output_schema)())?;
        s.end()
    }
}

/// A per-tool rate limit.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ToolRateLimit {
    /// The tool id.
    pub tool: &'static str,
    /// The limit as written (`50/day`).
    pub text: &'static str,
    /// The parsed limit.
    #[serde(skip)]
    pub limit: RateLimit,
}

/// Who may call the exported tools, and how often.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Access {
    /// Calls need a subscription of the user to this pack, except for `free_tools`.
    pub requires_subscription: bool,
    /// Tools callable without a subscription.
    pub free_tools: &'static [&'static str],
    /// Per-tool limits per user; tools not listed are unlimited.
    pub rate_limits: &'static [ToolRateLimit],
    /// A limit per user on the calls of all the pack's tools together (`rate_limit:
    /// "100/day"`), counted on top of the per-tool ones.
    pub rate_limit: RateLimit,
}

impl Access {
    /// Open access: no subscription, no limits.
    pub const OPEN: Access = Access {
        requires_subscription: false,
        free_tools: &[],
        rate_limits: &[],
        rate_limit: RateLimit::Unlimited,
    };

    /// Whether calling `tool` needs a subscription.
    pub fn needs_subscription(&self, tool: &str) -> bool {
        self.requires_subscription && !self.free_tools.contains(&tool)
    }

    /// The limit on `tool` ([`RateLimit::Unlimited`] when none is declared).
    pub fn rate_limit(&self, tool: &str) -> RateLimit {
        self.rate_limits
            .iter()
            .find(|r| r.tool == tool)
            .map_or(RateLimit::Unlimited, |r| r.limit)
    }
}

/// A tool on its way out: callers get `removal_date` (at least 30 days after `since`) to
/// move to `replacement`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Deprecation {
    /// The deprecated tool id.
    pub tool: &'static str,
    /// When the deprecation was announced (`YYYY-MM-DD`).
    pub since: &'static str,
    /// When the tool goes away (`YYYY-MM-DD`).
    pub removal_date: &'static str,
    /// The tool to use instead.
    pub replacement: Option<&'static str>,
}

/// What a pack offers to other packs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PackExports {
    /// Version of the exported API (semver; `1.0` reads as `1.0.0`).
    pub api_version: &'static str,
    /// The exported tools.
    pub tools: &'static [ExportedTool],
    /// Access rules.
    pub access: Access,
    /// Deprecated tools.
    pub deprecated: &'static [Deprecation],
}

impl PackExports {
    /// A pack that exports nothing.
    pub const NONE: PackExports = PackExports {
        api_version: "0.0.0",
        tools: &[],
        access: Access::OPEN,
        deprecated: &[],
    };

    /// Whether `tool` (an id) is exported.
    pub fn exports(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.id == tool)
    }

    /// The deprecation of `tool`, if any.
    pub fn deprecation(&self, tool: &str) -> Option<&'static Deprecation> {
        self.deprecated.iter().find(|d| d.tool == tool)
    }
}

/// Tools a pack takes from one provider.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ImportDecl {
    /// The provider pack id.
    pub from: &'static str,
    /// The imported tool ids.
    pub tools: &'static [&'static str],
    /// The lowest provider `api_version` this pack works with (semver-compatible: same major).
    pub min_version: &'static str,
}

/// The whole contract of one pack.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PackManifest {
    /// Pack id (`zodiac`), a prefix of its skill ids (`zodiac.calculate_zodiac`).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Version of the pack itself.
    pub version: &'static str,
    /// What it offers.
    pub exports: PackExports,
    /// What it takes from others.
    pub imports: &'static [ImportDecl],
    /// Rust type of the pack marker (for messages).
    pub type_name: &'static str,
}

impl PackManifest {
    /// Whether this pack imports `tool` from `provider`.
    pub fn imports_tool(&self, provider: &str, tool: &str) -> bool {
        self.imports
            .iter()
            .any(|i| i.from == provider && i.tools.contains(&tool))
    }

    /// Whether skill id `skill_id` belongs to this pack (`<pack id>.<name>`).
    pub fn owns(&self, skill_id: &str) -> bool {
        skill_id
            .strip_prefix(self.id)
            .is_some_and(|rest| rest.starts_with('.'))
    }
}

/// A pack submitted at link time by `pack!`.
#[derive(Debug, Clone, Copy)]
pub struct RegisteredPack(pub fn() -> &'static PackManifest);

inventory::collect!(RegisteredPack);

/// Every pack linked into this binary, sorted by id.
pub fn linked_packs() -> Vec<&'static PackManifest> {
    let mut packs: Vec<&'static PackManifest> = inventory::iter::<RegisteredPack>
        .into_iter()
        .map(|r| (r.0)())
        .collect();
    packs.sort_by(|a, b| a.id.cmp(b.id));
    packs.dedup_by(|a, b| std::ptr::eq(*a, *b));
    packs
}
