//! `compare_with_baseline`: what the contract changed in the standard form.

use similar::{ChangeTag, TextDiff};
use toolwright::prelude::*;

use crate::document::clause_not_found;
use crate::index::lookup_for;
use crate::state::ReviewState;
use crate::text::is_cjk;

/// How a clause relates to the standard form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModificationType {
    /// Same words as the standard form (whitespace aside).
    Unmodified,
    /// Present in both, with different words.
    Modified,
    /// In the contract only.
    Added,
    /// In the standard form, but removed (or marked deleted) in the contract.
    Deleted,
}

impl ModificationType {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unmodified => "unmodified",
            Self::Modified => "modified",
            Self::Added => "added",
            Self::Deleted => "deleted",
        }
    }
}

/// A run of consecutive inserted or deleted words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChangedSpan {
    /// `inserted` (in the contract, not the standard form) or `deleted` (the reverse).
    pub kind: String,
    /// The words.
    pub text: String,
}

/// The word-level difference between a clause and its standard form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BaselineComparison {
    /// The clause compared.
    pub clause_id: String,
    /// `unmodified`, `modified`, `added` or `deleted`.
    pub modification_type: ModificationType,
    /// 0.0 (nothing in common) to 1.0 (identical).
    pub similarity: f64,
    /// Changed spans in document order.
    pub changes: Vec<ChangedSpan>,
    /// Words (characters for Chinese) in the contract but not the standard form.
    pub inserted_words: usize,
    /// Words (characters for Chinese) in the standard form but not the contract.
    pub deleted_words: usize,
    /// One line the model can read directly.
    pub summary: String,
}

/// Compare a clause with the standard form (e.g. FIDIC General Conditions) word by word:
/// modification type (unmodified / modified / added / deleted), changed spans and similarity.
///
/// Use it to see exactly what the contract changed; the standard-form text is taken from the
/// review's baseline document for the same clause unless given.
#[skill(id = "compare_with_baseline", domain = "*", category = "analysis")]
pub fn compare_with_baseline(
    /// Clause number to compare, for example "4.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    /// Standard-form text to compare with; taken from the baseline document when omitted.
    #[arg(prepare = crate::prepare::baseline_text_for_clause)]
    baseline_text: String,
    review: Inject<ReviewState>,
) -> Result<BaselineComparison, SkillError> {
    let lookup = lookup_for(&review.0);
    let doc = lookup.primary_or_not_found()?;
    let clause = doc.clause(&clause_id);
    let clause_text = match clause {
        Some(clause) => Some(doc.full_text(&clause.clause_id).unwrap_or_default()),
        None if !baseline_text.trim().is_empty() => None,
        None => {
            return Err(clause_not_found(
                None,
                &clause_id,
                std::iter::once(doc.structure),
            ))
        }
    };
    let id = clause.map_or_else(
        || crate::document::normalize_clause_id(&clause_id),
        |c| c.clause_id.clone(),
    );
    Ok(compare_texts(&id, clause_text.as_deref(), &baseline_text))
}

/// Markers of a clause the contract keeps only as a number.
const DELETION_MARKERS: [&str; 6] = [
    "deleted",
    "[deleted]",
    "not used",
    "intentionally deleted",
    "删除",
    "本条删除",
];

/// Whether a clause text only says that the clause was deleted.
pub(crate) fn is_deletion_marker(text: &str) -> bool {
    let t = text.trim().trim_end_matches(['.', '。']);
    // Lower-casing never shortens a text in characters: a text longer than every marker is
    // answered without copying it (a clause cited many times is asked about each time).
    if t.chars().nth(MAX_MARKER_CHARS).is_some() {
        return false;
    }
    DELETION_MARKERS.contains(&t.to_lowercase().as_str())
}

/// More characters than the longest of [`DELETION_MARKERS`].
const MAX_MARKER_CHARS: usize = 24;

