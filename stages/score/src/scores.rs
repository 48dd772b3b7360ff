//! The `scores` rows of a run: pass@k with bootstrap intervals per breakdown and group.

use std::collections::BTreeMap;

use schemas::{AssertionForm, Breakdown, Family, FunctionClass, Score, SpanKind};

use crate::data::{AssertionInfo, Dataset, Outcome, RunData, TaskInfo};
use crate::difficulty::{self, Explanation, Figure};
use crate::estimate::{
    bootstrap, bootstrap_statistic, difference, fnv1a, ks_for, pass_at_k, Estimate, SplitMix64,
};

/// The breakdowns, in the order rows and report sections follow.
pub const BREAKDOWNS: &[Breakdown] = Breakdown::ALL;

/// The group of a task in a breakdown; `None` when the breakdown does not apply to it
/// (the class of a task that is not a function task, the window without a cutoff, the
/// tertiles of ESV, MCL and DFI without a `slices` table).
pub fn group_of(breakdown: Breakdown, t: &TaskInfo) -> Option<&str> {
    match breakdown {
        Breakdown::Overall => Some("all"),
        Breakdown::Family => Some(t.family.as_str()),
        Breakdown::Class => t.class.map(FunctionClass::as_str),
        Breakdown::Repo => Some(&t.repo),
        Breakdown::Difficulty => Some(&t.difficulty),
        Breakdown::Esv => t.figure_bucket(Figure::Esv),
        Breakdown::Mcl => t.figure_bucket(Figure::Mcl),
        Breakdown::Dfi => t.figure_bucket(Figure::Dfi),
        Breakdown::Window => t.window.as_deref(),
        Breakdown::Quarter => Some(&t.quarter),
        Breakdown::Level => match t.family {
            Family::Completion => t.level.map(SpanKind::as_str),
            Family::Function | Family::Assertion => None,
        },
        Breakdown::Form => Split::Form.key(t),
        Breakdown::Program => Split::Program.key(t),
    }
}

/// Sort key of a group within its breakdown: the natural order where there is one (easy
/// before hard, before the cutoff before after it), else by name.
pub fn group_rank(breakdown: Breakdown, key: &str) -> (usize, String) {
    let fixed: &[&str] = match breakdown {
        Breakdown::Family => Family::TEXTS,
        Breakdown::Class => FunctionClass::TEXTS,
        Breakdown::Level => SpanKind::TEXTS,
        Breakdown::Form => AssertionForm::TEXTS,
        Breakdown::Program => PROGRAMS,
        Breakdown::Difficulty | Breakdown::Esv | Breakdown::Mcl | Breakdown::Dfi => {
            &["low", "medium", "high", "unknown"]
        }
        Breakdown::Window => &["before_cutoff", "after_cutoff", "unknown"],
        // By name: for the quarter, `2025Q4` before `2026Q1`, `unknown` last.
        Breakdown::Overall | Breakdown::Repo | Breakdown::Quarter => &[],
    };
    let base = key.strip_suffix(" (proxy)").unwrap_or(key);
    let pos = fixed.iter().position(|f| *f == base).unwrap_or(fixed.len());
    (pos, key.to_string())
}

/// One group's pass@k: for each k of [`ks_for`] the group's smallest sample count, the
/// estimate with its 95% percentile bootstrap interval.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupScore {
    /// The group (`all`, a level, ...).
    pub key: String,
    /// Scored tasks in the group.
    pub tasks: i64,
    /// (k, pass@k), k ascending.
    pub by_k: Vec<(i32, Estimate)>,
}

impl GroupScore {
    /// The group `key` of `breakdown` from a run's `scores` rows; `None` when absent.
    pub fn from_rows(rows: &[Score], breakdown: Breakdown, key: &str) -> Option<GroupScore> {
        let by_k: Vec<(i32, Estimate)> = rows
            .iter()
            .filter(|s| s.breakdown == breakdown && s.group_key == key)
            .map(|s| {
                (
                    s.k,
                    Estimate {
                        value: s.pass_at_k,
                        low: s.ci_low,
                        high: s.ci_high,
                    },
                )
            })
            .collect();
        let tasks = rows
            .iter()
            .find(|s| s.breakdown == breakdown && s.group_key == key)?
            .tasks;
        Some(GroupScore {
            key: key.to_string(),
            tasks,
            by_k,
        })
    }

