//! What can go wrong in `mask`, with what to do about it.

use std::path::PathBuf;

/// Errors of the library: bad input that the user can fix, and bugs of the build.
#[derive(Debug, thiserror::Error)]
pub enum MaskError {
    /// The dataset has no `repo_tests` table: the judges of a completion task come from it.
    #[error(
        "{path}: table not found; the judges of completion tasks are the repositories' own \
         tests, so run `execute --data {dir} --repo-tests` first (it writes `repo_tests`)"
    )]
    NoRepoTests { path: PathBuf, dir: PathBuf },
    /// An option out of its range.
    #[error("{flag} {value}: {expected}")]
    BadOption {
        flag: &'static str,
        value: String,
        expected: &'static str,
    },
    /// tree-sitter-python does not fit the tree-sitter library.
    #[error("tree-sitter-python does not fit the tree-sitter library ({0}); this is a bug in freshbench's build")]
    Language(#[from] tree_sitter::LanguageError),
}