/// Compares a clause (`None` when the contract lacks it) with its standard-form text.
pub fn compare_texts(
    clause_id: &str,
    clause_text: Option<&str>,
    baseline_text: &str,
) -> BaselineComparison {
    let clause = normalize_ws(clause_text.unwrap_or(""));
    let baseline = normalize_ws(baseline_text);
    let removed = clause_text.is_none() || is_deletion_marker(&clause);
    let (modification_type, similarity, changes) = if removed && !baseline.is_empty() {
        let changes = vec![ChangedSpan {
            kind: "deleted".into(),
            text: baseline.clone(),
        }];
        (ModificationType::Deleted, 0.0, changes)
    } else if baseline.is_empty() {
        let changes = if clause.is_empty() {
            Vec::new()
        } else {
            vec![ChangedSpan {
                kind: "inserted".into(),
                text: clause.clone(),
            }]
        };
        (ModificationType::Added, 0.0, changes)
    } else if clause == baseline {
        (ModificationType::Unmodified, 1.0, Vec::new())
    } else {
        let (ratio, changes) = diff_spans(&baseline, &clause);
        (ModificationType::Modified, ratio, changes)
    };
    let count = |kind: &str| -> usize {
        changes
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| unit_count(&c.text))
            .sum()
    };
    let inserted_words = count("inserted");
    let deleted_words = count("deleted");
    let similarity = (similarity * 1000.0).round() / 1000.0;
    let summary = match modification_type {
        ModificationType::Unmodified => format!("Clause {clause_id} is identical to the standard form"),
        ModificationType::Added => format!("Clause {clause_id} is not in the standard form (added, {inserted_words} words)"),
        ModificationType::Deleted => format!("Clause {clause_id} of the standard form was deleted ({deleted_words} words removed)"),
        ModificationType::Modified => format!(
            "Clause {clause_id} was modified: similarity {:.0}%, {} change(s), {inserted_words} word(s) inserted, {deleted_words} deleted",
            similarity * 100.0,
            changes.len()
        ),
    };
    BaselineComparison {
        clause_id: clause_id.to_string(),
        modification_type,
        similarity,
        changes,
        inserted_words,
        deleted_words,
        summary,
    }
}

fn normalize_ws(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn unit_count(text: &str) -> usize {
    if text.chars().any(is_cjk) {
        text.chars().filter(|c| !c.is_whitespace()).count()
    } else {
        text.split_whitespace().count()
    }
}

/// The most units (words and the spaces between them, or characters for Chinese) of the two
/// texts, past their common beginning and end, diffed unit by unit: the diff costs their
/// number times the number of changes, quadratic for two long texts that differ throughout.
pub const MAX_DIFF_UNITS: usize = 20_000;

/// Word diff (character diff for Chinese) from `old` to `new`: similarity and changed spans.
fn diff_spans(old: &str, new: &str) -> (f64, Vec<ChangedSpan>) {
    let chinese = old.chars().chain(new.chars()).any(is_cjk);
    if let Some(coarse) = coarse_diff(old, new, chinese) {
        return coarse;
    }
    let diff = if chinese {
        TextDiff::configure().diff_chars(old, new)
    } else {
        TextDiff::configure().diff_words(old, new)
    };
    // A hunk is everything between two unchanged words: its deletions become one span and its
    // insertions the next, so "A B" -> "C D" reads as one replacement, not four.
    let mut spans: Vec<ChangedSpan> = Vec::new();
    let mut deleted = String::new();
    let mut inserted = String::new();
    for change in diff.iter_all_changes() {
        let value = change.value();
        match change.tag() {
            ChangeTag::Equal if chinese || !value.trim().is_empty() => {
                flush(&mut deleted, &mut inserted, &mut spans)
            }
            ChangeTag::Equal => {
                for buffer in [&mut deleted, &mut inserted] {
                    if !buffer.is_empty() {
                        buffer.push(' ');
                    }
                }
            }
            ChangeTag::Delete => deleted.push_str(value),
            ChangeTag::Insert => inserted.push_str(value),
        }
    }
    flush(&mut deleted, &mut inserted, &mut spans);
    (f64::from(diff.ratio()), spans)
}

/// Past [`MAX_DIFF_UNITS`]: the differing middle as one deletion and one insertion, and the
/// share of units in the common beginning and end as the similarity (a lower bound of the
/// diff's). `None` when the middle is small enough to diff.
fn coarse_diff(old: &str, new: &str, chinese: bool) -> Option<(f64, Vec<ChangedSpan>)> {
    let units = |text: &'_ str| -> Vec<(usize, usize)> {
        if chinese {
            text.char_indices()
                .map(|(at, c)| (at, at + c.len_utf8()))
                .collect()
        } else {
            // Normalised text: words with one space between them, as the word diff reads it.
            let mut out = Vec::new();
            let mut at = 0;
            for (i, word) in text.split(' ').enumerate() {
                if i > 0 {
                    out.push((at, at + 1));
                    at += 1;
                }
                if !word.is_empty() {
                    out.push((at, at + word.len()));
                }
                at += word.len();
            }
            out
        }
    };
    let (a, b) = (units(old), units(new));
    if a.len() + b.len() <= MAX_DIFF_UNITS {
        return None;
    }
    let unit = |text: &'_ str, (s, e): (usize, usize)| -> String { text[s..e].to_string() };
    let same = |x: &(usize, usize), y: &(usize, usize)| old[x.0..x.1] == new[y.0..y.1];
    let prefix = a.iter().zip(&b).take_while(|(x, y)| same(x, y)).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| same(x, y))
        .count();
    let (removed, added) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if removed.len() + added.len() <= MAX_DIFF_UNITS {
        return None;
    }
    let mut spans = Vec::new();
    let mut deleted: String = removed.iter().map(|u| unit(old, *u)).collect();
    let mut inserted: String = added.iter().map(|u| unit(new, *u)).collect();
    flush(&mut deleted, &mut inserted, &mut spans);
    let ratio = 2.0 * (prefix + suffix) as f64 / (a.len() + b.len()) as f64;
    Some((ratio, spans))
}

