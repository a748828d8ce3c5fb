//! `spa_extract_conditions`: the conditions precedent of a share purchase, the long-stop date,
//! and who may waive which condition.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use toolwright::prelude::*;

use super::common::{first_date, scope, sort_findings, Observation, Side};
use crate::review::RiskLevel;
use crate::state::ReviewState;
use crate::text::{cited_labels, definitions_in, enumerated_items, excerpt, sentences};

/// One condition precedent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Condition {
    /// Its label in the list (`a`).
    pub label: String,
    /// The condition, shortened.
    pub text: String,
    /// `regulatory`, `shareholder_approval`, `third_party_consent`, `no_material_adverse_change`,
    /// `warranties_true`, `financing` or `other`.
    pub category: String,
    /// Parties that may waive it; empty when nobody may.
    pub waivable_by: Vec<String>,
}

/// A waiver right.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WaiverRight {
    /// Who may waive (`Buyer`), or `none` for a condition that may not be waived.
    pub party: String,
    /// Labels of the conditions concerned; empty for all of them.
    pub conditions: Vec<String>,
    /// The sentence granting or excluding it.
    pub text: String,
}

/// The conditions of a share purchase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConditionsReport {
    /// The clause analysed (top-level clause of the request, or `*`).
    pub clause_id: String,
    /// Every condition, in order.
    pub conditions: Vec<Condition>,
    /// Number of conditions.
    pub condition_count: usize,
    /// The long-stop date, when the agreement gives one (`30 June 2026`).
    pub long_stop_date: Option<String>,
    /// What happens at the long-stop date (`either Party may terminate ...`).
    pub long_stop_consequence: Option<String>,
    /// Waiver rights and exclusions.
    pub waiver_rights: Vec<WaiverRight>,
    /// Labels of conditions nobody may waive.
    pub non_waivable: Vec<String>,
    /// Observations, most serious first; `high` when no long-stop date is set.
    pub findings: Vec<Observation>,
    /// One paragraph for the reader.
    pub summary: String,
}

/// Extract the conditions precedent of a share purchase, its long-stop date and who may waive each condition.
///
/// Lists each condition with its kind (regulatory clearance, shareholder approval, third-party
/// consent, no material adverse change, warranties true at completion, financing), the
/// long-stop date and what happens when it passes, and the waiver rights, with findings such
/// as a missing long-stop date or a MAC walk-away right. Pass the conditions clause, or "*"
/// for the whole agreement.
#[skill(
    id = "spa_extract_conditions",
    domain = "sha_spa",
    category = "analysis"
)]
pub fn spa_extract_conditions(
    /// Clause number of the conditions, e.g. "4" or "4.1" (the whole top-level clause is read),
    /// or "*" for the whole agreement; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<ConditionsReport, SkillError> {
    let lookup = crate::index::lookup_for(&review.0);
    let scope = scope(&lookup, "spa_extract_conditions", &clause_id)?;
    let side = Side::of(&review.our_party);
    let mut conditions = conditions_in(&scope.text);
    let (waiver_rights, non_waivable) = read_waivers(&scope.text, &mut conditions);
    let (long_stop_date, long_stop_consequence) = long_stop(&scope.text, scope.doc);
    let mut findings = Vec::new();
    if !conditions.is_empty() {
        findings.extend(long_stop_finding(
            &scope.clause_id,
            long_stop_date.as_deref(),
            long_stop_consequence.as_deref(),
        ));
        findings.extend(condition_findings(side, &scope.clause_id, &conditions));
        findings.extend(waiver_findings(
            &scope.clause_id,
            &conditions,
            &non_waivable,
        ));
    }
    sort_findings(&mut findings);
    let summary = summarize(
        &scope.clause_id,
        &conditions,
        long_stop_date.as_deref(),
        waiver_rights.len(),
        &findings,
    );
    Ok(ConditionsReport {
        clause_id: scope.clause_id,
        condition_count: conditions.len(),
        conditions,
        long_stop_date,
        long_stop_consequence,
        waiver_rights,
        non_waivable,
        findings,
        summary,
    })
}

/// The listed conditions of `text`, each with its kind; none when the text does not make
/// anything conditional (a list of covenants is no list of conditions).
fn conditions_in(text: &str) -> Vec<Condition> {
    let mut conditions: Vec<Condition> = enumerated_items(text)
        .into_iter()
        .filter(|(_, text)| is_condition_like(text))
        .map(|(label, text)| Condition {
            category: category(&text).into(),
            label,
            text: excerpt(&text, 240),
            waivable_by: Vec::new(),
        })
        .collect();
    if !is_condition_clause(text) {
        conditions.clear();
    }
    conditions
}

