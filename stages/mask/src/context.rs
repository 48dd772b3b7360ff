//! Cross-file context for a completion task, ranked from the text around the mask only.
//!
//! The repository's source files (test files left out) are cut into chunks: each top-level
//! `def` and `class` (a class larger than [`MAX_CHUNK_TOKENS`] as its header and one chunk
//! per method), and the runs of other top-level statements between them (imports,
//! constants). For a task, the chunks of the masked file itself are never candidates, and
//! never weigh the ranking; the rest are ordered in three tiers, written in each
//! snippet's `score` as the tier plus a BM25 score squashed into [0, 1)
//! (`tier + s / (1 + s)`), so that `score` orders the snippets, higher first:
//!
//! - 2: a definition the masked file imports by name from a module of the repository
//!   (`from pkg.util import helper`);
//! - 1: the other chunks of the repository modules it imports;
//! - 0: chunks of any other file of the repository that share identifiers with the text
//!   around the mask (BM25 > 0).
//!
//! Only imports outside the span count, and the BM25 query is made of the identifiers of
//! the prefix's last [`QUERY_LINES_BEFORE`] lines and the suffix's first
//! [`QUERY_LINES_AFTER`]: the masked text never enters the ranking. Snippets are taken in
//! that order while they fit the budget (tokens as [`crate::bm25::count_tokens`] counts
//! them); a snippet that holds the reference (verbatim, blank space ignored: a copy of
//! the code elsewhere in the repository) is dropped and counted.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use schemas::ContextSnippet;

use crate::bm25::{self, Index};

/// A class larger than this many tokens is offered as its header and its methods apart.
pub const MAX_CHUNK_TOKENS: usize = 400;
/// A run of top-level statements longer than this many lines is cut.
const MAX_RUN_LINES: usize = 40;
/// Lines of the prefix, before the mask, whose identifiers make the query.
pub const QUERY_LINES_BEFORE: usize = 60;
/// Lines of the suffix, after the mask, whose identifiers make the query.
pub const QUERY_LINES_AFTER: usize = 30;

/// A piece of a repository file that can be offered as context.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    pub path: String,
    pub start_byte: usize,
    pub text: String,
    /// The top-level names it defines (a def's or class's name, assigned names).
    pub names: Vec<String>,
    pub tokens: usize,
}

/// What one import statement of a file names: a module, and the name taken from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub start_byte: usize,
    pub end_byte: usize,
    /// Absolute dotted module (`from .m import f` in `pkg/a.py`: `pkg.m`).
    pub module: String,
    /// `from m import name`: the name; `None` for `import m` and `from m import *`.
    pub name: Option<String>,
}

/// The import statements of a parsed file (at any depth), in source order.
pub fn imports(source: &str, root: Node<'_>, path: &str) -> Vec<Import> {
    let (module, is_package) = resolve::module_name(path);
    let text = |n: Node<'_>| source[n.byte_range()].to_string();
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let range = (n.start_byte(), n.end_byte());
        let mut push = |module: String, name: Option<String>| {
            out.push(Import {
                start_byte: range.0,
                end_byte: range.1,
                module,
                name,
            });
        };
        match n.kind() {
            "import_statement" => {
                let mut cursor = n.walk();
                for name in n.children_by_field_name("name", &mut cursor) {
                    let dotted = if name.kind() == "aliased_import" {
                        name.child_by_field_name("name")
                    } else {
                        Some(name)
                    };
                    if let Some(d) = dotted {
                        push(text(d), None);
                    }
                }
            }
            "import_from_statement" => {
                let Some(m) = n.child_by_field_name("module_name") else {
                    continue;
                };
                let target = if m.kind() == "relative_import" {
                    let raw = text(m);
                    let level = raw.chars().take_while(|&c| c == '.').count();
                    let rest = raw[level..].trim();
                    resolve::resolve_relative(
                        &module,
                        is_package,
                        level,
                        (!rest.is_empty()).then_some(rest),
                    )
                    .ok()
                } else {
                    Some(text(m))
                };
                let Some(target) = target else { continue };
                let mut cursor = n.walk();
                let names: Vec<Node<'_>> = n.children_by_field_name("name", &mut cursor).collect();
                if names.is_empty() {
                    push(target.clone(), None);
                }
                for name in names {
                    let bare = if name.kind() == "aliased_import" {
                        name.child_by_field_name("name")
                    } else {
                        Some(name)
                    };
                    if let Some(b) = bare {
                        push(target.clone(), Some(text(b)));
                    }
                }
            }
            _ => {
                let mut cursor = n.walk();
                let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
        }
    }
    out.sort_by_key(|i| i.start_byte);
    out
}

