//! `skillkit tools`: the tool definitions a model receives, as JSON.

use std::io::Write;
use std::process::ExitCode;

use skill_core::Dispatcher;

use super::{CliError, FilterArgs};

/// Options of `skillkit tools`.
#[derive(Debug, clap::Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    filter: FilterArgs,
    /// Print on one line instead of pretty-printed.
    #[arg(long)]
    compact: bool,
}

/// Prints the definitions.
pub fn run(dispatcher: &Dispatcher, args: &ToolsArgs) -> Result<ExitCode, CliError> {
    let tools = dispatcher.get_tool_definitions(&args.filter.to_filter());
    let mut out = std::io::stdout().lock();
    if args.compact {
        writeln!(out, "{}", tools.to_json())?;
    } else {
        let pretty =
            serde_json::to_string_pretty(tools.definitions()).map_err(std::io::Error::other)?;
        writeln!(out, "{pretty}")?;
    }
    Ok(ExitCode::SUCCESS)
}
