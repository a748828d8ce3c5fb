//! How skill outputs become risks in the offline (checklist) review.
//!
//! Every rule is registered by the skill's marker (`S::ID`, `S::Output`) and reads the
//! output as that type (`Rated`), so renaming a skill or a field the rules read is a
//! compile error rather than a rule that silently stops firing. Skills from outside this
//! library are read by shape (the last row).
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
//! | `fidic_check_pc_consistency` | every conflict | the skill id | the conflict's severity |
//! | `fidic_merge_gc_pc` | the merged clause rated high or medium | the skill id | that level |
//! | `spa_extract_conditions`, `spa_extract_reps_warranties`, `spa_indemnity_analysis`, `sha_governance_check` | every finding | the skill id | the finding's severity |
//! | any other skill (outside this library) | each object in a top-level array with `severity` or `risk_level` of high/medium/low; else a top-level `risk_level`/`severity` of high/medium | the item's `rule`/`risk_type`/`type`/`category`, else the skill id | that level |
//!
//! `get_clause_context`, `search_reference_doc`, `load_review_criteria` and `fidic_search_er`
//! give context only.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use toolwright::Skill;

use super::kinds::Provision;
use crate::fidic::check_pc_consistency::{ConsistencyReport, FidicCheckPcConsistency};
use crate::fidic::merge_gc_pc::{FidicMergeGcPc, MergedClause};
use crate::fidic::search_er::FidicSearchEr;
use crate::fidic::time_bar::{FidicCalculateTimeBar, TimeBarReport};
use crate::generic::assess_deviation::{AssessDeviation, DeviationAssessment};
use crate::generic::compare_with_baseline::{
    BaselineComparison, CompareWithBaseline, ModificationType,
};
use crate::generic::cross_reference_check::{
    CrossReferenceCheck, CrossReferenceReport, ReferenceStatus,
};
use crate::generic::extract_financial_terms::{ExtractFinancialTerms, FinancialTerms};
use crate::generic::get_clause_context::GetClauseContext;
use crate::generic::load_review_criteria::LoadReviewCriteria;
use crate::generic::resolve_definition::{DefinitionResolution, ResolveDefinition};
use crate::generic::search_reference_doc::SearchReferenceDoc;
use crate::review::types::{Finding, RiskKind, RiskLevel, Subject, DOCUMENT_ANCHOR};
use crate::sha_spa::common::Observation;
use crate::sha_spa::extract_conditions::{ConditionsReport, SpaExtractConditions};
use crate::sha_spa::extract_reps_warranties::{SpaExtractRepsWarranties, WarrantiesReport};
use crate::sha_spa::governance_check::{GovernanceReport, ShaGovernanceCheck};
use crate::sha_spa::indemnity_analysis::{IndemnityReport, SpaIndemnityAnalysis};

/// How an `undefined_term` risk starts; the terms follow, separated by `, ` (per clause) or
/// `; ` with their clauses (the document-level finding). Written for readers only: the terms
/// travel as [`Subject::UndefinedTerms`].
pub const UNDEFINED_TERMS_PREFIX: &str = "Terms used but never defined: ";

/// A library skill's output the review reads risks from. Each rule is registered in
/// [`RULES`] by the skill's marker, so the skill's id and output type come from the skill:
/// renaming the skill or its output type cannot detach its rule.
pub(crate) trait Rated: DeserializeOwned {
    /// The risks this output gives; `skill` is the id of the skill that produced it.
    fn risks(&self, skill: &str, out: &mut Vec<Finding>);
}

/// How one registered skill's output becomes risks.
struct Rule {
    /// The skill's id (`S::ID`).
    id: &'static str,
    /// Reads the output as `S::Output` and applies its rule; `Err` says why the output could
    /// not be read.
    apply: fn(&RawValue, &mut Vec<Finding>) -> Result<(), String>,
}

/// The rule of skill `S`, whose output says what it means.
const fn rule<S: Skill>() -> Rule
where
    S::Output: Rated,
{
    Rule {
        id: S::ID,
        apply: apply::<S>,
    }
}

/// Skill `S` gives context only: its output makes no risk.
const fn context<S: Skill>() -> Rule {
    Rule {
        id: S::ID,
        apply: |_, _| Ok(()),
    }
}

