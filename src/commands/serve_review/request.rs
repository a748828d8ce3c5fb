//! What a `review_contract` call asks for: its input schema, the checks of its arguments,
//! and the spec a run records of it, so that any server on the same store can rebuild the
//! same review (a sent document travels in the spec, base64, with its digest).

use std::collections::BTreeMap;
use std::path::PathBuf;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use toolwright_mcp::TaskError;

use clausewright_skills::review::Domain;

/// The largest document a call may send, decoded (its base64 is a third longer). It keeps a
/// call within the stdio transport's line limit (16 MiB); over HTTP the request body limit
/// (1 MiB by default) refuses a larger request first.
pub const MAX_SENT_DOCUMENT_BYTES: usize = 4 << 20;

/// The file extensions a sent document may have, each deciding its reader.
const EXTENSIONS: [&str; 5] = ["md", "txt", "docx", "pdf", "json"];

/// The review modes.
const MODES: [&str; 3] = ["checklist", "agent", "orchestrate"];

/// The JSON Schema of the tool's arguments.
pub fn input_schema() -> Value {
    let count = |what: &str| json!({"type": "integer", "minimum": 1, "description": what});
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "document": {
                "type": "object",
                "description": format!("The contract to review; left out, the contract the server was started with (`serve --contract`). Give `text` for a text document or `base64` for a binary one (Word, PDF), at most {MAX_SENT_DOCUMENT_BYTES} bytes decoded."),
                "additionalProperties": false,
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "description": "The file name; its extension (.md, .txt, .docx, .pdf, .json) decides how it is read."},
                    "text": {"type": "string", "description": "The document as plain text (.md, .txt, .json)."},
                    "base64": {"type": "string", "description": "The document's bytes in base64 (any of the extensions; needed for .docx and .pdf)."}
                }
            },
            "mode": {"type": "string", "enum": MODES, "default": "checklist",
                     "description": "`checklist` (rules only, no model), `agent` (a model reviews each clause with the skills) or `orchestrate` (a planner model sends clauses to deep reviews); the model modes use the model configured in the server's environment."},
            "our_party": {"type": "string", "description": "The party the review acts for (for example `Contractor`)."},
            "language": {"type": "string", "enum": ["en", "zh-CN"], "default": "en", "description": "Language of the review."},
            "domain": {"type": "string", "enum": ["fidic", "sha_spa", "generic"], "description": "Domain of the contract (default: the served contract's, else guessed)."},
            "playbook": {"type": "string", "enum": ["fidic", "sha_spa", "generic"], "description": "The shipped playbook setting the levels of the provisions found (default: the contract's domain's)."},
            "budget": {
                "type": "object",
                "additionalProperties": false,
                "description": "Limits of an `orchestrate` review, planner and deep reviews together.",
                "properties": {
                    "model_requests": count("Model requests at most."),
                    "input_tokens": count("Input (prompt) tokens at most."),
                    "output_tokens": count("Output (completion) tokens at most.")
                }
            }
        }
    })
}

/// Where the reviewed contract comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// The contract `serve --contract` names: its path and the digest of each file read.
    Served {
        /// The contract file or folder, absolute.
        path: PathBuf,
        /// SHA-256 of each file under it, by path.
        files: BTreeMap<String, String>,
    },
    /// A document the call sent.
    Sent {
        /// Its file name.
        name: String,
        /// SHA-256 of its bytes.
        sha256: String,
        /// Its bytes, base64.
        base64: String,
    },
}

/// An orchestrated review's limits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SpecBudget {
    /// Model requests at most.
    pub model_requests: Option<u64>,
    /// Input tokens at most.
    pub input_tokens: Option<u64>,
    /// Output tokens at most.
    pub output_tokens: Option<u64>,
}

