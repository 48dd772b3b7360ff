//! The `scores` rows of a run: pass@k with bootstrap intervals per breakdown and group.

use std::collections::BTreeMap;

use schemas::{Breakdown, Family, FunctionClass, Score};

use crate::data::{Dataset, Outcome, RunData, TaskInfo};
use crate::estimate::{bootstrap, difference, fnv1a, ks_for, pass_at_k, Estimate, SplitMix64};

/// The breakdowns, in the order rows and report sections follow.
pub const BREAKDOWNS: &[Breakdown] = Breakdown::ALL;

/// The group of a task in a breakdown; `None` when the breakdown does not apply to it
/// (the class of a task that is not a function task, the window without a cutoff).
pub fn group_of(breakdown: Breakdown, t: &TaskInfo) -> Option<&str> {
    match breakdown {
        Breakdown::Overall => Some("all"),
        Breakdown::Family => Some(t.family.as_str()),
        Breakdown::Class => t.class.map(FunctionClass::as_str),
        Breakdown::Repo => Some(&t.repo),
        Breakdown::Difficulty => Some(&t.difficulty),
        Breakdown::Window => t.window.as_deref(),
        Breakdown::Quarter => Some(&t.quarter),
    }
}

/// Sort key of a group within its breakdown: the natural order where there is one (easy
/// before hard, before the cutoff before after it), else by name.
pub fn group_rank(breakdown: Breakdown, key: &str) -> (usize, String) {
    let fixed: &[&str] = match breakdown {
        Breakdown::Family => Family::TEXTS,
        Breakdown::Class => FunctionClass::TEXTS,
        Breakdown::Difficulty => &["low", "medium", "high", "unknown"],
        Breakdown::Window => &["before_cutoff", "after_cutoff", "unknown"],
        // By name: for the quarter, `2025Q4` before `2026Q1`, `unknown` last.
        Breakdown::Overall | Breakdown::Repo | Breakdown::Quarter => &[],
    };
    let base = key.strip_suffix(" (proxy)").unwrap_or(key);
    let pos = fixed.iter().position(|f| *f == base).unwrap_or(fixed.len());
    (pos, key.to_string())
}

/// Scores one run: for every breakdown and group with scored tasks, pass@k for each k of
/// [`ks_for`] the group's smallest sample count, with the 95% percentile bootstrap interval
/// from `resamples` resamples of the group's tasks.
///
/// The generator of each group is seeded from `seed` and the breakdown and group names
/// (not the run), so a group's interval does not depend on the other groups, and two runs
/// scored on the same tasks are resampled alike (a paired comparison).
pub fn score_run(dataset: &Dataset, run: &RunData, resamples: usize, seed: u64) -> Vec<Score> {
    let mut rows = Vec::new();
    for &breakdown in BREAKDOWNS {
        let mut groups: BTreeMap<(usize, String), Vec<Outcome>> = BTreeMap::new();
        for t in &dataset.tasks {
            let (Some(key), Some(o)) = (group_of(breakdown, t), run.outcomes.get(&t.task_id))
            else {
                continue;
            };
            groups
                .entry(group_rank(breakdown, key))
                .or_default()
                .push(*o);
        }
        for ((_, key), outcomes) in groups {
            let n_min = outcomes.iter().map(|o| o.n).min().unwrap_or(0);
            let ks = ks_for(n_min);
            let per_task: Vec<Vec<f64>> = ks
                .iter()
                .map(|&k| {
                    outcomes
                        .iter()
                        .map(|o| pass_at_k(o.n, o.c, k).unwrap_or(f64::NAN))
                        .collect()
                })
                .collect();
            let mut rng = SplitMix64::new(seed ^ fnv1a(&[breakdown.as_str(), &key]));
            let estimates = bootstrap(&per_task, resamples, &mut rng);
            for (k, e) in ks.iter().zip(estimates) {
                rows.push(Score {
                    run: run.name.clone(),
                    breakdown,
                    group_key: key.clone(),
                    k: i32::try_from(*k).unwrap_or(i32::MAX),
                    pass_at_k: e.value,
                    ci_low: e.low,
                    ci_high: e.high,
                    tasks: outcomes.len() as i64,
                });
            }
        }
    }
    rows
}

