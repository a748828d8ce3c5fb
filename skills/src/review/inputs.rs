//! Building a review state from files: the library side of `clausewright review` and of the
//! console's reviews. Which file of a contract folder plays which part (the contract, the
//! General Conditions, the Particular Conditions and Employer's Requirements, the checklist,
//! the criteria) is decided here, once, by [`ContractFolder::read`].

use std::path::{Path, PathBuf};

use crate::document::{load_document, DocumentError};
use crate::state::{ChecklistItem, DocumentRole, Domain, ReviewDocument, ReviewState};

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
    /// The contract's domain (generic by default).
    pub domain: Domain,
    /// The party the review acts for.
    pub our_party: String,
    /// `en` or `zh-CN`.
    pub language: String,
    /// Kind of material (`EPC`, `design-build`), sharpens searches.
    pub material_type: String,
    /// Domain sub-type (`yellow_book`, `spa`, `sha`).
    pub domain_subtype: String,
}

/// The files of a contract folder by role, from their names (sorted, case ignored):
/// `*checklist*` the checklist, `*criteria*` the criteria, `*general_conditions*` or `gc`
/// the baseline, `*particular*`, `*employer*`, `pc` or `er` references, any other document
/// the contract (the General Conditions when there is none). `README`, Word lock files
/// (`~$...`) and files of other kinds are left out. A folder with two contracts (or two
/// checklists, criteria files or General Conditions) is refused, naming them: a review
/// reads one of each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContractFolder {
    /// The contract under review.
    pub primary: Option<PathBuf>,
    /// The General Conditions.
    pub baseline: Option<PathBuf>,
    /// Particular Conditions, Employer's Requirements.
    pub references: Vec<PathBuf>,
    /// The checklist.
    pub checklist: Option<PathBuf>,
    /// The review criteria.
    pub criteria: Option<PathBuf>,
}

/// The role a file of a contract folder takes by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Checklist,
    Criteria,
    Baseline,
    Reference,
    Contract,
}

impl Role {
    /// The role of `file` by its name; `None` for a file left out (`README`, Word's lock
    /// file `~$...`, a file of another kind, a `.csv` that is not the criteria).
    fn of(file: &Path) -> Option<Role> {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_lowercase();
        let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        let document = crate::document::formats::DOCUMENT_EXTENSIONS.contains(&ext);
        // `~$name.docx` is Word's lock file beside an open document, not a document.
        if !(document || ext == "csv") || stem == "readme" || name.starts_with("~$") {
            return None;
        }
        Some(if stem.contains("checklist") {
            Role::Checklist
        } else if stem.contains("criteria") {
            Role::Criteria
        } else if stem.contains("general_conditions") || stem == "gc" {
            Role::Baseline
        } else if stem.contains("particular")
            || stem.contains("employer")
            || stem == "pc"
            || stem == "er"
        {
            Role::Reference
        } else if ext != "csv" {
            Role::Contract
        } else {
            return None;
        })
    }

    /// The role in words, for errors.
    fn name(self) -> &'static str {
        match self {
            Role::Checklist => "checklists",
            Role::Criteria => "criteria files",
            Role::Baseline => "General Conditions",
            Role::Reference => "references",
            Role::Contract => "contracts",
        }
    }
}

impl ContractFolder {
    /// Gives each file of `dir` its role by name ([`ContractFolder::of_files`]). A file
    /// named as a document that is not a regular file (a named pipe, a device) is refused
    /// before anything opens it.
    pub fn read(dir: &Path) -> Result<Self, ReviewInputError> {
        let entries = std::fs::read_dir(dir).map_err(|source| ReviewInputError::FolderIo {
            path: dir.to_path_buf(),
            source,
        })?;
        // Folders inside are not looked into.
        let files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| !p.is_dir())
            .collect();
        for file in files.iter().filter(|f| Role::of(f).is_some()) {
            crate::document::formats::require_regular_file(file)
                .map_err(|err| ReviewInputError::Document(err.into()))?;
        }
        Self::of_files(dir, files)
    }

    /// Gives each of `files` (of the folder `dir`, named in errors) its role by name, without
    /// reading them; see the type's doc for the names. A review reads one contract, one
    /// checklist, one criteria file and one set of General Conditions: two files for one of
    /// these roles are refused ([`ReviewInputError::SeveralForOneRole`], naming them all),
    /// never one taken and the other left unsaid.
    pub fn of_files(
        dir: &Path,
        files: impl IntoIterator<Item = PathBuf>,
    ) -> Result<Self, ReviewInputError> {
        let mut files: Vec<PathBuf> = files.into_iter().collect();
        files.sort();
        let mut folder = Self::default();
        let mut contracts = Vec::new();
        let several = |role: Role, kept: &Option<PathBuf>, file: &Path| match kept {
            Some(first) => Err(ReviewInputError::SeveralForOneRole {
                folder: dir.to_path_buf(),
                role: role.name(),
                files: vec![file_name(first), file_name(file)],
            }),
            None => Ok(()),
        };
        for file in files {
            match Role::of(&file) {
                None => {}
                Some(Role::Checklist) => {
                    several(Role::Checklist, &folder.checklist, &file)?;
                    folder.checklist = Some(file);
                }
                Some(Role::Criteria) => {
                    several(Role::Criteria, &folder.criteria, &file)?;
                    folder.criteria = Some(file);
                }
                Some(Role::Baseline) => {
                    several(Role::Baseline, &folder.baseline, &file)?;
                    folder.baseline = Some(file);
                }
                Some(Role::Reference) => folder.references.push(file),
                Some(Role::Contract) => contracts.push(file),
            }
        }
        if contracts.len() > 1 {
            return Err(ReviewInputError::SeveralForOneRole {
                folder: dir.to_path_buf(),
                role: Role::Contract.name(),
                files: contracts.iter().map(|f| file_name(f)).collect(),
            });
        }
        folder.primary = contracts
            .into_iter()
            .next()
            .or_else(|| folder.baseline.clone());
        Ok(folder)
    }
}

