//! Reading the tables: the valid tasks of the dataset with their groups, and each run's
//! samples per task: their outcomes, each sample's answer and verdict (for the task pages,
//! [`crate::pages`]) and what the answers cost ([`run_cost`]); and, for the task pages,
//! each task's prompt and reference ([`load_task_texts`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use schemas::{
    AnswerStatus, AssertionForm, AssertionTask, Candidate, CompletionTask, ExecStatus, Execution,
    Family, Fingerprint, FunctionClass, FunctionTask, Repo, Slice, SliceStatus, SpanKind, Table,
    Timestamp, Validation,
};

use crate::difficulty::{self, Figure};

/// Where the difficulty buckets come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DifficultySource {
    /// The `slices` table: ESV, MCL and DFI of the slices of status `ok`.
    Slices,
    /// No `slices` table: branch arcs and lines of the reference solution (function tasks).
    Proxy,
}

/// What an assertion task is, for its results by form and by program and the memorization
/// gap (`assertion_tasks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssertionInfo {
    /// The assertion (`group_id`): every task of one assertion shares it.
    pub group_id: String,
    /// `value` (predict the subject) or `verify` (does the shown assertion hold?).
    pub form: AssertionForm,
    /// The task's program is a mutated variant (else the original).
    pub mutated: bool,
}

impl AssertionInfo {
    /// `original` or `mutated`: the program the task is posed on.
    pub fn program(&self) -> &'static str {
        if self.mutated {
            "mutated"
        } else {
            "original"
        }
    }
}

/// ESV, MCL and DFI of a task's slice of status `ok`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figures {
    pub esv: i32,
    pub mcl: i64,
    pub dfi: i32,
}

impl Figures {
    /// The figures of a slice that measured its task: status `ok` and every figure set
    /// (they are null otherwise); `None` for any other slice.
    pub fn of(s: &Slice) -> Option<Figures> {
        if s.status != SliceStatus::Ok {
            return None;
        }
        Some(Figures {
            esv: s.esv?,
            mcl: s.mcl?,
            dfi: s.dfi?,
        })
    }

    /// One figure.
    pub fn get(self, figure: Figure) -> i64 {
        match figure {
            Figure::Esv => i64::from(self.esv),
            Figure::Mcl => self.mcl,
            Figure::Dfi => i64::from(self.dfi),
        }
    }

    /// The three, in [`Figure::ALL`] order, for ranking.
    pub fn values(self) -> [f64; 3] {
        Figure::ALL.map(|f| self.get(f) as f64)
    }
}

/// A valid task and the group it falls in for every breakdown.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskInfo {
    pub task_id: String,
    pub family: Family,
    /// The function class; `None` for tasks that are not function tasks.
    pub class: Option<FunctionClass>,
    /// The syntax level of the masked span (`completion_tasks.span_kind`); `None` for tasks
    /// that are not completion tasks.
    pub level: Option<SpanKind>,
    /// The assertion, form and program of an assertion task; `None` for tasks that are not
    /// assertion tasks.
    pub assertion: Option<AssertionInfo>,
    /// The repository's name (with its version or id where names collide).
    pub repo: String,
    /// The difficulty bucket (`low`, `medium`, `high`, `unknown` without a slice of status
    /// `ok`; `... (proxy)` from the proxy).
    pub difficulty: String,
    /// ESV, MCL and DFI of the task's slice when its status is `ok`; `None` without one (no
    /// slice, another status, no `slices` table).
    pub figures: Option<Figures>,
    /// The tertile of each figure on its own, in [`Figure::ALL`] order (`low`, `medium`,
    /// `high` among the valid tasks with a slice of status `ok`; `unknown` without one);
    /// `None` without a `slices` table (the proxy has no such buckets).
    pub figure_buckets: Option<[&'static str; 3]>,
    /// `before_cutoff`, `after_cutoff` or `unknown`, by the task's code date; `None` without
    /// `--cutoff`.
    pub window: Option<String>,
    /// The quarter of the task's code date (`2026Q2`), or `unknown`.
    pub quarter: String,
}

/// The calendar quarter of a time, `YYYYQn`.
pub fn quarter_of(t: Timestamp) -> String {
    let d = t.date_string();
    let month: u32 = d[5..7].parse().unwrap_or(1);
    format!("{}Q{}", &d[..4], (month - 1) / 3 + 1)
}

/// The valid tasks of a dataset.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Valid tasks, by id.
    pub tasks: Vec<TaskInfo>,
    /// Tasks validated but not valid (excluded everywhere).
    pub invalid: usize,
    pub difficulty_source: DifficultySource,
    /// With a `slices` table: the valid tasks per status of their slice (`ok`, `timeout`,
    /// `too_large`, `untraceable`; `no slice` without a row; `ok without figures` for an
    /// `ok` row missing a figure). Empty without the table.
    pub slice_statuses: BTreeMap<String, usize>,
    /// The cutoff as given.
    pub cutoff: Option<String>,
}

impl TaskInfo {
    /// The task's tertile of one figure; `None` without a `slices` table.
    pub fn figure_bucket(&self, figure: Figure) -> Option<&'static str> {
        self.figure_buckets.map(|b| b[figure as usize])
    }
}

/// The samples of one task in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outcome {
    /// Samples executed.
    pub n: u32,
    /// Of them, passed.
    pub c: u32,
}

