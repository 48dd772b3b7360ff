//! `manifest.json`: what a snapshot holds (versions, sources, cutoff, license policy, row
//! counts) and the sha256 of every file in it, and `--verify`, which checks a snapshot
//! against it.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read as _;
use std::path::{Component, Path};

use anyhow::Context as _;
use schemas::Table as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::license::PolicySource;
use crate::select::{ExcludedRepo, Selection};

/// The manifest's file name, at the snapshot's root.
pub const MANIFEST: &str = "manifest.json";

/// A source repository of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    pub repo_id: String,
    pub name: String,
    pub version: Option<String>,
    /// The git commit, or a hash of the file tree.
    pub commit: Option<String>,
    pub url: Option<String>,
    /// SPDX expression as crawl recorded it.
    pub license: Option<String>,
    /// RFC 3339, UTC.
    pub published_at: Option<String>,
    /// The cutoff crawl had for it, RFC 3339.
    pub cutoff: Option<String>,
    /// Tasks published from it.
    pub tasks: usize,
    /// The source as given to `crawl` (`pypi:NAME==VERSION`, `git:URL@REF`, `path:DIR`):
    /// with `url` and `version`/`commit`, how to fetch it again.
    #[serde(default)]
    pub spec: String,
    /// Its `files` rows, when it has published completion or assertion tasks (which are
    /// judged in its tree); null otherwise.
    #[serde(default)]
    pub files: Option<usize>,
    /// The hash of those files ([`crate::completion::files_sha256`]: sha256 of
    /// `PATH\tSHA256\n` per row, sorted by path); null when `files` is.
    #[serde(default)]
    pub files_sha256: Option<String>,
}

/// Published tasks of one family.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FamilyEntry {
    pub tasks: usize,
    /// Completion tasks: per level (`span_kind`); empty for other families.
    #[serde(default)]
    pub by_level: BTreeMap<String, usize>,
    /// Assertion tasks: per form (`value`, `verify`); absent for other families.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_form: BTreeMap<String, usize>,
    /// Assertion tasks: per program (`original`, `mutated`); absent for other families.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_program: BTreeMap<String, usize>,
    /// Assertion tasks: the assertions (`group_id`) they come from; absent for other
    /// families.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertions: Option<usize>,
}

/// The license policy that was applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LicensePolicy {
    /// SPDX ids allowed (`ID WITH EXCEPTION` pairs too).
    pub allowed: Vec<String>,
    /// `default` or `given` (`--allow-license`, `--licenses`).
    pub source: String,
}

impl LicensePolicy {
    pub fn of(policy: &crate::license::Policy) -> LicensePolicy {
        LicensePolicy {
            allowed: policy.allowed.clone(),
            source: match policy.source {
                PolicySource::Default => "default",
                PolicySource::Given => "given",
            }
            .into(),
        }
    }
}

/// A table of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableEntry {
    /// Path in the snapshot, `/`-separated.
    pub path: String,
    pub rows: u64,
}

/// An export of the snapshot (`function_tasks.jsonl`, `completion_tasks.jsonl`,
/// `assertion_tasks.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportEntry {
    /// `humaneval`, `freshbench-completion` or `freshbench-assertion`.
    pub format: String,
    /// Lines (tasks) written.
    pub tasks: usize,
    /// What judges them: test cases (`humaneval`), judge tests (`freshbench-completion`),
    /// the assertions the tasks come from (`freshbench-assertion`).
    pub cases: usize,
    pub cases_left_out: usize,
    /// Published function tasks not exported (no case could be asserted).
    pub tasks_left_out: Vec<String>,
}

