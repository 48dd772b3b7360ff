//! The task-version rule of completion tasks, which publish's card states
//! (`publish::version::TASK_ID_RULES`): a task's id is the hash of `repo_id`, `path`,
//! `start_byte`, `end_byte` and `reference`, in that order, and of nothing else. Masking
//! again with everything else changed (code dates, test timings, the context's budget,
//! another file, the text after the spans) gives the same ids, so a task kept from one
//! quarter to the next keeps its id; changing a defining input gives new ones.

use std::collections::BTreeMap;

use schemas::{examples, CompletionTask, File, FileLines, Function, Isolation, RepoTest};

const REPO: &str = "r-ids";

const CORE: &str = r#""""Arithmetic."""


def add(a, b):
    """Add two numbers."""
    total = a + b
    if total > 100:
        total = 100
    return total


def scale(values, factor):
    """Scale every value."""
    out = []
    for v in values:
        out.append(v * factor)
    return out
"#;

const UTIL: &str = r#"def clamp(value, limit):
    """Keep a value within a limit."""
    if value > limit:
        return limit
    return value
"#;

const TESTS: &str = r"from pkg.core import add, scale
from pkg.util import clamp


def test_all():
    assert add(1, 2) == 3
    assert scale([1], 2) == [2]
    assert clamp(5, 3) == 3
";

fn file(path: &str, kind: &str, content: &str) -> File {
    File {
        repo_id: REPO.into(),
        path: path.into(),
        kind: kind.parse().unwrap(),
        sha256: schemas::id::sha256_hex(content.as_bytes()),
        size: content.len() as i64,
        content: Some(content.into()),
        bytes: None,
        status: schemas::FileStatus::Ok,
        reason: None,
        changed_lines: None,
        line_dates: None,
    }
}

/// The 1-based lines of every function's body in `text`, shifted by `shift`.
fn body_lines(text: &str, shift: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("def ") {
            inside = true;
        } else if !line.starts_with(' ') {
            inside = false;
        }
        if inside && !line.trim().is_empty() {
            out.push(i as i32 + 1 + shift);
        }
    }
    out
}

/// A repository to mask: its files, functions (resolve's rows), and one passing test that
/// ran every line of `core` (as first written, shifted by `core_shift` lines) and `util`.
struct Masked {
    repo_id: String,
    files: Vec<File>,
    functions: Vec<Function>,
    tests: Vec<RepoTest>,
}

fn repo(core: &str, core_shift: i32) -> Masked {
    let files = vec![
        file("pkg/__init__.py", "source", ""),
        file("pkg/core.py", "source", core),
        file("pkg/util.py", "source", UTIL),
        file("tests/test_core.py", "test", TESTS),
    ];
    let analyses: Vec<(&File, resolve::FileAnalysis)> = files
        .iter()
        .map(|f| {
            let (module, is_package) = resolve::module_name(&f.path);
            let a =
                resolve::analyze_file(f.content.as_deref().unwrap(), &module, is_package).unwrap();
            (f, a)
        })
        .collect();
    let functions = resolve::tables::repo_rows(REPO, &analyses).functions;
    let tests = vec![RepoTest {
        repo_id: REPO.into(),
        node_id: "tests/test_core.py::test_all".into(),
        outcome: schemas::TestOutcome::Passed,
        seconds: 0.25,
        flaky: false,
        lines: vec![
            FileLines {
                path: "pkg/core.py".into(),
                lines: body_lines(CORE, core_shift),
            },
            FileLines {
                path: "pkg/util.py".into(),
                lines: body_lines(UTIL, 0),
            },
        ],
        isolation: Isolation::Namespaces,
        detail: None,
        input_hash: "h".into(),
    }];
    Masked {
        repo_id: REPO.into(),
        files,
        functions,
        tests,
    }
}

fn options() -> mask::Options {
    mask::Options {
        per_file: 1000,
        per_repo: 1000,
        ..mask::Options::default()
    }
}

fn mask(r: &Masked, opts: &mask::Options) -> Vec<CompletionTask> {
    let repo_row = examples::repo(&r.repo_id, "ids");
    let mut files = r.files.clone();
    let mut functions = r.functions.clone();
    let mut tests = r.tests.clone();
    for f in &mut files {
        f.repo_id.clone_from(&r.repo_id);
    }
    for f in &mut functions {
        f.repo_id.clone_from(&r.repo_id);
    }
    for t in &mut tests {
        t.repo_id.clone_from(&r.repo_id);
    }
    let inputs = mask::Inputs {
        repos: std::slice::from_ref(&repo_row),
        files: &files,
        functions: &functions,
        repo_tests: &tests,
    };
    let (tasks, _) = mask::mask_dataset(&inputs, opts, 1, &|| {}).unwrap();
    assert!(tasks.len() > 5, "{tasks:?}");
    tasks
}

/// The rule, from the row's own columns.
fn by_rule(t: &CompletionTask) -> String {
    schemas::id::content_id(&[
        t.repo_id.as_bytes(),
        t.path.as_bytes(),
        t.start_byte.to_string().as_bytes(),
        t.end_byte.to_string().as_bytes(),
        t.reference.as_bytes(),
    ])
}

