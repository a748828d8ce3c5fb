//! Termination: for convenience (without cause, at any time on notice) and its consequences;
//! for default (breach, insolvency) and what the defaulting party pays; automatic renewal
//! unless notice is given in time.

use std::sync::LazyLock;

use regex::Regex;

use super::{actor_at, find, party_just_before, quoted, Bound, Hit, Provision, Weight, Window};

static TERMINATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"terminat|cancel|withdraw\s+from|put\s+an\s+end\s+to|解除|终止").unwrap()
});

/// Termination without cause.
static CONVENIENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"for\s+(?:its|their|his|the\s+\w+'s|\w+'s)?\s*(?:own\s+)?convenience|without\s+cause|with\s+or\s+without\s+cause|for\s+any\s+reason|for\s+no\s+reason|without\s+(?:assigning|giving|stating|providing)\s+(?:any\s+)?reasons?",
        r"|at\s+(?:its|their|his)\s+(?:sole\s+|absolute\s+)?(?:discretion|option|election)",
        r"|(?:may|shall\s+have\s+the\s+right\s+to|is\s+entitled\s+to|will\s+have\s+the\s+right\s+to)\s+(?:voluntarily\s+)?withdraw\s+from[^.;]{0,60}at\s+any\s+time",
        r"|随时[^。；]{0,15}(?:解除|终止)|(?:无需|无须|不需)[^。；]{0,10}(?:理由|原因)[^。；]{0,15}(?:解除|终止)|(?:为|出于)(?:其)?(?:自身)?便利[^。；]{0,10}(?:解除|终止)",
    ))
    .unwrap()
});

/// Termination on notice alone: without cause unless the sentence names one.
static ON_NOTICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:terminat\w*|at\s+any\s+time)[^.;]{0,160}?(?:by|upon|on|with|after|giving)\s+(?:giving\s+|providing\s+|serving\s+)?(?:at\s+least\s+|not\s+less\s+than\s+|no\s+less\s+than\s+|not\s+fewer\s+than\s+|a\s+minimum\s+of\s+)?(?:\w+\s+)?(?:\(\d+\)\s+)?(?:calendar\s+|business\s+|working\s+)?(?:days?|weeks?|months?|years?)['’]?s?\s+(?:\w+\s+)?(?:prior\s+|advance\s+)?(?:written\s+)?notice",
        r"|提前[^。；]{0,10}(?:天|日|个月)[^。；]{0,10}(?:书面)?通知[^。；]{0,15}(?:解除|终止)",
    ))
    .unwrap()
});

/// A right (or an agreed way) to end the contract.
static TERMINATION_RIGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:\bmay|\bcan|shall\s+(?:have\s+the\s+right|be\s+entitled)|will\s+have\s+the\s+right|has\s+the\s+right|have\s+the\s+right|is\s+entitled|are\s+entitled|right\s+to|entitled\s+to|option\s+to|elect\s+to)\b[^.;]{0,100}?(?:terminat|cancel|withdraw|exit|end\s+this)",
        r"|(?:may|can)\s+be\s+terminated|(?:有权|可以|可|得)[^。；]{0,20}(?:解除|终止)",
        // "unless sooner terminated by either party on ninety days' notice": the term runs
        // unless a party ends it first, a right written in the passive.
        r"|(?:sooner|earlier|previously)\s+terminated\s+by\s+(?:either|any|each|the|a)\b",
    ))
    .unwrap()
});

/// Cause: breach, default, insolvency.
static CAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\bbreach|default|fails?\s+to|failure\s+to|insolven|bankrupt|liquidat|receiver|winding[- ]up|abandon|repudiat|violat|force\s+majeure|not\s+(?:been\s+)?(?:cured|remedied)|change\s+(?:of|in)\s+control|convicted|fraud",
        r"|违约|违反|未能|不能履行|破产|清算|不可抗力|拖延|逾期[^。；]{0,10}(?:未|不)",
    ))
    .unwrap()
});

/// What the party in default must pay or give up.
static DEFAULT_PAYS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:pay|reimburse|indemnif|compensate|bear|liable\s+for|responsible\s+for)[^.;]{0,120}(?:excess|additional|extra|difference|cost\s+of\s+completi|costs?\s+of\s+(?:completing|procur|re-?procur|replac)|all\s+(?:losses|damages|costs)|loss(?:es)?\s+and\s+damages?|damages)",
        r"|forfeit|(?:call|draw|encash)[^.;]{0,40}(?:security|bond|guarantee)|(?:no|not\s+be\s+entitled\s+to)[^.;]{0,40}(?:further\s+)?payment",
        r"|(?:赔偿|承担)[^。；]{0,30}(?:损失|费用|违约金)|没收[^。；]{0,10}(?:保证金|履约)|(?:不予|无权)[^。；]{0,10}(?:支付|退还)",
    ))
    .unwrap()
});