/// One run: its samples per valid task, and what did not count.
#[derive(Debug, Clone)]
pub struct RunData {
    pub name: String,
    /// The model spec(s) of its candidates.
    pub model: String,
    /// Valid tasks with at least one execution, by id.
    pub outcomes: BTreeMap<String, Outcome>,
    /// Valid tasks without any execution row (not scored).
    pub missing_tasks: usize,
    /// Samples of valid tasks with a candidate but no execution row (not scored).
    pub missing_samples: usize,
    /// Execution rows of tasks that are not valid or unknown (not scored).
    pub ignored_executions: usize,
    /// Execution rows repeating a (task, sample) already seen (the first one counts).
    pub duplicate_executions: usize,
    /// Samples the harness could not judge (status `infra`): not scored, judged again by a
    /// rerun of `execute --run`.
    pub infra_samples: usize,
    /// Samples per status, over the scored samples.
    pub statuses: BTreeMap<String, usize>,
    /// Failed samples per fingerprint (`none` when a failure has none), over the scored samples.
    pub fingerprints: BTreeMap<String, usize>,
    /// Every sample of each valid task, by task id and in sample order: the answer and its
    /// verdict (for the task pages).
    pub samples: BTreeMap<String, Vec<SampleRecord>>,
    /// What the run's answers took ([`run_cost`]).
    pub spend: Spend,
}

/// One sample of a valid task in a run: the model's answer and how it was judged. The
/// execution row is the one that counts (the first of a repeated sample); a candidate
/// without an execution has no status, an execution without a candidate no answer.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRecord {
    pub sample: i32,
    /// The cleaned answer (`candidates.answer`).
    pub answer: Option<String>,
    /// Why the model could not be asked (`candidates.error` of an answer of status `error`).
    pub error: Option<String>,
    /// The execution's status; `None` when the sample was not executed.
    pub status: Option<ExecStatus>,
    pub fingerprint: Option<Fingerprint>,
    /// The first failure's message (`executions.detail`).
    pub detail: Option<String>,
    /// Cases (or tests) passed and run.
    pub cases: (i32, i32),
}

impl SampleRecord {
    /// A scored sample that did not pass (executed, status neither `pass` nor `infra`).
    pub fn failed(&self) -> bool {
        self.status
            .is_some_and(|s| s != ExecStatus::Pass && !s.is_infra())
    }
}

/// What a run's answers took, summed over its candidates of valid tasks (one row per task
/// and sample, the first; answers to tasks that are not valid are not counted, so that the
/// cost per solved task is over the tasks scored).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spend {
    /// Answers counted.
    pub answers: usize,
    /// Prompt tokens of the answers that report them; `None` when none does.
    pub tokens_in: Option<i64>,
    /// Completion tokens of the answers that report them; `None` when none does.
    pub tokens_out: Option<i64>,
    /// The cost of the answers that have one (`candidates.cost`, in the price table's
    /// currency); `None` when none has.
    pub cost: Option<f64>,
    /// Answers with a cost: fewer than `answers` makes `cost` a lower bound.
    pub priced: usize,
}

impl Spend {
    /// Sums the candidates of valid tasks, each (task, sample) once.
    fn of<'a>(
        candidates: impl IntoIterator<Item = &'a Candidate>,
        valid: &BTreeSet<&str>,
    ) -> Spend {
        let add = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
        let mut seen: BTreeSet<(&str, i32)> = BTreeSet::new();
        let mut out = Spend::default();
        for c in candidates {
            if !valid.contains(c.task_id.as_str()) || !seen.insert((c.task_id.as_str(), c.sample)) {
                continue;
            }
            out.answers += 1;
            out.tokens_in = add(out.tokens_in, c.tokens_in);
            out.tokens_out = add(out.tokens_out, c.tokens_out);
            if let Some(cost) = c.cost {
                out.cost = Some(out.cost.unwrap_or(0.0) + cost);
                out.priced += 1;
            }
        }
        out
    }
}

/// A run's tokens and cost, and its cost per solved task: what `results.json` and the
/// report's summary show ([`run_cost`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunCost {
    /// Prompt tokens, summed over the answers that report them; `None` when none does.
    pub tokens_in: Option<i64>,
    /// Completion tokens, likewise.
    pub tokens_out: Option<i64>,
    /// Total cost in the price table's currency over the answers that have one; `None`
    /// when none has (no price given, or no token counts reported).
    pub cost: Option<f64>,
    /// Answers counted (candidates of valid tasks, one per task and sample).
    pub answers: usize,
    /// Of them, with a cost; fewer than `answers` makes `cost` a lower bound.
    pub priced: usize,
    /// Valid tasks with at least one passing sample.
    pub solved_tasks: usize,
    /// `cost / solved_tasks`; `None` when the cost is unknown or no task was solved.
    pub cost_per_solved: Option<f64>,
}

/// The tokens, cost and cost per solved task of a run: sums over its answers to valid
/// tasks ([`Spend`]), and the tasks with at least one passing sample.
pub fn run_cost(run: &RunData) -> RunCost {
    let s = run.spend;
    let solved_tasks = run.outcomes.values().filter(|o| o.c > 0).count();
    RunCost {
        tokens_in: s.tokens_in,
        tokens_out: s.tokens_out,
        cost: s.cost,
        answers: s.answers,
        priced: s.priced,
        solved_tasks,
        cost_per_solved: s
            .cost
            .filter(|_| solved_tasks > 0)
            .map(|c| c / solved_tasks as f64),
    }
}

