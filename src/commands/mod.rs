//! One module per subcommand.

pub mod call;
pub mod catalog;
pub mod check;
mod console_reviews;
pub mod eval;
pub mod list;
mod model_client;
pub mod parse;
pub mod playbook;
pub mod review;
pub mod run_store;
pub mod runs;
pub mod search;
pub mod serve;
mod serve_review;
pub mod serve_skills;
pub mod tools;
pub mod train;

use std::fmt::Display;
use std::io::Write as _;
use std::path::Path;

use clausewright_skills::review::{build_review_state, ReviewInputs};
use clausewright_skills::ReviewState;
use toolwright::ToolFilter;

/// Domain and category options shared by the listing commands.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FilterArgs {
    /// Keep skills of this domain (and the universal `*` ones).
    #[arg(long)]
    pub domain: Option<String>,
    /// Keep skills of this category.
    #[arg(long)]
    pub category: Option<String>,
}

impl FilterArgs {
    /// The dispatcher filter these options describe.
    pub fn to_filter(&self) -> ToolFilter {
        ToolFilter {
            domain: self.domain.clone(),
            category: self.category.clone(),
            ..ToolFilter::default()
        }
    }
}

/// A command failure the user can fix.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The `--args` value is not a JSON object.
    #[error("--args is not a JSON object: {0}")]
    BadArgs(String),
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    WriteFile {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The command line asks for something that cannot be done.
    #[error("{0}")]
    Usage(String),
    /// The MCP server could not start or stopped with an error.
    #[error(transparent)]
    Serve(#[from] toolwright_mcp::ServeError),
    /// Output could not be written.
    #[error("cannot write output: {0}")]
    Write(#[from] std::io::Error),
}

/// `message` on one line: its lines trimmed and joined with spaces (a list's `- ` bullets
/// become `; ` separators).
pub fn one_line(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for line in message.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.strip_prefix("- ") {
            Some(item) => {
                if !out.is_empty() {
                    out.push_str(if out.ends_with(':') { " " } else { "; " });
                }
                out.push_str(item);
            }
            None => {
                if !out.is_empty() {
                    out.push_str(if out.ends_with(['.', ':']) { " " } else { ". " });
                }
                out.push_str(line);
            }
        }
    }
    if out.is_empty() {
        "failed".into()
    } else {
        out
    }
}

/// How a listing is printed: a table for people, JSON for programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// A table that fits the terminal.
    Table,
    /// JSON on standard output.
    Json,
}

/// Writes `text` and a newline to standard output. A closed output (the reader of a pipe
/// went away) comes back as [`CliError::Write`] with `BrokenPipe`, which `main` turns into
/// a quiet exit, never a panic as `println!` would.
pub fn print(text: impl Display) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// `value` as pretty JSON on standard output.
pub fn print_json(value: &impl serde::Serialize) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    print(text)
}

/// Width used when there is no terminal to measure and `COLUMNS` is not set.
pub const DEFAULT_TABLE_WIDTH: u16 = 100;

/// The width tables are fitted to: `COLUMNS` when set to a number (so scripts and tests can
/// choose), else the width of the terminal on standard output (comfy-table measures it with
/// an ioctl through crossterm), else [`DEFAULT_TABLE_WIDTH`].
pub fn table_width() -> u16 {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<u16>().ok())
        .filter(|c| *c >= 20)
    {
        return columns;
    }
    comfy_table::Table::new()
        .width()
        .unwrap_or(DEFAULT_TABLE_WIDTH)
}

/// A table with the project's preset whose rows wrap to [`table_width`].
pub fn fitted_table() -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
        .set_width(table_width());
    table
}

/// The review state of a contract, refused when the contract holds no text: an empty file
/// would otherwise be "reviewed" with no risks found and success.
pub fn review_state(inputs: &ReviewInputs) -> Result<ReviewState, CliError> {
    let state = build_review_state(inputs).map_err(|e| CliError::Usage(e.to_string()))?;
    let empty = state
        .primary()
        .is_none_or(|doc| doc.total_clauses == 0 && doc.preamble.trim().is_empty());
    if empty {
        return Err(no_text(&inputs.primary));
    }
    Ok(state)
}

/// The error for a contract without text.
pub fn no_text(path: &Path) -> CliError {
    CliError::Usage(format!(
        "{} has no text to review (empty document)",
        path.display()
    ))
}
