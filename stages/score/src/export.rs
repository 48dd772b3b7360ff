//! `score --export`: each run's verdicts in files other tools read, written atomically into
//! `runs/NAME/` beside `results.json` ([`crate::results`]): `eval_results.json`, in the
//! shape `EvalPlus`'s `evaluate` writes, and `sample_results.jsonl`, one line per execution
//! row. Task ids are in the form `publish --export jsonl` writes them, `freshbench/<task_id>`,
//! for every family, so both files join with the published tasks. Keys are in the order
//! shown; objects keyed by task id are sorted by it.
//!
//! # `eval_results.json`
//!
//! `EvalPlus`'s `eval_results.json` holds `date` (`YYYY-MM-DD HH:MM`), `hash` (of the
//! dataset), `eval` (per task id, a list of the task's samples in their order, each
//! `{"task_id", "solution", "base_status", "plus_status", "base_fail_tests",
//! "plus_fail_tests"}`) and `pass_at_k` (`{"base": {"pass@1": ...}, "plus": {...}}`, for k
//! of 1, 10 and 100 where every task has as many samples). freshbench fills it so:
//!
//! - `date`: when `score` ran, UTC (`EvalPlus` writes its local time);
//! - `hash`: a content id (32 hex digits) of the dataset's valid task ids: two exports share
//!   it when they are over the same tasks (it does not see a task's content change);
//! - `eval`: the samples that are scored, exactly those pass@k counts: of valid tasks, the
//!   first row of each (task, sample), not `infra`; in sample order; a task without one is
//!   absent. `solution` is the candidate's answer (its cleaned code, the completion's fill
//!   or the assertion's value, as `solve` recorded it; empty without one);
//! - `base_status` and `plus_status`: freshbench has one set of cases per task, so both are
//!   freshbench's one verdict: `pass` for `pass`, `timeout` for `timeout`, `fail` for every
//!   other failure (`fail`, `error`, `memory`, `syntax`, `sandbox_violation`), as `EvalPlus`
//!   counts anything but `pass` a failure; the exact status is in `sample_results.jsonl`;
//! - `base_fail_tests` and `plus_fail_tests`: always empty: `EvalPlus` lists the failing
//!   inputs there, which freshbench does not record per case (the first failure's message
//!   is `detail` in `sample_results.jsonl`); an empty list is also what `EvalPlus` writes
//!   when it does not know them;
//! - `pass_at_k`: `base` and `plus` (the same) hold `pass@1`, `pass@10`, `pass@100` where
//!   the run's `overall` row of that k exists (every scored task has k samples): the
//!   numbers of the `scores` table, which are those `EvalPlus` computes from `eval`;
//! - `freshbench`, an object `EvalPlus` does not write: `export_version`
//!   ([`EXPORT_VERSION`]), `run`, `model`, `samples` (in `eval`), `statuses` (of them, per
//!   freshbench status), `infra_excluded` (samples the harness could not judge, left out of
//!   `eval` and of pass@k, not counted as failures), `invalid_excluded` (rows of tasks
//!   that are not valid), `duplicates_excluded` (rows repeating a (task, sample)),
//!   `samples_without_answer` (in `eval` with an empty `solution`: no candidate row or no
//!   answer).
//!
//! ```json
//! {"date": "2026-05-01 12:00", "hash": "5f0c...", "eval": {"freshbench/t0": [
//!   {"task_id": "freshbench/t0", "solution": "def f0(x): ...", "base_status": "pass",
//!    "plus_status": "pass", "base_fail_tests": [], "plus_fail_tests": []}]},
//!  "pass_at_k": {"base": {"pass@1": 1.0}, "plus": {"pass@1": 1.0}},
//!  "freshbench": {"export_version": 1, "run": "oracle", "model": "oracle", "samples": 9,
//!                 "statuses": {"pass": 9}, "infra_excluded": 0, "invalid_excluded": 1,
//!                 "duplicates_excluded": 0, "samples_without_answer": 0}}
//! ```
//!
//! # `sample_results.jsonl`
//!
//! One line per row of the run's `executions` table, infra and ignored rows included,
//! sorted by task id and sample (repeated rows in table order): `task_id`
//! (`freshbench/<id>`), `family` (the candidate's, else the task's; null when neither is
//! known), `sample`, `status` (freshbench's), `counted` (`scored`: in pass@k and
//! `eval_results.json`; `infra`: left out, the harness failed; `invalid`: the task is not
//! valid; `duplicate`: a repeated (task, sample)), `fingerprint` (`syntax`, `runtime`,
//! `logic` or null), `detail` (the first failing case's message, or null), `cases_passed`,
//! `cases_total`, `seconds`, `answer` (the candidate's, or null), `tokens_in`, `tokens_out`
//! and `cost` (the candidate's, or null).
//!
//! ```json
//! {"task_id":"freshbench/t0","family":"function","sample":0,"status":"fail","counted":"scored","fingerprint":"logic","detail":"case 2: expected 3, got 4","cases_passed":2,"cases_total":3,"seconds":0.01,"answer":"def f0(x): ...","tokens_in":120,"tokens_out":30,"cost":0.0004}
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use schemas::{Breakdown, Candidate, ExecStatus, Execution, Family, Fingerprint, Score};
use serde::Serialize;

