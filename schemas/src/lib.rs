//! The freshbench table contract.
//!
//! Every table that stages exchange is declared here, once, as a Rust row struct whose
//! Arrow schema (with each column's documentation as field metadata) is derived from it:
//! `crawl` writes `repos` and `files`, `resolve` writes `modules`, `functions` and
//! `references`, and so on down DESIGN.md's dataflow (see `TABLES.md`, generated from
//! this crate). Stages read and write tables only through [`io`], which stamps
//! [`SCHEMA_VERSION`] into every Parquet file, writes atomically, and refuses a file of
//! another version naming the file and both versions. [`cli`] holds what every stage
//! binary shares (common options, logging, progress, exit codes).

pub mod cli;
pub mod describe;
pub mod enums;
pub mod examples;
pub mod id;
pub mod io;
mod macros;
pub mod pool;
pub mod shards;
pub mod spdx;
pub mod table;
pub mod tables;
pub mod tagged;
pub mod types;

pub use enums::*;
pub use io::{
    read_table, read_table_from, table_exists, table_path, write_table, write_table_to, TableError,
};
pub use table::Table;
pub use tables::*;
pub use types::{Bytes, Timestamp};

/// The version of the table contract. Bump it when any table's columns change.
pub const SCHEMA_VERSION: u32 = 3;
