//! From text to search terms: the workspace's one tokenizer. Words lowercase, stop words
//! dropped, Chinese, Japanese and Korean as character bigrams; for tool search also
//! identifiers split into words and English words stemmed.
//!
//! Tool names are identifiers (`get_current_weather`, `RentalCars_3_GetCarsAvailable`,
//! `math.factorial`), requests are prose ("rent a car"): both go through the same
//! [`Analyzer`], so `GetCarsAvailable` and "cars available" meet on `car` and `avail`.
//! Documents in prose (the review's reference documents) use [`Analyzer::prose`]: words as
//! written, the caller's stop words.

use std::borrow::Cow;
use std::sync::{Mutex, OnceLock};

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;

/// Words that say nothing about which tool is meant: function words and the politeness of
/// requests ("could you please ...").
const STOP_WORDS: &[&str] = &[
    "a", "about", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "here",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let", "me", "my", "of",
    "on", "or", "our", "please", "she", "should", "so", "some", "such", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "to", "us", "was", "we",
    "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you",
    "your",
];

/// Whether `c` is written without spaces between words (CJK ideographs, kana, hangul): such
/// runs are searched by character bigrams.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// Turns text into search terms. Share one (see [`Analyzer::shared`]): stems are memoised.
pub struct Analyzer {
    /// `None`: words are kept as written.
    stemmer: Option<Stemmer>,
    stems: Mutex<FxHashMap<String, String>>,
    /// Sorted, lowercase.
    stop_words: &'static [&'static str],
    /// Identifiers split at case and digit changes (`getWeather` -> `get weather`).
    split_identifiers: bool,
    /// Words (not CJK bigrams) shorter than this many characters are dropped.
    min_word_chars: usize,
}

impl Default for Analyzer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field(
                "stemmer",
                &self.stemmer.as_ref().map(|_| "English (Snowball)"),
            )
            .field("stop_words", &self.stop_words.len())
            .field("split_identifiers", &self.split_identifiers)
            .field("min_word_chars", &self.min_word_chars)
            .finish_non_exhaustive()
    }
}

impl Analyzer {
    /// An analyzer for English text and identifiers (tool search): identifiers split,
    /// words stemmed, function words and request politeness dropped.
    pub fn new() -> Self {
        Self {
            stemmer: Some(Stemmer::create(Algorithm::English)),
            stems: Mutex::new(FxHashMap::default()),
            stop_words: STOP_WORDS,
            split_identifiers: true,
            min_word_chars: 1,
        }
    }

    /// An analyzer for prose searched word for word: words as written (lowercase, not
    /// stemmed, identifiers not split), words of one character and `stop_words` dropped.
    ///
    /// # Panics
    /// If `stop_words` is not sorted and lowercase (a programming error, not input).
    pub fn prose(stop_words: &'static [&'static str]) -> Self {
        assert!(
            stop_words.windows(2).all(|w| w[0] < w[1])
                && stop_words
                    .iter()
                    .all(|w| w.chars().all(|c| !c.is_uppercase())),
            "stop words must be sorted, unique and lowercase"
        );
        Self {
            stemmer: None,
            stems: Mutex::new(FxHashMap::default()),
            stop_words,
            split_identifiers: false,
            min_word_chars: 2,
        }
    }

    /// The analyzer shared by every index of the process.
    pub fn shared() -> &'static Analyzer {
        static SHARED: OnceLock<Analyzer> = OnceLock::new();
        SHARED.get_or_init(Analyzer::new)
    }

    /// Calls `f` with every term of `text`, in order (repeats included).
    pub fn for_each_term(&self, text: &str, mut f: impl FnMut(&str)) {
        let split = Split {
            identifiers: self.split_identifiers,
            min_word_chars: self.min_word_chars,
        };
        let Some(stemmer) = &self.stemmer else {
            let mut emit = |word: &str| {
                if !word.is_empty() && self.stop_words.binary_search(&word).is_err() {
                    f(word);
                }
            };
            split_words(text, split, &mut emit);
            return;
        };
        let mut stems = self.stems.lock().unwrap_or_else(|p| p.into_inner());
        let mut emit = |word: &str| {
            if word.is_empty() || self.stop_words.binary_search(&word).is_ok() {
                return;
            }
            if let Some(stem) = stems.get(word) {
                f(stem);
                return;
            }
            let stem = match stemmer.stem(word) {
                // Numbers and one-letter words are kept as written.
                _ if word.len() < 3 || word.bytes().any(|b| b.is_ascii_digit()) => {
                    Cow::Borrowed(word)
                }
                stem => stem,
            };
            f(&stem);
            if stems.len() < 200_000 {
                stems.insert(word.to_string(), stem.into_owned());
            }
        };
        split_words(text, split, &mut emit);
    }

    /// The terms of `text`, in order.
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_term(text, |t| out.push(t.to_string()));
        out
    }
}

/// Endings of English contractions and possessives ("I'm", "don't", "we'll", "user's"):
/// after an apostrophe they are no words of their own.
const CONTRACTION_ENDINGS: &[&str] = &["d", "ll", "m", "re", "s", "t", "ve"];

/// After an apostrophe that follows a letter: skips a contraction ending, if one follows.
fn skip_contraction_ending(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    let mut ahead = chars.clone();
    let mut ending = String::new();
    while let Some(c) = ahead.next_if(|c| c.is_alphanumeric()) {
        ending.extend(c.to_lowercase());
        if ending.len() > 2 {
            return;
        }
    }
    if CONTRACTION_ENDINGS.contains(&ending.as_str()) {
        for _ in 0..ending.len() {
            chars.next();
        }
    }
}

