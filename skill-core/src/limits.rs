//! Bounds on what a model may send: the size and the nesting depth of a call's arguments.
//!
//! A tool call's arguments are untrusted text. They are measured before anything parses
//! them, so a 4 MiB string or ten thousand nested arrays is refused in one linear pass with
//! an error the model can act on, instead of being parsed, coerced and handed to a skill.
//! The [`Dispatcher`](crate::Dispatcher) applies [`ArgumentLimits::default`] unless its
//! builder sets others.

use serde_json::Value;

use crate::registration::CallArgs;

/// Default largest argument text, in bytes (1 MiB): far above any real tool call (a whole
/// contract clause is a few KiB), far below what would hurt the host.
pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 1 << 20;

/// Default deepest nesting of arrays and objects in the arguments. Tool arguments are a
/// handful of levels deep; `serde_json` itself stops at 128.
pub const DEFAULT_MAX_ARGUMENT_DEPTH: usize = 64;

/// The bounds a call's arguments must stay within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgumentLimits {
    /// Largest argument text in bytes (for a parsed value: the size of its JSON text).
    pub max_bytes: usize,
    /// Deepest nesting of arrays and objects; the top-level object is depth 1.
    pub max_depth: usize,
}

impl Default for ArgumentLimits {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_ARGUMENT_BYTES,
            max_depth: DEFAULT_MAX_ARGUMENT_DEPTH,
        }
    }
}

/// Arguments over a limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// The text is longer than [`ArgumentLimits::max_bytes`].
    #[error("the arguments are {bytes} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// Size of the arguments (for a parsed value: at least this many bytes).
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Arrays and objects are nested deeper than [`ArgumentLimits::max_depth`].
    #[error("the arguments are nested more than {limit} levels deep")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
}

impl LimitError {
    /// The error code of a call refused for it: `arguments_too_large` or
    /// `arguments_too_deep`.
    pub fn code(&self) -> &'static str {
        match self {
            LimitError::TooLarge { .. } => crate::codes::ARGUMENTS_TOO_LARGE,
            LimitError::TooDeep { .. } => crate::codes::ARGUMENTS_TOO_DEEP,
        }
    }

    /// What the arguments must be instead, for the parse error's `expected`.
    pub fn expected(&self) -> String {
        match self {
            LimitError::TooLarge { limit, .. } => format!("at most {limit} bytes of arguments"),
            LimitError::TooDeep { limit } => format!("at most {limit} levels of nesting"),
        }
    }

    /// The error a model reads for a call of `tool` refused for this, with what to do.
    pub fn to_skill_error(&self, tool: &str) -> crate::SkillError {
        let fix = match self {
            LimitError::TooLarge { .. } => {
                "send a shorter value: refer to long text (a clause, a document) by its id instead of copying it"
            }
            LimitError::TooDeep { .. } => "send a flatter value",
        };
        let details = match self {
            LimitError::TooLarge { bytes, limit } => {
                serde_json::json!({ "path": "$", "bytes": bytes, "limit": limit })
            }
            LimitError::TooDeep { limit } => serde_json::json!({ "path": "$", "limit": limit }),
        };
        crate::SkillError::new(
            self.code(),
            format!("the call of `{tool}` was refused: {self}; {fix}"),
        )
        .with_details(details)
    }
}

impl ArgumentLimits {
    /// Checks the arguments against both limits without parsing them: one pass over the
    /// text (or a walk of the value that stops as soon as a limit is passed).
    pub fn check(&self, args: CallArgs<'_>) -> Result<(), LimitError> {
        match args {
            CallArgs::None => Ok(()),
            CallArgs::Text(text) => self.check_text(text),
            CallArgs::Value(value) => {
                let mut budget = Budget {
                    bytes: 0,
                    limits: *self,
                };
                budget.walk(value, 1)
            }
        }
    }

