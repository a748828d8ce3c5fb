//! `clausewright parse`: the clause tree a review will use, so a user can see why a clause was
//! or was not found (number, title, level, length, defined terms, references).

use std::borrow::Cow;
use std::path::PathBuf;
use std::process::ExitCode;

use clausewright_skills::document::{load_document, DocumentOutline};
use comfy_table::Table;

use super::{fitted_table, print, print_json, CliError, ListFormat};

/// Options of `clausewright parse`.
#[derive(Debug, clap::Args)]
pub struct ParseArgs {
    /// The contract to read, with the same loader as `review`.
    path: PathBuf,
    /// `table` for people, `json` for programs.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
    /// Same as `--format json`.
    #[arg(long, hide = true)]
    json: bool,
}

/// Parses the file and prints its clause tree.
pub fn run(args: &ParseArgs) -> Result<ExitCode, CliError> {
    let doc = load_document(&args.path).map_err(|err| CliError::Usage(err.to_string()))?;
    if doc.total_clauses == 0 && doc.preamble.trim().is_empty() {
        return Err(CliError::Usage(format!(
            "{} has no text to parse (empty document)",
            args.path.display()
        )));
    }
    let outline = doc.outline();
    if args.json || args.format == ListFormat::Json {
        print_json(&outline)?;
    } else {
        print(table(&outline))?;
        print(summary(&outline))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `text` from a document made safe to show on a terminal: control characters other than
/// a line break and a tab (escape sequences that recolour the terminal, set its title or
/// move the cursor; a carriage return that overwrites the line) and the bidirectional
/// overrides that reorder what is shown are written as Rust escapes (`\u{1b}`). JSON
/// output needs none of this: serde escapes control characters already.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    let hidden = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One row per clause, indented by level.
fn table(outline: &DocumentOutline) -> Table {
    let mut table = fitted_table();
    table.set_header([
        "number",
        "level",
        "title",
        "length",
        "defined terms",
        "references",
    ]);
    for clause in &outline.clauses {
        let indent = "  ".repeat(clause.level.saturating_sub(1) as usize);
        let references: Vec<String> = clause
            .references
            .iter()
            .map(|r| {
                if r.is_valid {
                    format!("{} -> {}", r.reference_text, r.target_clause_id)
                } else {
                    format!("{} (broken)", r.reference_text)
                }
            })
            .collect();
        table.add_row([
            format!("{indent}{}", visible(&clause.clause_id)),
            clause.level.to_string(),
            visible(&clause.title).into_owned(),
            clause.length.to_string(),
            visible(&clause.defined_terms.join(", ")).into_owned(),
            visible(&references.join(", ")).into_owned(),
        ]);
    }
    table
}

/// The totals under the table.
fn summary(outline: &DocumentOutline) -> String {
    let mut lines = vec![format!(
        "{}: {} clauses ({} numbering), {} defined terms, {} broken references",
        visible(&outline.document_id),
        outline.total_clauses,
        outline.structure_type,
        outline.defined_terms,
        outline.broken_references
    )];
    if outline.preamble_length > 0 {
        lines.push(format!(
            "preamble: {} characters before the first clause",
            outline.preamble_length
        ));
    }
    if outline.skipped.table_of_contents > 0 || outline.skipped.page_furniture > 0 {
        lines.push(format!(
            "skipped: {} lines of table of contents, {} lines of page furniture",
            outline.skipped.table_of_contents, outline.skipped.page_furniture
        ));
    }
    if outline.structure_type == "paragraphs" {
        lines.push(
            "no numbered headings found: the text was split into paragraphs P1, P2, ...".into(),
        );
    }
    lines.join("\n")
}
