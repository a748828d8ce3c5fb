use super::*;

#[test]
fn page_numbers() {
    for s in [
        "3",
        "Page 3",
        "Page 3 of 40",
        "- 3 -",
        "— 12 —",
        "3/40",
        "iv",
        "第3页",
        "第 3 页 共 40 页",
    ] {
        assert!(is_page_number(s), "{s}");
    }
    for s in ["3. Payment", "Page 3 shows", "Clause 4", "1.1"] {
        assert!(!is_page_number(s), "{s}");
    }
}

#[test]
fn hyphenation() {
    let known: HashSet<String> = ["well-known".to_string()].into();
    assert_eq!(
        join_hyphenated("the con-", "tractor shall", &known).unwrap(),
        "the contractor shall"
    );
    assert_eq!(
        join_hyphenated("a well-", "known rule", &known).unwrap(),
        "a well-known rule"
    );
    assert!(join_hyphenated("Sub-", "Clause 4", &known).is_none());
    assert!(join_hyphenated("costs -", "and more", &known).is_none());
}

fn page(lines: &[(f64, &str)]) -> Page {
    Page {
        height: 800.0,
        lines: lines
            .iter()
            .map(|&(y, t)| Line {
                y,
                size: 10.0,
                end_x: 0.0,
                text: t.to_string(),
                gap_before: false,
            })
            .collect(),
    }
}

#[test]
fn running_heads_with_page_numbers_are_dropped() {
    let pages = (1..=6)
        .map(|n| {
            let chapter = if n <= 3 {
                "Chapter 1: Scope"
            } else {
                "Chapter 2: Price"
            };
            let head = format!("{chapter} {n}");
            let body = format!("Body line {n}");
            page(&[(30.0, &head), (100.0, &body)])
        })
        .collect();
    let text = assemble(pages);
    assert!(!text.contains("Chapter"), "{text}");
    assert!(
        has_edge_number("12 Libtasn1") && !has_edge_number("12") && !has_edge_number("1.1 Scope")
    );
}

#[test]
fn furniture_is_dropped() {
    let pages = (1..=4)
        .map(|n| {
            let footer = format!("Page {n} of 4");
            let body = format!("Body line {n}");
            page(&[
                (30.0, "ACME Supply Agreement"),
                (100.0, &body),
                (770.0, &footer),
            ])
        })
        .collect();
    assert_eq!(
        assemble(pages),
        "Body line 1\nBody line 2\nBody line 3\nBody line 4"
    );
}
