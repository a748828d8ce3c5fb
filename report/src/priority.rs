//! How much a clause of the checklist matters, as the report carries it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How much a checklist item matters.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Must be reviewed first.
    Critical,
    /// Important.
    High,
    /// Normal.
    #[default]
    Medium,
    /// Nice to have.
    Low,
}