/// The model a review run uses, as configured when it started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecModel {
    /// `openai` or `anthropic`.
    pub provider: String,
    /// The model's name.
    pub model: Option<String>,
    /// Its endpoint.
    pub base_url: String,
    /// Model turns per clause at most.
    pub max_iterations: usize,
    /// Sampling temperature.
    pub temperature: f32,
    /// One more turn without tools at the limit.
    pub final_answer_at_limit: bool,
}

/// What a `review_contract` run records: enough to rebuild the same review anywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewSpec {
    /// The contract.
    pub source: Source,
    /// `checklist`, `agent` or `orchestrate`.
    pub mode: String,
    /// The party the review acts for.
    pub our_party: String,
    /// `en` or `zh-CN`.
    pub language: String,
    /// The contract's domain (`fidic`, `sha_spa`, empty for generic); `None`: guessed.
    pub domain: Option<String>,
    /// The shipped playbook's domain; `None`: the contract's.
    pub playbook: Option<String>,
    /// An orchestrated review's limits.
    pub budget: SpecBudget,
    /// The model (`None` in checklist mode), filled in when the run starts.
    pub model: Option<SpecModel>,
}

impl ReviewSpec {
    /// The run's fingerprint: SHA-256 of the spec's JSON.
    pub fn fingerprint(&self) -> String {
        hex(&Sha256::digest(
            serde_json::to_string(self).unwrap_or_default().as_bytes(),
        ))
    }
}

/// A sent document: its name and bytes, checked.
pub struct SentDocument {
    /// The file name.
    pub name: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl SentDocument {
    /// The source a spec records of it.
    pub fn source(&self) -> Source {
        Source::Sent {
            name: self.name.clone(),
            sha256: hex(&Sha256::digest(&self.bytes)),
            base64: base64::engine::general_purpose::STANDARD.encode(&self.bytes),
        }
    }

    /// The document a spec recorded, refused when its bytes do not match its digest.
    pub fn from_source(name: &str, sha256: &str, encoded: &str) -> Result<Self, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| format!("its recorded document `{name}` is not base64 ({e})"))?;
        let digest = hex(&Sha256::digest(&bytes));
        if digest != sha256 {
            return Err(format!(
                "its recorded document `{name}` has digest {digest}, the run recorded {sha256}"
            ));
        }
        Ok(Self {
            name: name.to_string(),
            bytes,
        })
    }
}

/// The lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A call's arguments, checked.
pub struct Request {
    /// The document sent, if any.
    pub document: Option<SentDocument>,
    /// The mode.
    pub mode: String,
    /// The party.
    pub our_party: String,
    /// The language.
    pub language: String,
    /// The domain given.
    pub domain: Option<String>,
    /// The playbook given.
    pub playbook: Option<String>,
    /// The budget given.
    pub budget: SpecBudget,
}

fn bad(path: &str, message: impl Into<String>) -> TaskError {
    TaskError::invalid_argument(path, message)
}

/// Refuses keys of `object` (at `path`) other than `known`.
fn only_known(object: &Map<String, Value>, path: &str, known: &[&str]) -> Result<(), TaskError> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(key) => Err(bad(
            &format!("{path}.{key}"),
            format!("unknown argument; expected one of {}", known.join(", ")),
        )),
        None => Ok(()),
    }
}

/// The string at `key` of `object`, if present.
fn string<'a>(
    object: &'a Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Option<&'a str>, TaskError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(bad(
            &format!("{path}.{key}"),
            format!("expected a string, got {other}"),
        )),
    }
}

/// One of `allowed` at `key`, if present.
fn one_of(
    object: &Map<String, Value>,
    key: &str,
    allowed: &[&str],
) -> Result<Option<String>, TaskError> {
    match string(object, "$", key)? {
        None => Ok(None),
        Some(v) if allowed.contains(&v) => Ok(Some(v.to_string())),
        Some(v) => Err(bad(
            &format!("$.{key}"),
            format!("`{v}` is not one of {}", allowed.join(", ")),
        )),
    }
}

