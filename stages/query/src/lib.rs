//! `query`: SQL over a dataset directory, with DataFusion.
//!
//! Every table of the dataset (`DIR/<table>.parquet`, named by its file stem) is registered
//! under its own name, after its schema-version stamp (and, for a table of the contract, its
//! columns) has been checked as every stage checks what it reads. The tables of the runs
//! (`DIR/runs/<run>/{candidates,executions,scores}.parquet`) are registered as one table each
//! over all runs (every row carries its `run`); when no run has one of them, it is an empty
//! table of the contract's columns, so that views over runs still work on a dataset without
//! runs. Then the views of `pipelines/sql/*.sql` (file stem = view name; compiled in, or read
//! from `--views DIR`) are created in dependency order: a view whose tables this dataset does
//! not have is skipped with a warning (see [`views`] for the `-- optional:` stand-ins and the
//! `UNION ALL -- branch` families).
//!
//! The SQL comes as an argument, from `-f FILE`, from an interactive prompt when neither is
//! given and stdin is a terminal (rustyline: line editing and a history file, for a few small
//! crates), or else from stdin. Statements run in order; the last one's result is printed as
//! a table or written as CSV, JSON lines or Parquet ([`output`]). A query error shows
//! DataFusion's message with the line and column it points at ([`position`]) and exits 2.
//! The dataset is only read: statements that write (`COPY`, `INSERT`) are refused.

// DataFusion is a name in prose here, not code; and doc comments of options are help text,
// where backticks would show.
#![allow(clippy::doc_markdown)]

pub mod catalog;
pub mod output;
pub mod position;
mod repl;
pub mod session;
pub mod views;

use std::io::{IsTerminal as _, Read as _};
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use schemas::cli::{CommonArgs, Outcome};

pub use catalog::{Entry, Kind};
pub use output::Format;
pub use position::{Position, QueryError};
pub use session::{QueryResult, Session};

/// Command-line arguments of `query`.
#[derive(Debug, clap::Parser)]
#[command(
    name = "query",
    version,
    about = "SQL over a dataset: its tables, its runs' tables and the views of pipelines/sql.",
    long_about = "SQL over a dataset (DataFusion): every DIR/<table>.parquet under its file stem, \
                  the runs' candidates, executions and scores over all runs (with a `run` column), \
                  and the views of pipelines/sql (tasks, leaderboard, difficulty, ...).\n\n\
                  The SQL comes as an argument, from -f FILE, from an interactive prompt when \
                  stdin is a terminal, or else from stdin. Several statements may be given, \
                  separated by `;`: all run, the last one's result is printed. A query error \
                  exits 2 with the line and column it points at."
)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The SQL to run (one or more statements separated by `;`; the last one's result is
    /// printed). Without it and without -f: an interactive prompt when stdin is a terminal,
    /// else the SQL is read from stdin.
    #[arg(value_name = "SQL", conflicts_with_all = ["file", "list"])]
    pub sql: Option<String>,
    /// Read the SQL from FILE instead.
    #[arg(
        short = 'f',
        long = "file",
        value_name = "FILE",
        conflicts_with = "list"
    )]
    pub file: Option<PathBuf>,
    /// Print the registered tables and views with their kind, row count and source, and exit.
    #[arg(long)]
    pub list: bool,
    /// How to print the result: an aligned text table, CSV with a header, JSON lines (one
    /// object per row) or Parquet (needs --output).
    #[arg(long, value_enum, default_value_t = Format::Table, value_name = "FORMAT")]
    pub format: Format,
    /// Write the result to FILE (replaced atomically) instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Read the views from DIR/*.sql (file stem = view name) instead of the ones compiled in
    /// from pipelines/sql; for trying a view without rebuilding.
    #[arg(long, value_name = "DIR")]
    pub views: Option<PathBuf>,
    /// The interactive prompt's history file [default: ~/.freshbench_query_history].
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
}

/// Where the SQL comes from.
enum Source {
    Text(String),
    Prompt,
}

/// Runs `query` with its arguments.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    if args.format == Format::Parquet && args.output.is_none() {
        bail!("--format parquet writes a file: give it with --output FILE");
    }
    let source = if args.list {
        None
    } else if let Some(sql) = &args.sql {
        Some(Source::Text(sql.clone()))
    } else if let Some(file) = &args.file {
        let sql = std::fs::read_to_string(file)
            .with_context(|| format!("reading the SQL from {}", file.display()))?;
        Some(Source::Text(sql))
    } else if std::io::stdin().is_terminal() {
        Some(Source::Prompt)
    } else {
        let mut sql = String::new();
        std::io::stdin()
            .read_to_string(&mut sql)
            .context("reading the SQL from stdin")?;
        if sql.trim().is_empty() {
            bail!("no SQL given: pass it as an argument, with -f FILE or on stdin");
        }
        Some(Source::Text(sql))
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let data = args.common.data()?;
    let session = runtime
        .block_on(Session::open(data, args.views.as_deref()))
        .with_context(|| format!("opening the dataset {}", data.display()))?;

    match source {
        None => {
            let listing = runtime.block_on(session.list())?;
            output::emit(&listing, args.format, args.output.as_deref())?;
        }
        Some(Source::Text(sql)) => {
            if let Some(result) = runtime.block_on(session.run_sql(&sql))? {
                output::emit(&result, args.format, args.output.as_deref())?;
            }
        }
        Some(Source::Prompt) => {
            repl::run(&runtime, &session, args)?;
        }
    }
    Ok(Outcome::Success)
}
