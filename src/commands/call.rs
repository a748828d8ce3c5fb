//! `clausewright call`: run one skill with JSON arguments.

use std::io::Read;
use std::process::ExitCode;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clausewright_skills::index::ReferenceIndex;
use clausewright_skills::ClauseFocus;
use serde_json::Value;
use toolwright::limits::{ArgumentLimits, LimitError};
use toolwright::{Dispatcher, SkillContext};

use super::review::{contract_inputs, ContractOptions};
use super::{print, review_state, CliError};

/// Options of `clausewright call`.
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
    /// Refuse arguments the skill does not have instead of running without them.
    #[arg(long)]
    strict: bool,
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
        let state = review_state(&inputs)?;
        ctx.insert(ReferenceIndex::build(&state));
        ctx.insert_arc(Arc::new(state));
    }
    if let Some(clause) = clause {
        ctx.insert(ClauseFocus(clause.to_string()));
    }
    Ok(ctx)
}

/// Reads the `--args` text (refused unread past the argument size limit, so a huge file or
/// stream is never loaded whole) and parses it as a JSON object.
fn read_arguments(spec: &str, limits: ArgumentLimits) -> Result<Value, CliError> {
    let too_large = |source: &str, err: LimitError| {
        CliError::Usage(format!(
            "--args (from {source}) refused unparsed: {err}; pass a smaller argument object"
        ))
    };
    let (source, text) = if spec == "-" {
        (
            "standard input".to_string(),
            read_bounded(std::io::stdin().lock(), limits.max_bytes)?,
        )
    } else if let Some(path) = spec.strip_prefix('@') {
        let file = std::fs::File::open(path).map_err(|source| CliError::Read {
            path: path.to_string(),
            source,
        })?;
        (
            path.to_string(),
            read_bounded(file, limits.max_bytes).map_err(|source| CliError::Read {
                path: path.to_string(),
                source,
            })?,
        )
    } else {
        ("the command line".to_string(), spec.to_string())
    };
    limits
        .check_text(&text)
        .map_err(|err| too_large(&source, err))?;
    match serde_json::from_str::<Value>(&text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(CliError::BadArgs(format!("(from {source}) got {other}"))),
        Err(err) => Err(CliError::BadArgs(format!("(from {source}) {err}"))),
    }
}

/// At most `limit + 1` bytes of `reader` as text: one byte over is enough to refuse it.
fn read_bounded(reader: impl Read, limit: usize) -> std::io::Result<String> {
    let mut text = String::new();
    reader
        .take(limit.saturating_add(1) as u64)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// Runs the skill; prints the standard result; exits 1 when the skill failed, with one line
/// on standard error saying why.
pub fn run(dispatcher: &Dispatcher, args: &CallArgs) -> Result<ExitCode, CliError> {
    let arguments = read_arguments(&args.args, dispatcher.argument_limits())?;
    let strict;
    let dispatcher = if args.strict {
        let mut builder = Dispatcher::builder()
            .skills(dispatcher.list_skills().iter().copied())
            .argument_limits(dispatcher.argument_limits())
            .strict_arguments(true);
        if let Some(timeout) = dispatcher.default_timeout() {
            builder = builder.default_timeout(timeout);
        }
        strict = builder
            .build()
            .map_err(|e| CliError::Usage(e.to_string()))?;
        &strict
    } else {
        dispatcher
    };
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
    print(pretty)?;
    if let Some(error) = result.error.as_ref().filter(|_| !result.success) {
        eprintln!(
            "error: {}: {}: {}",
            args.id,
            error.code,
            super::one_line(&error.message)
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
