//! `fidic_calculate_time_bar`: every time limit of a clause, what starts it, what happens when
//! it is missed, and how it compares with the period the FIDIC form usually gives.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use skill_core::prelude::*;

use super::documents::{review_of, scoped_clause_id, FidicDocuments};
use super::merge_gc_pc::effective_text;
use super::periods::{find_periods, standard_for, FoundPeriod};
use crate::review::RiskLevel;
use crate::state::ReviewState;
use crate::text::{contains_any, excerpt, sentence_spans};

/// One time limit of the clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TimeLimit {
    /// The period as written (`28 days`, `14天`).
    pub period: String,
    /// Length in days (weeks x 7, months x 30).
    pub days: u32,
    /// `within`, `not_later_than`, `not_less_than`, `before`, or `unspecified`.
    pub requirement: String,
    /// The party that must act, when the sentence names one.
    pub party: Option<String>,
    /// The event that starts the period ("the Contractor became aware of the event").
    pub trigger: Option<String>,
    /// What happens when the period is missed, when the clause says.
    pub consequence: Option<String>,
    /// Whether missing the period loses a right (a time bar).
    pub is_time_bar: bool,
    /// The FIDIC step recognised (`notice_of_claim`), if any.
    pub standard_step: Option<String>,
    /// The period the FIDIC form gives for that step, in days.
    pub standard_days: Option<u32>,
    /// Where the form gives it.
    pub standard_reference: Option<String>,
    /// `shorter`, `same`, `longer` than the standard, or `no_standard`.
    pub comparison: String,
    /// Days longer (positive) or shorter (negative) than the standard.
    pub difference_days: Option<i64>,
    /// The period the General Conditions gave for the same sentence, when the PC changed it.
    pub gc_days: Option<u32>,
    /// Whether the period is shorter than the standard or than the General Conditions.
    pub shortened: bool,
    /// Whether the period is longer than the standard or than the General Conditions while
    /// another party than the one the review acts for must act (it gets more time).
    pub extended_for_other_party: bool,
    /// How serious it is: `high` for a shortened time bar.
    pub severity: RiskLevel,
    /// The sentence, shortened.
    pub sentence: String,
}

/// The time limits of a clause, worst first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TimeBarReport {
    /// The clause analysed.
    pub clause_id: String,
    /// Whose text was read: `gc_with_pc`, `gc`, `pc`, or `given_text`.
    pub text_source: String,
    /// Every time limit, in clause order.
    pub time_limits: Vec<TimeLimit>,
    /// Number of time limits.
    pub time_limit_count: usize,
    /// Number of time bars (limits whose miss loses a right).
    pub time_bar_count: usize,
    /// Number of limits shorter than the standard or the General Conditions.
    pub shortened_count: usize,
    /// The shortest limit, in days.
    pub shortest_days: Option<u32>,
    /// The worst severity found, if any limit was found.
    pub highest_severity: Option<RiskLevel>,
    /// One paragraph for the reader.
    pub summary: String,
}

/// Find every time limit in a contract clause (notices, claims, payment), its trigger and
/// consequence, and flag time bars shorter than the FIDIC standard or the General Conditions.
///
/// Reads "within 28 days", "not later than 42 days after ...", "28天内" and similar; for each
/// limit gives the trigger, the consequence of missing it (a time bar when a right is lost),
/// the period the FIDIC form usually gives for the same step (notice of claim 28 days, fully
/// detailed claim 84 days, Engineer's response 42 days, payment 56 days, ...), and whether the
/// Particular Conditions shortened it. Use it on claims, notices, payment and programme clauses.
#[skill(
    id = "fidic_calculate_time_bar",
    domain = "fidic",
    category = "analysis"
)]
pub fn fidic_calculate_time_bar(
    /// Clause number, e.g. "20.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    /// Text to analyse instead of the clause; defaults to the clause as it applies (General
    /// Conditions with the Particular Conditions applied).
    #[arg(prepare = prepare_clause_text)]
    clause_text: Option<String>,
    review: Inject<ReviewState>,
) -> Result<TimeBarReport, SkillError> {
    let lookup = crate::index::lookup_for(&review.0);
    let docs = FidicDocuments::of(&lookup);
    let clause_id = crate::document::normalize_clause_id(&clause_id);
    let gc_text = docs.gc_text(&clause_id).unwrap_or_default();
    let effective = docs
        .has_clause(&clause_id)
        .then(|| effective_text(&docs, &clause_id));
    let (text, source) = match (clause_text.filter(|t| !t.trim().is_empty()), effective) {
        (Some(given), Some((text, source))) if given == text => (text, source),
        (Some(given), _) => (given, "given_text"),
        (None, Some(found)) => found,
        (None, None) => return Err(docs.clause_not_found("fidic_calculate_time_bar", &clause_id)),
    };
    Ok(analyse(
        &clause_id,
        &text,
        &gc_text,
        source,
        &review.our_party,
    ))
}

