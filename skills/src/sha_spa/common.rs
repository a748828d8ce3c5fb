//! What the SPA/SHA skills share: the text a request covers, the side the review acts for,
//! amounts, percentages and dates, and the finding record.

use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwright::SkillError;

use crate::document::{clause_not_found, normalize_clause_id, Clause, DocumentStructure, Reach};
use crate::index::StateLookup;
use crate::review::RiskLevel;

/// One observation with its seriousness for the party the review acts for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    /// Short topic (`long_stop_date`, `cap`, `drag_along`).
    pub topic: String,
    /// How serious it is.
    pub severity: RiskLevel,
    /// What was found and why it matters.
    pub message: String,
    /// Clause it comes from, when known.
    pub clause_id: Option<String>,
}

impl Observation {
    /// A finding.
    pub fn new(
        topic: &str,
        severity: RiskLevel,
        message: impl Into<String>,
        clause_id: Option<&str>,
    ) -> Self {
        Self {
            topic: topic.into(),
            severity,
            message: message.into(),
            clause_id: clause_id.map(str::to_string),
        }
    }
}

/// Orders findings most serious first, keeping document order otherwise.
pub(crate) fn sort_findings(findings: &mut [Observation]) {
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
}

/// Text covered by a request.
pub(crate) struct Scope<'a> {
    /// The clause analysed: the top-level clause containing the request, or `*`.
    pub clause_id: String,
    /// Its full text (with sub-clauses).
    pub text: String,
    /// The clauses read, depth first (every clause for `*`).
    pub clauses: Vec<&'a Clause>,
    /// The contract.
    pub doc: &'a DocumentStructure,
}

/// The text a skill analyses: the top-level clause containing `clause_id` (a CP list, its
/// waiver and long-stop sub-clauses belong together), or the whole agreement for `*`/`all`.
pub(crate) fn scope<'a>(
    lookup: &'a StateLookup,
    skill: &str,
    clause_id: &str,
) -> Result<Scope<'a>, SkillError> {
    let Some(indexed) = lookup.primary() else {
        return Err(SkillError::not_found(format!(
            "`{skill}`: the review has no contract under review (no document with role `primary`)"
        )));
    };
    let Some(found) = indexed.scope_of(clause_id, Reach::Article) else {
        return Err(clause_not_found(
            Some(skill),
            &normalize_clause_id(clause_id),
            std::iter::once(indexed.structure),
        ));
    };
    Ok(Scope {
        clause_id: found.clause_id,
        text: found.text,
        clauses: found.clauses,
        doc: indexed.structure,
    })
}

/// Which side of the deal the review acts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Buyer / purchaser / investor.
    Buyer,
    /// Seller / vendor / founder.
    Seller,
    /// Not stated.
    Unknown,
}

impl Side {
    /// Reads `our_party` ("Buyer", "Purchaser", "卖方", "Investor", "Founders").
    pub(crate) fn of(our_party: &str) -> Self {
        let p = our_party.to_lowercase();
        if ["buyer", "purchaser", "investor", "买方", "收购方", "投资方"]
            .iter()
            .any(|w| p.contains(w))
        {
            Side::Buyer
        } else if ["seller", "vendor", "founder", "卖方", "出让方", "创始"]
            .iter()
            .any(|w| p.contains(w))
        {
            Side::Seller
        } else {
            Side::Unknown
        }
    }
}

/// A sum of money as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Amount {
    /// As written (`GBP 50,000`).
    pub raw: String,
    /// Currency code or symbol (`GBP`, `$`, `RMB`).
    pub currency: String,
    /// The value in units of the currency.
    pub value: f64,
}

static MONEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(GBP|USD|EUR|RMB|CNY|HKD|US\$|£|\$|€|人民币)\s?(\d+(?:,\d{3})*(?:\.\d+)?)\s*(million|m\b|billion|bn\b|万元|万|亿元|亿)?").unwrap()
});
static PERCENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d+(?:\.\d+)?)\s*(?:%|per\s?cent|percent)|百分之([一二三四五六七八九十百]+)")
        .unwrap()
});

/// Every sum of money in `text`.
pub fn amounts(text: &str) -> Vec<Amount> {
    MONEY
        .captures_iter(text)
        .filter_map(|c| {
            let number: f64 = c[2].replace(',', "").parse().ok()?;
            let factor = match c.get(3).map(|m| m.as_str().to_lowercase()) {
                Some(s) if s == "million" || s == "m" => 1e6,
                Some(s) if s == "billion" || s == "bn" => 1e9,
                Some(s) if s.starts_with('万') => 1e4,
                Some(s) if s.starts_with('亿') => 1e8,
                _ => 1.0,
            };
            Some(Amount {
                raw: c[0].trim().to_string(),
                currency: c[1].to_uppercase(),
                value: number * factor,
            })
        })
        .collect()
}

