//! Two skills may share an id when `#[cfg]`s keep at most one of them, written above or
//! below `#[skill]`, in a module or in a block. Ids that differ only by `-` and `_` are
//! distinct.

use toolwright::prelude::*;

/// Opens a file the Unix way.
#[cfg(unix)]
#[skill(id = "files.open")]
fn open_file(
    /// The file's path.
    path: String,
) -> String {
    format!("unix:{path}")
}

/// Opens a file elsewhere.
#[cfg(not(unix))]
#[skill(id = "files.open")]
fn open_file(
    /// The file's path.
    path: String,
) -> String {
    format!("other:{path}")
}

/// Closes a file, in a build with debug assertions.
#[skill(id = "files.close")]
#[cfg(debug_assertions)]
fn close_debug() -> u8 {
    1
}

/// Closes a file, in a build without them.
#[skill(id = "files.close")]
#[cfg(not(debug_assertions))]
fn close_release() -> u8 {
    2
}

/// Spelt with a hyphen.
#[skill(id = "files.list-all")]
fn list_hyphen() -> u8 {
    3
}

/// Spelt with an underscore: another id, on the wire too.
#[skill(id = "files.list_all")]
fn list_underscore() -> u8 {
    4
}

fn main() {
    /// Counts, in a build with debug assertions.
    #[cfg(debug_assertions)]
    #[skill(id = "count")]
    fn count_debug() -> u8 {
        1
    }

    /// Counts, in a build without them.
    #[skill(id = "count")]
    #[cfg(not(debug_assertions))]
    fn count_release() -> u8 {
        2
    }

    // One `open_file` exists on every platform, and with it one marker and one input type.
    let _: Option<OpenFileInput> = None;
    assert_eq!(<OpenFile as Skill>::ID, "files.open");
    #[cfg(debug_assertions)]
    {
        assert_eq!(<CloseDebug as Skill>::ID, "files.close");
        assert_eq!(<CountDebug as Skill>::ID, "count");
    }
    #[cfg(not(debug_assertions))]
    {
        assert_eq!(<CloseRelease as Skill>::ID, "files.close");
        assert_eq!(<CountRelease as Skill>::ID, "count");
    }
    assert_eq!(<ListHyphen as Skill>::ID, "files.list-all");
    assert_eq!(<ListUnderscore as Skill>::ID, "files.list_all");
    let ids: Vec<&str> = toolwright::linked_skills().map(|r| r.id).collect();
    assert_eq!(ids.iter().filter(|id| **id == "files.open").count(), 1);
    assert_eq!(ids.iter().filter(|id| **id == "files.close").count(), 1);
    assert_eq!(ids.iter().filter(|id| **id == "count").count(), 1);
}
