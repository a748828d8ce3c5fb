//! Restrictive covenants: non-compete and exclusivity.

use std::sync::LazyLock;

use regex::Regex;

use super::{actor_at, find, quoted, subject, Bound, Hit, Provision, Window};

static NON_COMPETE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"non-?\s?compet|not\s+(?:to\s+)?(?:directly\s+or\s+indirectly\s+)?compete|(?:engage|participate|invest|be\s+(?:interested|involved|concerned))\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,8}in\s+(?:any\s+)?(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,4}(?:business|activit|venture|transaction)[^.;]{0,80}(?:compet|similar|same\s+as|rival)",
        r"|(?:not|neither|nor)\b[^.;]{0,200}?\b(?:engage|carry\s+on|conduct|open|operate|establish|own|manage|enter\s+into)\w*\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,5}(?:business(?:es)?|enterprises?|ventures?|offices?|activit\w*)\b[^.;]{0,200}?(?:directly\s+or\s+indirectly|anywhere|territory|compet|similar|same|during\s+the\s+term|for\s+a\s+period\s+of|after\s+(?:the\s+)?(?:termination|expiration))",
        r"|(?:not|neither|nor)\b[^.;]{0,200}?(?:directly\s+or\s+indirectly|anywhere\s+in\s+the\s+world|during\s+the\s+term)[^.;]{0,200}?\b(?:engage|carry\s+on|conduct|open|operate|establish)\w*\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,5}(?:business(?:es)?|enterprises?|ventures?|offices?|activit\w*)\b",
        r"|(?:competitive|competing|compete)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,3}(?:with|business|products?|activit|transaction)|in\s+competition\s+with",
        r"|竞业|同业竞争|(?:不得|不应)[^。；]{0,30}(?:从事|经营|投资|参与)[^。；]{0,30}(?:相同|类似|相似|竞争)|竞争(?:性)?(?:业务|产品)",
    ))
    .unwrap()
});

static NEGATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"shall\s+not|will\s+not|may\s+not|not\s+to|agrees?\s+not|refrain|no\s+\w+\s+(?:shall|will|may)|neither|nor|不得|不应|不从事|禁止|restrict|prohibit|covenant").unwrap()
});

static EXCLUSIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:^|[^-\w])exclusive(?:ly)?\b|exclusivity|sole\s+(?:and\s+exclusive\s+)?(?:distributor|supplier|provider|source|agent|reseller|licensee|representative|manufacturer|partner)",
        r"|(?:purchase|buy|obtain|source|order)\s+(?:all|100%|exclusively|solely|only)\s+(?:of\s+)?(?:its|their|the)?\s*(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,3}(?:requirements|needs|products)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,3}from",
        r"|(?:shall|will|may)\s+not[^.;]{0,80}(?:appoint|engage|enter\s+into|authori[sz]e|grant)[^.;]{0,60}(?:any\s+other|another|any\s+third|other)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,3}(?:distributor|supplier|agent|reseller|representative|joint\s+venture|licensee|partner|agreement|party|person)",
        r"|独家|排他|专有(?:权|许可)|(?:不得|不再)[^。；]{0,20}(?:委托|授权|指定|许可)[^。；]{0,10}(?:第三方|其他)",
    ))
    .unwrap()
});

/// "exclusive" that is about something else: jurisdiction, remedies, taxes, ownership.
static NOT_EXCLUSIVITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"exclusive(?:ly)?\s+(?:\w+\s+)?(?:jurisdiction|venue|forum|remedy|remedies|competence|courts?|of\s+(?:vat|tax|taxes|any|all|the|interest|value|applicable)|property|owner|ownership|right,?\s+title|benefit\s+of|use\s+(?:of|and\s+benefit)|control|responsibility|liability|obligation|discretion|means|basis\s+for\s+(?:the\s+)?(?:calculation|determination)|judge|authority)|(?:sole\s+and\s+)?exclusive\s+(?:and\s+sole\s+)?remed|专属管辖|排他性管辖").unwrap()
});

pub(super) fn scan(window: &Window<'_>, hits: &mut Vec<Hit>) {
    let s = window.this();
    let lower = &s.lower;
    if let Some(m) = find(&NON_COMPETE, s).filter(|_| NEGATION.is_match(lower)) {
        // Non-solicitation of staff is a different covenant.
        let only_solicit = lower.contains("solicit") && !lower.contains("compet");
        if !only_solicit {
            let bound = match actor_at(s, m.start()) {
                Bound::Unknown => subject(&s.text),
                other => other,
            };
            hits.push(Hit::new(
                Provision::NonCompete,
                bound,
                format!("Non-compete (\"{}\")", quoted(m.as_str())),
                "the bound party may not carry on a competing business for the period and area stated",
                s.text.clone(),
            ));
        }
    }
    let exclusive = EXCLUSIVE.find_iter(lower).find(|m| {
        let around = around(lower, m.start().saturating_sub(12), m.end() + 80);
        !around.contains("non-exclusive")
            && !around.contains("nonexclusive")
            && !NOT_EXCLUSIVITY.is_match(around)
    });
    if let Some(m) = exclusive {
        let bound = match actor_at(s, m.start()) {
            Bound::Unknown => subject(&s.text),
            other => other,
        };
        hits.push(Hit::new(
            Provision::Exclusivity,
            bound,
            format!("Exclusivity (\"{}\")", quoted(m.as_str())),
            "an exclusive dealing shuts out other partners for the term; check scope, territory and minimums",
            s.text.clone(),
        ));
    }
}

/// `text[from..to]`, both ends moved onto character boundaries and into the text.
fn around(text: &str, from: usize, to: usize) -> &str {
    let mut from = from.min(text.len());
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = to.min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    &text[from..to]
}
