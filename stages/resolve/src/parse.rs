//! Parsing one file: tree-sitter-python, the syntax errors it reports, and the two phases
//! of the analysis ([`crate::walk`], [`crate::scope`]) turned into a [`FileAnalysis`].

use std::cell::RefCell;

use tree_sitter::{Node, Parser};

use crate::kinds::language;
use crate::model::FileAnalysis;
use crate::{recover, scope, walk};

/// What can go wrong in the library. Both are bugs in the build, not bad input: a file
/// that does not parse is data (see [`FileAnalysis::errors`]).
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("tree-sitter-python does not fit the tree-sitter library ({0}); this is a bug in freshbench's build")]
    Language(#[from] tree_sitter::LanguageError),
    #[error("tree-sitter returned no tree for module `{module}`; this is a bug in freshbench")]
    NoTree { module: String },
}

/// A reusable parser: create one per thread and analyze many files with it.
pub struct Analyzer {
    parser: Parser,
}

impl Analyzer {
    pub fn new() -> Result<Self, ResolveError> {
        let mut parser = Parser::new();
        parser.set_language(language())?;
        Ok(Self { parser })
    }

    /// Parses `source` (the file of module `module`) and analyzes it. A file with syntax
    /// errors is analyzed in pieces (see `recover`) so that an error does not take
    /// the definitions after it down with it.
    pub fn analyze(
        &mut self,
        source: &str,
        module: &str,
        is_package: bool,
    ) -> Result<FileAnalysis, ResolveError> {
        let tree = self.parse(source, module)?;
        let root = tree.root_node();
        if !root.has_error() {
            return Ok(analyze_tree(source, root, module, is_package));
        }
        let starts = recover::piece_starts(source, root);
        if starts.len() == 1 {
            return Ok(analyze_tree(source, root, module, is_package));
        }
        let mut whole = FileAnalysis {
            module: module.to_string(),
            is_package,
            errors: Vec::new(),
            functions: Vec::new(),
            symbols: crate::model::ModuleSymbols::default(),
        };
        let mut lines_before = 0;
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(source.len());
            let piece = &source[start..end];
            let tree = self.parse(piece, module)?;
            recover::merge(
                &mut whole,
                analyze_tree(piece, tree.root_node(), module, is_package),
                start,
                lines_before,
            );
            lines_before += piece.bytes().filter(|&b| b == b'\n').count() as u32;
        }
        if whole.errors.is_empty() {
            // The error needed two pieces to show: report it where the whole file has it.
            whole.errors = syntax_errors(root);
        }
        Ok(whole)
    }

    fn parse(&mut self, source: &str, module: &str) -> Result<tree_sitter::Tree, ResolveError> {
        self.parser
            .parse(source, None)
            .ok_or_else(|| ResolveError::NoTree {
                module: module.to_string(),
            })
    }
}

/// Both phases of the analysis on one parsed tree.
fn analyze_tree(source: &str, root: Node<'_>, module: &str, is_package: bool) -> FileAnalysis {
    let errors = if root.has_error() {
        syntax_errors(root)
    } else {
        Vec::new()
    };
    let mut w = walk::walk(source, root, module, is_package);
    scope::attribute_uses(&mut w);
    let mut functions: Vec<_> = w.functions.into_iter().map(|(f, _)| f).collect();
    functions.sort_by_key(|f| f.start_byte);
    FileAnalysis {
        module: module.to_string(),
        is_package,
        errors,
        functions,
        symbols: w.symbols,
    }
}

/// Parses and analyzes one file with a parser kept per thread.
pub fn analyze_file(
    source: &str,
    module: &str,
    is_package: bool,
) -> Result<FileAnalysis, ResolveError> {
    thread_local! {
        static ANALYZER: RefCell<Option<Analyzer>> = const { RefCell::new(None) };
    }
    ANALYZER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Analyzer::new()?);
        }
        slot.as_mut()
            .expect("just set")
            .analyze(source, module, is_package)
    })
}

/// The code hashes ([`crate::fingerprint`]) of every function of a file, as
/// [`analyze_file`] gives them but without the scope analysis, which dating an earlier
/// version's file does not need. A file with syntax errors goes the whole way, so that its
/// functions are the pieces' functions, as they would be in `functions`.
pub fn code_hashes(
    source: &str,
    module: &str,
    is_package: bool,
) -> Result<Vec<String>, ResolveError> {
    thread_local! {
        static PARSER: RefCell<Option<Analyzer>> = const { RefCell::new(None) };
    }
    let tree = PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Analyzer::new()?);
        }
        slot.as_mut().expect("just set").parse(source, module)
    })?;
    let root = tree.root_node();
    if root.has_error() {
        return analyze_file(source, module, is_package)
            .map(|a| a.functions.into_iter().map(|f| f.code_hash).collect());
    }
    let k = crate::kinds::kinds();
    let mut out = Vec::new();
    let mut cursor = root.walk();
    loop {
        let n = cursor.node();
        if n.kind_id() == k.function_definition {
            let decorators: Vec<Node<'_>> = match n.parent() {
                Some(p) if p.kind_id() == k.decorated_definition => {
                    let mut c = p.walk();
                    p.named_children(&mut c)
                        .filter(|d| d.kind_id() == k.decorator)
                        .collect()
                }
                _ => Vec::new(),
            };
            out.push(crate::fingerprint::code_hash(source, n, &decorators));
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return Ok(out);
            }
        }
    }
}

/// The ERROR and MISSING nodes of a tree, outermost first, in source order.
fn syntax_errors(root: Node<'_>) -> Vec<schemas::SyntaxError> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    loop {
        let n = cursor.node();
        let mut descend = n.has_error();
        if n.is_error() || n.is_missing() {
            let (s, e) = (n.start_position(), n.end_position());
            let message = if n.is_missing() {
                format!("MISSING {}", n.kind())
            } else {
                "ERROR".to_string()
            };
            out.push(schemas::SyntaxError {
                line: s.row as i32 + 1,
                column: s.column as i32,
                end_line: e.row as i32 + 1,
                message,
            });
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}
