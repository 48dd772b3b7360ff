//! `score`: pass@k of a model's runs, with bootstrap confidence intervals, broken down by
//! task family, function class, repository, difficulty (and ESV, MCL and DFI each) and
//! publication window, and one self-contained HTML report that compares the runs side by
//! side.
//!
//! Reads, from the dataset directory `DIR`: `validations` (only tasks with `valid = true`
//! count, anywhere), `function_tasks` (and `completion_tasks` / `assertion_tasks` when they
//! exist) for each task's repository and class, `repos` (names and publication dates) and
//! `slices` when it exists (difficulty); and, for every run named, `runs/NAME/executions`
//! (one row per sample) and `runs/NAME/candidates` (the model spec). Writes
//! `runs/NAME/scores.parquet` and `runs/NAME/results.json` for every run, the report (see
//! [`Args::report`]) and, with `--export`, `runs/NAME/eval_results.json` and
//! `runs/NAME/sample_results.jsonl`.
//!
//! # The estimator
//!
//! A sample passes when its execution's status is `pass`. A sample whose status is `infra`
//! (the harness failed, not the model) is left out: it is neither passed nor failed, the
//! report counts such samples per run, and `execute --run` judges them again on a rerun.
//! For a task with `n` executed samples (infra ones not counted) of which `c` pass, pass@k is estimated without bias (Chen et al., 2021) as
//! `1 - C(n-c, k) / C(n, k)`, computed as the product `1 - prod_{i=n-c+1}^{n} (1 - k/i)`
//! so that no binomial coefficient overflows ([`estimate::pass_at_k`]). A group's pass@k is
//! the mean over its tasks. k runs over the 1-2-5 series (1, 2, 5, 10, 20, 50, 100, ...) up
//! to the smallest `n` among the group's tasks, plus that `n` itself ([`estimate::ks_for`]),
//! so every task of the group has at least k samples.
//!
//! # The intervals
//!
//! 95% percentile bootstrap over tasks ([`estimate::bootstrap`]): `--bootstrap` times, the
//! group's tasks are drawn with replacement (as many as it has) and the mean taken; the
//! interval is the 2.5th and 97.5th percentiles of those means. Draws come from a
//! `SplitMix64` generator ([`estimate::SplitMix64`]) seeded from `--seed` and the
//! breakdown and group names, so the output is the same on every run and machine.
//!
//! # Missing data
//!
//! A valid task with no execution row in a run is *missing*: it is not scored for that run
//! (neither passed nor failed), a warning names the count, and the report shows it beside
//! the run. Counting it as failed would punish a run for an incomplete `execute` rather
//! than for its answers; the warning makes the incompleteness impossible to miss. Likewise
//! a candidate sample without an execution is not scored and is counted. Executions of
//! tasks that are not valid (or unknown) are ignored; a repeated (task, sample) row counts
//! once (the first).
//!
//! # The breakdowns
//!
//! The `breakdown` column of `scores`: `overall` (group `all`), `family`, `class` (function
//! tasks only), `repo` (the repository's name, with its version where two share a name),
//! `difficulty`, `esv`, `mcl` and `dfi` (these three only with a `slices` table), `window`
//! (only with `--cutoff`: `before_cutoff` / `after_cutoff` by the task's `code_date`,
//! `unknown` without one), `quarter` (of the `code_date`: the contamination curve) and
//! `level` (completion tasks only: the span kind). Every family's
//! tasks carry a code date (function tasks their function's, completion tasks that of the
//! code the span is made from, assertion tasks the newest of the code their test runs), so
//! the windows and the curve hold them all. The difficulty buckets are the
//! tertiles `low`, `medium`, `high` of a combined difficulty: the mean of the task's
//! normalized ranks ([`difficulty`]) in ESV, MCL and DFI of the `slices` table, among the
//! valid tasks whose slice has status `ok` (so the buckets are the same for every run);
//! tasks without one (no slice, or a slice of status `timeout`, `too_large` or
//! `untraceable`, whose figures are null) are `unknown`. With a `slices` table, `esv`,
//! `mcl` and `dfi` are breakdowns too: the tertiles of that one figure among the same
//! tasks (`unknown` without an `ok` slice). Without a `slices` table the combined
//! difficulty is done with a proxy, the function task's branch arcs (`branches_total`) and
//! the non-blank lines of its `canonical_solution`, and the groups are named `low (proxy)`,
//! `medium (proxy)`, `high (proxy)` (`unknown (proxy)` for other families); the report says
//! so, and there are no `esv`, `mcl` and `dfi` rows. Failure fingerprints and statuses are
//! no pass@k breakdown: the report counts them.
//!
//! # Per family and split
//!
//! Beside the breakdowns, each family is scored in its splits ([`scores::family_scores`],
//! [`scores::Split`]): function tasks by class, completion tasks by level (`span_kind`:
//! `expression`, `statement`, `block`, `function`), assertion tasks by form (`value`:
//! predict the subject's value; `verify`: say whether the assertion shown with a claim
//! holds) and by program (`original`, or `mutated`: a variant under which the value
//! changes). A family's `all` is its `family` breakdown row, a class its `class` row, a
//! level its `level` row, a form its `form` row, a program its `program` row; all are
//! also in the summary printed on stdout ([`summary`]: one line per run, family and group
//! with pass@1 and pass@k and their intervals) and in the report's table per family.
//!
//! # The memorization gap
//!
//! For assertion tasks, per run ([`scores::memorization_gap`]): pass@1 on the tasks posed
//! on the original program minus pass@1 on those posed on mutated variants, over the
//! assertions (`group_id`) with both scored, each side pooled over its tasks. A model that
//! recalls the repository's values passes the originals but not the variants, so a large
//! positive gap is the sign of memorization. Its 95% interval resamples assertions, not
//! tasks ([`estimate::bootstrap_statistic`] over each assertion's sums and counts): the
//! tasks of one assertion share a test and its code and are no independent draws. Shown
//! after the summary's table and in a section of the report, both only when some run has
//! it (a dataset or a run without assertion tasks shows nothing of it).
//!
//! # The report
//!
//! One HTML file with inline CSS and inline SVG charts drawn here ([`svg`], [`report`]): no
//! script, nothing fetched. A summary table per run (model, tasks valid and scored,
//! samples per task, pass@1 and pass@k with intervals), each run's tokens, cost and cost
//! per solved task ([`data::run_cost`]) and a pass@k chart; with several
//! runs, each pair's difference in pass@1 on their common tasks with a paired interval
//! ([`scores::paired_gap`]); a table per task family, over all its tasks and in its
//! splits (with charts of completion tasks by level and of assertion tasks by form and by
//! program); each run's memorization gap on assertion tasks, when there is one; bar charts with
//! interval whiskers of pass@1 by family, class, difficulty and publication window (with
//! what a gap before the cutoff means); with slices, pass@1 by the tertiles of ESV, MCL and
//! DFI each (every bin labelled with the figure's range in it), Spearman's rho between the
//! three figures, and per run the figure that explains most of its failures: the one whose
//! Spearman rank correlation with the per-task failure rate (1 - the mean pass over its
//! samples) is largest ([`scores::failures_by_figure`]; not below 6 tasks); a table by repository; stacked bars of statuses
//! and failure fingerprints, and the tasks some run failed; the method. With several runs every chart has one bar per run
//! in each group, one colour per run. Everything that comes from data is escaped. No
//! timestamp is written, so the same input gives the same bytes.
//!
//! Beside the report, `tasks/` holds a static page per task some run failed, linked from
//! the report's list of them ([`pages::write`]): the task's prompt and reference, and every
//! run's samples with their answer, status, first failing case and diff against the
//! reference; `tasks/index.html` lists them all.
//!
//! # Machine-readable results
//!
//! Every `score` also writes `runs/NAME/results.json` for each run ([`results`]): the
//! versioned record of the run for other tools (freshbench's version, the model, when,
//! the options and the executions' time-limit rule, the counts of tasks and samples per
//! status with the infra samples counted apart, every `scores` row with its interval, and the
//! tokens and cost, per solved task too). With `--export` each run's folder also gets
//! `eval_results.json`, in the shape `EvalPlus` writes (task ids `freshbench/<id>` as
//! `publish --export jsonl` writes them, freshbench's one verdict as both `base` and
//! `plus`, infra samples left out and counted apart), and `sample_results.jsonl`, one line
//! per execution row with its verdict, failure, answer, tokens and cost ([`export`]).
//! Every file is written atomically; only `created` and `date` change between two runs of
//! `score` on the same input.
//!
//! # Exit codes
//!
//! 0 when every run was scored on at least one task, 1 when a run had no task to score
//! (its scores, results and the report are still written), 2 on an error: a missing run
//! folder or executions table (run `solve` then `execute --run`), `--export` of a run
//! without candidates (run `solve` again, or leave out `--export`), a bad `--cutoff`, an
//! unreadable table (these are found before anything is written).

