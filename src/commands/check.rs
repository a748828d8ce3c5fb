//! `skillkit check`: everything that can be checked before the first call — the skill
//! registry, the tool conventions (seed 004 checklist) and the contracts between packs.

use std::process::ExitCode;

use skill_core::lint::{lint_registry, LintSeverity};
use skill_core::{Dialect, Dispatcher, ToolFilter};

use super::CliError;

/// Options of `skillkit check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Treat lint warnings as failures.
    #[arg(long)]
    strict: bool,
}

/// Prints every problem found; exits 1 when there are errors (or warnings with `--strict`).
pub fn run(dispatcher: &Dispatcher, args: &CheckArgs) -> Result<ExitCode, CliError> {
    let mut errors = 0;
    let mut warnings = 0;

    for problem in skill_core::testing::validate_registry(dispatcher) {
        println!("error: registry: {problem}");
        errors += 1;
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
                println!("error: dialect {dialect}, domain {domain}: {err}");
                errors += 1;
            }
        }
        if let Err(err) = dispatcher.tools_in(dialect, &ToolFilter::all()) {
            println!("warning: dialect {dialect}, all domains together: {err}");
            warnings += 1;
        }
    }
    for finding in lint_registry(dispatcher) {
        match finding.severity {
            LintSeverity::Error => errors += 1,
            LintSeverity::Warning => warnings += 1,
        }
        println!("{finding}");
    }
    for problem in skill_packs::check_packs() {
        println!("error: packs: {problem}");
        errors += 1;
    }

    println!(
        "checked {} skills in {} dialects and {} packs: {errors} error(s), {warnings} warning(s)",
        dispatcher.len(),
        Dialect::ALL.len(),
        skill_packs::linked_packs().len()
    );
    let failed = errors > 0 || (args.strict && warnings > 0);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
