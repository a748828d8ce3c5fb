//! Reading Particular Conditions instructions ("Delete the words "28 days" and replace them
//! with "14 days"", "This Sub-Clause is deleted", "Add the following at the end: ...",
//! "将“28天”修改为“14天”") and applying them to the General Conditions text.

use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff};

/// What a Particular Condition does to a sub-clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModificationKind {
    /// The whole sub-clause is deleted.
    Deleted,
    /// The whole sub-clause is replaced by new text.
    Replaced,
    /// Words of the General Conditions are replaced by other words.
    WordsReplaced,
    /// Words of the General Conditions are deleted.
    WordsDeleted,
    /// Text is added to the sub-clause.
    Added,
    /// A sub-clause that the General Conditions do not have.
    NewSubClause,
    /// PC text that is not a recognisable instruction; appended as a supplement.
    Supplement,
}

/// One modification made by the Particular Conditions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Modification {
    /// What kind of change it is.
    pub kind: ModificationKind,
    /// General Conditions text affected (the words replaced or deleted), empty for additions.
    pub gc_text: String,
    /// Text the PC put in its place or added, empty for deletions.
    pub pc_text: String,
    /// Whether the change could be applied (the words to replace were found in the GC).
    pub applied: bool,
    /// One-line explanation.
    pub description: String,
}

/// How a sub-clause stands after the PC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClauseStatus {
    /// The PC do not touch it.
    Unchanged,
    /// Some words or paragraphs changed.
    Amended,
    /// Replaced in full.
    Replaced,
    /// Deleted in full.
    Deleted,
    /// Introduced by the PC.
    Added,
}

/// The merged sub-clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// How the clause stands.
    pub status: ClauseStatus,
    /// The text that applies (GC as modified by the PC), empty when deleted.
    pub text: String,
    /// The modifications, in PC order.
    pub modifications: Vec<Modification>,
}

static SUBSTITUTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?:delete|replace)\s+(?:the\s+)?(?:words?\s+|figures?\s+|period\s+(?:of\s+)?)?["“]([^"”]+)["”]\s+(?:and\s+(?:replace|substitute)\s+(?:it\s+|them\s+)?)?(?:with|by)\s+["“]([^"”]+)["”]|将\s*["“]([^"”]+)["”]\s*(?:修改|替换|改)为\s*["“]([^"”]+)["”]"#).unwrap()
});
static DELETE_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)delete\s+(?:the\s+)?words?\s+["“]([^"”]+)["”]|删除\s*["“]([^"”]+)["”]"#)
        .unwrap()
});
static REPLACE_ALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:(?:and\s+)?(?:replace|substitute)\s+(?:it\s+|them\s+)?(?:with|by)\s+(?:the\s+following|:)|(?:is|shall\s+be)\s+(?:deleted\s+and\s+)?replaced\s+(?:in\s+its\s+entirety\s+)?(?:with|by)\s+(?:the\s+following)?|shall\s+read\s*(?:as\s+follows)?|(?:替换|修改)为(?:以下内容)?|改为如下)\s*[:：]").unwrap()
});
static ADD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\b(?:add|insert)\b[^:：\n]*|(?:增加|补充|增设)[^:：\n]*)[:：]").unwrap()
});
static DELETE_ALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:(?:is|are|shall\s+be)\s+deleted(?:\s+in\s+(?:its|their)\s+entirety)?|\bdelete\s+(?:this\s+)?sub-clause\b|本[条款](?:予以)?删除|删除本[条款]|不适用)").unwrap()
});

fn unquote(text: &str) -> String {
    text.trim().trim_matches(['"', '“', '”']).trim().to_string()
}