use crate::data::{self, Dataset, RunData};
use crate::results::{Meta, RunRows};

/// The version of the export's freshbench-specific parts (`freshbench` in
/// `eval_results.json`, the lines of `sample_results.jsonl`). Bump it when a field is
/// removed, renamed or changes meaning.
pub const EXPORT_VERSION: u32 = 1;

/// The `EvalPlus`-shaped results.
pub const EVAL_RESULTS: &str = "eval_results.json";

/// One line per execution row.
pub const SAMPLE_RESULTS: &str = "sample_results.jsonl";

/// The k values `EvalPlus` reports.
const EVALPLUS_KS: [i32; 3] = [1, 10, 100];

/// A task id as `publish --export jsonl` writes it.
pub fn exported_id(task_id: &str) -> String {
    format!("freshbench/{task_id}")
}

/// How an execution row counts, by the rules of [`data::load_run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// In pass@k.
    Scored,
    /// The harness could not judge it: neither passed nor failed.
    Infra,
    /// Its task is not valid (or unknown).
    Invalid,
    /// A (task, sample) already seen: the first row counts.
    Duplicate,
}

/// How each execution row counts, in table order.
pub fn classify(dataset: &Dataset, executions: &[Execution]) -> Vec<Counted> {
    let valid: BTreeSet<&str> = dataset.tasks.iter().map(|t| t.task_id.as_str()).collect();
    let mut seen: BTreeSet<(&str, i32)> = BTreeSet::new();
    executions
        .iter()
        .map(|e| {
            if !valid.contains(e.task_id.as_str()) {
                Counted::Invalid
            } else if !seen.insert((e.task_id.as_str(), e.sample)) {
                Counted::Duplicate
            } else if e.status.is_infra() {
                Counted::Infra
            } else {
                Counted::Scored
            }
        })
        .collect()
}

/// `EvalPlus`'s status of a verdict.
pub fn evalplus_status(status: ExecStatus) -> &'static str {
    match status {
        ExecStatus::Pass => "pass",
        ExecStatus::Timeout => "timeout",
        _ => "fail",
    }
}

#[derive(Serialize)]
struct EvalResults<'a> {
    date: String,
    hash: String,
    eval: BTreeMap<String, Vec<EvalSample<'a>>>,
    pass_at_k: BTreeMap<&'static str, BTreeMap<String, f64>>,
    freshbench: Extra<'a>,
}

#[derive(Serialize)]
struct EvalSample<'a> {
    task_id: String,
    solution: &'a str,
    base_status: &'static str,
    plus_status: &'static str,
    base_fail_tests: Vec<String>,
    plus_fail_tests: Vec<String>,
}

#[derive(Serialize)]
struct Extra<'a> {
    export_version: u32,
    run: &'a str,
    model: &'a str,
    samples: usize,
    statuses: BTreeMap<&'static str, usize>,
    infra_excluded: usize,
    invalid_excluded: usize,
    duplicates_excluded: usize,
    samples_without_answer: usize,
}

#[derive(Serialize)]
struct SampleLine<'a> {
    task_id: String,
    family: Option<Family>,
    sample: i32,
    status: ExecStatus,
    counted: Counted,
    fingerprint: Option<Fingerprint>,
    detail: Option<&'a str>,
    cases_passed: i32,
    cases_total: i32,
    seconds: f64,
    answer: Option<&'a str>,
    tokens_in: Option<i64>,
    tokens_out: Option<i64>,
    cost: Option<f64>,
}

/// Checks, before anything is written, that every run can be exported: `--export` needs
/// each run's candidates (the solutions). Called after [`data::load_run`], which checks
/// the run's folder and executions.
pub fn check_inputs(dir: &Path, runs: &[String]) -> anyhow::Result<()> {
    for name in runs {
        let path = data::run_dir(dir, name)
            .join(format!("{}.parquet", <Candidate as schemas::Table>::NAME));
        if !path.is_file() {
            anyhow::bail!(
                "{}: missing; --export writes each sample's answer and run `{name}` has no \
                 candidates table: run `solve --data {d} --run {name}` (and `execute --data {d} \
                 --run {name}`) again, or score without --export",
                path.display(),
                d = dir.display()
            );
        }
    }
    Ok(())
}

