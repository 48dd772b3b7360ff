//! Unit tests on inline Python snippets: scoping ([`scopes`]), functions and their metrics
//! ([`functions`]), import resolution ([`resolution`]) and span properties ([`props`]).

mod functions;
mod props;
mod resolution;
mod scopes;

use crate::{
    analyze_file, resolve_repo, Binding, FileAnalysis, FreeName, FunctionInfo, Resolution,
};

/// Removes the common indentation of a snippet (and its first line if empty).
pub(crate) fn dedent(s: &str) -> String {
    let s = s.strip_prefix('\n').unwrap_or(s);
    let margin = s
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    s.lines()
        .map(|l| l.get(margin..).unwrap_or("").trim_end())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Analyzes a snippet as module `m`.
pub(crate) fn analyze(src: &str) -> FileAnalysis {
    analyze_file(&dedent(src), "m", false).expect("analysis")
}

pub(crate) fn func<'a>(a: &'a FileAnalysis, qualname: &str) -> &'a FunctionInfo {
    a.functions
        .iter()
        .find(|f| f.qualname == qualname)
        .unwrap_or_else(|| {
            panic!(
                "no function {qualname}; have {:?}",
                a.functions.iter().map(|f| &f.qualname).collect::<Vec<_>>()
            )
        })
}

/// The chains of a function's free names, in order.
pub(crate) fn chains(a: &FileAnalysis, qualname: &str) -> Vec<String> {
    func(a, qualname)
        .free_names
        .iter()
        .map(|n| n.chain.clone())
        .collect()
}

pub(crate) fn free<'a>(a: &'a FileAnalysis, qualname: &str, chain: &str) -> &'a FreeName {
    func(a, qualname)
        .free_names
        .iter()
        .find(|n| n.chain == chain)
        .unwrap_or_else(|| {
            panic!(
                "{qualname} has no free name {chain}; has {:?}",
                chains(a, qualname)
            )
        })
}

pub(crate) fn binding(a: &FileAnalysis, qualname: &str, chain: &str) -> Binding {
    free(a, qualname, chain).binding.clone()
}

/// Resolves a repository of `(path, snippet)` files and returns the resolution of `chain`
/// in function `qualname` of file `path`.
pub(crate) fn resolve_in(
    files: &[(&str, &str)],
    path: &str,
    qualname: &str,
    chain: &str,
) -> Resolution {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, s)| ((*p).to_string(), dedent(s)))
        .collect();
    let resolved = resolve_repo(&files).expect("resolve");
    let file = resolved.iter().find(|f| f.path == path).expect("file");
    let (fi, f) = file
        .analysis
        .functions
        .iter()
        .enumerate()
        .find(|(_, f)| f.qualname == qualname)
        .expect("function");
    let ni = f
        .free_names
        .iter()
        .position(|n| n.chain == chain)
        .unwrap_or_else(|| panic!("no chain {chain} in {qualname}: {:?}", f.free_names));
    file.resolutions[fi][ni].clone()
}