/// A run's folder: `DIR/runs/NAME`.
pub fn run_dir(data: &Path, run: &str) -> PathBuf {
    data.join("runs").join(run)
}

/// Reads the dataset's valid tasks and sorts them into groups.
pub fn load_dataset(dir: &Path, cutoff: Option<(&str, Timestamp)>) -> anyhow::Result<Dataset> {
    let validations: Vec<Validation> = schemas::read_table(dir)
        .context("reading the validations (`execute` checks every task before it is scored)")?;
    let repos: Vec<Repo> = schemas::read_table(dir).context("reading the repositories")?;

    // The task tables: function tasks are required unless another family's table exists.
    let has_completion = schemas::table_exists::<CompletionTask>(dir);
    let has_assertion = schemas::table_exists::<AssertionTask>(dir);
    let function_tasks: Vec<FunctionTask> =
        if schemas::table_exists::<FunctionTask>(dir) || !(has_completion || has_assertion) {
            schemas::read_table(dir).context("reading the function tasks")?
        } else {
            Vec::new()
        };
    let completion_tasks: Vec<CompletionTask> = if has_completion {
        schemas::read_table(dir).context("reading the completion tasks")?
    } else {
        Vec::new()
    };
    let assertion_tasks: Vec<AssertionTask> = if has_assertion {
        schemas::read_table(dir).context("reading the assertion tasks")?
    } else {
        Vec::new()
    };
    let slices: Option<Vec<Slice>> = if schemas::table_exists::<Slice>(dir) {
        Some(schemas::read_table(dir).context("reading the slices (difficulty)")?)
    } else {
        None
    };

    // Valid tasks; a task validated twice is valid only if every row says so.
    let mut valid: BTreeMap<&str, (bool, Family)> = BTreeMap::new();
    for v in &validations {
        let e = valid.entry(v.task_id.as_str()).or_insert((true, v.family));
        e.0 &= v.valid;
    }
    let invalid = valid.values().filter(|(ok, _)| !ok).count();

    let functions: HashMap<&str, &FunctionTask> = function_tasks
        .iter()
        .map(|t| (t.task_id.as_str(), t))
        .collect();
    let mut repo_of: HashMap<&str, &str> = HashMap::new();
    // When each task's code was first published (its function's code date, not the
    // release's): the window and the contamination curve go by it.
    let mut code_date_of: HashMap<&str, Timestamp> = HashMap::new();
    for t in &function_tasks {
        repo_of.insert(&t.task_id, &t.repo_id);
        if let Some(d) = t.code_date {
            code_date_of.insert(&t.task_id, d);
        }
    }
    let levels: HashMap<&str, SpanKind> = completion_tasks
        .iter()
        .map(|t| (t.task_id.as_str(), t.span_kind))
        .collect();
    for t in &completion_tasks {
        repo_of.insert(&t.task_id, &t.repo_id);
        if let Some(d) = t.code_date {
            code_date_of.insert(&t.task_id, d);
        }
    }
    let assertions: HashMap<&str, AssertionInfo> = assertion_tasks
        .iter()
        .map(|t| {
            (
                t.task_id.as_str(),
                AssertionInfo {
                    group_id: t.group_id.clone(),
                    form: t.form,
                    mutated: t.mutated,
                },
            )
        })
        .collect();
    for t in &assertion_tasks {
        repo_of.insert(&t.task_id, &t.repo_id);
        if let Some(d) = t.code_date {
            code_date_of.insert(&t.task_id, d);
        }
    }
    let repos_by_id: HashMap<&str, &Repo> = repos.iter().map(|r| (r.repo_id.as_str(), r)).collect();

    let ids: Vec<&str> = valid
        .iter()
        .filter(|(_, (ok, _))| *ok)
        .map(|(id, _)| *id)
        .collect();
    let used_repos: BTreeSet<&str> = ids
        .iter()
        .filter_map(|id| repo_of.get(id).copied())
        .collect();
    let repo_names = repo_names(&used_repos, &repos_by_id);

    let (difficulty, source) = match &slices {
        Some(slices) => (
            with_proxy_where_unsliced(&ids, by_slices(&ids, slices), &functions),
            DifficultySource::Slices,
        ),
        None => (
            by_proxy(&ids, &functions)
                .into_iter()
                .map(|bucket| Difficulty {
                    bucket,
                    figures: None,
                    figure_buckets: None,
                })
                .collect(),
            DifficultySource::Proxy,
        ),
    };
    let slice_statuses = slices
        .as_deref()
        .map(|s| slice_statuses(&ids, s))
        .unwrap_or_default();

    let tasks = ids
        .iter()
        .zip(difficulty)
        .map(|(&id, difficulty)| {
            let repo_id = repo_of.get(id).copied();
            let code_date = code_date_of.get(id).copied();
            let window = cutoff.map(|(_, at)| match code_date {
                Some(p) if p > at => "after_cutoff".to_string(),
                Some(_) => "before_cutoff".to_string(),
                None => "unknown".to_string(),
            });
            TaskInfo {
                task_id: id.to_string(),
                family: valid[id].1,
                class: functions.get(id).map(|t| t.class),
                level: levels.get(id).copied(),
                assertion: assertions.get(id).cloned(),
                repo: repo_id.map_or_else(
                    || "(unknown repository)".to_string(),
                    |r| repo_names[r].clone(),
                ),
                difficulty: difficulty.bucket,
                figures: difficulty.figures,
                figure_buckets: difficulty.figure_buckets,
                window,
                quarter: code_date.map_or_else(|| "unknown".to_string(), quarter_of),
            }
        })
        .collect();
    Ok(Dataset {
        tasks,
        invalid,
        difficulty_source: source,
        slice_statuses,
        cutoff: cutoff.map(|(text, _)| text.to_string()),
    })
}

