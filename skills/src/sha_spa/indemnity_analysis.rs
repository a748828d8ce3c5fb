//! `spa_indemnity_analysis`: the limits on the seller's liability (caps, de minimis, basket,
//! claim periods, exclusions) and the specific indemnities.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use toolwright::prelude::*;

use super::common::{
    amounts, durations_in_months, percentages, scope, sort_findings, Amount, Observation, Scope,
    Side,
};
use crate::document::DocumentStructure;
use crate::review::RiskLevel;
use crate::state::ReviewState;
use crate::text::{definitions_in, excerpt, sentences};

/// A liability cap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cap {
    /// Claims it limits (`all claims`, `title warranties`, `tax claims`).
    pub applies_to: String,
    /// As a percentage of the consideration (computed when given as an amount).
    pub percent_of_consideration: Option<f64>,
    /// As a sum (computed when given as a percentage and the consideration is known).
    pub amount: Option<f64>,
    /// Clause it sits in.
    pub clause_id: String,
    /// The wording.
    pub text: String,
}

/// A de minimis or basket threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Threshold {
    /// The sum, when stated.
    pub amount: Option<Amount>,
    /// The percentage of the consideration, when stated or computable.
    pub percent_of_consideration: Option<f64>,
    /// For a basket: `tipping` (whole amount recoverable once exceeded), `deductible` (only the
    /// excess), or `unspecified`; `individual` for a de minimis.
    pub kind: String,
    /// Clause it sits in.
    pub clause_id: String,
    /// The wording.
    pub text: String,
}

/// A period within which claims must be notified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClaimPeriod {
    /// Length in months.
    pub months: u32,
    /// Claims it applies to (`all claims`, `tax claims`, `claims under Clause 9.1`).
    pub applies_to: String,
    /// Clause it sits in.
    pub clause_id: String,
    /// The wording.
    pub text: String,
}

/// A specific indemnity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SpecificIndemnity {
    /// Clause it sits in.
    pub clause_id: String,
    /// What it covers ("the environmental contamination at the Eastport depot").
    pub subject: String,
}

/// The liability regime of an agreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IndemnityReport {
    /// The clause analysed.
    pub clause_id: String,
    /// The consideration (price), when the agreement defines it.
    pub consideration: Option<f64>,
    /// Liability caps.
    pub caps: Vec<Cap>,
    /// The per-claim threshold.
    pub de_minimis: Option<Threshold>,
    /// The aggregate threshold.
    pub basket: Option<Threshold>,
    /// Claim notification periods.
    pub claim_periods: Vec<ClaimPeriod>,
    /// Specific indemnities.
    pub specific_indemnities: Vec<SpecificIndemnity>,
    /// Matters for which the seller is not liable.
    pub exclusions: Vec<String>,
    /// The clause whose limitations are applied here by reference ("the limitations in
    /// Clause 8 apply"), if any.
    pub limitations_incorporated_from: Option<String>,
    /// Observations, most serious first; `high` for a missing cap (seller), a cap below 10%
    /// or a general claim period under 12 months (buyer), a cap of 100% or more (seller).
    pub findings: Vec<Observation>,
    /// One paragraph for the reader.
    pub summary: String,
}

