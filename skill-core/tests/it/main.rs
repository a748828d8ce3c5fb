//! toolwright's integration tests in one binary (one link on two cores), one module per
//! behaviour. Suites that read the link-time registry (`Dispatcher::from_inventory`,
//! `linked_skills`) stay separate binaries, so the skills of one suite never show up in
//! another's registry.

mod agent_confirmation;
mod agent_loop;
mod agent_search;
#[cfg(feature = "anthropic")]
mod anthropic_client;
mod dialect_snapshots;
#[cfg(all(feature = "openai", feature = "anthropic"))]
mod http_clients;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod http_common;
#[cfg(feature = "openai")]
mod openai_client;
mod orchestrate;
#[cfg(feature = "mock-model")]
mod orchestrate_http;
mod tool_results;
mod tool_sets;
mod ui;
