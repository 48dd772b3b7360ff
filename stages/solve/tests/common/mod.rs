//! What the integration tests share: a small dataset of function tasks (and one of
//! completion tasks, and one of assertion tasks), and running the built `solve` binary on
//! it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use schemas::{
    AssertionForm, AssertionTask, Candidate, CompletionTask, ContextSnippet, Family, FunctionTask,
    SpanKind, Validation,
};
use solve::examples::{assertion_task, raises_task, with_claim};

/// One fixture task: its imports, its `def` line, docstring and body.
pub struct Fixture {
    pub id: &'static str,
    pub entry: &'static str,
    pub imports: &'static str,
    pub def: &'static str,
    pub doc: &'static str,
    pub body: &'static str,
    pub status: &'static str,
    pub valid: bool,
}

pub const FIXTURES: &[Fixture] = &[
    Fixture {
        id: "t01",
        entry: "add",
        imports: "",
        def: "def add(a: int, b: int) -> int:",
        doc: "Sum of ``a`` and ``b``.",
        body: "    return a + b\n",
        status: "ok",
        valid: true,
    },
    Fixture {
        id: "t02",
        entry: "clamp",
        imports: "",
        def: "def clamp(x: float, lo: float, hi: float) -> float:",
        doc: "Limit ``x`` to the closed interval [lo, hi].",
        body: "    if lo > hi:\n        raise ValueError(\"lo must not exceed hi\")\n    return max(lo, min(x, hi))\n",
        status: "ok",
        valid: true,
    },
    Fixture {
        id: "t03",
        entry: "is_palindrome",
        imports: "import re\n",
        def: "def is_palindrome(text: str) -> bool:",
        doc: "Whether ``text`` reads the same backwards, ignoring case and punctuation.",
        body: "    letters = re.sub(r\"[^a-z0-9]\", \"\", text.lower())\n    return letters == letters[::-1]\n",
        status: "ok",
        valid: true,
    },
    Fixture {
        id: "t04",
        entry: "word_count",
        imports: "import re\nfrom collections import Counter\n",
        def: "def word_count(text: str) -> dict[str, int]:",
        doc: "How often each lowercased word occurs in ``text``.",
        body: "    return dict(Counter(re.findall(r\"\\w+\", text.lower())))\n",
        status: "ok",
        valid: true,
    },
    Fixture {
        id: "t05",
        entry: "fizzbuzz",
        imports: "",
        def: "def fizzbuzz(n: int) -> str:",
        doc: "``Fizz`` for multiples of 3, ``Buzz`` of 5, both for 15, else the number.",
        body: "    if n % 15 == 0:\n        return \"FizzBuzz\"\n    if n % 3 == 0:\n        return \"Fizz\"\n    if n % 5 == 0:\n        return \"Buzz\"\n    return str(n)\n",
        status: "ok",
        valid: true,
    },
    Fixture {
        id: "t06",
        entry: "running_max",
        imports: "",
        def: "def running_max(values: list[int]) -> list[int]:",
        doc: "The largest value seen so far, at each position.",
        body: "    out = []\n    best = None\n    for v in values:\n        best = v if best is None or v > best else best\n        out.append(best)\n    return out\n",
        status: "ok",
        valid: true,
    },
    // Rejected by synthesize-tests: never solved.
    Fixture {
        id: "t07",
        entry: "now_ms",
        imports: "import time\n",
        def: "def now_ms() -> int:",
        doc: "Milliseconds since the epoch.",
        body: "    return int(time.time() * 1000)\n",
        status: "rejected",
        valid: false,
    },
    // Ok but not valid (the null solution passes): solved only with --unvalidated.
    Fixture {
        id: "t08",
        entry: "noop",
        imports: "",
        def: "def noop(x: int) -> None:",
        doc: "Nothing.",
        body: "    pass\n",
        status: "ok",
        valid: false,
    },
];

/// The tasks solved by default (ok and valid), in task id order.
pub fn solvable() -> Vec<&'static Fixture> {
    FIXTURES
        .iter()
        .filter(|f| f.status == "ok" && f.valid)
        .collect()
}

impl Fixture {
    pub fn prompt(&self) -> String {
        let sep = if self.imports.is_empty() { "" } else { "\n\n" };
        format!(
            "{}{sep}{}\n    \"\"\"{}\"\"\"\n",
            self.imports, self.def, self.doc
        )
    }

    pub fn canonical(&self) -> String {
        format!("{}{}", self.prompt(), self.body)
    }

    /// The function alone (no imports).
    pub fn function(&self) -> String {
        format!("{}\n    \"\"\"{}\"\"\"\n{}", self.def, self.doc, self.body)
    }

