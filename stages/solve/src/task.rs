//! The tasks to solve: read from the family tables (`function_tasks`, `completion_tasks`,
//! `assertion_tasks`), filtered by status and validation, selected (`--family`, `--task`,
//! `--tasks FILE` ([`read_ids`]), `--limit`) and sharded (`--shard i/n`). The order is
//! task id order whatever the tables' row order, so `--limit N` takes the same N tasks on
//! every run (task ids are content hashes).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Context as _;
use schemas::{
    AssertionForm, AssertionKind, AssertionTask, CompletionTask, ContextSnippet, FunctionTask,
    SpanKind, TaskStatus, Validation,
};

/// A task family: `function`, `completion` and `assertion` all have tasks to solve.
pub use schemas::Family;

/// What every solver needs of a task, whatever its family.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub task_id: String,
    pub family: Family,
    /// What the model gets (for `function`: imports, signature and docstring; for
    /// `completion`: the file with [`MASK`] where the span is, see [`Completion::marked`];
    /// for `assertion`: the test as shown, [`Assertion::test_source`]).
    pub prompt: String,
    /// The name the answer must define (empty for `completion` and `assertion`).
    pub entry_point: String,
    /// The reference solution (for `completion`: the masked text; for `assertion`: the
    /// oracle answer, `assertion_tasks.answer`).
    pub canonical_solution: String,
    /// The masked file of a `completion` task (`None` for other families).
    pub completion: Option<Completion>,
    /// The test and code of an `assertion` task (`None` for other families).
    pub assertion: Option<Assertion>,
}

/// The marker of the masked span in [`Task::prompt`] of completion tasks (chat prompts pick
/// their own marker, one the file does not hold).
pub const MASK: &str = "<MASK>";

/// A `completion` task's file: the text before and after the masked span, and the context.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The file's path in its repository.
    pub path: String,
    pub span_kind: SpanKind,
    pub prefix: String,
    pub suffix: String,
    /// The indentation of the span's first line.
    pub indent: String,
    /// Cross-file context, best first.
    pub context: Vec<ContextSnippet>,
}

impl Completion {
    /// The file with `marker` in place of the span.
    pub fn marked(&self, marker: &str) -> String {
        format!("{}{marker}{}", self.prefix, self.suffix)
    }
}

/// An `assertion` task's test and the code it runs (`assertion_tasks`), what prompts and
/// the reference solvers need of it. The oracle answer is [`Task::canonical_solution`].
#[derive(Debug, Clone, PartialEq)]
pub struct Assertion {
    /// The test file's path in its repository.
    pub path: String,
    /// `value` (predict the subject's value) or `verify` (does the assertion shown hold?).
    pub form: AssertionForm,
    /// What the subject is compared with (`raises`: the answer is an exception type's name).
    pub kind: AssertionKind,
    /// The expression whose value is asked for (`raises`: the block's first line).
    pub subject: String,
    /// The test function after the test file's imports, `masked_assertion` in place of the
    /// real assertion (holding [`VALUE_MARK`] in the value form).
    pub test_source: String,
    /// The assertion as shown: the expected value replaced by [`VALUE_MARK`] (value form) or
    /// by the claim (verify form).
    pub masked_assertion: String,
    /// Repository code the test runs, best first (mutated on a mutated task).
    pub code_context: Vec<ContextSnippet>,
    /// The task's program is a mutated variant (never shown to a model).
    pub mutated: bool,
    /// Verify form: the claimed value as Python text (it is in `masked_assertion`).
    pub claim: Option<String>,
    /// The subject's value on the original program (a tagged value, JSON): what a model that
    /// memorized the repository answers ([`crate::reference::memorized_answer`]); never shown.
    pub original_json: String,
}

/// Where the expected value was removed in an assertion task's test (value form).
pub const VALUE_MARK: &str = "??";

