//! Contract documents: the clause tree model, how it is read from text or JSON, and the one
//! clause lookup ([`Index`]) every skill and rule uses.

pub mod formats;
mod index;
mod model;
mod parser;
mod scope;

use std::path::Path;

pub(crate) use index::clause_not_found;
pub use index::{ClauseIndex, Index, Reach, Scope};
pub(crate) use model::{chinese_numeral, normalize_clause_id};
pub use model::{
    Clause, ClauseOutline, CrossReference, DocumentOutline, DocumentStructure, SkippedText,
};
pub(crate) use parser::quoted_terms;
pub use parser::{find_references, parse_text, FoundReference};

/// Why a document could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The file could not be read as a document (missing, unreadable, empty, corrupt,
    /// encrypted or scanned, over the size limit, or in no supported format).
    #[error(transparent)]
    Format(#[from] formats::FormatError),
    /// The JSON is not a document in the spec's shape.
    #[error("document `{document_id}` is not valid document JSON (expected {{document_id, clauses: [{{clause_id, title, text, children}}], definitions, ...}}): {source}")]
    Json {
        /// The document.
        document_id: String,
        /// The underlying error, with line and column.
        #[source]
        source: serde_json::Error,
    },
}

/// Reads a document in the spec's JSON shape (`document_id`, `clauses`, `definitions`, ...);
/// missing definitions and cross references are filled from the clause texts.
pub fn parse_json(document_id: &str, json: &str) -> Result<DocumentStructure, DocumentError> {
    let doc: DocumentStructure =
        serde_json::from_str(json).map_err(|source| DocumentError::Json {
            document_id: document_id.to_string(),
            source,
        })?;
    Ok(parser::finalize_json_document(doc, document_id))
}

/// Loads a document from a file: `.json` as document JSON; `.docx`, `.pdf`, `.md`, `.txt`
/// read into text by [`formats::read_document_text`] and parsed into clauses. The document
/// id is the file stem.
pub fn load_document(path: impl AsRef<Path>) -> Result<DocumentStructure, DocumentError> {
    let path = path.as_ref();
    let (text, format) = formats::read_document_text(path)?;
    let document_id = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("document");
    if format == formats::DocumentFormat::Json {
        parse_json(document_id, &text)
    } else {
        Ok(parse_text(document_id, &text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_in_spec_shape_is_completed() {
        let json = r#"{"clauses": [{"clause_id": "Clause 4", "text": "See Sub-Clause 4.1 and Clause 9.", "children": [
            {"clause_id": "4.1", "text": "\"Works\" means the permanent works."}]}]}"#;
        let doc = parse_json("pc", json).unwrap();
        assert_eq!(doc.document_id, "pc");
        assert_eq!(doc.total_clauses, 2);
        assert_eq!(doc.find_clause("4.1").unwrap().level, 2);
        assert_eq!(doc.definitions["Works"], "the permanent works");
        let refs: Vec<(&str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| (r.target_clause_id.as_str(), r.is_valid))
            .collect();
        assert_eq!(refs, [("4.1", true), ("9", false)]);
    }

    #[test]
    fn bad_json_names_the_document() {
        let err = parse_json("pc", r#"{"clauses": 5}"#).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("`pc`") && text.contains("clauses"), "{text}");
    }

    #[test]
    fn missing_file_is_an_io_error() {
        let err = load_document("/nonexistent/contract.md").unwrap_err();
        assert!(matches!(
            err,
            DocumentError::Format(formats::FormatError {
                kind: formats::FormatErrorKind::Io(_),
                ..
            })
        ));
        assert!(err.to_string().contains("/nonexistent/contract.md"));
    }
}