/// The defined name of a top-level `def`, `class` or decorated one.
fn definition_name(source: &str, n: Node<'_>) -> Option<String> {
    let def = if n.kind() == "decorated_definition" {
        n.child_by_field_name("definition")?
    } else {
        n
    };
    if !matches!(def.kind(), "function_definition" | "class_definition") {
        return None;
    }
    def.child_by_field_name("name")
        .map(|x| source[x.byte_range()].to_string())
}

/// Names a top-level statement assigns (`X = ...`, `X: int = ...`).
fn assigned_names(source: &str, n: Node<'_>) -> Vec<String> {
    if n.kind() != "expression_statement" {
        return Vec::new();
    }
    let mut cursor = n.walk();
    n.named_children(&mut cursor)
        .filter(|c| c.kind() == "assignment")
        .filter_map(|a| a.child_by_field_name("left"))
        .filter(|l| l.kind() == "identifier")
        .map(|l| source[l.byte_range()].to_string())
        .collect()
}

fn chunk(path: &str, source: &str, start: usize, end: usize, names: Vec<String>) -> Chunk {
    let text = source[start..end].trim_end().to_string();
    Chunk {
        path: path.to_string(),
        start_byte: start,
        tokens: bm25::count_tokens(&text),
        text,
        names,
    }
}

/// Cuts a parsed file into chunks (see the module's documentation).
pub fn chunks(path: &str, source: &str, root: Node<'_>) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize, Vec<String>)> = None;
    let flush = |run: &mut Option<(usize, usize, Vec<String>)>, out: &mut Vec<Chunk>| {
        if let Some((s, e, names)) = run.take() {
            out.push(chunk(path, source, s, e, names));
        }
    };
    let mut cursor = root.walk();
    for n in root.named_children(&mut cursor) {
        if n.kind() == "comment" || n.is_error() {
            continue;
        }
        if let Some(name) = definition_name(source, n) {
            flush(&mut run, &mut out);
            let whole = chunk(
                path,
                source,
                n.start_byte(),
                n.end_byte(),
                vec![name.clone()],
            );
            if whole.tokens > MAX_CHUNK_TOKENS {
                out.extend(split_class(path, source, n, &name).unwrap_or_else(|| vec![whole]));
            } else {
                out.push(whole);
            }
            continue;
        }
        let names = assigned_names(source, n);
        let lines = |s: usize, e: usize| source[s..e].matches('\n').count();
        match &mut run {
            Some((s, e, ns)) if lines(*s, n.end_byte()) < MAX_RUN_LINES => {
                *e = n.end_byte();
                ns.extend(names);
            }
            _ => {
                flush(&mut run, &mut out);
                run = Some((n.start_byte(), n.end_byte(), names));
            }
        }
    }
    flush(&mut run, &mut out);
    out.retain(|c| c.tokens > 0);
    out
}

