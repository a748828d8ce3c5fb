//! Skills the MCP tests serve (also linked into the `peer_server` example).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolwright::prelude::*;

/// Notes the write skill changes: the tests read it to see whether a write ran.
#[derive(Debug, Default)]
pub struct Notes(pub Mutex<Vec<String>>);

/// Set when a cancelled call's skill was dropped mid-run.
#[derive(Debug, Default)]
pub struct DropProbe {
    /// The skill started.
    pub started: AtomicBool,
    /// The skill's future was dropped before it finished.
    pub dropped: AtomicBool,
}

struct DropFlag(Arc<DropProbe>, bool);

impl Drop for DropFlag {
    fn drop(&mut self) {
        if !self.1 {
            self.0.dropped.store(true, Ordering::SeqCst);
        }
    }
}

/// An echoed text.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Echo {
    /// The text, in capitals.
    pub text: String,
    /// How often it was asked to repeat.
    pub times: u32,
}

/// Repeat a text in capitals.
#[skill(id = "echo_upper", category = "analysis", domain = "demo")]
pub fn echo_upper(
    /// The text to repeat.
    text: String,
    /// How many times.
    times: u32,
) -> Echo {
    Echo {
        text: text.to_uppercase().repeat(times as usize),
        times,
    }
}

/// Add two integers.
#[skill(id = "math.add", category = "stats")]
pub fn add(
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Check that a clause number is well formed.
#[skill(id = "check_clause", category = "validation", domain = "demo")]
pub fn check_clause(
    /// The clause number, e.g. `20.1`.
    clause_id: String,
) -> bool {
    clause_id
        .split('.')
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// Fail with a reason the model can act on.
#[skill(id = "always_fails", category = "query", domain = "other")]
pub fn always_fails() -> Result<String, SkillError> {
    Err(SkillError::new(
        "not_found",
        "there is no such record; ask the user for its number",
    ))
}

/// Wait longer than allowed.
#[skill(id = "too_slow", category = "query", timeout_ms = 50)]
pub async fn too_slow(
    /// Milliseconds to wait.
    ms: u64,
) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

/// Wait until cancelled.
#[skill(id = "wait_long", category = "query")]
pub async fn wait_long(
    /// Milliseconds to wait.
    ms: u64,
    probe: Inject<DropProbe>,
) -> u64 {
    probe.started.store(true, Ordering::SeqCst);
    let mut flag = DropFlag(probe.into_arc(), false);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    flag.1 = true;
    ms
}

/// Delete a note.
#[skill(id = "delete_note", category = "delete")]
pub fn delete_note(
    /// The note to delete.
    title: String,
    notes: Inject<Notes>,
) -> String {
    notes.0 .0.lock().unwrap().push(format!("deleted {title}"));
    format!("deleted {title}")
}
