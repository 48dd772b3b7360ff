//! `resolve`: the freshbench stage that parses every Python file of the dataset with
//! tree-sitter-python and says what each function is and what it uses.
//!
//! It reads `repos` and `files` (written by `crawl`) from the dataset directory, parses
//! each `source` and `test` file that was kept, and writes three tables: `modules` (one row
//! per file: module name, parse status, syntax errors), `functions` (every `def` and
//! `async def` with its qualname, span, parameters, docstring and metrics) and `references`
//! (every free name a function uses, with the attribute chain it is used through, resolved
//! to a builtin, the standard library, a third-party package or a definition in the
//! repository). Later stages (classify, mask, synthesize-tests, mutants) read those tables,
//! and use this crate as a library to parse Python: [`analyze_file`] for one file,
//! [`resolve_repo`] for a repository, [`RepoIndex`] to resolve names against analyses they
//! already have.
//!
//! The work happens in two phases per file, `walk` (one iterative pass over the tree
//! recording scopes, bindings and uses) and `scope` (Python's scoping rules), then once per
//! repository in [`imports`] (following imports to definitions); [`tables`] turns the
//! result into rows. A file with syntax errors is parsed in pieces, one per top-level
//! definition (`recover`), so that an error does not swallow the definitions after it.

mod dating;
mod docstring;
mod fingerprint;
mod function;
pub mod imports;
mod kinds;
mod model;
mod module_name;
mod names;
mod parse;
mod recover;
mod scope;
pub mod tables;
mod walk;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::io::Write as _;

use anyhow::Context as _;
use schemas::cli::{CommonArgs, Outcome};
use schemas::{File, FileKind, FileStatus, HistoryFile, Repo, Snapshot};

pub use docstring::{cleandoc, decode_escapes, literal_value};
pub use imports::RepoIndex;
pub use model::{
    Binding, FileAnalysis, FreeName, FunctionInfo, ImportTarget, ModuleSymbols, RefKind,
    Resolution, Symbol, SymbolKind, TargetType,
};
pub use module_name::{module_name, resolve_relative};
pub use names::{is_builtin, is_keyword, is_module_dunder, is_stdlib};
pub use parse::{analyze_file, Analyzer, ResolveError};

/// Parse every Python file of the dataset into the modules, functions and references
/// tables.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "resolve", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Threads that parse files in parallel [default: the available parallelism].
    #[arg(long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
}

fn parse_jobs(text: &str) -> anyhow::Result<usize> {
    match text.parse::<usize>() {
        Ok(0) => anyhow::bail!("give at least 1 thread"),
        Ok(n) => Ok(n),
        Err(e) => anyhow::bail!("not a number of threads ({e})"),
    }
}

/// One file of a repository, parsed and with each function's free names resolved.
#[derive(Debug, Clone)]
pub struct ResolvedFile {
    pub path: String,
    pub analysis: FileAnalysis,
    /// Per function (as in `analysis.functions`), per free name (as in its `free_names`).
    pub resolutions: Vec<Vec<Resolution>>,
}

/// Parses and resolves one repository given as `(path, content)` pairs: module names come
/// from the paths ([`module_name`]).
pub fn resolve_repo<P: AsRef<str>, C: AsRef<str>>(
    files: &[(P, C)],
) -> Result<Vec<ResolvedFile>, ResolveError> {
    let mut analyzer = Analyzer::new()?;
    let mut analyses = Vec::with_capacity(files.len());
    for (path, content) in files {
        let (module, is_package) = module_name(path.as_ref());
        analyses.push((
            path.as_ref().to_string(),
            analyzer.analyze(content.as_ref(), &module, is_package)?,
        ));
    }
    let index = RepoIndex::new(analyses.iter().map(|(p, a)| (p.as_str(), a)));
    let resolutions: Vec<Vec<Vec<Resolution>>> = analyses
        .iter()
        .enumerate()
        .map(|(i, (_, a))| {
            a.functions
                .iter()
                .map(|f| f.free_names.iter().map(|n| index.resolve(i, n)).collect())
                .collect()
        })
        .collect();
    drop(index);
    Ok(analyses
        .into_iter()
        .zip(resolutions)
        .map(|((path, analysis), resolutions)| ResolvedFile {
            path,
            analysis,
            resolutions,
        })
        .collect())
}

/// Whether `resolve` parses this `files` row.
fn wanted(f: &File) -> bool {
    matches!(f.kind, FileKind::Source | FileKind::Test)
        && f.status == FileStatus::Ok
        && f.content.is_some()
}

