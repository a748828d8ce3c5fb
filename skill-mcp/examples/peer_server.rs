//! The test skills of `tests/support/skills.rs` served over stdio or HTTP, for MCP clients
//! other than our own tests (the official Python SDK in `tests/peers/`).
//!
//! ```text
//! peer_server --stdio [--tasks]
//! peer_server --http 127.0.0.1:0 [--token T] [--tasks]   # prints "listening on http://ADDR/mcp"
//! ```
//!
//! With `--tasks`, it also serves the task tool `count` of `tests/support/counter.rs`, its runs
//! in memory, counting one unit every 40 ms.

#[path = "../tests/support/counter.rs"]
#[allow(dead_code)]
mod counter;
#[path = "../tests/support/skills.rs"]
#[allow(dead_code)]
mod skills;

use std::net::SocketAddr;
use std::sync::Arc;

use toolwright::{Dispatcher, SkillContext};
use toolwright_mcp::{HttpOptions, McpServer};

fn usage() -> ! {
    eprintln!("usage: peer_server (--stdio | --http ADDR [--token TOKEN]) [--tasks]");
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TOOLWRIGHT_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let mut context = SkillContext::new();
    context.insert_arc(Arc::new(skills::Notes::default()));
    context.insert_arc(Arc::new(skills::DropProbe::default()));
    let dispatcher = Dispatcher::from_inventory().expect("valid registry");
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut builder = McpServer::builder(dispatcher).context(context);
    if let Some(at) = args.iter().position(|a| a == "--tasks") {
        args.remove(at);
        let store: Arc<dyn toolwright::runs::RunStore> =
            Arc::new(toolwright::runs::MemoryRunStore::new());
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        let ticking = Arc::clone(&gate);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(40)).await;
                // One unit per tick while a run counts; no credit piles up meanwhile.
                if ticking.available_permits() == 0 {
                    ticking.add_permits(1);
                }
            }
        });
        let runner = counter::Counter::new(Arc::clone(&store), gate);
        builder = builder.task_tool(counter::count_tool(), runner, store);
    }
    let server = builder.build().expect("server builds");

    let outcome = match args.first().map(String::as_str) {
        Some("--stdio") => toolwright_mcp::serve_stdio_with(server).await,
        Some("--http") => {
            let addr: SocketAddr = args
                .get(1)
                .and_then(|a| a.parse().ok())
                .unwrap_or_else(|| usage());
            let mut options = HttpOptions::default();
            if args.get(2).map(String::as_str) == Some("--token") {
                options.token = Some(args.get(3).cloned().unwrap_or_else(|| usage()));
            }
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .expect("address can be bound");
            println!("listening on http://{}/mcp", listener.local_addr().unwrap());
            toolwright_mcp::serve_listener(listener, server, options, async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
        }
        _ => usage(),
    };
    if let Err(err) = outcome {
        eprintln!("error: {err}");
        std::process::exit(1);
    }
}
