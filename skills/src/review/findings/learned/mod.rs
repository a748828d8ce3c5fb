//! The provision classifier as the review's first stage. The classifier ([`crate::detect`])
//! says *what* a clause's sentence is (a CUAD category with a calibrated probability); the
//! rules here say what it cannot: whether the sentence makes the provision or denies it
//! ("may not be terminated for convenience", "non-exclusive", "unlimited liability
//! company"), and whom it binds (the party named before its verb, weighed for our party).
//! The [`Playbook`] gives the level. English only: the training data is English, so other
//! languages keep the rule path alone.
//! The denial patterns count the words between their terms as the scan does
//! ([`super::provisions`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use regex::Regex;

use super::kinds::{Catalogued, Denial, Provision as Kind};
use super::playbook::Playbook;
use super::provisions::{self, Bound};
use crate::detect::model::{Detection, ModelError, ProvisionModel};
use crate::document::Clause;
use crate::parallel;
use crate::review::types::{Finding, RiskKind, RiskLevel};
use crate::state::ReviewState;
use crate::text::truncate_chars;

/// The `source_skill` of the classifier's findings (a pass of the review).
pub const SOURCE: &str = "provision_classifier";

/// The model the stage asks: the one built into the library, or one a firm trained.
#[derive(Debug, Clone)]
enum Model {
    Embedded(&'static ProvisionModel),
    Loaded(Arc<ProvisionModel>),
}

impl std::ops::Deref for Model {
    type Target = ProvisionModel;

    fn deref(&self) -> &ProvisionModel {
        match self {
            Model::Embedded(model) => model,
            Model::Loaded(model) => model,
        }
    }
}

/// Why the classifier's stage cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum LearnedStageError {
    /// The built-in model cannot be read.
    #[error("the built-in provision model cannot be read: {0}")]
    Embedded(&'static ModelError),
    /// The model cannot be read.
    #[error("provision model `{path}`: {source}")]
    Model {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ModelError,
    },
}

/// What the classifier reads in one clause for one kind.
#[derive(Debug, Clone)]
pub(crate) struct Reading {
    /// The kind.
    pub(crate) kind: RiskKind,
    /// Its finding, levelled by the playbook; `None` when the playbook leaves it out.
    pub(crate) finding: Option<Finding>,
    /// The probability reaches the threshold for a serious (medium or high) finding.
    pub(crate) serious: bool,
}

/// The classifier: what each clause is. The playbook that levels its findings is a review
/// option ([`ReviewOptions::playbook`](crate::review::ReviewOptions::playbook)), shared with the rules.
#[derive(Debug, Clone)]
pub struct LearnedStage {
    model: Model,
    /// The kinds of the model's categories, read once.
    known: Arc<std::collections::HashSet<RiskKind>>,
}

impl PartialEq for LearnedStage {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq::<ProvisionModel>(&*self.model, &*other.model)
    }
}

impl Eq for LearnedStage {}

impl LearnedStage {
    /// The built-in model.
    pub fn embedded() -> Result<Self, LearnedStageError> {
        let model = ProvisionModel::embedded().map_err(LearnedStageError::Embedded)?;
        Ok(Self::new(Model::Embedded(model)))
    }

    /// Whether the model has a category for `kind`: its decision then rules on that kind
    /// wherever it reads the clause.
    pub(crate) fn knows(&self, kind: &RiskKind) -> bool {
        self.known.contains(kind)
    }

    fn new(model: Model) -> Self {
        let known = model.kinds().map(RiskKind::Provision).collect();
        Self {
            model,
            known: Arc::new(known),
        }
    }

    /// A model made in this process (a cross-validation fold's).
    #[cfg(feature = "train")]
    pub(crate) fn from_model(model: ProvisionModel) -> Self {
        Self::new(Model::Loaded(Arc::new(model)))
    }

    /// The model in `model_path` (made by `clausewright train`).
    pub fn load(model_path: &Path) -> Result<Self, LearnedStageError> {
        let model =
            ProvisionModel::load(model_path).map_err(|source| LearnedStageError::Model {
                path: model_path.to_path_buf(),
                source,
            })?;
        Ok(Self::new(Model::Loaded(Arc::new(model))))
    }

