//! The `clausewright` binary, driven as a user would: list, tools, call, check, review, and the
//! errors a user gets for bad input.

use std::process::Output;

use serde_json::Value;

/// Runs the binary from the repository root.
pub(crate) use crate::binary::in_repo as clausewright;

/// Standard output as text.
pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error as text.
pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn list_shows_the_library() {
    let out = clausewright(&["list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("fidic_merge_gc_pc") && text.contains("sha_governance_check"),
        "{text}"
    );
    assert!(text.contains("17 of 17 skills"), "{text}");
    let out = clausewright(&["list", "--domain", "sha_spa"]);
    let text = stdout(&out);
    assert!(
        !text.contains("fidic_merge_gc_pc") && text.contains("13 of 17 skills"),
        "{text}"
    );
}

#[test]
fn tools_in_every_dialect_are_json() {
    for dialect in [
        "openai",
        "openai-strict",
        "responses",
        "anthropic",
        "anthropic-strict",
        "gemini",
        "gemini-json-schema",
        "mcp",
    ] {
        let out = clausewright(&[
            "tools",
            "--dialect",
            dialect,
            "--domain",
            "fidic",
            "--compact",
        ]);
        assert!(out.status.success(), "{dialect}: {}", stderr(&out));
        let json: Value =
            serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{dialect}: {e}"));
        assert!(json.is_array(), "{dialect}");
    }
    let out = clausewright(&["tools", "--dialect", "klingon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown dialect `klingon`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn call_reports_results_warnings_and_errors() {
    // Without --contract the library skills have no review state to read: a plain error
    // result naming what is missing, exit code 1.
    let out = clausewright(&[
        "call",
        "get_clause_context",
        "--args",
        r#"{"clause_id": "4.1"}"#,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["success"], false);
    assert_eq!(result["error"]["code"], "missing_injection");

    let out = clausewright(&["call", "no_such_skill"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("unknown_skill"));

    let out = clausewright(&["call", "get_clause_context", "--args", "[1, 2]"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--args is not a JSON object"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn check_passes_on_the_shipped_library() {
    let out = clausewright(&["check"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("0 error(s)"), "{}", stdout(&out));
}

#[test]
fn review_of_the_fidic_sample_folder() {
    let out = clausewright(&[
        "review",
        "samples/fidic",
        "--our-party",
        "Contractor",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["domain_id"], "fidic");
    let risks: Vec<&Value> = report["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["risks"].as_array().unwrap())
        .collect();
    assert!(
        risks
            .iter()
            .any(|r| r["clause_id"] == "4.12" && r["risk_level"] == "high"),
        "deleted 4.12 is a high risk"
    );
    assert!(
        risks
            .iter()
            .any(|r| r["clause_id"] == "20.1" && r["risk_level"] == "high"),
        "shortened claim time bar"
    );
    assert_eq!(report["summary"]["skill_failures"], 0);
}

#[test]
fn review_writes_markdown_to_a_file() {
    let dir = std::env::temp_dir().join(format!("toolwright-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_file = dir.join("spa.md");
    let out = clausewright(&[
        "review",
        "samples/spa/share_purchase_agreement.md",
        "--domain",
        "sha_spa",
        "--checklist",
        "samples/spa/checklist.json",
        "--our-party",
        "Buyer",
        "--format",
        "markdown",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(
        text.starts_with("# Review of share_purchase_agreement"),
        "{text}"
    );
    assert!(stderr(&out).contains("wrote"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// A folder with two contracts is refused, naming both and how to review one, never one
/// reviewed and the other left out unsaid; named by its file (with the folder's annexes
/// given as options), one of them is reviewed.
#[test]
fn review_of_a_folder_with_several_contracts_names_them_and_how_to_pick_one() {
    let dir = tempfile::tempdir().unwrap();
    let contract = "1. Price\nThe Buyer pays USD 100.\n\n2. Term\nOne year.\n";
    for name in ["lease.md", "supply.md", "particular_conditions.md"] {
        std::fs::write(dir.path().join(name), contract).unwrap();
    }
    let out = clausewright(&["review", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    let lease = dir.path().join("lease.md");
    assert!(
        err.contains("holds several contracts (lease.md, supply.md) and a review reads one")
            && err.contains(&format!("`clausewright review {}`", lease.display()))
            && err.contains("--reference"),
        "{err}"
    );
    assert!(
        stdout(&out).is_empty(),
        "nothing reviewed: {}",
        stdout(&out)
    );

    let reference = dir.path().join("particular_conditions.md");
    let out = clausewright(&[
        "review",
        lease.to_str().unwrap(),
        "--reference",
        reference.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["document_id"], "lease");
}

#[test]
fn review_errors_are_plain() {
    let out = clausewright(&["review", "samples/nope.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("samples/nope.md"), "{}", stderr(&out));

    let out = clausewright(&[
        "review",
        "samples/spa/share_purchase_agreement.md",
        "--domain",
        "tax",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown domain `tax`"),
        "{}",
        stderr(&out)
    );

    let out = clausewright(&[
        "review",
        "samples/spa/share_purchase_agreement.md",
        "--checklist",
        "samples/spa/criteria.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("checklist"), "{}", stderr(&out));
}

#[test]
fn call_with_a_contract_prepares_and_coerces() {
    // The clause comes from --clause; top_k arrives as a string and is fixed with a warning.
    let out = clausewright(&[
        "call",
        "search_reference_doc",
        "--contract",
        "samples/fidic",
        "--clause",
        "4.1",
        "--args",
        r#"{"top_k": "2"}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["data"]["clause_id"], "4.1");
    assert_eq!(result["data"]["hits"].as_array().unwrap().len(), 2);
    assert_eq!(result["warnings"][0]["code"], "string_to_integer");
    assert!(
        stderr(&out).contains("warning: string_to_integer at $.top_k"),
        "{}",
        stderr(&out)
    );

    let out = clausewright(&[
        "call",
        "fidic_calculate_time_bar",
        "--contract",
        "samples/fidic",
        "--args",
        r#"{"clause_id": "20.1"}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        result["data"]["shortest_days"], 14,
        "the PC shortened the claim notice to 14 days"
    );

    let out = clausewright(&[
        "call",
        "get_clause_context",
        "--contract",
        "samples/fidic",
        "--args",
        r#"{"clause_id": "99.9"}"#,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["error"]["code"], "not_found");
}
