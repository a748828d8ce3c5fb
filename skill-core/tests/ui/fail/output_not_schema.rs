use toolwright::prelude::*;

struct OpaqueBlob;

/// Returns something without a schema.
#[skill(id = "opaque")]
fn opaque() -> Result<OpaqueBlob, SkillError> {
    Ok(OpaqueBlob)
}

fn main() {}
