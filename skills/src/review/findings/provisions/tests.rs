use super::*;
use crate::review::findings::kinds::Catalogued;

fn kinds(text: &str, our_party: &str) -> Vec<(Provision, RiskLevel)> {
    scan_clause(text, our_party)
        .into_iter()
        .map(|f| (f.provision, f.level))
        .collect()
}

fn has(text: &str, provision: Provision) -> bool {
    kinds(text, "").iter().any(|(p, _)| *p == provision)
}

#[test]
fn every_family_in_english_and_chinese() {
    let cases: &[(&str, Provision)] = &[
        ("Except for fraud or wilful misconduct, the Supplier's aggregate liability shall not exceed the fees paid.", Provision::UncappedLiability),
        ("The Contractor shall be liable without limitation as to amount for any breach of confidentiality.", Provision::UncappedLiability),
        ("乙方应赔偿甲方因此遭受的全部损失。", Provision::UncappedLiability),
        ("In no event shall either party be liable for any indirect or consequential loss.", Provision::LiabilityCap),
        ("乙方的赔偿总额不超过合同价款的百分之十。", Provision::LiabilityCap),
        ("The Contractor shall pay delay damages of USD 5,000 for each day of delay.", Provision::LiquidatedDamages),
        ("承包人逾期竣工的，每逾期一日按合同价款的千分之一支付违约金。", Provision::LiquidatedDamages),
        ("The Contractor shall give notice within 28 days, failing which the Contractor shall not be entitled to any additional payment.", Provision::NoticeTimeBar),
        ("The Contractor shall promptly, and before the conditions are disturbed, give written notice.\nNo request for an adjustment shall be allowed unless the Contractor has given the written notice required.", Provision::NoticeTimeBar),
        ("承包人应在索赔事件发生后28天内提出索赔意向通知，逾期未提出的，视为放弃索赔权利。", Provision::NoticeTimeBar),
        ("The Employer may terminate this Contract for convenience at any time.", Provision::TerminationForConvenience),
        ("Either party may terminate this Agreement at any time upon ninety (90) days' prior written notice.", Provision::TerminationForConvenience),
        ("发包人可以随时解除合同。", Provision::TerminationForConvenience),
        ("The licence runs for ten years unless earlier terminated by either party on six months' written notice.", Provision::TerminationForConvenience),
        ("This Agreement continues until sooner terminated by the Customer upon thirty (30) days' notice to the Supplier.", Provision::TerminationForConvenience),
        ("If the Contractor fails to remedy the breach, the Employer may terminate the Contract and the Contractor shall pay the excess cost of completion.", Provision::TerminationForDefault),
        ("因乙方违约导致合同解除的，乙方应赔偿甲方的全部损失。", Provision::TerminationForDefault),
        ("The Contractor shall be deemed to have inspected the Site and to have satisfied itself as to the ground conditions.", Provision::SiteRisk),
        ("地下障碍物等现场条件由承包人自行承担风险。", Provision::SiteRisk),
        ("If the Operator undergoes a Change of Control, the Owner may terminate this Agreement.", Provision::ChangeOfControl),
        ("一方控制权发生变更的，另一方有权解除本合同。", Provision::ChangeOfControl),
        ("The Licence may not be transferred, including as a result of a merger or a spin-off, without the Licensor's prior written consent.", Provision::ChangeOfControl),
        ("The Supplier may assign its rights under this Agreement to a successor by merger without the consent of the Buyer.", Provision::ChangeOfControl),
        ("Neither party may assign this Agreement without the prior written consent of the other party.", Provision::AssignmentRestriction),
        ("未经发包人同意，承包人不得将工程转包。", Provision::AssignmentRestriction),
        ("Holders of 60% of the shares may require the other shareholders to sell their shares on the same terms.", Provision::DragAlong),
        ("The Investors shall have a tag-along right on any sale by the Founders.", Provision::TagAlong),
        ("Each Major Investor has a pro rata right to purchase new securities issued by the Company.", Provision::PreEmption),
        ("The other shareholders shall have a right of first refusal on any transfer.", Provision::FirstRefusal),
        ("一方转让其出资额时，他方有优先购买权。", Provision::FirstRefusal),
        ("The following matters require the unanimous approval of the directors.", Provision::ReservedMatters),
        ("下列事项须经出席董事会会议的董事一致通过。", Provision::ReservedMatters),
        ("If the board is unable to reach a decision on a Reserved Matter, the matter shall be referred to the chief executives.", Provision::Deadlock),
        ("The Seller shall not, for three years, engage in any business that competes with the Business.", Provision::NonCompete),
        ("甲方不得从事与合营公司相竞争的业务。", Provision::NonCompete),
        ("The Partner shall not, directly or indirectly, enter into another joint venture with any person for the sale of goods similar to the Products in the Territory.", Provision::NonCompete),
        ("The Supplier appoints the Distributor as its exclusive distributor in the Territory.", Provision::Exclusivity),
        ("甲方授予乙方在中国境内的独家代理权。", Provision::Exclusivity),
        ("This Agreement shall automatically renew for successive one-year terms unless either party gives notice of non-renewal.", Provision::RenewalNotice),
    ];
    for (text, provision) in cases {
        assert!(
            has(text, *provision),
            "{provision:?} not found in {text:?}: {:?}",
            kinds(text, "")
        );
    }
    // The scan finds exactly the kinds the catalogue says it does.
    for kind in Provision::all() {
        assert_eq!(
            cases.iter().any(|(_, p)| *p == kind),
            kind.entry().scan,
            "{kind}"
        );
    }
}