/// Applies the PC text of a sub-clause to its GC text.
pub fn merge(gc_text: &str, pc_text: &str) -> Merged {
    let gc_text = gc_text.trim();
    let pc_text = pc_text.trim();
    if pc_text.is_empty() {
        return Merged {
            status: ClauseStatus::Unchanged,
            text: gc_text.to_string(),
            modifications: Vec::new(),
        };
    }
    if gc_text.is_empty() {
        return new_sub_clause(pc_text);
    }
    if let Some(m) = REPLACE_ALL.find(pc_text) {
        return replaced(gc_text, unquote(&pc_text[m.end()..]));
    }
    let mut amending = Amending {
        text: gc_text.to_string(),
        modifications: Vec::new(),
        word_instructions: 0,
    };
    let substituted = amending.substitute(pc_text);
    let mut consumed = amending.delete_words(pc_text, &substituted);
    amending.add(pc_text, &mut consumed);
    let Amending {
        mut text,
        mut modifications,
        ..
    } = amending;
    if modifications.is_empty() {
        if DELETE_ALL.is_match(pc_text) {
            return Merged {
                status: ClauseStatus::Deleted,
                text: String::new(),
                modifications: vec![Modification {
                    kind: ModificationKind::Deleted,
                    gc_text: gc_text.to_string(),
                    pc_text: String::new(),
                    applied: true,
                    description: "sub-clause deleted in full".into(),
                }],
            };
        }
        text = format!("{gc_text}\n{pc_text}");
        modifications.push(Modification {
            kind: ModificationKind::Supplement,
            gc_text: String::new(),
            pc_text: pc_text.to_string(),
            applied: true,
            description: "PC text without a recognised instruction, read as a supplement".into(),
        });
    }
    Merged {
        status: ClauseStatus::Amended,
        text,
        modifications,
    }
}

/// A sub-clause the General Conditions do not have: the PC text, after any instruction
/// introducing it, is the whole of it.
fn new_sub_clause(pc_text: &str) -> Merged {
    let body = body_after_instruction(pc_text).unwrap_or_else(|| pc_text.to_string());
    Merged {
        status: ClauseStatus::Added,
        text: body.clone(),
        modifications: vec![Modification {
            kind: ModificationKind::NewSubClause,
            gc_text: String::new(),
            pc_text: body,
            applied: true,
            description: "new sub-clause introduced by the Particular Conditions".into(),
        }],
    }
}

/// A sub-clause the PC replace in full by `new_text`.
fn replaced(gc_text: &str, new_text: String) -> Merged {
    Merged {
        status: ClauseStatus::Replaced,
        text: new_text.clone(),
        modifications: vec![Modification {
            kind: ModificationKind::Replaced,
            gc_text: gc_text.to_string(),
            pc_text: new_text,
            applied: true,
            description: "sub-clause replaced in full".into(),
        }],
    }
}

/// The GC text as the PC's word instructions and additions amend it, one kind of
/// instruction after another.
struct Amending {
    /// The text so far.
    text: String,
    /// The modifications so far, in the order they were read.
    modifications: Vec<Modification>,
    /// Word instructions read so far: each reads the whole text, so past
    /// [`MAX_WORD_INSTRUCTIONS`] they are listed unapplied.
    word_instructions: usize,
}

impl Amending {
    /// Applies the PC's "replace these words with those" instructions; returns their places
    /// in the PC text, in order and apart (a binary search finds whether a deletion is part
    /// of one).
    fn substitute(&mut self, pc_text: &str) -> Vec<(usize, usize)> {
        let mut substituted: Vec<(usize, usize)> = Vec::new();
        for c in SUBSTITUTE.captures_iter(pc_text) {
            let whole = c.get(0).expect("match");
            substituted.push((whole.start(), whole.end()));
            let (old, new) = match (c.get(1), c.get(2)) {
                (Some(o), Some(n)) => (o.as_str(), n.as_str()),
                _ => (&c[3], &c[4]),
            };
            self.word_instructions += 1;
            if self.word_instructions > MAX_WORD_INSTRUCTIONS {
                self.modifications
                    .push(too_many(ModificationKind::WordsReplaced, old, new));
                continue;
            }
            let applied = self.text.contains(old);
            if applied {
                self.text = self.text.replace(old, new);
            }
            self.modifications.push(Modification {
                kind: ModificationKind::WordsReplaced,
                gc_text: old.to_string(),
                pc_text: new.to_string(),
                applied,
                description: if applied {
                    format!("\"{old}\" replaced by \"{new}\"")
                } else {
                    format!("the PC replace \"{old}\" but the General Conditions do not contain it")
                },
            });
        }
        substituted
    }

    /// Applies the PC's "delete these words" instructions that are not part of a
    /// substitution; returns the places in the PC text read so far (substitutions and
    /// deletions).
    fn delete_words(
        &mut self,
        pc_text: &str,
        substituted: &[(usize, usize)],
    ) -> Vec<(usize, usize)> {
        let inside_substitution = |at: usize| {
            let after = substituted.partition_point(|&(s, _)| s <= at);
            after.checked_sub(1).is_some_and(|i| at < substituted[i].1)
        };
        let mut consumed = substituted.to_vec();
        for c in DELETE_WORDS.captures_iter(pc_text) {
            let whole = c.get(0).expect("match");
            // Deletions do not overlap each other: only the substitutions can hold one.
            if inside_substitution(whole.start()) {
                continue;
            }
            consumed.push((whole.start(), whole.end()));
            let old = c.get(1).or(c.get(2)).expect("one group").as_str();
            self.word_instructions += 1;
            if self.word_instructions > MAX_WORD_INSTRUCTIONS {
                self.modifications
                    .push(too_many(ModificationKind::WordsDeleted, old, ""));
                continue;
            }
            let applied = self.text.contains(old);
            self.text = self
                .text
                .replace(old, "")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            self.modifications.push(Modification {
                kind: ModificationKind::WordsDeleted,
                gc_text: old.to_string(),
                pc_text: String::new(),
                applied,
                description: format!("\"{old}\" deleted"),
            });
        }
        consumed
    }

