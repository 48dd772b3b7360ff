//! `git:` sources (local repositories built here with controlled dates) and `path:`
//! sources.

mod common;

use std::path::Path;
use std::process::Command;

use common::{have_git, listing, run, tables};
use schemas::cli::Outcome;
use schemas::{LineRange, RepoStatus, Timestamp};

const ISC: &str = "Permission to use, copy, modify, and/or distribute this software for any\n\
    purpose with or without fee is hereby granted, provided that the above\n\
    copyright notice and this permission notice appear in all copies.\n";

fn git(dir: &Path, args: &[&str], date: &str) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

const FIRST: &str = "2023-06-01T12:00:00Z";
const SECOND: &str = "2024-06-01T12:00:00Z";

/// A repository with two commits: the first (tagged `v1`) on 2023-06-01, the second on
/// 2024-06-01 changing line 2 of `pkg/mod.py` and adding lines 6-7, adding a test file,
/// deleting a line of `pkg/del.py` and a whole file.
fn two_commit_repo(root: &Path) -> (String, String) {
    std::fs::create_dir_all(root).unwrap();
    git(root, &["init", "-q", "-b", "main"], FIRST);
    write(
        root,
        &[
            ("pkg/mod.py", "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"),
            ("pkg/other.py", "x = 1\n"),
            ("pkg/del.py", "1\n2\n3\n"),
            ("pkg/gone.py", "y = 1\n"),
            (
                "pyproject.toml",
                "[project]\nname = \"gitdemo\"\nversion = \"0.1.0\"\n",
            ),
            ("LICENSE", ISC),
        ],
    );
    git(root, &["add", "-A"], FIRST);
    git(root, &["commit", "-q", "-m", "first"], FIRST);
    git(root, &["tag", "v1"], FIRST);
    let first = git(root, &["rev-parse", "HEAD"], FIRST);
    write(
        root,
        &[
            (
                "pkg/mod.py",
                "a = 1\nB = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\n",
            ),
            ("pkg/del.py", "1\n3\n"),
            ("tests/test_new.py", "def test():\n    assert True\n\n"),
        ],
    );
    std::fs::remove_file(root.join("pkg/gone.py")).unwrap();
    git(root, &["add", "-A"], SECOND);
    git(root, &["commit", "-q", "-m", "second"], SECOND);
    let second = git(root, &["rev-parse", "HEAD"], SECOND);
    (first, second)
}

fn r(start: i32, end: i32) -> LineRange {
    LineRange { start, end }
}

#[test]
fn git_changed_lines_since_the_cutoff() {
    if !have_git() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("gitdemo-repo");
    let (first, second) = two_commit_repo(&repo);
    let url = repo.display().to_string();
    let data = tmp.path().join("data");
    let spec = format!("git:{url}");
    let at_v1 = format!("git:{url}@v1");
    let by_file_url = format!("git:file://{url}");
    let out = run(
        &data,
        &["--since", "2024-01-01", &spec, &at_v1, &by_file_url],
    )
    .unwrap();
    assert_eq!(out, Outcome::Success);
    let (repos, files) = tables(&data);

    let head = &repos[0];
    assert_eq!(
        (
            head.status.as_str(),
            head.source.as_str(),
            head.name.as_str()
        ),
        ("ok", "git", "gitdemo-repo")
    );
    assert_eq!(head.commit.as_deref(), Some(second.as_str()));
    assert_eq!(head.published_at, Timestamp::parse(SECOND));
    assert_eq!(head.url.as_deref(), Some(url.as_str()));
    assert_eq!(head.version.as_deref(), Some("0.1.0"));
    assert_eq!(
        (
            head.license.as_deref(),
            head.license_source.map(schemas::LicenseSource::as_str)
        ),
        (Some("ISC"), Some("license-file"))
    );
    assert_eq!(
        head.repo_id,
        schemas::id::content_id(&[b"git", b"gitdemo-repo", second.as_bytes()])
    );
    let changed: Vec<(&str, &str, Option<&[LineRange]>)> = files
        .iter()
        .filter(|f| f.repo_id == head.repo_id)
        .map(|f| (f.path.as_str(), f.kind.as_str(), f.changed_lines.as_deref()))
        .collect();
    assert_eq!(
        changed,
        [
            // Data files carry no changed lines.
            ("LICENSE", "data", None),
            ("pkg/del.py", "source", Some(&[][..])),
            ("pkg/mod.py", "source", Some(&[r(2, 2), r(6, 7)][..])),
            ("pkg/other.py", "source", Some(&[][..])),
            ("pyproject.toml", "dependency", Some(&[][..])),
            ("tests/test_new.py", "test", Some(&[r(1, 3)][..])),
        ]
    );

    let old = &repos[1];
    assert_eq!(
        (old.status.as_str(), old.git_ref.as_deref()),
        ("skipped", Some("v1"))
    );
    assert_eq!(old.commit.as_deref(), Some(first.as_str()));
    assert_eq!(
        old.reason.as_deref(),
        Some("last commit 2023-06-01 is before the cutoff 2024-01-01")
    );

    let same = &repos[2];
    assert_eq!(
        (same.status.as_str(), same.name.as_str()),
        ("skipped", "gitdemo-repo")
    );
    assert!(
        same.reason
            .as_deref()
            .unwrap()
            .contains("same repository as source"),
        "{:?}",
        same.reason
    );
    assert!(
        !data.join(crawl::TMP_DIR).exists(),
        "temporary clones removed"
    );
}

