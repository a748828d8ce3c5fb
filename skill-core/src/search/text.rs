//! From text to search terms: identifiers split into words, lowercase, stop words dropped,
//! English words stemmed, Chinese and Japanese as character bigrams.
//!
//! Tool names are identifiers (`get_current_weather`, `RentalCars_3_GetCarsAvailable`,
//! `math.factorial`), requests are prose ("rent a car"): both go through the same
//! [`Analyzer`], so `GetCarsAvailable` and "cars available" meet on `car` and `avail`.

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

/// Whether `c` is written without spaces between words (CJK ideographs, kana, hangul).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// Turns text into search terms. Share one (see [`Analyzer::shared`]): stems are memoised.
pub struct Analyzer {
    stemmer: Stemmer,
    stems: Mutex<FxHashMap<String, String>>,
}

impl Default for Analyzer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("stemmer", &"English (Snowball)")
            .finish_non_exhaustive()
    }
}

impl Analyzer {
    /// An analyzer for English text and identifiers.
    pub fn new() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
            stems: Mutex::new(FxHashMap::default()),
        }
    }

    /// The analyzer shared by every index of the process.
    pub fn shared() -> &'static Analyzer {
        static SHARED: OnceLock<Analyzer> = OnceLock::new();
        SHARED.get_or_init(Analyzer::new)
    }

    /// Calls `f` with every term of `text`, in order (repeats included).
    pub fn for_each_term(&self, text: &str, mut f: impl FnMut(&str)) {
        let mut stems = self.stems.lock().unwrap_or_else(|p| p.into_inner());
        let mut emit = |word: &str| {
            if word.is_empty() || STOP_WORDS.binary_search(&word).is_ok() {
                return;
            }
            if let Some(stem) = stems.get(word) {
                f(stem);
                return;
            }
            let stem = match self.stemmer.stem(word) {
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
        split_words(text, &mut emit);
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

/// Splits `text` into lowercase words: at anything not a letter or digit, at a lower-to-upper
/// change (`getWeather`), before the last capital of a run followed by lowercase (`HTTPServer`
/// -> `http server`) and between letters and digits (`Events3` -> `events 3`). Runs of CJK
/// characters give their character bigrams (a lone character gives itself).
fn split_words(text: &str, emit: &mut dyn FnMut(&str)) {
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
        if !word.is_empty() {
            emit(word);
            word.clear();
        }
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
        if let Some(prev) = last.filter(|_| !word.is_empty()) {
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
        split_words(text, &mut |w| out.push(w.to_string()));
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
}
