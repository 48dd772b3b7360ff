//! Phase one of the analysis: one iterative walk over a file's syntax tree that records
//! the scopes (module, functions, lambdas, classes, comprehensions) with the names each
//! binds and declares `global`/`nonlocal`, every use of a name inside a function (with
//! the attribute chain it is used through), the functions with their metrics, and the
//! module's global symbols and imports.
//!
//! The walk keeps its own stack of nodes to visit instead of recursing, so that a deeply
//! nested expression cannot overflow the thread's stack. Names are `&str` slices of the
//! source; nothing is allocated per node. What opens a scope (definitions, lambdas,
//! comprehensions) is handled in `definitions`, binding statements in `statements`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::num::NonZeroU16;

use tree_sitter::{Node, TreeCursor};

use crate::kinds::{fields, kinds, Fields, Kinds};
use crate::model::{FunctionInfo, ImportTarget, ModuleSymbols, Symbol, SymbolKind};
use crate::names::is_keyword;

mod definitions;
mod statements;

/// "No such index" for scope, function and header slots.
pub(crate) const NONE: u32 = u32::MAX;

/// The kinds of Python scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    Module,
    Function,
    Lambda,
    Class,
    Comprehension,
}

/// What a binding in a scope is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BindWhat {
    Variable,
    Function,
    Class,
    /// An import; the index into [`Walk::imports`].
    Import(u32),
}

/// One scope and the names it binds.
pub(crate) struct Scope<'s> {
    pub kind: ScopeKind,
    pub parent: u32,
    /// The function's index for function scopes, else [`NONE`].
    pub func: u32,
    /// This scope is a function or lambda, or lies inside one.
    pub in_function: bool,
    /// Qualified name, for function and class scopes.
    pub qualname: String,
    pub bindings: HashMap<&'s str, BindWhat>,
    pub globals: Vec<&'s str>,
    pub nonlocals: Vec<&'s str>,
}

/// One use of a name where some function may see it: a load inside a function body or a
/// function's header, or an assignment through `global`/`nonlocal`.
pub(crate) struct Use<'s> {
    pub name: &'s str,
    pub chain: Cow<'s, str>,
    /// The scope it is evaluated in.
    pub scope: u32,
    /// The function whose decorators, annotations or defaults contain it, else [`NONE`].
    pub header: u32,
    pub line: u32,
    pub call: bool,
    pub store: bool,
}

/// What the walk found in one file.
pub(crate) struct Walk<'s> {
    pub scopes: Vec<Scope<'s>>,
    pub uses: Vec<Use<'s>>,
    /// Functions in the order met (by start byte), each with its scope.
    pub functions: Vec<(FunctionInfo, u32)>,
    pub imports: Vec<ImportTarget>,
    pub symbols: ModuleSymbols,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Load,
    /// Assignment, augmented assignment, `del`, `for`/`with`/`except` targets.
    Store,
    /// A `case` pattern: bare names capture, dotted names are values.
    Pattern,
}

#[derive(Debug, Clone, Copy)]
struct Ctx {
    /// Scope the node is evaluated in.
    scope: u32,
    /// Innermost function whose body holds the node (for complexity), else NONE.
    func: u32,
    /// Function whose header holds the node, else NONE.
    header: u32,
    mode: Mode,
    /// The node is the callee of a call.
    callee: bool,
}

impl Ctx {
    fn load(self) -> Self {
        Self {
            mode: Mode::Load,
            callee: false,
            ..self
        }
    }
    fn with_mode(self, mode: Mode) -> Self {
        Self {
            mode,
            callee: false,
            ..self
        }
    }
}

/// Walks the tree of `src` rooted at `root`, for module `module`.
pub(crate) fn walk<'s>(src: &'s str, root: Node<'_>, module: &str, is_package: bool) -> Walk<'s> {
    let mut w = Walker {
        src,
        k: kinds(),
        f: fields(),
        module,
        is_package,
        scopes: vec![Scope {
            kind: ScopeKind::Module,
            parent: NONE,
            func: NONE,
            in_function: false,
            qualname: String::new(),
            bindings: HashMap::new(),
            globals: Vec::new(),
            nonlocals: Vec::new(),
        }],
        uses: Vec::new(),
        functions: Vec::new(),
        imports: Vec::new(),
        syms: HashMap::new(),
        global_decls: Vec::new(),
        stars: Vec::new(),
        all: None,
        stack: Vec::new(),
        kids: Vec::new(),
        cursor: root.walk(),
    };
    w.stack.push((
        root,
        Ctx {
            scope: 0,
            func: NONE,
            header: NONE,
            mode: Mode::Load,
            callee: false,
        },
    ));
    while let Some((node, ctx)) = w.stack.pop() {
        w.visit(node, ctx);
    }
    w.finish()
}

