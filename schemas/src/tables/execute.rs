//! Tables written by `execute` (and `slice`, which runs code through it).

use crate::enums::{Family, Isolation, SliceStatus, TestOutcome, ValidationStatus};
use crate::{record, table};

record! {
    /// The lines of one file a test executed.
    pub struct FileLines {
        /// File path relative to the repository root.
        pub path: String,
        /// 1-based line numbers, ascending.
        pub lines: Vec<i32>,
    }
}

table! {
    /// One row per test of a repository's own test suite, run in its environment.
    pub struct RepoTest in "repo_tests" written_by "execute" {
        /// The repository.
        pub repo_id: String,
        /// pytest node id.
        pub node_id: String,
        /// How the test ended (`env_error`: the environment did not build; `error`: also a test that ended its own process).
        pub outcome: TestOutcome,
        /// Seconds (records when it ran).
        pub seconds: f64,
        /// Different outcomes over two runs.
        pub flaky: bool,
        /// Lines it executed, per repository file.
        pub lines: Vec<FileLines>,
        /// The isolation the run had.
        pub isolation: Isolation,
        /// Message (failure, environment build output), capped.
        pub detail: Option<String>,
        /// Hash of what produced the row: the repository's files, its requirements, the run's
        /// options and execute's build id (32 hex digits); a rerun keeps the repository's rows
        /// only when it still matches.
        pub input_hash: String,
    }
}

table! {
    /// One row per distinct set of arguments a function of `functions` was called with
    /// while its repository's own test suite ran (`execute --repo-tests`), kept when every
    /// argument can be written in the test-case format (Python literals and the few
    /// constructors it allows); bounded in count per function and in size per set.
    /// synthesize-tests seeds its search with them.
    pub struct ObservedCall in "observed_calls" written_by "execute" {
        /// The repository.
        pub repo_id: String,
        /// The function called (`functions.function_id`).
        pub function_id: String,
        /// Order of first sight among the function's rows, from 0.
        pub ordinal: i32,
        /// Positional arguments, as `test_cases.args` (a Python literal list, in the grammar
        /// the runner's argument reader accepts): every positional parameter in order, whether
        /// the test passed it by keyword or left its default (the value it had), then
        /// `*args`. A method's `self` (a class method's `cls`) is left out: call it on an
        /// instance made otherwise (or on the class), never with these arguments alone.
        pub args: String,
        /// Keyword arguments, as `test_cases.kwargs` (a Python literal dict): the keyword-only
        /// parameters and `**kwargs`.
        pub kwargs: String,
        /// The pytest node id of the first test seen making the call (in its setup or call).
        pub node_id: String,
        /// Times these arguments were seen in the first run of the suite (counted up to
        /// 1,000; once the function has 32 sets, or 5,000 of its calls were looked at, it is
        /// no longer watched).
        pub calls: i32,
        /// The `repo_tests.input_hash` of the run that observed it (32 hex digits).
        pub input_hash: String,
    }
}

table! {
    /// One row per task: whether the task itself is sound, checked by running it.
    pub struct Validation in "validations" written_by "execute" {
        /// The task.
        pub task_id: String,
        /// The task's family.
        pub family: Family,
        /// The original solution passes every case.
        pub original_passes: bool,
        /// An empty solution fails (completion tasks: every neutral fill, `pass`, `None`,
        /// the span deleted and `raise NotImplementedError`, fails a judge test).
        pub null_fails: bool,
        /// Same results over two runs.
        pub stable: bool,
        /// `valid` when all three above hold; `infra` when the harness failed (nothing is
        /// known of the task, and a rerun checks it again).
        pub status: ValidationStatus,
        /// Counts anywhere downstream (`status` is `valid`).
        pub valid: bool,
        /// Cases run (completion tasks: judge tests).
        pub cases: i32,
        /// Seconds for the original (records when it ran).
        pub original_seconds: f64,
        /// Completion tasks: mutants of the span run against the judge tests; null for
        /// other families.
        pub mutants_total: Option<i32>,
        /// Of them, those some judge test fails on.
        pub mutants_killed: Option<i32>,
        /// Why it is not valid.
        pub reason: Option<String>,
        /// The isolation the run had.
        pub isolation: Isolation,
        /// Hash of what produced the row: the task, its cases, the judge's options and
        /// execute's build id (32 hex digits); a rerun keeps the row only when it matches.
        pub input_hash: String,
    }
}

