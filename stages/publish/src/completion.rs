//! What a snapshot holds so that its completion tasks can be run again: the repository
//! each is made from, and `completion_tasks.jsonl` (`--export jsonl`).
//!
//! # The repositories
//!
//! A completion task is a file of a repository with one span masked, judged by the
//! repository's own tests, so rerunning it needs the whole repository as crawl read it;
//! so does an assertion task whose answer is judged by running its test
//! ([`crate::assertion`]). The snapshot holds it as `data/files.parquet`: every `files` row
//! (source, test, dependency and data files, with their text or bytes; skipped files with
//! their reason) of each repository with a published completion or assertion task. That is exactly what freshbench's
//! `execute` materializes a repository's tree from. `--no-repo-files` leaves the table out
//! of a snapshot that must stay small; the repositories are then refetched from their
//! source (`manifest.json` `sources`: the crawl spec, the archive or clone URL, the version
//! or commit).
//!
//! Either way, each source in the manifest records `files` (its `files` rows) and
//! `files_sha256`, a hash of the tree as crawl recorded it: the sha256 (hex) of the lines
//! `PATH<TAB>SHA256<LF>`, one per `files` row sorted by path (bytewise), where `SHA256`
//! is the row's `sha256` (of the file's raw bytes). A refetched repository is the same
//! when crawl's files of it give the same hash; `publish --verify` recomputes it from
//! `data/files.parquet` and checks every row's text or bytes against its `sha256`.
//!
//! # The export
//!
//! `completion_tasks.jsonl`: one JSON object per published completion task, with what a
//! harness needs to pose and judge it: `task_id` (`freshbench/` and the task's id), the
//! repository (`repo`: id, name, version, spec, url, commit, `files_sha256`), `path`,
//! `span_kind`, the span's lines and bytes, `prefix`, `suffix`, `reference`, `indent`,
//! `context`, the judges (`tests`, pytest node ids run from the repository's root) and the
//! code's date.

use std::collections::BTreeMap;

use schemas::{CompletionTask, ContextSnippet, File, Repo};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The file name of the export, at the snapshot's root.
pub const EXPORT: &str = "completion_tasks.jsonl";

