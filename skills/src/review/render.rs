//! Rendering a review report as a text table, JSON or Markdown.

use std::fmt::Write as _;
use std::str::FromStr;

use super::types::{DeepRun, Finding, PlanDepth, ReviewReport, Risk};
use crate::state::Domain;

/// Output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// Aligned plain-text table for terminals.
    Table,
    /// Pretty-printed JSON of the whole report.
    Json,
    /// Markdown with a summary and a risk table.
    Markdown,
}

impl FromStr for ReportFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "table" | "text" => Ok(Self::Table),
            "json" => Ok(Self::Json),
            "markdown" | "md" => Ok(Self::Markdown),
            other => Err(format!(
                "unknown report format `{other}`; expected table, json or markdown"
            )),
        }
    }
}

/// Renders the report in the given format.
pub fn render(report: &ReviewReport, format: ReportFormat) -> String {
    match format {
        ReportFormat::Table => render_table(report),
        ReportFormat::Json => render_json(report),
        ReportFormat::Markdown => render_markdown(report),
    }
}

/// The whole report as pretty JSON.
pub fn render_json(report: &ReviewReport) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|err| format!("{{\"error\": \"{err}\"}}"))
}

fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::truncate_chars(&flat, max)
}

fn summary_line(report: &ReviewReport) -> String {
    let s = &report.summary;
    let mut line = format!(
        "{} clause(s) reviewed, {} skill call(s) ({} failed); {} risk(s): {} high, {} medium, {} low",
        s.clauses_reviewed, s.skill_calls, s.skill_failures, s.total_risks, s.high, s.medium, s.low
    );
    if s.model_turns > 0 {
        let _ = write!(line, "; {} model turn(s)", s.model_turns);
        if !s.usage.is_empty() {
            let _ = write!(
                line,
                ", {} token(s): {} prompt ({} cached), {} completion",
                s.usage.total(),
                s.usage.prompt_tokens,
                s.usage.cached_tokens,
                s.usage.completion_tokens
            );
        }
    }
    if report.incomplete {
        let _ = write!(
            line,
            "; INCOMPLETE: the review was cancelled, {} clause(s) not reviewed",
            s.clauses_not_run
        );
    }
    if !s.unknown_skills.is_empty() {
        let _ = write!(
            line,
            "; skipped unknown skills: {}",
            s.unknown_skills.join(", ")
        );
    }
    line
}

/// An aligned text table of the risks, then the summary.
pub fn render_table(report: &ReviewReport) -> String {
    render_table_within(report, usize::MAX)
}

/// The columns of a risk table, and one risk's row in them.
const RISK_COLUMNS: [&str; 5] = ["ID", "CLAUSE", "LEVEL", "TYPE", "DESCRIPTION"];

fn risk_row(r: &Risk) -> [String; 5] {
    [
        r.id.clone(),
        r.clause_id.clone(),
        r.finding.level.to_string(),
        kind_text(&r.finding),
        r.finding.description.clone(),
    ]
}

/// A finding's kind as the reports show it: `missing: cap_on_liability` for the lack of a
/// provision, the kind's name otherwise.
fn kind_text(f: &Finding) -> String {
    match f.is_absence() {
        true => format!("missing: {}", f.kind),
        false => f.kind.to_string(),
    }
}

/// [`render_table`] with the description column cut so that rows fit `width` columns (a
/// terminal's width; at least 20 characters of description are kept).
pub fn render_table_within(report: &ReviewReport, width: usize) -> String {
    let mut rows: Vec<[String; 5]> = report.risks().map(risk_row).collect();
    let fixed: usize = (0..4)
        .map(|i| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([RISK_COLUMNS[i].len()])
                .max()
                .unwrap_or(0)
                + 2
        })
        .sum();
    // One column more for the `…` a cut description ends with.
    let description = width.saturating_sub(fixed + 1).clamp(20, 80);
    for row in &mut rows {
        row[4] = one_line(&row[4], description);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Review of {} ({})",
        report.document_id,
        match report.domain {
            Domain::Generic => "generic",
            named => named.as_str(),
        }
    );
    if rows.is_empty() {
        out.push_str("No risks found.\n");
    } else {
        out.push_str(&grid(&RISK_COLUMNS, &rows, false, description));
    }
    out.push_str(&usage_table(report));
    out.push_str(&orchestration_text(report, false));
    let _ = writeln!(out, "{}", summary_line(report));
    out
}

/// A limit and what was spent of it: `6 of 40` or `6 (no limit)`.
fn of_limit(spent: u64, limit: Option<u64>) -> String {
    match limit {
        Some(limit) => format!("{spent} of {limit}"),
        None => format!("{spent} (no limit)"),
    }
}

