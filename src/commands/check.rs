//! `clausewright check`: everything that can be checked before the first call — the skill
//! registry, the tool conventions (seed 004 checklist) and the contracts between packs.

use std::process::ExitCode;

use serde::Serialize;
use toolwright::lint::{lint_registry, LintSeverity};
use toolwright::{Dialect, Dispatcher, ToolFilter};

use super::{print, print_json, CliError, ListFormat};

/// Options of `clausewright check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Treat lint warnings as failures.
    #[arg(long)]
    strict: bool,
    /// `table` (one line per problem) for people, `json` for programs.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
}

/// One problem found.
#[derive(Debug, Serialize)]
struct Problem {
    /// `error` or `warning`.
    severity: &'static str,
    /// What was checked: `registry`, `dialect`, `lint`, `packs`.
    area: &'static str,
    /// The problem, in one line.
    message: String,
}

/// Everything `check` found, for `--format json`.
#[derive(Debug, Serialize)]
struct Report {
    problems: Vec<Problem>,
    errors: usize,
    warnings: usize,
    skills: usize,
    dialects: usize,
    packs: usize,
}

fn find_problems(dispatcher: &Dispatcher) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut push = |severity, area, message: String| {
        problems.push(Problem {
            severity,
            area,
            message,
        });
    };
    for problem in toolwright::testing::validate_registry(dispatcher) {
        push("error", "registry", problem.to_string());
    }
    // A request carries one domain's tools: each domain's set must fit every dialect. The
    // set of all domains together is only a warning (a host would filter it).
    let mut domains: Vec<&str> = dispatcher
        .list_skills()
        .iter()
        .map(|s| s.domain)
        .filter(|d| *d != "*")
        .collect();
    domains.sort_unstable();
    domains.dedup();
    for dialect in Dialect::ALL {
        for domain in &domains {
            if let Err(err) = dispatcher.tools_in(dialect, &ToolFilter::all().domain(*domain)) {
                push(
                    "error",
                    "dialect",
                    format!("dialect {dialect}, domain {domain}: {err}"),
                );
            }
        }
        if let Err(err) = dispatcher.tools_in(dialect, &ToolFilter::all()) {
            push(
                "warning",
                "dialect",
                format!("dialect {dialect}, all domains together: {err}"),
            );
        }
    }
    for finding in lint_registry(dispatcher) {
        let severity = match finding.severity {
            LintSeverity::Error => "error",
            LintSeverity::Warning => "warning",
        };
        push(severity, "lint", finding.to_string());
    }
    for problem in toolwright_packs::check_packs() {
        push("error", "packs", problem.to_string());
    }
    problems
}

/// Prints every problem found; exits 1 when there are errors (or warnings with `--strict`),
/// with one line on standard error saying so.
pub fn run(dispatcher: &Dispatcher, args: &CheckArgs) -> Result<ExitCode, CliError> {
    let problems = find_problems(dispatcher);
    let errors = problems.iter().filter(|p| p.severity == "error").count();
    let warnings = problems.len() - errors;
    let report = Report {
        errors,
        warnings,
        skills: dispatcher.len(),
        dialects: Dialect::ALL.len(),
        packs: toolwright_packs::linked_packs().len(),
        problems,
    };
    match args.format {
        ListFormat::Json => print_json(&report)?,
        ListFormat::Table => {
            for problem in &report.problems {
                // Lint findings print their own severity.
                if problem.area == "lint" {
                    print(&problem.message)?;
                } else {
                    print(format_args!(
                        "{}: {}: {}",
                        problem.severity, problem.area, problem.message
                    ))?;
                }
            }
            print(format_args!(
                "checked {} skills in {} dialects and {} packs: {errors} error(s), {warnings} warning(s)",
                report.skills, report.dialects, report.packs
            ))?;
        }
    }
    let failed = errors > 0 || (args.strict && warnings > 0);
    if failed {
        eprintln!(
            "error: check of the skill registry failed: {errors} error(s), {warnings} warning(s){}",
            if args.strict { " (--strict)" } else { "" }
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
