//! One id twice in a module, and twice in a block: one error each, at the second id.

use toolwright::prelude::*;

/// Finds a client by name.
#[skill(id = "find_client")]
fn find_client(
    /// Part of the client's name.
    name: String,
) -> String {
    name
}

/// Finds a client by name, again.
#[skill(id = "find_client")]
fn find_client_again(
    /// Part of the client's name.
    name: String,
    /// At most this many.
    #[arg(default = 5)]
    limit: u32,
) -> String {
    format!("{name}{limit}")
}

fn main() {
    // The second fn and its items are still there: the id is the one error.
    let _ = find_client_again("a".into(), 1);
    let _ = FindClientAgainInput {
        name: "a".into(),
        limit: 1,
    };
    let _ = <FindClientAgain as Skill>::ID;

    /// Counts to `n`.
    #[skill(id = "count")]
    fn count(
        /// Where to stop.
        n: u32,
    ) -> u32 {
        n
    }

    /// Counts to `n`, again.
    #[skill(id = "count")]
    fn count_again(
        /// Where to stop.
        n: u32,
    ) -> u32 {
        n
    }
}
