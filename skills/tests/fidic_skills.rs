//! The FIDIC skills against the sample construction contract in `samples/fidic/`.

use regex::Regex;
use serde_json::{json, Value};
use skill_core::prelude::*;
use skill_core::{codes, Dispatcher, Skill};
use skills::document::normalize_clause_id;
use skills::fidic::check_pc_consistency::{ConflictKind, ConsistencyReport};
use skills::fidic::merge_gc_pc::{FidicMergeGcPc, MergedClause};
use skills::fidic::pc_instructions::{ClauseStatus, ModificationKind};
use skills::fidic::search_er::{ErSearchResult, FidicSearchEr};
use skills::fidic::time_bar::TimeBarReport;
use skills::fidic::Severity;
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

fn review() -> ReviewState {
    ReviewState {
        domain_id: "fidic".into(),
        our_party: "Contractor".into(),
        language: "en".into(),
        material_type: "design-build water treatment plant".into(),
        domain_subtype: "yellow_book".into(),
        documents: vec![
            doc(DocumentRole::Primary, "general_conditions.md", "fidic/general_conditions.md"),
            doc(DocumentRole::Baseline, "general_conditions.md", "fidic/general_conditions.md"),
            doc(DocumentRole::Reference, "particular_conditions.md", "fidic/particular_conditions.md"),
            doc(DocumentRole::Reference, "employers_requirements.md", "fidic/employers_requirements.md"),
        ],
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
    let c = ctx(review(), "20.1");
    for (skill, args) in [
        ("fidic_merge_gc_pc", json!({})),
        ("fidic_merge_gc_pc", json!({"clause_id": "4.1"})),
        ("fidic_calculate_time_bar", json!({})),
        ("fidic_check_pc_consistency", json!({})),
        ("fidic_check_pc_consistency", json!({"clause_id": "4.12"})),
        ("fidic_check_pc_consistency", json!({"clause_id": "1.1"})),
        ("fidic_check_pc_consistency", json!({"clause_id": "14.7"})),
        ("fidic_check_pc_consistency", json!({"clause_id": "4.1"})),
        ("fidic_search_er", json!({"clause_id": "4.1"})),
    ] {
        let v: Value = run(skill, &c, args).await;
        println!("{skill}: {}", serde_json::to_string_pretty(&v).unwrap());
    }
}
