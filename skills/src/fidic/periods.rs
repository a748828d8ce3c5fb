//! Time limits written in contract text ("within 28 days after ...", "not later than 42 days",
//! "28天内") and the periods the FIDIC forms usually give for the same step.

use std::sync::LazyLock;

use regex::Regex;

use crate::document::chinese_numeral;

/// A time limit found in text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundPeriod {
    /// Length in days (weeks x 7, months x 30, years x 365).
    pub days: u32,
    /// The number as written.
    pub amount: u32,
    /// The unit as written (`days`, `weeks`, `天`, `个月`).
    pub unit: String,
    /// The period as written (`28 days`, `28天`).
    pub raw: String,
    /// Byte range in the text.
    pub start: usize,
    /// End of the match.
    pub end: usize,
}

static EN_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\(?\b(\d{1,4})\)?\s*(?:calendar\s+|working\s+|business\s+)?(days?|weeks?|months?|years?)\b").unwrap()
});
static ZH_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d{1,4}|[一二三四五六七八九十百]+)\s*(?:个)?(?:日历|工作)?(天|日|周|个月|年)")
        .unwrap()
});

/// Every time limit in `text`, in order.
pub fn find_periods(text: &str) -> Vec<FoundPeriod> {
    let mut out = Vec::new();
    for c in EN_PERIOD.captures_iter(text) {
        let whole = c.get(0).expect("match");
        let amount: u32 = c[1].parse().unwrap_or(0);
        let unit = c[2].to_lowercase();
        out.push(found(amount, &unit, whole));
    }
    for c in ZH_PERIOD.captures_iter(text) {
        let whole = c.get(0).expect("match");
        let before = text[..whole.start()].chars().next_back();
        let after = text[whole.end()..].chars().next();
        // Dates (2025年3月1日) are not periods.
        if before.is_some_and(|b| b.is_ascii_digit() || b == '年' || b == '月' || b == '第')
            || after.is_some_and(|a| a.is_ascii_digit() || a == '月')
        {
            continue;
        }
        let amount = c[1]
            .parse()
            .ok()
            .or_else(|| chinese_numeral(&c[1]))
            .unwrap_or(0);
        let unit = if whole.as_str().contains("个月") {
            "个月".to_string()
        } else {
            c[2].to_string()
        };
        out.push(found(amount, &unit, whole));
    }
    out.retain(|p| p.amount > 0);
    out.sort_by_key(|p| p.start);
    out
}

fn found(amount: u32, unit: &str, whole: regex::Match<'_>) -> FoundPeriod {
    let factor = match unit {
        u if u.starts_with("week") || u == "周" => 7,
        u if u.starts_with("month") || u == "个月" => 30,
        u if u.starts_with("year") || u == "年" => 365,
        _ => 1,
    };
    FoundPeriod {
        days: amount * factor,
        amount,
        unit: unit.to_string(),
        raw: whole.as_str().trim().to_string(),
        start: whole.start(),
        end: whole.end(),
    }
}

/// A period the FIDIC forms give for one step, stated in our own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StandardPeriod {
    /// Short key (`notice_of_claim`).
    pub key: &'static str,
    /// What the period is for.
    pub description: &'static str,
    /// Where the forms put it.
    pub reference: &'static str,
    /// Length in days.
    pub days: u32,
    /// Whether missing it loses a right (a time bar).
    pub time_bar: bool,
    /// Word groups: the step matches a sentence holding every word of one group.
    pub cues: &'static [&'static [&'static str]],
}