    /// What the classifier finds in every clause of the contract it reads (English text;
    /// every clause has an id of its own), once per review: the generated
    /// checklist, the findings and the absences all read it. A sentence the denial rules
    /// read as denying its provision ([`negated`]) is dropped here, once.
    pub(crate) fn classify_all(&self, state: &Arc<ReviewState>) -> Classified {
        let lookup = crate::index::lookup_for(state);
        let (Some(doc), Some(index)) = (state.primary(), lookup.primary()) else {
            return Classified::default();
        };
        let clauses: Vec<&Clause> = doc
            .iter_clauses()
            .filter(|c| reads(&[&c.title, &c.text]))
            .collect();
        let found = parallel::map(&clauses, |clause| {
            let mut found = self.model.classify_clause(&index, clause, None).0;
            found.retain(|p| !negated(p.kind, &p.sentence));
            found
        });
        let mut by_clause = HashMap::new();
        for (clause, provisions) in clauses.into_iter().zip(found) {
            by_clause.insert(clause.clause_id.clone(), provisions);
        }
        Classified { by_clause }
    }

    /// The classifier's provisions of one clause as readings: each kind, whether its
    /// probability reaches the threshold for a serious finding (the playbook's `serious_at`,
    /// else the model's), and its finding levelled by the playbook (at most low, to check,
    /// when not serious), or `None` when the playbook leaves the kind or this binding out.
    pub(crate) fn findings(
        &self,
        provisions: &[Detection],
        our_party: &str,
        parties: &[String],
        playbook: &Playbook,
    ) -> Vec<Reading> {
        let mut out = Vec::new();
        for provision in provisions {
            let kind = RiskKind::Provision(provision.kind);
            let serious_at = playbook
                .levels(provision.kind)
                .and_then(|l| l.serious_at)
                .map(|p| p.get())
                .or_else(|| self.model.serious_threshold(provision.kind))
                .unwrap_or(0.0);
            let serious = provision.probability >= serious_at;
            let finding = playbook.levels(provision.kind).and_then(|levels| {
                let bound = provisions::subject(&provision.sentence);
                let binds_us =
                    provisions::binds_our_party(&bound, levels.holder_benefits, our_party, parties);
                let level = match binds_us {
                    Some(false) => levels.binds_them,
                    _ => levels.binds_us,
                }?;
                let (level, to_check) = match serious {
                    true => (level, String::new()),
                    false => (
                        level.min(RiskLevel::Low),
                        format!("; to check: below {serious_at:.2}, the probability from which it is reported as serious"),
                    ),
                };
                let whom = match (&bound, levels.holder_benefits) {
                    (Bound::Party(name), false) => format!(" (binds {name})"),
                    (Bound::Party(name), true) => format!(" (a right of {name})"),
                    (Bound::Mutual, _) => " (binds both parties)".to_string(),
                    (Bound::Unknown, _) => String::new(),
                };
                let weighed = match binds_us {
                    Some(true) => "binds our party",
                    Some(false) => "binds the other party",
                    None => "the party bound is not known",
                };
                Some(Finding {
                    reason: format!(
                        "the provision classifier rates the sentence {:.2}; the {} playbook rates it {level} when it {}{to_check}",
                        provision.probability,
                        playbook.domain,
                        if binds_us == Some(false) { "binds the other party" } else { "binds our party" },
                    ),
                    analysis: format!(
                        "{weighed}; {}",
                        truncate_chars(&provision.sentence, 200)
                    ),
                    quote: truncate_chars(&provision.sentence, 600),
                    source_skill: SOURCE.to_string(),
                    probability: Some(provision.probability),
                    ..Finding::new(
                        kind.clone(),
                        level,
                        format!("{} provision{whom}", provision.kind.title()),
                    )
                })
            });
            out.push(Reading {
                kind,
                finding,
                serious,
            });
        }
        out
    }
}

/// What the classifier found in each clause of one contract, by clause id.
#[derive(Debug, Clone, Default)]
pub(crate) struct Classified {
    by_clause: HashMap<String, Vec<Detection>>,
}

impl Classified {
    /// The provisions of a clause; `None` when the classifier did not read it.
    pub(crate) fn clause(&self, clause_id: &str) -> Option<&[Detection]> {
        self.by_clause.get(clause_id).map(Vec::as_slice)
    }

    /// Whether the classifier read any clause.
    pub(crate) fn read_any(&self) -> bool {
        !self.by_clause.is_empty()
    }