pub mod curve;
pub mod data;
pub mod difficulty;
pub mod estimate;
pub mod export;
pub mod pages;
pub mod report;
pub mod results;
pub mod scores;
pub mod summary;
pub mod svg;

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Parser;
use schemas::cli::{check_run_name, CommonArgs, Outcome};
use schemas::{Breakdown, Score, Timestamp};

/// Score runs: pass@k with bootstrap intervals per breakdown, and an HTML report.
#[derive(Debug, Parser)]
#[command(name = "score", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// A run to score (`DIR/runs/NAME`, made by `solve` and `execute --run NAME`);
    /// repeat to compare runs side by side in one report.
    #[arg(long = "run", value_name = "NAME", required = true)]
    pub runs: Vec<String>,
    /// A model's training cutoff (`YYYY-MM-DD`): adds the `window` breakdown, tasks whose
    /// code was first published before it against those whose code was published after it.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub cutoff: Option<String>,
    /// Where to write the HTML report (default: `DIR/runs/NAME/report.html` of the first
    /// run named, which holds every run named).
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// Bootstrap resamples for the 95% confidence intervals (at least 1).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of the bootstrap's generator: the same seed gives the same intervals.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Also write, into each run's folder, `eval_results.json` (in the shape `EvalPlus`
    /// writes) and `sample_results.jsonl` (one line per execution row, with the answer);
    /// needs the run's candidates.
    #[arg(long)]
    pub export: bool,
}

