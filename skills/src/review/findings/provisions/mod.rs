//! The provisions reviewers look for first, found in the clause text in whatever words they
//! are written (English and Chinese): liability and its cap, liquidated damages, notice
//! periods that bar recovery, termination for convenience and for default, site risk,
//! change of control, assignment, drag / tag / pre-emption / first-refusal rights, reserved
//! matters and unanimity, deadlock, non-compete, exclusivity and automatic renewal.
//!
//! Each family lives in a module of its own and reads one sentence at a time (a window of
//! the next sentences where a consequence usually follows). A finding quotes the words it
//! rests on and says whom the provision binds; [`ProvisionFinding::level`] follows from that
//! and from the party the review acts for: a provision that binds our party (or both
//! parties, or one the text does not name) keeps the family's level, one that only binds the
//! other side is `low`.
//!
//! Where a pattern lets a few words stand between its terms, a word is a run of ASCII word
//! characters or of any non-ASCII ones (`(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,n}`): Unicode
//! `\w` repeated `n` times is an automaton of thousands of states, a third of the scan's
//! memory, and reads the same words in the contracts measured.

mod governance;
mod liability;
mod notice;
mod parties;
mod restrictive;
mod site;
mod termination;
mod transfer;

use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub(crate) use governance::{names_deadlock, reserves_matters};
pub use parties::{
    defined_by_reference, document_parties, incorporates_definitions, is_standard_role,
    names_the_document,
};
pub(crate) use transfer::{names_drag_along, names_tag_along};

use super::kinds::Provision;
use super::Playbook;
use crate::review::types::RiskLevel;
use crate::state::Domain;

/// The `source_skill` of the risks the provision scan gives (it is a pass of the review,
/// not a registered skill).
pub const SOURCE: &str = "review_provisions";

/// Whom a provision binds, as far as its words say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind", content = "party")]
pub enum Bound {
    /// A named party bears it.
    Party(String),
    /// Both (all) parties bear it ("neither party", "each party", 双方).
    Mutual,
    /// The text does not say.
    Unknown,
}

/// One provision found in a clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProvisionFinding {
    /// The kind of provision.
    pub provision: Provision,
    /// Who bears it.
    pub bound: Bound,
    /// Whether it binds the party the review acts for (`None` when that party or the bound
    /// party is not known).
    pub binds_our_party: Option<bool>,
    /// How serious it is for our party.
    pub level: RiskLevel,
    /// What the provision does.
    pub description: String,
    /// Why it matters.
    pub reason: String,
    /// The contract's words it rests on.
    pub quote: String,
}

pub(crate) use crate::text::Sentence;

/// What a family's scanner reads: the clause's sentences, one in focus.
pub(crate) struct Window<'a> {
    sentences: &'a [Sentence],
    index: usize,
}

impl Window<'_> {
    /// The sentence in focus.
    pub(crate) fn this(&self) -> &Sentence {
        &self.sentences[self.index]
    }

    /// Up to `n` sentences after the one in focus.
    pub(crate) fn next(&self, n: usize) -> &[Sentence] {
        let from = (self.index + 1).min(self.sentences.len());
        let to = (from + n).min(self.sentences.len());
        &self.sentences[from..to]
    }

    /// The sentence before the one in focus (a lead-in such as "may terminate as follows:").
    pub(crate) fn previous(&self) -> Option<&Sentence> {
        self.index
            .checked_sub(1)
            .and_then(|i| self.sentences.get(i))
    }
}

/// What a rule read in the words that makes a provision milder or graver than the playbook's
/// level for its kind: a maximum on liquidated damages, compensation on a termination for
/// convenience, the defaulting party paying on a termination for default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Weight {
    /// Nothing beyond the kind: the playbook's level.
    Usual,
    /// One level below the playbook's.
    Milder,
    /// One level above the playbook's.
    Graver,
}

/// A finding before the party it binds is weighed.
pub(crate) struct Hit {
    pub provision: Provision,
    pub bound: Bound,
    /// Whether `bound` is the party that gains from the provision (the holder of a right to
    /// terminate), not the one that bears it.
    pub bound_benefits: bool,
    /// What the words add to the playbook's level when it binds our party.
    pub weight: Weight,
    pub description: String,
    pub reason: String,
    pub quote: String,
}

