use toolwright::prelude::*;

/// Does something.
#[skill(id = "thing", status = "retired")]
fn thing() -> u8 {
    0
}

fn main() {}
