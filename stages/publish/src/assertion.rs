//! What a snapshot holds so that its assertion tasks can be run again: the export
//! `assertion_tasks.jsonl` (`--export jsonl`), and the figures of the manifest.
//!
//! An assertion task is a real assertion of a repository test with its expected value
//! masked, posed on the original program or on a mutated variant (the repository with one
//! file replaced), in one of two forms: `value` (give the subject's value) or `verify` (say
//! whether the assertion shown with a claimed value holds). A literal answer is judged
//! against the value recorded by running the test; any other answer is put into the
//! assertion and the test run on the task's program, which needs the repository: its
//! `files` rows come with it, as for completion tasks ([`crate::completion`]).
//!
//! # The export
//!
//! `assertion_tasks.jsonl`: one JSON object per published assertion task, with what a
//! harness needs to pose, judge and rerun it: `task_id` (`freshbench/` and the task's id),
//! `group_id` (the assertion, shared by its tasks), the repository (`repo`: id, name,
//! version, spec, url, commit, `files_sha256`), the test (`test_node_id`, its file `path`,
//! the assertion's `line` and the bytes `start_byte..end_byte` a judge rewrites), `kind`,
//! `form`, `subject`, `test_source`, `masked_assertion`, `code_context`, the program
//! (`mutated`; on a variant `mutant_id`, `mutation`, `mutated_path` and `mutated_text`, the
//! whole text of the mutated file, which defines the variant), the verify form's `claim`,
//! the `answer`, the recorded value (`value_json`, a tagged value; `value_python`, as
//! Python text), the value on the original program (`original_json`, the answer a model
//! that recalls the repository would give) and the code's date.

use std::collections::{BTreeMap, BTreeSet};

use schemas::{AssertionTask, ContextSnippet, Repo};
use serde::{Deserialize, Serialize};

use crate::completion::{export_repo, ExportRepo, RepoFiles};

/// The file name of the export, at the snapshot's root.
pub const EXPORT: &str = "assertion_tasks.jsonl";

/// The export's format name in the manifest.
pub const FORMAT: &str = "freshbench-assertion";

/// Published assertion tasks per form (`value`, `verify`), by name.
pub fn by_form(tasks: &[AssertionTask]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for t in tasks {
        *out.entry(t.form.as_str().to_string()).or_default() += 1;
    }
    out
}

/// Published assertion tasks per program (`original`, `mutated`), by name.
pub fn by_program(tasks: &[AssertionTask]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for t in tasks {
        let program = if t.mutated { "mutated" } else { "original" };
        *out.entry(program.to_string()).or_default() += 1;
    }
    out
}

/// The assertions (`group_id`) the tasks come from.
pub fn assertions(tasks: &[AssertionTask]) -> usize {
    tasks
        .iter()
        .map(|t| t.group_id.as_str())
        .collect::<BTreeSet<_>>()
        .len()
}

/// One line of `assertion_tasks.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportTask {
    pub task_id: String,
    pub group_id: String,
    pub repo: ExportRepo,
    pub test_node_id: String,
    pub path: String,
    pub line: i32,
    pub start_byte: i64,
    pub end_byte: i64,
    pub kind: String,
    pub form: String,
    pub subject: String,
    pub test_source: String,
    pub masked_assertion: String,
    pub code_context: Vec<ContextSnippet>,
    pub mutated: bool,
    pub mutant_id: Option<String>,
    pub mutation: Option<String>,
    pub mutated_path: Option<String>,
    /// The mutated file's whole text: the variant is the repository with it in place.
    pub mutated_text: Option<String>,
    pub claim: Option<String>,
    pub answer: String,
    pub value_json: String,
    pub value_python: String,
    pub original_json: String,
    /// RFC 3339, UTC.
    pub code_date: Option<String>,
    pub code_date_source: Option<String>,
    pub after_cutoff: Option<bool>,
}

/// The export of the published assertion tasks, in their order.
pub fn export(
    tasks: &[AssertionTask],
    repos: &[Repo],
    files: &BTreeMap<String, RepoFiles>,
) -> Vec<ExportTask> {
    let repos: BTreeMap<&str, &Repo> = repos.iter().map(|r| (r.repo_id.as_str(), r)).collect();
    tasks
        .iter()
        .map(|t| ExportTask {
            task_id: format!("freshbench/{}", t.task_id),
            group_id: t.group_id.clone(),
            repo: export_repo(&t.repo_id, &repos, files),
            test_node_id: t.test_node_id.clone(),
            path: t.path.clone(),
            line: t.line,
            start_byte: t.start_byte,
            end_byte: t.end_byte,
            kind: t.kind.as_str().to_string(),
            form: t.form.as_str().to_string(),
            subject: t.subject.clone(),
            test_source: t.test_source.clone(),
            masked_assertion: t.masked_assertion.clone(),
            code_context: t.code_context.clone(),
            mutated: t.mutated,
            mutant_id: t.mutant_id.clone(),
            mutation: t.mutation.clone(),
            mutated_path: t.mutated_path.clone(),
            mutated_text: t.mutated_text.clone(),
            claim: t.claim.clone(),
            answer: t.answer.clone(),
            value_json: t.value_json.clone(),
            value_python: t.value_python.clone(),
            original_json: t.original_json.clone(),
            code_date: t.code_date.map(|d| d.to_string()),
            code_date_source: t.code_date_source.map(|s| s.as_str().to_string()),
            after_cutoff: t.after_cutoff,
        })
        .collect()
}

pub use crate::to_jsonl;

#[cfg(test)]
mod tests {
    use super::*;
    use schemas::{examples, AssertionForm, AssertionKind, Timestamp};

