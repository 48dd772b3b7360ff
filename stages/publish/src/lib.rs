//! `publish`: a dated, immutable snapshot of the benchmark, ready to share.
//!
//! ```text
//! publish --data DIR --out PARENT [--name freshbench] [--date YYYY-MM-DD] [--quarter YYYYqN]
//!         [--cutoff YYYY-MM-DD [--include-old]] [--export jsonl]
//! publish --verify FOLDER
//! ```
//!
//! # What goes in
//!
//! Reads from the dataset directory `DIR`: `validations` (required: without it the stage
//! stops and says to run `execute --data DIR --validate` first), `repos`, `function_tasks`
//! and `test_cases`, and when they exist `completion_tasks`, `assertion_tasks` and `slices`.
//! A task is published when it is `ok` (function tasks), `valid` in `validations`, and its
//! repository's license is allowed ([`license`]). The snapshot holds those tasks, the test
//! cases of the function tasks among them, their `validations` rows, their `slices` rows,
//! and the `repos` rows of the repositories that have at least one published task
//! ([`select`]). Completion tasks follow the same rules as function tasks (valid, allowed
//! license, and with `--cutoff` code known to be newer unless `--include-old`), and bring
//! their repository: the `files` rows of every repository with a published completion task
//! (required then; `--no-repo-files` leaves them out of the snapshot), whose hash each
//! source records ([`completion`]). Assertion tasks (every row of `assertion_tasks`: one
//! assertion of a repository test, on the original program or a mutated variant, in the
//! `value` or `verify` form) follow the same rules, each row on its own, and bring their
//! repository likewise, since an answer that is no literal is judged by running the test
//! in it ([`assertion`]). `functions`, `classifications` and the other tables of
//! the pipeline stay out. A table with no published row is left out (and so is its config
//! on the card).
//!
//! # Licenses
//!
//! Only repositories whose `repos.license` (an SPDX expression) passes the allow-list
//! contribute tasks. The default list holds permissive licenses (MIT, MIT-0, Apache-2.0,
//! BSD-2-Clause, BSD-3-Clause, 0BSD, ISC, PSF-2.0, Python-2.0, Unlicense, Zlib, BSL-1.0,
//! CC0-1.0); MPL-2.0 is not in it, for its per-file copyleft (see [`license`] for the
//! reasons and the rules for `OR`, `AND`, `WITH` and `+`). `--allow-license SPDX`
//! (repeatable) and `--licenses FILE.toml` (`allow = ["MIT", ...]`) together replace it.
//! Repositories left out are named in the manifest and the card with their version, license,
//! the reason and the number of valid tasks left out; those tasks can still be made and
//! evaluated locally, where nothing is redistributed.
//!
//! # The snapshot
//!
//! `--out PARENT` names the folder the snapshot is made in (created when missing); the
//! snapshot itself is `PARENT/NAME-DATE`, `NAME` from `--name` (default `freshbench`) and
//! `DATE` from `--date` (default: today, UTC), e.g. `data/snapshots/freshbench-2026-12-01`.
//! It holds:
//! - `data/<table>.parquet`, written with `schemas::io::write_table_to` (stamped with the
//!   schema version, readable by every stage and by any Parquet reader);
//! - `function_tasks.jsonl` with `--export jsonl`: the function tasks in `HumanEval`'s shape,
//!   with a `check(candidate)` per task ([`humaneval`]), `completion_tasks.jsonl` when
//!   completion tasks are published ([`completion`]) and `assertion_tasks.jsonl` when
//!   assertion tasks are ([`assertion`]: with the test, the program, the mutated file's
//!   text on a variant, the answer and the recorded value); they have no config on the
//!   card, as `datasets` reads all the configs of a folder with one builder (Parquet);
//! - `README.md`, the dataset card, whose YAML header gives the Hugging Face `datasets`
//!   library its configs (a `test` split each: `latest`, the default, and the quarter's,
//!   `2026q4`, on the tasks; one per table) and the licenses, and whose body names the
//!   quarter, the cutoff and the task-version rule: a task's id changes only when what
//!   defines it changes ([`card`], [`version`]);
//! - `manifest.json` ([`manifest::Manifest`]): schema version, freshbench version and commit
//!   (`git rev-parse HEAD` where publish runs, else `$FRESHBENCH_COMMIT`, else null), the
//!   date, the quarter (`--quarter`, else the date's), the cutoff (`--cutoff`, else the
//!   earliest `repos.cutoff` of the published repositories, crawl's `--since`), the license
//!   policy, how many tasks were read, rejected, not valid,
//!   left out and published, the published tasks per family (completion tasks per level,
//!   assertion tasks per form, per program and their assertions' count), the sources
//!   (name, version, spec, commit, url, license, publication date, tasks, and for those
//!   with completion or assertion tasks their files' count and hash), the excluded
//!   repositories, the row count of every table, and
//!   the sha256 and size of every other file.
//!
//! A snapshot is never overwritten: when `PARENT/NAME-DATE` exists the stage stops (exit 2)
//! before reading anything. It is written into a temporary sibling folder
//! (`PARENT/.NAME-DATE.XXXXXX.tmp`, removed on any error) and renamed into place at the end,
//! so a crash never leaves a half snapshot under the final name (a killed process may leave
//! the hidden temporary folder, which can be deleted). When no task is publishable the
//! stage writes nothing and exits 1.
//!
//! # Verifying
//!
//! `publish --verify FOLDER` (no `--data` needed) checks every file's sha256 and size and
//! every table's row count (from the Parquet footer) and table stamp against
//! `manifest.json`, each JSON-lines export's lines against its task count (one JSON object
//! per task: `function_tasks.jsonl`, `completion_tasks.jsonl`, `assertion_tasks.jsonl`),
//! each source's files hash and count against `data/files.parquet` when the snapshot holds
//! it (and each of its rows' text against its sha256), and reports files the manifest does
//! not list (names starting with `.`, such as a Hub repository's `.gitattributes`, are
//! ignored). It prints one `MISMATCH`
//! line per file that differs and exits 1, or prints `OK` and exits 0; a missing or
//! unreadable manifest is an error (exit 2).
//!
//! # Exit codes
//!
//! 0 success; 1 nothing to publish, or `--verify` found a difference; 2 an error (a
//! missing table, an existing snapshot, a bad option), with a message that says what to do.

