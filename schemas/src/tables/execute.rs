//! Tables written by `execute` (and `slice`, which runs code through it).

use crate::enums::{Family, Isolation, TestOutcome, ValidationStatus};
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
    /// One row per task: its difficulty, from the dynamic slice of what it executes.
    pub struct Slice in "slices" written_by "slice" {
        /// The task.
        pub task_id: String,
        /// The task's family.
        pub family: Family,
        /// ESV, reading load: lines of code of all functions in the dynamic slice.
        pub esv: i32,
        /// MCL, simulation depth: statements executed in the slice, with repetition.
        pub mcl: i64,
        /// DFI, integration width: independent external inputs feeding the slice.
        pub dfi: i32,
        /// Files touched.
        pub files: i32,
        /// Modules touched.
        pub modules: i32,
        /// Functions in the slice.
        pub functions: i32,
    }
}
