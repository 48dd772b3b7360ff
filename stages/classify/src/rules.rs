//! The rules: one function and the references it makes in, its class and reasons out.

use schemas::{Function, RefKind, Reference};

use crate::config::Config;

/// The four classes of DESIGN.md.
pub use schemas::FunctionClass as Class;

/// The verdict on one function.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub class: Class,
    /// Every rejection reason that applies (also kept for repo-dependent functions, where
    /// they matter to the function family only).
    pub reasons: Vec<String>,
    pub libraries: Vec<String>,
    pub internal_deps: Vec<String>,
}

fn matches(target: &str, prefix: &str) -> bool {
    target == prefix
        || (target.len() > prefix.len()
            && target.starts_with(prefix)
            && target.as_bytes()[prefix.len()] == b'.')
}

/// What a resolved target is to the classifier: the longest matching prefix wins.
enum Use<'a> {
    Allowed(&'a str),
    Effect(&'a str),
    Other,
}

fn judge<'a>(config: &'a Config, target: &str) -> Use<'a> {
    let mut best: (usize, Use<'a>) = (0, Use::Other);
    for p in &config.libraries.allowed {
        if matches(target, p) && p.len() > best.0 {
            best = (p.len(), Use::Allowed(p));
        }
    }
    for (reason, prefixes) in &config.effects {
        for p in prefixes {
            if matches(target, p) && p.len() > best.0 {
                best = (p.len(), Use::Effect(reason));
            }
        }
    }
    best.1
}

