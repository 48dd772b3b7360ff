//! The tasks to solve: read from the family tables, filtered by status and validation,
//! selected (`--task`, `--limit`) and sharded (`--shard i/n`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Context as _;
use schemas::{FunctionTask, TaskStatus, Validation};

/// A task family (only `function` has tasks to solve so far; `completion` and `assertion`
/// join here, and in [`crate::prompt`], when their tables are written).
pub use schemas::Family;

/// What every solver needs of a task, whatever its family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub task_id: String,
    pub family: Family,
    /// What the model gets (for `function`: imports, signature and docstring).
    pub prompt: String,
    /// The name the answer must define.
    pub entry_point: String,
    /// The reference solution.
    pub canonical_solution: String,
}

impl From<&FunctionTask> for Task {
    fn from(t: &FunctionTask) -> Self {
        Task {
            task_id: t.task_id.clone(),
            family: Family::Function,
            prompt: t.prompt.clone(),
            entry_point: t.entry_point.clone(),
            canonical_solution: t.canonical_solution.clone(),
        }
    }
}

/// `--shard i/n`: the tasks whose index (in task id order) mod n is i-1.
pub use schemas::cli::Shard;

/// Which tasks to take.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Solve tasks although `validations` is missing.
    pub unvalidated: bool,
    /// Only these task ids (empty: all).
    pub tasks: Vec<String>,
    /// At most this many (after `tasks`, before sharding, so the shards of a limited run
    /// together hold the same tasks as the unsharded run).
    pub limit: Option<usize>,
    pub shard: Option<Shard>,
}

/// The tasks to solve, in task id order: `function_tasks` rows with status `ok` and, when
/// `validations` exists, `valid = true` there.
pub fn load(dir: &Path, sel: &Selection) -> anyhow::Result<Vec<Task>> {
    let rows: Vec<FunctionTask> =
        schemas::read_table(dir).context("reading the function tasks of synthesize-tests")?;
    let validity: Option<BTreeMap<String, (bool, Option<String>)>> = if schemas::table_exists::<
        Validation,
    >(dir)
    {
        let v: Vec<Validation> = schemas::read_table(dir)
            .context("reading the validations of the tasks (execute --validate)")?;
        Some(
            v.into_iter()
                .map(|v| (v.task_id, (v.valid, v.reason)))
                .collect(),
        )
    } else if sel.unvalidated {
        tracing::warn!("no validations table: solving every ok task, valid or not (--unvalidated)");
        None
    } else {
        anyhow::bail!(
                "{}: no validations; run `execute --data {} --validate` first so that only valid tasks are solved, or pass --unvalidated to solve every ok task",
                schemas::table_path::<Validation>(dir).display(),
                dir.display()
            );
    };
    select(&rows, validity.as_ref(), sel)
}

