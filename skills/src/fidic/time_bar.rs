//! `fidic_calculate_time_bar`: every time limit of a clause, what starts it, what happens when
//! it is missed, and how it compares with the period the FIDIC form usually gives.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use toolwright::prelude::*;

use super::documents::{review_of, scoped_clause_id, FidicDocuments};
use super::merge_gc_pc::effective_text;
use super::periods::{find_periods, standard_for_lower, FoundPeriod, StandardPeriod};
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

/// Words that take a right away from a party that misses its time.
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
/// Words that attach a lesser consequence to a missed time: a deeming, a refusal.
const DEEMING_CUES: &[&str] = &["deemed", "视为", "不予"];

/// Whether lower-cased `text` says what follows a missed time (a loss or a deeming).
fn consequence_cue(text: &str) -> bool {
    contains_any(text, LOSS_CUES) || contains_any(text, DEEMING_CUES)
}

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

/// At most this many time limits of the General Conditions are compared with each limit of
/// the clause (those around the same place in the clause). A sub-clause has a handful; only
/// a clause of thousands of limits has more, and without the window its comparison would
/// grow with the square of its length.
const MAX_GC_LIMITS_COMPARED: usize = 512;

/// The longest match of [`ZH_TRIGGER`] before its trailing spaces, in characters (the
/// opening word, at most 60 characters, and the longest closing word), with a margin.
const ZH_TRIGGER_MAX_CHARS: usize = 80;

/// Analyses `text`; `gc_text` is the unmodified General Conditions text, for "changed by the PC".
/// `our_party` (`Contractor`, `承包人`) decides whose extra time is a concern; may be empty.
///
/// Linear in the length of the text: each sentence is read once however many limits it
/// holds, a limit finds its sentence by binary search, and each limit is compared with at
/// most `MAX_GC_LIMITS_COMPARED` limits of the General Conditions.
pub fn analyse(
    clause_id: &str,
    text: &str,
    gc_text: &str,
    source: &str,
    our_party: &str,
) -> TimeBarReport {
    let mut sentences = Sentences::new(text);
    // Words as numbers, shared by both texts: a sentence's words are a sorted list of them.
    let mut vocabulary: HashMap<String, u32> = HashMap::new();
    let gc_periods = find_periods(gc_text);
    let mut gc_sentences = Sentences::new(if gc_periods.is_empty() { "" } else { gc_text });
    let gc_limits: Vec<GcLimit> = gc_periods
        .iter()
        .map(|p| {
            let sentence = gc_sentences.index_of(p);
            gc_sentences.words(sentence, &mut vocabulary);
            GcLimit {
                days: p.days,
                sentence,
            }
        })
        .collect();
    let periods = find_periods(text);
    // The scores of the sentence being read against General Conditions sentences, for the
    // other limits of the same sentence (limits come in text order).
    let mut scores: HashMap<usize, f64> = HashMap::new();
    let mut scored_sentence = None;
    let mut limits = Vec::with_capacity(periods.len());
    for (ordinal, period) in periods.iter().enumerate() {
        let index = sentences.index_of(period);
        if scored_sentence != Some(index) {
            scores.clear();
            scored_sentence = Some(index);
        }
        let compared = gc_window(gc_limits.len(), ordinal, periods.len());
        let gc_days = if compared.is_empty() {
            None
        } else {
            sentences.words(index, &mut vocabulary);
            gc_limits[compared]
                .iter()
                .filter(|gc| gc.days != period.days)
                .map(|gc| {
                    let score = *scores.entry(gc.sentence).or_insert_with(|| {
                        jaccard(
                            sentences.words_of(index),
                            gc_sentences.words_of(gc.sentence),
                        )
                    });
                    (gc.days, score)
                })
                .filter(|(_, score)| *score >= 0.6)
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(days, _)| days)
        };
        limits.push(limit(&mut sentences, index, period, gc_days, our_party));
    }
    TimeBarReport::of(clause_id, source, limits)
}

/// A time limit of the General Conditions: its length and the sentence it is in.
struct GcLimit {
    days: u32,
    sentence: usize,
}

/// The General Conditions limits compared with the `ordinal`-th of `count` limits of the
/// clause: all of them when there are at most [`MAX_GC_LIMITS_COMPARED`], else that many
/// around the same relative place, in order.
fn gc_window(gc_count: usize, ordinal: usize, count: usize) -> std::ops::Range<usize> {
    if gc_count <= MAX_GC_LIMITS_COMPARED {
        return 0..gc_count;
    }
    let centre = ordinal * gc_count / count.max(1);
    let start = centre
        .saturating_sub(MAX_GC_LIMITS_COMPARED / 2)
        .min(gc_count - MAX_GC_LIMITS_COMPARED);
    start..start + MAX_GC_LIMITS_COMPARED
}

/// The sentences of a text, each read (lower-cased, its party, its FIDIC step, its words,
/// its excerpts) once, when first asked for, whatever the number of limits in it.
struct Sentences<'t> {
    text: &'t str,
    spans: Vec<(usize, usize)>,
    facts: Vec<Option<SentenceFacts<'t>>>,
    words: Vec<Option<Vec<u32>>>,
}

