//! Phase two of the analysis: Python's scoping rules applied to the uses the walk found.
//! Each use is bound to the scope that defines its name (a name bound anywhere in a
//! function is local throughout it; `global`/`nonlocal` redirect; class bodies are not
//! seen from the functions inside them), and is a free name of every function between
//! the use and that scope, and of the function whose header holds it.

use std::collections::HashMap;

use crate::model::{Binding, FreeName, TargetType};
use crate::walk::{BindWhat, Scope, ScopeKind, Use, Walk, NONE};

/// The scope whose binding `u` reads or writes; 0 (the module) for globals and for names
/// bound nowhere in the file (builtins or undefined).
fn binding_scope(scopes: &[Scope<'_>], u: &Use<'_>) -> u32 {
    let mut s = u.scope;
    let mut first = true;
    loop {
        let sc = &scopes[s as usize];
        if sc.kind == ScopeKind::Module || sc.globals.contains(&u.name) {
            return 0;
        }
        let skip = sc.nonlocals.contains(&u.name) || (sc.kind == ScopeKind::Class && !first);
        if !skip && sc.bindings.contains_key(u.name) {
            return s;
        }
        first = false;
        s = sc.parent;
    }
}

fn binding_of(
    walk_scopes: &[Scope<'_>],
    imports: &[crate::model::ImportTarget],
    b: u32,
    name: &str,
) -> Binding {
    if b == 0 {
        return Binding::Global;
    }
    let sc = &walk_scopes[b as usize];
    let target_type = match sc.bindings.get(name) {
        Some(BindWhat::Import(i)) => return Binding::EnclosingImport(imports[*i as usize].clone()),
        Some(BindWhat::Function) => TargetType::Function,
        Some(BindWhat::Class) => TargetType::Class,
        Some(BindWhat::Variable) | None => TargetType::Variable,
    };
    let qualname = if sc.qualname.is_empty() {
        "<lambda>".to_string()
    } else {
        sc.qualname.clone()
    };
    Binding::Enclosing {
        qualname,
        target_type,
    }
}

/// Fills every function's free names (ordered by chain) and `writes_globals`.
pub(crate) fn attribute_uses(walk: &mut Walk<'_>) {
    let Walk {
        scopes,
        uses,
        functions,
        imports,
        ..
    } = walk;
    let mut index: HashMap<(u32, &str), usize> = HashMap::new();
    for u in uses.iter() {
        let b = binding_scope(scopes, u);
        let header_parent = if u.header == NONE {
            NONE
        } else {
            scopes[functions[u.header as usize].1 as usize].parent
        };
        let mut header_seen = false;
        let mut s = u.scope;
        let mut add = |f: u32| {
            let list = &mut functions[f as usize].0.free_names;
            if let Some(&i) = index.get(&(f, u.chain.as_ref())) {
                let n = &mut list[i];
                n.count += 1;
                n.line = n.line.min(u.line);
                n.is_call |= u.call;
                n.is_store |= u.store;
            } else {
                index.insert((f, u.chain.as_ref()), list.len());
                list.push(FreeName {
                    name: u.name.to_string(),
                    chain: u.chain.to_string(),
                    count: 1,
                    line: u.line,
                    is_call: u.call,
                    is_store: u.store,
                    binding: binding_of(scopes, imports, b, u.name),
                });
            }
        };
        loop {
            if s == header_parent {
                header_seen = true;
            }
            if s == b {
                // A name a function imports itself (`import getpass` in its body) is still
                // code from elsewhere: it is a reference of that function too.
                let sc = &scopes[s as usize];
                if sc.kind == ScopeKind::Function
                    && matches!(sc.bindings.get(u.name), Some(BindWhat::Import(_)))
                {
                    add(sc.func);
                }
                break;
            }
            let sc = &scopes[s as usize];
            if sc.kind == ScopeKind::Function {
                add(sc.func);
            }
            if sc.kind == ScopeKind::Module {
                break;
            }
            s = sc.parent;
        }
        if header_seen {
            add(u.header);
        }
        if u.store {
            let sc = &scopes[u.scope as usize];
            if sc.kind == ScopeKind::Function {
                functions[sc.func as usize].0.writes_globals = true;
            }
        }
    }
    for (f, _) in functions.iter_mut() {
        f.free_names.sort_by(|a, b| a.chain.cmp(&b.chain));
    }
}
