//! The checklist mode (SPEC-20's default, and the fallback of the agent mode): for each
//! checklist item, its `required_skills` run through [`Dispatcher::prepare_and_call`] with
//! the review state and the clause in focus, and the outputs become risks by the documented
//! rules of [`rules`](crate::review::rules). No model. The checklist is the caller's, or made
//! from the document ([`generate_checklist`]).
//!
//! Entry point: [`run_checklist_review`].

mod generate;

use std::sync::Arc;

use serde_json::value::RawValue;
use toolwright::{codes, Dispatcher, SeriesCall, SkillContext, SkillResult};

pub use generate::generate_checklist;

use super::engine;
use super::findings::{rules, Classified, Playbook};
use super::types::{ClauseReview, ReviewOptions, ReviewReport, Risk, SkillRun};
use crate::state::{ChecklistItem, ClauseFocus, ReviewState};
use crate::text::truncate_chars;

/// Runs the checklist review: every item's skills through `prepare_and_call`, risks by the
/// rules of [`rules`](crate::review::rules). Blocks: the clauses are reviewed on a runtime
/// of the review's own (one worker thread per core), in parallel; callable from inside a
/// runtime too (the review then runs on a thread of its own). To cancel a checklist review
/// from async code, call [`review_with_agent`](crate::review::review_with_agent) without an
/// agent.
pub fn run_checklist_review(
    dispatcher: &Dispatcher,
    state: &ReviewState,
    options: &ReviewOptions,
) -> ReviewReport {
    engine::run_blocking(dispatcher, state, options)
}

/// The generated checklist without skills the state cannot feed (no reference documents:
/// no `search_reference_doc`; no baseline: no `compare_with_baseline`; no Particular
/// Conditions: no `fidic_merge_gc_pc` or `fidic_check_pc_consistency`; no Employer's
/// Requirements: no `fidic_search_er`).
pub(crate) fn generated_checklist_for(
    state: &Arc<ReviewState>,
    classified: Option<&Classified>,
    playbook: &Playbook,
) -> Vec<ChecklistItem> {
    use crate::fidic::check_pc_consistency::FidicCheckPcConsistency;
    use crate::fidic::merge_gc_pc::FidicMergeGcPc;
    use crate::fidic::search_er::FidicSearchEr;
    use crate::generic::compare_with_baseline::CompareWithBaseline;
    use crate::generic::search_reference_doc::SearchReferenceDoc;
    use toolwright::Skill;

    let Some(doc) = state.primary() else {
        return Vec::new();
    };
    let has_references = state.references().next().is_some();
    let has_baseline = state.baseline().is_some();
    let lookup = crate::index::lookup_for(state);
    let fidic = crate::fidic::documents::FidicDocuments::of(&lookup);
    let mut items = generate_checklist(doc, state.domain);
    if let Some(classified) = classified {
        for item in &mut items {
            if let Some(found) = classified.clause(&item.clause_id) {
                generate::guide_by_provisions(item, found, playbook, state.domain);
            }
        }
    }
    for item in &mut items {
        item.required_skills.retain(|s| {
            if s == <SearchReferenceDoc as Skill>::ID {
                has_references
            } else if s == <CompareWithBaseline as Skill>::ID {
                has_baseline
            } else if s == <FidicMergeGcPc as Skill>::ID
                || s == <FidicCheckPcConsistency as Skill>::ID
            {
                fidic.pc.is_some()
            } else if s == <FidicSearchEr as Skill>::ID {
                fidic.er.is_some()
            } else {
                true
            }
        });
    }
    items
}

/// The checklist branch for one item: its `required_skills` through `prepare_and_call`,
/// risks by the rules.
pub(crate) async fn review_item(
    dispatcher: &Dispatcher,
    base: &SkillContext,
    state: &Arc<ReviewState>,
    item: &ChecklistItem,
) -> ClauseReview {
    let spans = [tracing::Span::current()];
    let mut reviews =
        review_items(dispatcher, base, state, std::slice::from_ref(item), &spans).await;
    reviews.pop().expect("one review per item")
}