    /// Appends the text the PC add ("Add the following at the end: ..."), unless the words
    /// introducing it belong to an instruction already read.
    fn add(&mut self, pc_text: &str, consumed: &mut Vec<(usize, usize)>) {
        if let Some(m) = ADD.find(pc_text) {
            if !consumed
                .iter()
                .any(|&(s, e)| m.start() >= s && m.start() < e)
            {
                let added = unquote(&pc_text[m.end()..]);
                self.text = format!("{}\n{added}", self.text);
                self.modifications.push(Modification {
                    kind: ModificationKind::Added,
                    gc_text: String::new(),
                    pc_text: added,
                    applied: true,
                    description: format!(
                        "text added ({})",
                        m.as_str().trim_end_matches([':', '：']).trim()
                    ),
                });
                consumed.push((m.start(), pc_text.len()));
            }
        }
    }
}

/// The most word instructions (replace or delete these words) applied to one sub-clause:
/// each reads the whole text, so without a bound a long list of them against a long
/// sub-clause costs the product of the two lengths. Real Particular Conditions give a few.
pub const MAX_WORD_INSTRUCTIONS: usize = 200;

/// A word instruction past [`MAX_WORD_INSTRUCTIONS`]: listed, not applied.
fn too_many(kind: ModificationKind, old: &str, new: &str) -> Modification {
    Modification {
        kind,
        gc_text: old.to_string(),
        pc_text: new.to_string(),
        applied: false,
        description: format!(
            "\"{old}\" not applied: the PC give more than {MAX_WORD_INSTRUCTIONS} word changes for this sub-clause"
        ),
    }
}

fn body_after_instruction(pc_text: &str) -> Option<String> {
    let m = ADD.find(pc_text).or_else(|| REPLACE_ALL.find(pc_text))?;
    let rest = unquote(&pc_text[m.end()..]);
    (!rest.is_empty()).then_some(rest)
}

/// A change between two texts, word by word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TextChange {
    /// `removed` or `inserted`.
    pub change: String,
    /// The words removed or inserted.
    pub text: String,
}

/// The most words (of both texts, past their common beginning and end) compared word by word:
/// the diff costs their number times the number of changes, quadratic for two long texts
/// that differ throughout. Past it the changed middle is one removal and one insertion.
pub const MAX_DIFF_WORDS: usize = 10_000;

/// The word-level changes from `before` to `after`, adjacent words grouped.
pub fn word_changes(before: &str, after: &str) -> Vec<TextChange> {
    if let Some(changes) = coarse_changes(before, after) {
        return changes;
    }
    let diff = TextDiff::from_words(before, after);
    let mut out: Vec<TextChange> = Vec::new();
    for change in diff.iter_all_changes() {
        let kind = match change.tag() {
            ChangeTag::Delete => "removed",
            ChangeTag::Insert => "inserted",
            ChangeTag::Equal => {
                if change.value().trim().is_empty() {
                    continue;
                }
                out.push(TextChange {
                    change: String::new(),
                    text: String::new(),
                });
                continue;
            }
        };
        match out.last_mut() {
            Some(last) if last.change == kind => last.text.push_str(change.value()),
            _ => out.push(TextChange {
                change: kind.into(),
                text: change.value().to_string(),
            }),
        }
    }
    out.into_iter()
        .filter(|c| !c.change.is_empty())
        .map(|c| TextChange {
            text: c.text.split_whitespace().collect::<Vec<_>>().join(" "),
            ..c
        })
        .filter(|c| !c.text.is_empty())
        .collect()
}