/// The hash of a repository's files as crawl recorded them (see the module doc): sha256 of
/// `PATH\tSHA256\n` per row, sorted by path.
pub fn files_sha256<'a>(rows: impl IntoIterator<Item = &'a File>) -> String {
    let mut listing: Vec<(&str, &str)> = rows
        .into_iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    listing.sort_unstable();
    let mut h = Sha256::new();
    for (path, sha) in listing {
        h.update(path.as_bytes());
        h.update(b"\t");
        h.update(sha.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// A repository's files: how many rows, and their hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFiles {
    pub files: usize,
    pub sha256: String,
}

/// The files of each repository, by id.
pub fn by_repo(files: &[File]) -> BTreeMap<String, RepoFiles> {
    let mut rows: BTreeMap<&str, Vec<&File>> = BTreeMap::new();
    for f in files {
        rows.entry(f.repo_id.as_str()).or_default().push(f);
    }
    rows.into_iter()
        .map(|(repo, rows)| {
            (
                repo.to_string(),
                RepoFiles {
                    files: rows.len(),
                    sha256: files_sha256(rows),
                },
            )
        })
        .collect()
}

/// Whether a `files` row's text (or bytes) is what its `sha256` says. crawl keeps a text
/// without its leading byte order mark, so the mark is tried too. Rows without content
/// (skipped files) have nothing to check.
pub fn row_matches(f: &File) -> bool {
    let hex_of = |bytes: &[u8]| hex::encode(Sha256::digest(bytes));
    if let Some(b) = &f.bytes {
        return hex_of(&b.0) == f.sha256;
    }
    match &f.content {
        Some(text) => {
            hex_of(text.as_bytes()) == f.sha256
                || hex_of(format!("\u{feff}{text}").as_bytes()) == f.sha256
        }
        None => true,
    }
}

/// Published completion tasks per level (`span_kind`), by name (the card lists them in
/// the contract's order).
pub fn by_level(tasks: &[CompletionTask]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for t in tasks {
        *out.entry(t.span_kind.as_str().to_string()).or_default() += 1;
    }
    out
}

/// The repository of an exported task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportRepo {
    pub repo_id: String,
    pub name: Option<String>,
    pub version: Option<String>,
    /// The crawl source, as given to `crawl` (`pypi:NAME==VERSION`, `git:URL@REF`).
    pub spec: Option<String>,
    pub url: Option<String>,
    /// The git commit, or crawl's hash of the archive's file tree.
    pub commit: Option<String>,
    /// [`files_sha256`] of its files; null when the dataset had no `files` rows of it.
    pub files_sha256: Option<String>,
}

/// The repository `repo_id` of an exported task (of completion or assertion tasks), from
/// `repos` and its files' hash.
pub fn export_repo(
    repo_id: &str,
    repos: &BTreeMap<&str, &Repo>,
    files: &BTreeMap<String, RepoFiles>,
) -> ExportRepo {
    let r = repos.get(repo_id);
    ExportRepo {
        repo_id: repo_id.to_string(),
        name: r.map(|r| r.name.clone()),
        version: r.and_then(|r| r.version.clone()),
        spec: r.map(|r| r.spec.clone()),
        url: r.and_then(|r| r.url.clone()),
        commit: r.and_then(|r| r.commit.clone()),
        files_sha256: files.get(repo_id).map(|f| f.sha256.clone()),
    }
}

/// One line of `completion_tasks.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportTask {
    pub task_id: String,
    pub repo: ExportRepo,
    pub path: String,
    pub span_kind: String,
    pub start_line: i32,
    pub end_line: i32,
    pub start_byte: i64,
    pub end_byte: i64,
    pub prefix: String,
    pub suffix: String,
    pub reference: String,
    pub indent: String,
    pub context: Vec<ContextSnippet>,
    pub tests: Vec<String>,
    /// RFC 3339, UTC.
    pub code_date: Option<String>,
    pub code_date_source: Option<String>,
    pub after_cutoff: Option<bool>,
}

/// The export of the published completion tasks, in their order.
pub fn export(
    tasks: &[CompletionTask],
    repos: &[Repo],
    files: &BTreeMap<String, RepoFiles>,
) -> Vec<ExportTask> {
    let repos: BTreeMap<&str, &Repo> = repos.iter().map(|r| (r.repo_id.as_str(), r)).collect();
    tasks
        .iter()
        .map(|t| ExportTask {
            task_id: format!("freshbench/{}", t.task_id),
            repo: export_repo(&t.repo_id, &repos, files),
            path: t.path.clone(),
            span_kind: t.span_kind.as_str().to_string(),
            start_line: t.start_line,
            end_line: t.end_line,
            start_byte: t.start_byte,
            end_byte: t.end_byte,
            prefix: t.prefix.clone(),
            suffix: t.suffix.clone(),
            reference: t.reference.clone(),
            indent: t.indent.clone(),
            context: t.context.clone(),
            tests: t.tests.clone(),
            code_date: t.code_date.map(|d| d.to_string()),
            code_date_source: t.code_date_source.map(|s| s.as_str().to_string()),
            after_cutoff: t.after_cutoff,
        })
        .collect()
}

pub use crate::to_jsonl;

#[cfg(test)]
mod tests {
    use super::*;
    use schemas::{examples, FileKind, FileStatus};

    fn file(repo: &str, path: &str, content: &str) -> File {
        File {
            repo_id: repo.into(),
            path: path.into(),
            kind: FileKind::Source,
            sha256: hex::encode(Sha256::digest(content.as_bytes())),
            size: content.len() as i64,
            content: Some(content.into()),
            bytes: None,
            status: FileStatus::Ok,
            reason: None,
            changed_lines: None,
            line_dates: None,
        }
    }

