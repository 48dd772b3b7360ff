//! The [`Solver`] trait every kind of model implements and what it gives back ([`Answer`]).
//! The stage asks solvers on the project's one pool ([`schemas::pool`]).

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

#[cfg(test)]
mod tests {
    use super::*;

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
