//! Recovery from syntax errors. tree-sitter's error recovery can swallow what follows an
//! error (an unclosed parenthesis eats the next `def` whole), so a file that does not parse
//! is cut into pieces at each line that starts a top-level definition (`def`, `async def`,
//! `class`, or the first decorator before one, at column 0 and outside any string), and
//! each piece is parsed on its own: an error then stays inside its own definition, and the
//! pieces' analyses are put back together with their offsets shifted.

use tree_sitter::Node;

use crate::kinds::kinds;
use crate::model::FileAnalysis;

/// Byte offsets where the pieces of a broken file start (the first is 0).
pub(crate) fn piece_starts(source: &str, root: Node<'_>) -> Vec<usize> {
    let mut starts = vec![0];
    let mut offset = 0;
    let mut after_decorator = false;
    for line in source.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let text = line.trim_end();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let opens = ["def ", "async def ", "class ", "@"]
            .iter()
            .any(|p| line.starts_with(p));
        if opens && !after_decorator && at > 0 && !inside_string(root, at) {
            starts.push(at);
        }
        after_decorator = line.starts_with('@');
    }
    starts
}

/// Whether byte `at` lies inside a string literal of the (broken) tree.
fn inside_string(root: Node<'_>, at: usize) -> bool {
    let k = kinds();
    let mut node = root.descendant_for_byte_range(at, at);
    for _ in 0..4 {
        match node {
            Some(n) if n.kind_id() == k.string || n.kind_id() == k.string_content => return true,
            Some(n) => node = n.parent(),
            None => break,
        }
    }
    false
}

/// Appends the analysis of a piece that starts at byte `start`, line `lines_before + 1`.
pub(crate) fn merge(into: &mut FileAnalysis, piece: FileAnalysis, start: usize, lines_before: u32) {
    for mut f in piece.functions {
        f.start_byte += start;
        f.end_byte += start;
        f.start_line += lines_before;
        f.end_line += lines_before;
        for n in &mut f.free_names {
            n.line += lines_before;
        }
        into.functions.push(f);
    }
    for mut e in piece.errors {
        e.line += lines_before as i32;
        e.end_line += lines_before as i32;
        into.errors.push(e);
    }
    for (name, mut sym) in piece.symbols.names {
        sym.line += lines_before;
        into.symbols.names.entry(name).or_insert(sym);
    }
    into.symbols.star_imports.extend(piece.symbols.star_imports);
    if into.symbols.all.is_none() {
        into.symbols.all = piece.symbols.all;
    }
}
