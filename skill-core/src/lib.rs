//! # skill-core
//!
//! The runtime of skillkit. Write one documented `async fn`, mark it `#[skill]`, and it
//! becomes a tool an LLM can read and call: the macro generates its input struct and JSON
//! Schema, the glue that prepares arguments from host state, and a link-time registration.
//! [`Dispatcher::from_inventory`] then finds every skill with no central `match`.
//!
//! ```
//! use skill_core::prelude::*;
//!
//! /// Count the words of a text.
//! #[skill(id = "word_count", category = "analysis")]
//! fn word_count(
//!     /// The text to count.
//!     text: String,
//! ) -> usize {
//!     text.split_whitespace().count()
//! }
//!
//! # tokio_test_block_on(async {
//! let dispatcher = Dispatcher::from_inventory().unwrap();
//! let result = dispatcher
//!     .call("word_count", r#"{"text": "one two three"}"#, &SkillContext::new())
//!     .await;
//! assert_eq!(result.data_as::<usize>().unwrap(), 3);
//! # });
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! ```

#![warn(missing_docs)]

pub mod agent;
pub mod args;
pub mod catalog;
pub mod confirm;
pub mod context;
pub mod dialect;
pub mod dispatch;
pub mod error;
pub mod lint;
pub mod prepare;
pub mod registration;
pub mod result;
pub mod schema;
pub mod skill;
pub mod testing;
pub mod tools;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use args::{ArgumentParse, ParseError, ParseWarning, RawArguments};
pub use catalog::{
    Cardinality, EnumConstraint, ToolCatalog, ToolDescriptor, ToolParameter, ValueKind,
};
pub use confirm::{ConfirmationError, Confirmed, PendingConfirmation};
pub use context::{FromSkillContext, Inject, SkillContext};
pub use dialect::{Dialect, DialectError, ProviderCall};
pub use dispatch::{Dispatcher, DispatcherBuilder, RegistryError, ToolSet};
pub use error::{codes, SkillError};
pub use lint::{lint_registry, LintFinding, LintSeverity};
pub use prepare::PrepareScope;
pub use registration::{
    linked_skills, CallArgs, ParamInfo, PrepareMode, SkillRegistration, SkillStatus, SourceLocation,
};
pub use result::{ErrorInfo, SkillResult};
pub use skill::Skill;
pub use skill_macros::skill;
pub use tools::{parse_tool_calls, skills_to_tool_definitions, ParsedCall, ToolCall, ToolFilter};

/// Makes sure skill crates are linked into this binary, so their `#[skill]`s register.
///
/// A crate that nothing in the binary refers to is dropped by the linker, and with it its
/// registrations. Naming it here refers to it:
///
/// ```ignore
/// skill_core::link_skills!(skills, my_other_skills);
/// ```
#[macro_export]
macro_rules! link_skills {
    ($($krate:ident),+ $(,)?) => {
        $( #[allow(unused_imports)] use $krate as _; )+
    };
}

/// Everything a skill author needs: `use skill_core::prelude::*;`.
pub mod prelude {
    pub use crate::context::{Inject, SkillContext};
    pub use crate::dispatch::Dispatcher;
    pub use crate::error::SkillError;
    pub use crate::prepare::PrepareScope;
    pub use crate::result::SkillResult;
    pub use crate::skill::Skill;
    pub use crate::tools::ToolFilter;
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
    pub use skill_macros::skill;
}

/// The README's code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
