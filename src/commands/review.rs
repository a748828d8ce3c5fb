//! `skillkit review`: review a contract with the skill library, in checklist mode (offline,
//! deterministic) or with a model choosing the skills (`--agent react`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use skill_core::Dispatcher;
use skills::review::{
    build_review_state, render, run_checklist_review, ReportFormat, ReviewInputs, ReviewOptions,
};

use super::CliError;

/// Options of `skillkit review`.
#[derive(Debug, clap::Args)]
pub struct ReviewArgs {
    /// The contract to review (`.md`, `.txt`, `.json`), or a folder whose files get their roles
    /// by name (see `--help`): `checklist.json`, `criteria.json|csv`, general conditions as
    /// baseline and contract, particular conditions and employer's requirements as references.
    path: PathBuf,
    /// Domain of the contract: `fidic` or `sha_spa` (guessed from a folder when left out).
    #[arg(long)]
    domain: Option<String>,
    /// Checklist file (JSON array of {clause_id, clause_name, priority, required_skills,
    /// description}); generated from the contract's clauses when absent.
    #[arg(long)]
    checklist: Option<PathBuf>,
    /// Review criteria (`.json` or `.csv`).
    #[arg(long)]
    criteria: Option<PathBuf>,
    /// Standard form the contract is compared with.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Reference document to search (repeatable).
    #[arg(long = "reference")]
    references: Vec<PathBuf>,
    /// The party the review acts for.
    #[arg(long, default_value = "")]
    our_party: String,
    /// Language of the review: `en` or `zh-CN`.
    #[arg(long, default_value = "en", value_parser = ["en", "zh-CN"])]
    language: String,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json", "markdown"])]
    format: String,
    /// Write the report to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Clauses reviewed at the same time (0: one per CPU core).
    #[arg(long, default_value_t = 0)]
    concurrency: usize,
}

/// Files of a sample folder, by role.
#[derive(Debug, Default)]
struct Bundle {
    primary: Option<PathBuf>,
    baseline: Option<PathBuf>,
    references: Vec<PathBuf>,
    checklist: Option<PathBuf>,
    criteria: Option<PathBuf>,
}

/// Gives each file of a folder its role by name.
fn read_bundle(dir: &Path) -> Result<Bundle, CliError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CliError::Read {
        path: dir.display().to_string(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut bundle = Bundle::default();
    let mut contracts = Vec::new();
    for file in files {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_lowercase();
        let stem = name
            .rsplit_once('.')
            .map_or(name.as_str(), |(s, _)| s)
            .to_string();
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        if !matches!(ext, "md" | "txt" | "json" | "csv") || stem == "readme" {
            continue;
        }
        if stem.contains("checklist") {
            bundle.checklist = Some(file);
        } else if stem.contains("criteria") {
            bundle.criteria = Some(file);
        } else if stem.contains("general_conditions") || stem == "gc" {
            bundle.baseline = Some(file);
        } else if stem.contains("particular")
            || stem.contains("employer")
            || stem == "pc"
            || stem == "er"
        {
            bundle.references.push(file);
        } else if ext != "csv" {
            contracts.push(file);
        }
    }
    bundle.primary = contracts
        .into_iter()
        .next()
        .or_else(|| bundle.baseline.clone());
    Ok(bundle)
}

/// Builds the inputs from the arguments (and the folder, when a folder was given).
fn inputs(args: &ReviewArgs) -> Result<ReviewInputs, CliError> {
    let mut domain = args.domain.clone().unwrap_or_default();
    let (primary, mut baseline, mut references, mut checklist, mut criteria) = if args.path.is_dir()
    {
        let bundle = read_bundle(&args.path)?;
        let primary = bundle.primary.ok_or_else(|| {
            CliError::Usage(format!(
                "folder {} holds no contract (.md, .txt or .json)",
                args.path.display()
            ))
        })?;
        if domain.is_empty() && bundle.baseline.is_some() {
            domain = "fidic".into();
        }
        (
            primary,
            bundle.baseline,
            bundle.references,
            bundle.checklist,
            bundle.criteria,
        )
    } else {
        (args.path.clone(), None, Vec::new(), None, None)
    };
    if args.baseline.is_some() {
        baseline = args.baseline.clone();
    }
    references.extend(args.references.iter().cloned());
    if args.checklist.is_some() {
        checklist = args.checklist.clone();
    }
    if args.criteria.is_some() {
        criteria = args.criteria.clone();
    }
    if let Some(d) = &args.domain {
        if !matches!(d.as_str(), "fidic" | "sha_spa" | "") {
            return Err(CliError::Usage(format!(
                "unknown domain `{d}`; expected `fidic` or `sha_spa`"
            )));
        }
    }
    Ok(ReviewInputs {
        primary,
        baseline,
        references,
        criteria_file: criteria,
        checklist_file: checklist,
        domain_id: domain,
        our_party: args.our_party.clone(),
        language: args.language.clone(),
        material_type: String::new(),
        domain_subtype: String::new(),
    })
}

/// Runs the review and writes the report.
pub fn run(dispatcher: &Dispatcher, args: &ReviewArgs) -> Result<ExitCode, CliError> {
    let inputs = inputs(args)?;
    let format: ReportFormat = args
        .format
        .parse()
        .map_err(|_| CliError::Usage(format!("unknown format `{}`", args.format)))?;
    let state = build_review_state(&inputs).map_err(|e| CliError::Usage(e.to_string()))?;
    let options = ReviewOptions {
        concurrency: args.concurrency,
        ..ReviewOptions::default()
    };
    let report = run_checklist_review(dispatcher, &state, &options);
    let text = render(&report, format);
    match &args.out {
        Some(path) => {
            std::fs::write(path, text)?;
            eprintln!(
                "wrote {} risks on {} clauses to {}",
                report.summary.total_risks,
                report.summary.clauses_reviewed,
                path.display()
            );
        }
        None => println!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
