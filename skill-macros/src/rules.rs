//! Naming rules shared by the `#[skill]` macro (at compile time) and the runtime (for
//! registrations made by hand), kept in one file so the two can never disagree.
//!
//! toolwright-macros cannot depend on toolwright (toolwright re-exports the macro), so the
//! file lives here and toolwright's `src/rules.rs` is a symbolic link to it (`cargo package`
//! copies the file into each crate). The file therefore uses nothing but `std`.

/// Statuses accepted by `#[skill(status = "...")]`, in the order of `SkillStatus`.
pub const STATUS_NAMES: [&str; 3] = ["active", "disabled", "deprecated"];

/// Value kinds accepted by `#[arg(kind = "...")]`; the catalog's `ValueKind` parses each.
pub const KIND_NAMES: [&str; 10] = [
    "string",
    "boolean",
    "integer",
    "number",
    "json_object",
    "json_array",
    "timestamp",
    "uri",
    "enum_token",
    "attachment_reference",
];

/// Longest tool name providers accept.
pub const MAX_NAME_LEN: usize = 64;

/// Why `id` is not a valid skill id, if it is not: 1 to 64 characters of `[A-Za-z0-9_-]`,
/// optionally in `.`-separated parts (`crm.search_client`).
pub fn id_problem(id: &str) -> Option<String> {
    if id.is_empty() {
        return Some("it is empty".into());
    }
    if let Some(bad) = id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Some(format!(
            "`{bad}` is not allowed; use letters, digits, `_`, `-`, and `.` between parts (`crm.search_client`)"
        ));
    }
    if id.starts_with('.') || id.ends_with('.') || id.contains("..") {
        return Some("`.` separates non-empty parts, as in `crm.search_client`".into());
    }
    if id.len() > MAX_NAME_LEN {
        return Some(format!(
            "it is {} characters long; tool names allow {MAX_NAME_LEN}",
            id.len()
        ));
    }
    None
}

/// Why `name` is not a valid argument name on the wire, if it is not.
pub fn argument_name_problem(name: &str) -> Option<String> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Some(format!(
            "argument names must be 1 to {MAX_NAME_LEN} characters"
        ));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|bad| {
            format!("`{bad}` is not allowed in an argument name; providers accept `[A-Za-z0-9_.-]`")
        })
}

/// The closest of `candidates` to a misspelt `word`, if one is close enough to suggest.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edit distance over chars where swapping two neighbours counts as one edit (optimal
/// string alignment): `tmies` is one edit from `times`, as a typist would count it.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}
