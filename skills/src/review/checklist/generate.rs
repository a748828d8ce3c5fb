//! A review checklist made from the document itself, for when the user gives none.

use toolwright::Skill;

use crate::document::{find_references, Clause, DocumentStructure};
use crate::generic::extract_financial_terms::has_financial_terms;
use crate::parallel;
use crate::review::findings::kinds::Catalogued;
use crate::review::findings::Playbook;
use crate::review::types::RiskLevel;
use crate::state::{ChecklistItem, Domain, Priority};

/// Topics that make a clause critical for any party.
const CRITICAL_TOPICS: [&str; 22] = [
    "payment",
    "price",
    "liabilit",
    "indemn",
    "termination",
    "delay damages",
    "liquidated damages",
    "claims",
    "time for completion",
    "variation",
    "force majeure",
    "exceptional event",
    "completion",
    "warrant",
    "付款",
    "价格",
    "责任",
    "赔偿",
    "解除",
    "终止",
    "索赔",
    "违约",
];

/// Titles of clauses that only explain words.
const LOW_TOPICS: [&str; 5] = ["definition", "interpretation", "定义", "释义", "headings"];

/// Domain skills and the words in a clause that call for them.
const DOMAIN_SKILLS: [(Domain, &str, &[&str]); 8] = [
    (
        Domain::Fidic,
        <crate::fidic::merge_gc_pc::FidicMergeGcPc as Skill>::ID,
        &[],
    ),
    (
        Domain::Fidic,
        <crate::fidic::check_pc_consistency::FidicCheckPcConsistency as Skill>::ID,
        &[],
    ),
    (
        Domain::Fidic,
        <crate::fidic::time_bar::FidicCalculateTimeBar as Skill>::ID,
        &["notice", "claim", "days", "通知", "索赔", "天"],
    ),
    (
        Domain::Fidic,
        <crate::fidic::search_er::FidicSearchEr as Skill>::ID,
        &[
            "employer's requirements",
            "design",
            "works",
            "specification",
            "业主要求",
            "设计",
            "工程",
        ],
    ),
    (
        Domain::ShaSpa,
        <crate::sha_spa::extract_conditions::SpaExtractConditions as Skill>::ID,
        &["condition", "completion", "closing", "先决条件", "交割"],
    ),
    (
        Domain::ShaSpa,
        <crate::sha_spa::extract_reps_warranties::SpaExtractRepsWarranties as Skill>::ID,
        &["warrant", "represent", "陈述", "保证"],
    ),
    (
        Domain::ShaSpa,
        <crate::sha_spa::indemnity_analysis::SpaIndemnityAnalysis as Skill>::ID,
        &["indemn", "赔偿", "补偿"],
    ),
    (
        Domain::ShaSpa,
        <crate::sha_spa::governance_check::ShaGovernanceCheck as Skill>::ID,
        &[
            "board",
            "director",
            "shareholder",
            "vote",
            "reserved matter",
            "董事",
            "股东",
            "表决",
        ],
    ),
];

/// One checklist item per clause that has text of its own, with the skills that fit it:
/// always `get_clause_context`, `resolve_definition` and `assess_deviation` (which includes
/// the baseline comparison and the criteria), `search_reference_doc`; `cross_reference_check`
/// when the clause refers to others; `extract_financial_terms` when it states figures; and
/// the domain's skills (`fidic`, `sha_spa`) whose trigger words occur.
///
/// Priority: `critical` for payment, price, liability, indemnity, termination, delay damages,
/// claims and similar topics; `low` for definitions; `high` when the clause states figures;
/// `medium` otherwise.
pub fn generate_checklist(doc: &DocumentStructure, domain: Domain) -> Vec<ChecklistItem> {
    let clauses: Vec<&Clause> = doc
        .iter_clauses()
        .filter(|c| !c.text.trim().is_empty())
        .collect();
    parallel::map(&clauses, |clause| item_for(clause, domain))
}

fn item_for(clause: &Clause, domain: Domain) -> ChecklistItem {
    let text = &clause.text;
    let lower_title = clause.title.to_lowercase();
    let lower = format!("{lower_title} {}", text.to_lowercase());
    let has_figures = has_financial_terms(text);
    let mut skills: Vec<String> = vec![
        <crate::generic::get_clause_context::GetClauseContext as Skill>::ID.into(),
        <crate::generic::resolve_definition::ResolveDefinition as Skill>::ID.into(),
    ];
    if !find_references(text).is_empty() {
        skills
            .push(<crate::generic::cross_reference_check::CrossReferenceCheck as Skill>::ID.into());
    }
    if has_figures {
        skills.push(
            <crate::generic::extract_financial_terms::ExtractFinancialTerms as Skill>::ID.into(),
        );
    }
    skills.push(<crate::generic::assess_deviation::AssessDeviation as Skill>::ID.into());
    skills.push(<crate::generic::search_reference_doc::SearchReferenceDoc as Skill>::ID.into());
    for (skill_domain, skill, triggers) in DOMAIN_SKILLS {
        if skill_domain == domain
            && (triggers.is_empty() || triggers.iter().any(|t| lower.contains(t)))
        {
            skills.push(skill.to_string());
        }
    }
    let topics: Vec<&str> = CRITICAL_TOPICS
        .iter()
        .copied()
        .filter(|t| lower.contains(t))
        .collect();
    let priority = if LOW_TOPICS.iter().any(|t| lower_title.contains(t)) {
        Priority::Low
    } else if !topics.is_empty() {
        Priority::Critical
    } else if has_figures {
        Priority::High
    } else {
        Priority::Medium
    };
    let description = if topics.is_empty() {
        "Check obligations, deviations from the standard form and consistency".to_string()
    } else {
        format!("Check the clause's treatment of: {}", topics.join(", "))
    };
    ChecklistItem {
        clause_id: clause.clause_id.clone(),
        clause_name: clause.title.clone(),
        priority,
        required_skills: skills,
        description,
    }
}

/// Lets what the provision classifier found in a clause choose its skills and priority: the
/// skills that analyse each kind found are added, a kind the playbook rates high when it
/// binds us makes the clause critical (medium: at least high), and the description names
/// the kinds. `found` holds no denied sentence ("non-exclusive"): the stage dropped them.
pub(super) fn guide_by_provisions(
    item: &mut ChecklistItem,
    found: &[crate::detect::model::Detection],
    playbook: &Playbook,
    domain: Domain,
) {
    let mut named: Vec<&str> = Vec::new();
    for provision in found {
        let Some(level) = playbook.levels(provision.kind).and_then(|l| l.binds_us) else {
            continue;
        };
        named.push(provision.kind.title());
        for skill in provision.kind.entry().analysis.skills(domain) {
            if !item.required_skills.iter().any(|s| s == skill) {
                item.required_skills.push(skill.to_string());
            }
        }
        let floor = match level {
            RiskLevel::High => Priority::Critical,
            RiskLevel::Medium => Priority::High,
            RiskLevel::Low => Priority::Low,
        };
        // Declared most important first: a smaller priority is a more important one.
        if floor < item.priority {
            item.priority = floor;
        }
    }
    if !named.is_empty() {
        item.description = format!(
            "{}; provisions found: {}",
            item.description,
            named.join(", ")
        );
    }
}