    /// pass@k for this k, if the group has it.
    pub fn at(&self, k: i32) -> Option<Estimate> {
        self.by_k.iter().find(|(kk, _)| *kk == k).map(|(_, e)| *e)
    }
}

/// Scores the run's tasks in the groups `key_of` puts them in (`None`: in none), in the
/// order of the keys' ranks; each group's generator is seeded with `seed_of(key)`.
fn score_groups<'a>(
    dataset: &'a Dataset,
    run: &RunData,
    key_of: impl Fn(&'a TaskInfo) -> Option<(usize, String)>,
    seed_of: impl Fn(&str) -> u64,
    resamples: usize,
) -> Vec<GroupScore> {
    let mut groups: BTreeMap<(usize, String), Vec<Outcome>> = BTreeMap::new();
    for t in &dataset.tasks {
        let (Some(key), Some(o)) = (key_of(t), run.outcomes.get(&t.task_id)) else {
            continue;
        };
        groups.entry(key).or_default().push(*o);
    }
    groups
        .into_iter()
        .map(|((_, key), outcomes)| {
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
            let mut rng = SplitMix64::new(seed_of(&key));
            let estimates = bootstrap(&per_task, resamples, &mut rng);
            GroupScore {
                tasks: outcomes.len() as i64,
                by_k: ks
                    .iter()
                    .map(|k| i32::try_from(*k).unwrap_or(i32::MAX))
                    .zip(estimates)
                    .collect(),
                key,
            }
        })
        .collect()
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
        let groups = score_groups(
            dataset,
            run,
            |t| group_of(breakdown, t).map(|key| group_rank(breakdown, key)),
            |key| seed ^ fnv1a(&[breakdown.as_str(), key]),
            resamples,
        );
        for g in groups {
            for (k, e) in &g.by_k {
                rows.push(Score {
                    run: run.name.clone(),
                    breakdown,
                    group_key: g.key.clone(),
                    k: *k,
                    pass_at_k: e.value,
                    ci_low: e.low,
                    ci_high: e.high,
                    tasks: g.tasks,
                });
            }
        }
    }
    rows
}

/// A way the tasks of one family are split beside the family's `all`: function tasks by
/// class, completion tasks by level (the syntax level of the masked span), assertion tasks
/// by form and by program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Split {
    /// A function task's class (`self_contained`, ...): the `class` breakdown.
    Class,
    /// A completion task's span kind (`expression`, ..., `function`): the `level` breakdown.
    Level,
    /// An assertion task's form: `value` (predict the subject) or `verify` (does the shown
    /// assertion hold?).
    Form,
    /// The program an assertion task is posed on: `original` or `mutated`.
    Program,
}

/// The programs of assertion tasks, in their order.
pub const PROGRAMS: &[&str] = &["original", "mutated"];

impl Split {
    /// The split's name (in the summary, the report, and the seed of its groups' intervals:
    /// the name of the breakdown whose rows they are, for `class` and `level`).
    pub fn name(self) -> &'static str {
        match self {
            Split::Class => "class",
            Split::Level => "level",
            Split::Form => "form",
            Split::Program => "program",
        }
    }

    /// The splits of a family, in the order they are shown.
    pub fn of(family: Family) -> &'static [Split] {
        match family {
            Family::Function => &[Split::Class],
            Family::Completion => &[Split::Level],
            Family::Assertion => &[Split::Form, Split::Program],
        }
    }

    /// The group of a task in this split; `None` when it does not apply to the task.
    pub fn key(self, t: &TaskInfo) -> Option<&'static str> {
        match self {
            Split::Class => t.class.map(FunctionClass::as_str),
            Split::Level => t.level.map(SpanKind::as_str),
            Split::Form => t.assertion.as_ref().map(|a| a.form.as_str()),
            Split::Program => t.assertion.as_ref().map(AssertionInfo::program),
        }
    }

    /// Sort key of a group within the split: the contract's order (expression before
    /// function, self-contained before weakly, value before verify, original before
    /// mutated), then by name.
    pub fn rank(self, key: &str) -> (usize, String) {
        let fixed: &[&str] = match self {
            Split::Class => FunctionClass::TEXTS,
            Split::Level => SpanKind::TEXTS,
            Split::Form => AssertionForm::TEXTS,
            Split::Program => PROGRAMS,
        };
        let pos = fixed.iter().position(|f| *f == key).unwrap_or(fixed.len());
        (pos, key.to_string())
    }
}

