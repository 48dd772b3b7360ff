//! One repository's completion tasks: its files parsed, every span through the gates (size,
//! coverage, leak), the seeded choice per file and per repository, and the rows.

use std::collections::HashMap;

use tree_sitter::Parser;

use schemas::{
    CodeDateSource, CompletionTask, File, FileKind, FileStatus, Function, RepoTest, Timestamp,
};

use crate::context::{self, Import, RepoChunks};
use crate::coverage::{Coverage, CoverageGate, Judges};
use crate::select::{self, Choice};
use crate::spans::{self, SizeGate, Span};
use crate::summary::{level, Summary};
use crate::{MaskError, Options};

/// A reference at least this long (non-blank characters) that appears elsewhere in its own
/// file, blank space ignored, makes a copy task, not a completion one (shorter ones, such
/// as `self.name`, recur in any file and give nothing away).
pub const LEAK_MIN_CHARS: usize = 20;

/// Folders whose Python files are tests (crawl's rule for `files.kind`).
const TEST_DIRS: &[&str] = &["tests", "test", "testing"];

/// The parser of Python every thread makes once.
pub fn parser() -> Result<Parser, MaskError> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_python::LANGUAGE.into())?;
    Ok(p)
}

/// Whether a file is a test file, never masked: its kind says so, or it lies under a
/// `tests`/`test`/`testing` folder, or is named `test_*.py`, `*_test.py` or `conftest.py`.
pub fn is_test_file(f: &File) -> bool {
    if f.kind == FileKind::Test {
        return true;
    }
    let (dir, name) = f.path.rsplit_once('/').unwrap_or(("", &f.path));
    let stem = name.strip_suffix(".py").unwrap_or(name);
    dir.split('/').any(|d| TEST_DIRS.contains(&d))
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || name == "conftest.py"
}

/// What one repository brings to `mask`.
#[derive(Debug, Clone, Copy)]
pub struct RepoInput<'a> {
    pub repo_id: &'a str,
    pub files: &'a [&'a File],
    pub functions: &'a [&'a Function],
    pub tests: &'a [&'a RepoTest],
}

/// A parsed source file.
struct Parsed<'a> {
    path: &'a str,
    text: &'a str,
    /// The text without blank space, for the leak gate.
    squashed: String,
    spans: Vec<Span>,
    imports: Vec<Import>,
}

/// A span through every gate.
struct Survivor<'a> {
    file: usize,
    span: Span,
    judges: Judges,
    task_id: String,
    dated: Dated<'a>,
}

/// Where a span's code date comes from.
#[derive(Clone, Copy)]
struct Dated<'a> {
    function: Option<&'a Function>,
    code_date: Option<Timestamp>,
    code_date_source: Option<CodeDateSource>,
    after_cutoff: Option<bool>,
}

/// The function (of `path`) that contains a span most closely, by byte range and line
/// range both.
fn containing<'a>(functions: &[&'a Function], span: &Span) -> Option<&'a Function> {
    functions
        .iter()
        .filter(|f| {
            f.start_byte <= span.start_byte as i64
                && span.end_byte as i64 <= f.end_byte
                && f.start_line <= span.start_line
                && span.end_line <= f.end_line
        })
        .min_by_key(|f| (f.end_byte - f.start_byte, f.function_id.as_str()))
        .copied()
}

/// The date of a span: its function's, else the newest of its file's functions.
fn dated<'a>(functions: &[&'a Function], span: &Span) -> Dated<'a> {
    if let Some(f) = containing(functions, span) {
        return Dated {
            function: Some(f),
            code_date: f.code_date,
            code_date_source: f.code_date_source,
            after_cutoff: f.after_cutoff,
        };
    }
    let newest = functions
        .iter()
        .filter(|f| f.code_date.is_some())
        .max_by_key(|f| (f.code_date, f.function_id.as_str()));
    Dated {
        function: None,
        code_date: newest.and_then(|f| f.code_date),
        code_date_source: newest.and_then(|f| f.code_date_source),
        after_cutoff: newest.and_then(|f| f.after_cutoff),
    }
}

