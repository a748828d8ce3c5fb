//! Text features of a sentence: word unigrams and bigrams of the sentence, the words of its
//! clause heading as separate features (`h:insurance`), and the words of the sentence
//! before it in the same clause (`p:terminate`: a provision often runs over several
//! sentences, and the second rarely repeats the first's key words), weighted by sublinear
//! tf-idf and L2-normalised. A recipe may leave the previous sentence's words out of the
//! vocabulary; classifying then ignores them.
//!
//! Words are lowercased runs of letters; every run of digits is one token `#` (amounts,
//! periods and clause numbers vary, their presence does not); single letters (list labels)
//! are dropped. Terms are identified by a 64-bit hash while training and classifying; the
//! model file keeps the terms as text and rebuilds the hashes when loaded.

use std::hash::Hasher as _;

use rustc_hash::FxHasher;

/// A term hash with how often the term occurs in the sentence, sorted by hash.
pub(crate) type TermCounts = Vec<(u64, u32)>;

/// What kind of term a hash stands for (mixed into the hash).
#[derive(Clone, Copy)]
enum Kind {
    Word = 1,
    Bigram = 2,
    Heading = 3,
    Previous = 4,
}

/// The prefix of a heading word's term text.
const HEADING_PREFIX: &str = "h:";
/// The prefix of a previous sentence word's term text.
pub(crate) const PREVIOUS_PREFIX: &str = "p:";

fn word_hash(word: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(word.as_bytes());
    h.write_u8(0xff);
    h.finish()
}

fn term_hash(kind: Kind, a: u64, b: u64) -> u64 {
    let mut h = FxHasher::default();
    h.write_u8(kind as u8);
    h.write_u64(a);
    h.write_u64(b);
    h.finish()
}

/// Calls `each` with every normalised token of a text (one reused buffer, no allocation
/// per token).
fn each_token(text: &str, mut each: impl FnMut(&str)) {
    let mut current = String::new();
    let mut digits = false;
    let mut flush = |current: &mut String, digits: &mut bool| {
        if *digits {
            each("#");
        } else if current.chars().nth(1).is_some() {
            each(current);
        }
        current.clear();
        *digits = false;
    };
    for c in text.chars() {
        if c.is_alphabetic() {
            if digits {
                flush(&mut current, &mut digits);
            }
            if c.is_ascii() {
                current.push(c.to_ascii_lowercase());
            } else {
                current.extend(c.to_lowercase());
            }
        } else if c.is_ascii_digit() {
            if !digits && !current.is_empty() {
                flush(&mut current, &mut digits);
            }
            digits = true;
        } else if c == '\'' || c == '’' {
            // "party's" reads as "partys": keep the word, drop the mark.
            continue;
        } else if !current.is_empty() || digits {
            flush(&mut current, &mut digits);
        }
    }
    if !current.is_empty() || digits {
        flush(&mut current, &mut digits);
    }
}

/// The normalised tokens of a text.
#[cfg(any(feature = "train", test))]
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_token(text, |t| out.push(t.to_string()));
    out
}

/// The hashes of the normalised tokens of a text.
fn token_hashes(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    each_token(text, |t| out.push(word_hash(t)));
    out
}

/// The hashes of the words of a text, in order (what [`counts_of`] reads).
pub(crate) fn word_hashes(text: &str) -> Vec<u64> {
    token_hashes(text)
}

/// Word hashes each once, sorted (a heading's or a previous sentence's words count once).
pub(crate) fn distinct(mut words: Vec<u64>) -> Vec<u64> {
    words.sort_unstable();
    words.dedup();
    words
}

/// The term counts of a sentence from its word hashes, its heading's distinct word hashes
/// and the previous sentence's distinct word hashes: callers that classify a clause's
/// sentences in order hash each text once.
pub(crate) fn counts_of(heading: &[u64], previous: Option<&[u64]>, words: &[u64]) -> TermCounts {
    let mut all =
        Vec::with_capacity(words.len() * 2 + heading.len() + previous.map_or(0, <[u64]>::len));
    for (i, h) in words.iter().enumerate() {
        all.push(term_hash(Kind::Word, *h, 0));
        if let Some(next) = words.get(i + 1) {
            all.push(term_hash(Kind::Bigram, *h, *next));
        }
    }
    all.extend(heading.iter().map(|h| term_hash(Kind::Heading, *h, 0)));
    if let Some(previous) = previous {
        all.extend(previous.iter().map(|h| term_hash(Kind::Previous, *h, 0)));
    }
    all.sort_unstable();
    let mut out: TermCounts = Vec::new();
    for h in all {
        match out.last_mut() {
            Some((last, n)) if *last == h => *n += 1,
            _ => out.push((h, 1)),
        }
    }
    out
}

/// Every term occurrence of a sentence under a heading after `previous`, with its text
/// (heading and previous words once).
#[cfg(any(feature = "train", test))]
pub(crate) fn named_terms(
    heading: &str,
    previous: Option<&str>,
    sentence: &str,
    mut each: impl FnMut(u64, String),
) {
    let words = tokens(sentence);
    let hashes: Vec<u64> = words.iter().map(|w| word_hash(w)).collect();
    for (i, (w, h)) in words.iter().zip(&hashes).enumerate() {
        each(term_hash(Kind::Word, *h, 0), w.clone());
        if i + 1 < words.len() {
            each(
                term_hash(Kind::Bigram, *h, hashes[i + 1]),
                format!("{w} {}", words[i + 1]),
            );
        }
    }
    let mut once = |kind: Kind, prefix: &str, text: &str| {
        let mut distinct = tokens(text);
        distinct.sort();
        distinct.dedup();
        for w in distinct {
            each(term_hash(kind, word_hash(&w), 0), format!("{prefix}{w}"));
        }
    };
    once(Kind::Heading, HEADING_PREFIX, heading);
    if let Some(previous) = previous {
        once(Kind::Previous, PREVIOUS_PREFIX, previous);
    }
}

