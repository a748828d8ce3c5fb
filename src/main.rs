//! `clausewright`: list, export and call the skills linked into this binary.

mod commands;
mod telemetry;

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

// The skill library registers its skills at link time; naming it makes sure it is linked.
toolwright::link_skills!(clausewright_skills);

/// A review makes millions of small, short-lived allocations from several threads; jemalloc
/// serves them with less CPU than the system allocator (BENCHMARKS.md, "The binary's
/// allocator"). Only the binary: a library user keeps their own.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Tells jemalloc to give pages back to the system as soon as they are free, instead of
/// after ten seconds (its default, right for a server answering calls): a review's peak
/// memory is then what it holds, not what it held and let go (about 40 MiB less for a
/// 22,200-clause contract, for a few percent of CPU). For the arenas that exist and those
/// made later. jemalloc's own settings in the environment (`_RJEM_MALLOC_CONF`) are left
/// to decide.
fn give_back_freed_pages() {
    use tikv_jemalloc_ctl::raw;
    if std::env::var_os("_RJEM_MALLOC_CONF").is_some() {
        return;
    }
    for setting in ["dirty_decay_ms", "muzzy_decay_ms"] {
        let default = format!("arenas.{setting}\0");
        // SAFETY: the name ends in NUL and names a setting of type `ssize_t` (jemalloc's
        // manual, "arenas.dirty_decay_ms"), which `isize` is.
        if let Err(err) = unsafe { raw::write(default.as_bytes(), 0isize) } {
            tracing::debug!(setting, error = %err, "jemalloc keeps its decay");
            return;
        }
        let arenas = tikv_jemalloc_ctl::arenas::narenas::read().unwrap_or(0);
        for arena in 0..arenas {
            let name = format!("arena.{arena}.{setting}\0");
            // SAFETY: as above ("arena.<i>.dirty_decay_ms"). An arena not made yet refuses,
            // and takes the default just set when it is made.
            let _ = unsafe { raw::write(name.as_bytes(), 0isize) };
        }
    }
}

/// Self-describing LLM tools: list them, export their definitions, call them.
#[derive(Debug, Parser)]
#[command(name = "toolwright", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Send the spans of reviews, model turns and tool calls (OpenTelemetry GenAI
    /// conventions) to this OTLP/HTTP collector, e.g. `http://127.0.0.1:4318` (default:
    /// OTEL_EXPORTER_OTLP_ENDPOINT). Needs a build with `--features otlp`.
    #[arg(long, global = true, value_name = "URL")]
    otlp: Option<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the registered skills as a table.
    List(commands::list::ListArgs),
    /// Print the tool definitions the model receives, as JSON.
    Tools(commands::tools::ToolsArgs),
    /// Call one skill with JSON arguments and print the result.
    Call(commands::call::CallArgs),
    /// Check the registry, the tool conventions and the contracts between packs.
    Check(commands::check::CheckArgs),
    /// Print the clause tree a review will use: numbers, titles, levels, terms, references.
    Parse(commands::parse::ParseArgs),
    /// Review a contract with the skill library and print the risks found.
    #[command(after_help = commands::review::REVIEW_ENV_HELP)]
    Review(Box<commands::review::ReviewArgs>),
    /// The recorded review runs of a store: list them, show one, ask one to stop.
    Runs(commands::runs::RunsArgs),
    /// Measure the review against a labelled corpus (recall, false alarms), or
    /// cross-validate the provision classifier (`--cv K`).
    Eval(commands::eval::EvalArgs),
    /// Train a provision classifier on labelled contracts (CUAD's label format).
    Train(commands::train::TrainArgs),
    /// Print a built-in playbook (levels of the classifier's findings) to copy and edit.
    Playbook(commands::playbook::PlaybookArgs),
    /// Serve the skills to MCP clients, on stdio or streamable HTTP.
    Serve(Box<commands::serve::ServeArgs>),
    /// Rank the skills (or any tool registry) against a natural-language request.
    Search(commands::search::SearchArgs),
    /// Sync the skill catalog to a database table, or export it as documentation.
    Catalog(commands::catalog::CatalogArgs),
}

/// Exit status when standard output was closed by its reader (`clausewright list | head -1`):
/// 128 + SIGPIPE, what a shell reports for a program the signal stopped.
const EXIT_BROKEN_PIPE: u8 = 141;

