//! What it costs to run a short call off the caller's task, by way of handing it over: the
//! comparison behind the choice of the dispatcher's call threads (RELIABILITY.md). Two tasks
//! on a two-worker runtime each make 60,000 calls of about 10 µs of work (formatting and
//! allocating), one after another, as the review's clause tasks do, every call waited for
//! under a 5-minute Tokio timer except `inline`:
//!
//! - `inline`: the work in the caller's task (no limit possible against a busy loop);
//! - `thread`: a new thread per call (what timed calls did before);
//! - `blocking`: Tokio's blocking pool (`spawn_blocking`);
//! - `pool`: a minimal pool of its own: a locked queue, a condition variable, a oneshot
//!   back, every thread asleep between calls (what `call_threads.rs` did before its threads
//!   looked for the next call);
//! - `task`: a Tokio task on the same runtime (cheap, but a busy loop would take a runtime
//!   worker, and on a current-thread runtime all of it);
//! - `dispatcher`: the work as a skill, called through toolwright's `Dispatcher` with a
//!   5-minute limit (the hand-over the shipped binary makes, call threads and all);
//! - `dispatcher-off`: the same skill through the same dispatcher without a limit (in the
//!   caller's task): what the dispatcher costs besides the hand-over.
//!
//! ```sh
//! cargo run --release --example handoff -- pool   # prints the wall time; time it for CPU
//! ```

use std::collections::VecDeque;

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use toolwright::prelude::*;
use toolwright::Dispatcher;

const CALLS: u64 = 60_000;
const LIMIT: Duration = Duration::from_secs(300);

/// About 10 µs of the kind of work a skill does.
fn work(n: u64) -> u64 {
    let mut parts: Vec<String> = Vec::new();
    let mut acc = n;
    for i in 0..40 {
        let part = format!("clause {i} {acc}");
        acc = acc.wrapping_mul(31).wrapping_add(part.len() as u64);
        parts.push(part);
    }
    acc + parts.len() as u64
}

/// [`work`] as a skill, for the `dispatcher` modes.
#[skill(id = "handoff_work")]
fn handoff_work(
    /// Seed of the work.
    n: u64,
) -> u64 {
    work(n)
}

type Job = Box<dyn FnOnce() + Send>;

/// The smallest pool: four threads waiting on one queue.
struct Pool {
    queue: Mutex<VecDeque<Job>>,
    ready: Condvar,
}

impl Pool {
    fn start(threads: usize) -> Arc<Self> {
        let pool = Arc::new(Pool {
            queue: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
        });
        for _ in 0..threads {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || loop {
                let job = {
                    let mut queue = pool.queue.lock().expect("queue lock");
                    loop {
                        if let Some(job) = queue.pop_front() {
                            break job;
                        }
                        queue = pool.ready.wait(queue).expect("queue lock");
                    }
                };
                job();
            });
        }
        pool
    }

    fn submit(&self, job: Job) {
        self.queue.lock().expect("queue lock").push_back(job);
        self.ready.notify_one();
    }
}

async fn call(mode: &str, pool: &Pool, dispatcher: &Dispatcher, n: u64) -> u64 {
    match mode {
        "dispatcher" | "dispatcher-off" => {
            let args = serde_json::json!({ "n": n });
            let result = dispatcher.call("handoff_work", &args, &SkillContext::new()).await;
            result.data_as::<u64>().expect("the skill answered")
        }
        "inline" => work(n),
        "thread" => {
            let (sender, receiver) = tokio::sync::oneshot::channel();
            std::thread::spawn(move || {
                let _ = sender.send(work(n));
            });
            tokio::time::timeout(LIMIT, receiver)
                .await
                .expect("in time")
                .expect("answered")
        }
        "blocking" => tokio::time::timeout(LIMIT, tokio::task::spawn_blocking(move || work(n)))
            .await
            .expect("in time")
            .expect("answered"),
        "pool" => {
            let (sender, receiver) = tokio::sync::oneshot::channel();
            pool.submit(Box::new(move || {
                let _ = sender.send(work(n));
            }));
            tokio::time::timeout(LIMIT, receiver)
                .await
                .expect("in time")
                .expect("answered")
        }
        "task" => tokio::time::timeout(LIMIT, tokio::spawn(async move { work(n) }))
            .await
            .expect("in time")
            .expect("answered"),
        other => panic!(
            "unknown mode {other}; expected inline, thread, blocking, pool, task, dispatcher or dispatcher-off"
        ),
    }
}

fn main() {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "pool".to_string());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let pool = Pool::start(4);
    let mut builder = Dispatcher::builder().with_inventory();
    if mode != "dispatcher-off" {
        builder = builder.default_timeout(LIMIT);
    }
    let dispatcher = Arc::new(builder.build().expect("valid registry"));
    let started = Instant::now();
    runtime.block_on(async {
        let tasks: Vec<_> = (0..2u64)
            .map(|t| {
                let (mode, pool) = (mode.clone(), Arc::clone(&pool));
                let dispatcher = Arc::clone(&dispatcher);
                tokio::spawn(async move {
                    let mut acc = 0u64;
                    for i in 0..CALLS {
                        acc = acc.wrapping_add(call(&mode, &pool, &dispatcher, i + t).await);
                    }
                    acc
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("task finished");
        }
    });
    println!(
        "{mode}: {} calls in {:.3} s",
        2 * CALLS,
        started.elapsed().as_secs_f64()
    );
}
