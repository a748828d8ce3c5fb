//! `clausewright serve --http 127.0.0.1:0` as a child process, for the tests that talk to it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running `clausewright serve --http` on a free loopback port, stopped on drop.
pub(crate) struct HttpServer {
    child: Child,
    /// `127.0.0.1:PORT`, as the server announced it.
    pub(crate) addr: String,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub(crate) url: String,
    /// The console's address with its token, as the server printed it (unless
    /// `--no-console`).
    pub(crate) console: Option<String>,
    /// The first line the server printed (address, and a drawn token).
    pub(crate) banner: String,
    /// The SQLite file the console records its reviews in (unless `env` names one), deleted
    /// on drop: never the user's store.
    run_store: Option<std::path::PathBuf>,
}

/// A fresh SQLite file for one server's run store.
fn temp_run_store() -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "clausewright-serve-runs-{}-{n}.db",
        std::process::id()
    ))
}

impl HttpServer {
    /// Starts `clausewright serve --http 127.0.0.1:0 --contract CONTRACT` with `env` set.
    pub(crate) fn start(contract: &str, env: &[(&str, &str)]) -> Self {
        Self::start_with(&["--contract", contract], env)
    }

    /// Starts `clausewright serve --http 127.0.0.1:0 ARGS` with `env` set.
    pub(crate) fn start_with(args: &[&str], env: &[(&str, &str)]) -> Self {
        let run_store = (!env.iter().any(|(k, _)| *k == "CLAUSEWRIGHT_STORE")).then(temp_run_store);
        let mut command = Command::new(env!("CARGO_BIN_EXE_clausewright"));
        if let Some(store) = &run_store {
            command.env("CLAUSEWRIGHT_STORE", store);
        }
        let mut child = command
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("clausewright serve starts");
        let mut banner = String::new();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        stderr.read_line(&mut banner).unwrap();
        let console = (!args.contains(&"--no-console")).then(|| {
            let mut line = String::new();
            stderr.read_line(&mut line).unwrap();
            line.trim()
                .strip_prefix("console at ")
                .unwrap_or_else(|| panic!("no console address in {line:?}"))
                .to_string()
        });
        let addr = banner
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split("/mcp").next())
            .unwrap_or_else(|| panic!("no address in {banner:?}"))
            .to_string();
        let url = format!("http://{addr}/mcp");
        Self {
            child,
            addr,
            url,
            console,
            banner,
            run_store,
        }
    }
}

impl HttpServer {
    /// The server's process id (to send it a signal).
    #[cfg(unix)]
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `within` for the server to exit; its status, or `None` if it still runs.
    #[cfg(unix)]
    pub(crate) fn wait_for_exit(
        &mut self,
        within: std::time::Duration,
    ) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        None
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop();
        if let Some(store) = &self.run_store {
            for ext in ["", "-wal", "-shm"] {
                let mut path = store.clone().into_os_string();
                path.push(ext);
                std::fs::remove_file(path).ok();
            }
        }
    }
}

impl HttpServer {
    fn stop(&mut self) {
        // Stopped as a supervisor would (SIGTERM, then SIGKILL), so the server removes its
        // upload folder instead of leaving it to the next start.
        #[cfg(unix)]
        if matches!(self.child.try_wait(), Ok(None)) {
            let asked = std::process::Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if asked
                && self
                    .wait_for_exit(std::time::Duration::from_secs(15))
                    .is_some()
            {
                return;
            }
        }
        self.child.kill().ok();
        self.child.wait().ok();
    }
}
