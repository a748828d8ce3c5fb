//! The catalogue of provision kinds: every kind the review reports is declared here once,
//! with everything the library needs to know of it — its name in reports, its CUAD category,
//! its family, how a sentence denies it, which skills analyse it, and how the evaluation
//! scores it. The classifier's categories, the keyword scan, the playbooks, the checklist
//! and the evaluation all read this table; a test fails when one of them does not know a
//! kind. Adding a kind is one entry here plus its tests.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
        $(#[doc = $doc:literal])*
        $variant:ident {
            name: $name:literal,
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
        /// A kind of provision; its [`name`](Provision::name) is the `risk_type` of its
        /// findings. Declared, with all it carries, in the [catalogue](self).
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema,
        )]
        pub enum Provision {
            $($(#[doc = $doc])* #[serde(rename = $name)] $variant,)*
        }

        /// Every kind, in report order.
        pub static CATALOGUE: &[Entry] = &[$(Entry {
            kind: Provision::$variant,
            name: $name,
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
    };
}

catalogue! {
    /// Liability with no cap, or a cap that excludes some liabilities.
    UncappedLiability { name: "uncapped_liability", title: "Uncapped Liability", cuad: true, family: Liability, scan: true, denial: Liability, analysis: Liability, core: true, absence_matters: true, planted: true },
    /// A cap on liability or an exclusion of indirect loss.
    LiabilityCap { name: "cap_on_liability", title: "Cap On Liability", cuad: true, family: Liability, scan: true, denial: Liability, analysis: Liability, core: true, absence_matters: false, planted: true, readings: [RiskKind::Provision(Provision::UncappedLiability)] },
    /// Liquidated or delay damages (with or without a cap).
    LiquidatedDamages { name: "liquidated_damages", title: "Liquidated Damages", cuad: true, family: Liability, scan: true, denial: LateInterest, analysis: Sums, core: true, absence_matters: true, planted: true, readings: [RiskKind::UncappedDelayDamages] },
    /// A notice or claim period that is a condition of recovery.
    NoticeTimeBar { name: "notice_time_bar", title: "Time Bar", cuad: false, family: Notice, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true, readings: [RiskKind::TimeBar, RiskKind::TimeBarShortened] },
    /// A right to end the contract without cause.
    TerminationForConvenience { name: "termination_for_convenience", title: "Termination For Convenience", cuad: true, family: Termination, scan: true, denial: Termination, analysis: None, core: true, absence_matters: true, planted: true },
    /// Termination for breach, default or insolvency, and what the defaulting party pays.
    TerminationForDefault { name: "termination_for_default", title: "Termination For Default", cuad: false, family: Termination, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    /// Site, ground or physical conditions placed at one party's risk.
    SiteRisk { name: "site_risk", title: "Site Risk", cuad: false, family: Site, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    /// Rights triggered by a change of control, merger or acquisition.
    ChangeOfControl { name: "change_of_control", title: "Change Of Control", cuad: true, family: Transfer, scan: true, denial: Control, analysis: Transfers, core: true, absence_matters: true, planted: true },
    /// A restriction on assigning or transferring the contract.
    AssignmentRestriction { name: "anti_assignment", title: "Anti-Assignment", cuad: true, family: Transfer, scan: true, denial: None, analysis: Transfers, core: true, absence_matters: false, planted: true },
    /// Majority holders can force the others to sell.
    DragAlong { name: "drag_along", title: "Drag-Along", cuad: false, family: Transfer, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    /// Minority holders can join a sale.
    TagAlong { name: "tag_along", title: "Tag-Along", cuad: false, family: Transfer, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    /// Holders may subscribe for new shares before others.
    PreEmption { name: "pre_emption", title: "Pre-Emption", cuad: false, family: Transfer, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    /// Right of first refusal, first offer or first negotiation.
    FirstRefusal { name: "rofr_rofo_rofn", title: "Rofr/Rofo/Rofn", cuad: true, family: Transfer, scan: true, denial: None, analysis: Transfers, core: true, absence_matters: false, planted: true },
    /// Matters that need a special consent, unanimity or a supermajority.
    ReservedMatters { name: "reserved_matters", title: "Reserved Matters", cuad: false, family: Governance, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    /// What happens when the parties or the board cannot decide.
    Deadlock { name: "deadlock", title: "Deadlock", cuad: false, family: Governance, scan: true, denial: None, analysis: None, core: false, absence_matters: true, planted: true },
    /// A promise not to compete.
    NonCompete { name: "non_compete", title: "Non-Compete", cuad: true, family: Restrictive, scan: true, denial: Restriction, analysis: None, core: true, absence_matters: true, planted: true },
    /// An exclusive appointment, licence or dealing obligation.
    Exclusivity { name: "exclusivity", title: "Exclusivity", cuad: true, family: Restrictive, scan: true, denial: Exclusivity, analysis: None, core: true, absence_matters: false, planted: true },
    /// Automatic renewal unless notice is given by a date.
    RenewalNotice { name: "notice_period_to_terminate_renewal", title: "Notice Period To Terminate Renewal", cuad: true, family: Termination, scan: true, denial: Renewal, analysis: Periods, core: true, absence_matters: false, planted: true },
    /// The law that governs the agreement.
    GoverningLaw { name: "governing_law", title: "Governing Law", cuad: true, family: Boilerplate, scan: false, denial: None, analysis: None, core: true, absence_matters: false, planted: false },
    /// Insurance a party must carry.
    Insurance { name: "insurance", title: "Insurance", cuad: true, family: Assurance, scan: false, denial: None, analysis: None, core: true, absence_matters: false, planted: false },
    /// How long a warranty lasts.
    WarrantyDuration { name: "warranty_duration", title: "Warranty Duration", cuad: true, family: Assurance, scan: false, denial: None, analysis: Periods, core: true, absence_matters: false, planted: false, definition_states_it: true },
    /// The agreement's name.
    DocumentName { name: "document_name", title: "Document Name", cuad: true, family: Identity, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    /// The parties.
    Parties { name: "parties", title: "Parties", cuad: true, family: Identity, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    /// The date of the agreement.
    AgreementDate { name: "agreement_date", title: "Agreement Date", cuad: true, family: Identity, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    /// The date it takes effect.
    EffectiveDate { name: "effective_date", title: "Effective Date", cuad: true, family: Identity, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    /// The date its initial term ends.
    ExpirationDate { name: "expiration_date", title: "Expiration Date", cuad: true, family: Termination, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    /// The term it renews for.
    RenewalTerm { name: "renewal_term", title: "Renewal Term", cuad: true, family: Termination, scan: false, denial: Renewal, analysis: None, core: false, absence_matters: false, planted: false, definition_states_it: true },
    /// A party gets terms at least as good as any other customer's.
    MostFavoredNation { name: "most_favored_nation", title: "Most Favored Nation", cuad: true, family: Commercial, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A promise not to solicit the other party's customers.
    NoSolicitOfCustomers { name: "no_solicit_of_customers", title: "No-Solicit Of Customers", cuad: true, family: Restrictive, scan: false, denial: Restriction, analysis: None, core: false, absence_matters: false, planted: false },
    /// What a restriction on competing leaves allowed.
    CompetitiveRestrictionException { name: "competitive_restriction_exception", title: "Competitive Restriction Exception", cuad: true, family: Restrictive, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A promise not to solicit or hire the other party's employees.
    NoSolicitOfEmployees { name: "no_solicit_of_employees", title: "No-Solicit Of Employees", cuad: true, family: Restrictive, scan: false, denial: Restriction, analysis: None, core: false, absence_matters: false, planted: false },
    /// A promise not to disparage the other party.
    NonDisparagement { name: "non_disparagement", title: "Non-Disparagement", cuad: true, family: Restrictive, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// One party's duty to share revenue or profit.
    RevenueProfitSharing { name: "revenue_profit_sharing", title: "Revenue/Profit Sharing", cuad: true, family: Commercial, scan: false, denial: None, analysis: Sums, core: false, absence_matters: false, planted: false },
    /// A limit on raising or lowering prices.
    PriceRestrictions { name: "price_restrictions", title: "Price Restrictions", cuad: true, family: Commercial, scan: false, denial: None, analysis: Sums, core: false, absence_matters: false, planted: false },
    /// A minimum to buy or sell.
    MinimumCommitment { name: "minimum_commitment", title: "Minimum Commitment", cuad: true, family: Commercial, scan: false, denial: None, analysis: Sums, core: false, absence_matters: false, planted: false },
    /// A limit on the quantity a party may buy or use.
    VolumeRestriction { name: "volume_restriction", title: "Volume Restriction", cuad: true, family: Commercial, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// Intellectual property assigned to the other party.
    IpOwnershipAssignment { name: "ip_ownership_assignment", title: "Ip Ownership Assignment", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// Intellectual property owned jointly.
    JointIpOwnership { name: "joint_ip_ownership", title: "Joint Ip Ownership", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A licence granted.
    LicenseGrant { name: "license_grant", title: "License Grant", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A licence that may not be transferred.
    NonTransferableLicense { name: "non_transferable_license", title: "Non-Transferable License", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A licence from the licensor's affiliates.
    AffiliateLicenseLicensor { name: "affiliate_license_licensor", title: "Affiliate License-Licensor", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A licence to the licensee's affiliates.
    AffiliateLicenseLicensee { name: "affiliate_license_licensee", title: "Affiliate License-Licensee", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A licence without limit of use or copies.
    UnlimitedLicense { name: "unlimited_all_you_can_eat_license", title: "Unlimited/All-You-Can-Eat-License", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A licence that cannot be revoked or never ends.
    IrrevocableOrPerpetualLicense { name: "irrevocable_or_perpetual_license", title: "Irrevocable Or Perpetual License", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// Source code deposited with a third party.
    SourceCodeEscrow { name: "source_code_escrow", title: "Source Code Escrow", cuad: true, family: Licence, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// Services owed after the agreement ends.
    PostTerminationServices { name: "post_termination_services", title: "Post-Termination Services", cuad: true, family: Termination, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A right to audit the other party's books.
    AuditRights { name: "audit_rights", title: "Audit Rights", cuad: true, family: Commercial, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A promise not to sue.
    CovenantNotToSue { name: "covenant_not_to_sue", title: "Covenant Not To Sue", cuad: true, family: Boilerplate, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
    /// A third party may enforce the agreement.
    ThirdPartyBeneficiary { name: "third_party_beneficiary", title: "Third Party Beneficiary", cuad: true, family: Boilerplate, scan: false, denial: None, analysis: None, core: false, absence_matters: false, planted: false },
}

impl Provision {
    /// Every kind, in report order.
    pub fn all() -> impl Iterator<Item = Provision> + Clone {
        CATALOGUE.iter().map(|e| e.kind)
    }

    /// Its catalogue entry.
    pub fn entry(self) -> &'static Entry {
        &CATALOGUE[self as usize]
    }

    /// Its name: the `risk_type` of its findings, and its JSON form. A kind that is a CUAD
    /// category carries the category's name in snake case (`cap_on_liability`,
    /// `rofr_rofo_rofn`), so a CUAD-based scorer can read the report.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// Its title (the CUAD category's spelling where it is one).
    pub fn title(self) -> &'static str {
        self.entry().title
    }

    /// The kind named `name` (its [`name`](Provision::name)), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        CATALOGUE.iter().find(|e| e.name == name).map(|e| e.kind)
    }

    /// The kind of a CUAD category or an evaluation category, by its title (`Cap On
    /// Liability`; letter case and the spelling of separators do not matter).
    pub fn from_title(title: &str) -> Option<Self> {
        let key = snake(title);
        CATALOGUE
            .iter()
            .find(|e| e.title == title || snake(e.title) == key)
            .map(|e| e.kind)
    }

    /// The 13 core kinds, whose macro figures are the headline of an evaluation.
    pub fn core() -> impl Iterator<Item = Provision> + Clone {
        Self::all().filter(|k| k.entry().scoring.core)
    }

    /// The core kinds whose absence matters: reporting one where it is not is a false alarm
    /// a reader notices.
    pub fn absence_matters() -> impl Iterator<Item = Provision> + Clone {
        Self::core().filter(|k| k.entry().scoring.absence_matters)
    }

    /// The kinds the keyword scan finds.
    pub fn scanned() -> impl Iterator<Item = Provision> + Clone {
        Self::all().filter(|k| k.entry().scan)
    }
}

/// Read by name, as a plain string, so a playbook's error names the key it is at.
impl<'de> Deserialize<'de> for Provision {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Provision::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
            serde::de::Error::custom(format!(
                "unknown kind `{name}`, expected one of the catalogue's: {}",
                known.join(", ")
            ))
        })
    }
}

impl std::fmt::Display for Provision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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
    fn entries_are_in_declaration_order_and_names_are_unique() {
        for (i, entry) in CATALOGUE.iter().enumerate() {
            assert_eq!(entry.kind as usize, i, "{}", entry.name);
            assert_eq!(Provision::from_name(entry.name), Some(entry.kind));
            assert_eq!(Provision::from_title(entry.title), Some(entry.kind));
            assert_eq!(
                serde_json::to_value(entry.kind).unwrap(),
                serde_json::json!(entry.name)
            );
        }
        let mut names: Vec<_> = CATALOGUE.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len());
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
    fn a_name_reads_back_and_a_stranger_is_refused_with_the_known_ones() {
        for kind in Provision::all() {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(serde_json::from_str::<Provision>(&json).unwrap(), kind);
        }
        let err = serde_json::from_str::<Provision>("\"office_plants\"").unwrap_err();
        assert!(
            err.to_string().contains("unknown kind `office_plants`"),
            "{err}"
        );
        assert!(err.to_string().contains("deadlock"), "{err}");
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
