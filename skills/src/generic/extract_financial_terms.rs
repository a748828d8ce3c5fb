// Over 700 lines, kept whole: one skill whose readers (amounts, percentages, periods,
// caps and the words around them) feed one another through the same sentence spans.

//! `extract_financial_terms`: money, percentages and payment periods with their source text.

use std::collections::BTreeMap;

use toolwright::prelude::*;

use crate::document::chinese_numeral;
use crate::index::lookup_for;
use crate::state::ReviewState;
use crate::text::{sentences, truncate_chars};

/// One financial value found in the clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FinancialTerm {
    /// What the sentence is about: `delay_damages`, `retention`, `advance_payment`,
    /// `payment`, `price`, `security`, `interest` or `other`.
    pub category: String,
    /// `amount`, `percentage` or `period`.
    pub kind: String,
    /// The number (amounts in units of the currency, periods in days).
    pub value: f64,
    /// ISO currency code for amounts (`USD`, `EUR`, `GBP`, `CNY`, `JPY`).
    pub currency: Option<String>,
    /// Whether the sentence sets a ceiling (`not exceed`, `maximum`, `cap`, `上限`, `不超过`).
    pub is_cap: bool,
    /// The value as written (`USD 1,500,000`, `5%`, `56 days`).
    pub text: String,
    /// The sentence it comes from.
    pub source_text: String,
}

/// The financial terms of a clause, with the figures a reviewer asks for first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FinancialTerms {
    /// The clause analysed.
    pub clause_id: String,
    /// Every value found, in text order.
    pub terms: Vec<FinancialTerm>,
    /// Sum of the amounts per currency code.
    pub amounts_by_currency: BTreeMap<String, f64>,
    /// Retention percentage, if stated.
    pub retention_percent: Option<f64>,
    /// Advance payment percentage, if stated.
    pub advance_payment_percent: Option<f64>,
    /// Delay damages rate (percentage), if stated.
    pub delay_damages_rate_percent: Option<f64>,
    /// Cap on delay damages (percentage), if stated.
    pub delay_damages_cap_percent: Option<f64>,
    /// Longest payment period in days, if stated.
    pub payment_period_days: Option<f64>,
    /// One line the model can read directly.
    pub summary: String,
}

/// Extract the financial terms of a clause: amounts with currency (USD, EUR, GBP, CNY/RMB/人民币,
/// $, €, £, ¥), percentages, caps, retention, advance payment, delay damages and payment
/// periods, each with the sentence it comes from.
///
/// Use it for payment, price, security and damages clauses, to quote exact figures.
#[skill(id = "extract_financial_terms", domain = "*", category = "analysis")]
pub fn extract_financial_terms(
    /// Clause number to analyse, for example "14.7"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<FinancialTerms, SkillError> {
    let lookup = lookup_for(&review.0);
    let doc = lookup.primary_or_not_found()?;
    let clause = doc.clause_or_not_found(&clause_id)?;
    let text = doc.full_text(&clause.clause_id).unwrap_or_default();
    Ok(analyse_financial_terms(&clause.clause_id, &text))
}

/// Whether `text` states any financial term: what [`analyse_financial_terms`] would find,
/// answered at the first one.
pub(crate) fn has_financial_terms(text: &str) -> bool {
    sentences(text)
        .into_iter()
        .any(|sentence| !scan_values(sentence).is_empty())
}

