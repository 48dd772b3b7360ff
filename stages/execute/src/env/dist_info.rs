//! The `.dist-info` that stands for the project being installed, made from its own
//! metadata files as crawl recorded them, without running its build:
//!
//! - `METADATA`: the sdist's `PKG-INFO` (an `*.egg-info/PKG-INFO` when the root has none),
//!   with the name and version freshbench knows; else what `pyproject.toml`'s `[project]`
//!   declares (summary, `Requires-Python`, `Requires-Dist`, `Provides-Extra`);
//! - `entry_points.txt`: every group found in, by precedence for a name given twice, an
//!   `*.egg-info/entry_points.txt` (what the project's own build wrote), `pyproject.toml`
//!   (`[project.scripts]`, `[project.gui-scripts]`, `[project.entry-points.*]`, and
//!   Poetry's and flit's own tables), `setup.cfg` (`[options.entry_points]`), and a
//!   `setup.py` whose `entry_points=` is a literal dict (of lists or INI text) — read as
//!   text, never run; anything else there is passed over.
//!
//! Plugins that pytest, or the project itself, discover through entry points are then
//! found as they are after `pip install .`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::requirements::{ini_entries, normalize};

/// Entry points by group, each group's `(name, value)` pairs in the order found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryPoints {
    groups: BTreeMap<String, Vec<(String, String)>>,
}

impl EntryPoints {
    /// Adds one entry point unless the group already has one of that name.
    fn add(&mut self, group: &str, name: &str, value: &str) {
        let (group, name, value) = (group.trim(), name.trim(), value.trim());
        if group.is_empty() || name.is_empty() || value.is_empty() {
            return;
        }
        let entries = self.groups.entry(group.to_string()).or_default();
        if !entries.iter().any(|(n, _)| n == name) {
            entries.push((name.to_string(), value.to_string()));
        }
    }

