//! Repository-level resolution: a free name is looked up in its module's globals and
//! followed through imports to where it is defined. The top-level package decides the
//! kind (`stdlib`, `internal`, `third_party`); internal targets are followed through
//! package re-exports, star imports (honouring a literal `__all__`) and submodules.

use std::collections::{HashMap, HashSet};

use crate::model::{
    Binding, FileAnalysis, FreeName, ImportTarget, RefKind, Resolution, SymbolKind, TargetType,
};
use crate::names::{is_builtin, is_module_dunder, is_stdlib};

/// How many imports a name may be followed through before it counts as a cycle.
pub const MAX_HOPS: u32 = 32;

/// Lookup tables of one repository's modules, built once.
pub struct RepoIndex<'a> {
    files: Vec<(&'a str, &'a FileAnalysis)>,
    modules: HashMap<&'a str, usize>,
    /// First components of every module name.
    tops: HashSet<&'a str>,
    /// Every proper dotted prefix of a module name (packages, namespace packages included).
    packages: HashSet<&'a str>,
}

/// Where a name leads before the rest of its chain is applied.
#[derive(Debug, Clone)]
enum Reached {
    Def {
        file: usize,
        qual: String,
        ty: TargetType,
    },
    Module {
        file: usize,
    },
    Namespace(String),
    External {
        kind: RefKind,
        dotted: String,
    },
    Builtin(String),
    Unresolved(String),
}

fn join(base: &str, rest: &str) -> String {
    match (base.is_empty(), rest.is_empty()) {
        (_, true) => base.to_string(),
        (true, false) => rest.to_string(),
        (false, false) => format!("{base}.{rest}"),
    }
}

fn top(dotted: &str) -> &str {
    dotted.split('.').next().unwrap_or(dotted)
}

impl<'a> RepoIndex<'a> {
    /// Indexes the files of one repository: `(path, analysis)` pairs. When two files give
    /// the same module name, the first one wins.
    pub fn new(files: impl IntoIterator<Item = (&'a str, &'a FileAnalysis)>) -> Self {
        let files: Vec<(&'a str, &'a FileAnalysis)> = files.into_iter().collect();
        let mut modules = HashMap::with_capacity(files.len());
        let mut tops = HashSet::new();
        let mut packages = HashSet::new();
        for (i, (_, a)) in files.iter().enumerate() {
            let m = a.module.as_str();
            modules.entry(m).or_insert(i);
            tops.insert(top(m));
            let mut end = m.len();
            while let Some(dot) = m[..end].rfind('.') {
                packages.insert(&m[..dot]);
                end = dot;
            }
        }
        Self {
            files,
            modules,
            tops,
            packages,
        }
    }

