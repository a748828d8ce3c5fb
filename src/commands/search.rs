//! `clausewright search`: rank tools against a natural-language request.
//!
//! - `clausewright search "QUERY"`: the linked skills, best first (a table, or JSON).
//! - `clausewright search --registry FILE --queries FILE`: any registry in the common JSON shape
//!   (an array of `{name, description, parameters}`), one JSON line
//!   `{"id", "ranked": [names, best first]}` per request of a JSON-lines file (`{"id", "query"}`).
//! - `... --score`: the same requests with their `expected` names, scored: recall@k (every
//!   expected name among the top k) and MRR (first expected name found), on exact names and,
//!   for diagnosis, with the variants of one name (`foo`, `foo__2`) taken as one.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolwright::search::{family_name as family, ToolIndex, ToolSearch};
use toolwright::Dispatcher;

use super::{fitted_table, print, print_json, CliError, FilterArgs, ListFormat};

/// Options of `clausewright search`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  clausewright search \"check the payment terms of a contract\"\n  clausewright search --registry tools.json --queries requests.jsonl > ranked.jsonl\n  clausewright search --registry tools.json --queries labelled.jsonl --score"
)]
pub struct SearchArgs {
    /// The request to rank the linked skills against (not with --queries).
    #[arg(required_unless_present = "queries", conflicts_with = "queries")]
    query: Option<String>,
    /// A JSON array of tool definitions `{name, description, parameters}` to search instead
    /// of the linked skills.
    #[arg(long, value_name = "FILE", requires = "queries")]
    registry: Option<PathBuf>,
    /// A JSON-lines file of requests `{"id", "query"}` (with `expected` names for --score).
    #[arg(long, value_name = "FILE", requires = "registry")]
    queries: Option<PathBuf>,
    /// Score the ranking against each request's `expected` names instead of printing it.
    #[arg(long, requires = "queries")]
    score: bool,
    /// How many tools to return per request (at least 10 with --queries).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    limit: u32,
    #[command(flatten)]
    filter: FilterArgs,
    /// `table` for people, `json` for programs (skills and --score).
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
}

/// One request of a queries file.
#[derive(Debug, Deserialize)]
struct Request {
    id: String,
    query: String,
    #[serde(default)]
    expected: Option<Vec<String>>,
}

/// One line of the ranking output.
#[derive(Debug, Serialize)]
struct Ranked<'a> {
    id: &'a str,
    ranked: Vec<&'a str>,
}

/// Runs the command.
pub fn run(dispatcher: &Dispatcher, args: &SearchArgs) -> Result<ExitCode, CliError> {
    match (&args.registry, &args.queries) {
        (Some(registry), Some(queries)) => run_registry(registry, queries, args),
        _ => run_skills(dispatcher, args),
    }
}

fn run_skills(dispatcher: &Dispatcher, args: &SearchArgs) -> Result<ExitCode, CliError> {
    let query = args.query.as_deref().unwrap_or_default();
    let search = ToolSearch::new(dispatcher);
    let hits = search.search(query, &args.filter.to_filter(), args.limit as usize);
    if args.format == ListFormat::Json {
        let rows: Vec<Value> = hits
            .iter()
            .map(|h| {
                serde_json::json!({
                    "id": h.skill.id,
                    "score": h.score,
                    "domain": h.skill.domain,
                    "category": h.skill.category,
                    "description": h.skill.description,
                })
            })
            .collect();
        print_json(&rows)?;
        return Ok(ExitCode::SUCCESS);
    }
    if hits.is_empty() {
        print(format_args!("no skill matches {query:?}"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = fitted_table();
    table.set_header(["#", "id", "score", "category", "description"]);
    for (rank, hit) in hits.iter().enumerate() {
        table.add_row([
            (rank + 1).to_string(),
            hit.skill.id.to_string(),
            format!("{:.2}", hit.score),
            hit.skill.category.to_string(),
            hit.skill.description.to_string(),
        ]);
    }
    print(&table)?;
    Ok(ExitCode::SUCCESS)
}

fn read(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|source| CliError::Read {
        path: path.display().to_string(),
        source,
    })
}

fn load_registry(path: &Path) -> Result<(ToolIndex, Vec<String>), CliError> {
    let text = read(path)?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| CliError::Usage(format!("{} is not JSON: {e}", path.display())))?;
    let index = ToolIndex::from_definitions(&value)
        .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
    let names = (0..index.len())
        .map(|i| index.name(i).unwrap_or_default().to_string())
        .collect();
    Ok((index, names))
}

fn load_requests(path: &Path, need_expected: bool) -> Result<Vec<Request>, CliError> {
    let text = read(path)?;
    let mut requests = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let request: Request = serde_json::from_str(line).map_err(|e| {
            CliError::Usage(format!(
                "{} line {}: expected a JSON object {{\"id\", \"query\"{}}}: {e}",
                path.display(),
                n + 1,
                if need_expected { ", \"expected\"" } else { "" }
            ))
        })?;
        if need_expected && request.expected.as_ref().is_none_or(Vec::is_empty) {
            return Err(CliError::Usage(format!(
                "{} line {}: request `{}` has no `expected` names to score against",
                path.display(),
                n + 1,
                request.id
            )));
        }
        requests.push(request);
    }
    Ok(requests)
}

/// The ranking of one request: the index's hits, then (to give `limit` names) the other
/// tools in registry order.
fn ranked<'a>(index: &ToolIndex, names: &'a [String], query: &str, limit: usize) -> Vec<&'a str> {
    let hits = index.search(query, limit);
    let mut out: Vec<&str> = hits.iter().map(|h| names[h.index].as_str()).collect();
    if out.len() < limit {
        let found: std::collections::HashSet<usize> = hits.iter().map(|h| h.index).collect();
        out.extend(
            names
                .iter()
                .enumerate()
                .filter(|(i, _)| !found.contains(i))
                .map(|(_, n)| n.as_str())
                .take(limit - out.len()),
        );
    }
    out
}

