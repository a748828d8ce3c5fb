use toolwright::prelude::*;

/// Reads a file.
#[skill(id = "read_file", timeout_ms = 0)]
fn read_file(
    /// The file.
    #[arg(kind = "file")]
    path: String,
) -> String {
    path
}

fn main() {}
