//! The requirement set of a repository, read from the dependency files crawl recorded
//! (never by running them): `pyproject.toml`, `requirements*.txt`, `setup.cfg`, and the
//! literal lists of a `setup.py`.
//!
//! Only files at the repository root count (a `docs/requirements.txt` is for building
//! documentation, not for running tests). The result is deduplicated and sorted, so that it
//! can key an environment. Requirements on the project itself are dropped (the tree is put on
//! `sys.path` instead; its extras are followed), and so are `pytest` and `coverage`, which
//! every environment gets at the versions freshbench pins.

use std::collections::BTreeSet;
use std::path::Path;

/// Optional-dependency groups (`[project.optional-dependencies]`) that hold test needs.
const EXTRA_GROUPS: &[&str] = &["test", "tests", "testing", "dev"];
/// `[dependency-groups]` (PEP 735) that hold test needs.
const DEPENDENCY_GROUPS: &[&str] = &["test", "tests", "dev"];
/// `[options.extras_require]` keys of a `setup.cfg` that hold test needs.
const CFG_EXTRAS: &[&str] = &["test", "tests", "testing"];
/// Packages every environment gets at freshbench's own pinned versions.
const PINNED_BY_FRESHBENCH: &[&str] = &["pytest", "coverage"];

/// A dependency file: its path relative to the repository root and its text.
#[derive(Debug, Clone, Copy)]
pub struct DepFile<'a> {
    pub path: &'a str,
    pub content: &'a str,
}

/// The sorted, deduplicated requirement strings of a repository named `project`.
pub fn extract(project: &str, files: &[DepFile<'_>]) -> Vec<String> {
    let me = normalize(project);
    let mut reqs: BTreeSet<String> = BTreeSet::new();
    let mut own_extras: BTreeSet<String> = BTreeSet::new();
    let mut pyproject: Option<toml::Table> = None;
    for f in files {
        if f.path.contains('/') {
            continue;
        }
        let name = f.path;
        let found = if name == "pyproject.toml" {
            match f.content.parse::<toml::Table>() {
                Ok(t) => {
                    let r = from_pyproject(&t);
                    pyproject = Some(t);
                    r
                }
                Err(e) => {
                    tracing::debug!(file = name, error = %e, "pyproject.toml does not parse: ignored");
                    Vec::new()
                }
            }
        } else if name == "setup.cfg" {
            from_setup_cfg(f.content)
        } else if name == "setup.py" {
            from_setup_py(f.content)
        } else if is_requirements_txt(name) {
            from_requirements_txt(f.content)
        } else {
            Vec::new()
        };
        for r in found {
            add(&mut reqs, &mut own_extras, &me, &r);
        }
    }
    // `project[tests]` in a group: the project's own extras, from its pyproject.
    let mut seen: BTreeSet<String> = BTreeSet::new();
    while let Some(extra) = own_extras.iter().find(|e| !seen.contains(*e)).cloned() {
        seen.insert(extra.clone());
        if let Some(t) = &pyproject {
            for r in optional_group(t, &extra) {
                add(&mut reqs, &mut own_extras, &me, &r);
            }
        }
    }
    reqs.into_iter().collect()
}

fn add(reqs: &mut BTreeSet<String>, own_extras: &mut BTreeSet<String>, me: &str, r: &str) {
    let r = r.trim().to_string();
    let Some(name) = requirement_name(&r) else {
        return;
    };
    let name = normalize(name);
    if name == me {
        for e in requirement_extras(&r) {
            own_extras.insert(normalize(&e));
        }
        return;
    }
    if PINNED_BY_FRESHBENCH.contains(&name.as_str()) {
        return;
    }
    reqs.insert(r);
}

/// `requirements.txt`, `requirements-test.txt`, `requirements_dev.txt`, ... but not the
/// ones for documentation, linting or type checking.
pub fn is_requirements_txt(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("requirements")
        && Path::new(&lower).extension().is_some_and(|e| e == "txt")
        && !["doc", "lint", "mypy", "typing", "pre-commit", "precommit"]
            .iter()
            .any(|w| lower.contains(w))
}

/// PEP 503 normalization: lower case, runs of `-`, `_`, `.` made one `-`.
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut dash = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !dash {
                out.push('-');
            }
            dash = true;
        } else {
            out.push(c.to_ascii_lowercase());
            dash = false;
        }
    }
    out
}

/// The distribution name at the start of a PEP 508 requirement, if it has one.
pub fn requirement_name(req: &str) -> Option<&str> {
    let req = req.trim_start();
    let end = req
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .map_or(req.len(), |(i, _)| i);
    let name = &req[..end];
    (!name.is_empty() && name.starts_with(|c: char| c.is_ascii_alphanumeric())).then_some(name)
}

fn requirement_extras(req: &str) -> Vec<String> {
    let Some(name) = requirement_name(req) else {
        return Vec::new();
    };
    let rest = req.trim_start()[name.len()..].trim_start();
    let Some(inner) = rest.strip_prefix('[').and_then(|r| r.split(']').next()) else {
        return Vec::new();
    };
    inner
        .split(',')
        .map(|e| e.trim().to_string())
        .filter(|e| !e.is_empty())
        .collect()
}