/// Time limit of a skill call that declares none, unless `TOOLWRIGHT_CALL_TIMEOUT_MS` sets
/// another: a skill that loops or blocks is reported as `timeout` instead of hanging the
/// command (or, under `serve`, the client).
const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// The environment variable that sets the time limit of skill calls, in milliseconds, or
/// `off` for none (every skill then runs in its caller's task, as in the library).
const CALL_TIMEOUT_VAR: &str = "TOOLWRIGHT_CALL_TIMEOUT_MS";

/// The time limit of skill calls: [`CALL_TIMEOUT_VAR`] when set (`None` for `off`), else
/// [`DEFAULT_CALL_TIMEOUT`].
fn call_timeout() -> Result<Option<Duration>, String> {
    let expected = "expected a whole number of milliseconds above 0, or `off` for no limit";
    match std::env::var(CALL_TIMEOUT_VAR) {
        Err(std::env::VarError::NotPresent) => Ok(Some(DEFAULT_CALL_TIMEOUT)),
        Ok(text) if text.trim().eq_ignore_ascii_case("off") => Ok(None),
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => Ok(Some(Duration::from_millis(ms))),
            _ => Err(format!(
                "{CALL_TIMEOUT_VAR}={text:?} is not a time limit; {expected} (default {})",
                DEFAULT_CALL_TIMEOUT.as_millis()
            )),
        },
        Err(std::env::VarError::NotUnicode(text)) => Err(format!(
            "{CALL_TIMEOUT_VAR}={text:?} is not a time limit; {expected}"
        )),
    }
}

/// Failures are one line on standard error: a message of several lines is joined, so a
/// script's log keeps one line per failure.
fn one_line(message: &str) -> String {
    commands::one_line(message)
}

/// A panic (a bug) is reported in one line naming where, without a backtrace unless
/// RUST_BACKTRACE asks for one; writing it never panics again on a closed stderr.
fn install_panic_hook() {
    if std::env::var_os("RUST_BACKTRACE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("a worker");
        let _ = writeln!(
            std::io::stderr(),
            "error: internal error in {name}{place}: {}",
            one_line(&message)
        );
    }));
}

fn main() -> ExitCode {
    install_panic_hook();
    let cli = Cli::parse();
    let telemetry = match telemetry::init(cli.otlp.as_deref()) {
        Ok(telemetry) => telemetry,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "error: {}", one_line(&err.to_string()));
            return ExitCode::from(2);
        }
    };
    let code = run(cli);
    telemetry.shutdown();
    code
}

fn run(cli: Cli) -> ExitCode {
    let timeout = match call_timeout() {
        Ok(timeout) => timeout,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "error: {message}");
            return ExitCode::from(2);
        }
    };
    let mut builder = toolwright::Dispatcher::builder().with_inventory();
    if let Some(timeout) = timeout {
        builder = builder.default_timeout(timeout);
    }
    let dispatcher = match builder.build() {
        Ok(d) => d,
        Err(err) => {
            let _ = writeln!(
                std::io::stderr(),
                "error: the skill registry is not valid: {}",
                one_line(&err.to_string())
            );
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command {
        Command::List(args) => commands::list::run(&dispatcher, &args),
        Command::Tools(args) => commands::tools::run(&dispatcher, &args),
        Command::Call(args) => commands::call::run(&dispatcher, &args),
        Command::Check(args) => commands::check::run(&dispatcher, &args),
        Command::Parse(args) => commands::parse::run(&args),
        Command::Review(args) => {
            give_back_freed_pages();
            commands::review::run(&dispatcher, &args)
        }
        Command::Runs(args) => commands::runs::run(&args),
        Command::Eval(args) => commands::eval::run(&dispatcher, &args),
        Command::Train(args) => commands::train::run(&args),
        Command::Playbook(args) => commands::playbook::run(&args),
        Command::Serve(args) => commands::serve::run(&dispatcher, &args),
        Command::Catalog(args) => commands::catalog::run(&dispatcher, &args),
        Command::Search(args) => commands::search::run(&dispatcher, &args),
    };
    match outcome {
        Ok(code) => code,
        // The reader went away (`clausewright tools | head`): nothing left to report.
        Err(commands::CliError::Write(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(EXIT_BROKEN_PIPE)
        }
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "error: {}", one_line(&err.to_string()));
            ExitCode::from(2)
        }
    }
}
