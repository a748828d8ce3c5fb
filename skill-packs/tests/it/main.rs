//! toolwright-packs end to end, in one test binary: the example packs (zodiac, jungastro) plus the
//! test packs in `test_packs`, through the gateway and the contract checks.
//!
//! Checks over everything a binary links live apart, in `tests/linked_packs.rs`: this binary
//! links more packs than the examples.

#[path = "../../../examples/packs/astro.rs"]
#[allow(dead_code)]
mod astro;
#[path = "../../../examples/packs/core_tools.rs"]
mod core_tools;
#[path = "../../../examples/packs/jungastro.rs"]
#[allow(dead_code)]
mod jungastro;
#[path = "../../../examples/packs/zodiac.rs"]
#[allow(dead_code)]
mod zodiac;

mod manifests;
mod servers;
mod support;
mod test_packs;

mod astronomy;
mod audit;
mod call_rules;
mod compile_fail;
mod contract_checks;
mod cross_process;
mod engines;
mod pack_state;
mod rate_limits;
mod shared_servers;
mod startup;
mod subscriptions;
mod tool_sets;
