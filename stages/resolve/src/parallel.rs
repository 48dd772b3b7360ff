//! A small parallel map over a slice with `std::thread::scope`: workers take the next
//! item from a shared counter, each with its own state (a parser), and the results come
//! back in the input's order.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Maps `items` with `f` on `jobs` threads; `init` makes each thread's state. A panic in
/// a worker is re-raised in the caller.
pub(crate) fn map<T, R, S>(
    items: &[T],
    jobs: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let jobs = jobs.clamp(1, items.len().max(1));
    if jobs == 1 {
        let mut state = init();
        return items.iter().map(|i| f(&mut state, i)).collect();
    }
    let next = AtomicUsize::new(0);
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut state = init();
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        out.push((i, f(&mut state, item)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (i, r) in parts.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots
        .into_iter()
        .map(|r| r.expect("every item is taken by exactly one worker"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order_and_uses_state() {
        let items: Vec<u32> = (0..1000).collect();
        let out = super::map(
            &items,
            4,
            || 0u32,
            |seen, x| {
                *seen += 1;
                x * 2
            },
        );
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u32], 4, || (), |(), x| *x).is_empty());
    }
}
