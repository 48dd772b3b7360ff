//! What a table is: a named, documented row type with a derived Arrow schema.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use serde::{de::DeserializeOwned, Serialize};

use crate::SCHEMA_VERSION;

/// Key of the schema version in a Parquet file's key-value metadata.
pub const VERSION_KEY: &str = "freshbench.schema_version";
/// Key of the table name in a Parquet file's key-value metadata.
pub const TABLE_KEY: &str = "freshbench.table";
/// Key of a column's documentation in its Arrow field metadata.
pub const DOC_KEY: &str = "doc";

/// One column, as documented in the contract.
#[derive(Debug, Clone)]
pub struct ColumnDoc {
    pub name: &'static str,
    pub data_type: DataType,
    pub nullable: bool,
    pub doc: String,
    /// The values a text column may hold (a closed vocabulary), if it is one.
    pub values: Option<&'static [&'static str]>,
}

/// A row type whose columns are documented (tables and nested records).
pub trait Described {
    fn columns() -> Vec<ColumnDoc>;

    /// The Arrow fields, each carrying its documentation as metadata.
    fn fields() -> Vec<Field> {
        Self::columns()
            .into_iter()
            .map(|c| {
                Field::new(c.name, c.data_type, c.nullable)
                    .with_metadata(HashMap::from([(DOC_KEY.to_string(), c.doc)]))
            })
            .collect()
    }
}

/// A table of the dataset: one Parquet file `DIR/<NAME>.parquet`, one writer stage.
pub trait Table: Described + Serialize + DeserializeOwned + Clone {
    /// The table's name, also its file stem.
    const NAME: &'static str;
    /// The stage that writes it (one table, one writer).
    const WRITER: &'static str;
    /// What one row is.
    fn doc() -> String;

    /// The Arrow schema, stamped with the table name and the schema version.
    fn schema() -> SchemaRef {
        Arc::new(Schema::new_with_metadata(
            Self::fields(),
            HashMap::from([
                (TABLE_KEY.to_string(), Self::NAME.to_string()),
                (VERSION_KEY.to_string(), SCHEMA_VERSION.to_string()),
            ]),
        ))
    }
}

/// Joins the lines of a doc comment into one paragraph.
pub fn join_doc(lines: &[&str]) -> String {
    lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