/// What the analysis reads from one sentence.
struct SentenceFacts<'t> {
    text: &'t str,
    party: Option<String>,
    standard: Option<&'static StandardPeriod>,
    consequence_cue: bool,
    loss_cue: bool,
    follow_cue: bool,
    excerpt_240: Option<String>,
    excerpt_300: Option<String>,
}

impl<'t> Sentences<'t> {
    fn new(text: &'t str) -> Self {
        let spans = if text.is_empty() {
            Vec::new()
        } else {
            sentence_spans(text)
        };
        // One slot more than the spans: the whole text, for a period outside every sentence.
        let slots = spans.len() + 1;
        Self {
            text,
            spans,
            facts: (0..slots).map(|_| None).collect(),
            words: (0..slots).map(|_| None).collect(),
        }
    }

    /// The sentence holding the start of `period` (binary search: the spans are in order and
    /// do not overlap), or the whole-text slot.
    fn index_of(&self, period: &FoundPeriod) -> usize {
        let after = self.spans.partition_point(|&(s, _)| s <= period.start);
        match after.checked_sub(1) {
            Some(i) if period.start < self.spans[i].1 => i,
            _ => self.spans.len(),
        }
    }

    /// The text of sentence `index` (the whole text for the whole-text slot).
    fn text_of(&self, index: usize) -> &'t str {
        self.spans
            .get(index)
            .map_or(self.text, |&(s, e)| &self.text[s..e])
    }

    /// The sentence after `index`, if any; after the whole-text slot, the second sentence
    /// (as a period outside every sentence has always been read).
    fn next_of(&self, index: usize) -> Option<usize> {
        let next = if index == self.spans.len() {
            1
        } else {
            index + 1
        };
        (next < self.spans.len()).then_some(next)
    }

    fn facts(&mut self, index: usize) -> &mut SentenceFacts<'t> {
        let text = self.text_of(index);
        self.facts[index].get_or_insert_with(|| {
            let lower = text.to_lowercase();
            // The actor is the party that "shall" act; else the first party named.
            let party = ACTOR
                .captures(text)
                .or_else(|| PARTY.captures(text))
                .and_then(|c| c.get(1).or(c.get(2)))
                .map(|m| m.as_str().to_string());
            SentenceFacts {
                text,
                party,
                standard: standard_for_lower(&lower),
                consequence_cue: consequence_cue(&lower),
                loss_cue: contains_any(&lower, LOSS_CUES),
                follow_cue: contains_any(&lower, FOLLOW_CUES),
                excerpt_240: None,
                excerpt_300: None,
            }
        })
    }

    fn words(&mut self, index: usize, vocabulary: &mut HashMap<String, u32>) {
        let text = self.text_of(index);
        self.words[index].get_or_insert_with(|| context_words(text, vocabulary));
    }

    fn words_of(&self, index: usize) -> &[u32] {
        self.words[index]
            .as_ref()
            .expect("words are read before they are compared")
    }
}

/// The distinct words of a sentence (letters only, three or more, lower-cased), as sorted
/// numbers of `vocabulary`.
fn context_words(sentence: &str, vocabulary: &mut HashMap<String, u32>) -> Vec<u32> {
    let mut words: Vec<u32> = sentence
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() > 2)
        .map(|w| {
            let next = vocabulary.len() as u32;
            *vocabulary.entry(w.to_lowercase()).or_insert(next)
        })
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

fn limit(
    sentences: &mut Sentences<'_>,
    index: usize,
    period: &FoundPeriod,
    gc_days: Option<u32>,
    our_party: &str,
) -> TimeLimit {
    let text = sentences.text;
    let after = &text[period.end..];
    let requirement = requirement(&text[..period.start], after);
    let sentence = sentences.text_of(index);
    let sentence_start = sentence.as_ptr() as usize - text.as_ptr() as usize;
    let lead_in = &text[sentence_start.min(period.start)..period.start];
    let trigger = EN_TRIGGER
        .captures(after)
        .map(|c| format!("{} {}", c[1].to_lowercase(), c[2].trim()))
        .or_else(|| {
            ZH_TRIGGER
                .captures(zh_trigger_window(lead_in))
                .map(|c| c[1].trim().to_string())
        });
    let next = sentences.next_of(index);
    let (party, standard, consequence_cue, loss_cue) = {
        let f = sentences.facts(index);
        (f.party.clone(), f.standard, f.consequence_cue, f.loss_cue)
    };
    // The consequence is in the sentence itself, or in the next one when it follows on
    // ("If the Contractor fails to ...").
    let consequence = if consequence_cue {
        Some((index, loss_cue))
    } else {
        next.and_then(|n| {
            let f = sentences.facts(n);
            (f.consequence_cue && f.follow_cue).then_some((n, f.loss_cue))
        })
    };
    let is_time_bar = consequence.is_some_and(|(_, loss)| loss);
    let consequence = consequence.map(|(at, _)| {
        let f = sentences.facts(at);
        f.excerpt_240
            .get_or_insert_with(|| excerpt(f.text, 240))
            .clone()
    });
    let judged = Judgement::of(
        period.days,
        standard,
        gc_days,
        party.as_deref(),
        our_party,
        is_time_bar,
    );
    let f = sentences.facts(index);
    let sentence = f
        .excerpt_300
        .get_or_insert_with(|| excerpt(f.text, 300))
        .clone();
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
        consequence,
        is_time_bar,
        standard_step: standard.map(|s| s.key.to_string()),
        standard_days: standard.map(|s| s.days),
        standard_reference: standard.map(|s| format!("{} ({})", s.reference, s.description)),
        comparison: judged.comparison.to_string(),
        difference_days: judged.difference_days,
        gc_days,
        shortened: judged.shortened,
        extended_for_other_party: judged.extended_for_other_party,
        severity: judged.severity,
        sentence,
    }
}

