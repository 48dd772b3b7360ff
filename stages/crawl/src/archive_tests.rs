//! Unit and property tests of archive reading and its path checks.

use std::io::Write as _;

use proptest::prelude::*;

use super::*;

/// A tar entry to build: path, type, data, link target. Names are written raw into the
/// header, so crafted paths (`../x`, `/x`) get in as they are.
type Spec<'a> = (&'a str, tar::EntryType, &'a [u8], Option<&'a str>);

fn tar_bytes(entries: &[Spec<'_>]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, kind, data, link) in entries {
        let mut h = tar::Header::new_gnu();
        let gnu = h.as_gnu_mut().unwrap();
        gnu.name[..path.len()].copy_from_slice(path.as_bytes());
        if let Some(link) = link {
            gnu.linkname[..link.len()].copy_from_slice(link.as_bytes());
        }
        h.set_entry_type(*kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append(&h, *data).unwrap();
    }
    b.into_inner().unwrap()
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn tgz(entries: &[Spec<'_>]) -> Vec<u8> {
    gz(&tar_bytes(entries))
}

const F: tar::EntryType = tar::EntryType::Regular;
/// Code files only, each up to 1000 bytes (what an earlier version is read with).
const CODE: Limits = Limits::code_only(1000);
/// Code files and data files: 100 bytes a data file, 150 in all.
const DATA: Limits = Limits {
    max_file_bytes: 1000,
    data: Some(crate::tree::DataLimits {
        max_file_bytes: 100,
        max_repo_bytes: 150,
    }),
};

fn read(bytes: &[u8]) -> Result<Tree, ArchiveError> {
    read_archive("demo-1.0.tar.gz", bytes, &CODE, 1 << 20)
}

#[test]
fn reads_sdist_and_strips_top_folder() {
    let bytes = tgz(&[
        ("demo-1.0/", tar::EntryType::Directory, b"", None),
        ("demo-1.0/PKG-INFO", F, b"Name: demo\n", None),
        ("demo-1.0/demo/__init__.py", F, b"x = 1\n", None),
        ("demo-1.0/README.md", F, b"hi", None),
        ("demo-1.0/.git/config.py", F, b"", None),
        (
            "demo-1.0/demo/link.py",
            tar::EntryType::Symlink,
            b"",
            Some("__init__.py"),
        ),
        ("demo-1.0/dev", tar::EntryType::Char, b"", None),
    ]);
    let tree = read(&bytes).unwrap();
    let paths: Vec<&str> = tree.entries.keys().map(String::as_str).collect();
    assert_eq!(paths, ["PKG-INFO", "demo/__init__.py", "demo/link.py"]);
    assert_eq!(tree.text("demo/__init__.py"), Some("x = 1\n"));
    assert!(matches!(tree.entries["demo/link.py"], Entry::Link { .. }));
    let listed: Vec<&str> = tree.listing.keys().map(String::as_str).collect();
    assert_eq!(listed, ["PKG-INFO", "README.md", "demo/__init__.py"]);
}

#[test]
fn no_strip_without_single_top_folder() {
    let tree = read(&tgz(&[
        ("a/x.py", F, b"", None),
        ("setup.py", F, b"", None),
    ]))
    .unwrap();
    assert!(tree.entries.contains_key("a/x.py") && tree.entries.contains_key("setup.py"));
}

#[test]
fn refuses_crafted_entries() {
    let cases: [(Spec<'_>, &str); 6] = [
        (("demo/../evil.py", F, b"", None), "`..` component"),
        (("../evil.py", F, b"", None), "`..` component"),
        (("/etc/evil.py", F, b"", None), "absolute path"),
        (
            ("demo/etc", tar::EntryType::Symlink, b"", Some("/etc")),
            "absolute path",
        ),
        (
            ("demo/up", tar::EntryType::Symlink, b"", Some("../../up")),
            "leaves the archive",
        ),
        (
            ("demo/hard", tar::EntryType::Link, b"", Some("../x")),
            "leaves the archive",
        ),
    ];
    for (spec, problem) in cases {
        let err = read(&tgz(&[("demo/ok.py", F, b"", None), spec])).unwrap_err();
        assert!(
            matches!(err, ArchiveError::Crafted { .. }),
            "{}: {err}",
            spec.0
        );
        let msg = err.to_string();
        assert!(msg.contains(spec.0) && msg.contains(problem), "{msg}");
    }
}

#[test]
fn corrupt_archives_are_errors() {
    let good = tgz(&[("demo/a.py", F, &[b'x'; 3000], None)]);
    assert!(matches!(
        read(b"not gzip at all"),
        Err(ArchiveError::Corrupt { .. })
    ));
    assert!(matches!(
        read(&good[..good.len() / 2]),
        Err(ArchiveError::Corrupt { .. })
    ));
    let truncated_tar = tar_bytes(&[("demo/a.py", F, &[b'x'; 3000], None)]);
    assert!(matches!(
        read(&gz(&truncated_tar[..1024])),
        Err(ArchiveError::Corrupt { .. })
    ));
    let zip = read_archive("demo.zip", b"PK\x03\x04garbage", &CODE, 1 << 20);
    assert!(matches!(zip, Err(ArchiveError::Corrupt { .. })), "{zip:?}");
}

#[test]
fn bombs_are_refused() {
    let bytes = tgz(&[("demo/big.py", F, &vec![b' '; 200_000], None)]);
    let err = read_archive("b.tar.gz", &bytes, &CODE, 100_000).unwrap_err();
    assert!(
        matches!(err, ArchiveError::TooLarge { limit: 100_000, .. }),
        "{err}"
    );
    let zip = zip_bytes(&[("demo/big.py", &vec![b' '; 200_000])], &[]);
    let err = read_archive("b.zip", &zip, &CODE, 100_000).unwrap_err();
    assert!(matches!(err, ArchiveError::TooLarge { .. }), "{err}");
}

#[test]
fn large_files_are_hashed_not_kept() {
    let tree = read(&tgz(&[("demo/big.py", F, &[b'x'; 2000], None)])).unwrap();
    assert!(matches!(
        &tree.entries["big.py"],
        Entry::File {
            size: 2000,
            bytes: None,
            ..
        }
    ));
}

fn zip_bytes(files: &[(&str, &[u8])], links: &[(&str, &str)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (path, data) in files {
        w.start_file(*path, opts).unwrap();
        w.write_all(data).unwrap();
    }
    for (path, target) in links {
        w.add_symlink(*path, *target, opts).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn reads_zip() {
    let bytes = zip_bytes(
        &[("demo-1.0/demo.py", b"y = 2\n"), ("demo-1.0/setup.py", b"")],
        &[("demo-1.0/l.py", "demo.py")],
    );
    let tree = read_archive("demo-1.0.zip", &bytes, &CODE, 1 << 20).unwrap();
    assert_eq!(tree.text("demo.py"), Some("y = 2\n"));
    assert!(tree.entries.contains_key("setup.py"));
    assert!(matches!(tree.entries["l.py"], Entry::Link { .. }));
    let evil = zip_bytes(&[("demo/ok.py", b"")], &[("demo/etc", "/etc")]);
    assert!(matches!(
        read_archive("e.zip", &evil, &CODE, 1 << 20),
        Err(ArchiveError::Crafted { .. })
    ));
    let evil = zip_bytes(&[("demo\\..\\..\\evil.py", b"")], &[]);
    assert!(matches!(
        read_archive("e.zip", &evil, &CODE, 1 << 20),
        Err(ArchiveError::Crafted { .. })
    ));
}

#[test]
fn data_files_kept_with_their_bytes_junk_left_out() {
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\x00\xff";
    let bytes = tgz(&[
        ("demo-1.0/PKG-INFO", F, b"Name: demo\n", None),
        ("demo-1.0/demo/__init__.py", F, b"x = 1\n", None),
        ("demo-1.0/tests/data/table.csv", F, b"a,b\n1,2\n", None),
        ("demo-1.0/tests/data/logo.png", F, png, None),
        ("demo-1.0/tests/data/big.txt", F, &[b'x'; 101], None),
        (
            "demo-1.0/demo/__pycache__/x.cpython-311.pyc",
            F,
            b"\x00",
            None,
        ),
        ("demo-1.0/demo/ext.so", F, b"\x7fELF", None),
        (
            "demo-1.0/demo.egg-info/SOURCES.txt",
            F,
            b"demo/__init__.py\n",
            None,
        ),
        (
            "demo-1.0/demo.egg-info/entry_points.txt",
            F,
            b"[x]\ny = demo\n",
            None,
        ),
        (
            "demo-1.0/demo.egg-info/requires.txt",
            F,
            b"docopt>=0.6.2\n",
            None,
        ),
        ("demo-1.0/.git/HEAD", F, b"ref", None),
        ("demo-1.0/build/lib/demo.txt", F, b"", None),
    ]);
    let tree = read_archive("demo-1.0.tar.gz", &bytes, &DATA, 1 << 20).unwrap();
    let paths: Vec<&str> = tree.entries.keys().map(String::as_str).collect();
    assert_eq!(
        paths,
        [
            "PKG-INFO",
            "demo.egg-info/entry_points.txt",
            "demo.egg-info/requires.txt",
            "demo/__init__.py",
            "tests/data/big.txt",
            "tests/data/logo.png",
            "tests/data/table.csv"
        ]
    );
    assert_eq!(tree.bytes("tests/data/logo.png"), Some(png));
    assert!(matches!(
        tree.entries["tests/data/big.txt"],
        Entry::File {
            bytes: None,
            size: 101,
            ..
        }
    ));
    // Read for the Python code only: no data file.
    let code = read_archive("demo-1.0.tar.gz", &bytes, &CODE, 1 << 20).unwrap();
    let paths: Vec<&str> = code.entries.keys().map(String::as_str).collect();
    assert_eq!(
        paths,
        [
            "PKG-INFO",
            "demo.egg-info/entry_points.txt",
            "demo.egg-info/requires.txt",
            "demo/__init__.py"
        ]
    );
}

#[test]
fn data_rows_text_bytes_and_budget() {
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\x00\xff";
    let bytes = tgz(&[
        ("demo-1.0/PKG-INFO", F, b"Name: demo\n", None),
        ("demo-1.0/tests/data/logo.png", F, png, None),
        (
            "demo-1.0/tests/data/bom.txt",
            F,
            b"\xef\xbb\xbfhi\r\n",
            None,
        ),
        ("demo-1.0/tests/data/big.txt", F, &[b'x'; 101], None),
        ("demo-1.0/tests/data/ninety.txt", F, &[b'n'; 90], None),
        ("demo-1.0/docs/sixty.rst", F, &[b's'; 60], None),
        (
            "demo-1.0/docs/link.txt",
            tar::EntryType::Symlink,
            b"",
            Some("sixty.rst"),
        ),
    ]);
    let tree = read_archive("demo-1.0.tar.gz", &bytes, &DATA, 1 << 20).unwrap();
    let rows = crate::files::file_rows("r", &tree, &DATA, None);
    let got: Vec<(&str, &str, Option<&str>)> = rows
        .iter()
        .map(|f| (f.path.as_str(), f.status.as_str(), f.reason.as_deref()))
        .collect();
    let budget = Some("beyond the repository's data budget of 150 bytes");
    assert_eq!(
        got,
        [
            ("PKG-INFO", "ok", None),
            (
                "docs/link.txt",
                "skipped",
                Some("symlink to sixty.rst, not followed")
            ),
            // Test folders first: 8 + 6 + 90 bytes fit, 60 more do not.
            ("docs/sixty.rst", "skipped", budget),
            (
                "tests/data/big.txt",
                "skipped",
                Some("larger than 100 bytes")
            ),
            ("tests/data/bom.txt", "ok", None),
            ("tests/data/logo.png", "ok", None),
            ("tests/data/ninety.txt", "ok", None),
        ]
    );
    assert_eq!(rows[0].kind, crate::files::Kind::Dependency);
    assert!(rows[1..].iter().all(|f| f.kind == crate::files::Kind::Data));
    let by = |p: &str| rows.iter().find(|f| f.path == p).unwrap();
    let png_row = by("tests/data/logo.png");
    assert_eq!(
        (
            png_row.content.as_deref(),
            png_row.bytes.as_ref().map(|b| &b.0[..])
        ),
        (None, Some(png))
    );
    // Text is kept exactly: the BOM and the line end a test may compare.
    assert_eq!(
        by("tests/data/bom.txt").content.as_deref(),
        Some("\u{feff}hi\r\n")
    );
    assert!(by("tests/data/bom.txt").bytes.is_none());
    assert_eq!(by("docs/sixty.rst").size, 60);
}

#[test]
fn data_links_out_refuse_the_archive() {
    for (link, target) in [
        ("demo/tests/data/passwd", "/etc/passwd"),
        ("demo/tests/data/up", "../../../../secret.json"),
    ] {
        let bytes = tgz(&[
            ("demo/tests/data/ok.json", F, b"{}", None),
            (link, tar::EntryType::Symlink, b"", Some(target)),
        ]);
        let err = read_archive("d.tar.gz", &bytes, &DATA, 1 << 20).unwrap_err();
        assert!(matches!(err, ArchiveError::Crafted { .. }), "{err}");
    }
    let bytes = tgz(&[("demo/../data.json", F, b"{}", None)]);
    assert!(matches!(
        read_archive("d.tar.gz", &bytes, &DATA, 1 << 20),
        Err(ArchiveError::Crafted { .. })
    ));
}

#[test]
fn data_read_cap_bounds_memory() {
    // The read cap is four times the budget (600 bytes): later files are only hashed.
    let blobs: Vec<String> = (0..10).map(|i| format!("demo/tests/d{i}.bin")).collect();
    let specs: Vec<Spec<'_>> = blobs
        .iter()
        .map(|p| (p.as_str(), F, &[0xffu8; 100][..], None))
        .collect();
    let tree = read_archive("d.tar.gz", &tgz(&specs), &DATA, 1 << 20).unwrap();
    let held = tree
        .entries
        .values()
        .filter(|e| matches!(e, Entry::File { bytes: Some(_), .. }))
        .count();
    assert_eq!(held, 6);
    let rows = crate::files::file_rows("r", &tree, &DATA, None);
    assert_eq!(rows.iter().filter(|f| f.status.as_str() == "ok").count(), 1);
    assert_eq!(rows.len(), 10);
}

#[test]
fn formats() {
    assert_eq!(format_of("a-1.0.tar.gz").unwrap(), Format::TarGz);
    assert_eq!(format_of("a-1.0.TGZ").unwrap(), Format::TarGz);
    assert_eq!(format_of("a-1.0.zip").unwrap(), Format::Zip);
    assert_eq!(format_of("a-1.0-py3-none-any.whl").unwrap(), Format::Zip);
    assert_eq!(format_of("snapshot.tar").unwrap(), Format::Tar);
    let err = format_of("a-1.0.tar.bz2").unwrap_err().to_string();
    assert!(err.starts_with("unsupported archive format"), "{err}");
}

#[test]
fn link_targets() {
    assert_eq!(check_link_target("a/b/c", "../d", false), Ok("a/d".into()));
    assert_eq!(
        check_link_target("a/b", "../../x", false),
        Err("is a link that leaves the archive")
    );
    assert_eq!(check_link_target("a/b", "a/x", true), Ok("a/x".into()));
    assert_eq!(
        check_link_target("a/b", "../x", true),
        Err("is a link that leaves the archive")
    );
}

fn component() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_][A-Za-z0-9_.-]{0,8}".prop_filter("not a dot name", |s| s != "." && s != "..")
}

proptest! {
    #[test]
    fn normal_relative_paths_are_accepted(parts in prop::collection::vec(component(), 1..6)) {
        let path = parts.join("/");
        prop_assert_eq!(check_entry_path(&path), Ok(path.clone()));
        let dotted = format!("./{path}");
        prop_assert_eq!(check_entry_path(&dotted), Ok(path));
    }

    #[test]
    fn dot_dot_anywhere_is_refused(
        before in prop::collection::vec(component(), 0..4),
        after in prop::collection::vec(component(), 0..4),
    ) {
        let path = before.iter().map(String::as_str).chain([".."]).chain(after.iter().map(String::as_str)).collect::<Vec<_>>().join("/");
        prop_assert!(check_entry_path(&path).is_err(), "{}", path);
    }

    #[test]
    fn absolute_paths_are_refused(parts in prop::collection::vec(component(), 0..5), lead in "(/|//|\\\\|C:|c:/)") {
        let path = format!("{lead}{}", parts.join("/"));
        prop_assert!(check_entry_path(&path).is_err(), "{}", path);
    }

    #[test]
    fn links_escaping_are_refused(depth in 0usize..4, ups in 1usize..6, rest in prop::collection::vec(component(), 0..3)) {
        let link = (0..=depth).map(|i| format!("d{i}")).collect::<Vec<_>>().join("/");
        let target = std::iter::repeat_n("..", ups).map(str::to_string).chain(rest).collect::<Vec<_>>().join("/");
        let escapes = ups > depth;
        prop_assert_eq!(check_link_target(&link, &target, false).is_err(), escapes, "{} -> {}", link, target);
        let absolute = format!("/{target}");
        prop_assert!(check_link_target(&link, &absolute, false).is_err());
    }
}
