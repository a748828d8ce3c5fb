//! Liability: caps, exclusions carved out of a cap, unlimited liability, and liquidated or
//! delay damages with or without a maximum.

use std::sync::LazyLock;

use regex::Regex;

use super::{actor_at, find, quoted, subject, Bound, Hit, Provision, Weight, Window};

/// Words that cap or exclude liability.
static CAP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:liabilit(?:y|ies)|liable|damages|recovery|compensation)[^.;]{0,200}?(?:shall\s+not\s+(?:in\s+(?:the\s+)?aggregate\s+)?exceed|not\s+to\s+exceed|will\s+not\s+exceed|(?:shall|will|is|be)\s+(?:be\s+)?limited\s+to|capped\s+at|in\s+excess\s+of|exceed(?:ing)?\s+(?:the\s+)?(?:lesser|greater|amount|total|sum|aggregate))",
        r"|(?:aggregate|total|cumulative|maximum|entire)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,2}liabilit(?:y|ies)",
        r"|limitations?\s+(?:of|on)\s+liabilit(?:y|ies)|(?:cap|ceiling|limit)\s+on\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,2}liabilit(?:y|ies)",
        r"|(?:in\s+no\s+event|under\s+no\s+circumstances)[^.;]{0,200}?(?:liable|liability|responsible)",
        r"|(?:shall|will)\s+not\s+be\s+(?:liable|responsible)[^.;]{0,120}?(?:indirect|consequential|special|incidental|punitive|exemplary|lost\s+profits?|loss\s+of\s+(?:profits?|revenue|business|use|data))",
        r"|(?:shall|will)\s+not\s+be\s+(?:held\s+)?(?:liable|responsible)\s+(?:to\s+[^.;]{0,60}?)?for\s+any",
        r"|(?:exclude|disclaim)s?\s+(?:all\s+)?(?:liability|responsibility)\s+for[^.;]{0,80}?(?:indirect|consequential)",
        r"|(?:赔偿|责任|违约金)[^。；]{0,20}(?:总额|上限|限额|最高|累计)|(?:总额|累计|最高)[^。；]{0,20}不(?:得|应)?超过[^。；]{0,30}(?:赔偿|责任|违约金)|不(?:得|应)?超过[^。；]{0,20}(?:赔偿|责任)(?:总额|上限)|(?:间接损失|可得利益|利润损失)[^。；]{0,20}不(?:承担|负责|负赔偿)",
    ))
    .unwrap()
});

/// Liabilities carved out of a cap.
static CARVE_OUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:except|excluding|exclusive\s+of|other\s+than|save\s+(?:for|in)|with\s+the\s+exception\s+of|shall\s+not\s+apply\s+to|does\s+not\s+apply\s+to|will\s+not\s+apply\s+to|not\s+(?:limit|exclude|restrict)|nothing\s+in)",
        r"[^.;]{0,300}?(?:gross(?:ly)?\s+neglig|wil(?:l)?ful|intentional|fraud|indemnif|confidential|death|personal\s+injur|bodily\s+injur|infring|intellectual\s+property|section|article|clause|paragraph|breach\s+of)",
        r"|(?:故意|重大过失|欺诈|人身伤害|死亡)[^。；]{0,30}(?:除外|不受[^。；]{0,10}限制|不适用)",
    ))
    .unwrap()
});

/// Liability expressly without limit.
static UNLIMITED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"unlimited\s+liabilit|liabilit(?:y|ies)\s+(?:shall\s+be\s+|is\s+|will\s+be\s+)?unlimited|without\s+(?:any\s+)?(?:limit|limitation|cap)\s+(?:as\s+to\s+amount|of\s+(?:its\s+)?liabilit|on\s+(?:its\s+)?liabilit)",
        r"|no\s+(?:limit|limitation|cap)\s+(?:on|of|to)\s+(?:the\s+)?(?:\w+\s+)?liabilit|there\s+shall\s+be\s+no\s+limitation|(?:shall|will)\s+not\s+be\s+(?:subject\s+to\s+(?:any|the)\s+(?:limitation|cap)|limited\s+(?:in|as\s+to)\s+amount)",
        r"|(?:excludes?|limits?)\s+(?:or\s+(?:limits?|excludes?)\s+)?any\s+liabilit[^.;]{0,60}?(?:death|personal\s+injury|fraud)",
        r"|(?:fully|solely|wholly)\s+(?:liable|responsible)\s+for\s+(?:any\s+and\s+)?all\s+(?:losses|damages|claims|liabilities)|liable\s+for\s+(?:any\s+and\s+)?all\s+(?:losses|damages|costs)",
        r"|无限(?:连带)?责任|不受[^。；]{0,20}(?:限额|上限|限制)[^。；]{0,10}(?:赔偿|责任)|(?:赔偿|承担)[^。；]{0,10}(?:全部|一切|所有)(?:经济)?损失",
    ))
    .unwrap()
});