    /// Every kind found anywhere in the contract, whether or not its clause was reviewed in
    /// checklist mode.
    pub(crate) fn kinds(&self) -> std::collections::HashSet<RiskKind> {
        self.by_clause
            .values()
            .flatten()
            .map(|p| RiskKind::Provision(p.kind))
            .collect()
    }
}

/// Whether the classifier reads a clause's `parts` (title, text): English (or any
/// Latin-script) text, not text that is mostly Chinese, Japanese or Korean, which keeps the
/// rule path alone.
fn reads(parts: &[&str]) -> bool {
    let (mut letters, mut cjk) = (0usize, 0usize);
    for c in parts
        .iter()
        .flat_map(|p| p.chars())
        .filter(|c| c.is_alphabetic())
    {
        letters += 1;
        if crate::text::is_cjk(c) {
            cjk += 1;
        }
    }
    letters > 0 && cjk * 5 < letters
}

/// Whether `sentence`, which the classifier reads as a provision of `kind`, denies it
/// instead: the classifier reads the topic, these rules read the polarity. Each rule is
/// written for a class of wording.
pub(crate) fn negated(kind: Kind, sentence: &str) -> bool {
    let entry = kind.entry();
    if !entry.definition_states_it && only_defines(sentence) {
        return true;
    }
    let denial = entry.denial;
    if denial == Denial::None {
        return false;
    }
    let lower = sentence.to_lowercase();
    match denial {
        Denial::None => false,
        Denial::Exclusivity => every_mention_negated(&EXCLUSIVE, &lower),
        Denial::Termination => {
            // Denied, and no right to terminate left once the denials are read out.
            DENIED_TERMINATION.is_match(&lower)
                && !GRANTED_TERMINATION.is_match(&DENIED_TERMINATION.replace_all(&lower, " "))
        }
        Denial::Liability => {
            // Only an entity form ("a limited liability company") names liability here; or
            // the sentence states what liabilities a party has (a representation of fact,
            // no modal verb), not what it shall pay ("shall have no liability" is a limit).
            (ENTITY_FORM.is_match(&lower)
                && !LIABILITY.is_match(&ENTITY_FORM.replace_all(&lower, " ")))
                || (HAS_LIABILITIES.is_match(&lower)
                    && !LIMITS_PAYMENT.is_match(&lower)
                    && !COVENANT.is_match(&lower))
        }
        Denial::Restriction => {
            CARVE_OUT.is_match(&lower) || LEAVES_FREE.is_match(&lower) || states_a_fact(&lower)
        }
        // Interest on a late payment is not a pre-agreed sum for a breach.
        Denial::LateInterest => LATE_INTEREST.is_match(&lower) && !AGREED_DAMAGES.is_match(&lower),
        // Renewing an insurance policy, a licence or a permit is not renewing the agreement.
        // Denying renewal, with no renewal granted once the denials are read out, is not one.
        Denial::Renewal => {
            (RENEWED_INSTRUMENT.is_match(&lower) && !THE_AGREEMENT.is_match(&lower))
                || (DENIED_RENEWAL.is_match(&lower)
                    && !GRANTED_RENEWAL.is_match(&DENIED_RENEWAL.replace_all(&lower, " ")))
        }
        // Defining "Control", merging prior agreements, or saying a change of control leaves
        // the agreement as it is, is not a change-of-control right.
        Denial::Control => {
            DEFINES_CONTROL.is_match(&lower)
                || MERGER_CLAUSE.is_match(&lower)
                || (NO_EFFECT_OF_CONTROL.is_match(&lower) && !CONTROL_CONSEQUENCE.is_match(&lower))
        }
    }
}

/// Whether `sentence` defines a term and does nothing else: it opens with the term (quoted,
/// or in capitals) and "means", "has the meaning", "includes" or "refers to", and binds no
/// one after the definition ("…, and the Supplier shall not exceed the Cap" binds).
fn only_defines(sentence: &str) -> bool {
    let Some(m) = DEFINITION.find(sentence) else {
        return false;
    };
    !BINDS.is_match(&sentence[m.end()..].to_lowercase())
}

/// Whether the sentence represents a fact about a party ("represents and warrants that it
/// holds no interest in any other entity", "owns no shares of any competitor") instead of
/// binding it to do or not do something: no covenant word after the representation.
fn states_a_fact(lower: &str) -> bool {
    if let Some(m) = REPRESENTS_THAT.find(lower) {
        return !COVENANT.is_match(&lower[m.end()..]);
    }
    HOLDS_INTEREST.is_match(lower) && !COVENANT.is_match(lower)
}

