//! Tables written by `synthesize-tests`.

use crate::enums::{CodeDateSource, FunctionClass, PromptKind, SearchStop, TaskStatus};
use crate::table;
use crate::types::Timestamp;

table! {
    /// One row per `function` task: implement a function from its docstring and signature.
    pub struct FunctionTask in "function_tasks" written_by "synthesize-tests" {
        /// Content hash of `function_id`, the prompt and the reference solution (32 hex digits);
        /// nothing else (see the dataset card's task-version rule).
        pub task_id: String,
        /// The function it was made from.
        pub function_id: String,
        /// The repository.
        pub repo_id: String,
        /// The function's class (`self_contained` or `weakly_self_contained`).
        pub class: FunctionClass,
        /// What the model gets: imports, signature and docstring.
        pub prompt: String,
        /// `docstring`: the function's own; `synthesized`: built from signature and cases.
        pub prompt_kind: PromptKind,
        /// The function's name, as the candidate must define it.
        pub entry_point: String,
        /// The original function (the reference solution), imports included.
        pub canonical_solution: String,
        /// The function's `code_date` (`functions.code_date`): when its code was first
        /// published, as far as is known.
        pub code_date: Option<Timestamp>,
        /// Where `code_date` comes from.
        pub code_date_source: Option<CodeDateSource>,
        /// The function's code is newer than the cutoff (`functions.after_cutoff`).
        pub after_cutoff: Option<bool>,
        /// `rejected` comes with a reason.
        pub status: TaskStatus,
        /// Why it was rejected (`nondeterministic`, `coverage`, `mutation_score`,
        /// `no_usable_input`, `load_error`, ...: the word before the first `:`), with details.
        pub reason: Option<String>,
        /// Test cases kept.
        pub cases: i32,
        /// Of them, edge values kept beyond what they cover (`test_cases.is_edge`).
        pub edge_cases: i32,
        /// Arcs of the original (coverage.py's static arcs: every line-to-line transfer,
        /// entries and exits included) covered by the cases.
        pub arcs_covered: i32,
        /// Arcs of the original in all; full coverage is `arcs_covered = arcs_total`.
        pub arcs_total: i32,
        /// Branch arcs (arcs leaving a line that has two or more) covered by the cases.
        pub branches_covered: i32,
        /// Branch arcs of the original in all (0 for straight-line code).
        pub branches_total: i32,
        /// Why the search stopped.
        pub stop: SearchStop,
        /// Mutants generated.
        pub mutants_total: i32,
        /// Mutants some case told apart from the original.
        pub mutants_killed: i32,
        /// mutants_killed / mutants_total (null without mutants).
        pub mutation_score: Option<f64>,
        /// The share killed of the held-out half of the mutants (every second one), which the
        /// search did not complete the cases for (null with fewer than two mutants).
        pub held_out_mutation_score: Option<f64>,
        /// Calls to the original made by the search.
        pub calls: i32,
        /// Time the coverage search took, seconds (records when it ran).
        pub search_seconds: f64,
        /// Time the whole synthesis took (search, determinism re-check, mutants), seconds.
        pub seconds: f64,
        /// Hash of what shapes the result: the function, the options (budgets, gates) and
        /// synthesize-tests' build id; a rerun redoes the task when it differs.
        pub config_hash: String,
    }
}

table! {
    /// One row per test case of a function task: an input and the behaviour the original showed.
    pub struct TestCase in "test_cases" written_by "synthesize-tests" {
        /// Content hash of the task and the input.
        pub case_id: String,
        /// The task (`function_tasks.task_id`).
        pub task_id: String,
        /// Position in the task's case list.
        pub ordinal: i32,
        /// Positional arguments, a Python literal list (`[1, 'a']`).
        pub args: String,
        /// Keyword arguments, a Python literal dict.
        pub kwargs: String,
        /// The returned value's `repr`, when it returned.
        pub expected_repr: Option<String>,
        /// The returned value as tagged JSON (types kept: tuple, set, float NaN ...).
        pub expected_json: Option<String>,
        /// The exception type raised, when it raised.
        pub expected_exception: Option<String>,
        /// One of the edge values (empty, zero, NaN, ...) rather than a coverage find.
        pub is_edge: bool,
        /// Seeded from arguments the repository's own tests called the function with
        /// (`observed_calls`), as they were or mutated by the search.
        pub from_observed: bool,
        /// Branch arcs this case covers.
        pub arcs: i32,
    }
}
