//! Typed access to one skill: the marker type `#[skill]` generates implements [`Skill`].

use std::future::Future;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::context::SkillContext;
use crate::error::SkillError;
use crate::registration::SkillRegistration;

/// A skill known at compile time, for typed calls without JSON.
///
/// `#[skill(id = "get_clause_context")]` on `fn get_clause_context(...)` generates the
/// marker `GetClauseContext: Skill` with `Input = GetClauseContextInput`.
pub trait Skill: Send + Sync + 'static {
    /// The skill's id.
    const ID: &'static str;
    /// The arguments the model fills in.
    type Input: DeserializeOwned + Serialize + JsonSchema + Send + 'static;
    /// What the skill returns on success.
    type Output: Serialize + JsonSchema + Send + 'static;

    /// The skill's static registration.
    fn registration() -> &'static SkillRegistration;

    /// Builds the input from the model's arguments, values prepared from the context for
    /// arguments the model left out, then declared defaults.
    fn prepare_input(
        ctx: &SkillContext,
        llm_arguments: Option<&Value>,
    ) -> Result<Self::Input, SkillError>;

    /// Runs the skill on a complete input.
    fn run(
        input: Self::Input,
        ctx: &SkillContext,
    ) -> impl Future<Output = Result<Self::Output, SkillError>> + Send + '_;
}
