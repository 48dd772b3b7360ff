//! What a caller asks a worker ([`Request`]) and what it gets back ([`Outcome`]): the
//! contract every backend honours. The wire format (one JSON object per line) is the
//! worker's business (see `python/protocol.py`); these types are what callers see.

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use schemas::FileLines;

use crate::value::{Tolerance, Value};

/// Where the code to call comes from; paths are relative to the worker's work folder (the
/// copy of [`crate::WorkerSpec::tree`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// A module importable from the worker's `sys.path` (dotted name).
    Module { name: String },
    /// A Python file, imported under `name` (default: the file's stem).
    File { path: String, name: Option<String> },
    /// Source text, written to a file in the worker's scratch folder and imported as `name`.
    Source { name: String, text: String },
}

/// Call one function with arguments given as Python literals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    pub target: Target,
    /// The function's name in the module (dots reach into classes: `Parser.parse_line`).
    pub function: String,
    /// A Python literal list or tuple of positional arguments, e.g. `[1, "a", (2, 3)]`.
    ///
    /// The worker evaluates it without running any code; the text may hold:
    /// - what `ast.literal_eval` accepts: str, bytes, int, float, complex, `True`, `False`,
    ///   `None`, `...`; tuples, lists, sets and dicts of those; a sign before a number;
    ///   `1+2j`; `set()`;
    /// - `float(S)` for a string literal `S` that `float` accepts (`float('nan')`,
    ///   `float('inf')`, `float('-inf')`), with a sign before it if wanted
    ///   (`-float('inf')`);
    /// - `set()`, `frozenset()`, and `set(C)`, `frozenset(C)` of a literal list, tuple or
    ///   set `C` (`frozenset([1, 2])`);
    /// - `iter(L)` of a literal list or tuple `L`: an iterator over it, for code that takes
    ///   any iterable and treats a one-shot iterator otherwise than a list;
    /// - functions, by bare name, among these builtins (deterministic, without effect on
    ///   the process; not `hash`, which depends on the hash seed, nor `id`): `abs`, `all`,
    ///   `any`, `ascii`, `bin`, `bool`, `bytes`, `callable`, `chr`, `dict`, `divmod`,
    ///   `enumerate`, `filter`, `float`, `format`, `frozenset`, `hex`, `int`, `isinstance`,
    ///   `iter`, `len`, `list`, `map`, `max`, `min`, `next`, `oct`, `ord`, `pow`, `range`,
    ///   `repr`, `reversed`, `round`, `set`, `sorted`, `str`, `sum`, `tuple`, `type`, `zip`;
    /// - `operator.NAME` for NAME among `abs`, `add`, `and_`, `concat`, `contains`, `eq`,
    ///   `floordiv`, `ge`, `getitem`, `gt`, `invert`, `le`, `lt`, `mod`, `mul`, `ne`, `neg`,
    ///   `not_`, `or_`, `pos`, `pow`, `sub`, `truediv`, `truth`, `xor` (the attribute only:
    ///   no call such as `operator.itemgetter(0)`);
    /// - these standard constructors, with int (or, for decimals, paths and patterns, str) literals as
    ///   positional arguments and no keyword: `datetime.datetime(Y, M, D[, h, m, s, us[,
    ///   TZ]])` where TZ is `datetime.timezone(datetime.timedelta(days, seconds, us))`,
    ///   `datetime.date(Y, M, D)`, `datetime.time([h, m, s, us])`,
    ///   `datetime.timedelta([days, seconds, us])`, TZ alone, `fractions.Fraction(N, D)`,
    ///   `decimal.Decimal(S)`, `pathlib.PurePosixPath(S)`, and `re.compile(S[, F])`, a
    ///   compiled str pattern whose flags F are among IGNORECASE, MULTILINE, DOTALL,
    ///   UNICODE, VERBOSE and ASCII (`ARG_CONSTRUCTORS`, `ARG_REGEX_FLAGS`);
    /// - an attribute bag, `types.SimpleNamespace(NAME=V, ...)`: keywords only, each an
    ///   identifier, at most 32 (`ARG_NAMESPACE_ATTRS`), their values in this grammar; it
    ///   stands for an object the code reads by attribute.
    ///
    /// Nothing else: no other name, attribute or call, no operator but the signs and
    /// complex literals, no `lambda`, no comprehension. Text outside this grammar (or
    /// `args` not a list or tuple) makes the outcome [`Status::HarnessError`] ("bad
    /// arguments"). The lists are `ARG_BUILTINS` and `ARG_OPERATORS` of `python/values.py`.
    pub args: String,
    /// A Python literal dict of keyword arguments, e.g. `{"sep": ","}` (the grammar of
    /// [`Call::args`]).
    pub kwargs: String,
    /// Measure the branch arcs of the called function that the call covered (slower).
    pub coverage: bool,
    /// Run in a process of its own. By default consecutive calls of the same target (and
    /// limits) share one process forked from the runner, as a harness running one
    /// candidate's test cases in one process does: a call that fails otherwise than by
    /// returning or raising, leaves a process or thread behind, or trips the sandbox ends
    /// that process, and a call of another target never shares it.
    #[serde(default)]
    pub fresh: bool,
    /// Trace the call and report its dynamic slice ([`Outcome::slices`]); not with
    /// `coverage`.
    #[serde(default)]
    pub trace: Option<Trace>,
}

