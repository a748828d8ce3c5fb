use toolwright::prelude::*;

/// Adds two numbers.
#[skill(id = "add")]
fn add(
    /// The first number.
    a: u32,
    b: u32,
) -> u32 {
    a + b
}

fn main() {}
