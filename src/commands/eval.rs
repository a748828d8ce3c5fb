//! `skillkit eval`: run the review over a labelled corpus and print recall per category,
//! recall at medium or above, and the false-alarm rate.

use std::path::PathBuf;
use std::process::ExitCode;

use skill_core::Dispatcher;
use skills::review::eval::{evaluate, render_eval};

use super::{print, print_json, CliError, ListFormat};

/// Options of `skillkit eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The corpus folder: `cuad/labels/*.json` with `cuad/contracts/*.txt`, and the documents
    /// the expectation files name.
    #[arg(long, default_value = "../shared/corpus")]
    corpus: PathBuf,
    /// Folder of expectation files (`*.json`) for the documents without CUAD labels.
    #[arg(long, default_value = "eval/expectations")]
    expectations: PathBuf,
    /// `table` for people, `json` (the full report) for programs.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
    /// Same as `--format json`.
    #[arg(long, hide = true)]
    json: bool,
}

/// Runs the evaluation and prints it.
pub fn run(dispatcher: &Dispatcher, args: &EvalArgs) -> Result<ExitCode, CliError> {
    let report = evaluate(dispatcher, &args.corpus, &args.expectations)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    if args.json || args.format == ListFormat::Json {
        print_json(&report)?;
    } else {
        print(render_eval(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}
