//! Tables written by `mask`.

use crate::enums::{AssertionForm, AssertionKind, CodeDateSource, SpanKind};
use crate::types::Timestamp;
use crate::{record, table};

record! {
    /// A piece of cross-file context offered with a completion task.
    pub struct ContextSnippet {
        /// File it comes from.
        pub path: String,
        /// The text offered.
        pub text: String,
        /// Rank score (higher first): the tier (2: a definition the masked file imports
        /// by name, 1: other code of a repository module it imports, 0: other files) plus
        /// the BM25 score against the prefix and suffix, squashed into [0, 1).
        pub score: f64,
    }
}

table! {
    /// One row per `completion` task: a file with one AST span masked.
    pub struct CompletionTask in "completion_tasks" written_by "mask" {
        /// Content hash of repository, path, span and span text.
        pub task_id: String,
        /// The repository.
        pub repo_id: String,
        /// The function containing the span, if any.
        pub function_id: Option<String>,
        /// File path.
        pub path: String,
        /// The syntax level of the span.
        pub span_kind: SpanKind,
        /// Byte offset where the mask starts: an expression's first character; for
        /// statement, block and function spans the first character of the first line's
        /// code (the line's indentation stays in the prefix).
        pub start_byte: i64,
        /// Byte offset just past the mask: just past the span's last character of code (a
        /// newline or a trailing comment after it stays in the suffix).
        pub end_byte: i64,
        /// 1-based first masked line.
        pub start_line: i32,
        /// 1-based last masked line.
        pub end_line: i32,
        /// Text before the mask; `prefix + reference + suffix` is the file's text exactly.
        /// For statement, block and function spans it ends with `indent`.
        pub prefix: String,
        /// Text after the mask.
        pub suffix: String,
        /// The masked text (the reference answer), without leading or trailing blank space.
        pub reference: String,
        /// The indentation of the masked span's first line, the end of the prefix for
        /// statement, block and function spans (a fill's later lines are re-indented to it).
        pub indent: String,
        /// Ranked cross-file context, ranked from the prefix and suffix only (never the
        /// masked text), within `context_budget`.
        pub context: Vec<ContextSnippet>,
        /// Tokens of `context` (whitespace- and punctuation-split words, the budget's unit).
        pub context_tokens: i32,
        /// The token budget the context was chosen within.
        pub context_budget: i32,
        /// The judges: every passing, non-flaky repository test that executes the span
        /// (`repo_tests.node_id`); together they execute every line of it.
        pub tests: Vec<String>,
        /// Their seconds in `repo_tests`, summed (what judging one answer costs).
        pub tests_seconds: f64,
        /// The `code_date` of the code the span is made from (its function's, else its
        /// file's newest).
        pub code_date: Option<Timestamp>,
        /// Where `code_date` comes from.
        pub code_date_source: Option<CodeDateSource>,
        /// That code is newer than the cutoff.
        pub after_cutoff: Option<bool>,
    }
}

table! {
    /// One row per `assertion` task (RepoReason's family): a real assertion of a
    /// repository test with its expected value masked, the answer recorded by execution.
    /// An assertion (a `group_id`) gives tasks on the original program and on mutated
    /// variants of it (one mutant of repository code the test executes, under which the
    /// subject's value changes and nothing raises before the assertion), in two forms.
    pub struct AssertionTask in "assertion_tasks" written_by "mask" {
        /// Content hash of the group, the program (original or mutant), the form and the
        /// claim.
        pub task_id: String,
        /// The assertion: content hash of the repository, the test, the assertion's place
        /// and text. Every task of one assertion shares it.
        pub group_id: String,
        /// The repository.
        pub repo_id: String,
        /// The test (`repo_tests.node_id`), passing and not flaky.
        pub test_node_id: String,
        /// The test file.
        pub path: String,
        /// 1-based line of the assertion.
        pub line: i32,
        /// Byte offsets in the test file of what the judge rewrites: the assertion
        /// statement (`equal`, `approx`, `truth`) or the `raises` call of the with-item.
        pub start_byte: i64,
        /// Just past it.
        pub end_byte: i64,
        /// What the subject is compared with in the test.
        pub kind: AssertionKind,
        /// `value` (predict the subject) or `verify` (does the shown assertion hold?).
        pub form: AssertionForm,
        /// The subject: the expression whose value is asked for (`raises`: the block's
        /// first line).
        pub subject: String,
        /// The test function as the model sees it, the assertion replaced by
        /// `masked_assertion`, after the test file's imports.
        pub test_source: String,
        /// The assertion as shown: its expected value replaced by `??` (value form), or
        /// by `claim` (verify form).
        pub masked_assertion: String,
        /// Repository code the test executes, ranked by how many of its lines ran (the
        /// mutated function first on a variant, in its mutated text), within
        /// `context_budget` tokens.
        pub code_context: Vec<ContextSnippet>,
        /// Tokens of `code_context` (the unit of completion tasks' budget).
        pub context_tokens: i32,
        /// The budget `code_context` was chosen within.
        pub context_budget: i32,
        /// This task's program is a mutated variant (else the original).
        pub mutated: bool,
        /// The mutant (`mutants` id), when mutated.
        pub mutant_id: Option<String>,
        /// The mutated source file, when mutated.
        pub mutated_path: Option<String>,
        /// That file's whole text under the mutation (the variant's program is the
        /// repository with this file in place), when mutated.
        pub mutated_text: Option<String>,
        /// The mutation in one line (`path:line: old -> new`), when mutated.
        pub mutation: Option<String>,
        /// The subject's value on this task's program as recorded by execution (a tagged
        /// value, `execute::Value` JSON; `raises`: the exception type's qualified name as
        /// a `str`).
        pub value_json: String,
        /// That value as Python text (objects as their `repr`).
        pub value_python: String,
        /// The subject's value on the original program (the memorized answer); equal to
        /// `value_json` when not mutated.
        pub original_json: String,
        /// Verify form: the claimed value, as Python text (shown in `masked_assertion`).
        pub claim: Option<String>,
        /// The answer: `value_python` for the value form; `True` or `False` for verify.
        pub answer: String,
        /// The test's seconds in `repo_tests` (what judging a non-literal answer costs).
        pub tests_seconds: f64,
        /// Wall-clock seconds mask spent recording this assertion: its share of the
        /// recording run of its test file, and the mutant runs tried for it (the same for
        /// every task of the assertion; records when it ran).
        pub record_seconds: f64,
        /// The newest `code_date` of the repository code in `code_context`.
        pub code_date: Option<Timestamp>,
        /// Where `code_date` comes from.
        pub code_date_source: Option<CodeDateSource>,
        /// That code is newer than the cutoff.
        pub after_cutoff: Option<bool>,
    }
}
