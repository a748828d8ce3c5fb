//! `skillkit call`: run one skill with JSON arguments.

use std::io::Read;
use std::process::ExitCode;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use skill_core::{Dispatcher, SkillContext};
use skills::index::ReferenceIndex;
use skills::review::build_review_state;
use skills::ClauseFocus;

use super::review::{contract_inputs, ContractOptions};
use super::CliError;

/// Options of `skillkit call`.
#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// Skill id (or its wire name).
    id: String,
    /// Arguments as a JSON object; `@FILE` reads them from a file, `-` from standard input.
    #[arg(long, default_value = "{}")]
    args: String,
    /// A contract (file or sample folder, as for `review`) whose review state the skill is
    /// given; the contract-review skills need one.
    #[arg(long)]
    contract: Option<PathBuf>,
    /// The clause under review: skills prepare `clause_id` (and what depends on it) from it
    /// when the arguments leave it out.
    #[arg(long)]
    clause: Option<String>,
    #[command(flatten)]
    options: ContractOptions,
}

/// The host values a call gets: the review state of `contract`, its reference index, and
/// the clause in focus. Shared by `call` and `serve`, so a skill behaves the same in both.
pub(super) fn contract_context(
    contract: Option<&Path>,
    clause: Option<&str>,
    options: &ContractOptions,
) -> Result<SkillContext, CliError> {
    let mut ctx = SkillContext::new();
    if let Some(path) = contract {
        let inputs = contract_inputs(path, options)?;
        let state = build_review_state(&inputs).map_err(|e| CliError::Usage(e.to_string()))?;
        ctx.insert(ReferenceIndex::build(&state));
        ctx.insert_arc(Arc::new(state));
    }
    if let Some(clause) = clause {
        ctx.insert(ClauseFocus(clause.to_string()));
    }
    Ok(ctx)
}

fn read_arguments(spec: &str) -> Result<Value, CliError> {
    let text = if spec == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        text
    } else if let Some(path) = spec.strip_prefix('@') {
        std::fs::read_to_string(path).map_err(|source| CliError::Read {
            path: path.to_string(),
            source,
        })?
    } else {
        spec.to_string()
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(CliError::BadArgs(format!("got {other}"))),
        Err(err) => Err(CliError::BadArgs(err.to_string())),
    }
}

/// Runs the skill; prints the standard result; exits 1 when the skill failed.
pub fn run(dispatcher: &Dispatcher, args: &CallArgs) -> Result<ExitCode, CliError> {
    let arguments = read_arguments(&args.args)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ctx = contract_context(
        args.contract.as_deref(),
        args.clause.as_deref(),
        &args.options,
    )?;
    let result = runtime.block_on(dispatcher.prepare_and_call(&args.id, &ctx, Some(&arguments)));
    for warning in &result.warnings {
        eprintln!(
            "warning: {} at {}: {}",
            warning.code, warning.path, warning.message
        );
    }
    // Through a Value so the skill's output is indented like the rest.
    let value = serde_json::to_value(&result).map_err(std::io::Error::other)?;
    let pretty = serde_json::to_string_pretty(&value).map_err(std::io::Error::other)?;
    println!("{pretty}");
    Ok(if result.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