    pub fn by_id(id: &str) -> &'static Fixture {
        FIXTURES.iter().find(|f| f.id == id).expect("a fixture")
    }

    pub fn by_entry(entry: &str) -> &'static Fixture {
        FIXTURES
            .iter()
            .find(|f| f.entry == entry)
            .expect("a fixture")
    }

    fn row(&self) -> FunctionTask {
        FunctionTask {
            function_id: format!("fn-{}", self.id),
            prompt: self.prompt(),
            entry_point: self.entry.into(),
            canonical_solution: self.canonical(),
            status: self.status.parse().unwrap(),
            reason: (self.status != "ok").then(|| "effect: time".into()),
            edge_cases: 1,
            arcs_covered: 4,
            arcs_total: 4,
            mutants_total: 2,
            mutants_killed: 2,
            held_out_mutation_score: None,
            ..schemas::examples::function_task(self.id, "repo")
        }
    }
}

/// Writes `function_tasks` (and `validations` when asked) into `dir`.
pub fn write_dataset(dir: &Path, with_validations: bool) {
    let rows: Vec<FunctionTask> = FIXTURES.iter().map(Fixture::row).collect();
    schemas::write_table(dir, &rows).unwrap();
    if with_validations {
        let v: Vec<Validation> = FIXTURES
            .iter()
            .filter(|f| f.status == "ok")
            .map(|f| Validation {
                original_passes: true,
                null_fails: f.valid,
                reason: (!f.valid).then(|| "null_passes".into()),
                ..schemas::examples::validation(f.id, f.valid)
            })
            .collect();
        schemas::write_table(dir, &v).unwrap();
    }
}

/// A dataset in a new temporary folder.
pub fn dataset(with_validations: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_dataset(dir.path(), with_validations);
    dir
}

pub fn solve_cmd(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_solve"));
    cmd.arg("--data").arg(dir).args(args).arg("-q");
    cmd.env_remove("FRESHBENCH_CACHE").env_remove("RUST_LOG");
    cmd
}

pub fn solve(dir: &Path, args: &[&str]) -> Output {
    solve_cmd(dir, args).output().unwrap()
}

pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn candidates_path(dir: &Path, run: &str) -> PathBuf {
    dir.join("runs").join(run).join("candidates.parquet")
}

pub fn candidates(dir: &Path, run: &str) -> Vec<Candidate> {
    schemas::read_table_from(&candidates_path(dir, run)).unwrap()
}

/// Asserts the run exited with `expected`, showing its output when not.
pub fn assert_code(out: &Output, expected: i32) {
    assert_eq!(
        code(out),
        expected,
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
}

/// One fixture completion task: a file with one span masked.
pub struct Masked {
    pub id: &'static str,
    pub kind: SpanKind,
    pub prefix: &'static str,
    pub reference: &'static str,
    pub suffix: &'static str,
    pub indent: &'static str,
    /// `None`: no row in validations.
    pub valid: Option<bool>,
}

pub const MASKED: &[Masked] = &[
    Masked {
        id: "c01",
        kind: SpanKind::Expression,
        prefix: "from pkg.util import twice\n\n\ndef plus(a, b):\n    return ",
        reference: "a + b",
        suffix: "\n\n\ndef minus(a, b):\n    return a - b\n",
        indent: "    ",
        valid: Some(true),
    },
    Masked {
        id: "c02",
        kind: SpanKind::Statement,
        prefix: "def total(xs):\n    s = 0\n    for x in xs:\n        ",
        reference: "s += x",
        suffix: "\n    return s\n",
        indent: "        ",
        valid: Some(true),
    },
    Masked {
        id: "c03",
        kind: SpanKind::Block,
        prefix: "def bound(x, lo, hi):\n    ",
        reference: "if x < lo:\n        return lo\n    if x > hi:\n        return hi",
        suffix: "\n    return x\n",
        indent: "    ",
        valid: Some(true),
    },
    Masked {
        id: "c04",
        kind: SpanKind::Function,
        prefix: "import math\n\n\n",
        reference: "def area(r):\n    return math.pi * r ** 2",
        suffix: "\n\n\ndef main():\n    print(area(2))\n",
        indent: "",
        valid: Some(true),
    },
    // Not valid (a neutral fill passes): never solved.
    Masked {
        id: "c05",
        kind: SpanKind::Expression,
        prefix: "def ident(v):\n    return ",
        reference: "v",
        suffix: "\n",
        indent: "    ",
        valid: Some(false),
    },
    // No validation row: never solved (unless --unvalidated without the table).
    Masked {
        id: "c06",
        kind: SpanKind::Statement,
        prefix: "def noisy():\n    ",
        reference: "print('hi')",
        suffix: "\n",
        indent: "    ",
        valid: None,
    },
];

impl Masked {
    pub fn by_id(id: &str) -> &'static Masked {
        MASKED
            .iter()
            .find(|m| m.id == id)
            .expect("a masked fixture")
    }

    /// The file with `fill` in the span.
    pub fn spliced(&self, fill: &str) -> String {
        format!("{}{fill}{}", self.prefix, self.suffix)
    }

    pub fn row(&self) -> CompletionTask {
        let start = self.prefix.len() as i64;
        CompletionTask {
            span_kind: self.kind,
            start_byte: start,
            end_byte: start + self.reference.len() as i64,
            start_line: self.prefix.matches('\n').count() as i32 + 1,
            end_line: (self.prefix.matches('\n').count() + self.reference.matches('\n').count())
                as i32
                + 1,
            prefix: self.prefix.into(),
            suffix: self.suffix.into(),
            reference: self.reference.into(),
            indent: self.indent.into(),
            context: if self.id == "c01" {
                vec![ContextSnippet {
                    path: "pkg/util.py".into(),
                    text: "def twice(x):\n    return 2 * x\n".into(),
                    score: 3.5,
                }]
            } else {
                Vec::new()
            },
            ..schemas::examples::completion_task(self.id, "repo")
        }
    }
}

