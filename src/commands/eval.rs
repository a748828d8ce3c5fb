//! `clausewright eval`: run the review over a labelled corpus and print recall per category,
//! recall at medium or above, and the false-alarm rate; with `--cv K`, cross-validate the
//! provision classifier on a labelled corpus instead (folds by contract).

use std::path::PathBuf;
use std::process::ExitCode;

use clausewright_skills::detect::corpus::read_corpus;
use clausewright_skills::detect::cv::{cross_validate, render_cv};
use clausewright_skills::review::eval::{evaluate, render_eval};
use toolwright::Dispatcher;

use super::{print, print_json, CliError, ListFormat};

/// Options of `clausewright eval`.
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
    /// Cross-validate the provision classifier with this many folds (by contract, related
    /// contracts in one fold) on `--corpus` in CUAD's label format (`CORPUS/cuad-train` when
    /// `CORPUS` itself holds no labels), instead of measuring the review.
    #[arg(long, value_name = "K")]
    cv: Option<usize>,
    /// With `--cv`: the labels file (JSON lines), when it is not `CORPUS/labels.jsonl`.
    #[arg(long, requires = "cv")]
    labels: Option<PathBuf>,
    /// With `--cv`: the training recipe (see `clausewright train --recipe`).
    #[arg(long, requires = "cv")]
    recipe: Option<PathBuf>,
    /// With `--cv`: threads to train on (the figures do not depend on it).
    #[arg(long, requires = "cv", default_value_t = 2)]
    threads: usize,
    /// With `--cv`: measure the classifier alone, without reviewing each fold's held-out
    /// contracts end to end (faster).
    #[arg(long, requires = "cv")]
    classifier_only: bool,
}

/// Runs the cross-validation of the provision classifier (and of the review on each fold's
/// held-out contracts) and prints it.
fn run_cv(dispatcher: &Dispatcher, args: &EvalArgs, k: usize) -> Result<ExitCode, CliError> {
    let recipe = super::train::read_recipe(args.recipe.as_deref())?;
    let nested = args.corpus.join("cuad-train");
    let corpus = if args.labels.is_none()
        && !args.corpus.join("labels.jsonl").is_file()
        && !args.corpus.join("labels").is_dir()
        && nested.join("labels.jsonl").is_file()
    {
        nested
    } else {
        args.corpus.clone()
    };
    let contracts =
        read_corpus(&corpus, args.labels.as_deref()).map_err(|e| CliError::Usage(e.to_string()))?;
    let review = (!args.classifier_only).then_some(dispatcher);
    let report = cross_validate(&contracts, &recipe, k, args.threads.max(1), review)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    if args.json || args.format == ListFormat::Json {
        print_json(&report)?;
    } else {
        print(render_cv(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the evaluation and prints it.
pub fn run(dispatcher: &Dispatcher, args: &EvalArgs) -> Result<ExitCode, CliError> {
    if let Some(k) = args.cv {
        return run_cv(dispatcher, args, k);
    }
    let report = evaluate(dispatcher, &args.corpus, &args.expectations)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    if args.json || args.format == ListFormat::Json {
        print_json(&report)?;
    } else {
        print(render_eval(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}