table! {
    /// One row per valid task: its difficulty, from the dynamic slice of the execution that
    /// judges it. These are freshbench's own definitions (RepoReason's are not public in
    /// detail). The *dynamic slice* of a task is the set of statements its observed result
    /// depends on, through data and control dependences, in the execution it is judged by:
    /// for a function task, what the reference returns (or raises) on each of its cases;
    /// for a completion task, the masked span's statements and the statements of its judge
    /// tests that depend on them, with everything those depend on; for an assertion task,
    /// the assertion statement of its test (with its block for `raises`) on the task's
    /// program. Data dependences come from the bytecode's loads and stores (locals,
    /// globals, closure cells, attributes of an object the instruction before loads, a
    /// method call or item store on a variable counted as a store of it), control
    /// dependences from the innermost enclosing branch (`if`, `elif`, `while`, `for`,
    /// `except`, `match`) in the same call, or the call itself; a call's parameters depend
    /// on the calling statement and the calling statement on what the call returned or
    /// raised. Only the repository's (or the task's) files are traced. **ESV** (reading
    /// load): the lines (definition through last line, decorators included) of the
    /// distinct functions holding a statement of the slice, plus the slice's module-level
    /// statements. **MCL** (simulation depth): the executions of the slice's statements,
    /// counted with repetition, in one judged execution (a case, a test): the mean over
    /// the task's cases or tests, so that being judged by more of them does not make a
    /// task harder by itself; `depth`: the deepest call depth inside the slice. **DFI** (integration width): the distinct inputs feeding the
    /// slice from outside the code under test: parameters given by the harness, pytest or
    /// a test (a test's arguments to the code under test count), module-level values
    /// defined before the trace (constants, other modules' globals, the standard library's
    /// and third-party modules' values), attributes of objects built outside, closure
    /// variables defined outside; modules, classes, functions and methods are code, not
    /// inputs, and literals are constants. What counts: for function tasks the task's code,
    /// for completion tasks the code under test only (the judge tests are not shown), for
    /// assertion tasks the code and the test. A cap on executions traced per unit
    /// (`event_cap`) bounds the work: more is `too_large`, never a truncated figure. The
    /// figures are null unless `status` is `ok`.
    pub struct Slice in "slices" written_by "slice" {
        /// The task.
        pub task_id: String,
        /// The task's family.
        pub family: Family,
        /// `ok`, `timeout`, `too_large` (more statements executed than `event_cap`) or
        /// `untraceable` (`reason` says why).
        pub status: SliceStatus,
        /// Why the status is not `ok`; with `ok`, what was left out (units that failed,
        /// judge tests not traced by `--max-units`).
        pub reason: Option<String>,
        /// ESV, reading load: lines of the distinct functions holding a statement of the
        /// slice, plus the slice's module-level statements (shown code only: see
        /// `functions`).
        pub esv: Option<i32>,
        /// MCL, simulation depth: statements of the slice executed in one judged
        /// execution, counted with repetition (the mean over the units).
        pub mcl: Option<i64>,
        /// The deepest call depth inside the slice (1: one frame).
        pub depth: Option<i32>,
        /// DFI, integration width: independent inputs feeding the slice from outside the
        /// code under test (`inputs` lists them).
        pub dfi: Option<i32>,
        /// Files holding a statement of the slice.
        pub files: Option<i32>,
        /// Modules (packages: distinct folders) of those files.
        pub modules: Option<i32>,
        /// Distinct functions holding a statement of the slice.
        pub functions: Option<i32>,
        /// Statements of the slice at module level (or in a class body).
        pub module_statements: Option<i32>,
        /// The functions of the slice, `path::qualname` (sorted, at most 200).
        pub slice_functions: Vec<String>,
        /// The files of the slice (sorted).
        pub slice_files: Vec<String>,
        /// The inputs counted by `dfi`, as `kind:where:name` (sorted, at most 200):
        /// `param` (a parameter given from outside: the harness, pytest, a test),
        /// `global` (a module-level value defined before the trace), `attr` (an attribute
        /// of an object built outside), `free` (a closure's variable defined outside).
        pub inputs: Vec<String>,
        /// Executions traced: the task's cases (function) or tests (completion, at most
        /// `--max-units` of them; assertion).
        pub units: i32,
        /// Of them, those whose slice is in the figures.
        pub units_ok: i32,
        /// Statements executed in traced code (the slice's and the rest), all units.
        pub events: i64,
        /// The cap on `events` per unit (more is `too_large`).
        pub event_cap: i64,
        /// Seconds of the traced runs (tracing and the dependence analysis, in the worker).
        pub trace_seconds: f64,
        /// Seconds of the same runs without the tracer (in the same worker, just before).
        pub plain_seconds: f64,
        /// The tracer: `settrace` (Python 3.11) or `monitoring` (sys.monitoring).
        pub tracer: String,
        /// The isolation the runs had.
        pub isolation: Isolation,
        /// Hash of what produced the row: the task, its cases or tests, the options and the
        /// build (32 hex digits); a rerun keeps the row only when it matches.
        pub input_hash: String,
    }
}