/// Parses `--cutoff`: a real calendar date `YYYY-MM-DD` (or an RFC 3339 time).
pub fn parse_cutoff(text: &str) -> anyhow::Result<Timestamp> {
    schemas::cli::parse_date("--cutoff", text)
}

/// The stage.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    let dir = args.common.data()?;
    if !dir.is_dir() {
        anyhow::bail!(
            "{}: no such dataset directory; give the --data DIR the earlier stages wrote",
            dir.display()
        );
    }
    if args.bootstrap == 0 {
        anyhow::bail!("--bootstrap 0: the intervals need at least 1 resample (1000 is usual)");
    }
    let mut seen = BTreeSet::new();
    for name in &args.runs {
        check_run_name(name)?;
        if !seen.insert(name) {
            anyhow::bail!("--run {name} is given twice");
        }
    }
    let cutoff = match &args.cutoff {
        Some(text) => Some((text.trim(), parse_cutoff(text)?)),
        None => None,
    };

    let dataset = data::load_dataset(dir, cutoff)?;
    if dataset.tasks.is_empty() {
        tracing::warn!(
            invalid = dataset.invalid,
            "no valid task in the dataset: nothing to score (see `validations.reason`)"
        );
    }
    tracing::info!(
        valid = dataset.tasks.len(),
        invalid = dataset.invalid,
        difficulty = ?dataset.difficulty_source,
        "tasks read"
    );
    let runs: Vec<data::RunData> = args
        .runs
        .iter()
        .map(|name| data::load_run(dir, name, &dataset))
        .collect::<anyhow::Result<_>>()?;
    if args.export {
        export::check_inputs(dir, &args.runs)?;
    }
    let meta = results::Meta {
        resamples: args.bootstrap,
        seed: args.seed,
        created: results::now(),
    };

    let mut all_scores: Vec<Vec<Score>> = Vec::new();
    let mut outcome = Outcome::Success;
    for run in &runs {
        let rows = scores::score_run(&dataset, run, args.bootstrap, args.seed);
        if run.outcomes.is_empty() {
            tracing::warn!(run = %run.name, "no valid task has an execution in this run: nothing scored");
            outcome = Outcome::Lacking;
        }
        let path = data::run_dir(dir, &run.name).join("scores.parquet");
        schemas::write_table_to(&path, &rows)
            .with_context(|| format!("writing the scores of run `{}`", run.name))?;
        let run_rows = results::RunRows::read(dir, &run.name)?;
        let written = results::write(dir, &results::build(&dataset, run, &run_rows, &rows, &meta))?;
        tracing::info!(run = %run.name, path = %written.display(), "results written");
        if args.export {
            let [eval, lines] = export::write(dir, &dataset, run, &run_rows, &rows, &meta)?;
            tracing::info!(run = %run.name, eval = %eval.display(), samples = %lines.display(), "exported");
        }
        if let Some(s) = rows
            .iter()
            .find(|s| s.breakdown == Breakdown::Overall && s.k == 1)
        {
            tracing::info!(
                run = %run.name,
                tasks = s.tasks,
                pass_at_1 = format!("{:.4}", s.pass_at_k),
                ci = format!("[{:.4}, {:.4}]", s.ci_low, s.ci_high),
                path = %path.display(),
                "scored"
            );
        }
        all_scores.push(rows);
    }

    let families: Vec<Vec<scores::FamilyScores>> = runs
        .iter()
        .map(|run| scores::family_scores(&dataset, run, args.bootstrap, args.seed))
        .collect();
    let overall: Vec<Option<scores::GroupScore>> = all_scores
        .iter()
        .map(|rows| scores::GroupScore::from_rows(rows, Breakdown::Overall, "all"))
        .collect();
    let memorization: Vec<Option<scores::MemorizationGap>> = runs
        .iter()
        .map(|run| scores::memorization_gap(&dataset, run, args.bootstrap, args.seed))
        .collect();
    for (run, m) in runs.iter().zip(&memorization) {
        if let Some(m) = m {
            tracing::info!(
                run = %run.name,
                assertions = m.assertions,
                gap = format!("{:+.4}", m.gap.value),
                ci = format!("[{:+.4}, {:+.4}]", m.gap.low, m.gap.high),
                "memorization gap (assertion tasks: pass@1 original minus mutated)"
            );
        }
    }
    let summaries: Vec<summary::RunSummary> = runs
        .iter()
        .zip(&overall)
        .zip(&families)
        .zip(&memorization)
        .map(
            |(((data, overall), families), memorization)| summary::RunSummary {
                data,
                overall: overall.as_ref(),
                families,
                memorization: memorization.as_ref(),
            },
        )
        .collect();
    let summary_text = summary::render(&dataset, &summaries);

    let reports: Vec<report::RunReport> = runs
        .iter()
        .zip(&all_scores)
        .zip(&families)
        .zip(&memorization)
        .map(
            |(((data, scores), families), memorization)| report::RunReport {
                data,
                scores,
                families,
                gap: scores::window_gap(&dataset, data, args.bootstrap, args.seed),
                memorization: *memorization,
            },
        )
        .collect();
    let html = report::render(
        &dataset,
        &reports,
        &report::Meta {
            resamples: args.bootstrap,
            seed: args.seed,
        },
    );
    let path = args
        .report
        .clone()
        .unwrap_or_else(|| data::run_dir(dir, &args.runs[0]).join("report.html"));
    schemas::io::write_bytes_atomic(&path, html.as_bytes())
        .with_context(|| format!("writing the report {}", path.display()))?;
    let pages = pages::write(dir, &dataset, &runs, &path)
        .with_context(|| format!("writing the task pages beside {}", path.display()))?;
    tracing::info!(path = %path.display(), task_pages = pages, "report written");
    // The results, last: a closed pipe cannot keep the tables or the report from being written.
    std::io::stdout()
        .lock()
        .write_all(summary_text.as_bytes())?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoff_dates() {
        assert_eq!(
            parse_cutoff("2024-01-01").unwrap(),
            Timestamp::from_unix_seconds(1_704_067_200)
        );
        assert!(parse_cutoff("2024-02-29").is_ok());
        assert!(parse_cutoff("2023-02-29").is_err());
        assert!(parse_cutoff("2024-04-31").is_err());
        assert!(parse_cutoff("2024-13-01").is_err());
        assert!(parse_cutoff("yesterday").is_err());
        assert!(parse_cutoff("2024-06-30T12:00:00Z").is_ok());
    }
}