fn apply<S: Skill>(data: &RawValue, out: &mut Vec<Finding>) -> Result<(), String>
where
    S::Output: Rated,
{
    typed(S::ID, data, out, |output: &S::Output, out| {
        output.risks(S::ID, out)
    })
}

/// Every library skill, by marker.
static RULES: [Rule; 16] = [
    rule::<AssessDeviation>(),
    rule::<CompareWithBaseline>(),
    rule::<CrossReferenceCheck>(),
    rule::<ExtractFinancialTerms>(),
    rule::<ResolveDefinition>(),
    rule::<FidicCalculateTimeBar>(),
    rule::<FidicCheckPcConsistency>(),
    rule::<FidicMergeGcPc>(),
    rule::<SpaExtractConditions>(),
    rule::<SpaExtractRepsWarranties>(),
    rule::<SpaIndemnityAnalysis>(),
    rule::<ShaGovernanceCheck>(),
    context::<GetClauseContext>(),
    context::<SearchReferenceDoc>(),
    context::<LoadReviewCriteria>(),
    context::<FidicSearchEr>(),
];

/// The error code of a skill run whose output the rules could not read
/// ([`UnreadableOutput`]): the run counts as a failure in the report.
pub const UNREADABLE_OUTPUT: &str = "unreadable_output";

/// A skill output the rules could not read. It gives no risks, and the review says so on
/// the skill's run ([`UNREADABLE_OUTPUT`]) rather than dropping it unseen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableOutput {
    /// The skill that produced it.
    pub skill: String,
    /// Why it could not be read (the reader's error).
    pub reason: String,
}

/// What the rules read from one clause's skill outputs.
#[derive(Debug, Clone, Default)]
pub struct RuleReading {
    /// The risks found.
    pub findings: Vec<Finding>,
    /// The outputs that could not be read, in input order.
    pub unreadable: Vec<UnreadableOutput>,
}

/// The risks of [`read_outputs`] alone, for callers that report unreadable outputs
/// elsewhere or not at all.
pub fn risks_from_outputs(outputs: &[(String, Box<RawValue>)]) -> Vec<Finding> {
    read_outputs(outputs).findings
}

/// Applies the rules to the outputs of one clause's skills (`(skill_id, output JSON)` pairs,
/// as [`toolwright::SkillResult::data`] carries them). Library skills' outputs are read
/// straight from the text into their own types; one that does not read as its type is
/// returned in [`RuleReading::unreadable`].
pub fn read_outputs(outputs: &[(String, Box<RawValue>)]) -> RuleReading {
    let ran = |id: &str| outputs.iter().any(|(s, _)| s == id);
    let mut out = Vec::new();
    let mut unreadable = Vec::new();
    for (skill, data) in outputs {
        let before = out.len();
        // The deviation assessment includes the comparison: one report of the change.
        if skill == CompareWithBaseline::ID && ran(AssessDeviation::ID) {
            continue;
        }
        let read = match RULES.iter().find(|r| r.id == skill) {
            Some(rule) => (rule.apply)(data, &mut out),
            None => match serde_json::from_str::<Value>(data.get()) {
                Ok(value) => {
                    generic_findings(skill, &value, &mut out);
                    Ok(())
                }
                Err(err) => {
                    tracing::warn!(skill, error = %err, "skill output is not JSON");
                    Err(format!("the output is not JSON: {err}"))
                }
            },
        };
        if let Err(reason) = read {
            unreadable.push(UnreadableOutput {
                skill: skill.clone(),
                reason,
            });
        }
        if out.len() == before {
            continue;
        }
        let summary = output_summary(data).unwrap_or_default();
        for draft in &mut out[before..] {
            draft.source_skill = skill.clone();
            if draft.analysis.is_empty() {
                draft.analysis = summary.to_string();
            }
        }
    }
    RuleReading {
        findings: out,
        unreadable,
    }
}

impl Rated for DeviationAssessment {
    fn risks(&self, _: &str, out: &mut Vec<Finding>) {
        assess_deviation(self, out)
    }
}

impl Rated for BaselineComparison {
    fn risks(&self, _: &str, out: &mut Vec<Finding>) {
        compare_with_baseline(self, out)
    }
}

impl Rated for CrossReferenceReport {
    fn risks(&self, _: &str, out: &mut Vec<Finding>) {
        cross_reference_check(self, out)
    }
}

