//! Reads contracts written as plain text or Markdown into a [`DocumentStructure`].
//!
//! Headings are recognised line by line: `Sub-Clause 20.1 Title`, `Clause 14 Title`,
//! `Article 5`, `Section 3`, `4.1.2 Title`, `1. Title`, `第一条 标题`, `第4.1条`, with Markdown
//! decoration (`#`, `**`) removed. A clause becomes the child of the nearest earlier clause
//! whose number is a prefix of its own (`4.1` under `4`). Text that has no heading at all is
//! split into paragraphs `P1`, `P2`, ... so reference material stays searchable.

use std::collections::{BTreeMap, HashSet};

use super::model::{
    chinese_numeral, normalize_clause_id, Clause, CrossReference, DocumentStructure,
};

/// Parses plain text or Markdown into a clause tree with definitions and cross references.
pub fn parse_text(document_id: &str, text: &str) -> DocumentStructure {
    let mut flat: Vec<(Heading, Vec<&str>)> = Vec::new();
    let mut preamble_seen = false;
    for raw_line in text.lines() {
        let line = clean_line(raw_line);
        if let Some(heading) = parse_heading(line) {
            flat.push((heading, Vec::new()));
            continue;
        }
        match flat.last_mut() {
            Some((_, body)) => body.push(line),
            None => preamble_seen |= !line.is_empty(),
        }
    }
    let mut structure_type = structure_type_of(&flat);
    let mut clauses = if flat.is_empty() && preamble_seen {
        structure_type = "paragraphs";
        paragraphs(text)
    } else {
        build_tree(flat)
    };
    if clauses.is_empty() {
        structure_type = "empty";
    }
    set_levels(&mut clauses, 1);
    let mut doc = DocumentStructure {
        document_id: document_id.to_string(),
        structure_type: structure_type.to_string(),
        clauses,
        definitions: extract_definitions(text),
        cross_references: Vec::new(),
        total_clauses: 0,
    };
    doc.cross_references = collect_cross_references(&doc);
    doc.recount();
    doc
}

/// Completes a document read from JSON: normalises clause ids, recomputes levels and counts,
/// and fills definitions and cross references from the text when the JSON left them out.
pub fn finalize_json_document(mut doc: DocumentStructure, document_id: &str) -> DocumentStructure {
    fn normalize(clauses: &mut [Clause]) {
        for clause in clauses {
            clause.clause_id = normalize_clause_id(&clause.clause_id);
            normalize(&mut clause.children);
        }
    }
    if doc.document_id.is_empty() {
        doc.document_id = document_id.to_string();
    }
    if doc.structure_type.is_empty() {
        doc.structure_type = "json".into();
    }
    normalize(&mut doc.clauses);
    set_levels(&mut doc.clauses, 1);
    if doc.definitions.is_empty() {
        let all: Vec<&str> = doc.iter_clauses().map(|c| c.text.as_str()).collect();
        doc.definitions = extract_definitions(&all.join("\n"));
    }
    let ids: HashSet<String> = doc.iter_clauses().map(|c| c.clause_id.clone()).collect();
    if doc.cross_references.is_empty() {
        doc.cross_references = collect_cross_references(&doc);
    } else {
        for reference in &mut doc.cross_references {
            reference.target_clause_id = normalize_clause_id(&reference.target_clause_id);
            reference.is_valid = ids.contains(&reference.target_clause_id);
        }
    }
    doc.recount();
    doc
}

#[derive(Debug)]
struct Heading {
    id: String,
    title: String,
    /// Text on the heading line that is body, not title (`4.1 The Contractor shall ...`).
    inline_text: String,
    style: &'static str,
}

fn clean_line(line: &str) -> &str {
    let line = line.trim();
    let line = line.trim_start_matches('#').trim();
    let line = line.strip_prefix("**").unwrap_or(line);
    line.trim()
}

