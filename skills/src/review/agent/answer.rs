//! Reading the model's final answer of a ReAct clause review: the JSON list of risks the
//! prompt ([`react_prompt`](super::react_prompt)) asked for, wherever in the text it put it (bare, in a
//! ```json fence, or inside prose). The agent turns each into a report [`Risk`](crate::review::Risk).

use serde_json::{Map, Value};
use toolwright::agent::extract_json;

use super::REACT_SOURCE;
use crate::review::types::{Finding, RiskKind, RiskLevel};

/// One risk as the model wrote it, read leniently into a [`Finding`]: the level normalised
/// ([`RiskLevel::from_model_answer`]), the kind read by name (empty when the model gave
/// none), the quote from `original_text` or `location.original_text`. Fields the model
/// added are kept in `extra`.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRisk {
    /// The model's id for the risk, if it gave one.
    pub id: Option<String>,
    /// What the model found.
    pub finding: Finding,
    /// Any other field the model wrote.
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
        let level = RiskLevel::from_model_answer(&take("risk_level").unwrap_or_default());
        let kind = RiskKind::from_name(&take("risk_type").unwrap_or_default());
        let description = take("description").unwrap_or_default();
        let reason = take("reason").unwrap_or_default();
        let analysis = take("analysis").unwrap_or_default();
        let top_text = take("original_text");
        let nested_text = match object.remove("location") {
            Some(Value::Object(mut loc)) => loc.remove("original_text").and_then(text_of),
            Some(other) => text_of(other),
            None => None,
        };
        let quote = top_text
            .filter(|t| !t.is_empty())
            .or(nested_text)
            .unwrap_or_default();
        Self {
            id,
            finding: Finding {
                reason,
                analysis,
                quote,
                source_skill: REACT_SOURCE.to_string(),
                ..Finding::new(kind, level, description)
            },
            extra: object,
        }
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
