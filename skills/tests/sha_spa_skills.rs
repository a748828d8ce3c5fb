//! The SPA/SHA skills against the sample share purchase and shareholders' agreements.

use regex::Regex;
use serde_json::{json, Value};
use skill_core::prelude::*;
use skill_core::{codes, Dispatcher};
use skills::document::normalize_clause_id;
use skills::{Clause, ClauseFocus, DocumentRole, DocumentStructure, ReviewDocument, ReviewState};

/// Splits sample text on clause-number lines ("4.1 Title", "Clause 4 Title", "第一条 标题").
fn parse(id: &str, text: &str) -> DocumentStructure {
    let heading = Regex::new(r"^(?:Sub-Clause\s+|Clause\s+)?(\d+(?:\.\d+)*)\s+(.+)$|^(第[一二三四五六七八九十百零\d.]+条)\s*(.*)$").unwrap();
    let mut flat: Vec<Clause> = Vec::new();
    for line in text.lines().map(str::trim) {
        match heading.captures(line) {
            Some(c) => {
                let raw = c.get(1).or(c.get(3)).unwrap().as_str();
                let rest = c.get(2).or(c.get(4)).map_or("", |m| m.as_str()).to_string();
                let (title, body) = if rest.chars().count() > 40 { (String::new(), rest) } else { (rest, String::new()) };
                flat.push(Clause { clause_id: normalize_clause_id(raw), title, text: body, ..Default::default() });
            }
            None if !line.is_empty() => {
                if let Some(last) = flat.last_mut() {
                    if !last.text.is_empty() {
                        last.text.push('\n');
                    }
                    last.text.push_str(line);
                }
            }
            None => {}
        }
    }
    fn insert(list: &mut Vec<Clause>, mut clause: Clause, level: u32) {
        if let Some(last) = list.last_mut().filter(|l| clause.clause_id.starts_with(&format!("{}.", l.clause_id))) {
            return insert(&mut last.children, clause, level + 1);
        }
        clause.level = level;
        list.push(clause);
    }
    let mut doc = DocumentStructure { document_id: id.into(), structure_type: "fidic".into(), ..Default::default() };
    for clause in flat {
        insert(&mut doc.clauses, clause, 1);
    }
    doc.recount();
    doc
}

fn sample(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../samples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn doc(role: DocumentRole, filename: &str, path: &str) -> ReviewDocument {
    ReviewDocument { role, filename: filename.into(), structure: parse(filename, &sample(path)) }
}

fn review(path: &str, our_party: &str) -> ReviewState {
    let filename = path.rsplit('/').next().unwrap();
    ReviewState {
        domain_id: "sha_spa".into(),
        our_party: our_party.into(),
        documents: vec![doc(DocumentRole::Primary, filename, path)],
        ..Default::default()
    }
}

fn ctx(review: ReviewState, focus: &str) -> SkillContext {
    SkillContext::new().with(review).with(ClauseFocus(focus.into()))
}

async fn run<T: serde::de::DeserializeOwned>(skill: &str, ctx: &SkillContext, args: Value) -> T {
    let d = Dispatcher::from_inventory().unwrap();
    let r = d.prepare_and_call(skill, ctx, Some(&args)).await;
    assert!(r.success, "{skill} failed: {:?}", r.error);
    r.data_as::<T>().unwrap()
}

async fn run_err(skill: &str, ctx: &SkillContext, args: Value) -> (String, String) {
    let r = Dispatcher::from_inventory().unwrap().prepare_and_call(skill, ctx, Some(&args)).await;
    let err = r.error.expect("an error");
    (err.code.to_string(), err.message)
}

#[tokio::test]
async fn debug_dump() {
    let spa = ctx(review("spa/share_purchase_agreement.md", "Buyer"), "4.1");
    let sha = ctx(review("sha/shareholders_agreement.md", "Investor"), "5");
    for (c, skill, args) in [
        (&spa, "spa_extract_conditions", json!({})),
        (&spa, "spa_extract_reps_warranties", json!({"clause_id": "7"})),
        (&spa, "spa_indemnity_analysis", json!({"clause_id": "8"})),
        (&spa, "spa_indemnity_analysis", json!({"clause_id": "9"})),
        (&sha, "sha_governance_check", json!({})),
    ] {
        let v: Value = run(skill, c, args).await;
        println!("{skill}: {}", serde_json::to_string_pretty(&v).unwrap());
    }
    let _ = (run_err, codes::NOT_FOUND);
}
