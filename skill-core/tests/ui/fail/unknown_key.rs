use toolwright::prelude::*;

/// Does something.
#[skill(id = "thing", descripton = "typo")]
fn thing() -> u8 {
    0
}

fn main() {}
