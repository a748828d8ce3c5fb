//! What a review run records of its command line, so that `--resume RUN` goes on with the
//! same options: the documents (by path and digest), the mode, the models and their
//! settings, the budget, the playbook and the classifier. Output options (format, file,
//! concurrency) are not part of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{ClassifierOptions, ContractOptions, ReviewArgs};
use crate::commands::CliError;

/// The recorded options of a review run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedReview {
    /// The contract (file or folder), absolute.
    pub path: PathBuf,
    pub domain: Option<String>,
    pub checklist: Option<PathBuf>,
    pub criteria: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
    pub references: Vec<PathBuf>,
    pub our_party: String,
    pub language: String,
    /// `checklist`, `agent` or `orchestrate`.
    pub mode: String,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub deep_model: Option<String>,
    pub max_workers: u64,
    pub budget_requests: Option<u64>,
    pub budget_tokens: Option<u64>,
    pub budget_output_tokens: Option<u64>,
    pub fallback: bool,
    pub rpm: u32,
    pub max_iterations: usize,
    pub temperature: f32,
    pub final_answer_at_limit: bool,
    pub provision_model: Option<PathBuf>,
    pub playbook: Option<PathBuf>,
    pub rules_only: bool,
    /// The digest (SHA-256) of every file the review reads, by path.
    pub files: BTreeMap<String, String>,
}

/// `path` made absolute (from the current folder) without touching the file.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The SHA-256 of each file under `paths` (a folder: each file in it, sorted).
pub fn digests(paths: &[&Path]) -> Result<BTreeMap<String, String>, CliError> {
    let mut out = BTreeMap::new();
    for path in paths {
        let mut files = Vec::new();
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|source| CliError::Read {
                path: path.display().to_string(),
                source,
            })?;
            for entry in entries.flatten() {
                if entry.path().is_file() {
                    files.push(entry.path());
                }
            }
            files.sort();
        } else {
            files.push(path.to_path_buf());
        }
        for file in files {
            let bytes = std::fs::read(&file).map_err(|source| CliError::Read {
                path: file.display().to_string(),
                source,
            })?;
            let hex: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            out.insert(absolute(&file).display().to_string(), hex);
        }
    }
    Ok(out)
}

impl RecordedReview {
    /// The files the review reads.
    fn file_paths(&self) -> Vec<&Path> {
        let mut paths = vec![self.path.as_path()];
        paths.extend(self.checklist.as_deref());
        paths.extend(self.criteria.as_deref());
        paths.extend(self.baseline.as_deref());
        paths.extend(self.references.iter().map(PathBuf::as_path));
        paths.extend(self.provision_model.as_deref());
        paths.extend(self.playbook.as_deref());
        paths
    }

    /// Reads the digests of the files named.
    pub fn with_digests(mut self) -> Result<Self, CliError> {
        self.files = digests(&self.file_paths())?;
        Ok(self)
    }

