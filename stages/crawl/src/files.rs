//! Which files of a repository go into the `files` table, of which kind, and how each
//! becomes a row (kept with its text, or skipped with a reason).

use std::path::Path;

use schemas::{File, FileStatus, LineRange};

use crate::tree::{Entry, Tree};

/// Dependency-defining files recognised at the repository root.
const ROOT_DEPENDENCY_FILES: &[&str] = &["pyproject.toml", "setup.cfg", "setup.py"];
/// Folder names that make every Python file below them a test.
const TEST_DIRS: &[&str] = &["tests", "test", "testing"];

/// The `files.kind` of a recorded file.
pub use schemas::FileKind as Kind;

/// Gives the changed line ranges of a file from its path and text.
pub type ChangedLines<'a> = &'a dyn Fn(&str, &str) -> Vec<LineRange>;

/// The kind of the file at `path` (relative, `/`-separated), or `None` when it is not
/// recorded: every `*.py` (a test under a `tests`/`test`/`testing` folder or named
/// `test_*.py`, `*_test.py`, `conftest.py`), `requirements*.txt` in any folder, and
/// `pyproject.toml`, `setup.cfg`, `setup.py` at the root.
pub fn classify(path: &str) -> Option<Kind> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if dir.is_empty() && ROOT_DEPENDENCY_FILES.contains(&name) {
        return Some(Kind::Dependency);
    }
    // Case matters, as it does to pip and to Python imports.
    if name.starts_with("requirements") && Path::new(name).extension().is_some_and(|e| e == "txt") {
        return Some(Kind::Dependency);
    }
    let stem = name.strip_suffix(".py").filter(|s| !s.is_empty())?;
    let in_test_dir = dir.split('/').any(|d| TEST_DIRS.contains(&d));
    if in_test_dir || stem.starts_with("test_") || stem.ends_with("_test") || name == "conftest.py"
    {
        Some(Kind::Test)
    } else {
        Some(Kind::Source)
    }
}

/// Whether `path` is a license file at the root (`LICENSE*`, `LICENCE*`, `COPYING*`, any
/// case, not a Python file).
pub fn is_license_file(path: &str) -> bool {
    let upper = path.to_ascii_uppercase();
    !path.contains('/')
        && !Path::new(path)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("py"))
        && ["LICENSE", "LICENCE", "COPYING"]
            .iter()
            .any(|p| upper.starts_with(p))
}

/// Whether `crawl` needs the file at `path`: recorded in `files`, or read for metadata
/// (`PKG-INFO` and license files at the root).
pub fn is_wanted(path: &str) -> bool {
    classify(path).is_some() || path == "PKG-INFO" || is_license_file(path)
}

/// The `files` rows of a tree: its recorded files in path order. `changed` gives the
/// changed line ranges of a path (git sources with a cutoff); `None` leaves them null.
pub fn file_rows(
    repo_id: &str,
    tree: &Tree,
    max_file_bytes: u64,
    changed: Option<ChangedLines<'_>>,
) -> Vec<File> {
    tree.entries
        .iter()
        .filter_map(|(path, entry)| {
            let kind = classify(path)?;
            let mut row = file_row(repo_id, path, kind, entry, max_file_bytes);
            if let (Some(changed), Some(content)) = (changed, row.content.as_deref()) {
                row.changed_lines = Some(changed(path, content));
            }
            Some(row)
        })
        .collect()
}

/// One `files` row: `ok` with the text (a UTF-8 BOM removed), or `skipped` with the
/// reason and no content.
pub fn file_row(repo_id: &str, path: &str, kind: Kind, entry: &Entry, max_file_bytes: u64) -> File {
    let (sha256, size, content, reason) = match entry {
        Entry::Link { sha256, size, what } => (sha256, *size, None, Some(what.clone())),
        Entry::File {
            sha256,
            size,
            bytes: None,
        } => (
            sha256,
            *size,
            None,
            Some(format!("larger than {max_file_bytes} bytes")),
        ),
        Entry::File {
            sha256,
            size,
            bytes: Some(bytes),
        } => match std::str::from_utf8(bytes) {
            Ok(text) => (
                sha256,
                *size,
                Some(text.strip_prefix('\u{feff}').unwrap_or(text).to_string()),
                None,
            ),
            Err(e) => (
                sha256,
                *size,
                None,
                Some(format!(
                    "not valid UTF-8 (first bad byte at offset {})",
                    e.valid_up_to()
                )),
            ),
        },
    };
    File {
        repo_id: repo_id.to_string(),
        path: path.to_string(),
        kind,
        sha256: sha256.clone(),
        size: size as i64,
        status: if reason.is_some() {
            FileStatus::Skipped
        } else {
            FileStatus::Ok
        },
        content,
        bytes: None,
        reason,
        changed_lines: None,
        line_dates: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let cases = [
            ("pkg/mod.py", Some(Kind::Source)),
            ("setup.py", Some(Kind::Dependency)),
            ("docs/setup.py", Some(Kind::Source)),
            ("pyproject.toml", Some(Kind::Dependency)),
            ("sub/pyproject.toml", None),
            ("setup.cfg", Some(Kind::Dependency)),
            ("requirements.txt", Some(Kind::Dependency)),
            ("ci/requirements-dev.txt", Some(Kind::Dependency)),
            ("tests/helpers.py", Some(Kind::Test)),
            ("src/pkg/testing/util.py", Some(Kind::Test)),
            ("pkg/test_x.py", Some(Kind::Test)),
            ("pkg/x_test.py", Some(Kind::Test)),
            ("conftest.py", Some(Kind::Test)),
            ("pkg/testimony.py", Some(Kind::Source)),
            ("README.md", None),
            (".py", None),
            ("x.pyc", None),
        ];
        for (path, kind) in cases {
            assert_eq!(classify(path), kind, "{path}");
        }
    }

    #[test]
    fn license_files() {
        for p in [
            "LICENSE",
            "LICENSE.txt",
            "License.md",
            "LICENCE",
            "COPYING.LESSER",
            "LICENSE-MIT",
        ] {
            assert!(is_license_file(p), "{p}");
        }
        for p in ["docs/LICENSE", "license.py", "README"] {
            assert!(!is_license_file(p), "{p}");
        }
    }

    #[test]
    fn rows_ok_bom_utf8_size_link() {
        let file = |bytes: Option<&[u8]>, size| Entry::File {
            sha256: "h".into(),
            size,
            bytes: bytes.map(<[u8]>::to_vec),
        };
        let ok = file_row(
            "r",
            "a.py",
            Kind::Source,
            &file(Some(b"\xef\xbb\xbfx = 1\n"), 9),
            100,
        );
        assert_eq!(
            (ok.status, ok.content.as_deref(), ok.size),
            (FileStatus::Ok, Some("x = 1\n"), 9)
        );
        let bad = file_row("r", "a.py", Kind::Source, &file(Some(b"ab\xffc"), 4), 100);
        assert_eq!(
            bad.reason.as_deref(),
            Some("not valid UTF-8 (first bad byte at offset 2)")
        );
        assert!(bad.content.is_none());
        let big = file_row("r", "a.py", Kind::Source, &file(None, 500), 100);
        assert_eq!(
            (big.status, big.reason.as_deref(), big.size),
            (FileStatus::Skipped, Some("larger than 100 bytes"), 500)
        );
        let link = file_row(
            "r",
            "a.py",
            Kind::Source,
            &Entry::link("symlink", "/etc/passwd"),
            100,
        );
        assert_eq!(
            link.reason.as_deref(),
            Some("symlink to /etc/passwd, not followed")
        );
    }
}
