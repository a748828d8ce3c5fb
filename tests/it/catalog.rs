//! `clausewright catalog`: sync to SQLite (and PostgreSQL when it answers), dry runs, and the
//! exported documentation.

use std::process::{Command, Output};

use crate::binary::in_repo as clausewright;

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "clausewright failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn temp_db() -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "toolwright-catalog-{}-{}.db",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ))
}

/// Runs a sync and reads its JSON report.
fn sync(database: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "catalog",
        "sync",
        "--database",
        database,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&stdout(&clausewright(&args))).unwrap()
}

fn check_sync_cycle(database: &str) {
    let export: Vec<serde_json::Value> = serde_json::from_str(&stdout(&clausewright(&[
        "catalog", "export", "--format", "json",
    ])))
    .unwrap();
    assert!(export.len() > 10, "{} skills", export.len());
    let dry = sync(database, &["--dry-run"]);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["added"].as_array().unwrap().len(), export.len());
    // The dry run wrote nothing: the first real sync adds everything.
    let first = sync(database, &[]);
    assert_eq!(first["added"], dry["added"]);
    let again = sync(database, &[]);
    assert_eq!(again["added"].as_array().unwrap().len(), 0);
    assert_eq!(again["changed"].as_array().unwrap().len(), 0);
    assert_eq!(again["unchanged"].as_u64().unwrap() as usize, export.len());
    let text = stdout(&clausewright(&[
        "catalog",
        "sync",
        "--database",
        database,
        "--dry-run",
    ]));
    assert!(text.contains("would be added: 0"), "{text}");
    assert!(text.contains("dry run: nothing was written"), "{text}");
}

#[test]
fn catalog_sync_to_sqlite_adds_once_then_leaves_rows_alone() {
    let path = temp_db();
    check_sync_cycle(&format!("sqlite://{}", path.display()));
    assert!(std::fs::read(&path)
        .unwrap()
        .starts_with(b"SQLite format 3"));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn catalog_export_markdown_documents_parameters_and_usage() {
    let text = stdout(&clausewright(&[
        "catalog", "export", "--format", "markdown",
    ]));
    assert!(text.starts_with("# Skill catalog"));
    assert!(text.contains("| parameter | kind | required | description | example |"));
    assert!(
        text.contains("```tool_call\n{\"toolId\":"),
        "{}",
        &text[..600.min(text.len())]
    );
}

#[test]
fn catalog_sync_names_a_database_it_cannot_use() {
    let out = clausewright(&["catalog", "sync", "--database", "mysql://u:hunter2@h/db"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mysql://u:***@h/db"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

/// A server that refuses the connection, and (when PostgreSQL answers) a database that does
/// not exist: the error names the URL, password hidden, and what the connection or the
/// server said, not a bare "db error".
#[test]
fn catalog_sync_names_the_database_and_the_cause_it_failed_on() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let refused = format!("postgres://cat:hunter2@127.0.0.1:{port}/catalog");
    let out = clausewright(&["catalog", "sync", "--database", &refused]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("postgres://cat:***@127.0.0.1:{port}/catalog"))
            && err.contains("error connecting to server")
            && err.contains("refused"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");

    let Some(url) = postgres_url() else {
        return;
    };
    let missing = format!(
        "{}/toolwright_missing_{}",
        url.rsplit_once('/').unwrap().0,
        std::process::id()
    );
    let out = clausewright(&["catalog", "sync", "--database", &missing]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("/toolwright_missing_{}: ", std::process::id()))
            && err.contains(&format!(
                "3D000: database \"toolwright_missing_{}\" does not exist",
                std::process::id()
            )),
        "{err}"
    );
}

/// The test server's URL when PostgreSQL answers (`TOOLWRIGHT_TEST_POSTGRES_URL`, else a local
/// default); `None`, with a line on stderr, when it does not (a failure under `CI=true`).
fn postgres_url() -> Option<String> {
    let url = std::env::var("TOOLWRIGHT_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into());
    let authority = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split(['/', '?']).next())
        .unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host_port = if host_port.contains(':') {
        host_port.to_string()
    } else {
        format!("{host_port}:5432")
    };
    let reachable = std::net::ToSocketAddrs::to_socket_addrs(&host_port)
        .ok()
        .and_then(|mut a| a.next())
        .is_some_and(|addr| {
            std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(1)).is_ok()
        });
    if !reachable {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("PostgreSQL is not reachable at {url}, and CI=true makes that a failure");
        }
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: PostgreSQL is not reachable at {url} (start it, or set CI=true to fail instead of skipping)"
        );
        return None;
    }
    Some(url)
}

#[test]
fn catalog_sync_to_postgres_when_it_answers() {
    let Some(url) = postgres_url() else {
        return;
    };
    let schema = format!(
        "catalog_{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    );
    check_sync_cycle(&format!("{url}?schema={schema}"));
    let _ = Command::new("psql")
        .args([
            url.as_str(),
            "-qc",
            &format!("DROP SCHEMA {schema} CASCADE"),
        ])
        .output();
}

#[test]
fn catalog_sync_refuses_a_database_that_would_not_last() {
    for database in ["sqlite://", "sqlite::memory:", "sqlite://x.db?mode=memory"] {
        let out = clausewright(&["catalog", "sync", "--database", database]);
        assert_eq!(out.status.code(), Some(2), "{database}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("names no database file"), "{database}: {err}");
    }
}