    #[test]
    fn the_files_hash_is_of_the_sorted_listing() {
        let a = file("r", "pkg/a.py", "x = 1\n");
        let b = file("r", "pkg/b.py", "y = 2\n");
        // Computed by hand: sha256 of the two lines, sorted by path.
        let text = format!("pkg/a.py\t{}\npkg/b.py\t{}\n", a.sha256, b.sha256);
        let want = hex::encode(Sha256::digest(text.as_bytes()));
        assert_eq!(files_sha256([&a, &b]), want);
        assert_eq!(files_sha256([&b, &a]), want, "order does not matter");
        let changed = file("r", "pkg/b.py", "y = 3\n");
        assert_ne!(files_sha256([&a, &changed]), want);
        let both = by_repo(&[b.clone(), file("s", "m.py", ""), a.clone()]);
        assert_eq!(
            both["r"],
            RepoFiles {
                files: 2,
                sha256: want
            }
        );
        assert_eq!(both["s"].files, 1);
    }

    #[test]
    fn rows_are_checked_against_their_hash() {
        let mut f = file("r", "a.py", "print(1)\n");
        assert!(row_matches(&f));
        f.content = Some("print(2)\n".into());
        assert!(!row_matches(&f));
        // A byte order mark crawl removed.
        let bom = "\u{feff}x = 1\n";
        let mut g = file("r", "b.py", bom);
        g.content = Some("x = 1\n".into());
        assert!(row_matches(&g));
        // Bytes of a data file; a skipped file has nothing to check.
        let data = File {
            content: None,
            bytes: Some(schemas::Bytes(vec![0, 159, 146, 150])),
            sha256: hex::encode(Sha256::digest([0u8, 159, 146, 150])),
            ..file("r", "d.bin", "")
        };
        assert!(row_matches(&data));
        let skipped = File {
            content: None,
            status: FileStatus::Skipped,
            sha256: "00".into(),
            ..file("r", "big.py", "")
        };
        assert!(row_matches(&skipped));
    }

    #[test]
    fn the_export_has_what_reruns_a_task() {
        let task = examples::completion_task("c1", "r1");
        let repo = Repo {
            version: Some("1.0".into()),
            url: Some("https://example.invalid/p-1.0.tar.gz".into()),
            ..examples::repo("r1", "p")
        };
        let files = by_repo(&[file(
            "r1",
            "pkg/mod.py",
            "def add(a, b):\n    return a + b\n",
        )]);
        let rows = export(std::slice::from_ref(&task), &[repo], &files);
        let line = to_jsonl(&rows).unwrap();
        let v: serde_json::Value = serde_json::from_str(line.trim_end()).unwrap();
        assert_eq!(v["task_id"], "freshbench/c1");
        assert_eq!(v["repo"]["spec"], "path:p");
        assert_eq!(v["repo"]["files_sha256"], files["r1"].sha256.as_str());
        assert_eq!(v["span_kind"], "expression");
        assert_eq!(v["reference"], "a + b");
        assert_eq!(
            format!(
                "{}{}{}",
                v["prefix"].as_str().unwrap(),
                v["reference"].as_str().unwrap(),
                v["suffix"].as_str().unwrap()
            ),
            "def add(a, b):\n    return a + b\n"
        );
        assert_eq!(
            v["tests"],
            serde_json::json!(["tests/test_mod.py::test_add"])
        );
        assert!(v["code_date"].is_null());
        assert_eq!(line.lines().count(), 1);
        let levels = by_level(&[
            task.clone(),
            CompletionTask {
                span_kind: schemas::SpanKind::Block,
                ..task
            },
        ]);
        assert_eq!(levels.get("expression"), Some(&1));
        assert_eq!(levels.get("block"), Some(&1));
    }
}