fn push(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// Splits an annotation's text into the dotted names it mentions. A string annotation
/// (`"Account"`, a forward reference) names what it contains; strings inside an
/// annotation (`Literal["left", "right"]`) are values, not names.
fn annotation_names(text: &str) -> Vec<&str> {
    let t = text.trim();
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if t.len() >= 2 * q.len()
            && t.starts_with(q)
            && t.ends_with(q)
            && !t[q.len()..t.len() - q.len()].contains(q)
        {
            return annotation_names(&t[q.len()..t.len() - q.len()]);
        }
    }
    let mut out = Vec::new();
    let bytes = t.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'"' || c == b'\'' {
            // Skip the string literal, escapes included.
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
            {
                i += 1;
            }
            out.push(t[start..i].trim_end_matches('.'));
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

fn generatable(config: &Config, name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    config
        .types
        .generatable
        .iter()
        .any(|g| g == name || g == last || matches(name, g))
}

fn decorator_name(text: &str) -> &str {
    text.split('(').next().unwrap_or(text).trim()
}

/// Classifies one function given its references.
pub fn classify(config: &Config, f: &Function, refs: &[&Reference]) -> Verdict {
    let mut reasons = Vec::new();
    let mut libraries = Vec::new();
    let mut internal_deps = Vec::new();
    let limits = &config.limits;

    if f.has_syntax_error {
        push(&mut reasons, "syntax_error".into());
    }
    let is_static = f
        .decorators
        .iter()
        .any(|d| matches!(decorator_name(d), "staticmethod"));
    if f.is_method && !is_static {
        push(&mut reasons, "method".into());
    }
    if f.is_nested {
        push(&mut reasons, "nested".into());
    }
    if f.is_async {
        push(&mut reasons, "coroutine".into());
    }
    if f.is_generator {
        push(&mut reasons, "generator".into());
    } else if !f.returns_value {
        push(&mut reasons, "no_return_value".into());
    }
    if f.writes_globals {
        push(&mut reasons, "side_effect:writes_globals".into());
    }
    let params: Vec<_> = f
        .params
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            !(f.is_method && !is_static && *i == 0 && (p.name == "self" || p.name == "cls"))
        })
        .map(|(_, p)| p)
        .collect();
    if params.is_empty() {
        push(&mut reasons, "no_parameters".into());
    }
    if params.len() > limits.max_params {
        push(
            &mut reasons,
            format!("too_many_parameters:{}", params.len()),
        );
    }
    for p in &params {
        if let Some(ann) = &p.annotation {
            for name in annotation_names(ann) {
                if !generatable(config, name) {
                    push(
                        &mut reasons,
                        format!("ungeneratable_param:{}:{name}", p.name),
                    );
                }
            }
        }
    }
    if !f.has_syntax_error && !f.is_generator {
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        let shape = crate::shape::shape(&f.source, &names);
        if shape.returns_function {
            push(&mut reasons, "returns_function".into());
        }
        for m in shape.fs_writes {
            push(&mut reasons, format!("side_effect:io:.{m}()"));
        }
        for (param, attr) in shape.object_params {
            let annotated = params
                .iter()
                .any(|p| p.name == param && p.annotation.is_some());
            // An annotated parameter is judged by its annotation (`ungeneratable_param`).
            if !annotated {
                push(&mut reasons, format!("object_param:{param}.{attr}"));
            }
        }
    }
    for d in &f.decorators {
        let name = decorator_name(d);
        if !config.decorators.transparent.iter().any(|t| t == name)
            && !matches!(name, "classmethod" | "property")
        {
            push(&mut reasons, format!("decorator:{name}"));
        }
    }
    if f.lines < limits.min_lines {
        push(&mut reasons, format!("too_short:{}", f.lines));
    }
    if f.lines > limits.max_lines {
        push(&mut reasons, format!("too_long:{}", f.lines));
    }
    if f.complexity > limits.max_complexity {
        push(&mut reasons, format!("too_complex:{}", f.complexity));
    }

    for r in refs {
        let target = r.target.as_deref().unwrap_or(&r.chain);
        if r.is_store {
            push(
                &mut reasons,
                format!("side_effect:writes_globals:{}", r.name),
            );
        }
        match r.kind {
            RefKind::Internal => {
                // A closure variable of an enclosing function is not code of the repository.
                if !is_closure_variable(f, target) {
                    push(&mut internal_deps, target.to_string());
                }
            }
            RefKind::Unresolved => push(&mut reasons, format!("unresolved:{}", r.chain)),
            RefKind::Builtin | RefKind::Stdlib | RefKind::ThirdParty => match judge(config, target)
            {
                Use::Effect(reason) => {
                    push(&mut reasons, format!("{}:{target}", effect_code(reason)));
                }
                Use::Allowed(lib) => push(&mut libraries, lib.to_string()),
                Use::Other if r.kind == RefKind::Builtin => {}
                Use::Other => {
                    let top = r.target_module.as_deref().unwrap_or(&r.name);
                    push(&mut reasons, format!("library_not_allowed:{top}"));
                }
            },
        }
    }

    let class = if reasons.iter().any(|r| r == "syntax_error") {
        Class::Rejected
    } else if !internal_deps.is_empty() {
        Class::RepoDependent
    } else if !reasons.is_empty() {
        Class::Rejected
    } else if !libraries.is_empty() {
        Class::WeaklySelfContained
    } else {
        Class::SelfContained
    };
    Verdict {
        class,
        reasons,
        libraries,
        internal_deps,
    }
}

/// `module.<enclosing qualname>.name` where the function is nested (at any depth) in that
/// enclosing function: a closure variable, not code of the repository.
fn is_closure_variable(f: &Function, target: &str) -> bool {
    if !f.is_nested {
        return false;
    }
    let Some(rest) = target
        .strip_prefix(f.module.as_str())
        .and_then(|r| r.strip_prefix('.'))
    else {
        return false;
    };
    let Some((owner, _name)) = rest.rsplit_once('.') else {
        return false;
    };
    f.qualname.starts_with(&format!("{owner}.<locals>."))
}

fn effect_code(reason: &str) -> String {
    match reason {
        "randomness" | "clock" => reason.to_string(),
        other => format!("side_effect:{other}"),
    }
}

#[cfg(test)]
mod tests;