/// Whether every match of `word` in `lower` follows a negation ("non-", "not", "no").
fn every_mention_negated(word: &Regex, lower: &str) -> bool {
    let mut any = false;
    for m in word.find_iter(lower) {
        any = true;
        let before = &lower[..m.start()];
        let tail: String = before
            .chars()
            .rev()
            .take(24)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !NEGATION_BEFORE.is_match(&tail) {
            return false;
        }
    }
    any
}

static EXCLUSIVE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bexclusiv\w*").unwrap());

static NEGATION_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\bnon[-\s]?|\bnot\s+(?:be\s+|an?\s+)?|\bno\s+|\bneither\s+)$").unwrap()
});

static DENIED_TERMINATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:may|shall|can|will|must)\s+not\s+(?:be\s+)?terminat\w*|\b(?:cannot|can't|won't)\s+(?:be\s+)?terminat\w*|\bnot\s+(?:be\s+)?(?:entitled|permitted|allowed)\s+to\s+terminat\w*|\bno\s+(?:party|one|right)\b[^.;]{0,40}?\bterminat\w*|\bneither\s+party\s+(?:may|shall|can|will)\s+terminat\w*").unwrap()
});

static GRANTED_TERMINATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:may|can|shall\s+be\s+entitled\s+to|is\s+entitled\s+to|has\s+the\s+right\s+to|will\s+have\s+the\s+(?:right|ability)\s+to)\s+terminat\w*|\bterminable\b").unwrap()
});

static ENTITY_FORM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:un)?limited\s+liability\s+(?:company|partnership|corporation|limited\s+partnership)\b|\bl\.?l\.?c\.?\b|\bl\.?l\.?p\.?\b").unwrap()
});

static LIABILITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bliab(?:le|ility|ilities)\b|\bdamages\b|\bindemnif\w*|\blosses\b").unwrap()
});

static HAS_LIABILITIES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:has|have|had)\s+(?:not\s+incurred\s+)?(?:no|any)\s+(?:material\s+|outstanding\s+|other\s+)?(?:debts?|liabilit(?:y|ies)|indebtedness)\b|\bthere\s+(?:are|is)\s+no\s+(?:material\s+|outstanding\s+)?(?:debts?|liabilit(?:y|ies)|indebtedness)\b").unwrap()
});

static LIMITS_PAYMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:shall|will)\s+(?:not|in\s+no\s+event)\s+exceed\b|\bin\s+no\s+event\s+shall\b|\bliab(?:le|ility)\s+(?:to\s+\w+\s+)?(?:under|arising\s+(?:out\s+of|under)|in\s+connection\s+with)\s+this\b|\b(?:shall|will)\s+(?:not\s+)?be\s+(?:liable|limited)\b").unwrap()
});

static LEAVES_FREE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:does|do|shall|will)\s+not\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,2}(?:restrict|prevent|prohibit|preclude|limit)\w*\s+(?:either|any|each|the\s+other|the)\s+part(?:y|ies)\b|\b(?:each|either|any)\s+party\s+(?:is|shall\s+be|will\s+be|remains?|shall\s+remain)\s+free\s+to\b").unwrap()
});

static REPRESENTS_THAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:represents?|warrants?|confirms?|certif(?:y|ies))\b(?:\s*(?:,|and)\s*(?:represents?|warrants?|confirms?))*\s+(?:to\s+(?:the\s+)?\w+\s+)?that\b").unwrap()
});

static HOLDS_INTEREST: LazyLock<Regex> = LazyLock::new(|| {
    // The third person only: a list of prohibitions under "shall not:" reads "own, ...
    // or have any interest in".
    Regex::new(r"\b(?:owns|holds|has)\s+(?:no|any)\s+(?:direct\s+or\s+indirect\s+)?(?:equity\s+|ownership\s+|financial\s+|beneficial\s+)?(?:interests?|shares|stock|securities)\b").unwrap()
});

static COVENANT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:shall|will|must|agrees?|undertakes?|covenants?)\b").unwrap()
});

static DENIED_RENEWAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:shall|will|does|do)\s+not\s+(?:be\s+)?(?:automatically\s+)?(?:renew|extend)\w*|\bno\s+(?:automatic\s+|further\s+)?(?:renewal|extension)\b|\bwithout\s+(?:any\s+)?automatic\s+renewal\b|\bnot\s+(?:be\s+)?subject\s+to\s+(?:automatic\s+)?renewal\b").unwrap()
});

