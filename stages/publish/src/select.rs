//! What goes into a snapshot: the valid tasks of repositories whose license is allowed
//! (and, with `--cutoff`, whose code is newer than it), and the rows of the other tables
//! that belong to them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use anyhow::Context as _;
use schemas::{
    AssertionTask, CodeDateSource, CompletionTask, File, FunctionTask, Repo, Slice, Table,
    TestCase, Timestamp, Validation,
};
use serde::Serialize;

use crate::license::{parse, Policy, Verdict};

/// The tables read from the dataset directory (optional ones `None` when absent).
#[derive(Debug, Clone, Default)]
pub struct Input {
    pub repos: Vec<Repo>,
    pub function_tasks: Vec<FunctionTask>,
    pub test_cases: Vec<TestCase>,
    pub validations: Vec<Validation>,
    pub completion_tasks: Option<Vec<CompletionTask>>,
    pub assertion_tasks: Option<Vec<AssertionTask>>,
    pub slices: Option<Vec<Slice>>,
    /// The repositories' files (`files`, crawl's), read only when there are completion or
    /// assertion tasks: they are what a completion task is made from and judged in, and
    /// the program an assertion task's test runs in. `None` when there are none or the
    /// table is absent.
    pub files: Option<Vec<File>>,
}

fn optional<T: Table>(dir: &Path) -> anyhow::Result<Option<Vec<T>>> {
    if !schemas::table_exists::<T>(dir) {
        return Ok(None);
    }
    let rows = schemas::read_table::<T>(dir).with_context(|| format!("reading `{}`", T::NAME))?;
    Ok(Some(rows))
}

/// Reads the tables a snapshot is made from. `validations` is required: only tasks checked
/// by running them are published.
pub fn load(dir: &Path) -> anyhow::Result<Input> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{}: no such dataset directory; give the --data DIR the earlier stages wrote",
            dir.display()
        );
    }
    if !schemas::table_exists::<Validation>(dir) {
        anyhow::bail!(
            "{}: no validations; run `execute --data {} --validate` first (only tasks \
             checked by running them are published)",
            schemas::table_path::<Validation>(dir).display(),
            dir.display()
        );
    }
    let validations = schemas::read_table(dir).context("reading `validations`")?;
    let repos = schemas::read_table(dir).context("reading `repos`")?;
    let completion_tasks = optional::<CompletionTask>(dir)?;
    let assertion_tasks = optional::<AssertionTask>(dir)?;
    let other_families = completion_tasks.is_some() || assertion_tasks.is_some();
    let (function_tasks, test_cases) =
        if schemas::table_exists::<FunctionTask>(dir) || !other_families {
            (
                schemas::read_table(dir).context("reading `function_tasks`")?,
                schemas::read_table(dir).context("reading `test_cases`")?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
    let judged_in_a_tree = completion_tasks.as_ref().is_some_and(|t| !t.is_empty())
        || assertion_tasks.as_ref().is_some_and(|t| !t.is_empty());
    let files = if judged_in_a_tree {
        optional::<File>(dir)?
    } else {
        None
    };
    Ok(Input {
        repos,
        function_tasks,
        test_cases,
        validations,
        completion_tasks,
        assertion_tasks,
        slices: optional::<Slice>(dir)?,
        files,
    })
}

/// A repository whose tasks were left out for its license.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ExcludedRepo {
    pub repo_id: String,
    /// Null when the tasks name a repository missing from `repos`.
    pub name: Option<String>,
    pub version: Option<String>,
    pub license: Option<String>,
    pub reason: String,
    /// Valid tasks (all families) left out with it.
    pub tasks_left_out: usize,
}

/// How the tasks fared, for the log and the manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Selection {
    /// Tasks of every family read.
    pub tasks_read: usize,
    /// Function tasks that synthesize-tests rejected (status other than `ok`).
    pub tasks_rejected: usize,
    /// Tasks without a validation row, or validated as not valid.
    pub tasks_not_valid: usize,
    /// Valid tasks of repositories whose license is not allowed.
    pub tasks_excluded_by_license: usize,
    /// Valid tasks whose code is not known to be newer than the cutoff, left out (or kept,
    /// marked `after_cutoff = false`, with `--include-old`).
    #[serde(default)]
    pub tasks_old: usize,
    /// Whether the old tasks were kept (`--include-old`).
    #[serde(default)]
    pub include_old: bool,
    /// Tasks published.
    pub tasks_published: usize,
}

