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
fn a_sentence_broken_after_its_number_is_text_not_a_title() {
    let doc = parse_text(
            "a",
            "1. SUPPLY\n\n1.1 The Supplier shall deliver the pumps to the quay\n\nbefore the end of May.\n\n1.2 Delivery Terms\n\nRisk passes on unloading.",
        );
    let broken = doc.find_clause("1.1").unwrap();
    assert_eq!(broken.title, "");
    assert_eq!(
        broken.text,
        "The Supplier shall deliver the pumps to the quay\nbefore the end of May."
    );
    assert_eq!(doc.find_clause("1.2").unwrap().title, "Delivery Terms");
    let doc = parse_text(
        "b",
        "1. PRICE\n\n1.1 The total price of the pumps shall not exceed\n\nEUR 90,000.",
    );
    assert_eq!(
        doc.find_clause("1.1").unwrap().text,
        "The total price of the pumps shall not exceed\nEUR 90,000."
    );
}

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
}

fn ids(doc: &DocumentStructure) -> Vec<&str> {
    doc.iter_clauses().map(|c| c.clause_id.as_str()).collect()
}

fn levels(doc: &DocumentStructure) -> Vec<(&str, u32)> {
    doc.iter_clauses()
        .map(|c| (c.clause_id.as_str(), c.level))
        .collect()
}

#[test]
fn federal_clauses_are_headings() {
    let text = "SECTION I - CONTRACT CLAUSES\n\n52.211-12 Liquidated Damages-Construction (SEP 2000)\n(a) If the Contractor fails to complete the work within the time specified, the Contractor shall pay liquidated damages.\n52.236-2 Differing Site Conditions (APR 1984)\n(a) The Contractor shall promptly, and before the conditions are disturbed, give a written notice.\n52.249-2 Termination for Convenience of the Government (Fixed-Price) (APR 2012)\nThe Government may terminate performance of work under this contract.";
    let doc = parse_text("far", text);
    assert_eq!(ids(&doc), ["1", "52.211-12", "52.236-2", "52.249-2"]);
    assert_eq!(doc.structure_type, "federal");
    let clause = doc.find_clause("52.211-12").unwrap();
    assert_eq!(clause.title, "Liquidated Damages-Construction (SEP 2000)");
    assert_eq!(clause.level, 2);
    assert!(clause.text.starts_with("(a) If the Contractor fails"));
}

#[test]
fn articles_sections_and_four_digit_numbers_nest() {
    let text = "ARTICLE I\nDEFINITIONS\nSection 1.1 Terms. As used herein the following terms apply.\nSection 1.2 Construction.\nARTICLE II\nPAYMENT\nSection 2.1 Price. The Buyer shall pay the price.\n12A Additional Covenants\nThe Seller shall comply.";
    let doc = parse_text("spa", text);
    assert_eq!(
        levels(&doc),
        [
            ("1", 1),
            ("1.1", 2),
            ("1.2", 2),
            ("2", 1),
            ("2.1", 2),
            ("12A", 2)
        ]
    );
    assert_eq!(doc.find_clause("1").unwrap().title, "DEFINITIONS");
    assert_eq!(doc.find_clause("1.1").unwrap().title, "Terms");
    assert_eq!(
        doc.find_clause("1.1").unwrap().text,
        "As used herein the following terms apply."
    );
    assert_eq!(doc.find_clause("1.2").unwrap().title, "Construction");

    let mut many = String::new();
    for n in 995..=1003 {
        many.push_str(&format!("{n} Heading {n}\nText of clause {n}.\n"));
    }
    let doc = parse_text("long", &many);
    assert_eq!(doc.total_clauses, 9);
    assert_eq!(
        doc.find_clause("1000").unwrap().text,
        "Text of clause 1000."
    );
    // A year at the start of a line is not clause 2019.
    let doc = parse_text(
        "y",
        "1 Term\nThe term starts in\n2019 Annual Meeting\nand ends later.",
    );
    assert_eq!(ids(&doc), ["1"]);
}

#[test]
fn roman_and_letter_headings_are_told_apart_by_context() {
    let text = "I. Definitions\nText.\nII. Scope\nText.\nIII. Price\nText.\nIV. Term\nText.\nV. Notices\nText.";
    let doc = parse_text("r", text);
    assert_eq!(ids(&doc), ["1", "2", "3", "4", "5"]);
    let letters: String = ('A'..='I')
        .map(|c| format!("{c}. Heading {c}\nText.\n"))
        .collect();
    let doc = parse_text("l", &letters);
    assert_eq!(ids(&doc), ["A", "B", "C", "D", "E", "F", "G", "H", "I"]);
}

