//! Checking the set of skills a dispatcher is built from: valid ids, unique ids, unique wire
//! names.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::call_threads::{CallThreads, DEFAULT_MAX_CALL_THREADS};
use super::{Dispatcher, Inner};
use crate::confirm::{ConfirmationQueue, DEFAULT_CONFIRMATION_TTL};
use crate::limits::ArgumentLimits;
use crate::registration::{linked_skills, wire_name_of, SkillRegistration, SourceLocation};

/// A problem with the set of registered skills, found when the dispatcher is built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Two skills share one id.
    #[error("skill id `{id}` is registered twice: at {first} and at {second}")]
    DuplicateId {
        /// The shared id.
        id: &'static str,
        /// Where the first one is defined.
        first: SourceLocation,
        /// Where the second one is defined.
        second: SourceLocation,
    },
    /// Two different ids map to the same wire name.
    #[error("skills `{first_id}` ({first}) and `{second_id}` ({second}) both go on the wire as `{wire}`; rename one", wire = wire_name_of(.first_id))]
    WireNameClash {
        /// The first id.
        first_id: &'static str,
        /// Where the first one is defined.
        first: SourceLocation,
        /// The second id.
        second_id: &'static str,
        /// Where the second one is defined.
        second: SourceLocation,
    },
    /// A registration made by hand carries an id that is not a valid tool name.
    #[error("skill id `{id}` at {source_location} is not a valid tool name: {reason}")]
    InvalidId {
        /// The id.
        id: &'static str,
        /// Where it is defined.
        source_location: SourceLocation,
        /// What is wrong with it.
        reason: String,
    },
}

/// Checks an id: 1 to 64 characters of `[A-Za-z0-9_-]`, optionally in `.`-separated parts
/// (`crm.search_client`), which go on the wire with `_` instead of `.`.
pub fn validate_skill_id(id: &str) -> Result<(), String> {
    // The same rule `#[skill]` applies at compile time.
    crate::__private::rules::id_problem(id).map_or(Ok(()), Err)
}

/// Builds a [`Dispatcher`] from explicit registrations and/or the link-time registry.
#[derive(Debug)]
pub struct DispatcherBuilder {
    skills: Vec<&'static SkillRegistration>,
    default_timeout: Option<Duration>,
    limits: ArgumentLimits,
    strict_arguments: bool,
    confirmation_ttl: Duration,
    max_call_threads: usize,
}

impl Default for DispatcherBuilder {
    fn default() -> Self {
        Self {
            skills: Vec::new(),
            default_timeout: None,
            limits: ArgumentLimits::default(),
            strict_arguments: false,
            confirmation_ttl: DEFAULT_CONFIRMATION_TTL,
            max_call_threads: DEFAULT_MAX_CALL_THREADS,
        }
    }
}

impl DispatcherBuilder {
    /// A builder holding `dispatcher`'s skills and settings, to build one that differs in
    /// a setting (a server's time to live for confirmations, say). The new dispatcher has
    /// its own confirmation queue and caches.
    pub fn from_dispatcher(dispatcher: &Dispatcher) -> Self {
        Self {
            skills: dispatcher.inner.skills.clone(),
            default_timeout: dispatcher.inner.default_timeout,
            limits: dispatcher.inner.limits,
            strict_arguments: dispatcher.inner.strict_arguments,
            confirmation_ttl: dispatcher.inner.confirmations.ttl(),
            max_call_threads: dispatcher.inner.call_threads.stats().max_threads,
        }
    }

    /// Adds one skill.
    #[must_use]
    pub fn skill(mut self, skill: &'static SkillRegistration) -> Self {
        self.skills.push(skill);
        self
    }

    /// Adds several skills.
    #[must_use]
    pub fn skills(mut self, skills: impl IntoIterator<Item = &'static SkillRegistration>) -> Self {
        self.skills.extend(skills);
        self
    }

    /// Adds every skill linked into the binary.
    #[must_use]
    pub fn with_inventory(self) -> Self {
        self.skills(linked_skills())
    }

    /// Time limit for skills that declare none (by default there is none).
    #[must_use]
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// Bound on the threads timed calls start on (default [`DEFAULT_MAX_CALL_THREADS`]; at
    /// least one). A call abandoned after its time limit keeps its thread until its skill
    /// returns; a timed call that finds every thread busy is refused with `overloaded`
    /// instead of waiting ([`Dispatcher::call_threads`] has the counts).
    #[must_use]
    pub fn max_call_threads(mut self, threads: usize) -> Self {
        self.max_call_threads = threads;
        self
    }

    /// Size and nesting bounds of a call's arguments (default [`ArgumentLimits::default`]:
    /// 1 MiB, 64 levels); arguments over them are refused before they are parsed.
    #[must_use]
    pub fn argument_limits(mut self, limits: ArgumentLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Refuses calls that name an argument the skill does not have (code
    /// `invalid_arguments`, with the nearest real name), instead of running without it and
    /// reporting a warning (the default).
    #[must_use]
    pub fn strict_arguments(mut self, strict: bool) -> Self {
        self.strict_arguments = strict;
        self
    }

    /// How long a call that needs confirmation waits for a decision (default
    /// [`DEFAULT_CONFIRMATION_TTL`]); after that it is dropped without running, whichever
    /// client (agent loop, MCP, console) parked it.
    #[must_use]
    pub fn confirmation_ttl(mut self, ttl: Duration) -> Self {
        self.confirmation_ttl = ttl;
        self
    }

    /// Checks ids (valid, unique, unique on the wire) and builds the dispatcher.
    pub fn build(mut self) -> Result<Dispatcher, RegistryError> {
        self.skills.sort_by(|a, b| a.id.cmp(b.id));
        let mut by_name: HashMap<&'static str, usize> =
            HashMap::with_capacity(self.skills.len() * 2);
        let mut unique: Vec<&'static SkillRegistration> = Vec::with_capacity(self.skills.len());
        for skill in self.skills {
            if let Err(reason) = validate_skill_id(skill.id) {
                return Err(RegistryError::InvalidId {
                    id: skill.id,
                    source_location: skill.source,
                    reason,
                });
            }
            if let Some(prev) = unique.last() {
                if prev.id == skill.id {
                    if std::ptr::eq(*prev, skill) {
                        continue; // the same registration added twice
                    }
                    return Err(RegistryError::DuplicateId {
                        id: skill.id,
                        first: prev.source,
                        second: skill.source,
                    });
                }
            }
            let index = unique.len();
            unique.push(skill);
            by_name.insert(skill.id, index);
        }
        for (index, skill) in unique.iter().enumerate() {
            if skill.wire_name == skill.id {
                continue;
            }
            if let Some(&other) = by_name.get(skill.wire_name) {
                let other = unique[other];
                return Err(RegistryError::WireNameClash {
                    first_id: other.id,
                    first: other.source,
                    second_id: skill.id,
                    second: skill.source,
                });
            }
            by_name.insert(skill.wire_name, index);
        }
        Ok(Dispatcher {
            inner: Arc::new(Inner {
                skills: unique,
                by_name,
                default_timeout: self.default_timeout,
                limits: self.limits,
                strict_arguments: self.strict_arguments,
                tool_cache: Default::default(),
                catalog: OnceLock::new(),
                confirmations: ConfirmationQueue::new(self.confirmation_ttl),
                call_threads: CallThreads::new(self.max_call_threads),
            }),
        })
    }
}
