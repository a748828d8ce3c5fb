//! The web console in headless Chromium: `clausewright serve --http` for the catalog, a call and a
//! review, and a console over a dispatcher with a skill that needs confirmation for the
//! approval. Needs node, /usr/bin/chromium and playwright-core (`.ci/console-e2e.sh`);
//! skips with a message when one is missing, unless CI=true.

use std::path::{Path, PathBuf};
use std::process::Command;

use toolwright::prelude::*;
use toolwright_console::{ConsoleOptions, ConsoleState};

use crate::http_server::HttpServer;

const CONTRACT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/fidic");

/// Delete a note (waits for a person's confirmation).
#[skill(
    id = "demo.delete_note",
    category = "delete",
    confirm = "Delete note {id}"
)]
pub fn demo_delete_note(
    /// The note to delete.
    id: u32,
) -> String {
    format!("note {id} deleted")
}

/// Shows <script>alert(1)</script> as plain text.
#[skill(id = "demo.echo", category = "query")]
pub fn demo_echo(
    /// The text to echo back.
    text: String,
) -> String {
    text
}

/// What is missing to run the browser, if anything.
fn missing(e2e_dir: &Path, chromium: &Path) -> Option<String> {
    if Command::new("node").arg("--version").output().is_err() {
        return Some("node is not on PATH".into());
    }
    if !chromium.exists() {
        return Some(format!("{} does not exist", chromium.display()));
    }
    if !e2e_dir.join("node_modules/playwright-core").is_dir() {
        return Some(format!(
            "playwright-core is not installed in {}",
            e2e_dir.display()
        ));
    }
    None
}

/// A console over the two demo skills, served on a free loopback port from a thread of its
/// own; returns its address with the token.
fn approvals_console() -> String {
    let dispatcher = Dispatcher::builder()
        .skills(toolwright::linked_skills().filter(|r| r.id.starts_with("demo.")))
        .build()
        .expect("demo skills register");
    let options = ConsoleOptions::new(ConsoleOptions::random_token());
    let token = options.token.clone();
    let state = ConsoleState::builder(dispatcher).options(options).build();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, toolwright_console::router(state))
                .await
                .unwrap();
        });
    });
    format!("http://{addr}/?token={token}")
}

#[test]
fn the_console_works_in_headless_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let e2e_dir = std::env::var_os("CONSOLE_E2E_DIR")
        .map_or_else(|| root.join("target/console-e2e"), PathBuf::from);
    let chromium = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if let Some(why) = missing(&e2e_dir, &chromium) {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("the console's browser test cannot run: {why}; .ci/console-e2e.sh installs what it needs");
        }
        eprintln!("skipping the console's browser test: {why} (run .ci/console-e2e.sh)");
        return;
    }
    let server = HttpServer::start(CONTRACT, &[]);
    let console = server
        .console
        .clone()
        .expect("the console address is printed");
    let approvals = approvals_console();
    let shots = root.join("target/console-e2e/screenshots");
    let mut command = Command::new("node");
    command
        .arg(root.join("tests/e2e/console.mjs"))
        .env("CONSOLE_URL", &console)
        .env("APPROVALS_URL", &approvals)
        .env("PLAYWRIGHT_DIR", &e2e_dir)
        .env("CHROMIUM", &chromium)
        .env("SHOTS_DIR", &shots);
    // TOOLWRIGHT_UPDATE_SCREENSHOTS=1 refreshes the README's screenshots under docs/.
    if std::env::var("TOOLWRIGHT_UPDATE_SCREENSHOTS").as_deref() == Ok("1") {
        command.env("DOCS_DIR", root.join("docs"));
    }
    let out = command.output().expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "browser test failed\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("ok - approving runs the call and shows the outcome"),
        "{stdout}"
    );
    for shot in [
        "catalog.png",
        "skill-result.png",
        "review.png",
        "approvals.png",
    ] {
        assert!(shots.join(shot).is_file(), "screenshot {shot} missing");
    }
}
