//! A DataFusion session over one dataset: its tables, its runs' tables and the views.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::TableReference;
use datafusion::execution::context::SQLOptions;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion::sql::parser::DFParser;

use crate::catalog::{self, CatalogError, Entry};
use crate::position::QueryError;
use crate::views::{self, ViewError};

/// The rows a statement returned.
#[derive(Debug, Clone)]
pub struct QueryResult {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

impl QueryResult {
    /// Rows in all.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// What went wrong opening a dataset.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}: not a folder (the dataset directory holds <table>.parquet files)")]
    NotADir(String),
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error(transparent)]
    View(#[from] ViewError),
}

/// A session over one dataset.
pub struct Session {
    /// DataFusion's session, with every table and view registered.
    pub ctx: SessionContext,
    /// What is registered, in order: tables, runs' tables, stand-ins, views.
    pub entries: Vec<Entry>,
}

/// The session's settings: strings as the contract declares them (`Utf8`, not `Utf8View`),
/// and spans on the SQL so that planning errors can say where they are.
fn config() -> SessionConfig {
    let mut config = SessionConfig::new().with_information_schema(true);
    let options = config.options_mut();
    options.execution.parquet.schema_force_view_types = false;
    options.sql_parser.map_string_types_to_utf8view = false;
    options.sql_parser.collect_spans = true;
    config
}

impl Session {
    /// Opens the dataset `data`, with the views of `views` (a folder of `*.sql`) or the
    /// ones compiled in.
    pub async fn open(data: &Path, views: Option<&Path>) -> Result<Self, OpenError> {
        if !data.is_dir() {
            return Err(OpenError::NotADir(data.display().to_string()));
        }
        let ctx = SessionContext::new_with_config(config());
        let mut entries = catalog::register_dataset(&ctx, data).await?;
        entries.extend(catalog::register_runs(&ctx, data).await?);
        let files = match views {
            Some(dir) => views::read_dir(dir)?,
            None => views::builtin(),
        };
        entries.extend(views::create_views(&ctx, &files).await?);
        Ok(Self { ctx, entries })
    }

    /// Runs the statements of `sql` in order and returns the last one's rows (None when
    /// there is no statement). Statements that write (`COPY`, `INSERT`) are refused.
    pub async fn run_sql(&self, sql: &str) -> Result<Option<QueryResult>, QueryError> {
        let located = |e: &datafusion::error::DataFusionError| QueryError::new(e, sql);
        let statements = DFParser::parse_sql(sql).map_err(|e| located(&e))?;
        let options = SQLOptions::new().with_allow_dml(false);
        let mut last = None;
        for statement in statements {
            let plan = self
                .ctx
                .state()
                .statement_to_plan(statement)
                .await
                .map_err(|e| located(&e))?;
            options.verify_plan(&plan).map_err(|e| located(&e))?;
            let frame = self
                .ctx
                .execute_logical_plan(plan)
                .await
                .map_err(|e| located(&e))?;
            let schema: SchemaRef = Arc::clone(frame.schema().inner());
            let batches = frame.collect().await.map_err(|e| located(&e))?;
            last = Some(QueryResult { schema, batches });
        }
        Ok(last)
    }

    /// The registered tables and views: name, kind, rows and source.
    pub async fn list(&self) -> Result<QueryResult, QueryError> {
        let mut rows = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            let name = TableReference::bare(entry.name.as_str()).to_quoted_string();
            let sql = format!("SELECT count(*) FROM {name}");
            let count = self
                .run_sql(&sql)
                .await?
                .and_then(|r| {
                    r.batches.first().and_then(|b| {
                        b.column(0)
                            .as_any()
                            .downcast_ref::<Int64Array>()
                            .map(|a| a.value(0))
                    })
                })
                .unwrap_or(0);
            rows.push(count);
        }
        let schema = Arc::new(Schema::new(vec![
            Field::new("name", DataType::Utf8, false),
            Field::new("kind", DataType::Utf8, false),
            Field::new("rows", DataType::Int64, false),
            Field::new("source", DataType::Utf8, false),
        ]));
        let strings = |f: fn(&Entry) -> &str| -> ArrayRef {
            Arc::new(StringArray::from_iter_values(self.entries.iter().map(f)))
        };
        let columns = vec![
            strings(|e| e.name.as_str()),
            strings(|e| e.kind.as_str()),
            Arc::new(Int64Array::from(rows)) as ArrayRef,
            strings(|e| e.source.as_str()),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).map_err(|e| QueryError {
            message: format!("building the list: {e}"),
            position: None,
            line_text: None,
        })?;
        Ok(QueryResult {
            schema,
            batches: vec![batch],
        })
    }
}
