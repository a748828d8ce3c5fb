//! Labelled contracts in CUAD's label format: what training and cross-validation read.
//!
//! A corpus folder holds the contract texts and one label record per contract, either as
//! `labels.jsonl` (one record a line) or as `labels/*.json` (one record a file). A record:
//!
//! ```json
//! {"id": "acme-supply", "path": "contracts/acme-supply.txt",
//!  "categories": {
//!    "Governing Law": {"present": true, "excerpts": [{"start": 120, "end": 180}]},
//!    "Insurance": {"present": false, "excerpts": []}}}
//! ```
//!
//! - `path` is relative to the corpus folder; without it the text is `contracts/<id>.txt`.
//! - `start`/`end` are **character** offsets (Unicode scalar values, as CUAD and Python count
//!   them) into that text; an excerpt written as pieces far apart gives `pieces: [[s, e], ...]`.
//! - `present: false` marks the contract as a negative for the category (the reviewers found
//!   no such clause). Categories a record does not list are unknown for it, not negatives.
//!
//! Other fields (`text`, `answer`, `match`, ...) are ignored.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Why a corpus could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A label record is not in the expected shape.
    #[error("{path}, record {record}: not a label record ({{id, path?, categories: {{NAME: {{present, excerpts: [{{start, end}}]}}}}}}): {source}")]
    Record {
        /// The labels file.
        path: PathBuf,
        /// 1-based record (line) number.
        record: usize,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// An excerpt's offsets do not fit its contract text.
    #[error("contract `{id}`, category `{category}`: excerpt {start}..{end} lies outside the text ({chars} characters)")]
    Offsets {
        /// The contract.
        id: String,
        /// The category.
        category: String,
        /// Start as written.
        start: usize,
        /// End as written.
        end: usize,
        /// Characters in the text.
        chars: usize,
    },
    /// The folder holds no label records.
    #[error("no label records in {0} (expected labels.jsonl or labels/*.json)")]
    Empty(PathBuf),
}

/// One labelled excerpt: the byte ranges of its pieces in the contract text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// Byte ranges, one per piece (one for most excerpts).
    pub pieces: Vec<Range<usize>>,
}

impl Excerpt {
    /// Whether any piece shares at least one byte with `span`.
    pub fn overlaps(&self, span: &Range<usize>) -> bool {
        self.pieces
            .iter()
            .any(|p| p.start < span.end && span.start < p.end)
    }

    /// Bytes of `span` covered by the pieces.
    pub fn overlap_len(&self, span: &Range<usize>) -> usize {
        self.pieces
            .iter()
            .map(|p| p.end.min(span.end).saturating_sub(p.start.max(span.start)))
            .sum()
    }

    /// Total bytes of the pieces.
    pub fn len(&self) -> usize {
        self.pieces.iter().map(|p| p.len()).sum()
    }

    /// Whether the excerpt covers no text.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What the labels say about one category in one contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategoryLabel {
    /// Whether the category is present (at least one excerpt).
    pub present: bool,
    /// The labelled excerpts.
    pub excerpts: Vec<Excerpt>,
}

/// A contract with its text and labels.
#[derive(Debug, Clone)]
pub struct LabelledContract {
    /// The record's id.
    pub id: String,
    /// The contract text.
    pub text: String,
    /// Category name → label, for the categories the record lists.
    pub labels: BTreeMap<String, CategoryLabel>,
}

#[derive(Deserialize)]
struct RawRecord {
    id: String,
    #[serde(default)]
    path: Option<String>,
    categories: BTreeMap<String, RawCategory>,
}

#[derive(Deserialize)]
struct RawCategory {
    present: bool,
    #[serde(default)]
    excerpts: Vec<RawExcerpt>,
}

#[derive(Deserialize)]
struct RawExcerpt {
    start: Option<usize>,
    end: Option<usize>,
    #[serde(default)]
    pieces: Option<Vec<[usize; 2]>>,
}

/// Reads every labelled contract of a corpus folder. `labels` names the labels file
/// (JSON lines); without it `DIR/labels.jsonl`, else every `DIR/labels/*.json`, is read.
/// Contracts come back in the order of the records.
pub fn read_corpus(
    dir: &Path,
    labels: Option<&Path>,
) -> Result<Vec<LabelledContract>, CorpusError> {
    let records = read_records(dir, labels)?;
    if records.is_empty() {
        return Err(CorpusError::Empty(dir.to_path_buf()));
    }
    records
        .into_iter()
        .map(|record| load_contract(dir, record))
        .collect()
}

