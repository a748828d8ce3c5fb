//! Notice and claim periods that are conditions of recovery (time bars): a time limit for a
//! notice, claim or objection, and a consequence that takes the right away when it is missed,
//! in the same sentence or the next ones ("within 20 days … failing which", "promptly and
//! before the conditions are disturbed … no adjustment shall be allowed unless", "逾期未提出
//! 的，视为…").

use std::sync::LazyLock;

use regex::Regex;

use super::{actor_at, find, quoted, Hit, Provision, Sentence, Window};

/// A time limit on a notice, claim, request or objection.
static TIME_LIMIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:within|not\s+later\s+than|no\s+later\s+than|not\s+more\s+than|before\s+the\s+expiry\s+of|by\s+the\s+end\s+of)\s+(?:the\s+)?(?:\w+\s+)?(?:\(\d+\)\s+)?(?:calendar\s+|business\s+|working\s+|banking\s+)?(?:days?|weeks?|months?|hours?)",
        r"|\b(?:promptly|forthwith|immediately|without\s+(?:undue\s+)?delay|as\s+soon\s+as\s+(?:reasonably\s+)?practicable)\b",
        r"|before\s+(?:such\s+|the\s+)?(?:conditions?|site|ground|work)[^.;]{0,30}(?:disturbed|altered|covered)",
        r"|\d+\s*(?:个)?(?:天|日|小时|个月)(?:之|以)?内|(?:及时|立即|尽快)|[一二三四五六七八九十百]+\s*(?:天|日|个月)(?:之|以)?内",
    ))
    .unwrap()
});

/// The act the time limit applies to.
static ACT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"notice|notif|claim|request|object|dispute|submit|written\s+statement|proposal\s+for\s+adjustment|assert|通知|索赔|提出|异议|报告|申请|确认|答复|签证").unwrap()
});

/// What missing the limit costs.
static FORFEIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"failing\s+which|in\s+default\s+of\s+which|if\s+(?:the\s+\w+\s+)?fails?\s+to\s+(?:give|submit|notify|make|serve)|otherwise[^.;]{0,80}(?:waive|not\s+be\s+entitled|deemed|barred|lose)",
        r"|(?:deemed|considered)\s+(?:to\s+have\s+(?:been\s+)?)?(?:waived|accepted|approved|agreed|released)|(?:shall|will)\s+(?:be\s+deemed\s+to\s+)?waive|waives?\s+(?:any|all|its|the)\s+(?:right|claim)",
        r"|(?:shall|will)\s+not\s+be\s+entitled|no\s+longer\s+be\s+entitled|forfeits?|(?:shall|will)\s+lose\s+(?:any|all|its|the)\s+right|(?:is|are|be|shall\s+be)\s+(?:time[- ])?barred|condition\s+precedent",
        r"|(?:no|not)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,6}(?:claim|request|adjustment|extension|compensation|payment|increase)[^.;]{0,100}(?:allowed|considered|entertained|made|granted|paid|payable|accepted|valid)[^.;]{0,80}unless|unless[^.;]{0,120}(?:notice|notif|claim|request)[^.;]{0,60}(?:within|promptly|before|not\s+later)",
        r"|shall\s+be\s+(?:released|discharged)\s+from\s+(?:all\s+)?liabilit|(?:not|no)\s+(?:be\s+)?liable\s+(?:for|in\s+respect\s+of)\s+any\s+claim",
        r"|视为|逾期[^。；]{0,20}(?:不予|丧失|无权|不再|不得|失去)|丧失[^。；]{0,10}(?:权利|索赔)|不予(?:受理|赔偿|补偿|支付|认可|顺延)|(?:无权|不得)[^。；]{0,10}(?:要求|提出|索赔)",
    ))
    .unwrap()
});

fn limit_in(s: &Sentence) -> Option<regex::Match<'_>> {
    find(&TIME_LIMIT, s).filter(|_| ACT.is_match(&s.lower))
}

pub(super) fn scan(window: &Window<'_>, hits: &mut Vec<Hit>) {
    let s = window.this();
    let Some(limit) = limit_in(s) else {
        return;
    };
    // The consequence: this sentence, or one of the next two about the same notice or claim.
    let mut quote = s.text.clone();
    let consequence = match find(&FORFEIT, s) {
        Some(m) => Some(m.as_str().to_string()),
        None => window
            .next(2)
            .iter()
            .find(|n| ACT.is_match(&n.lower) && FORFEIT.is_match(&n.lower))
            .and_then(|n| {
                let m = FORFEIT.find(&n.lower)?;
                quote = format!("{} … {}", s.text, n.text);
                Some(m.as_str().to_string())
            }),
    };
    let Some(consequence) = consequence else {
        return;
    };
    // A limit the other side must keep ("the Employer shall respond within 28 days, failing
    // which … deemed approved") binds that side; the actor of the limit is the one bound.
    let bound = actor_at(s, limit.start());
    hits.push(Hit::new(
        Provision::NoticeTimeBar,
        bound,
        format!(
            "Notice or claim period \"{}\" with a consequence if missed (\"{}\")",
            quoted(limit.as_str()),
            quoted(&consequence)
        ),
        "a notice or claim period that is a condition of recovery: missing it loses the right",
        quote,
    ));
}
