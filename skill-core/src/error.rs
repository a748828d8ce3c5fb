//! The error a skill returns, and the standard codes the framework uses.
//!
//! One type serves skill authors (`?` on their own errors), the dispatcher (argument, timeout
//! and panic failures) and the model: [`SkillError::message`] is the short, actionable text
//! the model reads; [`SkillError::details`] and the source chain are for operators only.

use std::borrow::Cow;
use std::error::Error as StdError;

use serde_json::Value;

use crate::outcome::Outcome;

/// Standard error codes. Skills may use their own codes too (any `snake_case` string).
pub mod codes {
    /// No skill with the requested id (or wire name) is registered.
    pub const UNKNOWN_SKILL: &str = "unknown_skill";
    /// The arguments could not be read into the skill's input.
    pub const INVALID_ARGUMENTS: &str = "invalid_arguments";
    /// The argument text is larger than the dispatcher's limit (default 1 MiB); not parsed.
    pub const ARGUMENTS_TOO_LARGE: &str = "arguments_too_large";
    /// The arguments are nested deeper than the dispatcher's limit (default 64); not parsed.
    pub const ARGUMENTS_TOO_DEEP: &str = "arguments_too_deep";
    /// The host did not put a value the skill needs into the context.
    pub const MISSING_INJECTION: &str = "missing_injection";
    /// An argument the model left out could not be prepared from the host's state.
    pub const PREPARE_FAILED: &str = "prepare_failed";
    /// The skill did not finish within its time limit.
    pub const TIMEOUT: &str = "timeout";
    /// The skill panicked; the host caught it.
    pub const PANIC: &str = "panic";
    /// A timed call could not start: every call thread of the dispatcher is busy (most
    /// often held by calls abandoned after their time limit). Nothing ran.
    pub const OVERLOADED: &str = "overloaded";
    /// The skill is registered but not active (disabled or deprecated and removed).
    pub const SKILL_DISABLED: &str = "skill_disabled";
    /// The skill failed for a reason of its own and gave no code.
    pub const SKILL_FAILED: &str = "skill_failed";
    /// The output could not be serialized.
    pub const OUTPUT_ERROR: &str = "output_error";
    /// The call writes data and waits for the host to confirm it.
    pub const CONFIRMATION_REQUIRED: &str = "confirmation_required";
    /// The host rejected a call that needed confirmation.
    pub const CONFIRMATION_REJECTED: &str = "confirmation_rejected";
    /// A value the skill needs was not found (a clause, a document).
    pub const NOT_FOUND: &str = "not_found";
    /// The call was not run: the run's budget (tool calls, model requests) is spent
    /// (an orchestrated run, `agent::orchestrate`).
    pub const BUDGET_EXHAUSTED: &str = "budget_exhausted";
}

/// Why a skill call failed.
#[derive(Debug, thiserror::Error)]
#[error("{code}: {message}")]
pub struct SkillError {
    /// Machine-readable code, `snake_case` (see [`codes`]).
    pub code: Cow<'static, str>,
    /// Short text for the model: what was wrong and what is expected.
    pub message: String,
    /// Operator detail (paths, raw values, payloads); never shown to the model.
    pub details: Option<Value>,
    /// What the failure means for the host (waiting for confirmation, argument problems,
    /// time-out), typed; `None` for a skill's own failures. Boxed: errors stay small.
    pub outcome: Option<Box<Outcome>>,
    /// The underlying error, for logs.
    #[source]
    pub source: Option<Box<dyn StdError + Send + Sync + 'static>>,
}

impl SkillError {
    /// An error with a code and a message for the model.
    pub fn new(code: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            details: None,
            outcome: None,
            source: None,
        }
    }

    /// The error a typed outcome is reported with: its standard code, `message` for the
    /// model.
    pub fn from_outcome(outcome: Outcome, message: impl Into<String>) -> Self {
        let mut err = Self::new(outcome.code(), message);
        err.outcome = Some(Box::new(outcome));
        err
    }

    /// Attaches operator detail.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Attaches the underlying error.
    #[must_use]
    pub fn with_source(mut self, source: impl StdError + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// A value the skill needs (clause, document) does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(codes::NOT_FOUND, message)
    }

    /// The arguments are wrong in a way the model can fix.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_ARGUMENTS, message)
    }

    /// The host did not provide a value of type `type_name` that `skill_id` needs. The
    /// model reads that the tool is not set up here (nothing it can fix); the type goes to
    /// `details` and the log, for the operator.
    pub fn missing_injection(skill_id: &str, type_name: &str) -> Self {
        tracing::warn!(
            skill = skill_id,
            r#type = type_name,
            "the host did not put a value the skill needs into the SkillContext"
        );
        Self::new(
            codes::MISSING_INJECTION,
            format!(
                "tool `{skill_id}` cannot run here: the host has not set up what it needs; this is not something different arguments can fix"
            ),
        )
        .with_details(serde_json::json!({ "skill_id": skill_id, "type": type_name }))
    }

    /// Wraps any error as a skill failure, keeping it as the source.
    pub fn from_error(err: impl StdError + Send + Sync + 'static) -> Self {
        Self::new(codes::SKILL_FAILED, err.to_string()).with_source(err)
    }

    /// The source chain as text, outermost first (for operator detail and logs).
    pub fn source_chain(&self) -> Vec<String> {
        let mut chain = Vec::new();
        let mut next: Option<&(dyn StdError + 'static)> = self.source.as_deref().map(|e| e as _);
        while let Some(err) = next {
            chain.push(err.to_string());
            next = err.source();
        }
        chain
    }
}

impl From<std::io::Error> for SkillError {
    fn from(err: std::io::Error) -> Self {
        Self::from_error(err)
    }
}

impl From<serde_json::Error> for SkillError {
    fn from(err: serde_json::Error) -> Self {
        Self::from_error(err)
    }
}

impl From<String> for SkillError {
    fn from(message: String) -> Self {
        Self::new(codes::SKILL_FAILED, message)
    }
}

impl From<&str> for SkillError {
    fn from(message: &str) -> Self {
        Self::new(codes::SKILL_FAILED, message)
    }
}