/// Run given pytest node ids of a repository in the work folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PytestRun {
    /// The repository root, relative to the work folder (`"."` for the tree itself).
    pub rootdir: String,
    /// Node ids (`tests/test_x.py::test_y`); empty runs every test pytest collects.
    pub node_ids: Vec<String>,
    /// Record the lines each test executed (coverage contexts per test).
    pub coverage: bool,
    /// More pytest arguments.
    pub extra_args: Vec<String>,
    /// Put the work folder back as it was copied from the tree before the run and after it
    /// (files the code changed, added or removed), so that no request sees what an earlier
    /// one did.
    #[serde(default)]
    pub pristine: bool,
    /// Files of the work folder replaced for this run only (with `pristine`): a completion
    /// answer spliced into its file. A replaced Python file that does not compile ends the
    /// request before any test runs (status `exception`, type `SyntaxError`).
    #[serde(default)]
    pub overlay: Vec<Overlay>,
    /// Install the assertion family's capture (`__freshbench_capture__(key, X)` and
    /// `with __freshbench_raises__(key):` in a rewritten test) and report what it recorded
    /// in [`Outcome::captures`].
    #[serde(default)]
    pub capture: bool,
    /// Trace each test's call (not its setup) and report its dynamic slice
    /// ([`Outcome::slices`]); not with `coverage`.
    #[serde(default)]
    pub trace: Option<Trace>,
    /// Record the arguments the tests call these functions with ([`Outcome::observed`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<Observe>,
}

/// The functions a `pytest` request watches, and the bounds on what it records (see
/// `make_observer` in `python/child.py`).
///
/// The runner profiles the session (`sys.setprofile`, beside coverage's and the slicer's
/// `sys.settrace`); on each call of a watched function it takes the arguments from the
/// frame: the positional parameters in order (filled by keyword or by their default alike),
/// `*args` after them, the keyword-only parameters and `**kwargs` as keywords. A call is
/// kept when every argument is rebuildable from the literal grammar of [`Call::args`]
/// (written so that reading it gives values of the same exact types), else counted as
/// skipped. A generator's resumptions are not calls. The profile is on during each test's
/// setup and call only (not at collection, not in teardown, not in other threads), and off
/// for good once every watched function is full or `max_total` calls were looked at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observe {
    pub functions: Vec<WatchedFunction>,
    /// Distinct argument sets (by text) kept per function; then it is no longer watched.
    pub max_sets: u32,
    /// Characters of `args` and `kwargs` text together per set; longer sets are skipped.
    pub max_chars: u32,
    /// Calls counted per set.
    pub max_calls: u32,
    /// Calls looked at per function; then it is no longer watched.
    pub max_seen: u32,
    /// Calls looked at in the whole request; then the profile is removed.
    pub max_total: u32,
}

