//! `clausewright playbook`: print a built-in playbook (the levels of the provision classifier's
//! findings) to copy, edit and pass to `review --playbook`.

use std::process::ExitCode;

use clausewright_skills::detect::model::ProvisionModel;
use clausewright_skills::review::{Domain, Playbook, Probability};

use super::CliError;

/// Options of `clausewright playbook`.
#[derive(Debug, clap::Args)]
pub struct PlaybookArgs {
    /// Domain whose playbook to print: `generic`, `fidic` or `sha_spa`.
    #[arg(long, default_value = "generic", value_parser = ["generic", "fidic", "sha_spa"])]
    domain: String,
    /// Write each kind's `serious_at`: the probability from which the classifier's finding
    /// may be medium or high, as the built-in model (or `--provision-model`) chose it, so the
    /// copy names every threshold a firm may trade recall for precision with.
    #[arg(long)]
    thresholds: bool,
    /// With `--thresholds`: the model to read them from (made by `clausewright train`).
    #[arg(long, requires = "thresholds")]
    provision_model: Option<std::path::PathBuf>,
}

/// Prints the playbook's JSON.
pub fn run(args: &PlaybookArgs) -> Result<ExitCode, CliError> {
    let domain = match args.domain.as_str() {
        "generic" => Domain::Generic,
        other => other
            .parse()
            .map_err(|e: clausewright_skills::review::UnknownDomain| {
                CliError::Usage(e.to_string())
            })?,
    };
    if !args.thresholds {
        super::print(Playbook::text_for(domain).trim_end())?;
        return Ok(ExitCode::SUCCESS);
    }
    let loaded;
    let model = match &args.provision_model {
        Some(path) => {
            loaded = ProvisionModel::load(path).map_err(|e| {
                CliError::Usage(format!("provision model `{}`: {e}", path.display()))
            })?;
            &loaded
        }
        None => ProvisionModel::embedded()
            .map_err(|e| CliError::Usage(format!("the built-in provision model: {e}")))?,
    };
    let mut playbook = Playbook::for_domain(domain);
    for (kind, levels) in playbook.kinds.iter_mut() {
        if let Some(at) = model.serious_threshold(*kind) {
            levels.serious_at =
                Some(Probability::new(at).expect("a model's threshold is a probability"));
        }
    }
    let text = serde_json::to_string_pretty(&playbook)
        .map_err(|e| CliError::Usage(format!("cannot write the playbook: {e}")))?;
    super::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
