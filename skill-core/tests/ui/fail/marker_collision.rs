use toolwright::prelude::*;

/// A type of the user's own that happens to share the skill's CamelCase name.
#[derive(Debug)]
pub struct SearchClients;

/// Searches clients.
#[skill(id = "search_clients", marker = "search clients")]
fn search_clients() -> u8 {
    0
}

fn main() {}
