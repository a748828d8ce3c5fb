//! Work spread over the CPU cores outside the review's worker pool, results in item order:
//! [`map`] for many items of like cost (clauses: one contiguous chunk a core), `map_uneven`
//! for few items of unlike cost (contracts, categories: handed out one at a time), and
//! [`in_parts`] for a long list whose results are kept a part at a time. A panic in any
//! thread reaches the caller with its own message.

/// Threads for CPU work: one per core.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

/// `f` over every item on one thread per CPU core (contiguous chunks), results in item
/// order: for many items of like cost (clauses).
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = cores();
    if threads < 2 || items.len() < 64 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(part) => part,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// `f` over `items` a part of `part` items at a time, each part spread over one thread per
/// CPU core (the caller's among them) and handed to `take` in item order before the next
/// part is read: what a step keeps of each item is held for one part, not for all of them.
/// The threads stay for every part, so per-thread state `f` builds up (a regular
/// expression's search cache) is made once a thread, not once a part.
pub(crate) fn in_parts<T: Sync, R: Send>(
    items: &[T],
    part: usize,
    f: impl Fn(&T) -> R + Sync,
    mut take: impl FnMut(&[T], Vec<R>),
) {
    let threads = cores();
    let part = part.max(1);
    if threads < 2 || items.len() < 64 {
        for chunk in items.chunks(part) {
            take(chunk, chunk.iter().map(&f).collect());
        }
        return;
    }
    type Done<R> = std::thread::Result<Vec<R>>;
    let f = &f;
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, Done<R>)>();
        let mut to_workers = Vec::with_capacity(threads - 1);
        for worker in 1..threads {
            let (tx, rx) = std::sync::mpsc::channel::<&[T]>();
            to_workers.push(tx);
            let done = done_tx.clone();
            scope.spawn(move || {
                for chunk in rx {
                    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        chunk.iter().map(f).collect::<Vec<R>>()
                    }));
                    if done.send((worker, read)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        for whole in items.chunks(part) {
            let chunks: Vec<&[T]> = whole.chunks(whole.len().div_ceil(threads)).collect();
            for (worker, chunk) in chunks.iter().enumerate().skip(1) {
                // A worker that is gone has panicked; its answer below says so.
                let _ = to_workers[worker - 1].send(chunk);
            }
            let mut read: Vec<Option<Vec<R>>> = (0..chunks.len()).map(|_| None).collect();
            read[0] = Some(chunks[0].iter().map(f).collect());
            for _ in 1..chunks.len() {
                match done_rx.recv() {
                    Ok((worker, Ok(results))) => read[worker] = Some(results),
                    Ok((_, Err(panic))) => {
                        // The other workers stop once their work is closed.
                        to_workers.clear();
                        std::panic::resume_unwind(panic)
                    }
                    Err(_) => unreachable!("a worker keeps its sender until its chunk is answered"),
                }
            }
            take(whole, read.into_iter().flatten().flatten().collect());
        }
    });
}

/// `f` over `items` on up to `threads` threads, each taking the next item when it is free,
/// results in item order: for items whose cost varies (a contract, a category's fit).
#[cfg(feature = "train")]
pub(crate) fn map_uneven<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(&f).collect();
    }
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(&mut slots);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    let result = f(&items[i]);
                    done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                })
            })
            .collect();
        for worker in workers {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every part, in order, with its own results, whatever the count of items and parts.
    #[test]
    fn parts_come_in_item_order_with_their_results() {
        for (len, part) in [(0, 8), (10, 4), (63, 100), (500, 64), (1000, 7), (1000, 1)] {
            let items: Vec<usize> = (0..len).collect();
            let mut seen: Vec<usize> = Vec::new();
            let mut parts = 0;
            in_parts(
                &items,
                part,
                |n| n * 2,
                |chunk, results| {
                    assert!(chunk.len() <= part);
                    assert_eq!(results, chunk.iter().map(|n| n * 2).collect::<Vec<_>>());
                    seen.extend(chunk);
                    parts += 1;
                },
            );
            assert_eq!(seen, items, "{len} items, parts of {part}");
            assert_eq!(parts, len.div_ceil(part), "{len} items, parts of {part}");
        }
    }

    /// A panic in any thread reaches the caller, and no thread is left waiting.
    #[test]
    fn a_panic_on_any_item_reaches_the_caller() {
        let items: Vec<usize> = (0..1000).collect();
        for bad in [0, 999, 500] {
            let caught = std::panic::catch_unwind(|| {
                in_parts(
                    &items,
                    300,
                    |&n| assert_ne!(n, bad, "item {bad}"),
                    |_, _| {},
                )
            });
            assert!(caught.is_err(), "item {bad}");
        }
    }

    /// Every item's result in item order, on more threads than items or on one.
    #[cfg(feature = "train")]
    #[test]
    fn uneven_items_come_back_in_item_order() {
        let items: Vec<u64> = (0..50).collect();
        for threads in [1, 3, 64] {
            let out = map_uneven(&items, threads, |&n| {
                std::thread::sleep(std::time::Duration::from_micros((50 - n) * 20));
                n * n
            });
            assert_eq!(
                out,
                items.iter().map(|n| n * n).collect::<Vec<_>>(),
                "{threads} threads"
            );
        }
    }

    /// A worker's panic reaches the caller with the worker's own message.
    #[cfg(feature = "train")]
    #[test]
    fn an_uneven_worker_panic_keeps_its_message() {
        let items: Vec<usize> = (0..20).collect();
        let caught = std::panic::catch_unwind(|| {
            map_uneven(&items, 4, |&n| {
                assert_ne!(n, 13, "contract 13 is unreadable")
            })
        })
        .expect_err("the panic reaches the caller");
        let message = caught
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| caught.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        assert!(message.contains("contract 13 is unreadable"), "{message}");
    }
}