static GRANTED_RENEWAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:shall|will)\s+(?:automatically\s+)?(?:be\s+)?(?:automatically\s+)?(?:renew|renewed|extend|extended)\b|\bautomatically\s+renew\w*|\brenew\w*\s+automatically\b|\bmay\s+(?:be\s+)?(?:renew|extend)\w*").unwrap()
});

static NO_EFFECT_OF_CONTROL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bchange\s+(?:of|in)\s+(?:the\s+)?control\b[^.;]{0,100}?\b(?:shall|will|does)\s+not\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,2}(?:affect|terminate|constitute|give\s+rise|entitle|require|be\s+deemed)|\bnotwithstanding\s+(?:any\s+)?change\s+(?:of|in)\s+(?:the\s+)?control\b|\b(?:continue|remain)s?\s+in\s+(?:full\s+)?(?:force|effect)\b[^.;]{0,80}?\bchange\s+(?:of|in)\s+(?:the\s+)?control\b").unwrap()
});

static CONTROL_CONSEQUENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:may|shall\s+be\s+entitled\s+to|has\s+the\s+right\s+to)\s+terminate\b|\bright\s+to\s+terminate\b|\bprior\s+(?:written\s+)?consent\b").unwrap()
});

static CARVE_OUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?nothing\s+(?:in\s+this\s+[a-z]+\s+|herein\s+)?(?:shall|will|is\s+intended\s+to)\s+(?:be\s+(?:construed|deemed)\s+(?:to|as)\s+)?(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,2}(?:restrict|prevent|prohibit|limit|preclude)\w*").unwrap()
});

static LATE_INTEREST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\binterest\b[^.;]{0,80}\b(?:late|overdue|unpaid|outstanding|past due)\b|\b(?:late|overdue|unpaid|outstanding|past due)\b[^.;]{0,80}\binterest\b").unwrap()
});

static AGREED_DAMAGES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bliquidated\b|\bdelay damages\b|\bpenalt(?:y|ies)\b|\b(?:per|for each|for every) (?:day|week) of delay\b").unwrap()
});

static RENEWED_INSTRUMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:insurance|polic(?:y|ies)|insurers?|permits?|visas?|registrations?)\b")
        .unwrap()
});

static THE_AGREEMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bth(?:is|e) (?:agreement|contract)\b|\bthe (?:initial |renewal )?term\b").unwrap()
});

static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    // Numbering, then a quoted term (any case) and an optional "(or "X")" alias before any
    // defining verb; or a term of capitalised words before "means" or "has the meaning"
    // only ("This Agreement includes the Schedules" defines nothing).
    Regex::new(r#"^\s*(?:\(?[a-zA-Z0-9]{1,4}[.)]\s*)?(?:[Tt]he\s+(?:term|expression)\s+)?(?:["“'‘][^"”'’]{1,80}["”'’]\s*(?:\((?:or\s+)?["“][^"”]{1,60}["”]\)\s*)?,?\s*(?:means|mean|shall\s+mean|has\s+the\s+meaning|shall\s+have\s+the\s+meaning|refers\s+to|shall\s+refer\s+to|includes|shall\s+include)|(?:[A-Z][\w-]*\s+){0,5}[A-Z][\w-]*\s+(?:means|shall\s+mean|has\s+the\s+meaning))\b"#).unwrap()
});

static BINDS: LazyLock<Regex> = LazyLock::new(|| {
    // A modal verb that binds someone; "shall mean" and the definition's own "shall be
    // deemed" are the definition's words.
    Regex::new(r"\b(?:shall|will|must|may)\s+(?:not\s+|in\s+no\s+event\s+)?(?:be\s+(?:liable|entitled|required|obliged|limited)|pay|exceed|terminate|assign|compete|solicit|provide|indemnify|maintain|have\s+the\s+right)\b|\bin\s+no\s+event\b").unwrap()
});

static DEFINES_CONTROL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?["“']?(?:change of )?control(?:led|ling)?["”']?\s+(?:means|shall mean|has the meaning|includes)\b"#).unwrap()
});

static MERGER_CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:entire agreement|supersedes?\s+(?:all|any)\s+prior|merges? all prior)\b")
        .unwrap()
});

#[cfg(test)]
mod tests;