/// pass@1 before the cutoff minus pass@1 after it, with the 95% bootstrap interval of that
/// difference (each window's tasks resampled on their own); `None` without a cutoff or when
/// a window has no scored task. Seeded like the groups, so it is the same on every run.
pub fn window_gap(
    dataset: &Dataset,
    run: &RunData,
    resamples: usize,
    seed: u64,
) -> Option<Estimate> {
    let pass_at_1 = |window: &str| -> Vec<f64> {
        dataset
            .tasks
            .iter()
            .filter(|t| t.window.as_deref() == Some(window))
            .filter_map(|t| run.outcomes.get(&t.task_id))
            .filter_map(|o| pass_at_k(o.n, o.c, 1))
            .collect()
    };
    let (before, after) = (pass_at_1("before_cutoff"), pass_at_1("after_cutoff"));
    if before.is_empty() || after.is_empty() {
        return None;
    }
    let mut rng = SplitMix64::new(seed ^ fnv1a(&["window", "gap"]));
    Some(difference(&before, &after, resamples, &mut rng))
}

/// Two runs on the tasks both have scored: `a`'s pass@1 minus `b`'s, with the 95% paired
/// bootstrap interval (the tasks resampled, each task's difference kept whole, so the
/// interval is narrower than two runs' intervals side by side suggest), and the number of
/// tasks. `None` when the runs share no scored task.
pub fn paired_gap(
    dataset: &Dataset,
    a: &RunData,
    b: &RunData,
    resamples: usize,
    seed: u64,
) -> Option<(Estimate, usize)> {
    let diffs: Vec<f64> = dataset
        .tasks
        .iter()
        .filter_map(|t| Some((a.outcomes.get(&t.task_id)?, b.outcomes.get(&t.task_id)?)))
        .filter_map(|(x, y)| Some(pass_at_k(x.n, x.c, 1)? - pass_at_k(y.n, y.c, 1)?))
        .collect();
    if diffs.is_empty() {
        return None;
    }
    let mut rng = SplitMix64::new(seed ^ fnv1a(&["paired", &a.name, &b.name]));
    let tasks = diffs.len();
    let e = bootstrap(&[diffs], resamples, &mut rng)[0];
    Some((e, tasks))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DifficultySource;

    fn task(id: &str, family: &str, repo: &str, difficulty: &str) -> TaskInfo {
        TaskInfo {
            task_id: id.into(),
            family: family.parse().unwrap(),
            class: (family == "function").then_some(schemas::FunctionClass::SelfContained),
            repo: repo.into(),
            difficulty: difficulty.into(),
            window: None,
            quarter: "unknown".into(),
        }
    }

    fn run(outcomes: &[(&str, u32, u32)]) -> RunData {
        RunData {
            name: "r".into(),
            model: "m".into(),
            outcomes: outcomes
                .iter()
                .map(|(id, n, c)| (id.to_string(), Outcome { n: *n, c: *c }))
                .collect(),
            missing_tasks: 0,
            missing_samples: 0,
            ignored_executions: 0,
            duplicate_executions: 0,
            infra_samples: 0,
            statuses: BTreeMap::new(),
            fingerprints: BTreeMap::new(),
        }
    }

    #[test]
    fn paired_gaps_use_the_tasks_both_runs_scored() {
        let ds = Dataset {
            tasks: ["a", "b", "c", "d"]
                .iter()
                .map(|id| task(id, "function", "r1", "low"))
                .collect(),
            invalid: 0,
            difficulty_source: DifficultySource::Slices,
            cutoff: None,
        };
        let all = run(&[("a", 2, 2), ("b", 2, 2), ("c", 2, 2), ("d", 2, 1)]);
        let none = run(&[("a", 2, 0), ("b", 2, 0), ("c", 2, 0)]);
        // d is scored by one run only: three tasks, each one point apart.
        let (e, tasks) = paired_gap(&ds, &all, &none, 500, 0).unwrap();
        assert_eq!(tasks, 3);
        assert_eq!((e.value, e.low, e.high), (1.0, 1.0, 1.0));
        let (e, _) = paired_gap(&ds, &none, &all, 500, 0).unwrap();
        assert_eq!((e.value, e.low, e.high), (-1.0, -1.0, -1.0));
        // A run against itself: zero, with no spread.
        let (e, tasks) = paired_gap(&ds, &all, &all, 500, 0).unwrap();
        assert_eq!((tasks, e.value, e.low, e.high), (4, 0.0, 0.0, 0.0));
        assert!(paired_gap(&ds, &all, &run(&[("z", 1, 1)]), 500, 0).is_none());
    }

    #[test]
    fn rows_per_breakdown_group_and_k() {
        let ds = Dataset {
            tasks: vec![
                task("a", "function", "r1", "high"),
                task("b", "function", "r1", "low"),
                task("c", "completion", "r2", "low"),
                task("d", "function", "r2", "medium"),
            ],
            invalid: 0,
            difficulty_source: DifficultySource::Slices,
            cutoff: None,
        };
        // d has no execution: not scored anywhere.
        let rows = score_run(&ds, &run(&[("a", 5, 2), ("b", 5, 5), ("c", 3, 0)]), 200, 0);
        let get = |b: Breakdown, g: &str, k: i32| {
            rows.iter()
                .find(|r| r.breakdown == b && r.group_key == g && r.k == k)
                .unwrap_or_else(|| panic!("{b}/{g}/{k}"))
        };
        let all1 = get(Breakdown::Overall, "all", 1);
        assert!((all1.pass_at_k - (0.4 + 1.0 + 0.0) / 3.0).abs() < 1e-12);
        assert_eq!(all1.tasks, 3);
        assert_eq!(get(Breakdown::Overall, "all", 3).tasks, 3);
        assert!(!rows
            .iter()
            .any(|r| r.breakdown == Breakdown::Overall && r.k == 5));
        // The function family has 5 samples everywhere: k = 1, 2, 5.
        let f5 = get(Breakdown::Family, "function", 5);
        assert!((f5.pass_at_k - 1.0).abs() < 1e-12);
        assert!(
            (get(Breakdown::Family, "function", 2).pass_at_k - f64::midpoint(0.7, 1.0)).abs()
                < 1e-12
        );
        // The completion task has no class.
        assert!(!rows
            .iter()
            .any(|r| r.breakdown == Breakdown::Class && r.group_key != "self_contained"));
        assert_eq!(get(Breakdown::Class, "self_contained", 1).tasks, 2);
        // Natural order of difficulty, no window without a cutoff.
        let diff: Vec<&str> = rows
            .iter()
            .filter(|r| r.breakdown == Breakdown::Difficulty && r.k == 1)
            .map(|r| r.group_key.as_str())
            .collect();
        assert_eq!(diff, ["low", "high"]);
        assert!(!rows.iter().any(|r| r.breakdown == Breakdown::Window));
        // Intervals hold the estimate.
        for r in &rows {
            assert!(
                r.ci_low <= r.pass_at_k + 1e-12 && r.pass_at_k <= r.ci_high + 1e-12,
                "{r:?}"
            );
        }
        // Deterministic.
        let again = score_run(&ds, &run(&[("a", 5, 2), ("b", 5, 5), ("c", 3, 0)]), 200, 0);
        assert_eq!(rows, again);
    }

    #[test]
    fn group_order() {
        let mut keys = vec![
            "unknown (proxy)",
            "high (proxy)",
            "low (proxy)",
            "medium (proxy)",
        ];
        keys.sort_by_key(|k| group_rank(Breakdown::Difficulty, k));
        assert_eq!(
            keys,
            [
                "low (proxy)",
                "medium (proxy)",
                "high (proxy)",
                "unknown (proxy)"
            ]
        );
        let mut keys = vec!["after_cutoff", "unknown", "before_cutoff"];
        keys.sort_by_key(|k| group_rank(Breakdown::Window, k));
        assert_eq!(keys, ["before_cutoff", "after_cutoff", "unknown"]);
        let mut keys = vec!["zeta", "alpha"];
        keys.sort_by_key(|k| group_rank(Breakdown::Repo, k));
        assert_eq!(keys, ["alpha", "zeta"]);
    }
}