    /// Adds the `name = value` lines of `text` to `group`.
    fn add_lines(&mut self, group: &str, text: &str) {
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with(['#', ';']) {
                continue;
            }
            if let Some((name, value)) = line.split_once('=') {
                self.add(group, name, value);
            }
        }
    }

    /// Adds an INI text of `[group]` sections of `name = value` lines (the format of
    /// `entry_points.txt` itself).
    fn add_ini(&mut self, text: &str) {
        let mut group = String::new();
        for line in text.lines() {
            let t = line.trim();
            if let Some(g) = t.strip_prefix('[').and_then(|g| g.strip_suffix(']')) {
                g.trim().clone_into(&mut group);
            } else if !group.is_empty() {
                self.add_lines(&group.clone(), t);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The `entry_points.txt` text: groups in name order, entries in the order found.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (group, entries) in &self.groups {
            out.push('[');
            out.push_str(group);
            out.push_str("]\n");
            for (name, value) in entries {
                out.push_str(name);
                out.push_str(" = ");
                out.push_str(value);
                out.push('\n');
            }
            out.push('\n');
        }
        out
    }

    /// The entries of one group.
    pub fn group(&self, name: &str) -> &[(String, String)] {
        self.groups.get(name).map_or(&[], Vec::as_slice)
    }
}

/// The `*.egg-info` file named `file` of the project `name` (the folder whose name
/// matches it, else the shallowest one), among `files`.
fn egg_info<'a>(name: &str, file: &str, files: &[(&'a str, &'a str)]) -> Option<&'a str> {
    let me = normalize(name);
    let mut found: Vec<(bool, usize, &str, &str)> = files
        .iter()
        .filter_map(|(path, text)| {
            let (dir, base) = path.rsplit_once('/')?;
            let folder = dir.rsplit('/').next()?;
            let stem = folder.strip_suffix(".egg-info")?;
            (base == file).then(|| {
                (
                    normalize(stem) != me,
                    dir.matches('/').count(),
                    *path,
                    *text,
                )
            })
        })
        .collect();
    found.sort_unstable();
    found.first().map(|(_, _, _, text)| *text)
}

/// The entry points of a project from its recorded `(path, text)` files.
pub fn entry_points(name: &str, files: &[(&str, &str)]) -> EntryPoints {
    let mut eps = EntryPoints::default();
    let at_root = |p: &str| files.iter().find(|(path, _)| *path == p).map(|(_, t)| *t);
    if let Some(text) = egg_info(name, "entry_points.txt", files) {
        eps.add_ini(text);
    }
    if let Some(t) = at_root("pyproject.toml").and_then(|t| t.parse::<toml::Table>().ok()) {
        from_pyproject(&t, &mut eps);
    }
    if let Some(text) = at_root("setup.cfg") {
        for (section, group, value) in ini_entries(text) {
            if section == "options.entry_points" {
                eps.add_lines(&group, &value);
            }
        }
    }
    if let Some(text) = at_root("setup.py") {
        from_setup_py(text, &mut eps);
    }
    eps
}

fn from_pyproject(t: &toml::Table, eps: &mut EntryPoints) {
    let table = |v: Option<&toml::Value>| v.and_then(toml::Value::as_table).cloned();
    let project = t.get("project");
    let tool = t.get("tool");
    let add_table = |eps: &mut EntryPoints, group: &str, tab: Option<toml::Table>| {
        for (name, v) in tab.iter().flatten() {
            match v {
                toml::Value::String(s) => eps.add(group, name, s),
                // Poetry: `name = { reference = "pkg:main", type = "console" }` or
                // `{ callable = "pkg:main" }`.
                toml::Value::Table(x) => {
                    if let Some(s) = x
                        .get("callable")
                        .or_else(|| x.get("reference"))
                        .and_then(toml::Value::as_str)
                    {
                        eps.add(group, name, s);
                    }
                }
                _ => {}
            }
        }
    };
    add_table(
        eps,
        "console_scripts",
        table(project.and_then(|p| p.get("scripts"))),
    );
    add_table(
        eps,
        "gui_scripts",
        table(project.and_then(|p| p.get("gui-scripts"))),
    );
    let groups = [
        table(project.and_then(|p| p.get("entry-points"))),
        table(
            tool.and_then(|x| x.get("poetry"))
                .and_then(|p| p.get("plugins")),
        ),
        table(
            tool.and_then(|x| x.get("flit"))
                .and_then(|p| p.get("entrypoints")),
        ),
    ];
    for g in groups.into_iter().flatten() {
        for (group, entries) in g {
            add_table(eps, &group, entries.as_table().cloned());
        }
    }
    add_table(
        eps,
        "console_scripts",
        table(
            tool.and_then(|x| x.get("poetry"))
                .and_then(|p| p.get("scripts")),
        ),
    );
    add_table(
        eps,
        "console_scripts",
        table(
            tool.and_then(|x| x.get("flit"))
                .and_then(|p| p.get("scripts")),
        ),
    );
}

/// A token of the literal that follows `entry_points=` in a `setup.py`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Str(String),
    Punct(char),
}

/// The Python string literal (`'...'`, `"..."`, or triple-quoted) that starts at byte `i` of
/// `text`: its contents and the byte after it; `None` for one with an escape, a prefix or
/// no end.
fn string_at(text: &str, i: usize) -> Option<(String, usize)> {
    let q = *text.as_bytes().get(i)? as char;
    if q != '\'' && q != '"' {
        return None;
    }
    let fence: String = std::iter::repeat_n(q, 3).collect();
    let triple = text[i..].starts_with(&fence);
    let (start, close) = if triple {
        let start = i + 3;
        (start, start + text[start..].find(&fence)?)
    } else {
        let start = i + 1;
        let end = start + text[start..].find([q, '\n', '\\'])?;
        if text.as_bytes()[end] as char != q {
            return None;
        }
        (start, end)
    };
    let body = &text[start..close];
    if body.contains('\\') {
        return None;
    }
    let after = close + if triple { 3 } else { 1 };
    Some((body.to_string(), after))
}