/// A run's results in one split of a family.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitScores {
    pub split: Split,
    /// The groups with scored tasks, in [`Split::rank`] order.
    pub groups: Vec<GroupScore>,
}

/// A run's results for one task family: over all its tasks (`all`, the same figures as
/// the `family` breakdown's row) and in each of its splits ([`Split::of`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyScores {
    pub family: Family,
    /// The family's valid tasks in the dataset (scored or not).
    pub valid: usize,
    /// Over the family's scored tasks; `None` when the run scored none.
    pub all: Option<GroupScore>,
    /// One per split of the family, in [`Split::of`] order (completion: by span kind;
    /// function: by class; assertion: by form, then by program).
    pub splits: Vec<SplitScores>,
}

/// The results of a run per task family present among the dataset's valid tasks, in the
/// contract's order of families. `all` is seeded as the `family` breakdown is (so it is
/// that row); each split's groups as the breakdown of the split's name is (`level` for
/// completion tasks, `class` for function tasks), so the levels and classes are those rows
/// of `scores` too.
pub fn family_scores(
    dataset: &Dataset,
    run: &RunData,
    resamples: usize,
    seed: u64,
) -> Vec<FamilyScores> {
    let mut out = Vec::new();
    for &family in Family::ALL {
        let valid = dataset.tasks.iter().filter(|t| t.family == family).count();
        if valid == 0 {
            continue;
        }
        let all = score_groups(
            dataset,
            run,
            |t| (t.family == family).then(|| (0, "all".to_string())),
            |_| seed ^ fnv1a(&[Breakdown::Family.as_str(), family.as_str()]),
            resamples,
        )
        .into_iter()
        .next();
        let splits = Split::of(family)
            .iter()
            .map(|&split| SplitScores {
                split,
                groups: score_groups(
                    dataset,
                    run,
                    |t| {
                        (t.family == family)
                            .then(|| split.key(t))
                            .flatten()
                            .map(|key| split.rank(key))
                    },
                    |key| seed ^ fnv1a(&[split.name(), key]),
                    resamples,
                ),
            })
            .collect();
        out.push(FamilyScores {
            family,
            valid,
            all,
            splits,
        });
    }
    out
}

/// A run's memorization gap on assertion tasks ([`memorization_gap`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemorizationGap {
    /// pass@1 on the original tasks minus pass@1 on the mutated tasks, with the 95%
    /// bootstrap interval over assertions.
    pub gap: Estimate,
    /// pass@1 on the original tasks of these assertions.
    pub original: f64,
    /// pass@1 on their mutated tasks.
    pub mutated: f64,
    /// Assertions (`group_id`s) with both original and mutated tasks scored.
    pub assertions: usize,
    /// Their scored original tasks.
    pub original_tasks: usize,
    /// Their scored mutated tasks.
    pub mutated_tasks: usize,
    /// Assertions with scored tasks on one program only, left out of the gap.
    pub one_sided: usize,
}

