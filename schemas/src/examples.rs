//! Plain example rows for tests that build a dataset by hand: every field filled with a
//! neutral value, so a test names only the fields it is about
//! (`Repo { license: Some("MIT".into()), ..examples::repo("r1", "alpha") }`). Compiled
//! into the library (it is small) so that integration tests of every stage reach it without
//! a feature that would make `cargo build` and `cargo test` compile the workspace twice.

use crate::{
    CompletionTask, Family, Function, FunctionClass, FunctionTask, Isolation, PromptKind, Repo,
    RepoStatus, SearchStop, Slice, SliceStatus, SourceKind, SpanKind, TaskStatus, Validation,
    ValidationStatus,
};

/// A crawled repository from a local path: status `ok`, no version, license or dates.
pub fn repo(repo_id: &str, name: &str) -> Repo {
    Repo {
        repo_id: repo_id.into(),
        source: SourceKind::Path,
        spec: format!("path:{name}"),
        name: name.into(),
        version: None,
        git_ref: None,
        commit: None,
        published_at: None,
        url: None,
        license: None,
        license_source: None,
        cutoff: None,
        status: RepoStatus::Ok,
        reason: None,
        files_total: 0,
        files_skipped: 0,
    }
}

/// A function `f(x)` of `m.py` that doubles its argument, undated.
pub fn function(function_id: &str, repo_id: &str) -> Function {
    Function {
        function_id: function_id.into(),
        repo_id: repo_id.into(),
        path: "m.py".into(),
        module: "m".into(),
        qualname: "f".into(),
        name: "f".into(),
        class_name: None,
        is_method: false,
        is_nested: false,
        is_async: false,
        is_generator: false,
        returns_value: true,
        writes_globals: false,
        start_byte: 0,
        end_byte: 26,
        start_line: 1,
        end_line: 2,
        params: Vec::new(),
        returns: None,
        decorators: Vec::new(),
        docstring: None,
        source: "def f(x):\n    return 2 * x".into(),
        lines: 2,
        complexity: 1,
        has_syntax_error: false,
        code_hash: "code".into(),
        code_date: None,
        code_date_source: None,
        first_seen: None,
        after_cutoff: None,
    }
}

/// An `ok` task of a self-contained function `f` that doubles its argument: 3 cases, full
/// coverage (2 of 2 arcs, no branches), 4 mutants all killed.
pub fn function_task(task_id: &str, repo_id: &str) -> FunctionTask {
    FunctionTask {
        task_id: task_id.into(),
        function_id: format!("f-{task_id}"),
        repo_id: repo_id.into(),
        class: FunctionClass::SelfContained,
        prompt: "def f(x):\n    \"\"\"Doubles x.\"\"\"\n".into(),
        prompt_kind: PromptKind::Docstring,
        entry_point: "f".into(),
        canonical_solution: "def f(x):\n    return 2 * x\n".into(),
        code_date: None,
        code_date_source: None,
        after_cutoff: None,
        status: TaskStatus::Ok,
        reason: None,
        cases: 3,
        edge_cases: 0,
        arcs_covered: 2,
        arcs_total: 2,
        branches_covered: 0,
        branches_total: 0,
        stop: SearchStop::FullCoverage,
        mutants_total: 4,
        mutants_killed: 4,
        mutation_score: Some(1.0),
        held_out_mutation_score: Some(1.0),
        calls: 10,
        search_seconds: 0.1,
        seconds: 0.2,
        config_hash: "cfg".into(),
    }
}

/// The validation of a function task with 3 cases: the original passes and the null body
/// fails when `valid`; otherwise the original fails.
pub fn validation(task_id: &str, valid: bool) -> Validation {
    Validation {
        task_id: task_id.into(),
        family: Family::Function,
        original_passes: valid,
        null_fails: true,
        stable: true,
        status: if valid {
            ValidationStatus::Valid
        } else {
            ValidationStatus::Invalid
        },
        valid,
        cases: 3,
        original_seconds: 0.01,
        mutants_total: None,
        mutants_killed: None,
        reason: (!valid).then(|| "original_fails".to_string()),
        isolation: Isolation::Namespaces,
        input_hash: "input".into(),
    }
}

/// A completion task of repository `repo_id`: `pkg/mod.py` with the expression `a + b`
/// masked on line 2, judged by one test.
pub fn completion_task(task_id: &str, repo_id: &str) -> CompletionTask {
    let prefix = "def add(a, b):\n    return ".to_string();
    CompletionTask {
        task_id: task_id.into(),
        repo_id: repo_id.into(),
        function_id: Some("f-add".into()),
        path: "pkg/mod.py".into(),
        span_kind: SpanKind::Expression,
        start_byte: prefix.len() as i64,
        end_byte: prefix.len() as i64 + 5,
        start_line: 2,
        end_line: 2,
        prefix,
        suffix: "\n".into(),
        reference: "a + b".into(),
        indent: "    ".into(),
        context: Vec::new(),
        context_tokens: 0,
        context_budget: 2000,
        tests: vec!["tests/test_mod.py::test_add".into()],
        tests_seconds: 0.01,
        code_date: None,
        code_date_source: None,
        after_cutoff: None,
    }
}

/// A slice of status `ok` with every figure 1, traced by `settrace` in one unit.
pub fn slice(task_id: &str, family: Family) -> Slice {
    Slice {
        task_id: task_id.into(),
        family,
        status: SliceStatus::Ok,
        reason: None,
        esv: Some(1),
        mcl: Some(1),
        depth: Some(1),
        dfi: Some(1),
        files: Some(1),
        modules: Some(1),
        functions: Some(1),
        module_statements: Some(0),
        slice_functions: Vec::new(),
        slice_files: Vec::new(),
        inputs: Vec::new(),
        units: 1,
        units_ok: 1,
        events: 1,
        event_cap: 1_000_000,
        trace_seconds: 0.0,
        plain_seconds: 0.0,
        tracer: "settrace".into(),
        isolation: Isolation::Namespaces,
        input_hash: "0".repeat(32),
    }
}

/// A slice of status `status` (not `ok`) with its reason and no figures.
pub fn unmeasured_slice(task_id: &str, family: Family, status: SliceStatus) -> Slice {
    Slice {
        status,
        reason: Some(format!("{status} while tracing")),
        esv: None,
        mcl: None,
        depth: None,
        dfi: None,
        files: None,
        modules: None,
        functions: None,
        module_statements: None,
        ..slice(task_id, family)
    }
}
