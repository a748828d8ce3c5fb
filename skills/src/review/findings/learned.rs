//! The provision classifier as the review's first stage. The classifier ([`crate::detect`])
//! says *what* a clause's sentence is (a CUAD category with a calibrated probability); the
//! rules here say what it cannot: whether the sentence makes the provision or denies it
//! ("may not be terminated for convenience", "non-exclusive", "unlimited liability
//! company"), and whom it binds (the party named before its verb, weighed for our party).
//! The [`Playbook`] gives the level. English only: the training data is English, so other
//! languages keep the rule path alone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use regex::Regex;

use super::kinds::{Denial, Provision as Kind};
use super::playbook::Playbook;
use super::provisions::{self, Bound};
use crate::detect::model::{Detection, ModelError, ProvisionModel};
use crate::document::Clause;
use crate::review::engine::parallel_map;
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
        let found = parallel_map(&clauses, |clause| {
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
    Regex::new(r"\b(?:does|do|shall|will)\s+not\s+(?:\w+\s+){0,2}(?:restrict|prevent|prohibit|preclude|limit)\w*\s+(?:either|any|each|the\s+other|the)\s+part(?:y|ies)\b|\b(?:each|either|any)\s+party\s+(?:is|shall\s+be|will\s+be|remains?|shall\s+remain)\s+free\s+to\b").unwrap()
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
    Regex::new(r"\bchange\s+(?:of|in)\s+(?:the\s+)?control\b[^.;]{0,100}?\b(?:shall|will|does)\s+not\s+(?:\w+\s+){0,2}(?:affect|terminate|constitute|give\s+rise|entitle|require|be\s+deemed)|\bnotwithstanding\s+(?:any\s+)?change\s+(?:of|in)\s+(?:the\s+)?control\b|\b(?:continue|remain)s?\s+in\s+(?:full\s+)?(?:force|effect)\b[^.;]{0,80}?\bchange\s+(?:of|in)\s+(?:the\s+)?control\b").unwrap()
});

static CONTROL_CONSEQUENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:may|shall\s+be\s+entitled\s+to|has\s+the\s+right\s+to)\s+terminate\b|\bright\s+to\s+terminate\b|\bprior\s+(?:written\s+)?consent\b").unwrap()
});

static CARVE_OUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?nothing\s+(?:in\s+this\s+[a-z]+\s+|herein\s+)?(?:shall|will|is\s+intended\s+to)\s+(?:be\s+(?:construed|deemed)\s+(?:to|as)\s+)?(?:\w+\s+){0,2}(?:restrict|prevent|prohibit|limit|preclude)\w*").unwrap()
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
mod tests {
    use super::*;

    /// The kind named `name`.
    fn k(name: &str) -> Kind {
        Kind::from_name(name).expect(name)
    }

    /// Each (kind, sentence that is not the provision, its positive twin).
    fn pairs(cases: &[(&str, &str, &str)]) {
        for (kind, not_it, twin) in cases {
            assert!(
                negated(k(kind), not_it),
                "{kind} should be denied: {not_it}"
            );
            assert!(!negated(k(kind), twin), "{kind} should stand: {twin}");
        }
    }

    #[test]
    fn a_definition_is_not_the_provision_it_names() {
        pairs(&[
            (
                "exclusivity",
                "\"Exclusive Territory\" means the provinces listed in Annex 2.",
                "The Distributor shall be the exclusive reseller of the Products in the provinces listed in Annex 2.",
            ),
            (
                "cap_on_liability",
                "(d) \"Liability Cap\" shall mean an amount equal to the Fees paid in the preceding twelve months.",
                "\"Liability Cap\" means the Fees paid in the preceding twelve months, and in no event shall the Supplier's liability exceed the Liability Cap.",
            ),
            (
                "governing_law",
                "Applicable Law means every statute, regulation and order that binds a Party.",
                "This Agreement is governed by the laws of Ontario.",
            ),
            (
                "anti_assignment",
                "The term \"Permitted Assignee\" refers to any Affiliate of the Licensee.",
                "The Licensee may not assign this Agreement except to a Permitted Assignee, that is, an Affiliate of the Licensee.",
            ),
            (
                "non_compete",
                "\"Competing Business\" (or \"Rival\") includes any business that sells goods like the Products.",
                "The Seller shall not engage in a Competing Business, which includes any business that sells goods like the Products.",
            ),
        ]);
        // Capitalised words before "includes" are a subject, not a defined term.
        assert!(!negated(
            k("governing_law"),
            "This Agreement includes its Schedules and is governed by the laws of Ontario."
        ));
        // A kind a definition can state keeps it.
        assert!(!negated(
            k("warranty_duration"),
            "\"Warranty Period\" means the eighteen months after delivery."
        ));
    }

