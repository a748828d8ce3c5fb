//! The provision kinds a review reports, by name: the [`Provision`] enum and the name each
//! kind has in reports (the `risk_type` of its findings, its key in playbooks, its JSON
//! form). What the review library knows of each kind besides (its CUAD title, family, the
//! skills that analyse it, how it is scored) is its catalogue's, in `clausewright-skills`
//! (`review::kinds`), keyed by this enum.

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

macro_rules! provisions {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal,)*) => {
        /// A kind of provision; its [`name`](Provision::name) is the `risk_type` of its
        /// findings. Declared here with its name, in report order; the review library's
        /// catalogue (`clausewright_skills::review::kinds`) carries the rest of what it
        /// knows of each kind.
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema,
        )]
        // The schema's description: the rustdoc above links into this crate's docs.
        #[schemars(
            description = "A kind of provision, by its name in reports: the `risk_type` of its findings and its key in playbooks."
        )]
        pub enum Provision {
            $($(#[doc = $doc])* #[serde(rename = $name)] $variant,)*
        }

        impl Provision {
            /// Every kind, in report order (declaration order: `kind as usize` is its
            /// index here).
            pub const ALL: &'static [Provision] = &[$(Provision::$variant,)*];

            /// Its name: the `risk_type` of its findings, and its JSON form. A kind that is
            /// a CUAD category carries the category's name in snake case
            /// (`cap_on_liability`, `rofr_rofo_rofn`), so a CUAD-based scorer can read the
            /// report.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }
        }
    };
}

provisions! {
    /// Liability with no cap, or a cap that excludes some liabilities.
    UncappedLiability => "uncapped_liability",
    /// A cap on liability or an exclusion of indirect loss.
    LiabilityCap => "cap_on_liability",
    /// Liquidated or delay damages (with or without a cap).
    LiquidatedDamages => "liquidated_damages",
    /// A notice or claim period that is a condition of recovery.
    NoticeTimeBar => "notice_time_bar",
    /// A right to end the contract without cause.
    TerminationForConvenience => "termination_for_convenience",
    /// Termination for breach, default or insolvency, and what the defaulting party pays.
    TerminationForDefault => "termination_for_default",
    /// Site, ground or physical conditions placed at one party's risk.
    SiteRisk => "site_risk",
    /// Rights triggered by a change of control, merger or acquisition.
    ChangeOfControl => "change_of_control",
    /// A restriction on assigning or transferring the contract.
    AssignmentRestriction => "anti_assignment",
    /// Majority holders can force the others to sell.
    DragAlong => "drag_along",
    /// Minority holders can join a sale.
    TagAlong => "tag_along",
    /// Holders may subscribe for new shares before others.
    PreEmption => "pre_emption",
    /// Right of first refusal, first offer or first negotiation.
    FirstRefusal => "rofr_rofo_rofn",
    /// Matters that need a special consent, unanimity or a supermajority.
    ReservedMatters => "reserved_matters",
    /// What happens when the parties or the board cannot decide.
    Deadlock => "deadlock",
    /// A promise not to compete.
    NonCompete => "non_compete",
    /// An exclusive appointment, licence or dealing obligation.
    Exclusivity => "exclusivity",
    /// Automatic renewal unless notice is given by a date.
    RenewalNotice => "notice_period_to_terminate_renewal",
    /// The law that governs the agreement.
    GoverningLaw => "governing_law",
    /// Insurance a party must carry.
    Insurance => "insurance",
    /// How long a warranty lasts.
    WarrantyDuration => "warranty_duration",
    /// The agreement's name.
    DocumentName => "document_name",
    /// The parties.
    Parties => "parties",
    /// The date of the agreement.
    AgreementDate => "agreement_date",
    /// The date it takes effect.
    EffectiveDate => "effective_date",
    /// The date its initial term ends.
    ExpirationDate => "expiration_date",
    /// The term it renews for.
    RenewalTerm => "renewal_term",
    /// A party gets terms at least as good as any other customer's.
    MostFavoredNation => "most_favored_nation",
    /// A promise not to solicit the other party's customers.
    NoSolicitOfCustomers => "no_solicit_of_customers",
    /// What a restriction on competing leaves allowed.
    CompetitiveRestrictionException => "competitive_restriction_exception",
    /// A promise not to solicit or hire the other party's employees.
    NoSolicitOfEmployees => "no_solicit_of_employees",
    /// A promise not to disparage the other party.
    NonDisparagement => "non_disparagement",
    /// One party's duty to share revenue or profit.
    RevenueProfitSharing => "revenue_profit_sharing",
    /// A limit on raising or lowering prices.
    PriceRestrictions => "price_restrictions",
    /// A minimum to buy or sell.
    MinimumCommitment => "minimum_commitment",
    /// A limit on the quantity a party may buy or use.
    VolumeRestriction => "volume_restriction",
    /// Intellectual property assigned to the other party.
    IpOwnershipAssignment => "ip_ownership_assignment",
    /// Intellectual property owned jointly.
    JointIpOwnership => "joint_ip_ownership",
    /// A licence granted.
    LicenseGrant => "license_grant",
    /// A licence that may not be transferred.
    NonTransferableLicense => "non_transferable_license",
    /// A licence from the licensor's affiliates.
    AffiliateLicenseLicensor => "affiliate_license_licensor",
    /// A licence to the licensee's affiliates.
    AffiliateLicenseLicensee => "affiliate_license_licensee",
    /// A licence without limit of use or copies.
    UnlimitedLicense => "unlimited_all_you_can_eat_license",
    /// A licence that cannot be revoked or never ends.
    IrrevocableOrPerpetualLicense => "irrevocable_or_perpetual_license",
    /// Source code deposited with a third party.
    SourceCodeEscrow => "source_code_escrow",
    /// Services owed after the agreement ends.
    PostTerminationServices => "post_termination_services",
    /// A right to audit the other party's books.
    AuditRights => "audit_rights",
    /// A promise not to sue.
    CovenantNotToSue => "covenant_not_to_sue",
    /// A third party may enforce the agreement.
    ThirdPartyBeneficiary => "third_party_beneficiary",
}

impl Provision {
    /// Every kind, in report order.
    pub fn all() -> impl Iterator<Item = Provision> + Clone {
        Self::ALL.iter().copied()
    }

    /// The kind named `name` (its [`name`](Provision::name)), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::all().find(|kind| kind.name() == name)
    }
}

/// Read by name, as a plain string, so a playbook's error names the key it is at.
impl<'de> Deserialize<'de> for Provision {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(deserializer)?;
        Provision::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = Provision::all().map(Provision::name).collect();
            serde::de::Error::custom(format!(
                "unknown kind `{name}`, expected one of the catalogue's: {}",
                known.join(", ")
            ))
        })
    }
}

impl fmt::Display for Provision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_in_declaration_order_and_names_are_unique() {
        for (i, kind) in Provision::all().enumerate() {
            assert_eq!(kind as usize, i, "{kind}");
            assert_eq!(Provision::from_name(kind.name()), Some(kind));
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.name())
            );
        }
        let mut names: Vec<_> = Provision::all().map(Provision::name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Provision::ALL.len());
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
}
