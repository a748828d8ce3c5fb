//! Enumerated list items: `(a)`, `(iv)`, `(3)`, `（一）`, `1)`, `a)`, either displayed (one
//! item a line, as Word and Markdown write lists) or inline (`conditional on (a) ...; (b)
//! ...; and (c) ...`, as most agreements and every PDF extraction write them).

use std::sync::LazyLock;

use regex::Regex;

use super::sentences::{logical_lines, sentence_spans};

/// A displayed item: a label at the start of a line.
static DISPLAYED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(?:[\(（]([a-z]{1,2}|[ivx]{1,4}|\d{1,2}|[一二三四五六七八九十]{1,3})[\)）]|(\d{1,2}|[a-z])\))\s*(.+)$",
    )
    .unwrap()
});

/// An inline label: `(a)`, `(ii)`, `(3)`, `（一）` after a space or punctuation.
static INLINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[\(（]([a-z]{1,2}|[ivx]{1,4}|\d{1,2}|[一二三四五六七八九十]{1,3})[\)）]").unwrap()
});

/// Enumerated list items of `text` as (label, text), in order: every displayed item, and
/// the items of every inline enumeration in the other lines. An inline enumeration is a
/// run of labels in sequence from its first (`a`, `i`, `1`, `一`), each followed by words
/// of its own; the last item ends with its sentence.
pub fn enumerated_items(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in logical_lines(text) {
        let inline = inline_items(&line);
        match DISPLAYED.captures(&line) {
            // A line that starts a list and goes on with its next items is inline.
            Some(c) if inline.len() < 2 || line.find(['(', '（']) != Some(0) => {
                let label = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
                out.push((label.to_string(), c[3].trim().to_string()));
            }
            _ => out.extend(inline),
        }
    }
    out
}

/// The items of the inline enumeration in one line, if it has one.
fn inline_items(line: &str) -> Vec<(String, String)> {
    // Labels that stand alone: after a space, punctuation or the start, not `4.1(c)`.
    let labels: Vec<(usize, usize, &str)> = INLINE
        .captures_iter(line)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let free = line[..whole.start()]
                .chars()
                .next_back()
                .is_none_or(|b| !b.is_ascii_alphanumeric());
            free.then(|| {
                (
                    whole.start(),
                    whole.end(),
                    c.get(1).map_or("", |m| m.as_str()),
                )
            })
        })
        .collect();
    let Some(first) = labels.iter().position(|(_, _, l)| starts_a_list(l)) else {
        return Vec::new();
    };
    let mut run = vec![labels[first]];
    for &label in &labels[first + 1..] {
        let previous = run.last().map_or("", |(_, _, l)| *l);
        if follows(previous, label.2, run[0].2) {
            run.push(label);
        }
    }
    if run.len() < 2 {
        return Vec::new();
    }
    let mut items = Vec::new();
    for (i, &(_, end, label)) in run.iter().enumerate() {
        let body = match run.get(i + 1) {
            Some(&(next, _, _)) => &line[end..next],
            // The last item ends with its sentence.
            None => {
                let rest = &line[end..];
                let span = sentence_spans(rest).into_iter().next();
                span.map_or(rest, |(s, e)| &rest[s..e])
            }
        };
        let body = trim_connectors(body);
        if body.split_whitespace().next().is_none() && body.chars().count() < 2 {
            // "paragraphs (a) and (b)" cites items; it does not list them.
            return Vec::new();
        }
        items.push((label.to_string(), body.to_string()));
    }
    items
}

/// `text` without the joining words and punctuation around an inline item.
fn trim_connectors(text: &str) -> &str {
    let mut text = text.trim();
    loop {
        let before = text;
        for tail in [
            " and", " or", " and/or", ",", ";", "；", "，", "、", "及", "和", "或",
        ] {
            text = text.strip_suffix(tail).unwrap_or(text).trim_end();
        }
        if text == "and" || text == "or" {
            text = "";
        }
        if text == before {
            return text;
        }
    }
}