/// The terms of a sentence under a heading after `previous`, with their counts.
pub(crate) fn term_counts(heading: &str, previous: Option<&str>, sentence: &str) -> TermCounts {
    let previous = previous.map(|p| distinct(token_hashes(p)));
    counts_of(
        &distinct(token_hashes(heading)),
        previous.as_deref(),
        &token_hashes(sentence),
    )
}

/// The hash of a term written as the model file keeps it: `word`, `word word`, `h:word` or
/// `p:word`.
pub(crate) fn hash_of_term(term: &str) -> Option<u64> {
    if let Some(word) = term.strip_prefix(HEADING_PREFIX) {
        return Some(term_hash(Kind::Heading, word_hash(word), 0));
    }
    if let Some(word) = term.strip_prefix(PREVIOUS_PREFIX) {
        return Some(term_hash(Kind::Previous, word_hash(word), 0));
    }
    match term.split_once(' ') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() && !b.contains(' ') => {
            Some(term_hash(Kind::Bigram, word_hash(a), word_hash(b)))
        }
        Some(_) => None,
        None if !term.is_empty() => Some(term_hash(Kind::Word, word_hash(term), 0)),
        None => None,
    }
}

/// Sublinear tf-idf of the known terms, L2-normalised, sorted by term index.
pub(crate) fn tf_idf(
    counts: &TermCounts,
    index: impl Fn(u64) -> Option<u32>,
    idf: &[f32],
) -> Vec<(u32, f32)> {
    let mut out: Vec<(u32, f32)> = counts
        .iter()
        .filter_map(|(h, n)| {
            let i = index(*h)?;
            Some((i, (1.0 + (*n as f32).ln()) * idf[i as usize]))
        })
        .collect();
    let norm = out.iter().map(|(_, v)| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        for (_, v) in &mut out {
            *v /= norm;
        }
    }
    out.sort_unstable_by_key(|(i, _)| *i);
    out
}

/// Smoothed inverse document frequency: `ln((1 + n) / (1 + df)) + 1`.
#[cfg(feature = "train")]
pub(crate) fn idf(documents: usize, df: u32) -> f32 {
    (((1 + documents) as f64 / (1 + df) as f64).ln() + 1.0) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_fold_case_digits_and_list_labels() {
        assert_eq!(
            tokens("(a) Within 30 days, the Party's NOTICE shall be given; 2.1b"),
            ["within", "#", "days", "the", "partys", "notice", "shall", "be", "given", "#", "#"]
        );
    }

    #[test]
    fn named_terms_hash_as_the_model_file_rebuilds_them() {
        let mut seen = Vec::new();
        named_terms(
            "Governing Law",
            Some("Disputes go to the courts."),
            "governed by the laws of New York",
            |h, t| seen.push((h, t)),
        );
        assert!(seen.iter().any(|(_, t)| t == "governed by"));
        assert!(seen.iter().any(|(_, t)| t == "h:law"));
        assert!(seen.iter().any(|(_, t)| t == "p:courts"));
        for (h, t) in &seen {
            assert_eq!(hash_of_term(t), Some(*h), "{t}");
        }
        let counts = term_counts(
            "Governing Law",
            Some("Disputes go to the courts."),
            "governed by the laws of New York",
        );
        let mut hashes: Vec<u64> = seen.iter().map(|(h, _)| *h).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(counts.iter().map(|(h, _)| *h).collect::<Vec<_>>(), hashes);
    }

    #[test]
    fn tf_idf_is_unit_length_and_sublinear() {
        let counts = term_counts("", None, "notice notice notice period");
        let vector = tf_idf(
            &counts,
            |h| counts.iter().position(|(x, _)| *x == h).map(|i| i as u32),
            &[1.0; 8],
        );
        let norm: f32 = vector.iter().map(|(_, v)| v * v).sum();
        assert!((norm - 1.0).abs() < 1e-5);
        let notice = hash_of_term("notice").unwrap();
        let period = hash_of_term("period").unwrap();
        let weight = |h: u64| {
            let i = counts.iter().position(|(x, _)| *x == h).unwrap() as u32;
            vector.iter().find(|(j, _)| *j == i).unwrap().1
        };
        let ratio = weight(notice) / weight(period);
        assert!((ratio - (1.0 + 3f32.ln())).abs() < 1e-4, "{ratio}");
    }

    #[test]
    fn counting_from_hashed_words_is_counting_from_text() {
        let (heading, previous, sentence) = (
            "Term and Termination",
            "This Agreement runs for three years.",
            "Either party may end it on 90 days' notice, notice in writing.",
        );
        assert_eq!(
            counts_of(
                &distinct(word_hashes(heading)),
                Some(&distinct(word_hashes(previous))),
                &word_hashes(sentence)
            ),
            term_counts(heading, Some(previous), sentence)
        );
        assert_ne!(
            term_counts(heading, Some(previous), sentence),
            term_counts(heading, None, sentence),
            "the previous sentence's words are terms of their own"
        );
    }
}