/// Analyse the seller's liability limits and indemnities: caps, de minimis, basket, claim periods, specific indemnities, exclusions.
///
/// Caps are given as a percentage of the consideration and as a sum; the basket is typed as
/// tipping (whole amount once exceeded) or deductible (only the excess); claim periods are in
/// months per kind of claim. Findings are weighed for the party the review acts for. Pass the
/// limitations or indemnity clause, or "*" to read the whole agreement.
#[skill(
    id = "spa_indemnity_analysis",
    domain = "sha_spa",
    category = "analysis"
)]
pub fn spa_indemnity_analysis(
    /// Clause number of the limitations or indemnities, e.g. "8" (the whole top-level clause
    /// is read), or "*" for the whole agreement; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<IndemnityReport, SkillError> {
    let lookup = crate::index::lookup_for(&review.0);
    let scope = scope(&lookup, "spa_indemnity_analysis", &clause_id)?;
    let side = Side::of(&review.our_party);
    let consideration = consideration_of(scope.doc);
    let clauses = clauses_in_scope(&scope);
    let mut terms = LiabilityTerms::default();
    for (id, text) in &clauses {
        for sentence in sentences(text) {
            terms.read_sentence(id, sentence, consideration);
        }
    }
    let findings = findings_for(side, &terms, &scope.clause_id);
    let summary = summarize(&scope.clause_id, &terms, &findings);
    let LiabilityTerms {
        caps,
        de_minimis,
        basket,
        claim_periods,
        specific_indemnities,
        exclusions,
        limitations_incorporated_from,
    } = terms;
    Ok(IndemnityReport {
        clause_id: scope.clause_id,
        consideration,
        caps,
        de_minimis,
        basket,
        claim_periods,
        specific_indemnities,
        exclusions,
        limitations_incorporated_from,
        findings,
        summary,
    })
}

/// The consideration, from the agreement's definitions: caps and thresholds are weighed as a
/// share of it.
fn consideration_of(doc: &DocumentStructure) -> Option<f64> {
    doc.iter_clauses()
        .flat_map(|c| definitions_in(&c.text))
        .find(|(term, _)| {
            [
                "consideration",
                "purchase price",
                "price",
                "转让价款",
                "交易对价",
            ]
            .contains(&term.to_lowercase().as_str())
        })
        .and_then(|(_, d)| amounts(&d).into_iter().next())
        .map(|a| a.value)
}

/// The clauses read: the requested top-level clause with its sub-clauses, or every clause
/// for `*`.
fn clauses_in_scope(scope: &Scope) -> Vec<(String, String)> {
    scope
        .doc
        .iter_clauses()
        .filter(|c| {
            scope.clause_id == "*"
                || c.clause_id == scope.clause_id
                || c.clause_id.starts_with(&format!("{}.", scope.clause_id))
        })
        .map(|c| (c.clause_id.clone(), c.text.clone()))
        .collect()
}

/// The liability terms gathered sentence by sentence, before they are weighed.
#[derive(Default)]
struct LiabilityTerms {
    caps: Vec<Cap>,
    de_minimis: Option<Threshold>,
    basket: Option<Threshold>,
    claim_periods: Vec<ClaimPeriod>,
    specific_indemnities: Vec<SpecificIndemnity>,
    exclusions: Vec<String>,
    limitations_incorporated_from: Option<String>,
}

impl LiabilityTerms {
    /// Reads one sentence of clause `id`: a sentence can set a limit, a claim period, an
    /// incorporation, an indemnity and exclusions all at once.
    fn read_sentence(&mut self, id: &str, sentence: &str, consideration: Option<f64>) {
        let lower = sentence.to_lowercase();
        self.read_limit(id, sentence, &lower, consideration);
        if (lower.contains("notice") || lower.contains("notified") || lower.contains("索赔"))
            && (lower.contains("within") || lower.contains("内"))
        {
            self.read_claim_periods(id, sentence);
        }
        if let Some(c) = INCORPORATED.captures(sentence) {
            self.limitations_incorporated_from = self
                .limitations_incorporated_from
                .take()
                .or(c.get(1).or(c.get(2)).map(|m| m.as_str().to_string()));
        }
        if let Some(c) = INDEMNIFY.captures(sentence) {
            self.specific_indemnities.push(SpecificIndemnity {
                clause_id: id.to_string(),
                subject: c[1].trim().trim_end_matches('.').to_string(),
            });
        }
        self.read_exclusions(sentence);
    }