    #[test]
    fn a_representation_of_fact_is_not_a_covenant() {
        pairs(&[
            (
                "non_compete",
                "The Founder represents and warrants to the Investors that he holds no interest in any other entity.",
                "The Founder shall not, for two years after Closing, hold any interest in an entity that competes with the Company.",
            ),
            (
                "non_compete",
                "Neither the Seller nor any of its affiliates owns any shares of a business that competes with the Company.",
                "Neither the Seller nor any of its affiliates shall own any shares of a business that competes with the Company.",
            ),
            (
                "no_solicit_of_employees",
                "The Consultant confirms that it has no interest in any recruitment agency.",
                "The Consultant confirms that it will not solicit any employee of the Client during the Term.",
            ),
        ]);
    }

    #[test]
    fn a_prohibition_listed_under_its_lead_in_is_not_a_fact() {
        // The modal sits in the lead-in ("the Franchisee shall not:"); the item still binds.
        assert!(!negated(
            k("non_compete"),
            "own, manage or have any interest in any business which competes with the Franchise;"
        ));
        assert!(negated(
            k("non_compete"),
            "The Franchisee has no interest in any business which competes with the Franchise."
        ));
    }

    #[test]
    fn a_statement_of_liabilities_held_is_not_a_cap() {
        pairs(&[
            (
                "cap_on_liability",
                "The Company has no liabilities in excess of $50,000 other than those in the Balance Sheet.",
                "The Company's liability under this Agreement shall not exceed $50,000.",
            ),
            (
                "cap_on_liability",
                "The Company has not incurred any liabilities in excess of $50,000 since the Accounts Date.",
                "The Supplier shall have no liability for any loss in excess of the fees paid in the year of the claim.",
            ),
            (
                "uncapped_liability",
                "There are no outstanding liabilities of the Borrower to any affiliate.",
                "The Borrower shall be liable without limit for any loss caused by its fraud.",
            ),
        ]);
    }

    #[test]
    fn leaving_a_party_free_is_not_a_restriction() {
        pairs(&[
            (
                "non_compete",
                "This Agreement does not restrict either party from developing products that compete with the other's.",
                "Neither party shall develop products that compete with the other's during the Term.",
            ),
            (
                "non_compete",
                "Each party is free to engage in any other business, including one that competes with the other.",
                "Each party agrees not to engage in any business that competes with the other during the Term.",
            ),
        ]);
    }

    #[test]
    fn a_denied_renewal_is_not_a_renewal() {
        pairs(&[
            (
                "notice_period_to_terminate_renewal",
                "This Agreement shall not renew automatically at the end of the Initial Term.",
                "This Agreement shall renew automatically for successive one-year terms unless either party gives notice of non-renewal at least 90 days before the end of the then-current term.",
            ),
            (
                "renewal_term",
                "There shall be no automatic renewal of this Agreement; any extension requires a written amendment.",
                "This Agreement will automatically renew for one further term of two years unless either party notifies the other that it will not renew.",
            ),
        ]);
    }

    #[test]
    fn a_change_of_control_that_leaves_the_agreement_as_it_is_is_not_a_change_of_control_right() {
        pairs(&[
            (
                "change_of_control",
                "A change of control of either party shall not affect the validity of this Agreement.",
                "Either party may terminate this Agreement on a change of control of the other party.",
            ),
            (
                "change_of_control",
                "This Agreement shall continue in full force and effect notwithstanding any change of control of the Licensee.",
                "A change of control of the Licensee requires the prior written consent of the Licensor.",
            ),
        ]);
    }

    #[test]
    fn exclusivity_denied_by_non_or_not() {
        for text in [
            "The Distributor is appointed on a non-exclusive basis.",
            "This licence is non exclusive and may be granted to others.",
            "The appointment shall not be exclusive.",
            "The rights granted are not an exclusive licence.",
        ] {
            assert!(negated(k("exclusivity"), text), "{text}");
        }
        for text in [
            "The Distributor shall be the exclusive distributor in the Territory.",
            "Supplier grants an exclusive right, and a non-exclusive right outside it.",
            "The Buyer shall purchase exclusively from the Seller.",
        ] {
            assert!(!negated(k("exclusivity"), text), "{text}");
        }
    }

