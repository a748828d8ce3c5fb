use toolwright::prelude::*;

/// Has a very long id.
#[skill(id = "analytics.an_extremely_long_identifier_that_no_provider_will_accept_on_the_wire")]
fn long() -> u8 {
    0
}

fn main() {}
