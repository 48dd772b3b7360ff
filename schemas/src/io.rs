//! Reading and writing tables: atomic writes stamped with the schema version, reads
//! that refuse a file of another version or another table.

use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::table::{Table, TABLE_KEY, VERSION_KEY};
use crate::SCHEMA_VERSION;

/// Rows per record batch (and row group granularity) when writing.
const BATCH_ROWS: usize = 4096;

/// What went wrong reading or writing a table, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{path}: table not found; run `{writer}` first (it writes `{table}`)")]
    Missing {
        path: PathBuf,
        table: &'static str,
        writer: &'static str,
    },
    #[error("{path}: not a readable Parquet file ({source}); delete it and rerun `{writer}`")]
    Corrupt {
        path: PathBuf,
        writer: &'static str,
        source: parquet::errors::ParquetError,
    },
    #[error(
        "{path}: schema version {found}, but this freshbench expects version {expected}; \
         rerun `{writer}` with this version of freshbench to rewrite it"
    )]
    Version {
        path: PathBuf,
        found: String,
        expected: u32,
        writer: &'static str,
    },
    #[error("{path}: holds table `{found}`, expected `{expected}`")]
    WrongTable {
        path: PathBuf,
        found: String,
        expected: &'static str,
    },
    #[error("{path}: its columns do not match table `{table}` ({detail}); rerun `{writer}`")]
    Columns {
        path: PathBuf,
        table: &'static str,
        writer: &'static str,
        detail: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("table `{table}`: rows do not fit the schema ({detail}); this is a bug in freshbench")]
    Convert { table: &'static str, detail: String },
}

/// Path of a table in a dataset directory.
pub fn table_path<T: Table>(dir: &Path) -> PathBuf {
    dir.join(format!("{}.parquet", T::NAME))
}

/// Writes `rows` as `DIR/<table>.parquet`, atomically.
pub fn write_table<T: Table>(dir: &Path, rows: &[T]) -> Result<PathBuf, TableError> {
    let path = table_path::<T>(dir);
    write_table_to(&path, rows)?;
    Ok(path)
}

/// Writes `rows` to `path` (a table of a run, say), atomically (see [`write_atomic`]): a
/// reader sees either the old table or the new one, never half of one, also after a crash.
pub fn write_table_to<T: Table>(path: &Path, rows: &[T]) -> Result<(), TableError> {
    let schema = T::schema();
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(format!("freshbench {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(vec![
            KeyValue::new(TABLE_KEY.to_string(), T::NAME.to_string()),
            KeyValue::new(VERSION_KEY.to_string(), SCHEMA_VERSION.to_string()),
        ]))
        .build();
    let convert = |e: &dyn std::fmt::Display| TableError::Convert {
        table: T::NAME,
        detail: e.to_string(),
    };
    // A conversion error is the rows' fault (a bug), not the disk's: keep it apart.
    let mut failed: Option<TableError> = None;
    let written = write_atomic(path, |file| {
        let run = || -> Result<(), TableError> {
            let mut writer =
                ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(|e| convert(&e))?;
            let fields = schema.fields().to_vec();
            for chunk in rows.chunks(BATCH_ROWS) {
                let batch =
                    serde_arrow::to_record_batch(&fields, &chunk).map_err(|e| convert(&e))?;
                let batch = batch.with_schema(schema.clone()).map_err(|e| convert(&e))?;
                writer.write(&batch).map_err(|e| convert(&e))?;
            }
            writer.close().map_err(|e| convert(&e))?;
            Ok(())
        };
        run().map_err(|e| {
            failed = Some(e);
            std::io::Error::other("the table could not be encoded")
        })
    });
    match (written, failed) {
        (_, Some(e)) => Err(e),
        (Err(source), None) => Err(TableError::Io {
            path: path.to_path_buf(),
            source,
        }),
        (Ok(()), None) => Ok(()),
    }
}