/// A file of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub sha256: String,
    pub bytes: u64,
}

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The snapshot's name (`freshbench`), its folder being `NAME-DATE`.
    pub name: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// The quarter the snapshot is of, the benchmark's version (`2026Q4`): `--quarter`, else
    /// the quarter of `date`. The card's configs are `latest` and this one's (`2026q4`).
    #[serde(default)]
    pub quarter: String,
    /// `--quarter` or `date`.
    #[serde(default)]
    pub quarter_source: String,
    pub schema_version: u32,
    pub freshbench_version: String,
    /// The git commit the publishing freshbench was built from (recorded at build time);
    /// null when the build did not know it.
    pub freshbench_commit: Option<String>,
    /// A hash of the publishing freshbench's sources, recorded at build time.
    #[serde(default)]
    pub freshbench_build: String,
    /// The cutoff, the date after which code counts as new (RFC 3339, UTC): `--cutoff`
    /// (then only tasks of code newer than it, unless `--include-old`), else the earliest
    /// `repos.cutoff` (crawl's `--since`) of the published repositories.
    pub cutoff: Option<String>,
    /// `--cutoff`, or `repos` (the earliest cutoff of the published repositories).
    pub cutoff_source: Option<String>,
    pub license_policy: LicensePolicy,
    pub selection: Selection,
    pub sources: Vec<Source>,
    /// Published tasks per family (`function`, `completion`, `assertion`), families with
    /// none left out.
    #[serde(default)]
    pub families: BTreeMap<String, FamilyEntry>,
    /// Repositories whose valid tasks were left out for their license.
    pub excluded: Vec<ExcludedRepo>,
    pub tables: BTreeMap<String, TableEntry>,
    pub exports: BTreeMap<String, ExportEntry>,
    /// Every file of the snapshot but this manifest, by path.
    pub files: BTreeMap<String, FileEntry>,
}

/// sha256 and size of a file, read in chunks.
pub fn hash_file(path: &Path) -> std::io::Result<FileEntry> {
    let mut f = File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut bytes = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        bytes += n as u64;
    }
    Ok(FileEntry {
        sha256: hex::encode(h.finalize()),
        bytes,
    })
}

/// Every regular file under `root` (relative, `/`-separated, sorted), skipping
/// `manifest.json` at the root and, with `skip_hidden`, anything under a name that starts
/// with `.` (`.git`, `.gitattributes` of a Hub repository).
pub fn list_files(root: &Path, skip_hidden: bool) -> std::io::Result<Vec<String>> {
    fn walk(
        dir: &Path,
        rel: &str,
        skip_hidden: bool,
        out: &mut Vec<String>,
    ) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if skip_hidden && name.starts_with('.') {
                continue;
            }
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let kind = entry.file_type()?;
            if kind.is_dir() {
                walk(&entry.path(), &path, skip_hidden, out)?;
            } else if path != MANIFEST {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, "", skip_hidden, &mut out)?;
    out.sort();
    Ok(out)
}

/// The hashes of every file of a snapshot folder (but the manifest).
pub fn hash_files(root: &Path) -> anyhow::Result<BTreeMap<String, FileEntry>> {
    let mut out = BTreeMap::new();
    for rel in list_files(root, false).with_context(|| format!("listing {}", root.display()))? {
        let entry = hash_file(&root.join(&rel))
            .with_context(|| format!("hashing {}", root.join(&rel).display()))?;
        out.insert(rel, entry);
    }
    Ok(out)
}

/// What `--verify` reads of a manifest (anything else in it is not checked).
#[derive(Debug, Deserialize)]
struct Checked {
    files: BTreeMap<String, FileEntry>,
    #[serde(default)]
    tables: BTreeMap<String, TableEntry>,
    #[serde(default)]
    sources: Vec<CheckedSource>,
    #[serde(default)]
    exports: BTreeMap<String, CheckedExport>,
}

/// What `--verify` reads of an export: how many lines (tasks) it has.
#[derive(Debug, Deserialize)]
struct CheckedExport {
    tasks: usize,
}

/// The JSON-lines exports against the manifest: each one's lines are its task count, and
/// each line is a JSON object. Problems are named by the export's path.
fn check_exports(folder: &Path, manifest: &Checked) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    for (rel, want) in &manifest.exports {
        if !is_safe(rel) {
            problems.push((rel.clone(), "not a path inside the snapshot".into()));
            continue;
        }
        let Ok(text) = std::fs::read_to_string(folder.join(rel)) else {
            // A missing or unreadable file is named by the files check.
            continue;
        };
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.len() != want.tasks {
            problems.push((
                rel.clone(),
                format!(
                    "{} lines but the manifest says {} tasks",
                    lines.len(),
                    want.tasks
                ),
            ));
        }
        let bad = lines.iter().position(|l| {
            !serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.is_object())
        });
        if let Some(at) = bad {
            problems.push((rel.clone(), format!("line {} is not a JSON object", at + 1)));
        }
    }
    problems
}

