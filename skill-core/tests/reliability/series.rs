//! A series of calls on one call thread: order, time limits, errors, contexts, a caller
//! gone away.

use super::*;

fn timed_dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .with_inventory()
        .default_timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

fn series(ids: &[&str], ctx: &SkillContext) -> Vec<SeriesCall> {
    ids.iter()
        .map(|id| SeriesCall::new(*id, ctx.clone()))
        .collect()
}

/// Each result's error code, `None` for a success.
fn error_codes(results: &[SkillResult]) -> Vec<Option<&str>> {
    results
        .iter()
        .map(|r| r.error.as_ref().map(|e| e.code.as_ref()))
        .collect()
}

fn names(results: &[SkillResult]) -> Vec<String> {
    results
        .iter()
        .map(|r| r.data_as::<String>().unwrap_or_default())
        .collect()
}

/// A series under a limit starts on one call thread and runs there in order: one hand-over
/// for all its calls.
#[tokio::test(flavor = "current_thread")]
async fn a_series_runs_its_calls_in_order_on_one_call_thread() {
    let d = timed_dispatcher();
    let results = d
        .prepare_and_call_all(series(
            &["thread_name", "nap", "thread_name", "thread_name"],
            &SkillContext::new(),
        ))
        .await;
    assert_eq!(results.len(), 4);
    assert!(results.iter().all(|r| r.success), "{results:?}");
    assert_eq!(results[1].skill_id, "nap");
    let threads = names(&[results[0].clone(), results[2].clone(), results[3].clone()]);
    let here = this_thread();
    assert_ne!(threads[0], here, "off the caller's runtime");
    assert!(threads.iter().all(|t| t == &threads[0]), "{threads:?}");
    assert_eq!(d.call_threads().threads, 1, "{:?}", d.call_threads());

    // The calls follow each other on that thread without coming back to the caller: with
    // the runtime's only thread blocked for 300 ms, the call after `nap` still starts
    // within milliseconds (handed over one by one, it would wait for the runtime).
    SERIES_START.get_or_init(Instant::now);
    let (results, ()) = tokio::join!(
        d.prepare_and_call_all(series(&["nap", "stamp"], &SkillContext::new())),
        async { std::thread::sleep(Duration::from_millis(300)) }
    );
    let started_ms: u64 = results[1].data_as().expect("milliseconds");
    assert!(
        started_ms < 200,
        "the second call started after {started_ms} ms"
    );
}

/// A call of a series that overruns is answered `timeout` on its own limit, its thread is
/// abandoned, and the calls after it run on another thread; calls beside the series are
/// served meanwhile, on a runtime of one thread.
#[tokio::test(flavor = "current_thread")]
async fn a_call_of_a_series_that_overruns_times_out_and_the_rest_run_elsewhere() {
    let d = timed_dispatcher();
    let ctx = SkillContext::new();
    let started = Instant::now();
    let (results, beside) = tokio::join!(
        d.prepare_and_call_all(series(
            &["thread_name", "block", "nap", "thread_name"],
            &ctx
        )),
        d.call("repeat", r#"{"text": "ok"}"#, &ctx)
    );
    assert_eq!(beside.data_as::<String>().unwrap(), "ok");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "answered at the limit, not when the blocked call returned"
    );
    let codes = error_codes(&results);
    assert_eq!(
        codes,
        [None, Some(codes::TIMEOUT), None, None],
        "{results:?}"
    );
    assert_eq!(results[1].skill_id, "block");
    assert!(results[1]
        .error
        .as_ref()
        .unwrap()
        .message
        .contains("100 ms"));
    let threads = names(&results);
    assert_ne!(threads[0], threads[3], "the blocked thread is abandoned");
    assert_eq!(d.call_threads().abandoned, 1, "{:?}", d.call_threads());
}

/// An async skill of a series comes back to its caller's runtime at its first `await`, with
/// the rest of the series; one that waits past its limit is cancelled, holding no thread.
#[tokio::test(flavor = "current_thread")]
async fn a_series_whose_skill_yields_goes_on_in_the_callers_task() {
    let d = timed_dispatcher();
    let ctx = SkillContext::new();
    let results = d
        .prepare_and_call_all(series(&["thread_name", "where_run", "thread_name"], &ctx))
        .await;
    assert!(results.iter().all(|r| r.success), "{results:?}");
    let here = std::thread::current().name().unwrap_or("").to_string();
    let moved: Vec<String> = results[1].data_as().unwrap();
    assert!(
        names(&results)[0].starts_with(&moved[0]),
        "first poll on a call thread: {moved:?}"
    );
    assert_eq!(moved[1], here, "after its first await");
    let results = d
        .prepare_and_call_all(series(&["wait_long", "thread_name"], &ctx))
        .await;
    assert_eq!(results[0].error.as_ref().unwrap().code, codes::TIMEOUT);
    assert!(results[1].success);
    assert_eq!(d.call_threads().abandoned, 0, "{:?}", d.call_threads());
}

/// Without a limit a series runs in the caller's task; an unknown skill or a panic in a
/// series is that call's error and the others run.
#[tokio::test(flavor = "current_thread")]
async fn a_series_reports_each_calls_error_and_runs_untimed_in_place() {
    let d = dispatcher();
    let results = d
        .prepare_and_call_all(series(
            &["thread_name", "no_such_skill", "explode", "thread_name"],
            &SkillContext::new(),
        ))
        .await;
    let codes = error_codes(&results);
    assert_eq!(
        codes,
        [None, Some(codes::UNKNOWN_SKILL), Some(codes::PANIC), None]
    );
    assert_eq!(names(&results)[3], this_thread());
    let timed = timed_dispatcher()
        .prepare_and_call_all(series(
            &["thread_name", "no_such_skill", "explode", "thread_name"],
            &SkillContext::new(),
        ))
        .await;
    assert_eq!(error_codes(&timed), codes);
}

/// Each call of a series runs with its own context.
#[tokio::test(flavor = "current_thread")]
async fn each_call_of_a_series_has_its_own_context() {
    let d = timed_dispatcher();
    let with = |n: usize| SkillContext::new().with(Mutex::new(vec![String::new(); n]));
    let calls = vec![
        SeriesCall::new("needs_state", with(1)),
        SeriesCall::new("needs_state", with(3)),
        SeriesCall::new("needs_state", with(2)),
    ];
    let lengths: Vec<usize> = d
        .prepare_and_call_all(calls)
        .await
        .iter()
        .map(|r| r.data_as().expect("a length"))
        .collect();
    assert_eq!(lengths, [1, 3, 2]);
}

/// A series whose caller goes away (its future dropped, as when a review is cancelled)
/// starts none of its later calls.
#[tokio::test(flavor = "current_thread")]
async fn a_series_whose_caller_goes_away_starts_no_further_call() {
    let d = timed_dispatcher();
    let ctx = SkillContext::new();
    let dropped = tokio::time::timeout(
        Duration::from_millis(50),
        d.prepare_and_call_all(series(&["hold", "counted", "counted"], &ctx)),
    )
    .await;
    assert!(dropped.is_err(), "the caller gave up during `hold`");
    // `hold` ends 300 ms after it started; its thread must then stop.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(
        COUNTED.load(Ordering::SeqCst),
        0,
        "no call after the caller left"
    );
    assert_eq!(d.call_threads().abandoned, 0, "{:?}", d.call_threads());
}