/// The changes of two texts whose differing middle has more than [`MAX_DIFF_WORDS`] words,
/// as one removal and one insertion; `None` for the others (diffed word by word).
fn coarse_changes(before: &str, after: &str) -> Option<Vec<TextChange>> {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        before.split_whitespace().collect(),
        after.split_whitespace().collect(),
    );
    if a.len() + b.len() <= MAX_DIFF_WORDS {
        return None;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (removed, inserted) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if removed.len() + inserted.len() <= MAX_DIFF_WORDS {
        return None;
    }
    Some(
        [("removed", removed), ("inserted", inserted)]
            .into_iter()
            .filter(|(_, words)| !words.is_empty())
            .map(|(change, words)| TextChange {
                change: change.into(),
                text: words.join(" "),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GC: &str =
        "The Contractor shall give notice within 28 days after becoming aware of the event.";

    #[test]
    fn word_replacement_is_applied_and_diffed() {
        let m = merge(
            GC,
            "Delete the words \"28 days\" and replace them with \"14 days\".",
        );
        assert_eq!(m.status, ClauseStatus::Amended);
        assert_eq!(
            m.text,
            "The Contractor shall give notice within 14 days after becoming aware of the event."
        );
        assert_eq!(m.modifications[0].kind, ModificationKind::WordsReplaced);
        assert!(m.modifications[0].applied);
        let changes = word_changes(GC, &m.text);
        assert_eq!(
            changes,
            [
                TextChange {
                    change: "removed".into(),
                    text: "28".into()
                },
                TextChange {
                    change: "inserted".into(),
                    text: "14".into()
                }
            ]
        );
    }

    #[test]
    fn deletion_replacement_addition_and_chinese() {
        assert_eq!(
            merge(GC, "This Sub-Clause is deleted.").status,
            ClauseStatus::Deleted
        );
        let r = merge(GC, "Delete this Sub-Clause and replace it with the following:\n\"The Contractor shall notify promptly.\"");
        assert_eq!(
            (r.status, r.text.as_str()),
            (
                ClauseStatus::Replaced,
                "The Contractor shall notify promptly."
            )
        );
        let a = merge(
            GC,
            "Add the following at the end of the Sub-Clause:\nThe notice shall be in writing.",
        );
        assert!(a.text.ends_with("\nThe notice shall be in writing."));
        let z = merge("承包商应在28天内通知。", "将“28天”修改为“14天”。");
        assert_eq!(z.text, "承包商应在14天内通知。");
        let missing = merge(GC, "Replace \"42 days\" with \"21 days\".");
        assert!(!missing.modifications[0].applied);
        assert_eq!(merge("", "New text.").status, ClauseStatus::Added);
        assert_eq!(merge(GC, "").status, ClauseStatus::Unchanged);
    }

    #[test]
    fn word_instructions_past_the_bound_are_listed_unapplied() {
        let gc = "alpha beta gamma ".repeat(1_000);
        let mut pc = String::new();
        for i in 0..MAX_WORD_INSTRUCTIONS + 5 {
            pc.push_str(&format!("Replace \"word{i}\" with \"other{i}\". "));
        }
        pc.push_str("Delete the words \"beta\".");
        let m = merge(&gc, &pc);
        assert_eq!(m.modifications.len(), MAX_WORD_INSTRUCTIONS + 6);
        assert_eq!(m.text, gc.trim(), "nothing past the bound is applied");
        let last = m.modifications.last().unwrap();
        assert_eq!(last.kind, ModificationKind::WordsDeleted);
        assert!(!last.applied && last.description.contains("more than 200 word changes"));
        // Under the bound, a deletion inside a substitution is part of it.
        let m = merge(
            GC,
            "Delete the words \"28 days\" and replace them with \"14 days\".",
        );
        assert_eq!(m.modifications.len(), 1);
    }

    #[test]
    fn long_texts_differing_throughout_are_one_removal_and_one_insertion() {
        let before = format!("Start. {} End.", "a b ".repeat(MAX_DIFF_WORDS));
        let after = format!("Start. {} End.", "c d ".repeat(MAX_DIFF_WORDS));
        assert_eq!(
            word_changes(&before, &after),
            [
                TextChange {
                    change: "removed".into(),
                    text: "a b ".repeat(MAX_DIFF_WORDS).trim().to_string()
                },
                TextChange {
                    change: "inserted".into(),
                    text: "c d ".repeat(MAX_DIFF_WORDS).trim().to_string()
                }
            ]
        );
        // A long text with a small change is still diffed word by word.
        let long = "word ".repeat(MAX_DIFF_WORDS);
        assert_eq!(
            word_changes(&format!("{long}28 days"), &format!("{long}14 days")),
            [
                TextChange {
                    change: "removed".into(),
                    text: "28".into()
                },
                TextChange {
                    change: "inserted".into(),
                    text: "14".into()
                }
            ]
        );
    }
}
