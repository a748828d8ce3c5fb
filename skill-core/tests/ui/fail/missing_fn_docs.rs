use toolwright::prelude::*;

#[skill(id = "no_docs")]
fn no_docs(
    /// A value.
    x: u32,
) -> u32 {
    x
}

fn main() {}