impl TimeBarReport {
    /// The report of `limits` found in clause `clause_id` (its text read from `source`),
    /// with their counts and summary.
    fn of(clause_id: &str, source: &str, limits: Vec<TimeLimit>) -> Self {
        let time_bar_count = limits.iter().filter(|l| l.is_time_bar).count();
        let shortened_count = limits.iter().filter(|l| l.shortened).count();
        let shortest_days = limits.iter().map(|l| l.days).min();
        let highest_severity = limits.iter().map(|l| l.severity).max();
        let summary = summarize(clause_id, &limits, time_bar_count, shortened_count);
        Self {
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
}

/// How the words before a period (`before`) and after it (`after`) bound it: `within`,
/// `not_later_than`, `not_less_than`, `before` or `unspecified`.
fn requirement(before: &str, after: &str) -> &'static str {
    let window_start = before.char_indices().rev().nth(39).map_or(0, |(at, _)| at);
    let window = before[window_start..].to_lowercase();
    if window.contains("not later than") || window.contains("no later than") {
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
    }
}

/// A period judged against the form's standard and the General Conditions.
struct Judgement {
    comparison: &'static str,
    difference_days: Option<i64>,
    shortened: bool,
    extended_for_other_party: bool,
    severity: RiskLevel,
}

impl Judgement {
    /// `days` for `party` (the one that must act), against `standard` and `gc_days`, read
    /// for `our_party`; `is_time_bar` when the sentence takes a right away.
    fn of(
        days: u32,
        standard: Option<&StandardPeriod>,
        gc_days: Option<u32>,
        party: Option<&str>,
        our_party: &str,
        is_time_bar: bool,
    ) -> Self {
        let difference_days = standard.map(|s| i64::from(days) - i64::from(s.days));
        let comparison = match difference_days {
            None => "no_standard",
            Some(d) if d < 0 => "shorter",
            Some(0) => "same",
            Some(_) => "longer",
        };
        let shortened = difference_days.is_some_and(|d| d < 0) || gc_days.is_some_and(|g| days < g);
        let acts_for_other =
            party.is_some_and(|p| !our_party.trim().is_empty() && role_of(p) != role_of(our_party));
        let extended_for_other_party = acts_for_other
            && (difference_days.is_some_and(|d| d > 0) || gc_days.is_some_and(|g| days > g));
        let severity = match (
            is_time_bar || standard.is_some_and(|s| s.time_bar),
            shortened,
        ) {
            (true, true) => RiskLevel::High,
            (false, true) | (true, false) => RiskLevel::Medium,
            (false, false) if extended_for_other_party => RiskLevel::Medium,
            (false, false) => RiskLevel::Low,
        };
        Self {
            comparison,
            difference_days,
            shortened,
            extended_for_other_party,
            severity,
        }
    }
}

/// The end of `lead_in` that can hold a match of [`ZH_TRIGGER`]: the match ends at the
/// text's end (before trailing spaces) and is at most [`ZH_TRIGGER_MAX_CHARS`] long, so
/// matching the whole sentence before every period (quadratic in a long sentence) finds
/// the same capture.
fn zh_trigger_window(lead_in: &str) -> &str {
    let core = lead_in.trim_end();
    let start = core
        .char_indices()
        .rev()
        .nth(ZH_TRIGGER_MAX_CHARS - 1)
        .map_or(0, |(at, _)| at);
    &lead_in[start..]
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

/// Shared words over all words of two sorted lists of distinct words; costs the smaller
/// list's length times the logarithm of the larger's, so a long sentence compared with many
/// short ones is not read again for each.
fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let shared = small
        .iter()
        .filter(|w| large.binary_search(w).is_ok())
        .count();
    let union = a.len() + b.len() - shared;
    if union == 0 {
        return 0.0;
    }
    shared as f64 / union as f64
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

#[cfg(test)]
#[path = "time_bar_reference.rs"]
mod reference;

#[cfg(test)]
mod tests;