/// Checks the arguments of a call.
pub fn parse(arguments: &Value) -> Result<Request, TaskError> {
    let Value::Object(args) = arguments else {
        return Err(bad("$", "expected an object of arguments"));
    };
    only_known(
        args,
        "$",
        &[
            "document",
            "mode",
            "our_party",
            "language",
            "domain",
            "playbook",
            "budget",
        ],
    )?;
    let mode = one_of(args, "mode", &MODES)?.unwrap_or_else(|| "checklist".into());
    let domains = ["fidic", "sha_spa", "generic"];
    let generic = |d: String| if d == "generic" { String::new() } else { d };
    let domain = one_of(args, "domain", &domains)?.map(generic);
    let playbook = one_of(args, "playbook", &domains)?.map(generic);
    let budget = parse_budget(args.get("budget"))?;
    if budget != SpecBudget::default() && mode != "orchestrate" {
        return Err(bad(
            "$.budget",
            format!("a budget applies to mode `orchestrate` only; the mode is `{mode}`"),
        ));
    }
    Ok(Request {
        document: parse_document(args.get("document"))?,
        language: one_of(args, "language", &["en", "zh-CN"])?.unwrap_or_else(|| "en".into()),
        our_party: string(args, "$", "our_party")?.unwrap_or("").to_string(),
        mode,
        domain,
        playbook,
        budget,
    })
}

fn parse_budget(value: Option<&Value>) -> Result<SpecBudget, TaskError> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(SpecBudget::default());
    };
    let Value::Object(budget) = value else {
        return Err(bad("$.budget", format!("expected an object, got {value}")));
    };
    let keys = ["model_requests", "input_tokens", "output_tokens"];
    only_known(budget, "$.budget", &keys)?;
    let count = |key: &str| -> Result<Option<u64>, TaskError> {
        match budget.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64().filter(|n| *n >= 1) {
                Some(n) => Ok(Some(n)),
                None => Err(bad(
                    &format!("$.budget.{key}"),
                    format!("expected a whole number of at least 1, got {v}"),
                )),
            },
        }
    };
    Ok(SpecBudget {
        model_requests: count(keys[0])?,
        input_tokens: count(keys[1])?,
        output_tokens: count(keys[2])?,
    })
}

fn parse_document(value: Option<&Value>) -> Result<Option<SentDocument>, TaskError> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let Value::Object(doc) = value else {
        return Err(bad(
            "$.document",
            format!("expected an object, got {value}"),
        ));
    };
    only_known(doc, "$.document", &["name", "text", "base64"])?;
    let name = string(doc, "$.document", "name")?
        .ok_or_else(|| bad("$.document.name", "missing: the document's file name"))?;
    check_name(name)?;
    let too_big = |path: &str, bytes: usize| {
        bad(
            path,
            format!("the document is {bytes} bytes, over the limit of {MAX_SENT_DOCUMENT_BYTES} bytes for a document sent to this server"),
        )
    };
    let bytes = match (
        string(doc, "$.document", "text")?,
        string(doc, "$.document", "base64")?,
    ) {
        (Some(_), Some(_)) => {
            return Err(bad("$.document", "give `text` or `base64`, not both"));
        }
        (None, None) => {
            return Err(bad(
                "$.document",
                "give the document as `text` (plain text) or `base64` (its bytes)",
            ));
        }
        (Some(text), None) => {
            if name_extension(name).is_some_and(|e| e == "docx" || e == "pdf") {
                return Err(bad(
                    "$.document.text",
                    format!("`{name}` is a binary format: send its bytes as `base64`"),
                ));
            }
            if text.len() > MAX_SENT_DOCUMENT_BYTES {
                return Err(too_big("$.document.text", text.len()));
            }
            text.as_bytes().to_vec()
        }
        (None, Some(encoded)) => {
            // Decoded, base64 takes 3 bytes of every 4 characters.
            if encoded.len() / 4 * 3 > MAX_SENT_DOCUMENT_BYTES + 2 {
                return Err(too_big("$.document.base64", encoded.len() / 4 * 3));
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded.trim())
                .map_err(|e| bad("$.document.base64", format!("not base64: {e}")))?;
            if bytes.len() > MAX_SENT_DOCUMENT_BYTES {
                return Err(too_big("$.document.base64", bytes.len()));
            }
            bytes
        }
    };
    Ok(Some(SentDocument {
        name: name.to_string(),
        bytes,
    }))
}

