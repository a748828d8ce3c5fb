//! Governance: reserved matters, unanimity and supermajorities, and deadlock.

use std::sync::LazyLock;

use regex::Regex;

use super::{find, quoted, Bound, Hit, Provision, Window};

static RESERVED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"reserved\s+matters?|protective\s+provisions?|unanimous(?:ly)?|(?:consent|approval|vote|agreement)\s+of\s+(?:all|each\s+of)\s+(?:the\s+)?(?:directors|shareholders|stockholders|members|parties|partners|participants)",
        r"|(?:super-?\s?majority|special\s+resolution)|(?:affirmative\s+)?(?:vote|consent|approval)\s+of\s+(?:at\s+least\s+|not\s+less\s+than\s+)?(?:two-?thirds|three-?(?:fourths|quarters)|(?:6[0-9]|[7-9][0-9])\s*(?:%|percent|per\s+cent))",
        r"|(?:without|shall\s+not[^.;]{0,80}without)\s+(?:first\s+obtaining\s+)?the\s+(?:prior\s+)?(?:written\s+)?(?:consent|approval|affirmative\s+vote)\s+of\s+(?:the\s+)?(?:holders\s+of\s+)?(?:at\s+least\s+)?(?:a\s+majority|the\s+(?:requisite|preferred|series)|\w+\s+(?:directors?|investors?|preferred))",
        r"|(?:approval|consent|vote)\s+of\s+(?:the\s+)?(?:holders\s+of\s+)?(?:at\s+least\s+)?(?:a\s+)?majority\s+of\s+(?:the\s+)?(?:outstanding\s+)?(?:preferred|series|investors?|purchasers|class)[^.;]{0,60}(?:required|needed|necessary)",
        r"|一致(?:通过|同意|决定)|全体(?:董事|股东|合营方)[^。；]{0,6}(?:同意|通过)|三分之二以上|保留事项|重大事项[^。；]{0,20}(?:一致|同意|批准)",
    ))
    .unwrap()
});

/// The words that name a deadlock (a macro, so the scan's pattern is built from them).
macro_rules! deadlock_named {
    () => {
        r"deadlock|stalemate|僵局"
    };
}

/// A deadlock named, or described (the board cannot agree), or a way out of one.
static DEADLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        deadlock_named!(),
        r"|casting\s+vote|(?:unable|fail(?:s|ed)?)\s+to\s+(?:agree|reach\s+(?:a\s+)?(?:decision|agreement|consensus|resolution))[^.;]{0,120}(?:board|directors|shareholders|members|committee|parties|matter)",
        r"|(?:board|directors|shareholders|members|committee)[^.;]{0,80}(?:unable|fail(?:s|ed)?)\s+to\s+(?:agree|reach|resolve|decide)|russian\s+roulette|texas\s+shoot|shoot[- ]out|buy[- ]sell\s+(?:provision|procedure|mechanism)",
        r"|(?:无法|不能|未能)(?:达成|形成)(?:一致|决议|协议)|决定票",
    ))
    .unwrap()
});

/// Whether `lower` (lower-cased text) reserves matters to a special consent or unanimity,
/// by the cue the scan uses: the governance skill reads its list where the scan finds one.
pub(crate) fn reserves_matters(lower: &str) -> bool {
    RESERVED.is_match(lower)
}

static DEADLOCK_NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(deadlock_named!()).unwrap());

/// Whether `lower` (lower-cased text) names a deadlock: the family's own words, which the
/// scan's test starts from and the governance check looks for the way out by.
pub(crate) fn names_deadlock(lower: &str) -> bool {
    DEADLOCK_NAME.is_match(lower)
}

pub(super) fn scan(window: &Window<'_>, hits: &mut Vec<Hit>) {
    let s = window.this();
    if let Some(m) = find(&RESERVED, s) {
        hits.push(Hit::new(
            Provision::ReservedMatters,
            Bound::Mutual,
            format!("Matters reserved to a special consent or unanimity (\"{}\")", quoted(m.as_str())),
            "each holder of the consent can block these decisions; check the list and who holds the veto",
            s.text.clone(),
        ));
    }
    if let Some(m) = find(&DEADLOCK, s) {
        hits.push(Hit::new(
            Provision::Deadlock,
            Bound::Mutual,
            format!("Deadlock (\"{}\")", quoted(m.as_str())),
            "how a deadlock ends decides who controls the venture when the parties disagree",
            s.text.clone(),
        ));
    }
}