/// Recognises a clause heading at the start of a (cleaned) line.
fn parse_heading(line: &str) -> Option<Heading> {
    if line.is_empty() {
        return None;
    }
    let lower = line.to_ascii_lowercase();
    for (prefix, style) in [
        ("sub-clause", "fidic"),
        ("subclause", "fidic"),
        ("clause", "numbered"),
        ("article", "article"),
        ("section", "numbered"),
    ] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            if !rest.starts_with(' ') {
                continue;
            }
            let offset = line.len() - rest.len();
            let after = line[offset..].trim_start();
            let (number, tail) = take_number(after)?;
            if tail.starts_with(|c: char| c.is_alphanumeric()) {
                return None;
            }
            // "Clause 14 shall apply ..." is a sentence, not a heading.
            let title = tail
                .trim_start_matches(['.', ':', '：', ' ', '-', '–'])
                .trim();
            if !title.is_empty() && !title.starts_with('[') && !looks_like_title(title) {
                return None;
            }
            return Some(make_heading(number, tail, style));
        }
    }
    if let Some(rest) = line.strip_prefix('第') {
        let end = rest.find(['条', '章', '节'])?;
        let marker = rest[end..].chars().next()?;
        if marker != '条' {
            return None;
        }
        let inner = &rest[..end];
        let id = if let Some(n) = chinese_numeral(inner) {
            n.to_string()
        } else if !inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit() || c == '.') {
            inner.trim_end_matches('.').to_string()
        } else {
            return None;
        };
        let tail = &rest[end + marker.len_utf8()..];
        return Some(make_heading(id, tail, "chinese"));
    }
    let (number, tail) = take_number(line)?;
    // `4.1 The Contractor shall ...` is a clause with its text on the heading line; a plain
    // `1.` or `14` must be followed by a title, so list items (`1. The Contractor shall
    // pay.`) and sentences (`14 days after ...`) stay body text.
    let dotted = number.contains('.');
    let tail_trimmed = tail.trim_start_matches(['.', ')', ' ', '\t', '、']).trim();
    if tail_trimmed.is_empty() || !tail.starts_with(['.', ' ', '\t', '、', '\u{3000}']) {
        return None;
    }
    // A bare number ("14 Days after ...") is a heading only when what follows looks like a
    // title: short, capitalised or Chinese, and not a sentence.
    if !dotted && (number.len() > 3 || !looks_like_title(tail_trimmed)) {
        return None;
    }
    Some(make_heading(number, tail_trimmed, "numbered"))
}

/// Splits `4.1.2 rest` into (`4.1.2`, ` rest`); a trailing dot is not part of the number.
fn take_number(text: &str) -> Option<(String, &str)> {
    let end = text
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(text.len(), |(i, _)| i);
    let number = text[..end].trim_end_matches('.');
    if number.is_empty()
        || !number.starts_with(|c: char| c.is_ascii_digit())
        || number.contains("..")
    {
        return None;
    }
    if number.split('.').any(|part| part.len() > 4) {
        return None;
    }
    Some((number.to_string(), &text[number.len()..]))
}

fn looks_like_title(text: &str) -> bool {
    let first = text.chars().next().unwrap_or(' ');
    text.chars().count() <= 80
        && !text.ends_with(['.', '。', ';', '；', ','])
        && (first.is_uppercase() || is_cjk(first))
}

fn make_heading(id: String, tail: &str, style: &'static str) -> Heading {
    let tail = tail
        .trim_start_matches(['.', ':', '：', ')', '、'])
        .trim()
        .trim_end_matches("**")
        .trim();
    let tail = tail
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(tail);
    let (title, inline_text) = if tail.is_empty() {
        (String::new(), String::new())
    } else if looks_like_title(tail) {
        (tail.to_string(), String::new())
    } else {
        (String::new(), tail.to_string())
    };
    Heading {
        id,
        title,
        inline_text,
        style,
    }
}