#[test]
fn git_cutoffs_after_head_before_history_and_none() {
    if !have_git() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    two_commit_repo(&repo);
    let spec = format!("git:{}", repo.display());
    let mod_lines = |data: &Path| {
        let (repos, files) = tables(data);
        let f = files.into_iter().find(|f| f.path == "pkg/mod.py");
        (repos[0].status, f.map(|f| f.changed_lines))
    };

    let data = tmp.path().join("after");
    assert_eq!(
        run(&data, &["--since", "2025-01-01", &spec]).unwrap(),
        Outcome::Success
    );
    let (repos, files) = tables(&data);
    assert_eq!(
        repos[0].reason.as_deref(),
        Some("last commit 2024-06-01 is before the cutoff 2025-01-01")
    );
    assert!(files.is_empty());

    let data = tmp.path().join("before");
    run(&data, &["--since", "2020-01-01", &spec]).unwrap();
    assert_eq!(
        mod_lines(&data),
        (RepoStatus::Ok, Some(Some(vec![r(1, 7)])))
    );

    let data = tmp.path().join("none");
    run(&data, &[&spec]).unwrap();
    assert_eq!(mod_lines(&data), (RepoStatus::Ok, Some(None)));

    let data = tmp.path().join("badref");
    let missing = format!("git:{}", tmp.path().join("no-such-repo").display());
    assert_eq!(
        run(&data, &[&format!("{spec}@nope"), &missing]).unwrap(),
        Outcome::Lacking
    );
    let (repos, _) = tables(&data);
    assert_eq!(
        (repos[0].status.as_str(), repos[1].status.as_str()),
        ("error", "error")
    );
    assert!(
        repos[0]
            .reason
            .as_deref()
            .unwrap()
            .contains("ref `nope` not found"),
        "{:?}",
        repos[0].reason
    );
    // The same inputs give the same reason: the random clone folder is not in it.
    let reason = repos[1].reason.as_deref().unwrap();
    assert!(
        reason.contains("git clone")
            && reason.contains("<clone>")
            && !reason.contains(crawl::TMP_DIR),
        "{reason}"
    );
    assert_eq!(
        listing(&data),
        [
            "files.parquet",
            "history_files.parquet",
            "repos.parquet",
            "snapshots.parquet"
        ]
        .map(std::path::PathBuf::from)
    );
}

fn path_project(root: &Path) {
    write(
        root,
        &[
            (
                "proj/pyproject.toml",
                "[project]\nname = \"pathdemo\"\nversion = \"2.0\"\n",
            ),
            ("proj/pkg/a.py", "def a():\n    return 1\n"),
            ("proj/pkg/requirements-dev.txt", "pytest\n"),
            ("proj/LICENSE", ISC),
            ("proj/.venv/lib/x.py", ""),
            ("proj/dist/y.py", ""),
            ("proj/node_modules/z.py", ""),
            ("outside/secret.py", "TOKEN = 1\n"),
        ],
    );
    std::os::unix::fs::symlink("../../outside/secret.py", root.join("proj/pkg/leak.py")).unwrap();
    std::os::unix::fs::symlink("../outside", root.join("proj/linked")).unwrap();
}

