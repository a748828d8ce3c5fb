//! The parsed contract: a tree of clauses with definitions and cross references, in the
//! shape the review specs use (`document_id`, `structure_type`, `clauses`, `definitions`,
//! `cross_references`, `total_clauses`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One clause (or sub-clause) and its children.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Clause {
    /// Number as written without decoration: `4.1`, `20.1`, `14`, `5`, `第一条` -> `1`.
    pub clause_id: String,
    /// Heading text, if any.
    #[serde(default)]
    pub title: String,
    /// Body text of this clause only (children carry their own text).
    #[serde(default)]
    pub text: String,
    /// Depth in the tree, 1 for top-level clauses.
    #[serde(default)]
    pub level: u32,
    /// Sub-clauses, in document order.
    #[serde(default)]
    pub children: Vec<Clause>,
}

impl Clause {
    /// The clause's text and that of all its sub-clauses, in order, one per line.
    pub fn full_text(&self) -> String {
        fn collect(clause: &Clause, out: &mut String) {
            if !clause.text.is_empty() {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&clause.text);
            }
            for child in &clause.children {
                collect(child, out);
            }
        }
        let mut out = String::new();
        collect(self, &mut out);
        out
    }
}

/// A reference from one clause to another ("see Sub-Clause 20.1", "第4.1条").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CrossReference {
    /// Clause that contains the reference.
    pub source_clause_id: String,
    /// Clause referred to.
    pub target_clause_id: String,
    /// The reference as written.
    pub reference_text: String,
    /// Whether the target exists in the document.
    #[serde(default)]
    pub is_valid: bool,
}

/// A parsed document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DocumentStructure {
    /// Identifier (file stem when parsed from a file).
    #[serde(default)]
    pub document_id: String,
    /// Kind of numbering found: `fidic`, `numbered`, `article`, `chinese`, `json`.
    #[serde(default)]
    pub structure_type: String,
    /// Top-level clauses with their children.
    #[serde(default)]
    pub clauses: Vec<Clause>,
    /// Defined term -> definition text.
    #[serde(default)]
    pub definitions: BTreeMap<String, String>,
    /// Every reference between clauses.
    #[serde(default)]
    pub cross_references: Vec<CrossReference>,
    /// Number of clauses at every level.
    #[serde(default)]
    pub total_clauses: usize,
    /// Unnumbered text before the first clause (title, parties, recitals), kept apart so it
    /// is neither merged into clause 1 nor lost.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preamble: String,
    /// What the parser left out as not being contract text, so a reader can see why.
    #[serde(default, skip_serializing_if = "SkippedText::is_empty")]
    pub skipped: SkippedText,
}

/// Lines the parser did not read as contract text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedText {
    /// Lines of a table of contents (entries repeat headings found later).
    #[serde(default)]
    pub table_of_contents: usize,
    /// Page numbers and repeated page headers or footers of a PDF extraction.
    #[serde(default)]
    pub page_furniture: usize,
}

impl SkippedText {
    /// Whether nothing was skipped.
    pub fn is_empty(&self) -> bool {
        self.table_of_contents == 0 && self.page_furniture == 0
    }
}

impl DocumentStructure {
    /// Every clause, depth first in document order.
    pub fn iter_clauses(&self) -> impl Iterator<Item = &Clause> {
        let mut stack: Vec<&Clause> = self.clauses.iter().rev().collect();
        std::iter::from_fn(move || {
            let next = stack.pop()?;
            stack.extend(next.children.iter().rev());
            Some(next)
        })
    }

    /// The clause with this id (`4.1`), also matching decorated forms (`Sub-Clause 4.1`,
    /// `Clause 4`, `第4.1条`). Builds a [`ClauseIndex`](super::ClauseIndex) for one question:
    /// to ask many, build the index once and use [`Index`](super::Index).
    pub fn find_clause(&self, clause_id: &str) -> Option<&Clause> {
        let tables = super::ClauseIndex::build(self);
        tables.clause_in(self, clause_id)
    }

    /// Text of the clause and of all its sub-clauses, in order (see [`Self::find_clause`]).
    pub fn clause_full_text(&self, clause_id: &str) -> Option<String> {
        self.find_clause(clause_id).map(Clause::full_text)
    }

    /// The clause that contains this one, if it is nested (see [`Self::find_clause`]).
    pub fn parent_of(&self, clause_id: &str) -> Option<&Clause> {
        let tables = super::ClauseIndex::build(self);
        tables.parent_in(self, clause_id)
    }

    /// Recounts `total_clauses` from the tree.
    pub fn recount(&mut self) {
        self.total_clauses = self.iter_clauses().count();
    }
}

/// One clause as `clausewright parse` shows it: where it sits, how long it is, which terms it
/// defines and which references it makes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ClauseOutline {
    /// Clause number.
    pub clause_id: String,
    /// Heading text.
    pub title: String,
    /// Depth, 1 for top-level clauses.
    pub level: u32,
    /// Characters of the clause's own text.
    pub length: usize,
    /// Terms this clause defines (`"Works" means ...`).
    pub defined_terms: Vec<String>,
    /// References this clause makes, each resolved or broken.
    pub references: Vec<CrossReference>,
}