/// Display names of repositories: the name, with the version (or the id's start) added
/// where two repositories share it.
fn repo_names<'a>(
    used: &BTreeSet<&'a str>,
    repos: &HashMap<&str, &Repo>,
) -> HashMap<&'a str, String> {
    let mut by_name: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for &id in used {
        let name = repos.get(id).map_or(id, |r| r.name.as_str());
        by_name.entry(name).or_default().push(id);
    }
    let mut out = HashMap::new();
    for (name, ids) in by_name {
        for &id in &ids {
            let label = if ids.len() == 1 {
                name.to_string()
            } else {
                match repos.get(id).and_then(|r| r.version.as_deref()) {
                    Some(v)
                        if ids
                            .iter()
                            .filter(|o| {
                                repos.get(**o).and_then(|r| r.version.as_deref()) == Some(v)
                            })
                            .count()
                            == 1 =>
                    {
                        format!("{name} {v}")
                    }
                    _ => format!("{name} ({})", &id[..id.len().min(8)]),
                }
            };
            out.insert(id, label);
        }
    }
    out
}

/// A task's difficulty: its bucket, and from the slices its figures and their tertiles.
struct Difficulty {
    bucket: String,
    figures: Option<Figures>,
    figure_buckets: Option<[&'static str; 3]>,
}

/// The slice of each task (the last row of a task counts, should it have several).
fn slice_of(slices: &[Slice]) -> HashMap<&str, &Slice> {
    slices.iter().map(|s| (s.task_id.as_str(), s)).collect()
}

/// Buckets from the slices: tertiles of the mean normalized rank of ESV, MCL and DFI among
/// the valid tasks whose slice has status `ok` (the others are `unknown`: no slice, or one
/// that timed out, was too large or could not be traced), and the tertiles of each figure
/// on its own among the same tasks.
fn by_slices(ids: &[&str], slices: &[Slice]) -> Vec<Difficulty> {
    let of = slice_of(slices);
    let measured: Vec<(usize, Figures)> = ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| of.get(id).and_then(|s| Figures::of(s)).map(|f| (i, f)))
        .collect();
    let figures: Vec<Vec<f64>> = Figure::ALL
        .iter()
        .map(|&f| measured.iter().map(|(_, m)| m.get(f) as f64).collect())
        .collect();
    let combined = bucket(ids.len(), &measured, &figures, "");
    let mut out: Vec<Difficulty> = combined
        .into_iter()
        .map(|bucket| Difficulty {
            bucket,
            figures: None,
            figure_buckets: Some([difficulty::UNKNOWN; 3]),
        })
        .collect();
    let tertiles: Vec<Vec<usize>> = figures.iter().map(|v| difficulty::tertiles(v)).collect();
    for (m, (i, f)) in measured.iter().enumerate() {
        out[*i].figures = Some(*f);
        out[*i].figure_buckets = Some([0, 1, 2].map(|j| difficulty::BUCKETS[tertiles[j][m]]));
    }
    out
}

/// The combined bucket of function tasks without an `ok` slice from the proxy (tertiles
/// among those tasks, named `... (proxy)`), so that a task the tracer could not measure is
/// still placed, visibly by another measure; other families stay `unknown`.
fn with_proxy_where_unsliced(
    ids: &[&str],
    mut buckets: Vec<Difficulty>,
    functions: &HashMap<&str, &FunctionTask>,
) -> Vec<Difficulty> {
    let unsliced: Vec<usize> = (0..ids.len())
        .filter(|&i| buckets[i].figures.is_none() && functions.contains_key(ids[i]))
        .collect();
    if unsliced.is_empty() {
        return buckets;
    }
    let sub: Vec<&str> = unsliced.iter().map(|&i| ids[i]).collect();
    for (i, bucket) in unsliced.into_iter().zip(by_proxy(&sub, functions)) {
        buckets[i].bucket = bucket;
    }
    buckets
}

/// The valid tasks per status of their slice ([`Dataset::slice_statuses`]).
fn slice_statuses(ids: &[&str], slices: &[Slice]) -> BTreeMap<String, usize> {
    let of = slice_of(slices);
    let mut out = BTreeMap::new();
    for id in ids {
        let key = match of.get(id) {
            None => "no slice",
            Some(s) if s.status == SliceStatus::Ok && Figures::of(s).is_none() => {
                "ok without figures"
            }
            Some(s) => s.status.as_str(),
        };
        *out.entry(key.to_string()).or_default() += 1;
    }
    out
}

/// Buckets from the proxy: tertiles of the mean normalized rank of branch arcs and
/// non-blank lines of the reference solution among the valid function tasks; the others
/// are `unknown (proxy)`.
fn by_proxy(ids: &[&str], functions: &HashMap<&str, &FunctionTask>) -> Vec<String> {
    let measured: Vec<(usize, &FunctionTask)> = ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| functions.get(id).map(|t| (i, *t)))
        .collect();
    let figures = vec![
        measured
            .iter()
            .map(|(_, t)| f64::from(t.branches_total))
            .collect(),
        measured
            .iter()
            .map(|(_, t)| difficulty::code_lines(&t.canonical_solution) as f64)
            .collect(),
    ];
    bucket(ids.len(), &measured, &figures, " (proxy)")
}

