//! `pypi:` sources against a local stand-in for the package index.

mod common;

use common::{
    listing, run, serve_project, tables, tar_gz, tar_gz_files, zip_files, Release, Server,
};
use schemas::cli::Outcome;
use schemas::{RepoStatus, Timestamp};

const PYPROJECT: &[u8] = b"[project]\nname = \"demo\"\nversion = \"1.1\"\n";

fn demo_archive(top: &str) -> Vec<u8> {
    let big = vec![b'#'; 3000];
    let files: [(&str, &[u8]); 8] = [
        (
            "PKG-INFO",
            b"Metadata-Version: 2.1\nName: demo\nVersion: 1.1\n",
        ),
        ("pyproject.toml", PYPROJECT),
        ("src/demo/__init__.py", b"def f():\n    return 1\n"),
        ("tests/test_demo.py", b"from demo import f\n"),
        ("README.md", b"# demo\n"),
        ("src/demo/big.py", &big),
        ("src/demo/latin1.py", b"s = '\xe9t\xe9'\n"),
        ("src/demo/bom.py", b"\xef\xbb\xbfx = 1\n"),
    ];
    let paths: Vec<String> = files
        .iter()
        .map(|(path, _)| format!("{top}/{path}"))
        .collect();
    let entries: Vec<(&str, &[u8])> = paths
        .iter()
        .zip(files)
        .map(|(path, (_, data))| (path.as_str(), data))
        .collect();
    tar_gz_files(&entries)
}

