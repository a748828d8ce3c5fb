//! The review packs as MCP skills (the skills extension): one skill per domain with review
//! instructions (`fidic`, `sha_spa`, and the generic review), written from what the library
//! already holds: the domain's instructions, the tools it covers, the shipped playbook and
//! the checklist the checklist review runs. The tool table of each `SKILL.md` is written by
//! the server from the tools it serves, so a skill cannot name a tool a client cannot call.

use clausewright_skills::document::parse_text;
use clausewright_skills::review::{generate_checklist, Domain, DomainPrompt, Language, Playbook};
use serde_json::json;
use toolwright::{Dispatcher, ToolFilter};
use toolwright_mcp::{SkillFile, SkillSpec};

/// A clause that raises no topic: the tools the checklist runs for it are the ones it runs
/// for every clause.
const NEUTRAL_CLAUSE: &str = "1 General\n\nThe parties shall act in good faith.\n";

/// The skill name of a domain's review (Agent Skills names: lowercase words and hyphens).
pub fn skill_name(domain: Domain) -> String {
    match domain {
        Domain::Generic => "contract-review".into(),
        named => format!("{}-review", named.as_str().replace('_', "-")),
    }
}

/// What a model reads to decide whether the skill fits the task.
fn description(domain: Domain) -> &'static str {
    match domain {
        Domain::Generic => "Review any contract clause by clause with this server's tools: the clause in context, defined terms, cross-references, sums and periods, deviations from the standard form; rate each finding with the generic playbook.",
        Domain::Fidic => "Review a FIDIC construction contract (General and Particular Conditions, Employer's Requirements) clause by clause: amendments to the General Conditions, notice and claim time bars, consistency with the Employer's Requirements; rate each finding with the FIDIC playbook.",
        Domain::ShaSpa => "Review a share purchase or shareholders' agreement clause by clause: conditions precedent, representations and warranties, indemnities, caps, baskets and survival, governance; rate each finding with the SHA/SPA playbook.",
    }
}

/// The tools the checklist review runs for every clause of `domain`, in its order.
fn every_clause(domain: Domain) -> Vec<String> {
    let document = parse_text("neutral", NEUTRAL_CLAUSE);
    generate_checklist(&document, domain)
        .into_iter()
        .next()
        .map(|item| item.required_skills)
        .unwrap_or_default()
}

/// Ids of registered tools that `text` names (the domain instructions name tools by id).
fn named_tools(dispatcher: &Dispatcher, text: &str) -> Vec<String> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .collect();
    dispatcher
        .skill_ids()
        .filter(|id| words.contains(id))
        .map(str::to_string)
        .collect()
}

/// The tools of `domain` (its own and the universal ones; the generic review: universal only).
fn tool_filter(domain: Domain) -> ToolFilter {
    match domain {
        Domain::Generic => ToolFilter::all().domain("*"),
        named => ToolFilter::all().domain(named.as_str()),
    }
}

/// The skill of one domain's review.
pub fn review_skill(dispatcher: &Dispatcher, domain: Domain) -> SkillSpec {
    let every = every_clause(domain);
    let domain_focus = match domain {
        Domain::Generic => None,
        named => DomainPrompt::registered(named.as_str()).map(|p| p.instructions(Language::En)),
    };
    let mut method = String::from(
        "The server holds the contract it was started with: tools fill in the clause, its text and the review state themselves when a call leaves them out, so most calls need only `clause_id`.\n\n## Method\n\n",
    );
    let listed: Vec<String> = every.iter().map(|id| format!("`{id}`")).collect();
    method.push_str(&format!(
        "1. For every clause, call {} in this order (`checklist.json`, `every_clause`).\n",
        listed.join(", ")
    ));
    method.push_str("2. Call the other tools below where the clause calls for them: references to other clauses, sums, rates and periods, the domain's own provisions.\n");
    if let Some(focus) = domain_focus {
        method.push_str(&format!("3. {focus}\n"));
    }
    method.push_str(&format!(
        "{}. Rate each finding with `playbook.json`: for each kind of provision, the level when it binds our party (`binds_us`) and when it binds the other side (`binds_them`); a kind the playbook leaves out is not reported.\n",
        if domain_focus.is_some() { 4 } else { 3 }
    ));
    let mut named = every.clone();
    if let Some(focus) = domain_focus {
        named.extend(named_tools(dispatcher, focus));
    }
    let checklist = json!({
        "domain": domain.as_str(),
        "every_clause": every,
        "as_needed": "the other tools of SKILL.md's table, where the clause calls for them",
    });
    let checklist = serde_json::to_string_pretty(&checklist).unwrap_or_default() + "\n";
    SkillSpec::new(skill_name(domain), description(domain))
        .instructions(method)
        .tools(tool_filter(domain))
        .names_tools(named)
        .metadata(
            "domain",
            match domain {
                Domain::Generic => "generic",
                named => named.as_str(),
            },
        )
        .file(SkillFile::new(
            "playbook.json",
            "application/json",
            "The playbook the review rates findings with: levels by kind of provision.",
            Playbook::text_for(domain),
        ))
        .file(SkillFile::new(
            "checklist.json",
            "application/json",
            "The tools the checklist review runs for every clause, in order.",
            checklist,
        ))
}

/// One skill per review domain: the generic review and each named domain.
pub fn review_skills(dispatcher: &Dispatcher) -> Vec<SkillSpec> {
    std::iter::once(Domain::Generic)
        .chain(Domain::NAMED)
        .map(|domain| review_skill(dispatcher, domain))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dispatcher() -> Dispatcher {
        Dispatcher::from_inventory().expect("valid registry")
    }

    #[test]
    fn the_neutral_clause_is_one_clause_with_the_tools_every_clause_gets() {
        let document = parse_text("neutral", NEUTRAL_CLAUSE);
        let checklist = generate_checklist(&document, Domain::Fidic);
        assert_eq!(checklist.len(), 1, "{checklist:?}");
        let every = every_clause(Domain::Fidic);
        assert!(
            every.contains(&"get_clause_context".to_string()),
            "{every:?}"
        );
        assert!(
            !every.contains(&"fidic_calculate_time_bar".to_string()),
            "a trigger word slipped in: {every:?}"
        );
    }

    #[test]
    fn every_tool_a_skill_names_is_registered() {
        let dispatcher = dispatcher();
        for domain in Domain::NAMED {
            let prompt = DomainPrompt::registered(domain.as_str()).expect("domain instructions");
            let named = named_tools(&dispatcher, prompt.instructions_en);
            let uses = prompt.instructions_en.matches("(use ").count();
            assert_eq!(
                named.len(),
                uses,
                "{domain}: each `(use X)` names a registered tool: {named:?}"
            );
        }
        for id in every_clause(Domain::ShaSpa) {
            assert!(dispatcher.registration(&id).is_some(), "{id}");
        }
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for domain in [Domain::Generic, Domain::Fidic, Domain::ShaSpa] {
            let name = skill_name(domain);
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') && !name.contains("--"),
                "{name}"
            );
        }
        assert_eq!(skill_name(Domain::ShaSpa), "sha-spa-review");
    }
}
