//! `clausewright list`: the registered skills as a table (fitted to the terminal) or JSON.

use std::process::ExitCode;

use serde::Serialize;
use toolwright::{Dispatcher, SkillRegistration};

use super::{fitted_table, print, print_json, CliError, FilterArgs, ListFormat};

/// Options of `clausewright list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    filter: FilterArgs,
    /// Include disabled and deprecated skills.
    #[arg(long)]
    all: bool,
    /// `table` for people, `json` for programs.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
}

/// One skill in the JSON listing.
#[derive(Debug, Serialize)]
struct Listed<'a> {
    id: &'a str,
    wire_name: &'a str,
    domain: &'a str,
    category: &'a str,
    status: &'a str,
    /// Argument names; optional ones in brackets, as in the table.
    arguments: Vec<String>,
    description: &'a str,
}

/// The JSON listing: the skills shown and how many are registered.
#[derive(Debug, Serialize)]
struct Listing<'a> {
    skills: Vec<Listed<'a>>,
    shown: usize,
    total: usize,
}

fn arguments(skill: &SkillRegistration) -> Vec<String> {
    skill
        .params
        .iter()
        .map(|p| {
            if p.required {
                p.name.to_string()
            } else {
                format!("[{}]", p.name)
            }
        })
        .collect()
}

/// Prints the table (or JSON).
pub fn run(dispatcher: &Dispatcher, args: &ListArgs) -> Result<ExitCode, CliError> {
    let filter = args.filter.to_filter();
    let shown: Vec<&SkillRegistration> = dispatcher
        .list_skills()
        .iter()
        .copied()
        .filter(|skill| {
            filter
                .domain
                .as_deref()
                .is_none_or(|d| skill.domain == "*" || skill.domain == d)
                && filter
                    .category
                    .as_deref()
                    .is_none_or(|c| skill.category == c)
                && (args.all || skill.is_active())
        })
        .collect();
    if args.format == ListFormat::Json {
        let listing = Listing {
            skills: shown
                .iter()
                .map(|skill| Listed {
                    id: skill.id,
                    wire_name: skill.wire_name,
                    domain: skill.domain,
                    category: skill.category,
                    status: skill.status.as_str(),
                    arguments: arguments(skill),
                    description: skill.description,
                })
                .collect(),
            shown: shown.len(),
            total: dispatcher.len(),
        };
        print_json(&listing)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = fitted_table();
    table.set_header([
        "id",
        "domain",
        "category",
        "status",
        "arguments",
        "description",
    ]);
    for skill in &shown {
        table.add_row([
            skill.id,
            skill.domain,
            skill.category,
            skill.status.as_str(),
            &arguments(skill).join(" "),
            skill.description,
        ]);
    }
    print(&table)?;
    print(format_args!(
        "{} of {} skills",
        shown.len(),
        dispatcher.len()
    ))?;
    Ok(ExitCode::SUCCESS)
}