    /// Reads the sentence as a de minimis, a basket or caps, in that order: their wordings
    /// overlap ("aggregate", "not exceed"), so the first that fits is the one it sets.
    fn read_limit(&mut self, id: &str, sentence: &str, lower: &str, consideration: Option<f64>) {
        let has_sum = !amounts(sentence).is_empty() || !percentages(sentence).is_empty();
        if (lower.contains("de minimis")
            || lower.contains("individual claim")
            || lower.contains("单项"))
            && has_sum
        {
            self.de_minimis = self.de_minimis.take().or(Some(threshold(
                sentence,
                id,
                "individual",
                consideration,
            )));
        } else if (lower.contains("aggregate amount of all claims")
            || lower.contains("basket")
            || lower.contains("累计"))
            && has_sum
            && !lower.contains("not exceed")
        {
            let kind = basket_kind(lower);
            self.basket = self
                .basket
                .take()
                .or(Some(threshold(sentence, id, kind, consideration)));
        } else if [
            "shall not exceed",
            "not exceed",
            "aggregate liability",
            "maximum liability",
            "不超过",
            "上限",
        ]
        .iter()
        .any(|w| lower.contains(w))
            && (lower.contains("liab") || lower.contains("赔偿") || lower.contains("责任"))
        {
            self.read_caps(id, sentence, consideration);
        }
    }

    /// One cap per part of a cap sentence that limits ("not exceed"): a carve-out ("save
    /// that", "but") sets a different cap for other claims.
    fn read_caps(&mut self, id: &str, sentence: &str, consideration: Option<f64>) {
        for part in SAVE_THAT
            .split(sentence)
            .filter(|p| p.contains("exceed") || p.contains("不超过"))
        {
            let percent = percentages(part).into_iter().next();
            let amount = amounts(part).into_iter().next().map(|a| a.value);
            self.caps.push(Cap {
                applies_to: applies_to(&part.to_lowercase()),
                percent_of_consideration: percent.or_else(|| pct(amount, consideration)),
                amount: amount.or_else(|| {
                    percent
                        .zip(consideration)
                        .map(|(p, c)| (p * c / 100.0).round())
                }),
                clause_id: id.to_string(),
                text: excerpt(part, 240),
            });
        }
    }

    /// The claim periods of a notice sentence, each with the claims it applies to.
    fn read_claim_periods(&mut self, id: &str, sentence: &str) {
        // What a period applies to is read from the text before the first place its
        // words are written: once per distinct wording, not once per period (a
        // sentence of many periods would be read once for each).
        let mut read: HashMap<String, String> = HashMap::new();
        for (months, raw) in durations_in_months(sentence) {
            let applies = read
                .entry(raw)
                .or_insert_with_key(|raw| {
                    let at = sentence.find(raw.as_str()).unwrap_or(0);
                    let window = &sentence[..at];
                    let since_break = window.rfind(", or").map_or(window, |i| &window[i..]);
                    applies_to(&since_break.to_lowercase())
                })
                .clone();
            self.claim_periods.push(ClaimPeriod {
                months,
                applies_to: applies,
                clause_id: id.to_string(),
                text: excerpt(sentence, 240),
            });
        }
    }

    /// The matters listed after "not be liable for any claim to the extent that".
    fn read_exclusions(&mut self, sentence: &str) {
        if let Some(at) = sentence
            .to_ascii_lowercase()
            .find("not be liable for any claim to the extent")
        {
            let rest = &sentence[at..];
            let rest = rest.split_once(" that ").map_or(rest, |(_, r)| r);
            self.exclusions.extend(
                LIST_SPLIT
                    .split(rest.trim_end_matches('.'))
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
        }
    }
}

/// A threshold set by `sentence`, its percentage computed from the consideration when only
/// a sum is written.
fn threshold(sentence: &str, id: &str, kind: &str, consideration: Option<f64>) -> Threshold {
    let amount = amounts(sentence).into_iter().next();
    let percent = percentages(sentence)
        .into_iter()
        .next()
        .or_else(|| pct(amount.as_ref().map(|a| a.value), consideration));
    Threshold {
        amount,
        percent_of_consideration: percent,
        kind: kind.into(),
        clause_id: id.to_string(),
        text: excerpt(sentence, 240),
    }
}

/// Whether a basket is tipping or deductible, from its wording: the buyer recovers very
/// different sums under each.
fn basket_kind(lower: &str) -> &'static str {
    if [
        "whole amount",
        "not merely the excess",
        "from the first",
        "全部",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        "tipping"
    } else if [
        "only for the excess",
        "amount by which",
        "excess only",
        "超出部分",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        "deductible"
    } else {
        "unspecified"
    }
}