/// The snapshot's rows.
#[derive(Debug, Clone, Default)]
pub struct Published {
    pub repos: Vec<Repo>,
    pub function_tasks: Vec<FunctionTask>,
    pub test_cases: Vec<TestCase>,
    pub validations: Vec<Validation>,
    pub completion_tasks: Vec<CompletionTask>,
    pub assertion_tasks: Vec<AssertionTask>,
    pub slices: Vec<Slice>,
    /// The `files` rows of the repositories with a published completion or assertion task
    /// (all of a repository's rows: its tests need the whole tree), in input order; empty
    /// when the input has none.
    pub files: Vec<File>,
    pub excluded: Vec<ExcludedRepo>,
    pub selection: Selection,
    /// Tasks published per repository id.
    pub tasks_per_repo: BTreeMap<String, usize>,
    /// The licenses each published repository's code is redistributed under (the allowed
    /// alternatives of its expression).
    pub granted: BTreeMap<String, Vec<String>>,
}

/// Which tasks' code is new enough: with a cutoff, a task is new when its code date is
/// after it and known from the repository's history (`release_history`, `git_history`); a
/// date that is only the release's (`release_date`) is an upper bound and proves nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freshness {
    pub cutoff: Timestamp,
    /// Keep the old tasks too (marked `after_cutoff = false`).
    pub include_old: bool,
}

impl Freshness {
    /// Whether code of this date and source is newer than the cutoff.
    pub fn is_new(&self, date: Option<Timestamp>, source: Option<CodeDateSource>) -> bool {
        matches!(
            source,
            Some(CodeDateSource::ReleaseHistory | CodeDateSource::GitHistory)
        ) && date.is_some_and(|d| d > self.cutoff)
    }
}