impl Task {
    /// The sha256 hex of what defines the task's prompt: for `function` the prompt text, for
    /// `completion` the path, span level, indentation, prefix, suffix and context, for
    /// `assertion` the path, form, kind, subject, test, masked assertion (holding the claim
    /// of the verify form) and code context (the reference solvers' `prompt_hash`, and part
    /// of `input_hash`).
    pub fn prompt_digest(&self) -> String {
        if let Some(a) = &self.assertion {
            return a.digest();
        }
        let Some(c) = &self.completion else {
            return crate::solver::sha256_hex(&self.prompt);
        };
        let mut parts: Vec<Vec<u8>> = vec![
            b"completion/1".to_vec(),
            c.path.as_bytes().to_vec(),
            c.span_kind.as_str().as_bytes().to_vec(),
            c.indent.as_bytes().to_vec(),
            c.prefix.as_bytes().to_vec(),
            c.suffix.as_bytes().to_vec(),
        ];
        snippet_parts(&mut parts, &c.context);
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        hex::encode(crate::solver::hash_parts(&refs))
    }
}

fn snippet_parts(parts: &mut Vec<Vec<u8>>, context: &[ContextSnippet]) {
    for s in context {
        parts.push(s.path.as_bytes().to_vec());
        parts.push(s.text.as_bytes().to_vec());
        parts.push(s.score.to_bits().to_le_bytes().to_vec());
    }
}

impl Assertion {
    fn digest(&self) -> String {
        let mut parts: Vec<Vec<u8>> = vec![
            b"assertion/1".to_vec(),
            self.path.as_bytes().to_vec(),
            self.form.as_str().as_bytes().to_vec(),
            self.kind.as_str().as_bytes().to_vec(),
            self.subject.as_bytes().to_vec(),
            self.test_source.as_bytes().to_vec(),
            self.masked_assertion.as_bytes().to_vec(),
        ];
        snippet_parts(&mut parts, &self.code_context);
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        hex::encode(crate::solver::hash_parts(&refs))
    }
}

impl From<&FunctionTask> for Task {
    fn from(t: &FunctionTask) -> Self {
        Task {
            task_id: t.task_id.clone(),
            family: Family::Function,
            prompt: t.prompt.clone(),
            entry_point: t.entry_point.clone(),
            canonical_solution: t.canonical_solution.clone(),
            completion: None,
            assertion: None,
        }
    }
}

impl From<&CompletionTask> for Task {
    fn from(t: &CompletionTask) -> Self {
        let completion = Completion {
            path: t.path.clone(),
            span_kind: t.span_kind,
            prefix: t.prefix.clone(),
            suffix: t.suffix.clone(),
            indent: t.indent.clone(),
            context: t.context.clone(),
        };
        Task {
            task_id: t.task_id.clone(),
            family: Family::Completion,
            prompt: completion.marked(MASK),
            entry_point: String::new(),
            canonical_solution: t.reference.clone(),
            completion: Some(completion),
            assertion: None,
        }
    }
}

impl From<&AssertionTask> for Task {
    fn from(t: &AssertionTask) -> Self {
        Task {
            task_id: t.task_id.clone(),
            family: Family::Assertion,
            prompt: t.test_source.clone(),
            entry_point: String::new(),
            canonical_solution: t.answer.clone(),
            completion: None,
            assertion: Some(Assertion {
                path: t.path.clone(),
                form: t.form,
                kind: t.kind,
                subject: t.subject.clone(),
                test_source: t.test_source.clone(),
                masked_assertion: t.masked_assertion.clone(),
                code_context: t.code_context.clone(),
                mutated: t.mutated,
                claim: t.claim.clone(),
                original_json: t.original_json.clone(),
            }),
        }
    }
}

/// `--shard i/n`: the tasks whose index (in task id order) mod n is i-1.
pub use schemas::cli::Shard;

/// `--family`: which task tables are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Families {
    /// `function_tasks` only.
    Function,
    /// `completion_tasks` only.
    Completion,
    /// `assertion_tasks` only.
    Assertion,
    /// Every family table there is.
    #[default]
    All,
}

impl Families {
    pub fn holds(self, family: Family) -> bool {
        match self {
            Families::Function => family == Family::Function,
            Families::Completion => family == Family::Completion,
            Families::Assertion => family == Family::Assertion,
            Families::All => true,
        }
    }