/// The orchestration of a review as text (`markdown`: as Markdown): the budget given and
/// spent, the fallback's reason, the planner's summary, the plan of every clause with each
/// deep review's turns and tokens, the findings across clauses and the planner's risks.
/// Empty when no planner ran.
fn orchestration_text(report: &ReviewReport, markdown: bool) -> String {
    let Some(o) = &report.orchestration else {
        return String::new();
    };
    let text = |t: &str, max: usize| {
        if markdown {
            md_cell(t, max)
        } else {
            one_line(t, max)
        }
    };
    let mut out = String::new();
    let (h2, bullet) = if markdown {
        ("## ", "- ")
    } else {
        ("\n", "  ")
    };
    let count = |d: PlanDepth| o.plan.iter().filter(|p| p.depth == d).count();
    let _ = writeln!(out, "{h2}Orchestration\n");
    let _ = writeln!(
        out,
        "{bullet}plan: {} deep, {} quick, {} not reviewed; planner {} turn(s), {} token(s)",
        count(PlanDepth::Deep),
        count(PlanDepth::Quick),
        count(PlanDepth::None),
        o.planner_turns,
        o.planner_usage.total()
    );
    let _ = writeln!(
        out,
        "{bullet}budget used: {} model request(s), {} input token(s), {} output token(s), {} tool call(s); {:.1} s",
        of_limit(o.spent.model_requests, o.budget.model_requests),
        of_limit(o.spent.input_tokens, o.budget.input_tokens),
        of_limit(o.spent.output_tokens, o.budget.output_tokens),
        of_limit(o.spent.tool_calls, o.budget.tool_calls),
        o.elapsed_ms / 1000.0
    );
    if let Some(reason) = &o.fallback_reason {
        let _ = writeln!(
            out,
            "{bullet}FALLBACK to the checklist review: {}",
            text(reason, 200)
        );
    }
    for repair in &o.repairs {
        let _ = writeln!(
            out,
            "{bullet}the planner's answer was sent back once: {}",
            text(repair, 200)
        );
    }
    if let Some(summary) = &o.summary {
        let _ = writeln!(out, "\n{}", text(summary, 2000));
    }
    let deep: std::collections::HashMap<&str, &DeepRun> =
        o.deep.iter().map(|d| (d.clause_id.as_str(), d)).collect();
    let header = ["CLAUSE", "DEPTH", "TURNS", "TOKENS", "WHY"];
    let rows: Vec<[String; 5]> = o
        .plan
        .iter()
        .map(|p| {
            let run = deep.get(p.clause_id.as_str());
            [
                p.clause_id.clone(),
                match p.depth {
                    PlanDepth::Deep => "deep",
                    PlanDepth::Quick => "quick",
                    PlanDepth::None => "none",
                }
                .to_string(),
                run.map_or(String::new(), |r| r.turns.to_string()),
                run.map_or(String::new(), |r| r.usage.total().to_string()),
                p.reason.clone(),
            ]
        })
        .collect();
    out.push('\n');
    out.push_str(&grid(&header, &rows, markdown, 100));
    if !o.cross_clause.is_empty() {
        let _ = writeln!(
            out,
            "{}Across clauses\n",
            if markdown { "### " } else { "\n" }
        );
        let header = ["LEVEL", "CLAUSES", "TYPE", "DESCRIPTION"];
        let rows: Vec<[String; 4]> = o
            .cross_clause
            .iter()
            .map(|c| {
                [
                    c.risk_level.to_string(),
                    c.clause_ids.join(", "),
                    c.risk_type.clone(),
                    c.description.clone(),
                ]
            })
            .collect();
        out.push_str(&grid(&header, &rows, markdown, 120));
    }
    if !o.risks.is_empty() {
        let _ = writeln!(
            out,
            "{}The planner's risks (each once)\n",
            if markdown { "### " } else { "\n" }
        );
        let rows: Vec<[String; 5]> = o.risks.iter().map(risk_row).collect();
        out.push_str(&grid(&RISK_COLUMNS, &rows, markdown, 120));
    }
    out
}

