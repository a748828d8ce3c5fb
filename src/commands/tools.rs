//! `clausewright tools`: the tool definitions a model receives, as JSON.

use std::io::Write;
use std::process::ExitCode;

use toolwright::{Dialect, Dispatcher};

use super::{CliError, FilterArgs};

/// Options of `clausewright tools`.
#[derive(Debug, clap::Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    filter: FilterArgs,
    /// Provider dialect: openai, openai-strict, responses, anthropic, anthropic-strict,
    /// gemini, gemini-json-schema, mcp.
    #[arg(long, default_value = "openai")]
    dialect: String,
    /// Print on one line instead of pretty-printed.
    #[arg(long)]
    compact: bool,
}

/// Prints the definitions.
pub fn run(dispatcher: &Dispatcher, args: &ToolsArgs) -> Result<ExitCode, CliError> {
    let dialect: Dialect = args
        .dialect
        .parse()
        .map_err(|e: toolwright::DialectError| CliError::Usage(e.to_string()))?;
    let tools = dispatcher
        .tools_in(dialect, &args.filter.to_filter())
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    if args.compact {
        writeln!(out, "{}", tools.json())?;
    } else {
        let pretty =
            serde_json::to_string_pretty(tools.definitions()).map_err(std::io::Error::other)?;
        writeln!(out, "{pretty}")?;
    }
    Ok(ExitCode::SUCCESS)
}