impl Rated for FinancialTerms {
    fn risks(&self, _: &str, out: &mut Vec<Finding>) {
        extract_financial_terms(self, out)
    }
}

impl Rated for DefinitionResolution {
    fn risks(&self, _: &str, out: &mut Vec<Finding>) {
        resolve_definition(self, out)
    }
}

impl Rated for TimeBarReport {
    fn risks(&self, _: &str, out: &mut Vec<Finding>) {
        time_limits(self, out)
    }
}

impl Rated for ConsistencyReport {
    fn risks(&self, skill: &str, out: &mut Vec<Finding>) {
        pc_conflicts(skill, self, out)
    }
}

impl Rated for MergedClause {
    fn risks(&self, skill: &str, out: &mut Vec<Finding>) {
        rated_clause(skill, self.severity, &self.summary, out)
    }
}

impl Rated for ConditionsReport {
    fn risks(&self, skill: &str, out: &mut Vec<Finding>) {
        findings(skill, &self.findings, out)
    }
}

impl Rated for WarrantiesReport {
    fn risks(&self, skill: &str, out: &mut Vec<Finding>) {
        findings(skill, &self.findings, out)
    }
}

impl Rated for IndemnityReport {
    fn risks(&self, skill: &str, out: &mut Vec<Finding>) {
        findings(skill, &self.findings, out)
    }
}

impl Rated for GovernanceReport {
    fn risks(&self, skill: &str, out: &mut Vec<Finding>) {
        let before = out.len();
        findings(skill, &self.findings, out);
        // The check reads the whole agreement: a finding without a clause is about the
        // agreement, one with a clause belongs there, whichever clause is reviewed.
        for (draft, finding) in out[before..].iter_mut().zip(&self.findings) {
            draft.anchor = Some(
                finding
                    .clause_id
                    .clone()
                    .unwrap_or_else(|| DOCUMENT_ANCHOR.to_string()),
            );
            // A term the check found missing is an absence the provision scan may disprove.
            if finding.clause_id.is_none() && self.missing.contains(&finding.topic) {
                if let Some(provision) = Provision::from_name(&finding.topic) {
                    draft.subject = Subject::Absence(provision.into());
                }
            }
        }
    }
}

/// The string `summary` of a skill output, the convention every skill follows; `None` when
/// the output is not an object or has no string summary. Read without building the output.
pub(crate) fn output_summary(data: &RawValue) -> Option<Cow<'_, str>> {
    #[derive(Deserialize)]
    struct Summary<'a> {
        #[serde(borrow, default)]
        summary: Option<Cow<'a, str>>,
    }
    if !data.get().trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str::<Summary<'_>>(data.get())
        .ok()
        .and_then(|s| s.summary)
}

/// Reads `data` as the output type of `skill` and applies `rule` to it. An output that does
/// not read as its own skill's type is a bug in that skill: it gives no risks, is logged,
/// and the error says why, for the review to report on the skill's run.
fn typed<T: DeserializeOwned>(
    skill: &str,
    data: &RawValue,
    out: &mut Vec<Finding>,
    rule: impl FnOnce(&T, &mut Vec<Finding>),
) -> Result<(), String> {
    let output = serde_json::from_str::<T>(data.get()).map_err(|err| {
        tracing::warn!(
            skill,
            error = %err,
            "skill output does not read as the skill's output type; no risks taken from it"
        );
        format!("the output does not read as the skill's output type: {err}")
    })?;
    rule(&output, out);
    Ok(())
}

fn draft(
    level: RiskLevel,
    kind: RiskKind,
    description: String,
    reason: &str,
    analysis: String,
    quote: String,
) -> Finding {
    Finding {
        reason: reason.to_string(),
        analysis,
        quote,
        ..Finding::new(kind, level, description)
    }
}

/// The text of an optional field, empty when absent.
fn text(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("")
}

