//! How skill outputs become risks in the offline (checklist) review.
//!
//! Every rule reads one skill's output as JSON, by skill id, so outputs of skills defined in
//! other modules (FIDIC, SPA/SHA) are read without depending on their Rust types. A rule that
//! does not find the fields it expects produces nothing.
//!
//! | skill | rule | risk_type | level |
//! |---|---|---|---|
//! | `assess_deviation` | every finding | the finding's rule | the finding's severity |
//! | `compare_with_baseline` (only when `assess_deviation` did not run) | deleted / added / similarity < 50% | `clause_deleted` / `clause_added` / `baseline_deviation` | high / medium / medium |
//! | `cross_reference_check` | broken references | `broken_cross_reference` | medium |
//! | `cross_reference_check` | references to deleted clauses | `reference_to_deleted_clause` | medium |
//! | `extract_financial_terms` | delay damages (rate or amount) and no cap on them | `uncapped_delay_damages` | high |
//! | `extract_financial_terms` | retention above 10% | `high_retention` | medium |
//! | `extract_financial_terms` | payment period above 56 days | `long_payment_period` | medium |
//! | `resolve_definition` | terms used but never defined | `undefined_term` | low |
//! | `fidic_calculate_time_bar` | each time limit rated high/medium/low (shortened against the standard or the General Conditions, time bars) | `time_bar_shortened` when shortened, else `time_bar` / `time_limit` | the limit's severity |
//! | any other skill (domain skills) | each object in a top-level array with `severity` or `risk_level` of high/medium/low; else a top-level `risk_level`/`severity` of high/medium | the item's `rule`/`risk_type`/`type`/`category`, else the skill id | that level |
//!
//! `get_clause_context`, `search_reference_doc` and `load_review_criteria` give context only.

use serde_json::Value;

/// A risk before it gets its id and clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiskDraft {
    /// `high`, `medium` or `low`.
    pub risk_level: String,
    /// Short machine-readable type.
    pub risk_type: String,
    /// What the risk is.
    pub description: String,
    /// Why it is a risk (the rule).
    pub reason: String,
    /// Detail: the skill's summary and the evidence.
    pub analysis: String,
    /// The words of the contract concerned, if known.
    pub original_text: String,
    /// The skill whose output produced it.
    pub source_skill: String,
}

/// Time limits found by `fidic_calculate_time_bar`, described in words.
fn time_limits(data: &Value, out: &mut Vec<RiskDraft>) {
    for limit in data["time_limits"].as_array().into_iter().flatten() {
        let Some(level) = normalize_level(&str_field(limit, &["severity"])) else {
            continue;
        };
        let days = limit["days"].as_u64().unwrap_or_default();
        let requirement = str_field(limit, &["requirement"]);
        let party = str_field(limit, &["party"]);
        let trigger = str_field(limit, &["trigger"]);
        let mut description = match party.is_empty() {
            true => String::new(),
            false => format!("{party}: "),
        };
        description.push_str(&format!("{} {days} days", requirement.replace('_', " ")));
        if !trigger.is_empty() {
            description.push_str(&format!(" ({trigger})"));
        }
        let shortened = limit["shortened"].as_bool().unwrap_or(false);
        if let Some(gc) = limit["gc_days"].as_u64().filter(|gc| *gc != days) {
            description.push_str(&format!(" (General Conditions: {gc} days)"));
        } else if let Some(std_days) = limit["standard_days"].as_u64().filter(|s| *s != days) {
            let step = str_field(limit, &["standard_step"]);
            description.push_str(&format!(" (usual period for {step}: {std_days} days)"));
        }
        let consequence = str_field(limit, &["consequence"]);
        let is_bar = limit["is_time_bar"].as_bool().unwrap_or(false);
        let risk_type = match (shortened, is_bar) {
            (true, _) => "time_bar_shortened",
            (false, true) => "time_bar",
            (false, false) => "time_limit",
        };
        let reason = match (is_bar, consequence.is_empty()) {
            (true, false) => format!("missing it is a time bar: {consequence}"),
            (true, true) => "missing it is a time bar".to_string(),
            (false, false) => format!("consequence: {consequence}"),
            (false, true) => format!("`fidic_calculate_time_bar` rated the limit {level}"),
        };
        out.push(draft(
            level,
            risk_type,
            description,
            &reason,
            String::new(),
            str_field(limit, &["sentence"]),
        ));
    }
}

