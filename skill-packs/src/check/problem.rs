//! What a contract check reports: one variant per kind of problem, with the message a pack
//! author acts on and a serialized form (`kind`) for tools.

use serde::Serialize;

/// One problem with the declared packs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PackProblem {
    /// Two packs share an id.
    #[error("pack id `{pack}` is declared twice: by {first} and by {second}")]
    DuplicatePack {
        /// The id.
        pack: String,
        /// Type of the first declaration.
        first: String,
        /// Type of the second declaration.
        second: String,
    },
    /// A pack id is not a valid tool-name prefix.
    #[error("pack `{pack}`: the id is not valid: {reason}")]
    InvalidPackId {
        /// The id.
        pack: String,
        /// Why.
        reason: String,
    },
    /// A version string is not semver.
    #[error("pack `{pack}`: {field} `{value}` is not a version (expected MAJOR.MINOR or MAJOR.MINOR.PATCH)")]
    InvalidVersion {
        /// The pack.
        pack: String,
        /// Which field (`version`, `api_version`, `min_version of <provider>`).
        field: String,
        /// The text.
        value: String,
    },
    /// A pack exports a skill outside its namespace.
    #[error("pack `{pack}` exports `{tool}`, which is not one of its skills (ids of its skills start with `{pack}.`)")]
    ForeignExport {
        /// The pack.
        pack: String,
        /// The tool.
        tool: String,
    },
    /// Two tools of different packs go on the wire with one name.
    #[error("tools `{first}` (pack `{first_pack}`) and `{second}` (pack `{second_pack}`) both go on the wire as `{wire_name}`")]
    WireNameClash {
        /// The shared wire name.
        wire_name: String,
        /// First tool.
        first: String,
        /// Its pack.
        first_pack: String,
        /// Second tool.
        second: String,
        /// Its pack.
        second_pack: String,
    },
    /// An access rule names a tool the pack does not export.
    #[error("pack `{pack}`: {rule} names `{tool}`, which the pack does not export")]
    AccessRuleNotExported {
        /// The pack.
        pack: String,
        /// `free_tools`, `rate_limits`, `deprecated` or `replacement`.
        rule: String,
        /// The tool.
        tool: String,
    },
    /// A rate limit does not parse.
    #[error("pack `{pack}`: rate limit `{text}` of `{tool}` is invalid: {reason}")]
    InvalidRateLimit {
        /// The pack.
        pack: String,
        /// The tool.
        tool: String,
        /// The limit text.
        text: String,
        /// What was expected.
        reason: String,
    },
    /// An import names a pack that is not linked.
    #[error("pack `{consumer}` imports from `{provider}`, but no pack `{provider}` exists")]
    ProviderMissing {
        /// The importing pack.
        consumer: String,
        /// The missing provider.
        provider: String,
    },
    /// An import names a tool the provider does not export.
    #[error("pack `{consumer}` imports `{tool}`, which is not in `{provider}.exports.tools` (exported: {exported})")]
    ToolNotExported {
        /// The importing pack.
        consumer: String,
        /// The provider.
        provider: String,
        /// The tool.
        tool: String,
        /// What the provider does export, comma separated.
        exported: String,
    },
    /// The provider's API is older than, or incompatible with, what the consumer needs.
    #[error("pack `{consumer}` needs `{provider}` api_version {required}, but `{provider}` exports api_version {actual}")]
    VersionMismatch {
        /// The importing pack.
        consumer: String,
        /// The provider.
        provider: String,
        /// The semver requirement (`^1.2.0`).
        required: String,
        /// The provider's api_version.
        actual: String,
    },
    /// Packs import from each other in a cycle.
    #[error("packs import each other in a cycle: {}", path.join(" -> "))]
    DependencyCycle {
        /// The cycle, first pack repeated at the end.
        path: Vec<String>,
    },
    /// A pack imports from itself.
    #[error("pack `{pack}` imports from itself; call its own tools directly")]
    SelfImport {
        /// The pack.
        pack: String,
    },
    /// A deprecation gives callers fewer than 30 days, or its dates do not parse.
    #[error("pack `{pack}`: deprecation of `{tool}` {reason}")]
    DeprecationWindow {
        /// The pack.
        pack: String,
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A consumer still imports a tool whose removal date has passed.
    #[error("pack `{consumer}` still imports `{tool}` from `{provider}`, removed on {removal_date}{}", replacement.as_ref().map(|r| format!("; use `{r}` instead")).unwrap_or_default())]
    ImportAfterRemoval {
        /// The importing pack.
        consumer: String,
        /// The provider.
        provider: String,
        /// The tool.
        tool: String,
        /// When it was removed.
        removal_date: String,
        /// What to use instead.
        replacement: Option<String>,
    },
}

impl PackProblem {
    /// The pack the problem belongs to (the consumer for import problems).
    pub fn pack(&self) -> &str {
        match self {
            PackProblem::DuplicatePack { pack, .. }
            | PackProblem::InvalidPackId { pack, .. }
            | PackProblem::InvalidVersion { pack, .. }
            | PackProblem::ForeignExport { pack, .. }
            | PackProblem::AccessRuleNotExported { pack, .. }
            | PackProblem::InvalidRateLimit { pack, .. }
            | PackProblem::SelfImport { pack }
            | PackProblem::DeprecationWindow { pack, .. } => pack,
            PackProblem::WireNameClash { first_pack, .. } => first_pack,
            PackProblem::ProviderMissing { consumer, .. }
            | PackProblem::ToolNotExported { consumer, .. }
            | PackProblem::VersionMismatch { consumer, .. }
            | PackProblem::ImportAfterRemoval { consumer, .. } => consumer,
            PackProblem::DependencyCycle { path } => path.first().map_or("", String::as_str),
        }
    }
}
