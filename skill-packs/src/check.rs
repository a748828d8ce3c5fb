//! The checks the compiler cannot make: providers that are not linked, versions, cycles,
//! name clashes on the wire, deprecation windows and removal dates.
//!
//! Run at start-up ([`crate::GatewayBuilder::build`]), in `cargo test` and by `skillkit check`.
//! Every problem of every pack is reported in one run.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use semver::{Version, VersionReq};
use serde::Serialize;
use skill_core::dispatch::validate_skill_id;

use crate::manifest::{linked_packs, PackManifest};
use crate::rate::RateLimit;

/// Days a deprecated tool must stay available between announcement and removal.
pub const MIN_DEPRECATION_DAYS: i64 = 30;

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

/// Reads `1`, `1.2` or `1.2.3` (and full semver) as a version.
pub(crate) fn parse_version(text: &str) -> Option<Version> {
    let text = text.trim();
    let parts = text
        .split(['-', '+'])
        .next()
        .unwrap_or("")
        .split('.')
        .count();
    let padded = match parts {
        1 => format!("{text}.0.0"),
        2 => format!("{text}.0"),
        _ => text.to_string(),
    };
    Version::parse(&padded).ok()
}

/// The requirement a `min_version` stands for: at least that version, same major (`^`).
pub(crate) fn requirement_of(min_version: &str) -> Option<VersionReq> {
    let min = parse_version(min_version)?;
    VersionReq::parse(&format!("^{min}")).ok()
}

/// Checks every pack linked into this binary, as of today (UTC).
pub fn check_packs() -> Vec<PackProblem> {
    check_manifests(&linked_packs(), chrono::Utc::now().date_naive())
}

/// Checks `packs` as a whole, as of `today`; returns every problem found.
pub fn check_manifests(packs: &[&PackManifest], today: NaiveDate) -> Vec<PackProblem> {
    let mut problems = Vec::new();
    let mut by_id: BTreeMap<&str, &PackManifest> = BTreeMap::new();
    for pack in packs {
        if let Some(first) = by_id.get(pack.id) {
            if !std::ptr::eq(*first, *pack) {
                problems.push(PackProblem::DuplicatePack {
                    pack: pack.id.into(),
                    first: first.type_name.into(),
                    second: pack.type_name.into(),
                });
            }
            continue;
        }
        by_id.insert(pack.id, pack);
    }
    for pack in by_id.values() {
        check_provider(pack, &mut problems);
    }
    check_wire_names(&by_id, &mut problems);
    for consumer in by_id.values() {
        check_imports(consumer, &by_id, today, &mut problems);
    }
    check_cycles(&by_id, &mut problems);
    problems
}

fn check_provider(pack: &PackManifest, problems: &mut Vec<PackProblem>) {
    let id = pack.id;
    if let Err(reason) = validate_skill_id(id) {
        problems.push(PackProblem::InvalidPackId {
            pack: id.into(),
            reason,
        });
    } else if id.contains('.') {
        problems.push(PackProblem::InvalidPackId {
            pack: id.into(),
            reason: "`.` separates the pack id from tool names; use `_` or `-` inside a pack id"
                .into(),
        });
    }
    for (field, value) in [
        ("version", pack.version),
        ("api_version", pack.exports.api_version),
    ] {
        if parse_version(value).is_none() {
            problems.push(PackProblem::InvalidVersion {
                pack: id.into(),
                field: field.into(),
                value: value.into(),
            });
        }
    }
    let exports = &pack.exports;
    for tool in exports.tools {
        if !pack.owns(tool.id) {
            problems.push(PackProblem::ForeignExport {
                pack: id.into(),
                tool: tool.id.into(),
            });
        }
    }
    let mut not_exported = |rule: &str, tool: &str| {
        if !exports.exports(tool) {
            problems.push(PackProblem::AccessRuleNotExported {
                pack: id.into(),
                rule: rule.into(),
                tool: tool.into(),
            });
        }
    };
    for tool in exports.access.free_tools {
        not_exported("free_tools", tool);
    }
    for limit in exports.access.rate_limits {
        not_exported("rate_limits", limit.tool);
    }
    for dep in exports.deprecated {
        not_exported("deprecated", dep.tool);
        if let Some(replacement) = dep.replacement {
            not_exported("replacement", replacement);
        }
    }
    for limit in exports.access.rate_limits {
        match RateLimit::parse(limit.text) {
            Ok(parsed) if parsed == limit.limit => {}
            Ok(_) => problems.push(PackProblem::InvalidRateLimit {
                pack: id.into(),
                tool: limit.tool.into(),
                text: limit.text.into(),
                reason: "the parsed limit differs from the text".into(),
            }),
            Err(err) => problems.push(PackProblem::InvalidRateLimit {
                pack: id.into(),
                tool: limit.tool.into(),
                text: limit.text.into(),
                reason: err.message().into(),
            }),
        }
    }
    for dep in exports.deprecated {
        let window = |reason: String| PackProblem::DeprecationWindow {
            pack: id.into(),
            tool: dep.tool.into(),
            reason,
        };
        let since = NaiveDate::parse_from_str(dep.since, "%Y-%m-%d");
        let removal = NaiveDate::parse_from_str(dep.removal_date, "%Y-%m-%d");
        match (since, removal) {
            (Ok(since), Ok(removal)) => {
                let days = (removal - since).num_days();
                if days < MIN_DEPRECATION_DAYS {
                    problems.push(window(format!(
                        "gives callers {days} days (announced {since}, removed {removal}); at least {MIN_DEPRECATION_DAYS} days are required"
                    )));
                }
            }
            (Err(_), _) => problems.push(window(format!(
                "has `since: \"{}\"`, expected a date YYYY-MM-DD",
                dep.since
            ))),
            (_, Err(_)) => problems.push(window(format!(
                "has `removal_date: \"{}\"`, expected a date YYYY-MM-DD",
                dep.removal_date
            ))),
        }
    }
}

