//! `spa_extract_reps_warranties`: the warranties of an agreement and what waters them down:
//! knowledge and materiality qualifiers, disclosure carve-outs.

use toolwright::prelude::*;

use super::common::{scope, sort_findings, Observation, Side};
use crate::review::RiskLevel;
use crate::state::ReviewState;
use crate::text::{excerpt, first_of};

/// One warranty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Warranty {
    /// Clause number of the warranty.
    pub clause_id: String,
    /// `title_and_capacity`, `accounts`, `litigation`, `compliance`, `tax`, `employees`,
    /// `intellectual_property`, `contracts`, `property`, `environment` or `general`.
    pub topic: String,
    /// The warranty, shortened.
    pub text: String,
    /// The knowledge qualifier as written ("so far as the Seller is aware"), if any.
    pub knowledge_qualifier: Option<String>,
    /// The materiality qualifier as written ("in all material respects"), if any.
    pub materiality_qualifier: Option<String>,
    /// The disclosure carve-out as written ("save as Disclosed"), if any.
    pub disclosure_carve_out: Option<String>,
    /// Whether it is a fundamental warranty (title, capacity, authority).
    pub fundamental: bool,
    /// Whether no qualifier applies.
    pub unqualified: bool,
}

/// The warranties of a clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WarrantiesReport {
    /// The clause analysed.
    pub clause_id: String,
    /// Every warranty, in order.
    pub warranties: Vec<Warranty>,
    /// Number of warranties.
    pub warranty_count: usize,
    /// Warranties with a knowledge qualifier.
    pub knowledge_qualified_count: usize,
    /// Warranties with a materiality qualifier.
    pub materiality_qualified_count: usize,
    /// Warranties with a disclosure carve-out.
    pub disclosure_qualified_count: usize,
    /// Warranties without any qualifier.
    pub unqualified_count: usize,
    /// Qualifiers that apply to every warranty (a general "save as Disclosed", data-room disclosure).
    pub general_qualifiers: Vec<String>,
    /// Whose actual knowledge counts ("actual knowledge of Jane Hart ..."), when defined.
    pub knowledge_definition: Option<String>,
    /// Observations, most serious first; `high` for qualified fundamental warranties and
    /// general disclosure of a data room (for the Buyer).
    pub findings: Vec<Observation>,
    /// One paragraph for the reader.
    pub summary: String,
}

const KNOWLEDGE: &[&str] = &[
    "so far as the seller is aware",
    "so far as the vendor is aware",
    "so far as the warrantors are aware",
    "to the best of the seller's knowledge",
    "to the seller's knowledge",
    "to the best of its knowledge",
    "to the best of the knowledge",
    "so far as it is aware",
    "据卖方所知",
    "就卖方所知",
    "据其所知",
];
const MATERIALITY: &[&str] = &[
    "in all material respects",
    "material adverse",
    "materially",
    "material to",
    "重大方面",
    "重大",
];
const DISCLOSURE: &[&str] = &[
    "save as disclosed",
    "except as disclosed",
    "other than as disclosed",
    "save as fairly disclosed",
    "disclosure letter",
    "已披露",
    "披露函",
    "除已披露",
];
const GENERAL_DISCLOSURE: &[&str] = &[
    "deemed to be disclosed",
    "deemed disclosed",
    "data room",
    "视为已披露",
    "数据室",
];