/// Rows under a header, aligned text (columns two spaces apart) or a Markdown table (cells
/// made inert), each cell on one line; the last column cut to `last` characters. The one
/// table writer of the reports.
fn grid<const N: usize>(
    header: &[&str; N],
    rows: &[[String; N]],
    markdown: bool,
    last: usize,
) -> String {
    let rows: Vec<[String; N]> = rows
        .iter()
        .map(|row| {
            std::array::from_fn(|i| {
                let max = if i + 1 == N { last } else { usize::MAX };
                if markdown {
                    md_cell(&row[i], max)
                } else {
                    one_line(&row[i], max)
                }
            })
        })
        .collect();
    let mut out = String::new();
    if markdown {
        let _ = writeln!(out, "| {} |", header.join(" | "));
        let _ = writeln!(out, "|{}", "---|".repeat(N));
        for row in &rows {
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
        out.push('\n');
        return out;
    }
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w.saturating_sub(c.chars().count()))))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let _ = writeln!(out, "{}", line(header.to_vec()));
    for row in &rows {
        let _ = writeln!(out, "{}", line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// The model's share of a review: a header, one row per clause a model reviewed (mode,
/// model turns, tokens: prompt, of which cached, completion; tool time; the tools chosen),
/// a total row, and the fallback reasons. `None` in checklist mode.
struct UsageRows {
    rows: Vec<[String; 8]>,
    fallbacks: Vec<String>,
}

const USAGE_HEADER: [&str; 8] = [
    "CLAUSE",
    "MODE",
    "TURNS",
    "PROMPT",
    "CACHED",
    "COMPLETION",
    "TOOL MS",
    "TOOLS",
];

fn usage_rows(report: &ReviewReport) -> Option<UsageRows> {
    use crate::review::types::ReviewMode;
    let clauses: Vec<_> = report
        .clauses
        .iter()
        .filter(|c| matches!(c.mode, ReviewMode::React | ReviewMode::ReactFallback))
        .collect();
    if clauses.is_empty() {
        return None;
    }
    // `+ 0.0`: an empty sum of floats is -0.0, which would print as "-0.0".
    let tool_ms = |c: &crate::review::types::ClauseReview| {
        c.skills.iter().map(|s| s.elapsed_ms).sum::<f64>() + 0.0
    };
    let mut rows: Vec<[String; 8]> = clauses
        .iter()
        .map(|c| {
            [
                c.clause_id.clone(),
                if c.mode == ReviewMode::React {
                    "react"
                } else {
                    "fallback"
                }
                .to_string(),
                c.model_turns.to_string(),
                c.usage.prompt_tokens.to_string(),
                c.usage.cached_tokens.to_string(),
                c.usage.completion_tokens.to_string(),
                format!("{:.1}", tool_ms(c)),
                one_line(&c.tools_chosen.join(", "), 60),
            ]
        })
        .collect();
    let s = &report.summary;
    rows.push([
        "TOTAL".into(),
        String::new(),
        s.model_turns.to_string(),
        s.usage.prompt_tokens.to_string(),
        s.usage.cached_tokens.to_string(),
        s.usage.completion_tokens.to_string(),
        format!(
            "{:.1}",
            clauses.iter().map(|c| tool_ms(c)).sum::<f64>() + 0.0
        ),
        String::new(),
    ]);
    let fallbacks = clauses
        .iter()
        .filter_map(|c| {
            c.fallback_reason.as_deref().map(|reason| {
                format!(
                    "clause {} fell back to the checklist: {}",
                    c.clause_id,
                    one_line(reason, 120)
                )
            })
        })
        .collect();
    Some(UsageRows { rows, fallbacks })
}

/// [`usage_rows`] as an aligned text table (empty in checklist mode).
fn usage_table(report: &ReviewReport) -> String {
    let Some(usage) = usage_rows(report) else {
        return String::new();
    };
    let mut out = String::from("\nModel use per clause\n");
    out.push_str(&grid(&USAGE_HEADER, &usage.rows, false, usize::MAX));
    for fallback in &usage.fallbacks {
        let _ = writeln!(out, "{fallback}");
    }
    out
}

/// Text taken from the document (or a model) made inert for a Markdown renderer: `<` is
/// written `&lt;` so no raw HTML (a tag, a comment, an autolink) reaches the page, and `&`
/// before a letter, digit or `#` is written `&amp;` so an entity in the text shows as written.
/// A `>` cannot open anything and is kept, as is every other character.
fn md_inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' if chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '#') =>
            {
                out.push_str("&amp;")
            }
            c => out.push(c),
        }
    }
    out
}

/// A table cell or a heading: on one line (a line break cannot start a block), inert
/// ([`md_inert`]), `|` escaped so it cannot end the cell.
fn md_cell(text: &str, max: usize) -> String {
    md_inert(&one_line(text, max)).replace('|', "\\|")
}

