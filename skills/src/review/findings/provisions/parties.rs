//! Parties: who they are in a document, whether two names are the same party, the defined
//! roles of standard forms, and whether a contract takes its definitions from another
//! document.

use std::sync::LazyLock;

use regex::Regex;

use crate::document::DocumentStructure;

/// Roles that standard forms define (FIDIC, government contracts, venture forms, Chinese
/// model forms): capitalised in the text, never "undefined".
const STANDARD_ROLES: &[&str] = &[
    "employer",
    "contractor",
    "subcontractor",
    "sub-contractor",
    "engineer",
    "engineer's representative",
    "contracting officer",
    "government",
    "owner",
    "operator",
    "company",
    "corporation",
    "investor",
    "investors",
    "purchaser",
    "purchasers",
    "buyer",
    "seller",
    "sellers",
    "vendor",
    "supplier",
    "customer",
    "client",
    "consultant",
    "designer",
    "shareholder",
    "shareholders",
    "stockholder",
    "stockholders",
    "member",
    "members",
    "director",
    "directors",
    "board",
    "board of directors",
    "founder",
    "founders",
    "holder",
    "holders",
    "licensor",
    "licensee",
    "distributor",
    "manufacturer",
    "reseller",
    "lender",
    "borrower",
    "guarantor",
    "landlord",
    "tenant",
    "partner",
    "partners",
    "participant",
    "participants",
    "joint venture",
    "party",
    "parties",
    "party a",
    "party b",
    "party c",
    "other party",
    "other parties",
    "dab",
    "daab",
    "dispute adjudication board",
    "arbitrator",
    "arbitrators",
    "provider",
    "service provider",
    "agent",
    "principal",
    "management committee",
    "general manager",
    "chairman",
    "chairperson",
    "甲方",
    "乙方",
    "丙方",
    "发包人",
    "承包人",
    "发包方",
    "承包方",
    "监理人",
    "监理工程师",
    "工程师",
    "业主",
    "合营公司",
    "合营各方",
    "董事会",
    "股东",
    "股东会",
    "投资方",
    "公司",
];

/// Whether `term` is a role that standard forms define (`Employer`, `Contractor`,
/// `Government`, `Company`, `Investor`, 发包人 ...), with or without a leading "the".
pub fn is_standard_role(term: &str) -> bool {
    let lower = term.trim().to_lowercase();
    let lower = lower.strip_prefix("the ").unwrap_or(&lower);
    let lower = lower.trim_end_matches("'s").trim_end_matches("’s").trim();
    STANDARD_ROLES.contains(&lower)
}

/// Whether `term` is the usual name of the document itself (`Agreement`, `this Contract`,
/// 本合同): capitalised because it is the instrument, not a term left undefined.
pub fn names_the_document(term: &str) -> bool {
    let lower = term.trim().to_lowercase();
    let lower = lower
        .strip_prefix("this ")
        .or_else(|| lower.strip_prefix("the "))
        .unwrap_or(&lower);
    let lower = lower.trim_end_matches("'s").trim_end_matches("’s").trim();
    let lower = lower.strip_prefix('本').unwrap_or(lower);
    DOCUMENT_NAMES.contains(&lower)
}

/// What a contract calls itself.
const DOCUMENT_NAMES: &[&str] = &["agreement", "contract", "deed", "合同", "协议"];

/// Role words in English and Chinese that name the same side.
const SAME_SIDE: &[&[&str]] = &[
    &[
        "contractor",
        "承包人",
        "承包方",
        "承包商",
        "总承包商",
        "施工方",
        "施工单位",
    ],
    &[
        "employer",
        "owner",
        "发包人",
        "发包方",
        "业主",
        "业主方",
        "建设方",
        "建设单位",
    ],
    &["engineer", "监理人", "监理工程师", "工程师"],
    &[
        "investor",
        "investors",
        "purchaser",
        "buyer",
        "投资方",
        "买方",
    ],
    &["seller", "vendor", "卖方", "出让方"],
    &["company", "公司", "合营公司"],
    &["party a", "甲方"],
    &["party b", "乙方"],
];

/// Whether two names are the same party: one contains the other (`Startec` and `Startec
/// Global Communications`), or both are role words of the same side (`Contractor`, 承包人).
pub(crate) fn same_party(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        let lower = s.trim().to_lowercase();
        lower
            .strip_prefix("the ")
            .unwrap_or(&lower)
            .trim_end_matches("'s")
            .trim_end_matches("’s")
            .trim()
            .to_string()
    };
    let (a, b) = (norm(a), norm(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a == b || (a.len() >= 3 && b.contains(&a)) || (b.len() >= 3 && a.contains(&b)) {
        return true;
    }
    SAME_SIDE
        .iter()
        .any(|side| side.contains(&a.as_str()) && side.contains(&b.as_str()))
}

static CAPITALISED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:[A-Z][A-Za-z0-9&\-]*|[A-Z]{2,})(?:\s+(?:[A-Z][A-Za-z0-9&\-]*|of|and|&)){0,4}(?:'s|’s)?|甲方|乙方|丙方|发包人|承包人|发包方|承包方|监理人|工程师|合营公司|董事会|投资方|公司").unwrap()
});

