//! The closed vocabularies of the tables: statuses, kinds, families, fingerprints.
//!
//! Each is a Rust enum stored as its text in a `Utf8` column ([`crate::text_enum!`]), so a
//! table reads the same in SQL as before (`status = 'pass'`) while the code compares
//! variants: a typo is a compile error, not a silent mismatch. The text of every variant is
//! written once, here, and `TABLES.md` lists the values of each column.

use crate::text_enum;

text_enum! {
    /// Where a repository came from.
    pub enum SourceKind {
        /// A local folder.
        Path = "path",
        /// A git repository (cloned).
        Git = "git",
        /// A release on the package index.
        Pypi = "pypi",
    }
}

text_enum! {
    /// What became of a repository source named to `crawl`.
    pub enum RepoStatus {
        Ok = "ok",
        /// Left out on purpose (e.g. older than the cutoff).
        Skipped = "skipped",
        /// Could not be fetched or read.
        Error = "error",
    }
}

text_enum! {
    /// Where a repository's license was recognised.
    pub enum LicenseSource {
        Metadata = "metadata",
        Classifier = "classifier",
        LicenseFile = "license-file",
    }
}

text_enum! {
    /// Why an earlier version of a repository was fetched.
    pub enum SnapshotRole {
        /// The last release (or commit) published before the cutoff: what was public then.
        Baseline = "baseline",
        /// One of `--history N` earlier versions spread over the project's life, for a date
        /// finer than before or after the cutoff.
        History = "history",
    }
}

text_enum! {
    /// What an earlier version was read from.
    pub enum Artifact {
        /// The release's source distribution.
        Sdist = "sdist",
        /// A wheel of the release (it holds the same Python files), when there is no sdist.
        Wheel = "wheel",
        /// A commit of the git repository.
        Git = "git",
    }
}

text_enum! {
    /// Where a function's `code_date` comes from.
    pub enum CodeDateSource {
        /// The earliest of the repository's fetched releases whose code holds the function.
        ReleaseHistory = "release_history",
        /// The earliest of the repository's fetched commits whose code holds the function.
        GitHistory = "git_history",
        /// Nothing finer is known than the crawled version's own publication: an upper
        /// bound (the code may be older).
        ReleaseDate = "release_date",
    }
}

text_enum! {
    /// What a crawled file is for.
    pub enum FileKind {
        /// Python code of the project.
        Source = "source",
        /// Python code of its tests.
        Test = "test",
        /// A file that defines its dependencies or metadata (`pyproject.toml`, `setup.cfg`,
        /// `setup.py`, requirement files, `tox.ini`, the sdist's `PKG-INFO`).
        Dependency = "dependency",
        /// Another file of the source tree that tests may read (fixtures, templates, data):
        /// kept within a size budget, text in `content`, else its bytes in `bytes`.
        Data = "data",
    }
}

text_enum! {
    /// Whether a file's content was kept.
    pub enum FileStatus {
        Ok = "ok",
        Skipped = "skipped",
    }
}

text_enum! {
    /// Whether a file parsed.
    pub enum ParseStatus {
        Ok = "ok",
        SyntaxError = "syntax_error",
    }
}

text_enum! {
    /// How a parameter is passed.
    pub enum ParamKind {
        PositionalOnly = "positional_only",
        PositionalOrKeyword = "positional_or_keyword",
        VarPositional = "var_positional",
        KeywordOnly = "keyword_only",
        VarKeyword = "var_keyword",
    }
}

text_enum! {
    /// What a free name of a function resolves to.
    pub enum RefKind {
        Builtin = "builtin",
        Stdlib = "stdlib",
        ThirdParty = "third_party",
        Internal = "internal",
        Unresolved = "unresolved",
    }
}

text_enum! {
    /// What an internal target is.
    pub enum TargetType {
        Function = "function",
        Class = "class",
        Variable = "variable",
        Module = "module",
    }
}

