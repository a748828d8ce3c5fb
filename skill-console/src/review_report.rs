//! A finished review's report as the console shows it: the risks by clause with their
//! evidence, the plan of an orchestrated review, the download links.

use maud::{html, Markup};

use crate::reviews::{ReviewLevel, ReviewOutcome, ReviewPlan};

/// The report of run `id`.
pub(crate) fn report(id: &str, outcome: &ReviewOutcome) -> Markup {
    let count = |level: ReviewLevel| outcome.risks.iter().filter(|r| r.level == level).count();
    html! {
        p #review-summary {
            (outcome.title) ": " (outcome.clauses) " clauses reviewed, " (outcome.risks.len()) " risks ("
            span.badge.level-high { (count(ReviewLevel::High)) " high" } " "
            span.badge.level-medium { (count(ReviewLevel::Medium)) " medium" } " "
            span.badge.level-low { (count(ReviewLevel::Low)) " low" } ")"
        }
        p #review-method.hint { (outcome.method) }
        @if let Some(plan) = &outcome.plan { (plan_section(plan)) }
        p {
            a #download-md href={ "/reviews/" (id) "/report.md" } download { "Download Markdown" } " · "
            a #download-json href={ "/reviews/" (id) "/report.json" } download { "Download JSON" }
        }
        @if outcome.risks.is_empty() {
            p.hint { "No risk found." }
        } @else {
            table #risks {
                thead { tr { th { "Clause" } th { "Level" } th { "Risk" } } }
                tbody {
                    @for r in &outcome.risks {
                        tr {
                            td.mono { (r.clause_id) }
                            td class={ "level-" (r.level.as_str()) } { (r.level.as_str()) }
                            td {
                                details {
                                    summary {
                                        @if r.missing { span.missing { "missing" } " " }
                                        (r.description) " " span.hint.mono { (r.risk_type) }
                                    }
                                    p { strong { "Why: " } (r.reason) }
                                    pre.evidence { (r.evidence) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The plan of an orchestrated review: the budget, the summary, every clause's depth and
/// reason, the findings across clauses.
fn plan_section(plan: &ReviewPlan) -> Markup {
    html! {
        section #review-plan {
            h2 { "Plan" }
            p #plan-budget { "Budget used: " (plan.budget) }
            @if let Some(why) = &plan.fallback {
                p.error-text #plan-fallback { "The planner failed; the rules' review stands: " (why) }
            }
            @if let Some(summary) = &plan.summary { p #plan-summary { (summary) } }
            @if !plan.cross_clause.is_empty() {
                h3 { "Across clauses" }
                table #cross-clause {
                    thead { tr { th { "Clauses" } th { "Level" } th { "Finding" } } }
                    tbody {
                        @for c in &plan.cross_clause {
                            tr {
                                td.mono { (c.clause_ids.join(", ")) }
                                td class={ "level-" (c.level.as_str()) } { (c.level.as_str()) }
                                td { (c.description) }
                            }
                        }
                    }
                }
            }
            table #plan-clauses {
                thead { tr { th { "Clause" } th { "Review" } th { "Turns" } th { "Tokens" } th { "Why" } } }
                tbody {
                    @for c in &plan.clauses {
                        tr {
                            td.mono { (c.clause_id) }
                            td { (c.depth) }
                            td { @if let Some((turns, _)) = c.turns_tokens { (turns) } }
                            td { @if let Some((_, tokens)) = c.turns_tokens { (tokens) } }
                            td { (c.reason) }
                        }
                    }
                }
            }
        }
    }
}
