//! `clausewright runs`: the recorded review runs of a store — list, show one, ask one to
//! stop.

use std::process::ExitCode;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use toolwright::runs::RunRecord;

use super::run_store::{self, StoreArgs};
use super::CliError;

/// Options of `clausewright runs`.
#[derive(Debug, clap::Args)]
pub struct RunsArgs {
    #[command(subcommand)]
    command: RunsCommand,
}

#[derive(Debug, clap::Subcommand)]
enum RunsCommand {
    /// The runs of the store, newest first.
    List {
        #[command(flatten)]
        store: StoreArgs,
        /// Runs shown at most.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// `table`, or `json` (an array of objects).
        #[arg(long, default_value = "table", value_parser = ["table", "json"])]
        format: String,
    },
    /// One run: status, progress in clauses, spending against its budget, times.
    Show {
        /// The run's id.
        run: String,
        #[command(flatten)]
        store: StoreArgs,
        /// `table`, or `json` (one object).
        #[arg(long, default_value = "table", value_parser = ["table", "json"])]
        format: String,
    },
    /// Asks a running run to stop at its next clause (it can be resumed later).
    Cancel {
        /// The run's id.
        run: String,
        #[command(flatten)]
        store: StoreArgs,
    },
}

/// A run as `runs` shows it.
#[derive(Debug, Serialize)]
struct RunView {
    id: String,
    status: &'static str,
    mode: Option<String>,
    document: Option<String>,
    started_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    finished_at: Option<DateTime<Utc>>,
    clauses_done: u64,
    clauses_total: u64,
    model_requests: u64,
    input_tokens: u64,
    output_tokens: u64,
    budget: Value,
    cancel_requested: bool,
    held_by: Option<String>,
    error: Option<String>,
}

impl RunView {
    fn of(record: RunRecord) -> Self {
        let spec = &record.spec;
        let text = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_string);
        let status = record.status_now();
        Self {
            status: status.as_str(),
            mode: text("mode"),
            document: text("path"),
            budget: serde_json::json!({
                "model_requests": spec.get("budget_requests").cloned().unwrap_or(Value::Null),
                "input_tokens": spec.get("budget_tokens").cloned().unwrap_or(Value::Null),
                "output_tokens": spec.get("budget_output_tokens").cloned().unwrap_or(Value::Null),
            }),
            held_by: record.lease_holder.filter(|_| !status.is_terminal()),
            started_at: record.started_at,
            updated_at: record.updated_at,
            finished_at: record.finished_at,
            clauses_done: record.units_done,
            clauses_total: record.units_total,
            model_requests: record.model_requests,
            input_tokens: record.input_tokens,
            output_tokens: record.output_tokens,
            cancel_requested: record.cancel_requested,
            error: record.error,
            id: record.id,
        }
    }
}

fn limit_text(spent: u64, limit: &Value) -> String {
    match limit.as_u64() {
        Some(limit) => format!("{spent} of {limit}"),
        None => spent.to_string(),
    }
}

fn table(runs: &[RunView]) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header([
        "run",
        "status",
        "mode",
        "clauses",
        "requests",
        "tokens in/out",
        "started",
        "document",
    ]);
    for r in runs {
        t.add_row([
            r.id.clone(),
            r.status.to_string(),
            r.mode.clone().unwrap_or_default(),
            format!("{}/{}", r.clauses_done, r.clauses_total),
            limit_text(r.model_requests, &r.budget["model_requests"]),
            format!("{}/{}", r.input_tokens, r.output_tokens),
            r.started_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            r.document.clone().unwrap_or_default(),
        ]);
    }
    t.to_string()
}

fn details(r: &RunView) -> String {
    let mut lines = vec![
        format!("run        {}", r.id),
        format!("status     {}", r.status),
        format!("mode       {}", r.mode.as_deref().unwrap_or("")),
        format!("document   {}", r.document.as_deref().unwrap_or("")),
        format!("clauses    {} of {} done", r.clauses_done, r.clauses_total),
        format!(
            "requests   {}",
            limit_text(r.model_requests, &r.budget["model_requests"])
        ),
        format!(
            "tokens     {} in, {} out",
            limit_text(r.input_tokens, &r.budget["input_tokens"]),
            limit_text(r.output_tokens, &r.budget["output_tokens"])
        ),
        format!("started    {}", r.started_at.to_rfc3339()),
        format!("updated    {}", r.updated_at.to_rfc3339()),
    ];
    if let Some(at) = r.finished_at {
        lines.push(format!("ended      {}", at.to_rfc3339()));
        lines.push(format!(
            "took       {:.1} s",
            (at - r.started_at).num_milliseconds() as f64 / 1000.0
        ));
    }
    if let Some(holder) = &r.held_by {
        lines.push(format!("held by    {holder}"));
    }
    if r.cancel_requested {
        lines.push("stop       requested".into());
    }
    if let Some(error) = &r.error {
        lines.push(format!("reason     {error}"));
    }
    if !matches!(r.status, "succeeded" | "running") {
        lines.push(format!("resume     clausewright review --resume {}", r.id));
    }
    lines.join("\n")
}

/// Runs `clausewright runs`.
pub fn run(args: &RunsArgs) -> Result<ExitCode, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Usage(format!("cannot start a runtime: {e}")))?;
    runtime.block_on(run_async(args))
}

async fn run_async(args: &RunsArgs) -> Result<ExitCode, CliError> {
    let failed = |shown: &str, e: toolwright::runs::RunStoreError| {
        CliError::Usage(format!("run store {shown}: {e}"))
    };
    match &args.command {
        RunsCommand::List {
            store,
            limit,
            format,
        } => {
            let store = run_store::open(store).await?;
            let runs: Vec<RunView> = store
                .runs
                .list(*limit)
                .await
                .map_err(|e| failed(&store.shown, e))?
                .into_iter()
                .map(RunView::of)
                .collect();
            if format == "json" {
                super::print_json(&runs)?;
            } else if runs.is_empty() {
                super::print(format!("no runs in {}", store.shown))?;
            } else {
                super::print(table(&runs))?;
            }
        }
        RunsCommand::Show { run, store, format } => {
            let store = run_store::open(store).await?;
            let record = store
                .runs
                .get(run)
                .await
                .map_err(|e| failed(&store.shown, e))?
                .ok_or_else(|| no_run(run, &store.shown))?;
            let view = RunView::of(record);
            if format == "json" {
                super::print_json(&view)?;
            } else {
                super::print(details(&view))?;
            }
        }
        RunsCommand::Cancel { run, store } => {
            let store = run_store::open(store).await?;
            let asked = store.runs.request_cancel(run).await.map_err(|e| match e {
                toolwright::runs::RunStoreError::NotFound(_) => no_run(run, &store.shown),
                other => failed(&store.shown, other),
            })?;
            if asked {
                super::print(format!("run {run}: asked to stop at its next clause"))?;
            } else {
                super::print(format!("run {run} is not running; nothing to stop"))?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn no_run(run: &str, shown: &str) -> CliError {
    CliError::Usage(format!(
        "no run `{run}` in {shown}; `clausewright runs list` shows the runs there"
    ))
}
