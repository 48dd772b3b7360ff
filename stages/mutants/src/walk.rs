//! Visiting every node of a parsed source once, without recursion (a tree cursor), and
//! collecting the operators' edits; docstrings are skipped whole.

use tree_sitter::Node;

use crate::operators::{code_children, edits_at, Edit, Enabled};

/// Every edit the enabled operators make anywhere in the tree, in visiting order.
pub(crate) fn collect(root: Node<'_>, source: &str, enabled: Enabled) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let descend = if is_docstring(node) {
            false
        } else {
            edits_at(node, source, enabled, &mut out);
            true
        };
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

/// A docstring: the first statement of a module, class or function body, a string alone.
pub(crate) fn is_docstring(node: Node<'_>) -> bool {
    if node.kind() != "expression_statement" {
        return false;
    }
    let Some(parent) = node.parent() else {
        return false;
    };
    let body = match parent.kind() {
        "module" => true,
        "block" => parent
            .parent()
            .is_some_and(|g| matches!(g.kind(), "function_definition" | "class_definition")),
        _ => false,
    };
    if !body || code_children(parent).next() != Some(node) {
        return false;
    }
    let mut inner = code_children(node);
    matches!(
        (inner.next().map(|n| n.kind()), inner.next()),
        (Some("string" | "concatenated_string"), None)
    )
}