/// Time limits found by `fidic_calculate_time_bar`, described in words.
fn time_limits(report: &TimeBarReport, out: &mut Vec<Finding>) {
    for limit in &report.time_limits {
        let level = limit.severity;
        let days = limit.days;
        let party = text(&limit.party);
        let trigger = text(&limit.trigger);
        let mut description = match party.is_empty() {
            true => String::new(),
            false => format!("{party}: "),
        };
        description.push_str(&format!(
            "{} {days} days",
            limit.requirement.replace('_', " ")
        ));
        if !trigger.is_empty() {
            description.push_str(&format!(" ({trigger})"));
        }
        if let Some(gc) = limit.gc_days.filter(|gc| *gc != days) {
            description.push_str(&format!(" (General Conditions: {gc} days)"));
        } else if let Some(std_days) = limit.standard_days.filter(|s| *s != days) {
            let step = text(&limit.standard_step);
            description.push_str(&format!(" (usual period for {step}: {std_days} days)"));
        }
        let consequence = text(&limit.consequence);
        let is_bar = limit.is_time_bar;
        let kind = match (limit.shortened, is_bar) {
            (true, _) => RiskKind::TimeBarShortened,
            (false, true) => RiskKind::TimeBar,
            (false, false) => RiskKind::TimeLimit,
        };
        let reason = match (is_bar, consequence.is_empty()) {
            (true, false) => format!("missing it is a time bar: {consequence}"),
            (true, true) => "missing it is a time bar".to_string(),
            (false, false) => format!("consequence: {consequence}"),
            (false, true) => format!("`fidic_calculate_time_bar` rated the limit {level}"),
        };
        out.push(draft(
            level,
            kind,
            description,
            &reason,
            String::new(),
            limit.sentence.clone(),
        ));
    }
}

fn assess_deviation(report: &DeviationAssessment, out: &mut Vec<Finding>) {
    for finding in &report.findings {
        let Some(level) = RiskLevel::parse_lenient(&finding.severity) else {
            continue;
        };
        let rule = &finding.rule;
        out.push(draft(
            level,
            RiskKind::from_name(rule),
            finding.description.clone(),
            &format!("assess_deviation rule `{rule}` fired"),
            format!("{} Evidence: {}", report.summary, finding.evidence),
            finding.evidence.clone(),
        ));
    }
}

fn compare_with_baseline(report: &BaselineComparison, out: &mut Vec<Finding>) {
    let changed: Vec<&str> = report.changes.iter().map(|c| c.text.as_str()).collect();
    let evidence = changed.join(" … ");
    let (level, kind, reason) = match report.modification_type {
        ModificationType::Deleted => (
            RiskLevel::High,
            RiskKind::ClauseDeleted,
            "the standard-form clause was deleted",
        ),
        ModificationType::Added => (
            RiskLevel::Medium,
            RiskKind::ClauseAdded,
            "the clause is not in the standard form",
        ),
        ModificationType::Modified if report.similarity < 0.5 => (
            RiskLevel::Medium,
            RiskKind::BaselineDeviation,
            "less than half of the standard-form wording remains",
        ),
        _ => return,
    };
    out.push(draft(
        level,
        kind,
        report.summary.clone(),
        reason,
        String::new(),
        evidence,
    ));
}

fn cross_reference_check(report: &CrossReferenceReport, out: &mut Vec<Finding>) {
    let with_status = |status: ReferenceStatus| -> Vec<&str> {
        report
            .references
            .iter()
            .filter(|r| r.status == status)
            .map(|r| r.reference_text.as_str())
            .collect()
    };
    let broken = with_status(ReferenceStatus::Broken);
    if !broken.is_empty() {
        out.push(draft(
            RiskLevel::Medium,
            RiskKind::BrokenCrossReference,
            format!(
                "References to clauses that do not exist: {}",
                broken.join(", ")
            ),
            "a reference to a missing clause leaves the obligation it imports undefined",
            String::new(),
            broken.join(", "),
        ));
    }
    let deleted = with_status(ReferenceStatus::Deleted);
    if !deleted.is_empty() {
        out.push(draft(
            RiskLevel::Medium,
            RiskKind::ReferenceToDeletedClause,
            format!("References to deleted clauses: {}", deleted.join(", ")),
            "the clause relies on a clause the contract deleted",
            String::new(),
            deleted.join(", "),
        ));
    }
}

