//! Table assembly: one repository's analyses and resolutions turned into rows of
//! `modules`, `functions` and `references`, in the contract's order.

use schemas::{File, Function, Module, ParseStatus, Reference};

use crate::imports::RepoIndex;
use crate::model::{FileAnalysis, FunctionInfo, RefKind};

/// Rows of the three tables for one repository.
#[derive(Debug, Default)]
pub struct Rows {
    pub modules: Vec<Module>,
    pub functions: Vec<Function>,
    pub references: Vec<Reference>,
}

impl Rows {
    pub fn append(&mut self, mut other: Rows) {
        self.modules.append(&mut other.modules);
        self.functions.append(&mut other.functions);
        self.references.append(&mut other.references);
    }
}

/// The id of a function: a hash of its repository, file, qualname and source; the second
/// and later of identical definitions in one file (one under `if`, one under `else`) add
/// their ordinal, so ids stay unique while the first keeps the plain hash.
fn function_id(
    repo_id: &str,
    path: &str,
    qualname: &str,
    source: &str,
    occurrence: usize,
) -> String {
    let parts: [&[u8]; 4] = [
        repo_id.as_bytes(),
        path.as_bytes(),
        qualname.as_bytes(),
        source.as_bytes(),
    ];
    if occurrence == 0 {
        schemas::id::content_id(&parts)
    } else {
        let n = occurrence.to_string();
        schemas::id::content_id(&[parts[0], parts[1], parts[2], parts[3], n.as_bytes()])
    }
}

fn function_row(
    repo_id: &str,
    file: &File,
    a: &FileAnalysis,
    f: &FunctionInfo,
    occurrence: usize,
) -> Function {
    let content = file.content.as_deref().unwrap_or("");
    let source = f.source(content);
    Function {
        function_id: function_id(repo_id, &file.path, &f.qualname, source, occurrence),
        repo_id: repo_id.to_string(),
        path: file.path.clone(),
        module: a.module.clone(),
        qualname: f.qualname.clone(),
        name: f.name.clone(),
        class_name: f.class_name.clone(),
        is_method: f.is_method,
        is_nested: f.is_nested,
        is_async: f.is_async,
        is_generator: f.is_generator,
        returns_value: f.returns_value,
        writes_globals: f.writes_globals,
        start_byte: f.start_byte as i64,
        end_byte: f.end_byte as i64,
        start_line: f.start_line as i32,
        end_line: f.end_line as i32,
        params: f.params.clone(),
        returns: f.returns.clone(),
        decorators: f.decorators.clone(),
        docstring: f.docstring.clone(),
        source: source.to_string(),
        lines: f.lines as i32,
        complexity: f.complexity as i32,
        has_syntax_error: f.has_syntax_error,
        code_hash: f.code_hash.clone(),
        // Set by `crate::dating` from the earlier versions.
        code_date: None,
        code_date_source: None,
        first_seen: None,
        after_cutoff: None,
    }
}

/// The rows of one repository; `files` are its parsed files with their analyses, in path
/// order.
pub fn repo_rows(repo_id: &str, files: &[(&File, FileAnalysis)]) -> Rows {
    let index = RepoIndex::new(files.iter().map(|(f, a)| (f.path.as_str(), a)));
    let mut rows = Rows::default();
    for (i, (file, a)) in files.iter().enumerate() {
        rows.modules.push(Module {
            repo_id: repo_id.to_string(),
            path: file.path.clone(),
            module: a.module.clone(),
            is_package: a.is_package,
            parse_status: if a.errors.is_empty() {
                ParseStatus::Ok
            } else {
                ParseStatus::SyntaxError
            },
            errors: a.errors.clone(),
            functions: a.functions.len() as i32,
        });
        let mut seen: std::collections::HashMap<(&str, &str), usize> =
            std::collections::HashMap::new();
        let content = file.content.as_deref().unwrap_or("");
        for f in &a.functions {
            let n = seen
                .entry((f.qualname.as_str(), f.source(content)))
                .or_insert(0);
            let row = function_row(repo_id, file, a, f, *n);
            *n += 1;
            for free in &f.free_names {
                let r = match (free.name.as_str(), &f.class_name) {
                    // The implicit cell Python gives a method that uses `super()` or
                    // `__class__`: the class the method is defined in.
                    ("__class__", Some(class)) => {
                        class_cell(&a.module, &file.path, class, &free.chain)
                    }
                    _ => index.resolve(i, free),
                };
                rows.references.push(Reference {
                    function_id: row.function_id.clone(),
                    repo_id: repo_id.to_string(),
                    name: free.name.clone(),
                    chain: free.chain.clone(),
                    kind: r.kind,
                    target_module: r.target_module,
                    target: r.target,
                    target_path: r.target_path,
                    target_type: r.target_type,
                    is_call: free.is_call,
                    is_store: free.is_store,
                    count: free.count as i32,
                    line: free.line as i32,
                    reason: r.reason,
                });
            }
            rows.functions.push(row);
        }
    }
    rows
}

/// The resolution of `__class__` in a method of `class` (a qualname in `module`).
fn class_cell(module: &str, path: &str, class: &str, chain: &str) -> crate::model::Resolution {
    let rest = chain.strip_prefix("__class__").unwrap_or("");
    crate::model::Resolution {
        kind: RefKind::Internal,
        target_module: Some(module.to_string()),
        target: Some(format!("{module}.{class}{rest}")),
        target_path: Some(path.to_string()),
        target_type: Some(crate::model::TargetType::Class),
        reason: None,
    }
}

/// Counts for the summary.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub syntax_errors: usize,
    pub functions: usize,
    pub references: usize,
    /// References per kind, in [`RefKind::ALL`] order.
    pub by_kind: [usize; 5],
}

impl Summary {
    pub fn of(rows: &Rows) -> Self {
        let mut by_kind = [0; 5];
        for r in &rows.references {
            if let Some(i) = RefKind::ALL.iter().position(|k| *k == r.kind) {
                by_kind[i] += 1;
            }
        }
        Self {
            files: rows.modules.len(),
            syntax_errors: rows
                .modules
                .iter()
                .filter(|m| m.parse_status != ParseStatus::Ok)
                .count(),
            functions: rows.functions.len(),
            references: rows.references.len(),
            by_kind,
        }
    }

    /// Share of references resolved (kind other than `unresolved`), in percent.
    pub fn resolved_percent(&self) -> f64 {
        if self.references == 0 {
            return 100.0;
        }
        100.0 * (self.references - self.by_kind[4]) as f64 / self.references as f64
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "files parsed:       {} ({} with syntax errors)",
            self.files, self.syntax_errors
        )?;
        writeln!(f, "functions:          {}", self.functions)?;
        writeln!(
            f,
            "references:         {} ({:.1}% resolved)",
            self.references,
            self.resolved_percent()
        )?;
        for (k, n) in RefKind::ALL.iter().zip(self.by_kind) {
            writeln!(f, "  {:<16}  {n}", k.as_str())?;
        }
        Ok(())
    }
}
