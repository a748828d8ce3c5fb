//! What a review started from the console records as its run's spec: enough to run it again
//! after the process that ran it is gone — the sample's name, or each uploaded file's name,
//! bytes (base64) and SHA-256 digest — with the options of the form and the model the
//! server had. Its digest is the run's fingerprint: a spec changed in the store is refused.

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::reviews::{ReviewMode, ReviewRequest, ReviewSource};

/// Marks a spec as the console's (a run recorded by `review` on the command line has
/// another).
const ORIGIN: &str = "console";

/// One uploaded file, as the run records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SpecFile {
    /// The name the browser sent.
    pub(crate) name: String,
    /// Its bytes, base64 (standard alphabet, padded).
    pub(crate) base64: String,
    /// SHA-256 of its bytes, hex.
    pub(crate) sha256: String,
}

/// The spec of a review the console started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ConsoleSpec {
    /// Always `console`.
    pub(crate) origin: String,
    /// What people read for the contract.
    pub(crate) label: String,
    /// The sample, when one was chosen.
    pub(crate) sample: Option<String>,
    /// The uploaded files, when the contract was uploaded.
    pub(crate) files: Vec<SpecFile>,
    /// The domain (empty: guessed).
    pub(crate) domain: String,
    /// The party the review acts for.
    pub(crate) our_party: String,
    /// `en` or `zh-CN`.
    pub(crate) language: String,
    /// `checklist`, `agent` or `orchestrate`.
    pub(crate) mode: String,
    /// The model the server offered when the review started (agent and orchestrate modes).
    pub(crate) model: Option<String>,
    /// Model requests the review may make at most.
    pub(crate) budget_requests: Option<u64>,
}

/// What the form asked for, before any upload is saved.
pub(crate) struct FormReview<'a> {
    /// What people read for the contract.
    pub(crate) label: &'a str,
    /// The sample, or nothing.
    pub(crate) sample: Option<&'a str>,
    /// The uploaded files by name.
    pub(crate) files: &'a [(String, Vec<u8>)],
    /// The rest of the request (its source is ignored).
    pub(crate) request: &'a ReviewRequest,
    /// The model the server offers.
    pub(crate) model: Option<String>,
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl ConsoleSpec {
    /// The spec of a review the form asks for.
    pub(crate) fn of_form(form: &FormReview<'_>) -> Self {
        let r = form.request;
        Self {
            origin: ORIGIN.into(),
            label: form.label.to_string(),
            sample: form.sample.map(str::to_string),
            files: form
                .files
                .iter()
                .map(|(name, bytes)| SpecFile {
                    name: name.clone(),
                    base64: base64::engine::general_purpose::STANDARD.encode(bytes),
                    sha256: sha256_hex(bytes),
                })
                .collect(),
            domain: r.domain.clone(),
            our_party: r.our_party.clone(),
            language: r.language.clone(),
            mode: r.mode.as_str().into(),
            model: form
                .model
                .clone()
                .filter(|_| r.mode != ReviewMode::Checklist),
            budget_requests: r.budget_requests,
        }
    }

    /// The spec recorded in a run, or why it is none the console can run again.
    pub(crate) fn of_record(spec: &serde_json::Value) -> Result<Self, String> {
        if spec.get("origin").and_then(|o| o.as_str()) != Some(ORIGIN) {
            return Err(
                "it was not started from the console; resume it where it was started \
                 (`clausewright review --resume ID` for a review started on the command line)"
                    .into(),
            );
        }
        serde_json::from_value(spec.clone())
            .map_err(|e| format!("its recorded spec cannot be read by this version ({e})"))
    }

    /// The run's fingerprint: SHA-256 of the spec's JSON text.
    pub(crate) fn fingerprint(&self) -> String {
        sha256_hex(serde_json::to_string(self).unwrap_or_default().as_bytes())
    }

    /// The spec as the run records it.
    pub(crate) fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The mode recorded.
    pub(crate) fn review_mode(&self) -> Result<ReviewMode, String> {
        match self.mode.as_str() {
            "checklist" => Ok(ReviewMode::Checklist),
            "agent" => Ok(ReviewMode::Agent),
            "orchestrate" => Ok(ReviewMode::Orchestrate),
            other => Err(format!(
                "its mode `{other}` is none of checklist, agent, orchestrate"
            )),
        }
    }

    /// The uploaded files' bytes, each checked against its digest.
    pub(crate) fn file_bytes(&self) -> Result<Vec<(String, Vec<u8>)>, String> {
        self.files
            .iter()
            .map(|f| {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&f.base64)
                    .map_err(|e| format!("the recorded file `{}` is no base64 ({e})", f.name))?;
                if sha256_hex(&bytes) != f.sha256 {
                    return Err(format!(
                        "the recorded file `{}` does not match its digest",
                        f.name
                    ));
                }
                Ok((f.name.clone(), bytes))
            })
            .collect()
    }

    /// The request to run again, its source given (a sample, or the files saved anew).
    pub(crate) fn request(&self, source: ReviewSource) -> Result<ReviewRequest, String> {
        Ok(ReviewRequest {
            source,
            domain: self.domain.clone(),
            our_party: self.our_party.clone(),
            language: self.language.clone(),
            mode: self.review_mode()?,
            budget_requests: self.budget_requests,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(mode: ReviewMode) -> ReviewRequest {
        ReviewRequest {
            source: ReviewSource::Sample(String::new()),
            domain: "fidic".into(),
            our_party: "Contractor".into(),
            language: "en".into(),
            mode,
            budget_requests: Some(7),
        }
    }

    #[test]
    fn an_uploaded_review_round_trips_through_its_record() {
        let files = vec![("a b.md".to_string(), b"1 fine\n2 risk".to_vec())];
        let request = request(ReviewMode::Agent);
        let spec = ConsoleSpec::of_form(&FormReview {
            label: "a b.md",
            sample: None,
            files: &files,
            request: &request,
            model: Some("m".into()),
        });
        let back = ConsoleSpec::of_record(&spec.to_value()).unwrap();
        assert_eq!(back, spec);
        assert_eq!(back.fingerprint(), spec.fingerprint());
        assert_eq!(back.file_bytes().unwrap(), files);
        assert_eq!(back.model.as_deref(), Some("m"));
        let again = back.request(ReviewSource::Sample("x".into())).unwrap();
        assert_eq!(again.mode, ReviewMode::Agent);
        assert_eq!(again.budget_requests, Some(7));
        assert_eq!(again.our_party, "Contractor");
    }

    #[test]
    fn a_changed_file_or_a_foreign_spec_is_refused_with_the_reason() {
        let files = vec![("c.md".to_string(), b"text".to_vec())];
        let request = request(ReviewMode::Checklist);
        let mut spec = ConsoleSpec::of_form(&FormReview {
            label: "c.md",
            sample: None,
            files: &files,
            request: &request,
            model: Some("m".into()),
        });
        assert_eq!(spec.model, None, "a checklist review records no model");
        spec.files[0].base64 = base64::engine::general_purpose::STANDARD.encode(b"other");
        let err = spec.file_bytes().unwrap_err();
        assert!(err.contains("`c.md` does not match its digest"), "{err}");
        let cli = serde_json::json!({"path": "/x", "mode": "checklist"});
        let err = ConsoleSpec::of_record(&cli).unwrap_err();
        assert!(err.contains("clausewright review --resume"), "{err}");
    }
}