/// Content hash of what defines a task: repository, path, span bytes and text, and nothing
/// else. The task-version rule on publish's card (`publish::version::TASK_ID_RULES`) names
/// these inputs, and `tests/task_ids.rs` checks them: change them together.
pub fn task_id(repo_id: &str, path: &str, start: usize, end: usize, reference: &str) -> String {
    schemas::id::content_id(&[
        repo_id.as_bytes(),
        path.as_bytes(),
        start.to_string().as_bytes(),
        end.to_string().as_bytes(),
        reference.as_bytes(),
    ])
}

fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The leak gate: a long reference that appears elsewhere in its own file.
fn leaks(file_squashed: &str, reference: &str) -> bool {
    let r = squash(reference);
    r.len() >= LEAK_MIN_CHARS && file_squashed.match_indices(&r).nth(1).is_some()
}

/// The completion tasks of one repository, sorted by path and span, and its counters.
pub fn mask_repo(
    parser: &mut Parser,
    input: &RepoInput<'_>,
    opts: &Options,
) -> (Vec<CompletionTask>, Summary) {
    let mut summary = Summary {
        repos: 1,
        repos_without_tests: usize::from(input.tests.is_empty()),
        ..Summary::default()
    };
    let mut chunks = RepoChunks::default();
    let mut parsed: Vec<Parsed<'_>> = Vec::new();
    let mut python: Vec<&File> = input
        .files
        .iter()
        .copied()
        .filter(|f| matches!(f.kind, FileKind::Source | FileKind::Test))
        .filter(|f| {
            f.status == FileStatus::Ok
                && std::path::Path::new(&f.path)
                    .extension()
                    .is_some_and(|e| e == "py")
        })
        .collect();
    python.sort_by(|a, b| a.path.cmp(&b.path));
    python.dedup_by(|a, b| a.path == b.path);
    for f in python {
        let Some(text) = f.content.as_deref() else {
            continue;
        };
        if is_test_file(f) {
            summary.test_files += 1;
            continue;
        }
        let Some(tree) = parser.parse(text, None) else {
            continue;
        };
        let root = tree.root_node();
        chunks.add_file(&f.path, context::chunks(&f.path, text, root));
        parsed.push(Parsed {
            path: &f.path,
            text,
            squashed: squash(text),
            spans: spans::find_spans(text, root),
            imports: context::imports(text, root, &f.path),
        });
    }
    let coverage = Coverage::build(input.tests, input.files.iter().map(|f| f.path.as_str()));
    summary.unmatched_paths = coverage.unmatched.len();
    let mut functions: HashMap<&str, Vec<&Function>> = HashMap::new();
    for f in input.functions {
        functions.entry(f.path.as_str()).or_default().push(f);
    }

    let mut per_file_chosen: Vec<Survivor<'_>> = Vec::new();
    for (fi, p) in parsed.iter().enumerate() {
        summary.files += 1;
        if !coverage.has_file(p.path) {
            summary.files_without_coverage += 1;
        }
        let fns = functions.get(p.path).map_or(&[][..], Vec::as_slice);
        let mut survivors = Vec::new();
        for span in &p.spans {
            let l = level(span.kind);
            summary.found[l] += 1;
            match opts.limits.check(span, p.text) {
                Some(SizeGate::TooSmall) => {
                    summary.too_small[l] += 1;
                    continue;
                }
                Some(SizeGate::TooBig) => {
                    summary.too_big[l] += 1;
                    continue;
                }
                None => {}
            }
            let judges = match coverage.judge(p.path, &span.units) {
                Ok(j) => j,
                Err(CoverageGate::NotCovered) => {
                    summary.not_covered[l] += 1;
                    continue;
                }
                Err(CoverageGate::NoPassingTests) => {
                    summary.no_passing_tests[l] += 1;
                    continue;
                }
            };
            // Every answer to the task costs a run of its judges (validation: about ten).
            if judges.seconds > opts.max_judge_seconds {
                summary.judges_too_slow[l] += 1;
                continue;
            }
            let reference = &p.text[span.start_byte..span.end_byte];
            if leaks(&p.squashed, reference) {
                summary.leak[l] += 1;
                continue;
            }
            survivors.push(Survivor {
                file: fi,
                task_id: task_id(
                    input.repo_id,
                    p.path,
                    span.start_byte,
                    span.end_byte,
                    reference,
                ),
                span: span.clone(),
                judges,
                dated: dated(fns, span),
            });
        }
        let chosen = pick(&survivors, opts.per_file, opts.seed, p.path);
        count_cap(&mut summary, &survivors, &chosen);
        let mut keep: Vec<Option<Survivor<'_>>> = survivors.into_iter().map(Some).collect();
        per_file_chosen.extend(chosen.into_iter().filter_map(|i| keep[i].take()));
    }
    let chosen = pick(&per_file_chosen, opts.per_repo, opts.seed, input.repo_id);
    count_cap(&mut summary, &per_file_chosen, &chosen);
    let mut kept: Vec<&Survivor<'_>> = chosen.iter().map(|&i| &per_file_chosen[i]).collect();
    kept.sort_by_key(|s| (parsed[s.file].path, s.span.start_byte, s.span.end_byte));

    let rows: Vec<CompletionTask> = kept
        .into_iter()
        .map(|s| {
            summary.written[level(s.span.kind)] += 1;
            let row = row(input.repo_id, &parsed[s.file], s, &chunks, opts);
            summary.snippets_dropped += row.1;
            row.0
        })
        .collect();
    (rows, summary)
}

