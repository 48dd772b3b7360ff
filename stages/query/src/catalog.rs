//! Registering a dataset's tables: `DIR/<table>.parquet` under its file stem, and the runs'
//! tables (`DIR/runs/<run>/<table>.parquet`) as one table each over all runs.
//!
//! Every file's stamp is checked before it is registered, as every stage checks what it
//! reads: a file of another schema version, of another table, or (for a table of the
//! contract) with other columns stops `query` with a message naming the file.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::TableReference;
use datafusion::datasource::MemTable;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use schemas::describe::{all_tables, TableDoc};
use schemas::table::{TABLE_KEY, VERSION_KEY};
use schemas::{Candidate, Execution, Score, Table, TableError, SCHEMA_VERSION};

/// The tables of a run, registered over all runs.
pub const RUN_TABLES: [&str; 3] = [Candidate::NAME, Execution::NAME, Score::NAME];

/// What a registered name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A table of the dataset directory.
    Table,
    /// A table of the runs, over all of them (possibly none: then empty).
    Run,
    /// A table of the contract this dataset does not have, stood in for by an empty table
    /// because a view reads it optionally.
    StandIn,
    /// A view of pipelines/sql.
    View,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Table => "table",
            Kind::Run => "run table",
            Kind::StandIn => "empty stand-in",
            Kind::View => "view",
        }
    }
}

/// One registered name and where its rows come from.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub kind: Kind,
    /// The file, the runs' files, or the view's SQL file.
    pub source: String,
}

/// What went wrong registering a dataset.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(
        "{path}: schema version {found}, but this freshbench expects version {expected}; \
         rewrite it with this version of freshbench"
    )]
    Version {
        path: PathBuf,
        found: String,
        expected: u32,
    },
    #[error("{path}: holds table `{found}`, but its file name says `{expected}`")]
    WrongTable {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("{path}: not a readable Parquet file ({source}); delete it or write it again")]
    Corrupt {
        path: PathBuf,
        source: parquet::errors::ParquetError,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("registering {path}: {source}")]
    Register {
        path: String,
        source: datafusion::error::DataFusionError,
    },
}

/// The contract's description of table `name`, if it is one of the contract.
fn contract(name: &str) -> Option<TableDoc> {
    all_tables().into_iter().find(|t| t.name == name)
}

