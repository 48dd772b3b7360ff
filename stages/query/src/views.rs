//! The views of `pipelines/sql`: one `NAME.sql` file per view, holding its `SELECT`.
//!
//! Two comment conventions let a view follow what a dataset has:
//! - `-- optional: validations, slices` names tables of the contract the view reads only
//!   optionally (say, in a `LEFT JOIN`): when the dataset does not have one, an empty table
//!   of the contract's columns stands in for it (listed as an `empty stand-in`).
//! - A line `UNION ALL -- branch` separates branches (one per task family, say): a branch
//!   that reads a table this dataset does not have is left out, and the view is the
//!   `UNION ALL` of the others. Each branch is a whole query (it may have its own `WITH`).
//!
//! Views are created in dependency order (a view may read other views); one whose every
//! branch reads a missing table, or that DataFusion cannot plan, is skipped with a warning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use datafusion::common::TableReference;
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::DFParser;

use crate::catalog::{register_stand_in, CatalogError, Entry, Kind};
use crate::position::QueryError;

/// The views compiled in from `pipelines/sql` (see build.rs).
const BUILTIN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/views.rs"));

/// The separator of branches: a line holding only this (any case, any surrounding blanks).
const BRANCH: &str = "UNION ALL -- branch";

/// One view file.
#[derive(Debug, Clone)]
pub struct ViewFile {
    /// The view's name (the file stem).
    pub name: String,
    /// Where it came from (a path, or `pipelines/sql/NAME.sql (built in)`).
    pub origin: String,
    /// The SQL text.
    pub sql: String,
}

/// What went wrong reading the views.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("view `{name}` ({origin}): {error}")]
    Parse {
        name: String,
        origin: String,
        error: QueryError,
    },
    #[error("view `{name}` ({origin}): a branch must be one query, found {found} statements")]
    Statements {
        name: String,
        origin: String,
        found: usize,
    },
    #[error(transparent)]
    Catalog(#[from] CatalogError),
}

/// The views compiled in.
pub fn builtin() -> Vec<ViewFile> {
    BUILTIN
        .iter()
        .map(|(name, sql)| ViewFile {
            name: (*name).to_string(),
            origin: format!("pipelines/sql/{name}.sql (built in)"),
            sql: (*sql).to_string(),
        })
        .collect()
}

/// The views of `DIR/*.sql`, sorted by name.
pub fn read_dir(dir: &Path) -> Result<Vec<ViewFile>, ViewError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ViewError::Io { path, source }
    };
    let mut views = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let path = entry.map_err(io(dir))?.path();
        if path.extension().is_some_and(|e| e == "sql") && path.is_file() {
            let sql = std::fs::read_to_string(&path).map_err(io(&path))?;
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            views.push(ViewFile {
                name,
                origin: path.display().to_string(),
                sql,
            });
        }
    }
    views.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(views)
}

