//! Misbehaving skills and hostile arguments: the host stays up and keeps serving, and the
//! model reads short errors without Rust internals.
//!
//! A test binary of its own: the skills here (a busy loop, a panic, an allocation without
//! bound) must not join the registry other tests list.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolwright::fence::{fenced_body, TOOL_OUTPUT_TAG};
use toolwright::limits::ArgumentLimits;
use toolwright::prelude::*;
use toolwright::{codes, Dialect, ProviderCall, SeriesCall, WireArguments};

mod input_limits;
mod series;

/// Set at the end of a test so the abandoned busy loop ends with the test.
static STOP_SPINNING: AtomicBool = AtomicBool::new(false);

/// Spins in a blocking loop, never yielding to the runtime.
#[skill(id = "spin", timeout_ms = 200)]
fn spin() -> u64 {
    let started = Instant::now();
    let mut turns = 0u64;
    // Capped so a broken time limit fails the test instead of hanging it.
    while !STOP_SPINNING.load(Ordering::Relaxed) && started.elapsed() < Duration::from_secs(60) {
        turns = turns.wrapping_add(1);
        std::hint::spin_loop();
    }
    turns
}

/// Blocks its thread in a sleep far past its limit.
#[skill(id = "block", timeout_ms = 100)]
fn block() -> u64 {
    std::thread::sleep(Duration::from_secs(3));
    3
}

/// Set when `wait_long`'s future is dropped (cancelled at its `await`).
static WAIT_LONG_DROPPED: AtomicBool = AtomicBool::new(false);

/// Sets [`WAIT_LONG_DROPPED`] when dropped.
struct DropFlag;

