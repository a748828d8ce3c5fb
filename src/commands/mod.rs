//! One module per subcommand.

pub mod call;
pub mod check;
pub mod eval;
pub mod list;
pub mod parse;
pub mod review;
pub mod serve;
pub mod tools;

use skill_core::ToolFilter;

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
    /// The command line asks for something that cannot be done.
    #[error("{0}")]
    Usage(String),
    /// The MCP server could not start or stopped with an error.
    #[error(transparent)]
    Serve(#[from] skill_mcp::ServeError),
    /// Output could not be written.
    #[error("cannot write output: {0}")]
    Write(#[from] std::io::Error),
}