/// The checklist branch for several items at once: all their skills as one series of calls
/// (`prepare_and_call_all`: one hand-over to a call thread for all of them when calls are
/// timed, each call under its own limit and recorded under its item's span), then each
/// item's risks by the rules.
pub(crate) async fn review_items(
    dispatcher: &Dispatcher,
    base: &SkillContext,
    state: &Arc<ReviewState>,
    items: &[ChecklistItem],
    spans: &[tracing::Span],
) -> Vec<ClauseReview> {
    let mut calls = Vec::new();
    for (item, span) in items.iter().zip(spans) {
        let ctx = base.clone().with(ClauseFocus(item.clause_id.clone()));
        let _entered = span.enter();
        calls.extend(
            item.required_skills
                .iter()
                .map(|skill| SeriesCall::new(skill.as_str(), ctx.clone())),
        );
    }
    let mut results = dispatcher.prepare_and_call_all(calls).await.into_iter();
    items
        .iter()
        .map(|item| {
            let item_results = results.by_ref().take(item.required_skills.len());
            clause_review(state, item, item_results)
        })
        .collect()
}

/// One item's review from the results of its skills, in `required_skills` order.
fn clause_review(
    state: &Arc<ReviewState>,
    item: &ChecklistItem,
    results: impl Iterator<Item = SkillResult>,
) -> ClauseReview {
    let mut skills = Vec::with_capacity(item.required_skills.len());
    let mut skipped_skills = Vec::new();
    let mut outputs: Vec<(String, Box<RawValue>)> = Vec::new();
    for (skill_id, result) in item.required_skills.iter().zip(results) {
        let error = result.error.as_ref();
        if error.is_some_and(|e| e.code == codes::UNKNOWN_SKILL) {
            tracing::debug!(skill = %skill_id, clause = %item.clause_id, "checklist names an unknown skill; skipped");
            skipped_skills.push(skill_id.clone());
        }
        // The registered id when the result names the skill asked for (no copy of it).
        let run_id = if result.skill_id == skill_id.as_str() {
            result.skill_id.clone()
        } else {
            skill_id.clone().into()
        };
        skills.push(SkillRun {
            skill_id: run_id,
            success: result.success,
            error_code: error.map(|e| e.code.to_string()),
            error_message: error.map(|e| e.message.clone()),
            summary: result
                .data
                .as_deref()
                .and_then(rules::output_summary)
                .map(String::from),
            elapsed_ms: result.elapsed_ms,
        });
        if let Some(data) = result.data {
            outputs.push((skill_id.clone(), data));
        }
    }
    // The clause's text is quoted only by a finding without words of its own: looked up
    // (and its sub-clauses joined) only then, once.
    let mut clause_text: Option<String> = None;
    let reading = rules::read_outputs(&outputs);
    mark_unreadable(&mut skills, &reading.unreadable);
    let mut findings = reading.findings;
    findings.sort_by_key(|f| std::cmp::Reverse(f.level));
    let risks = findings
        .into_iter()
        .enumerate()
        .map(|(n, mut finding)| {
            // A finding about another clause or the whole agreement does not quote this one.
            if finding.quote.is_empty() && finding.anchor.is_none() {
                let text = clause_text.get_or_insert_with(|| {
                    crate::index::lookup_for(state)
                        .primary()
                        .and_then(|d| d.full_text(&item.clause_id))
                        .unwrap_or_default()
                });
                finding.quote = truncate_chars(text, 200);
            }
            Risk {
                id: format!("R-{}-{}", item.clause_id, n + 1),
                clause_id: finding
                    .anchor
                    .clone()
                    .unwrap_or_else(|| item.clause_id.clone()),
                finding,
            }
        })
        .collect();
    ClauseReview {
        skills,
        skipped_skills,
        risks,
        ..ClauseReview::checklist(
            item.clause_id.clone(),
            item.clause_name.clone(),
            item.priority,
        )
    }
}

/// Marks the run of each skill whose output the rules could not read as failed, with
/// [`rules::UNREADABLE_OUTPUT`] and the reason, so the report says why it gave no risks.
fn mark_unreadable(skills: &mut [SkillRun], unreadable: &[rules::UnreadableOutput]) {
    for output in unreadable {
        let run = skills
            .iter_mut()
            .find(|run| run.skill_id == output.skill && run.success);
        if let Some(run) = run {
            run.success = false;
            run.error_code = Some(rules::UNREADABLE_OUTPUT.to_string());
            run.error_message = Some(output.reason.clone());
        }
    }
}