/// The `.parquet` files directly in `dir`, sorted, without hidden (temporary) files.
fn parquet_files(dir: &Path) -> Result<Vec<PathBuf>, CatalogError> {
    let io = |source| CatalogError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.starts_with('.')
            && path.extension().is_some_and(|e| e == "parquet")
            && path.is_file()
        {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The table name of a file: its stem.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Checks a file's stamp (version and table) and, for a table of the contract, its columns.
pub fn check_stamp(path: &Path, table: &str) -> Result<(), CatalogError> {
    let doc = contract(table);
    let file = File::open(path).map_err(|source| CatalogError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|source| {
        if let Some(doc) = &doc {
            CatalogError::Table(TableError::Corrupt {
                path: path.to_path_buf(),
                writer: doc.writer,
                source,
            })
        } else {
            CatalogError::Corrupt {
                path: path.to_path_buf(),
                source,
            }
        }
    })?;
    let kv = builder.metadata().file_metadata().key_value_metadata();
    let get = |key: &str| {
        kv.and_then(|kv| kv.iter().find(|k| k.key == key))
            .and_then(|k| k.value.clone())
    };
    let version = get(VERSION_KEY);
    if version.as_deref() != Some(SCHEMA_VERSION.to_string().as_str()) {
        let found = version.unwrap_or_else(|| "none (not written by freshbench)".into());
        return Err(match &doc {
            Some(doc) => TableError::Version {
                path: path.to_path_buf(),
                found,
                expected: SCHEMA_VERSION,
                writer: doc.writer,
            }
            .into(),
            None => CatalogError::Version {
                path: path.to_path_buf(),
                found,
                expected: SCHEMA_VERSION,
            },
        });
    }
    let found = get(TABLE_KEY).unwrap_or_else(|| "none".into());
    if found != table {
        return Err(match &doc {
            Some(doc) => TableError::WrongTable {
                path: path.to_path_buf(),
                found,
                expected: doc.name,
            }
            .into(),
            None => CatalogError::WrongTable {
                path: path.to_path_buf(),
                found,
                expected: table.to_string(),
            },
        });
    }
    if let Some(doc) = doc {
        let got = builder.schema();
        let mismatch = doc.columns.len() != got.fields().len()
            || doc.columns.iter().zip(got.fields()).any(|(c, f)| {
                c.name != f.name().as_str()
                    || &c.data_type != f.data_type()
                    || c.nullable != f.is_nullable()
            });
        if mismatch {
            return Err(TableError::Columns {
                path: path.to_path_buf(),
                table: doc.name,
                writer: doc.writer,
                detail: "column names or types differ from the contract".into(),
            }
            .into());
        }
    }
    Ok(())
}

fn register_err(path: &Path) -> impl FnOnce(datafusion::error::DataFusionError) -> CatalogError {
    let path = path.display().to_string();
    move |source| CatalogError::Register { path, source }
}

/// Registers every `DIR/<table>.parquet` under its stem.
pub async fn register_dataset(
    ctx: &SessionContext,
    dir: &Path,
) -> Result<Vec<Entry>, CatalogError> {
    let mut entries = Vec::new();
    for path in parquet_files(dir)? {
        let name = stem(&path);
        if RUN_TABLES.contains(&name.as_str()) {
            tracing::warn!(
                path = %path.display(),
                "a run's table in the dataset folder, not under runs/<run>/: ignored"
            );
            continue;
        }
        check_stamp(&path, &name)?;
        let location = path.to_string_lossy();
        ctx.register_parquet(
            TableReference::bare(name.as_str()),
            location.as_ref(),
            ParquetReadOptions::default(),
        )
        .await
        .map_err(register_err(&path))?;
        tracing::debug!(table = %name, path = %path.display(), "registered");
        entries.push(Entry {
            name,
            kind: Kind::Table,
            source: path.display().to_string(),
        });
    }
    Ok(entries)
}

/// The run folders of `DIR/runs`, sorted; none when it does not exist.
fn run_dirs(dir: &Path) -> Result<Vec<PathBuf>, CatalogError> {
    let runs = dir.join("runs");
    if !runs.is_dir() {
        return Ok(Vec::new());
    }
    let io = |source| CatalogError::Io {
        path: runs.clone(),
        source,
    };
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(&runs).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if path.is_dir() && !hidden {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// The columns of table `name` of the contract, without metadata (schema metadata that
/// differs between the inputs of a plan trips DataFusion up), if the contract has it.
fn contract_schema(name: &str) -> Option<SchemaRef> {
    let fields: Vec<Field> = contract(name)?
        .columns
        .into_iter()
        .map(|c| Field::new(c.name, c.data_type, c.nullable))
        .collect();
    Some(Arc::new(Schema::new(fields)))
}

/// Registers an empty table of `schema` under `name`.
pub fn register_empty(
    ctx: &SessionContext,
    name: &str,
    schema: SchemaRef,
) -> Result<(), CatalogError> {
    let table = MemTable::try_new(schema, vec![vec![]]).map_err(register_err(Path::new(name)))?;
    ctx.register_table(TableReference::bare(name), Arc::new(table))
        .map_err(register_err(Path::new(name)))?;
    Ok(())
}

/// Registers `candidates`, `executions` and `scores` over all runs of `DIR/runs`.
pub async fn register_runs(ctx: &SessionContext, dir: &Path) -> Result<Vec<Entry>, CatalogError> {
    let runs = run_dirs(dir)?;
    let mut entries = Vec::new();
    for name in RUN_TABLES {
        let mut files = Vec::new();
        for run in &runs {
            let path = run.join(format!("{name}.parquet"));
            if path.is_file() {
                check_stamp(&path, name)?;
                files.push(path);
            }
        }
        let source = if files.is_empty() {
            // RUN_TABLES are all tables of the contract.
            if let Some(schema) = contract_schema(name) {
                register_empty(ctx, name, schema)?;
            }
            "no run has it: empty".to_string()
        } else {
            let locations: Vec<String> = files
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            let frame = ctx
                .read_parquet(locations, ParquetReadOptions::default())
                .await
                .map_err(register_err(&dir.join("runs")))?;
            ctx.register_table(TableReference::bare(name), frame.into_view())
                .map_err(register_err(&dir.join("runs")))?;
            format!(
                "{} ({} run{})",
                dir.join("runs")
                    .join("*")
                    .join(format!("{name}.parquet"))
                    .display(),
                files.len(),
                if files.len() == 1 { "" } else { "s" }
            )
        };
        tracing::debug!(table = name, runs = files.len(), "registered");
        entries.push(Entry {
            name: name.to_string(),
            kind: Kind::Run,
            source,
        });
    }
    Ok(entries)
}

/// Registers an empty stand-in for table `name` of the contract; false when the contract
/// has no such table.
pub fn register_stand_in(ctx: &SessionContext, name: &str) -> Result<bool, CatalogError> {
    let Some(schema) = contract_schema(name) else {
        return Ok(false);
    };
    register_empty(ctx, name, schema)?;
    Ok(true)
}
