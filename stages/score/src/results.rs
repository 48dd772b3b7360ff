//! `runs/NAME/results.json`: the machine-readable results of one run, written by every
//! `score` for each run it scores (atomically, through `schemas::io::write_bytes_atomic`),
//! for other tools to read. One JSON object, pretty-printed, keys in this order:
//!
//! - `schema_version`: the version of this file's shape ([`SCHEMA_VERSION`], now 1);
//! - `freshbench_version`: the version of freshbench that wrote it (`score --version`);
//!   `score` has no build id of its own, so there is no `build` field;
//! - `run`: the run's name (`runs/NAME`);
//! - `model`: the model spec of the run's candidates (several joined by `, `; `unknown
//!   (no candidates table)` without one);
//! - `created`: when the file was written, UTC, RFC 3339 (`2026-05-01T12:00:00Z`);
//! - `options`: what the numbers depend on:
//!   - `ks`: the k values of the rows of `pass_at_k`, ascending (k is no option: each group
//!     has the 1-2-5 series up to its smallest sample count, and that count);
//!   - `bootstrap`: resamples of the intervals (`--bootstrap`), `confidence`: 0.95,
//!     `seed`: `--seed`, `cutoff`: `--cutoff` as given, or null;
//!   - `time_limit`: the rule `execute` limited each function-task case's time by
//!     (`max(floor, factor * reference seconds)`), read from the run's `executions` rows:
//!     `factor` and `floor_seconds` (the one value the rows record, null when none records
//!     one or they record several), `factors` and `floors_seconds` (every distinct value,
//!     ascending) and `rows_with_rule` (the rows that record a factor: function tasks);
//! - `counts`: `tasks_valid` (valid tasks of the dataset), `tasks_invalid`, `tasks_scored`
//!   (valid tasks with at least one judged sample), `tasks_missing` (valid tasks without
//!   an execution), `tasks_solved` (scored tasks with a passing sample), `samples` (the
//!   execution rows that count: of valid tasks, the first of each (task, sample)),
//!   `samples_scored` (of them, not `infra`), `samples_passed`, `infra_excluded` (the
//!   `infra` ones: neither passed nor failed), `samples_missing` (candidates of valid
//!   tasks without an execution), `executions_ignored` (rows of tasks that are not valid),
//!   `executions_duplicate` (rows repeating a (task, sample)), `statuses` (the counted
//!   samples per status, `infra` included) and `fingerprints` (failed samples per
//!   failure fingerprint, `none` for a failure without one);
//! - `pass_at_k`: the run's `scores` rows, in their order, each
//!   `{"breakdown", "group", "k", "pass_at_k", "ci_low", "ci_high", "tasks"}`: the same
//!   numbers (an estimate that is not a number is null);
//! - `cost`: what the run's answers cost ([`data::run_cost`]), over its candidates of
//!   valid tasks, one per (task, sample) (`samples` of them): `tokens_in`, `tokens_out`
//!   and `total` (sums over the answers that report them, null when none does; `total` is
//!   in the currency of solve's price table and a lower bound when `samples_priced` is
//!   below `samples`), and `per_solved_task` (`total / counts.tasks_solved`, null without
//!   a total or a solved task).
//!
//! ```json
//! {
//!   "schema_version": 1,
//!   "freshbench_version": "0.1.0",
//!   "run": "oracle",
//!   "model": "oracle",
//!   "created": "2026-05-01T12:00:00Z",
//!   "options": {"ks": [1], "bootstrap": 1000, "confidence": 0.95, "seed": 0,
//!               "cutoff": null, "time_limit": {"factor": 4.0, "floor_seconds": 0.2,
//!               "factors": [4.0], "floors_seconds": [0.2], "rows_with_rule": 9}},
//!   "counts": {"tasks_valid": 9, "tasks_invalid": 1, "tasks_scored": 9, "tasks_missing": 0,
//!              "tasks_solved": 9, "samples": 9, "samples_scored": 9, "samples_passed": 9,
//!              "infra_excluded": 0, "samples_missing": 0, "executions_ignored": 1,
//!              "executions_duplicate": 0, "statuses": {"pass": 9}, "fingerprints": {}},
//!   "pass_at_k": [{"breakdown": "overall", "group": "all", "k": 1, "pass_at_k": 1.0,
//!                  "ci_low": 1.0, "ci_high": 1.0, "tasks": 9}],
//!   "cost": {"tokens_in": 900, "tokens_out": 90, "total": 0.0, "samples": 9,
//!            "samples_priced": 9, "per_solved_task": 0.0}
//! }
//! ```
//!
//! Bump [`SCHEMA_VERSION`] when a field is removed, renamed or changes its meaning or
//! type; a field added is no bump (readers ignore what they do not know).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use schemas::{Candidate, Execution, Score, Table, Timestamp};
use serde::{Deserialize, Serialize};