    fn module_of(&self, file: usize) -> &'a str {
        self.files[file].1.module.as_str()
    }

    /// Resolves a free name of a function of file number `file` (its place in the
    /// iterator given to [`RepoIndex::new`]).
    pub fn resolve(&self, file: usize, free: &FreeName) -> Resolution {
        let rest = free
            .chain
            .strip_prefix(free.name.as_str())
            .map_or("", |r| r.trim_start_matches('.'));
        let reached = match &free.binding {
            Binding::Enclosing {
                qualname,
                target_type,
            } => {
                let module = self.module_of(file);
                return Resolution {
                    kind: RefKind::Internal,
                    target_module: Some(module.to_string()),
                    target: Some(join(&join(&join(module, qualname), &free.name), rest)),
                    target_path: Some(self.files[file].0.to_string()),
                    target_type: Some(*target_type),
                    reason: None,
                };
            }
            Binding::EnclosingImport(t) => self.follow(file, t, 0),
            Binding::Global => self.global(file, &free.name),
        };
        self.finish(reached, rest)
    }

    /// A global name of `file`: its module's namespace, then the module dunders and
    /// builtins, then the first external star import.
    fn global(&self, file: usize, name: &str) -> Reached {
        if let Some(r) = self.lookup(file, name, 0) {
            return r;
        }
        if is_module_dunder(name) {
            return Reached::Builtin(name.to_string());
        }
        if is_builtin(name) {
            return Reached::Builtin(format!("builtins.{name}"));
        }
        if let Some(r) = self.external_star(file, name) {
            return r;
        }
        Reached::Unresolved(format!(
            "`{name}` is not defined in module `{}` and is not a builtin",
            self.module_of(file)
        ))
    }

    /// For a name no module defines: the first star import of an external module, looked
    /// for in `file`'s star imports in order and, depth first, in those of the internal
    /// modules it star-imports (which may pass the name on).
    fn external_star(&self, file: usize, name: &str) -> Option<Reached> {
        let mut visited = vec![file];
        self.external_star_in(file, name, &mut visited)
    }

    fn external_star_in(
        &self,
        file: usize,
        name: &str,
        visited: &mut Vec<usize>,
    ) -> Option<Reached> {
        for t in &self.files[file].1.symbols.star_imports {
            let ImportTarget::Dotted(d) = t else { continue };
            match self.star_module(file, d) {
                None => {
                    let kind = if is_stdlib(top(d)) {
                        RefKind::Stdlib
                    } else {
                        RefKind::ThirdParty
                    };
                    return Some(Reached::External {
                        kind,
                        dotted: format!("{d}.{name}"),
                    });
                }
                Some(m) if !visited.contains(&m) && self.exports(m, name) => {
                    visited.push(m);
                    if let Some(r) = self.external_star_in(m, name, visited) {
                        return Some(r);
                    }
                }
                Some(_) => {}
            }
        }
        None
    }

    /// `name` in the namespace of module `file`: its own bindings, then what its internal
    /// star imports export. `None` when neither has it.
    fn lookup(&self, file: usize, name: &str, hops: u32) -> Option<Reached> {
        self.lookup_in(file, name, hops, &mut vec![file])
    }

    /// [`Self::lookup`], visiting each star-imported module once (`visited`), so that star
    /// imports that import each other cost linear time, not exponential.
    fn lookup_in(
        &self,
        file: usize,
        name: &str,
        hops: u32,
        visited: &mut Vec<usize>,
    ) -> Option<Reached> {
        if hops > MAX_HOPS {
            return Some(Reached::Unresolved(format!(
                "import chain longer than {MAX_HOPS} hops (a cycle?) reaching `{name}`"
            )));
        }
        let a = self.files[file].1;
        if let Some(sym) = a.symbols.names.get(name) {
            let def = |ty| Reached::Def {
                file,
                qual: join(&a.module, name),
                ty,
            };
            return Some(match &sym.kind {
                SymbolKind::Function => def(TargetType::Function),
                SymbolKind::Class => def(TargetType::Class),
                SymbolKind::Variable => def(TargetType::Variable),
                SymbolKind::Import(t) => self.follow(file, t, hops + 1),
            });
        }
        for t in &a.symbols.star_imports {
            let ImportTarget::Dotted(d) = t else { continue };
            let Some(m) = self.star_module(file, d) else {
                continue;
            };
            if visited.contains(&m) || !self.exports(m, name) {
                continue;
            }
            visited.push(m);
            if let Some(r) = self.lookup_in(m, name, hops + 1, visited) {
                return Some(r);
            }
        }
        None
    }

    /// Whether `from M import *` brings `name`: listed in a literal `__all__`, or public.
    fn exports(&self, file: usize, name: &str) -> bool {
        match &self.files[file].1.symbols.all {
            Some(all) => all.iter().any(|n| n == name),
            None => !name.starts_with('_'),
        }
    }

    fn follow(&self, file: usize, target: &ImportTarget, hops: u32) -> Reached {
        match target {
            ImportTarget::Invalid(reason) => Reached::Unresolved(reason.clone()),
            ImportTarget::Dotted(d) => self.dotted(file, d, hops),
        }
    }

    /// The module file a star import of `dotted` reads, when it is in the repository
    /// (also as a module next to a script).
    fn star_module(&self, file: usize, dotted: &str) -> Option<usize> {
        if let Some(&m) = self.modules.get(dotted) {
            return Some(m);
        }
        let sibling = self.sibling(file, dotted)?;
        self.modules.get(sibling.as_str()).copied()
    }

    /// `dotted` as a module next to `file` (a script's own folder is on `sys.path`), when
    /// the repository has its top-level name there.
    fn sibling(&self, file: usize, dotted: &str) -> Option<String> {
        let a = self.files[file].1;
        if a.is_package {
            return None;
        }
        let (folder, _) = a.module.rsplit_once('.')?;
        let sibling_top = format!("{folder}.{}", top(dotted));
        (self.modules.contains_key(sibling_top.as_str())
            || self.packages.contains(sibling_top.as_str()))
        .then(|| format!("{folder}.{dotted}"))
    }

    /// The longest prefix of `dotted` (at dot boundaries) that is a module of the
    /// repository: its file and length.
    fn longest_module(&self, dotted: &str) -> Option<(usize, usize)> {
        let mut end = dotted.len();
        loop {
            if let Some(&f) = self.modules.get(&dotted[..end]) {
                return Some((f, end));
            }
            end = dotted[..end].rfind('.')?;
        }
    }

    /// An imported dotted name. Its top-level package decides: a package of the
    /// repository is internal (for a name the standard library also has, only when the
    /// repository really holds what is imported), else the standard library, else a
    /// module next to the importing script, else a third-party package.
    fn dotted(&self, file: usize, dotted: &str, hops: u32) -> Reached {
        if hops > MAX_HOPS {
            return Reached::Unresolved(format!(
                "import chain longer than {MAX_HOPS} hops (a cycle?) reaching `{dotted}`"
            ));
        }
        let t = top(dotted);
        let stdlib = is_stdlib(t);
        if self.tops.contains(t) {
            let r = self.internal(dotted, hops);
            if !stdlib || !matches!(r, Reached::Unresolved(_)) {
                return r;
            }
        }
        if stdlib {
            return Reached::External {
                kind: RefKind::Stdlib,
                dotted: dotted.to_string(),
            };
        }
        if let Some(s) = self.sibling(file, dotted) {
            return self.internal(&s, hops);
        }
        Reached::External {
            kind: RefKind::ThirdParty,
            dotted: dotted.to_string(),
        }
    }

    /// A dotted name of the repository, strictly: every part must be found.
    fn internal(&self, internal: &str, hops: u32) -> Reached {
        let Some((m, len)) = self.longest_module(internal) else {
            if self.packages.contains(internal) {
                return Reached::Namespace(internal.to_string());
            }
            return Reached::Unresolved(format!("module `{internal}` is not in the repository"));
        };
        if len == internal.len() {
            return Reached::Module { file: m };
        }
        let rest = &internal[len + 1..];
        let (name, more) = rest.split_once('.').unwrap_or((rest, ""));
        let reached = match self.lookup(m, name, hops + 1) {
            Some(r) => r,
            None => match self.external_star(m, name) {
                Some(r) => r,
                None => {
                    return Reached::Unresolved(format!(
                        "`{name}` is not defined in module `{}`",
                        self.module_of(m)
                    ));
                }
            },
        };
        if more.is_empty() {
            return reached;
        }
        match self.descend(reached, more) {
            (r, "") => r,
            (_, left) => Reached::Unresolved(format!("`{left}` is not found in `{internal}`")),
        }
    }

    /// Follows the rest of a chain through modules as far as it leads: `pkg.util` then
    /// `helper` reaches the function `helper` of `pkg/util.py`. Returns what was reached
    /// and the part of the chain left over.
    fn descend<'r>(&self, mut reached: Reached, mut rest: &'r str) -> (Reached, &'r str) {
        while !rest.is_empty() {
            let (head, tail) = rest.split_once('.').unwrap_or((rest, ""));
            let next = match &reached {
                Reached::Module { file } => {
                    let sub = join(self.module_of(*file), head);
                    match self.lookup(*file, head, 0) {
                        Some(Reached::Unresolved(_)) | None => self.module_or_namespace(sub),
                        found => found,
                    }
                }
                Reached::Namespace(d) => self.module_or_namespace(join(d, head)),
                _ => None,
            };
            match next {
                Some(r) => {
                    reached = r;
                    rest = tail;
                }
                None => break,
            }
        }
        (reached, rest)
    }

    fn module_or_namespace(&self, dotted: String) -> Option<Reached> {
        if let Some(&f) = self.modules.get(dotted.as_str()) {
            Some(Reached::Module { file: f })
        } else if self.packages.contains(dotted.as_str()) {
            Some(Reached::Namespace(dotted))
        } else {
            None
        }
    }

    fn finish(&self, reached: Reached, rest: &str) -> Resolution {
        let (reached, rest) = self.descend(reached, rest);
        let internal = |module: String, target: String, path: Option<String>, ty| Resolution {
            kind: RefKind::Internal,
            target_module: Some(module),
            target: Some(target),
            target_path: path,
            target_type: Some(ty),
            reason: None,
        };
        match reached {
            Reached::Def { file, qual, ty } => internal(
                self.module_of(file).to_string(),
                join(&qual, rest),
                Some(self.files[file].0.to_string()),
                ty,
            ),
            Reached::Module { file } => {
                let m = self.module_of(file);
                internal(
                    m.to_string(),
                    join(m, rest),
                    Some(self.files[file].0.to_string()),
                    TargetType::Module,
                )
            }
            Reached::Namespace(d) => internal(d.clone(), join(&d, rest), None, TargetType::Module),
            Reached::External { kind, dotted } => Resolution {
                kind,
                target_module: Some(top(&dotted).to_string()),
                target: Some(join(&dotted, rest)),
                target_path: None,
                target_type: None,
                reason: None,
            },
            Reached::Builtin(dotted) => Resolution {
                kind: RefKind::Builtin,
                target_module: None,
                target: Some(join(&dotted, rest)),
                target_path: None,
                target_type: None,
                reason: None,
            },
            Reached::Unresolved(reason) => Resolution::unresolved(reason),
        }
    }
}