impl Observe {
    /// The default bounds: 32 sets of at most 2,000 characters per function, repeated calls
    /// counted up to 1,000, 5,000 calls looked at per function and 200,000 in all.
    pub fn new(functions: Vec<WatchedFunction>) -> Observe {
        Observe {
            functions,
            max_sets: 32,
            max_chars: 2000,
            max_calls: 1000,
            max_seen: 5000,
            max_total: 200_000,
        }
    }
}

/// A function to watch: a code object is it when its file, first line and (Python 3.11+)
/// qualified name match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchedFunction {
    /// Returned with its calls ([`ObservedFunction::function_id`]).
    pub id: String,
    /// Its file, relative to the rootdir.
    pub path: String,
    /// The lines its code object's `co_firstlineno` may be: the first decorator's (what
    /// Python 3.8 and later give a decorated function) and the `def`'s.
    pub lines: Vec<i32>,
    /// `Class.method`, `outer.<locals>.inner` (compared with `co_qualname`).
    pub qualname: String,
    /// A method's `self` or `cls`: left out of the recorded arguments.
    pub drop_first: bool,
}

/// The calls of one watched function a `pytest` request saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObservedFunction {
    pub function_id: String,
    /// Its distinct argument sets, in order of first sight.
    #[serde(default)]
    pub calls: Vec<ObservedArgs>,
    /// Calls whose arguments are not rebuildable from literals (or too long), not kept.
    #[serde(default)]
    pub skipped: u64,
}

/// One distinct argument set of a watched function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObservedArgs {
    /// From 0, in order of first sight.
    pub ordinal: u32,
    /// A literal list, in the grammar of [`Call::args`] (without a method's `self`/`cls`).
    pub args: String,
    /// A literal dict with string keys.
    pub kwargs: String,
    /// The test that first made the call (in its setup or its call).
    pub node_id: String,
    /// Times seen (counted up to [`Observe::max_calls`]).
    pub calls: u64,
}

/// What to slice, and the bound on the trace (see `python/slicer.py`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub criterion: Criterion,
    /// Statement executions traced per call or test; more makes the unit `too_large`.
    pub max_events: u64,
}

/// The slicing criterion: what the observed result is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Criterion {
    /// What the called function returns (or raises), every time it returns: a function
    /// task's reference on a case.
    Return,
    /// The statement holding line `first` of `path` (relative to the rootdir) with
    /// everything nested in it, through `last`: an assertion in its test. With `forward`,
    /// the criterion is those statements together with every test statement that depends
    /// on them (a completion span and the judge test statements it feeds).
    Lines {
        path: String,
        first: i32,
        last: i32,
        forward: bool,
    },
}

/// How one traced execution's slicing ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitStatus {
    Ok,
    /// More statement executions than [`Trace::max_events`].
    TooLarge,
    /// Not traced or not sliced (`reason`).
    Untraceable,
}

/// Whose a file is: the code under test, or the tests (a test module, conftest, a file
/// under a tests folder).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Code,
    Test,
}

/// A statement of a slice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceStatement {
    /// Its file, relative to the rootdir (the work folder).
    pub path: String,
    /// Its first line.
    pub line: i32,
    /// Times it ran in the slice.
    pub count: u64,
    /// The call depth of its executions (1: the traced entry's frame).
    pub min_depth: u32,
    pub max_depth: u32,
    /// The function holding it (qualified name; empty at module level or in a class body).
    pub function: String,
    /// That function's lines, decorators included (0 without a function).
    pub first_line: i32,
    pub last_line: i32,
    pub role: Role,
}

/// An input of a slice: a value from outside the traced code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceInput {
    /// `kind:where:name` (`param`, `global`, `attr`, `free`).
    pub key: String,
    /// `code` when a statement of the code under test uses it.
    pub role: Role,
}

/// One traced execution: a call, or one test of a `pytest` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceUnit {
    /// The test (pytest requests).
    pub node_id: Option<String>,
    pub status: UnitStatus,
    pub reason: Option<String>,
    /// Statement executions traced.
    pub events: u64,
    /// The cap it ran under.
    pub cap: u64,
    /// Seconds of the traced execution.
    pub seconds: f64,
    /// Seconds of the dependence analysis after it.
    #[serde(default)]
    pub slice_seconds: f64,
    /// `settrace` or `monitoring`.
    pub tracer: String,
    #[serde(default)]
    pub statements: Vec<SliceStatement>,
    #[serde(default)]
    pub inputs: Vec<SliceInput>,
}

