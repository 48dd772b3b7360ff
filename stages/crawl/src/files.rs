//! Which files of a repository go into the `files` table, of which kind, and how each
//! becomes a row (kept with its text, or skipped with a reason).

use std::path::Path;

use schemas::{Bytes, File, FileStatus, LineRange};

use crate::tree::{DataLimits, Entry, Limits, Tree, Want};

/// Dependency-defining files recognised at the repository root.
/// (`PKG-INFO`, an sdist's core metadata, has its `Requires-Dist`.)
const ROOT_DEPENDENCY_FILES: &[&str] = &[
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "tox.ini",
    "PKG-INFO",
];
/// Folder names that make every Python file below them a test.
const TEST_DIRS: &[&str] = &["tests", "test", "testing"];
/// Extensions of build output and compiled code: never data a test reads from its tree.
const JUNK_EXTENSIONS: &[&str] = &[
    "pyc", "pyo", "pyd", "so", "o", "obj", "a", "lib", "dll", "dylib", "exe", "class", "whl",
    "egg", "swp", "swo",
];
/// Junk file names wherever they are.
const JUNK_NAMES: &[&str] = &[".DS_Store", "Thumbs.db"];
/// Files of an `*.egg-info` folder that are kept: its metadata, entry points and
/// requirements (the rest is the build's file list and copies of what the tree holds).
const EGG_INFO_KEPT: &[&str] = &["PKG-INFO", "entry_points.txt", "requires.txt"];

/// The `files.kind` of a recorded file.
pub use schemas::FileKind as Kind;

/// Gives the changed line ranges of a file from its path and text.
pub type ChangedLines<'a> = &'a dyn Fn(&str, &str) -> Vec<LineRange>;

/// The kind of the file at `path` (relative, `/`-separated), or `None` when it is not
/// recorded: every `*.py` (a test under a `tests`/`test`/`testing` folder or named
/// `test_*.py`, `*_test.py`, `conftest.py`); requirement files (`*requirements*.txt` in
/// any folder, any `.txt` of a `requirements/` folder, an `*.egg-info`'s `requires.txt` at
/// the root or in `src/`) and `pyproject.toml`, `setup.cfg`, `setup.py`, `tox.ini`,
/// `PKG-INFO` at the root; and any other file as data, except build output and
/// compiled code (see [`is_junk`]). Skipped folders are the reader's to leave out.
pub fn classify(path: &str) -> Option<Kind> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if dir.is_empty() && ROOT_DEPENDENCY_FILES.contains(&name) {
        return Some(Kind::Dependency);
    }
    if is_requirements_file(dir, name) || is_egg_info_requires(path) {
        return Some(Kind::Dependency);
    }
    if let Some(stem) = name.strip_suffix(".py").filter(|s| !s.is_empty()) {
        let in_test_dir = dir.split('/').any(|d| TEST_DIRS.contains(&d));
        return if in_test_dir
            || stem.starts_with("test_")
            || stem.ends_with("_test")
            || name == "conftest.py"
        {
            Some(Kind::Test)
        } else {
            Some(Kind::Source)
        };
    }
    (!is_junk(path)).then_some(Kind::Data)
}

/// `requirements.txt`, `requirements-dev.txt`, `test-requirements.txt` in any folder, and
/// every `.txt` of a folder named `requirements` (`requirements/tests.txt`). Case
/// matters, as it does to pip.
fn is_requirements_file(dir: &str, name: &str) -> bool {
    let txt = Path::new(name).extension().is_some_and(|e| e == "txt");
    txt && (name.contains("requirements") || dir.rsplit('/').next() == Some("requirements"))
}

/// Whether a file that is not Python is junk to a test run: compiled code and build
/// output (`.pyc`, `.so`, `.whl`, ...), editor and desktop leftovers, a `.py` that is
/// empty of a name, and the files of an `*.egg-info` folder other than its metadata and
/// entry points.
pub fn is_junk(path: &str) -> bool {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if name.is_empty() || name == ".py" || JUNK_NAMES.contains(&name) || name.ends_with('~') {
        return true;
    }
    if Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| JUNK_EXTENSIONS.iter().any(|j| e.eq_ignore_ascii_case(j)))
    {
        return true;
    }
    let mut parts = dir.split('/').filter(|p| !p.is_empty());
    parts.any(|d| d.ends_with(".egg-info")) && !is_egg_info_kept(path)
}

