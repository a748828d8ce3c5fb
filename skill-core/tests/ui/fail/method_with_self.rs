use toolwright::prelude::*;

struct Service;

impl Service {
    /// Uses self.
    #[skill(id = "method")]
    fn method(&self) -> u8 {
        0
    }
}

fn main() {
    let _ = Service;
}
