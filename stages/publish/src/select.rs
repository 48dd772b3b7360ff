//! What goes into a snapshot: the valid tasks of repositories whose license is allowed,
//! and the rows of the other tables that belong to them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use anyhow::Context as _;
use schemas::{
    AssertionTask, CompletionTask, FunctionTask, Repo, Slice, Table, TestCase, Validation,
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
    Ok(Input {
        repos,
        function_tasks,
        test_cases,
        validations,
        completion_tasks,
        assertion_tasks,
        slices: optional::<Slice>(dir)?,
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
    pub excluded: Vec<ExcludedRepo>,
    pub selection: Selection,
    /// Tasks published per repository id.
    pub tasks_per_repo: BTreeMap<String, usize>,
    /// The licenses each published repository's code is redistributed under (the allowed
    /// alternatives of its expression).
    pub granted: BTreeMap<String, Vec<String>>,
}

/// Picks the rows to publish: tasks that are `ok` (function tasks) and `valid`, of
/// repositories whose license the policy allows; their cases, validations and slices; the
/// repositories that have at least one. Rows keep their order in the input tables.
pub fn select(input: &Input, policy: &Policy) -> Published {
    let valid: HashSet<&str> = input
        .validations
        .iter()
        .filter(|v| v.valid)
        .map(|v| v.task_id.as_str())
        .collect();
    let mut sel = Selection::default();

    // (task id, repo id) of every valid task, all families.
    let mut candidates: Vec<(&str, &str)> = Vec::new();
    for t in &input.function_tasks {
        sel.tasks_read += 1;
        if t.status != schemas::TaskStatus::Ok {
            sel.tasks_rejected += 1;
        } else if valid.contains(t.task_id.as_str()) {
            candidates.push((&t.task_id, &t.repo_id));
        } else {
            sel.tasks_not_valid += 1;
        }
    }
    let others = input
        .completion_tasks
        .iter()
        .flatten()
        .map(|t| (t.task_id.as_str(), t.repo_id.as_str()))
        .chain(
            input
                .assertion_tasks
                .iter()
                .flatten()
                .map(|t| (t.task_id.as_str(), t.repo_id.as_str())),
        );
    for (task, repo) in others {
        sel.tasks_read += 1;
        if valid.contains(task) {
            candidates.push((task, repo));
        } else {
            sel.tasks_not_valid += 1;
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
    let function_tasks: Vec<FunctionTask> = input
        .function_tasks
        .iter()
        .filter(|t| keep(&t.task_id))
        .cloned()
        .collect();
    let out_repos: Vec<Repo> = input
        .repos
        .iter()
        .filter(|r| per_repo.contains_key(&r.repo_id))
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
        completion_tasks: input
            .completion_tasks
            .iter()
            .flatten()
            .filter(|t| keep(&t.task_id))
            .cloned()
            .collect(),
        assertion_tasks: input
            .assertion_tasks
            .iter()
            .flatten()
            .filter(|t| keep(&t.task_id))
            .cloned()
            .collect(),
        slices: input
            .slices
            .iter()
            .flatten()
            .filter(|s| keep(&s.task_id))
            .cloned()
            .collect(),
        excluded,
        selection: sel,
        tasks_per_repo: per_repo,
        granted,
    }
}