fn bucket<T>(
    len: usize,
    measured: &[(usize, T)],
    figures: &[Vec<f64>],
    suffix: &str,
) -> Vec<String> {
    let mut out = vec![format!("unknown{suffix}"); len];
    let tertiles = difficulty::tertiles(&difficulty::combined(figures));
    for ((i, _), t) in measured.iter().zip(tertiles) {
        out[*i] = format!("{}{suffix}", difficulty::BUCKETS[t]);
    }
    out
}

/// Reads one run's executions (and candidates, for the model and unexecuted samples).
pub fn load_run(dir: &Path, name: &str, dataset: &Dataset) -> anyhow::Result<RunData> {
    let rdir = run_dir(dir, name);
    let todo = || {
        format!(
            "run `solve --data {d} --run {name}` and then `execute --data {d} --run {name}` first",
            d = dir.display()
        )
    };
    if !rdir.is_dir() {
        anyhow::bail!("{}: no such run folder; {}", rdir.display(), todo());
    }
    let epath = rdir.join(format!("{}.parquet", Execution::NAME));
    if !epath.is_file() {
        anyhow::bail!("{}: the run has no executions; {}", epath.display(), todo());
    }
    let executions: Vec<Execution> = schemas::read_table_from(&epath)
        .with_context(|| format!("reading the executions of run `{name}`"))?;
    let cpath = rdir.join(format!("{}.parquet", Candidate::NAME));
    let candidates: Option<Vec<Candidate>> = if cpath.is_file() {
        Some(
            schemas::read_table_from(&cpath)
                .with_context(|| format!("reading the candidates of run `{name}`"))?,
        )
    } else {
        tracing::warn!(run = name, path = %cpath.display(), "no candidates table: the model is unknown");
        None
    };

    let valid: BTreeSet<&str> = dataset.tasks.iter().map(|t| t.task_id.as_str()).collect();
    let mut seen: BTreeSet<(&str, i32)> = BTreeSet::new();
    let mut outcomes: BTreeMap<String, Outcome> = BTreeMap::new();
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    let mut fingerprints: BTreeMap<String, usize> = BTreeMap::new();
    let (mut ignored, mut duplicates, mut infra) = (0, 0, 0);
    let mut kept: Vec<&Execution> = Vec::new();
    for e in &executions {
        if e.run != name {
            tracing::warn!(run = name, found = %e.run, task = %e.task_id, "an execution row names another run; counted for this run's folder");
        }
        if !valid.contains(e.task_id.as_str()) {
            ignored += 1;
            continue;
        }
        if !seen.insert((e.task_id.as_str(), e.sample)) {
            duplicates += 1;
            continue;
        }
        kept.push(e);
        *statuses.entry(e.status.as_str().to_string()).or_default() += 1;
        if e.status.is_infra() {
            // The harness failed, not the model: neither passed nor failed.
            infra += 1;
            continue;
        }
        let o = outcomes.entry(e.task_id.clone()).or_default();
        o.n += 1;
        let pass = e.status == ExecStatus::Pass;
        o.c += u32::from(pass);
        if !pass {
            let f = e.fingerprint.map_or("none", Fingerprint::as_str);
            *fingerprints.entry(f.to_string()).or_default() += 1;
        }
    }
    let missing_tasks = valid.len() - outcomes.len();
    let mut missing_samples = 0;
    let model = match &candidates {
        Some(cands) => {
            let mut asked: BTreeSet<(&str, i32)> = BTreeSet::new();
            for c in cands {
                if valid.contains(c.task_id.as_str())
                    && !seen.contains(&(c.task_id.as_str(), c.sample))
                    && asked.insert((c.task_id.as_str(), c.sample))
                {
                    missing_samples += 1;
                }
            }
            let models: BTreeSet<&str> = cands.iter().map(|c| c.model.as_str()).collect();
            if models.is_empty() {
                "unknown (no candidates)".to_string()
            } else {
                models.into_iter().collect::<Vec<_>>().join(", ")
            }
        }
        None => "unknown (no candidates table)".to_string(),
    };
    if missing_tasks > 0 {
        tracing::warn!(
            run = name,
            missing = missing_tasks,
            valid = valid.len(),
            "valid tasks without any execution are not scored (neither passed nor failed); \
             run `solve` and `execute --run {name}` on them to complete the run"
        );
    }
    if missing_samples > 0 {
        tracing::warn!(
            run = name,
            samples = missing_samples,
            "candidates without an execution are not scored; rerun `execute --run {name}` to complete them"
        );
    }
    if ignored > 0 {
        tracing::info!(
            run = name,
            rows = ignored,
            "executions of tasks that are not valid (or unknown) are ignored"
        );
    }
    if duplicates > 0 {
        tracing::warn!(
            run = name,
            rows = duplicates,
            "repeated executions of a task's sample: the first row counts"
        );
    }
    if infra > 0 {
        tracing::warn!(
            run = name,
            samples = infra,
            "samples the harness could not judge (infra) are not scored; rerun `execute --run {name}` to judge them"
        );
    }
    let cands = candidates.as_deref().unwrap_or_default();
    Ok(RunData {
        name: name.to_string(),
        model,
        outcomes,
        missing_tasks,
        missing_samples,
        ignored_executions: ignored,
        duplicate_executions: duplicates,
        infra_samples: infra,
        statuses,
        fingerprints,
        samples: samples_of(&kept, cands, &valid),
        spend: Spend::of(cands, &valid),
    })
}

