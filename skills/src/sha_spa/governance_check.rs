//! `sha_governance_check`: board composition, reserved matters and vetoes, quorum, deadlock,
//! and drag-along / tag-along rights of a shareholders' agreement.

use std::sync::LazyLock;

use regex::Regex;
use toolwright::prelude::*;

use super::common::{percentages, scope, sort_findings, word_number, Observation, Side};
use crate::document::{Clause, DocumentStructure};
use crate::review::{provisions, RiskLevel};
use crate::state::ReviewState;
use crate::text::{enumerated_items, excerpt, sentences};

/// Who appoints how many directors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BoardSeat {
    /// The appointing party (`Investor`, `Founders`, `Board`).
    pub appointed_by: String,
    /// Number of directors.
    pub seats: u32,
}

/// A matter that needs a particular consent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReservedMatter {
    /// Its label (`a`).
    pub label: String,
    /// The matter, shortened.
    pub text: String,
}

/// A drag-along or tag-along right.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TransferRight {
    /// The shareholding that triggers it, in percent.
    pub threshold_percent: Option<f64>,
    /// Clause it sits in.
    pub clause_id: String,
    /// The wording, shortened.
    pub text: String,
}

/// The governance terms of a shareholders' agreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GovernanceReport {
    /// The clause the request named (or `*`); the whole agreement is read.
    pub clause_id: String,
    /// Maximum or fixed number of directors.
    pub board_size: Option<u32>,
    /// Appointment rights.
    pub board_seats: Vec<BoardSeat>,
    /// Whether the chair has a casting vote.
    pub chair_casting_vote: bool,
    /// The quorum rule as written.
    pub quorum: Option<String>,
    /// The quorum at an adjourned meeting, when it differs.
    pub adjourned_quorum: Option<String>,
    /// Matters reserved to a consent.
    pub reserved_matters: Vec<ReservedMatter>,
    /// Who must consent to reserved matters (holders of a veto).
    pub veto_holders: Vec<String>,
    /// Deadlock mechanisms, in escalation order (`escalation`, `mediation`, `russian_roulette`, ...).
    pub deadlock_mechanisms: Vec<String>,
    /// The drag-along right.
    pub drag_along: Option<TransferRight>,
    /// The tag-along right.
    pub tag_along: Option<TransferRight>,
    /// Governance terms the agreement lacks (`deadlock`, `quorum`, ...).
    pub missing: Vec<String>,
    /// Observations, most serious first; `high` for a drag-along below 75%, a casting vote
    /// with no deadlock mechanism, or a quorum that can be met without a protected director.
    pub findings: Vec<Observation>,
    /// One paragraph for the reader.
    pub summary: String,
}

/// Check the governance terms of a shareholders' agreement: board seats, reserved matters and vetoes, quorum, deadlock, drag-along and tag-along.
///
/// Reads the whole agreement: who appoints how many directors, the chair's casting vote,
/// quorum and adjourned-meeting quorum, the reserved matters and who can veto them, the
/// deadlock mechanisms, drag / tag thresholds; lists missing terms and weighs findings for
/// the party the review acts for (for example a drag-along below 75% against a minority).
#[skill(
    id = "sha_governance_check",
    domain = "sha_spa",
    category = "validation"
)]
pub fn sha_governance_check(
    /// A clause of the agreement to check, e.g. "5" (the whole agreement is read; findings in
    /// this clause come first), or "*"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<GovernanceReport, SkillError> {
    let lookup = crate::index::lookup_for(&review.0);
    let requested = scope(&lookup, "sha_governance_check", &clause_id)?;
    let side = Side::of(&review.our_party);
    let doc = &requested.doc;
    let mut report = GovernanceReport {
        clause_id: requested.clause_id.clone(),
        board_size: None,
        board_seats: Vec::new(),
        chair_casting_vote: false,
        quorum: None,
        adjourned_quorum: None,
        reserved_matters: Vec::new(),
        veto_holders: Vec::new(),
        deadlock_mechanisms: Vec::new(),
        drag_along: None,
        tag_along: None,
        missing: Vec::new(),
        findings: Vec::new(),
        summary: String::new(),
    };
    let anchors = read_agreement(doc, &mut report);
    report.missing = missing_terms(&report);
    let mut findings = findings_for(&report, side, &anchors);
    let focus = requested.clause_id.clone();
    let in_focus = |f: &Observation| {
        f.clause_id
            .as_deref()
            .is_some_and(|c| c == focus || c.starts_with(&format!("{focus}.")))
    };
    sort_findings(&mut findings);
    findings.sort_by_key(|f| !in_focus(f));
    report.summary = summarize(&report);
    report.findings = findings;
    Ok(report)
}

