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
