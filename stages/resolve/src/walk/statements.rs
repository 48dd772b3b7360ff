//! The walk's handling of binding statements: assignments (and `__all__`), the walrus,
//! `as` targets, imports and `global`/`nonlocal` declarations.

use tree_sitter::Node;

use super::{first_identifier, line, BindWhat, Ctx, Mode, ScopeKind, Walker};
use crate::docstring::literal_value;
use crate::model::ImportTarget;
use crate::module_name::resolve_relative;

impl<'s, 't> Walker<'s, 't, '_> {
    pub(super) fn assignment(&mut self, node: Node<'t>, ctx: Ctx) {
        let (k, f) = (self.k, self.f);
        let augmented = node.kind_id() == k.augmented_assignment;
        let kids = self.children(node);
        if ctx.scope == 0 {
            let left = kids.iter().find(|&&(_, fi)| fi == f.left).map(|&(n, _)| n);
            let right = kids.iter().find(|&&(_, fi)| fi == f.right).map(|&(n, _)| n);
            if left.is_some_and(|l| l.kind_id() == k.identifier && self.text(l) == "__all__") {
                let names = right.and_then(|r| self.literal_strings(r));
                match (augmented, names) {
                    (false, names) => self.all = names,
                    (true, Some(more)) => {
                        if let Some(all) = self.all.as_mut() {
                            all.extend(more);
                        }
                    }
                    (true, None) => self.all = None,
                }
            }
        }
        self.push_all(&kids, |_, field| {
            ctx.with_mode(if field == f.left {
                Mode::Store
            } else {
                Mode::Load
            })
        });
        self.recycle(kids);
    }

    /// The strings of a literal list or tuple of plain strings.
    pub(super) fn literal_strings(&mut self, node: Node<'t>) -> Option<Vec<String>> {
        let k = self.k;
        let id = node.kind_id();
        if id != k.list && id != k.tuple && id != k.expression_list {
            return None;
        }
        let kids = self.children(node);
        let out = kids
            .iter()
            .map(|&(n, _)| {
                if n.kind_id() == k.string {
                    literal_value(self.text(n))
                } else {
                    None
                }
            })
            .collect();
        self.recycle(kids);
        out
    }

    /// `(name := value)`: binds in the nearest enclosing scope that is not a comprehension.
    pub(super) fn walrus(&mut self, node: Node<'t>, ctx: Ctx) {
        let mut target = ctx.scope;
        while self.scopes[target as usize].kind == ScopeKind::Comprehension {
            target = self.scopes[target as usize].parent;
        }
        if let Some(v) = node.child_by_field_id(self.f.value) {
            self.stack.push((v, ctx.load()));
        }
        if let Some(n) = node.child_by_field_id(self.f.name) {
            let name = self.text(n);
            self.store(target, name, BindWhat::Variable, line(n));
        }
    }

    pub(super) fn as_pattern(&mut self, node: Node<'t>, ctx: Ctx) {
        if ctx.mode == Mode::Pattern {
            self.generic(node, ctx);
            return;
        }
        let kids = self.children(node);
        let alias = self.f.alias;
        self.push_all(&kids, |_, field| {
            ctx.with_mode(if field == alias {
                Mode::Store
            } else {
                Mode::Load
            })
        });
        self.recycle(kids);
    }

    pub(super) fn add_import(
        &mut self,
        scope: u32,
        bound: &'s str,
        target: ImportTarget,
        line: u32,
    ) {
        let index = self.imports.len() as u32;
        self.imports.push(target);
        self.store(scope, bound, BindWhat::Import(index), line);
    }

    /// `import a.b.c` (binds `a` to module `a`) and `import a.b as x` (binds `x` to `a.b`).
    pub(super) fn import(&mut self, node: Node<'t>, ctx: Ctx) {
        let (k, f) = (self.k, self.f);
        let kids = self.children(node);
        for &(n, field) in &kids {
            if field != f.name {
                continue;
            }
            if n.kind_id() == k.dotted_name {
                if let Some(first) = first_identifier(n, k) {
                    let top = self.text(first);
                    self.add_import(
                        ctx.scope,
                        top,
                        ImportTarget::Dotted(top.to_string()),
                        line(n),
                    );
                }
            } else if n.kind_id() == k.aliased_import {
                let (Some(name), Some(alias)) =
                    (n.child_by_field_id(f.name), n.child_by_field_id(f.alias))
                else {
                    continue;
                };
                let dotted = self.dotted_text(name).into_owned();
                let alias = self.text(alias);
                self.add_import(ctx.scope, alias, ImportTarget::Dotted(dotted), line(n));
            }
        }
        self.recycle(kids);
    }

    /// `from X import a, b as c` and `from X import *`, relative ones resolved against the
    /// module.
    pub(super) fn import_from(&mut self, node: Node<'t>, ctx: Ctx) {
        let (k, f) = (self.k, self.f);
        let kids = self.children(node);
        // The module imported from, or why it has none (the reason becomes the target's).
        let mut base: Result<String, String> = Err(String::new());
        for &(n, field) in &kids {
            if field != f.module_name {
                continue;
            }
            if n.kind_id() == k.relative_import {
                let mut level = 0;
                let mut rest = None;
                let mut c = n.walk();
                for part in n.named_children(&mut c) {
                    if part.kind_id() == k.import_prefix {
                        level = self.text(part).bytes().filter(|&b| b == b'.').count();
                    } else if part.kind_id() == k.dotted_name {
                        rest = Some(self.dotted_text(part).into_owned());
                    }
                }
                base = resolve_relative(self.module, self.is_package, level, rest.as_deref())
                    .map_err(|e| e.to_string());
            } else {
                base = Ok(self.dotted_text(n).into_owned());
            }
        }
        let target = |name: &str| match &base {
            Ok(b) => ImportTarget::Dotted(format!("{b}.{name}")),
            Err(reason) => ImportTarget::Invalid(reason.clone()),
        };
        let mut bindings: Vec<(&'s str, ImportTarget, u32)> = Vec::new();
        for &(n, field) in &kids {
            if n.kind_id() == k.wildcard_import {
                if ctx.scope == 0 {
                    self.stars.push(match &base {
                        Ok(b) => ImportTarget::Dotted(b.clone()),
                        Err(reason) => ImportTarget::Invalid(reason.clone()),
                    });
                }
                continue;
            }
            if field != f.name {
                continue;
            }
            if n.kind_id() == k.dotted_name {
                let name = self.text(n);
                bindings.push((name, target(name), line(n)));
            } else if n.kind_id() == k.aliased_import {
                let (Some(name), Some(alias)) =
                    (n.child_by_field_id(f.name), n.child_by_field_id(f.alias))
                else {
                    continue;
                };
                let name = self.text(name);
                bindings.push((self.text(alias), target(name), line(n)));
            }
        }
        self.recycle(kids);
        for (bound, t, l) in bindings {
            self.add_import(ctx.scope, bound, t, l);
        }
    }

    pub(super) fn declaration(&mut self, node: Node<'t>, ctx: Ctx, global: bool) {
        let kids = self.children(node);
        for &(n, _) in &kids {
            if n.kind_id() != self.k.identifier {
                continue;
            }
            let name = self.text(n);
            let sc = &mut self.scopes[ctx.scope as usize];
            if global {
                sc.globals.push(name);
                if ctx.scope != 0 {
                    self.global_decls.push((name, line(n)));
                }
            } else {
                sc.nonlocals.push(name);
            }
        }
        self.recycle(kids);
    }
}