fn structure_type_of(flat: &[(Heading, Vec<&str>)]) -> &'static str {
    let count = |style: &str| flat.iter().filter(|(h, _)| h.style == style).count();
    let candidates = [
        ("fidic", count("fidic")),
        ("chinese", count("chinese")),
        ("article", count("article")),
    ];
    candidates
        .iter()
        .filter(|(_, n)| *n > 0)
        .max_by_key(|(_, n)| *n)
        .map_or("numbered", |(style, _)| style)
}

fn body_text(inline: &str, body: &[&str]) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in std::iter::once(inline).chain(body.iter().copied()) {
        if line.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push(if blank || starts_item(line) {
                '\n'
            } else {
                ' '
            });
        }
        blank = false;
        out.push_str(line.trim_end_matches("**"));
    }
    out
}

/// Whether a body line starts an item of its own — `(a)`, `(iv)`, `a)`, `1)`, `-`, `•`,
/// `（一）`, or a definition (`"Term" means`, `“术语”是指`) — so it keeps its own line instead of
/// being joined to the previous one like wrapped prose.
fn starts_item(line: &str) -> bool {
    let line = line.trim_start();
    if line.starts_with(['-', '•', '*', '·']) || line.starts_with('（') {
        return true;
    }
    if line.starts_with(['"', '“']) {
        let close = line[1..].find(['"', '”']).map(|i| i + 1);
        return close.is_some_and(|i| {
            let after = line[i..].trim_start_matches(['"', '”']).trim_start();
            [
                "means",
                "shall mean",
                "has the meaning",
                "是指",
                "系指",
                "指",
            ]
            .iter()
            .any(|w| after.starts_with(w))
        });
    }
    let marker = line.strip_prefix('(').unwrap_or(line);
    let Some(end) = marker.find(')') else {
        return false;
    };
    let label = &marker[..end];
    !label.is_empty()
        && label.len() <= 4
        && (label.chars().all(|c| c.is_ascii_digit())
            || label.chars().all(|c| c.is_ascii_lowercase())
            || label.chars().all(|c| c.is_ascii_uppercase()))
}

/// Turns the flat heading list into a tree, nesting by number prefix.
fn build_tree(flat: Vec<(Heading, Vec<&str>)>) -> Vec<Clause> {
    let mut roots: Vec<Clause> = Vec::new();
    // Path of indices from the roots to the clause that was added last.
    let mut path: Vec<usize> = Vec::new();
    for (heading, body) in flat {
        let clause = Clause {
            text: body_text(&heading.inline_text, &body),
            clause_id: heading.id,
            title: heading.title,
            level: 0,
            children: Vec::new(),
        };
        // Walk up the open path until a clause whose id prefixes this one.
        while let Some(parent) = node_at(&roots, &path) {
            let is_prefix = clause
                .clause_id
                .strip_prefix(parent.clause_id.as_str())
                .is_some_and(|rest| rest.starts_with('.'));
            if is_prefix {
                break;
            }
            path.pop();
        }
        match node_at_mut(&mut roots, &path) {
            Some(parent) => {
                parent.children.push(clause);
                path.push(parent.children.len() - 1);
            }
            None => {
                roots.push(clause);
                path = vec![roots.len() - 1];
            }
        }
    }
    roots
}

fn node_at<'a>(roots: &'a [Clause], path: &[usize]) -> Option<&'a Clause> {
    let (first, rest) = path.split_first()?;
    let mut node = roots.get(*first)?;
    for i in rest {
        node = node.children.get(*i)?;
    }
    Some(node)
}

fn node_at_mut<'a>(roots: &'a mut [Clause], path: &[usize]) -> Option<&'a mut Clause> {
    let (first, rest) = path.split_first()?;
    let mut node = roots.get_mut(*first)?;
    for i in rest {
        node = node.children.get_mut(*i)?;
    }
    Some(node)
}

