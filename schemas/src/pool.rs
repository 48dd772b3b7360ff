//! The one thread pool of freshbench: a fixed number of scoped threads taking the next item
//! from a shared counter.
//!
//! Every stage that works in parallel has the same needs, which is why this is a helper of
//! its own rather than rayon: each thread keeps state that must not move between threads
//! (a parser, or the sandboxed Python workers of the execution library, which hold child
//! processes and borrow the backend), results come back to the *calling* thread as they
//! finish (so the caller can write a checkpoint of what is done, in one place, without a
//! lock), a failure that makes the rest pointless (a model that refuses the key, a sandbox
//! that cannot start) stops new items from starting, and the number of threads is exactly
//! `--jobs` (each runs a Python worker of its own; more threads than asked would overload
//! the machine). rayon's work stealing brings nothing to items that each take a second or
//! more, and its global pool gives neither per-thread state nor ordered streaming.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `work` over `items` on `jobs` threads (at most one per item). Each thread makes its
/// state once with `init`. `sink` gets `(index, result)` on the calling thread in the order
/// the items finish, and may return [`ControlFlow::Break`] to stop the run. An `Err` from
/// `work` stops new items from starting (items already started finish and reach `sink`);
/// the first such error is returned. A panic in a thread is raised again in the caller.
pub fn stream<T, S, R, E>(
    items: &[T],
    jobs: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &T) -> Result<R, E> + Sync,
    mut sink: impl FnMut(usize, R) -> ControlFlow<()>,
) -> Result<(), E>
where
    T: Sync,
    R: Send,
    E: Send,
{
    let threads = jobs.clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Result<R, E>)>();
    let mut first_error = None;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let tx = tx.clone();
                let (next, stop, init, work) = (&next, &stop, &init, &work);
                scope.spawn(move || {
                    let mut state = init();
                    while !stop.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        let r = work(&mut state, item);
                        if r.is_err() {
                            stop.store(true, Ordering::Relaxed);
                        }
                        if tx.send((i, r)).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        drop(tx);
        for (i, r) in rx {
            match r {
                Ok(r) => {
                    if sink(i, r).is_break() {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        for h in handles {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Maps `items` with `f` on `jobs` threads, each with its own state from `init`; the
/// results come back in the items' order.
pub fn map<T, S, R>(
    items: &[T],
    jobs: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    let done: Result<(), std::convert::Infallible> = stream(
        items,
        jobs,
        init,
        |s, x| Ok(f(s, x)),
        |i, r| {
            slots[i] = Some(r);
            ControlFlow::Continue(())
        },
    );
    match done {
        Ok(()) => {}
        Err(never) => match never {},
    }
    slots
        .into_iter()
        .map(|r| r.expect("every item is taken by exactly one thread"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::time::Duration;

    #[test]
    fn map_keeps_order_and_uses_state() {
        let items: Vec<u32> = (0..1000).collect();
        let out = map(
            &items,
            4,
            || 0u32,
            |seen, x| {
                *seen += 1;
                x * 2
            },
        );
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert!(map(&[] as &[u32], 4, || (), |(), x| *x).is_empty());
    }

    #[test]
    fn at_most_jobs_at_once_and_every_item_once() {
        let items: Vec<u32> = (0..24).collect();
        let (now, max) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let mut got = Vec::new();
        let r: Result<(), ()> = stream(
            &items,
            3,
            || (),
            |(), x| {
                let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                max.fetch_max(n, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(5));
                now.fetch_sub(1, Ordering::SeqCst);
                Ok(*x)
            },
            |i, x| {
                assert_eq!(i as u32, x);
                got.push(x);
                ControlFlow::Continue(())
            },
        );
        assert!(r.is_ok());
        got.sort_unstable();
        assert_eq!(got, items);
        assert!(max.load(Ordering::SeqCst) <= 3);
        assert!(max.load(Ordering::SeqCst) >= 2, "no parallelism");
    }

    #[test]
    fn an_error_stops_new_items_and_is_returned() {
        let items: Vec<u32> = (0..100).collect();
        let started = Mutex::new(Vec::new());
        let r = stream(
            &items,
            1,
            || (),
            |(), x| {
                started.lock().unwrap().push(*x);
                if *x == 3 {
                    Err("refused")
                } else {
                    Ok(())
                }
            },
            |_, ()| ControlFlow::Continue(()),
        );
        assert_eq!(r, Err("refused"));
        assert_eq!(*started.lock().unwrap(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn the_sink_can_stop_the_run() {
        let items: Vec<u32> = (0..100).collect();
        let mut seen = 0;
        let r: Result<(), ()> = stream(
            &items,
            1,
            || (),
            |(), _| {
                std::thread::sleep(Duration::from_millis(2));
                Ok(())
            },
            |_, ()| {
                seen += 1;
                if seen == 5 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert!(r.is_ok());
        assert!(seen < 100, "the run went on after the sink stopped it");
    }
}
