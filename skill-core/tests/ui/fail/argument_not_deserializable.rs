use toolwright::prelude::*;

struct Connection;

/// Takes an argument the model cannot write.
#[skill(id = "handle")]
fn handle(
    /// A handle.
    h: Connection,
) -> u8 {
    let _ = h;
    0
}

fn main() {}
