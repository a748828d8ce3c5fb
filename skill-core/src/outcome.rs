//! What a call that returned no data came to, as a type: waiting for a person's
//! confirmation, unusable arguments (each problem with its JSON path), or out of time.
//!
//! Hosts (the MCP server, the console, the agent loop) branch on these values instead of
//! reading keys out of `error.details`, which stays operator detail. On the wire the standard
//! result keeps its shape: [`Outcome::write_details`] writes each outcome under the keys
//! earlier versions used (`pending_confirmation`, `path` + `errors`, `timeout_ms`) and
//! [`Outcome::read_details`] reads them back, so JSON consumers see no change.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::args::ParseError;
use crate::confirm::PendingConfirmation;
use crate::error::codes;

/// The typed part of a failed call: what a host does next depends on it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// The skill writes data and waits for a person's decision; nothing ran. Confirm or
    /// reject it by its id ([`crate::Dispatcher::confirm`], [`crate::Dispatcher::reject`]).
    AwaitingConfirmation(PendingConfirmation),
    /// The arguments could not be used; each problem names its JSON path, what was
    /// expected and what was sent (code `invalid_arguments`).
    InvalidArguments(Vec<ParseError>),
    /// The skill did not finish within its time limit (code `timeout`).
    TimedOut {
        /// The limit that passed, in milliseconds.
        limit_ms: u64,
    },
}

impl Outcome {
    /// The standard error code this outcome is reported with.
    pub fn code(&self) -> &'static str {
        match self {
            Outcome::AwaitingConfirmation(_) => codes::CONFIRMATION_REQUIRED,
            Outcome::InvalidArguments(_) => codes::INVALID_ARGUMENTS,
            Outcome::TimedOut { .. } => codes::TIMEOUT,
        }
    }

    /// The argument problems, when the arguments were the trouble.
    pub fn problems(&self) -> &[ParseError] {
        match self {
            Outcome::InvalidArguments(problems) => problems,
            _ => &[],
        }
    }

    /// The error's `details` as written on the wire: this outcome under its keys, then the
    /// operator detail (an object's keys beside them, any other value under `detail`).
    pub(crate) fn write_details(
        outcome: Option<&Outcome>,
        details: Option<&Value>,
    ) -> Option<Value> {
        let Some(outcome) = outcome else {
            return details.cloned();
        };
        let mut map = Map::new();
        match outcome {
            Outcome::AwaitingConfirmation(pending) => {
                map.insert(
                    "pending_confirmation".into(),
                    serde_json::to_value(pending).unwrap_or(Value::Null),
                );
            }
            Outcome::InvalidArguments(problems) => {
                let first = problems.first().map_or("$", |p| p.path.as_str());
                map.insert("path".into(), Value::String(first.to_string()));
                map.insert(
                    "errors".into(),
                    serde_json::to_value(problems).unwrap_or(Value::Null),
                );
            }
            Outcome::TimedOut { limit_ms } => {
                map.insert("timeout_ms".into(), Value::from(*limit_ms));
            }
        }
        match details {
            Some(Value::Object(extra)) => {
                for (key, value) in extra {
                    map.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
            Some(other) => {
                map.insert("detail".into(), other.clone());
            }
            None => {}
        }
        Some(Value::Object(map))
    }

    /// Reads the outcome of an error with `code` back out of its wire `details`, leaving the
    /// operator detail (`None` when nothing else was there).
    pub(crate) fn read_details(code: &str, details: &mut Option<Value>) -> Option<Outcome> {
        let Some(Value::Object(map)) = details.as_mut() else {
            return None;
        };
        let outcome = match code {
            codes::CONFIRMATION_REQUIRED => {
                let pending =
                    PendingConfirmation::deserialize(map.get("pending_confirmation")?).ok()?;
                map.remove("pending_confirmation");
                Outcome::AwaitingConfirmation(pending)
            }
            codes::INVALID_ARGUMENTS => {
                let problems = Vec::<ParseError>::deserialize(map.get("errors")?).ok()?;
                map.remove("errors");
                map.remove("path");
                Outcome::InvalidArguments(problems)
            }
            codes::TIMEOUT => {
                let limit_ms = map.get("timeout_ms")?.as_u64()?;
                map.remove("timeout_ms");
                Outcome::TimedOut { limit_ms }
            }
            _ => return None,
        };
        if map.is_empty() {
            *details = None;
        }
        Some(outcome)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn problem(path: &str) -> ParseError {
        ParseError {
            code: "type_mismatch".into(),
            path: path.into(),
            expected: "integer".into(),
            raw: json!("x"),
            message: "not a number".into(),
        }
    }

    #[test]
    fn each_outcome_reads_back_from_what_it_writes() {
        let outcomes = [
            Outcome::InvalidArguments(vec![problem("$.a"), problem("$.b")]),
            Outcome::TimedOut { limit_ms: 250 },
        ];
        for outcome in outcomes {
            let operator = json!({ "source_chain": ["io"] });
            let mut wire = Outcome::write_details(Some(&outcome), Some(&operator));
            let read = Outcome::read_details(outcome.code(), &mut wire);
            assert_eq!(read.as_ref(), Some(&outcome));
            assert_eq!(wire, Some(operator));
        }
    }

    #[test]
    fn argument_problems_keep_the_first_path_on_the_wire() {
        let outcome = Outcome::InvalidArguments(vec![problem("$.a"), problem("$.b")]);
        let wire = Outcome::write_details(Some(&outcome), None).unwrap();
        assert_eq!(wire["path"], "$.a");
        assert_eq!(wire["errors"][1]["path"], "$.b");
        let mut alone = Some(wire);
        Outcome::read_details(codes::INVALID_ARGUMENTS, &mut alone);
        assert_eq!(alone, None, "nothing but the outcome was there");
    }

    #[test]
    fn other_codes_and_foreign_details_are_left_alone() {
        let mut details = Some(json!({ "timeout_ms": 5 }));
        assert_eq!(
            Outcome::read_details(codes::SKILL_FAILED, &mut details),
            None
        );
        assert_eq!(details, Some(json!({ "timeout_ms": 5 })));
        let mut text = Some(json!("a note"));
        assert_eq!(Outcome::read_details(codes::TIMEOUT, &mut text), None);
        let wire = Outcome::write_details(
            Some(&Outcome::TimedOut { limit_ms: 1 }),
            Some(&json!("a note")),
        );
        assert_eq!(wire, Some(json!({ "timeout_ms": 1, "detail": "a note" })));
    }
}
