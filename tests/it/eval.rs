//! `clausewright eval` over the shared evaluation corpus (`../shared/corpus`): the review's
//! recall and false alarms must not fall below the floors measured when the rules were
//! written (EVALUATION.md), so a change that loses findings fails here.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.join("cuad").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the evaluation corpus {} is missing (CI=true)",
        dir.display()
    );
    eprintln!(
        "skipped: the evaluation corpus {} is absent (set CI=true to make this a failure)",
        dir.display()
    );
    None
}

fn group<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["groups"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["group"] == name))
        .unwrap_or_else(|| panic!("group {name} missing from the report"))
}

fn figure(group: &Value, field: &str) -> f64 {
    group[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} missing in {group}"))
}

#[test]
fn eval_keeps_its_floors() {
    let Some(corpus) = corpus() else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["eval", "--json", "--corpus"])
        .arg(&corpus)
        .arg("--expectations")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("eval/expectations"))
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("eval --json prints JSON");
    assert_eq!(report["documents"].as_array().map(Vec::len), Some(46));
    // (group, recall, recall at medium or above, highest false-alarm rate)
    let floors = [
        ("construction-like", 0.95, 0.90, 0.05),
        ("sha-like", 0.93, 0.93, 0.05),
        ("commercial", 0.75, 0.74, 0.11),
        ("expectations", 1.0, 1.0, 0.0),
    ];
    for (name, recall, medium, false_alarms) in floors {
        let g = group(&report, name);
        assert!(figure(g, "recall") >= recall, "{name} recall fell: {g}");
        assert!(
            figure(g, "recall_medium") >= medium,
            "{name} recall at medium+ fell: {g}"
        );
        assert!(
            figure(g, "false_alarm_rate") <= false_alarms,
            "{name} false alarms rose: {g}"
        );
    }
    // Every category of the groups nearest the product's scope is found in most contracts.
    for name in ["construction-like", "sha-like"] {
        for category in group(&report, name)["categories"].as_array().unwrap() {
            if let Some(recall) = category["recall"].as_f64() {
                assert!(recall >= 0.5, "{name}: {category}");
            }
        }
    }
}
