//! The catalogue of provision kinds: what the library needs to know of each kind the review
//! reports — its CUAD category, its family, how a sentence denies it, which skills analyse
//! it, and how the evaluation scores it. The kind itself, [`Provision`], with its doc and its
//! name in reports (the `risk_type` of its findings, its key in playbooks, its JSON form), is
//! declared in the report's crate (`clausewright-report`, `provision.rs`), in report order;
//! everything else is its entry here, keyed by it and in the same order. A kind declared
//! there without an entry here, or an entry out of order, does not compile. The
//! classifier's categories, the keyword scan, the playbooks, the checklist and the
//! evaluation all read this table; a test fails when one of them does not know a kind.
//! Adding a kind is its name in the report's crate, its entry here, and its tests.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use clausewright_report::Provision;

use crate::review::types::RiskKind;
use crate::state::Domain;

/// The group a kind belongs to, for readers who scan a report by subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Liability, its cap and agreed damages.
    Liability,
    /// Notice and claim periods.
    Notice,
    /// Ending the agreement, and its term.
    Termination,
    /// Site and physical conditions.
    Site,
    /// Assignment, change of control and transfers of shares.
    Transfer,
    /// Decisions of the parties or the board.
    Governance,
    /// Promises not to compete, solicit or deal elsewhere.
    Restrictive,
    /// Prices, volumes, sharing of revenue, audits.
    Commercial,
    /// Licences and intellectual property.
    Licence,
    /// Warranties and insurance.
    Assurance,
    /// Law, third parties and suits.
    Boilerplate,
    /// What the agreement is: its name, parties and dates.
    Identity,
}

/// How a sentence that reads as a kind's topic can deny it instead; the review's classifier
/// stage drops such sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Denial {
    /// No reading of its own.
    None,
    /// "non-exclusive", "not exclusive".
    Exclusivity,
    /// "may not terminate", with no right to terminate left.
    Termination,
    /// An entity form ("limited liability company") or a representation of the liabilities
    /// a party has.
    Liability,
    /// A carve-out, a party left free, or a representation of fact.
    Restriction,
    /// Interest on late payment.
    LateInterest,
    /// Renewal of an instrument other than the agreement, or a denied renewal.
    Renewal,
    /// A definition of control, a merger clause, or a change of control without effect.
    Control,
}

/// Which skills analyse a clause that holds the kind (the checklist adds them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Analysis {
    /// None beyond the clause's own.
    None,
    /// The figures, and in share deals the indemnity.
    Liability,
    /// The figures.
    Sums,
    /// The periods, in construction contracts.
    Periods,
    /// The governance check, in share deals.
    Transfers,
}

impl Analysis {
    /// The ids of the skills that analyse this in `domain`.
    pub fn skills(self, domain: Domain) -> &'static [&'static str] {
        use crate::fidic::time_bar::FidicCalculateTimeBar;
        use crate::generic::extract_financial_terms::ExtractFinancialTerms;
        use crate::sha_spa::governance_check::ShaGovernanceCheck;
        use crate::sha_spa::indemnity_analysis::SpaIndemnityAnalysis;
        use toolwright::Skill;
        const FIGURES: &[&str] = &[<ExtractFinancialTerms as Skill>::ID];
        const FIGURES_AND_INDEMNITY: &[&str] = &[
            <ExtractFinancialTerms as Skill>::ID,
            <SpaIndemnityAnalysis as Skill>::ID,
        ];
        const PERIODS: &[&str] = &[<FidicCalculateTimeBar as Skill>::ID];
        const TRANSFERS: &[&str] = &[<ShaGovernanceCheck as Skill>::ID];
        match (self, domain) {
            (Self::Liability, Domain::ShaSpa) => FIGURES_AND_INDEMNITY,
            (Self::Liability | Self::Sums, _) => FIGURES,
            (Self::Periods, Domain::Fidic) => PERIODS,
            (Self::Transfers, Domain::ShaSpa) => TRANSFERS,
            _ => &[],
        }
    }
}

/// How the evaluation scores a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scoring {
    /// One of the 13 core categories, whose macro figures are the headline.
    pub core: bool,
    /// A contract without it is a meaningful negative: reporting it there is a false alarm
    /// (for a core kind, one of the categories whose absence matters).
    pub absence_matters: bool,
    /// Scored by the harness of planted expectation files (`eval`).
    pub planted: bool,
}

