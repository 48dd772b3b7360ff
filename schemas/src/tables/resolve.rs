//! Tables written by `resolve`.

use crate::enums::{CodeDateSource, ParamKind, ParseStatus, RefKind, TargetType};
use crate::types::Timestamp;
use crate::{record, table};

record! {
    /// Where a file failed to parse.
    pub struct SyntaxError {
        /// 1-based line of the error node.
        pub line: i32,
        /// 0-based column (bytes) of the error node.
        pub column: i32,
        /// 1-based last line of the error node.
        pub end_line: i32,
        /// What the parser reported: `ERROR` (unexpected text) or `MISSING x`.
        pub message: String,
    }
}

table! {
    /// One row per parsed Python file: its module name and whether it parsed.
    /// (Not in DESIGN.md's list: resolve needs somewhere to record syntax errors of files
    /// that hold no function, and the module map is what later stages import by.)
    pub struct Module in "modules" written_by "resolve" {
        /// The repository (`repos.repo_id`).
        pub repo_id: String,
        /// Path relative to the repository root.
        pub path: String,
        /// Dotted module name (`pkg.sub.mod`; `pkg` for `pkg/__init__.py`), after stripping a `src/` layout folder.
        pub module: String,
        /// Whether the file is a package's `__init__.py`.
        pub is_package: bool,
        /// Whether the file parsed.
        pub parse_status: ParseStatus,
        /// Where parsing failed; empty when ok.
        pub errors: Vec<SyntaxError>,
        /// Functions and methods found (including those in files with errors).
        pub functions: i32,
    }
}

record! {
    /// One parameter of a function.
    pub struct Param {
        /// The name (without `*` or `**`).
        pub name: String,
        /// How it is passed.
        pub kind: ParamKind,
        /// The annotation's source text.
        pub annotation: Option<String>,
        /// The default value's source text.
        pub default: Option<String>,
    }
}

table! {
    /// One row per function and method definition (nested ones included).
    pub struct Function in "functions" written_by "resolve" {
        /// Content hash of repository, path, qualified name and source (32 hex digits).
        pub function_id: String,
        /// The repository (`repos.repo_id`).
        pub repo_id: String,
        /// File path relative to the repository root.
        pub path: String,
        /// Dotted module name of the file.
        pub module: String,
        /// Qualified name within the module (`Class.method`, `outer.<locals>.inner`).
        pub qualname: String,
        /// The bare name.
        pub name: String,
        /// The enclosing class's qualified name, for methods.
        pub class_name: Option<String>,
        /// Defined directly in a class body.
        pub is_method: bool,
        /// Defined inside another function.
        pub is_nested: bool,
        /// `async def`.
        pub is_async: bool,
        /// Contains `yield` (in its own body, not in nested functions).
        pub is_generator: bool,
        /// Has a `return` with a value (in its own body).
        pub returns_value: bool,
        /// Declares `global` or `nonlocal` names that it assigns.
        pub writes_globals: bool,
        /// Byte offset of the definition's start (decorators included).
        pub start_byte: i64,
        /// Byte offset just past its end.
        pub end_byte: i64,
        /// 1-based first line (decorators included).
        pub start_line: i32,
        /// 1-based last line.
        pub end_line: i32,
        /// Parameters in order (`self`/`cls` included for methods).
        pub params: Vec<Param>,
        /// The return annotation's source text.
        pub returns: Option<String>,
        /// Decorators' source text, without `@`, in order.
        pub decorators: Vec<String>,
        /// The docstring's value (quotes removed, indentation cleaned), if it has one.
        pub docstring: Option<String>,
        /// The definition's source text, decorators included.
        pub source: String,
        /// Lines of the definition, blank lines and comments excluded.
        pub lines: i32,
        /// McCabe cyclomatic complexity (1 + decision points).
        pub complexity: i32,
        /// Lies in a region of the file that failed to parse.
        pub has_syntax_error: bool,
        /// A hash of its code as a syntax tree (32 hex digits): formatting, comments, its
        /// docstring and its name left out, so the same code reformatted, moved to another
        /// file or renamed has the same hash.
        pub code_hash: String,
        /// The earliest publication known to hold its code (`code_hash`): the earliest fetched
        /// earlier version that has it, else the crawled version's publication (an upper
        /// bound, see `code_date_source`); null when nothing is known.
        pub code_date: Option<Timestamp>,
        /// Where `code_date` comes from.
        pub code_date_source: Option<CodeDateSource>,
        /// The earlier version (`snapshots.version`) whose code first holds it; null when only
        /// the crawled version does.
        pub first_seen: Option<String>,
        /// Its code is newer than the cutoff (`code_date` after it); null without a cutoff or
        /// a code date.
        pub after_cutoff: Option<bool>,
    }
}

table! {
    /// One row per distinct free name (with the attribute chain it is used through) that
    /// a function uses and does not define, with what it resolves to.
    pub struct Reference in "references" written_by "resolve" {
        /// The function using it (`functions.function_id`).
        pub function_id: String,
        /// The repository.
        pub repo_id: String,
        /// The name as written (first identifier of the chain).
        pub name: String,
        /// The longest dotted chain it is used through (`os.path.join`), the name alone when none.
        pub chain: String,
        /// What it resolves to.
        pub kind: RefKind,
        /// For stdlib and third-party: the top-level package (`os`, `numpy`); for internal: the module defining it.
        pub target_module: Option<String>,
        /// The fully qualified target the chain reaches (`os.path.join`, `pkg.util.helper`).
        pub target: Option<String>,
        /// For internal: the file defining it.
        pub target_path: Option<String>,
        /// For internal: what it is.
        pub target_type: Option<TargetType>,
        /// Used as the callee of a call somewhere in the function.
        pub is_call: bool,
        /// Assigned to (through `global`/`nonlocal`) rather than only read.
        pub is_store: bool,
        /// How many times the function uses it.
        pub count: i32,
        /// 1-based line of the first use.
        pub line: i32,
        /// Why it stayed unresolved; null otherwise.
        pub reason: Option<String>,
    }
}
