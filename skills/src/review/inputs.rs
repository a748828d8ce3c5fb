//! Building a review state from files: the library side of `skillkit review`.

use std::path::PathBuf;

use crate::document::{load_document, DocumentError};
use crate::state::{ChecklistItem, DocumentRole, ReviewDocument, ReviewState};

/// The files and settings of a review.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReviewInputs {
    /// The contract under review (`.docx`, `.pdf`, `.md`, `.txt` or document `.json`).
    pub primary: PathBuf,
    /// The standard form it is compared with.
    pub baseline: Option<PathBuf>,
    /// Reference documents to search.
    pub references: Vec<PathBuf>,
    /// Review criteria (`.json` or `.csv`).
    pub criteria_file: Option<PathBuf>,
    /// A checklist (`.json`: an array of `{clause_id, clause_name, priority, required_skills,
    /// description}`); generated from the contract when absent.
    pub checklist_file: Option<PathBuf>,
    /// `fidic`, `sha_spa` or empty.
    pub domain_id: String,
    /// The party the review acts for.
    pub our_party: String,
    /// `en` or `zh-CN`.
    pub language: String,
    /// Kind of material (`EPC`, `design-build`), sharpens searches.
    pub material_type: String,
    /// Domain sub-type (`yellow_book`, `spa`, `sha`).
    pub domain_subtype: String,
}

/// Why the inputs of a review could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ReviewInputError {
    /// A document could not be read.
    #[error(transparent)]
    Document(#[from] DocumentError),
    /// The checklist file could not be read.
    #[error("cannot read checklist `{path}`: {source}")]
    ChecklistIo {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The checklist file is not a JSON array of checklist items.
    #[error("checklist `{path}` is not a JSON array of {{clause_id, clause_name, priority, required_skills, description}}: {source}")]
    ChecklistJson {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// The criteria file does not exist.
    #[error("criteria file `{0}` does not exist")]
    CriteriaMissing(PathBuf),
}

/// Loads every document of the review and assembles its state.
pub fn build_review_state(inputs: &ReviewInputs) -> Result<ReviewState, ReviewInputError> {
    let document =
        |role: DocumentRole, path: &PathBuf| -> Result<ReviewDocument, ReviewInputError> {
            Ok(ReviewDocument {
                role,
                filename: path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default()
                    .to_string(),
                structure: load_document(path)?,
            })
        };
    let mut documents = vec![document(DocumentRole::Primary, &inputs.primary)?];
    if let Some(baseline) = &inputs.baseline {
        documents.push(document(DocumentRole::Baseline, baseline)?);
    }
    for reference in &inputs.references {
        documents.push(document(DocumentRole::Reference, reference)?);
    }
    let review_checklist = match &inputs.checklist_file {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|source| ReviewInputError::ChecklistIo {
                    path: path.clone(),
                    source,
                })?;
            serde_json::from_str::<Vec<ChecklistItem>>(&text).map_err(|source| {
                ReviewInputError::ChecklistJson {
                    path: path.clone(),
                    source,
                }
            })?
        }
        None => Vec::new(),
    };
    if let Some(criteria) = &inputs.criteria_file {
        if !criteria.is_file() {
            return Err(ReviewInputError::CriteriaMissing(criteria.clone()));
        }
    }
    Ok(ReviewState {
        domain_id: inputs.domain_id.clone(),
        our_party: inputs.our_party.clone(),
        language: if inputs.language.is_empty() {
            "en".into()
        } else {
            inputs.language.clone()
        },
        material_type: inputs.material_type.clone(),
        domain_subtype: inputs.domain_subtype.clone(),
        documents,
        review_checklist,
        criteria: Vec::new(),
        criteria_file: inputs
            .criteria_file
            .as_ref()
            .map(|p| p.display().to_string()),
    })
}