/// A value recorded by the capture of a rewritten test (see [`PytestRun::capture`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capture {
    /// The test that ran it.
    pub node_id: String,
    /// The place in the test (the key freshbench gave it).
    pub key: String,
    /// Times the place ran (the value is the first time's).
    pub count: u32,
    /// The value (`raises`: the exception type's qualified name as a `str`, or `None` when
    /// the block raised nothing).
    pub value: Value,
}

/// A file written into the work folder for one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overlay {
    /// Relative to the work folder.
    pub path: String,
    pub text: String,
}

/// One request to a worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    Call(Call),
    Pytest(PytestRun),
}

impl Request {
    /// `function(*args)` from `source` (imported as module `candidate`), no coverage.
    pub fn call_source(source: &str, function: &str, args: &str) -> Request {
        Request::Call(Call {
            target: Target::Source {
                name: "candidate".into(),
                text: source.into(),
            },
            function: function.into(),
            args: args.into(),
            kwargs: "{}".into(),
            coverage: false,
            fresh: false,
            trace: None,
        })
    }

    /// `function(*args)` from a file of the work folder, no coverage.
    pub fn call_file(path: &str, function: &str, args: &str) -> Request {
        Request::Call(Call {
            target: Target::File {
                path: path.into(),
                name: None,
            },
            function: function.into(),
            args: args.into(),
            kwargs: "{}".into(),
            coverage: false,
            fresh: false,
            trace: None,
        })
    }

    /// The same request with coverage measurement switched on or off.
    #[must_use]
    pub fn with_coverage(mut self, on: bool) -> Request {
        match &mut self {
            Request::Call(c) => c.coverage = on,
            Request::Pytest(p) => p.coverage = on,
        }
        self
    }
}

/// How a request ended. Only [`Status::Ok`] means the code returned; whether that is a pass
/// is for the caller to decide ([`Outcome::passes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Returned a value (for `pytest`: the session ran; see each test's outcome).
    Ok,
    /// Raised (including `SystemExit` and `RecursionError`); see [`Outcome::exception`].
    Exception,
    /// Wall-clock or CPU-time limit.
    Timeout,
    /// Memory limit (`MemoryError`, `ENOMEM`).
    Memory,
    /// The code's process died without a result: a signal (segfault), `os._exit`, a closed
    /// result channel, or the whole worker died.
    Crash,
    /// stdout and stderr together (or the result) over the output cap.
    OutputLimit,
    /// A limit on processes, threads, open files, file size or disk space.
    ResourceLimit,
    /// Caught doing what the sandbox forbids (write or read outside, network, signalling the
    /// runner, patching the harness, a forged result).
    SandboxViolation,
    /// The request itself was bad (arguments not a literal, unknown kind), or a harness bug.
    HarnessError,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Exception => "exception",
            Status::Timeout => "timeout",
            Status::Memory => "memory",
            Status::Crash => "crash",
            Status::OutputLimit => "output_limit",
            Status::ResourceLimit => "resource_limit",
            Status::SandboxViolation => "sandbox_violation",
            Status::HarnessError => "harness_error",
        }
    }
}

/// The isolation a result really had (stored as text in every table that runs code).
pub use schemas::Isolation;

/// An exception the code raised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExceptionInfo {
    /// The exception's type (qualified name within its module, e.g. `ValueError`).
    #[serde(rename = "type")]
    pub type_name: String,
    pub message: String,
    #[serde(default)]
    pub traceback: String,
}

/// The branch arcs of the called function (coverage.py's measure, lines as in its file;
/// negative numbers are entries and exits, as coverage.py writes them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArcCoverage {
    /// The function's file, relative to the work folder when inside it.
    pub file: String,
    pub first_line: i32,
    pub last_line: i32,
    /// Arcs the call executed.
    pub arcs: Vec<(i32, i32)>,
    /// Every arc of the function, from coverage.py's static analysis.
    pub function_arcs: Vec<(i32, i32)>,
}