/// Where the quorum rule and the reserved matters were found: the findings on them point
/// there.
#[derive(Default)]
struct Anchors {
    quorum_clause: Option<String>,
    reserved_clause: Option<String>,
}

/// Reads the governance terms of every clause into `report`; governance terms are spread
/// over the agreement, so every clause is read whatever was requested.
fn read_agreement(doc: &DocumentStructure, report: &mut GovernanceReport) -> Anchors {
    let mut anchors = Anchors::default();
    for clause in doc.iter_clauses() {
        let lower_clause = clause.text.to_lowercase();
        if report.reserved_matters.is_empty()
            && (lower_clause.contains("reserved matters are")
                || lower_clause.contains("reserved matters:")
                || clause.text.contains("保留事项")
                || provisions::reserves_matters(&lower_clause))
        {
            report.reserved_matters = enumerated_items(&clause.text)
                .into_iter()
                .map(|(label, text)| ReservedMatter {
                    label,
                    text: excerpt(&text, 160),
                })
                .collect();
            anchors.reserved_clause = Some(clause.clause_id.clone());
        }
        for sentence in sentences(&clause.text) {
            let lower = sentence.to_lowercase();
            read_board(report, sentence, &lower);
            if lower.contains("quorum") || sentence.contains("法定人数") {
                if lower.contains("adjourned") {
                    report.adjourned_quorum = report
                        .adjourned_quorum
                        .take()
                        .or(Some(excerpt(sentence, 200)));
                } else if report.quorum.is_none() {
                    report.quorum = Some(excerpt(sentence, 200));
                    anchors.quorum_clause = Some(clause.clause_id.clone());
                }
            }
            read_vetoes_and_deadlock(report, sentence, &lower);
            read_transfer_rights(report, clause, sentence, &lower);
        }
    }
    anchors
}

/// The board terms of a sentence: its size, who appoints how many, the chair's casting vote.
fn read_board(report: &mut GovernanceReport, sentence: &str, lower: &str) {
    if let Some(c) = BOARD_SIZE.captures(lower) {
        report.board_size = report
            .board_size
            .or_else(|| word_number(c.get(1).or(c.get(2)).map_or("", |m| m.as_str())));
    }
    if let Some(c) = APPOINT.captures(sentence) {
        if let Some(seats) = word_number(&c[2].to_lowercase()) {
            report.board_seats.push(BoardSeat {
                appointed_by: c[1].to_string(),
                seats,
            });
        }
    } else if let Some(c) = APPOINTED_BY.captures(sentence) {
        if let Some(seats) = word_number(&c[1].to_lowercase()) {
            report.board_seats.push(BoardSeat {
                appointed_by: c[2].to_string(),
                seats,
            });
        }
    }
    if lower.contains("casting vote") || sentence.contains("决定票") {
        report.chair_casting_vote =
            !lower.contains("no casting vote") && !lower.contains("not have a casting vote");
    }
}

/// Whose consent a sentence requires, and the deadlock mechanisms it names, each once.
fn read_vetoes_and_deadlock(report: &mut GovernanceReport, sentence: &str, lower: &str) {
    if let Some(c) = CONSENT_OF.captures(sentence) {
        let holder = c[1].trim().to_string();
        if !report.veto_holders.contains(&holder) {
            report.veto_holders.push(holder);
        }
    }
    if provisions::names_deadlock(lower) {
        for (cue, name) in DEADLOCK_MECHANISMS {
            if lower.contains(cue) && !report.deadlock_mechanisms.iter().any(|m| m == name) {
                report.deadlock_mechanisms.push(name.to_string());
            }
        }
    }
}