fn run_registry(registry: &Path, queries: &Path, args: &SearchArgs) -> Result<ExitCode, CliError> {
    let limit = (args.limit as usize).max(10);
    let (index, names) = load_registry(registry)?;
    let requests = load_requests(queries, args.score)?;
    if args.score {
        let scores = score(&index, &names, &requests, limit);
        if args.format == ListFormat::Json {
            print_json(&scores)?;
        } else {
            print_scores(&scores, queries)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for request in &requests {
        let line = Ranked {
            id: &request.id,
            ranked: ranked(&index, &names, &request.query, limit),
        };
        let text = serde_json::to_string(&line).map_err(std::io::Error::other)?;
        writeln!(out, "{text}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Recall at 1, 3, 5 and 10 and MRR over a set of requests.
#[derive(Debug, Default, Clone, Serialize)]
struct Figures {
    recall_at_1: f64,
    recall_at_3: f64,
    recall_at_5: f64,
    recall_at_10: f64,
    mrr: f64,
}

/// The scores of a queries file: exact names (the headline) and variants taken as one.
#[derive(Debug, Serialize)]
struct Scores {
    requests: usize,
    exact: Figures,
    variants_as_one: Figures,
}

/// Scores one ranking (repeats count once, at their first place).
fn figures_of(ranked: &[&str], expected: &[String], map: impl Fn(&str) -> &str) -> Figures {
    let mut seen = std::collections::HashSet::new();
    let ranked: Vec<&str> = ranked
        .iter()
        .map(|n| map(n))
        .filter(|n| seen.insert(*n))
        .collect();
    let expected: Vec<&str> = expected.iter().map(|n| map(n)).collect();
    let place = |name: &str| ranked.iter().position(|r| *r == name);
    let within = |k: usize| {
        f64::from(u8::from(
            expected.iter().all(|e| place(e).is_some_and(|p| p < k)),
        ))
    };
    let first = expected.iter().filter_map(|e| place(e)).min();
    Figures {
        recall_at_1: within(1),
        recall_at_3: within(3),
        recall_at_5: within(5),
        recall_at_10: within(10),
        mrr: first.map_or(0.0, |p| 1.0 / (p + 1) as f64),
    }
}

fn score(index: &ToolIndex, names: &[String], requests: &[Request], limit: usize) -> Scores {
    let mut exact = Figures::default();
    let mut variants = Figures::default();
    let add = |total: &mut Figures, f: Figures| {
        total.recall_at_1 += f.recall_at_1;
        total.recall_at_3 += f.recall_at_3;
        total.recall_at_5 += f.recall_at_5;
        total.recall_at_10 += f.recall_at_10;
        total.mrr += f.mrr;
    };
    for request in requests {
        let expected = request.expected.as_deref().unwrap_or_default();
        let ranked = ranked(index, names, &request.query, limit);
        add(&mut exact, figures_of(&ranked, expected, |n| n));
        add(&mut variants, figures_of(&ranked, expected, family));
    }
    let n = requests.len().max(1) as f64;
    for f in [&mut exact, &mut variants] {
        f.recall_at_1 /= n;
        f.recall_at_3 /= n;
        f.recall_at_5 /= n;
        f.recall_at_10 /= n;
        f.mrr /= n;
    }
    Scores {
        requests: requests.len(),
        exact,
        variants_as_one: variants,
    }
}

fn print_scores(scores: &Scores, queries: &Path) -> Result<(), CliError> {
    let mut table = fitted_table();
    table.set_header([
        "names",
        "recall@1",
        "recall@3",
        "recall@5",
        "recall@10",
        "MRR",
    ]);
    for (label, f) in [
        ("exact", &scores.exact),
        ("variants as one", &scores.variants_as_one),
    ] {
        table.add_row([
            label.to_string(),
            format!("{:.3}", f.recall_at_1),
            format!("{:.3}", f.recall_at_3),
            format!("{:.3}", f.recall_at_5),
            format!("{:.3}", f.recall_at_10),
            format!("{:.3}", f.mrr),
        ]);
    }
    print(&table)?;
    print(format_args!(
        "{} requests of {}",
        scores.requests,
        queries.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_follow_the_scoring_rules() {
        let exp = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let f = figures_of(&["a", "b", "c"], &exp(&["b"]), |n| n);
        assert_eq!((f.recall_at_1, f.recall_at_3, f.mrr), (0.0, 1.0, 0.5));
        // Every expected name must be within k; MRR takes the first one found.
        let f = figures_of(&["a", "x", "y", "z", "b"], &exp(&["a", "b"]), |n| n);
        assert_eq!((f.recall_at_3, f.recall_at_5, f.mrr), (0.0, 1.0, 1.0));
        // Repeats count once, at their first place.
        let f = figures_of(&["a", "a", "b"], &exp(&["b"]), |n| n);
        assert_eq!(f.mrr, 0.5);
        let f = figures_of(&["a"], &exp(&["b"]), |n| n);
        assert_eq!((f.recall_at_10, f.mrr), (0.0, 0.0));
        // Variants as one.
        let f = figures_of(&["w__3", "w", "v"], &exp(&["w__2"]), family);
        assert_eq!(f.mrr, 1.0);
        let f = figures_of(&["w__3", "w", "v"], &exp(&["v"]), family);
        assert_eq!(f.mrr, 0.5, "w and w__3 are one name");
    }
}
