//! Tables written by `crawl`.

use crate::enums::{
    Artifact, FileKind, FileStatus, LicenseSource, RepoStatus, SnapshotRole, SourceKind,
};
use crate::types::{Bytes, Timestamp};
use crate::{record, table};

table! {
    /// One row per repository source named to `crawl` (one release of a package, one
    /// commit of a git repository, one local folder), including those it skipped.
    pub struct Repo in "repos" written_by "crawl" {
        /// Content hash of the source kind, name and version or commit (32 hex digits).
        pub repo_id: String,
        /// Where it came from.
        pub source: SourceKind,
        /// The source exactly as given (`pypi:attrs==23.1.0`, `git:URL@REF`, `path:DIR`).
        pub spec: String,
        /// The project's name (package name, repository or folder name).
        pub name: String,
        /// The release version (pypi), or the version the project's metadata declares.
        pub version: Option<String>,
        /// The git ref asked for (branch, tag or commit), git sources only.
        pub git_ref: Option<String>,
        /// The git commit (git) or a hash of the file tree (path, pypi).
        pub commit: Option<String>,
        /// When it was published: the release's upload time (pypi) or the commit date (git).
        pub published_at: Option<Timestamp>,
        /// Where it can be fetched again: the archive URL (pypi) or the clone URL (git).
        pub url: Option<String>,
        /// SPDX identifier of its license, where metadata or a license file gives one that can be recognized.
        pub license: Option<String>,
        /// Where the license came from.
        pub license_source: Option<LicenseSource>,
        /// The cutoff in force (`since` of the sources file), if any.
        pub cutoff: Option<Timestamp>,
        /// `skipped`: e.g. older than the cutoff; `error`: could not be fetched or unpacked.
        pub status: RepoStatus,
        /// Why it was skipped or failed; null when ok.
        pub reason: Option<String>,
        /// Files recorded in `files` for this repository (kept and skipped).
        pub files_total: i64,
        /// Of those, files skipped with a reason.
        pub files_skipped: i64,
    }
}

record! {
    /// A range of lines, 1-based and inclusive at both ends.
    pub struct LineRange {
        /// First line.
        pub start: i32,
        /// Last line.
        pub end: i32,
    }
}

record! {
    /// A range of lines with one date, 1-based and inclusive at both ends.
    pub struct LineDate {
        /// First line.
        pub start: i32,
        /// Last line.
        pub end: i32,
        /// The date of the newest commit that wrote these lines or removed one next to them.
        pub date: Timestamp,
    }
}

table! {
    /// One row per Python file (source or test) and per dependency-defining file of a
    /// repository, with its content.
    pub struct File in "files" written_by "crawl" {
        /// The repository (`repos.repo_id`).
        pub repo_id: String,
        /// Path relative to the repository root, `/`-separated.
        pub path: String,
        /// `test`: under a tests folder or named test_*.py / *_test.py / conftest.py; `dependency`: pyproject.toml, setup.cfg, setup.py, requirements*.txt; `data`: any other file of the tree within the size budget (what tests read).
        pub kind: FileKind,
        /// sha256 of the raw bytes, hex.
        pub sha256: String,
        /// Size in bytes.
        pub size: i64,
        /// The text, UTF-8; null when the file was skipped, or is a data file that is not text.
        pub content: Option<String>,
        /// Data files that are not UTF-8 text: their bytes; null otherwise.
        pub bytes: Option<Bytes>,
        /// Whether the content was kept.
        pub status: FileStatus,
        /// Why it was skipped (`not UTF-8`, `larger than N bytes`, ...); null when ok.
        pub reason: Option<String>,
        /// Line ranges that differ from the version public at the cutoff (the last commit
        /// before it for git, the last release before it for pypi; every line of a file it
        /// lacks); null when there is no cutoff or no such version.
        pub changed_lines: Option<Vec<LineRange>>,
        /// Git sources, Python files: every line's date (runs of lines with one date), from
        /// the first-parent history; null for other sources, or when the history could not
        /// be read for this file.
        pub line_dates: Option<Vec<LineDate>>,
    }
}

table! {
    /// One row per earlier version of a crawled repository fetched to date its code: the
    /// last release (pypi) or commit (git) before the cutoff, and the `--history N` ones,
    /// including those that could not be fetched, with the reason.
    pub struct Snapshot in "snapshots" written_by "crawl" {
        /// The crawled repository (`repos.repo_id`) it is an earlier version of.
        pub repo_id: String,
        /// The release version (pypi) or the commit (git).
        pub version: String,
        /// Why it was fetched.
        pub role: SnapshotRole,
        /// When it was published (upload time of its artifact, or commit date).
        pub published_at: Option<Timestamp>,
        /// What it was read from.
        pub artifact: Option<Artifact>,
        /// Where it can be fetched again (the archive's URL; the clone URL for git).
        pub url: Option<String>,
        /// sha256 of the archive (pypi), checked against the index's.
        pub sha256: Option<String>,
        /// `skipped`: yanked, no upload time, no readable artifact; `error`: could not be
        /// fetched or read.
        pub status: RepoStatus,
        /// Why it was skipped or failed; null when ok.
        pub reason: Option<String>,
        /// Python files in it (rows in `history_files`).
        pub files: i64,
        /// Of them, not identical to the crawled version's file at the same path.
        pub files_differing: i64,
    }
}

table! {
    /// One row per Python file of a fetched earlier version (`snapshots`); its text only
    /// where it differs from the crawled version's file at the same path.
    pub struct HistoryFile in "history_files" written_by "crawl" {
        /// The crawled repository.
        pub repo_id: String,
        /// The earlier version (`snapshots.version`).
        pub version: String,
        /// Path relative to the earlier version's root, `/`-separated.
        pub path: String,
        /// sha256 of the raw bytes, hex.
        pub sha256: String,
        /// The text, UTF-8; null when identical to the crawled version's file at this path
        /// (or when the file is not UTF-8 or too large, said in `reason`).
        pub content: Option<String>,
        /// Why the text is absent though the file differs; null otherwise.
        pub reason: Option<String>,
    }
}
