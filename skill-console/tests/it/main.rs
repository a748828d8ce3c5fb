//! toolwright-console's integration tests in one binary (one link on two cores): handler
//! tests through `oneshot`, one module per page, over the test skills and console of
//! `support`.

mod support;

mod approvals;
mod audit;
mod console;
mod packs;
mod review_runs;
mod reviews;
mod tool_search;
