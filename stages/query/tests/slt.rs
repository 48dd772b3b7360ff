//! Runs every `tests/sqllogictest/*.slt` file against the dataset of `common` (built in a
//! temporary folder), each file in a session of its own, through the `query` library.
//!
//! Cells print as arrow displays them, NULL as `NULL` and the empty string as `(empty)`.

mod common;

use std::path::{Path, PathBuf};

use arrow::datatypes::DataType;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use async_trait::async_trait;
use query::{QueryError, Session};
use sqllogictest::{DBOutput, DefaultColumnType};

struct Db {
    session: Session,
}

fn column_type(data_type: &DataType) -> DefaultColumnType {
    if data_type.is_integer() {
        DefaultColumnType::Integer
    } else if data_type.is_floating() {
        DefaultColumnType::FloatingPoint
    } else {
        DefaultColumnType::Text
    }
}

fn failure(message: String) -> QueryError {
    QueryError {
        message,
        position: None,
        line_text: None,
    }
}

#[async_trait]
impl sqllogictest::AsyncDB for Db {
    type Error = QueryError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, QueryError> {
        let Some(result) = self.session.run_sql(sql).await? else {
            return Ok(DBOutput::StatementComplete(0));
        };
        if result.schema.fields().is_empty() {
            return Ok(DBOutput::StatementComplete(0));
        }
        let types = result
            .schema
            .fields()
            .iter()
            .map(|f| column_type(f.data_type()))
            .collect();
        let options = FormatOptions::default().with_null("NULL");
        let mut rows = Vec::new();
        for batch in &result.batches {
            let formatters = batch
                .columns()
                .iter()
                .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| failure(e.to_string()))?;
            for row in 0..batch.num_rows() {
                rows.push(
                    formatters
                        .iter()
                        .map(|f| {
                            let cell = f.value(row).to_string();
                            if cell.is_empty() {
                                "(empty)".to_string()
                            } else {
                                cell
                            }
                        })
                        .collect(),
                );
            }
        }
        Ok(DBOutput::Rows { types, rows })
    }

    async fn shutdown(&mut self) {}

    fn engine_name(&self) -> &'static str {
        "freshbench-query"
    }
}

fn slt_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sqllogictest");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .collect();
    files.sort();
    files
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_slt_file_passes() {
    let tmp = tempfile::tempdir().unwrap();
    common::write_dataset(tmp.path());
    let files = slt_files();
    assert!(!files.is_empty(), "no .slt file in tests/sqllogictest");
    let mut failures = Vec::new();
    for file in files {
        let data = tmp.path().to_path_buf();
        let mut runner = sqllogictest::Runner::new(move || {
            let data = data.clone();
            async move {
                let session = Session::open(&data, None)
                    .await
                    .map_err(|e| failure(e.to_string()))?;
                Ok(Db { session })
            }
        });
        if let Err(e) = runner.run_file_async(&file).await {
            failures.push(format!("{}: {}", file.display(), e.display(false)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
