//! Where durable runs are kept: `--store URL` (a SQLite file path or `sqlite://path`, or
//! `postgres://…`, the URLs `serve --store` takes), else `$CLAUSEWRIGHT_STORE`, else the
//! embedded SQLite file in the user's data folder — no server to start.

use std::path::PathBuf;
use std::sync::Arc;

use chrono::Utc;
use toolwright::runs::RunStore;
use toolwright_packs::Stores;

use super::CliError;

/// The environment variable naming the run store when `--store` is not given.
pub const STORE_ENV: &str = "CLAUSEWRIGHT_STORE";

/// `--store`, shared by `review` and `runs`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StoreArgs {
    /// Where runs are recorded: a SQLite file (a path or `sqlite://path`) or
    /// `postgres://user@host/db` (default: $CLAUSEWRIGHT_STORE, else
    /// `$XDG_DATA_HOME/clausewright/runs.db`, i.e. `~/.local/share/clausewright/runs.db`).
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
}

/// How many finished runs a store keeps, and for how long (applied when a run ends).
#[derive(Debug, Clone, clap::Args)]
pub struct RetentionArgs {
    /// Finished runs kept in the store; when a run ends, the oldest beyond it are deleted.
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub keep_runs: u64,
    /// Days a finished run is kept; when a run ends, older ones are deleted.
    #[arg(long, value_name = "DAYS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=36_500))]
    pub keep_runs_days: u64,
}

/// An open run store and how to name it to the user.
pub struct OpenStore {
    /// The store.
    pub runs: Arc<dyn RunStore>,
    /// Its URL, password hidden.
    pub shown: String,
}

/// The default store file: `$XDG_DATA_HOME/clausewright/runs.db`, else under
/// `$HOME/.local/share`.
pub fn default_store_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(base.join("clausewright").join("runs.db"))
}

/// Opens the store `args` names (creating the default file and its folder when needed).
pub async fn open(args: &StoreArgs) -> Result<OpenStore, CliError> {
    let named = args.store.clone().or_else(|| {
        std::env::var(STORE_ENV)
            .ok()
            .filter(|s| !s.trim().is_empty())
    });
    let url = match named {
        Some(url) => url,
        None => {
            let path = default_store_path().ok_or_else(|| {
                CliError::Usage(format!(
                    "no place for the run store: set HOME, XDG_DATA_HOME or {STORE_ENV}, or give --store"
                ))
            })?;
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder).map_err(|source| CliError::WriteFile {
                    path: folder.display().to_string(),
                    source,
                })?;
            }
            path.display().to_string()
        }
    };
    let stores = Stores::connect(&url, None)
        .await
        .map_err(|e| CliError::Usage(format!("--store: {}", e.message)))?;
    Ok(OpenStore {
        runs: stores.runs,
        shown: stores.urls.0,
    })
}

/// Deletes finished runs beyond `retention` (a failure is only logged: the run itself is
/// recorded).
pub async fn prune(store: &dyn RunStore, retention: &RetentionArgs) {
    let age = chrono::Duration::days(i64::try_from(retention.keep_runs_days).unwrap_or(36_500));
    let keep = usize::try_from(retention.keep_runs).unwrap_or(usize::MAX);
    match store.prune(keep, Utc::now() - age).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(deleted = n, "finished runs beyond the retention deleted"),
        Err(err) => tracing::warn!(error = %err, "cannot delete old runs"),
    }
}

/// A new run id: the time it started and a few random-enough characters, sortable.
pub fn new_run_id() -> String {
    let now = Utc::now();
    let nanos = now.timestamp_subsec_nanos() ^ std::process::id().rotate_left(16);
    format!("r{}-{:06x}", now.format("%Y%m%d-%H%M%S"), nanos & 0xff_ffff)
}
