use toolwright::prelude::*;

#[skill(id = "bad id", colour = "red")]
fn many(
    a: u32,
    /// Fine.
    b: u32,
    c: u32,
) -> u32 {
    a + b + c
}

fn main() {}