/// The one atomic write of freshbench: `fill` writes the content into a temporary file in
/// `path`'s folder (created if missing), which is then synced to disk, made readable
/// (0644, as any file the user writes), renamed over `path`, and the folder synced too, so
/// that after a crash or a power loss `path` holds either its old content or the whole new
/// one. On an error the temporary file is removed and `path` is untouched.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let parent = parent_of(path);
    fs::create_dir_all(parent)?;
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(parent)?;
    fill(tmp.as_file_mut())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(0o644))?;
    }
    tmp.as_file_mut().flush()?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(parent)
}

/// [`write_atomic`] of bytes.
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic(path, |f| f.write_all(bytes))
}

/// Renames `from` to `to` (a file or a folder built beside its final place) and syncs the
/// folder that holds `to`, so the rename survives a crash.
pub fn rename_durably(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::rename(from, to)?;
    sync_dir(parent_of(to))
}

/// Syncs a folder's entries (a rename or a new file in it) to disk. Filesystems that cannot
/// sync a folder (some network and FUSE ones refuse with `EINVAL`) are not an error.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    match File::open(dir).and_then(|d| d.sync_all()) {
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Ok(()),
        other => other,
    }
}

fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Reads `DIR/<table>.parquet` into rows, checking its version and columns.
pub fn read_table<T: Table>(dir: &Path) -> Result<Vec<T>, TableError> {
    read_table_from(&table_path::<T>(dir))
}

/// Reads a table from `path` into rows, checking its version and columns.
pub fn read_table_from<T: Table>(path: &Path) -> Result<Vec<T>, TableError> {
    let batches = read_batches::<T>(path)?;
    let mut rows = Vec::new();
    for batch in &batches {
        let part: Vec<T> =
            serde_arrow::from_record_batch(batch).map_err(|e| TableError::Columns {
                path: path.to_path_buf(),
                table: T::NAME,
                writer: T::WRITER,
                detail: e.to_string(),
            })?;
        rows.extend(part);
    }
    Ok(rows)
}

/// Whether `DIR/<table>.parquet` exists.
pub fn table_exists<T: Table>(dir: &Path) -> bool {
    table_path::<T>(dir).is_file()
}

/// Reads a table's record batches after checking its stamp and its columns against `T`.
pub fn read_batches<T: Table>(path: &Path) -> Result<Vec<RecordBatch>, TableError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TableError::Missing {
                path: path.to_path_buf(),
                table: T::NAME,
                writer: T::WRITER,
            })
        }
        Err(source) => {
            return Err(TableError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let corrupt = |source| TableError::Corrupt {
        path: path.to_path_buf(),
        writer: T::WRITER,
        source,
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(corrupt)?;
    let (table, version) = stamp(builder.metadata().file_metadata().key_value_metadata());
    if version.as_deref() != Some(&SCHEMA_VERSION.to_string()) {
        return Err(TableError::Version {
            path: path.to_path_buf(),
            found: version.unwrap_or_else(|| "none (not written by freshbench)".into()),
            expected: SCHEMA_VERSION,
            writer: T::WRITER,
        });
    }
    match table {
        Some(t) if t == T::NAME => {}
        found => {
            return Err(TableError::WrongTable {
                path: path.to_path_buf(),
                found: found.unwrap_or_else(|| "none".into()),
                expected: T::NAME,
            })
        }
    }
    let expected = T::schema();
    let got = builder.schema().clone();
    let mismatch = expected.fields().len() != got.fields().len()
        || expected.fields().iter().zip(got.fields()).any(|(a, b)| {
            a.name() != b.name()
                || a.data_type() != b.data_type()
                || a.is_nullable() != b.is_nullable()
        });
    if mismatch {
        return Err(TableError::Columns {
            path: path.to_path_buf(),
            table: T::NAME,
            writer: T::WRITER,
            detail: "column names or types differ from the contract".into(),
        });
    }
    let reader = builder
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(corrupt)?;
    reader
        .map(|b| b.map_err(|e| corrupt(parquet::errors::ParquetError::External(Box::new(e)))))
        .collect()
}

fn stamp(kv: Option<&Vec<KeyValue>>) -> (Option<String>, Option<String>) {
    let get = |key: &str| {
        kv.and_then(|kv| kv.iter().find(|k| k.key == key))
            .and_then(|k| k.value.clone())
    };
    (get(TABLE_KEY), get(VERSION_KEY))
}