fn strings(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(toml::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn optional_group(t: &toml::Table, group: &str) -> Vec<String> {
    let Some(groups) = t
        .get("project")
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(toml::Value::as_table)
    else {
        return Vec::new();
    };
    groups
        .iter()
        .filter(|(k, _)| normalize(k) == group)
        .flat_map(|(_, v)| strings(Some(v)))
        .collect()
}

/// `[project] dependencies`, the test and dev extras, and the test and dev dependency
/// groups (`{include-group = ...}` tables are skipped: they name groups, not packages).
pub fn from_pyproject(t: &toml::Table) -> Vec<String> {
    let mut out = strings(t.get("project").and_then(|p| p.get("dependencies")));
    for g in EXTRA_GROUPS {
        out.extend(optional_group(t, g));
    }
    if let Some(groups) = t.get("dependency-groups").and_then(toml::Value::as_table) {
        for (k, v) in groups {
            if DEPENDENCY_GROUPS.contains(&normalize(k).as_str()) {
                out.extend(strings(Some(v)));
            }
        }
    }
    out
}

/// A pip requirements file: one requirement a line; comments, options (`-r`, `-e`, `-c`,
/// `--index-url`, ...), bare URLs and local paths skipped; `\` continues a line.
pub fn from_requirements_txt(text: &str) -> Vec<String> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let line = match line.find(" #").or_else(|| line.find("\t#")) {
            Some(i) => &line[..i],
            None => line,
        };
        // Per-requirement options (`--hash=...`) end the requirement.
        let line = match line.find(" --") {
            Some(i)
                if line
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_alphanumeric()) =>
            {
                &line[..i]
            }
            _ => line,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('-') {
            continue;
        }
        if line.starts_with('.')
            || line.starts_with('/')
            || (line.contains("://") && !line.contains('@'))
        {
            continue;
        }
        if requirement_name(line).is_some() {
            out.push(line.to_string());
        }
    }
    out
}

/// `setup.cfg`: `[options] install_requires` and the test extras of
/// `[options.extras_require]`. A value with several lines is one requirement a line;
/// a one-line value is split at `;` (setuptools' "list-semi").
pub fn from_setup_cfg(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (section, key, value) in ini_entries(text) {
        let wanted = match section.as_str() {
            "options" => key == "install_requires",
            "options.extras_require" => CFG_EXTRAS.contains(&normalize(&key).as_str()),
            _ => false,
        };
        if !wanted {
            continue;
        }
        let items: Vec<&str> = if value.contains('\n') {
            value.lines().collect()
        } else {
            value.split(';').collect()
        };
        for item in items {
            let item = match item.find(" #") {
                Some(i) => &item[..i],
                None => item,
            }
            .trim();
            if !item.is_empty() && !item.starts_with('#') && requirement_name(item).is_some() {
                out.push(item.to_string());
            }
        }
    }
    out
}

/// `(section, key, value)` of an INI file; continuation lines (indented) are joined to
/// the value with newlines.
fn ini_entries(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    let mut section = String::new();
    for raw in text.lines() {
        let trimmed = raw.trim();
        if trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                if !trimmed.is_empty() {
                    if !last.2.is_empty() {
                        last.2.push('\n');
                    }
                    last.2.push_str(trimmed);
                }
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if let Some(s) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s.trim().to_string();
            continue;
        }
        if let Some(i) = trimmed.find(['=', ':']) {
            out.push((
                section.clone(),
                trimmed[..i].trim().to_string(),
                trimmed[i + 1..].trim().to_string(),
            ));
        }
    }
    out
}

/// `setup.py`, not run: the string literals of `install_requires=[...]` and
/// `tests_require=[...]` when written as literal lists.
pub fn from_setup_py(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["install_requires", "tests_require"] {
        let mut rest = text;
        while let Some(i) = rest.find(key) {
            rest = &rest[i + key.len()..];
            let after = rest.trim_start();
            let Some(after) = after.strip_prefix('=') else {
                continue;
            };
            let Some(list) = after.trim_start().strip_prefix('[') else {
                continue;
            };
            let Some(end) = list.find(']') else {
                continue;
            };
            out.extend(string_literals(&list[..end]));
        }
    }
    out
}

/// The contents of the `'...'` and `"..."` literals in `s` (no escapes inside).
fn string_literals(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '#' {
            // a comment runs to the end of the line
            for (_, c2) in chars.by_ref() {
                if c2 == '\n' {
                    break;
                }
            }
            continue;
        }
        if c == '\'' || c == '"' {
            let start = i + 1;
            let mut end = None;
            for (j, c2) in chars.by_ref() {
                if c2 == c {
                    end = Some(j);
                    break;
                }
            }
            if let Some(end) = end {
                let lit = s[start..end].trim();
                if requirement_name(lit).is_some() {
                    out.push(lit.to_string());
                }
            }
        }
    }
    out
}