/// What `--verify` reads of a source: the hash of its files.
#[derive(Debug, Deserialize)]
struct CheckedSource {
    repo_id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    files: Option<usize>,
    #[serde(default)]
    files_sha256: Option<String>,
}

/// The repositories' files of a snapshot that holds them (`data/files.parquet`) against the
/// manifest: each source's row count and files hash, and each row's text or bytes against
/// its `sha256`. Problems are named by the table's path.
fn check_repo_files(folder: &Path, manifest: &Checked) -> Vec<(String, String)> {
    let Some(table) = manifest.tables.get(schemas::File::NAME) else {
        return Vec::new();
    };
    if !is_safe(&table.path) {
        // Named by the table check.
        return Vec::new();
    }
    let rows: Vec<schemas::File> = match schemas::read_table_from(&folder.join(&table.path)) {
        Ok(rows) => rows,
        Err(e) => return vec![(table.path.clone(), format!("cannot read its rows: {e}"))],
    };
    let mut problems = Vec::new();
    let by_repo = crate::completion::by_repo(&rows);
    for src in &manifest.sources {
        let Some(want) = &src.files_sha256 else {
            continue;
        };
        let label = if src.name.is_empty() {
            src.repo_id.clone()
        } else {
            format!("{} ({})", src.name, src.repo_id)
        };
        match by_repo.get(&src.repo_id) {
            None => problems.push((
                table.path.clone(),
                format!("no files of repository {label}, whose files the manifest hashes"),
            )),
            Some(got) => {
                if got.sha256 != *want {
                    problems.push((
                        table.path.clone(),
                        format!(
                            "the files of repository {label} hash to {} but the manifest says {want}",
                            got.sha256
                        ),
                    ));
                }
                if src.files.is_some_and(|n| n != got.files) {
                    problems.push((
                        table.path.clone(),
                        format!(
                            "{} files of repository {label} but the manifest says {}",
                            got.files,
                            src.files.unwrap_or(0)
                        ),
                    ));
                }
            }
        }
    }
    let bad: Vec<&schemas::File> = rows
        .iter()
        .filter(|f| !crate::completion::row_matches(f))
        .collect();
    if let Some(first) = bad.first() {
        problems.push((
            table.path.clone(),
            format!(
                "{} file row(s) whose text does not hash to their sha256 (first: {} of {})",
                bad.len(),
                first.path,
                first.repo_id
            ),
        ));
    }
    problems
}

/// The outcome of `--verify`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub files_checked: usize,
    pub tables_checked: usize,
    /// (path, what differs), in path order.
    pub problems: Vec<(String, String)>,
}

fn is_safe(rel: &str) -> bool {
    let p = Path::new(rel);
    !rel.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// The row count and `freshbench.table` stamp of a Parquet file, from its footer.
pub fn parquet_rows(path: &Path) -> anyhow::Result<(u64, Option<String>)> {
    use parquet::file::reader::{FileReader as _, SerializedFileReader};
    let file = File::open(path)?;
    let reader = SerializedFileReader::new(file)?;
    let meta = reader.metadata().file_metadata();
    let table = meta
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|k| k.key == schemas::table::TABLE_KEY))
        .and_then(|k| k.value.clone());
    Ok((u64::try_from(meta.num_rows()).unwrap_or(0), table))
}

