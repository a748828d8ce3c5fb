//! Reading the model's final answer of a ReAct clause review: the JSON list of risks the
//! prompt ([`super::react_prompt`]) asked for, wherever in the text it put it (bare, in a
//! ```json fence, or inside prose). The agent turns each into a report [`Risk`](super::Risk).

use serde::Serialize;
use serde_json::{Map, Value};
use skill_core::agent::extract_json;

use super::RiskLocation;

/// One risk as the model wrote it, read leniently: fields it left out are empty, fields it
/// added are kept in `extra`. The review turns it into a [`Risk`](super::Risk) (level
/// normalised, clause, id and source filled in).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRisk {
    /// The model's id for the risk, if it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Level as written (the prompt asks for `high`, `medium` or `low`).
    pub risk_level: String,
    /// Kind of risk.
    pub risk_type: String,
    /// What the risk is.
    pub description: String,
    /// Why it is a risk.
    pub reason: String,
    /// Detailed analysis.
    pub analysis: String,
    /// The passage concerned (`original_text` at the top level or `location.original_text`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<RiskLocation>,
    /// Any other field the model wrote.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

const KNOWN: [&str; 8] = [
    "id",
    "risk_level",
    "risk_type",
    "description",
    "reason",
    "analysis",
    "original_text",
    "location",
];

impl ModelRisk {
    /// Reads one risk object leniently: numbers and booleans become text, `null` is empty.
    pub fn from_object(mut object: Map<String, Value>) -> Self {
        let mut take = |key: &str| object.remove(key).and_then(text_of);
        let id = take("id");
        let risk_level = take("risk_level").unwrap_or_default();
        let risk_type = take("risk_type").unwrap_or_default();
        let description = take("description").unwrap_or_default();
        let reason = take("reason").unwrap_or_default();
        let analysis = take("analysis").unwrap_or_default();
        let top_text = take("original_text");
        let nested_text = match object.remove("location") {
            Some(Value::Object(mut loc)) => loc.remove("original_text").and_then(text_of),
            Some(other) => text_of(other),
            None => None,
        };
        let location = top_text
            .or(nested_text)
            .filter(|t| !t.is_empty())
            .map(|original_text| RiskLocation { original_text });
        Self {
            id,
            risk_level,
            risk_type,
            description,
            reason,
            analysis,
            location,
            extra: object,
        }
    }

    /// The quoted passage, or `""`.
    pub fn original_text(&self) -> &str {
        self.location
            .as_ref()
            .map_or("", |l| l.original_text.as_str())
    }
}

fn text_of(value: Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.trim().to_string()),
        other => Some(other.to_string()),
    }
}

/// Why a final answer gave no risk list.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FinalAnswerError {
    /// The answer was empty.
    #[error("the final answer is empty")]
    Empty,
    /// No JSON list or object was found in it.
    #[error("the final answer contains no JSON risk list: {excerpt}")]
    NoJson {
        /// The start of the answer.
        excerpt: String,
    },
    /// JSON was found but is neither a list of risks nor an object with `risks`.
    #[error("the final answer's JSON is not a risk list (found {found})")]
    NotAList {
        /// What was found.
        found: String,
    },
}

/// Parses the final answer into risks (SPEC-20 `_parse_final_response`): a JSON array of
/// objects (non-objects are dropped), `{"risks": [...]}`, or one risk object; fenced
/// ```` ```json ```` blocks and prose around the JSON are tolerated.
pub fn parse_final_response(text: &str) -> Result<Vec<ModelRisk>, FinalAnswerError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(FinalAnswerError::Empty);
    }
    let value = extract_json(trimmed).ok_or_else(|| FinalAnswerError::NoJson {
        excerpt: trimmed.chars().take(120).collect(),
    })?;
    risks_of(value)
}

fn risks_of(value: Value) -> Result<Vec<ModelRisk>, FinalAnswerError> {
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut map) => match map.remove("risks") {
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(FinalAnswerError::NotAList {
                    found: format!("`risks` of type {}", type_name(&other)),
                })
            }
            None if KNOWN.iter().any(|k| map.contains_key(*k)) => vec![Value::Object(map)],
            None => {
                return Err(FinalAnswerError::NotAList {
                    found: "an object without `risks` or risk fields".into(),
                })
            }
        },
        other => {
            return Err(FinalAnswerError::NotAList {
                found: type_name(&other).into(),
            })
        }
    };
    Ok(items
        .into_iter()
        .filter_map(|item| match item {
            Value::Object(map) => Some(ModelRisk::from_object(map)),
            _ => None,
        })
        .collect())
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
