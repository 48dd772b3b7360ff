//! The seeded, deterministic choice of spans: up to N per file, then up to M per
//! repository, balanced across the four levels and preferring code newer than the cutoff.
//!
//! Each level's candidates are ordered by freshness (code after the cutoff first, then
//! undated, then older) and then by a hash of the seed and the task id (a shuffle that is
//! the same on every run with the same seed and changes with it); the levels then take
//! turns, one span each, starting from a level the seed and the scope (file or repository)
//! pick, until the cap is reached or every level is empty. A level with few candidates
//! leaves its turns to the others.

use sha2::{Digest as _, Sha256};

use schemas::SpanKind;

/// What the choice needs to know of a candidate.
#[derive(Debug, Clone, Copy)]
pub struct Choice<'a> {
    pub kind: SpanKind,
    /// `Some(true)`: code after the cutoff.
    pub after_cutoff: Option<bool>,
    pub task_id: &'a str,
}

/// A number from the seed and a text, the same on every run.
pub fn seeded(seed: u64, text: &str) -> u64 {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(text.as_bytes());
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("a sha256 digest has 32 bytes"))
}

fn freshness(after_cutoff: Option<bool>) -> u8 {
    match after_cutoff {
        Some(true) => 0,
        None => 1,
        Some(false) => 2,
    }
}

/// The positions in `items` of at most `cap` chosen ones, in the order they were taken.
pub fn choose(items: &[Choice<'_>], cap: usize, seed: u64, scope: &str) -> Vec<usize> {
    let mut levels: Vec<Vec<usize>> = SpanKind::ALL
        .iter()
        .map(|k| (0..items.len()).filter(|&i| items[i].kind == *k).collect())
        .collect();
    for level in &mut levels {
        level.sort_by_key(|&i| {
            (
                freshness(items[i].after_cutoff),
                seeded(seed, items[i].task_id),
                items[i].task_id,
            )
        });
        level.reverse(); // taken from the end
    }
    let n = levels.len();
    let first = (seeded(seed, scope) % n as u64) as usize;
    let mut out = Vec::new();
    while out.len() < cap && levels.iter().any(|l| !l.is_empty()) {
        for turn in 0..n {
            if out.len() >= cap {
                break;
            }
            if let Some(i) = levels[(first + turn) % n].pop() {
                out.push(i);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(ids: &[String]) -> Vec<Choice<'_>> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| Choice {
                kind: SpanKind::ALL[i % 4],
                after_cutoff: None,
                task_id: id,
            })
            .collect()
    }

    #[test]
    fn balanced_seeded_and_stable() {
        let ids: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
        let xs = items(&ids);
        let a = choose(&xs, 8, 0, "f.py");
        assert_eq!(a, choose(&xs, 8, 0, "f.py"));
        assert_ne!(a, choose(&xs, 8, 1, "f.py"));
        for k in SpanKind::ALL {
            assert_eq!(a.iter().filter(|&&i| xs[i].kind == *k).count(), 2, "{k}");
        }
        // Fewer candidates than the cap: all of them.
        assert_eq!(choose(&xs[..3], 8, 0, "f.py").len(), 3);
        assert!(choose(&xs, 0, 0, "f.py").is_empty());
    }

    #[test]
    fn code_after_the_cutoff_comes_first_within_a_level() {
        let ids: Vec<String> = (0..6).map(|i| format!("t{i}")).collect();
        let xs: Vec<Choice<'_>> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| Choice {
                kind: SpanKind::Block,
                after_cutoff: [Some(false), None, Some(true)][i % 3],
                task_id: id,
            })
            .collect();
        for seed in 0..5 {
            let got = choose(&xs, 2, seed, "f.py");
            assert!(
                got.iter().all(|&i| xs[i].after_cutoff == Some(true)),
                "{got:?}"
            );
            let got = choose(&xs, 4, seed, "f.py");
            assert_eq!(
                got.iter()
                    .filter(|&&i| xs[i].after_cutoff.is_none())
                    .count(),
                2
            );
        }
    }
}