fn read_records(dir: &Path, labels: Option<&Path>) -> Result<Vec<RawRecord>, CorpusError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CorpusError::Io { path, source }
    };
    let jsonl = labels
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.join("labels.jsonl"));
    if labels.is_some() || jsonl.is_file() {
        let text = std::fs::read_to_string(&jsonl).map_err(io(&jsonl))?;
        let mut out = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            out.push(
                serde_json::from_str(line).map_err(|source| CorpusError::Record {
                    path: jsonl.clone(),
                    record: n + 1,
                    source,
                })?,
            );
        }
        return Ok(out);
    }
    let folder = dir.join("labels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .map_err(io(&folder))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).map_err(io(file))?;
            serde_json::from_str(&text).map_err(|source| CorpusError::Record {
                path: file.clone(),
                record: 1,
                source,
            })
        })
        .collect()
}

fn load_contract(dir: &Path, record: RawRecord) -> Result<LabelledContract, CorpusError> {
    let relative = record
        .path
        .clone()
        .unwrap_or_else(|| format!("contracts/{}.txt", record.id));
    let path = dir.join(relative);
    let text = std::fs::read_to_string(&path).map_err(|source| CorpusError::Io {
        path: path.clone(),
        source,
    })?;
    let bytes = char_to_byte(&text);
    let chars = bytes.len() - 1;
    let mut labels = BTreeMap::new();
    for (category, raw) in record.categories {
        let mut excerpts = Vec::new();
        for excerpt in raw.excerpts {
            let ranges: Vec<[usize; 2]> = match (excerpt.pieces, excerpt.start, excerpt.end) {
                (Some(pieces), _, _) if !pieces.is_empty() => pieces,
                (_, Some(start), Some(end)) => vec![[start, end]],
                // An excerpt that was never located in the text cannot be scored.
                _ => continue,
            };
            let mut pieces = Vec::new();
            for [start, end] in ranges {
                if start > end || end > chars {
                    return Err(CorpusError::Offsets {
                        id: record.id.clone(),
                        category: category.clone(),
                        start,
                        end,
                        chars,
                    });
                }
                pieces.push(bytes[start]..bytes[end]);
            }
            excerpts.push(Excerpt { pieces });
        }
        labels.insert(
            category,
            CategoryLabel {
                present: raw.present,
                excerpts,
            },
        );
    }
    Ok(LabelledContract {
        id: record.id,
        text,
        labels,
    })
}

/// Byte offset of every character position, plus the end (`len + 1` entries).
fn char_to_byte(text: &str) -> Vec<usize> {
    let mut out: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    out.push(text.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(records: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("labels.jsonl"), records).unwrap();
        std::fs::create_dir_all(dir.path().join("contracts")).unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join("contracts").join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn character_offsets_become_byte_ranges() {
        let dir = corpus(
            r#"{"id": "a", "categories": {"Governing Law": {"present": true, "excerpts": [{"start": 2, "end": 5}]}, "Insurance": {"present": false, "excerpts": []}}}"#,
            &[("a.txt", "é€ law here")],
        );
        let contracts = read_corpus(dir.path(), None).unwrap();
        assert_eq!(contracts.len(), 1);
        let law = &contracts[0].labels["Governing Law"];
        let range = law.excerpts[0].pieces[0].clone();
        assert_eq!(&contracts[0].text[range], " la");
        assert!(!contracts[0].labels["Insurance"].present);
    }

    #[test]
    fn offsets_past_the_text_are_refused_with_the_contract_named() {
        let dir = corpus(
            r#"{"id": "a", "categories": {"Insurance": {"present": true, "excerpts": [{"start": 2, "end": 50}]}}}"#,
            &[("a.txt", "short")],
        );
        let err = read_corpus(dir.path(), None).unwrap_err().to_string();
        assert!(
            err.contains("`a`") && err.contains("Insurance") && err.contains("2..50"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_record_names_its_line() {
        let dir = corpus(
            "{\"id\": \"a\", \"categories\": {}}\n{\"id\": 3}\n",
            &[("a.txt", "x")],
        );
        let err = read_corpus(dir.path(), None).unwrap_err().to_string();
        assert!(err.contains("record 2"), "{err}");
    }
}