/// One kind of provision, as the catalogue declares it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The kind.
    pub kind: Provision,
    /// Its name: the `risk_type` of its findings, its key in playbooks, its JSON form.
    pub name: &'static str,
    /// Its title: the CUAD category's own spelling, or the evaluation's name for it.
    pub title: &'static str,
    /// A CUAD category: the classifier may learn it.
    pub cuad: bool,
    /// Its group.
    pub family: Family,
    /// The keyword scan finds it, so the rules decide it where the classifier does not read
    /// the clause (Chinese text) or has no category for it.
    pub scan: bool,
    /// How a sentence denies it.
    pub denial: Denial,
    /// A definition can state it ("\"Warranty Period\" means twelve months …"); for the
    /// other kinds a sentence that only defines a term ("\"Territory\" means …") is not
    /// the provision.
    pub definition_states_it: bool,
    /// The skills that analyse it.
    pub analysis: Analysis,
    /// Other kinds of finding that are readings of it (a skill's own finding about such a
    /// provision, parsed from its terms): they count as finding it, and the classifier's
    /// finding of the kind confirms them rather than repeating them.
    pub readings: &'static [RiskKind],
    /// How the evaluation scores it.
    pub scoring: Scoring,
}

macro_rules! catalogue {
    ($(
        $variant:ident {
            title: $title:literal,
            cuad: $cuad:literal,
            family: $family:ident,
            scan: $scan:literal,
            denial: $denial:ident,
            analysis: $analysis:ident,
            core: $core:literal,
            absence_matters: $absence:literal,
            planted: $planted:literal
            $(, readings: [$($reading:expr),* $(,)?])?
            $(, definition_states_it: $defines:literal)? $(,)?
        }
    ),* $(,)?) => {
        /// Every kind's entry, in report order ([`Provision::ALL`]'s).
        const ENTRIES: &[Entry] = &[$(Entry {
            kind: Provision::$variant,
            name: Provision::$variant.name(),
            title: $title,
            cuad: $cuad,
            family: Family::$family,
            scan: $scan,
            denial: Denial::$denial,
            definition_states_it: false $(|| $defines)?,
            analysis: Analysis::$analysis,
            readings: &[$($($reading),*)?],
            scoring: Scoring {
                core: $core,
                absence_matters: $absence,
                planted: $planted,
            },
        },)*];

        /// Every kind has an entry: a kind of the report without one is a match that does
        /// not cover it (and one listed twice, an unreachable pattern).
        const _: fn(Provision) = |kind| match kind {
            $(Provision::$variant => {})*
        };
    };
}

