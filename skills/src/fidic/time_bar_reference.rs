//! The analysis as it was before it was made linear (each limit searched its sentence from
//! the first, re-read its sentence and compared itself with every limit of the General
//! Conditions): the oracle the tests hold the linear analysis to, byte for byte.

use std::collections::BTreeSet;

use super::super::periods::standard_for;
use super::*;
use crate::text::truncate_chars;

fn excerpt(text: &str, max: usize) -> String {
    truncate_chars(&text.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

/// Analyses `text` as the first version did; `gc_text` is the unmodified General Conditions text, for "changed by the PC".
/// `our_party` (`Contractor`, `承包人`) decides whose extra time is a concern; may be empty.
pub(super) fn analyse(
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
    TimeBarReport::of(clause_id, source, limits)
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
    let after = &text[period.end..];
    let requirement = requirement(&text[..period.start], after);
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
    let consequence = if consequence_cue(&lower_sentence) {
        Some(sentence)
    } else {
        next.filter(|n| {
            let n = n.to_lowercase();
            consequence_cue(&n) && contains_any(&n, FOLLOW_CUES)
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
    let judged = Judgement::of(
        period.days,
        standard,
        gc_days,
        party.as_deref(),
        our_party,
        is_time_bar,
    );
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
        comparison: judged.comparison.to_string(),
        difference_days: judged.difference_days,
        gc_days,
        shortened: judged.shortened,
        extended_for_other_party: judged.extended_for_other_party,
        severity: judged.severity,
        sentence: excerpt(sentence, 300),
    }
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}
