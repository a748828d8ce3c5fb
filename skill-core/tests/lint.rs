//! The seed 004 checklist (`lint_registry`): each rule fires on a skill that breaks it and
//! stays quiet on one that follows it.
//!
//! A binary of its own: its skills, some of them breaking the checklist on purpose, join
//! the link-time registry it lints.

use serde_json::Value;
use toolwright::lint::{check_id_format, lint_registry, lint_skill, LintFinding, LintSeverity};
use toolwright::prelude::*;
use toolwright::Skill;

/// Summary of a stats call.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Number of items.
    pub total: usize,
}

/// Figures with their summary.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Figures {
    /// Values.
    pub values: Vec<u32>,
    /// Conclusion.
    pub summary: Summary,
}

/// Figures without a summary.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct BareFigures {
    /// Values.
    pub values: Vec<u32>,
}

/// An output that wraps its own result envelope.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Envelope {
    /// Whether it worked.
    pub success: bool,
    /// Why not.
    pub error: Option<String>,
}

/// Count projects per period, with a summary.
#[skill(id = "finance.stats_by_period", domain = "finance", category = "stats")]
fn stats_by_period(
    /// Period to count, e.g. "2024-Q1".
    period: String,
    /// How many periods back.
    #[arg(default = 1)]
    back: u32,
) -> Figures {
    let values: Vec<u32> = (0..back).map(|i| i + period.len() as u32).collect();
    Figures {
        summary: Summary {
            total: values.len(),
        },
        values,
    }
}

/// Count projects per period, without a summary.
#[skill(id = "finance.bare_stats", domain = "finance", category = "stats")]
fn bare_stats(
    /// Period to count.
    period: String,
    /// Optional region without a default.
    region: Option<String>,
) -> BareFigures {
    BareFigures {
        values: vec![period.len() as u32, region.map_or(0, |r| r.len() as u32)],
    }
}

/// Delete an invoice without asking anyone.
#[skill(
    id = "finance.delete_invoice",
    domain = "finance",
    category = "delete",
    requires_confirmation = false
)]
fn delete_invoice(
    /// Invoice number.
    number: String,
) -> Envelope {
    Envelope {
        success: !number.is_empty(),
        error: None,
    }
}

/// Input without documented fields.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Undocumented {
    #[allow(missing_docs)]
    pub x: String,
}

/// Takes an undocumented input.
#[skill(id = "LegacyTool", category = "query")]
fn legacy_tool(#[input] input: Undocumented) -> String {
    input.x
}

fn rules_of(findings: &[LintFinding], id: &str) -> Vec<&'static str> {
    findings
        .iter()
        .filter(|f| f.skill_id == id)
        .map(|f| f.rule)
        .collect()
}

#[test]
fn each_rule_fires_where_it_should_and_only_there() {
    let d = Dispatcher::from_inventory().unwrap();
    let findings = lint_registry(&d);
    assert!(
        rules_of(&findings, "finance.stats_by_period").is_empty(),
        "{findings:#?}"
    );
    assert_eq!(
        rules_of(&findings, "finance.bare_stats"),
        ["optional_default", "stats_summary"]
    );
    assert_eq!(
        rules_of(&findings, "finance.delete_invoice"),
        ["write_confirmation", "error_format"]
    );
    assert_eq!(
        rules_of(&findings, "LegacyTool"),
        ["id_format", "parameter_description"]
    );
    let errors: Vec<String> = findings
        .iter()
        .filter(|f| f.is_error())
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert!(errors.iter().any(|e| e == "error[write_confirmation] finance.delete_invoice: category `delete` writes data but requires_confirmation = false; remove the override so the user confirms"));
    let region = findings
        .iter()
        .find(|f| f.rule == "optional_default")
        .unwrap();
    assert_eq!(region.severity, LintSeverity::Warning);
    assert!(region.message.contains("`region`"));
    let json: Value = serde_json::to_value(&findings[0]).unwrap();
    assert!(json["severity"].is_string());
}

#[test]
fn lint_of_one_skill_matches_the_registry_lint() {
    let reg = BareStats::registration();
    assert_eq!(lint_skill(reg).len(), 2);
}

#[test]
fn id_format_follows_domain_dot_action() {
    assert!(check_id_format("crm.search_client").is_ok());
    assert!(check_id_format("project.list_by_client").is_ok());
    assert!(check_id_format("analytics.stats_2024").is_ok());
    assert!(check_id_format("search_client")
        .unwrap_err()
        .contains("{domain}.{action}"));
    assert!(check_id_format("crm.searchClient")
        .unwrap_err()
        .contains("snake_case"));
    assert!(check_id_format("Crm.search").is_err());
    assert!(check_id_format("crm._x").is_err());
}
