//! The text of a task: the reference solution (the function with the imports it uses, as a
//! module of its own) and the prompt (imports, signature and docstring; for a function
//! without a docstring, one built from its signature and a few of its cases).

use std::collections::{BTreeMap, BTreeSet};

use schemas::{Function, RefKind, Reference};

/// The imports that bind the names a function takes from the standard library and
/// third-party packages, rebuilt from resolve's references: `import re`,
/// `import numpy as np`, `from itertools import chain`, `import collections.abc as cabc`.
pub fn imports(refs: &[&Reference]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for (name, binding) in bindings(refs) {
        let line = match binding.rsplit_once('.') {
            None if binding == name => format!("import {binding}"),
            None => format!("import {binding} as {name}"),
            Some((parent, last)) if last == name => format!("from {parent} import {last}"),
            Some((parent, last)) => format!("from {parent} import {last} as {name}"),
        };
        out.insert(line);
    }
    out.into_iter().collect()
}

/// What each imported name a function uses is bound to (`isnan` to `math.isnan` after
/// `from math import isnan`, `np` to `numpy`): standard-library and third-party names, the
/// target minus what the chain adds after the name.
pub fn bindings(refs: &[&Reference]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for r in refs {
        if !matches!(r.kind, RefKind::Stdlib | RefKind::ThirdParty) {
            continue;
        }
        let Some(target) = r.target.as_deref() else {
            continue;
        };
        let suffix = r.chain.strip_prefix(r.name.as_str()).unwrap_or("");
        let binding = target
            .strip_suffix(suffix)
            .filter(|b| !b.is_empty())
            .unwrap_or(target);
        out.entry(r.name.clone())
            .or_insert_with(|| binding.to_string());
    }
    out
}

/// Why a function cannot stand alone as a module (the task's rejection reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotStandalone(pub String);

impl From<String> for NotStandalone {
    fn from(s: String) -> NotStandalone {
        NotStandalone(s)
    }
}

impl From<&str> for NotStandalone {
    fn from(s: &str) -> NotStandalone {
        NotStandalone(s.to_string())
    }
}

