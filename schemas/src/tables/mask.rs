//! Tables written by `mask`.

use crate::enums::{CodeDateSource, SpanKind};
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

record! {
    /// The expected value of an assertion on one mutated variant of the program.
    pub struct AssertionVariant {
        /// Identifies the mutation.
        pub mutant_id: String,
        /// The mutated code.
        pub code: String,
        /// The value's repr under that mutation.
        pub expected: String,
    }
}

table! {
    /// One row per `assertion` task: a test assertion with its expected value masked.
    pub struct AssertionTask in "assertion_tasks" written_by "mask" {
        /// Content hash of the test, the assertion and the code.
        pub task_id: String,
        /// The repository.
        pub repo_id: String,
        /// The test (`repo_tests.node_id`).
        pub test_node_id: String,
        /// The test file.
        pub path: String,
        /// 1-based line of the assertion.
        pub line: i32,
        /// The assertion with its expected value replaced by a placeholder.
        pub masked_assertion: String,
        /// The code it exercises, as given to the model.
        pub code_context: String,
        /// The value's repr, recorded by execution.
        pub expected: String,
        /// Mutated variants and the values they produce.
        pub variants: Vec<AssertionVariant>,
        /// The newest `code_date` of the repository code the test exercises.
        pub code_date: Option<Timestamp>,
        /// Where `code_date` comes from.
        pub code_date_source: Option<CodeDateSource>,
        /// That code is newer than the cutoff.
        pub after_cutoff: Option<bool>,
    }
}
