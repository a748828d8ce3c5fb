//! The standard result of a skill call (`{skill_id, success, data, error, elapsed_ms}`).
//!
//! `data` is kept as already-serialized JSON: a call serializes the skill's output once, and
//! writing the result out again costs a copy, not a second serialization.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::args::ParseWarning;
use crate::error::SkillError;
use crate::outcome::Outcome;

/// The error part of a [`SkillResult`].
///
/// On the wire it is `{code, message, details}`: the typed [`outcome`](Self::outcome) is
/// written into `details` under the keys consumers of the JSON read (see
/// [`crate::Outcome`]) and read back from them.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorInfo {
    /// Machine-readable code (see [`crate::error::codes`]).
    pub code: Cow<'static, str>,
    /// Short, actionable text for the model.
    pub message: String,
    /// Operator detail; left out of [`SkillResult::to_model_json`].
    pub details: Option<Value>,
    /// What the failure means for the host, typed (see [`SkillResult::outcome`]).
    pub outcome: Option<Box<Outcome>>,
}

/// The wire shape of [`ErrorInfo`].
#[derive(Serialize, Deserialize)]
#[serde(rename = "ErrorInfo")]
struct WireError<'a> {
    code: Cow<'a, str>,
    message: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    details: Option<Cow<'a, Value>>,
}

impl Serialize for ErrorInfo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let details = match &self.outcome {
            None => self.details.as_ref().map(Cow::Borrowed),
            outcome => {
                Outcome::write_details(outcome.as_deref(), self.details.as_ref()).map(Cow::Owned)
            }
        };
        WireError {
            code: Cow::Borrowed(&self.code),
            message: Cow::Borrowed(&self.message),
            details,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ErrorInfo {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = WireError::deserialize(deserializer)?;
        let mut details = wire.details.map(Cow::into_owned);
        let outcome = Outcome::read_details(&wire.code, &mut details).map(Box::new);
        Ok(Self {
            code: Cow::Owned(wire.code.into_owned()),
            message: wire.message.into_owned(),
            details,
            outcome,
        })
    }
}

impl From<ErrorInfo> for SkillError {
    /// The error again, to hand a result's failure on as a skill's own (a gateway's typed
    /// call): code, message, detail and outcome kept.
    fn from(info: ErrorInfo) -> Self {
        let mut err = SkillError::new(info.code, info.message);
        err.details = info.details;
        err.outcome = info.outcome;
        err
    }
}

/// Outcome of one skill call, in the standard shape every caller (model, UI, logs) reads.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SkillResult {
    /// The skill that was asked for.
    pub skill_id: Cow<'static, str>,
    /// Whether the skill ran and returned a value.
    pub success: bool,
    /// The skill's output, as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Box<RawValue>>,
    /// Why the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// Wall time of the call in milliseconds.
    pub elapsed_ms: f64,
    /// Fixes applied to the model's arguments (telemetry; the call still ran).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<ParseWarning>,
}

impl SkillResult {
    /// A successful result carrying already-serialized output.
    pub fn ok(
        skill_id: impl Into<Cow<'static, str>>,
        data: Box<RawValue>,
        elapsed_ms: f64,
    ) -> Self {
        Self {
            skill_id: skill_id.into(),
            success: true,
            data: Some(data),
            error: None,
            elapsed_ms,
            warnings: Vec::new(),
        }
    }

