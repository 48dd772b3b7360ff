//! What the analysis produces: per file ([`FileAnalysis`]) the functions with their free
//! names and the module's global symbols; per free name, once the repository is known,
//! a [`Resolution`].

use std::collections::HashMap;

/// Everything `resolve` learns from one Python file on its own.
#[derive(Debug, Clone, PartialEq)]
pub struct FileAnalysis {
    /// Dotted module name.
    pub module: String,
    /// Whether the file is a package `__init__`.
    pub is_package: bool,
    /// Where parsing failed (ERROR and MISSING nodes); empty when the file parsed.
    pub errors: Vec<schemas::SyntaxError>,
    /// Every `def` and `async def`, ordered by start byte.
    pub functions: Vec<FunctionInfo>,
    /// The module's global namespace, as far as the source shows it.
    pub symbols: ModuleSymbols,
}

/// One function or method definition.
// The flags mirror the `functions` table's boolean columns one for one.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionInfo {
    /// Qualified name within the module, by Python's `__qualname__` rules.
    pub qualname: String,
    /// The bare name.
    pub name: String,
    /// The enclosing class's qualified name, for methods.
    pub class_name: Option<String>,
    /// Defined directly in a class body.
    pub is_method: bool,
    /// Defined inside another function (at any depth).
    pub is_nested: bool,
    /// `async def`.
    pub is_async: bool,
    /// Contains `yield` in its own body.
    pub is_generator: bool,
    /// Has a `return` with a value in its own body.
    pub returns_value: bool,
    /// Assigns a name it declares `global` or `nonlocal`.
    pub writes_globals: bool,
    /// Byte offset of the definition's start (decorators included).
    pub start_byte: usize,
    /// Byte offset just past its end.
    pub end_byte: usize,
    /// 1-based first line (decorators included).
    pub start_line: u32,
    /// 1-based last line.
    pub end_line: u32,
    /// Parameters in order.
    pub params: Vec<schemas::Param>,
    /// The return annotation's source text.
    pub returns: Option<String>,
    /// Decorators' source text without `@`.
    pub decorators: Vec<String>,
    /// The docstring's cleaned value.
    pub docstring: Option<String>,
    /// Lines that are neither blank nor comments.
    pub lines: u32,
    /// Cyclomatic complexity: 1 + decision points.
    pub complexity: u32,
    /// The definition's node contains a parse error.
    pub has_syntax_error: bool,
    /// Its code as a syntax tree, hashed ([`crate::fingerprint`]).
    pub code_hash: String,
    /// Distinct free names it uses, ordered by chain.
    pub free_names: Vec<FreeName>,
}

impl FunctionInfo {
    /// The definition's text within the file's source.
    pub fn source<'a>(&self, file_source: &'a str) -> &'a str {
        file_source
            .get(self.start_byte..self.end_byte)
            .unwrap_or("")
    }
}

/// A name a function uses and does not bind, with the attribute chain it is used through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreeName {
    /// The identifier.
    pub name: String,
    /// The maximal dotted chain of plain identifiers starting at it (`os.path.join`).
    pub chain: String,
    /// Uses of this chain.
    pub count: u32,
    /// 1-based line of the first use.
    pub line: u32,
    /// Some use is the callee of a call.
    pub is_call: bool,
    /// Some use assigns it (through `global` or `nonlocal`).
    pub is_store: bool,
    /// Where Python finds it.
    pub binding: Binding,
}

/// Where a free name is bound, as far as the file alone tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// The module's global namespace (or, failing that, builtins).
    Global,
    /// An enclosing function's local (a closure variable), or for names in a method's
    /// decorators and defaults, the enclosing class body.
    Enclosing {
        /// Qualified name of the function or class that binds it.
        qualname: String,
        /// What the binding is.
        target_type: TargetType,
    },
    /// An import statement inside an enclosing function or class body.
    EnclosingImport(ImportTarget),
}

/// The module's global namespace: each name's first binding in source order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModuleSymbols {
    /// Names bound at module level (and through `global` in functions).
    pub names: HashMap<String, Symbol>,
    /// `from X import *` at module level, in order.
    pub star_imports: Vec<ImportTarget>,
    /// `__all__`, when assigned a literal list or tuple of strings.
    pub all: Option<Vec<String>>,
}

/// One global binding.
#[derive(Debug, Clone, PartialEq)]
pub struct Symbol {
    /// What binds it.
    pub kind: SymbolKind,
    /// 1-based line of the binding.
    pub line: u32,
}

/// What binds a global name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolKind {
    Function,
    Class,
    Variable,
    Import(ImportTarget),
}

/// The absolute dotted name an import binds a name to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ImportTarget {
    /// `import a.b as x` -> `a.b`; `from .m import f` in `pkg` -> `pkg.m.f`; `import a.b` binds `a` -> `a`.
    Dotted(String),
    /// A relative import that climbs above the top-level package, with the reason.
    Invalid(String),
}

/// What a free name resolves to within its repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub kind: RefKind,
    /// Top-level package for stdlib and third-party; defining module for internal.
    pub target_module: Option<String>,
    /// Fully qualified target extended by the rest of the chain.
    pub target: Option<String>,
    /// For internal: the defining file.
    pub target_path: Option<String>,
    /// For internal: what the target is.
    pub target_type: Option<TargetType>,
    /// Why it stayed unresolved.
    pub reason: Option<String>,
}

impl Resolution {
    pub(crate) fn unresolved(reason: String) -> Self {
        Self {
            kind: RefKind::Unresolved,
            target_module: None,
            target: None,
            target_path: None,
            target_type: None,
            reason: Some(reason),
        }
    }
}

/// The kind of a reference and what an internal target is, as the `references` table
/// spells them.
pub use schemas::{RefKind, TargetType};