text_enum! {
    /// A function's class, after `Code2Bench`.
    pub enum FunctionClass {
        /// Uses only its parameters, builtins and names it defines.
        SelfContained = "self_contained",
        /// Also uses allow-listed standard and third-party libraries.
        WeaklySelfContained = "weakly_self_contained",
        /// Uses other code of its repository.
        RepoDependent = "repo_dependent",
        /// Cannot be a task (side effects, randomness, no parameters, ...).
        Rejected = "rejected",
    }
}

text_enum! {
    /// How a test of a repository's own suite ended.
    pub enum TestOutcome {
        Passed = "passed",
        Failed = "failed",
        /// An error in setup or teardown, a collection error, or a test that ended its
        /// process (`os._exit`, a signal).
        Error = "error",
        Skipped = "skipped",
        Timeout = "timeout",
        /// The repository's environment did not build (a failure of the harness's input, not
        /// of the test).
        EnvError = "env_error",
    }
}

text_enum! {
    /// The isolation a run of code really had.
    pub enum Isolation {
        /// Fresh Linux namespaces.
        Namespaces = "namespaces",
        /// Only rlimits and a process group.
        RlimitsOnly = "rlimits-only",
        /// A container.
        Docker = "docker",
        /// Nothing ran (the row records why).
        None = "none",
    }
}

text_enum! {
    /// A task family.
    pub enum Family {
        Function = "function",
        Completion = "completion",
        Assertion = "assertion",
    }
}

text_enum! {
    /// Whether synthesize-tests made a usable task.
    pub enum TaskStatus {
        Ok = "ok",
        /// The function cannot be a task (the reason says why).
        Rejected = "rejected",
        /// The harness failed on it (its environment did not build, no worker started):
        /// nothing is known of the function, and a rerun tries it again.
        Infra = "infra",
    }
}

text_enum! {
    /// Where a function task's prompt comes from.
    pub enum PromptKind {
        /// The function's own docstring.
        Docstring = "docstring",
        /// Built from the signature and the cases.
        Synthesized = "synthesized",
    }
}

text_enum! {
    /// Why a coverage search stopped.
    pub enum SearchStop {
        FullCoverage = "full coverage",
        CallBudget = "call budget",
        TimeBudget = "time budget",
        NoProgress = "no progress",
        /// No input could be generated (a type no strategy covers).
        NoStrategy = "no strategy",
        /// No search ran (the function was rejected before, or the harness failed).
        NotRun = "not run",
    }
}

text_enum! {
    /// The verdict of a task's own check (`execute --validate`).
    pub enum ValidationStatus {
        /// The original passes, the empty body fails, the results are stable.
        Valid = "valid",
        /// A check failed; the row says which and why.
        Invalid = "invalid",
        /// The harness failed (no sandbox, no environment): nothing is known of the task,
        /// and a rerun checks it again.
        Infra = "infra",
    }
}

text_enum! {
    /// How the slicing of a task ended.
    pub enum SliceStatus {
        /// Traced; the figures are set.
        Ok = "ok",
        /// A traced run went over its time limit.
        Timeout = "timeout",
        /// A traced run executed more statements than the cap.
        TooLarge = "too_large",
        /// The run could not be traced or sliced (`reason`): the code replaced the tracer,
        /// the statement asked about never ran, the run failed.
        Untraceable = "untraceable",
    }
}

text_enum! {
    /// Whether a model could be asked for an answer.
    pub enum AnswerStatus {
        Ok = "ok",
        /// No answer (the endpoint failed, the program crashed); a rerun asks again.
        Error = "error",
    }
}

text_enum! {
    /// How a candidate did against its task.
    pub enum ExecStatus {
        Pass = "pass",
        /// Every case ran; some gave the wrong value.
        Fail = "fail",
        /// Some case raised where it should have returned, or the process died.
        Error = "error",
        Timeout = "timeout",
        Memory = "memory",
        /// The answer does not compile.
        Syntax = "syntax",
        /// Caught doing what the sandbox forbids.
        SandboxViolation = "sandbox_violation",
        /// The harness failed (a sandbox that did not start, an environment that did not
        /// build, a worker lost for a reason of the host): not the model's failure, left out
        /// of pass@k, counted in the report, and run again by a rerun.
        Infra = "infra",
    }
}

