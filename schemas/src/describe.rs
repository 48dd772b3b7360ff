//! The generated description of every table (`schemas/TABLES.md`).

use std::fmt::Write as _;

use crate::table::{ColumnDoc, Table};
use crate::tables::{
    AssertionTask, Candidate, Classification, CompletionTask, Execution, File, Function,
    FunctionTask, HistoryFile, Module, ObservedCall, Reference, Repo, RepoTest, Score, Slice,
    Snapshot, TestCase, Validation,
};

/// One table's description.
pub struct TableDoc {
    pub name: &'static str,
    pub writer: &'static str,
    pub doc: String,
    pub columns: Vec<ColumnDoc>,
}

fn doc_of<T: Table>() -> TableDoc {
    TableDoc {
        name: T::NAME,
        writer: T::WRITER,
        doc: T::doc(),
        columns: T::columns(),
    }
}

/// Every table of the contract, in dataflow order.
pub fn all_tables() -> Vec<TableDoc> {
    vec![
        doc_of::<Repo>(),
        doc_of::<File>(),
        doc_of::<Snapshot>(),
        doc_of::<HistoryFile>(),
        doc_of::<Module>(),
        doc_of::<Function>(),
        doc_of::<Reference>(),
        doc_of::<Classification>(),
        doc_of::<FunctionTask>(),
        doc_of::<TestCase>(),
        doc_of::<CompletionTask>(),
        doc_of::<AssertionTask>(),
        doc_of::<RepoTest>(),
        doc_of::<ObservedCall>(),
        doc_of::<Validation>(),
        doc_of::<Slice>(),
        doc_of::<Candidate>(),
        doc_of::<Execution>(),
        doc_of::<Score>(),
    ]
}

/// The Markdown description of all tables.
pub fn markdown() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# freshbench tables (schema version {})\n\nGenerated from `schemas/src/tables/` by \
         `make tables-doc`; a test fails when this file and the code disagree.\n\
         Every file carries `freshbench.table` and `freshbench.schema_version` in its Parquet \
         key-value metadata.\n",
        crate::SCHEMA_VERSION
    );
    for t in all_tables() {
        let loc = if matches!(t.name, "candidates" | "executions" | "scores") {
            format!("`runs/<run>/{}.parquet`", t.name)
        } else {
            format!("`{}.parquet`", t.name)
        };
        let _ = writeln!(
            out,
            "## `{}`\n\nFile {loc}, written by `{}`. {}\n",
            t.name, t.writer, t.doc
        );
        let _ = writeln!(out, "| column | type | null | meaning |\n|---|---|---|---|");
        for c in &t.columns {
            let values = c.values.map_or_else(String::new, |v| {
                let v: Vec<String> = v.iter().map(|x| format!("`{x}`")).collect();
                format!(" Values: {}.", v.join(", "))
            });
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {}{} |",
                c.name,
                type_name(&c.data_type),
                if c.nullable { "yes" } else { "" },
                c.doc.replace('|', "\\|"),
                values
            );
        }
        out.push('\n');
    }
    out
}

fn type_name(dt: &arrow::datatypes::DataType) -> String {
    use arrow::datatypes::DataType as D;
    match dt {
        D::List(f) => format!("list<{}>", type_name(f.data_type())),
        D::Struct(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| format!("{}: {}", f.name(), type_name(f.data_type())))
                .collect();
            format!("struct<{}>", inner.join(", "))
        }
        D::Timestamp(_, _) => "timestamp(us, UTC)".into(),
        other => other.to_string().to_lowercase(),
    }
}
