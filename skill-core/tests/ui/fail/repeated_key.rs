use toolwright::prelude::*;

/// Does something.
#[skill(id = "thing", category = "query", category = "stats")]
fn thing() -> u8 {
    0
}

fn main() {}
