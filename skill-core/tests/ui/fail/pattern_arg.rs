use toolwright::prelude::*;

/// Adds a pair.
#[skill(id = "add_pair")]
fn add_pair(
    /// The pair.
    (a, b): (u32, u32),
) -> u32 {
    a + b
}

fn main() {}
