use toolwright::prelude::*;

struct Db;

/// Reads a record.
#[skill(id = "read")]
fn read(
    /// Record id.
    id: String,
    #[inject] db: Db,
) -> String {
    let _ = db;
    id
}

fn main() {}