/// Typical periods of the FIDIC 1999/2017 Red and Yellow Books. Order matters: more specific
/// steps come first.
pub(crate) const STANDARD_PERIODS: &[StandardPeriod] = &[
    StandardPeriod {
        key: "notice_of_dissatisfaction",
        description: "notice of dissatisfaction with a DAB/DAAB decision",
        reference: "GC 20.4 (1999) / 21.4.4 (2017)",
        days: 28,
        time_bar: true,
        cues: &[&["dissatisfaction"], &["不满"]],
    },
    StandardPeriod {
        key: "dab_decision",
        description: "DAB/DAAB gives its decision after a dispute is referred",
        reference: "GC 20.4 (1999) / 21.4.3 (2017)",
        days: 84,
        time_bar: false,
        cues: &[
            &["decision", "dab"],
            &["decision", "daab"],
            &["decision", "dispute"],
            &["争议", "决定"],
        ],
    },
    StandardPeriod {
        key: "amicable_settlement",
        description: "attempt at amicable settlement before arbitration",
        reference: "GC 20.5 (1999) / 21.5 (2017)",
        days: 56,
        time_bar: false,
        cues: &[&["amicable"], &["友好"]],
    },
    StandardPeriod {
        key: "engineer_response_to_claim",
        description: "Engineer responds to a claim (agreement or determination)",
        reference: "GC 20.1 (1999) / 3.7.3 (2017)",
        days: 42,
        time_bar: false,
        cues: &[
            &["engineer", "respond"],
            &["engineer", "determination"],
            &["监理人", "答复"],
            &["工程师", "答复"],
            &["监理人", "审查"],
            &["工程师", "审查"],
        ],
    },
    StandardPeriod {
        key: "fully_detailed_claim",
        description: "fully detailed claim after the Contractor became aware of the event",
        reference: "GC 20.2.4 (2017); 42 days in GC 20.1 (1999)",
        days: 84,
        time_bar: true,
        cues: &[
            &["fully detailed"],
            &["detailed claim"],
            &["索赔报告"],
            &["详细"],
        ],
    },
    StandardPeriod {
        key: "notice_of_claim",
        description: "notice of claim after the party became aware of the event",
        reference: "GC 20.1 (1999) / 20.2.1 (2017)",
        days: 28,
        time_bar: true,
        cues: &[&["notice", "claim"], &["索赔", "通知"]],
    },
    StandardPeriod {
        key: "performance_security",
        description: "Contractor delivers the Performance Security after the Letter of Acceptance",
        reference: "GC 4.2",
        days: 28,
        time_bar: false,
        cues: &[&["performance security"], &["履约担保"], &["履约保函"]],
    },
    StandardPeriod {
        key: "programme",
        description: "Contractor submits the initial programme after the Commencement Date",
        reference: "GC 8.3",
        days: 28,
        time_bar: false,
        cues: &[&["programme"], &["进度计划"]],
    },
    StandardPeriod {
        key: "commencement",
        description: "Commencement Date after the Letter of Acceptance",
        reference: "GC 8.1",
        days: 42,
        time_bar: false,
        cues: &[&["commencement"], &["开工"]],
    },
    StandardPeriod {
        key: "taking_over_certificate",
        description: "Engineer issues or rejects the Taking-Over Certificate after the application",
        reference: "GC 10.1",
        days: 28,
        time_bar: false,
        cues: &[&["taking-over certificate"], &["接收证书"]],
    },
    StandardPeriod {
        key: "ipc_issue",
        description: "Engineer issues an Interim Payment Certificate after receiving the Statement",
        reference: "GC 14.6",
        days: 28,
        time_bar: false,
        cues: &[
            &["issue", "interim payment certificate"],
            &["签发", "进度付款证书"],
            &["签发", "期中付款证书"],
        ],
    },
    StandardPeriod {
        key: "final_payment",
        description: "Employer pays the Final Payment Certificate after receiving it",
        reference: "GC 14.7(c)",
        days: 56,
        time_bar: false,
        cues: &[
            &["pay", "final payment certificate"],
            &["支付", "最终付款证书"],
        ],
    },
    StandardPeriod {
        key: "interim_payment",
        description:
            "Employer pays an Interim Payment Certificate after the Engineer receives the Statement",
        reference: "GC 14.7(b)",
        days: 56,
        time_bar: false,
        cues: &[
            &["pa", "interim payment"],
            &["支付", "进度款"],
            &["支付", "期中付款"],
        ],
    },
    StandardPeriod {
        key: "statement_at_completion",
        description: "Statement at Completion after the Taking-Over Certificate",
        reference: "GC 14.10",
        days: 84,
        time_bar: false,
        cues: &[&["statement at completion"], &["竣工结算"]],
    },
    StandardPeriod {
        key: "suspension_notice",
        description: "Contractor's notice before suspending or slowing work for non-payment",
        reference: "GC 16.1",
        days: 21,
        time_bar: false,
        cues: &[&["suspend"], &["暂停"]],
    },
    StandardPeriod {
        key: "termination_notice",
        description: "notice before the Employer terminates for Contractor default",
        reference: "GC 15.2",
        days: 14,
        time_bar: false,
        cues: &[&["terminat"], &["解除"]],
    },
    StandardPeriod {
        key: "defects_notification_period",
        description: "Defects Notification Period (default where the Contract Data is silent)",
        reference: "GC 1.1 / Contract Data",
        days: 365,
        time_bar: false,
        cues: &[
            &["defects notification period"],
            &["缺陷责任期"],
            &["缺陷通知期"],
        ],
    },
];

/// The standard step a sentence describes, if one is recognised.
pub fn standard_for(sentence: &str) -> Option<&'static StandardPeriod> {
    standard_for_lower(&sentence.to_lowercase())
}

/// [`standard_for`] of a sentence already lower-cased.
pub(crate) fn standard_for_lower(lower: &str) -> Option<&'static StandardPeriod> {
    STANDARD_PERIODS.iter().find(|s| {
        s.cues
            .iter()
            .any(|group| group.iter().all(|w| lower.contains(w)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_in_english_and_chinese() {
        let p = find_periods("within twenty-eight (28) days, then 6 weeks, 12 months; 承包商应在28天内通知，于2025年3月1日前，缺陷责任期为十二个月");
        let summary: Vec<(u32, &str)> = p.iter().map(|p| (p.days, p.unit.as_str())).collect();
        assert_eq!(
            summary,
            [
                (28, "days"),
                (42, "weeks"),
                (360, "months"),
                (28, "天"),
                (360, "个月")
            ]
        );
    }

    #[test]
    fn standard_steps_are_recognised() {
        assert_eq!(
            standard_for("the Contractor shall give notice of the claim within 28 days")
                .unwrap()
                .key,
            "notice_of_claim"
        );
        assert_eq!(
            standard_for("send a fully detailed claim within 84 days")
                .unwrap()
                .key,
            "fully_detailed_claim"
        );
        assert_eq!(standard_for("the Employer shall pay the amount certified in each Interim Payment Certificate within 56 days").unwrap().key, "interim_payment");
        assert_eq!(
            standard_for("承包商应在28天内发出索赔意向通知书")
                .unwrap()
                .key,
            "notice_of_claim"
        );
        assert!(standard_for("the Contractor shall maintain records").is_none());
    }
}