/// Words that start sentences or clauses rather than name a party.
const NOT_PARTIES: &[&str] = &[
    "if",
    "in",
    "the",
    "this",
    "that",
    "such",
    "any",
    "each",
    "either",
    "neither",
    "no",
    "notwithstanding",
    "subject",
    "upon",
    "unless",
    "except",
    "where",
    "when",
    "following",
    "after",
    "before",
    "during",
    "all",
    "agreement",
    "section",
    "article",
    "clause",
    "schedule",
    "exhibit",
    "annex",
    "for",
    "to",
    "provided",
    "however",
    "otherwise",
    "nothing",
    "it",
    "they",
    "we",
    "you",
    "he",
    "she",
    "there",
    "as",
    "at",
    "by",
    "on",
    "or",
    "and",
    "a",
    "an",
    "contract",
    "works",
    "services",
    "goods",
    "products",
    "project",
    "price",
    "thereafter",
    "accordingly",
    "therefore",
    "moreover",
    "furthermore",
    "save",
    "without",
];

/// The last party-like name in `zone` (a capitalised name or a Chinese role word).
pub(crate) fn last_party(zone: &str) -> Option<String> {
    CAPITALISED
        .find_iter(zone)
        .filter_map(|m| {
            let name = m
                .as_str()
                .trim_end_matches("'s")
                .trim_end_matches("’s")
                .trim();
            // "The Contractor", "If Buyer": leading function words are not part of the name.
            let mut words: Vec<&str> = name.split_whitespace().collect();
            while words
                .first()
                .is_some_and(|w| NOT_PARTIES.contains(&w.to_lowercase().as_str()))
            {
                words.remove(0);
            }
            while words
                .last()
                .is_some_and(|w| matches!(w.to_lowercase().as_str(), "of" | "and" | "&"))
            {
                words.pop();
            }
            (!words.is_empty()).then(|| words.join(" "))
        })
        .last()
}

static BETWEEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?is)\bby\s+and\s+(?:between|among)\s+(.{3,400}?)\s+and\s+(.{3,300}?)(?:\.|\(collectively|\(together|,\s*\(?each|\s+witnesseth|\s+recitals|\n\n)"#).unwrap()
});

static DEFINED_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\((?:the\s+|hereinafter(?:\s+(?:referred\s+to|called))?\s+(?:as\s+)?(?:the\s+)?|herein\s+(?:referred\s+to\s+as\s+)?(?:the\s+)?|collectively,?\s+(?:the\s+)?)?["“'‘]{1,2}([^"”'’)]{2,40})["”'’]{1,2}\s*\)"#).unwrap()
});

static ZH_PARTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(甲方|乙方|丙方|发包人|承包人|发包方|承包方)[（(]?[:：]").unwrap()
});

/// The parties a document names near its start: quoted short names in brackets
/// (`("Contractor")`), the two sides of "by and between A and B", and Chinese role headings
/// (`甲方：`). Most likely parties first; at most four.
pub fn document_parties(doc: &DocumentStructure) -> Vec<String> {
    let mut head = String::new();
    for clause in doc.iter_clauses() {
        if head.len() > 6000 {
            break;
        }
        head.push_str(&clause.title);
        head.push('\n');
        head.push_str(&clause.text);
        head.push('\n');
    }
    let mut cut = head.len().min(6000);
    while !head.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &head[..cut];
    let mut parties: Vec<String> = Vec::new();
    let push = |name: &str, parties: &mut Vec<String>| {
        let name = name
            .trim()
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '&');
        if name.chars().count() >= 2
            && !parties.iter().any(|p| same_party(p, name))
            && !matches!(
                name.to_lowercase().as_str(),
                "agreement" | "effective date" | "parties" | "party" | "contract"
            )
        {
            parties.push(name.to_string());
        }
    };
    if let Some(c) = BETWEEN.captures(head) {
        let mut between = Vec::new();
        for side in [&c[1], &c[2]] {
            if let Some(d) = DEFINED_NAME.captures(side) {
                push(&d[1], &mut between);
            } else {
                let name: String = side
                    .split([',', '(', '\n'])
                    .next()
                    .unwrap_or("")
                    .to_string();
                push(&name, &mut between);
            }
        }
        for p in between {
            push(&p, &mut parties);
        }
    }
    for c in DEFINED_NAME.captures_iter(head) {
        let name = &c[1];
        let looks_party = name.split_whitespace().count() <= 4
            && name.chars().next().is_some_and(char::is_uppercase)
            && !name.to_lowercase().contains("agreement")
            && !name.to_lowercase().contains("date");
        if looks_party {
            push(name, &mut parties);
        }
    }
    for c in ZH_PARTY.captures_iter(head) {
        push(&c[1], &mut parties);
    }
    parties.truncate(4);
    parties
}

static INCORPORATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?is)(?:terms|words|expressions)[^.;。]{0,120}?(?:have|has|shall\s+have|bear)\s+the\s+(?:same\s+)?(?:respective\s+)?meanings?\s+(?:as\s+are\s+)?(?:respectively\s+)?(?:given|ascribed|assigned|set\s+forth|set\s+out|defined|attributed|provided)[^.;。]{0,40}?\bin\b|(?:词语|用语|术语)[^。；]{0,40}(?:含义|定义)[^。；]{0,20}(?:与|同|按照|依照)[^。；]{0,40}(?:相同|一致|规定|赋予)").unwrap()
});

/// Whether the document says its terms take their meaning from another document ("terms
/// not defined herein have the meanings given in the General Conditions", 词语含义与通用条款
/// 相同): undefined-looking terms are then defined there.
pub fn incorporates_definitions(doc: &DocumentStructure) -> bool {
    doc.iter_clauses()
        .any(|c| INCORPORATED.is_match(&c.text) || INCORPORATED.is_match(&c.title))
}

static AS_DEFINED_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:["“]([^"”]{2,60})["”]|\b((?:[A-Z][\w'-]*\s+(?:of\s+|and\s+)?){0,4}[A-Z][\w'-]*))\s*,?\s*\(?\s*(?:as\s+(?:such\s+term\s+is\s+)?defined\s+in|(?:has|have)\s+the\s+meanings?\s+(?:given|set\s+forth|ascribed|assigned)\s+(?:to\s+(?:it|them|such\s+term)\s+)?in)"#).unwrap()
});

/// Terms the document says are defined in another document ("Deemed Liquidation Event (as
/// defined in the Charter)", "\"Closing\" has the meaning given in the Purchase Agreement").
pub fn defined_by_reference(doc: &DocumentStructure) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for clause in doc.iter_clauses() {
        for c in AS_DEFINED_IN.captures_iter(&clause.text) {
            if let Some(term) = c.get(1).or(c.get(2)) {
                let term = term.as_str().trim();
                let term = term.strip_prefix("The ").unwrap_or(term);
                out.insert(term.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_roles_match_across_languages() {
        assert!(same_party("the Contractor", "Contractor"));
        assert!(same_party("承包人", "Contractor"));
        assert!(same_party("Startec", "Startec Global Communications"));
        assert!(!same_party("Employer", "Contractor"));
        assert!(!same_party("", "Contractor"));
        assert!(is_standard_role("the Government"));
        assert!(is_standard_role("Investors"));
        assert!(!is_standard_role("Performance Security"));
        assert!(names_the_document("Agreement"));
        assert!(names_the_document("this Contract"));
        assert!(names_the_document("本合同"));
        assert!(!names_the_document("Supply Agreement"));
    }

    #[test]
    fn parties_come_from_the_preamble() {
        let doc = crate::document::parse_text(
            "t",
            "1. Parties\n\nThis Agreement is made by and between Acme Corp., a Delaware corporation (\"Acme\"), and Beta Ltd (\"Supplier\").\n\n2. Term\n\nThe term is one year.\n",
        );
        let parties = document_parties(&doc);
        assert_eq!(&parties[..2], ["Acme", "Supplier"], "{parties:?}");
    }

    #[test]
    fn terms_defined_by_reference_are_collected() {
        let doc = crate::document::parse_text(
            "t",
            "1. Terms\n\nOn a Deemed Liquidation Event (as defined in the Charter) and the \"Closing\" has the meaning given in the Purchase Agreement.\n",
        );
        let terms = defined_by_reference(&doc);
        assert!(terms.contains("Deemed Liquidation Event"), "{terms:?}");
        assert!(terms.contains("Closing"), "{terms:?}");
    }

    #[test]
    fn incorporated_definitions_are_recognised() {
        let doc = crate::document::parse_text(
            "t",
            "1. Definitions\n\nCapitalized terms used but not defined herein shall have the meanings given to them in the Purchase Agreement.\n",
        );
        assert!(incorporates_definitions(&doc));
        let zh = crate::document::parse_text(
            "t",
            "第一条 定义\n\n本合同中的词语含义与通用条款中赋予的含义相同。\n",
        );
        assert!(incorporates_definitions(&zh));
    }
}
