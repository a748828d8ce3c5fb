use proptest::prelude::*;

use super::*;

fn pieces() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
            "The Contractor shall give notice of the claim within 28 days after becoming aware of the event",
            "The Engineer shall respond within 42 days",
            "not later than 14 days before the Commencement Date",
            "at least 7 days",
            "If the Contractor fails to give notice, the Contractor shall not be entitled to additional payment",
            "otherwise the claim is deemed withdrawn",
            "a fully detailed claim within 84 days",
            "(28) days",
            "the Employer shall pay within 56 days of receiving the Statement",
            "承包人应在知道索赔事件后28天内发出索赔通知",
            "自收到通知之日起14天内",
            "逾期未发出的，丧失要求追加付款的权利",
            "工程师应在42天内答复",
            "3 months",
            ". ",
            "; ",
            "。",
            "\n",
            " ",
            ", ",
        ]);
    prop::collection::vec(pieces.prop_map(str::to_string), 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The linear analysis gives exactly what the first version gave.
    #[test]
    fn the_linear_analysis_matches_the_first_version(
        text in pieces(),
        gc in pieces(),
        our_party in prop::sample::select(vec!["", "Contractor", "承包人", "Employer"]),
    ) {
        prop_assert_eq!(
            analyse("20.1", &text, &gc, "gc_with_pc", our_party),
            reference::analyse("20.1", &text, &gc, "gc_with_pc", our_party)
        );
        // The General Conditions as the same text with other periods: every limit is
        // compared with the one the PC changed.
        let changed = text.replace("28", "21").replace("42", "35");
        prop_assert_eq!(
            analyse("20.1", &changed, &text, "gc_with_pc", our_party),
            reference::analyse("20.1", &changed, &text, "gc_with_pc", our_party)
        );
    }
}

/// A word of letters only, distinct for each `n` (`context_words` keeps letters only).
fn letters(mut n: usize) -> String {
    let mut out = String::new();
    loop {
        out.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
        if n == 0 {
            return out;
        }
    }
}

#[test]
fn past_the_window_each_limit_still_meets_its_general_conditions_limit() {
    let count = MAX_GC_LIMITS_COMPARED + 200;
    let sentence = |i: usize, days: u32| {
        let a = letters(i * 3 + 1000);
        let b = letters(i * 3 + 1001);
        let c = letters(i * 3 + 1002);
        format!("The Contractor shall submit the {a}x {b}x {c}x report within {days} days. ")
    };
    let gc: String = (0..count).map(|i| sentence(i, 28)).collect();
    let pc: String = (0..count)
        .map(|i| sentence(i, if i % 2 == 0 { 14 } else { 42 }))
        .collect();
    let report = analyse("1.1", &pc, &gc, "gc_with_pc", "Contractor");
    assert_eq!(report.time_limit_count, count);
    assert!(report.time_limits.iter().all(|l| l.gc_days == Some(28)));
    assert_eq!(report.shortened_count, count.div_ceil(2));
    assert_eq!(
        report,
        reference::analyse("1.1", &pc, &gc, "gc_with_pc", "Contractor")
    );
}

#[test]
fn many_limits_in_one_long_sentence_are_each_read() {
    // No full stop: one sentence of thousands of limits, each read against it once.
    let text = "the Contractor shall give notice within 28 days, failing which it shall not be entitled to payment, "
            .repeat(3_000);
    let report = analyse("20.1", &text, &text, "gc", "Contractor");
    assert_eq!(report.time_limit_count, 3_000);
    assert_eq!(report.time_bar_count, 3_000);
    for l in &report.time_limits {
        assert_eq!(l.party.as_deref(), Some("Contractor"));
        assert_eq!(l.requirement, "within");
        assert_eq!(l.sentence.chars().count(), 301);
        assert_eq!(l.gc_days, None);
    }
}

#[test]
fn the_chinese_trigger_window_keeps_every_possible_match() {
    let long = format!("{}在监理人发出通知之日起", "甲".repeat(500));
    assert_eq!(
        zh_trigger_window(&long).chars().count(),
        ZH_TRIGGER_MAX_CHARS
    );
    let spaced = format!("{long}   ");
    assert_eq!(
        ZH_TRIGGER
            .captures(zh_trigger_window(&spaced))
            .map(|c| c[1].to_string()),
        ZH_TRIGGER.captures(&spaced).map(|c| c[1].to_string())
    );
    let longest = format!("在{}之日起", "乙".repeat(60));
    assert_eq!(
        ZH_TRIGGER
            .captures(zh_trigger_window(&format!("丙丙{longest}")))
            .map(|c| c[1].chars().count()),
        Some(60)
    );
    assert_eq!(zh_trigger_window("短"), "短");
}