/// Whether an inline label can open a list.
fn starts_a_list(label: &str) -> bool {
    matches!(label, "a" | "i" | "1" | "一")
}

/// Whether `label` comes right after `previous` in a list opened by `first`.
fn follows(previous: &str, label: &str, first: &str) -> bool {
    match first {
        "i" => roman(label) == roman(previous).map(|n| n + 1),
        "1" => label.parse::<u32>().ok() == previous.parse::<u32>().ok().map(|n| n + 1),
        "一" => {
            crate::document::chinese_numeral(label)
                == crate::document::chinese_numeral(previous).map(|n| n + 1)
        }
        _ => {
            let (mut p, mut l) = (previous.chars(), label.chars());
            match (p.next(), l.next(), p.next(), l.next()) {
                (Some(p), Some(l), None, None) => l as u32 == p as u32 + 1,
                _ => false,
            }
        }
    }
}

/// Value of a small lower-case Roman numeral (`iv` -> 4).
fn roman(label: &str) -> Option<u32> {
    const VALUES: [&str; 12] = [
        "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii",
    ];
    VALUES
        .iter()
        .position(|v| *v == label)
        .map(|i| i as u32 + 1)
}

static LABEL_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[(（]([a-z]{1,2}|[ivx]{1,4}|[一二三四五六七八九十]{1,3})[)）]").unwrap()
});

/// Item labels cited in a sentence ("Clause 4.1(c), (d) and (e)" -> c, d, e; "第（二）项" -> 二).
pub(crate) fn cited_labels(sentence: &str) -> Vec<String> {
    LABEL_REF
        .captures_iter(sentence)
        .map(|c| c[1].to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels_and_texts(text: &str) -> Vec<(String, String)> {
        enumerated_items(text)
    }

    #[test]
    fn displayed_items_in_every_style() {
        assert_eq!(
            labels_and_texts("intro:\n(a) one;\n(b) two.\n（一）三\n1) four\nb) five"),
            [
                ("a".into(), "one;".into()),
                ("b".into(), "two.".into()),
                ("一".into(), "三".into()),
                ("1".into(), "four".into()),
                ("b".into(), "five".into()),
            ]
        );
    }

    #[test]
    fn inline_items_end_with_their_sentence() {
        assert_eq!(
            labels_and_texts(
                "Delivery depends on (a) the permit being issued; (b) the crane arriving; and (c) fair weather. The Owner may waive (b)."
            ),
            [
                ("a".into(), "the permit being issued".into()),
                ("b".into(), "the crane arriving".into()),
                ("c".into(), "fair weather.".into()),
            ]
        );
        assert_eq!(
            labels_and_texts("It covers (i) rent, (ii) rates and (iii) service charges."),
            [
                ("i".into(), "rent".into()),
                ("ii".into(), "rates".into()),
                ("iii".into(), "service charges.".into()),
            ]
        );
        assert_eq!(
            labels_and_texts("付款条件为（一）验收合格；（二）发票送达。"),
            [
                ("一".into(), "验收合格".into()),
                ("二".into(), "发票送达。".into())
            ]
        );
    }

    #[test]
    fn cited_items_are_not_a_list() {
        assert!(labels_and_texts("The conditions in paragraphs (a) and (b) are met.").is_empty());
        assert!(labels_and_texts("See Clause 4.1(a) and 4.1(b) for the rest.").is_empty());
        assert_eq!(
            labels_and_texts("shall not, without consent,\n(a) issue shares; (b) borrow; or (c) sell\nits business."),
            [
                ("a".into(), "issue shares".into()),
                ("b".into(), "borrow".into()),
                ("c".into(), "sell its business.".into()),
            ]
        );
        assert_eq!(cited_labels("Clause 4.1(c), (d) and (e)"), ["c", "d", "e"]);
    }
}