    /// The run's fingerprint: the digest of these options and the files' digests.
    pub fn fingerprint(&self) -> String {
        let text = serde_json::to_string(self).unwrap_or_default();
        Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// What differs from the options `recorded` of the run being resumed, in words; `None`
    /// when nothing does.
    pub fn differences(&self, recorded: &RecordedReview) -> Option<String> {
        let (now, then) = (
            serde_json::to_value(self).unwrap_or(Value::Null),
            serde_json::to_value(recorded).unwrap_or(Value::Null),
        );
        let mut found = Vec::new();
        for (key, was) in then.as_object().into_iter().flatten() {
            let is = now.get(key).unwrap_or(&Value::Null);
            if is == was {
                continue;
            }
            if key == "files" {
                for (file, digest) in was.as_object().into_iter().flatten() {
                    match is.get(file) {
                        None => found.push(format!("{file} is no longer read")),
                        Some(d) if d != digest => found.push(format!("{file} changed")),
                        Some(_) => {}
                    }
                }
                for file in is.as_object().into_iter().flatten().map(|(f, _)| f) {
                    if was.get(file).is_none() {
                        found.push(format!("{file} is read now but was not"));
                    }
                }
            } else {
                found.push(format!("{key} was {was}, now {is}"));
            }
        }
        (!found.is_empty()).then(|| found.join("; "))
    }
}

/// The command line `current` with the options `recorded` for the run being resumed: each
/// option left at its default takes the recorded value; one given with another value than
/// the recorded is refused, naming both. Output options stay as given.
pub fn resumed_args(
    current: &ReviewArgs,
    recorded: &RecordedReview,
) -> Result<ReviewArgs, CliError> {
    let conflicts = contradictions(current, recorded);
    if !conflicts.is_empty() {
        return Err(CliError::Usage(format!(
            "--resume: these options contradict the run's recorded ones: {}; leave them out to resume with the recorded options",
            conflicts.join(", ")
        )));
    }
    Ok(args_of(current, recorded))
}

/// A contradiction between a given option and the recorded one, collected in words.
#[derive(Default)]
struct Contradictions(Vec<String>);

impl Contradictions {
    /// Notes `flag` when it was given (not its default) with another value than the run's.
    fn pick(&mut self, flag: &str, given: String, default: String, was: String) {
        if given != default && given != was {
            self.0.push(format!("{flag} {given} (the run has {was})"));
        }
    }
}

fn show(v: &dyn std::fmt::Debug) -> String {
    format!("{v:?}")
}

/// Each option of `current` given with another value than `recorded` has, in words.
fn contradictions(current: &ReviewArgs, recorded: &RecordedReview) -> Vec<String> {
    let mut found = Contradictions::default();
    contract_contradictions(&mut found, current, recorded);
    model_contradictions(&mut found, current, recorded);
    found.0
}

/// The documents and the party.
fn contract_contradictions(
    found: &mut Contradictions,
    current: &ReviewArgs,
    recorded: &RecordedReview,
) {
    let c = &current.contract;
    let path_given = current.path.as_deref().map(absolute);
    found.pick(
        "PATH",
        show(&path_given),
        show(&None::<PathBuf>),
        show(&Some(recorded.path.clone())),
    );
    found.pick(
        "--domain",
        show(&c.domain),
        show(&None::<String>),
        show(&recorded.domain),
    );
    found.pick(
        "--checklist",
        show(&c.checklist.as_deref().map(absolute)),
        show(&None::<PathBuf>),
        show(&recorded.checklist),
    );
    found.pick(
        "--criteria",
        show(&c.criteria.as_deref().map(absolute)),
        show(&None::<PathBuf>),
        show(&recorded.criteria),
    );
    found.pick(
        "--baseline",
        show(&c.baseline.as_deref().map(absolute)),
        show(&None::<PathBuf>),
        show(&recorded.baseline),
    );
    found.pick(
        "--our-party",
        c.our_party.clone(),
        String::new(),
        recorded.our_party.clone(),
    );
    found.pick(
        "--language",
        c.language.clone(),
        "en".into(),
        recorded.language.clone(),
    );
    let refs: Vec<PathBuf> = c.references.iter().map(|p| absolute(p)).collect();
    if !refs.is_empty() && !refs.iter().all(|r| recorded.references.contains(r)) {
        found.0.push(format!(
            "--reference {refs:?} (the run has {:?})",
            recorded.references
        ));
    }
}

/// The mode, the models, the budget and the classifier.
fn model_contradictions(
    found: &mut Contradictions,
    current: &ReviewArgs,
    recorded: &RecordedReview,
) {
    let mode = if current.orchestrate {
        "orchestrate"
    } else if current.agent.is_some() {
        "agent"
    } else if current.no_agent {
        "checklist"
    } else {
        ""
    };
    found.pick("mode", mode.into(), String::new(), recorded.mode.clone());
    found.pick(
        "--provider",
        show(&current.provider),
        show(&None::<String>),
        show(&recorded.provider),
    );
    found.pick(
        "--model",
        show(&current.model),
        show(&None::<String>),
        show(&recorded.model),
    );
    found.pick(
        "--base-url",
        show(&current.base_url),
        show(&None::<String>),
        show(&recorded.base_url),
    );
    found.pick(
        "--deep-model",
        show(&current.deep_model),
        show(&None::<String>),
        show(&recorded.deep_model),
    );
    found.pick(
        "--max-workers",
        current.max_workers.to_string(),
        "8".into(),
        recorded.max_workers.to_string(),
    );
    found.pick(
        "--budget-requests",
        show(&current.budget_requests),
        show(&None::<u64>),
        show(&recorded.budget_requests),
    );
    found.pick(
        "--budget-tokens",
        show(&current.budget_tokens),
        show(&None::<u64>),
        show(&recorded.budget_tokens),
    );
    found.pick(
        "--budget-output-tokens",
        show(&current.budget_output_tokens),
        show(&None::<u64>),
        show(&recorded.budget_output_tokens),
    );
    found.pick(
        "--rpm",
        current.rpm.to_string(),
        "0".into(),
        recorded.rpm.to_string(),
    );
    let k = &current.classifier;
    found.pick(
        "--provision-model",
        show(&k.provision_model.as_deref().map(absolute)),
        show(&None::<PathBuf>),
        show(&recorded.provision_model),
    );
    found.pick(
        "--playbook",
        show(&k.playbook.as_deref().map(absolute)),
        show(&None::<PathBuf>),
        show(&recorded.playbook),
    );
    found.pick(
        "--rules-only",
        k.rules_only.to_string(),
        "false".into(),
        recorded.rules_only.to_string(),
    );
}

/// The command line of the recorded run, with `current`'s output options.
fn args_of(current: &ReviewArgs, recorded: &RecordedReview) -> ReviewArgs {
    ReviewArgs {
        path: Some(recorded.path.clone()),
        contract: ContractOptions {
            domain: recorded.domain.clone(),
            checklist: recorded.checklist.clone(),
            criteria: recorded.criteria.clone(),
            baseline: recorded.baseline.clone(),
            references: recorded.references.clone(),
            our_party: recorded.our_party.clone(),
            language: recorded.language.clone(),
        },
        format: current.format.clone(),
        out: current.out.clone(),
        concurrency: current.concurrency,
        agent: (recorded.mode == "agent").then(|| "react".to_string()),
        no_agent: recorded.mode == "checklist",
        provider: recorded.provider.clone(),
        model: recorded.model.clone(),
        base_url: recorded.base_url.clone(),
        fallback: recorded.fallback || current.fallback,
        rpm: recorded.rpm,
        orchestrate: recorded.mode == "orchestrate",
        deep_model: recorded.deep_model.clone(),
        max_workers: recorded.max_workers,
        budget_requests: recorded.budget_requests,
        budget_tokens: recorded.budget_tokens,
        budget_output_tokens: recorded.budget_output_tokens,
        classifier: ClassifierOptions {
            provision_model: recorded.provision_model.clone(),
            playbook: recorded.playbook.clone(),
            rules_only: recorded.rules_only,
        },
        run: current.run.clone(),
    }
}