#[test]
fn good_release_latest_and_pinned_with_relative_url() {
    let server = Server::start();
    let mut latest = Release::new("demo", "1.1", "demo-1.1.tar.gz", demo_archive("demo-1.1"));
    latest.latest = true;
    latest.license_expression = Some("MIT");
    server.release(&latest);
    // A mirror that writes download URLs relative to the document.
    let mut pinned = Release::new("demo", "1.0", "demo-1.0.tar.gz", demo_archive("demo-1.0"));
    pinned.url = Some("../../../files/demo-1.0.tar.gz");
    pinned.classifiers = vec!["License :: OSI Approved :: Apache Software License"];
    pinned.uploaded = "2024-01-02T03:04:05+02:00";
    server.release(&pinned);

    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let out = run(
        &data,
        &[
            "--index-url",
            &server.index(),
            "--max-file-bytes",
            "1000",
            "pypi:demo",
            "pypi:demo==1.0",
        ],
    )
    .unwrap();
    assert_eq!(out, Outcome::Success);
    let (repos, files) = tables(&data);
    assert_eq!(repos.len(), 2);

    let r = &repos[0];
    assert_eq!(
        (
            r.status.as_str(),
            r.source.as_str(),
            r.spec.as_str(),
            r.name.as_str()
        ),
        ("ok", "pypi", "pypi:demo", "demo")
    );
    assert_eq!(r.version.as_deref(), Some("1.1"));
    assert_eq!(
        r.repo_id,
        schemas::id::content_id(&[b"pypi", b"demo", b"1.1"])
    );
    assert_eq!(
        r.url.as_deref(),
        Some(format!("{}/files/demo-1.1.tar.gz", server.base).as_str())
    );
    assert_eq!(
        r.published_at,
        Timestamp::parse("2024-05-06T07:08:09.123456Z")
    );
    assert_eq!(
        (
            r.license.as_deref(),
            r.license_source.map(schemas::LicenseSource::as_str)
        ),
        (Some("MIT"), Some("metadata"))
    );
    assert_eq!(r.commit.as_ref().map(String::len), Some(32));
    assert_eq!(
        (
            r.files_total,
            r.files_skipped,
            r.reason.as_deref(),
            r.git_ref.as_deref(),
            r.cutoff
        ),
        (8, 2, None, None, None)
    );

    let mine: Vec<_> = files.iter().filter(|f| f.repo_id == r.repo_id).collect();
    let paths: Vec<(&str, &str, &str)> = mine
        .iter()
        .map(|f| (f.path.as_str(), f.kind.as_str(), f.status.as_str()))
        .collect();
    assert_eq!(
        paths,
        [
            ("PKG-INFO", "dependency", "ok"),
            ("README.md", "data", "ok"),
            ("pyproject.toml", "dependency", "ok"),
            ("src/demo/__init__.py", "source", "ok"),
            ("src/demo/big.py", "source", "skipped"),
            ("src/demo/bom.py", "source", "ok"),
            ("src/demo/latin1.py", "source", "skipped"),
            ("tests/test_demo.py", "test", "ok"),
        ]
    );
    assert_eq!(mine[1].content.as_deref(), Some("# demo\n"));
    let mine = &mine[2..];
    let init = mine[1];
    assert_eq!(init.content.as_deref(), Some("def f():\n    return 1\n"));
    assert_eq!(
        init.sha256,
        schemas::id::sha256_hex(b"def f():\n    return 1\n")
    );
    assert_eq!((init.size, init.changed_lines.as_ref()), (22, None));
    let big = mine[2];
    assert_eq!(
        (big.reason.as_deref(), big.content.as_ref(), big.size),
        (Some("larger than 1000 bytes"), None, 3000)
    );
    assert_eq!(big.sha256, schemas::id::sha256_hex(&[b'#'; 3000]));
    assert_eq!(mine[3].content.as_deref(), Some("x = 1\n"), "BOM stripped");
    assert_eq!(mine[3].size, 9, "size of the raw bytes");
    assert_eq!(
        mine[4].reason.as_deref(),
        Some("not valid UTF-8 (first bad byte at offset 5)")
    );

    let p = &repos[1];
    assert_eq!(
        (p.status.as_str(), p.version.as_deref()),
        ("ok", Some("1.0"))
    );
    assert_eq!(
        p.url.as_deref(),
        Some(format!("{}/files/demo-1.0.tar.gz", server.base).as_str())
    );
    assert_eq!(p.published_at, Timestamp::parse("2024-01-02T01:04:05Z"));
    assert_eq!(
        (
            p.license.as_deref(),
            p.license_source.map(schemas::LicenseSource::as_str)
        ),
        (Some("Apache-2.0"), Some("classifier"))
    );
    assert_eq!(files.iter().filter(|f| f.repo_id == p.repo_id).count(), 8);
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

#[test]
fn failures_are_rows_and_the_crawl_goes_on() {
    let server = Server::start();
    let good = demo_archive("good-2.0");
    let mut r = Release::new("good", "2.0", "good-2.0.tar.gz", good.clone());
    r.latest = true;
    server.release(&r);
    let mut r = Release::new("badsha", "1.0", "badsha-1.0.tar.gz", good.clone());
    r.latest = true;
    r.sha256 = Some("0000000000000000000000000000000000000000000000000000000000000000");
    server.release(&r);
    let mut r = Release::new("old", "0.1", "old-0.1.tar.gz", good.clone());
    r.latest = true;
    r.uploaded = "2023-03-04T00:00:00Z";
    server.release(&r);
    let crafted: [(&str, common::TarEntry<'_>); 3] = [
        (
            "dotdot",
            (
                "dotdot-1.0/../evil.py",
                tar::EntryType::Regular,
                b"import os\n",
                None,
            ),
        ),
        (
            "absolute",
            (
                "/tmp/crawl-evil-absolute.py",
                tar::EntryType::Regular,
                b"x\n",
                None,
            ),
        ),
        (
            "symlink",
            (
                "symlink-1.0/etc",
                tar::EntryType::Symlink,
                b"",
                Some("/etc"),
            ),
        ),
    ];
    for (name, entry) in &crafted {
        let ok_entry = (
            format!("{name}-1.0/ok.py"),
            tar::EntryType::Regular,
            &b"ok = 1\n"[..],
            None,
        );
        let archive = tar_gz(&[
            (ok_entry.0.as_str(), ok_entry.1, ok_entry.2, ok_entry.3),
            *entry,
        ]);
        let file = format!("{name}-1.0.tar.gz");
        let mut r = Release::new(name, "1.0", &file, archive);
        r.latest = true;
        server.release(&r);
    }
    let mut r = Release::new(
        "corrupt",
        "1.0",
        "corrupt-1.0.tar.gz",
        b"\x1f\x8bnot really gzip".to_vec(),
    );
    r.latest = true;
    server.release(&r);
    let mut r = Release::new("bz", "1.0", "bz-1.0.tar.bz2", b"BZh".to_vec());
    r.latest = true;
    server.release(&r);

    let parent = tempfile::tempdir().unwrap();
    std::fs::write(parent.path().join("marker"), "x").unwrap();
    let before = listing(parent.path());
    let data = parent.path().join("data");
    let specs = [
        "pypi:missing",
        "pypi:good==9.9",
        "pypi:badsha",
        "pypi:old",
        "pypi:dotdot",
        "pypi:absolute",
        "pypi:symlink",
        "pypi:corrupt",
        "pypi:bz",
        "pypi:good",
    ];
    let index = server.index();
    let mut args = vec!["--index-url", index.as_str(), "--since", "2024-01-01"];
    args.extend(specs);
    assert_eq!(run(&data, &args).unwrap(), Outcome::Lacking);
    let (repos, files) = tables(&data);
    let got: Vec<(&str, &str, &str)> = repos
        .iter()
        .map(|r| {
            (
                r.spec.as_str(),
                r.status.as_str(),
                r.reason.as_deref().unwrap_or(""),
            )
        })
        .collect();
    let expect = |i: usize, status: &str, words: &[&str]| {
        let (spec, s, reason) = got[i];
        assert_eq!(s, status, "{spec}: {reason}");
        for w in words {
            assert!(reason.contains(w), "{spec}: `{reason}` lacks `{w}`");
        }
    };
    expect(0, "error", &["no release missing", "404"]);
    expect(1, "error", &["good==9.9", "404"]);
    expect(2, "error", &["badsha-1.0.tar.gz", "sha256", "refused"]);
    expect(3, "skipped", &["2023-03-04", "2024-01-01", "cutoff"]);
    expect(4, "error", &["refused", "dotdot-1.0/../evil.py", "`..`"]);
    expect(
        5,
        "error",
        &["refused", "/tmp/crawl-evil-absolute.py", "absolute"],
    );
    expect(6, "error", &["refused", "symlink-1.0/etc", "absolute"]);
    expect(7, "error", &["corrupt archive corrupt-1.0.tar.gz"]);
    expect(8, "error", &["unsupported archive format"]);
    expect(9, "ok", &[]);
    let old = &repos[3];
    assert_eq!((old.version.as_deref(), old.files_total), (Some("0.1"), 0));
    assert_eq!(old.cutoff, Timestamp::parse("2024-01-01"));
    assert!(repos.iter().all(|r| r.cutoff == old.cutoff));
    assert!(files.iter().all(|f| f.repo_id == repos[9].repo_id));
    assert_eq!(files.len(), 8);

    let after = listing(parent.path());
    let outside: Vec<_> = after
        .iter()
        .filter(|p| !before.contains(p) && !p.starts_with("data"))
        .collect();
    assert!(
        outside.is_empty(),
        "written outside the dataset directory: {outside:?}"
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
    assert!(!std::path::Path::new("/tmp/crawl-evil-absolute.py").exists());
    assert!(!parent.path().join("evil.py").exists());
}

#[test]
fn cache_keeps_and_reuses_archives() {
    let server = Server::start();
    let archive = demo_archive("demo-1.1");
    let sha = schemas::id::sha256_hex(&archive);
    let mut r = Release::new("demo", "1.1", "demo-1.1.tar.gz", archive);
    r.latest = true;
    server.release(&r);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let cache_arg = cache.display().to_string();
    for run_no in 0..2 {
        let data = tmp.path().join(format!("data{run_no}"));
        let out = run(
            &data,
            &[
                "--index-url",
                &server.index(),
                "--cache",
                &cache_arg,
                "pypi:demo",
            ],
        )
        .unwrap();
        assert_eq!(out, Outcome::Success);
    }
    assert_eq!(
        server.requests("/files/demo-1.1.tar.gz"),
        1,
        "the second run used the cache"
    );
    assert!(cache.join(&sha).is_file());
    let (a, b) = (
        tables(&tmp.path().join("data0")),
        tables(&tmp.path().join("data1")),
    );
    assert_eq!(a.0, b.0);
    assert_eq!(a.1, b.1);
}

/// Regression: a mirror that serves only the project's document (no per-release
/// document) made every pinned source fail with 404. The pinned release is now found in
/// the project document's `releases`.
#[test]
fn pinned_release_found_in_the_project_document_when_the_mirror_has_no_release_document() {
    let server = Server::start();
    let old = demo_archive("demo-1.0");
    server.serve("/files/demo-1.0.tar.gz", old.clone());
    let sdist = |version: &str, archive: &[u8]| {
        serde_json::json!({"packagetype": "sdist", "filename": format!("demo-{version}.tar.gz"),
            "url": format!("{}/files/demo-{version}.tar.gz", server.base),
            "digests": {"sha256": schemas::id::sha256_hex(archive)},
            "upload_time_iso_8601": "2025-02-03T04:05:06Z"})
    };
    let doc = serde_json::json!({
        "info": {"name": "demo", "version": "2.0", "license_expression": "MIT"},
        "urls": [sdist("2.0", b"not served")],
        "releases": {"1.0": [sdist("1.0", &old)], "2.0": [sdist("2.0", b"not served")]},
    });
    server.serve("/pypi/demo/json", serde_json::to_vec(&doc).unwrap());

    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let out = run(
        &data,
        &[
            "--index-url",
            &server.index(),
            "pypi:demo==1.0",
            "pypi:demo==3.0",
        ],
    )
    .unwrap();
    assert_eq!(out, Outcome::Lacking, "3.0 exists nowhere");
    let (repos, files) = tables(&data);
    assert_eq!(
        (repos[0].status.as_str(), repos[0].version.as_deref()),
        ("ok", Some("1.0"))
    );
    assert_eq!(
        repos[0].published_at,
        Timestamp::parse("2025-02-03T04:05:06Z")
    );
    assert!(files
        .iter()
        .any(|f| f.repo_id == repos[0].repo_id && f.path == "src/demo/__init__.py"));
    assert_eq!(repos[1].status, RepoStatus::Error);
    assert!(
        repos[1]
            .reason
            .as_deref()
            .unwrap()
            .contains("no release demo==3.0"),
        "{:?}",
        repos[1].reason
    );
}

/// The code of release 1.0 of the code-age fixture (before the cutoff).
const CORE_1_0: &str = "\
def changed(x):
    return x + 1


def reformatted(a, b):
    return a*b


def moved(s):
    return s.strip()
";

/// The code of release 1.1 (after the cutoff): `changed` changed, `reformatted` only
/// reformatted, `moved` moved to another file, `new_one` new.
const CORE_1_1: &str = "\
def changed(x):
    return x + 2


def reformatted( a,b ):
    # the same product, formatted otherwise
    return (a * b)


def new_one(y):
    return -y
";

const UTIL_1_1: &str = "def moved(s):\n    return s.strip()\n";

fn age_archive(top: &str, files: &[(&str, &str)]) -> Vec<u8> {
    let paths: Vec<String> = files.iter().map(|(p, _)| format!("{top}/{p}")).collect();
    let entries: Vec<(&str, &[u8])> = paths
        .iter()
        .zip(files)
        .map(|(p, (_, c))| (p.as_str(), c.as_bytes()))
        .collect();
    tar_gz_files(&entries)
}

/// Per function: after the cutoff, code date, the earlier version it is first seen in.
type Dated = (Option<bool>, Option<String>, Option<String>);

/// The functions of `data` after resolve, by qualname.
fn dated(data: &std::path::Path) -> std::collections::BTreeMap<String, Dated> {
    use clap::Parser as _;
    let args = resolve::Args::parse_from(["resolve", "--data", data.to_str().unwrap(), "-q"]);
    resolve::run(&args).unwrap();
    let functions: Vec<schemas::Function> = schemas::read_table(data).unwrap();
    functions
        .into_iter()
        .map(|f| {
            (
                f.qualname,
                (
                    f.after_cutoff,
                    f.code_date.map(Timestamp::date_string),
                    f.first_seen,
                ),
            )
        })
        .collect()
}

/// Issue 12's fixture: two releases on both sides of the cutoff, served by a stand-in
/// index. Exactly the new and the changed function are after the cutoff; the reformatted
/// and the moved ones keep the date of the release before it. A yanked release is never
/// the baseline, and a release with only a wheel is read from the wheel.
#[test]
fn code_age_is_decided_per_function_not_per_release() {
    let server = Server::start();
    let mut v09 = Release::new(
        "agepkg",
        "0.9",
        "agepkg-0.9-py3-none-any.whl",
        zip_files(&[
            ("agepkg/__init__.py", ""),
            ("agepkg/core.py", "def changed(x):\n    return x + 1\n"),
        ]),
    );
    v09.wheel = true;
    v09.uploaded = "2025-09-01T00:00:00Z";
    let mut v10 = Release::new(
        "agepkg",
        "1.0",
        "agepkg-1.0.tar.gz",
        age_archive(
            "agepkg-1.0",
            &[
                ("src/agepkg/__init__.py", ""),
                ("src/agepkg/core.py", CORE_1_0),
            ],
        ),
    );
    v10.uploaded = "2026-03-01T00:00:00Z";
    let mut v105 = Release::new(
        "agepkg",
        "1.0.5",
        "agepkg-1.0.5.tar.gz",
        age_archive("agepkg-1.0.5", &[("src/agepkg/core.py", "def broken(:\n")]),
    );
    v105.uploaded = "2026-05-01T00:00:00Z";
    v105.yanked = true;
    let mut v11 = Release::new(
        "agepkg",
        "1.1",
        "agepkg-1.1.tar.gz",
        age_archive(
            "agepkg-1.1",
            &[
                ("src/agepkg/__init__.py", ""),
                ("src/agepkg/core.py", CORE_1_1),
                ("src/agepkg/util.py", UTIL_1_1),
            ],
        ),
    );
    v11.uploaded = "2026-08-01T00:00:00Z";
    v11.latest = true;
    server.release(&v11);
    serve_project(&server, &v11, &[&v09, &v10, &v105, &v11]);

    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let out = run(
        &data,
        &[
            "--index-url",
            &server.index(),
            "--since",
            "2026-06-01",
            "--history",
            "1",
            "pypi:agepkg==1.1",
        ],
    )
    .unwrap();
    assert_eq!(out, Outcome::Success);
    let snaps: Vec<schemas::Snapshot> = schemas::read_table(&data).unwrap();
    let rows: Vec<(&str, &str, &str, Option<&str>)> = snaps
        .iter()
        .map(|s| {
            (
                s.version.as_str(),
                s.role.as_str(),
                s.status.as_str(),
                s.artifact.map(schemas::Artifact::as_str),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("1.0.5", "baseline", "skipped", None),
            ("1.0", "baseline", "ok", Some("sdist")),
            ("0.9", "history", "ok", Some("wheel")),
        ],
        "{snaps:#?}"
    );
    assert!(snaps[0].reason.as_deref().unwrap().contains("yanked"));

    let got = dated(&data);
    let after = |q: &str| got[q].0;
    assert_eq!(after("new_one"), Some(true), "{got:?}");
    assert_eq!(after("changed"), Some(true), "{got:?}");
    assert_eq!(after("reformatted"), Some(false), "{got:?}");
    assert_eq!(after("moved"), Some(false), "{got:?}");
    assert_eq!(got["moved"].1.as_deref(), Some("2026-03-01"));
    assert_eq!(
        got["moved"].2.as_deref(),
        Some("1.0"),
        "found where it was before it moved"
    );
    assert_eq!(got["new_one"].1.as_deref(), Some("2026-08-01"));

    // The crawled release's changed lines are against the baseline.
    let (_, files) = tables(&data);
    let core = files
        .iter()
        .find(|f| f.path == "src/agepkg/core.py")
        .unwrap();
    let changed = core.changed_lines.clone().unwrap();
    assert!(
        changed.iter().any(|r| r.start <= 2 && r.end >= 2),
        "{changed:?}"
    );
    let util = files
        .iter()
        .find(|f| f.path == "src/agepkg/util.py")
        .unwrap();
    assert_eq!(
        util.changed_lines.as_deref(),
        Some(&[schemas::LineRange { start: 1, end: 2 }][..])
    );
}
