//! Mutants of Python source: each one is the source with a single syntax node rewritten by
//! one [`Operator`] (an arithmetic, comparison or boolean operator swapped, a constant moved
//! by one, a return value replaced by `None`, a statement removed, a slice bound off by one,
//! a condition negated). The input is a function's text or a whole file, as the `resolve`
//! stage's tables hold it; the output feeds mutation scores in `synthesize-tests`, the
//! `mutant` reference solver and the assertion tasks. Everything is done with tree-sitter:
//! no Python runs here. Docstrings and comments are never mutated, every mutant parses, and
//! the output (order and ids) is the same on every run.

mod apply;
pub mod function;
mod mutant;
mod operators;
mod walk;

use std::collections::HashSet;

use tree_sitter::{Node, Parser};

pub use function::{find_function, null_function, FunctionSpan, NoFunction};
pub use mutant::{Mutant, Operator, UnknownOperator};

/// Which mutants to make.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// At most this many mutants, spread evenly over the full, ordered list (so a large
    /// function is sampled from start to end, the same way every run).
    pub max: Option<usize>,
    /// The operators to apply; empty means all of them.
    pub operators: Vec<Operator>,
    /// Only mutate within these bytes `[start, end)` of the source (a function in a file).
    pub span: Option<(usize, usize)>,
}

/// What can go wrong. `Syntax` and `Span` are bad input; the others are bugs in the build.
#[derive(Debug, thiserror::Error)]
pub enum MutantError {
    #[error("the source does not parse as Python (first error at line {line}, column {column}); pass a function or file that parses, dedented to column 0")]
    Syntax { line: usize, column: usize },
    #[error("span {start}..{end} is not within the source's {len} bytes; pass a span with start <= end <= the source's length")]
    Span {
        start: usize,
        end: usize,
        len: usize,
    },
    #[error("tree-sitter-python does not fit the tree-sitter library ({0}); this is a bug in freshbench's build")]
    Language(#[from] tree_sitter::LanguageError),
    #[error("tree-sitter returned no tree; this is a bug in freshbench")]
    NoTree,
}

/// All mutants of `source` (a function's text or a file), ordered by start byte, then
/// operator, then replacement. Edits that would leave the text unchanged, duplicate another
/// operator's edit, or not parse are dropped.
pub fn mutants(source: &str, options: &Options) -> Result<Vec<Mutant>, MutantError> {
    if let Some((start, end)) = options.span {
        if start > end || end > source.len() {
            return Err(MutantError::Span {
                start,
                end,
                len: source.len(),
            });
        }
    }
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into())?;
    let tree = parser.parse(source, None).ok_or(MutantError::NoTree)?;
    let root = tree.root_node();
    if root.has_error() {
        let at = first_error(root).start_position();
        return Err(MutantError::Syntax {
            line: at.row + 1,
            column: at.column,
        });
    }

    let mut enabled: operators::Enabled = [options.operators.is_empty(); Operator::ALL.len()];
    for &op in &options.operators {
        enabled[op as usize] = true;
    }
    let mut edits = walk::collect(root, source, enabled);
    let (lo, hi) = options.span.unwrap_or((0, source.len()));
    edits.retain(|e| lo <= e.start && e.end <= hi && source[e.start..e.end] != e.replacement);
    edits.sort_by(|a, b| {
        (a.start, a.operator, &a.replacement, a.end).cmp(&(
            b.start,
            b.operator,
            &b.replacement,
            b.end,
        ))
    });
    let mut seen = HashSet::new();
    edits.retain(|e| seen.insert((e.start, e.end, e.replacement.clone())));

    let applier = apply::Applier::new(source, &tree);
    let mut out: Vec<Mutant> = edits
        .into_iter()
        .filter_map(|e| {
            let mutated = applier.apply(&mut parser, &e)?;
            Some(Mutant {
                id: mutant::mutant_id(e.operator, e.start, e.end, &e.replacement),
                operator: e.operator,
                start_byte: e.start,
                end_byte: e.end,
                line: applier.point(e.start).row + 1,
                original: source[e.start..e.end].to_string(),
                replacement: e.replacement,
                source: mutated,
            })
        })
        .collect();
    if let Some(max) = options.max {
        out = spread(out, max);
    }
    Ok(out)
}

/// `max` items taken evenly from `items`, in order.
fn spread<T>(items: Vec<T>, max: usize) -> Vec<T> {
    let len = items.len();
    if len <= max {
        return items;
    }
    let mut next = 0;
    let mut taken = 0;
    items
        .into_iter()
        .enumerate()
        .filter_map(|(i, item)| {
            if taken < max && i == next {
                taken += 1;
                next = taken * len / max;
                Some(item)
            } else {
                None
            }
        })
        .collect()
}

/// The first ERROR or MISSING node, in source order (the tree has one).
fn first_error(root: Node<'_>) -> Node<'_> {
    let mut node = root;
    'down: loop {
        if node.is_error() || node.is_missing() {
            return node;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() {
                node = child;
                continue 'down;
            }
        }
        return node;
    }
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spread_takes_evenly_from_start_to_end() {
        assert_eq!(spread((0..10).collect(), 3), [0, 3, 6]);
        assert_eq!(spread((0..10).collect(), 5), [0, 2, 4, 6, 8]);
        assert_eq!(spread((0..4).collect(), 9), [0, 1, 2, 3]);
        assert!(spread((0..4).collect::<Vec<_>>(), 0).is_empty());
    }
}