/// Every percentage in `text`, as a number (`30% ` -> 30.0).
pub fn percentages(text: &str) -> Vec<f64> {
    PERCENT
        .captures_iter(text)
        .filter_map(|c| match (c.get(1), c.get(2)) {
            (Some(n), _) => n.as_str().parse().ok(),
            (None, Some(zh)) => crate::document::chinese_numeral(zh.as_str()).map(f64::from),
            _ => None,
        })
        .collect()
}

static DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s*\d{4}\b|\d{4}年\d{1,2}月\d{1,2}日").unwrap()
});

/// The first calendar date in `text`.
pub(crate) fn first_date(text: &str) -> Option<String> {
    DATE.find(text).map(|m| m.as_str().to_string())
}

static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|twelve|eighteen|twenty-four|thirty-six)\s+(months?|years?)\b|(\d{1,3}|[一二三四五六七八九十]+)\s*(?:个月|年)").unwrap()
});

/// Durations in months ("18 months", "6 years", "24个月"), with the text matched.
pub fn durations_in_months(text: &str) -> Vec<(u32, String)> {
    DURATION
        .captures_iter(text)
        .filter_map(|c| {
            let whole = c.get(0)?.as_str().to_string();
            let (n, years) = match (c.get(1), c.get(3)) {
                (Some(n), _) => (
                    word_number(n.as_str())?,
                    c[2].to_lowercase().starts_with("year"),
                ),
                (None, Some(n)) => (
                    n.as_str()
                        .parse()
                        .ok()
                        .or_else(|| crate::document::chinese_numeral(n.as_str()))?,
                    whole.ends_with('年'),
                ),
                _ => return None,
            };
            Some((if years { n * 12 } else { n }, whole))
        })
        .collect()
}

/// A number written in digits or (small) English words.
pub(crate) fn word_number(text: &str) -> Option<u32> {
    if let Ok(n) = text.parse() {
        return Some(n);
    }
    let words = [
        ("one", 1),
        ("two", 2),
        ("three", 3),
        ("four", 4),
        ("five", 5),
        ("six", 6),
        ("seven", 7),
        ("eight", 8),
        ("nine", 9),
        ("ten", 10),
        ("eleven", 11),
        ("twelve", 12),
        ("eighteen", 18),
        ("twenty-four", 24),
        ("thirty-six", 36),
    ];
    let lower = text.to_lowercase();
    words.iter().find(|(w, _)| *w == lower).map(|(_, n)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::ReviewState;
    use std::sync::Arc;

    #[test]
    fn numbers_money_dates() {
        let a = amounts("capped at GBP 4,800,000 or US$2.5 million, 人民币500万元");
        let v: Vec<(String, f64)> = a.into_iter().map(|a| (a.currency, a.value)).collect();
        assert_eq!(
            v,
            [
                ("GBP".into(), 4_800_000.0),
                ("US$".into(), 2_500_000.0),
                ("人民币".into(), 5_000_000.0)
            ]
        );
        assert_eq!(
            percentages("30% of, 1 per cent, 百分之二十"),
            [30.0, 1.0, 20.0]
        );
        assert_eq!(
            first_date("by 30 June 2026 or later").as_deref(),
            Some("30 June 2026")
        );
        assert_eq!(
            durations_in_months("within 18 months, 6 years, 24个月")
                .iter()
                .map(|d| d.0)
                .collect::<Vec<_>>(),
            [18, 72, 24]
        );
        assert_eq!(Side::of("the Buyer"), Side::Buyer);
        assert_eq!(Side::of("卖方"), Side::Seller);
    }

    /// An article `1` holding an item `1` (real agreements number both ways) once made the
    /// climb to the top-level clause go round forever.
    #[test]
    fn scope_of_a_repeated_id_ends() {
        use crate::document::{Clause, DocumentStructure};
        use crate::{DocumentRole, ReviewDocument};
        let leaf = |id: &str, text: &str| Clause {
            clause_id: id.into(),
            text: text.into(),
            level: 2,
            ..Default::default()
        };
        let article = Clause {
            clause_id: "1".into(),
            title: "Transfer of Shares".into(),
            text: "No Shareholder shall transfer any Shares except as follows:".into(),
            level: 1,
            children: vec![
                leaf("1", "to an Affiliate;"),
                leaf("2", "with the consent of the Board."),
            ],
        };
        let review = Arc::new(ReviewState {
            documents: vec![ReviewDocument {
                role: DocumentRole::Primary,
                filename: "sha.md".into(),
                structure: DocumentStructure {
                    clauses: vec![article],
                    total_clauses: 3,
                    ..Default::default()
                }
                .into(),
            }],
            ..Default::default()
        });
        let lookup = crate::index::lookup_for(&review);
        let scope = scope(&lookup, "sha_test", "1").expect("clause 1 exists");
        assert_eq!(scope.clause_id, "1");
        assert!(
            scope.text.contains("consent of the Board"),
            "{}",
            scope.text
        );
    }
}