/// Writes `eval_results.json` and `sample_results.jsonl` of one run; returns their paths.
pub fn write(
    dir: &Path,
    dataset: &Dataset,
    run: &RunData,
    rows: &RunRows,
    scores: &[Score],
    meta: &Meta,
) -> anyhow::Result<[PathBuf; 2]> {
    let rdir = data::run_dir(dir, &run.name);
    let counted = classify(dataset, &rows.executions);
    let candidates: &[Candidate] = rows.candidates.as_deref().unwrap_or_default();
    let mut by_sample: HashMap<(&str, i32), &Candidate> = HashMap::new();
    for c in candidates {
        by_sample.entry((c.task_id.as_str(), c.sample)).or_insert(c);
    }
    let family_of: HashMap<&str, Family> = dataset
        .tasks
        .iter()
        .map(|t| (t.task_id.as_str(), t.family))
        .collect();
    // Sorted by task and sample; a stable sort keeps repeated rows in table order.
    let mut order: Vec<usize> = (0..rows.executions.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&rows.executions[a], &rows.executions[b]);
        (a.task_id.as_str(), a.sample).cmp(&(b.task_id.as_str(), b.sample))
    });

    let mut eval: BTreeMap<String, Vec<EvalSample>> = BTreeMap::new();
    let mut statuses: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut without_answer = 0;
    let mut lines = String::new();
    for &i in &order {
        let e = &rows.executions[i];
        let candidate = by_sample.get(&(e.task_id.as_str(), e.sample)).copied();
        let answer = candidate.and_then(|c| c.answer.as_deref());
        if counted[i] == Counted::Scored {
            let status = evalplus_status(e.status);
            *statuses.entry(e.status.as_str()).or_default() += 1;
            without_answer += usize::from(answer.is_none());
            eval.entry(exported_id(&e.task_id))
                .or_default()
                .push(EvalSample {
                    task_id: exported_id(&e.task_id),
                    solution: answer.unwrap_or_default(),
                    base_status: status,
                    plus_status: status,
                    base_fail_tests: Vec::new(),
                    plus_fail_tests: Vec::new(),
                });
        }
        let line = SampleLine {
            task_id: exported_id(&e.task_id),
            family: candidate
                .map(|c| c.family)
                .or_else(|| family_of.get(e.task_id.as_str()).copied()),
            sample: e.sample,
            status: e.status,
            counted: counted[i],
            fingerprint: e.fingerprint,
            detail: e.detail.as_deref(),
            cases_passed: e.cases_passed,
            cases_total: e.cases_total,
            seconds: e.seconds,
            answer,
            tokens_in: candidate.and_then(|c| c.tokens_in),
            tokens_out: candidate.and_then(|c| c.tokens_out),
            cost: candidate.and_then(|c| c.cost),
        };
        lines += &serde_json::to_string(&line)?;
        lines.push('\n');
    }

    let pass_at_k: BTreeMap<String, f64> = scores
        .iter()
        .filter(|s| {
            s.breakdown == Breakdown::Overall
                && EVALPLUS_KS.contains(&s.k)
                && s.pass_at_k.is_finite()
        })
        .map(|s| (format!("pass@{}", s.k), s.pass_at_k))
        .collect();
    let count = |c: Counted| counted.iter().filter(|x| **x == c).count();
    let ids: Vec<&[u8]> = dataset.tasks.iter().map(|t| t.task_id.as_bytes()).collect();
    let created = meta.created.to_string();
    let results = EvalResults {
        date: format!("{} {}", &created[..10], &created[11..16]),
        hash: schemas::id::content_id(&ids),
        freshbench: Extra {
            export_version: EXPORT_VERSION,
            run: &run.name,
            model: &run.model,
            samples: eval.values().map(Vec::len).sum(),
            statuses,
            infra_excluded: count(Counted::Infra),
            invalid_excluded: count(Counted::Invalid),
            duplicates_excluded: count(Counted::Duplicate),
            samples_without_answer: without_answer,
        },
        eval,
        pass_at_k: BTreeMap::from([("base", pass_at_k.clone()), ("plus", pass_at_k)]),
    };
    let mut json = serde_json::to_string_pretty(&results)?;
    let _ = writeln!(json);

    let eval_path = rdir.join(EVAL_RESULTS);
    schemas::io::write_bytes_atomic(&eval_path, json.as_bytes())
        .with_context(|| format!("writing {}", eval_path.display()))?;
    let lines_path = rdir.join(SAMPLE_RESULTS);
    schemas::io::write_bytes_atomic(&lines_path, lines.as_bytes())
        .with_context(|| format!("writing {}", lines_path.display()))?;
    Ok([eval_path, lines_path])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_in_evalplus_terms() {
        assert_eq!(evalplus_status(ExecStatus::Pass), "pass");
        assert_eq!(evalplus_status(ExecStatus::Timeout), "timeout");
        for s in [
            ExecStatus::Fail,
            ExecStatus::Error,
            ExecStatus::Memory,
            ExecStatus::Syntax,
            ExecStatus::SandboxViolation,
        ] {
            assert_eq!(evalplus_status(s), "fail", "{s}");
        }
        assert_eq!(exported_id("t1"), "freshbench/t1");
    }
}