pub mod assertion;
pub mod card;
pub mod completion;
pub mod humaneval;
pub mod license;
pub mod manifest;
pub mod select;
pub mod version;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Parser;
use schemas::cli::{CommonArgs, Outcome};
use schemas::{Table, Timestamp};

use crate::completion::RepoFiles;
use crate::license::Policy;
use crate::manifest::{
    ExportEntry, FamilyEntry, LicensePolicy, Manifest, Source, TableEntry, MANIFEST,
};
use crate::select::Published;

/// An export format of `--export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// `function_tasks.jsonl`: the function tasks in HumanEval/EvalPlus's shape, with a
    /// `check(candidate)` function per task; `completion_tasks.jsonl`, the completion
    /// tasks (prefix, suffix, reference, context, judge tests, repository); and
    /// `assertion_tasks.jsonl`, the assertion tasks (test, masked assertion, code context,
    /// program and mutation, answer, recorded value, repository).
    Jsonl,
}

/// Make a dated, immutable snapshot of the validated tasks (tables, manifest, dataset card),
/// or verify one.
#[derive(Debug, Parser)]
#[command(name = "publish", version, about, long_about = None)]
pub struct Args {
    /// `--data DIR`: the dataset directory to publish from (reads `DIR/<table>.parquet`);
    /// not needed with --verify.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The folder to make the snapshot in (created if missing): the snapshot is the folder
    /// `PARENT/NAME-DATE`, e.g. `data/snapshots/freshbench-2026-12-01`.
    #[arg(long, value_name = "PARENT", required_unless_present = "verify")]
    pub out: Option<PathBuf>,
    /// The snapshot's name, the first part of its folder name (letters, digits, `.`, `_`, `-`).
    #[arg(long, value_name = "NAME", default_value = "freshbench")]
    pub name: String,
    /// The snapshot's date, the last part of its folder name (default: today, UTC).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<String>,
    /// The quarter the snapshot is of, the benchmark's version (`2026q4`): the card's
    /// configs are `latest` and this quarter's (default: the quarter of the date).
    #[arg(long, value_name = "YYYYqN")]
    pub quarter: Option<String>,
    /// The cutoff: only tasks whose code is newer than it are published (their code date
    /// known from the repository's history), unless --include-old; recorded in the manifest
    /// and the card (default: the earliest `cutoff` crawl recorded for the published
    /// repositories, recorded only, nothing left out for it).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub cutoff: Option<String>,
    /// With --cutoff: publish the tasks whose code is older than the cutoff too, marked
    /// `after_cutoff = false` (a model may have seen that code).
    #[arg(long, requires = "cutoff")]
    pub include_old: bool,
    /// Publish the tasks of repositories under this SPDX license id (or `ID WITH EXCEPTION`);
    /// repeatable. Replaces the default allow-list of permissive licenses.
    #[arg(long = "allow-license", value_name = "SPDX")]
    pub allow_license: Vec<String>,
    /// A TOML file with the allowed licenses, `allow = ["MIT", "Apache-2.0"]`; replaces the
    /// default allow-list (with --allow-license: both lists together).
    #[arg(long, value_name = "FILE.toml")]
    pub licenses: Option<PathBuf>,
    /// Also write an export into the snapshot: `jsonl` writes `function_tasks.jsonl` in the
    /// shape of `HumanEval` (`task_id`, `prompt`, `entry_point`, `canonical_solution`, `test`)
    /// and, when there are completion or assertion tasks, `completion_tasks.jsonl` and
    /// `assertion_tasks.jsonl`.
    #[arg(long, value_name = "FORMAT", value_enum)]
    pub export: Vec<ExportFormat>,
    /// Leave the repositories' files (`data/files.parquet`, what completion tasks are made
    /// from and judged in, and assertion tasks' tests run in) out of the snapshot; the
    /// manifest still records each one's source and files hash, to fetch it again and
    /// check it.
    #[arg(long)]
    pub no_repo_files: bool,
    /// Check the snapshot FOLDER against its manifest.json (hashes, sizes, row counts, the
    /// exports' task counts, the repositories' files hashes) instead of publishing: exit 0 when all match, 1 naming each file that differs.
    #[arg(
        long,
        value_name = "FOLDER",
        conflicts_with_all = ["data", "out", "date", "quarter", "cutoff", "include_old", "allow_license", "licenses", "export", "no_repo_files"]
    )]
    pub verify: Option<PathBuf>,
}

