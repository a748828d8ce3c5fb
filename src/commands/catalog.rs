//! `clausewright catalog`: the registered skills as a database table (`sync`) and as
//! documentation (`export`).

use std::process::ExitCode;

use toolwright::Dispatcher;
use toolwright_packs::{catalog_entries, catalog_markdown, sync_catalog, SyncReport};

use super::{print, print_json, CliError};

/// Options of `clausewright catalog`.
#[derive(Debug, clap::Args)]
pub struct CatalogArgs {
    #[command(subcommand)]
    command: CatalogCommand,
}

#[derive(Debug, clap::Subcommand)]
enum CatalogCommand {
    /// Write every registered skill to the `skill_catalog` table: new rows added, changed
    /// ones updated, unchanged ones left alone, skills no longer registered disabled.
    Sync(SyncArgs),
    /// Print the catalog as documentation.
    Export(ExportArgs),
}

/// Options of `clausewright catalog sync`.
#[derive(Debug, clap::Args)]
struct SyncArgs {
    /// The database: `sqlite://path/to/file.db` or `postgres://user@host:port/db`.
    #[arg(long)]
    database: String,
    /// Print what would change without writing anything.
    #[arg(long)]
    dry_run: bool,
    /// `text` for people, `json` for programs.
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ReportFormat {
    Text,
    Json,
}

/// Options of `clausewright catalog export`.
#[derive(Debug, clap::Args)]
struct ExportArgs {
    /// `json` (the rows `sync` writes) or `markdown` (a page per skill).
    #[arg(long, value_enum, default_value = "markdown")]
    format: ExportFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ExportFormat {
    Json,
    Markdown,
}

/// Runs `clausewright catalog …`.
pub fn run(dispatcher: &Dispatcher, args: &CatalogArgs) -> Result<ExitCode, CliError> {
    match &args.command {
        CatalogCommand::Export(export) => {
            match export.format {
                ExportFormat::Json => print_json(&catalog_entries(dispatcher))?,
                ExportFormat::Markdown => print(catalog_markdown(dispatcher).trim_end())?,
            }
            Ok(ExitCode::SUCCESS)
        }
        CatalogCommand::Sync(sync) => {
            if names_no_file(&sync.database) {
                return Err(CliError::Usage(format!(
                    "`{}` names no database file: an in-memory SQLite database is gone when \
                     the command ends, so nothing would last; give a path, e.g. \
                     sqlite://catalog.db",
                    sync.database
                )));
            }
            let entries = catalog_entries(dispatcher);
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let report = runtime
                .block_on(sync_catalog(
                    &sync.database,
                    &entries,
                    sync.dry_run,
                    chrono::Utc::now(),
                ))
                .map_err(|e| CliError::Usage(format!("catalog sync failed: {e}")))?;
            match sync.format {
                ReportFormat::Json => print_json(&report)?,
                ReportFormat::Text => print(report_text(&report))?,
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Whether a SQLite URL names no file (`sqlite://`, `sqlite::memory:`, `mode=memory`).
fn names_no_file(database: &str) -> bool {
    let Some(rest) = database
        .strip_prefix("sqlite://")
        .or_else(|| database.strip_prefix("sqlite:"))
    else {
        return false;
    };
    let path = rest.split('?').next().unwrap_or("");
    path.trim().is_empty() || path == ":memory:" || rest.contains("mode=memory")
}

fn report_text(report: &SyncReport) -> String {
    let list = |label: &str, ids: &[String]| {
        if ids.is_empty() {
            format!("{label}: 0")
        } else {
            format!("{label}: {} ({})", ids.len(), ids.join(", "))
        }
    };
    let verb = if report.dry_run { "would be " } else { "" };
    let mut lines = vec![
        list(&format!("{verb}added"), &report.added),
        list(&format!("{verb}changed"), &report.changed),
        list(&format!("{verb}disabled"), &report.disabled),
        format!("unchanged: {}", report.unchanged),
    ];
    if report.dry_run {
        lines.push("dry run: nothing was written".into());
    }
    lines.join("\n")
}
