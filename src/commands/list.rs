//! `skillkit list`: the registered skills as a table.

use std::process::ExitCode;

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use skill_core::Dispatcher;

use super::{CliError, FilterArgs};

/// Options of `skillkit list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    filter: FilterArgs,
    /// Include disabled and deprecated skills.
    #[arg(long)]
    all: bool,
}

/// Prints the table.
pub fn run(dispatcher: &Dispatcher, args: &ListArgs) -> Result<ExitCode, CliError> {
    let filter = args.filter.to_filter();
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header([
            "id",
            "domain",
            "category",
            "status",
            "arguments",
            "description",
        ]);
    let mut shown = 0;
    for skill in dispatcher.list_skills() {
        let passes = filter
            .domain
            .as_deref()
            .is_none_or(|d| skill.domain == "*" || skill.domain == d)
            && filter
                .category
                .as_deref()
                .is_none_or(|c| skill.category == c);
        if !passes || (!args.all && !skill.is_active()) {
            continue;
        }
        let arguments: Vec<String> = skill
            .params
            .iter()
            .map(|p| {
                if p.required {
                    p.name.to_string()
                } else {
                    format!("[{}]", p.name)
                }
            })
            .collect();
        table.add_row([
            skill.id,
            skill.domain,
            skill.category,
            skill.status.as_str(),
            &arguments.join(" "),
            skill.description,
        ]);
        shown += 1;
    }
    println!("{table}");
    println!("{shown} of {} skills", dispatcher.len());
    Ok(ExitCode::SUCCESS)
}