/// The clause tree a review uses, flattened in document order, with what the parser skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DocumentOutline {
    /// Identifier of the document.
    pub document_id: String,
    /// Numbering style found.
    pub structure_type: String,
    /// Number of clauses at every level.
    pub total_clauses: usize,
    /// Characters of unnumbered text before the first clause.
    pub preamble_length: usize,
    /// Number of defined terms in the whole document.
    pub defined_terms: usize,
    /// References that resolve to no clause.
    pub broken_references: usize,
    /// Lines left out as table of contents or page furniture.
    pub skipped: SkippedText,
    /// Every clause, depth first.
    pub clauses: Vec<ClauseOutline>,
}

impl DocumentStructure {
    /// The clause tree as `clausewright parse` prints it. Linear in the size of the document.
    pub fn outline(&self) -> DocumentOutline {
        let mut references: std::collections::HashMap<&str, Vec<CrossReference>> =
            std::collections::HashMap::new();
        for reference in &self.cross_references {
            references
                .entry(reference.source_clause_id.as_str())
                .or_default()
                .push(reference.clone());
        }
        let clauses = self
            .iter_clauses()
            .map(|clause| ClauseOutline {
                clause_id: clause.clause_id.clone(),
                title: clause.title.clone(),
                level: clause.level,
                length: clause.text.chars().count(),
                defined_terms: super::parser::extract_definitions(&clause.text)
                    .into_keys()
                    .collect(),
                references: references
                    .remove(clause.clause_id.as_str())
                    .unwrap_or_default(),
            })
            .collect();
        DocumentOutline {
            document_id: self.document_id.clone(),
            structure_type: self.structure_type.clone(),
            total_clauses: self.total_clauses,
            preamble_length: self.preamble.chars().count(),
            defined_terms: self.definitions.len(),
            broken_references: self.cross_references.iter().filter(|r| !r.is_valid).count(),
            skipped: self.skipped.clone(),
            clauses,
        }
    }
}

/// Strips decoration from a clause reference: `Sub-Clause 20.1` -> `20.1`,
/// `Clause 14` -> `14`, `Article 5` -> `5`, `第4.1条` -> `4.1`, `第十四条` -> `14`.
pub(crate) fn normalize_clause_id(raw: &str) -> String {
    let trimmed = raw.trim().trim_end_matches(['.', ':', '：']);
    if let Some(id) = schedule_reference(trimmed) {
        return id;
    }
    let lower = trimmed.to_lowercase();
    for prefix in [
        "sub-clause",
        "subclause",
        "clause",
        "article",
        "section",
        "art.",
    ] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            return rest.trim().trim_end_matches('.').to_string();
        }
    }
    if let Some(inner) = trimmed.strip_prefix('第') {
        // Chapters and sections keep their marker: `第一章` is `第1章`, not article 1.
        for marker in ["章", "节", "部分"] {
            if let Some(number) = inner.strip_suffix(marker) {
                let number = chinese_numeral(number.trim())
                    .map_or_else(|| number.trim().to_string(), |n| n.to_string());
                return format!("第{number}{marker}");
            }
        }
        let inner = inner.trim_end_matches(['条', '款']).trim();
        if let Some(n) = chinese_numeral(inner) {
            return n.to_string();
        }
        return inner.to_string();
    }
    trimmed.to_string()
}

/// The id of a schedule or part or of one of its paragraphs, as the parser gives them
/// (`Schedule 1`, `Schedule 1 para 2`, `Part 2 para 1.1`), from the ways a reference writes
/// them: `SCHEDULE 1`, `Schedule 1, paragraph 2`, `Schedule 1 para 2.1`, `paragraph 2 of
/// Schedule 1`, `Annex A clause 3`, `Part II, clause 1.1`.
fn schedule_reference(text: &str) -> Option<String> {
    const WORDS: [(&str, &str); 6] = [
        ("schedule", "Schedule"),
        ("annex", "Annex"),
        ("appendix", "Appendix"),
        ("exhibit", "Exhibit"),
        ("part", "Part"),
        ("chapter", "Chapter"),
    ];
    const PARAGRAPH: [&str; 5] = ["paragraph", "para", "para.", "clause", "section"];
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    let lower: Vec<String> = tokens.iter().map(|t| t.to_lowercase()).collect();
    let at = lower
        .iter()
        .position(|t| WORDS.iter().any(|(w, _)| t == w))?;
    let name = WORDS.iter().find(|(w, _)| *w == lower[at])?.1;
    let schedule = tokens.get(at + 1)?;
    if !schedule.chars().all(|c| c.is_ascii_alphanumeric()) || schedule.len() > 4 {
        return None;
    }
    // A part or chapter is numbered as its heading is: `Part II` is `Part 2`.
    let schedule = match super::parser::roman_value(schedule) {
        Some(n)
            if matches!(name, "Part" | "Chapter")
                && schedule.bytes().all(|b| b.is_ascii_uppercase()) =>
        {
            format!("{name} {n}")
        }
        _ => format!("{name} {}", schedule.to_ascii_uppercase()),
    };
    let is_number = |t: &str| t.starts_with(|c: char| c.is_ascii_digit());
    let paragraph = match (&lower[..at], &tokens[at + 2..]) {
        ([], []) => None,
        ([], [number]) if is_number(number) => Some(*number),
        ([], [word, number]) if PARAGRAPH.contains(&word.to_lowercase().as_str()) => {
            Some(*number).filter(|n| is_number(n))
        }
        ([word, _, of] | [word, _, of, _], [])
            if PARAGRAPH.contains(&word.as_str()) && of == "of" =>
        {
            Some(tokens[1]).filter(|n| is_number(n))
        }
        _ => return None,
    };
    match paragraph {
        None => Some(schedule),
        Some(number) => Some(format!("{schedule} para {}", number.trim_end_matches('.'))),
    }
}

