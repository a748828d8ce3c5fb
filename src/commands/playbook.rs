//! `clausewright playbook`: print a built-in playbook (the levels of the provision classifier's
//! findings) to copy, edit and pass to `review --playbook`.

use std::process::ExitCode;

use clausewright_skills::review::{Domain, Playbook};

use super::CliError;

/// Options of `clausewright playbook`.
#[derive(Debug, clap::Args)]
pub struct PlaybookArgs {
    /// Domain whose playbook to print: `generic`, `fidic` or `sha_spa`.
    #[arg(long, default_value = "generic", value_parser = ["generic", "fidic", "sha_spa"])]
    domain: String,
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
    super::print(Playbook::text_for(domain).trim_end())?;
    Ok(ExitCode::SUCCESS)
}