/// Extract the warranties of an agreement with their knowledge, materiality and disclosure qualifiers.
///
/// For each warranty: topic, whether it is fundamental (title, capacity, authority), the
/// knowledge qualifier ("so far as the Seller is aware"), the materiality qualifier ("in all
/// material respects"), the disclosure carve-out ("save as Disclosed"), and counts of each;
/// general qualifiers (a general disclosure of the data room) and whose knowledge counts.
/// Pass the warranties clause, or "*" for the whole agreement.
#[skill(
    id = "spa_extract_reps_warranties",
    domain = "sha_spa",
    category = "analysis"
)]
pub fn spa_extract_reps_warranties(
    /// Clause number of the warranties, e.g. "7" or "7.4" (the whole top-level clause is
    /// read), or "*" for the whole agreement; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<WarrantiesReport, SkillError> {
    let lookup = crate::index::lookup_for(&review.0);
    let scope = scope(&lookup, "spa_extract_reps_warranties", &clause_id)?;
    let side = Side::of(&review.our_party);
    let clauses: Vec<(String, String)> = scope
        .clauses
        .iter()
        .map(|c| (c.clause_id.clone(), c.text.clone()))
        .collect();
    let (warranties, general_qualifiers, knowledge_definition) = read_clauses(&clauses);
    let mut findings = Vec::new();
    for w in &warranties {
        warranty_findings(side, w, &mut findings);
    }
    qualifier_findings(
        side,
        &scope.clause_id,
        &warranties,
        &general_qualifiers,
        knowledge_definition.is_some(),
        &mut findings,
    );
    sort_findings(&mut findings);
    let count = |f: fn(&Warranty) -> bool| warranties.iter().filter(|w| f(w)).count();
    let mut report = WarrantiesReport {
        clause_id: scope.clause_id,
        warranty_count: warranties.len(),
        knowledge_qualified_count: count(|w| w.knowledge_qualifier.is_some()),
        materiality_qualified_count: count(|w| w.materiality_qualifier.is_some()),
        disclosure_qualified_count: count(|w| w.disclosure_carve_out.is_some()),
        unqualified_count: count(|w| w.unqualified),
        warranties,
        general_qualifiers,
        knowledge_definition,
        findings,
        summary: String::new(),
    };
    report.summary = summarize(&report);
    Ok(report)
}

/// Reads each clause as a knowledge definition, a general qualifier or a warranty: the
/// warranties, the general qualifiers and the knowledge definition, in that order.
fn read_clauses(clauses: &[(String, String)]) -> (Vec<Warranty>, Vec<String>, Option<String>) {
    let mut warranties = Vec::new();
    let mut general_qualifiers = Vec::new();
    let mut knowledge_definition = None;
    for (id, text) in clauses.iter().filter(|(_, t)| !t.trim().is_empty()) {
        let lower = text.to_lowercase();
        if lower.contains("awareness")
            || lower.contains("knowledge of")
            || lower.contains("所知是指")
        {
            knowledge_definition = Some(excerpt(text, 200));
            continue;
        }
        if first_of(&lower, GENERAL_DISCLOSURE).is_some() {
            general_qualifiers.push(excerpt(text, 200));
            continue;
        }
        let is_umbrella = lower.contains("each of the warranties")
            || lower.contains("the warranties are")
            || lower.contains("每项保证");
        if is_umbrella {
            if let Some(q) = first_of(&lower, DISCLOSURE) {
                general_qualifiers.push(format!(
                    "{q} (applies to every Warranty): {}",
                    excerpt(text, 160)
                ));
            }
            continue;
        }
        if !is_warranty(&lower) {
            continue;
        }
        warranties.push(warranty(id, text, &lower));
    }
    (warranties, general_qualifiers, knowledge_definition)
}

/// A warranty clause with its topic and the qualifiers written into it.
fn warranty(id: &str, text: &str, lower: &str) -> Warranty {
    let knowledge = first_of(lower, KNOWLEDGE).map(str::to_string);
    let materiality = first_of(lower, MATERIALITY).map(str::to_string);
    let disclosure = first_of(lower, DISCLOSURE).map(str::to_string);
    let topic = topic(lower);
    Warranty {
        clause_id: id.to_string(),
        fundamental: topic == "title_and_capacity",
        topic: topic.into(),
        text: excerpt(text, 240),
        unqualified: knowledge.is_none() && materiality.is_none() && disclosure.is_none(),
        knowledge_qualifier: knowledge,
        materiality_qualifier: materiality,
        disclosure_carve_out: disclosure,
    }
}