/// The first drag-along and the first tag-along the agreement sets, with their thresholds.
fn read_transfer_rights(
    report: &mut GovernanceReport,
    clause: &Clause,
    sentence: &str,
    lower: &str,
) {
    let right = |s: &str| TransferRight {
        threshold_percent: percentages(s).into_iter().next(),
        clause_id: clause.clause_id.clone(),
        text: excerpt(s, 240),
    };
    if report.drag_along.is_none() && provisions::names_drag_along(lower) {
        report.drag_along = Some(right(sentence));
    }
    if report.tag_along.is_none() && provisions::names_tag_along(lower) {
        report.tag_along = Some(right(sentence));
    }
}

/// The governance terms the agreement lacks, each of which is a finding.
fn missing_terms(report: &GovernanceReport) -> Vec<String> {
    let mut missing = Vec::new();
    for (name, present) in [
        (
            "board_composition",
            !report.board_seats.is_empty() || report.board_size.is_some(),
        ),
        ("quorum", report.quorum.is_some()),
        ("reserved_matters", !report.reserved_matters.is_empty()),
        ("deadlock", !report.deadlock_mechanisms.is_empty()),
        ("drag_along", report.drag_along.is_some()),
        ("tag_along", report.tag_along.is_some()),
    ] {
        if !present {
            missing.push(name.to_string());
        }
    }
    missing
}

/// The findings on the terms read, in the order they are weighed, before sorting.
fn findings_for(report: &GovernanceReport, side: Side, anchors: &Anchors) -> Vec<Observation> {
    let mut findings = Vec::new();
    for m in &report.missing {
        findings.push(Observation::new(
            m,
            RiskLevel::Medium,
            format!("the agreement has no {} provision", m.replace('_', " ")),
            None,
        ));
    }
    transfer_findings(report, side, &mut findings);
    control_findings(report, side, anchors, &mut findings);
    findings
}

/// Findings on the drag-along and tag-along thresholds: a low drag threshold lets a
/// minority be forced out.
fn transfer_findings(report: &GovernanceReport, side: Side, findings: &mut Vec<Observation>) {
    if let Some(drag) = &report.drag_along {
        match drag.threshold_percent {
            Some(p) if p < 75.0 => findings.push(Observation::new(
                "drag_along",
                if side == Side::Buyer || side == Side::Unknown { RiskLevel::High } else { RiskLevel::Medium },
                format!("holders of {p}% can force the others to sell; below the usual 75%, a minority investor can be dragged"),
                Some(&drag.clause_id),
            )),
            None => findings.push(Observation::new("drag_along", RiskLevel::Medium, "drag-along without a stated threshold", Some(&drag.clause_id))),
            _ => {}
        }
    }
    if let Some(tag) = &report.tag_along {
        if tag.threshold_percent.is_some_and(|p| p >= 50.0) {
            findings.push(Observation::new(
                "tag_along",
                RiskLevel::Low,
                "tag-along only on a change of control (more than 50%)",
                Some(&tag.clause_id),
            ));
        }
    }
}