impl Hit {
    pub(crate) fn new(
        provision: Provision,
        bound: Bound,
        description: String,
        reason: &str,
        quote: String,
    ) -> Self {
        Self {
            provision,
            bound,
            bound_benefits: false,
            weight: Weight::Usual,
            description,
            reason: reason.to_string(),
            quote,
        }
    }
}

/// Scans one clause: every provision its sentences contain, weighed for `our_party` with
/// the generic playbook's levels.
pub fn scan_clause(text: &str, our_party: &str) -> Vec<ProvisionFinding> {
    scan_clause_for(text, our_party, &[], Playbook::shipped(Domain::Generic))
}

/// [`scan_clause`] knowing the document's parties ([`document_parties`]) and the playbook
/// that gives the levels: a provision that binds a named party other than ours counts as
/// binding the other side only when that name is one of the parties or a standard role (not
/// an affiliate or a third party); a kind the playbook leaves out (or sets to `null` for the
/// side it binds) is not reported.
pub fn scan_clause_for(
    text: &str,
    our_party: &str,
    parties: &[String],
    playbook: &Playbook,
) -> Vec<ProvisionFinding> {
    let sentences = crate::text::joined_sentences(text);
    let mut hits = Vec::new();
    for index in 0..sentences.len() {
        let window = Window {
            sentences: &sentences,
            index,
        };
        liability::scan(&window, &mut hits);
        notice::scan(&window, &mut hits);
        termination::scan(&window, &mut hits);
        site::scan(&window, &mut hits);
        transfer::scan(&window, &mut hits);
        governance::scan(&window, &mut hits);
        restrictive::scan(&window, &mut hits);
    }
    let mut out: Vec<ProvisionFinding> = Vec::new();
    for hit in hits {
        // One finding per provision and quote.
        if out
            .iter()
            .any(|f| f.provision == hit.provision && f.quote == hit.quote)
        {
            continue;
        }
        out.extend(weigh(hit, our_party, parties, playbook));
    }
    out
}

/// Whether a provision whose words name `bound` binds `our_party`: `None` when our party or
/// the named party is not known (a name that is neither ours, a party of the document
/// (`known`) nor a standard role may be an affiliate or a third party). When the named party
/// holds a right (`holder_benefits`: to terminate, to buy), the party bound is the other one.
pub(crate) fn binds_our_party(
    bound: &Bound,
    holder_benefits: bool,
    our_party: &str,
    known: &[String],
) -> Option<bool> {
    let named_is_us = match bound {
        Bound::Party(name) if !our_party.trim().is_empty() => {
            if parties::same_party(name, our_party) {
                Some(true)
            } else if is_standard_role(name) || known.iter().any(|p| parties::same_party(name, p)) {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    };
    match (bound, named_is_us) {
        (Bound::Mutual, _) if !our_party.trim().is_empty() => Some(true),
        (Bound::Party(_), Some(us)) => Some(us != holder_benefits),
        _ => None,
    }
}

/// The level of a hit for `our_party`: the playbook's level for its kind when it binds us,
/// both sides or an unnamed side (one step milder or graver as the rule read the words),
/// its level for the other side when it binds only them; `None` when the playbook does not
/// report it.
fn weigh(
    hit: Hit,
    our_party: &str,
    known: &[String],
    playbook: &Playbook,
) -> Option<ProvisionFinding> {
    let levels = playbook.levels(hit.provision)?;
    let binds_our_party = binds_our_party(&hit.bound, hit.bound_benefits, our_party, known);
    let level = match binds_our_party {
        Some(false) => levels.binds_them?,
        _ => {
            let usual = levels.binds_us?;
            match hit.weight {
                Weight::Usual => usual,
                Weight::Milder => usual.milder(),
                Weight::Graver => usual.graver(),
            }
        }
    };
    let whom = match (&hit.bound, hit.bound_benefits) {
        (Bound::Party(name), false) => format!(" (binds {name})"),
        (Bound::Party(name), true) if hit.provision == Provision::LiabilityCap => {
            format!(" (protects {name})")
        }
        (Bound::Party(name), true) => format!(" (a right of {name})"),
        (Bound::Mutual, _) => " (binds both parties)".to_string(),
        (Bound::Unknown, _) => String::new(),
    };
    Some(ProvisionFinding {
        provision: hit.provision,
        bound: hit.bound,
        binds_our_party,
        level,
        description: format!("{}{whom}", hit.description),
        reason: hit.reason,
        quote: crate::text::truncate_chars(&hit.quote, 600),
    })
}

static MUTUAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:neither|either|each|both|any|no|a|the other|all)\s+(?:of the\s+)?(?:part(?:y|ies)|participants?|shareholders?|members?)\b|\bthe parties\b|\bparties hereto\b|双方|任何一方|各方|合营各方|一方").unwrap()
});