/// Finds every financial term of `text` and aggregates them.
pub fn analyse_financial_terms(clause_id: &str, text: &str) -> FinancialTerms {
    let mut terms = Vec::new();
    for sentence in sentences(text) {
        let lower = sentence.to_ascii_lowercase();
        let mut values = scan_values(sentence);
        if values.is_empty() {
            continue;
        }
        values.sort_by_key(|v| v.start);
        let source_text = truncate_chars(sentence, MAX_SOURCE_CHARS);
        let mut keywords = Keywords::of(&lower);
        let percentages: Vec<usize> = values
            .iter()
            .filter(|v| v.kind == "percentage")
            .map(|v| v.start)
            .collect();
        let (mut previous_end, mut previous_percentage_end) = (0, 0);
        // The category of the last rate per period: a ceiling after it bounds it when the
        // word nearer the ceiling names no other sum ("1% of the Price for each week, up to
        // 10% of the Price"; not "… and an advance payment of up to 10%").
        let mut rate_category: Option<&'static str> = None;
        for value in values {
            // A ceiling word before this value, since the previous value of its kind (an
            // amount named in between does not hide it: "a maximum of USD 500,000 or 10%"),
            // caps it; a percentage followed by a period ("per day", "for each week") before
            // the next percentage is a rate, whatever stands before it ("up to 1% per week").
            let end = value.start + value.text.len();
            let from = match value.kind {
                "percentage" => previous_percentage_end,
                _ => previous_end,
            };
            let window = &lower[from.min(value.start)..value.start];
            let is_rate = value.kind == "percentage" && {
                let next = percentages
                    .iter()
                    .copied()
                    .find(|&s| s > value.start)
                    .unwrap_or(lower.len());
                let after = &lower[end.min(next)..next];
                RATE_WORDS.iter().any(|w| after.contains(w))
            };
            let is_cap = !is_rate && CAP_WORDS.iter().any(|w| window.contains(w));
            previous_end = end;
            if value.kind == "percentage" {
                previous_percentage_end = end;
            }
            let category = keywords.categorize_at(value.start);
            let category = match (value.kind, category) {
                ("period", "payment") => "payment",
                ("period", c) if c != "other" => c,
                ("period", _) => "other",
                ("percentage", c @ ("price" | "payment" | "other")) if is_cap => {
                    rate_category.unwrap_or(c)
                }
                (_, c) => c,
            };
            if is_rate {
                rate_category = Some(category);
            }
            terms.push(FinancialTerm {
                category: category.to_string(),
                kind: value.kind.to_string(),
                value: value.value,
                currency: value.currency.map(str::to_string),
                is_cap,
                text: value.text,
                source_text: source_text.clone(),
            });
        }
    }
    let mut amounts_by_currency: BTreeMap<String, f64> = BTreeMap::new();
    for term in terms.iter().filter(|t| t.kind == "amount") {
        let currency = term.currency.clone().unwrap_or_else(|| "unknown".into());
        *amounts_by_currency.entry(currency).or_default() += term.value;
    }
    let pick = |category: &str, cap: Option<bool>| {
        terms
            .iter()
            .find(|t| {
                t.kind == "percentage"
                    && t.category == category
                    && cap.is_none_or(|c| t.is_cap == c)
            })
            .map(|t| t.value)
    };
    let retention_percent = pick("retention", None);
    let advance_payment_percent = pick("advance_payment", None);
    let delay_damages_cap_percent = pick("delay_damages", Some(true));
    let delay_damages_rate_percent = pick("delay_damages", Some(false));
    let payment_period_days = terms
        .iter()
        .filter(|t| t.kind == "period" && t.category == "payment")
        .map(|t| t.value)
        .reduce(f64::max);
    let summary = summarize(
        clause_id,
        &terms,
        &amounts_by_currency,
        [
            ("retention", retention_percent, "%"),
            ("advance payment", advance_payment_percent, "%"),
            ("delay damages", delay_damages_rate_percent, "%"),
            ("delay damages cap", delay_damages_cap_percent, "%"),
            ("payment period", payment_period_days, " days"),
        ],
    );
    FinancialTerms {
        clause_id: clause_id.to_string(),
        terms,
        amounts_by_currency,
        retention_percent,
        advance_payment_percent,
        delay_damages_rate_percent,
        delay_damages_cap_percent,
        payment_period_days,
        summary,
    }
}