/// [`load`] without the reading.
pub fn select(
    rows: &[FunctionTask],
    validity: Option<&BTreeMap<String, (bool, Option<String>)>>,
    sel: &Selection,
) -> anyhow::Result<Vec<Task>> {
    let why_not = |t: &FunctionTask| -> Option<String> {
        if t.status != TaskStatus::Ok {
            return Some(format!(
                "its status is `{}` ({})",
                t.status,
                t.reason.as_deref().unwrap_or("no reason")
            ));
        }
        match validity.map(|v| v.get(&t.task_id)) {
            None | Some(Some((true, _))) => None,
            Some(None) => Some("it has no row in validations".into()),
            Some(Some((false, reason))) => Some(format!(
                "it is not valid ({})",
                reason.as_deref().unwrap_or("no reason")
            )),
        }
    };
    let mut tasks: Vec<Task> = rows
        .iter()
        .filter(|t| why_not(t).is_none())
        .map(Task::from)
        .collect();
    tasks.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    tasks.dedup_by(|a, b| a.task_id == b.task_id);

    if !sel.tasks.is_empty() {
        let wanted: BTreeSet<&str> = sel.tasks.iter().map(String::as_str).collect();
        for id in &wanted {
            if !tasks.iter().any(|t| t.task_id == *id) {
                match rows.iter().find(|t| t.task_id == *id) {
                    Some(t) => anyhow::bail!(
                        "--task {id}: not solved because {}; pick another task",
                        why_not(t).unwrap_or_default()
                    ),
                    None => anyhow::bail!(
                        "--task {id}: no such task in function_tasks; give a task_id of that table"
                    ),
                }
            }
        }
        tasks.retain(|t| wanted.contains(t.task_id.as_str()));
    }
    if let Some(limit) = sel.limit {
        tasks.truncate(limit);
    }
    if let Some(shard) = sel.shard {
        tasks = tasks
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.holds(*i))
            .map(|(_, t)| t)
            .collect();
    }
    Ok(tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, status: &str) -> FunctionTask {
        FunctionTask {
            prompt: format!("def f{id}():\n    \"\"\"Doc.\"\"\"\n"),
            entry_point: format!("f{id}"),
            canonical_solution: format!("def f{id}():\n    \"\"\"Doc.\"\"\"\n    return 1\n"),
            status: status.parse().unwrap(),
            reason: (status != "ok").then(|| "coverage: 3 of 4 arcs".into()),
            cases: 1,
            arcs_covered: 1,
            arcs_total: 1,
            mutants_total: 0,
            mutants_killed: 0,
            mutation_score: None,
            held_out_mutation_score: None,
            calls: 1,
            search_seconds: 0.0,
            seconds: 0.0,
            config_hash: "c".into(),
            ..schemas::examples::function_task(id, "r")
        }
    }

    fn ids(tasks: &[Task]) -> Vec<&str> {
        tasks.iter().map(|t| t.task_id.as_str()).collect()
    }

    #[test]
    fn shards_parse() {
        assert_eq!("2/8".parse(), Ok(Shard { index: 2, count: 8 }));
        assert!("0/8".parse::<Shard>().is_err());
        assert!("9/8".parse::<Shard>().is_err());
        assert!("1".parse::<Shard>().is_err());
        assert!("a/b".parse::<Shard>().is_err());
    }

    #[test]
    fn ok_and_valid_tasks_in_id_order() {
        let rows = vec![
            row("c", "ok"),
            row("a", "ok"),
            row("b", "rejected"),
            row("d", "ok"),
        ];
        let all = select(&rows, None, &Selection::default()).unwrap();
        assert_eq!(ids(&all), ["a", "c", "d"]);
        let validity: BTreeMap<_, _> = [
            ("a".to_string(), (true, None)),
            ("c".to_string(), (false, Some("null passes".to_string()))),
        ]
        .into_iter()
        .collect();
        let valid = select(&rows, Some(&validity), &Selection::default()).unwrap();
        assert_eq!(ids(&valid), ["a"]);
        let err = select(
            &rows,
            Some(&validity),
            &Selection {
                tasks: vec!["c".into()],
                ..Selection::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("not valid (null passes)"), "{err}");
        let err = select(
            &rows,
            None,
            &Selection {
                tasks: vec!["zz".into()],
                ..Selection::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("no such task"), "{err}");
    }

    #[test]
    fn shards_partition_the_limited_selection() {
        let rows: Vec<FunctionTask> = (0..10).map(|i| row(&format!("t{i}"), "ok")).collect();
        let sel = |shard| Selection {
            limit: Some(7),
            shard,
            ..Selection::default()
        };
        let whole = ids(&select(&rows, None, &sel(None)).unwrap())
            .into_iter()
            .map(str::to_string)
            .collect::<BTreeSet<_>>();
        assert_eq!(whole.len(), 7);
        let mut union = BTreeSet::new();
        for index in 1..=3 {
            let part = select(&rows, None, &sel(Some(Shard { index, count: 3 }))).unwrap();
            for t in part {
                assert!(union.insert(t.task_id), "a task in two shards");
            }
        }
        assert_eq!(union, whole);
        let first = select(&rows, None, &sel(Some(Shard { index: 1, count: 3 }))).unwrap();
        assert_eq!(ids(&first), ["t0", "t3", "t6"]);
    }
}