#[test]
fn path_symlinks_are_skipped_rows_and_runs_are_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    path_project(tmp.path());
    let spec = format!("path:{}", tmp.path().join("proj").display());
    let (d1, d2) = (tmp.path().join("d1"), tmp.path().join("d2"));
    assert_eq!(run(&d1, &[&spec]).unwrap(), Outcome::Success);
    assert_eq!(run(&d2, &[&spec]).unwrap(), Outcome::Success);
    let (repos, files) = tables(&d1);
    assert_eq!(
        tables(&d2),
        (repos.clone(), files.clone()),
        "two runs, identical rows"
    );

    let r = &repos[0];
    assert_eq!(
        (
            r.status.as_str(),
            r.source.as_str(),
            r.name.as_str(),
            r.version.as_deref()
        ),
        ("ok", "path", "pathdemo", Some("2.0"))
    );
    assert_eq!(
        (
            r.license.as_deref(),
            r.license_source.map(schemas::LicenseSource::as_str)
        ),
        (Some("ISC"), Some("license-file"))
    );
    assert_eq!(
        (r.url.as_deref(), r.published_at, r.git_ref.as_deref()),
        (None, None, None)
    );
    assert_eq!((r.files_total, r.files_skipped), (6, 2));
    let rows: Vec<(&str, &str, &str)> = files
        .iter()
        .map(|f| (f.path.as_str(), f.kind.as_str(), f.status.as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            ("LICENSE", "data", "ok"),
            ("linked", "data", "skipped"),
            ("pkg/a.py", "source", "ok"),
            ("pkg/leak.py", "source", "skipped"),
            ("pkg/requirements-dev.txt", "dependency", "ok"),
            ("pyproject.toml", "dependency", "ok"),
        ]
    );
    assert_eq!(
        files[1].reason.as_deref(),
        Some("symlink to ../outside, not followed")
    );
    assert_eq!(
        files[3].reason.as_deref(),
        Some("symlink to ../../outside/secret.py, not followed")
    );
    assert!(files[1].content.is_none() && files[3].content.is_none());
    assert!(files.iter().all(|f| f.bytes.is_none()));
    assert!(files.iter().all(|f| f.changed_lines.is_none()));

    // A dataset directory inside the project is not crawled: same rows.
    let inside = tmp.path().join("proj/dataset");
    run(&inside, &[&spec]).unwrap();
    assert_eq!(tables(&inside), (repos.clone(), files.clone()));
    run(&inside, &[&spec]).unwrap();
    assert_eq!(
        tables(&inside),
        (repos.clone(), files.clone()),
        "its own tables are not in the tree hash"
    );
    std::fs::remove_dir_all(&inside).unwrap();

    // The commit is a hash of the tree: one changed byte changes it.
    std::fs::write(tmp.path().join("proj/pkg/a.py"), "def a():\n    return 2\n").unwrap();
    let d3 = tmp.path().join("d3");
    run(&d3, &[&spec]).unwrap();
    let (changed, _) = tables(&d3);
    assert_ne!(changed[0].commit, r.commit);
    assert_ne!(changed[0].repo_id, r.repo_id);
}

#[test]
fn sources_file_paths_are_relative_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    path_project(tmp.path());
    let file = tmp.path().join("sources.toml");
    std::fs::write(
        &file,
        "since = \"2024-01-01\"\nsources = [\"path:proj\", \"path:missing\"]\n",
    )
    .unwrap();
    let data = tmp.path().join("data");
    let file_arg = file.display().to_string();
    let outside = format!("path:{}", tmp.path().join("outside").display());
    assert_eq!(
        run(&data, &["--sources", &file_arg, &outside]).unwrap(),
        Outcome::Lacking
    );
    let (repos, _) = tables(&data);
    let got: Vec<(&str, &str)> = repos
        .iter()
        .map(|r| (r.spec.as_str(), r.status.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("path:proj", "ok"),
            ("path:missing", "error"),
            (outside.as_str(), "ok")
        ]
    );
    assert!(repos[1]
        .reason
        .as_deref()
        .unwrap()
        .ends_with("missing: no such folder"));
    assert_eq!(repos[0].cutoff, Timestamp::parse("2024-01-01"));
}

