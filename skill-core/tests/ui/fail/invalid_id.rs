use toolwright::prelude::*;

/// Searches clients.
#[skill(id = "crm/search client")]
fn search() -> u8 {
    0
}

fn main() {}