/// A function's source as a module of its own: dedented (a static method's body sits
/// under its class), `@staticmethod` dropped. `Err` for what cannot stand alone.
pub fn standalone_source(f: &Function) -> Result<String, NotStandalone> {
    if f.is_nested {
        return Err("nested: a function defined inside another needs its closure".into());
    }
    let is_static = f.decorators.iter().any(|d| d == "staticmethod");
    if f.is_method && !is_static {
        return Err("method: needs an instance or class of the repository".into());
    }
    let lines: Vec<&str> = f.source.lines().collect();
    // The source starts at the first decorator (or `def`), so its first line carries no
    // indentation; the others carry the definition's column: that of the `def` line.
    let def_line = lines
        .iter()
        .skip(1)
        .find(|l| {
            let t = l.trim_start();
            t.starts_with("def ") || t.starts_with("async def ")
        })
        .copied();
    let indent = if lines
        .first()
        .is_some_and(|l| l.starts_with("def ") || l.starts_with("async def "))
    {
        // Without decorators: the body's lines tell the column only relative to the def;
        // a top-level function's body lines are indented by 4 or more, a method's by 8.
        f.start_byte_column()
    } else {
        def_line.map_or(0, |l| l.len() - l.trim_start().len())
    };
    let mut out = String::with_capacity(f.source.len());
    for (i, line) in lines.iter().enumerate() {
        let line = if i == 0 {
            *line
        } else if line.len() >= indent && line[..indent].trim().is_empty() {
            &line[indent..]
        } else {
            line.trim_start()
        };
        if is_static && line.trim() == "@staticmethod" {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// The column of a function's first line in its file, which its source does not carry.
trait Column {
    fn start_byte_column(&self) -> usize;
}

impl Column for Function {
    fn start_byte_column(&self) -> usize {
        if !self.is_method {
            return 0;
        }
        // A method without decorators (a static method always has one, so this is rare):
        // the body's smallest indentation minus one level.
        let body_min = self
            .source
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(4);
        body_min.saturating_sub(4)
    }
}

/// The module text of the reference solution: imports, two blank lines, the function.
/// Returns the text and the byte offset where the function starts.
pub fn canonical(imports: &[String], function: &str) -> (String, usize) {
    let mut text = String::new();
    for i in imports {
        text.push_str(i);
        text.push('\n');
    }
    if !imports.is_empty() {
        text.push_str("\n\n");
    }
    let offset = text.len();
    text.push_str(function);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    (text, offset)
}

/// The prompt when the function has a docstring: the canonical text up to the end of the
/// docstring (imports, decorators, signature, docstring).
pub fn docstring_prompt(canonical: &str, offset: usize, docstring_end: usize) -> String {
    let mut p = canonical[..offset + docstring_end].to_string();
    p.push('\n');
    p
}

/// The prompt for a function without a docstring: its header followed by a docstring
/// built from examples (`>>> f(1, 'a')` and what the original gave).
pub fn synthesized_prompt(
    canonical: &str,
    offset: usize,
    body_start: usize,
    examples: &[(String, String)],
) -> String {
    let mut p = canonical[..offset + body_start].to_string();
    p.push('\n');
    let ind = "    ";
    p.push_str(ind);
    p.push_str("\"\"\"Behave as these examples show.\n\n");
    for (call, result) in examples {
        for (i, line) in call.lines().enumerate() {
            p.push_str(ind);
            p.push_str(if i == 0 { ">>> " } else { "... " });
            p.push_str(&escape_doc(line));
            p.push('\n');
        }
        for line in result.lines() {
            p.push_str(ind);
            p.push_str(&escape_doc(line));
            p.push('\n');
        }
    }
    p.push_str(ind);
    p.push_str("\"\"\"\n");
    p
}

/// Text safe inside a `"""` docstring: backslashes doubled, quotes that would end it escaped.
fn escape_doc(s: &str) -> String {
    s.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(name: &str, chain: &str, target: &str) -> Reference {
        Reference {
            function_id: "f".into(),
            repo_id: "r".into(),
            name: name.into(),
            chain: chain.into(),
            kind: RefKind::Stdlib,
            target_module: target.split('.').next().map(str::to_string),
            target: Some(target.into()),
            target_path: None,
            target_type: None,
            is_call: true,
            is_store: false,
            count: 1,
            line: 1,
            reason: None,
        }
    }

    #[test]
    fn imports_are_rebuilt_from_references() {
        let refs = [
            reference("re", "re.compile", "re.compile"),
            reference("cabc", "cabc.Sequence", "collections.abc.Sequence"),
            reference(
                "chain",
                "chain.from_iterable",
                "itertools.chain.from_iterable",
            ),
            reference("np", "np.array", "numpy.array"),
            reference("C", "C", "collections.Counter"),
            reference("os", "os.path.join", "os.path.join"),
        ];
        let refs: Vec<&Reference> = refs.iter().collect();
        assert_eq!(
            imports(&refs),
            vec![
                "from collections import Counter as C",
                "from collections import abc as cabc",
                "from itertools import chain",
                "import numpy as np",
                "import os",
                "import re",
            ]
        );
    }

    #[test]
    fn prompts() {
        let f = "def f(x):\n    \"\"\"Doubles.\"\"\"\n    return 2 * x\n";
        let (text, off) = canonical(&["import re".into()], f);
        let a = crate::usage::analyze(f, &["x".into()]).unwrap();
        assert_eq!(
            docstring_prompt(&text, off, a.docstring_end.unwrap()),
            "import re\n\n\ndef f(x):\n    \"\"\"Doubles.\"\"\"\n"
        );
        let g = "def g(x): return x\n";
        let (text, off) = canonical(&[], g);
        let a = crate::usage::analyze(g, &["x".into()]).unwrap();
        let p = synthesized_prompt(&text, off, a.body_start, &[("g(1)".into(), "1".into())]);
        assert_eq!(p, "def g(x):\n    \"\"\"Behave as these examples show.\n\n    >>> g(1)\n    1\n    \"\"\"\n");
    }
}