use crate::data::{self, Dataset, RunData};

/// The version of the shape of `results.json`. Bump it when a field is removed, renamed or
/// changes meaning or type (not for a field added).
pub const SCHEMA_VERSION: u32 = 1;

/// The file's name in the run's folder.
pub const FILE_NAME: &str = "results.json";

/// The confidence of the intervals.
pub const CONFIDENCE: f64 = 0.95;

/// `runs/NAME/results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema_version: u32,
    pub freshbench_version: String,
    pub run: String,
    pub model: String,
    /// RFC 3339, UTC.
    pub created: String,
    pub options: Options,
    pub counts: Counts,
    pub pass_at_k: Vec<PassAtK>,
    pub cost: Cost,
}

/// What the numbers depend on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// The k values of the `pass_at_k` rows, ascending.
    pub ks: Vec<i32>,
    /// Bootstrap resamples.
    pub bootstrap: usize,
    pub confidence: f64,
    pub seed: u64,
    pub cutoff: Option<String>,
    pub time_limit: TimeLimit,
}

/// The time-limit rule of the run's executions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeLimit {
    /// The one factor the rows record; null with none or several.
    pub factor: Option<f64>,
    /// The one floor the rows record, in seconds; null with none or several.
    pub floor_seconds: Option<f64>,
    /// Every distinct factor, ascending.
    pub factors: Vec<f64>,
    /// Every distinct floor, ascending.
    pub floors_seconds: Vec<f64>,
    /// Rows that record a factor.
    pub rows_with_rule: usize,
}

/// Tasks and samples, and what did not count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub tasks_valid: usize,
    pub tasks_invalid: usize,
    pub tasks_scored: usize,
    pub tasks_missing: usize,
    pub tasks_solved: usize,
    pub samples: usize,
    pub samples_scored: usize,
    pub samples_passed: usize,
    pub infra_excluded: usize,
    pub samples_missing: usize,
    pub executions_ignored: usize,
    pub executions_duplicate: usize,
    pub statuses: BTreeMap<String, usize>,
    pub fingerprints: BTreeMap<String, usize>,
}

/// One `scores` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassAtK {
    pub breakdown: String,
    pub group: String,
    pub k: i32,
    /// Null when not a number.
    pub pass_at_k: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub tasks: i64,
}

/// What the run's answers cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub tokens_in: Option<i64>,
    pub tokens_out: Option<i64>,
    /// In the currency of solve's price table; the priced rows only.
    pub total: Option<f64>,
    /// Answers counted: candidates of valid tasks, one per (task, sample).
    pub samples: usize,
    /// Of them, with a cost.
    pub samples_priced: usize,
    pub per_solved_task: Option<f64>,
}

/// The rows of a run that the results and the export read beside [`data::load_run`]'s
/// figures: its executions and, when the table exists, its candidates.
#[derive(Debug, Clone)]
pub struct RunRows {
    pub executions: Vec<Execution>,
    pub candidates: Option<Vec<Candidate>>,
}

impl RunRows {
    /// Reads `runs/NAME/executions` and `runs/NAME/candidates` (when it exists).
    pub fn read(dir: &Path, name: &str) -> anyhow::Result<RunRows> {
        let rdir = data::run_dir(dir, name);
        let executions = schemas::read_table_from(&table_in::<Execution>(&rdir))
            .with_context(|| format!("reading the executions of run `{name}`"))?;
        let cpath = table_in::<Candidate>(&rdir);
        let candidates = if cpath.is_file() {
            Some(
                schemas::read_table_from(&cpath)
                    .with_context(|| format!("reading the candidates of run `{name}`"))?,
            )
        } else {
            None
        };
        Ok(RunRows {
            executions,
            candidates,
        })
    }
}

/// `runs/NAME/<table>.parquet`.
fn table_in<T: Table>(run_dir: &Path) -> PathBuf {
    run_dir.join(format!("{}.parquet", T::NAME))
}

/// What `score` was given.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    pub resamples: usize,
    pub seed: u64,
    /// When the files are written (one time for every file of a `score`).
    pub created: Timestamp,
}

/// Now, to the second.
pub fn now() -> Timestamp {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Timestamp::from_unix_seconds(i64::try_from(secs).unwrap_or(0))
}

