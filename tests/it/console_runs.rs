//! The console's reviews as runs in the store `serve --store` names, shared with the command
//! line: a review started in the console is listed by `clausewright runs list`, one recorded
//! by `clausewright review` is shown in the console, and the console stops and resumes a
//! review of the library.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::binary::run_in as clausewright;
use crate::http_server::HttpServer;
use crate::serve::{
    console_cookie, csrf_of, finished_review, get, location_of, post_multipart, sha_contract,
};

const CONTRACT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/fidic");

/// A folder of its own for one test's store.
fn folder(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "clausewright-console-runs-{tag}-{}",
        std::process::id()
    ));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `runs list --format json` of `store`.
fn runs_list(dir: &Path, store: &str) -> Vec<Value> {
    let out = clausewright(dir, &["runs", "list", "--format", "json", "--store", store]);
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn console_reviews_and_command_line_reviews_share_the_store() {
    let dir = folder("shared");
    let store = dir.join("runs.db").display().to_string();
    let out = clausewright(
        &dir,
        &["review", CONTRACT, "--store", &store, "--format", "json"],
    );
    assert!(out.status.success(), "{out:?}");
    let cli_run = runs_list(&dir, &store)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let server = HttpServer::start_with(&["--contract", CONTRACT, "--store", &store], &[]);
    let cookie = console_cookie(&server);
    let (_, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    assert!(form.contains(&format!("/reviews/{cli_run}")), "{form}");
    let (status, page) = get(
        &server.addr,
        &format!("/reviews/{cli_run}"),
        &[("Cookie", &cookie)],
    );
    assert_eq!(status, 200, "{page}");
    // A checklist run of the command line keeps its summary only: the page says so and how
    // to see the report.
    assert!(page.contains(">succeeded<"), "{page}");
    assert!(
        page.contains("kept its summary only") && page.contains("clausewright review --resume"),
        "{page}"
    );

    let (status, response) = post_multipart(
        &server.addr,
        "/reviews",
        &cookie,
        &[
            ("csrf", None, &csrf_of(&form)),
            ("domain", None, "sha_spa"),
            ("files", Some("sha.md"), &sha_contract()),
        ],
    );
    assert_eq!(status, 303, "{response}");
    let run = location_of(&response);
    let page = finished_review(&server.addr, &cookie, &run);
    assert!(page.contains("id=\"risks\""), "{page}");
    let console_run = run.strip_prefix("/reviews/").unwrap();
    let listed = runs_list(&dir, &store);
    let found = listed
        .iter()
        .find(|r| r["id"] == console_run)
        .unwrap_or_else(|| panic!("{console_run} not in {listed:?}"));
    assert_eq!(found["status"], "succeeded", "{found}");
    assert_eq!(found["mode"], "checklist", "{found}");
    let done = found["clauses_done"].as_u64().unwrap();
    assert!(done > 0, "{found}");
    assert_eq!(
        found["clauses_total"], done,
        "a finished run did every clause: {found}"
    );
    assert_eq!(listed[0]["id"], console_run, "newest first");
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

/// A long review is stopped from its page and goes on from where it stopped when resumed:
/// the run ends succeeded with every clause recorded once.
#[test]
fn the_console_stops_and_resumes_a_review_of_the_library() {
    let dir = folder("resume");
    let store = dir.join("runs.db").display().to_string();
    // Long enough that the review is still reviewing clauses when the run reads its stop
    // request, at its next heartbeat (a second at most), on a fast machine too.
    let mut long = String::from("# Agreement\n\n");
    for i in 1..=12_000 {
        long.push_str(&format!(
            "## {i}. Clause {i}\nThe Contractor shall give notice within 28 days under Sub-Clause {}. The Employer shall pay USD {i},000 within 56 days.\n\n",
            i.max(2) - 1
        ));
    }
    let server = HttpServer::start_with(&["--contract", CONTRACT, "--store", &store], &[]);
    let cookie = console_cookie(&server);
    let (_, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    let csrf = csrf_of(&form);
    let post = |path: &str, fields: &[(&str, Option<&str>, &str)]| {
        post_multipart(&server.addr, path, &cookie, fields)
    };
    let (status, response) = post(
        "/reviews",
        &[("csrf", None, &csrf), ("files", Some("long.md"), &long)],
    );
    assert_eq!(status, 303, "{response}");
    let run = location_of(&response);
    let (status, response) = post(&format!("{run}/cancel"), &[("csrf", None, "forged")]);
    assert_eq!(status, 403, "{response}");
    let (status, response) = post(&format!("{run}/cancel"), &[("csrf", None, &csrf)]);
    assert_eq!(
        status, 303,
        "the review must still run for this test to mean anything: {response}"
    );
    let stopped = finished_review(&server.addr, &cookie, &run);
    assert!(
        stopped.contains("The review cancelled: stopped on request"),
        "{stopped}"
    );
    assert!(stopped.contains("id=\"review-resume\""), "{stopped}");
    let id = run.strip_prefix("/reviews/").unwrap();
    let before = runs_list(&dir, &store);
    let before = before.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(before["status"], "cancelled", "{before}");
    let done_before = before["clauses_done"].as_u64().unwrap();
    assert!(
        done_before < before["clauses_total"].as_u64().unwrap(),
        "{before}"
    );

    let (status, response) = post(&format!("{run}/resume"), &[("csrf", None, &csrf)]);
    assert_eq!(status, 303, "{response}");
    assert_eq!(location_of(&response), run, "the same run goes on");
    let mut page = String::new();
    for _ in 0..1200 {
        page = get(&server.addr, &run, &[("Cookie", &cookie)]).1;
        if page.contains("review-summary") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(page.contains("review-summary"), "{page}");
    let after = runs_list(&dir, &store);
    let after = after.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(after["status"], "succeeded", "{after}");
    assert_eq!(after["clauses_done"], after["clauses_total"], "{after}");
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}