    /// The single family selected (`None` for `all`).
    pub fn single(self) -> Option<Family> {
        match self {
            Families::Function => Some(Family::Function),
            Families::Completion => Some(Family::Completion),
            Families::Assertion => Some(Family::Assertion),
            Families::All => None,
        }
    }

    /// The task tables read, for messages.
    fn tables(self) -> &'static str {
        match self {
            Families::All => "function_tasks, completion_tasks, assertion_tasks",
            Families::Function => "function_tasks only, as --family function says",
            Families::Completion => "completion_tasks only, as --family completion says",
            Families::Assertion => "assertion_tasks only, as --family assertion says",
        }
    }
}

/// Which tasks to take.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The families to read.
    pub families: Families,
    /// Solve tasks although `validations` is missing.
    pub unvalidated: bool,
    /// Only these task ids (empty: all).
    pub tasks: Vec<String>,
    /// At most this many (after `tasks`, before sharding, so the shards of a limited run
    /// together hold the same tasks as the unsharded run).
    pub limit: Option<usize>,
    pub shard: Option<Shard>,
}

/// Validity by (family, task id): `valid` and the reason.
pub type Validity = BTreeMap<(Family, String), (bool, Option<String>)>;

/// A task as read, with why it is not solved whatever the validations say (its status).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub task: Task,
    /// `Some(reason)` when the task's own status rules it out.
    pub unusable: Option<String>,
}

impl From<&FunctionTask> for Row {
    fn from(t: &FunctionTask) -> Row {
        Row {
            task: Task::from(t),
            unusable: (t.status != TaskStatus::Ok).then(|| {
                format!(
                    "its status is `{}` ({})",
                    t.status,
                    t.reason.as_deref().unwrap_or("no reason")
                )
            }),
        }
    }
}

impl From<&CompletionTask> for Row {
    fn from(t: &CompletionTask) -> Row {
        // mask writes only usable tasks: validation alone decides.
        Row {
            task: Task::from(t),
            unusable: None,
        }
    }
}

impl From<&AssertionTask> for Row {
    fn from(t: &AssertionTask) -> Row {
        // mask writes only usable tasks: validation alone decides.
        Row {
            task: Task::from(t),
            unusable: None,
        }
    }
}

/// The tasks to solve, in task id order: `function_tasks` rows with status `ok`,
/// `completion_tasks` and `assertion_tasks` rows (each table when `--family` takes it and,
/// for `all`, when it is there) that, when `validations` exists, are `valid = true` there (a
/// row of the task's family).
pub fn load(dir: &Path, sel: &Selection) -> anyhow::Result<Vec<Task>> {
    let mut rows: Vec<Row> = Vec::new();
    let has_function = schemas::table_exists::<FunctionTask>(dir);
    let has_completion = schemas::table_exists::<CompletionTask>(dir);
    let has_assertion = schemas::table_exists::<AssertionTask>(dir);
    // A family's table is read when it is there, or when it is the one family asked for
    // (then reading it says who writes it). `all` needs one of the tables: with none, the
    // function table is asked for (the one every dataset starts with).
    let read = |family: Family, has: bool| {
        sel.families.holds(family)
            && (has
                || sel.families.single() == Some(family)
                || (family == Family::Function && !has_completion && !has_assertion))
    };
    if read(Family::Function, has_function) {
        let f: Vec<FunctionTask> =
            schemas::read_table(dir).context("reading the function tasks of synthesize-tests")?;
        rows.extend(f.iter().map(Row::from));
    }
    if read(Family::Completion, has_completion) {
        let c: Vec<CompletionTask> =
            schemas::read_table(dir).context("reading the completion tasks of mask")?;
        rows.extend(c.iter().map(Row::from));
    }
    if read(Family::Assertion, has_assertion) {
        let a: Vec<AssertionTask> =
            schemas::read_table(dir).context("reading the assertion tasks of mask")?;
        rows.extend(a.iter().map(Row::from));
    }
    let validity: Option<Validity> = if schemas::table_exists::<Validation>(dir) {
        let v: Vec<Validation> = schemas::read_table(dir)
            .context("reading the validations of the tasks (execute --validate)")?;
        Some(
            v.into_iter()
                .map(|v| ((v.family, v.task_id), (v.valid, v.reason)))
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
    select_rows(&rows, validity.as_ref(), sel)
}

/// The task ids of a `--tasks` file: one a line, blanks around an id ignored, and so are
/// blank lines and `#` comments (whole lines, or after an id). A file that cannot be read
/// or lists no id is an error saying so.
pub fn read_ids(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        anyhow::anyhow!(
            "--tasks {}: cannot read it ({e}); give a file of task ids, one a line",
            path.display()
        )
    })?;
    let ids: Vec<String> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    if ids.is_empty() {
        anyhow::bail!(
            "--tasks {}: no task id in it (only blank lines and `#` comments); put one task id a line, or leave --tasks out to solve every task",
            path.display()
        );
    }
    Ok(ids)
}