/// The requirements setuptools wrote for the project itself: `requires.txt` of an
/// `*.egg-info` folder at the root or in `src/` (`src/pkg.egg-info/requires.txt`). An
/// sdist made by an older setuptools lists them there and not as `Requires-Dist` of its
/// `PKG-INFO`; an `*.egg-info` deeper in the tree is some other project's.
pub fn is_egg_info_requires(path: &str) -> bool {
    let Some(dir) = path.strip_suffix("/requires.txt") else {
        return false;
    };
    let dir = dir.strip_prefix("src/").unwrap_or(dir);
    !dir.contains('/') && dir.len() > ".egg-info".len() && dir.ends_with(".egg-info")
}

/// `x.egg-info/PKG-INFO`, `x.egg-info/entry_points.txt` and `x.egg-info/requires.txt`, in
/// any folder.
pub fn is_egg_info_kept(path: &str) -> bool {
    let Some((dir, name)) = path.rsplit_once('/') else {
        return false;
    };
    dir.rsplit('/')
        .next()
        .is_some_and(|d| d.ends_with(".egg-info"))
        && EGG_INFO_KEPT.contains(&name)
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

/// Why `crawl` reads the file at `path`, or `None` when it does not: Python, dependency and
/// metadata files (`PKG-INFO` and license files at the root, an `*.egg-info`'s kept files)
/// as code, any other recorded file as data.
pub fn wanted(path: &str) -> Option<Want> {
    match classify(path)? {
        Kind::Data if !(path == "PKG-INFO" || is_license_file(path) || is_egg_info_kept(path)) => {
            Some(Want::Data)
        }
        _ => Some(Want::Code),
    }
}

/// Whether `crawl` needs the file at `path`: recorded in `files`, or read for metadata.
pub fn is_wanted(path: &str) -> bool {
    wanted(path).is_some()
}

/// The `files` rows of a tree: its recorded files in path order. `changed` gives the
/// changed line ranges of a path (git sources with a cutoff; not for data files); `None`
/// leaves them null. Data files are recorded within `limits.data` (none when `None`):
/// within the repository's budget, the files under test folders first, then the smaller
/// ones; the others are recorded as skipped, with the reason.
pub fn file_rows(
    repo_id: &str,
    tree: &Tree,
    limits: &Limits,
    changed: Option<ChangedLines<'_>>,
) -> Vec<File> {
    let over_budget = limits
        .data
        .map(|data| over_data_budget(tree, &data))
        .unwrap_or_default();
    tree.entries
        .iter()
        .filter_map(|(path, entry)| {
            let kind = classify(path)?;
            let mut row = if kind == Kind::Data && wanted(path) == Some(Want::Data) {
                let data = limits.data?;
                if over_budget.contains(path) {
                    skipped_row(repo_id, path, kind, entry, budget_reason(&data))
                } else {
                    data_row(repo_id, path, entry, &data)
                }
            } else if kind == Kind::Data {
                data_row(
                    repo_id,
                    path,
                    entry,
                    &DataLimits {
                        max_file_bytes: limits.max_file_bytes,
                        max_repo_bytes: u64::MAX,
                    },
                )
            } else {
                file_row(repo_id, path, kind, entry, limits.max_file_bytes)
            };
            if kind != Kind::Data {
                if let (Some(changed), Some(content)) = (changed, row.content.as_deref()) {
                    row.changed_lines = Some(changed(path, content));
                }
            }
            Some(row)
        })
        .collect()
}

fn budget_reason(data: &DataLimits) -> String {
    format!(
        "beyond the repository's data budget of {} bytes",
        data.max_repo_bytes
    )
}

/// The data files (read as data) that do not fit the repository's budget: the budget goes
/// to files under a test folder first, then to the smaller files, then by path.
fn over_data_budget(tree: &Tree, data: &DataLimits) -> std::collections::BTreeSet<String> {
    let mut held: Vec<(bool, u64, &str)> = tree
        .entries
        .iter()
        .filter(|(p, _)| wanted(p) == Some(Want::Data))
        .filter_map(|(p, e)| match e {
            Entry::File { bytes: Some(b), .. } => {
                Some((!in_test_dir(p), b.len() as u64, p.as_str()))
            }
            _ => None,
        })
        .collect();
    held.sort_unstable();
    let mut spent = 0u64;
    let mut over = std::collections::BTreeSet::new();
    for (_, size, path) in held {
        if spent + size <= data.max_repo_bytes {
            spent += size;
        } else {
            over.insert(path.to_string());
        }
    }
    over
}

fn in_test_dir(path: &str) -> bool {
    path.rsplit_once('/')
        .is_some_and(|(dir, _)| dir.split('/').any(|d| TEST_DIRS.contains(&d)))
}

/// A `skipped` row without content.
fn skipped_row(repo_id: &str, path: &str, kind: Kind, entry: &Entry, reason: String) -> File {
    let (sha256, size) = match entry {
        Entry::File { sha256, size, .. } | Entry::Link { sha256, size, .. } => (sha256, *size),
    };
    File {
        repo_id: repo_id.to_string(),
        path: path.to_string(),
        kind,
        sha256: sha256.clone(),
        size: size as i64,
        content: None,
        bytes: None,
        status: FileStatus::Skipped,
        reason: Some(reason),
        changed_lines: None,
        line_dates: None,
    }
}

/// One data file's row: `ok` with its exact text when it is UTF-8 (a BOM kept: a test may
/// compare bytes), else with its bytes; `skipped` when it is a link, larger than the file
/// limit, or was not held (the read cap of the budget).
pub fn data_row(repo_id: &str, path: &str, entry: &Entry, data: &DataLimits) -> File {
    let (sha256, size, bytes) = match entry {
        Entry::Link { what, .. } => {
            return skipped_row(repo_id, path, Kind::Data, entry, what.clone())
        }
        Entry::File {
            sha256,
            size,
            bytes,
        } => (sha256, *size, bytes),
    };
    let Some(bytes) = bytes.as_ref().filter(|_| size <= data.max_file_bytes) else {
        let reason = if size > data.max_file_bytes {
            format!("larger than {} bytes", data.max_file_bytes)
        } else {
            budget_reason(data)
        };
        return skipped_row(repo_id, path, Kind::Data, entry, reason);
    };
    let (content, bytes) = match std::str::from_utf8(bytes) {
        Ok(text) => (Some(text.to_string()), None),
        Err(_) => (None, Some(Bytes(bytes.clone()))),
    };
    File {
        repo_id: repo_id.to_string(),
        path: path.to_string(),
        kind: Kind::Data,
        sha256: sha256.clone(),
        size: size as i64,
        content,
        bytes,
        status: FileStatus::Ok,
        reason: None,
        changed_lines: None,
        line_dates: None,
    }
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
            ("sub/pyproject.toml", Some(Kind::Data)),
            ("tox.ini", Some(Kind::Dependency)),
            ("tests/tox.ini", Some(Kind::Data)),
            ("test-requirements.txt", Some(Kind::Dependency)),
            ("requirements/tests.txt", Some(Kind::Dependency)),
            ("requirements/tests.in", Some(Kind::Data)),
            ("tests/data/table.csv", Some(Kind::Data)),
            ("tests/data/logo.PNG", Some(Kind::Data)),
            ("PKG-INFO", Some(Kind::Dependency)),
            ("docs/PKG-INFO", Some(Kind::Data)),
            ("src/pkg.egg-info/entry_points.txt", Some(Kind::Data)),
            ("pkg.egg-info/requires.txt", Some(Kind::Dependency)),
            ("src/pkg.egg-info/requires.txt", Some(Kind::Dependency)),
            ("vendor/other.egg-info/requires.txt", Some(Kind::Data)),
            ("pkg/requires.txt", Some(Kind::Data)),
            ("src/pkg.egg-info/SOURCES.txt", None),
            ("pkg/_speedups.cpython-311-x86_64-linux-gnu.so", None),
            ("pkg/m.PYC", None),
            ("notes.txt~", None),
            (".DS_Store", None),
            ("dist.whl", None),
            ("setup.cfg", Some(Kind::Dependency)),
            ("requirements.txt", Some(Kind::Dependency)),
            ("ci/requirements-dev.txt", Some(Kind::Dependency)),
            ("tests/helpers.py", Some(Kind::Test)),
            ("src/pkg/testing/util.py", Some(Kind::Test)),
            ("pkg/test_x.py", Some(Kind::Test)),
            ("pkg/x_test.py", Some(Kind::Test)),
            ("conftest.py", Some(Kind::Test)),
            ("pkg/testimony.py", Some(Kind::Source)),
            ("README.md", Some(Kind::Data)),
            (".py", None),
            ("x.pyc", None),
        ];
        for (path, kind) in cases {
            assert_eq!(classify(path), kind, "{path}");
        }
        // Metadata is read whatever the data budget; other data files within it.
        assert_eq!(wanted("PKG-INFO"), Some(Want::Code));
        assert_eq!(wanted("LICENSE"), Some(Want::Code));
        assert_eq!(wanted("x.egg-info/entry_points.txt"), Some(Want::Code));
        assert_eq!(wanted("sub/PKG-INFO"), Some(Want::Data));
        assert_eq!(wanted("tests/data/a.bin"), Some(Want::Data));
        assert_eq!(wanted("a/b.pyc"), None);
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