fn pick(survivors: &[Survivor<'_>], cap: usize, seed: u64, scope: &str) -> Vec<usize> {
    let choices: Vec<Choice<'_>> = survivors
        .iter()
        .map(|s| Choice {
            kind: s.span.kind,
            after_cutoff: s.dated.after_cutoff,
            task_id: &s.task_id,
        })
        .collect();
    select::choose(&choices, cap, seed, scope)
}

fn count_cap(summary: &mut Summary, all: &[Survivor<'_>], chosen: &[usize]) {
    let mut taken = vec![false; all.len()];
    for &i in chosen {
        taken[i] = true;
    }
    for (s, t) in all.iter().zip(taken) {
        if !t {
            summary.cap[level(s.span.kind)] += 1;
        }
    }
}

/// A task's row, and the context snippets dropped for holding its reference.
fn row(
    repo_id: &str,
    p: &Parsed<'_>,
    s: &Survivor<'_>,
    chunks: &RepoChunks,
    opts: &Options,
) -> (CompletionTask, usize) {
    let (start, end) = (s.span.start_byte, s.span.end_byte);
    let prefix = &p.text[..start];
    let suffix = &p.text[end..];
    let reference = &p.text[start..end];
    let outside: Vec<&Import> = p
        .imports
        .iter()
        .filter(|i| i.end_byte <= start || i.start_byte >= end)
        .collect();
    let chosen = chunks.choose(
        p.path,
        &outside,
        prefix,
        suffix,
        reference,
        opts.context_budget,
    );
    let task = CompletionTask {
        task_id: s.task_id.clone(),
        repo_id: repo_id.to_string(),
        function_id: s.dated.function.map(|f| f.function_id.clone()),
        path: p.path.to_string(),
        span_kind: s.span.kind,
        start_byte: start as i64,
        end_byte: end as i64,
        start_line: s.span.start_line,
        end_line: s.span.end_line,
        prefix: prefix.to_string(),
        suffix: suffix.to_string(),
        reference: reference.to_string(),
        indent: spans::indent_at(p.text, start).to_string(),
        context: chosen.snippets,
        context_tokens: chosen.tokens as i32,
        context_budget: opts.context_budget as i32,
        tests: s.judges.tests.clone(),
        tests_seconds: s.judges.seconds,
        code_date: s.dated.code_date,
        code_date_source: s.dated.code_date_source,
        after_cutoff: s.dated.after_cutoff,
    };
    (task, chosen.dropped_leaks)
}
