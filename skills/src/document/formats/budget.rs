//! What reading one document may cost, for every reader (PDF, Word, text): bytes inflated
//! from compressed streams and parts, nesting (PDF forms inside forms, saved graphics
//! states), content-stream operators per PDF page, and lines of the text produced (a clause
//! takes at least one line, so this bounds clauses too). Each is sized from the 50 MiB input
//! limit ([`MAX_DOCUMENT_BYTES`](super::MAX_DOCUMENT_BYTES)) and checked *before* the work it
//! bounds is done, so a document over it is refused with [`OverBudget`] naming the limit,
//! instead of filling memory or running for minutes.
//!
//! | limit | value | why |
//! |---|---|---|
//! | bytes inflated, whole document | 20 x the file's size, at least 16 MiB, at most 200 MiB (4 x 50 MiB) | text streams and Word XML compress 3x to 15x; a bomb compresses 1000x |
//! | nesting of forms and of `q` saved states | 128 | real files nest a few levels |
//! | nesting inside one PDF object: arrays, dictionaries, parentheses in a string | 64 | real files nest a few levels; the PDF loader drops an object nested past 100 |
//! | operators per PDF page, forms drawn on it included | 500,000 | a dense page of text has a few thousand; a detailed drawing tens of thousands |
//! | operators in a whole PDF | 50,000,000 | one per byte of the largest file (a page shared by many pages counts on each) |
//! | lines (paragraphs) of the text | 1,000,000 | 50 MiB of text at 52 bytes a line |

use std::io::Read;

/// The largest number of bytes inflated for one document, whatever its size.
pub const MAX_INFLATED_BYTES: u64 = 4 * super::MAX_DOCUMENT_BYTES;
/// Bytes a document may always inflate to, however small the file.
pub const MIN_INFLATED_BYTES: u64 = 16 * 1024 * 1024;
/// Bytes inflated per byte of the file.
pub const INFLATION_RATIO: u64 = 20;
/// Deepest nesting of PDF forms, and of saved graphics states in one content stream.
pub const MAX_NESTING: usize = 128;
/// Deepest nesting inside one PDF object (arrays, dictionaries, parentheses in a literal
/// string), in the file, in its object streams and in content streams. Below the PDF
/// loader's own limit (100), past which it drops the object with only a log line, so the
/// document would read as having no pages.
pub const MAX_OBJECT_NESTING: usize = 64;
/// Most content-stream operators on one PDF page, forms drawn on it included.
pub const MAX_OPERATORS_PER_PAGE: u64 = 500_000;
/// Most content-stream operators in one PDF, all pages together.
pub const MAX_OPERATORS: u64 = 50_000_000;
/// Most lines (Word paragraphs, PDF or text lines) in the text of one document.
pub const MAX_LINES: usize = 1_000_000;

/// A limit of the document budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Bytes inflated from compressed PDF streams or Word parts, over the whole document.
    InflatedBytes,
    /// Depth of nested PDF forms, or of saved graphics states (`q`) in one content stream.
    Nesting,
    /// Depth of arrays, dictionaries and parentheses in a string inside one PDF object.
    ObjectNesting,
    /// Content-stream operators on one PDF page.
    OperatorsPerPage,
    /// Content-stream operators in the whole PDF.
    Operators,
    /// Lines (paragraphs) of the text read.
    Lines,
}

impl Limit {
    /// What the limit counts, for messages.
    pub fn counts(self) -> &'static str {
        match self {
            Limit::InflatedBytes => "bytes inflated from compressed streams",
            Limit::Nesting => "levels of nesting (forms or saved graphics states)",
            Limit::ObjectNesting => {
                "levels of nesting in one PDF object (arrays, dictionaries, parentheses in a string)"
            }
            Limit::OperatorsPerPage => "drawing operators on one page",
            Limit::Operators => "drawing operators in the document",
            Limit::Lines => "lines of text",
        }
    }
}

