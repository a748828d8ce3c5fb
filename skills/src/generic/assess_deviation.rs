//! `assess_deviation`: how serious a clause's departure from the standard form and the
//! review criteria is, with the rule behind every finding.

use std::cmp::Reverse;

use toolwright::prelude::*;

use super::compare_with_baseline::{compare_texts, BaselineComparison, ModificationType};
use super::extract_financial_terms::analyse_financial_terms;
use super::load_review_criteria::{all_criteria, applicable_criteria};
use crate::document::clause_not_found;
use crate::index::lookup_for;
use crate::review::RiskLevel;
use crate::state::ReviewState;
use crate::text::truncate_chars;

/// One finding and the rule that produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DeviationFinding {
    /// Rule id (see the skill's description): `clause_deleted`, `risk_wording_added`, ...
    pub rule: String,
    /// `high`, `medium` or `low`.
    pub severity: String,
    /// What was found, in one sentence.
    pub description: String,
    /// The words that made the rule fire.
    pub evidence: String,
}

/// The assessment of one clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviationAssessment {
    /// The clause assessed.
    pub clause_id: String,
    /// Highest severity of the findings: `high`, `medium`, `low` or `none`.
    pub severity: String,
    /// `unmodified`, `modified`, `added`, `deleted`, or `no_baseline` when the review has no
    /// standard form.
    pub modification_type: String,
    /// Similarity to the standard form (0.0 to 1.0), when there is one.
    pub similarity: Option<f64>,
    /// Every finding, most serious first.
    pub findings: Vec<DeviationFinding>,
    /// One line the model can read directly.
    pub summary: String,
}

/// Assess how far a clause deviates from the standard form and the review criteria: an
/// overall severity (high / medium / low / none) and findings, each naming the rule that fired.
///
/// Rules: `clause_deleted` (high), `clause_added` (medium), `substantial_rewrite` (high,
/// similarity < 50%), `significant_change` (medium, < 80%), `minor_change` (low),
/// `risk_wording_added` (high: e.g. "fit for purpose", "sole discretion", "waive"),
/// `protection_removed` (high: e.g. "extension of time", "reasonable", "entitled" deleted),
/// `time_period_shortened` (high), `time_period_extended` (low), `percentage_changed`
/// (medium), `criterion_keyword` (the criterion's risk level).
#[skill(id = "assess_deviation", domain = "*", category = "analysis")]
pub fn assess_deviation(
    /// Clause number to assess, for example "17.6"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    /// Standard-form text of the clause; taken from the baseline document when omitted (empty when there is none).
    #[arg(prepare = crate::prepare::baseline_text_if_any)]
    baseline_text: String,
    review: Inject<ReviewState>,
) -> Result<DeviationAssessment, SkillError> {
    let lookup = lookup_for(&review.0);
    let doc = lookup.primary_or_not_found()?;
    let clause = doc.clause(&clause_id);
    if clause.is_none() && baseline_text.trim().is_empty() {
        return Err(clause_not_found(
            None,
            &clause_id,
            std::iter::once(doc.structure),
        ));
    }
    let id = clause.map_or_else(
        || crate::document::normalize_clause_id(&clause_id),
        |c| c.clause_id.clone(),
    );
    let text = clause.and_then(|c| doc.full_text(&c.clause_id));
    let mut findings = Vec::new();
    let has_baseline = review.baseline().is_some() || !baseline_text.trim().is_empty();
    let comparison = has_baseline.then(|| compare_texts(&id, text.as_deref(), &baseline_text));
    if let Some(comparison) = &comparison {
        baseline_rules(comparison, &mut findings);
        if comparison.modification_type == ModificationType::Modified {
            number_rules(text.as_deref().unwrap_or(""), &baseline_text, &mut findings);
        }
    }
    let criteria = all_criteria(&review)?;
    for criterion in applicable_criteria(&criteria, &id, text.as_deref().unwrap_or("")) {
        if criterion.matched_keywords.is_empty() {
            continue;
        }
        findings.push(DeviationFinding {
            rule: "criterion_keyword".into(),
            severity: criterion.risk_level.clone(),
            description: format!(
                "Criterion {} applies: {}",
                criterion.criterion_id, criterion.requirement
            ),
            evidence: criterion.matched_keywords.join(", "),
        });
    }
    findings.sort_by_key(|f| Reverse(RiskLevel::parse_lenient(&f.severity)));
    let severity = findings
        .first()
        .map_or("none".to_string(), |f| f.severity.clone());
    let modification_type = comparison
        .as_ref()
        .map_or("no_baseline", |c| c.modification_type.as_str())
        .to_string();
    let summary = if findings.is_empty() {
        format!("Clause {id}: no deviation found ({modification_type})")
    } else {
        let rules: Vec<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
        format!(
            "Clause {id}: {severity} severity, {} finding(s) ({}); {modification_type}",
            findings.len(),
            rules.join(", ")
        )
    };
    Ok(DeviationAssessment {
        clause_id: id,
        severity,
        modification_type,
        similarity: comparison.as_ref().map(|c| c.similarity),
        findings,
        summary,
    })
}