#[test]
fn chinese_model_form_with_numbers_run_into_text() {
    let text = "建设工程施工合同\n\n一、词语定义及合同文件\n1.1通用条款：是根据法律、行政法规规定制定的条款。\n1.2专用条款：是发包人与承包人协商一致的条款。\n二、双方一般权利和义务\n2.1工程师：本工程监理单位委派的总监理工程师。\n（一）一般约定\n甲方应当按期付款。\n１２．３　付款\n发包人应在１４天内支付。";
    let doc = parse_text("gf", text);
    assert_eq!(
        levels(&doc),
        [
            ("一", 1),
            ("1.1", 2),
            ("1.2", 2),
            ("二", 1),
            ("2.1", 2),
            ("2.1（一）", 3),
            ("12.3", 2)
        ]
    );
    assert_eq!(doc.find_clause("1.1").unwrap().title, "通用条款");
    assert_eq!(doc.preamble, "建设工程施工合同");
    assert_eq!(doc.structure_type, "chinese");
}

#[test]
fn chinese_chapters_contain_articles() {
    let text = "第一章 总则\n第一条 目的\n为明确双方权利义务，订立本合同。\n第二条 定义\n见第一条。\n第二章 价款\n第三条 价款\n按第5条和第二条执行。";
    let doc = parse_text("cn", text);
    assert_eq!(
        levels(&doc),
        [("第1章", 1), ("1", 2), ("2", 2), ("第2章", 1), ("3", 2)]
    );
    let refs: Vec<(&str, bool)> = doc
        .cross_references
        .iter()
        .map(|r| (r.target_clause_id.as_str(), r.is_valid))
        .collect();
    assert_eq!(refs, [("1", true), ("5", false), ("2", true)]);
}

#[test]
fn table_of_contents_is_skipped() {
    let text = "SUPPLY AGREEMENT\n\nTABLE OF CONTENTS\n1. Definitions 1\n2. Supply 3\n3. Price 5\n\n1. Definitions\n\"Products\" means the goods.\n2. Supply\nThe Seller supplies.\n3. Price\nThe Buyer pays.";
    let doc = parse_text("toc", text);
    assert_eq!(ids(&doc), ["1", "2", "3"]);
    assert_eq!(doc.find_clause("2").unwrap().text, "The Seller supplies.");
    assert_eq!(doc.skipped.table_of_contents, 4);
    assert_eq!(doc.preamble, "SUPPLY AGREEMENT");

    // No title: entries with dot leaders and page numbers, or empty headings that repeat.
    let text = "1. Definitions ........ 1\n2. Supply ........ 3\n\n1. Definitions\n\"Products\" means the goods.\n2. Supply\nThe Seller supplies.";
    let doc = parse_text("toc", text);
    assert_eq!(ids(&doc), ["1", "2"]);
    assert_eq!(
        doc.find_clause("1").unwrap().text,
        "\"Products\" means the goods."
    );
    let text = "1 Definitions\n2 Supply\n3 Price\n1 Definitions\nText one.\n2 Supply\nText two.\n3 Price\nText three.";
    let doc = parse_text("toc", text);
    assert_eq!(ids(&doc), ["1", "2", "3"]);
    assert_eq!(doc.find_clause("3").unwrap().text, "Text three.");
}

#[test]
fn page_furniture_is_dropped() {
    let mut text = String::from("Preamble of the agreement.\n");
    for page in 1..=4 {
        let topic = ["price", "delivery", "warranty", "notices"][page - 1];
        text.push_str(&format!(
                "{page} Heading {page}\nThe parties agree on the {topic}\nSource: ACME CORP, 10-K, 3/1/2020\nPage {page} of 4\nof the goods ({topic}).\n"
            ));
    }
    let doc = parse_text("pdf", &text);
    assert_eq!(ids(&doc), ["1", "2", "3", "4"]);
    assert_eq!(
        doc.find_clause("3").unwrap().text,
        "The parties agree on the warranty of the goods (warranty)."
    );
    assert_eq!(doc.skipped.page_furniture, 8);
    assert_eq!(doc.preamble, "Preamble of the agreement.");
}