/// The waiver sentences of `text`: who may waive which conditions (recorded on each
/// condition) and which conditions nobody may waive.
fn read_waivers(text: &str, conditions: &mut [Condition]) -> (Vec<WaiverRight>, Vec<String>) {
    let mut waiver_rights = Vec::new();
    let mut non_waivable = Vec::new();
    for sentence in sentences(text)
        .into_iter()
        .filter(|s| s.to_lowercase().contains("waive") || s.contains("豁免"))
    {
        let lower = sentence.to_lowercase();
        let labels = cited_labels(sentence);
        if [
            "may not be waived",
            "cannot be waived",
            "shall not be waived",
            "不得豁免",
            "不可豁免",
        ]
        .iter()
        .any(|n| lower.contains(n))
        {
            let targets = if labels.is_empty() {
                conditions.iter().map(|c| c.label.clone()).collect()
            } else {
                labels.clone()
            };
            non_waivable.extend(targets);
            waiver_rights.push(WaiverRight {
                party: "none".into(),
                conditions: labels,
                text: excerpt(sentence, 240),
            });
            continue;
        }
        let Some(party) = waiving_party(sentence) else {
            continue;
        };
        // Sets, so a sentence citing many labels of a long list costs the two lengths, not
        // their product.
        let cited: HashSet<&str> = labels.iter().map(String::as_str).collect();
        for c in conditions
            .iter_mut()
            .filter(|c| cited.is_empty() || cited.contains(c.label.as_str()))
        {
            if !c.waivable_by.contains(&party) {
                c.waivable_by.push(party.clone());
            }
        }
        waiver_rights.push(WaiverRight {
            party,
            conditions: labels,
            text: excerpt(sentence, 240),
        });
    }
    let mandatory: HashSet<String> = non_waivable.iter().cloned().collect();
    for c in conditions
        .iter_mut()
        .filter(|c| mandatory.contains(&c.label))
    {
        c.waivable_by.clear();
    }
    (waiver_rights, non_waivable)
}

/// The finding on the long-stop date: without one, or without a right attached to it, the
/// parties stay bound while the conditions remain unsatisfied.
fn long_stop_finding(
    clause: &str,
    long_stop_date: Option<&str>,
    long_stop_consequence: Option<&str>,
) -> Option<Observation> {
    if long_stop_date.is_none() {
        Some(Observation::new("long_stop_date", RiskLevel::High, "no long-stop date: the conditions could remain unsatisfied indefinitely with no right to walk away", Some(clause)))
    } else if long_stop_consequence.is_none() {
        Some(Observation::new(
            "long_stop_date",
            RiskLevel::Medium,
            "a long-stop date is set but no termination right is attached to it",
            Some(clause),
        ))
    } else {
        None
    }
}

/// Findings on the kinds of condition that let the buyer walk away or delay completion,
/// weighed for the side the review acts for.
fn condition_findings(side: Side, clause: &str, conditions: &[Condition]) -> Vec<Observation> {
    let mut findings = Vec::new();
    for c in conditions {
        let (topic, why, seller_sev) = match c.category.as_str() {
            "no_material_adverse_change" => ("mac_condition", "a no-MAC condition gives the Buyer a walk-away right until completion", RiskLevel::High),
            "warranties_true" => ("warranty_bring_down", "warranties must be repeated true at completion, so a later breach lets the Buyer refuse to complete", RiskLevel::Medium),
            "financing" => ("financing_condition", "completion depends on the Buyer's financing", RiskLevel::High),
            _ => continue,
        };
        let severity = match side {
            Side::Buyer => RiskLevel::Low,
            Side::Seller => seller_sev,
            Side::Unknown => RiskLevel::Medium,
        };
        findings.push(Observation::new(
            topic,
            severity,
            format!("condition ({}): {why}", c.label),
            Some(clause),
        ));
    }
    findings
}

/// Findings on waivers: conditions no waiver right covers, and those nobody may waive.
fn waiver_findings(
    clause: &str,
    conditions: &[Condition],
    non_waivable: &[String],
) -> Vec<Observation> {
    let mandatory: HashSet<String> = non_waivable.iter().cloned().collect();
    let mut findings = Vec::new();
    let unwaivable: Vec<&str> = conditions
        .iter()
        .filter(|c| c.waivable_by.is_empty() && !mandatory.contains(&c.label))
        .map(|c| c.label.as_str())
        .collect();
    if !unwaivable.is_empty() {
        findings.push(Observation::new(
            "waiver",
            RiskLevel::Medium,
            format!(
                "no waiver right covers condition(s) {}",
                unwaivable.join(", ")
            ),
            Some(clause),
        ));
    }
    if !non_waivable.is_empty() {
        findings.push(Observation::new(
            "waiver",
            RiskLevel::Low,
            format!(
                "condition(s) {} may not be waived (mandatory)",
                non_waivable.join(", ")
            ),
            Some(clause),
        ));
    }
    findings
}

