//! The SPA/SHA analyses read the scope they name whatever the layout of the agreement:
//! Markdown headings (`## 3` / `### 3.1`), plain numbering, Word numbering and a PDF's text,
//! with conditions, reserved matters and indemnities written as inline enumerations. The
//! wording is this test's own.

use std::path::Path;

use clausewright_skills::document::formats::text_from_bytes;
use clausewright_skills::document::{parse_text, DocumentStructure};
use clausewright_skills::review::kinds::Provision;
use clausewright_skills::review::provisions::scan_clause;
use clausewright_skills::sha_spa::extract_conditions::ConditionsReport;
use clausewright_skills::sha_spa::governance_check::GovernanceReport;
use clausewright_skills::sha_spa::indemnity_analysis::IndemnityReport;
use clausewright_skills::{DocumentRole, ReviewDocument, ReviewState};
use serde_json::json;

use crate::format_fixtures::{docx, pdf, styled, NUMBERING, STYLES};
use crate::samples_common::{ctx, run};

/// (heading, sub-clauses (heading, text)) of each article, numbered 1 to 8 in order.
type Article = (&'static str, Vec<(&'static str, &'static str)>);

fn articles() -> Vec<Article> {
    vec![
        ("Interpretation", vec![("Terms", "\"Losses\" means every loss, cost and expense the Purchaser suffers. \"Long Stop Date\" means 31 March 2027.")]),
        ("Sale", vec![("Shares", "The Vendor sells and the Purchaser buys the Shares.")]),
        ("Conditions", vec![
            ("Conditions Precedent", "Closing is conditional on (a) the competition authority clearing the purchase; (b) the lender of the Company consenting to the change of its owner; and (c) no material adverse change occurring before Closing."),
            ("Waiver", "The Purchaser may waive condition (c) by notice to the Vendor."),
            ("Long Stop", "If the conditions are not met by the Long Stop Date, either party may terminate this Agreement by notice."),
        ]),
        ("Closing", vec![("Place", "Closing takes place at the offices of the Purchaser.")]),
        ("Board", vec![
            ("Directors", "The board consists of five directors, two appointed by the Purchaser."),
            ("Consent Matters", "The Company shall not, without the consent of all the shareholders, (a) issue new shares; (b) borrow more than EUR 2,000,000; or (c) sell its main business."),
        ]),
        ("Exit", vec![
            ("Drag", "If holders of 75% of the shares accept an offer for all shares, they may require the other shareholders to sell on the same terms (drag-along)."),
            ("Stalemate", "If the board fails to reach a decision on a consent matter at two meetings, the deadlock is referred to the chairs of the shareholders and then to mediation."),
        ]),
        ("Limits", vec![("Cap", "The total liability of the Vendor for all claims shall not exceed EUR 5,000,000.")]),
        ("Indemnities", vec![("Tax", "The Vendor shall indemnify the Purchaser against all Losses arising from taxes of the Company for any period before Closing, subject to the limits in Clause 7.")]),
    ]
}

fn markdown() -> String {
    let mut out = String::from("# Share Purchase and Shareholders' Agreement\n\n");
    for (i, (heading, subs)) in articles().iter().enumerate() {
        out.push_str(&format!("## {} {heading}\n\n", i + 1));
        for (j, (title, text)) in subs.iter().enumerate() {
            out.push_str(&format!("### {}.{} {title}\n\n{text}\n\n", i + 1, j + 1));
        }
    }
    out
}

fn plain() -> String {
    let mut out = String::from("SHARE PURCHASE AND SHAREHOLDERS' AGREEMENT\n\n");
    for (i, (heading, subs)) in articles().iter().enumerate() {
        out.push_str(&format!("{} {}\n", i + 1, heading.to_uppercase()));
        for (j, (_, text)) in subs.iter().enumerate() {
            out.push_str(&format!("{}.{} {text}\n", i + 1, j + 1));
        }
        out.push('\n');
    }
    out
}

fn word() -> String {
    let mut body = styled("Title", "SHARE PURCHASE AND SHAREHOLDERS' AGREEMENT");
    for (heading, subs) in articles() {
        body.push_str(&styled("Heading1", heading));
        for (_, text) in subs {
            body.push_str(&styled("Heading2", &text.replace('"', "&quot;")));
        }
    }
    let bytes = docx(&body, STYLES, NUMBERING, None);
    text_from_bytes(Path::new("agreement.docx"), &bytes)
        .expect("the Word file reads")
        .0
}

/// The text of a PDF of the agreement: 70-character lines, so sentences and inline
/// enumerations break across lines, and a page number at the foot of each page.
fn pdf_text() -> String {
    let mut lines: Vec<String> = vec!["SHARE PURCHASE AND SHAREHOLDERS' AGREEMENT".into()];
    for (i, (heading, subs)) in articles().iter().enumerate() {
        lines.push(format!("{}. {}", i + 1, heading.to_uppercase()));
        for (j, (_, text)) in subs.iter().enumerate() {
            let mut line = format!("{}.{}", i + 1, j + 1);
            for word in text.split(' ') {
                if line.len() + word.len() > 70 {
                    lines.push(std::mem::take(&mut line));
                } else {
                    line.push(' ');
                }
                line.push_str(word);
            }
            lines.push(line);
        }
    }
    let pages: Vec<Vec<(f64, f64, f64, String)>> = lines
        .chunks(30)
        .enumerate()
        .map(|(n, chunk)| {
            let mut page: Vec<(f64, f64, f64, String)> = chunk
                .iter()
                .enumerate()
                .map(|(k, l)| (72.0, 72.0 + 18.0 * k as f64, 10.0, l.clone()))
                .collect();
            page.push((300.0, 760.0, 9.0, format!("- {} -", n + 1)));
            page
        })
        .collect();
    text_from_bytes(Path::new("agreement.pdf"), &pdf(&pages))
        .expect("the PDF reads")
        .0
}

fn review_of(name: &str, doc: DocumentStructure) -> ReviewState {
    ReviewState {
        domain: clausewright_skills::review::Domain::ShaSpa,
        our_party: "Purchaser".into(),
        documents: vec![ReviewDocument {
            role: DocumentRole::Primary,
            filename: name.into(),
            structure: doc.into(),
        }],
        ..Default::default()
    }
}

fn layouts() -> Vec<(&'static str, String)> {
    vec![
        ("agreement.md", markdown()),
        ("agreement.txt", plain()),
        ("agreement.docx", word()),
        ("agreement.pdf", pdf_text()),
    ]
}

#[tokio::test]
async fn conditions_are_read_from_the_article_in_every_layout() {
    for (name, text) in layouts() {
        let doc = parse_text(name, &text);
        for asked in ["3", "3.1"] {
            let c = ctx(review_of(name, doc.clone()), asked);
            let r: ConditionsReport = run("spa_extract_conditions", &c, json!({})).await;
            let labels: Vec<&str> = r.conditions.iter().map(|c| c.label.as_str()).collect();
            assert_eq!(
                labels,
                ["a", "b", "c"],
                "{name}, clause {asked}: {}\n{text}",
                r.summary
            );
            assert_eq!(r.clause_id, "3", "{name}");
            assert_eq!(
                r.long_stop_date.as_deref(),
                Some("31 March 2027"),
                "{name}: {}",
                r.summary
            );
            let mac = &r.conditions[2];
            assert_eq!(mac.category, "no_material_adverse_change", "{name}");
            assert_eq!(mac.waivable_by, ["Purchaser"], "{name}");
        }
    }
}

#[tokio::test]
async fn an_indemnity_subject_to_another_clause_is_read_in_every_layout() {
    for (name, text) in layouts() {
        let c = ctx(review_of(name, parse_text(name, &text)), "8");
        let r: IndemnityReport = run("spa_indemnity_analysis", &c, json!({})).await;
        assert!(
            !r.summary.contains("no liability limit or indemnity"),
            "{name}: {}\n{text}",
            r.summary
        );
        assert!(!r.specific_indemnities.is_empty(), "{name}: {}", r.summary);
        assert_eq!(
            r.limitations_incorporated_from.as_deref(),
            Some("7"),
            "{name}: {}",
            r.summary
        );
    }
}

#[tokio::test]
async fn governance_terms_are_found_in_every_layout() {
    for (name, text) in layouts() {
        let c = ctx(review_of(name, parse_text(name, &text)), "5");
        let r: GovernanceReport = run("sha_governance_check", &c, json!({})).await;
        let matters: Vec<&str> = r
            .reserved_matters
            .iter()
            .map(|m| m.label.as_str())
            .collect();
        assert_eq!(matters, ["a", "b", "c"], "{name}: {}\n{text}", r.summary);
        assert!(r.drag_along.is_some(), "{name}: {}", r.summary);
        assert!(!r.deadlock_mechanisms.is_empty(), "{name}: {}", r.summary);
    }
}

#[test]
fn the_provision_scan_reads_the_same_clauses_in_every_layout() {
    for (name, text) in layouts() {
        let doc = parse_text(name, &text);
        let found = |id: &str| -> Vec<Provision> {
            let clause = doc
                .find_clause(id)
                .unwrap_or_else(|| panic!("{name}: no clause {id}\n{text}"));
            scan_clause(&clause.full_text(), "Purchaser")
                .into_iter()
                .map(|f| f.provision)
                .collect()
        };
        assert!(found("5.2").contains(&Provision::ReservedMatters), "{name}");
        assert!(found("6.1").contains(&Provision::DragAlong), "{name}");
        assert!(found("7.1").contains(&Provision::LiabilityCap), "{name}");
    }
}