/// The completion tasks solved by default (valid), in task id order.
pub fn solvable_masked() -> Vec<&'static Masked> {
    MASKED.iter().filter(|m| m.valid == Some(true)).collect()
}

/// Writes `completion_tasks`, and `validations` for them and the function tasks when asked
/// (then `function_tasks` too).
pub fn write_completions(dir: &Path, with_functions: bool) {
    let rows: Vec<CompletionTask> = MASKED.iter().map(Masked::row).collect();
    schemas::write_table(dir, &rows).unwrap();
    let mut v: Vec<Validation> = Vec::new();
    if with_functions {
        write_dataset(dir, true);
        v = schemas::read_table(dir).unwrap();
    }
    v.extend(MASKED.iter().filter_map(|m| {
        m.valid.map(|valid| Validation {
            family: Family::Completion,
            original_passes: true,
            null_fails: valid,
            reason: (!valid).then(|| "null_passes".into()),
            mutants_total: Some(4),
            mutants_killed: Some(3),
            ..schemas::examples::validation(m.id, valid)
        })
    }));
    schemas::write_table(dir, &v).unwrap();
}

/// A dataset of completion tasks (and function tasks when asked) in a new temporary folder.
pub fn completion_dataset(with_functions: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_completions(dir.path(), with_functions);
    dir
}

/// One fixture assertion task: a row of [`solve::examples`] and its validation (`None`: no
/// row in validations).
pub struct Asserted {
    pub row: AssertionTask,
    pub valid: Option<bool>,
}

/// The fixture assertion tasks, in task id order: both forms and both kinds on the original
/// program and under the mutant; the verify tasks claim the original value unless said.
pub fn asserted() -> Vec<Asserted> {
    use AssertionForm::{Value, Verify};
    let valid = |row| Asserted {
        row,
        valid: Some(true),
    };
    vec![
        valid(assertion_task("a01", Value, false)),
        valid(assertion_task("a02", Value, true)),
        valid(assertion_task("a03", Verify, false)),
        valid(assertion_task("a04", Verify, true)),
        // Claiming the mutated value: true under the mutant.
        valid(with_claim(assertion_task("a05", Verify, true), "7")),
        valid(raises_task("a06", Value, false)),
        valid(raises_task("a07", Value, true)),
        valid(raises_task("a08", Verify, false)),
        // Not valid (unstable): never solved.
        Asserted {
            row: assertion_task("a09", Value, false),
            valid: Some(false),
        },
        // No validation row: never solved.
        Asserted {
            row: assertion_task("a10", Value, true),
            valid: None,
        },
    ]
}

/// The assertion tasks solved by default (valid), in task id order.
pub fn solvable_asserted() -> Vec<AssertionTask> {
    asserted()
        .into_iter()
        .filter(|a| a.valid == Some(true))
        .map(|a| a.row)
        .collect()
}

/// The fixture assertion task of an id.
pub fn asserted_by_id(id: &str) -> AssertionTask {
    asserted()
        .into_iter()
        .find(|a| a.row.task_id == id)
        .expect("an assertion fixture")
        .row
}

/// Writes `assertion_tasks` and `validations` for them (and, when asked, `function_tasks`
/// with their validations too).
pub fn write_assertions(dir: &Path, with_functions: bool) {
    let all = asserted();
    let rows: Vec<AssertionTask> = all.iter().map(|a| a.row.clone()).collect();
    schemas::write_table(dir, &rows).unwrap();
    let mut v: Vec<Validation> = Vec::new();
    if with_functions {
        write_dataset(dir, true);
        v = schemas::read_table(dir).unwrap();
    }
    v.extend(all.iter().filter_map(|a| {
        a.valid.map(|valid| Validation {
            family: Family::Assertion,
            original_passes: true,
            null_fails: true,
            stable: valid,
            reason: (!valid).then(|| "unstable".into()),
            cases: 1,
            ..schemas::examples::validation(&a.row.task_id, valid)
        })
    }));
    schemas::write_table(dir, &v).unwrap();
}

/// A dataset of assertion tasks (and function tasks when asked) in a new temporary folder.
pub fn assertion_dataset(with_functions: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_assertions(dir.path(), with_functions);
    dir
}
