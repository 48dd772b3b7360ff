//! Printing a result: an aligned text table, CSV, JSON lines or Parquet, to stdout or to a
//! file (written to a temporary file beside it and renamed into place).

use std::io::Write as _;
use std::path::Path;

use anyhow::Context as _;
use arrow::array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::session::QueryResult;

/// How a result is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned text table.
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON object per row and line.
    Jsonl,
    /// A Parquet file (needs --output).
    Parquet,
}

/// The result's batches, or one empty batch of its schema when it has no rows (so that a
/// table or CSV still shows the header).
fn batches(result: &QueryResult) -> Vec<RecordBatch> {
    if result.batches.is_empty() {
        vec![RecordBatch::new_empty(result.schema.clone())]
    } else {
        result.batches.clone()
    }
}

/// The result as bytes in `format` (not Parquet).
pub fn render(result: &QueryResult, format: Format) -> anyhow::Result<Vec<u8>> {
    let batches = batches(result);
    let mut out = Vec::new();
    match format {
        Format::Table => {
            if !result.schema.fields().is_empty() {
                let table = arrow::util::pretty::pretty_format_batches(&batches)
                    .context("formatting the result as a table")?;
                writeln!(out, "{table}")?;
            }
        }
        Format::Csv => {
            let mut writer = arrow::csv::WriterBuilder::new()
                .with_header(true)
                .build(&mut out);
            for batch in &batches {
                writer.write(batch).context("writing the result as CSV")?;
            }
        }
        Format::Jsonl => {
            // Nulls kept: every line has every column.
            let mut writer = arrow::json::WriterBuilder::new()
                .with_explicit_nulls(true)
                .build::<_, arrow::json::writer::LineDelimited>(&mut out);
            for batch in &batches {
                writer
                    .write(batch)
                    .context("writing the result as JSON lines")?;
            }
            writer
                .finish()
                .context("writing the result as JSON lines")?;
        }
        Format::Parquet => anyhow::bail!("a Parquet result is written to a file, not rendered"),
    }
    Ok(out)
}

/// Writes the result as Parquet to `file`.
fn write_parquet(result: &QueryResult, file: &mut std::fs::File) -> anyhow::Result<()> {
    let batches = batches(result);
    let schema = batches[0].schema();
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(format!("freshbench query {}", env!("CARGO_PKG_VERSION")))
        .build();
    let mut writer = ArrowWriter::try_new(file, schema, Some(props))?;
    for batch in &batches {
        writer.write(batch)?;
    }
    writer.close()?;
    Ok(())
}

/// Prints the result in `format` on stdout, or writes it to `output`.
pub fn emit(result: &QueryResult, format: Format, output: Option<&Path>) -> anyhow::Result<()> {
    let Some(path) = output else {
        let bytes = render(result, format)?;
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(&bytes)?;
        stdout.flush()?;
        return Ok(());
    };
    // The one atomic write of the project: synced, renamed into place, folder synced.
    let mut failed: Option<anyhow::Error> = None;
    let written = schemas::io::write_atomic(path, |file| {
        let result = if format == Format::Parquet {
            write_parquet(result, file)
        } else {
            render(result, format).and_then(|bytes| Ok(file.write_all(&bytes)?))
        };
        result.map_err(|e| {
            failed = Some(e);
            std::io::Error::other("the result could not be written")
        })
    });
    if let Some(e) = failed {
        return Err(e.context(format!("writing {}", path.display())));
    }
    written.with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