/// The one-paragraph summary of the conditions, for the reader, naming the key issue when
/// the most serious finding is high.
fn summarize(
    clause: &str,
    conditions: &[Condition],
    long_stop_date: Option<&str>,
    waiver_count: usize,
    findings: &[Observation],
) -> String {
    if conditions.is_empty() {
        format!("Clause {} sets no conditions precedent.", clause)
    } else {
        format!(
            "Clause {} sets {} condition(s) ({}); long-stop date: {}; {} waiver provision(s){}.",
            clause,
            conditions.len(),
            conditions
                .iter()
                .map(|c| format!("{}: {}", c.label, c.category))
                .collect::<Vec<_>>()
                .join(", "),
            long_stop_date.unwrap_or("none"),
            waiver_count,
            findings
                .first()
                .filter(|f| f.severity == RiskLevel::High)
                .map(|f| format!("; key issue: {}", f.message))
                .unwrap_or_default()
        )
    }
}

fn is_condition_clause(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "conditional on",
        "conditional upon",
        "conditions precedent",
        "condition precedent",
        "subject to the following conditions",
        "先决条件",
        "以下列条件",
    ]
    .iter()
    .any(|c| lower.contains(c))
}

fn is_condition_like(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "having",
        "being",
        "obtained",
        "no ",
        "approv",
        "clear",
        "consent",
        "true",
        "已",
        "取得",
        "批准",
        "未发生",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

fn category(text: &str) -> &'static str {
    let lower = text.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["material adverse", "重大不利"]) {
        "no_material_adverse_change"
    } else if has(&[
        "merger control",
        "antitrust",
        "competition",
        "regulat",
        "clearance",
        "cleared",
        "waiting period",
        "反垄断",
        "经营者集中",
        "审批",
        "备案",
    ]) {
        "regulatory"
    } else if has(&["shareholder", "resolution", "股东会", "股东大会"]) {
        "shareholder_approval"
    } else if has(&["warrant", "保证"]) {
        "warranties_true"
    } else if has(&["financ", "融资"]) {
        "financing"
    } else if has(&["consent", "同意"]) {
        "third_party_consent"
    } else {
        "other"
    }
}

static PARTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(Buyer|Purchaser|Seller|Vendor|Investor|either Party|both Parties|the Parties)\b|(买方|卖方|投资方|双方|任何一方)").unwrap()
});

fn waiving_party(sentence: &str) -> Option<String> {
    let cut = sentence
        .to_ascii_lowercase()
        .find("waive")
        .or_else(|| sentence.find("豁免"))
        .unwrap_or(sentence.len());
    PARTY
        .captures_iter(&sentence[..cut])
        .last()
        .and_then(|c| c.get(1).or(c.get(2)))
        .map(|m| m.as_str().trim_start_matches("the ").to_string())
}

/// The long-stop date (from the clause or the definition of the term) and the sentence
/// saying what happens when it passes.
fn long_stop(
    text: &str,
    doc: &crate::document::DocumentStructure,
) -> (Option<String>, Option<String>) {
    let cues = [
        "long stop date",
        "long-stop date",
        "longstop date",
        "最后截止日",
        "最终截止日",
    ];
    let mut date = None;
    let mut consequence = None;
    for sentence in sentences(text) {
        let lower = sentence.to_lowercase();
        if !cues.iter().any(|c| lower.contains(c)) {
            continue;
        }
        date = date.or_else(|| first_date(sentence));
        if consequence.is_none()
            && ["terminat", "rescind", "lapse", "解除", "终止"]
                .iter()
                .any(|w| lower.contains(w))
        {
            consequence = Some(excerpt(sentence, 240));
        }
    }
    if date.is_none() && (cues.iter().any(|c| text.to_lowercase().contains(c))) {
        date = doc
            .iter_clauses()
            .flat_map(|c| definitions_in(&c.text))
            .find(|(term, _)| cues.contains(&term.to_lowercase().as_str()))
            .and_then(|(_, definition)| first_date(&definition));
    }
    (date, consequence)
}