/// A document that needs more than the budget allows: refused, with the limit it crossed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("over the document budget: more than {allowed} {} {where_}(the limit for this file; contracts stay far below it)", limit.counts())]
pub struct OverBudget {
    /// The limit crossed.
    pub limit: Limit,
    /// What it allows for this document.
    pub allowed: u64,
    /// Where it was crossed (`on page 3 `), or empty.
    pub where_: String,
}

/// The budget of one document being read: its limits, and the bytes inflated so far.
#[derive(Debug, Clone)]
pub struct Budget {
    inflated_allowed: u64,
    inflated: u64,
}

impl Budget {
    /// The budget of a file of `input_bytes` bytes.
    pub fn for_input(input_bytes: u64) -> Budget {
        Budget {
            inflated_allowed: input_bytes
                .saturating_mul(INFLATION_RATIO)
                .clamp(MIN_INFLATED_BYTES, MAX_INFLATED_BYTES),
            inflated: 0,
        }
    }

    /// Bytes this document may inflate to in all.
    pub fn inflated_allowed(&self) -> u64 {
        self.inflated_allowed
    }

    /// Bytes it may still inflate.
    pub fn inflated_left(&self) -> u64 {
        self.inflated_allowed - self.inflated
    }

    /// Counts `bytes` more inflated; over the budget is an error.
    pub fn inflate(&mut self, bytes: u64) -> Result<(), OverBudget> {
        if bytes > self.inflated_left() {
            return Err(self.over(Limit::InflatedBytes, String::new()));
        }
        self.inflated += bytes;
        Ok(())
    }

    /// Reads all of `reader` (a decompressing reader) into a buffer, counting what it
    /// yields; stops one byte past the budget, so a bomb never fills memory.
    pub fn read_inflated(&mut self, reader: impl Read) -> Result<Vec<u8>, InflateError> {
        let left = self.inflated_left();
        let mut out = Vec::new();
        reader
            .take(left.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(InflateError::Read)?;
        self.inflate(out.len() as u64).map_err(InflateError::Over)?;
        Ok(out)
    }

    /// Reads `reader` as a lenient PDF reader does: what it yields before its data turns out
    /// corrupt is kept. Everything yielded is counted; stops one byte past the budget.
    pub fn read_inflated_lenient(&mut self, reader: impl Read) -> Result<Vec<u8>, OverBudget> {
        let mut out = Vec::new();
        let mut reader = reader.take(self.inflated_left().saturating_add(1));
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match reader.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&chunk[..n]),
            }
        }
        self.inflate(out.len() as u64)?;
        Ok(out)
    }

    /// How many bytes `reader` yields, counted without keeping them (up to where its data
    /// turns out corrupt); stops past the budget. The bytes are counted against the budget.
    pub fn count_inflated(&mut self, reader: impl Read) -> Result<u64, OverBudget> {
        let mut reader = reader.take(self.inflated_left().saturating_add(1));
        let mut chunk = [0u8; 64 * 1024];
        let mut n = 0u64;
        loop {
            match reader.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(k) => n += k as u64,
            }
        }
        self.inflate(n)?;
        Ok(n)
    }

    /// The error for crossing `limit` (other than inflation, whose allowance is this
    /// document's).
    pub fn over(&self, limit: Limit, where_: String) -> OverBudget {
        let allowed = match limit {
            Limit::InflatedBytes => self.inflated_allowed,
            Limit::Nesting => MAX_NESTING as u64,
            Limit::ObjectNesting => MAX_OBJECT_NESTING as u64,
            Limit::OperatorsPerPage => MAX_OPERATORS_PER_PAGE,
            Limit::Operators => MAX_OPERATORS,
            Limit::Lines => MAX_LINES as u64,
        };
        OverBudget {
            limit,
            allowed,
            where_,
        }
    }

    /// The text has at most [`MAX_LINES`] lines.
    pub fn check_lines(&self, text: &str) -> Result<(), OverBudget> {
        if text.lines().nth(MAX_LINES).is_some() {
            return Err(too_many_lines());
        }
        Ok(())
    }
}

