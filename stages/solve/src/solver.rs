//! The [`Solver`] trait every kind of model implements, what it gives back ([`Answer`]),
//! and the pool of threads that asks it ([`run_pool`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use sha2::{Digest as _, Sha256};

use crate::task::Task;

/// One answer of a solver to one task and sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// sha256 hex of the exact request sent (reference solvers: of the task prompt).
    pub prompt_hash: String,
    /// The cleaned code (`None` on an error).
    pub answer: Option<String>,
    /// The text before cleaning.
    pub raw: Option<String>,
    /// Why there is no answer (`None` when ok).
    pub error: Option<String>,
    pub tokens_in: Option<i64>,
    pub tokens_out: Option<i64>,
    pub latency_ms: f64,
    /// Taken from the cache, no request made.
    pub cached: bool,
}

impl Answer {
    pub fn ok(prompt_hash: String, answer: String, raw: String, started: Instant) -> Self {
        Answer {
            prompt_hash,
            answer: Some(answer),
            raw: Some(raw),
            error: None,
            tokens_in: None,
            tokens_out: None,
            latency_ms: started.elapsed().as_secs_f64() * 1000.0,
            cached: false,
        }
    }

    pub fn error(prompt_hash: String, error: String, started: Instant) -> Self {
        Answer {
            prompt_hash,
            answer: None,
            raw: None,
            error: Some(error),
            tokens_in: None,
            tokens_out: None,
            latency_ms: started.elapsed().as_secs_f64() * 1000.0,
            cached: false,
        }
    }

    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }
}

/// A model: answers one task's sample. An `Err` stops the whole run (the model cannot be
/// asked at all: a program that does not start, a refused API key); a failure of one answer
/// is an `Ok` [`Answer`] with its error.
pub trait Solver: Sync {
    fn solve(&self, task: &Task, sample: u32) -> anyhow::Result<Answer>;
}

/// sha256 hex of bytes.
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    hex::encode(Sha256::digest(bytes.as_ref()))
}

/// sha256 of length-prefixed parts (so `("ab", "c")` and `("a", "bc")` differ).
pub fn hash_parts(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// A 64-bit number from a task id and sample, the same on every run.
pub fn seed_of(task_id: &str, sample: u32) -> u64 {
    let h = hash_parts(&[task_id.as_bytes(), &sample.to_le_bytes()]);
    u64::from_le_bytes(h[..8].try_into().expect("8 bytes"))
}

/// Asks `solver` for every job with `concurrency` threads taking jobs from a shared queue,
/// and hands each result to `on_result` on the calling thread (in the order they finish).
/// `on_result` returns `false` to stop the run; a solver's `Err` stops it too (and is
/// handed over). Jobs not started when the run stops are not asked.
pub fn run_pool<S: Solver + ?Sized>(
    solver: &S,
    jobs: &[(&Task, u32)],
    concurrency: usize,
    mut on_result: impl FnMut(usize, anyhow::Result<Answer>) -> bool,
) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, anyhow::Result<Answer>)>();
    std::thread::scope(|scope| {
        for _ in 0..concurrency.clamp(1, jobs.len().max(1)) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((task, sample)) = jobs.get(i) else {
                    break;
                };
                let r = solver.solve(task, *sample);
                if r.is_err() {
                    // No other job starts once the run is to stop.
                    stop.store(true, Ordering::Relaxed);
                }
                if tx.send((i, r)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            let fatal = r.is_err();
            if !on_result(i, r) || fatal {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Family;
    use std::sync::Mutex;
    use std::time::Duration;

    struct Slow {
        in_flight: AtomicUsize,
        max: AtomicUsize,
        fail_on: Option<u32>,
        seen: Mutex<Vec<u32>>,
    }

    impl Solver for Slow {
        fn solve(&self, _task: &Task, sample: u32) -> anyhow::Result<Answer> {
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.max.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            self.seen.lock().unwrap().push(sample);
            if Some(sample) == self.fail_on {
                anyhow::bail!("refused");
            }
            Ok(Answer::ok(
                String::new(),
                String::new(),
                String::new(),
                Instant::now(),
            ))
        }
    }

    fn slow(fail_on: Option<u32>) -> Slow {
        Slow {
            in_flight: AtomicUsize::new(0),
            max: AtomicUsize::new(0),
            fail_on,
            seen: Mutex::new(Vec::new()),
        }
    }

    fn task() -> Task {
        Task {
            task_id: "t".into(),
            family: Family::Function,
            prompt: String::new(),
            entry_point: "f".into(),
            canonical_solution: String::new(),
        }
    }

    #[test]
    fn every_job_once_and_at_most_concurrency_at_a_time() {
        let t = task();
        let jobs: Vec<(&Task, u32)> = (0..12).map(|s| (&t, s)).collect();
        let s = slow(None);
        let mut got = Vec::new();
        run_pool(&s, &jobs, 3, |i, r| {
            assert!(r.is_ok());
            got.push(i);
            true
        });
        got.sort_unstable();
        assert_eq!(got, (0..12).collect::<Vec<_>>());
        assert!(s.max.load(Ordering::SeqCst) <= 3);
        assert!(s.max.load(Ordering::SeqCst) >= 2, "no parallelism");
    }

    #[test]
    fn a_fatal_error_stops_the_queue() {
        let t = task();
        let jobs: Vec<(&Task, u32)> = (0..50).map(|s| (&t, s)).collect();
        let s = slow(Some(0));
        let mut errors = 0;
        run_pool(&s, &jobs, 1, |_, r| {
            errors += usize::from(r.is_err());
            true
        });
        assert_eq!(errors, 1);
        assert_eq!(s.seen.lock().unwrap().len(), 1, "the queue went on");
    }

    #[test]
    fn seeds_and_hashes_are_fixed() {
        assert_eq!(seed_of("t", 0), seed_of("t", 0));
        assert_ne!(seed_of("t", 0), seed_of("t", 1));
        assert_ne!(hash_parts(&[b"ab", b"c"]), hash_parts(&[b"a", b"bc"]));
        assert_eq!(
            sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