/// Issue 12's fixture as a git repository: a commit before the cutoff and one after it.
/// The same answers as from two releases: the new and the changed function are after the
/// cutoff, the reformatted and the moved ones keep the first commit's date.
#[test]
fn git_code_age_is_decided_per_function() {
    use clap::Parser as _;
    if !have_git() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("agerepo");
    std::fs::create_dir_all(&root).unwrap();
    let long_ago = "2025-01-10T12:00:00Z";
    let before = "2026-03-01T12:00:00Z";
    let after = "2026-08-01T12:00:00Z";
    git(&root, &["init", "-q", "-b", "main"], long_ago);
    // Older than the baseline: only the lines' dates can tell.
    write(
        &root,
        &[("agepkg/old.py", "def stable(v):\n    return v\n")],
    );
    git(&root, &["add", "-A"], long_ago);
    git(&root, &["commit", "-q", "-m", "stable"], long_ago);
    write(
        &root,
        &[(
            "agepkg/core.py",
            "def changed(x):\n    return x + 1\n\n\ndef reformatted(a, b):\n    return a*b\n\n\ndef moved(s):\n    return s.strip()\n",
        )],
    );
    git(&root, &["add", "-A"], before);
    git(&root, &["commit", "-q", "-m", "first"], before);
    let first = git(&root, &["rev-parse", "HEAD"], before);
    write(
        &root,
        &[
            (
                "agepkg/core.py",
                "def changed(x):\n    return x + 2\n\n\ndef reformatted( a,b ):\n    # formatted otherwise\n    return (a * b)\n\n\ndef new_one(y):\n    return -y\n",
            ),
            ("agepkg/util.py", "def moved(s):\n    return s.strip()\n"),
        ],
    );
    git(&root, &["add", "-A"], after);
    git(&root, &["commit", "-q", "-m", "second"], after);

    let data = tmp.path().join("data");
    let spec = format!("git:{}", root.display());
    assert_eq!(
        run(&data, &["--since", "2026-06-01", &spec]).unwrap(),
        Outcome::Success
    );
    let snaps: Vec<schemas::Snapshot> = schemas::read_table(&data).unwrap();
    assert_eq!(snaps.len(), 1, "{snaps:#?}");
    assert_eq!(
        (snaps[0].version.as_str(), snaps[0].role, snaps[0].status),
        (
            first.as_str(),
            schemas::SnapshotRole::Baseline,
            RepoStatus::Ok
        )
    );
    let args = resolve::Args::parse_from(["resolve", "--data", data.to_str().unwrap(), "-q"]);
    resolve::run(&args).unwrap();
    let functions: Vec<schemas::Function> = schemas::read_table(&data).unwrap();
    let get = |q: &str| functions.iter().find(|f| f.qualname == q).unwrap();
    assert_eq!(get("new_one").after_cutoff, Some(true));
    assert_eq!(get("changed").after_cutoff, Some(true));
    assert_eq!(get("reformatted").after_cutoff, Some(false));
    let moved = get("moved");
    assert_eq!(moved.after_cutoff, Some(false));
    assert_eq!(moved.path, "agepkg/util.py");
    assert_eq!(moved.first_seen.as_deref(), Some(first.as_str()));
    assert_eq!(
        moved.code_date_source,
        Some(schemas::CodeDateSource::GitHistory)
    );
    assert_eq!(
        moved.code_date.map(Timestamp::date_string).as_deref(),
        Some("2026-03-01")
    );
    // Every line of the crawled commit has its date; a line changed after the cutoff has
    // the second commit's.
    let files: Vec<schemas::File> = schemas::read_table(&data).unwrap();
    let core = files.iter().find(|f| f.path == "agepkg/core.py").unwrap();
    let runs = core.line_dates.as_deref().unwrap();
    let dated: i32 = runs.iter().map(|r| r.end - r.start + 1).sum();
    let lines = core.content.as_deref().unwrap().lines().count();
    assert_eq!(dated as usize, lines, "{runs:?}");
    let date_of = |line: i32| {
        let r = runs
            .iter()
            .find(|r| r.start <= line && line <= r.end)
            .unwrap();
        r.date.date_string()
    };
    assert_eq!(
        (date_of(1), date_of(2)),
        ("2026-03-01".into(), "2026-08-01".into())
    );
    // The stable function: the baseline holds it, its lines are older still.
    let stable = get("stable");
    assert_eq!(stable.after_cutoff, Some(false));
    assert_eq!(
        stable.code_date.map(Timestamp::date_string).as_deref(),
        Some("2025-01-10")
    );
    assert_eq!(
        stable.code_date_source,
        Some(schemas::CodeDateSource::GitHistory)
    );
    // The changed function's newest line is after the cutoff, like its syntax tree.
    assert_eq!(
        get("changed")
            .code_date
            .map(Timestamp::date_string)
            .as_deref(),
        Some("2026-08-01")
    );
}