/// Runs the stage: reads `repos` and `files`, writes `modules`, `functions` and
/// `references`, prints a summary on stdout.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    let dir = args.common.data()?;
    let repos: Vec<Repo> =
        schemas::read_table(dir).context("reading the repositories (`repos`)")?;
    let files: Vec<File> = schemas::read_table(dir).context("reading the files (`files`)")?;
    let repo_order: HashMap<&str, usize> = repos
        .iter()
        .enumerate()
        .map(|(i, r)| (r.repo_id.as_str(), i))
        .collect();
    let mut selected: Vec<&File> = files.iter().filter(|f| wanted(f)).collect();
    selected.sort_by(|a, b| {
        let ka = (
            repo_order.get(a.repo_id.as_str()).unwrap_or(&usize::MAX),
            &a.repo_id,
            &a.path,
        );
        let kb = (
            repo_order.get(b.repo_id.as_str()).unwrap_or(&usize::MAX),
            &b.repo_id,
            &b.path,
        );
        ka.cmp(&kb)
    });
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));
    tracing::info!(repos = repos.len(), files = selected.len(), jobs, "parsing");

    // Fails here, once, if the grammar does not fit the library (a build bug).
    Analyzer::new().context("starting the Python parser")?;
    let started = std::time::Instant::now();
    let bar = schemas::cli::progress(&args.common, selected.len() as u64, "parsing");
    let analyses = schemas::pool::map(&selected, jobs, Analyzer::new, |analyzer, file| {
        let (module, is_package) = module_name(&file.path);
        let content = file.content.as_deref().unwrap_or("");
        let result = match analyzer {
            Ok(a) => a.analyze(content, &module, is_package),
            Err(e) => Err(ResolveError::NoTree {
                module: format!("{module} (no parser: {e})"),
            }),
        };
        bar.inc(1);
        result
    });
    bar.finish_and_clear();
    let mut parsed: Vec<(&File, FileAnalysis)> = Vec::with_capacity(selected.len());
    for (file, a) in selected.iter().zip(analyses) {
        let a =
            a.with_context(|| format!("parsing {} of repository {}", file.path, file.repo_id))?;
        parsed.push((file, a));
    }

    tracing::debug!(elapsed_ms = started.elapsed().as_millis(), "parsed");

    // One group per repository, in repository order.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    while start < parsed.len() {
        let id = &parsed[start].0.repo_id;
        let end = start
            + parsed[start..]
                .iter()
                .take_while(|(f, _)| &f.repo_id == id)
                .count();
        groups.push((start, end));
        start = end;
    }
    let repo_by_id: HashMap<&str, &Repo> = repos.iter().map(|r| (r.repo_id.as_str(), r)).collect();
    // The earlier versions crawl fetched, to date each function's code.
    let snapshots: Vec<Snapshot> = if schemas::table_exists::<Snapshot>(dir) {
        schemas::read_table(dir).context("reading the earlier versions (`snapshots`)")?
    } else {
        Vec::new()
    };
    let history: Vec<HistoryFile> = if schemas::table_exists::<HistoryFile>(dir) {
        schemas::read_table(dir).context("reading their files (`history_files`)")?
    } else {
        Vec::new()
    };
    let mut snapshots_of: HashMap<&str, Vec<&Snapshot>> = HashMap::new();
    for s in &snapshots {
        snapshots_of.entry(s.repo_id.as_str()).or_default().push(s);
    }
    // Their functions' code hashes, all files at once on the pool.
    let history_hashes = schemas::pool::map(&history, jobs, || (), |(), h| dating::hashes_of(h));
    let mut history_of: HashMap<&str, Vec<(&HistoryFile, &[String])>> = HashMap::new();
    for (h, hashes) in history.iter().zip(&history_hashes) {
        history_of
            .entry(h.repo_id.as_str())
            .or_default()
            .push((h, hashes.as_slice()));
    }
    let per_repo = schemas::pool::map(
        &groups,
        jobs,
        || (),
        |(), &(s, e)| {
            let id = parsed[s].0.repo_id.as_str();
            let repo = repo_by_id.get(id).copied();
            let mut rows = tables::repo_rows(id, &parsed[s..e]);
            let line_dates: HashMap<&str, &[schemas::LineDate]> = parsed[s..e]
                .iter()
                .filter_map(|(f, _)| Some((f.path.as_str(), f.line_dates.as_deref()?)))
                .collect();
            dating::date_functions(
                repo,
                &mut rows.functions,
                snapshots_of.get(id).map_or(&[][..], Vec::as_slice),
                history_of.get(id).map_or(&[][..], Vec::as_slice),
                &line_dates,
            );
            tracing::debug!(
                repo = id,
                files = e - s,
                functions = rows.functions.len(),
                references = rows.references.len(),
                "resolved"
            );
            rows
        },
    );
    let mut rows = tables::Rows::default();
    for r in per_repo {
        rows.append(r);
    }

    tracing::debug!(elapsed_ms = started.elapsed().as_millis(), "resolved");
    let summary = tables::Summary::of(&rows);
    schemas::write_table(dir, &rows.modules).context("writing the modules table")?;
    schemas::write_table(dir, &rows.functions).context("writing the functions table")?;
    schemas::write_table(dir, &rows.references).context("writing the references table")?;
    tracing::info!(
        elapsed_ms = started.elapsed().as_millis(),
        files = summary.files,
        syntax_errors = summary.syntax_errors,
        functions = summary.functions,
        references = summary.references,
        "wrote modules, functions, references"
    );
    // A closed stdout (`resolve ... | head`) is not an error: `main_with` sees the broken
    // pipe in the chain.
    write!(std::io::stdout().lock(), "{summary}").context("printing the summary")?;
    Ok(Outcome::Success)
}
