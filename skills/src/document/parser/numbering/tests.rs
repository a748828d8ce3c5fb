use super::*;

fn heading(line: &str) -> Option<(String, String, Style)> {
    parse_heading(&fold_width(line)).map(|h| (h.id, h.title, h.style))
}

fn id(line: &str) -> Option<String> {
    heading(line).map(|h| h.0)
}

#[test]
fn english_styles() {
    assert_eq!(
        heading("52.211-12 Liquidated Damages-Construction"),
        Some((
            "52.211-12".into(),
            "Liquidated Damages-Construction".into(),
            Style::Federal
        ))
    );
    assert_eq!(id("Section 5.1 Payment"), Some("5.1".into()));
    assert_eq!(
        heading("ARTICLE V").map(|h| (h.0, h.2)),
        Some(("5".into(), Style::Article))
    );
    assert_eq!(id("Article 5 - Term"), Some("5".into()));
    assert_eq!(id("5.1.1 Invoices"), Some("5.1.1".into()));
    assert_eq!(id("1000 Final Provisions"), Some("1000".into()));
    assert_eq!(id("12A Additional Covenants"), Some("12A".into()));
    assert_eq!(
        heading("PART II GENERAL").map(|h| h.0),
        Some("Part 2".into())
    );
    assert_eq!(
        heading("IV. Term").map(|h| (h.0, h.2)),
        Some(("4".into(), Style::Roman))
    );
    assert_eq!(
        heading("B. Recitals").map(|h| (h.0, h.2)),
        Some(("B".into(), Style::Letter))
    );
    assert_eq!(id("1.1"), Some("1.1".into()));
    assert_eq!(id("5."), Some("5".into()));
}

#[test]
fn sentences_are_not_headings() {
    for line in [
        "14 days after signing the Buyer pays.",
        "Clause 14 shall apply to the Works.",
        "2019 was a good year.",
        "3",
        "1. The Contractor shall pay.",
        "第五条规定的期限内",
        "（一）甲方应当按期支付工程款，不得拖延。",
        "A. The Company is a corporation.",
    ] {
        assert_eq!(id(line), None, "{line}");
    }
}

#[test]
fn chinese_styles() {
    assert_eq!(id("第一条 定义"), Some("1".into()));
    assert_eq!(id("第1条 定义"), Some("1".into()));
    assert_eq!(id("第十四条"), Some("14".into()));
    assert_eq!(
        heading("第一章 总则").map(|h| (h.0, h.2)),
        Some(("第1章".into(), Style::Part))
    );
    assert_eq!(id("第二节 工期"), Some("第2节".into()));
    assert_eq!(
        heading("一、词语定义及合同文件"),
        Some(("一".into(), "词语定义及合同文件".into(), Style::ChineseItem))
    );
    assert_eq!(id("（一）一般约定"), Some("（一）".into()));
    assert_eq!(id("(二) 特殊约定"), Some("（二）".into()));
    let h = parse_heading("1.1通用条款：是根据法律、行政法规规定制定的条款。").unwrap();
    assert_eq!((h.id.as_str(), h.title.as_str()), ("1.1", "通用条款"));
    assert_eq!(h.inline_text, "是根据法律、行政法规规定制定的条款。");
    assert_eq!(id("１２．３ 付款"), Some("12.3".into()));
}

#[test]
fn toc_entries_have_page_tails() {
    let h = parse_heading("1.2 Definitions ........ 5").unwrap();
    assert!(h.page_tail);
    let h = parse_heading("Article 3 Payment   12").unwrap();
    assert!(h.page_tail);
    assert!(!parse_heading("4.2 Performance Security").unwrap().page_tail);
    assert!(!parse_heading("Article 7 Year 2000").unwrap().page_tail);
}

#[test]
fn long_numbers_are_read_where_they_are_checked() {
    assert_eq!(
        take_number("10000 Title"),
        None,
        "four digits a part by default"
    );
    assert_eq!(
        take_number_with("10000.1 Title", MAX_LONG_NUMBER_DIGITS).map(|n| n.0),
        Some("10000.1".into())
    );
    assert_eq!(
        take_number_with("10000.12345", 9),
        None,
        "later parts keep four"
    );
    assert_eq!(id("10000 Clause Title"), Some("10000".into()));
    assert_eq!(id("123456789. Title"), Some("123456789".into()));
    assert_eq!(id("Clause 10000 Payment"), Some("10000".into()));
    for line in [
        "12345A Extra Terms",
        "1234567890 Title",
        "10000 days after notice.",
    ] {
        assert_eq!(id(line), None, "{line}");
    }
    assert!(long_first_component("10000.1") && !long_first_component("9999.12"));
}

#[test]
fn schedules_are_headings_and_references_are_not() {
    for (line, want, title) in [
        ("SCHEDULE 1", "Schedule 1", ""),
        ("Schedule 2 – Pricing", "Schedule 2", "Pricing"),
        ("Annex A: Form of Bond", "Annex A", "Form of Bond"),
        ("APPENDIX IV", "Appendix IV", ""),
        ("Exhibit B. Milestones", "Exhibit B", "Milestones"),
    ] {
        assert_eq!(
            heading(line),
            Some((want.into(), title.into(), Style::Schedule)),
            "{line}"
        );
    }
    for line in [
        "Schedule 1 sets out the prices.",
        "Schedule 1, Part B applies.",
        "Schedule 3 (Prices) applies.",
        "Exhibit 10.1",
        "Schedules",
        "Appendix to Tender",
        "Scheduled Maintenance",
    ] {
        assert_ne!(heading(line).map(|h| h.2), Some(Style::Schedule), "{line}");
    }
}

#[test]
fn roman_numerals() {
    assert_eq!(roman_value("IV"), Some(4));
    assert_eq!(roman_value("xiv"), Some(14));
    assert_eq!(roman_value("IIII"), None);
    assert_eq!(roman_value("ABC"), None);
}