    /// The original (`a-o`, value form) and a variant (`a-m`, verify form) of one assertion.
    fn tasks() -> Vec<AssertionTask> {
        let original = AssertionTask {
            task_id: "a-o".into(),
            group_id: "g".into(),
            repo_id: "r1".into(),
            test_node_id: "tests/test_mod.py::test_add".into(),
            path: "tests/test_mod.py".into(),
            line: 4,
            start_byte: 50,
            end_byte: 72,
            kind: AssertionKind::Equal,
            form: AssertionForm::Value,
            subject: "add(1, 2)".into(),
            test_source: "from pkg.mod import add\n\ndef test_add():\n    assert add(1, 2) == ??\n"
                .into(),
            masked_assertion: "assert add(1, 2) == ??".into(),
            code_context: vec![ContextSnippet {
                path: "pkg/mod.py".into(),
                text: "def add(a, b):\n    return a + b\n".into(),
                score: 1.0,
            }],
            context_tokens: 9,
            context_budget: 2000,
            mutated: false,
            mutant_id: None,
            mutated_path: None,
            mutated_text: None,
            mutation: None,
            value_json: r#"{"t": "int", "v": "3"}"#.into(),
            value_python: "3".into(),
            original_json: r#"{"t": "int", "v": "3"}"#.into(),
            claim: None,
            answer: "3".into(),
            tests_seconds: 0.1,
            record_seconds: 0.0,
            code_date: Timestamp::parse("2026-09-10"),
            code_date_source: Some(schemas::CodeDateSource::GitHistory),
            after_cutoff: Some(true),
        };
        let variant = AssertionTask {
            task_id: "a-m".into(),
            form: AssertionForm::Verify,
            masked_assertion: "assert add(1, 2) == 3".into(),
            mutated: true,
            mutant_id: Some("m1".into()),
            mutated_path: Some("pkg/mod.py".into()),
            mutated_text: Some("def add(a, b):\n    return a - b\n".into()),
            mutation: Some("pkg/mod.py:2: a + b -> a - b".into()),
            value_json: r#"{"t": "int", "v": "-1"}"#.into(),
            value_python: "-1".into(),
            claim: Some("3".into()),
            answer: "False".into(),
            ..original.clone()
        };
        vec![original, variant]
    }

    #[test]
    fn the_export_has_what_reruns_a_task() {
        let repo = Repo {
            version: Some("1.0".into()),
            url: Some("https://example.invalid/p-1.0.tar.gz".into()),
            ..examples::repo("r1", "p")
        };
        let files = BTreeMap::from([(
            "r1".to_string(),
            RepoFiles {
                files: 2,
                sha256: "ab".repeat(32),
            },
        )]);
        let rows = export(&tasks(), &[repo], &files);
        let text = to_jsonl(&rows).unwrap();
        assert_eq!(text.lines().count(), 2);
        let v: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (o, m) = (&v[0], &v[1]);
        assert_eq!(o["task_id"], "freshbench/a-o");
        assert_eq!((&o["group_id"], &m["group_id"]), (&"g".into(), &"g".into()));
        assert_eq!(o["repo"]["spec"], "path:p");
        assert_eq!(o["repo"]["files_sha256"], "ab".repeat(32));
        assert_eq!(o["test_node_id"], "tests/test_mod.py::test_add");
        assert_eq!(
            (&o["path"], &o["line"]),
            (&"tests/test_mod.py".into(), &4.into())
        );
        assert_eq!((&o["start_byte"], &o["end_byte"]), (&50.into(), &72.into()));
        assert_eq!((&o["kind"], &o["form"]), (&"equal".into(), &"value".into()));
        assert!(o["test_source"].as_str().unwrap().ends_with("== ??\n"));
        assert_eq!(o["masked_assertion"], "assert add(1, 2) == ??");
        assert_eq!(o["code_context"][0]["path"], "pkg/mod.py");
        assert_eq!(o["mutated"], false);
        assert!(o["mutation"].is_null() && o["mutated_text"].is_null());
        assert_eq!(o["answer"], "3");
        assert_eq!(o["value_json"], r#"{"t": "int", "v": "3"}"#);
        assert_eq!(o["code_date"], "2026-09-10T00:00:00Z");
        // The variant: its program, its claim and its own value; the original's beside it.
        assert_eq!(m["mutated"], true);
        assert_eq!(m["form"], "verify");
        assert_eq!(m["mutant_id"], "m1");
        assert_eq!(m["mutation"], "pkg/mod.py:2: a + b -> a - b");
        assert_eq!(m["mutated_path"], "pkg/mod.py");
        assert_eq!(m["mutated_text"], "def add(a, b):\n    return a - b\n");
        assert_eq!((&m["claim"], &m["answer"]), (&"3".into(), &"False".into()));
        assert_eq!(m["value_python"], "-1");
        assert_eq!(m["original_json"], r#"{"t": "int", "v": "3"}"#);
        // Read back as written.
        let back: ExportTask = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
        assert_eq!(back, rows[1]);
        // A repository without files rows: no hash.
        let rows = export(&tasks(), &[], &BTreeMap::new());
        assert!(rows[0].repo.files_sha256.is_none() && rows[0].repo.name.is_none());
    }

    #[test]
    fn counts_by_form_program_and_assertion() {
        let mut t = tasks();
        t.push(AssertionTask {
            task_id: "b-o".into(),
            group_id: "h".into(),
            ..t[0].clone()
        });
        assert_eq!(
            by_form(&t),
            BTreeMap::from([("value".into(), 2), ("verify".into(), 1)])
        );
        assert_eq!(
            by_program(&t),
            BTreeMap::from([("mutated".into(), 1), ("original".into(), 2)])
        );
        assert_eq!(assertions(&t), 2);
    }
}