/// The tables named by the view's `-- optional:` lines.
pub fn optional_tables(sql: &str) -> Vec<String> {
    sql.lines()
        .filter_map(|l| l.trim().strip_prefix("--"))
        .filter_map(|l| l.trim().strip_prefix("optional:"))
        .flat_map(|l| l.split(','))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// One branch of a view: its query and the tables it reads.
#[derive(Debug)]
struct Branch {
    sql: String,
    tables: Vec<TableReference>,
}

/// Splits a view into its branches and finds the tables each reads.
fn branches(ctx: &SessionContext, view: &ViewFile) -> Result<Vec<Branch>, ViewError> {
    let mut parts: Vec<(usize, String)> = vec![(0, String::new())];
    for (n, line) in view.sql.lines().enumerate() {
        if line.trim().eq_ignore_ascii_case(BRANCH) {
            parts.push((n + 1, String::new()));
        } else if let Some((_, text)) = parts.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    let state = ctx.state();
    let mut out = Vec::new();
    for (first_line, text) in parts {
        let statements = DFParser::parse_sql(&text).map_err(|e| {
            let error = QueryError::new(&e, &text).shifted(first_line);
            ViewError::Parse {
                name: view.name.clone(),
                origin: view.origin.clone(),
                error,
            }
        })?;
        if statements.len() != 1 {
            return Err(ViewError::Statements {
                name: view.name.clone(),
                origin: view.origin.clone(),
                found: statements.len(),
            });
        }
        let tables = state
            .resolve_table_references(&statements[0])
            .map_err(|e| ViewError::Parse {
                name: view.name.clone(),
                origin: view.origin.clone(),
                error: QueryError::new(&e, &text).shifted(first_line),
            })?;
        let sql = text.trim().trim_end_matches(';').trim().to_string();
        out.push(Branch { sql, tables });
    }
    Ok(out)
}

/// Creates the views in dependency order: stand-ins for their optional tables first, then
/// each view once every view it reads has been created or skipped.
pub async fn create_views(
    ctx: &SessionContext,
    views: &[ViewFile],
) -> Result<Vec<Entry>, ViewError> {
    let mut entries = Vec::new();
    for view in views {
        for table in optional_tables(&view.sql) {
            if !exists(ctx, &TableReference::bare(table.as_str()))
                && !entries.iter().any(|e: &Entry| e.name == table)
            {
                if register_stand_in(ctx, &table)? {
                    tracing::debug!(table = %table, view = %view.name, "empty stand-in");
                    entries.push(Entry {
                        name: table.clone(),
                        kind: Kind::StandIn,
                        source: format!("absent; read optionally by view `{}`", view.name),
                    });
                } else {
                    tracing::warn!(
                        table = %table,
                        view = %view.name,
                        "`-- optional:` names a table the contract does not have"
                    );
                }
            }
        }
    }

    let mut pending: BTreeMap<String, (&ViewFile, Vec<Branch>)> = BTreeMap::new();
    for view in views {
        pending.insert(view.name.clone(), (view, branches(ctx, view)?));
    }
    while !pending.is_empty() {
        // Ready: a view none of whose branches reads a view still pending.
        let ready = pending.iter().find_map(|(name, (_, branches))| {
            let waits = branches.iter().flat_map(|b| &b.tables).any(|t| {
                t.table() != name.as_str() && pending.contains_key(t.table()) && !exists(ctx, t)
            });
            (!waits).then(|| name.clone())
        });
        let Some(name) = ready else {
            let names: Vec<&String> = pending.keys().collect();
            tracing::warn!(views = ?names, "views that read each other in a cycle: skipped");
            break;
        };
        let Some((view, branches)) = pending.remove(&name) else {
            break;
        };
        if let Some(entry) = create_view(ctx, view, branches).await {
            entries.push(entry);
        }
    }
    Ok(entries)
}

fn exists(ctx: &SessionContext, table: &TableReference) -> bool {
    ctx.table_exist(table.clone()).unwrap_or(false)
}

/// Creates one view from the branches whose tables exist; None (with a warning) when it
/// cannot be.
async fn create_view(
    ctx: &SessionContext,
    view: &ViewFile,
    branches: Vec<Branch>,
) -> Option<Entry> {
    let mut kept = Vec::new();
    let mut missing = Vec::new();
    for branch in branches {
        let absent: Vec<String> = branch
            .tables
            .iter()
            .filter(|t| !exists(ctx, t))
            .map(ToString::to_string)
            .collect();
        if absent.is_empty() {
            kept.push(branch.sql);
        } else {
            tracing::debug!(view = %view.name, missing = ?absent, "branch left out");
            missing.extend(absent);
        }
    }
    if kept.is_empty() {
        missing.sort();
        missing.dedup();
        tracing::warn!(
            view = %view.name,
            missing = %missing.join(", "),
            "view skipped: this dataset does not have the tables it reads"
        );
        return None;
    }
    let body = if kept.len() == 1 {
        kept.remove(0)
    } else {
        kept.iter()
            .enumerate()
            .map(|(i, sql)| format!("SELECT * FROM (\n{sql}\n) AS branch_{i}"))
            .collect::<Vec<_>>()
            .join("\nUNION ALL\n")
    };
    let name = TableReference::bare(view.name.as_str()).to_quoted_string();
    let create = format!("CREATE VIEW {name} AS\n{body}");
    match ctx.sql(&create).await {
        Ok(_) => Some(Entry {
            name: view.name.clone(),
            kind: Kind::View,
            source: view.origin.clone(),
        }),
        Err(e) => {
            tracing::warn!(view = %view.name, origin = %view.origin, error = %e, "view skipped: it does not plan");
            None
        }
    }
}