/// The stage: publish, or verify with `--verify`.
/// The JSON-lines text of an export: one object per row (the HumanEval-shaped file and each
/// family's `*_tasks.jsonl`).
///
/// # Errors
/// When a row does not serialize.
pub fn to_jsonl<T: serde::Serialize>(rows: &[T]) -> anyhow::Result<String> {
    let mut out = String::new();
    for r in rows {
        out.push_str(&serde_json::to_string(r)?);
        out.push('\n');
    }
    Ok(out)
}

pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    if let Some(folder) = &args.verify {
        return verify(folder);
    }
    publish(args)
}

/// A real calendar date `YYYY-MM-DD` (for `--date`, `--cutoff`), with the shared calendar
/// check ([`schemas::cli::parse_date`]); only the date form, since a date names a folder.
pub fn parse_date(text: &str, flag: &str) -> anyhow::Result<Timestamp> {
    if text.trim().len() != 10 {
        anyhow::bail!("{flag} {text:?}: give a date as YYYY-MM-DD, e.g. 2026-12-01");
    }
    schemas::cli::parse_date(flag, text)
}

fn check_name(name: &str) -> anyhow::Result<()> {
    schemas::cli::check_folder_name("--name", name)
}

fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Timestamp::from_unix_seconds(i64::try_from(secs).unwrap_or(0)).date_string()
}

/// The git commit this freshbench was built from, recorded at build time by `build.rs`
/// (`unknown` for a build outside a git checkout without `FRESHBENCH_COMMIT`): the manifest
/// names the code that made the snapshot, not whatever folder publish runs in.
pub const COMMIT: &str = env!("FRESHBENCH_COMMIT");

/// A hash of freshbench's sources at build time (every stage's code, the runner, the
/// contract, the SQL views), recorded by `build.rs`: the exact build, also for a build with
/// uncommitted changes.
pub const BUILD_ID: &str = env!("FRESHBENCH_BUILD_ID");

/// [`COMMIT`], or none when the build did not know it.
pub fn commit() -> Option<String> {
    (COMMIT != "unknown").then(|| COMMIT.to_string())
}

/// Writes one table into the snapshot when it has rows.
fn write_rows<T: Table>(
    root: &Path,
    rows: &[T],
    tables: &mut BTreeMap<String, TableEntry>,
) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let rel = format!("data/{}.parquet", T::NAME);
    schemas::write_table_to(&root.join(&rel), rows)?;
    tables.insert(
        T::NAME.to_string(),
        TableEntry {
            path: rel,
            rows: rows.len() as u64,
        },
    );
    Ok(())
}

