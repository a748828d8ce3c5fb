//! The tool checklist of seed 004 section 8 as a library call: run it from `cargo test`
//! (`assert!(lint_registry(&dispatcher).iter().all(|f| !f.is_error()))`) or from a CLI.
//!
//! Rules: `id_format` (`{domain}.{action}`), `parameter_description`, `optional_default`,
//! `write_confirmation`, `stats_summary`, `error_format`.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::args::shape::ref_name;
use crate::dispatch::Dispatcher;
use crate::registration::SkillRegistration;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LintSeverity {
    /// Worth a look; the tool still works.
    Warning,
    /// Breaks the convention in a way that misleads the model or the user.
    Error,
}

/// One checklist item a skill does not meet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintFinding {
    /// The skill.
    pub skill_id: String,
    /// The rule (`id_format`, `parameter_description`, ...).
    pub rule: &'static str,
    /// Error or warning.
    pub severity: LintSeverity,
    /// What is wrong and what to do.
    pub message: String,
}

impl LintFinding {
    /// Whether the finding is an error.
    pub fn is_error(&self) -> bool {
        self.severity == LintSeverity::Error
    }
}

impl fmt::Display for LintFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            LintSeverity::Error => "error",
            LintSeverity::Warning => "warning",
        };
        write!(
            f,
            "{level}[{}] {}: {}",
            self.rule, self.skill_id, self.message
        )
    }
}

/// Checks every registered skill against the seed 004 checklist.
pub fn lint_registry(dispatcher: &Dispatcher) -> Vec<LintFinding> {
    dispatcher
        .list_skills()
        .iter()
        .flat_map(|s| lint_skill(s))
        .collect()
}

/// Checks one skill against the seed 004 checklist.
pub fn lint_skill(skill: &SkillRegistration) -> Vec<LintFinding> {
    let mut findings = Vec::new();
    let mut report = |rule: &'static str, severity: LintSeverity, message: String| {
        findings.push(LintFinding {
            skill_id: skill.id.to_string(),
            rule,
            severity,
            message,
        })
    };
    if let Err(why) = check_id_format(skill.id) {
        report("id_format", LintSeverity::Warning, why);
    }
    let schema = (skill.input_schema)();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            let info = skill.param(name);
            let described = prop
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.trim().is_empty())
                || info.is_some_and(|p| !p.description.trim().is_empty());
            if !described {
                report("parameter_description", LintSeverity::Error, format!("parameter `{name}` has no description; document it so the model knows what to send"));
            }
            let optional = !required.contains(&name.as_str());
            let prepared = info.is_some_and(|p| p.prepared);
            let has_default = info.is_some_and(|p| p.has_default) || prop.get("default").is_some();
            if optional && !prepared && !has_default {
                report("optional_default", LintSeverity::Warning, format!("optional parameter `{name}` has no default; give one with #[arg(default = ...)] or say in its description what leaving it out means"));
            }
        }
    }
    let writes = matches!(skill.category, "create" | "update" | "delete");
    if writes && !skill.needs_confirmation() {
        report("write_confirmation", LintSeverity::Error, format!("category `{}` writes data but requires_confirmation = false; remove the override so the user confirms", skill.category));
    }
    let output = (skill.output_schema)();
    if skill.category == "stats" && !has_property(output, "summary") {
        report(
            "stats_summary",
            LintSeverity::Error,
            "a stats tool must return a `summary` field with the precomputed conclusion".into(),
        );
    }
    if has_property(output, "success")
        && (has_property(output, "error") || has_property(output, "data"))
    {
        report("error_format", LintSeverity::Error, "the output wraps its own `success`/`error` envelope; return the data and signal failure with SkillError (standard {success, data, error{code, message, details}})".into());
    }
    findings
}

/// `{domain}.{action}[_{modifier}]`: lower-case snake-case parts separated by one `.`.
pub fn check_id_format(id: &str) -> Result<(), String> {
    let parts: Vec<&str> = id.split('.').collect();
    if parts.len() < 2 {
        return Err(format!(
            "id `{id}` should read `{{domain}}.{{action}}`, e.g. `crm.search_client`"
        ));
    }
    for part in &parts {
        let ok = part.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !ok {
            return Err(format!(
                "part `{part}` of id `{id}` should be lower-case snake_case"
            ));
        }
    }
    Ok(())
}

/// Whether an object schema (following one `$ref`) has a property `name`.
fn has_property(schema: &Value, name: &str) -> bool {
    let target = match schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(ref_name)
    {
        Some(def) => schema
            .get("$defs")
            .and_then(|d| d.get(def))
            .unwrap_or(schema),
        None => schema,
    };
    target.get("properties").and_then(|p| p.get(name)).is_some()
}
