//! The quickstart is one program in three places: the README, the facade crate's README
//! (its crate docs, run as a doctest) and `examples/quickstart.rs` (which the crate outside
//! the workspace, `fixtures/outside`, builds with toolwright and tokio alone).

use std::path::Path;

/// The first ```` ```rust ```` block of a Markdown file.
fn first_rust_block(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = text
        .find("```rust\n")
        .unwrap_or_else(|| panic!("{} has no ```rust block", path.display()))
        + "```rust\n".len();
    let end = start + text[start..].find("```").expect("the block is closed");
    text[start..end].to_string()
}

#[test]
fn the_quickstart_is_the_same_program_everywhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = first_rust_block(&root.join("README.md"));
    let facade = first_rust_block(&root.join("skill-core/README.md"));
    assert_eq!(readme, facade, "README.md and skill-core/README.md differ");
    let example = std::fs::read_to_string(root.join("examples/quickstart.rs")).unwrap();
    let body: String = example
        .lines()
        .skip_while(|l| l.starts_with("//!") || l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(readme, body, "README.md and examples/quickstart.rs differ");
    let manifest = std::fs::read_to_string(root.join("fixtures/outside/Cargo.toml")).unwrap();
    let deps: Vec<&str> = manifest
        .split("[dependencies]")
        .nth(1)
        .expect("the outside crate has dependencies")
        .lines()
        .filter_map(|l| l.split_once('=').map(|(name, _)| name.trim()))
        .collect();
    assert_eq!(deps, ["toolwright", "tokio"]);
}
