//! The walk's handling of what opens a scope: function and class definitions (with their
//! decorators, parameters and qualnames), lambdas and comprehensions.

use std::collections::HashMap;

use tree_sitter::Node;

use super::{first_identifier, line, BindWhat, Ctx, Mode, Scope, ScopeKind, Walker, NONE};
use crate::function::describe;

impl<'t> Walker<'_, 't, '_> {
    pub(super) fn decorated(&mut self, node: Node<'t>, ctx: Ctx) {
        let kids = self.children(node);
        let decorators: Vec<Node<'t>> = kids
            .iter()
            .filter(|(n, _)| n.kind_id() == self.k.decorator)
            .map(|&(n, _)| n)
            .collect();
        let definition = kids
            .iter()
            .find(|&&(_, f)| f == self.f.definition)
            .map(|&(n, _)| n);
        self.recycle(kids);
        match definition {
            Some(d) if d.kind_id() == self.k.function_definition => {
                self.function(d, node, &decorators, ctx);
            }
            Some(d) if d.kind_id() == self.k.class_definition => self.class(d, &decorators, ctx),
            _ => self.generic(node, ctx),
        }
    }

    pub(super) fn new_scope(
        &mut self,
        kind: ScopeKind,
        parent: u32,
        func: u32,
        qualname: String,
    ) -> u32 {
        let in_function = matches!(kind, ScopeKind::Function | ScopeKind::Lambda)
            || self.scopes[parent as usize].in_function;
        self.scopes.push(Scope {
            kind,
            parent,
            func,
            in_function,
            qualname,
            bindings: HashMap::new(),
            globals: Vec::new(),
            nonlocals: Vec::new(),
        });
        (self.scopes.len() - 1) as u32
    }

    /// `__qualname__` of a definition named `name` in scope `parent`.
    pub(super) fn qualify(&self, parent: u32, name: &str) -> String {
        let p = &self.scopes[parent as usize];
        match p.kind {
            ScopeKind::Module => name.to_string(),
            ScopeKind::Class => format!("{}.{name}", p.qualname),
            ScopeKind::Function | ScopeKind::Lambda | ScopeKind::Comprehension => {
                // Only functions can hold statements; the others are here for safety on
                // broken trees.
                let mut s = parent;
                while !matches!(
                    self.scopes[s as usize].kind,
                    ScopeKind::Function | ScopeKind::Class | ScopeKind::Module
                ) {
                    s = self.scopes[s as usize].parent;
                }
                let q = &self.scopes[s as usize].qualname;
                if q.is_empty() {
                    name.to_string()
                } else {
                    format!("{q}.<locals>.{name}")
                }
            }
        }
    }