fn summarize(
    clause_id: &str,
    terms: &[FinancialTerm],
    amounts: &BTreeMap<String, f64>,
    figures: [(&str, Option<f64>, &str); 5],
) -> String {
    if terms.is_empty() {
        return format!("Clause {clause_id}: no financial terms found");
    }
    let count = |kind: &str| terms.iter().filter(|t| t.kind == kind).count();
    let mut parts = vec![format!(
        "{} amount(s), {} percentage(s), {} period(s)",
        count("amount"),
        count("percentage"),
        count("period")
    )];
    for (currency, total) in amounts {
        parts.push(format!("total {currency} {}", format_number(*total)));
    }
    for (label, value, unit) in figures {
        if let Some(v) = value {
            parts.push(format!("{label} {}{unit}", format_number(v)));
        }
    }
    format!("Clause {clause_id}: {}", parts.join("; "))
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Words that state a ceiling on the value after them.
const CAP_WORDS: [&str; 16] = [
    "not exceed",
    "not to exceed",
    "no event exceed",
    "no case exceed",
    "maximum",
    "cap",
    "ceiling",
    "limit",
    "up to",
    "no more than",
    "not more than",
    "at most",
    "上限",
    "不超过",
    "最高",
    "不得超过",
];

/// Words after a percentage that make it a rate per period, not a ceiling.
const RATE_WORDS: [&str; 14] = [
    "per day",
    "per calendar day",
    "per week",
    "per month",
    "for each day",
    "for every day",
    "for each week",
    "for every week",
    "for each month",
    "each day of",
    "each week of",
    "daily",
    "每日",
    "每周",
];

const CATEGORIES: [(&str, &[&str]); 7] = [
    (
        "delay_damages",
        &[
            "delay damages",
            "liquidated damages",
            "误期",
            "延误",
            "违约金",
            "逾期",
        ],
    ),
    (
        "retention",
        &["retention", "保留金", "质保金", "质量保证金"],
    ),
    ("advance_payment", &["advance payment", "预付款"]),
    (
        "security",
        &[
            "performance security",
            "bond",
            "guarantee",
            "履约担保",
            "保函",
        ],
    ),
    ("interest", &["interest", "financing charges", "利息"]),
    ("payment", &["pay", "payment", "invoice", "支付", "付款"]),
    (
        "price",
        &[
            "contract price",
            "price",
            "合同价",
            "价款",
            "consideration",
            "purchase price",
        ],
    ),
];

/// The longest source sentence kept whole with each value; a longer one (a clause of one
/// sentence, a one-line contract) is cut there, so a sentence of many values is not copied
/// once per value.
const MAX_SOURCE_CHARS: usize = 1_000;

/// Every place of every category keyword in one lower-cased sentence, read once, and the
/// values of the sentence categorised in text order by moving through them: each value costs
/// the number of keywords, not the length of the sentence (searching the text before and
/// after every value made a long sentence of many values quadratic).
struct Keywords {
    /// Per keyword (categories in order, their words in order): where it starts, in order,
    /// overlapping places included (as `rfind` and `find` see them).
    starts: Vec<Vec<usize>>,
    /// Per keyword: how many places end at or before the last value asked about.
    ended: Vec<usize>,
    /// Per keyword: how many places start before the last value asked about.
    started: Vec<usize>,
}

impl Keywords {
    fn of(lower: &str) -> Self {
        let starts: Vec<Vec<usize>> = CATEGORIES
            .iter()
            .flat_map(|(_, words)| words.iter())
            .map(|word| {
                let step = word.chars().next().map_or(1, char::len_utf8);
                let mut found = Vec::new();
                let mut from = 0;
                while let Some(at) = lower[from..].find(word) {
                    found.push(from + at);
                    from += at + step;
                }
                found
            })
            .collect();
        let count = starts.len();
        Self {
            starts,
            ended: vec![0; count],
            started: vec![0; count],
        }
    }

    /// The topic of the value at `at`: the category whose keyword comes last before it, else
    /// the one whose keyword comes first after it (`30天内支付`). `at` never decreases from
    /// one call to the next.
    fn categorize_at(&mut self, at: usize) -> &'static str {
        let mut k = 0;
        let mut nearest: Option<((usize, std::cmp::Reverse<usize>), &'static str)> = None;
        let mut first_after: Option<(usize, &'static str)> = None;
        for (category, words) in CATEGORIES {
            let mut last: Option<(usize, std::cmp::Reverse<usize>)> = None;
            let mut next: Option<usize> = None;
            for word in words {
                let starts = &self.starts[k];
                let ended = &mut self.ended[k];
                while *ended < starts.len() && starts[*ended] + word.len() <= at {
                    *ended += 1;
                }
                if let Some(p) = ended.checked_sub(1).map(|i| starts[i]) {
                    last = last.max(Some((p + word.len(), std::cmp::Reverse(p))));
                }
                let started = &mut self.started[k];
                while *started < starts.len() && starts[*started] < at {
                    *started += 1;
                }
                if let Some(&p) = starts.get(*started) {
                    next = Some(next.map_or(p, |n| n.min(p)));
                }
                k += 1;
            }
            // Latest end wins; at equal ends the longer keyword (`预付款` over `付款`); at
            // equal keys the later category, as `max_by_key` chooses.
            if let Some(key) = last {
                if nearest.is_none_or(|(best, _)| key >= best) {
                    nearest = Some((key, category));
                }
            }
            // The first keyword after it; at equal places the earlier category.
            if let Some(p) = next {
                if first_after.is_none_or(|(best, _)| p < best) {
                    first_after = Some((p, category));
                }
            }
        }
        nearest
            .map(|(_, category)| category)
            .or(first_after.map(|(_, category)| category))
            .unwrap_or("other")
    }
}

struct FoundValue {
    start: usize,
    kind: &'static str,
    value: f64,
    currency: Option<&'static str>,
    text: String,
}

const PREFIX_CURRENCIES: [(&str, &str); 12] = [
    ("US$", "USD"),
    ("USD", "USD"),
    ("EUR", "EUR"),
    ("GBP", "GBP"),
    ("CNY", "CNY"),
    ("RMB", "CNY"),
    ("人民币", "CNY"),
    ("$", "USD"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("¥", "CNY"),
    ("￥", "CNY"),
];

const SUFFIX_CURRENCIES: [(&str, &str); 11] = [
    ("USD", "USD"),
    ("EUR", "EUR"),
    ("GBP", "GBP"),
    ("CNY", "CNY"),
    ("RMB", "CNY"),
    ("dollars", "USD"),
    ("euros", "EUR"),
    ("euro", "EUR"),
    ("pounds", "GBP"),
    ("元", "CNY"),
    ("人民币", "CNY"),
];

const MULTIPLIERS: [(&str, f64); 6] = [
    ("million", 1e6),
    ("billion", 1e9),
    ("thousand", 1e3),
    ("万", 1e4),
    ("亿", 1e8),
    ("千", 1e3),
];

const PERIOD_UNITS: [(&str, f64); 10] = [
    ("days", 1.0),
    ("day", 1.0),
    ("weeks", 7.0),
    ("week", 7.0),
    ("months", 30.0),
    ("month", 30.0),
    ("个月", 30.0),
    ("日", 1.0),
    ("天", 1.0),
    ("周", 7.0),
];

fn scan_values(sentence: &str) -> Vec<FoundValue> {
    let mut out = Vec::new();
    let bytes = sentence.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit()
            || (i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.'))
        {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        while end < bytes.len()
            && (bytes[end].is_ascii_digit()
                || ((bytes[end] == b',' || bytes[end] == b'.')
                    && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)))
        {
            end += 1;
        }
        i = end;
        let raw = &sentence[start..end];
        let before = sentence[..start].trim_end();
        if is_reference_number(before) || raw.matches('.').count() > 1 {
            continue;
        }
        let Ok(number) = raw.replace(',', "").parse::<f64>() else {
            continue;
        };
        if let Some(found) = classify(sentence, start, end, number) {
            out.push(found);
        }
    }
    out.extend(chinese_percentages(sentence));
    out.extend(english_word_percentages(sentence));
    out
}

fn is_reference_number(before: &str) -> bool {
    // The longest keyword, `sub-clause`, is 10 bytes: only the tail is compared.
    let tail_start = (0..=before.len().saturating_sub(12))
        .rev()
        .find(|&i| before.is_char_boundary(i))
        .unwrap_or(0);
    let lower = before[tail_start..].to_ascii_lowercase();
    [
        "clause",
        "sub-clause",
        "article",
        "section",
        "paragraph",
        "第",
        "schedule",
        "annex",
        "appendix",
    ]
    .iter()
    .any(|k| lower.ends_with(k))
}

fn classify(sentence: &str, start: usize, end: usize, number: f64) -> Option<FoundValue> {
    let before = sentence[..start].trim_end();
    let prefix = PREFIX_CURRENCIES
        .iter()
        .find(|(symbol, _)| before.ends_with(symbol))
        .filter(|(symbol, _)| {
            // A code must stand alone ("USD 5", not "XUSD 5").
            let rest = &before[..before.len() - symbol.len()];
            !symbol.chars().all(|c| c.is_ascii_alphabetic())
                || !rest.ends_with(|c: char| c.is_ascii_alphabetic())
        });
    let mut after = &sentence[end..];
    let mut consumed = end;
    let skip = |s: &str| s.len() - s.trim_start_matches([' ', ')', '）']).len();
    let n = skip(after);
    after = &after[n..];
    consumed += n;
    let mut value = number;
    let head = lower_head(after);
    if let Some((word, factor)) = MULTIPLIERS.iter().find(|(w, _)| head.starts_with(w)) {
        value *= factor;
        after = &after[word.len()..];
        consumed += word.len();
        let n = skip(after);
        after = &after[n..];
        consumed += n;
    }
    let text_from = prefix.map_or(start, |(symbol, _)| before.len() - symbol.len());
    let lower_after = lower_head(after);
    if after.starts_with('%')
        || lower_after.starts_with("percent")
        || lower_after.starts_with("per cent")
    {
        let len = if after.starts_with('%') {
            1
        } else if lower_after.starts_with("percent") {
            7
        } else {
            8
        };
        return Some(FoundValue {
            start,
            kind: "percentage",
            value: number,
            currency: None,
            text: sentence[start..consumed + len].trim().to_string(),
        });
    }
    let suffix = SUFFIX_CURRENCIES
        .iter()
        .find(|(word, _)| lower_after.starts_with(&word.to_lowercase()))
        .map(|(word, code)| (word.len(), *code));
    if let Some((_, code)) = prefix {
        let end = consumed + suffix.map_or(0, |(len, _)| len);
        return Some(FoundValue {
            start: text_from,
            kind: "amount",
            value,
            currency: Some(code),
            text: sentence[text_from..end].trim().to_string(),
        });
    }
    if let Some((len, code)) = suffix {
        return Some(FoundValue {
            start,
            kind: "amount",
            value,
            currency: Some(code),
            text: sentence[start..consumed + len].trim().to_string(),
        });
    }
    if let Some((word, factor)) = PERIOD_UNITS
        .iter()
        .find(|(w, _)| lower_after.starts_with(w))
    {
        return Some(FoundValue {
            start,
            kind: "period",
            value: number * factor,
            currency: None,
            text: sentence[start..consumed + word.len()].trim().to_string(),
        });
    }
    None
}

/// The first words of `text`, lowercased: enough for every unit, multiplier and currency
/// word that may follow a number (the longest, `per cent`, is 8 bytes), without copying the
/// rest of the sentence.
fn lower_head(text: &str) -> String {
    text.chars()
        .take(HEAD_CHARS)
        .collect::<String>()
        .to_lowercase()
}

/// Characters of the text after a number that name its unit.
const HEAD_CHARS: usize = 16;

/// `five percent`, `twenty-five per cent` -> 5%, 25%: percentages written in words (one
/// to ninety-nine, and one hundred). A word percentage followed by the same in figures
/// ("five percent (5%)") is left to the figures.
fn english_word_percentages(sentence: &str) -> Vec<FoundValue> {
    // Most sentences name no percentage in words: skip them without copying.
    if !sentence
        .as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"cent"))
    {
        return Vec::new();
    }
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let word = |w: &str| -> Option<u32> {
        UNITS
            .iter()
            .position(|u| *u == w)
            .map(|i| i as u32)
            .or_else(|| {
                TENS.iter()
                    .position(|t| *t == w)
                    .map(|i| 20 + 10 * i as u32)
            })
    };
    // ASCII lower-casing keeps every byte offset.
    let lower = sentence.to_ascii_lowercase();
    let mut out = Vec::new();
    for unit in ["percent", "per cent"] {
        for (pos, _) in lower.match_indices(unit) {
            let after = lower[pos + unit.len()..].trim_start();
            if after.starts_with('(') && after[1..].starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            let before = lower[..pos].trim_end();
            let words: Vec<&str> = before
                .rsplit(|c: char| c.is_whitespace() || c == '-')
                .take(3)
                .collect();
            let (value, taken) = match words.as_slice() {
                ["hundred", "one", ..] => (Some(100), 2),
                [last, tens, ..] if word(last).is_some_and(|u| (1..10).contains(&u)) => {
                    match word(tens) {
                        Some(t) if t >= 20 && t % 10 == 0 => (Some(t + word(last).unwrap_or(0)), 2),
                        _ => (word(last), 1),
                    }
                }
                [last, ..] => (word(last), 1),
                [] => (None, 0),
            };
            let Some(value) = value else { continue };
            // The start of the first number word taken.
            let mut start = before.len();
            for w in words.iter().take(taken) {
                start = before[..start].rfind(w).unwrap_or(start);
            }
            out.push(FoundValue {
                start,
                kind: "percentage",
                value: f64::from(value),
                currency: None,
                text: sentence[start..pos + unit.len()].to_string(),
            });
        }
    }
    out
}

/// `百分之十` -> 10%.
fn chinese_percentages(sentence: &str) -> Vec<FoundValue> {
    let mut out = Vec::new();
    for (pos, _) in sentence.match_indices("百分之") {
        let rest = &sentence[pos + "百分之".len()..];
        let numeral: String = rest
            .chars()
            .take_while(|c| {
                chinese_numeral(&c.to_string()).is_some() || matches!(c, '十' | '百' | '千')
            })
            .collect();
        if let Some(value) = chinese_numeral(&numeral) {
            out.push(FoundValue {
                start: pos,
                kind: "percentage",
                value: f64::from(value),
                currency: None,
                text: format!("百分之{numeral}"),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