fn extract_financial_terms(report: &FinancialTerms, out: &mut Vec<Finding>) {
    let source_of = |category: &str| -> String {
        report
            .terms
            .iter()
            .find(|t| t.category == category)
            .map(|t| t.source_text.clone())
            .unwrap_or_default()
    };
    let mut delay = report
        .terms
        .iter()
        .filter(|t| t.category == "delay_damages");
    let rate = delay.clone().find(|t| !t.is_cap);
    if let (Some(rate), false) = (rate, delay.any(|t| t.is_cap)) {
        out.push(draft(
            RiskLevel::High,
            RiskKind::UncappedDelayDamages,
            format!("Delay damages of {} have no stated cap", rate.text),
            "delay damages without a maximum amount expose the paying party to unlimited liability",
            String::new(),
            source_of("delay_damages"),
        ));
    }
    if let Some(retention) = report.retention_percent.filter(|r| *r > 10.0) {
        out.push(draft(
            RiskLevel::Medium,
            RiskKind::HighRetention,
            format!("Retention of {retention}% exceeds the usual 5-10%"),
            "retention above 10% ties up working capital",
            String::new(),
            source_of("retention"),
        ));
    }
    if let Some(days) = report.payment_period_days.filter(|d| *d > 56.0) {
        out.push(draft(
            RiskLevel::Medium,
            RiskKind::LongPaymentPeriod,
            format!("Payment period of {days} days exceeds the 56 days of the FIDIC standard form"),
            "a long payment period shifts financing cost to the payee",
            String::new(),
            source_of("payment"),
        ));
    }
}

fn resolve_definition(report: &DefinitionResolution, out: &mut Vec<Finding>) {
    if !report.undefined_terms.is_empty() {
        let mut risk = draft(
            RiskLevel::Low,
            RiskKind::UndefinedTerm,
            format!(
                "{UNDEFINED_TERMS_PREFIX}{}",
                report.undefined_terms.join(", ")
            ),
            "an undefined term written as a defined one is open to interpretation",
            String::new(),
            // The review quotes the clause itself.
            String::new(),
        );
        risk.subject = Subject::UndefinedTerms(report.undefined_terms.clone());
        out.push(risk);
    }
}

/// `fidic_check_pc_consistency`: every conflict is a risk of its own severity.
fn pc_conflicts(skill: &str, report: &ConsistencyReport, out: &mut Vec<Finding>) {
    for conflict in &report.conflicts {
        let level = conflict.severity;
        out.push(draft(
            level,
            RiskKind::of_skill(skill),
            conflict.description.clone(),
            &format!("`{skill}` reported a {level} finding"),
            String::new(),
            conflict.evidence.clone(),
        ));
    }
}

/// The SPA/SHA skills: every finding is a risk of its own severity.
fn findings(skill: &str, findings: &[Observation], out: &mut Vec<Finding>) {
    for finding in findings {
        let level = finding.severity;
        out.push(draft(
            level,
            RiskKind::of_skill(skill),
            finding.message.clone(),
            &format!("`{skill}` reported a {level} finding"),
            String::new(),
            String::new(),
        ));
    }
}

/// A skill's rating of the whole clause: a risk when it is high or medium.
fn rated_clause(skill: &str, level: RiskLevel, summary: &str, out: &mut Vec<Finding>) {
    if level >= RiskLevel::Medium {
        out.push(draft(
            level,
            RiskKind::of_skill(skill),
            summary.to_string(),
            &format!("`{skill}` rated the clause {level}"),
            String::new(),
            String::new(),
        ));
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

/// Skills from outside this library: objects with a `severity`/`risk_level` in any top-level
/// array, else a top-level level of high or medium.
fn generic_findings(skill: &str, data: &Value, out: &mut Vec<Finding>) {
    let Some(object) = data.as_object() else {
        return;
    };
    let before = out.len();
    for value in object.values() {
        for item in value.as_array().into_iter().flatten() {
            let Some(level) =
                RiskLevel::parse_lenient(&str_field(item, &["severity", "risk_level", "level"]))
            else {
                continue;
            };
            let kind = match str_field(
                item,
                &["rule", "risk_type", "type", "category", "issue_type"],
            ) {
                t if t.is_empty() => RiskKind::of_skill(skill),
                t => RiskKind::from_name(&t),
            };
            out.push(draft(
                level,
                kind,
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
        if let Some(level) = RiskLevel::parse_lenient(&level) {
            rated_clause(skill, level, &str_field(data, &["summary"]), out);
        }
    }
}

#[cfg(test)]
mod tests;