/// [`load`] without the reading, for function tasks.
pub fn select(
    rows: &[FunctionTask],
    validity: Option<&Validity>,
    sel: &Selection,
) -> anyhow::Result<Vec<Task>> {
    let rows: Vec<Row> = rows.iter().map(Row::from).collect();
    select_rows(&rows, validity, sel)
}

/// [`load`] without the reading.
pub fn select_rows(
    rows: &[Row],
    validity: Option<&Validity>,
    sel: &Selection,
) -> anyhow::Result<Vec<Task>> {
    let why_not = |r: &Row| -> Option<String> {
        if let Some(why) = &r.unusable {
            return Some(why.clone());
        }
        let key = (r.task.family, r.task.task_id.clone());
        match validity.map(|v| v.get(&key)) {
            None | Some(Some((true, _))) => None,
            Some(None) => Some(format!(
                "it has no row of family `{}` in validations",
                r.task.family
            )),
            Some(Some((false, reason))) => Some(format!(
                "it is not valid ({})",
                reason.as_deref().unwrap_or("no reason")
            )),
        }
    };
    let mut tasks: Vec<Task> = rows
        .iter()
        .filter(|r| sel.families.holds(r.task.family) && why_not(r).is_none())
        .map(|r| r.task.clone())
        .collect();
    tasks.sort_by(|a, b| (&a.task_id, a.family).cmp(&(&b.task_id, b.family)));
    tasks.dedup_by(|a, b| a.task_id == b.task_id);

    if !sel.tasks.is_empty() {
        let wanted: BTreeSet<&str> = sel.tasks.iter().map(String::as_str).collect();
        for id in &wanted {
            if !tasks.iter().any(|t| t.task_id == *id) {
                match rows.iter().find(|r| r.task.task_id == *id) {
                    Some(r) if !sel.families.holds(r.task.family) => anyhow::bail!(
                        "--task {id}: a {} task, and --family leaves that family out",
                        r.task.family
                    ),
                    Some(r) => anyhow::bail!(
                        "--task {id}: not solved because {}; pick another task",
                        why_not(r).unwrap_or_default()
                    ),
                    None => anyhow::bail!(
                        "--task {id}: no such task in the task tables read ({}); give a task_id of one of them",
                        sel.families.tables()
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
        let validity: Validity = [
            ((Family::Function, "a".to_string()), (true, None)),
            (
                (Family::Function, "c".to_string()),
                (false, Some("null passes".to_string())),
            ),
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

    #[test]
    fn the_limit_takes_the_first_ids_whatever_the_row_order() {
        let ids_of = |order: &[usize]| {
            let rows: Vec<FunctionTask> =
                order.iter().map(|i| row(&format!("t{i}"), "ok")).collect();
            let sel = Selection {
                limit: Some(3),
                ..Selection::default()
            };
            ids(&select(&rows, None, &sel).unwrap())
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let want = ["t0", "t1", "t2"];
        assert_eq!(ids_of(&[0, 1, 2, 3, 4, 5]), want);
        assert_eq!(ids_of(&[5, 3, 1, 4, 0, 2]), want);
        assert_eq!(ids_of(&[4, 2, 0, 5, 1, 3]), want);
    }

    #[test]
    fn task_files_list_ids() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ids.txt");
        std::fs::write(
            &path,
            "# chosen by hand\nt1\n\n  t3  # the hard one\n\r\nt2\n",
        )
        .unwrap();
        assert_eq!(read_ids(&path).unwrap(), ["t1", "t3", "t2"]);
        std::fs::write(&path, "# nothing\n\n").unwrap();
        let e = read_ids(&path).unwrap_err().to_string();
        assert!(e.contains("no task id") && e.contains("ids.txt"), "{e}");
        let e = read_ids(&dir.path().join("missing.txt"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("missing.txt") && e.contains("cannot read"),
            "{e}"
        );
    }

    fn completion_row(id: &str) -> CompletionTask {
        schemas::examples::completion_task(id, "r")
    }

    #[test]
    fn completion_tasks_are_selected_by_family_and_validity() {
        let mut rows: Vec<Row> = [row("b", "ok"), row("d", "ok")]
            .iter()
            .map(Row::from)
            .collect();
        rows.extend(
            [completion_row("a"), completion_row("c")]
                .iter()
                .map(Row::from),
        );
        let all = select_rows(&rows, None, &Selection::default()).unwrap();
        assert_eq!(ids(&all), ["a", "b", "c", "d"]);
        assert_eq!(all[0].family, Family::Completion);
        let c = all[0].completion.as_ref().unwrap();
        assert_eq!(all[0].prompt, format!("{}{MASK}{}", c.prefix, c.suffix));
        assert_eq!(all[0].canonical_solution, "a + b");
        assert!(!all[0].prompt.contains("a + b"));
        let only = |families| Selection {
            families,
            ..Selection::default()
        };
        let fun = select_rows(&rows, None, &only(Families::Function)).unwrap();
        assert_eq!(ids(&fun), ["b", "d"]);
        let comp = select_rows(&rows, None, &only(Families::Completion)).unwrap();
        assert_eq!(ids(&comp), ["a", "c"]);
        // Validity is looked up by family and id: a function row does not validate a
        // completion task of the same id.
        let validity: Validity = [
            ((Family::Completion, "a".to_string()), (true, None)),
            ((Family::Function, "c".to_string()), (true, None)),
            ((Family::Function, "b".to_string()), (true, None)),
        ]
        .into_iter()
        .collect();
        let valid = select_rows(&rows, Some(&validity), &Selection::default()).unwrap();
        assert_eq!(ids(&valid), ["a", "b"]);
        let err = select_rows(
            &rows,
            Some(&validity),
            &Selection {
                tasks: vec!["c".into()],
                ..Selection::default()
            },
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("no row of family `completion`"),
            "{err}"
        );
        let err = select_rows(
            &rows,
            None,
            &Selection {
                tasks: vec!["a".into()],
                families: Families::Function,
                ..Selection::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("--family"), "{err}");
    }

    #[test]
    fn the_prompt_digest_covers_the_context() {
        let t = Task::from(&completion_row("a"));
        let mut other = completion_row("a");
        other.context.push(ContextSnippet {
            path: "pkg/util.py".into(),
            text: "X = 1\n".into(),
            score: 1.0,
        });
        assert_ne!(t.prompt_digest(), Task::from(&other).prompt_digest());
        let mut kind = completion_row("a");
        kind.span_kind = SpanKind::Statement;
        assert_ne!(t.prompt_digest(), Task::from(&kind).prompt_digest());
        // The reference is no part of it.
        let mut reference = completion_row("a");
        reference.reference = "b + a".into();
        assert_eq!(t.prompt_digest(), Task::from(&reference).prompt_digest());
        let f = Task::from(&row("f", "ok"));
        assert_eq!(f.prompt_digest(), crate::solver::sha256_hex(&f.prompt));
    }

    fn assertion_row(id: &str, form: schemas::AssertionForm, mutated: bool) -> AssertionTask {
        crate::examples::assertion_task(id, form, mutated)
    }

    #[test]
    fn assertion_tasks_are_selected_by_family_and_validity() {
        use schemas::AssertionForm::{Value, Verify};
        let mut rows: Vec<Row> = vec![Row::from(&row("b", "ok"))];
        rows.push(Row::from(&completion_row("c")));
        rows.extend(
            [
                assertion_row("a1", Value, false),
                assertion_row("a2", Verify, true),
                assertion_row("a3", Value, true),
            ]
            .iter()
            .map(Row::from),
        );
        let all = select_rows(&rows, None, &Selection::default()).unwrap();
        assert_eq!(ids(&all), ["a1", "a2", "a3", "b", "c"]);
        let only = |families| Selection {
            families,
            ..Selection::default()
        };
        let a = select_rows(&rows, None, &only(Families::Assertion)).unwrap();
        assert_eq!(ids(&a), ["a1", "a2", "a3"]);
        assert!(a.iter().all(|t| t.family == Family::Assertion));
        // The task as solvers see it.
        let t = &a[1];
        let x = t.assertion.as_ref().unwrap();
        assert_eq!(t.canonical_solution, "False");
        assert_eq!(t.prompt, x.test_source);
        assert_eq!(t.entry_point, "");
        assert!(t.completion.is_none());
        assert_eq!(x.form, Verify);
        assert_eq!(x.claim.as_deref(), Some("5"));
        assert!(x.mutated);
        assert_eq!(x.original_json, r#"{"t":"int","v":"5"}"#);
        assert_eq!(a[0].canonical_solution, "5");
        // Only valid rows of the assertion family count.
        let validity: Validity = [
            ((Family::Assertion, "a1".to_string()), (true, None)),
            (
                (Family::Assertion, "a2".to_string()),
                (false, Some("unstable".to_string())),
            ),
            ((Family::Completion, "a3".to_string()), (true, None)),
        ]
        .into_iter()
        .collect();
        let valid = select_rows(&rows, Some(&validity), &only(Families::Assertion)).unwrap();
        assert_eq!(ids(&valid), ["a1"]);
        for (id, says) in [
            ("a2", "not valid (unstable)"),
            ("a3", "no row of family `assertion`"),
        ] {
            let err = select_rows(
                &rows,
                Some(&validity),
                &Selection {
                    tasks: vec![id.into()],
                    ..only(Families::Assertion)
                },
            )
            .unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
        }
        let err = select_rows(
            &rows,
            None,
            &Selection {
                tasks: vec!["a1".into()],
                ..only(Families::Completion)
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("--family"), "{err}");
        let err = select_rows(
            &rows,
            None,
            &Selection {
                tasks: vec!["zz".into()],
                ..only(Families::Assertion)
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("assertion_tasks only"), "{err}");
    }

    #[test]
    fn the_assertion_prompt_digest_covers_what_is_shown_only() {
        use schemas::AssertionForm::{Value, Verify};
        let base = assertion_row("a", Verify, false);
        let digest = |r: &AssertionTask| Task::from(r).prompt_digest();
        let d = digest(&base);
        let changed = |f: &dyn Fn(&mut AssertionTask)| {
            let mut r = base.clone();
            f(&mut r);
            digest(&r)
        };
        // What the prompt shows.
        assert_ne!(d, changed(&|r| r.masked_assertion.push(' ')));
        assert_ne!(d, changed(&|r| r.test_source.push('\n')));
        assert_ne!(d, changed(&|r| r.code_context[0].text.push('\n')));
        assert_ne!(
            d,
            changed(&|r| {
                r.code_context.pop();
            })
        );
        assert_ne!(d, changed(&|r| r.path = "tests/other.py".into()));
        assert_ne!(d, changed(&|r| r.form = Value));
        assert_ne!(d, changed(&|r| r.kind = schemas::AssertionKind::Approx));
        // What it does not: the answer, the values, the mutation.
        assert_eq!(d, changed(&|r| r.answer = "False".into()));
        assert_eq!(d, changed(&|r| r.original_json = "{}".into()));
        assert_eq!(d, changed(&|r| r.value_python = "9".into()));
        assert_eq!(d, changed(&|r| r.mutated = true));
        // Not the completion digest of the same text.
        assert_ne!(d, crate::solver::sha256_hex(&base.test_source));
    }
}
