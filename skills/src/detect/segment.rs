//! Units of prediction: the clauses of the parsed document and the sentences inside them.
//!
//! The classifier scores sentences (CUAD's excerpts are mostly one sentence or one
//! paragraph, and a sentence is what a finding quotes); a clause's categories are those of
//! its sentences. Each sentence carries the heading of its clause (or of the nearest
//! ancestor with one), since "Governing Law" or "Insurance" in a heading says much about an
//! untitled sub-clause below it. The sentences are the text toolkit's classifier units
//! ([`crate::text::sentence_units`]), the one splitter's reading the model was trained on.
//!
//! For training and evaluation every unit is also located in the source text
//! ([`segment_aligned`]): the parser reflows lines and drops page furniture, so a unit's text
//! is not a substring of the source, but its words are, in order. A unit is anchored on its
//! first three words (nearest the end of the previous unit) and followed word by word.

use std::ops::Range;

use std::hash::Hasher as _;

use rustc_hash::{FxHashMap, FxHasher};

use crate::document::{Clause, DocumentStructure};
use crate::text::sentence_units;

/// The id given to the unnumbered text before the first clause.
pub const PREAMBLE_ID: &str = "preamble";

/// One clause and the sentences of its own text (children are clauses of their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClauseUnits {
    /// Clause number as the parser gives it ([`PREAMBLE_ID`] for the preamble).
    pub clause_id: String,
    /// Heading of the clause, or of its nearest ancestor with one.
    pub heading: String,
    /// Where the clause's title and own text lie in the source, when located.
    pub span: Option<Range<usize>>,
    /// Indices of its sentences in [`Segmented::sentences`].
    pub sentences: Range<usize>,
}

/// One sentence of a clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Index of its clause in [`Segmented::clauses`].
    pub clause: usize,
    /// The sentence as the clause text has it.
    pub text: String,
    /// Where it lies in the source, when located.
    pub span: Option<Range<usize>>,
}

/// A document cut into clauses and sentences.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Segmented {
    /// Preamble first, then every clause depth first in document order.
    pub clauses: Vec<ClauseUnits>,
    /// Every sentence, clause by clause.
    pub sentences: Vec<Sentence>,
}

/// Cuts a parsed document into clauses and sentences (no source positions).
pub fn segment(doc: &DocumentStructure) -> Segmented {
    build(doc, None)
}

/// Cuts a parsed document into clauses and sentences and locates each in `source`, the text
/// the document was parsed from.
pub fn segment_aligned(doc: &DocumentStructure, source: &str) -> Segmented {
    let mut aligner = Aligner::new(source);
    build(doc, Some(&mut aligner))
}

fn build(doc: &DocumentStructure, mut aligner: Option<&mut Aligner>) -> Segmented {
    let mut out = Segmented::default();
    if !doc.preamble.trim().is_empty() {
        push_clause(&mut out, PREAMBLE_ID, "", "", &doc.preamble, &mut aligner);
    }
    fn walk(
        clause: &Clause,
        inherited: &str,
        out: &mut Segmented,
        aligner: &mut Option<&mut Aligner>,
    ) {
        let heading = if clause.title.trim().is_empty() {
            inherited
        } else {
            clause.title.trim()
        };
        push_clause(
            out,
            &clause.clause_id,
            heading,
            &clause.title,
            &clause.text,
            aligner,
        );
        for child in &clause.children {
            walk(child, heading, out, aligner);
        }
    }
    for clause in &doc.clauses {
        walk(clause, "", &mut out, &mut aligner);
    }
    out
}

fn push_clause(
    out: &mut Segmented,
    clause_id: &str,
    heading: &str,
    title: &str,
    text: &str,
    aligner: &mut Option<&mut Aligner>,
) {
    let index = out.clauses.len();
    let first = out.sentences.len();
    let mut span: Option<Range<usize>> = None;
    let mut extend = |found: &Option<Range<usize>>| {
        if let Some(found) = found {
            span = Some(match span.take() {
                Some(s) => s.start.min(found.start)..s.end.max(found.end),
                None => found.clone(),
            });
        }
    };
    let title = title.trim();
    let title_span = match aligner.as_deref_mut() {
        Some(aligner) if !title.is_empty() => aligner.locate(title),
        _ => None,
    };
    extend(&title_span);
    let pieces = sentence_units(text);
    // A clause with a heading and no text is a unit of its own: its heading is its sentence.
    if pieces.is_empty() && !title.is_empty() {
        out.sentences.push(Sentence {
            clause: index,
            text: title.to_string(),
            span: title_span,
        });
    }
    for range in pieces {
        let sentence = &text[range];
        let located = aligner.as_deref_mut().and_then(|a| a.locate(sentence));
        extend(&located);
        out.sentences.push(Sentence {
            clause: index,
            text: sentence.to_string(),
            span: located,
        });
    }
    out.clauses.push(ClauseUnits {
        clause_id: clause_id.to_string(),
        heading: heading.to_string(),
        span,
        sentences: first..out.sentences.len(),
    });
}

/// A word of the source: its lowercased hash and byte range.
struct Word {
    hash: u64,
    span: Range<usize>,
}

/// A unit found this far before the cursor still counts as in order (words).
const BACKTRACK: usize = 50;
/// How far ahead a unit's next word is looked for once anchored (words the parser dropped:
/// clause numbers, page furniture).
const FOLLOW_WINDOW: usize = 12;

/// Locates units in the source. Units are anchored on their first three words, looked up in
/// an index of the source's word triples: the occurrence at or after the cursor (where the
/// previous unit ended) when there is one, else the nearest before it, so a clause the
/// parser moved (a schedule whose numbering restarts, nested under an earlier number) is
/// still found.
struct Aligner {
    words: Vec<Word>,
    triples: FxHashMap<u64, Vec<u32>>,
    cursor: usize,
}