/// Tokens of a Python literal made of strings (adjacent ones joined), `{}`, `[]`, `()`,
/// `:` and `,`, up to the end of the outermost bracket; `None` at anything else (a name, a
/// call, an f-string), which makes the literal one not read.
fn literal_tokens(text: &str) -> Option<Vec<Tok>> {
    let mut toks = Vec::new();
    let mut depth = 0usize;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        match c {
            ' ' | '\t' | '\r' | '\n' => i += 1,
            '#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            '{' | '[' | '(' => {
                depth += 1;
                toks.push(Tok::Punct(c));
                i += 1;
            }
            '}' | ']' | ')' => {
                depth = depth.checked_sub(1)?;
                toks.push(Tok::Punct(c));
                i += 1;
                if depth == 0 {
                    return Some(toks);
                }
            }
            ':' | ',' => {
                toks.push(Tok::Punct(c));
                i += 1;
            }
            '\'' | '"' => {
                let (s, after) = string_at(text, i)?;
                match toks.last_mut() {
                    Some(Tok::Str(prev)) => prev.push_str(&s),
                    _ => toks.push(Tok::Str(s)),
                }
                i = after;
            }
            _ => return None,
        }
    }
    None
}

/// `entry_points={"group": ["name = value", ...], ...}` (or the group's entries as one
/// INI text, or the whole value as INI text) in a `setup.py`.
fn from_setup_py(text: &str, eps: &mut EntryPoints) {
    let mut rest = text;
    while let Some(i) = rest.find("entry_points") {
        rest = &rest[i + "entry_points".len()..];
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        if value.starts_with(['\'', '"']) {
            // The INI text form.
            if let Some((s, _)) = string_at(value, 0) {
                eps.add_ini(&s);
            }
            continue;
        }
        if !value.starts_with('{') {
            continue;
        }
        let Some(toks) = literal_tokens(value) else {
            continue;
        };
        let mut k = 1; // after `{`
        while k < toks.len() {
            let (Some(Tok::Str(group)), Some(Tok::Punct(':'))) = (toks.get(k), toks.get(k + 1))
            else {
                break;
            };
            k += 2;
            match toks.get(k) {
                Some(Tok::Str(s)) => {
                    eps.add_lines(group, s);
                    k += 1;
                }
                Some(Tok::Punct('[' | '(')) => {
                    k += 1;
                    while let Some(t) = toks.get(k) {
                        match t {
                            Tok::Str(s) => eps.add_lines(group, s),
                            Tok::Punct(']' | ')') => break,
                            Tok::Punct(_) => {}
                        }
                        k += 1;
                    }
                    k += 1;
                }
                _ => break,
            }
            if toks.get(k) == Some(&Tok::Punct(',')) {
                k += 1;
            }
        }
    }
}

/// The `METADATA` text of the project `name` at `version`: its `PKG-INFO` (the root's,
/// else its egg-info's) with `Name` and `Version` set to these, else the core metadata its
/// `pyproject.toml` declares, else only the name and version.
pub fn metadata(name: &str, version: &str, files: &[(&str, &str)]) -> String {
    let root_pkg_info = files
        .iter()
        .find(|(p, _)| *p == "PKG-INFO")
        .map(|(_, t)| *t);
    if let Some(text) = root_pkg_info.or_else(|| egg_info(name, "PKG-INFO", files)) {
        return from_pkg_info(name, version, text);
    }
    let mut out = format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n");
    let pyproject = files
        .iter()
        .find(|(p, _)| *p == "pyproject.toml")
        .and_then(|(_, t)| t.parse::<toml::Table>().ok());
    if let Some(project) = pyproject
        .as_ref()
        .and_then(|t| t.get("project"))
        .and_then(toml::Value::as_table)
    {
        let text = |k: &str| project.get(k).and_then(toml::Value::as_str);
        if let Some(s) = text("description") {
            let _ = writeln!(out, "Summary: {}", s.replace('\n', " "));
        }
        if let Some(s) = text("requires-python") {
            let _ = writeln!(out, "Requires-Python: {s}");
        }
        let list = |v: Option<&toml::Value>| -> Vec<String> {
            v.and_then(toml::Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        for r in list(project.get("dependencies")) {
            let _ = writeln!(out, "Requires-Dist: {r}");
        }
        if let Some(extras) = project
            .get("optional-dependencies")
            .and_then(toml::Value::as_table)
        {
            for (extra, reqs) in extras {
                let _ = writeln!(out, "Provides-Extra: {extra}");
                for r in list(Some(reqs)) {
                    let (req, marker) = r.split_once(';').unwrap_or((&r, ""));
                    let marker = marker.trim();
                    let clause = format!("extra == \"{extra}\"");
                    let marker = if marker.is_empty() {
                        clause
                    } else {
                        format!("({marker}) and {clause}")
                    };
                    let _ = writeln!(out, "Requires-Dist: {}; {marker}", req.trim());
                }
            }
        }
    }
    out
}

/// `PKG-INFO` with `Name` and `Version` set to `name` and `version` (placed first, after
/// `Metadata-Version`), every other header and the description kept.
fn from_pkg_info(name: &str, version: &str, text: &str) -> String {
    let (head, body) = match text.find("\n\n") {
        Some(i) => (&text[..i], Some(&text[i + 2..])),
        None => (text.trim_end_matches('\n'), None),
    };
    let mut meta_version = "2.1".to_string();
    let mut kept: Vec<&str> = Vec::new();
    let mut skipping = false;
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            if !skipping {
                kept.push(line);
            }
            continue;
        }
        let key = line.split_once(':').map_or("", |(k, _)| k.trim());
        skipping = false;
        if key.eq_ignore_ascii_case("metadata-version") {
            line.split_once(':')
                .map_or("2.1", |(_, v)| v.trim())
                .clone_into(&mut meta_version);
            skipping = true;
        } else if key.eq_ignore_ascii_case("name") || key.eq_ignore_ascii_case("version") {
            skipping = true;
        } else {
            kept.push(line);
        }
    }
    let mut out = format!("Metadata-Version: {meta_version}\nName: {name}\nVersion: {version}\n");
    for line in kept {
        out.push_str(line);
        out.push('\n');
    }
    if let Some(body) = body {
        out.push('\n');
        out.push_str(body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkg_info_is_the_metadata_with_our_name_and_version() {
        let pkg = "Metadata-Version: 2.4\nName: demo\nVersion: 1.0.dev0\nSummary: A demo\nRequires-Dist: attrs>=22\nClassifier: A ::\n  B\n\n# Demo\nlong text\n";
        let m = metadata("Demo", "1.0", &[("PKG-INFO", pkg)]);
        assert_eq!(
            m,
            "Metadata-Version: 2.4\nName: Demo\nVersion: 1.0\nSummary: A demo\nRequires-Dist: attrs>=22\nClassifier: A ::\n  B\n\n# Demo\nlong text\n"
        );
        let egg = metadata(
            "demo",
            "2",
            &[(
                "src/demo.egg-info/PKG-INFO",
                "Name: demo\nVersion: 2\nSummary: s\n",
            )],
        );
        assert_eq!(
            egg,
            "Metadata-Version: 2.1\nName: demo\nVersion: 2\nSummary: s\n"
        );
    }

    #[test]
    fn metadata_from_pyproject_without_pkg_info() {
        let py = "[project]\nname = 'demo'\ndescription = 'Short'\nrequires-python = '>=3.9'\ndependencies = ['attrs']\n[project.optional-dependencies]\ntests = ['pytest; python_version > \"3\"', 'hypothesis']\n";
        let m = metadata("demo", "1.0", &[("pyproject.toml", py)]);
        assert_eq!(
            m,
            "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nSummary: Short\nRequires-Python: >=3.9\nRequires-Dist: attrs\nProvides-Extra: tests\nRequires-Dist: pytest; (python_version > \"3\") and extra == \"tests\"\nRequires-Dist: hypothesis; extra == \"tests\"\n"
        );
        assert_eq!(
            metadata("x", "0", &[]),
            "Metadata-Version: 2.1\nName: x\nVersion: 0\n"
        );
    }

    #[test]
    fn entry_points_from_pyproject() {
        let py = r#"
[project]
name = "demo"
[project.scripts]
demo = "demo.cli:main"
[project.gui-scripts]
demo-gui = "demo.gui:run"
[project.entry-points.pytest11]
demo = "demo.plugin"
[project.entry-points."demo.formats"]
csv = "demo.formats:Csv"
json = "demo.formats:Json [fast]"
"#;
        let eps = entry_points("demo", &[("pyproject.toml", py)]);
        assert_eq!(
            eps.to_text(),
            "[console_scripts]\ndemo = demo.cli:main\n\n[demo.formats]\ncsv = demo.formats:Csv\njson = demo.formats:Json [fast]\n\n[gui_scripts]\ndemo-gui = demo.gui:run\n\n[pytest11]\ndemo = demo.plugin\n\n"
        );
        let poetry = "[tool.poetry.scripts]\ntool = 'demo:main'\nother = { callable = 'demo:other' }\n[tool.poetry.plugins.\"demo.ext\"]\na = 'demo.ext:A'\n";
        let eps = entry_points("demo", &[("pyproject.toml", poetry)]);
        assert_eq!(
            eps.group("console_scripts"),
            // A TOML table's keys come sorted.
            [
                ("other".into(), "demo:other".into()),
                ("tool".into(), "demo:main".into())
            ]
        );
        assert_eq!(eps.group("demo.ext"), [("a".into(), "demo.ext:A".into())]);
    }

    #[test]
    fn entry_points_from_setup_cfg_and_egg_info() {
        let cfg = "[metadata]\nname = demo\n\n[options.entry_points]\nconsole_scripts =\n    demo = demo.cli:main\n    # a comment\n    demo2 = demo.cli:main2\npytest11 = demo = demo.plugin\n";
        let eps = entry_points("demo", &[("setup.cfg", cfg)]);
        assert_eq!(
            eps.group("console_scripts"),
            [
                ("demo".into(), "demo.cli:main".into()),
                ("demo2".into(), "demo.cli:main2".into())
            ]
        );
        assert_eq!(
            eps.group("pytest11"),
            [("demo".into(), "demo.plugin".into())]
        );
        // The egg-info's, the build's own record, comes first; a name given twice keeps it.
        let egg = "[console_scripts]\ndemo = demo.real:main\n\n[demo.plugins]\nx = demo.x\n";
        let eps = entry_points(
            "demo",
            &[
                ("setup.cfg", cfg),
                ("other.egg-info/entry_points.txt", "[other]\no = o\n"),
                ("src/demo.egg-info/entry_points.txt", egg),
            ],
        );
        assert_eq!(
            eps.group("console_scripts")[0],
            ("demo".into(), "demo.real:main".into())
        );
        assert_eq!(eps.group("demo.plugins"), [("x".into(), "demo.x".into())]);
        assert!(eps.group("other").is_empty(), "another project's egg-info");
    }

    #[test]
    fn entry_points_from_a_literal_setup_py_only() {
        let py = r#"
from setuptools import setup
setup(
    name="demo",
    entry_points={
        "console_scripts": ["demo = demo.cli:main", 'demo-x=demo.cli:x'],  # scripts
        'pytest11': ('demo = demo.plugin',),
        "demo.ini": """
            a = demo.a
            b = demo.b
        """,
    },
)
"#;
        let eps = entry_points("demo", &[("setup.py", py)]);
        assert_eq!(
            eps.to_text(),
            "[console_scripts]\ndemo = demo.cli:main\ndemo-x = demo.cli:x\n\n[demo.ini]\na = demo.a\nb = demo.b\n\n[pytest11]\ndemo = demo.plugin\n\n"
        );
        let ini = "setup(entry_points='''\n[console_scripts]\nd = demo:main\n''')\n";
        assert_eq!(
            entry_points("demo", &[("setup.py", ini)]).group("console_scripts"),
            [("d".into(), "demo:main".into())]
        );
        // Not a literal: nothing is guessed.
        for text in [
            "setup(entry_points=ENTRY_POINTS)",
            "setup(entry_points={'console_scripts': make()})",
            "setup(entry_points={'console_scripts': [f'{NAME} = demo:main']})",
            "setup(entry_points=dict(console_scripts=['d = demo:main']))",
        ] {
            assert!(
                entry_points("demo", &[("setup.py", text)]).is_empty(),
                "{text}"
            );
        }
    }
}
