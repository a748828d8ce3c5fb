use skill_core::prelude::*;

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

fn main() {}