/// Every sample of each valid task: the executions that count (`kept`: valid, the first of
/// a repeated sample) joined with the first candidate row of the same task and sample.
fn samples_of(
    kept: &[&Execution],
    candidates: &[Candidate],
    valid: &BTreeSet<&str>,
) -> BTreeMap<String, Vec<SampleRecord>> {
    let mut by: BTreeMap<(&str, i32), SampleRecord> = BTreeMap::new();
    for c in candidates {
        if !valid.contains(c.task_id.as_str()) {
            continue;
        }
        by.entry((c.task_id.as_str(), c.sample))
            .or_insert_with(|| SampleRecord {
                sample: c.sample,
                answer: c.answer.clone(),
                error: (c.status == AnswerStatus::Error)
                    .then(|| c.error.clone().unwrap_or_else(|| "no answer".into())),
                status: None,
                fingerprint: None,
                detail: None,
                cases: (0, 0),
            });
    }
    for e in kept {
        let r = by
            .entry((e.task_id.as_str(), e.sample))
            .or_insert_with(|| SampleRecord {
                sample: e.sample,
                answer: None,
                error: None,
                status: None,
                fingerprint: None,
                detail: None,
                cases: (0, 0),
            });
        r.status = Some(e.status);
        r.fingerprint = e.fingerprint;
        r.detail.clone_from(&e.detail);
        r.cases = (e.cases_passed, e.cases_total);
    }
    let mut out: BTreeMap<String, Vec<SampleRecord>> = BTreeMap::new();
    for ((task, _), r) in by {
        out.entry(task.to_string()).or_default().push(r);
    }
    out
}

/// What a task page shows of a task: what the model was shown and the reference answer.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskText {
    /// The prompt: a function task's `prompt` (imports, signature, docstring); the text
    /// before the mask of a completion task; an assertion task's `test_source` (the test with
    /// its assertion masked).
    pub prompt: String,
    /// Completion tasks: the mask and the text after it.
    pub masked: Option<Masked>,
    /// The reference answer: a function task's `canonical_solution`, a completion task's
    /// masked text (`reference`), an assertion task's recorded `answer`.
    pub reference: String,
    /// What the reference is: `reference solution`, `masked text`, `recorded answer`.
    pub reference_label: &'static str,
    /// Facts of the task, as `(name, value)`: the entry point, the file and lines, the form,
    /// the claim, the mutation.
    pub facts: Vec<(&'static str, String)>,
}

/// The mask of a completion task: what it stands for, and the text after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Masked {
    /// The span's syntax level (`expression`, `statement`, ...).
    pub kind: String,
    /// The text after the mask (`suffix`).
    pub suffix: String,
}

fn function_text(t: &FunctionTask) -> TaskText {
    TaskText {
        prompt: t.prompt.clone(),
        masked: None,
        reference: t.canonical_solution.clone(),
        reference_label: "reference solution",
        facts: vec![
            ("entry point", t.entry_point.clone()),
            ("class", t.class.as_str().to_string()),
        ],
    }
}

fn completion_text(t: &CompletionTask) -> TaskText {
    TaskText {
        prompt: t.prefix.clone(),
        masked: Some(Masked {
            kind: t.span_kind.as_str().to_string(),
            suffix: t.suffix.clone(),
        }),
        reference: t.reference.clone(),
        reference_label: "masked text",
        facts: vec![
            ("file", t.path.clone()),
            (
                "masked lines",
                if t.start_line == t.end_line {
                    t.start_line.to_string()
                } else {
                    format!("{}–{}", t.start_line, t.end_line)
                },
            ),
            ("level", t.span_kind.as_str().to_string()),
        ],
    }
}

fn assertion_text(t: &AssertionTask) -> TaskText {
    let mut facts = vec![
        ("test", t.test_node_id.clone()),
        ("line", t.line.to_string()),
        ("form", t.form.as_str().to_string()),
        ("subject", t.subject.clone()),
        ("masked assertion", t.masked_assertion.clone()),
    ];
    if let Some(claim) = &t.claim {
        facts.push(("claim", claim.clone()));
    }
    facts.push((
        "program",
        t.mutation
            .as_ref()
            .map_or_else(|| "original".to_string(), |m| format!("mutated: {m}")),
    ));
    TaskText {
        prompt: t.test_source.clone(),
        masked: None,
        reference: t.answer.clone(),
        reference_label: "recorded answer",
        facts,
    }
}