/// The last component of `path`, for messages.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

impl ReviewInputs {
    /// The inputs of a contract file, or of a contract folder by [`ContractFolder`]; a
    /// folder with General Conditions is a FIDIC review unless `domain` says otherwise.
    pub fn for_path(path: &Path, domain: Option<Domain>) -> Result<Self, ReviewInputError> {
        let mut inputs = if path.is_dir() {
            let folder = ContractFolder::read(path)?;
            let primary = folder
                .primary
                .ok_or_else(|| ReviewInputError::NoContract(path.to_path_buf()))?;
            let guessed = folder.baseline.is_some().then_some(Domain::Fidic);
            Self {
                primary,
                baseline: folder.baseline,
                references: folder.references,
                checklist_file: folder.checklist,
                criteria_file: folder.criteria,
                domain: domain.or(guessed).unwrap_or_default(),
                ..Self::default()
            }
        } else {
            Self {
                primary: path.to_path_buf(),
                domain: domain.unwrap_or_default(),
                ..Self::default()
            }
        };
        inputs.language = "en".into();
        Ok(inputs)
    }
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
    /// A contract folder could not be listed.
    #[error("cannot read folder `{path}`: {source}")]
    FolderIo {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A contract folder holds no document to review.
    #[error("folder {} holds no contract (.docx, .pdf, .md, .txt or .json)", .0.display())]
    NoContract(PathBuf),
    /// A contract folder holds two or more files for a role a review has one of (two
    /// contracts, two checklists, ...): refused rather than one reviewed and the others
    /// left out unsaid.
    #[error(
        "folder {} holds several {role} ({}) and a review reads one: review each on its own, \
         or name the other files by their role (general_conditions, particular_conditions, \
         employers_requirements, checklist, criteria)",
        folder.display(),
        files.join(", ")
    )]
    SeveralForOneRole {
        /// The folder.
        folder: PathBuf,
        /// The role, plural ("contracts", "checklists", "criteria files", "General
        /// Conditions").
        role: &'static str,
        /// The files found for it, by name.
        files: Vec<String>,
    },
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
                structure: load_document(path)?.into(),
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
            let io = |source| ReviewInputError::ChecklistIo {
                path: path.clone(),
                source,
            };
            // A named pipe without a writer would wait for ever: only a file is opened.
            let metadata = std::fs::metadata(path).map_err(io)?;
            if let Some(found) = crate::document::formats::not_a_regular_file(metadata.file_type())
            {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("it is {found}, not a regular file; expected a JSON file"),
                )));
            }
            let text = std::fs::read_to_string(path).map_err(io)?;
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
        domain: inputs.domain,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_files_get_their_roles_by_name() {
        let dir = std::env::temp_dir().join(format!("contract-folder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "contract.md",
            "general_conditions.md",
            "particular_conditions.md",
            "checklist.json",
            "criteria.csv",
            "README.md",
            "~$contract.docx",
            "notes.png",
        ] {
            std::fs::write(dir.join(name), "1 Clause\ntext").unwrap();
        }
        let inputs = ReviewInputs::for_path(&dir, None).unwrap();
        assert_eq!(inputs.primary, dir.join("contract.md"));
        assert_eq!(inputs.baseline, Some(dir.join("general_conditions.md")));
        assert_eq!(inputs.references, [dir.join("particular_conditions.md")]);
        assert_eq!(inputs.checklist_file, Some(dir.join("checklist.json")));
        assert_eq!(inputs.criteria_file, Some(dir.join("criteria.csv")));
        assert_eq!(
            inputs.domain,
            Domain::Fidic,
            "General Conditions make a FIDIC review"
        );
        let chosen = ReviewInputs::for_path(&dir, Some(Domain::ShaSpa)).unwrap();
        assert_eq!(chosen.domain, Domain::ShaSpa);
        std::fs::remove_dir_all(&dir).unwrap();
        let empty = std::env::temp_dir().join(format!("empty-folder-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let err = ReviewInputs::for_path(&empty, None).unwrap_err();
        assert!(err.to_string().contains("holds no contract"), "{err}");
        std::fs::remove_dir_all(&empty).unwrap();
    }

    /// A named pipe in a contract folder, or given as the checklist, is refused by name
    /// before anything opens it (a pipe with no writer would hold the review for ever).
    #[cfg(unix)]
    #[test]
    fn a_named_pipe_in_a_folder_is_refused_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("contract.md"), "1 Clause\ntext").unwrap();
        let mkfifo = |path: &Path| {
            let made = std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .expect("mkfifo runs");
            assert!(made.success());
        };
        let pipe = dir.path().join("particular_conditions.md");
        mkfifo(&pipe);
        let err = ReviewInputs::for_path(dir.path(), None).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&pipe.display().to_string())
                && text.contains("a named pipe (FIFO), not a regular file"),
            "{text}"
        );
        std::fs::remove_file(&pipe).unwrap();

        let checklist = dir.path().join("my_checklist.json");
        mkfifo(&checklist);
        let err = ReviewInputs::for_path(dir.path(), None).unwrap_err();
        assert!(err.to_string().contains("my_checklist.json"), "{err}");
        std::fs::remove_file(&checklist).unwrap();
        let mut inputs = ReviewInputs::for_path(dir.path(), None).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let pipe = elsewhere.path().join("checklist.json");
        mkfifo(&pipe);
        inputs.checklist_file = Some(pipe.clone());
        let err = build_review_state(&inputs).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&pipe.display().to_string()) && text.contains("expected a JSON file"),
            "{text}"
        );
    }

    /// Two contracts in a folder (or two checklists) are refused with every candidate
    /// named; one contract with its annexes is read as before.
    #[test]
    fn several_contracts_in_a_folder_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "lease.md",
            "supply.docx",
            "general_conditions.md",
            "notes.png",
        ] {
            std::fs::write(dir.path().join(name), "1 Clause\ntext").unwrap();
        }
        let err = ReviewInputs::for_path(dir.path(), None).unwrap_err();
        match &err {
            ReviewInputError::SeveralForOneRole { role, files, .. } => {
                assert_eq!(*role, "contracts");
                assert_eq!(files, &["lease.md", "supply.docx"]);
            }
            other => panic!("expected several contracts, got {other:?}"),
        }
        let text = err.to_string();
        assert!(
            text.contains("holds several contracts (lease.md, supply.docx) and a review reads one"),
            "{text}"
        );
        std::fs::remove_file(dir.path().join("supply.docx")).unwrap();
        let inputs = ReviewInputs::for_path(dir.path(), None).unwrap();
        assert_eq!(inputs.primary, dir.path().join("lease.md"));

        let names = ["a_checklist.json", "checklist.json", "lease.md"].map(PathBuf::from);
        let err = ContractFolder::of_files(Path::new("upload"), names).unwrap_err();
        assert!(
            err.to_string()
                .contains("holds several checklists (a_checklist.json, checklist.json)"),
            "{err}"
        );
    }

    #[test]
    fn domains_read_and_write_their_ids() {
        for domain in [Domain::Generic, Domain::Fidic, Domain::ShaSpa] {
            assert_eq!(domain.as_str().parse::<Domain>(), Ok(domain));
        }
        assert_eq!(
            "construction".parse::<Domain>().unwrap_err().to_string(),
            "unknown domain `construction`; expected `fidic` or `sha_spa`"
        );
    }

    #[test]
    fn a_state_writes_and_reads_its_domain_as_the_id_string() {
        let state = ReviewState {
            domain: Domain::ShaSpa,
            ..ReviewState::default()
        };
        let json = serde_json::to_value(&state).unwrap();
        assert_eq!(json["domain_id"], "sha_spa", "{json}");
        assert_eq!(json.get("domain"), None, "{json}");
        let back: ReviewState = serde_json::from_value(json).unwrap();
        assert_eq!(back.domain, Domain::ShaSpa);
        let generic: ReviewState = serde_json::from_str(r#"{"domain_id": ""}"#).unwrap();
        assert_eq!(generic.domain, Domain::Generic);
        let absent: ReviewState = serde_json::from_str("{}").unwrap();
        assert_eq!(absent.domain, Domain::Generic);
        let err = serde_json::from_str::<ReviewState>(r#"{"domain_id": "maritime"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown domain `maritime`"), "{err}");
    }
}
