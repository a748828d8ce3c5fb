//! Reading the model's tool-call arguments: what was fixed ([`ParseWarning`]) and what could
//! not be ([`ParseError`]), each with the JSON path, the expected kind and the raw value.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A value the model sent that was accepted after a fix (or a notable oddity of the call).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParseWarning {
    /// Machine-readable kind of fix, e.g. `string_to_boolean`, `invalid_json_arguments`.
    pub code: String,
    /// JSON path of the value, e.g. `$.top_k` or `$.items[2]`; `$` for the whole call.
    pub path: String,
    /// What the parameter expects, e.g. `integer`.
    pub expected: String,
    /// The value as the model sent it.
    pub raw: Value,
    /// One sentence for logs.
    pub message: String,
}

/// A value the model sent that could not be used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParseError {
    /// Machine-readable kind of problem, e.g. `missing_required`, `type_mismatch`.
    pub code: String,
    /// JSON path of the value.
    pub path: String,
    /// What the parameter expects.
    pub expected: String,
    /// The value as the model sent it (`null` when missing).
    pub raw: Value,
    /// One sentence the model can act on.
    pub message: String,
}