/// The prompt and reference of the tasks `ids`, from the task tables of `dir` that exist
/// (`function_tasks`, `completion_tasks`, `assertion_tasks`); a task in none is left out.
pub fn load_task_texts(
    dir: &Path,
    ids: &BTreeSet<&str>,
) -> anyhow::Result<BTreeMap<String, TaskText>> {
    let mut out = BTreeMap::new();
    if schemas::table_exists::<FunctionTask>(dir) {
        let tasks: Vec<FunctionTask> =
            schemas::read_table(dir).context("reading the function tasks (their prompts)")?;
        for t in tasks.iter().filter(|t| ids.contains(t.task_id.as_str())) {
            out.insert(t.task_id.clone(), function_text(t));
        }
    }
    if schemas::table_exists::<CompletionTask>(dir) {
        let tasks: Vec<CompletionTask> =
            schemas::read_table(dir).context("reading the completion tasks (their text)")?;
        for t in tasks.iter().filter(|t| ids.contains(t.task_id.as_str())) {
            out.insert(t.task_id.clone(), completion_text(t));
        }
    }
    if schemas::table_exists::<AssertionTask>(dir) {
        let tasks: Vec<AssertionTask> =
            schemas::read_table(dir).context("reading the assertion tasks (their tests)")?;
        for t in tasks.iter().filter(|t| ids.contains(t.task_id.as_str())) {
            out.insert(t.task_id.clone(), assertion_text(t));
        }
    }
    Ok(out)
}