/// A span by what stays when bytes move: its file, its text, and which of the spans of
/// that text in the file it is.
type Key = (String, String, usize);

/// Task id by [`Key`].
fn ids(tasks: &[CompletionTask]) -> BTreeMap<Key, String> {
    let mut sorted: Vec<&CompletionTask> = tasks.iter().collect();
    sorted.sort_by_key(|t| (t.path.clone(), t.start_byte, t.end_byte));
    let mut out = BTreeMap::new();
    for t in sorted {
        let mut n = 0;
        while out.contains_key(&(t.path.clone(), t.reference.clone(), n)) {
            n += 1;
        }
        out.insert((t.path.clone(), t.reference.clone(), n), t.task_id.clone());
    }
    out
}

#[test]
fn every_id_is_the_hash_of_the_rules_columns() {
    for t in mask(&repo(CORE, 0), &options()) {
        assert_eq!(t.task_id, by_rule(&t), "{t:?}");
        assert_eq!(
            t.task_id,
            mask::repo::task_id(
                &t.repo_id,
                &t.path,
                t.start_byte as usize,
                t.end_byte as usize,
                &t.reference
            )
        );
    }
}

#[test]
fn what_is_outside_the_rule_leaves_the_ids_alone() {
    let base = mask(&repo(CORE, 0), &options());
    let want = ids(&base);

    // Another quarter's view of the same code: other code dates, slower tests, another
    // context budget, another seed (nothing is capped), one more file.
    let mut other = repo(CORE, 0);
    for f in &mut other.functions {
        f.code_date = schemas::Timestamp::parse("2027-03-01");
        f.code_date_source = Some(schemas::CodeDateSource::GitHistory);
        f.after_cutoff = Some(true);
    }
    for t in &mut other.tests {
        t.seconds = 1.5;
        t.input_hash = "another build".into();
    }
    other.files.push(file(
        "pkg/extra.py",
        "source",
        "def helper(x):\n    return x\n",
    ));
    let opts = mask::Options {
        context_budget: 64,
        seed: 7,
        ..options()
    };
    let again = mask(&other, &opts);
    assert_eq!(ids(&again), want);
    assert_ne!(
        again.iter().map(|t| &t.code_date).collect::<Vec<_>>(),
        base.iter().map(|t| &t.code_date).collect::<Vec<_>>(),
        "the rows did change"
    );

    // Text after every span (a function appended): the suffixes change, the ids do not.
    let appended = format!("{CORE}\n\ndef later(x):\n    return x\n");
    let again = mask(&repo(&appended, 0), &options());
    assert_eq!(ids(&again), want);
    let suffix = |tasks: &[CompletionTask]| {
        tasks
            .iter()
            .find(|t| t.reference == "a + b")
            .unwrap()
            .suffix
            .clone()
    };
    assert_ne!(suffix(&again), suffix(&base));
}

#[test]
fn each_defining_input_gives_new_ids() {
    let want = ids(&mask(&repo(CORE, 0), &options()));
    let core = |ids: &BTreeMap<Key, String>| -> Vec<String> {
        ids.iter()
            .filter(|((p, _, _), _)| p == "pkg/core.py")
            .map(|(_, id)| id.clone())
            .collect()
    };
    let util = |ids: &BTreeMap<Key, String>| -> Vec<String> {
        ids.iter()
            .filter(|((p, _, _), _)| p == "pkg/util.py")
            .map(|(_, id)| id.clone())
            .collect()
    };

    assert!(!core(&want).is_empty() && !util(&want).is_empty());

    // Another repository (another release: another `repo_id`): every id is new.
    let mut released = repo(CORE, 0);
    released.repo_id = "r-ids-2".into();
    let got = ids(&mask(&released, &options()));
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    assert!(got.values().all(|id| !want.values().any(|w| w == id)));

    // A line before the spans of `core` (their bytes move): its ids are new, `util`'s kept.
    let moved = format!("# moved\n{CORE}");
    let got = ids(&mask(&repo(&moved, 1), &options()));
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    assert!(core(&got).iter().all(|id| !core(&want).contains(id)));
    assert_eq!(util(&got), util(&want));

    // The same bytes, another text (`*` for `+`): the ids of the spans holding it are new.
    let edited = CORE.replace("a + b", "a * b");
    let got = ids(&mask(&repo(&edited, 0), &options()));
    let (mut kept, mut new) = (0, 0);
    for ((path, reference, n), id) in &got {
        let before = reference.replace("a * b", "a + b");
        let old = &want[&(path.clone(), before.clone(), *n)];
        if before == *reference {
            assert_eq!(id, old, "{reference:?} does not hold the edit");
            kept += 1;
        } else {
            assert_ne!(id, old, "{reference:?} holds the edit");
            new += 1;
        }
    }
    assert!(kept > 0 && new > 0, "{kept} kept, {new} new");
    assert!(got.keys().any(|(_, r, _)| r.contains("a * b")));
}