/// Checks a snapshot folder against its manifest: every file's sha256 and size, every
/// table's row count (from the Parquet footer) and stamp, every export's line count (one
/// JSON object per task), and that no file is there that the manifest does not list
/// (hidden names aside). `Err` when the manifest is missing or
/// unreadable.
pub fn verify(folder: &Path) -> anyhow::Result<Report> {
    let path = folder.join(MANIFEST);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "{}: cannot read the manifest; is {} a snapshot made by `publish`?",
            path.display(),
            folder.display()
        )
    })?;
    let manifest: Checked = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a readable manifest", path.display()))?;
    let mut report = Report::default();
    let mut problem = |rel: &str, what: String| report.problems.push((rel.to_string(), what));
    for (rel, want) in &manifest.files {
        if !is_safe(rel) {
            problem(rel, "not a path inside the snapshot".into());
            continue;
        }
        match hash_file(&folder.join(rel)) {
            Ok(got) if got == *want => {}
            Ok(got) if got.sha256 != want.sha256 => problem(
                rel,
                format!(
                    "sha256 {} but the manifest says {} ({} bytes, manifest {})",
                    got.sha256, want.sha256, got.bytes, want.bytes
                ),
            ),
            Ok(got) => problem(
                rel,
                format!("{} bytes but the manifest says {}", got.bytes, want.bytes),
            ),
            Err(e) => problem(rel, format!("cannot read it: {e}")),
        }
    }
    for (name, want) in &manifest.tables {
        if !is_safe(&want.path) {
            problem(
                &want.path,
                format!("table `{name}`: not a path inside the snapshot"),
            );
            continue;
        }
        match parquet_rows(&folder.join(&want.path)) {
            Ok((rows, stamp)) => {
                if rows != want.rows {
                    problem(
                        &want.path,
                        format!(
                            "{rows} rows but the manifest says {} (table `{name}`)",
                            want.rows
                        ),
                    );
                }
                if stamp.as_deref() != Some(name.as_str()) {
                    problem(
                        &want.path,
                        format!(
                            "holds table `{}`, the manifest says `{name}`",
                            stamp.as_deref().unwrap_or("none")
                        ),
                    );
                }
            }
            Err(e) => problem(&want.path, format!("not a readable Parquet file: {e:#}")),
        }
    }
    for (rel, what) in check_repo_files(folder, &manifest) {
        problem(&rel, what);
    }
    for (rel, what) in check_exports(folder, &manifest) {
        problem(&rel, what);
    }
    let present =
        list_files(folder, true).with_context(|| format!("listing {}", folder.display()))?;
    for rel in present {
        if !manifest.files.contains_key(&rel) {
            problem(&rel, "not in the manifest".into());
        }
    }
    report.files_checked = manifest.files.len();
    report.tables_checked = manifest.tables.len();
    report.problems.sort();
    report.problems.dedup();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_known_digests() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), b"abc").unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::write(dir.path().join("data/empty"), b"").unwrap();
        std::fs::write(dir.path().join(MANIFEST), b"{}").unwrap();
        // A big file crosses the read buffer.
        let big = vec![7u8; (1 << 16) + 5];
        std::fs::write(dir.path().join("data/big"), &big).unwrap();
        let files = hash_files(dir.path()).unwrap();
        assert_eq!(
            files.keys().collect::<Vec<_>>(),
            ["a.txt", "data/big", "data/empty"],
            "the manifest itself is not hashed"
        );
        assert_eq!(
            files["a.txt"].sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            files["data/empty"].sha256,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(files["data/big"].sha256, hex::encode(Sha256::digest(&big)));
        assert_eq!(files["data/big"].bytes, big.len() as u64);
    }

    #[test]
    fn verify_names_what_differs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.txt"), b"abc").unwrap();
        std::fs::write(root.join("b.txt"), b"def").unwrap();
        std::fs::write(root.join(".gitattributes"), b"*").unwrap();
        let files = hash_files(root).unwrap();
        let manifest = serde_json::json!({"files": files, "tables": {}});
        std::fs::write(root.join(MANIFEST), manifest.to_string()).unwrap();
        let ok = verify(root).unwrap();
        assert!(ok.problems.is_empty(), "{ok:?}");
        assert_eq!(ok.files_checked, 3);

        std::fs::write(root.join("a.txt"), b"abd").unwrap();
        std::fs::remove_file(root.join("b.txt")).unwrap();
        std::fs::write(root.join("c.txt"), b"new").unwrap();
        let bad = verify(root).unwrap();
        let named: Vec<&str> = bad.problems.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(named, ["a.txt", "b.txt", "c.txt"], "{bad:?}");
        assert!(bad.problems[0].1.contains("sha256"));
        assert!(bad.problems[2].1.contains("not in the manifest"));

        let evil = serde_json::json!({"files": {"../x": {"sha256": "00", "bytes": 0}}});
        std::fs::write(root.join(MANIFEST), evil.to_string()).unwrap();
        assert!(verify(root)
            .unwrap()
            .problems
            .iter()
            .any(|(p, w)| p == "../x" && w.contains("inside")));

        std::fs::write(root.join(MANIFEST), b"not json").unwrap();
        assert!(verify(root).is_err());
        std::fs::remove_file(root.join(MANIFEST)).unwrap();
        assert!(format!("{:#}", verify(root).unwrap_err()).contains("cannot read the manifest"));
    }
}