/// Applies the rules to the outputs of one clause's skills (`(skill_id, output)` pairs).
pub fn risks_from_outputs(outputs: &[(String, Value)]) -> Vec<RiskDraft> {
    let ran = |id: &str| outputs.iter().any(|(s, _)| s == id);
    let mut out = Vec::new();
    for (skill, data) in outputs {
        let before = out.len();
        match skill.as_str() {
            "assess_deviation" => assess_deviation(data, &mut out),
            "compare_with_baseline" if !ran("assess_deviation") => {
                compare_with_baseline(data, &mut out)
            }
            "compare_with_baseline" => {}
            "cross_reference_check" => cross_reference_check(data, &mut out),
            "extract_financial_terms" => extract_financial_terms(data, &mut out),
            "resolve_definition" => resolve_definition(data, &mut out),
            "fidic_calculate_time_bar" => time_limits(data, &mut out),
            "get_clause_context" | "search_reference_doc" | "load_review_criteria" => {}
            _ => generic_findings(skill, data, &mut out),
        }
        let summary = str_field(data, &["summary"]);
        for draft in &mut out[before..] {
            draft.source_skill = skill.clone();
            if draft.analysis.is_empty() {
                draft.analysis = summary.clone();
            }
        }
    }
    out
}

fn draft(
    level: &str,
    risk_type: &str,
    description: String,
    reason: &str,
    analysis: String,
    original_text: String,
) -> RiskDraft {
    RiskDraft {
        risk_level: level.to_string(),
        risk_type: risk_type.to_string(),
        description,
        reason: reason.to_string(),
        analysis,
        original_text,
        source_skill: String::new(),
    }
}

fn str_field(value: &Value, names: &[&str]) -> String {
    names
        .iter()
        .find_map(|n| {
            value
                .get(*n)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        })
        .unwrap_or("")
        .to_string()
}

fn normalize_level(level: &str) -> Option<&'static str> {
    match level.trim().to_lowercase().as_str() {
        "high" | "critical" | "高" => Some("high"),
        "medium" | "moderate" | "中" => Some("medium"),
        "low" | "低" => Some("low"),
        _ => None,
    }
}

fn assess_deviation(data: &Value, out: &mut Vec<RiskDraft>) {
    for finding in data
        .get("findings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(level) = normalize_level(&str_field(finding, &["severity"])) else {
            continue;
        };
        let rule = str_field(finding, &["rule"]);
        out.push(draft(
            level,
            &rule,
            str_field(finding, &["description"]),
            &format!("assess_deviation rule `{rule}` fired"),
            format!(
                "{} Evidence: {}",
                str_field(data, &["summary"]),
                str_field(finding, &["evidence"])
            ),
            str_field(finding, &["evidence"]),
        ));
    }
}