/// Findings on who controls decisions: the casting vote, a quorum without the protected
/// director, a buy-sell deadlock ending, the vetoes over reserved matters.
fn control_findings(
    report: &GovernanceReport,
    side: Side,
    anchors: &Anchors,
    findings: &mut Vec<Observation>,
) {
    if report.chair_casting_vote {
        let severity = if report.deadlock_mechanisms.is_empty() {
            RiskLevel::High
        } else {
            RiskLevel::Medium
        };
        findings.push(Observation::new("casting_vote", severity, "the chair has a casting vote, so the side nominating the chair controls split board votes", None));
    }
    if let (Some(_), Some(adjourned)) = (&report.quorum, &report.adjourned_quorum) {
        if ANY_N.is_match(&adjourned.to_lowercase()) {
            findings.push(Observation::new(
                "quorum",
                if side == Side::Buyer {
                    RiskLevel::High
                } else {
                    RiskLevel::Medium
                },
                format!(
                    "an adjourned meeting is quorate without the protected director: {adjourned}"
                ),
                anchors.quorum_clause.as_deref(),
            ));
        }
    }
    if report
        .deadlock_mechanisms
        .iter()
        .any(|m| m == "russian_roulette" || m == "texas_shoot_out")
    {
        findings.push(Observation::new("deadlock", RiskLevel::Medium, "the deadlock ends in a buy-sell procedure, which favours the better-funded shareholder", None));
    }
    if !report.veto_holders.is_empty() && !report.reserved_matters.is_empty() {
        findings.push(Observation::new(
            "veto",
            if side == Side::Seller {
                RiskLevel::Medium
            } else {
                RiskLevel::Low
            },
            format!(
                "{} reserved matter(s) need the consent of {}",
                report.reserved_matters.len(),
                report.veto_holders.join(", ")
            ),
            anchors.reserved_clause.as_deref(),
        ));
    }
}

/// The one-paragraph summary of the terms read, for the reader.
fn summarize(report: &GovernanceReport) -> String {
    format!(
        "Board: {} seat(s){}{}; quorum: {}; {} reserved matter(s), veto: {}; deadlock: {}; drag-along: {}; tag-along: {}{}.",
        report.board_size.map_or("?".into(), |n| n.to_string()),
        if report.board_seats.is_empty() { String::new() } else { format!(" ({})", report.board_seats.iter().map(|s| format!("{} {}", s.appointed_by, s.seats)).collect::<Vec<_>>().join(", ")) },
        if report.chair_casting_vote { ", chair has a casting vote" } else { "" },
        if report.quorum.is_some() { "set" } else { "none" },
        report.reserved_matters.len(),
        if report.veto_holders.is_empty() { "none".into() } else { report.veto_holders.join(", ") },
        if report.deadlock_mechanisms.is_empty() { "none".into() } else { report.deadlock_mechanisms.join(" -> ") },
        report.drag_along.as_ref().map_or("none".into(), |d| d.threshold_percent.map_or("threshold not stated".into(), |p| format!("{p}%"))),
        report.tag_along.as_ref().map_or("none".into(), |d| d.threshold_percent.map_or("threshold not stated".into(), |p| format!("{p}%"))),
        if report.missing.is_empty() { String::new() } else { format!("; missing: {}", report.missing.join(", ")) }
    )
}

const DEADLOCK_MECHANISMS: &[(&str, &str)] = &[
    ("chief executive", "escalation"),
    ("senior", "escalation"),
    ("mediation", "mediation"),
    ("expert", "expert_determination"),
    ("arbitration", "arbitration"),
    ("russian roulette", "russian_roulette"),
    ("texas shoot", "texas_shoot_out"),
    ("put option", "put_option"),
    ("call option", "call_option"),
    ("winding up", "winding_up"),
    ("协商", "escalation"),
    ("调解", "mediation"),
];

static BOARD_SIZE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"board shall consist of (?:not more than |up to |no more than )?(\w+) directors|董事会由(\w+)名董事组成").unwrap()
});
static APPOINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(Investor|Founders|Founder|Shareholders?|Seller|Buyer|Board)\b[^.]*?entitled to appoint (\w+) directors?").unwrap()
});
static APPOINTED_BY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\w+) (?:independent |non-executive )?directors? shall be appointed by the (Board|Investor|Founders|Shareholders)").unwrap()
});
static CONSENT_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)without the prior (?:written )?(?:consent|approval) of the ([A-Z][\w ]*?)(?:[,.;]|$| and )").unwrap()
});
static ANY_N: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"any (?:two|three|\d+) directors|directors present shall form a quorum").unwrap()
});