/// Findings on one warranty: a qualified fundamental warranty or a knowledge qualifier
/// weakens it for the buyer; an unqualified one exposes the seller.
fn warranty_findings(side: Side, w: &Warranty, findings: &mut Vec<Observation>) {
    let buyer_view = side != Side::Seller;
    if w.fundamental && !w.unqualified && buyer_view {
        findings.push(Observation::new(
            "fundamental_warranty_qualified",
            RiskLevel::High,
            format!("fundamental warranty {} is qualified", w.clause_id),
            Some(&w.clause_id),
        ));
    }
    if let Some(k) = &w.knowledge_qualifier {
        let severity = if buyer_view {
            RiskLevel::Medium
        } else {
            RiskLevel::Low
        };
        findings.push(Observation::new(
            "knowledge_qualifier",
            severity,
            format!(
                "warranty {} ({}) only covers what the Seller knows: \"{k}\"",
                w.clause_id, w.topic
            ),
            Some(&w.clause_id),
        ));
    }
    if w.unqualified && side == Side::Seller && !w.fundamental {
        findings.push(Observation::new(
            "unqualified_warranty",
            RiskLevel::Medium,
            format!(
                "warranty {} ({}) is given without knowledge, materiality or disclosure qualifier",
                w.clause_id, w.topic
            ),
            Some(&w.clause_id),
        ));
    }
}

/// Findings on what qualifies every warranty at once: a general disclosure, and knowledge
/// qualifiers with no definition of whose knowledge counts.
fn qualifier_findings(
    side: Side,
    clause: &str,
    warranties: &[Warranty],
    general_qualifiers: &[String],
    knowledge_defined: bool,
    findings: &mut Vec<Observation>,
) {
    let buyer_view = side != Side::Seller;
    for q in general_qualifiers
        .iter()
        .filter(|q| first_of(&q.to_lowercase(), GENERAL_DISCLOSURE).is_some())
    {
        let severity = if buyer_view {
            RiskLevel::High
        } else {
            RiskLevel::Low
        };
        findings.push(Observation::new(
            "general_disclosure",
            severity,
            format!("general disclosure against every warranty: {q}"),
            None,
        ));
    }
    if !knowledge_defined && warranties.iter().any(|w| w.knowledge_qualifier.is_some()) {
        findings.push(Observation::new("knowledge_definition", RiskLevel::Medium, "knowledge qualifiers are used but whose knowledge counts (and after what enquiry) is not defined", Some(clause)));
    }
}

/// The one-paragraph summary of the warranties and their qualifiers, for the reader.
fn summarize(report: &WarrantiesReport) -> String {
    let WarrantiesReport {
        knowledge_qualified_count,
        materiality_qualified_count,
        disclosure_qualified_count,
        unqualified_count,
        ..
    } = report;
    if report.warranties.is_empty() {
        format!("Clause {} gives no warranties.", report.clause_id)
    } else {
        format!(
            "Clause {}: {} warranties; {knowledge_qualified_count} knowledge-qualified, {materiality_qualified_count} materiality-qualified, {disclosure_qualified_count} with a disclosure carve-out, {unqualified_count} unqualified; {} general qualifier(s); {} high finding(s).",
            report.clause_id,
            report.warranties.len(),
            report.general_qualifiers.len(),
            report.findings.iter().filter(|f| f.severity == RiskLevel::High).count()
        )
    }
}

/// A statement of fact about the target or the seller (not a covenant or a definition).
fn is_warranty(lower: &str) -> bool {
    let statement = [
        " is ",
        " are ",
        " has ",
        " have ",
        " owns ",
        " give ",
        " been ",
        "no ",
        "保证",
        "声明",
        "不存在",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let covenant_or_definition = [" shall ", " means ", " must ", "indemnif", " agrees "]
        .iter()
        .any(|w| lower.contains(w));
    statement && !covenant_or_definition
}

fn topic(lower: &str) -> &'static str {
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&[
        "owner of the shares",
        "title to the shares",
        "power and authority",
        "capacity",
        "legal and beneficial owner",
        "股权权属",
        "合法持有",
    ]) {
        "title_and_capacity"
    } else if has(&["accounts", "financial statements", "财务报表"]) {
        "accounts"
    } else if has(&["tax", "税"]) {
        "tax"
    } else if has(&["litigation", "arbitration", "proceedings", "诉讼", "仲裁"]) {
        "litigation"
    } else if has(&["intellectual property", "知识产权"]) {
        "intellectual_property"
    } else if has(&["employee", "pension", "员工"]) {
        "employees"
    } else if has(&["environment", "contamination", "环境"]) {
        "environment"
    } else if has(&["complied", "compliance", "laws", "合规", "法律"]) {
        "compliance"
    } else if has(&["contract", "agreement", "合同"]) {
        "contracts"
    } else if has(&["property", "premises", "不动产"]) {
        "property"
    } else {
        "general"
    }
}
