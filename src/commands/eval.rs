//! `skillkit eval`: run the review over a labelled corpus and print recall per category,
//! recall at medium or above, and the false-alarm rate.

use std::path::PathBuf;
use std::process::ExitCode;

use skill_core::Dispatcher;
use skills::review::eval::{evaluate, render_eval};

use super::CliError;

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
    /// Print the full report as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs the evaluation and prints it.
pub fn run(dispatcher: &Dispatcher, args: &EvalArgs) -> Result<ExitCode, CliError> {
    let report = evaluate(dispatcher, &args.corpus, &args.expectations)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let text = if args.json {
        serde_json::to_string_pretty(&report).map_err(|e| CliError::Usage(e.to_string()))?
    } else {
        render_eval(&report)
    };
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