/// Wording that shifts risk onto the reviewing party when the contract adds it.
const RISK_WORDING: [&str; 18] = [
    "fit for purpose",
    "fitness for purpose",
    "sole discretion",
    "absolute discretion",
    "without limitation",
    "unlimited",
    "waive",
    "at its own cost",
    "at the contractor's cost",
    "irrevocabl",
    "no extension of time",
    "shall not be entitled",
    "consequential loss",
    "time is of the essence",
    "全部责任",
    "无限责任",
    "放弃",
    "自行承担",
];

/// Wording that protects the reviewing party; deleting it removes a protection.
const PROTECTIVE_WORDING: [&str; 15] = [
    "extension of time",
    "reasonable",
    "cost plus profit",
    "entitled",
    "not exceed",
    "limit",
    "force majeure",
    "exceptional event",
    "unforeseeable",
    "notice",
    "工期延长",
    "合理",
    "有权",
    "不可抗力",
    "上限",
];

fn baseline_rules(comparison: &BaselineComparison, findings: &mut Vec<DeviationFinding>) {
    let mut push = |rule: &str, severity: &str, description: String, evidence: String| {
        findings.push(DeviationFinding {
            rule: rule.into(),
            severity: severity.into(),
            description,
            evidence: truncate_chars(&evidence, 200),
        })
    };
    let all = |kind: &str| -> String {
        comparison
            .changes
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>()
            .join(" … ")
    };
    let inserted = all("inserted");
    let deleted = all("deleted");
    match comparison.modification_type {
        ModificationType::Unmodified => return,
        ModificationType::Deleted => {
            push(
                "clause_deleted",
                "high",
                "The standard-form clause was deleted".into(),
                deleted,
            );
            return;
        }
        ModificationType::Added => {
            push(
                "clause_added",
                "medium",
                "The clause is not in the standard form".into(),
                inserted,
            );
            return;
        }
        ModificationType::Modified => {}
    }
    let percent = format!("{:.0}%", comparison.similarity * 100.0);
    if comparison.similarity < 0.5 {
        push(
            "substantial_rewrite",
            "high",
            format!("The clause was largely rewritten (similarity {percent})"),
            inserted.clone(),
        );
    } else if comparison.similarity < 0.8 {
        push(
            "significant_change",
            "medium",
            format!("The clause was significantly changed (similarity {percent})"),
            inserted.clone(),
        );
    } else {
        push(
            "minor_change",
            "low",
            format!("The clause was slightly changed (similarity {percent})"),
            inserted.clone(),
        );
    }
    let inserted_lower = inserted.to_lowercase();
    let deleted_lower = deleted.to_lowercase();
    let added_risk: Vec<&str> = RISK_WORDING
        .iter()
        .copied()
        .filter(|w| inserted_lower.contains(w))
        .collect();
    if !added_risk.is_empty() {
        push(
            "risk_wording_added",
            "high",
            format!("Risk-shifting wording was added: {}", added_risk.join(", ")),
            inserted.clone(),
        );
    }
    let removed: Vec<&str> = PROTECTIVE_WORDING
        .iter()
        .copied()
        .filter(|w| deleted_lower.contains(w) && !inserted_lower.contains(w))
        .collect();
    if !removed.is_empty() {
        push(
            "protection_removed",
            "high",
            format!("Protective wording was removed: {}", removed.join(", ")),
            deleted,
        );
    }
}

fn number_rules(clause_text: &str, baseline_text: &str, findings: &mut Vec<DeviationFinding>) {
    let now = analyse_financial_terms("", clause_text);
    let before = analyse_financial_terms("", baseline_text);
    let values = |terms: &[super::extract_financial_terms::FinancialTerm],
                  kind: &str|
     -> Vec<(f64, String)> {
        terms
            .iter()
            .filter(|t| t.kind == kind)
            .map(|t| (t.value, t.text.clone()))
            .collect()
    };
    for ((old, old_text), (new, new_text)) in values(&before.terms, "period")
        .into_iter()
        .zip(values(&now.terms, "period"))
    {
        if new < old {
            findings.push(DeviationFinding {
                rule: "time_period_shortened".into(),
                severity: "high".into(),
                description: format!("A time period was shortened from {old_text} to {new_text}"),
                evidence: format!("{old_text} -> {new_text}"),
            });
        } else if new > old {
            findings.push(DeviationFinding {
                rule: "time_period_extended".into(),
                severity: "low".into(),
                description: format!("A time period was extended from {old_text} to {new_text}"),
                evidence: format!("{old_text} -> {new_text}"),
            });
        }
    }
    for ((old, old_text), (new, new_text)) in values(&before.terms, "percentage")
        .into_iter()
        .zip(values(&now.terms, "percentage"))
    {
        if (new - old).abs() > f64::EPSILON {
            findings.push(DeviationFinding {
                rule: "percentage_changed".into(),
                severity: "medium".into(),
                description: format!("A percentage was changed from {old_text} to {new_text}"),
                evidence: format!("{old_text} -> {new_text}"),
            });
        }
    }
}