#[test]
fn repeated_sentences_are_contract_text_not_furniture() {
    let mut text = String::new();
    for n in 1..=4 {
        text.push_str(&format!(
                "{n} Heading {n}\nThe Supplier shall deliver the goods and\nkeep them insured until delivery.\nEach Party shall bear its own costs of performing this clause.\n"
            ));
    }
    let doc = parse_text("boilerplate", &text);
    assert_eq!(ids(&doc), ["1", "2", "3", "4"]);
    assert_eq!(doc.skipped.page_furniture, 0);
    let three = &doc.find_clause("3").unwrap().text;
    assert!(
        three.contains("keep them insured until delivery."),
        "{three}"
    );
    assert!(three.contains("bear its own costs"), "{three}");
}

#[test]
fn pdf_lines_joined_with_runs_of_spaces_are_split() {
    let text = "The Parties agree as follows:   1 Definitions   1.1 \"Batch\" means a lot.   1.2 \"Product\" means the drug.   2 Supply   The Seller supplies.";
    let doc = parse_text("joined", text);
    assert_eq!(ids(&doc), ["1", "1.1", "1.2", "2"]);
    assert_eq!(doc.preamble, "The Parties agree as follows:");
    assert_eq!(doc.definitions.len(), 2);
}

#[test]
fn preamble_and_recitals_are_their_own_part() {
    let text = "THIS AGREEMENT is made between A and B.\n\nWHEREAS, A makes goods;\nWHEREAS, B wants them;\n\nNOW, THEREFORE, the parties agree:\n\n1. Sale\nA sells.\n2. Price\nB pays.";
    let doc = parse_text("p", text);
    assert_eq!(ids(&doc), ["1", "2"]);
    assert_eq!(doc.find_clause("1").unwrap().text, "A sells.");
    assert!(doc.preamble.starts_with("THIS AGREEMENT is made"));
    assert!(doc.preamble.contains("WHEREAS, B wants them;"));
    assert!(doc.preamble.ends_with("the parties agree:"));
}

#[test]
fn numbered_paragraphs_and_markdown_headings_when_there_are_no_headings() {
    let text = "Agreement between A and B.\n1. The Seller shall deliver the goods.\n2. The Buyer shall pay within 30 days.\n3. The Buyer may terminate on notice.\n5. A stray number.";
    let doc = parse_text("np", text);
    assert_eq!(ids(&doc), ["1", "2", "3"]);
    assert!(doc
        .find_clause("3")
        .unwrap()
        .text
        .contains("5. A stray number."));
    let text = "# Term Sheet\n\n## Offering Terms\n\n### Securities:\n\nSeries Seed.\n\n### Price:\n\n$1.00 per share.\n\n## Other Terms\n\n### Expenses:\n\nEach party pays its own.";
    let doc = parse_text("ts", text);
    assert_eq!(
        levels(&doc),
        [
            ("Term Sheet", 1),
            ("Offering Terms", 2),
            ("Securities", 3),
            ("Price", 3),
            ("Other Terms", 2),
            ("Expenses", 3)
        ]
    );
    assert_eq!(doc.find_clause("Price").unwrap().text, "$1.00 per share.");
}

/// Where each clause sits: `(id, level)` in document order.
fn shape(doc: &DocumentStructure) -> Vec<(String, u32)> {
    doc.iter_clauses()
        .map(|c| (c.clause_id.clone(), c.level))
        .collect()
}

fn owned(pairs: &[(&str, u32)]) -> Vec<(String, u32)> {
    pairs.iter().map(|(id, l)| (id.to_string(), *l)).collect()
}

#[test]
fn a_container_heading_after_a_numbered_clause_starts_at_the_top() {
    // Numbered sub-clauses before the first article (a summary of key terms, say), then
    // articles holding their own sections.
    let doc = parse_text(
        "en",
        "1.4 Rent
The rent is payable monthly.

ARTICLE II
TERM
2.1 Start
The lease starts on signing.
2.2 Renewal
One renewal of five years.

Article 3 Insurance
3.1 Cover
The tenant insures the contents.",
    );
    assert_eq!(
        shape(&doc),
        owned(&[
            ("1.4", 1),
            ("2", 1),
            ("2.1", 2),
            ("2.2", 2),
            ("3", 1),
            ("3.1", 2)
        ])
    );
    // The same in Chinese: an article (条) and a section (节) after a dotted number.
    let doc = parse_text(
        "zh",
        "2.3 发包人应按时支付。

第三条 工期
3.1 开工日期为签约后七日。
3.2 竣工日期以验收为准。

第二节 保险
4.1 承包人投保工程一切险。",
    );
    assert_eq!(
        shape(&doc),
        owned(&[
            ("2.3", 1),
            ("3", 1),
            ("3.1", 2),
            ("3.2", 2),
            ("第2节", 1),
            ("4.1", 2)
        ])
    );
}