/// Picks the rows to publish: tasks that are `ok` (function tasks) and `valid`, of
/// repositories whose license the policy allows, and (with `fresh`) whose code is newer
/// than the cutoff; their cases, validations and slices; the repositories that have at
/// least one. Rows keep their order in the input tables; with `fresh`, the tasks'
/// `after_cutoff` says how they stand against its cutoff.
pub fn select(input: &Input, policy: &Policy, fresh: Option<Freshness>) -> Published {
    let valid: HashSet<&str> = input
        .validations
        .iter()
        .filter(|v| v.valid)
        .map(|v| v.task_id.as_str())
        .collect();
    let mut sel = Selection::default();

    // Whether a task's code is new enough (always, without a cutoff).
    let new_enough = |date, source| fresh.is_none_or(|f| f.is_new(date, source));
    let include_old = fresh.is_some_and(|f| f.include_old);
    sel.include_old = include_old;
    // (task id, repo id) of every valid task, all families, new enough unless old ones are
    // kept.
    let mut candidates: Vec<(&str, &str)> = Vec::new();
    let admit = |sel: &mut Selection, new: bool| -> bool {
        if !new {
            sel.tasks_old += 1;
        }
        new || include_old
    };
    for t in &input.function_tasks {
        sel.tasks_read += 1;
        if t.status != schemas::TaskStatus::Ok {
            sel.tasks_rejected += 1;
        } else if !valid.contains(t.task_id.as_str()) {
            sel.tasks_not_valid += 1;
        } else if admit(&mut sel, new_enough(t.code_date, t.code_date_source)) {
            candidates.push((&t.task_id, &t.repo_id));
        }
    }
    let others = input
        .completion_tasks
        .iter()
        .flatten()
        .map(|t| {
            (
                t.task_id.as_str(),
                t.repo_id.as_str(),
                t.code_date,
                t.code_date_source,
            )
        })
        .chain(input.assertion_tasks.iter().flatten().map(|t| {
            (
                t.task_id.as_str(),
                t.repo_id.as_str(),
                t.code_date,
                t.code_date_source,
            )
        }));
    for (task, repo, date, source) in others {
        sel.tasks_read += 1;
        if !valid.contains(task) {
            sel.tasks_not_valid += 1;
        } else if admit(&mut sel, new_enough(date, source)) {
            candidates.push((task, repo));
        }
    }

    let repos: HashMap<&str, &Repo> = input
        .repos
        .iter()
        .map(|r| (r.repo_id.as_str(), r))
        .collect();
    let mut verdicts: HashMap<&str, Verdict> = HashMap::new();
    let mut published: HashSet<&str> = HashSet::new();
    let mut left_out: BTreeMap<&str, usize> = BTreeMap::new();
    let mut per_repo: BTreeMap<String, usize> = BTreeMap::new();
    for (task, repo_id) in candidates {
        let verdict = verdicts
            .entry(repo_id)
            .or_insert_with(|| match repos.get(repo_id) {
                Some(r) => policy.judge(r.license.as_deref()),
                None => Verdict::Refused("the repository is not in `repos`".into()),
            });
        if *verdict == Verdict::Allowed {
            published.insert(task);
            *per_repo.entry(repo_id.to_string()).or_default() += 1;
        } else {
            *left_out.entry(repo_id).or_default() += 1;
        }
    }
    sel.tasks_published = published.len();
    sel.tasks_excluded_by_license = left_out.values().sum();

    let mut excluded: Vec<ExcludedRepo> = left_out
        .iter()
        .map(|(repo_id, n)| {
            let repo = repos.get(repo_id);
            let reason = match verdicts.get(repo_id) {
                Some(Verdict::Refused(r)) => r.clone(),
                _ => String::new(),
            };
            ExcludedRepo {
                repo_id: (*repo_id).to_string(),
                name: repo.map(|r| r.name.clone()),
                version: repo.and_then(|r| r.version.clone()),
                license: repo.and_then(|r| r.license.clone()),
                reason,
                tasks_left_out: *n,
            }
        })
        .collect();
    excluded
        .sort_by(|a, b| (&a.name, &a.version, &a.repo_id).cmp(&(&b.name, &b.version, &b.repo_id)));

    let keep = |id: &str| published.contains(id);
    // The mark of each task against the cutoff in force.
    let mark = |date, source, own: Option<bool>| match fresh {
        Some(f) => Some(f.is_new(date, source)),
        None => own,
    };
    let function_tasks: Vec<FunctionTask> = input
        .function_tasks
        .iter()
        .filter(|t| keep(&t.task_id))
        .map(|t| FunctionTask {
            after_cutoff: mark(t.code_date, t.code_date_source, t.after_cutoff),
            ..t.clone()
        })
        .collect();
    let out_repos: Vec<Repo> = input
        .repos
        .iter()
        .filter(|r| per_repo.contains_key(&r.repo_id))
        .cloned()
        .collect();
    let completion_tasks: Vec<CompletionTask> = input
        .completion_tasks
        .iter()
        .flatten()
        .filter(|t| keep(&t.task_id))
        .map(|t| CompletionTask {
            after_cutoff: mark(t.code_date, t.code_date_source, t.after_cutoff),
            ..t.clone()
        })
        .collect();
    let assertion_tasks: Vec<AssertionTask> = input
        .assertion_tasks
        .iter()
        .flatten()
        .filter(|t| keep(&t.task_id))
        .map(|t| AssertionTask {
            after_cutoff: mark(t.code_date, t.code_date_source, t.after_cutoff),
            ..t.clone()
        })
        .collect();
    // The repositories whose tree the published tasks are judged in.
    let tree_repos: HashSet<&str> = completion_tasks
        .iter()
        .map(|t| t.repo_id.as_str())
        .chain(assertion_tasks.iter().map(|t| t.repo_id.as_str()))
        .collect();
    let files: Vec<File> = input
        .files
        .iter()
        .flatten()
        .filter(|f| tree_repos.contains(f.repo_id.as_str()))
        .cloned()
        .collect();
    let granted = out_repos
        .iter()
        .map(|r| {
            let ids = r
                .license
                .as_deref()
                .and_then(|l| parse(l).ok())
                .map(|e| policy.granted(&e))
                .unwrap_or_default();
            (r.repo_id.clone(), ids)
        })
        .collect();
    Published {
        repos: out_repos,
        test_cases: input
            .test_cases
            .iter()
            .filter(|c| keep(&c.task_id))
            .cloned()
            .collect(),
        function_tasks,
        validations: input
            .validations
            .iter()
            .filter(|v| keep(&v.task_id))
            .cloned()
            .collect(),
        completion_tasks,
        assertion_tasks,
        slices: input
            .slices
            .iter()
            .flatten()
            .filter(|s| keep(&s.task_id))
            .cloned()
            .collect(),
        files,
        excluded,
        selection: sel,
        tasks_per_repo: per_repo,
        granted,
    }
}