fn triple(a: u64, b: u64, c: u64) -> u64 {
    let mut h = FxHasher::default();
    h.write_u64(a);
    h.write_u64(b);
    h.write_u64(c);
    h.finish()
}

impl Aligner {
    fn new(source: &str) -> Self {
        let words: Vec<Word> = word_spans(source)
            .map(|span| Word {
                hash: word_hash(&source[span.clone()]),
                span,
            })
            .collect();
        let mut triples: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
        for (i, w) in words.windows(3).enumerate() {
            triples
                .entry(triple(w[0].hash, w[1].hash, w[2].hash))
                .or_default()
                .push(i as u32);
        }
        Aligner {
            words,
            triples,
            cursor: 0,
        }
    }

    /// The source position of the `k` words `wanted` nearest the cursor.
    fn anchor(&self, wanted: &[u64]) -> Option<usize> {
        let from = self.cursor.saturating_sub(BACKTRACK);
        if wanted.len() == 3 {
            let positions = self.triples.get(&triple(wanted[0], wanted[1], wanted[2]))?;
            let after = positions.partition_point(|&p| (p as usize) < from);
            return positions
                .get(after)
                .or_else(|| after.checked_sub(1).and_then(|i| positions.get(i)))
                .map(|&p| p as usize);
        }
        // Units of one or two words: the first occurrence after the cursor.
        (from..self.words.len().saturating_sub(wanted.len() - 1)).find(|&p| {
            self.words[p..p + wanted.len()]
                .iter()
                .zip(wanted)
                .all(|(w, h)| w.hash == *h)
        })
    }

    /// The source range of `unit`; `None` when its words are not found.
    fn locate(&mut self, unit: &str) -> Option<Range<usize>> {
        let hashes: Vec<u64> = word_spans(unit).map(|s| word_hash(&unit[s])).collect();
        if hashes.is_empty() {
            return None;
        }
        let k = hashes.len().min(3);
        let (start, mut next) = (0..=hashes.len() - k)
            .take(4)
            .find_map(|skip| Some((self.anchor(&hashes[skip..skip + k])?, skip + k)))?;
        let mut last = start + k - 1;
        let mut q = last + 1;
        while next < hashes.len() {
            let limit = self.words.len().min(q + FOLLOW_WINDOW);
            if let Some(found) = (q..limit).find(|&i| self.words[i].hash == hashes[next]) {
                last = found;
                q = found + 1;
            }
            next += 1;
        }
        self.cursor = last + 1;
        Some(self.words[start].span.start..self.words[last].span.end)
    }
}

/// Byte ranges of the words (runs of letters and digits) of a text.
fn word_spans(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        while let Some(&(i, c)) = chars.peek() {
            if c.is_alphanumeric() {
                let start = i;
                let mut end = i;
                while let Some(&(j, d)) = chars.peek() {
                    if !d.is_alphanumeric() {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                return Some(start..end);
            }
            chars.next();
        }
        None
    })
}

fn word_hash(word: &str) -> u64 {
    let mut hasher = FxHasher::default();
    for c in word.chars().flat_map(char::to_lowercase) {
        hasher.write_u32(c as u32);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_text;

    #[test]
    fn units_are_located_in_the_source_despite_reflowed_lines() {
        let source = "SUPPLY AGREEMENT\n\nThis Agreement is made between Alpha Ltd and Beta Inc.\n\n1. Governing Law\n\nThis Agreement shall be governed by the laws of\nthe State of New York.   Page 3\n\n2. Assignment\n\nNeither party may assign this Agreement without the prior written consent of the other party.\n";
        let doc = parse_text("c", source);
        let seg = segment_aligned(&doc, source);
        let ids: Vec<&str> = seg.clauses.iter().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["preamble", "1", "2"]);
        let law = &seg.sentences[seg.clauses[1].sentences.start];
        let span = law.span.clone().expect("located");
        assert!(source[span.clone()].starts_with("This Agreement shall be governed"));
        assert!(source[span].ends_with("New York"));
        assert_eq!(seg.clauses[1].heading, "Governing Law");
        let assign = &seg.sentences[seg.clauses[2].sentences.start];
        assert!(source[assign.span.clone().unwrap()].starts_with("Neither party may assign"));
    }

    #[test]
    fn a_unit_out_of_document_order_is_still_located() {
        let source = "The Buyer shall pay the price within thirty days of delivery of the goods. The Seller shall deliver the goods to the port of loading named by the Buyer.";
        let mut aligner = Aligner::new(source);
        let second = aligner
            .locate("The Seller shall deliver the goods to the port of loading")
            .unwrap();
        assert!(source[second].starts_with("The Seller"));
        let first = aligner
            .locate("The Buyer shall pay the price within thirty days")
            .unwrap();
        assert_eq!(first.start, 0);
        assert!(aligner.locate("Nothing here matches at all").is_none());
    }

    #[test]
    fn untitled_sub_clauses_inherit_the_heading_above() {
        let source = "1. Insurance\n\n1.1 The Contractor shall maintain public liability cover of at least one million dollars.\n\n1.2 Certificates shall be delivered to the Owner before work starts on the site.\n";
        let seg = segment(&parse_text("c", source));
        let headings: Vec<&str> = seg.clauses.iter().map(|c| c.heading.as_str()).collect();
        assert_eq!(headings, ["Insurance", "Insurance", "Insurance"]);
        assert!(seg.sentences.iter().all(|s| s.span.is_none()));
    }
}