/// The memorization gap of a run: pass@1 on the assertion tasks posed on the original
/// program minus pass@1 on those posed on mutated variants of it. A model that recalls the
/// repository's values rather than working them out passes the originals (whose values it
/// may have seen) but not the variants (whose values differ), so a large positive gap is
/// the sign of memorization; a model that reasons scores alike on both.
///
/// Over the assertions (`group_id`) of which the run scored at least one original and one
/// mutated task, so that both sides hold the same assertions. The figures are pooled over
/// tasks: the original side is the mean pass@1 of those assertions' original tasks, the
/// mutated side that of their mutated tasks. The 95% interval resamples whole assertions
/// ([`bootstrap_statistic`] with each assertion's sums and counts of pass@1 per side), not
/// tasks: the tasks of one assertion share its test, code and value, so they are not
/// independent draws, and resampling them apart would make the interval too narrow.
/// Seeded from `seed` alone, so two runs on the same tasks are resampled alike. `None`
/// when no assertion has both sides scored.
pub fn memorization_gap(
    dataset: &Dataset,
    run: &RunData,
    resamples: usize,
    seed: u64,
) -> Option<MemorizationGap> {
    // Per assertion: pass@1 summed and tasks counted, on the original and on the mutated.
    let mut sides: BTreeMap<&str, [f64; 4]> = BTreeMap::new();
    for t in &dataset.tasks {
        let (Some(a), Some(o)) = (&t.assertion, run.outcomes.get(&t.task_id)) else {
            continue;
        };
        let Some(p) = pass_at_k(o.n, o.c, 1) else {
            continue;
        };
        let at = if a.mutated { 2 } else { 0 };
        let side = sides.entry(a.group_id.as_str()).or_insert([0.0; 4]);
        side[at] += p;
        side[at + 1] += 1.0;
    }
    let total = sides.len();
    let both: Vec<[f64; 4]> = sides
        .into_values()
        .filter(|s| s[1] > 0.0 && s[3] > 0.0)
        .collect();
    if both.is_empty() {
        return None;
    }
    let per_unit: Vec<Vec<f64>> = (0..4)
        .map(|j| both.iter().map(|s| s[j]).collect())
        .collect();
    let sum = |j: usize| per_unit[j].iter().sum::<f64>();
    let mut rng = SplitMix64::new(seed ^ fnv1a(&["memorization", "gap"]));
    let gap = bootstrap_statistic(&per_unit, resamples, &mut rng, |m| {
        m[0] / m[1] - m[2] / m[3]
    });
    Some(MemorizationGap {
        gap,
        original: sum(0) / sum(1),
        mutated: sum(2) / sum(3),
        assertions: both.len(),
        original_tasks: sum(1) as usize,
        mutated_tasks: sum(3) as usize,
        one_sided: total - both.len(),
    })
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

/// Which of ESV, MCL and DFI goes most with a run's failures: Spearman's rho of each with
/// the per-task failure rate (1 - passed / scored samples), over the valid tasks with a
/// slice of status `ok` the run scored ([`difficulty::explain_failures`]).
pub fn failures_by_figure(dataset: &Dataset, run: &RunData) -> Explanation {
    let (figures, failure): (Vec<[f64; 3]>, Vec<f64>) = dataset
        .tasks
        .iter()
        .filter_map(|t| {
            let figures = t.figures?;
            let o = run.outcomes.get(&t.task_id).filter(|o| o.n > 0)?;
            Some((figures.values(), 1.0 - f64::from(o.c) / f64::from(o.n)))
        })
        .unzip();
    difficulty::explain_failures(&figures, &failure)
}

/// Spearman's rho between the figures themselves over the valid tasks with a slice of
/// status `ok` ([`difficulty::between_figures`]), and how many tasks those are.
pub fn figure_correlations(dataset: &Dataset) -> ([Option<f64>; 3], usize) {
    let values: Vec<[f64; 3]> = dataset
        .tasks
        .iter()
        .filter_map(|t| t.figures.map(crate::data::Figures::values))
        .collect();
    (difficulty::between_figures(&values), values.len())
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
            level: (family == "completion").then_some(SpanKind::Statement),
            assertion: None,
            repo: repo.into(),
            difficulty: difficulty.into(),
            figures: None,
            figure_buckets: None,
            window: None,
            quarter: "unknown".into(),
        }
    }

    fn run(outcomes: &[(&str, u32, u32)]) -> RunData {
        crate::data::test_run("r", "m", outcomes)
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
            slice_statuses: BTreeMap::new(),
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
            slice_statuses: BTreeMap::new(),
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
    fn families_by_level() {
        let mut tasks = vec![
            task("f1", "function", "r1", "low"),
            task("f2", "function", "r1", "low"),
            task("c1", "completion", "r2", "low"),
            task("c2", "completion", "r2", "low"),
            task("c3", "completion", "r2", "low"),
            task("c4", "completion", "r2", "low"),
        ];
        tasks[2].level = Some(SpanKind::Expression);
        tasks[3].level = Some(SpanKind::Function);
        tasks[4].level = Some(SpanKind::Expression);
        let ds = Dataset {
            tasks,
            invalid: 0,
            difficulty_source: DifficultySource::Slices,
            slice_statuses: BTreeMap::new(),
            cutoff: None,
        };
        // c4 has no execution: counted valid, not scored.
        let r = run(&[
            ("f1", 2, 2),
            ("f2", 2, 0),
            ("c1", 2, 1),
            ("c2", 2, 0),
            ("c3", 2, 2),
        ]);
        let fams = family_scores(&ds, &r, 200, 0);
        let names: Vec<Family> = fams.iter().map(|f| f.family).collect();
        assert_eq!(names, [Family::Function, Family::Completion]);
        let completion = &fams[1];
        assert_eq!(completion.valid, 4);
        let all = completion.all.as_ref().unwrap();
        assert_eq!(all.tasks, 3);
        assert!((all.at(1).unwrap().value - 0.5).abs() < 1e-12);
        // pass@2: c1 1, c2 0, c3 1.
        assert!((all.at(2).unwrap().value - 2.0 / 3.0).abs() < 1e-12);
        // The family's `all` is the `family` breakdown's row, interval included.
        let rows = score_run(&ds, &r, 200, 0);
        let row = rows
            .iter()
            .find(|s| s.breakdown == Breakdown::Family && s.group_key == "completion" && s.k == 1)
            .unwrap();
        let e = all.at(1).unwrap();
        assert_eq!(
            (row.pass_at_k, row.ci_low, row.ci_high),
            (e.value, e.low, e.high)
        );
        // Levels in the contract's order: expression (c1, c3), statement (c4, unscored:
        // absent), function (c2).
        assert_eq!(completion.splits.len(), 1);
        assert_eq!(completion.splits[0].split, Split::Level);
        let levels: Vec<(&str, i64, f64)> = completion.splits[0]
            .groups
            .iter()
            .map(|g| (g.key.as_str(), g.tasks, g.at(1).unwrap().value))
            .collect();
        assert_eq!(levels, [("expression", 2, 0.75), ("function", 1, 0.0)]);
        // Function tasks are levelled by class.
        assert_eq!(fams[0].splits[0].split, Split::Class);
        assert_eq!(fams[0].splits[0].groups.len(), 1);
        assert_eq!(fams[0].splits[0].groups[0].key, "self_contained");
        // A dataset without completion tasks has no completion family.
        let only_functions = Dataset {
            tasks: ds.tasks[..2].to_vec(),
            ..ds.clone()
        };
        let fams = family_scores(&only_functions, &r, 200, 0);
        assert_eq!(fams.len(), 1);
        assert_eq!(fams[0].family, Family::Function);
        // A run that scored no completion task still lists the family, with nothing in it.
        let fams = family_scores(&ds, &run(&[("f1", 1, 1)]), 200, 0);
        assert!(fams[1].all.is_none() && fams[1].splits[0].groups.is_empty());
    }

    /// A split's groups: (key, tasks, pass@1).
    type Groups<'a> = Vec<(&'a str, i64, f64)>;

    /// An assertion task of assertion `group`, in `form`, on the original program or a
    /// mutated one.
    fn assertion(id: &str, group: &str, form: AssertionForm, mutated: bool) -> TaskInfo {
        TaskInfo {
            family: Family::Assertion,
            class: None,
            level: None,
            assertion: Some(AssertionInfo {
                group_id: group.into(),
                form,
                mutated,
            }),
            ..task(id, "assertion", "r1", "low")
        }
    }

    fn dataset_of(tasks: Vec<TaskInfo>) -> Dataset {
        Dataset {
            tasks,
            invalid: 0,
            difficulty_source: DifficultySource::Slices,
            slice_statuses: BTreeMap::new(),
            cutoff: None,
        }
    }

    /// Three assertions g1..g3, each with an original and two mutated tasks in the value
    /// form, and g1 also both in the verify form: `a1o`, `a1m1`, `a1m2`, `a1ov`, `a1mv`, ...
    fn assertions() -> Dataset {
        let mut tasks = Vec::new();
        for g in 1..=3 {
            let group = format!("g{g}");
            tasks.push(assertion(
                &format!("a{g}o"),
                &group,
                AssertionForm::Value,
                false,
            ));
            for m in 1..=2 {
                tasks.push(assertion(
                    &format!("a{g}m{m}"),
                    &group,
                    AssertionForm::Value,
                    true,
                ));
            }
        }
        tasks.push(assertion("a1ov", "g1", AssertionForm::Verify, false));
        tasks.push(assertion("a1mv", "g1", AssertionForm::Verify, true));
        dataset_of(tasks)
    }

    /// Every task of `ds` with `n` samples; `c(task)` of them pass.
    fn run_of(ds: &Dataset, n: u32, c: impl Fn(&TaskInfo) -> u32) -> RunData {
        let outcomes: Vec<(String, u32, u32)> = ds
            .tasks
            .iter()
            .map(|t| (t.task_id.clone(), n, c(t)))
            .collect();
        let borrowed: Vec<(&str, u32, u32)> = outcomes
            .iter()
            .map(|(id, n, c)| (id.as_str(), *n, *c))
            .collect();
        run(&borrowed)
    }

    fn mutated(t: &TaskInfo) -> bool {
        t.assertion.as_ref().is_some_and(|a| a.mutated)
    }

    #[test]
    fn the_memorization_gap_of_a_run_that_recalls_the_originals_is_one() {
        let ds = assertions();
        // Right on every original, wrong on every variant.
        let r = run_of(&ds, 1, |t| u32::from(!mutated(t)));
        let g = memorization_gap(&ds, &r, 500, 0).unwrap();
        assert_eq!((g.gap.value, g.gap.low, g.gap.high), (1.0, 1.0, 1.0));
        assert_eq!((g.original, g.mutated), (1.0, 0.0));
        assert_eq!((g.assertions, g.original_tasks, g.mutated_tasks), (3, 4, 7));
        assert_eq!(g.one_sided, 0);
        // The reverse: -1.
        let r = run_of(&ds, 1, |t| u32::from(mutated(t)));
        let g = memorization_gap(&ds, &r, 500, 0).unwrap();
        assert_eq!((g.gap.value, g.gap.low, g.gap.high), (-1.0, -1.0, -1.0));
    }

    #[test]
    fn the_memorization_gap_of_an_even_run_is_zero() {
        let ds = assertions();
        // Every task passes one of its two samples, original or not.
        let g = memorization_gap(&ds, &run_of(&ds, 2, |_| 1), 500, 0).unwrap();
        assert_eq!((g.gap.value, g.gap.low, g.gap.high), (0.0, 0.0, 0.0));
        assert_eq!((g.original, g.mutated), (0.5, 0.5));
        // All right, all wrong: no gap either.
        for c in [0, 2] {
            let g = memorization_gap(&ds, &run_of(&ds, 2, |_| c), 500, 0).unwrap();
            assert_eq!((g.gap.value, g.original), (0.0, f64::from(c) / 2.0));
        }
    }

    #[test]
    fn the_memorization_gap_is_pooled_over_tasks_and_resampled_by_assertion() {
        let ds = assertions();
        // g1: originals a1o 1, a1ov 0; variants a1m1 1, a1m2 0, a1mv 0.
        // g2: original 1; variants 1, 1. g3: original 0; variants 0, 0.
        let pass = ["a1o", "a1m1", "a2o", "a2m1", "a2m2"];
        let r = run_of(&ds, 1, |t| u32::from(pass.contains(&t.task_id.as_str())));
        let g = memorization_gap(&ds, &r, 2000, 0).unwrap();
        // Originals 2 of 4, variants 3 of 7: 1/2 - 3/7 = 1/14.
        assert!((g.original - 0.5).abs() < 1e-12);
        assert!((g.mutated - 3.0 / 7.0).abs() < 1e-12);
        assert!((g.gap.value - 1.0 / 14.0).abs() < 1e-12, "{:?}", g.gap);
        assert!(g.gap.low <= g.gap.value && g.gap.value <= g.gap.high);
        // Each resample draws three whole assertions; worked out for every mix, the gap
        // runs from 0 (g2 and g3 only: their sides are equal) to 1/6 (g1 three times:
        // 1/2 - 1/3), so the interval lies within [0, 1/6]. Drawing tasks one by one
        // could part an assertion's sides and go below 0.
        assert!(
            g.gap.low >= -1e-12 && g.gap.high <= 1.0 / 6.0 + 1e-12,
            "{:?}",
            g.gap
        );
        // Deterministic for a seed.
        assert_eq!(Some(g), memorization_gap(&ds, &r, 2000, 0));
    }

    #[test]
    fn the_memorization_gap_needs_both_programs_of_an_assertion() {
        let ds = assertions();
        // g3's variants were not run: g3 is left out, and counted as one-sided.
        let outcomes: Vec<(&str, u32, u32)> = ds
            .tasks
            .iter()
            .filter(|t| !(t.task_id.starts_with("a3m")))
            .map(|t| (t.task_id.as_str(), 1, u32::from(!mutated(t))))
            .collect();
        let g = memorization_gap(&ds, &run(&outcomes), 200, 0).unwrap();
        assert_eq!((g.assertions, g.one_sided, g.original_tasks), (2, 1, 3));
        // Only originals, or no assertion task at all: no gap.
        let originals: Vec<(&str, u32, u32)> = ds
            .tasks
            .iter()
            .filter(|t| !mutated(t))
            .map(|t| (t.task_id.as_str(), 1, 1))
            .collect();
        assert!(memorization_gap(&ds, &run(&originals), 200, 0).is_none());
        let functions = dataset_of(vec![task("f", "function", "r1", "low")]);
        assert!(memorization_gap(&functions, &run(&[("f", 1, 1)]), 200, 0).is_none());
    }

    #[test]
    fn assertion_tasks_by_form_and_by_program() {
        let ds = assertions();
        let pass = ["a1o", "a1m1", "a2o", "a2m1", "a2m2", "a1mv"];
        let r = run_of(&ds, 1, |t| u32::from(pass.contains(&t.task_id.as_str())));
        let fams = family_scores(&ds, &r, 200, 0);
        assert_eq!(fams.len(), 1);
        let f = &fams[0];
        assert_eq!((f.family, f.valid), (Family::Assertion, 11));
        // 6 of 11 pass.
        let all = f.all.as_ref().unwrap();
        assert!((all.at(1).unwrap().value - 6.0 / 11.0).abs() < 1e-12);
        let splits: Vec<(Split, Groups)> = f
            .splits
            .iter()
            .map(|s| {
                (
                    s.split,
                    s.groups
                        .iter()
                        .map(|g| (g.key.as_str(), g.tasks, g.at(1).unwrap().value))
                        .collect(),
                )
            })
            .collect();
        // Value form: 9 tasks, 5 pass; verify: a1ov fails, a1mv passes. Originals: a1o,
        // a2o, a1ov pass 2 of 4; variants: a1m1, a2m1, a2m2, a1mv pass 4 of 7.
        assert_eq!(
            splits,
            [
                (
                    Split::Form,
                    vec![("value", 9, 5.0 / 9.0), ("verify", 2, 0.5)]
                ),
                (
                    Split::Program,
                    vec![("original", 4, 0.5), ("mutated", 7, 4.0 / 7.0)]
                ),
            ]
        );
        // Function tasks have no form and no program.
        assert_eq!(Split::Form.key(&task("f", "function", "r1", "low")), None);
        let mut keys = vec!["mutated", "original"];
        keys.sort_by_key(|k| Split::Program.rank(k));
        assert_eq!(keys, ["original", "mutated"]);
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

    /// Function tasks `s0`..: task `i` measured with ESV `esv(i)`, MCL 7 and DFI `i`,
    /// bucketed as [`crate::data`] would (every figure's tertiles from its values).
    fn sliced(n: usize, esv: impl Fn(usize) -> i32) -> Dataset {
        let figures: Vec<crate::data::Figures> = (0..n)
            .map(|i| crate::data::Figures {
                esv: esv(i),
                mcl: 7,
                dfi: i as i32,
            })
            .collect();
        let tertiles: Vec<Vec<usize>> = Figure::ALL
            .iter()
            .map(|&f| {
                let v: Vec<f64> = figures.iter().map(|x| x.get(f) as f64).collect();
                difficulty::tertiles(&v)
            })
            .collect();
        let tasks = (0..n)
            .map(|i| TaskInfo {
                figures: Some(figures[i]),
                figure_buckets: Some([0, 1, 2].map(|j| difficulty::BUCKETS[tertiles[j][i]])),
                ..task(&format!("s{i}"), "function", "r1", "low")
            })
            .collect();
        dataset_of(tasks)
    }

    #[test]
    fn each_figure_is_a_breakdown_of_its_own() {
        // ESV: 3, 3, 3, 9, 9, 9 (half the tasks below 9: `medium`); MCL constant (all
        // `low`); DFI 0..5 (three tertiles).
        let mut ds = sliced(6, |i| if i < 3 { 3 } else { 9 });
        // A seventh task without an ok slice.
        ds.tasks.push(TaskInfo {
            figure_buckets: Some([difficulty::UNKNOWN; 3]),
            ..task("x", "function", "r1", "unknown")
        });
        let r = run(&[
            ("s0", 1, 1),
            ("s1", 1, 1),
            ("s2", 1, 1),
            ("s3", 1, 0),
            ("s4", 1, 0),
            ("s5", 1, 1),
            ("x", 1, 0),
        ]);
        let rows = score_run(&ds, &r, 100, 0);
        let groups = |b: Breakdown| -> Vec<(String, i64, f64)> {
            rows.iter()
                .filter(|s| s.breakdown == b && s.k == 1)
                .map(|s| (s.group_key.clone(), s.tasks, s.pass_at_k))
                .collect()
        };
        assert_eq!(
            groups(Breakdown::Esv),
            [
                ("low".into(), 3, 1.0),
                ("medium".into(), 3, 1.0 / 3.0),
                ("unknown".into(), 1, 0.0)
            ]
        );
        assert_eq!(
            groups(Breakdown::Mcl),
            [("low".into(), 6, 4.0 / 6.0), ("unknown".into(), 1, 0.0)]
        );
        assert_eq!(
            groups(Breakdown::Dfi),
            [
                ("low".into(), 2, 1.0),
                ("medium".into(), 2, 0.5),
                ("high".into(), 2, 0.5),
                ("unknown".into(), 1, 0.0)
            ]
        );
        // Rows follow the breakdowns' order: difficulty, then ESV, MCL, DFI.
        let mut order: Vec<Breakdown> = rows.iter().map(|s| s.breakdown).collect();
        order.dedup();
        let at = |b: Breakdown| order.iter().position(|o| *o == b).unwrap();
        assert!(at(Breakdown::Difficulty) < at(Breakdown::Esv));
        assert!(at(Breakdown::Esv) < at(Breakdown::Mcl) && at(Breakdown::Mcl) < at(Breakdown::Dfi));
        // Without a slices table (the proxy), none of the three.
        let proxy = dataset_of(vec![task("p", "function", "r1", "low (proxy)")]);
        let rows = score_run(&proxy, &run(&[("p", 1, 1)]), 100, 0);
        assert!(!rows.iter().any(|s| matches!(
            s.breakdown,
            Breakdown::Esv | Breakdown::Mcl | Breakdown::Dfi
        )));
    }

    #[test]
    fn the_figure_of_the_failures() {
        // ESV rises with the task number, DFI too; the run fails the later tasks more.
        let ds = sliced(7, |i| 10 * i as i32);
        let r = run(&[
            ("s0", 4, 4),
            ("s1", 4, 4),
            ("s2", 4, 3),
            ("s3", 4, 2),
            ("s4", 4, 2),
            ("s5", 4, 1),
            ("s6", 4, 0),
        ]);
        let e = failures_by_figure(&ds, &r);
        let Explanation::Rhos { rho, tasks } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(*tasks, 7);
        // Failure ranks 1.5, 1.5, 3, 4.5, 4.5, 6, 7 against 1..7.
        assert!(rho[0].unwrap() > 0.9 && rho[0] == rho[2], "{rho:?}");
        assert_eq!(rho[1], None);
        assert_eq!(e.leaders(), [Figure::Esv, Figure::Dfi]);
        // Tasks the run did not score do not count: five left are too few.
        let r = run(&[
            ("s0", 4, 4),
            ("s1", 4, 0),
            ("s2", 4, 0),
            ("s3", 4, 0),
            ("s4", 4, 0),
        ]);
        assert_eq!(failures_by_figure(&ds, &r), Explanation::TooFew(5));
        let all: Vec<(String, u32, u32)> = (0..7).map(|i| (format!("s{i}"), 2, 2)).collect();
        let all: Vec<(&str, u32, u32)> = all.iter().map(|(t, n, c)| (t.as_str(), *n, *c)).collect();
        assert_eq!(failures_by_figure(&ds, &run(&all)), Explanation::NoFailures);
        // Between the figures: ESV and DFI rank alike, MCL is constant.
        let (between, measured) = figure_correlations(&ds);
        assert_eq!(measured, 7);
        assert!((between[1].unwrap() - 1.0).abs() < 1e-12);
        assert_eq!((between[0], between[2]), (None, None));
    }
}
