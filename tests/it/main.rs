//! The `clausewright` command line and the contract-review library as a whole, in one test
//! binary. Crate discovery tests (`second_crate`, `unlinked_crate`) stay separate: what is
//! linked into their binary is what they test.

toolwright::link_skills!(clausewright_skills);

mod binary;
mod catalog;
mod cli;
mod cli_agent;
mod cli_orchestrate;
mod console_e2e;
mod console_runs;
mod durable_review;
mod eval;
#[path = "../../skills/tests/it/format_fixtures.rs"]
mod format_fixtures;
mod formats;
mod http_server;
mod mcp_conformance;
mod mcp_peers;
mod mcp_skills;
mod parse;
mod playbook;
mod python_peer;
mod readme;
mod search;
mod serve;
mod serve_review;
mod shared_store;
mod train;
mod unix;

/// The dialect rule checks of `toolwright` (every rule of every dialect, the official MCP
/// schema), run again over every skill of the contract-review library.
#[path = "../../skill-core/tests/dialect_rules/main.rs"]
mod library_dialect_rules;