fn name_extension(name: &str) -> Option<String> {
    std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// A plain file name (no folders, not hidden) with a readable extension.
fn check_name(name: &str) -> Result<(), TaskError> {
    let plain = std::path::Path::new(name)
        .file_name()
        .is_some_and(|f| f == name)
        && !name.starts_with('.')
        && !name.contains(['/', '\\']);
    if !plain {
        return Err(bad(
            "$.document.name",
            format!("`{name}` is not a plain file name (no folders, not hidden)"),
        ));
    }
    match name_extension(name) {
        Some(ext) if EXTENSIONS.contains(&ext.as_str()) => Ok(()),
        _ => Err(bad(
            "$.document.name",
            format!(
                "`{name}` has no readable extension; expected .{}",
                EXTENSIONS.join(", .")
            ),
        )),
    }
}

/// The domain id given (`None`: none), checked to parse.
pub fn domain_of(id: Option<&str>) -> Option<Domain> {
    id.and_then(|d| d.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path_of(err: TaskError) -> String {
        match err {
            TaskError::InvalidArgument { path, .. } => path,
            other => panic!("not an argument error: {other}"),
        }
    }

    #[test]
    fn defaults_and_refusals_name_the_argument() {
        let r = parse(&json!({})).unwrap();
        assert_eq!(
            (r.mode.as_str(), r.language.as_str(), r.document.is_none()),
            ("checklist", "en", true)
        );
        let err = |v: Value| path_of(parse(&v).err().expect("refused"));
        assert_eq!(err(json!({"mode": "fast"})), "$.mode");
        assert_eq!(err(json!({"colour": 1})), "$.colour");
        assert_eq!(err(json!({"budget": {"model_requests": 3}})), "$.budget");
        assert_eq!(
            err(json!({"mode": "orchestrate", "budget": {"model_requests": 0}})),
            "$.budget.model_requests"
        );
        assert_eq!(
            err(json!({"document": {"name": "../x.md", "text": "a"}})),
            "$.document.name"
        );
        assert_eq!(
            err(json!({"document": {"name": "x.exe", "text": "a"}})),
            "$.document.name"
        );
        assert_eq!(
            err(json!({"document": {"name": "x.pdf", "text": "a"}})),
            "$.document.text"
        );
        assert_eq!(err(json!({"document": {"name": "x.md"}})), "$.document");
        let big = "a".repeat(MAX_SENT_DOCUMENT_BYTES + 1);
        let refused = parse(&json!({"document": {"name": "x.md", "text": big}})).err();
        let text = refused.unwrap().to_string();
        assert!(
            text.contains(&MAX_SENT_DOCUMENT_BYTES.to_string()),
            "{text}"
        );
    }

    #[test]
    fn a_sent_document_comes_back_from_its_source_only_when_whole() {
        let doc = SentDocument {
            name: "c.md".into(),
            bytes: b"1 Scope".to_vec(),
        };
        let Source::Sent {
            name,
            sha256,
            base64,
        } = doc.source()
        else {
            panic!("a sent source")
        };
        let back = SentDocument::from_source(&name, &sha256, &base64).unwrap();
        assert_eq!(back.bytes, b"1 Scope");
        let other = base64::engine::general_purpose::STANDARD.encode(b"2 Other");
        let refused = SentDocument::from_source(&name, &sha256, &other)
            .err()
            .unwrap();
        assert!(refused.contains("digest"), "{refused}");
    }
}