/// Writes a text file of the snapshot (the one atomic write: synced, renamed, folder synced).
fn write_synced(path: &Path, text: &str) -> anyhow::Result<()> {
    schemas::io::write_bytes_atomic(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

fn sources(published: &Published, files: &BTreeMap<String, RepoFiles>) -> Vec<Source> {
    published
        .repos
        .iter()
        .map(|r| Source {
            spec: r.spec.clone(),
            files: files.get(&r.repo_id).map(|f| f.files),
            files_sha256: files.get(&r.repo_id).map(|f| f.sha256.clone()),
            repo_id: r.repo_id.clone(),
            name: r.name.clone(),
            version: r.version.clone(),
            commit: r.commit.clone(),
            url: r.url.clone(),
            license: r.license.clone(),
            published_at: r.published_at.map(|t| t.to_string()),
            cutoff: r.cutoff.map(|t| t.to_string()),
            tasks: published
                .tasks_per_repo
                .get(&r.repo_id)
                .copied()
                .unwrap_or(0),
        })
        .collect()
}

/// Published tasks per family, completion tasks also per level, assertion tasks per form,
/// per program and with their assertions' count.
fn families(published: &Published) -> BTreeMap<String, FamilyEntry> {
    let mut out = BTreeMap::new();
    let mut add = |family: schemas::Family, tasks: usize, entry: FamilyEntry| {
        if tasks > 0 {
            out.insert(family.as_str().to_string(), FamilyEntry { tasks, ..entry });
        }
    };
    add(
        schemas::Family::Function,
        published.function_tasks.len(),
        FamilyEntry::default(),
    );
    add(
        schemas::Family::Completion,
        published.completion_tasks.len(),
        FamilyEntry {
            by_level: completion::by_level(&published.completion_tasks),
            ..FamilyEntry::default()
        },
    );
    let asserted = &published.assertion_tasks;
    add(
        schemas::Family::Assertion,
        asserted.len(),
        FamilyEntry {
            by_form: assertion::by_form(asserted),
            by_program: assertion::by_program(asserted),
            assertions: Some(assertion::assertions(asserted)),
            ..FamilyEntry::default()
        },
    );
    out
}

fn publish(args: &Args) -> anyhow::Result<Outcome> {
    let (Some(dataset), Some(out)) = (&args.common.data, &args.out) else {
        anyhow::bail!(
            "--data DIR and --out PARENT are needed to publish (or give --verify FOLDER)"
        );
    };
    check_name(&args.name)?;
    let date = match &args.date {
        Some(d) => parse_date(d, "--date")?.date_string(),
        None => today(),
    };
    let (quarter, quarter_source) = match &args.quarter {
        Some(q) => (version::Quarter::parse(q)?, "--quarter"),
        None => (
            version::Quarter::of_date(&date)
                .ok_or_else(|| anyhow::anyhow!("--date {date}: no quarter (a bug)"))?,
            "date",
        ),
    };
    if quarter.start() > date {
        tracing::warn!(
            %quarter,
            date,
            "the quarter starts after the snapshot's date: is --quarter right?"
        );
    }
    let folder = out.join(format!("{}-{date}", args.name));
    let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    let refuse = || {
        anyhow::anyhow!(
            "{} exists; snapshots are immutable; choose another --date or --name",
            folder.display()
        )
    };
    if exists(&folder) {
        return Err(refuse());
    }
    let policy = Policy::from_args(&args.allow_license, args.licenses.as_deref())?;
    let cutoff_arg = match &args.cutoff {
        Some(c) => Some(parse_date(c, "--cutoff")?),
        None => None,
    };

    let input = select::load(dataset)?;
    let fresh = cutoff_arg.map(|cutoff| select::Freshness {
        cutoff,
        include_old: args.include_old,
    });
    let published = select::select(&input, &policy, fresh);
    let s = &published.selection;
    tracing::info!(
        read = s.tasks_read,
        rejected = s.tasks_rejected,
        not_valid = s.tasks_not_valid,
        excluded_by_license = s.tasks_excluded_by_license,
        old = s.tasks_old,
        include_old = s.include_old,
        published = s.tasks_published,
        "tasks selected"
    );
    for e in &published.excluded {
        tracing::info!(
            repo = e.name.as_deref().unwrap_or(&e.repo_id),
            version = e.version.as_deref().unwrap_or(""),
            tasks = e.tasks_left_out,
            reason = %e.reason,
            "left out for its license"
        );
    }
    let in_a_tree = !published.completion_tasks.is_empty() || !published.assertion_tasks.is_empty();
    if in_a_tree && input.files.is_none() {
        anyhow::bail!(
            "{}: no files; completion and assertion tasks are judged in their repository's \
             tree, which the snapshot records from crawl's `files` table: run `crawl --data \
             {}` again",
            schemas::table_path::<schemas::File>(dataset).display(),
            dataset.display()
        );
    }
    if s.tasks_published == 0 {
        tracing::warn!(
            "no task to publish: none is ok, valid, of a repository whose license is \
             allowed and (with --cutoff) of code newer than the cutoff; nothing written (see \
             `validations.reason`, --allow-license and --include-old)"
        );
        return Ok(Outcome::Lacking);
    }
    let (cutoff, cutoff_source) = if let Some(c) = cutoff_arg {
        (Some(c), Some("--cutoff"))
    } else {
        let cutoffs: std::collections::BTreeSet<Timestamp> =
            published.repos.iter().filter_map(|r| r.cutoff).collect();
        if cutoffs.len() > 1 {
            tracing::info!(
                distinct = cutoffs.len(),
                "the sources have several cutoffs: the earliest is recorded"
            );
        }
        let first = cutoffs.first().copied();
        (first, first.map(|_| "repos"))
    };

    std::fs::create_dir_all(out)
        .with_context(|| format!("{}: cannot create the folder", out.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{}-{date}.", args.name))
        .suffix(".tmp")
        .tempdir_in(out)
        .with_context(|| format!("{}: cannot make a temporary folder", out.display()))?;
    let root = tmp.path();

    let mut tables = BTreeMap::new();
    write_rows(root, &published.function_tasks, &mut tables)?;
    write_rows(root, &published.test_cases, &mut tables)?;
    write_rows(root, &published.validations, &mut tables)?;
    write_rows(root, &published.repos, &mut tables)?;
    write_rows(root, &published.completion_tasks, &mut tables)?;
    write_rows(root, &published.assertion_tasks, &mut tables)?;
    write_rows(root, &published.slices, &mut tables)?;
    let repo_files = completion::by_repo(&published.files);
    if !args.no_repo_files {
        write_rows(root, &published.files, &mut tables)?;
    }

    let mut exports = BTreeMap::new();
    if args.export.contains(&ExportFormat::Jsonl) {
        let (rows, stats) = humaneval::export(&published.function_tasks, &published.test_cases);
        write_synced(
            &root.join("function_tasks.jsonl"),
            &humaneval::to_jsonl(&rows)?,
        )?;
        if !stats.tasks_left_out.is_empty() {
            tracing::warn!(
                tasks = stats.tasks_left_out.len(),
                "function tasks not exported: none of their cases could be asserted"
            );
        }
        exports.insert(
            "function_tasks.jsonl".to_string(),
            ExportEntry {
                format: "humaneval".into(),
                tasks: stats.tasks,
                cases: stats.cases,
                cases_left_out: stats.cases_left_out,
                tasks_left_out: stats.tasks_left_out,
            },
        );
    }

    if args.export.contains(&ExportFormat::Jsonl) && !published.completion_tasks.is_empty() {
        let rows = completion::export(&published.completion_tasks, &published.repos, &repo_files);
        write_synced(
            &root.join(completion::EXPORT),
            &completion::to_jsonl(&rows)?,
        )?;
        exports.insert(
            completion::EXPORT.to_string(),
            ExportEntry {
                format: "freshbench-completion".into(),
                tasks: rows.len(),
                cases: rows.iter().map(|r| r.tests.len()).sum(),
                cases_left_out: 0,
                tasks_left_out: Vec::new(),
            },
        );
    }

    if args.export.contains(&ExportFormat::Jsonl) && !published.assertion_tasks.is_empty() {
        let rows = assertion::export(&published.assertion_tasks, &published.repos, &repo_files);
        write_synced(&root.join(assertion::EXPORT), &assertion::to_jsonl(&rows)?)?;
        exports.insert(
            assertion::EXPORT.to_string(),
            ExportEntry {
                format: assertion::FORMAT.into(),
                tasks: rows.len(),
                cases: assertion::assertions(&published.assertion_tasks),
                cases_left_out: 0,
                tasks_left_out: Vec::new(),
            },
        );
    }

    let mut manifest = Manifest {
        name: args.name.clone(),
        date: date.clone(),
        quarter: quarter.to_string(),
        quarter_source: quarter_source.to_string(),
        schema_version: schemas::SCHEMA_VERSION,
        freshbench_version: env!("CARGO_PKG_VERSION").to_string(),
        freshbench_commit: commit(),
        freshbench_build: BUILD_ID.to_string(),
        cutoff: cutoff.map(|c| c.to_string()),
        cutoff_source: cutoff_source.map(str::to_string),
        license_policy: LicensePolicy::of(&policy),
        selection: published.selection.clone(),
        sources: sources(&published, &repo_files),
        families: families(&published),
        excluded: published.excluded.clone(),
        tables,
        exports,
        files: BTreeMap::new(),
    };
    write_synced(&root.join("README.md"), &card::render(&manifest, &policy))?;
    manifest.files = manifest::hash_files(root)?;
    let json = serde_json::to_string_pretty(&manifest)? + "\n";
    write_synced(&root.join(MANIFEST), &json)?;

    // Temporary folders are made 0700; a snapshot is as readable as any folder the user makes.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        for dir in [root.to_path_buf(), root.join("data")] {
            if dir.is_dir() {
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755))
                    .with_context(|| format!("{}: cannot set permissions", dir.display()))?;
            }
        }
    }
    schemas::io::sync_dir(root).with_context(|| format!("syncing {}", root.display()))?;
    // Checked again: another publish may have made it meanwhile (the temporary folder is
    // removed when `tmp` is dropped on this error).
    if exists(&folder) {
        return Err(refuse());
    }
    let kept = tmp.keep();
    schemas::io::rename_durably(&kept, &folder).with_context(|| {
        format!(
            "cannot rename {} to {}; the finished snapshot is left in the former",
            kept.display(),
            folder.display()
        )
    })?;
    tracing::info!(
        folder = %folder.display(),
        tasks = manifest.selection.tasks_published,
        repos = manifest.sources.len(),
        excluded_repos = manifest.excluded.len(),
        "snapshot written"
    );
    writeln!(std::io::stdout().lock(), "{}", folder.display())?;
    Ok(Outcome::Success)
}