fn set_levels(clauses: &mut [Clause], level: u32) {
    for clause in clauses {
        clause.level = level;
        set_levels(&mut clause.children, level + 1);
    }
}

fn paragraphs(text: &str) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let flush = |current: &mut Vec<&str>, out: &mut Vec<Clause>| {
        if !current.is_empty() {
            out.push(Clause {
                clause_id: format!("P{}", out.len() + 1),
                text: current.join(" "),
                ..Default::default()
            });
            current.clear();
        }
    };
    for line in text.lines() {
        let line = clean_line(line);
        if line.is_empty() {
            flush(&mut current, &mut out);
        } else {
            current.push(line);
        }
    }
    flush(&mut current, &mut out);
    out
}

/// Whether a character is a CJK ideograph (Chinese text).
pub fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}')
}

const OPEN_QUOTES: [char; 4] = ['"', '“', '「', '『'];
const CLOSE_QUOTES: [char; 4] = ['"', '”', '」', '』'];
const DEFINING_WORDS: [&str; 8] = [
    "means",
    "shall mean",
    "mean",
    "is defined as",
    "has the meaning",
    "是指",
    "系指",
    "指",
];

/// Finds definitions such as `"Contract Price" means ...` and `“合同价格”是指……`.
pub fn extract_definitions(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = clean_line(line);
        for (term, after) in quoted_terms(line) {
            let rest = after.trim_start_matches(['*', ' ', '\u{3000}']);
            let lower = rest.to_lowercase();
            let Some(word) = DEFINING_WORDS.iter().find(|w| lower.starts_with(**w)) else {
                continue;
            };
            let definition = rest[word.len()..]
                .trim_start_matches([':', '：', ',', '，'])
                .trim()
                .trim_end_matches([';', '；', '.', '。'])
                .trim();
            if !definition.is_empty() {
                out.entry(term.to_string())
                    .or_insert_with(|| definition.to_string());
            }
        }
    }
    out
}

/// Every quoted term in a line (1 to 80 characters, no line breaks) and the text after it.
pub fn quoted_terms(line: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(OPEN_QUOTES) {
        let open = rest[start..].chars().next().unwrap_or('"');
        let inner_start = start + open.len_utf8();
        let Some(len) = rest[inner_start..].find(CLOSE_QUOTES) else {
            break;
        };
        let term = rest[inner_start..inner_start + len].trim();
        let close_len = rest[inner_start + len..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        let after = &rest[inner_start + len + close_len..];
        if !term.is_empty() && term.chars().count() <= 80 {
            out.push((term, after));
        }
        rest = after;
    }
    out
}

/// A clause reference found in text: as written, and the clause id it points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundReference {
    /// The reference as written (`Sub-Clause 20.1`, `第4.1条`).
    pub text: String,
    /// Normalised target id (`20.1`, `4.1`).
    pub target: String,
}