/// What the terminating side must pay on a termination for convenience.
static COMPENSATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:pay|reimburse|compensat)[^.;]{0,120}(?:work\s+(?:performed|done|carried)|costs?\s+(?:incurred|of\s+demobili)|demobili|loss\s+of\s+profit|lost\s+profit|termination\s+fee|break\s+fee|value\s+of|unamortized|wind[- ]down)|补偿|赔偿[^。；]{0,20}(?:损失|费用)|支付[^。；]{0,20}(?:已完成|已完工|费用)").unwrap()
});

/// Automatic renewal unless notice is given.
static RENEWAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"automatic(?:ally)?\s+(?:be\s+)?(?:renew|extend|extension|continu)|auto-?renew|(?:renew|extend)(?:ed|s)?\s+(?:automatically|for\s+(?:successive|additional|further|consecutive|subsequent)|from\s+year\s+to\s+year|on\s+(?:a|an)\s+(?:annual|yearly))",
        r"|notice\s+of\s+(?:its\s+)?(?:intention\s+)?(?:not\s+to\s+renew|non-?\s?renewal)|non-?\s?renewal|elect\s+not\s+to\s+(?:renew|extend)|(?:intent|intention|wish|desire)\s+(?:not\s+)?to\s+(?:renew|extend|terminate)[^.;]{0,80}(?:expir|end\s+of\s+the|initial\s+term|renewal\s+term|term)",
        r"|自动(?:续期|延期|续展|顺延|延长|续约)|期满[^。；]{0,30}(?:续签|续期|延长|续约)[^。；]{0,30}(?:通知|提出|申请)|(?:续签|延长)[^。；]{0,20}(?:期满前|到期前)[^。；]{0,20}(?:提出|通知|申请)",
    ))
    .unwrap()
});

pub(super) fn scan(window: &Window<'_>, hits: &mut Vec<Hit>) {
    let s = window.this();
    let lower = &s.lower;
    if let Some(r) = find(&RENEWAL, s) {
        hits.push(Hit::new(
            Provision::RenewalNotice,
            Bound::Mutual,
            format!(
                "The term renews unless notice is given in time (\"{}\")",
                quoted(r.as_str())
            ),
            "missing the notice date commits the parties to a further term",
            s.text.clone(),
        ));
    }
    let Some(term) = find(&TERMINATE, s) else {
        return;
    };
    // A list item ("(b) an Operator Change of Control") belongs to the lead-in before it.
    let lead_in = window
        .previous()
        .filter(|p| TERMINATE.is_match(&p.lower) && p.text.trim_end().ends_with(':'));
    let holder = |at: usize| actor_at(s, at);
    // The right may sit in a lead-in ("X may terminate the Term by notice: … (b) for
    // convenience").
    let right = TERMINATION_RIGHT.is_match(lower)
        || window.previous().is_some_and(|p| {
            TERMINATION_RIGHT.is_match(&p.lower) && p.text.trim_end().ends_with([':', ';', '：'])
        });
    let explicit = find(&CONVENIENCE, s);
    let on_notice = || find(&ON_NOTICE, s).filter(|_| !CAUSE.is_match(lower));
    if let Some(c) = explicit.or_else(on_notice).filter(|_| right) {
        let following: Vec<&str> = window.next(2).iter().map(|n| n.lower.as_str()).collect();
        let compensated =
            COMPENSATION.is_match(lower) || following.iter().any(|n| COMPENSATION.is_match(n));
        let consequence = if compensated {
            "; the terminating party pays for work done or costs"
        } else {
            "; no compensation is stated"
        };
        hits.push(Hit {
            bound_benefits: true,
            weight: if compensated { Weight::Milder } else { Weight::Usual },
            ..Hit::new(
                Provision::TerminationForConvenience,
                holder(term.start()),
                format!("Termination without cause (\"{}\"){consequence}", quoted(c.as_str())),
                "the other side can end the contract without any default, losing the rest of the bargain",
                s.text.clone(),
            )
        });
        return;
    }
    let cause = find(&CAUSE, s).or_else(|| lead_in.and_then(|_| CAUSE.find(lower)));
    if let Some(cause) = cause {
        let pays = find(&DEFAULT_PAYS, s)
            .map(|m| m.as_str().to_string())
            .or_else(|| {
                window
                    .next(2)
                    .iter()
                    .find_map(|n| DEFAULT_PAYS.find(&n.lower).map(|m| m.as_str().to_string()))
            });
        // The party in default is named next to the cause ("if the Contractor fails to").
        let defaulting = party_just_before(s, cause.start());
        let (weight, consequence) = match &pays {
            Some(p) => (
                Weight::Graver,
                format!("; the defaulting party pays (\"{}\")", quoted(p)),
            ),
            None => (Weight::Usual, String::new()),
        };
        let quote = match lead_in {
            Some(p) => format!("{} … {}", p.text, s.text),
            None => s.text.clone(),
        };
        hits.push(Hit {
            weight,
            ..Hit::new(
                Provision::TerminationForDefault,
                defaulting,
                format!("Termination for default (\"{}\"){consequence}", quoted(cause.as_str())),
                "a termination for default ends the contract and shifts the cost of completion to the party in default",
                quote,
            )
        });
    }
}