/// [`usage_rows`] as a Markdown section (empty in checklist mode).
fn usage_markdown(report: &ReviewReport) -> String {
    let Some(usage) = usage_rows(report) else {
        return String::new();
    };
    let mut out = String::from("## Model use per clause\n\n");
    out.push_str(&grid(&USAGE_HEADER, &usage.rows, true, usize::MAX));
    for fallback in &usage.fallbacks {
        let _ = writeln!(out, "- {}", md_inert(fallback));
    }
    if !usage.fallbacks.is_empty() {
        out.push('\n');
    }
    out
}

/// Markdown: a summary, then per clause with risks a table of them. Everything taken from
/// the document (its name, the party, clause numbers and names, descriptions, quotes) is
/// written inert (`md_inert`): a heading `<script>` shows as text, never as HTML.
pub fn render_markdown(report: &ReviewReport) -> String {
    let cell = |t: &str| md_cell(t, 160);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Review of {}\n",
        md_cell(&report.document_id, usize::MAX)
    );
    if !report.our_party.is_empty() {
        let _ = writeln!(
            out,
            "Reviewed for: {}\n",
            md_cell(&report.our_party, usize::MAX)
        );
    }
    let _ = writeln!(out, "{}\n", md_inert(&summary_line(report)));
    out.push_str(&usage_markdown(report));
    out.push_str(&orchestration_text(report, true));
    for clause in report.clauses.iter().filter(|c| !c.risks.is_empty()) {
        let name = if clause.clause_name.is_empty() {
            String::new()
        } else {
            format!(" {}", md_cell(&clause.clause_name, usize::MAX))
        };
        let _ = writeln!(
            out,
            "## Clause {}{name}\n",
            md_cell(&clause.clause_id, usize::MAX)
        );
        let _ = writeln!(out, "| ID | Level | Type | Description | Original text |");
        let _ = writeln!(out, "|---|---|---|---|---|");
        for risk in &clause.risks {
            let f = &risk.finding;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell(&risk.id),
                f.level,
                kind_text(f),
                cell(&f.description),
                cell(&f.quote)
            );
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report whose every document-derived field carries HTML, as a hostile contract's
    /// headings and party names would.
    fn hostile_report() -> ReviewReport {
        serde_json::from_value(serde_json::json!({
            "document_id": "<img src=x onerror=alert(1)>.md",
            "domain_id": "",
            "our_party": "Acme <b>Ltd</b> &amp; Co\n# injected heading",
            "checklist_generated": true,
            "clauses": [{
                "clause_id": "4.1<!--",
                "clause_name": "Price <script>alert(1)</script> & costs",
                "priority": "high",
                "skills": [],
                "skipped_skills": [],
                "risks": [{
                    "id": "R-4.1-1",
                    "clause_id": "4.1<!--",
                    "risk_level": "high",
                    "risk_type": "time_period_shortened",
                    "description": "A time period was shortened from 28 days to 14 days <iframe>",
                    "reason": "r",
                    "analysis": "a",
                    "source_skill": "compare",
                    "location": {"original_text": "28 days -> 14 days &#60;b&#62; | x"}
                }]
            }],
            "summary": {
                "clauses_reviewed": 1, "skill_calls": 0, "skill_failures": 0,
                "unknown_skills": [], "total_risks": 1, "high": 1, "medium": 0, "low": 0
            }
        }))
        .expect("a report in the JSON shape")
    }

    #[test]
    fn markdown_report_writes_no_raw_html_from_the_document() {
        let md = render_markdown(&hostile_report());
        assert!(!md.contains('<'), "raw `<` in the Markdown report:\n{md}");
        assert!(
            md.contains("# Review of &lt;img src=x onerror=alert(1)>.md\n"),
            "{md}"
        );
        // An entity in the text shows as written; a bare `&` is left as it is.
        assert!(
            md.contains("Acme &lt;b>Ltd&lt;/b> &amp;amp; Co # injected heading"),
            "{md}"
        );
        assert!(
            !md.contains("\n# injected"),
            "a line break in a name opened a block:\n{md}"
        );
        assert!(
            md.contains("## Clause 4.1&lt;!-- Price &lt;script>alert(1)&lt;/script> & costs\n"),
            "{md}"
        );
        assert!(
            md.contains("14 days &lt;iframe> | 28 days -> 14 days &amp;#60;b&amp;#62; \\| x |"),
            "{md}"
        );
    }

    #[test]
    fn markdown_inert_text_keeps_plain_text_as_it_is() {
        let plain = "A & B -> C; 5% of USD 1,000 (a) [b] *c* _d_ > e";
        assert_eq!(md_inert(plain), plain);
        assert_eq!(
            md_inert("a<b &lt; &#x3c; &"),
            "a&lt;b &amp;lt; &amp;#x3c; &"
        );
    }
}
