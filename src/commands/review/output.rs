//! Writing the report: the table fitted to the terminal, Markdown, or JSON streamed to the
//! file or standard output (a 22,200-clause report is some 58 MB of JSON, never held as one
//! string).

use std::io::Write as _;
use std::process::ExitCode;

use clausewright_skills::review::{render, render_table_within, ReportFormat, ReviewReport};

use super::ReviewArgs;
use crate::commands::CliError;

/// Writes `report` in the format and to the place `args` ask for.
pub fn write_report(report: &ReviewReport, args: &ReviewArgs) -> Result<ExitCode, CliError> {
    let format: ReportFormat = args
        .format
        .parse()
        .map_err(|_| CliError::Usage(format!("unknown format `{}`", args.format)))?;
    match (&args.out, format) {
        (Some(path), ReportFormat::Json) => {
            let failed = |source: std::io::Error| CliError::WriteFile {
                path: path.display().to_string(),
                source,
            };
            let file = std::fs::File::create(path).map_err(failed)?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
            serde_json::to_writer_pretty(&mut out, report).map_err(|e| failed(e.into()))?;
            out.flush().map_err(failed)?;
        }
        (Some(path), _) => {
            // The Markdown quotes the document: its control characters are written escaped.
            let text = render(report, format);
            let text = crate::commands::parse::visible(&text);
            std::fs::write(path, text.as_bytes()).map_err(|source| CliError::WriteFile {
                path: path.display().to_string(),
                source,
            })?;
        }
        (None, ReportFormat::Json) => {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
            serde_json::to_writer_pretty(&mut out, report).map_err(std::io::Error::from)?;
            writeln!(out)?;
            out.flush()?;
            return Ok(ExitCode::SUCCESS);
        }
        (None, _) => {
            let text = match format {
                ReportFormat::Table => {
                    render_table_within(report, usize::from(crate::commands::table_width()))
                }
                _ => render(report, format),
            };
            // The table and the Markdown quote the document: its control characters are
            // shown escaped, never sent to the terminal.
            crate::commands::print(crate::commands::parse::visible(&text))?;
            return Ok(ExitCode::SUCCESS);
        }
    }
    if let Some(path) = &args.out {
        eprintln!(
            "wrote {} risks on {} clauses to {}",
            report.summary.total_risks,
            report.summary.clauses_reviewed,
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