/// Modal verbs after which the subject of a sentence is the party bound.
static MODAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:'s|’s)?\s+(?:shall|will|may|must|agrees?|undertakes?|covenants?|hereby|is\s+(?:entitled|obliged|obligated|required|responsible|liable)|are\s+(?:entitled|obliged|required|responsible|liable)|has\s+the\s+right|have\s+the\s+right|bears?|assumes?|cannot|can)\b|应当|应|不得|有权|可以|须|必须|负责|承担").unwrap()
});

/// The party that is the subject of the words just before `at` (a byte offset of `text`).
pub(crate) fn actor_before(text: &str, at: usize) -> Bound {
    let head = &text[..at.min(text.len())];
    // The nearest modal before `at` starts the predicate; its subject precedes it.
    let Some(modal) = MODAL.find_iter(head).last() else {
        return Bound::Unknown;
    };
    let subject_zone = &head[..modal.start()];
    let start = subject_zone
        .char_indices()
        .rev()
        .nth(60)
        .map_or(0, |(i, _)| i);
    let zone = &subject_zone[start..];
    if let Some(m) = MUTUAL.find_iter(zone).last() {
        if zone[m.end()..].split_whitespace().count() <= 3 {
            return Bound::Mutual;
        }
    }
    parties::last_party(zone).map_or(Bound::Unknown, Bound::Party)
}

/// The party that is the subject of the words before byte `lower_at` of the sentence's
/// lower-cased text (read in the original text, whose capitals name parties).
pub(crate) fn actor_at(sentence: &Sentence, lower_at: usize) -> Bound {
    if sentence.text.len() == sentence.lower.len() && sentence.text.is_char_boundary(lower_at) {
        actor_before(&sentence.text, lower_at)
    } else {
        subject(&sentence.text)
    }
}

/// The party named just before byte `lower_at` of the sentence's lower-cased text ("if the
/// Contractor fails", "the other party breaches").
pub(crate) fn party_just_before(sentence: &Sentence, lower_at: usize) -> Bound {
    if sentence.text.len() != sentence.lower.len() || !sentence.text.is_char_boundary(lower_at) {
        return Bound::Unknown;
    }
    let head = &sentence.text[..lower_at];
    let start = head.char_indices().rev().nth(40).map_or(0, |(i, _)| i);
    let zone = &head[start..];
    if let Some(m) = MUTUAL.find_iter(zone).last() {
        if zone[m.end()..].split_whitespace().count() <= 2 {
            return Bound::Mutual;
        }
    }
    parties::last_party(zone).map_or(Bound::Unknown, Bound::Party)
}

/// The party that is the subject of the first modal verb of `text`.
pub(crate) fn subject(text: &str) -> Bound {
    match MODAL.find(text) {
        Some(m) => actor_before(text, m.end()),
        None => Bound::Unknown,
    }
}

/// The first match of `re` in the sentence's lower-cased text.
pub(crate) fn find<'a>(re: &Regex, sentence: &'a Sentence) -> Option<regex::Match<'a>> {
    re.find(&sentence.lower)
}

/// A short description naming the words found.
pub(crate) fn quoted(words: &str) -> String {
    crate::text::truncate_chars(words.trim(), 80)
}

#[cfg(test)]
mod tests;