struct Walker<'s, 't, 'm> {
    src: &'s str,
    k: &'static Kinds,
    f: &'static Fields,
    module: &'m str,
    is_package: bool,
    scopes: Vec<Scope<'s>>,
    uses: Vec<Use<'s>>,
    functions: Vec<(FunctionInfo, u32)>,
    imports: Vec<ImportTarget>,
    syms: HashMap<&'s str, (BindWhat, u32)>,
    global_decls: Vec<(&'s str, u32)>,
    stars: Vec<ImportTarget>,
    all: Option<Vec<String>>,
    stack: Vec<(Node<'t>, Ctx)>,
    kids: Vec<(Node<'t>, u16)>,
    cursor: TreeCursor<'t>,
}

fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

impl<'s, 't> Walker<'s, 't, '_> {
    fn text(&self, node: Node<'_>) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    /// Named children other than comments, with their field ids (0 when none). Give the
    /// vector back with [`Self::recycle`].
    fn children(&mut self, node: Node<'t>) -> Vec<(Node<'t>, u16)> {
        let mut v = std::mem::take(&mut self.kids);
        v.clear();
        self.cursor.reset(node);
        if self.cursor.goto_first_child() {
            loop {
                let n = self.cursor.node();
                if n.is_named() && n.kind_id() != self.k.comment {
                    v.push((n, self.cursor.field_id().map_or(0, NonZeroU16::get)));
                }
                if !self.cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        v
    }

    fn recycle(&mut self, v: Vec<(Node<'t>, u16)>) {
        if v.capacity() > self.kids.capacity() {
            self.kids = v;
        }
    }

    /// Pushes `kids` so that they are visited in source order, each with `ctx_of(kid)`.
    fn push_all(&mut self, kids: &[(Node<'t>, u16)], mut ctx_of: impl FnMut(Node<'t>, u16) -> Ctx) {
        for &(n, field) in kids.iter().rev() {
            let c = ctx_of(n, field);
            self.stack.push((n, c));
        }
    }

    fn bump_complexity(&mut self, ctx: Ctx, by: u32) {
        if ctx.func != NONE {
            self.functions[ctx.func as usize].0.complexity += by;
        }
    }

    fn visit(&mut self, node: Node<'t>, ctx: Ctx) {
        let k = self.k;
        let id = node.kind_id();
        if id == k.identifier {
            self.identifier(node, ctx);
        } else if id == k.attribute {
            self.attribute(node, ctx);
        } else if id == k.call {
            let kids = self.children(node);
            let function = self.f.function;
            self.push_all(&kids, |_, field| Ctx {
                callee: field == function,
                ..ctx.load()
            });
            self.recycle(kids);
        } else if id == k.keyword_argument {
            if let Some(v) = node.child_by_field_id(self.f.value) {
                self.stack.push((v, ctx.load()));
            }
        } else if id == k.function_definition {
            self.function(node, node, &[], ctx);
        } else if id == k.decorated_definition {
            self.decorated(node, ctx);
        } else if id == k.class_definition {
            self.class(node, &[], ctx);
        } else if id == k.lambda {
            self.lambda(node, ctx);
        } else if id == k.list_comprehension
            || id == k.set_comprehension
            || id == k.dictionary_comprehension
            || id == k.generator_expression
        {
            self.comprehension(node, ctx);
        } else if id == k.assignment || id == k.augmented_assignment {
            self.assignment(node, ctx);
        } else if id == k.named_expression {
            self.walrus(node, ctx);
        } else if id == k.for_statement {
            self.bump_complexity(ctx, 1);
            let kids = self.children(node);
            let left = self.f.left;
            self.push_all(&kids, |_, field| {
                ctx.with_mode(if field == left {
                    Mode::Store
                } else {
                    Mode::Load
                })
            });
            self.recycle(kids);
        } else if id == k.if_statement
            || id == k.elif_clause
            || id == k.while_statement
            || id == k.except_clause
            || id == k.boolean_operator
            || id == k.conditional_expression
        {
            self.bump_complexity(ctx, 1);
            self.generic(node, ctx);
        } else if id == k.as_pattern {
            self.as_pattern(node, ctx);
        } else if id == k.import_statement {
            self.import(node, ctx);
        } else if id == k.import_from_statement {
            self.import_from(node, ctx);
        } else if id == k.future_import_statement || id == k.comment {
            // `from __future__ import x` binds nothing a function could use.
        } else if id == k.global_statement || id == k.nonlocal_statement {
            self.declaration(node, ctx, id == k.global_statement);
        } else if id == k.delete_statement {
            let kids = self.children(node);
            self.push_all(&kids, |_, _| ctx.with_mode(Mode::Store));
            self.recycle(kids);
        } else if id == k.return_statement {
            if ctx.func != NONE
                && self.scopes[ctx.scope as usize].func == ctx.func
                && node.named_child_count() > 0
            {
                let has_value = {
                    let kids = self.children(node);
                    let any = !kids.is_empty();
                    self.recycle(kids);
                    any
                };
                if has_value {
                    self.functions[ctx.func as usize].0.returns_value = true;
                }
            }
            self.generic(node, ctx.load());
        } else if id == k.yield_ {
            let scope = &self.scopes[ctx.scope as usize];
            if scope.kind == ScopeKind::Function {
                self.functions[scope.func as usize].0.is_generator = true;
            }
            self.generic(node, ctx.load());
        } else if id == k.case_clause {
            self.bump_complexity(ctx, 1);
            let kids = self.children(node);
            let case_pattern = k.case_pattern;
            self.push_all(&kids, |n, _| {
                ctx.with_mode(if n.kind_id() == case_pattern {
                    Mode::Pattern
                } else {
                    Mode::Load
                })
            });
            self.recycle(kids);
        } else if id == k.dotted_name {
            self.dotted_name(node, ctx);
        } else if id == k.class_pattern {
            let kids = self.children(node);
            let dotted = k.dotted_name;
            self.push_all(&kids, |n, _| {
                ctx.with_mode(if n.kind_id() == dotted {
                    Mode::Load
                } else {
                    Mode::Pattern
                })
            });
            self.recycle(kids);
        } else if id == k.keyword_pattern {
            let kids = self.children(node);
            // The first identifier is the keyword, not a name.
            let rest = if kids
                .first()
                .is_some_and(|(n, _)| n.kind_id() == k.identifier)
            {
                &kids[1..]
            } else {
                &kids[..]
            };
            self.push_all(rest, |_, _| ctx.with_mode(Mode::Pattern));
            self.recycle(kids);
        } else if id == k.dict_pattern {
            let kids = self.children(node);
            let (key, dotted) = (self.f.key, k.dotted_name);
            for &(n, field) in kids.iter().rev() {
                if field == key {
                    if n.kind_id() == dotted {
                        self.stack.push((n, ctx.with_mode(Mode::Load)));
                    }
                } else {
                    self.stack.push((n, ctx.with_mode(Mode::Pattern)));
                }
            }
            self.recycle(kids);
        } else if id == k.type_alias_statement {
            let kids = self.children(node);
            for &(n, field) in kids.iter().rev() {
                if field == self.f.left {
                    if let Some(name) = first_identifier(n, k) {
                        let text = self.text(name);
                        self.store(ctx.scope, text, BindWhat::Variable, line(name));
                    }
                } else {
                    self.stack.push((n, ctx.load()));
                }
            }
            self.recycle(kids);
        } else {
            self.generic(node, ctx);
        }
    }

    /// Visits the named children; a store target passes its mode only through the
    /// containers a target can be made of.
    fn generic(&mut self, node: Node<'t>, ctx: Ctx) {
        let k = self.k;
        let id = node.kind_id();
        let mode = match ctx.mode {
            Mode::Store
                if id == k.tuple
                    || id == k.list
                    || id == k.pattern_list
                    || id == k.tuple_pattern
                    || id == k.list_pattern
                    || id == k.parenthesized_expression
                    || id == k.list_splat_pattern
                    || id == k.list_splat
                    || id == k.expression_list
                    || id == k.as_pattern_target =>
            {
                Mode::Store
            }
            Mode::Store => Mode::Load,
            m => m,
        };
        let kids = self.children(node);
        self.push_all(&kids, |_, _| ctx.with_mode(mode));
        self.recycle(kids);
    }

    fn identifier(&mut self, node: Node<'t>, ctx: Ctx) {
        let name = self.text(node);
        if name.is_empty() {
            return;
        }
        match ctx.mode {
            Mode::Load => self.load(name, Cow::Borrowed(name), node, ctx),
            Mode::Store => self.store(ctx.scope, name, BindWhat::Variable, line(node)),
            Mode::Pattern => {
                if name != "_" {
                    self.store(ctx.scope, name, BindWhat::Variable, line(node));
                }
            }
        }
    }

    /// Records a read of `name` (through `chain`) where a function can see it.
    fn load(&mut self, name: &'s str, chain: Cow<'s, str>, node: Node<'_>, ctx: Ctx) {
        if (ctx.func == NONE && ctx.header == NONE) || is_keyword(name) {
            return;
        }
        self.uses.push(Use {
            name,
            chain,
            scope: ctx.scope,
            header: ctx.header,
            line: line(node),
            call: ctx.callee,
            store: false,
        });
    }

    /// Binds `name` in `scope`, or records an assignment through `global`/`nonlocal`.
    fn store(&mut self, scope: u32, name: &'s str, what: BindWhat, line: u32) {
        if name.is_empty() || is_keyword(name) {
            return;
        }
        let sc = &mut self.scopes[scope as usize];
        // (`global x` at module level changes nothing.)
        if scope != 0 && (sc.globals.contains(&name) || sc.nonlocals.contains(&name)) {
            if sc.in_function {
                self.uses.push(Use {
                    name,
                    chain: Cow::Borrowed(name),
                    scope,
                    header: NONE,
                    line,
                    call: false,
                    store: true,
                });
            }
            return;
        }
        sc.bindings.entry(name).or_insert(what);
        if scope == 0 {
            self.syms.entry(name).or_insert((what, line));
        }
    }

    /// `a.b.c`: the use of `a` through the longest chain of plain identifiers.
    fn attribute(&mut self, node: Node<'t>, ctx: Ctx) {
        let mut cur = node;
        loop {
            match cur.child_by_field_id(self.f.object) {
                Some(o) if o.kind_id() == self.k.attribute => cur = o,
                Some(o) if o.kind_id() == self.k.identifier => {
                    let name = self.text(o);
                    if !name.is_empty() {
                        let chain = self.chain_text(node, name);
                        self.load(name, chain, o, ctx);
                    }
                    return;
                }
                Some(o) => {
                    self.stack.push((o, ctx.load()));
                    return;
                }
                None => return,
            }
        }
    }

    /// The dotted text of an attribute chain over plain identifiers: the source slice when
    /// it holds no whitespace or comments, else the identifiers joined with dots.
    fn chain_text(&self, top: Node<'t>, base: &'s str) -> Cow<'s, str> {
        let t = self.text(top);
        if !t
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b == b'#' || b == b'\\')
        {
            return Cow::Borrowed(t);
        }
        let mut parts = Vec::new();
        let mut cur = top;
        while cur.kind_id() == self.k.attribute {
            if let Some(a) = cur.child_by_field_id(self.f.attribute) {
                parts.push(self.text(a));
            }
            match cur.child_by_field_id(self.f.object) {
                Some(o) => cur = o,
                None => break,
            }
        }
        parts.push(base);
        parts.reverse();
        Cow::Owned(parts.join("."))
    }

    /// A `dotted_name` in an expression or pattern: a bare name in a pattern captures,
    /// otherwise it is a read through its chain.
    fn dotted_name(&mut self, node: Node<'t>, ctx: Ctx) {
        let kids = self.children(node);
        if let Some(&(first, _)) = kids.first() {
            let name = self.text(first);
            if ctx.mode == Mode::Pattern && kids.len() == 1 {
                if name != "_" {
                    self.store(ctx.scope, name, BindWhat::Variable, line(first));
                }
            } else if !name.is_empty() {
                let chain = self.dotted_text_of(node, &kids);
                self.load(name, chain, first, ctx.load());
            }
        }
        self.recycle(kids);
    }

    fn dotted_text_of(&self, node: Node<'t>, kids: &[(Node<'t>, u16)]) -> Cow<'s, str> {
        let t = self.text(node);
        if !t
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b == b'#' || b == b'\\')
        {
            return Cow::Borrowed(t);
        }
        Cow::Owned(
            kids.iter()
                .map(|&(n, _)| self.text(n))
                .collect::<Vec<_>>()
                .join("."),
        )
    }

    fn dotted_text(&mut self, node: Node<'t>) -> Cow<'s, str> {
        let kids = self.children(node);
        let t = self.dotted_text_of(node, &kids);
        self.recycle(kids);
        t
    }

    fn finish(self) -> Walk<'s> {
        let mut names: HashMap<String, Symbol> =
            HashMap::with_capacity(self.syms.len() + self.global_decls.len());
        for (name, (what, line)) in self.syms {
            let kind = match what {
                BindWhat::Variable => SymbolKind::Variable,
                BindWhat::Function => SymbolKind::Function,
                BindWhat::Class => SymbolKind::Class,
                BindWhat::Import(i) => SymbolKind::Import(self.imports[i as usize].clone()),
            };
            names.insert(name.to_string(), Symbol { kind, line });
        }
        for (name, line) in self.global_decls {
            names.entry(name.to_string()).or_insert(Symbol {
                kind: SymbolKind::Variable,
                line,
            });
        }
        Walk {
            scopes: self.scopes,
            uses: self.uses,
            functions: self.functions,
            imports: self.imports,
            symbols: ModuleSymbols {
                names,
                star_imports: self.stars,
                all: self.all,
            },
        }
    }
}

/// The first identifier at or below `node` (iteratively, first child first).
fn first_identifier<'t>(node: Node<'t>, k: &Kinds) -> Option<Node<'t>> {
    let mut cur = node;
    loop {
        if cur.kind_id() == k.identifier {
            return Some(cur);
        }
        cur = cur.named_child(0)?;
    }
}