#[test]
fn containers_still_hold_numbers_and_each_other() {
    // Numbers under an article, articles under a part, numbers under a Chinese article,
    // and dotted numbers under a plain number: unchanged nesting.
    let doc = parse_text(
        "en",
        "PART I
GENERAL
ARTICLE 1
DEFINITIONS
1.1 Terms
Words mean what they say.
1.2 Headings
Headings do not count.",
    );
    assert_eq!(
        shape(&doc),
        owned(&[("Part 1", 1), ("1", 2), ("1.1", 3), ("1.2", 3)])
    );
    let doc = parse_text(
        "zh",
        "第一条 总则
1.1 本合同适用中国法律。
1.2 本合同一式两份。
第二条 价款
2.1 合同总价为一百万元。",
    );
    assert_eq!(
        shape(&doc),
        owned(&[("1", 1), ("1.1", 2), ("1.2", 2), ("2", 1), ("2.1", 2)])
    );
    let doc = parse_text(
        "n",
        "1. SUPPLY
1.1 Delivery
The goods are delivered to the site.
1.2 Risk
Risk passes on delivery.",
    );
    assert_eq!(shape(&doc), owned(&[("1", 1), ("1.1", 2), ("1.2", 2)]));
}

#[test]
fn references_resolve_against_every_style() {
    let text = "ARTICLE V\nPAYMENT\nSection 5.01 Price. The Buyer pays as set out in Section 6 and Clause 5.01(a).\n(a) in cash;\nSection 6 Term. See Article V, Section 5.1 and Section 7.";
    let doc = parse_text("refs", text);
    let refs: Vec<(&str, &str, bool)> = doc
        .cross_references
        .iter()
        .map(|r| {
            (
                r.reference_text.as_str(),
                r.target_clause_id.as_str(),
                r.is_valid,
            )
        })
        .collect();
    assert_eq!(
        refs,
        [
            ("Section 6", "6", true),
            ("Clause 5.01(a)", "5.01", true),
            ("Article V", "5", true),
            ("Section 5.1", "5.01", true),
            ("Section 7", "7", false)
        ]
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Generated contracts of any shape of numbering parse back into that numbering.
    #[test]
    fn generated_numbering_is_recovered(
        shape in proptest::collection::vec(0usize..4, 1..40),
        chinese in proptest::bool::ANY,
        start in proptest::sample::select(vec![1u32, 998]),
    ) {
        let mut text = String::from("Preamble text of the agreement.\n\n");
        let mut expected = Vec::new();
        for (i, subs) in shape.iter().enumerate() {
            let n = start + i as u32;
            if chinese {
                text.push_str(&format!("第{n}条 条款{n}\n本条约定事项。\n"));
            } else {
                text.push_str(&format!("{n} Heading Number {n}\nThe parties agree on item {n}.\n"));
            }
            expected.push(n.to_string());
            for s in 1..=*subs {
                if chinese {
                    text.push_str(&format!("{n}.{s}子条款：本款内容。\n"));
                } else {
                    text.push_str(&format!("{n}.{s} Sub Heading\nSub-clause text of {n}.{s}.\n"));
                }
                expected.push(format!("{n}.{s}"));
            }
        }
        let doc = parse_text("gen", &text);
        let got: Vec<String> = doc.iter_clauses().map(|c| c.clause_id.clone()).collect();
        proptest::prop_assert_eq!(got, expected);
        for clause in doc.iter_clauses() {
            let depth = clause.clause_id.matches('.').count() as u32 + 1;
            proptest::prop_assert_eq!(clause.level, depth);
        }
        proptest::prop_assert_eq!(doc.preamble.as_str(), "Preamble text of the agreement.");
    }
}

#[test]
fn tab_indented_numbered_lines_are_text_of_their_clause() {
    let text = "1. Scope. The Supplier supplies:\n\n\t1. pumps;\n\n\t2. valves.\n\n\
                    2. Price. The Buyer pays.\n\n3. Term. One year.\n";
    let doc = parse_text("t", text);
    let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3"]);
    let scope = doc.find_clause("1").unwrap();
    assert!(scope.text.contains("1. pumps;") && scope.text.contains("2. valves."));
    let spaced = parse_text("t", "1. Scope. Goods.\n\n    2. Price. The Buyer pays.\n");
    assert!(
        spaced.find_clause("2").is_some(),
        "space-indented lines (PDF extractions) still open clauses"
    );
}