/// The findings on the terms read; when the limits of another clause apply by reference,
/// their absence here is no gap and is said instead.
fn findings_for(side: Side, terms: &LiabilityTerms, clause: &str) -> Vec<Observation> {
    let mut findings = assess(
        side,
        &terms.caps,
        terms.de_minimis.as_ref(),
        terms.basket.as_ref(),
        &terms.claim_periods,
        clause,
        !terms.specific_indemnities.is_empty(),
    );
    if let Some(from) = &terms.limitations_incorporated_from {
        // The limits live in the clause referred to; their absence here is not a gap.
        findings.retain(|f| {
            !(f.message.starts_with("no ")
                && ["cap", "basket", "de_minimis"].contains(&f.topic.as_str()))
        });
        findings.push(Observation::new(
            "limitations",
            RiskLevel::Low,
            format!("the limitations of Clause {from} apply here by reference"),
            Some(clause),
        ));
    }
    findings
}

/// The one-paragraph summary of the terms and findings, for the reader.
fn summarize(clause: &str, terms: &LiabilityTerms, findings: &[Observation]) -> String {
    let LiabilityTerms {
        caps,
        de_minimis,
        basket,
        claim_periods,
        specific_indemnities,
        exclusions,
        ..
    } = terms;
    let general_cap = caps.iter().find(|c| c.applies_to == "all claims");
    if caps.is_empty()
        && de_minimis.is_none()
        && basket.is_none()
        && claim_periods.is_empty()
        && specific_indemnities.is_empty()
    {
        format!("Clause {} sets no liability limit or indemnity.", clause)
    } else {
        format!(
            "Clause {}: {} cap(s){}; de minimis {}; basket {}; claim period(s) {}; {} specific indemnit{}; {} exclusion(s); {} high finding(s).",
            clause,
            caps.len(),
            general_cap.and_then(|c| c.percent_of_consideration).map(|p| format!(" (general cap {p}% of the consideration)")).unwrap_or_default(),
            de_minimis.as_ref().and_then(|d| d.amount.as_ref()).map_or("none".into(), |a| a.raw.clone()),
            basket.as_ref().map_or("none".into(), |b| format!("{} ({})", b.amount.as_ref().map_or("?".into(), |a| a.raw.clone()), b.kind)),
            if claim_periods.is_empty() { "none".into() } else { claim_periods.iter().map(|p| format!("{} months for {}", p.months, p.applies_to)).collect::<Vec<_>>().join(", ") },
            specific_indemnities.len(),
            if specific_indemnities.len() == 1 { "y" } else { "ies" },
            exclusions.len(),
            findings.iter().filter(|f| f.severity == RiskLevel::High).count()
        )
    }
}

static SAVE_THAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i),?\s*(?:save that|except that|provided that|but)\s+").unwrap()
});
static LIST_SPLIT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r",\s*or\s+|,\s*|\s+or\s+|；|、").unwrap());
static INDEMNIFY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)indemnify\s+the\s+\w+\s+against\s+(?:all|any)\s+[^.]*?(?:arising\s+(?:from|out of)|in respect of|relating to)\s+([^.;]+)|赔偿[^。；]*?因([^。；]+?)(?:而|所)").unwrap()
});