fn prepare_clause_text(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<Option<String>, SkillError> {
    let clause_id = scoped_clause_id(ctx, scope)?;
    let lookup = review_of(ctx, scope)?;
    let docs = FidicDocuments::of(&lookup);
    Ok(docs
        .has_clause(&clause_id)
        .then(|| effective_text(&docs, &clause_id).0))
}

const CONSEQUENCE_CUES: &[&str] = &[
    "not be entitled",
    "discharged",
    "deemed",
    "lose",
    "forfeit",
    "lapse",
    "time-barred",
    "time barred",
    "无权",
    "丧失",
    "视为",
    "不予",
    "免除",
];
const LOSS_CUES: &[&str] = &[
    "not be entitled",
    "discharged",
    "lose",
    "forfeit",
    "lapse",
    "time-barred",
    "time barred",
    "无权",
    "丧失",
    "免除",
];
const FOLLOW_CUES: &[&str] = &["if ", "fail", "otherwise", "逾期", "否则", "未"];

static PARTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(Contractor|Employer|Engineer|DAAB|DAB|Subcontractor|Seller|Buyer|Purchaser)\b|(承包商|承包人|发包人|业主|工程师|监理人)").unwrap()
});
static ACTOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(Contractor|Employer|Engineer|DAAB|DAB|Subcontractor|Seller|Buyer|Purchaser)\s+(?:shall|must|is to)\b|(承包商|承包人|发包人|业主|工程师|监理人)(?:应当|应|须)").unwrap()
});
static EN_TRIGGER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*\)?\s*(after|from|following|before|prior to|of)\s+([^,;.。；]{3,160})")
        .unwrap()
});
static ZH_TRIGGER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:在|自|于|从)([^，。；,]{2,60}?)(?:之后|后|之日起|起)\s*$").unwrap()
});

/// Analyses `text`; `gc_text` is the unmodified General Conditions text, for "changed by the PC".
/// `our_party` (`Contractor`, `承包人`) decides whose extra time is a concern; may be empty.
pub fn analyse(
    clause_id: &str,
    text: &str,
    gc_text: &str,
    source: &str,
    our_party: &str,
) -> TimeBarReport {
    let spans = sentence_spans(text);
    let gc_periods = find_periods(gc_text);
    let gc_spans = if gc_periods.is_empty() {
        Vec::new()
    } else {
        sentence_spans(gc_text)
    };
    let gc_limits: Vec<(u32, BTreeSet<String>)> = gc_periods
        .into_iter()
        .map(|p| {
            (
                p.days,
                context_words(sentence_around(gc_text, &gc_spans, &p).0),
            )
        })
        .collect();
    let mut limits = Vec::new();
    for period in find_periods(text) {
        let (sentence, index) = sentence_around(text, &spans, &period);
        let next = spans.get(index + 1).map(|&(s, e)| &text[s..e]);
        limits.push(limit(text, sentence, next, &period, &gc_limits, our_party));
    }
    let time_bar_count = limits.iter().filter(|l| l.is_time_bar).count();
    let shortened_count = limits.iter().filter(|l| l.shortened).count();
    let shortest_days = limits.iter().map(|l| l.days).min();
    let highest_severity = limits.iter().map(|l| l.severity).max();
    let summary = summarize(clause_id, &limits, time_bar_count, shortened_count);
    TimeBarReport {
        clause_id: clause_id.to_string(),
        text_source: source.to_string(),
        time_limit_count: limits.len(),
        time_limits: limits,
        time_bar_count,
        shortened_count,
        shortest_days,
        highest_severity,
        summary,
    }
}

fn sentence_around<'t>(
    text: &'t str,
    spans: &[(usize, usize)],
    period: &FoundPeriod,
) -> (&'t str, usize) {
    spans
        .iter()
        .enumerate()
        .find(|(_, &(s, e))| period.start >= s && period.start < e)
        .map(|(i, &(s, e))| (&text[s..e], i))
        .unwrap_or((text, 0))
}

fn context_words(sentence: &str) -> BTreeSet<String> {
    sentence
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() > 2)
        .map(str::to_lowercase)
        .collect()
}