impl ArcCoverage {
    /// The share of the function's arcs that were executed (1.0 for a function with none).
    pub fn ratio(&self) -> f64 {
        if self.function_arcs.is_empty() {
            return 1.0;
        }
        let hit = self
            .function_arcs
            .iter()
            .filter(|a| self.arcs.contains(a))
            .count();
        hit as f64 / self.function_arcs.len() as f64
    }
}

/// One test of a `pytest` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestReport {
    pub node_id: String,
    /// `passed`, `failed`, `error` or `skipped` (the runner's outcomes).
    pub outcome: schemas::TestOutcome,
    pub seconds: f64,
    /// Failure text, capped.
    pub detail: Option<String>,
    /// Lines it executed, per file relative to the rootdir (empty without coverage).
    pub lines: Vec<FileLines>,
}

/// What happened to one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: Status,
    /// The isolation the request really ran under.
    #[serde(default)]
    pub isolation: Isolation,
    /// The returned value (status `ok` of a `call`).
    #[serde(default)]
    pub value: Option<Value>,
    /// `repr` of the returned value, capped (of a returned iterator: `<type> [items]`, with
    /// ` ...` when truncated).
    #[serde(default)]
    pub repr: Option<String>,
    #[serde(default)]
    pub exception: Option<ExceptionInfo>,
    /// Seconds the call itself took (the function and drawing the iterator it returned, or
    /// the pytest session).
    #[serde(default)]
    pub seconds: f64,
    /// Seconds the whole request took, fork and result included.
    #[serde(default)]
    pub wall_seconds: f64,
    /// What the code printed, capped.
    #[serde(default)]
    pub stdout: String,
    #[serde(default)]
    pub stderr: String,
    #[serde(default)]
    pub coverage: Option<ArcCoverage>,
    /// Per test, for `pytest` requests.
    #[serde(default)]
    pub tests: Vec<TestReport>,
    /// For a `pytest` request that did not finish (it crashed, timed out, hit a limit): the
    /// node id of the test that had started and not ended, when the runner saw one.
    #[serde(default)]
    pub running_test: Option<String>,
    /// pytest's exit code, for `pytest` requests.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// Why: which limit, which signal, which violation.
    #[serde(default)]
    pub detail: Option<String>,
    /// What the capture recorded, for `pytest` requests with `capture`.
    #[serde(default)]
    pub captures: Vec<Capture>,
    /// The traced executions' slices, for requests with a `trace`.
    #[serde(default)]
    pub slices: Vec<SliceUnit>,
    /// What the observer recorded, for `pytest` requests with `observe` (functions with a
    /// kept or skipped call only).
    #[serde(default)]
    pub observed: Vec<ObservedFunction>,
    /// Why the observer's record was lost (the code under test spoilt it).
    #[serde(default)]
    pub observe_error: Option<String>,
}

impl Outcome {
    /// An outcome for a request the worker could not answer (it died or hung).
    pub fn failed(status: Status, detail: String, isolation: Isolation, wall: Duration) -> Outcome {
        Outcome {
            status,
            isolation,
            value: None,
            repr: None,
            exception: None,
            seconds: 0.0,
            wall_seconds: wall.as_secs_f64(),
            stdout: String::new(),
            stderr: String::new(),
            coverage: None,
            tests: Vec::new(),
            running_test: None,
            exit_code: None,
            detail: Some(detail),
            captures: Vec::new(),
            slices: Vec::new(),
            observed: Vec::new(),
            observe_error: None,
        }
    }

    /// A pass: the call returned and its value is the same as `expected` ([`Value::same`]).
    pub fn passes(&self, expected: &Value) -> bool {
        self.status == Status::Ok && self.value.as_ref().is_some_and(|v| v.same(expected))
    }

    /// A pass with floats compared within `tol`: the call returned and its value matches
    /// `expected` ([`Value::matches`]).
    pub fn passes_within(&self, expected: &Value, tol: Tolerance) -> bool {
        self.status == Status::Ok
            && self
                .value
                .as_ref()
                .is_some_and(|v| v.matches(expected, tol))
    }
}
