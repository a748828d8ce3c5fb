use toolwright::prelude::*;

/// Not a function.
#[skill(id = "not_a_fn")]
struct NotAFn;

fn main() {}