fn compare_with_baseline(data: &Value, out: &mut Vec<RiskDraft>) {
    let kind = str_field(data, &["modification_type"]);
    let similarity = data
        .get("similarity")
        .and_then(Value::as_f64)
        .unwrap_or(1.0);
    let changed: Vec<String> = data
        .get("changes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| str_field(c, &["text"]))
        .collect();
    let evidence = changed.join(" … ");
    let (level, risk_type, reason) = match kind.as_str() {
        "deleted" => (
            "high",
            "clause_deleted",
            "the standard-form clause was deleted",
        ),
        "added" => (
            "medium",
            "clause_added",
            "the clause is not in the standard form",
        ),
        "modified" if similarity < 0.5 => (
            "medium",
            "baseline_deviation",
            "less than half of the standard-form wording remains",
        ),
        _ => return,
    };
    out.push(draft(
        level,
        risk_type,
        str_field(data, &["summary"]),
        reason,
        String::new(),
        evidence,
    ));
}

fn cross_reference_check(data: &Value, out: &mut Vec<RiskDraft>) {
    let refs = data
        .get("references")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let with_status = |status: &str| -> Vec<String> {
        refs.iter()
            .filter(|r| r.get("status").and_then(Value::as_str) == Some(status))
            .map(|r| str_field(r, &["reference_text"]))
            .collect()
    };
    let broken = with_status("broken");
    if !broken.is_empty() {
        out.push(draft(
            "medium",
            "broken_cross_reference",
            format!(
                "References to clauses that do not exist: {}",
                broken.join(", ")
            ),
            "a reference to a missing clause leaves the obligation it imports undefined",
            String::new(),
            broken.join(", "),
        ));
    }
    let deleted = with_status("deleted");
    if !deleted.is_empty() {
        out.push(draft(
            "medium",
            "reference_to_deleted_clause",
            format!("References to deleted clauses: {}", deleted.join(", ")),
            "the clause relies on a clause the contract deleted",
            String::new(),
            deleted.join(", "),
        ));
    }
}

fn extract_financial_terms(data: &Value, out: &mut Vec<RiskDraft>) {
    let number = |name: &str| data.get(name).and_then(Value::as_f64);
    let source_of = |category: &str| -> String {
        data.get("terms")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|t| t.get("category").and_then(Value::as_str) == Some(category))
            .map(|t| str_field(t, &["source_text"]))
            .unwrap_or_default()
    };
    let delay: Vec<&Value> = data
        .get("terms")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|t| t.get("category").and_then(Value::as_str) == Some("delay_damages"))
        .collect();
    let is_cap = |t: &&Value| t.get("is_cap").and_then(Value::as_bool) == Some(true);
    let rate = delay.iter().find(|t| !is_cap(t));
    if let (Some(rate), false) = (rate, delay.iter().any(is_cap)) {
        out.push(draft(
            "high",
            "uncapped_delay_damages",
            format!(
                "Delay damages of {} have no stated cap",
                str_field(rate, &["text"])
            ),
            "delay damages without a maximum amount expose the paying party to unlimited liability",
            String::new(),
            source_of("delay_damages"),
        ));
    }
    if let Some(retention) = number("retention_percent").filter(|r| *r > 10.0) {
        out.push(draft(
            "medium",
            "high_retention",
            format!("Retention of {retention}% exceeds the usual 5-10%"),
            "retention above 10% ties up working capital",
            String::new(),
            source_of("retention"),
        ));
    }
    if let Some(days) = number("payment_period_days").filter(|d| *d > 56.0) {
        out.push(draft(
            "medium",
            "long_payment_period",
            format!("Payment period of {days} days exceeds the 56 days of the FIDIC standard form"),
            "a long payment period shifts financing cost to the payee",
            String::new(),
            source_of("payment"),
        ));
    }
}

fn resolve_definition(data: &Value, out: &mut Vec<RiskDraft>) {
    let terms: Vec<String> = data
        .get("undefined_terms")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    if !terms.is_empty() {
        out.push(draft(
            "low",
            "undefined_term",
            format!("Terms used but never defined: {}", terms.join(", ")),
            "an undefined term written as a defined one is open to interpretation",
            String::new(),
            // The review quotes the clause itself.
            String::new(),
        ));
    }
}