    /// Checks JSON text: its length, then the nesting depth of brackets outside strings.
    /// Text that is not JSON passes if it is short and shallow; the parser reports it.
    pub fn check_text(&self, text: &str) -> Result<(), LimitError> {
        if text.len() > self.max_bytes {
            return Err(LimitError::TooLarge {
                bytes: text.len(),
                limit: self.max_bytes,
            });
        }
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        for byte in text.bytes() {
            if in_string {
                match byte {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > self.max_depth {
                        return Err(LimitError::TooDeep {
                            limit: self.max_depth,
                        });
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        Ok(())
    }
}

/// The running size of a value's JSON text while it is walked.
struct Budget {
    bytes: usize,
    limits: ArgumentLimits,
}

impl Budget {
    fn add(&mut self, bytes: usize) -> Result<(), LimitError> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.limits.max_bytes {
            return Err(LimitError::TooLarge {
                bytes: self.bytes,
                limit: self.limits.max_bytes,
            });
        }
        Ok(())
    }

    fn walk(&mut self, value: &Value, depth: usize) -> Result<(), LimitError> {
        match value {
            Value::Null | Value::Bool(_) => self.add(5),
            Value::Number(_) => self.add(8),
            // Quotes included; escapes are not counted, so this is a lower bound.
            Value::String(s) => self.add(s.len() + 2),
            Value::Array(items) => {
                self.enter(depth)?;
                self.add(2 + items.len())?;
                items.iter().try_for_each(|item| self.walk(item, depth + 1))
            }
            Value::Object(map) => {
                self.enter(depth)?;
                self.add(2 + map.len())?;
                map.iter().try_for_each(|(key, item)| {
                    self.add(key.len() + 3)?;
                    self.walk(item, depth + 1)
                })
            }
        }
    }

    fn enter(&self, depth: usize) -> Result<(), LimitError> {
        if depth > self.limits.max_depth {
            return Err(LimitError::TooDeep {
                limit: self.limits.max_depth,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn text_over_the_size_limit_is_refused_before_parsing() {
        let limits = ArgumentLimits {
            max_bytes: 16,
            max_depth: 8,
        };
        // Not even JSON: refused for its size alone.
        let err = limits.check_text(&"x".repeat(17)).unwrap_err();
        assert_eq!(
            err,
            LimitError::TooLarge {
                bytes: 17,
                limit: 16
            }
        );
        assert!(limits.check_text(r#"{"a": "12345"}"#).is_ok());
    }

    #[test]
    fn depth_counts_brackets_outside_strings_only() {
        let limits = ArgumentLimits {
            max_bytes: 1 << 20,
            max_depth: 4,
        };
        assert!(limits.check_text(&nested(4)).is_ok());
        assert_eq!(
            limits.check_text(&nested(5)).unwrap_err(),
            LimitError::TooDeep { limit: 4 }
        );
        // Brackets inside strings (with escaped quotes) are text, not nesting.
        let quoted = format!(r#"{{"a": "\"{}"}}"#, "[".repeat(50));
        assert!(limits.check_text(&quoted).is_ok());
    }

    #[test]
    fn parsed_values_are_measured_the_same_way() {
        let limits = ArgumentLimits {
            max_bytes: 64,
            max_depth: 4,
        };
        let deep: Value = serde_json::from_str(&nested(5)).unwrap();
        assert_eq!(
            limits.check(CallArgs::Value(&deep)).unwrap_err(),
            LimitError::TooDeep { limit: 4 }
        );
        let big = serde_json::json!({ "text": "y".repeat(100) });
        assert!(matches!(
            limits.check(CallArgs::Value(&big)),
            Err(LimitError::TooLarge { limit: 64, .. })
        ));
        let small = serde_json::json!({ "text": "y", "n": [1, 2, {"k": null}] });
        assert!(limits.check(CallArgs::Value(&small)).is_ok());
        assert!(limits.check(CallArgs::None).is_ok());
    }
}