/// Finds references to clauses: `Sub-Clause 20.1`, `Clause 14`, `Clauses 4 and 5`,
/// `Article 5`, `Section 3.2`, `第4.1条`, `第十四条`.
pub fn find_references(text: &str) -> Vec<FoundReference> {
    let mut out = Vec::new();
    // ASCII lowercasing keeps every byte offset, so positions map back onto `text`.
    let lower = text.to_ascii_lowercase();
    let haystack = lower.as_str();
    const KEYWORDS: [&str; 8] = [
        "sub-clauses",
        "sub-clause",
        "clauses",
        "clause",
        "articles",
        "article",
        "sections",
        "section",
    ];
    let bytes = haystack.as_bytes();
    let mut i = 0;
    while i < haystack.len() {
        let prev_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'-';
        let keyword = if prev_ok {
            KEYWORDS.iter().find(|k| haystack[i..].starts_with(**k))
        } else {
            None
        };
        let Some(keyword) = keyword else {
            i += haystack[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let mut pos = i + keyword.len();
        let mut found_any = false;
        loop {
            let after = &text[pos..];
            let trimmed = after.trim_start();
            let Some((number, _)) = take_number(trimmed) else {
                break;
            };
            let start = pos + (after.len() - trimmed.len());
            let end = start + number.len();
            let written = if found_any {
                number.clone()
            } else {
                text[i..end].to_string()
            };
            out.push(FoundReference {
                text: written,
                target: number,
            });
            found_any = true;
            pos = end;
            let next = &text[pos..];
            let joiner = [", ", " and ", " or ", "、", "，", " to "]
                .iter()
                .find(|j| next.starts_with(**j));
            match joiner {
                Some(j) if keyword.ends_with('s') => pos += j.len(),
                _ => break,
            }
        }
        i = pos.max(i + keyword.len());
    }
    // Chinese: 第X条 / 第X款
    let mut rest = text;
    let mut base = 0;
    while let Some(start) = rest.find('第') {
        let inner_start = start + '第'.len_utf8();
        let candidate = &rest[inner_start..];
        let end = candidate
            .char_indices()
            .find(|(_, c)| {
                !(c.is_ascii_digit()
                    || *c == '.'
                    || chinese_numeral(&c.to_string()).is_some()
                    || matches!(c, '十' | '百' | '千'))
            })
            .map_or(candidate.len(), |(i, _)| i);
        let inner = &candidate[..end];
        let marker = candidate[end..].chars().next();
        if !inner.is_empty() && matches!(marker, Some('条')) {
            let target = if let Some(n) = chinese_numeral(inner) {
                Some(n.to_string())
            } else if inner.chars().all(|c| c.is_ascii_digit() || c == '.') {
                Some(inner.trim_end_matches('.').to_string())
            } else {
                None
            };
            if let Some(target) = target.filter(|t| !t.is_empty()) {
                let written_end = inner_start + end + '条'.len_utf8();
                out.push(FoundReference {
                    text: text[base + start..base + written_end].to_string(),
                    target,
                });
            }
        }
        base += inner_start;
        rest = &rest[inner_start..];
    }
    out
}

fn collect_cross_references(doc: &DocumentStructure) -> Vec<CrossReference> {
    let ids: HashSet<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    let mut out = Vec::new();
    for clause in doc.iter_clauses() {
        for found in find_references(&clause.text) {
            if found.target == clause.clause_id {
                continue;
            }
            out.push(CrossReference {
                source_clause_id: clause.clause_id.clone(),
                is_valid: ids.contains(found.target.as_str()),
                target_clause_id: found.target,
                reference_text: found.text,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIDIC: &str = "\
# Conditions of Contract

1 General Provisions

1.1 Definitions

\"Contract Price\" means the price defined in Sub-Clause 14.1.
\"Employer\" means the person named as employer in the Contract Data.

4 The Contractor

4.1 Contractor's General Obligations

The Contractor shall design and execute the Works in accordance with Clause 14.
Sub-Clause 4.2 Performance Security
The Contractor shall obtain a Performance Security within 28 days. See Sub-Clauses 4.1 and 20.1.
4.2.1 Amount
The amount shall be 10% of the Contract Price.
";

    #[test]
    fn english_numbering_nests_and_finds_titles() {
        let doc = parse_text("gc", FIDIC);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "1.1", "4", "4.1", "4.2", "4.2.1"]);
        assert_eq!(doc.find_clause("4").unwrap().title, "The Contractor");
        assert_eq!(
            doc.find_clause("4.2").unwrap().title,
            "Performance Security"
        );
        assert_eq!(doc.find_clause("4.2.1").unwrap().level, 3);
        assert_eq!(doc.parent_of("4.2.1").unwrap().clause_id, "4.2");
        assert_eq!(doc.total_clauses, 6);
        assert_eq!(doc.structure_type, "fidic");
        assert_eq!(
            doc.definitions["Contract Price"],
            "the price defined in Sub-Clause 14.1"
        );
        assert_eq!(doc.definitions.len(), 2);
    }

    #[test]
    fn cross_references_are_resolved_or_broken() {
        let doc = parse_text("gc", FIDIC);
        let refs: Vec<(&str, &str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| {
                (
                    r.source_clause_id.as_str(),
                    r.target_clause_id.as_str(),
                    r.is_valid,
                )
            })
            .collect();
        assert_eq!(
            refs,
            [
                ("1.1", "14.1", false),
                ("4.1", "14", false),
                ("4.2", "4.1", true),
                ("4.2", "20.1", false)
            ]
        );
    }

    #[test]
    fn chinese_numbering_and_definitions() {
        let text = "第一条 定义\n“合同价格”是指本合同第4.1条约定的价格。\n第二条 付款\n发包人应按第一条支付。\n第2.1条 预付款\n预付款为合同价格的10%。";
        let doc = parse_text("cn", text);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "2.1"]);
        assert_eq!(doc.structure_type, "chinese");
        assert_eq!(doc.find_clause("第一条").unwrap().title, "定义");
        assert_eq!(doc.definitions["合同价格"], "本合同第4.1条约定的价格");
        let targets: Vec<(&str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| (r.target_clause_id.as_str(), r.is_valid))
            .collect();
        assert_eq!(targets, [("4.1", false), ("1", true)]);
    }

    #[test]
    fn article_headings_and_sentences_are_not_headings() {
        let text = "Article 1 Scope\nThe parties agree.\n14 days after signing the Buyer pays.\nArticle 2\nPrice.";
        let doc = parse_text("a", text);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "2"]);
        assert_eq!(
            doc.find_clause("1").unwrap().text,
            "The parties agree. 14 days after signing the Buyer pays."
        );
        assert_eq!(doc.structure_type, "article");
    }

    #[test]
    fn unnumbered_text_becomes_paragraphs() {
        let doc = parse_text(
            "er",
            "The plant shall be designed.\n\nThe pumps shall be tested.",
        );
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["P1", "P2"]);
        assert_eq!(doc.structure_type, "paragraphs");
        assert_eq!(parse_text("x", "  \n").structure_type, "empty");
    }

    #[test]
    fn list_items_stay_in_the_clause() {
        let doc = parse_text(
            "x",
            "2 Payment\n1. The Employer shall pay monthly.\n2. Interest accrues.\n3. Title",
        );
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["2", "3"]);
        assert_eq!(
            doc.find_clause("2").unwrap().text,
            "1. The Employer shall pay monthly. 2. Interest accrues."
        );
    }

    #[test]
    fn inline_body_on_heading_line() {
        let doc = parse_text(
            "x",
            "1.1 The Contractor shall pay the Employer within 14 days of demand.",
        );
        let clause = doc.find_clause("1.1").unwrap();
        assert_eq!(clause.title, "");
        assert_eq!(
            clause.text,
            "The Contractor shall pay the Employer within 14 days of demand."
        );
    }

    #[test]
    fn list_items_and_definitions_keep_their_lines_while_prose_is_reflowed() {
        let doc = parse_text(
            "t",
            "4.1 Conditions\nCompletion is conditional on\nthe following:\n(a) clearance by the\nauthority;\n(b) shareholder approval;\n\"Cost\" means money spent.\n\"Key Personnel\" means staff.\n",
        );
        let text = &doc.find_clause("4.1").unwrap().text;
        assert_eq!(
            text,
            "Completion is conditional on the following:\n(a) clearance by the authority;\n(b) shareholder approval;\n\"Cost\" means money spent.\n\"Key Personnel\" means staff."
        );
        assert!(starts_item("(iv) fourth") && starts_item("a) first") && starts_item("（一）甲"));
        assert!(!starts_item("(the Employer) shall") && !starts_item("\"Cost\" is defined below"));
    }
}
