//! The checks the compiler cannot make: providers that are not linked, versions, cycles,
//! name clashes on the wire, deprecation windows and removal dates.
//!
//! Run at start-up ([`crate::GatewayBuilder::build`]), in `cargo test` and by `clausewright check`.
//! Every problem of every pack is reported in one run.

mod problem;

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use semver::{Version, VersionReq};
use toolwright::validate_skill_id;

use crate::manifest::{linked_packs, PackManifest};
use crate::rate::RateLimit;

pub use problem::PackProblem;

/// Days a deprecated tool must stay available between announcement and removal.
pub const MIN_DEPRECATION_DAYS: i64 = 30;

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
///     toolwright_packs::assert_packs_valid();
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