/// The results of one run from its figures, its rows and its `scores` rows.
pub fn build(
    dataset: &Dataset,
    run: &RunData,
    rows: &RunRows,
    scores: &[Score],
    meta: &Meta,
) -> Results {
    let mut ks: Vec<i32> = scores.iter().map(|s| s.k).collect();
    ks.sort_unstable();
    ks.dedup();
    let tasks_solved = run.outcomes.values().filter(|o| o.c > 0).count();
    let counts = Counts {
        tasks_valid: dataset.tasks.len(),
        tasks_invalid: dataset.invalid,
        tasks_scored: run.outcomes.len(),
        tasks_missing: run.missing_tasks,
        tasks_solved,
        samples: run.statuses.values().sum(),
        samples_scored: run.outcomes.values().map(|o| o.n as usize).sum(),
        samples_passed: run.outcomes.values().map(|o| o.c as usize).sum(),
        infra_excluded: run.infra_samples,
        samples_missing: run.missing_samples,
        executions_ignored: run.ignored_executions,
        executions_duplicate: run.duplicate_executions,
        statuses: run.statuses.clone(),
        fingerprints: run.fingerprints.clone(),
    };
    let finite = |v: f64| v.is_finite().then_some(v);
    Results {
        schema_version: SCHEMA_VERSION,
        freshbench_version: env!("CARGO_PKG_VERSION").to_string(),
        run: run.name.clone(),
        model: run.model.clone(),
        created: meta.created.to_string(),
        options: Options {
            ks,
            bootstrap: meta.resamples,
            confidence: CONFIDENCE,
            seed: meta.seed,
            cutoff: dataset.cutoff.clone(),
            time_limit: time_limit(&rows.executions),
        },
        counts,
        pass_at_k: scores
            .iter()
            .map(|s| PassAtK {
                breakdown: s.breakdown.as_str().to_string(),
                group: s.group_key.clone(),
                k: s.k,
                pass_at_k: finite(s.pass_at_k),
                ci_low: finite(s.ci_low),
                ci_high: finite(s.ci_high),
                tasks: s.tasks,
            })
            .collect(),
        cost: cost(run),
    }
}

/// The time-limit rule the executions record.
pub fn time_limit(executions: &[Execution]) -> TimeLimit {
    let distinct = |values: Vec<f64>| {
        let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let factors = distinct(executions.iter().filter_map(|e| e.time_factor).collect());
    let floors = distinct(
        executions
            .iter()
            .filter_map(|e| e.time_floor_seconds)
            .collect(),
    );
    let one = |v: &[f64]| if v.len() == 1 { Some(v[0]) } else { None };
    TimeLimit {
        factor: one(&factors),
        floor_seconds: one(&floors),
        rows_with_rule: executions
            .iter()
            .filter(|e| e.time_factor.is_some())
            .count(),
        factors,
        floors_seconds: floors,
    }
}

/// The run's cost ([`data::run_cost`]).
fn cost(run: &RunData) -> Cost {
    let c = data::run_cost(run);
    Cost {
        tokens_in: c.tokens_in,
        tokens_out: c.tokens_out,
        total: c.cost,
        samples: c.answers,
        samples_priced: c.priced,
        per_solved_task: c.cost_per_solved,
    }
}

/// Writes `runs/NAME/results.json` atomically; returns its path.
pub fn write(dir: &Path, results: &Results) -> anyhow::Result<PathBuf> {
    let path = data::run_dir(dir, &results.run).join(FILE_NAME);
    let json = serde_json::to_string_pretty(results)? + "\n";
    schemas::io::write_bytes_atomic(&path, json.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn execution(rule: Option<(f64, f64)>) -> Execution {
        Execution {
            run: "r".into(),
            task_id: "t".into(),
            sample: 0,
            status: schemas::ExecStatus::Pass,
            cases_passed: 1,
            cases_total: 1,
            seconds: 0.1,
            fingerprint: None,
            detail: None,
            isolation: schemas::Isolation::Namespaces,
            reference_seconds: rule.map(|_| 0.01),
            time_limit_seconds: rule.map(|(f, floor)| floor.max(f * 0.01)),
            time_factor: rule.map(|r| r.0),
            time_floor_seconds: rule.map(|r| r.1),
            input_hash: "h".into(),
        }
    }

    #[test]
    fn the_time_limit_rule_one_several_or_none() {
        let none = time_limit(&[execution(None)]);
        assert_eq!(
            (none.factor, none.floor_seconds, none.rows_with_rule),
            (None, None, 0)
        );
        assert!(none.factors.is_empty() && none.floors_seconds.is_empty());
        let one = time_limit(&[
            execution(Some((4.0, 0.2))),
            execution(None),
            execution(Some((4.0, 0.2))),
        ]);
        assert_eq!(
            (one.factor, one.floor_seconds, one.rows_with_rule),
            (Some(4.0), Some(0.2), 2)
        );
        let several = time_limit(&[execution(Some((8.0, 0.2))), execution(Some((4.0, 0.2)))]);
        assert_eq!(several.factor, None);
        assert_eq!(several.factors, [4.0, 8.0]);
        assert_eq!(several.floor_seconds, Some(0.2));
    }
}