/// The error for a document of more than [`MAX_LINES`] lines (or paragraphs).
pub fn too_many_lines() -> OverBudget {
    OverBudget {
        limit: Limit::Lines,
        allowed: MAX_LINES as u64,
        where_: String::new(),
    }
}

/// Why inflating a stream stopped.
#[derive(Debug)]
pub enum InflateError {
    /// The budget ran out.
    Over(OverBudget),
    /// The compressed data is not valid.
    Read(std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn deflate(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn the_allowance_follows_the_file_size_within_bounds() {
        assert_eq!(Budget::for_input(1).inflated_allowed(), MIN_INFLATED_BYTES);
        assert_eq!(Budget::for_input(2 << 20).inflated_allowed(), 40 << 20);
        assert_eq!(
            Budget::for_input(super::super::MAX_DOCUMENT_BYTES).inflated_allowed(),
            MAX_INFLATED_BYTES
        );
    }

    #[test]
    fn inflation_stops_one_byte_past_the_budget() {
        // 10 times the whole allowance of a small file, compressed to a few kilobytes.
        let bomb =
            super::super::hostile::zlib_repeated(b" ", 10 * (MIN_INFLATED_BYTES >> 20) as usize);
        assert!(bomb.len() < 1 << 20, "{}", bomb.len());
        let mut budget = Budget::for_input(bomb.len() as u64);
        match budget.read_inflated(flate2::read::ZlibDecoder::new(&bomb[..])) {
            Err(InflateError::Over(over)) => {
                assert_eq!(over.limit, Limit::InflatedBytes);
                assert_eq!(over.allowed, MIN_INFLATED_BYTES);
                assert!(over.to_string().contains("bytes inflated"), "{over}");
            }
            other => panic!("expected the budget to run out, got {other:?}"),
        }
        let mut budget = Budget::for_input(bomb.len() as u64);
        assert!(budget
            .count_inflated(flate2::read::ZlibDecoder::new(&bomb[..]))
            .is_err());
        let mut budget = Budget::for_input(bomb.len() as u64);
        assert!(budget
            .read_inflated_lenient(flate2::read::ZlibDecoder::new(&bomb[..]))
            .is_err());
    }

    #[test]
    fn what_fits_is_counted_across_streams() {
        let part = deflate(&vec![b'a'; 6 << 20]);
        let mut budget = Budget::for_input(1000);
        for _ in 0..2 {
            let out = budget
                .read_inflated(flate2::read::ZlibDecoder::new(&part[..]))
                .unwrap();
            assert_eq!(out.len(), 6 << 20);
        }
        // The third would pass 16 MiB in all.
        assert!(budget
            .count_inflated(flate2::read::ZlibDecoder::new(&part[..]))
            .is_err());
    }

    #[test]
    fn corrupt_data_counts_what_it_yielded() {
        let mut data = deflate(&vec![b'x'; 1 << 20]);
        let cut = data.len() / 2;
        data.truncate(cut);
        let mut budget = Budget::for_input(1000);
        let out = budget
            .read_inflated_lenient(flate2::read::ZlibDecoder::new(&data[..]))
            .unwrap();
        assert!(!out.is_empty() && out.len() < 1 << 20);
        assert_eq!(
            budget.inflated_left(),
            MIN_INFLATED_BYTES - out.len() as u64
        );
        assert_eq!(budget.count_inflated(&b"not zlib"[..]).unwrap(), 8);
    }

    #[test]
    fn lines_are_capped() {
        let budget = Budget::for_input(1);
        assert!(budget.check_lines(&"a\n".repeat(MAX_LINES)).is_ok());
        let over = budget
            .check_lines(&"a\n".repeat(MAX_LINES + 1))
            .unwrap_err();
        assert_eq!(over.limit, Limit::Lines);
    }
}
