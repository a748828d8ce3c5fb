//! Two skills with one id: building the dispatcher fails and names both source locations.
//!
//! A binary of its own: two skills with one id in the link-time registry make every other
//! suite's `Dispatcher::from_inventory` fail.

use toolwright::prelude::*;
use toolwright::RegistryError;

mod first {
    use super::*;
    /// One meaning.
    #[skill(id = "same_id")]
    pub fn one() -> u8 {
        1
    }
}

mod second {
    use super::*;
    /// Another meaning.
    #[skill(id = "same_id")]
    pub fn two() -> u8 {
        2
    }
}

mod dotted {
    use super::*;
    /// Goes on the wire as `crm_search`.
    #[skill(id = "crm.search")]
    pub fn dotted() -> u8 {
        3
    }
}

mod underscored {
    use super::*;
    /// Clashes with `crm.search` on the wire.
    #[skill(id = "crm_search")]
    pub fn underscored() -> u8 {
        4
    }
}

#[test]
fn duplicate_ids_name_both_locations() {
    let err = Dispatcher::from_inventory().unwrap_err();
    let RegistryError::DuplicateId { id, first, second } = &err else {
        panic!("expected a duplicate-id error, got {err}");
    };
    assert_eq!(*id, "same_id");
    assert!(first.file.ends_with("duplicate_ids.rs") && second.file.ends_with("duplicate_ids.rs"));
    assert_ne!(first.line, second.line);
    let text = err.to_string();
    assert!(
        text.contains(&format!(":{}", first.line)) && text.contains(&format!(":{}", second.line)),
        "{text}"
    );
}

#[test]
fn wire_name_clash_is_an_error() {
    let regs = toolwright::linked_skills().filter(|r| r.id.starts_with("crm"));
    let err = Dispatcher::builder().skills(regs).build().unwrap_err();
    assert!(matches!(err, RegistryError::WireNameClash { .. }), "{err}");
    assert!(err.to_string().contains("`crm_search`"), "{err}");
}

#[test]
fn the_same_registration_twice_is_not_a_duplicate() {
    let reg = toolwright::linked_skills()
        .find(|r| r.id == "crm.search")
        .unwrap();
    let d = Dispatcher::builder().skill(reg).skill(reg).build().unwrap();
    assert_eq!(d.len(), 1);
}