    pub(super) fn function(
        &mut self,
        def: Node<'t>,
        outer: Node<'t>,
        decorators: &[Node<'t>],
        ctx: Ctx,
    ) {
        let f = self.f;
        let name_node = def.child_by_field_id(f.name);
        let name = name_node.map_or("", |n| self.text(n));
        let parent = ctx.scope;
        let qualname = self.qualify(parent, name);
        let parent_scope = &self.scopes[parent as usize];
        let is_method = parent_scope.kind == ScopeKind::Class;
        let class_name = is_method.then(|| parent_scope.qualname.clone());
        let is_nested = parent_scope.in_function;
        let index = self.functions.len() as u32;
        let scope = self.new_scope(ScopeKind::Function, parent, index, qualname.clone());
        let mut info = describe(self.src, def, outer, decorators);
        info.qualname = qualname;
        info.name = name.to_string();
        info.class_name = class_name;
        info.is_method = is_method;
        info.is_nested = is_nested;
        self.functions.push((info, scope));
        if let Some(n) = name_node {
            self.store(parent, name, BindWhat::Function, line(n));
        }

        let header = Ctx {
            scope: parent,
            func: ctx.func,
            header: index,
            mode: Mode::Load,
            callee: false,
        };
        let body = Ctx {
            scope,
            func: index,
            header: NONE,
            mode: Mode::Load,
            callee: false,
        };
        if let Some(tp) = def.child_by_field_id(f.type_parameters) {
            self.type_parameters(tp, scope);
        }
        if let Some(b) = def.child_by_field_id(f.body) {
            self.stack.push((b, body));
        }
        if let Some(r) = def.child_by_field_id(f.return_type) {
            self.stack.push((r, header));
        }
        let mut header_nodes = Vec::new();
        if let Some(p) = def.child_by_field_id(f.parameters) {
            self.parameters(p, scope, &mut header_nodes);
        }
        for n in header_nodes.into_iter().rev() {
            self.stack.push((n, header));
        }
        for &d in decorators.iter().rev() {
            self.stack.push((d, header));
        }
    }

    /// PEP 695 type parameters (`def f[T](x: T)`): bound in the function's scope.
    pub(super) fn type_parameters(&mut self, node: Node<'t>, scope: u32) {
        let kids = self.children(node);
        for &(n, _) in &kids {
            if let Some(id) = first_identifier(n, self.k) {
                let name = self.text(id);
                self.scopes[scope as usize]
                    .bindings
                    .entry(name)
                    .or_insert(BindWhat::Variable);
            }
        }
        self.recycle(kids);
    }

    /// Binds the parameter names of `params` in `scope` and collects the annotations and
    /// default values, which are evaluated in the enclosing scope.
    pub(super) fn parameters(&mut self, params: Node<'t>, scope: u32, header: &mut Vec<Node<'t>>) {
        let (k, f) = (self.k, self.f);
        let kids = self.children(params);
        for &(p, _) in &kids {
            let id = p.kind_id();
            if id == k.default_parameter
                || id == k.typed_default_parameter
                || id == k.typed_parameter
            {
                let parts = self.children(p);
                for &(c, field) in &parts {
                    if field == f.value || field == f.type_ {
                        header.push(c);
                    } else {
                        self.bind_pattern(c, scope);
                    }
                }
                self.recycle(parts);
            } else if id != k.keyword_separator && id != k.positional_separator {
                self.bind_pattern(p, scope);
            }
        }
        self.recycle(kids);
    }

    /// Binds every identifier of a parameter pattern (`x`, `*args`, `(a, b)`).
    pub(super) fn bind_pattern(&mut self, node: Node<'t>, scope: u32) {
        let mut todo = vec![node];
        while let Some(n) = todo.pop() {
            if n.kind_id() == self.k.identifier {
                let name = self.text(n);
                if !name.is_empty() {
                    self.scopes[scope as usize]
                        .bindings
                        .entry(name)
                        .or_insert(BindWhat::Variable);
                }
                continue;
            }
            let mut c = n.walk();
            todo.extend(n.named_children(&mut c));
        }
    }

    pub(super) fn class(&mut self, def: Node<'t>, decorators: &[Node<'t>], ctx: Ctx) {
        let f = self.f;
        let name_node = def.child_by_field_id(f.name);
        let name = name_node.map_or("", |n| self.text(n));
        let parent = ctx.scope;
        let qualname = self.qualify(parent, name);
        let scope = self.new_scope(ScopeKind::Class, parent, NONE, qualname);
        if let Some(n) = name_node {
            self.store(parent, name, BindWhat::Class, line(n));
        }
        if let Some(tp) = def.child_by_field_id(f.type_parameters) {
            self.type_parameters(tp, scope);
        }
        if let Some(b) = def.child_by_field_id(f.body) {
            self.stack.push((
                b,
                Ctx {
                    scope,
                    ..ctx.load()
                },
            ));
        }
        if let Some(s) = def.child_by_field_id(f.superclasses) {
            self.stack.push((s, ctx.load()));
        }
        for &d in decorators.iter().rev() {
            self.stack.push((d, ctx.load()));
        }
    }

    pub(super) fn lambda(&mut self, node: Node<'t>, ctx: Ctx) {
        let scope = self.new_scope(ScopeKind::Lambda, ctx.scope, NONE, String::new());
        if let Some(b) = node.child_by_field_id(self.f.body) {
            self.stack.push((
                b,
                Ctx {
                    scope,
                    ..ctx.load()
                },
            ));
        }
        let mut defaults = Vec::new();
        if let Some(p) = node.child_by_field_id(self.f.parameters) {
            self.parameters(p, scope, &mut defaults);
        }
        for n in defaults.into_iter().rev() {
            self.stack.push((n, ctx.load()));
        }
    }

    /// A comprehension: its first iterable is evaluated in the enclosing scope, the rest
    /// in its own scope, where its `for` targets are bound.
    pub(super) fn comprehension(&mut self, node: Node<'t>, ctx: Ctx) {
        let (k, f) = (self.k, self.f);
        let scope = self.new_scope(ScopeKind::Comprehension, ctx.scope, NONE, String::new());
        let inner = Ctx {
            scope,
            ..ctx.load()
        };
        let kids = self.children(node);
        let mut todo: Vec<(Node<'t>, Ctx)> = Vec::with_capacity(kids.len() + 2);
        let mut first = true;
        let mut clauses = 0;
        for &(n, _) in &kids {
            let id = n.kind_id();
            if id == k.for_in_clause {
                clauses += 1;
                let parts = self.children(n);
                for &(part, field) in &parts {
                    if field == f.left {
                        todo.push((part, inner.with_mode(Mode::Store)));
                    } else if field == f.right && first {
                        todo.push((part, ctx.load()));
                    } else {
                        todo.push((part, inner));
                    }
                }
                self.recycle(parts);
                first = false;
            } else {
                if id == k.if_clause {
                    clauses += 1;
                }
                todo.push((n, inner));
            }
        }
        self.recycle(kids);
        self.bump_complexity(ctx, clauses);
        for t in todo.into_iter().rev() {
            self.stack.push(t);
        }
    }
}