fn pct(amount: Option<f64>, consideration: Option<f64>) -> Option<f64> {
    let (a, c) = (amount?, consideration?);
    (c > 0.0).then(|| (a / c * 1000.0).round() / 10.0)
}

fn applies_to(lower: &str) -> String {
    if let Some(c) = CLAUSE.captures(lower) {
        return format!("claims under Clause {}", &c[1]);
    }
    if lower.contains("tax") || lower.contains("税") {
        "tax claims".into()
    } else if lower.contains("title") || lower.contains("fundamental") {
        "title warranties".into()
    } else {
        "all claims".into()
    }
}

static INCORPORATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:limitations|limits)\s+(?:in|of|set\s+out\s+in|under)\s+clause\s+(\d+(?:\.\d+)*)\s+(?:shall\s+)?apply|subject\s+to\s+the\s+(?:limitations|limits)\s+(?:in|of|set\s+out\s+in|under)\s+clause\s+(\d+(?:\.\d+)*)")
        .unwrap()
});
static CLAUSE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"claims under clause (\d+(?:\.\d+)+)").unwrap());

fn assess(
    side: Side,
    caps: &[Cap],
    de_minimis: Option<&Threshold>,
    basket: Option<&Threshold>,
    periods: &[ClaimPeriod],
    clause: &str,
    indemnities: bool,
) -> Vec<Observation> {
    let pick = |buyer: RiskLevel, seller: RiskLevel| weigh(side, buyer, seller);
    let mut out = Vec::new();
    let relevant = !caps.is_empty()
        || de_minimis.is_some()
        || basket.is_some()
        || !periods.is_empty()
        || indemnities;
    if !relevant {
        return out;
    }
    out.extend(cap_finding(side, caps, clause));
    out.push(basket_finding(side, basket, clause));
    if de_minimis.is_none() {
        out.push(Observation::new(
            "de_minimis",
            pick(RiskLevel::Low, RiskLevel::Medium),
            "no de minimis for individual claims",
            Some(clause),
        ));
    }
    out.extend(periods.iter().filter_map(|p| claim_period_finding(side, p)));
    sort_findings(&mut out);
    out
}

/// The severity for the side the review acts for, given what a term means to the buyer and
/// to the seller; with no side known, a high risk to either is a medium one.
fn weigh(side: Side, buyer: RiskLevel, seller: RiskLevel) -> RiskLevel {
    match side {
        Side::Buyer => buyer,
        Side::Seller => seller,
        Side::Unknown if buyer == RiskLevel::High || seller == RiskLevel::High => RiskLevel::Medium,
        Side::Unknown => buyer.min(seller),
    }
}

/// The finding on the general cap, measured as a share of the consideration; none when caps
/// exist but none is general or its share is unknown.
fn cap_finding(side: Side, caps: &[Cap], clause: &str) -> Option<Observation> {
    let pick = |buyer: RiskLevel, seller: RiskLevel| weigh(side, buyer, seller);
    let general_cap = caps.iter().find(|c| c.applies_to == "all claims");
    match general_cap.and_then(|c| c.percent_of_consideration) {
        None if caps.is_empty() => Some(Observation::new(
            "cap",
            pick(RiskLevel::Low, RiskLevel::High),
            "no cap on the seller's liability",
            Some(clause),
        )),
        Some(p) if p < 10.0 => Some(Observation::new(
            "cap",
            pick(RiskLevel::High, RiskLevel::Low),
            format!("general cap of {p}% of the consideration is low"),
            Some(clause),
        )),
        Some(p) if p < 25.0 => Some(Observation::new(
            "cap",
            pick(RiskLevel::Medium, RiskLevel::Low),
            format!("general cap of {p}% of the consideration"),
            Some(clause),
        )),
        Some(p) if p >= 100.0 => Some(Observation::new(
            "cap",
            pick(RiskLevel::Low, RiskLevel::High),
            format!(
                "general cap of {p}% of the consideration exposes the seller to the whole price"
            ),
            Some(clause),
        )),
        Some(p) => Some(Observation::new(
            "cap",
            RiskLevel::Low,
            format!("general cap of {p}% of the consideration"),
            Some(clause),
        )),
        None => None,
    }
}