/// Value of a Chinese numeral up to 9999 (`十四` -> 14, `一百零二` -> 102), if it is one.
pub(crate) fn chinese_numeral(text: &str) -> Option<u32> {
    if text.is_empty() {
        return None;
    }
    let digit = |c: char| -> Option<u32> {
        Some(match c {
            '零' | '〇' => 0,
            '一' => 1,
            '二' | '两' => 2,
            '三' => 3,
            '四' => 4,
            '五' => 5,
            '六' => 6,
            '七' => 7,
            '八' => 8,
            '九' => 9,
            _ => return None,
        })
    };
    let mut total = 0;
    let mut current = 0;
    for c in text.chars() {
        match c {
            '十' | '百' | '千' => {
                let unit = match c {
                    '十' => 10,
                    '百' => 100,
                    _ => 1000,
                };
                total += if current == 0 { 1 } else { current } * unit;
                current = 0;
            }
            other => current = digit(other)?,
        }
    }
    Some(total + current)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clause_ids_are_normalized() {
        assert_eq!(normalize_clause_id("Sub-Clause 20.1"), "20.1");
        assert_eq!(normalize_clause_id("Clause 14"), "14");
        assert_eq!(normalize_clause_id("Article 5"), "5");
        assert_eq!(normalize_clause_id("第4.1条"), "4.1");
        assert_eq!(normalize_clause_id("第十四条"), "14");
        assert_eq!(normalize_clause_id("4.1"), "4.1");
        assert_eq!(normalize_clause_id("第一章"), "第1章");
        assert_eq!(normalize_clause_id("SCHEDULE 1"), "Schedule 1");
        assert_eq!(
            normalize_clause_id("Schedule 1, paragraph 2"),
            "Schedule 1 para 2"
        );
        assert_eq!(
            normalize_clause_id("paragraph 2.1 of Schedule 3"),
            "Schedule 3 para 2.1"
        );
        assert_eq!(normalize_clause_id("Annex a clause 4"), "Annex A para 4");
        assert_eq!(
            normalize_clause_id("Part II, clause 1.1"),
            "Part 2 para 1.1"
        );
        assert_eq!(normalize_clause_id("clause 3 of Part 2"), "Part 2 para 3");
        assert_eq!(normalize_clause_id("PART 4"), "Part 4");
        // Not a schedule reference: left as it was.
        assert_eq!(
            normalize_clause_id("Schedule of Rates"),
            "Schedule of Rates"
        );
    }

    #[test]
    fn chinese_numerals() {
        assert_eq!(chinese_numeral("一"), Some(1));
        assert_eq!(chinese_numeral("十"), Some(10));
        assert_eq!(chinese_numeral("二十三"), Some(23));
        assert_eq!(chinese_numeral("一百零二"), Some(102));
        assert_eq!(chinese_numeral("甲"), None);
    }

    #[test]
    fn tree_navigation() {
        let doc = DocumentStructure {
            clauses: vec![Clause {
                clause_id: "4".into(),
                text: "Contractor".into(),
                children: vec![
                    Clause {
                        clause_id: "4.1".into(),
                        text: "a".into(),
                        ..Default::default()
                    },
                    Clause {
                        clause_id: "4.2".into(),
                        text: "b".into(),
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            doc.iter_clauses()
                .map(|c| c.clause_id.as_str())
                .collect::<Vec<_>>(),
            ["4", "4.1", "4.2"]
        );
        assert_eq!(doc.find_clause("Sub-Clause 4.2").unwrap().text, "b");
        assert_eq!(doc.parent_of("4.1").unwrap().clause_id, "4");
        assert_eq!(doc.clause_full_text("4").unwrap(), "Contractor\na\nb");
    }
}