fn verify(folder: &Path) -> anyhow::Result<Outcome> {
    let report = manifest::verify(folder)?;
    let mut stdout = std::io::stdout().lock();
    if report.problems.is_empty() {
        writeln!(
            stdout,
            "OK: {} files and {} tables match {}",
            report.files_checked,
            report.tables_checked,
            folder.join(MANIFEST).display()
        )?;
        return Ok(Outcome::Success);
    }
    for (path, what) in &report.problems {
        writeln!(stdout, "MISMATCH {path}: {what}")?;
    }
    let files: std::collections::BTreeSet<&str> =
        report.problems.iter().map(|(p, _)| p.as_str()).collect();
    writeln!(
        stdout,
        "{} file(s) differ from {}",
        files.len(),
        folder.join(MANIFEST).display()
    )?;
    tracing::warn!(
        files = files.len(),
        "the snapshot differs from its manifest"
    );
    Ok(Outcome::Lacking)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_real_calendar_dates() {
        assert_eq!(
            parse_date("2024-02-29", "--date").unwrap().date_string(),
            "2024-02-29"
        );
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-04-31",
            "24-01-01",
            "2024-1-01",
            "today",
            "2024-01-01T00:00:00Z",
        ] {
            assert!(parse_date(bad, "--date").is_err(), "{bad}");
        }
        assert_eq!(today().len(), 10);
    }

    #[test]
    fn names_are_folder_names() {
        check_name("freshbench").unwrap();
        check_name("fb.v2_test-1").unwrap();
        for bad in ["", ".hidden", "a/b", "a b", "..", "a\\b"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn cli_is_consistent() {
        use clap::CommandFactory as _;
        Args::command().debug_assert();
        let a = Args::try_parse_from(["publish", "--verify", "x"]).unwrap();
        assert_eq!(a.verify.as_deref(), Some(Path::new("x")));
        assert!(
            Args::try_parse_from(["publish", "--data", "d"]).is_err(),
            "--out is needed"
        );
        assert!(Args::try_parse_from(["publish", "--verify", "x", "--data", "d"]).is_err());
        let a = Args::try_parse_from([
            "publish",
            "--data",
            "d",
            "--out",
            "o",
            "--export",
            "jsonl",
            "--allow-license",
            "MIT",
            "--allow-license",
            "ISC",
        ])
        .unwrap();
        assert_eq!(a.export, [ExportFormat::Jsonl]);
        assert_eq!(a.allow_license, ["MIT", "ISC"]);
        assert!(Args::try_parse_from(["publish", "--verify", "x", "--quarter", "2026q4"]).is_err());
    }
}