fn flush(deleted: &mut String, inserted: &mut String, spans: &mut Vec<ChangedSpan>) {
    for (kind, buffer) in [("deleted", deleted), ("inserted", inserted)] {
        let text = normalize_ws(buffer);
        buffer.clear();
        if !text.is_empty() {
            spans.push(ChangedSpan {
                kind: kind.into(),
                text,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_diff_groups_spans() {
        let c = compare_texts(
            "4.1",
            Some("The Contractor shall design the Works and be fit for purpose."),
            "The Contractor shall design the Works.",
        );
        assert_eq!(c.modification_type, ModificationType::Modified);
        assert_eq!(
            c.changes,
            [
                ChangedSpan {
                    kind: "deleted".into(),
                    text: "Works.".into()
                },
                ChangedSpan {
                    kind: "inserted".into(),
                    text: "Works and be fit for purpose.".into()
                }
            ]
        );
        assert!(c.similarity > 0.5 && c.similarity < 1.0, "{}", c.similarity);
    }

    #[test]
    fn chinese_uses_characters() {
        let c = compare_texts("1", Some("承包商应在28天内通知"), "承包商应在56天内通知");
        let texts: Vec<&str> = c.changes.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, ["56", "28"]);
    }

    #[test]
    fn long_texts_differing_throughout_are_one_change() {
        let old = format!("Start {} end", "alpha beta ".repeat(MAX_DIFF_UNITS));
        let new = format!("Start {} end", "gamma delta ".repeat(MAX_DIFF_UNITS));
        let c = compare_texts("1", Some(&new), &old);
        assert_eq!(c.modification_type, ModificationType::Modified);
        let texts: Vec<(&str, usize)> = c
            .changes
            .iter()
            .map(|s| (s.kind.as_str(), s.text.split(' ').count()))
            .collect();
        assert_eq!(
            texts,
            [
                ("deleted", 2 * MAX_DIFF_UNITS),
                ("inserted", 2 * MAX_DIFF_UNITS)
            ]
        );
        assert!(
            c.changes[0].text.starts_with("alpha beta") && c.changes[1].text.ends_with("delta")
        );
        assert!(c.similarity < 0.01, "{}", c.similarity);
        // Chinese, by characters; and a long text with a small change is still diffed.
        let old = format!("甲{}乙", "丙".repeat(MAX_DIFF_UNITS));
        let new = format!("甲{}乙", "丁".repeat(MAX_DIFF_UNITS));
        let c = compare_texts("1", Some(&new), &old);
        assert_eq!(c.changes.len(), 2);
        assert_eq!(c.changes[1].text, "丁".repeat(MAX_DIFF_UNITS));
        let long = "word ".repeat(MAX_DIFF_UNITS);
        let c = compare_texts(
            "1",
            Some(&format!("{long}14 days")),
            &format!("{long}28 days"),
        );
        let texts: Vec<&str> = c.changes.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, ["28", "14"]);
    }

    #[test]
    fn deletion_and_addition() {
        assert_eq!(
            compare_texts("1", Some("[Deleted]"), "Old text").modification_type,
            ModificationType::Deleted
        );
        assert!(DELETION_MARKERS
            .iter()
            .all(|m| m.chars().count() < MAX_MARKER_CHARS));
        assert!(is_deletion_marker(" Intentionally Deleted. ") && is_deletion_marker("本条删除。"));
        assert!(!is_deletion_marker(&"deleted ".repeat(10)));
        assert_eq!(
            compare_texts("1", None, "Old text").modification_type,
            ModificationType::Deleted
        );
        assert_eq!(
            compare_texts("1", Some("New"), "").modification_type,
            ModificationType::Added
        );
        assert_eq!(
            compare_texts("1", Some("Same  text"), "Same text").modification_type,
            ModificationType::Unmodified
        );
    }
}
