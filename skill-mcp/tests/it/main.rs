//! toolwright-mcp's integration tests in one binary (one link on two cores), over the test
//! skills of `support/skills.rs`. Suites that add skills of their own to the link-time
//! registry (`eras`, `packs`, `trace`) stay separate binaries, so the tool lists asserted
//! here are the same test skills' alone.

#[path = "../support/counter.rs"]
mod counter;
#[allow(dead_code)]
#[path = "../support/schema.rs"]
mod schema;
#[path = "../support/skills.rs"]
mod skills;
#[allow(dead_code)]
#[path = "../support/wire.rs"]
mod wire;

mod limits;
mod mcp;
mod skills_extension;
mod tasks;
mod tool_search;