catalogue! {
    UncappedLiability { title: "Uncapped Liability", cuad: true, family: Liability, scan: true, denial: Liability, analysis: Liability, core: true, absence_matters: true, planted: true },
    LiabilityCap { title: "Cap On Liability", cuad: true, family: Liability, scan: true, denial: Liability, analysis: Liability, core: true, absence_matters: false, planted: true, readings: [RiskKind::Provision(Provision::UncappedLiability)] },
    LiquidatedDamages { title: "Liquidated Damages", cuad: true, family: Liability, scan: true, denial: LateInterest, analysis: Sums, core: true, absence_matters: true, planted: true, readings: [RiskKind::UncappedDelayDamages] },
    NoticeTimeBar { title: "Time Bar", cuad: false, family: Notice, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true, readings: [RiskKind::TimeBar, RiskKind::TimeBarShortened] },
    TerminationForConvenience { title: "Termination For Convenience", cuad: true, family: Termination, scan: true, denial: Termination, analysis: None, core: true, absence_matters: true, planted: true },
    TerminationForDefault { title: "Termination For Default", cuad: false, family: Termination, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    SiteRisk { title: "Site Risk", cuad: false, family: Site, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    ChangeOfControl { title: "Change Of Control", cuad: true, family: Transfer, scan: true, denial: Control, analysis: Transfers, core: true, absence_matters: true, planted: true },
    AssignmentRestriction { title: "Anti-Assignment", cuad: true, family: Transfer, scan: true, denial: None, analysis: Transfers, core: true, absence_matters: false, planted: true },
    DragAlong { title: "Drag-Along", cuad: false, family: Transfer, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    TagAlong { title: "Tag-Along", cuad: false, family: Transfer, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    PreEmption { title: "Pre-Emption", cuad: false, family: Transfer, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    FirstRefusal { title: "Rofr/Rofo/Rofn", cuad: true, family: Transfer, scan: true, denial: None, analysis: Transfers, core: true, absence_matters: false, planted: true },
    ReservedMatters { title: "Reserved Matters", cuad: false, family: Governance, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    Deadlock { title: "Deadlock", cuad: false, family: Governance, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    NonCompete { title: "Non-Compete", cuad: true, family: Restrictive, scan: true, denial: Restriction, analysis: None, core: true, absence_matters: true, planted: true },
    Exclusivity { title: "Exclusivity", cuad: true, family: Restrictive, scan: true, denial: Exclusivity, analysis: None, core: true, absence_matters: false, planted: true },
    RenewalNotice { title: "Notice Period To Terminate Renewal", cuad: true, family: Termination, scan: true, denial: Renewal, analysis: Periods, core: true, absence_matters: false, planted: true },
    GoverningLaw { title: "Governing Law", cuad: true, family: Boilerplate, scan: false, denial: None, analysis: None, core: true, absence_matters: false, planted: false },
    Insurance { title: "Insurance", cuad: true, family: Assurance, scan: false, denial: None, analysis: None, core: true, absence_matters: false, planted: false },
    WarrantyDuration { title: "Warranty Duration", cuad: true, family: Assurance, scan: false, denial: None, analysis: Periods, core: true, absence_matters: false, planted: false, definition_states_it: true },
    DocumentName { title: "Document Name", cuad: true, family: Identity, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    Parties { title: "Parties", cuad: true, family: Identity, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    AgreementDate { title: "Agreement Date", cuad: true, family: Identity, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    EffectiveDate { title: "Effective Date", cuad: true, family: Identity, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    ExpirationDate { title: "Expiration Date", cuad: true, family: Termination, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    RenewalTerm { title: "Renewal Term", cuad: true, family: Termination, scan: false, denial: Renewal, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    MostFavoredNation { title: "Most Favored Nation", cuad: true, family: Commercial, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    NoSolicitOfCustomers { title: "No-Solicit Of Customers", cuad: true, family: Restrictive, scan: false, denial: Restriction, analysis: None, core: false, absence_matters: false, planted: false },
    CompetitiveRestrictionException { title: "Competitive Restriction Exception", cuad: true, family: Restrictive, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    NoSolicitOfEmployees { title: "No-Solicit Of Employees", cuad: true, family: Restrictive, scan: false, denial: Restriction, analysis: None, core: false, absence_matters: false, planted: false },
    NonDisparagement { title: "Non-Disparagement", cuad: true, family: Restrictive, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    RevenueProfitSharing { title: "Revenue/Profit Sharing", cuad: true, family: Commercial, scan: false, denial: None, analysis: Sums, core: false, absence_matters: false, planted: false },
    PriceRestrictions { title: "Price Restrictions", cuad: true, family: Commercial, scan: false, denial: None, analysis: Sums, core: false, absence_matters: false, planted: false },
    MinimumCommitment { title: "Minimum Commitment", cuad: true, family: Commercial, scan: false, denial: None, analysis: Sums, core: false, absence_matters: false, planted: false },
    VolumeRestriction { title: "Volume Restriction", cuad: true, family: Commercial, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    IpOwnershipAssignment { title: "Ip Ownership Assignment", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    JointIpOwnership { title: "Joint Ip Ownership", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    LicenseGrant { title: "License Grant", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    NonTransferableLicense { title: "Non-Transferable License", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    AffiliateLicenseLicensor { title: "Affiliate License-Licensor", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    AffiliateLicenseLicensee { title: "Affiliate License-Licensee", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    UnlimitedLicense { title: "Unlimited/All-You-Can-Eat-License", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    IrrevocableOrPerpetualLicense { title: "Irrevocable Or Perpetual License", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    SourceCodeEscrow { title: "Source Code Escrow", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    PostTerminationServices { title: "Post-Termination Services", cuad: true, family: Termination, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    AuditRights { title: "Audit Rights", cuad: true, family: Commercial, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    CovenantNotToSue { title: "Covenant Not To Sue", cuad: true, family: Boilerplate, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    ThirdPartyBeneficiary { title: "Third Party Beneficiary", cuad: true, family: Boilerplate, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
}

/// Every kind, in report order.
pub static CATALOGUE: &[Entry] = ENTRIES;

// Every kind has its entry at its own index, so `CATALOGUE[kind as usize]` is its entry.
const _: () = {
    assert!(
        ENTRIES.len() == Provision::ALL.len(),
        "the catalogue has one entry per provision kind"
    );
    let mut i = 0;
    while i < ENTRIES.len() {
        assert!(
            ENTRIES[i].kind as usize == i,
            "the catalogue lists the kinds in the report's order"
        );
        i += 1;
    }
};

/// What the catalogue knows of a [`Provision`] beyond its name: its entry and what is read
/// from it. Implemented for [`Provision`] only (the kind is the report's type, its entry
/// this library's).
pub trait Catalogued: Sized {
    /// Its catalogue entry.
    fn entry(self) -> &'static Entry;

    /// Its title (the CUAD category's spelling where it is one).
    fn title(self) -> &'static str;

    /// The kind of a CUAD category or an evaluation category, by its title (`Cap On
    /// Liability`; letter case and the spelling of separators do not matter).
    fn from_title(title: &str) -> Option<Self>;

    /// The 13 core kinds, whose macro figures are the headline of an evaluation.
    fn core() -> impl Iterator<Item = Self> + Clone;

    /// The core kinds whose absence matters: reporting one where it is not is a false alarm
    /// a reader notices.
    fn absence_matters() -> impl Iterator<Item = Self> + Clone;

    /// The kinds the keyword scan finds.
    fn scanned() -> impl Iterator<Item = Self> + Clone;
}

impl Catalogued for Provision {
    fn entry(self) -> &'static Entry {
        &CATALOGUE[self as usize]
    }

    fn title(self) -> &'static str {
        self.entry().title
    }

    fn from_title(title: &str) -> Option<Self> {
        let key = snake(title);
        CATALOGUE
            .iter()
            .find(|e| e.title == title || snake(e.title) == key)
            .map(|e| e.kind)
    }

    fn core() -> impl Iterator<Item = Self> + Clone {
        Self::all().filter(|k| k.entry().scoring.core)
    }

    fn absence_matters() -> impl Iterator<Item = Self> + Clone {
        Self::core().filter(|k| k.entry().scoring.absence_matters)
    }

    fn scanned() -> impl Iterator<Item = Self> + Clone {
        Self::all().filter(|k| k.entry().scan)
    }
}

/// `Cap On Liability` -> `cap_on_liability`, `Rofr/Rofo/Rofn` -> `rofr_rofo_rofn`.
fn snake(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    for word in title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push('_');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_entry_named_and_titled_as_it() {
        assert_eq!(CATALOGUE.len(), Provision::ALL.len());
        for (entry, kind) in CATALOGUE.iter().zip(Provision::all()) {
            assert_eq!(entry.kind, kind);
            assert_eq!(kind.entry().kind, kind);
            assert_eq!(entry.name, kind.name());
            assert_eq!(Provision::from_title(entry.title), Some(kind));
        }
    }

    #[test]
    fn the_built_in_model_learned_exactly_the_cuad_kinds() {
        let model = crate::detect::model::ProvisionModel::embedded().unwrap();
        let mut learned: Vec<Provision> = model.kinds().collect();
        learned.sort_unstable();
        let cuad: Vec<Provision> = Provision::all().filter(|k| k.entry().cuad).collect();
        assert_eq!(learned, cuad);
    }

    #[test]
    fn a_cuad_kind_is_named_after_its_category() {
        for entry in CATALOGUE.iter().filter(|e| e.cuad) {
            assert_eq!(snake(entry.title), entry.name, "{}", entry.title);
        }
        assert_eq!(
            Provision::from_title("Cap on Liability"),
            Some(Provision::LiabilityCap)
        );
        assert_eq!(Provision::from_title("Governing Law Clause"), None);
    }

    #[test]
    fn the_headline_sets_are_the_documented_ones() {
        assert_eq!(Provision::core().count(), 13);
        let absence: Vec<_> = Provision::absence_matters().map(Provision::name).collect();
        assert_eq!(
            absence,
            [
                "uncapped_liability",
                "liquidated_damages",
                "termination_for_convenience",
                "change_of_control",
                "non_compete"
            ]
        );
        assert_eq!(Provision::scanned().count(), 18);
    }
}
