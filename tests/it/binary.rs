//! The `clausewright` binary as the tests run it: no model, agent or store setting of the
//! developer's environment reaches it, so what a test runs is what it passes.

use std::path::Path;
use std::process::{Command, Output};

/// The binary with `home` as its home (its runs are recorded there) and no model, agent or
/// store setting of the environment.
pub(crate) fn isolated(home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clausewright"));
    cmd.env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("USE_REACT_AGENT")
        .env_remove("CLAUSEWRIGHT_STORE")
        .env("HOME", home);
    cmd
}

/// The binary run with `args` in `dir`, which is also its home, to its end.
pub(crate) fn run_in(dir: &Path, args: &[&str]) -> Output {
    isolated(dir)
        .current_dir(dir)
        .args(args)
        .output()
        .expect("clausewright runs")
}

/// The binary run with `args` in the repository's folder (where `samples/` is), without a
/// model setting of the environment, to its end.
pub(crate) fn in_repo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("USE_REACT_AGENT")
        .output()
        .expect("the binary runs")
}