/// A run with the given (task, samples, correct) outcomes and nothing else, for tests.
#[cfg(test)]
pub fn test_run(name: &str, model: &str, outcomes: &[(&str, u32, u32)]) -> RunData {
    RunData {
        name: name.into(),
        model: model.into(),
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
        samples: BTreeMap::new(),
        spend: Spend::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemas::examples;

    /// An `ok` slice of a function task with these figures.
    fn ok(id: &str, esv: i32, mcl: i64, dfi: i32) -> Slice {
        Slice {
            esv: Some(esv),
            mcl: Some(mcl),
            dfi: Some(dfi),
            ..examples::slice(id, Family::Function)
        }
    }

    /// A slice of another status: no figures.
    fn failed(id: &str, status: SliceStatus) -> Slice {
        examples::unmeasured_slice(id, Family::Function, status)
    }

    #[test]
    fn only_ok_slices_are_measured() {
        let ids = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let slices = vec![
            // ESV rises from a to f, MCL falls, DFI ties but for f.
            ok("a", 1, 60, 2),
            ok("b", 2, 50, 2),
            ok("c", 3, 40, 2),
            ok("d", 4, 30, 2),
            ok("e", 5, 20, 2),
            ok("f", 6, 10, 9),
            failed("g", SliceStatus::Timeout),
            // An `ok` row without its figures does not measure the task either.
            Slice {
                mcl: None,
                ..ok("h", 100, 100, 100)
            },
        ];
        let d = by_slices(&ids, &slices);
        let buckets: Vec<[&str; 3]> = d.iter().map(|d| d.figure_buckets.unwrap()).collect();
        assert_eq!(
            buckets,
            [
                ["low", "high", "low"],
                ["low", "high", "low"],
                ["medium", "medium", "low"],
                ["medium", "medium", "low"],
                ["high", "low", "low"],
                ["high", "low", "high"],
                ["unknown", "unknown", "unknown"],
                ["unknown", "unknown", "unknown"],
            ]
        );
        // The combined: ESV and MCL cancel out, so DFI decides: f alone is high.
        let combined: Vec<&str> = d.iter().map(|d| d.bucket.as_str()).collect();
        assert_eq!(
            combined,
            ["low", "low", "low", "low", "low", "high", "unknown", "unknown"]
        );
        assert_eq!(
            d[0].figures,
            Some(Figures {
                esv: 1,
                mcl: 60,
                dfi: 2
            })
        );
        assert_eq!(d[6].figures, None);
        assert_eq!(d[7].figures, None);
        let statuses = slice_statuses(&[&ids[..], &["z"]].concat(), &slices);
        let statuses: Vec<(&str, usize)> = statuses.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            statuses,
            [
                ("no slice", 1),
                ("ok", 6),
                ("ok without figures", 1),
                ("timeout", 1)
            ]
        );
    }

    #[test]
    fn function_tasks_without_a_slice_get_the_proxy() {
        let ids = ["a", "b", "g", "x"];
        let slices = vec![
            ok("a", 1, 60, 2),
            ok("b", 2, 50, 2),
            failed("g", SliceStatus::Timeout),
        ];
        let tasks: Vec<FunctionTask> = ["a", "b", "g"]
            .iter()
            .map(|id| examples::function_task(id, "r"))
            .collect();
        let functions: HashMap<&str, &FunctionTask> =
            tasks.iter().map(|t| (t.task_id.as_str(), t)).collect();
        let d = with_proxy_where_unsliced(&ids, by_slices(&ids, &slices), &functions);
        let buckets: Vec<&str> = d.iter().map(|d| d.bucket.as_str()).collect();
        // a and b by their slices; g (a function task whose trace timed out) by the proxy,
        // named so; x (no function task: another family) unknown.
        assert!(!buckets[0].contains("proxy") && !buckets[1].contains("proxy"));
        assert!(buckets[2].ends_with("(proxy)"), "{buckets:?}");
        assert_eq!(buckets[3], "unknown");
    }

    fn candidate(task: &str, sample: i32, tokens: Option<i64>, cost: Option<f64>) -> Candidate {
        Candidate {
            run: "r".into(),
            task_id: task.into(),
            family: Family::Function,
            sample,
            model: "m".into(),
            prompt_hash: "h".into(),
            answer: Some(format!("answer {task} {sample}")),
            raw: None,
            status: AnswerStatus::Ok,
            error: None,
            tokens_in: tokens,
            tokens_out: tokens.map(|t| t / 10),
            latency_ms: 1.0,
            cost,
            input_hash: "h".into(),
        }
    }

    #[test]
    fn the_cost_of_a_run_and_per_solved_task() {
        let valid: BTreeSet<&str> = ["a", "b", "c"].into_iter().collect();
        let cands = vec![
            candidate("a", 0, Some(100), Some(0.5)),
            candidate("a", 1, Some(300), Some(0.25)),
            // A repeated row counts once; an invalid task's not at all.
            candidate("a", 1, Some(300), Some(0.25)),
            candidate("x", 0, Some(1000), Some(9.0)),
            // No token counts and no price.
            candidate("b", 0, None, None),
            candidate("c", 0, Some(50), Some(0.25)),
        ];
        let spend = Spend::of(&cands, &valid);
        assert_eq!(
            spend,
            Spend {
                answers: 4,
                tokens_in: Some(450),
                tokens_out: Some(45),
                cost: Some(1.0),
                priced: 3,
            }
        );
        let mut run = test_run("r", "m", &[("a", 2, 1), ("b", 1, 0), ("c", 1, 1)]);
        run.spend = spend;
        let c = run_cost(&run);
        assert_eq!(
            (c.solved_tasks, c.cost, c.priced, c.answers),
            (2, Some(1.0), 3, 4)
        );
        assert_eq!(c.cost_per_solved, Some(0.5));
        // Nothing solved: no cost per solved task.
        run.outcomes.values_mut().for_each(|o| o.c = 0);
        assert_eq!(run_cost(&run).cost_per_solved, None);
        // Nothing priced, nothing counted: unknown, not zero.
        let none = Spend::of(&[candidate("a", 0, None, None)], &valid);
        assert_eq!((none.tokens_in, none.cost, none.priced), (None, None, 0));
        run.spend = none;
        run.outcomes.values_mut().for_each(|o| o.c = 1);
        let c = run_cost(&run);
        assert_eq!((c.cost, c.cost_per_solved, c.solved_tasks), (None, None, 3));
    }

    fn execution(task: &str, sample: i32, status: ExecStatus) -> Execution {
        Execution {
            run: "r".into(),
            task_id: task.into(),
            sample,
            status,
            cases_passed: i32::from(status == ExecStatus::Pass),
            cases_total: 1,
            seconds: 0.1,
            fingerprint: (status == ExecStatus::Fail).then_some(Fingerprint::Logic),
            detail: (status == ExecStatus::Fail).then(|| "case 0: ...".to_string()),
            isolation: "namespaces".parse().unwrap(),
            reference_seconds: None,
            time_limit_seconds: None,
            time_factor: None,
            time_floor_seconds: None,
            input_hash: "h".into(),
        }
    }

    #[test]
    fn samples_join_answers_and_verdicts() {
        let valid: BTreeSet<&str> = ["a", "b"].into_iter().collect();
        let execs = [
            execution("a", 1, ExecStatus::Fail),
            execution("a", 0, ExecStatus::Pass),
            // An execution without a candidate.
            execution("b", 3, ExecStatus::Infra),
        ];
        let kept: Vec<&Execution> = execs.iter().collect();
        let mut cands = vec![
            candidate("a", 0, None, None),
            candidate("a", 1, None, None),
            // Not executed; and one whose model could not be asked.
            candidate("a", 2, None, None),
            Candidate {
                status: AnswerStatus::Error,
                answer: None,
                error: Some("HTTP 500".into()),
                ..candidate("b", 0, None, None)
            },
            candidate("x", 0, None, None),
        ];
        cands.push(Candidate {
            answer: Some("a later row".into()),
            ..candidate("a", 0, None, None)
        });
        let samples = samples_of(&kept, &cands, &valid);
        assert_eq!(samples.keys().collect::<Vec<_>>(), ["a", "b"]);
        let a = &samples["a"];
        assert_eq!(a.iter().map(|s| s.sample).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(a[0].answer.as_deref(), Some("answer a 0"));
        assert_eq!(a[0].status, Some(ExecStatus::Pass));
        assert!(!a[0].failed() && a[1].failed() && !a[2].failed());
        assert_eq!(a[1].fingerprint, Some(Fingerprint::Logic));
        assert_eq!(a[1].detail.as_deref(), Some("case 0: ..."));
        assert_eq!((a[1].cases, a[2].status), ((0, 1), None));
        let b = &samples["b"];
        assert_eq!(b[0].error.as_deref(), Some("HTTP 500"));
        assert_eq!((b[1].sample, b[1].answer.as_deref()), (3, None));
        // infra: the harness failed, not the model.
        assert!(!b[1].failed());
    }

    #[test]
    fn figures_of_a_slice() {
        let f = Figures::of(&ok("a", 3, 7, 2)).unwrap();
        assert_eq!(f.values().to_vec(), vec![3.0, 7.0, 2.0]);
        assert_eq!(f.get(Figure::Mcl), 7);
        for status in [
            SliceStatus::Timeout,
            SliceStatus::TooLarge,
            SliceStatus::Untraceable,
        ] {
            assert_eq!(Figures::of(&failed("a", status)), None);
            // Figures on a row that is not `ok` do not count.
            assert_eq!(
                Figures::of(&Slice {
                    status,
                    ..ok("a", 3, 7, 2)
                }),
                None
            );
        }
    }
}