fn check_wire_names(by_id: &BTreeMap<&str, &PackManifest>, problems: &mut Vec<PackProblem>) {
    let mut seen: HashMap<String, (&str, &str)> = HashMap::new();
    for pack in by_id.values() {
        for tool in pack.exports.tools {
            let wire = (tool.registration)().wire_name.to_string();
            match seen.get(&wire) {
                Some(&(first, first_pack)) if first != tool.id => {
                    problems.push(PackProblem::WireNameClash {
                        wire_name: wire,
                        first: first.into(),
                        first_pack: first_pack.into(),
                        second: tool.id.into(),
                        second_pack: pack.id.into(),
                    });
                }
                Some(_) => {}
                None => {
                    seen.insert(wire, (tool.id, pack.id));
                }
            }
        }
    }
}

fn check_imports(
    consumer: &PackManifest,
    by_id: &BTreeMap<&str, &PackManifest>,
    today: NaiveDate,
    problems: &mut Vec<PackProblem>,
) {
    for import in consumer.imports {
        if import.from == consumer.id {
            problems.push(PackProblem::SelfImport {
                pack: consumer.id.into(),
            });
            continue;
        }
        let Some(provider) = by_id.get(import.from) else {
            problems.push(PackProblem::ProviderMissing {
                consumer: consumer.id.into(),
                provider: import.from.into(),
            });
            continue;
        };
        for tool in import.tools {
            if !provider.exports.exports(tool) {
                problems.push(PackProblem::ToolNotExported {
                    consumer: consumer.id.into(),
                    provider: provider.id.into(),
                    tool: (*tool).into(),
                    exported: provider
                        .exports
                        .tools
                        .iter()
                        .map(|t| t.id)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
                continue;
            }
            if let Some(dep) = provider.exports.deprecation(tool) {
                if let Ok(removal) = NaiveDate::parse_from_str(dep.removal_date, "%Y-%m-%d") {
                    if today >= removal {
                        problems.push(PackProblem::ImportAfterRemoval {
                            consumer: consumer.id.into(),
                            provider: provider.id.into(),
                            tool: (*tool).into(),
                            removal_date: dep.removal_date.into(),
                            replacement: dep.replacement.map(Into::into),
                        });
                    }
                }
            }
        }
        let Some(required) = requirement_of(import.min_version) else {
            problems.push(PackProblem::InvalidVersion {
                pack: consumer.id.into(),
                field: format!("min_version of `{}`", import.from),
                value: import.min_version.into(),
            });
            continue;
        };
        if let Some(actual) = parse_version(provider.exports.api_version) {
            if !required.matches(&actual) {
                problems.push(PackProblem::VersionMismatch {
                    consumer: consumer.id.into(),
                    provider: provider.id.into(),
                    required: required.to_string(),
                    actual: provider.exports.api_version.into(),
                });
            }
        }
    }
}

/// Finds every elementary cycle once (reported from its smallest pack id).
fn check_cycles(by_id: &BTreeMap<&str, &PackManifest>, problems: &mut Vec<PackProblem>) {
    let edges = |id: &str| -> Vec<&str> {
        let mut next: Vec<&str> = by_id
            .get(id)
            .map(|p| {
                p.imports
                    .iter()
                    .map(|i| i.from)
                    .filter(|from| *from != id && by_id.contains_key(from))
                    .collect()
            })
            .unwrap_or_default();
        next.sort_unstable();
        next.dedup();
        next
    };
    // Depth-first search from each start node, visiting only nodes >= start, so each cycle
    // is found exactly once, from its smallest member.
    for &start in by_id.keys() {
        let mut path = vec![start];
        let mut stack = vec![edges(start).into_iter()];
        while let Some(iter) = stack.last_mut() {
            match iter.next() {
                Some(next) if next == start => {
                    let mut cycle: Vec<String> = path.iter().map(|s| s.to_string()).collect();
                    cycle.push(start.to_string());
                    problems.push(PackProblem::DependencyCycle { path: cycle });
                }
                Some(next) if next > start && !path.contains(&next) => {
                    path.push(next);
                    stack.push(edges(next).into_iter());
                }
                Some(_) => {}
                None => {
                    stack.pop();
                    path.pop();
                }
            }
        }
    }
}

/// For a crate's own `cargo test`: panics listing every problem of the linked packs.
///
/// ```ignore
/// #[test]
/// fn pack_contracts_hold() {
///     skill_packs::assert_packs_valid();
/// }
/// ```
pub fn assert_packs_valid() {
    assert_manifests_valid(&linked_packs(), chrono::Utc::now().date_naive());
}

/// Panics listing every problem of `packs` as of `today`.
pub fn assert_manifests_valid(packs: &[&PackManifest], today: NaiveDate) {
    let problems = check_manifests(packs, today);
    if !problems.is_empty() {
        let list: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
        panic!(
            "{} pack contract problem(s):\n{}",
            problems.len(),
            list.join("\n")
        );
    }
}
