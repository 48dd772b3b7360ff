//! Applying one edit to the source and checking that the result still parses, by
//! re-parsing incrementally from the original tree.

use tree_sitter::{InputEdit, Parser, Point, Tree};

use crate::operators::Edit;

/// The original source, its tree, and where its lines start.
pub(crate) struct Applier<'a> {
    source: &'a str,
    tree: &'a Tree,
    line_starts: Vec<usize>,
}

impl<'a> Applier<'a> {
    pub(crate) fn new(source: &'a str, tree: &'a Tree) -> Self {
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self {
            source,
            tree,
            line_starts,
        }
    }

    /// The row and byte column of `byte` (rows from 0, as tree-sitter counts them).
    pub(crate) fn point(&self, byte: usize) -> Point {
        let row = self.line_starts.partition_point(|&s| s <= byte) - 1;
        Point {
            row,
            column: byte - self.line_starts[row],
        }
    }

    /// The mutated source, or `None` when it does not parse without errors.
    pub(crate) fn apply(&self, parser: &mut Parser, edit: &Edit) -> Option<String> {
        let mut mutated = String::with_capacity(
            self.source.len() + edit.replacement.len() - (edit.end - edit.start),
        );
        mutated.push_str(&self.source[..edit.start]);
        mutated.push_str(&edit.replacement);
        mutated.push_str(&self.source[edit.end..]);

        let start_position = self.point(edit.start);
        let new_end_position = match edit.replacement.rfind('\n') {
            Some(last) => Point {
                row: start_position.row + edit.replacement.matches('\n').count(),
                column: edit.replacement.len() - last - 1,
            },
            None => Point {
                row: start_position.row,
                column: start_position.column + edit.replacement.len(),
            },
        };
        let mut old = self.tree.clone();
        old.edit(&InputEdit {
            start_byte: edit.start,
            old_end_byte: edit.end,
            new_end_byte: edit.start + edit.replacement.len(),
            start_position,
            old_end_position: self.point(edit.end),
            new_end_position,
        });
        let tree = parser.parse(&mutated, Some(&old))?;
        (!tree.root_node().has_error()).then_some(mutated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutant::Operator;

    fn parser() -> Parser {
        let mut p = Parser::new();
        p.set_language(&tree_sitter_python::LANGUAGE.into())
            .unwrap();
        p
    }

    fn edit(source: &str, from: &str, replacement: &str) -> Edit {
        let start = source.find(from).unwrap();
        Edit {
            operator: Operator::Arithmetic,
            start,
            end: start + from.len(),
            replacement: replacement.to_string(),
        }
    }

    #[test]
    fn an_edit_that_breaks_the_syntax_is_refused() {
        let src = "def f(a):\n    return a + 1\n";
        let mut p = parser();
        let tree = p.parse(src, None).unwrap();
        let applier = Applier::new(src, &tree);
        assert_eq!(applier.apply(&mut p, &edit(src, "+", "(")), None);
        assert_eq!(
            applier.apply(&mut p, &edit(src, "+", "-")).as_deref(),
            Some("def f(a):\n    return a - 1\n")
        );
    }

    #[test]
    fn multi_line_replacements_reparse_like_a_fresh_parse() {
        let src = "def f(a):\n    x = [a,\n         2]\n    return x\n";
        let mut p = parser();
        let tree = p.parse(src, None).unwrap();
        let applier = Applier::new(src, &tree);
        for (from, to) in [
            ("[a,\n         2]", "(\n1)"),
            ("x = [a,\n         2]", "pass"),
            ("x\n", "(\nx"),
        ] {
            let e = edit(src, from, to);
            let incremental = applier.apply(&mut p, &e);
            let mutated = format!("{}{}{}", &src[..e.start], to, &src[e.end..]);
            let fresh = !p.parse(&mutated, None).unwrap().root_node().has_error();
            assert_eq!(incremental.is_some(), fresh, "{from:?} -> {to:?}");
        }
    }
}