impl Drop for DropFlag {
    fn drop(&mut self) {
        WAIT_LONG_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Waits on a timer far past its limit, yielding to its runtime.
#[skill(id = "wait_long", timeout_ms = 100)]
async fn wait_long() -> u64 {
    let _flag = DropFlag;
    tokio::time::sleep(Duration::from_secs(60)).await;
    60
}

/// Names the thread it starts on and the one it runs on after it yields once.
#[skill(id = "where_run", timeout_ms = 10_000)]
async fn where_run() -> Vec<String> {
    let name = || std::thread::current().name().unwrap_or("").to_string();
    let before = name();
    tokio::task::yield_now().await;
    vec![before, name()]
}

/// Sleeps a few milliseconds: longer than a caller looks for a quick answer, far within
/// its limit.
#[skill(id = "nap", timeout_ms = 10_000)]
fn nap() -> u64 {
    std::thread::sleep(Duration::from_millis(3));
    3
}

/// Names the thread it runs on, and its id (call threads share a name); no limit of its
/// own: the dispatcher's applies.
#[skill(id = "thread_name")]
fn thread_name() -> String {
    this_thread()
}

fn this_thread() -> String {
    let thread = std::thread::current();
    format!("{} {:?}", thread.name().unwrap_or(""), thread.id())
}

/// When the series test started.
static SERIES_START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Milliseconds since [`SERIES_START`].
#[skill(id = "stamp")]
fn stamp() -> u64 {
    SERIES_START
        .get()
        .map_or(0, |start| start.elapsed().as_millis() as u64)
}

/// Sleeps 300 ms, within its limit.
#[skill(id = "hold", timeout_ms = 10_000)]
fn hold() -> u64 {
    std::thread::sleep(Duration::from_millis(300));
    300
}

/// Times `counted` ran.
static COUNTED: AtomicUsize = AtomicUsize::new(0);

/// Counts its runs in [`COUNTED`].
#[skill(id = "counted")]
fn counted() -> usize {
    COUNTED.fetch_add(1, Ordering::SeqCst) + 1
}

/// Always panics.
#[skill(id = "explode")]
fn explode() -> String {
    panic!("index 7 out of bounds in internal table")
}

/// Repeats a text.
#[skill(id = "repeat")]
fn repeat(
    /// The text.
    text: String,
    /// How many times.
    #[arg(default = 1)]
    times: u32,
) -> String {
    text.repeat(times as usize)
}

/// How many times `measure` ran (only the size test calls it).
static MEASURE_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Counts the characters of a text.
#[skill(id = "measure")]
fn measure(
    /// The text.
    text: String,
) -> usize {
    MEASURE_RUNS.fetch_add(1, Ordering::SeqCst);
    text.chars().count()
}

/// How many times `tally` ran (only the strict-mode test calls it).
static TALLY_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Repeats a text, counting its runs.
#[skill(id = "tally")]
fn tally(
    /// The text.
    text: String,
    /// How many times.
    #[arg(default = 1)]
    times: u32,
) -> String {
    TALLY_RUNS.fetch_add(1, Ordering::SeqCst);
    text.repeat(times as usize)
}

/// Reads state the host must provide.
#[skill(id = "needs_state")]
fn needs_state(state: Inject<Mutex<Vec<String>>>) -> usize {
    state.lock().map(|v| v.len()).unwrap_or(0)
}

/// Returns a text verbatim, as a clause reader would.
#[skill(id = "quote")]
fn quote(
    /// The text.
    text: String,
) -> String {
    text
}

/// Allocates without bound (only run in a child process under a memory limit).
#[skill(id = "hoard")]
fn hoard() -> usize {
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    loop {
        // Touch the memory so it is really taken.
        chunks.push(vec![1u8; 64 << 20]);
        if chunks.len() == usize::MAX {
            return chunks.len();
        }
    }
}

/// Options of `configure`, read whole.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ConfigureOptions {
    /// What to configure.
    pub name: String,
    /// How many copies.
    #[serde(default)]
    pub count: u32,
}

/// Takes its input as one struct (whose `Deserialize` lets unknown keys through).
#[skill(id = "configure")]
fn configure(#[input] input: ConfigureOptions) -> String {
    format!("{} x{}", input.name, input.count)
}

/// Takes more arguments than the generated input reads without serde's derive.
#[skill(id = "wide")]
#[allow(clippy::too_many_arguments)]
fn wide(
    /// 1
    a1: Option<u32>,
    /// 2
    a2: Option<u32>,
    /// 3
    a3: Option<u32>,
    /// 4
    a4: Option<u32>,
    /// 5
    a5: Option<u32>,
    /// 6
    a6: Option<u32>,
    /// 7
    a7: Option<u32>,
    /// 8
    a8: Option<u32>,
    /// 9
    a9: Option<u32>,
    /// 10
    a10: Option<u32>,
    /// 11
    a11: Option<u32>,
    /// 12
    a12: Option<u32>,
    /// 13
    a13: Option<u32>,
) -> u32 {
    [a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13]
        .into_iter()
        .flatten()
        .sum()
}

fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("valid registry")
}

