//! `clausewright train`: fit a provision model on labelled contracts (CUAD's label format) and
//! write the model file that `ProvisionModel::load` reads.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clausewright_skills::detect::corpus::read_corpus;
use clausewright_skills::detect::train::{train, Recipe};

use super::{print, CliError};

/// Options of `clausewright train`.
#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// The corpus folder: contract texts and `labels.jsonl` (or `labels/*.json`) in CUAD's
    /// label format; see the README, "Training on your own contracts".
    #[arg(long)]
    corpus: PathBuf,
    /// The labels file (JSON lines), when it is not `CORPUS/labels.jsonl`.
    #[arg(long)]
    labels: Option<PathBuf>,
    /// Where to write the model.
    #[arg(long)]
    out: PathBuf,
    /// The training recipe (JSON: seed, vocabulary, learner parameters, groups of related
    /// contracts); the built-in defaults when absent.
    #[arg(long)]
    recipe: Option<PathBuf>,
    /// Threads to train on (the model does not depend on it).
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

/// Reads a recipe file, or gives the defaults.
pub fn read_recipe(path: Option<&Path>) -> Result<Recipe, CliError> {
    let Some(path) = path else {
        return Ok(Recipe::default());
    };
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
        path: path.display().to_string(),
        source,
    })?;
    let recipe: Recipe = serde_json::from_str(&text).map_err(|e| {
        CliError::Usage(format!(
            "{} is not a training recipe (expected {{seed, min_df, max_terms, negatives_per_positive, positive_weight, validation_share, ftrl: {{alpha, beta, l1, l2, epochs}}, feature_sets?: [\"sentence\" | \"sentence_and_previous\", ...], related?: [[id, ...]]}}): {e}",
            path.display()
        ))
    })?;
    recipe
        .validate()
        .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
    Ok(recipe)
}

/// Trains and writes the model.
pub fn run(args: &TrainArgs) -> Result<ExitCode, CliError> {
    let recipe = read_recipe(args.recipe.as_deref())?;
    let contracts = read_corpus(&args.corpus, args.labels.as_deref())
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let (model, summary) = train(&contracts, &recipe, args.threads.max(1))
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let bytes = model.to_bytes();
    std::fs::write(&args.out, &bytes).map_err(|source| CliError::WriteFile {
        path: args.out.display().to_string(),
        source,
    })?;
    let detected = summary.categories.iter().filter(|(_, n, _)| *n > 0).count();
    print(format!(
        "{}: {} bytes; {} contracts, {} sentences ({:.1}% located in their source), {} terms, {} categories ({} with positive sentences)",
        args.out.display(),
        bytes.len(),
        summary.contracts,
        summary.sentences,
        summary.located_share * 100.0,
        summary.terms,
        summary.categories.len(),
        detected
    ))?;
    if summary.selection.candidates.len() > 1 {
        let tried: Vec<String> = summary
            .selection
            .candidates
            .iter()
            .map(|(set, f1)| format!("{} {f1:.3}", set.name()))
            .collect();
        print(format!(
            "feature set kept on held-out contracts: {} (mean F1: {})",
            summary.selection.kept.name(),
            tried.join(", ")
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