/// A large class as its header (up to the first method) and its methods; `None` when it is
/// not a class with methods.
fn split_class(path: &str, source: &str, n: Node<'_>, name: &str) -> Option<Vec<Chunk>> {
    let class = if n.kind() == "decorated_definition" {
        n.child_by_field_name("definition")?
    } else {
        n
    };
    let body = class.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let methods: Vec<Node<'_>> = body
        .named_children(&mut cursor)
        .filter(|c| definition_name(source, *c).is_some())
        .collect();
    let first = methods.first()?;
    let mut out = vec![chunk(
        path,
        source,
        n.start_byte(),
        first.start_byte(),
        vec![name.to_string()],
    )];
    for m in methods {
        // Indented as in the file: offered as it reads in its class.
        let start = source[..m.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        out.push(chunk(path, source, start, m.end_byte(), Vec::new()));
    }
    Some(out)
}

/// The query text of a span: the end of its prefix and the start of its suffix.
pub fn query_text(prefix: &str, suffix: &str) -> String {
    let before: Vec<&str> = prefix.rsplit('\n').take(QUERY_LINES_BEFORE).collect();
    let after: Vec<&str> = suffix.split('\n').take(QUERY_LINES_AFTER).collect();
    let mut q: Vec<&str> = before.into_iter().rev().collect();
    q.extend(after);
    q.join("\n")
}

/// The chunks of one repository, indexed for ranking.
#[derive(Debug, Default)]
pub struct RepoChunks {
    chunks: Vec<Chunk>,
    index: Index,
    by_path: HashMap<String, Vec<usize>>,
    /// Dotted module name -> path.
    modules: HashMap<String, String>,
}

/// The context chosen for one task.
#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    pub snippets: Vec<ContextSnippet>,
    pub tokens: usize,
    /// Snippets left out because they hold the reference.
    pub dropped_leaks: usize,
}

fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether `snippet` holds `reference` verbatim, blank space ignored.
pub fn holds(snippet: &str, reference: &str) -> bool {
    let r = squash(reference);
    !r.is_empty() && squash(snippet).contains(&r)
}

impl RepoChunks {
    /// Adds a source file's chunks.
    pub fn add_file(&mut self, path: &str, chunks: Vec<Chunk>) {
        let (module, _) = resolve::module_name(path);
        self.modules.insert(module, path.to_string());
        for c in chunks {
            let i = self.index.add(&bm25::terms(&c.text));
            debug_assert_eq!(i, self.chunks.len());
            self.by_path.entry(c.path.clone()).or_default().push(i);
            self.chunks.push(c);
        }
    }

    /// The ranked context of a span of `path`, within `budget` tokens; `imports` are the
    /// file's imports outside the span.
    pub fn choose(
        &self,
        path: &str,
        imports: &[&Import],
        prefix: &str,
        suffix: &str,
        reference: &str,
        budget: usize,
    ) -> Chosen {
        let own: &[usize] = self.by_path.get(path).map_or(&[], Vec::as_slice);
        let query = bm25::terms(&query_text(prefix, suffix));
        let bm = self.index.scores(&query, own);
        let mut tier = vec![0u8; self.chunks.len()];
        for imp in imports {
            let as_module = imp
                .name
                .as_ref()
                .and_then(|n| self.modules.get(&format!("{}.{n}", imp.module)));
            let (file, name) = match (as_module, self.modules.get(&imp.module)) {
                (Some(f), _) => (f, None),
                (None, Some(f)) => (f, imp.name.as_deref()),
                (None, None) => continue,
            };
            if file == path {
                continue;
            }
            for &c in self.by_path.get(file).map_or(&[][..], Vec::as_slice) {
                let named = name.is_some_and(|n| self.chunks[c].names.iter().any(|x| x == n));
                tier[c] = tier[c].max(if named { 2 } else { 1 });
            }
        }
        let own_set: HashSet<usize> = own.iter().copied().collect();
        let mut ranked: Vec<(f64, usize)> = (0..self.chunks.len())
            .filter(|c| !own_set.contains(c) && self.chunks[*c].path != path)
            .filter(|&c| tier[c] > 0 || bm[c] > 0.0)
            .map(|c| (f64::from(tier[c]) + bm[c] / (1.0 + bm[c]), c))
            .collect();
        ranked.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| self.chunks[a.1].path.cmp(&self.chunks[b.1].path))
                .then_with(|| {
                    self.chunks[a.1]
                        .start_byte
                        .cmp(&self.chunks[b.1].start_byte)
                })
        });
        let mut chosen = Chosen {
            snippets: Vec::new(),
            tokens: 0,
            dropped_leaks: 0,
        };
        for (score, c) in ranked {
            let chunk = &self.chunks[c];
            if chosen.tokens + chunk.tokens > budget {
                continue;
            }
            if holds(&chunk.text, reference) {
                chosen.dropped_leaks += 1;
                continue;
            }
            chosen.tokens += chunk.tokens;
            chosen.snippets.push(ContextSnippet {
                path: chunk.path.clone(),
                text: chunk.text.clone(),
                score,
            });
        }
        chosen
    }
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
