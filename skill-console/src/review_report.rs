//! A finished review's report as the console shows it: the risks by clause with their
//! evidence, the plan of an orchestrated review, the download links. Read from the review
//! library's report types as they are.

use std::collections::HashMap;

use clausewright_report::{Orchestration, Risk, RiskLevel};
use maud::{html, Markup};

use crate::reviews::FinishedReview;

/// The report of run `id`.
pub(crate) fn report(id: &str, finished: &FinishedReview) -> Markup {
    let report = &finished.report;
    let count = |level: RiskLevel| report.risks().filter(|r| r.finding.level == level).count();
    html! {
        p #review-summary {
            (report.document_id) ": " (report.summary.clauses_reviewed) " clauses reviewed, " (report.risks().count()) " risks ("
            span.badge.level-high { (count(RiskLevel::High)) " high" } " "
            span.badge.level-medium { (count(RiskLevel::Medium)) " medium" } " "
            span.badge.level-low { (count(RiskLevel::Low)) " low" } ")"
        }
        p #review-method.hint { (finished.method) }
        @if let Some(plan) = &report.orchestration { (plan_section(plan)) }
        p {
            a #download-md href={ "/reviews/" (id) "/report.md" } download { "Download Markdown" } " · "
            a #download-json href={ "/reviews/" (id) "/report.json" } download { "Download JSON" }
        }
        @if report.risks().next().is_none() {
            p.hint { "No risk found." }
        } @else {
            table #risks {
                thead { tr { th { "Clause" } th { "Level" } th { "Risk" } } }
                tbody {
                    @for r in report.risks() {
                        @let f = &r.finding;
                        tr {
                            td.mono { (r.clause_id) }
                            td class={ "level-" (f.level.as_str()) } { (f.level.as_str()) }
                            td {
                                details {
                                    summary {
                                        @if f.is_absence() { span.missing { "missing" } " " }
                                        (f.description) " " span.hint.mono { (f.kind.name()) }
                                    }
                                    p { strong { "Why: " } (f.reason) }
                                    pre.evidence { (evidence(r)) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A risk's evidence: the analysis, then the contract's words when the risk quotes them.
fn evidence(risk: &Risk) -> String {
    let f = &risk.finding;
    match f.quote.as_str() {
        "" => f.analysis.clone(),
        quote => format!("{}\n\nContract text: {quote}", f.analysis),
    }
}

/// The budget used against the budget given, in a sentence.
fn budget_used(o: &Orchestration) -> String {
    let of = |spent: u64, limit: Option<u64>, unit: &str| match limit {
        Some(limit) => format!("{spent} of {limit} {unit}"),
        None => format!("{spent} {unit} (no limit)"),
    };
    format!(
        "{}, {}, {}; planner {} turn(s)",
        of(
            o.spent.model_requests,
            o.budget.model_requests,
            "model requests"
        ),
        of(o.spent.input_tokens, o.budget.input_tokens, "input tokens"),
        of(
            o.spent.output_tokens,
            o.budget.output_tokens,
            "output tokens"
        ),
        o.planner_turns
    )
}

/// The plan of an orchestrated review: the budget, the summary, every clause's depth and
/// reason (with the turns and tokens of its deep review, when it had one), the findings
/// across clauses.
fn plan_section(o: &Orchestration) -> Markup {
    let deep: HashMap<&str, (usize, u64)> = o
        .deep
        .iter()
        .map(|d| (d.clause_id.as_str(), (d.turns, d.usage.total())))
        .collect();
    html! {
        section #review-plan {
            h2 { "Plan" }
            p #plan-budget { "Budget used: " (budget_used(o)) }
            @if let Some(why) = &o.fallback_reason {
                p.error-text #plan-fallback { "The planner failed; the rules' review stands: " (why) }
            }
            @if let Some(summary) = &o.summary { p #plan-summary { (summary) } }
            @if !o.cross_clause.is_empty() {
                h3 { "Across clauses" }
                table #cross-clause {
                    thead { tr { th { "Clauses" } th { "Level" } th { "Finding" } } }
                    tbody {
                        @for c in &o.cross_clause {
                            tr {
                                td.mono { (c.clause_ids.join(", ")) }
                                td class={ "level-" (c.risk_level.as_str()) } { (c.risk_level.as_str()) }
                                td { (c.description) }
                            }
                        }
                    }
                }
            }
            table #plan-clauses {
                thead { tr { th { "Clause" } th { "Review" } th { "Turns" } th { "Tokens" } th { "Why" } } }
                tbody {
                    @for c in &o.plan {
                        @let turns_tokens = deep.get(c.clause_id.as_str());
                        tr {
                            td.mono { (c.clause_id) }
                            td { (c.depth.as_str()) }
                            td { @if let Some((turns, _)) = turns_tokens { (turns) } }
                            td { @if let Some((_, tokens)) = turns_tokens { (tokens) } }
                            td { (c.reason) }
                        }
                    }
                }
            }
        }
    }
}