#[test]
fn a_passive_termination_for_a_cause_is_not_for_convenience() {
    let text = "The lease runs for two years unless sooner terminated by either party for material breach on 30 days' notice.";
    assert!(
        !has(text, Provision::TerminationForConvenience),
        "{:?}",
        kinds(text, "")
    );
    assert!(has(text, Provision::TerminationForDefault));
}

#[test]
fn ordinary_words_are_not_provisions() {
    for text in [
        "The courts of England shall have exclusive jurisdiction.",
        "This is the sole and exclusive remedy of the Buyer.",
        "Prices are exclusive of VAT.",
        "The Contractor shall submit the programme within 28 days.",
        "The Supplier shall deliver the Goods to the Site.",
        "The Company grants a non-exclusive licence.",
        "This Agreement binds the parties and their successors and permitted assigns.",
        "The effective date of a merger is the date of its registration.",
        "This Agreement continues for five years unless sooner terminated under Clause 9.",
    ] {
        assert!(
            kinds(text, "").is_empty(),
            "{text:?}: {:?}",
            kinds(text, "")
        );
    }
}

#[test]
fn levels_follow_our_party() {
    let text = "The Contractor shall pay liquidated damages of 0.1% per day of delay, without any maximum.";
    let text = text.replace(", without any maximum", "");
    let level = |party: &str| {
        scan_clause(&text, party)
            .into_iter()
            .find(|f| f.provision == Provision::LiquidatedDamages)
            .map(|f| (f.level, f.binds_our_party))
    };
    assert_eq!(level("Contractor"), Some((RiskLevel::High, Some(true))));
    assert_eq!(level("Employer"), Some((RiskLevel::Low, Some(false))));
    assert_eq!(level(""), Some((RiskLevel::High, None)));
    let tfc = "The Employer may terminate the Contract for convenience.";
    let level = |party: &str| scan_clause(tfc, party)[0].level;
    assert_eq!(
        level("Contractor"),
        RiskLevel::High,
        "a right of the other side binds us"
    );
    assert_eq!(level("Employer"), RiskLevel::Low, "our own right");
    let mutual = "Neither Party shall assign this Agreement without consent.";
    assert_eq!(scan_clause(mutual, "Buyer")[0].level, RiskLevel::Medium);
}

#[test]
fn findings_quote_the_words() {
    let text = "1.1 Scope.\nThe Contractor shall give notice\nwithin 14 days, failing which no extension shall be granted.";
    let found = scan_clause(text, "Contractor");
    let bar = found
        .iter()
        .find(|f| f.provision == Provision::NoticeTimeBar)
        .expect("time bar");
    assert!(
        bar.quote.contains("within 14 days, failing which"),
        "{}",
        bar.quote
    );
    assert!(
        bar.description.contains("within 14 days"),
        "{}",
        bar.description
    );
    assert_eq!(bar.bound, Bound::Party("Contractor".into()));
}

#[test]
fn sentences_join_broken_lines() {
    let s = crate::text::joined_sentences(
        "The Company, Inc. shall\npay the fee.  Next one here.\n\nNew paragraph text",
    );
    let texts: Vec<&str> = s.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "The Company, Inc. shall pay the fee.",
            "Next one here.",
            "New paragraph text"
        ]
    );
}