/// The finding on the basket: its kind and size, or its absence.
fn basket_finding(side: Side, basket: Option<&Threshold>, clause: &str) -> Observation {
    let pick = |buyer: RiskLevel, seller: RiskLevel| weigh(side, buyer, seller);
    match basket {
        Some(b) if b.kind == "deductible" => Observation::new(
            "basket",
            pick(RiskLevel::Medium, RiskLevel::Low),
            "deductible basket: only the excess over the threshold is recoverable",
            Some(&b.clause_id),
        ),
        Some(b) if b.percent_of_consideration.is_some_and(|p| p > 1.0) => Observation::new(
            "basket",
            pick(RiskLevel::Medium, RiskLevel::Low),
            format!(
                "basket above 1% of the consideration ({}%)",
                b.percent_of_consideration.unwrap_or_default()
            ),
            Some(&b.clause_id),
        ),
        Some(b) => Observation::new(
            "basket",
            RiskLevel::Low,
            format!("{} basket", b.kind),
            Some(&b.clause_id),
        ),
        None => Observation::new(
            "basket",
            pick(RiskLevel::Low, RiskLevel::Medium),
            "no basket: the seller is exposed to every claim above the de minimis",
            Some(clause),
        ),
    }
}

/// The finding on a claim period that is short (or, for the seller, long) for the claims
/// it covers; none for a usual one.
fn claim_period_finding(side: Side, p: &ClaimPeriod) -> Option<Observation> {
    let pick = |buyer: RiskLevel, seller: RiskLevel| weigh(side, buyer, seller);
    let (severity, why) = match p.applies_to.as_str() {
        "all claims" if p.months < 12 => (
            pick(RiskLevel::High, RiskLevel::Low),
            "shorter than 12 months: latent problems may not surface in time",
        ),
        "all claims" if p.months > 24 => (
            pick(RiskLevel::Low, RiskLevel::Medium),
            "longer than 24 months",
        ),
        "tax claims" if p.months < 48 => (
            pick(RiskLevel::Medium, RiskLevel::Low),
            "shorter than the usual tax limitation period",
        ),
        _ => return None,
    };
    Some(Observation::new(
        "claim_period",
        severity,
        format!(
            "claim period of {} months for {}: {why}",
            p.months, p.applies_to
        ),
        Some(&p.clause_id),
    ))
}

#[cfg(test)]
mod tests {
    use super::INCORPORATED;

    fn incorporated(text: &str) -> Option<String> {
        let c = INCORPORATED.captures(text)?;
        c.get(1).or(c.get(2)).map(|m| m.as_str().to_string())
    }

    #[test]
    fn limits_taken_from_another_clause_are_read_in_each_wording() {
        for (text, clause) in [
            ("The limitations in Clause 9 shall apply to this indemnity.", "9"),
            ("The limits set out in clause 12.3 apply to any claim.", "12.3"),
            (
                "The Vendor shall hold the Purchaser harmless, subject to the limits under Clause 6.",
                "6",
            ),
            (
                "Subject to the limitations of Clause 10.1, the Vendor shall compensate the Purchaser.",
                "10.1",
            ),
        ] {
            assert_eq!(incorporated(text).as_deref(), Some(clause), "{text}");
        }
    }

    #[test]
    fn limits_that_are_disapplied_or_merely_cited_are_not_incorporation() {
        for text in [
            "The limits in Clause 9 shall not apply to claims for fraud.",
            "Subject to Clause 9, the Vendor shall compensate the Purchaser.",
            "The Purchaser may set limits in its own policies under clause 4.",
        ] {
            assert_eq!(incorporated(text), None, "{text}");
        }
    }
}
