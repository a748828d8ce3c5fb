//! The dialect rule checks of `skill-core` (every rule of every dialect, the official MCP
//! schema), run again in a binary that links the contract-review library, so each of its
//! skills is checked too.

skill_core::link_skills!(skills);

#[path = "../skill-core/tests/dialect_rules.rs"]
mod rules;
