//! What the planner and its deep workers are told: the planner's instructions and first
//! message (the contract's outline), and each deep review's brief, built from the clause.

use std::sync::Arc;

use serde_json::{json, Value};
use toolwright::agent::orchestrate::Brief;
use toolwright::agent::ChatMessage;
use toolwright::{Dispatcher, SkillContext};

use super::outline::ClauseOutline;
use crate::review::agent::{build_react_agent_messages, priority_name, Language, ReactPromptInput};
use crate::state::{ClauseFocus, Domain, ReviewState};

/// Clauses listed in the planner's first message; the rest through `list_clauses`.
const OUTLINE_IN_PROMPT: usize = 300;

/// The planner's system message.
pub(super) fn planner_instructions(language: Language) -> String {
    let write_in = match language {
        Language::ZhCn => "Write `summary`, descriptions and reasons in Chinese (简体中文).",
        Language::En => "Write in English.",
    };
    format!(
        "You organise the legal review of a whole contract. You see its outline: every clause with its \
length, the provision kinds found in it and the findings of the rule-based checklist so far.\n\
Decide, clause by clause, what each deserves:\n\
- `review_deep` (clause_id, focus, optional max_iterations): a reviewer model reads the clause with the \
review tools. For clauses that shift risk, money or time, clauses with high findings, and clauses whose \
findings you need to judge in context. Call it for several clauses in one turn: they run at the same time.\n\
- `review_quick` (clause_ids, reason): the rules' findings, no model. For routine clauses.\n\
- leave a clause out when it needs nothing (definitions, notices addresses, signatures).\n\
`list_clauses` pages the outline; `get_clause_context` shows one clause's text.\n\
The budget is limited: send deep only what needs it.\n\
When the reviews are back, answer with one JSON object and nothing else:\n\
{{\"summary\": \"a few sentences for the client\",\n\
 \"risks\": [{{\"clause_id\": \"4.1\", \"risk_level\": \"high|medium|low\", \"risk_type\": \"...\", \
\"description\": \"...\", \"reason\": \"...\", \"original_text\": \"quoted words\"}}],\n\
 \"cross_clause\": [{{\"clause_ids\": [\"8.7\", \"17.6\"], \"risk_level\": \"high\", \"risk_type\": \"...\", \
\"description\": \"what the clauses do together\"}}],\n\
 \"not_reviewed\": [{{\"clause_ids\": [\"1.1\"], \"reason\": \"why no review was needed\"}}]}}\n\
List each risk once, in the clause it is in, even when several reviews saw it. `cross_clause` is for \
findings that need two or more clauses read together. {write_in}"
    )
}

/// The planner's first user message: the contract and its outline.
pub(super) fn planner_task(state: &ReviewState, outline: &ClauseOutline) -> String {
    let total = outline.entries().len();
    let mut task = format!(
        "Contract: {}\nDomain: {}\nWe act for: {}\nClauses in the outline: {total}\n\nOutline (clause | title | length | kinds | rule findings):\n{}",
        state
            .primary()
            .map(|d| d.document_id.as_str())
            .unwrap_or("(unnamed)"),
        if state.domain == Domain::Generic { "generic" } else { state.domain.as_str() },
        if state.our_party.is_empty() { "(not stated)" } else { &state.our_party },
        outline.compact_lines(OUTLINE_IN_PROMPT),
    );
    if !outline.document_findings().is_empty() {
        task.push_str("\nFindings about the whole agreement:\n");
        for f in outline.document_findings() {
            task.push_str(&format!(
                "- {} {}: {}\n",
                f.level.as_str(),
                f.kind,
                f.description
            ));
        }
    }
    if total > OUTLINE_IN_PROMPT {
        task.push_str(&format!(
            "... {} more clause(s): call list_clauses with page numbers to see them.\n",
            total - OUTLINE_IN_PROMPT
        ));
    }
    task.push_str("\nPlan the review, run it, then give the JSON answer.");
    task
}

/// Everything the deep worker's brief needs.
pub(super) struct DeepBrief {
    pub(super) outline: Arc<ClauseOutline>,
    pub(super) state: Arc<ReviewState>,
    pub(super) ctx: SkillContext,
    pub(super) dispatcher: Dispatcher,
    pub(super) language: Language,
}

impl DeepBrief {
    /// The brief of one `review_deep` call, or what is wrong with its arguments.
    pub(super) fn brief(&self, args: &Value) -> Result<Brief, String> {
        let raw = args
            .get("clause_id")
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|s| !s.trim().is_empty())
            .ok_or("`clause_id` is missing: name the clause to review, e.g. \"4.1\"")?;
        let id = self.outline.resolve(&raw).ok_or_else(|| {
            format!("`clause_id` is `{raw}`, which is not a clause of the contract; list_clauses gives the numbers")
        })?;
        let entry = self
            .outline
            .entry(&id)
            .ok_or("the outline lost a clause it resolved")?;
        let focus = args
            .get("focus")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .unwrap_or("the risks of this clause for the party we act for");
        let max_iterations = args
            .get("max_iterations")
            .and_then(Value::as_u64)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        let clause_text = crate::index::lookup_for(&self.state)
            .primary()
            .and_then(|d| d.full_text(&id))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| entry.title.clone());
        let review = self.outline.review(&id);
        let suggested: Vec<&str> = review
            .map(|r| r.skills.iter().map(|s| s.skill_id.as_ref()).collect())
            .unwrap_or_default();
        let domain = self.state.domain;
        let domain_id = (domain != Domain::Generic).then_some(domain.as_str());
        let messages = build_react_agent_messages(&ReactPromptInput {
            language: self.language,
            our_party: &self.state.our_party,
            clause_id: &id,
            clause_name: &entry.title,
            description: focus,
            priority: review.map_or("medium", |r| priority_name(r.priority)),
            clause_text: &clause_text,
            domain_id,
            domain_prompt: None,
            suggested_skills: &suggested,
            dispatcher: Some(&self.dispatcher),
        });
        let mut instructions = None;
        let mut task = String::new();
        for message in messages {
            match message {
                ChatMessage::System { content, .. } => instructions = Some(content),
                ChatMessage::User { content, .. } => task = content,
                _ => {}
            }
        }
        Ok(Brief {
            task,
            instructions,
            max_iterations,
            context: Some(self.ctx.clone().with(ClauseFocus(id))),
        })
    }
}

/// The JSON Schema of `review_deep`'s arguments.
pub(super) fn deep_schema(max_iterations: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "clause_id": {"type": "string", "description": "The clause to review, e.g. \"4.1\"."},
            "focus": {"type": "string", "description": "What the reviewer should look at in it, and why it needs a deep review."},
            "max_iterations": {"type": "integer", "minimum": 1, "maximum": max_iterations,
                "description": format!("Turns the reviewer may take (default and at most {max_iterations}).")}
        },
        "required": ["clause_id", "focus"],
        "additionalProperties": false
    })
}
