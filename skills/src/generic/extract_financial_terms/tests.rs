use super::*;

/// (rate, cap) of delay damages read from one clause.
fn delay(text: &str) -> (Option<f64>, Option<f64>) {
    let t = analyse_financial_terms("8.7", text);
    (t.delay_damages_rate_percent, t.delay_damages_cap_percent)
}

#[test]
fn ceilings_in_their_common_forms_cap_the_delay_damages_they_follow() {
    // Each ceiling with its twin that has none.
    assert_eq!(
            delay("Delay damages of 0.05% of the Contract Sum per day shall apply, with an aggregate ceiling of five percent of the Contract Sum."),
            (Some(0.05), Some(5.0))
        );
    assert_eq!(
        delay("Delay damages of 0.05% of the Contract Sum per day shall apply."),
        (Some(0.05), None)
    );
    assert_eq!(
            delay("The Supplier shall pay delay damages of 1% of the Price for each week of delay, up to 10% of the Price."),
            (Some(1.0), Some(10.0))
        );
    // "up to" before a rate per period does not make it a ceiling.
    assert_eq!(
        delay(
            "The Supplier shall pay delay damages of up to 1% of the Price for each week of delay."
        ),
        (Some(1.0), None)
    );
    // An amount named between the rate and the ceiling does not hide the ceiling.
    assert_eq!(
            delay("Delay damages are 0.1% per day, subject to a maximum of USD 500,000 or 10% of the Contract Price, whichever is lower."),
            (Some(0.1), Some(10.0))
        );
    assert_eq!(
        delay("Delay damages are 0.1% per day of the Contract Price of USD 500,000."),
        (Some(0.1), None)
    );
    assert_eq!(
            delay("Delay damages shall be two percent per week and shall in no event exceed twenty-five per cent of the Contract Price."),
            (Some(2.0), Some(25.0))
        );
    // A ceiling on another sum after the rate stays that sum's.
    assert_eq!(
            delay("Delay damages are 0.1% per day, and the advance payment shall be up to 10% of the Contract Price."),
            (Some(0.1), None)
        );
    // A figure given twice, in words and in figures, is one value.
    let t = analyse_financial_terms(
        "8.7",
        "Delay damages are 0.2% per day, not to exceed ten percent (10%) of the Contract Price.",
    );
    let caps: Vec<f64> = t
        .terms
        .iter()
        .filter(|x| x.is_cap)
        .map(|x| x.value)
        .collect();
    assert_eq!(caps, [10.0]);
}

#[test]
fn english_amounts_percentages_and_periods() {
    let t = analyse_financial_terms(
        "14",
        "The Contract Price is USD 1,500,000. Retention shall be 5% of each payment. \
             Delay damages are 0.1% per day and shall not exceed 10% of the Contract Price. \
             The Employer shall pay within 56 days. See Sub-Clause 14.7.",
    );
    let kinds: Vec<(&str, &str, f64)> = t
        .terms
        .iter()
        .map(|x| (x.category.as_str(), x.kind.as_str(), x.value))
        .collect();
    assert_eq!(
        kinds,
        [
            ("price", "amount", 1_500_000.0),
            ("retention", "percentage", 5.0),
            ("delay_damages", "percentage", 0.1),
            ("delay_damages", "percentage", 10.0),
            ("payment", "period", 56.0)
        ]
    );
    assert_eq!(t.amounts_by_currency["USD"], 1_500_000.0);
    assert_eq!(t.retention_percent, Some(5.0));
    assert_eq!(t.delay_damages_cap_percent, Some(10.0));
    assert_eq!(t.delay_damages_rate_percent, Some(0.1));
    assert!(t.terms[3].is_cap && !t.terms[2].is_cap);
    assert_eq!(t.payment_period_days, Some(56.0));
    assert_eq!(t.terms[0].text, "USD 1,500,000");
}

#[test]
fn symbols_multipliers_and_chinese() {
    let t = analyse_financial_terms(
        "1",
        "A fee of $2.5 million and €300 and £40. 预付款为人民币500万元，保留金为百分之五。",
    );
    let values: Vec<(Option<&str>, f64)> = t
        .terms
        .iter()
        .map(|x| (x.currency.as_deref(), x.value))
        .collect();
    assert_eq!(t.advance_payment_percent, None);
    assert_eq!(t.retention_percent, Some(5.0));
    assert_eq!(t.terms[3].category, "advance_payment");
    assert_eq!(t.terms[3].text, "人民币500万元");
    assert_eq!(
        values,
        [
            (Some("USD"), 2_500_000.0),
            (Some("EUR"), 300.0),
            (Some("GBP"), 40.0),
            (Some("CNY"), 5_000_000.0),
            (None, 5.0)
        ]
    );
}

/// The first version of the categorisation, which searched the text around each value.
fn categorize_by_search(lower: &str, at: usize) -> &'static str {
    let before = &lower[..at];
    let nearest = CATEGORIES
        .iter()
        .filter_map(|(c, words)| {
            words
                .iter()
                .filter_map(|w| before.rfind(w).map(|p| (p + w.len(), std::cmp::Reverse(p))))
                .max()
                .map(|p| (p, *c))
        })
        .max_by_key(|(p, _)| *p);
    if let Some((_, category)) = nearest {
        return category;
    }
    let after = &lower[at..];
    CATEGORIES
        .iter()
        .filter_map(|(c, words)| {
            words
                .iter()
                .filter_map(|w| after.find(w))
                .min()
                .map(|p| (p, *c))
        })
        .min_by_key(|(p, _)| *p)
        .map_or("other", |(_, c)| c)
}

#[test]
fn values_are_categorised_as_by_searching_around_each() {
    let pieces = [
        "pay ",
        "payment ",
        "预付款",
        "付款",
        "retention ",
        "delay damages ",
        "price ",
        "contract price ",
        "purchase price ",
        "interest ",
        "bond ",
        "违约金",
        "逾期",
        "5% ",
        "USD 100 ",
        "30天",
        "56 days ",
        "x ",
        "paypay ",
        "保留金",
    ];
    let mut seed: u64 = 11;
    for _ in 0..300 {
        let mut sentence = String::new();
        for _ in 0..12 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            sentence.push_str(pieces[((seed >> 33) as usize) % pieces.len()]);
        }
        let lower = sentence.to_ascii_lowercase();
        let mut values = scan_values(&sentence);
        values.sort_by_key(|v| v.start);
        let mut keywords = Keywords::of(&lower);
        for v in values {
            assert_eq!(
                keywords.categorize_at(v.start),
                categorize_by_search(&lower, v.start),
                "{sentence} at {}",
                v.start
            );
        }
    }
}

#[test]
fn a_long_sentence_keeps_its_first_thousand_characters_per_value() {
    let sentence = "the Employer shall pay 5% of the price, ".repeat(100);
    let t = analyse_financial_terms("1", &sentence);
    assert_eq!(t.terms.len(), 100);
    let kept = &t.terms[99].source_text;
    assert_eq!(kept.chars().count(), MAX_SOURCE_CHARS + 1);
    assert!(kept.ends_with('…') && sentence.starts_with(kept.trim_end_matches('…')));
    let short = analyse_financial_terms("1", "The Employer shall pay 5%.");
    assert_eq!(short.terms[0].source_text, "The Employer shall pay 5%.");
}

#[test]
fn nothing_financial() {
    let t = analyse_financial_terms("2", "The Engineer shall act fairly under Clause 3.");
    assert!(t.terms.is_empty());
    assert_eq!(t.summary, "Clause 2: no financial terms found");
}