    #[test]
    fn termination_for_convenience_denied() {
        for text in [
            "This Agreement may not be terminated for convenience.",
            "Neither party may terminate this Agreement without cause.",
            "The Client shall not be entitled to terminate for convenience.",
            "No party shall have any right to terminate this Agreement other than for breach.",
        ] {
            assert!(negated(k("termination_for_convenience"), text), "{text}");
        }
        for text in [
            "Either party may terminate this Agreement on ninety days' notice.",
            "The Customer will have the ability to terminate at any time on notice.",
            "This Agreement is terminable by the Buyer without cause.",
        ] {
            assert!(!negated(k("termination_for_convenience"), text), "{text}");
        }
    }

    #[test]
    fn wording_without_an_entity_form_is_left_alone() {
        // No English liability word, no entity form: not for these rules to deny.
        assert!(!negated(
            k("cap_on_liability"),
            "承包人对发包人承担的赔偿责任总额不超过合同价格的50%。"
        ));
    }

    #[test]
    fn entity_forms_are_not_liability_provisions() {
        assert!(negated(
            k("uncapped_liability"),
            "Acme Holdings, an unlimited liability company incorporated in Alberta."
        ));
        assert!(negated(
            k("cap_on_liability"),
            "Beta Partners LLC, a Delaware limited liability company (the Investor)."
        ));
        assert!(!negated(
            k("uncapped_liability"),
            "Nothing limits the liability of Acme Holdings, an unlimited liability company, for fraud."
        ));
        assert!(!negated(
            k("cap_on_liability"),
            "The Supplier's total liability shall not exceed the fees paid."
        ));
    }

    #[test]
    fn carve_outs_are_not_restrictive_covenants() {
        assert!(negated(
            k("non_compete"),
            "Nothing in this Agreement shall restrict the Consultant from working for others."
        ));
        assert!(negated(
            k("no_solicit_of_employees"),
            "(c) Nothing herein shall be construed to prevent general advertisements for staff."
        ));
        assert!(!negated(
            k("non_compete"),
            "The Seller shall not carry on a competing business for two years."
        ));
    }

    #[test]
    fn late_payment_interest_is_not_liquidated_damages() {
        assert!(negated(
            k("liquidated_damages"),
            "Overdue invoices bear interest at 2% above the base rate until paid."
        ));
        assert!(negated(
            k("liquidated_damages"),
            "Interest shall accrue on any sum outstanding after the due date."
        ));
        assert!(!negated(
            k("liquidated_damages"),
            "The Contractor shall pay delay damages of 0.1% per day, and interest on late payment of them."
        ));
        assert!(!negated(
            k("liquidated_damages"),
            "The Supplier shall pay 500 euros for each day of delay as liquidated damages."
        ));
    }

    #[test]
    fn renewing_an_insurance_is_not_renewing_the_agreement() {
        assert!(negated(
            k("notice_period_to_terminate_renewal"),
            "The Contractor shall give notice 30 days before any insurance policy is not renewed."
        ));
        assert!(!negated(
            k("notice_period_to_terminate_renewal"),
            "This Agreement renews for one year unless either party gives 60 days' notice of non-renewal."
        ));
        assert!(!negated(
            k("renewal_term"),
            "The term renews automatically for successive one-year periods."
        ));
    }

    #[test]
    fn a_definition_of_control_or_a_merger_clause_is_not_change_of_control() {
        assert!(negated(
            k("change_of_control"),
            "\"Control\" means the power to direct the affairs of a company by shares or votes."
        ));
        assert!(negated(
            k("change_of_control"),
            "This Agreement is the entire agreement between the parties and supersedes all prior arrangements relating to a merger or acquisition."
        ));
        assert!(!negated(
            k("change_of_control"),
            "The Customer may terminate if the Supplier undergoes a change of Control."
        ));
    }

    #[test]
    fn other_kinds_are_never_negated_by_these_rules() {
        assert!(!negated(
            k("governing_law"),
            "This Agreement is not governed by any law other than that of England."
        ));
    }
}