fn limit(
    text: &str,
    sentence: &str,
    next: Option<&str>,
    period: &FoundPeriod,
    gc_limits: &[(u32, BTreeSet<String>)],
    our_party: &str,
) -> TimeLimit {
    let before = &text[..period.start];
    let after = &text[period.end..];
    let window_start = before.char_indices().rev().nth(39).map_or(0, |(at, _)| at);
    let window = before[window_start..].to_lowercase();
    let requirement = if window.contains("not later than") || window.contains("no later than") {
        "not_later_than"
    } else if window.contains("not less than")
        || window.contains("at least")
        || window.contains("no less than")
    {
        "not_less_than"
    } else if window.contains("within") || after.starts_with('内') || after.starts_with("之内") {
        "within"
    } else if after.starts_with('前') || after.starts_with("以前") {
        "before"
    } else {
        "unspecified"
    };
    let sentence_start = sentence.as_ptr() as usize - text.as_ptr() as usize;
    let lead_in = &text[sentence_start.min(period.start)..period.start];
    // The actor is the party that "shall" act; else the first party named.
    let party = ACTOR
        .captures(sentence)
        .or_else(|| PARTY.captures(sentence))
        .and_then(|c| c.get(1).or(c.get(2)))
        .map(|m| m.as_str().to_string());
    let trigger = EN_TRIGGER
        .captures(after)
        .map(|c| format!("{} {}", c[1].to_lowercase(), c[2].trim()))
        .or_else(|| {
            ZH_TRIGGER
                .captures(lead_in)
                .map(|c| c[1].trim().to_string())
        });
    let lower_sentence = sentence.to_lowercase();
    let consequence = if contains_any(&lower_sentence, CONSEQUENCE_CUES) {
        Some(sentence)
    } else {
        next.filter(|n| {
            let n = n.to_lowercase();
            contains_any(&n, CONSEQUENCE_CUES) && contains_any(&n, FOLLOW_CUES)
        })
    };
    let is_time_bar = consequence.is_some_and(|c| {
        if std::ptr::eq(c, sentence) {
            contains_any(&lower_sentence, LOSS_CUES)
        } else {
            contains_any(&c.to_lowercase(), LOSS_CUES)
        }
    });
    let standard = standard_for(sentence);
    let difference_days = standard.map(|s| i64::from(period.days) - i64::from(s.days));
    let comparison = match difference_days {
        None => "no_standard",
        Some(d) if d < 0 => "shorter",
        Some(0) => "same",
        Some(_) => "longer",
    };
    let words = if gc_limits.is_empty() {
        BTreeSet::new()
    } else {
        context_words(sentence)
    };
    let gc_days = gc_limits
        .iter()
        .filter(|(days, _)| *days != period.days)
        .map(|(days, gc_words)| (days, jaccard(&words, gc_words)))
        .filter(|(_, score)| *score >= 0.6)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(days, _)| *days);
    let shortened =
        difference_days.is_some_and(|d| d < 0) || gc_days.is_some_and(|g| period.days < g);
    let acts_for_other = party
        .as_deref()
        .is_some_and(|p| !our_party.trim().is_empty() && role_of(p) != role_of(our_party));
    let extended_for_other_party = acts_for_other
        && (difference_days.is_some_and(|d| d > 0) || gc_days.is_some_and(|g| period.days > g));
    let severity = match (
        is_time_bar || standard.is_some_and(|s| s.time_bar),
        shortened,
    ) {
        (true, true) => RiskLevel::High,
        (false, true) | (true, false) => RiskLevel::Medium,
        (false, false) if extended_for_other_party => RiskLevel::Medium,
        (false, false) => RiskLevel::Low,
    };
    TimeLimit {
        period: period
            .raw
            .trim_start_matches('(')
            .replace(')', "")
            .to_string(),
        days: period.days,
        requirement: requirement.to_string(),
        party,
        trigger,
        consequence: consequence.map(|c| excerpt(c, 240)),
        is_time_bar,
        standard_step: standard.map(|s| s.key.to_string()),
        standard_days: standard.map(|s| s.days),
        standard_reference: standard.map(|s| format!("{} ({})", s.reference, s.description)),
        comparison: comparison.to_string(),
        difference_days,
        gc_days,
        shortened,
        extended_for_other_party,
        severity,
        sentence: excerpt(sentence, 300),
    }
}

/// The contract role a party name stands for, so "Contractor" and "承包人" compare equal.
fn role_of(name: &str) -> &'static str {
    let lower = name.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["contractor", "承包"]) {
        "contractor"
    } else if has(&["employer", "owner", "发包", "业主"]) {
        "employer"
    } else if has(&["engineer", "工程师", "监理"]) {
        "engineer"
    } else {
        "other"
    }
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

fn summarize(clause_id: &str, limits: &[TimeLimit], bars: usize, shortened: usize) -> String {
    if limits.is_empty() {
        return format!("Clause {clause_id} sets no time limit.");
    }
    let mut out = format!(
        "Clause {clause_id} sets {} time limit(s), {bars} of them time bar(s)",
        limits.len()
    );
    let flagged: Vec<String> = limits
        .iter()
        .filter(|l| l.shortened)
        .map(|l| {
            let from = l.gc_days.or(l.standard_days).unwrap_or(l.days);
            let what = l
                .standard_step
                .as_deref()
                .unwrap_or("period")
                .replace('_', " ");
            format!("{what} {} days (usually {from})", l.days)
        })
        .collect();
    if shortened > 0 {
        out.push_str(&format!("; shortened: {}", flagged.join(", ")));
    }
    out.push('.');
    out
}