#[test]
fn levels_come_from_the_playbook_and_a_rule_moves_them_one_step() {
    let playbook = Playbook::parse(
        r#"{"domain": "ours", "kinds": {
            "liquidated_damages": {"binds_us": "medium", "binds_them": null},
            "notice_time_bar": {"binds_us": "low", "binds_them": "low"}
        }}"#,
        std::path::Path::new("ours.json"),
    )
    .unwrap();
    let scan = |text: &str, party: &str| -> Vec<(Provision, RiskLevel)> {
        scan_clause_for(text, party, &[], &playbook)
            .into_iter()
            .map(|f| (f.provision, f.level))
            .collect()
    };
    let uncapped =
        "The Contractor shall pay liquidated damages of 0.1% of the price for each day of delay.";
    let capped = "The Contractor shall pay liquidated damages of 0.1% of the price for each day of delay, up to a maximum of 10% of the price.";
    assert_eq!(
        scan(uncapped, "Contractor"),
        [(Provision::LiquidatedDamages, RiskLevel::Medium)]
    );
    assert_eq!(
        scan(capped, "Contractor"),
        [(Provision::LiquidatedDamages, RiskLevel::Low)],
        "a stated maximum: one step milder"
    );
    assert!(
        scan(uncapped, "Employer").is_empty(),
        "binds_them null: not reported"
    );
    let time_bar = "The Contractor shall give notice within 28 days, failing which the Contractor shall not be entitled to any additional payment.";
    assert_eq!(
        scan(time_bar, "Contractor"),
        [(Provision::NoticeTimeBar, RiskLevel::Low)]
    );
    let tfc = "The Employer may terminate this Contract for convenience at any time.";
    assert!(
        scan(tfc, "Contractor").is_empty(),
        "a kind the playbook leaves out"
    );
    assert!(
        !scan_clause(tfc, "Contractor").is_empty(),
        "the generic playbook reports it"
    );
}

#[test]
fn a_named_drag_or_tag_along_is_what_the_scan_finds_and_the_governance_check_reads() {
    for (text, drag, tag) in [
        (
            "the investors may exercise their drag-along right.",
            true,
            false,
        ),
        ("创始股东享有领售权。", true, false),
        ("the minority shall have a tag along right.", false, true),
        ("投资方享有随售权。", false, true),
        ("a co-sale right applies to any transfer.", false, true),
        ("the investors have a co sale right.", false, true),
        // A word that merely ends in "co" before "sale" names no right.
        (
            "the tobacco sale completes on the closing date.",
            false,
            false,
        ),
    ] {
        assert_eq!(names_drag_along(text), drag, "{text}");
        assert_eq!(names_tag_along(text), tag, "{text}");
        assert_eq!(has(text, Provision::DragAlong), drag, "{text}");
        assert_eq!(has(text, Provision::TagAlong), tag, "{text}");
    }
    // Described by its effect only: the scan finds it, the check reads no named right.
    let described =
        "holders of 60% of the shares may require the other shareholders to sell their shares.";
    assert!(has(described, Provision::DragAlong));
    assert!(!names_drag_along(described) && !names_tag_along(described));
}

#[test]
fn a_named_deadlock_is_what_the_scan_finds_and_the_governance_check_reads() {
    for text in [
        "if a deadlock arises, the matter goes to mediation.",
        "董事会出现僵局的，提交调解。",
    ] {
        assert!(names_deadlock(text), "{text}");
        assert!(has(text, Provision::Deadlock), "{text}");
    }
    let described =
        "if the board is unable to reach a decision on a reserved matter, it is referred.";
    assert!(has(described, Provision::Deadlock));
    assert!(!names_deadlock(described));
    assert!(!names_deadlock("the board meets quarterly."));
}

/// The words a pattern lets stand between its terms (`engage … in`, `assign … to a
/// successor`) are counted by spaces: a word of non-ASCII letters is one of them, as an
/// English one is, and the count still bounds the gap.
#[test]
fn words_between_terms_are_counted_whatever_their_letters() {
    let english = "The Seller shall not engage through its local affiliate in any business that competes with the Company.";
    let accented = "The Seller shall not engage through its société affiliée in any business that competes with the Company.";
    let too_many = "The Seller shall not engage through any one of its many local and foreign affiliates and agents in any business that competes with the Company.";
    assert!(has(english, Provision::NonCompete));
    assert!(has(accented, Provision::NonCompete));
    assert!(!has(too_many, Provision::NonCompete));
    let successor = "The Supplier may assign its rights under this Agreement to a successor by merger without the consent of the Buyer.";
    let named = "The Supplier may assign its rights under the Contrat de Société to a successor by merger without the consent of the Buyer.";
    assert!(has(successor, Provision::ChangeOfControl));
    assert!(has(named, Provision::ChangeOfControl));
}