/// How [`split_words`] splits.
#[derive(Debug, Clone, Copy)]
struct Split {
    /// Also split identifiers at case and letter/digit changes.
    identifiers: bool,
    /// Shorter words are not emitted (CJK bigrams and lone characters always are).
    min_word_chars: usize,
}

/// Splits `text` into lowercase words at anything not a letter or digit and, when
/// `split.identifiers`, also at a lower-to-upper change (`getWeather`), before the last
/// capital of a run followed by lowercase (`HTTPServer` -> `http server`) and between letters
/// and digits (`Events3` -> `events 3`). Runs of CJK characters give their character bigrams
/// (a lone character gives itself).
fn split_words(text: &str, split: Split, emit: &mut dyn FnMut(&str)) {
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let mut pair = String::new();
    let mut flush_cjk = |run: &mut Vec<char>, emit: &mut dyn FnMut(&str)| {
        if run.len() == 1 {
            pair.clear();
            pair.push(run[0]);
            emit(&pair);
        }
        for w in run.windows(2) {
            pair.clear();
            pair.push(w[0]);
            pair.push(w[1]);
            emit(&pair);
        }
        run.clear();
    };
    let flush = |word: &mut String, emit: &mut dyn FnMut(&str)| {
        if !word.is_empty()
            && (split.min_word_chars <= 1 || word.chars().count() >= split.min_word_chars)
        {
            emit(word);
        }
        word.clear();
    };
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let last = prev.replace(c);
        if !c.is_ascii() && is_cjk(c) {
            flush(&mut word, emit);
            cjk.push(c);
            continue;
        }
        if !cjk.is_empty() {
            flush_cjk(&mut cjk, emit);
        }
        if !c.is_alphanumeric() {
            if matches!(c, '\'' | '\u{2019}') && last.is_some_and(char::is_alphabetic) {
                skip_contraction_ending(&mut chars);
            }
            flush(&mut word, emit);
            continue;
        }
        if let Some(prev) = last.filter(|_| split.identifiers && !word.is_empty()) {
            let boundary = (c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit()))
                || (c.is_uppercase()
                    && prev.is_uppercase()
                    && chars.peek().is_some_and(|n| n.is_lowercase()))
                || (c.is_ascii_digit() && prev.is_alphabetic())
                || (c.is_alphabetic() && prev.is_ascii_digit());
            if boundary {
                flush(&mut word, emit);
            }
        }
        if c.is_ascii() {
            word.push(c.to_ascii_lowercase());
        } else {
            word.extend(c.to_lowercase());
        }
    }
    flush(&mut word, emit);
    if !cjk.is_empty() {
        flush_cjk(&mut cjk, emit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let split = Split {
            identifiers: true,
            min_word_chars: 1,
        };
        split_words(text, split, &mut |w| out.push(w.to_string()));
        out
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn identifiers_split_into_words() {
        assert_eq!(words("get_current_weather"), ["get", "current", "weather"]);
        assert_eq!(words("math.factorial"), ["math", "factorial"]);
        assert_eq!(
            words("RentalCars_3_GetCarsAvailable"),
            ["rental", "cars", "3", "get", "cars", "available"]
        );
        assert_eq!(words("HTTPServer2xx"), ["http", "server", "2", "xx"]);
        assert_eq!(words("Events3"), ["events", "3"]);
    }

    #[test]
    fn contraction_endings_are_no_words() {
        assert_eq!(
            words("I'm sure it's the user\u{2019}s file, don't we'll"),
            ["i", "sure", "it", "the", "user", "file", "don", "we"]
        );
        // Quotes, names and other apostrophes keep their words.
        assert_eq!(words("set 'COOL' mode"), ["set", "cool", "mode"]);
        assert_eq!(
            words("O'Brien rock'n'roll"),
            ["o", "brien", "rock", "n", "roll"]
        );
        assert_eq!(words("the users' files"), ["the", "users", "files"]);
        assert_eq!(words("it's"), ["it"]);
        assert_eq!(words("x'"), ["x"]);
    }

    #[test]
    fn cjk_runs_give_bigrams() {
        assert_eq!(words("北京天气 today"), ["北京", "京天", "天气", "today"]);
        assert_eq!(words("雨"), ["雨"]);
    }

    #[test]
    fn terms_are_stemmed_without_stop_words() {
        let a = Analyzer::new();
        assert_eq!(
            a.terms("Could you please find the hotels booked?"),
            ["find", "hotel", "book"]
        );
        assert_eq!(a.terms("searchHotels"), a.terms("search hotel"));
        // Numbers are kept whole.
        assert_eq!(a.terms("2023 v1"), ["2023", "v", "1"]);
    }

    #[test]
    fn prose_keeps_words_as_written() {
        const STOP: &[&str] = &["of", "the"];
        let a = Analyzer::prose(STOP);
        assert_eq!(
            a.terms("The Pumps of GC20, 合同价格!"),
            ["pumps", "gc20", "合同", "同价", "价格"]
        );
        // One-letter words go, a lone CJK character stays; contractions lose their ending.
        assert_eq!(a.terms("a (b) 价 don't"), ["价", "don"]);
        assert_eq!(a.terms("testing tested"), ["testing", "tested"]);
    }

    #[test]
    #[should_panic(expected = "sorted")]
    fn prose_stop_words_must_be_sorted() {
        let _ = Analyzer::prose(&["the", "of"]);
    }
}