    /// A failed result.
    pub fn err(skill_id: impl Into<Cow<'static, str>>, error: SkillError, elapsed_ms: f64) -> Self {
        let mut details = error.details;
        let chain = {
            let mut chain = Vec::new();
            let mut next: Option<&(dyn std::error::Error + 'static)> =
                error.source.as_deref().map(|e| e as _);
            while let Some(e) = next {
                chain.push(Value::String(e.to_string()));
                next = e.source();
            }
            chain
        };
        if !chain.is_empty() {
            let mut obj = match details.take() {
                Some(Value::Object(map)) => map,
                Some(other) => {
                    let mut map = serde_json::Map::new();
                    map.insert("detail".into(), other);
                    map
                }
                None => serde_json::Map::new(),
            };
            obj.insert("source_chain".into(), Value::Array(chain));
            details = Some(Value::Object(obj));
        }
        Self {
            skill_id: skill_id.into(),
            success: false,
            data: None,
            error: Some(ErrorInfo {
                code: error.code,
                message: error.message,
                details,
                outcome: error.outcome,
            }),
            elapsed_ms,
            warnings: Vec::new(),
        }
    }

    /// The error code, if the call failed.
    pub fn error_code(&self) -> Option<&str> {
        self.error.as_ref().map(|e| e.code.as_ref())
    }

    /// What the failure means for the host, typed: waiting for confirmation, argument
    /// problems, time-out. `None` on success and for a skill's own failures.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.error.as_ref()?.outcome.as_deref()
    }

    /// The call that waits for a person's confirmation, when this result says so (code
    /// `confirmation_required`): confirm it with [`crate::Dispatcher::confirm`] by its `id`.
    pub fn pending_confirmation(&self) -> Option<crate::PendingConfirmation> {
        match self.outcome()? {
            Outcome::AwaitingConfirmation(pending) => Some(pending.clone()),
            _ => None,
        }
    }

    /// The output deserialized into `T`.
    pub fn data_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match &self.data {
            Some(raw) => serde_json::from_str(raw.get()),
            None => serde_json::from_str("null"),
        }
    }

    /// The output as a JSON value (`null` when the call failed).
    pub fn data_value(&self) -> Value {
        self.data_as::<Value>().unwrap_or(Value::Null)
    }

    /// The whole result as JSON text, operator detail included.
    pub fn to_json(&self) -> String {
        write_json(self, self.envelope_capacity()).unwrap_or_else(|e| {
            format!(
                "{{\"success\":false,\"error\":{{\"code\":\"output_error\",\"message\":{:?}}}}}",
                e.to_string()
            )
        })
    }

    /// The output's length plus room for the envelope, so writing the result out does not
    /// grow (and copy) its buffer.
    fn envelope_capacity(&self) -> usize {
        let data = self.data.as_ref().map_or(0, |d| d.get().len());
        let error = self.error.as_ref().map_or(0, |e| e.message.len() + 64);
        data + error + self.skill_id.len() + 64
    }

    /// What the model reads: `data` on success, `error.code` and `error.message` on failure,
    /// and `warnings` naming arguments the skill does not have (each with the nearest real
    /// name), so the model learns that a misspelt argument was not used. Operator detail
    /// (source chains, panic payloads, type names) is never included.
    pub fn to_model_json(&self) -> String {
        #[derive(Serialize)]
        struct ModelError<'a> {
            code: &'a str,
            message: &'a str,
        }
        #[derive(Serialize)]
        struct ModelView<'a> {
            success: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            data: Option<&'a RawValue>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<ModelError<'a>>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            warnings: Vec<&'a str>,
        }
        let view = ModelView {
            success: self.success,
            data: self.data.as_deref(),
            error: self.error.as_ref().map(|e| ModelError {
                code: &e.code,
                message: &e.message,
            }),
            warnings: self
                .warnings
                .iter()
                .filter(|w| w.code == "unknown_argument")
                .map(|w| w.message.as_str())
                .collect(),
        };
        write_json(&view, self.envelope_capacity())
            .unwrap_or_else(|_| "{\"success\":false}".to_string())
    }

    /// [`to_model_json`](Self::to_model_json) fenced as data (see [`crate::fence`]): the
    /// text a chat message carries back to the model, which no content of the result can
    /// end early or turn into instructions.
    pub fn to_model_text(&self, tool: &str) -> String {
        crate::fence::fence_tool_output(tool, &self.to_model_json())
    }
}

/// Serializes into a buffer of the given capacity.
fn write_json<T: Serialize>(value: &T, capacity: usize) -> Result<String, serde_json::Error> {
    let mut buffer = Vec::with_capacity(capacity);
    serde_json::to_writer(&mut buffer, value)?;
    // serde_json writes UTF-8 only.
    String::from_utf8(buffer).map_err(|e| serde::ser::Error::custom(e.to_string()))
}