text_enum! {
    /// The diagnosis of a failure, after `Code2Bench`.
    pub enum Fingerprint {
        Syntax = "syntax",
        /// It broke while running.
        Runtime = "runtime",
        /// It ran and was wrong.
        Logic = "logic",
    }
}

text_enum! {
    /// How the scores of a run are grouped.
    pub enum Breakdown {
        Overall = "overall",
        Family = "family",
        Class = "class",
        Repo = "repo",
        Difficulty = "difficulty",
        /// Tertile (`low`, `medium`, `high`, `unknown` without a slice) of ESV, the
        /// reading load of the task's slice.
        Esv = "esv",
        /// Tertile of MCL, the simulation depth of the task's slice.
        Mcl = "mcl",
        /// Tertile of DFI, the integration width of the task's slice.
        Dfi = "dfi",
        /// Before or after the cutoff, by the date of the task's code.
        Window = "window",
        /// The quarter of the task's code date (`2026Q2`): the contamination curve.
        Quarter = "quarter",
        /// The syntax level of a completion task's masked span (`expression`, `statement`,
        /// `block`, `function`); completion tasks only.
        Level = "level",
        /// The form of an assertion task (`value`, `verify`); assertion tasks only.
        Form = "form",
        /// The program of an assertion task (`original`, `mutated`); assertion tasks only.
        Program = "program",
    }
}

text_enum! {
    /// What an assertion task's subject is compared with, in its test.
    pub enum AssertionKind {
        /// `assert X == V` (or `V == X`, `X is None`), `assertEqual(X, V)` and its kin,
        /// `assert V in X` / `assertIn(V, X)` (X, the container, is asked for).
        Equal = "equal",
        /// `assert X == pytest.approx(V)`, `assertAlmostEqual(X, V)`: floats within
        /// pytest's default tolerance.
        Approx = "approx",
        /// `assertTrue(X)` / `assertFalse(X)`: X's value itself.
        Truth = "truth",
        /// `with pytest.raises(E):` / `with self.assertRaises(E):`: the type of the
        /// exception the block raises.
        Raises = "raises",
    }
}

text_enum! {
    /// The two forms of an assertion task.
    pub enum AssertionForm {
        /// Predict the subject's value (the expected value is masked).
        Value = "value",
        /// Given the assertion with a claimed value, say whether it holds (True / False).
        Verify = "verify",
    }
}

text_enum! {
    /// The syntax level of a masked span.
    pub enum SpanKind {
        Expression = "expression",
        Statement = "statement",
        Block = "block",
        Function = "function",
    }
}

/// What a result claims when nothing better is known: the least isolation.
impl Default for Isolation {
    fn default() -> Isolation {
        Isolation::RlimitsOnly
    }
}

impl ExecStatus {
    /// Whether the row is the harness's failure rather than the candidate's: such rows are
    /// left out of pass@k and are never kept by a rerun.
    pub fn is_infra(self) -> bool {
        self == ExecStatus::Infra
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_unknown_text_is_refused() {
        for s in ExecStatus::ALL {
            assert_eq!(s.as_str().parse::<ExecStatus>().unwrap(), *s);
        }
        assert_eq!(Isolation::RlimitsOnly.to_string(), "rlimits-only");
        let err = "passed".parse::<ExecStatus>().unwrap_err().to_string();
        assert!(err.contains("`pass`") && err.contains("`infra`"), "{err}");
    }

    #[test]
    fn serde_uses_the_text() {
        assert_eq!(
            serde_json::to_string(&SearchStop::FullCoverage).unwrap(),
            "\"full coverage\""
        );
        let back: Isolation = serde_json::from_str("\"rlimits-only\"").unwrap();
        assert_eq!(back, Isolation::RlimitsOnly);
    }
}
