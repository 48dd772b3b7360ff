//! The table contract: round trips, the version check, and the generated description.

use std::path::Path;

use proptest::prelude::*;
use schemas::{
    examples, read_table, write_table, File, FileKind, FileStatus, LicenseSource, LineDate,
    LineRange, Param, ParamKind, Repo, RepoStatus, SourceKind, TableError, Timestamp,
};

fn repo(i: i64) -> Repo {
    Repo {
        source: SourceKind::Pypi,
        spec: format!("pypi:pkg{i}"),
        version: Some("1.0".into()),
        published_at: Some(Timestamp::from_unix_seconds(1_700_000_000 + i)),
        license: Some("MIT".into()),
        license_source: Some(LicenseSource::Metadata),
        files_total: i,
        ..examples::repo(&format!("{i:032x}"), &format!("pkg{i}"))
    }
}

#[test]
fn repos_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<Repo> = (0..10_000).map(repo).collect();
    write_table(dir.path(), &rows).unwrap();
    let back: Vec<Repo> = read_table(dir.path()).unwrap();
    assert_eq!(rows, back);
}

#[test]
fn nested_columns_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let rows = vec![File {
        repo_id: "r".into(),
        path: "a.py".into(),
        kind: FileKind::Source,
        sha256: "00".into(),
        size: 3,
        content: Some("x=1".into()),
        status: FileStatus::Ok,
        reason: None,
        bytes: None,
        changed_lines: Some(vec![LineRange { start: 1, end: 2 }]),
        line_dates: Some(vec![LineDate {
            start: 1,
            end: 2,
            date: Timestamp::parse("2026-01-02").unwrap(),
        }]),
    }];
    // A binary data file: its bytes, every value of a byte, round trip.
    let mut rows = rows;
    rows.push(File {
        path: "tests/data/blob.bin".into(),
        kind: FileKind::Data,
        content: None,
        bytes: Some(schemas::Bytes((0..=255u8).collect())),
        changed_lines: None,
        line_dates: None,
        ..rows[0].clone()
    });
    write_table(dir.path(), &rows).unwrap();
    assert_eq!(read_table::<File>(dir.path()).unwrap(), rows);
    let _ = Param {
        name: "x".into(),
        kind: ParamKind::PositionalOrKeyword,
        annotation: None,
        default: None,
    };
}

#[test]
fn missing_table_names_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_table::<Repo>(dir.path()).unwrap_err();
    assert!(matches!(err, TableError::Missing { .. }));
    assert!(err.to_string().contains("run `crawl` first"), "{err}");
}

#[test]
fn corrupt_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("repos.parquet"),
        b"PAR1 this is not parquet",
    )
    .unwrap();
    let err = read_table::<Repo>(dir.path()).unwrap_err();
    assert!(matches!(err, TableError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("repos.parquet"));
}

/// Rewrites a table with another version stamp, as an older freshbench would have.
fn restamp(path: &Path, version: &str) {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::KeyValue;
    use parquet::file::properties::WriterProperties;
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap()).unwrap();
    let schema = reader.schema().clone();
    let batches: Vec<_> = reader.build().unwrap().map(Result::unwrap).collect();
    let props = WriterProperties::builder()
        .set_key_value_metadata(Some(vec![
            KeyValue::new("freshbench.table".into(), "repos".to_string()),
            KeyValue::new("freshbench.schema_version".into(), version.to_string()),
        ]))
        .build();
    let mut w =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema, Some(props)).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
}

#[test]
fn other_version_is_refused_with_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_table(dir.path(), &[repo(1)]).unwrap();
    restamp(&path, "0");
    let err = read_table::<Repo>(dir.path()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, TableError::Version { .. }), "{msg}");
    assert!(
        msg.contains("repos.parquet")
            && msg.contains("version 0")
            && msg.contains(&format!("version {}", schemas::SCHEMA_VERSION)),
        "{msg}"
    );
}

#[test]
fn atomic_write_leaves_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path(), &[repo(1)]).unwrap();
    write_table(dir.path(), &[repo(2)]).unwrap();
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("repos.parquet")]);
}

#[test]
fn tables_doc_matches_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("TABLES.md");
    let generated = schemas::describe::markdown();
    if std::env::var_os("UPDATE_TABLES").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/TABLES.md is out of date: run `make tables-doc` and commit it"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn any_repo_rows_round_trip(names in proptest::collection::vec(("\\PC{0,20}", any::<Option<i64>>(), any::<bool>()), 0..50)) {
        let rows: Vec<Repo> = names.iter().enumerate().map(|(i, (n, t, ok))| Repo {
            name: n.clone(),
            published_at: t.map(|t| Timestamp(t / 2)),
            status: if *ok { RepoStatus::Ok } else { RepoStatus::Error },
            reason: if *ok { None } else { Some(n.clone()) },
            ..repo(i as i64)
        }).collect();
        let dir = tempfile::tempdir().unwrap();
        write_table(dir.path(), &rows).unwrap();
        prop_assert_eq!(read_table::<Repo>(dir.path()).unwrap(), rows);
    }
}

/// Regression: tables were written with the temporary file's mode 0600, unreadable to
/// other users of a shared dataset directory.
#[cfg(unix)]
#[test]
fn tables_are_readable_by_others() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = write_table(dir.path(), &[repo(1)]).unwrap();
    assert_eq!(
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777,
        0o644
    );
}

/// A closed vocabulary is stored as text: another tool reads `status = 'ok'`, and a file
/// whose column holds a value outside the vocabulary is refused naming the table, not
/// read as some other status.
#[test]
fn statuses_are_text_in_the_file_and_unknown_text_is_refused() {
    use arrow::array::{Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let dir = tempfile::tempdir().unwrap();
    let mut r = repo(1);
    r.status = RepoStatus::Skipped;
    let path = write_table(dir.path(), &[r]).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let batch = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let col = batch.column_by_name("status").unwrap();
    let text = col.as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(text.value(0), "skipped");
    assert!(schemas::describe::markdown().contains("Values: `ok`, `skipped`, `error`."));
}
