//! Plain example rows for tests that build a dataset by hand: every field filled with a
//! neutral value, so a test names only the fields it is about
//! (`Repo { license: Some("MIT".into()), ..examples::repo("r1", "alpha") }`). Compiled
//! into the library (it is small) so that integration tests of every stage reach it without
//! a feature that would make `cargo build` and `cargo test` compile the workspace twice.

use crate::{
    Family, FunctionClass, FunctionTask, Isolation, PromptKind, Repo, RepoStatus, SearchStop,
    SourceKind, TaskStatus, Validation, ValidationStatus,
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
        reason: (!valid).then(|| "original_fails".to_string()),
        isolation: Isolation::Namespaces,
        input_hash: "input".into(),
    }
}