/// Liquidated, delay or agreed damages, and penalties for delay.
static LIQUIDATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"liquidated\s+damages|delay\s+damages|damages\s+for\s+(?:delay|late|each\s+day)|agreed\s+damages|pre-?estimate\s+of\s+(?:the\s+)?(?:loss|damage)",
        r"|(?:for|of)\s+each\s+(?:calendar\s+|working\s+|business\s+)?(?:day|week|month)\s+(?:of\s+delay|(?:or\s+part\s+thereof\s+)?(?:by\s+which|that|of\s+late))|per\s+(?:calendar\s+)?(?:day|week)\s+of\s+(?:delay|late)",
        r"|penalt(?:y|ies)\s+(?:for|of)\s+(?:delay|late|non-?performance)|(?:delay|late)\s+(?:penalt|payment\s+charge)",
        r"|违约金|误期(?:损害)?赔偿|逾期(?:完工|竣工|交付|交货)?[^。；]{0,20}(?:每日|每天|每延误|按日)|(?:每延误|每逾期|迟延)[^。；]{0,10}(?:一|1)?\s*(?:日|天)",
    ))
    .unwrap()
});

/// A maximum on liquidated damages.
static LD_CAP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"maximum|not\s+(?:to\s+)?exceed|shall\s+not\s+exceed|capped|\bcap\b|\blimit(?:ed)?\s+(?:to|of)|up\s+to\s+(?:a\s+)?(?:total|maximum|aggregate)|in\s+aggregate|aggregate\s+(?:amount|liability)|最高|不超过|不得超过|上限|累计[^。；]{0,10}(?:不|以)").unwrap()
});

/// "liability of the Contractor", "责任" has no such form.
static LIABILITY_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i:liabilit(?:y|ies))\s+of\s+(?:the\s+)?([A-Z][A-Za-z&\-]+)").unwrap()
});

/// Words of paying.
static PAY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bpay\b|\bpays\b|\bpaid\b|\bpayment|\bpayable|\bliable\b|\bdeduct|\bforfeit|\bowe|\bcharge|(?:recover|claim|receive)\s+(?:from|as)|支付|赔偿|承担|缴付|交纳").unwrap()
});

pub(super) fn scan(window: &Window<'_>, hits: &mut Vec<Hit>) {
    let s = window.this();
    let lower = &s.lower;
    let cap = find(&CAP, s);
    let carve = cap.is_some().then(|| find(&CARVE_OUT, s)).flatten();
    let unlimited = find(&UNLIMITED, s);
    let liable = |at: usize| match actor_at(s, at) {
        Bound::Unknown => subject(&s.text),
        other => other,
    };
    if let Some(m) = unlimited.or(carve) {
        let bound = liable(m.start());
        let words = quoted(m.as_str());
        let description = if unlimited.is_some() {
            format!("Liability without a cap (\"{words}\")")
        } else {
            format!("The liability cap does not cover some liabilities (\"{words}\")")
        };
        hits.push(Hit::new(
            Provision::UncappedLiability,
            bound,
            description,
            "liability outside any cap is unlimited exposure for the party that bears it",
            s.text.clone(),
        ));
    }
    if let Some(m) = cap {
        // "the total liability of the Contractor": the party named after "liability of".
        let bound = match LIABILITY_OF.captures(&s.text).and_then(|c| c.get(1)) {
            Some(name) if !name.as_str().eq_ignore_ascii_case("either") => {
                Bound::Party(name.as_str().to_string())
            }
            _ => liable(m.start()),
        };
        // A cap protects the liable party: it binds the side that cannot recover more.
        hits.push(Hit {
            bound_benefits: true,
            ..Hit::new(
                Provision::LiabilityCap,
                bound,
                format!("Liability is capped or excluded (\"{}\")", quoted(m.as_str())),
                "a cap or exclusion limits what the other side can recover; check its amount and what it leaves out",
                s.text.clone(),
            )
        });
    }
    if let Some(m) = find(&LIQUIDATED, s) {
        // "not liable for liquidated damages" is a cap or an exclusion, not a charge.
        let denies = lower.contains("no liquidated damages")
            || lower.contains("not be liable for liquidated")
            || !PAY.is_match(lower);
        if !denies {
            let following: Vec<&str> = window.next(2).iter().map(|n| n.lower.as_str()).collect();
            let capped = LD_CAP.is_match(lower)
                || following
                    .iter()
                    .any(|n| LD_CAP.is_match(n) && LIQUIDATED.is_match(n));
            let bound = PAY
                .find(lower)
                .map_or(Bound::Unknown, |p| actor_at(s, p.start()));
            let (weight, description, reason) = if capped {
                (
                    Weight::Milder,
                    format!("Liquidated damages (\"{}\") with a stated maximum", quoted(m.as_str())),
                    "liquidated damages are payable without proof of loss; check the rate and the maximum",
                )
            } else {
                (
                    Weight::Usual,
                    format!("Liquidated damages (\"{}\") with no stated maximum", quoted(m.as_str())),
                    "liquidated damages without a maximum expose the paying party to unlimited liability",
                )
            };
            hits.push(Hit {
                weight,
                ..Hit::new(
                    Provision::LiquidatedDamages,
                    bound,
                    description,
                    reason,
                    s.text.clone(),
                )
            });
        }
    }
}