/// Domain skills: objects with a `severity`/`risk_level` in any top-level array, else a
/// top-level level of high or medium.
fn generic_findings(skill: &str, data: &Value, out: &mut Vec<RiskDraft>) {
    let Some(object) = data.as_object() else {
        return;
    };
    let before = out.len();
    for value in object.values() {
        for item in value.as_array().into_iter().flatten() {
            let Some(level) =
                normalize_level(&str_field(item, &["severity", "risk_level", "level"]))
            else {
                continue;
            };
            let risk_type = match str_field(
                item,
                &["rule", "risk_type", "type", "category", "issue_type"],
            ) {
                t if t.is_empty() => skill.to_string(),
                t => t,
            };
            out.push(draft(
                level,
                &risk_type,
                str_field(
                    item,
                    &["description", "message", "issue", "finding", "title"],
                ),
                &format!("`{skill}` reported a {level} finding"),
                str_field(item, &["analysis", "recommendation", "detail", "reason"]),
                str_field(
                    item,
                    &[
                        "original_text",
                        "evidence",
                        "source_text",
                        "sentence",
                        "text",
                        "quote",
                    ],
                ),
            ));
        }
    }
    if out.len() == before {
        let level = str_field(data, &["risk_level", "severity", "overall_risk"]);
        if let Some(level @ ("high" | "medium")) = normalize_level(&level) {
            out.push(draft(
                level,
                skill,
                str_field(data, &["summary"]),
                &format!("`{skill}` rated the clause {level}"),
                String::new(),
                String::new(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn domain_outputs_are_read_by_shape() {
        let outputs = vec![(
            "spa_indemnity_analysis".to_string(),
            json!({"summary": "1 time bar", "findings": [
                {"severity": "HIGH", "type": "time_bar", "description": "28-day notice", "evidence": "within 28 days"},
                {"severity": "none", "description": "ignored"}
            ]}),
        )];
        let risks = risks_from_outputs(&outputs);
        assert_eq!(risks.len(), 1);
        assert_eq!(
            (risks[0].risk_level.as_str(), risks[0].risk_type.as_str()),
            ("high", "time_bar")
        );
        assert_eq!(risks[0].original_text, "within 28 days");
        assert_eq!(risks[0].source_skill, "spa_indemnity_analysis");
        assert_eq!(risks[0].analysis, "1 time bar");
    }

    #[test]
    fn time_limits_are_described_in_words() {
        let outputs = vec![(
            "fidic_calculate_time_bar".to_string(),
            json!({"summary": "2 limits", "time_limits": [
                {"days": 14, "requirement": "not_later_than", "party": "Contractor",
                 "trigger": "after the Contractor became aware", "consequence": "no extension of time",
                 "is_time_bar": true, "shortened": true, "gc_days": 28, "severity": "high",
                 "sentence": "not later than 14 days after the Contractor became aware"},
                {"days": 42, "requirement": "within", "party": "Engineer", "is_time_bar": false,
                 "shortened": false, "severity": "none", "sentence": "within 42 days"}
            ]}),
        )];
        let risks = risks_from_outputs(&outputs);
        assert_eq!(risks.len(), 1, "limits rated none are not risks");
        assert_eq!(risks[0].risk_type, "time_bar_shortened");
        assert_eq!(
            risks[0].description,
            "Contractor: not later than 14 days (after the Contractor became aware) (General Conditions: 28 days)"
        );
        assert_eq!(
            risks[0].reason,
            "missing it is a time bar: no extension of time"
        );
        assert_eq!(
            risks[0].original_text,
            "not later than 14 days after the Contractor became aware"
        );
    }

    #[test]
    fn top_level_level_and_nothing() {
        let risks = risks_from_outputs(&[(
            "sha_governance_check".into(),
            json!({"risk_level": "medium", "summary": "deadlock"}),
        )]);
        assert_eq!(risks[0].risk_type, "sha_governance_check");
        assert!(risks_from_outputs(&[("x".into(), json!({"risk_level": "low"}))]).is_empty());
        assert!(risks_from_outputs(&[("x".into(), json!([1, 2]))]).is_empty());
    }

    #[test]
    fn delay_damages_need_a_cap() {
        let terms = |cap: bool| {
            json!({"terms": [
                {"category": "delay_damages", "kind": "amount", "is_cap": false, "text": "USD 5,000", "source_text": "s"},
                {"category": "delay_damages", "kind": "percentage", "is_cap": cap, "text": "10%", "source_text": "s"}
            ]})
        };
        let risks = risks_from_outputs(&[("extract_financial_terms".into(), terms(false))]);
        assert_eq!(
            risks[0].description,
            "Delay damages of USD 5,000 have no stated cap"
        );
        assert!(risks_from_outputs(&[("extract_financial_terms".into(), terms(true))]).is_empty());
    }

    #[test]
    fn compare_defers_to_assess() {
        let compare = (
            "compare_with_baseline".to_string(),
            json!({"modification_type": "deleted", "summary": "s"}),
        );
        assert_eq!(
            risks_from_outputs(std::slice::from_ref(&compare))[0].risk_type,
            "clause_deleted"
        );
        let assess = ("assess_deviation".to_string(), json!({"findings": []}));
        assert!(risks_from_outputs(&[compare, assess]).is_empty());
    }
}