/// A whole-struct input and an input of more than 12 arguments report an unknown key like
/// every other skill: a warning with the nearest name, or a refusal in strict mode.
#[tokio::test]
async fn unknown_keys_of_whole_and_wide_inputs_are_reported_too() {
    let d = dispatcher();
    let strict = Dispatcher::builder()
        .with_inventory()
        .strict_arguments(true)
        .build()
        .unwrap();
    for (skill, args, near, expected) in [
        (
            "configure",
            r#"{"name": "a", "cuont": 2}"#,
            "count",
            json!("a x0"),
        ),
        ("wide", r#"{"a1": 1, "a13": 2, "a12x": 5}"#, "a12", json!(3)),
    ] {
        let result = d.call(skill, args, &SkillContext::new()).await;
        assert!(result.success, "{skill}: {:?}", result.error);
        assert_eq!(result.data_value(), expected, "{skill} ran without the key");
        let warning = result
            .warnings
            .iter()
            .find(|w| w.code == "unknown_argument")
            .unwrap_or_else(|| panic!("{skill}: a warning, not silence"));
        assert!(
            warning.message.contains(&format!("did you mean `{near}`?")),
            "{skill}: {}",
            warning.message
        );
        // As a parsed value (Anthropic, MCP) too.
        let value: Value = serde_json::from_str(args).unwrap();
        let result = d.call(skill, &value, &SkillContext::new()).await;
        assert!(result.warnings.iter().any(|w| w.code == "unknown_argument"));

        let refused = strict.call(skill, args, &SkillContext::new()).await;
        let error = refused.error.expect("refused in strict mode");
        assert_eq!(error.code, codes::INVALID_ARGUMENTS, "{skill}");
        assert!(error.message.contains(&format!("did you mean `{near}`?")));
    }
    // Known keys only: the fast path, no warning.
    let result = d
        .call(
            "configure",
            r#"{"name": "b", "count": 2}"#,
            &SkillContext::new(),
        )
        .await;
    assert_eq!(result.data_value(), json!("b x2"));
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
}

#[tokio::test(flavor = "current_thread")]
async fn a_busy_loop_times_out_and_other_calls_are_served_meanwhile() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    // One thread runs this test's runtime: if the busy loop ran on it, neither the timer
    // nor the other call could make progress until the loop ended (after 60 s, "success").
    let (spun, echoed) = tokio::join!(
        d.call("spin", "{}", &ctx),
        d.call("repeat", r#"{"text": "ok", "times": 2}"#, &ctx)
    );
    assert!(echoed.success, "{:?}", echoed.error);
    assert_eq!(echoed.data_as::<String>().unwrap(), "okok");
    let error = spun.error.expect("the busy loop is reported");
    assert_eq!(error.code, codes::TIMEOUT);
    assert!(error.message.contains("200 ms"), "{}", error.message);
    // And the host keeps serving after it.
    let again = d.call("repeat", r#"{"text": "x"}"#, &ctx).await;
    assert!(again.success);
    STOP_SPINNING.store(true, Ordering::Relaxed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_blocked_thread_times_out() {
    let d = dispatcher();
    let result = d.call("block", "{}", &SkillContext::new()).await;
    assert_eq!(result.error.expect("timeout").code, codes::TIMEOUT);
}

/// A sync skill's body runs on a call thread (nothing could interrupt it on the runtime);
/// an async skill comes back to its caller's runtime at its first `await` and stays there.
#[tokio::test(flavor = "current_thread")]
async fn an_async_skill_that_yields_runs_on_its_callers_runtime() {
    let d = dispatcher();
    let result = d.call("where_run", "{}", &SkillContext::new()).await;
    let threads: Vec<String> = result.data_as().expect("names of threads");
    let here = std::thread::current().name().unwrap_or("").to_string();
    assert_eq!(threads[1], here, "after its first await: {threads:?}");
    assert_ne!(
        threads[0], here,
        "the first poll is on a call thread: {threads:?}"
    );
}

/// An async skill waiting past its limit is cancelled at its `await` (its future dropped):
/// no thread is left running it.
#[tokio::test(flavor = "current_thread")]
async fn an_async_skill_past_its_limit_is_cancelled_and_holds_no_thread() {
    let d = dispatcher();
    let result = d.call("wait_long", "{}", &SkillContext::new()).await;
    assert_eq!(result.error.expect("timeout").code, codes::TIMEOUT);
    assert!(WAIT_LONG_DROPPED.load(Ordering::SeqCst), "cancelled");
    assert_eq!(d.call_threads().abandoned, 0, "{:?}", d.call_threads());
}

/// A call abandoned after its limit is counted while its thread runs on; a timed call that
/// finds every call thread taken is refused at once with `overloaded` (never a silent wait);
/// once the abandoned skill returns, its thread serves again.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn abandoned_calls_are_counted_and_a_full_pool_refuses_at_once() {
    let d = Dispatcher::builder()
        .with_inventory()
        .default_timeout(Duration::from_secs(30))
        .max_call_threads(1)
        .build()
        .unwrap();
    let ctx = SkillContext::new();
    let blocked = d.call("block", "{}", &ctx).await;
    assert_eq!(blocked.error.expect("timeout").code, codes::TIMEOUT);
    let stats = d.call_threads();
    assert_eq!(
        (stats.threads, stats.abandoned, stats.max_threads),
        (1, 1, 1)
    );

    let refused = d.call("repeat", r#"{"text": "x"}"#, &ctx).await;
    let error = refused.error.expect("no thread free");
    assert_eq!(error.code, codes::OVERLOADED);
    assert!(
        error.message.contains("try again later"),
        "{}",
        error.message
    );
    let details = error.details.expect("counts for the operator");
    assert_eq!(details["abandoned"], 1);
    assert_eq!(details["max_threads"], 1);

    // `block` sleeps 3 s; then its thread is free and counted so.
    let deadline = Instant::now() + Duration::from_secs(30);
    while d.call_threads().abandoned > 0 {
        assert!(Instant::now() < deadline, "{:?}", d.call_threads());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let served = d.call("repeat", r#"{"text": "x", "times": 3}"#, &ctx).await;
    assert_eq!(served.data_as::<String>().unwrap(), "xxx");
    assert_eq!(d.call_threads().threads, 1, "the same thread, reused");
}

/// Timed calls reuse their threads: many calls, one after another, make no thread each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_calls_reuse_their_threads() {
    let d = Dispatcher::builder()
        .with_inventory()
        .default_timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let ctx = SkillContext::new();
    for _ in 0..200 {
        let result = d.call("repeat", r#"{"text": "ab"}"#, &ctx).await;
        assert!(result.success, "{:?}", result.error);
    }
    // One or two threads take turns; a few more if the machine is slow to park them.
    let stats = d.call_threads();
    assert!(stats.threads < 20, "{stats:?}");
    assert_eq!(stats.abandoned, 0);
}

/// Quick timed calls from several tasks at once, each answered to its own caller (a caller
/// may take its answer before its task parks, a call thread the next call before it sleeps);
/// threads stay few and none is left abandoned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_timed_calls_from_many_tasks_are_each_answered() {
    let d = Dispatcher::builder()
        .with_inventory()
        .default_timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let tasks: Vec<_> = (0..4u32)
        .map(|task| {
            let d = d.clone();
            tokio::spawn(async move {
                for i in 0..300u32 {
                    let text = format!("{task}-{i};");
                    let args = json!({"text": text, "times": 2});
                    let result = d.call("repeat", &args, &SkillContext::new()).await;
                    assert_eq!(result.data_as::<String>().unwrap(), text.repeat(2));
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("every call answered");
    }
    let stats = d.call_threads();
    assert!(stats.threads < 20, "{stats:?}");
    assert_eq!(stats.abandoned, 0);
}

/// A call that outlasts the caller's look for a quick answer is waited for on the timer and
/// answered; on a one-thread runtime, a quick call beside it is served meanwhile.
#[tokio::test(flavor = "current_thread")]
async fn a_call_longer_than_a_quick_answer_is_awaited_and_others_are_served() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    for _ in 0..20 {
        let (napped, echoed) = tokio::join!(
            d.call("nap", "{}", &ctx),
            d.call("repeat", r#"{"text": "ok"}"#, &ctx)
        );
        assert_eq!(napped.data_as::<u64>().unwrap(), 3, "{:?}", napped.error);
        assert_eq!(echoed.data_as::<String>().unwrap(), "ok");
    }
    assert_eq!(d.call_threads().abandoned, 0);
}

#[tokio::test]
async fn a_panic_is_reported_without_its_text_and_the_host_goes_on() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let result = d.call("explode", "{}", &ctx).await;
    let error = result.error.clone().expect("a panic is an error");
    assert_eq!(error.code, codes::PANIC);
    assert!(!error.message.contains("index 7"), "{}", error.message);
    assert!(error.details.unwrap()["panic"]
        .as_str()
        .unwrap()
        .contains("index 7"));
    assert!(!result.to_model_json().contains("index 7"));
    assert!(d.call("repeat", r#"{"text": "x"}"#, &ctx).await.success);
}
