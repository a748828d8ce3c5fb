use toolwright::prelude::*;

struct Db;

/// Reads a record.
#[skill(id = "read")]
fn read(
    /// Record id.
    id: String,
    /// The database.
    db: Inject<Db>,
) -> String {
    let _ = db;
    id
}

fn main() {}
