#![doc = include_str!("../README.md")]
//!
//! ## Running a skill: which entry point when
//!
//! | you have | use | preparation from the context |
//! |---|---|---|
//! | the model's call: a skill id or wire name and its arguments as text or a value | [`Dispatcher::call`] | yes: what the schema told the model was optional is filled in |
//! | the same, as SPEC-19 names it (`llm_arguments` as an optional value) | [`Dispatcher::prepare_and_call`] | yes |
//! | a [`ParsedCall`] from [`parse_tool_calls`] (parse warnings travel with the result) | [`Dispatcher::dispatch`] | yes |
//! | a [`ProviderCall`] read by [`Dialect::parse_calls`], and you want the answer in that dialect | [`Dispatcher::answer_call`] | yes |
//! | every input pinned by the host (tests, replays) | [`Dispatcher::call_unprepared`] | no: prepared arguments are required |
//! | several skills to run one after the other, each prepared from its own context (a review's clauses) | [`Dispatcher::prepare_and_call_all`] with [`SeriesCall`]s: one hand-over to a call thread for all of them under a time limit | yes |
//! | a result whose [`SkillResult::pending_confirmation`] is set, and the user said yes | [`Dispatcher::confirm`] (or [`Dispatcher::reject`]) | as the parked call was made |
//!
//! Tool definitions for the model: [`Dispatcher::tools`] (OpenAI Chat shape) or
//! [`Dispatcher::tools_in`] (any [`Dialect`]), both cached per filter as a [`ToolSet`].
//!
//! ## Paths
//!
//! The items a skill author and a host use are at the crate root (and the most common in
//! [`prelude`]); subsystems with their own vocabulary are modules: [`agent`] (model clients
//! and the ReAct loop), [`args`] (lenient argument reading), [`catalog`] (typed tool
//! metadata), [`lint`], [`runs`] (durable runs: lease, record, replay), [`schema`]
//! (canonical schemas), [`search`] (ranking tools against a request) and [`testing`].

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod agent;
pub mod args;
pub mod catalog;
mod confirm;
mod context;
mod dialect;
mod dispatch;
mod error;
pub mod fence;
pub mod limits;
pub mod lint;
mod outcome;
mod prepare;
mod registration;
mod result;
pub mod runs;
pub mod schema;
pub mod search;
mod skill;
pub mod testing;
mod tools;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use confirm::{
    ConfirmationError, Confirmed, Decision, ExpiredConfirmation, PendingConfirmation,
    DEFAULT_CONFIRMATION_TTL,
};
pub use context::{FromSkillContext, Inject, SkillContext};
pub use dialect::{
    mcp_structured_content, Dialect, DialectError, McpCallResult, ProviderCall, WireArguments,
};
pub use dispatch::{
    validate_skill_id, CallThreadStats, ConfirmationStore, ConfirmationStoreError, Dispatcher,
    DispatcherBuilder, RegistryError, SeriesCall, SharedConfirmationError, SharedConfirmations,
    StoredConfirmation, TakenConfirmation, ToolSet, DEFAULT_MAX_CALL_THREADS,
    SHARED_CONFIRMATION_PREFIX,
};
pub use error::{codes, SkillError};
pub use outcome::Outcome;
pub use prepare::{PrepareScope, Preparer};
pub use registration::{
    linked_skills, wire_name_of, CallArgs, InvokeFn, ParamInfo, PrepareMode, SkillRegistration,
    SkillStatus, SourceLocation,
};
pub use result::{ErrorInfo, SkillResult};
pub use skill::Skill;
pub use tools::{parse_tool_calls, skills_to_tool_definitions, ParsedCall, ToolCall, ToolFilter};
pub use toolwright_macros::{skill, skill_data};

/// Makes sure skill crates are linked into this binary, so their `#[skill]`s register.
///
/// A crate that nothing in the binary refers to is dropped by the linker, and with it its
/// registrations. Naming it here refers to it:
///
/// ```ignore
/// toolwright::link_skills!(clausewright_skills, my_other_skills);
/// ```
#[macro_export]
macro_rules! link_skills {
    ($($krate:ident),+ $(,)?) => {
        $( #[allow(unused_imports)] use $krate as _; )+
    };
}

/// Everything a skill author needs: `use toolwright::prelude::*;`.
pub mod prelude {
    pub use crate::{Dispatcher, Inject, PrepareScope, Skill, SkillContext, SkillError};
    pub use crate::{SkillResult, ToolFilter};
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
    pub use toolwright_macros::{skill, skill_data};
}
