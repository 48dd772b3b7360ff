//! What a project's own metadata files say about it: name, version and license evidence
//! from `PKG-INFO` (core metadata, in every sdist), `pyproject.toml` (`[project]`, or
//! `[tool.poetry]`) and `setup.cfg` (`[metadata]`), all at the repository root.
//! A file that does not parse is passed over (it is still recorded in `files`).

use crate::files::is_license_file;
use crate::license::Evidence;
use crate::tree::Tree;

/// Name, version and license evidence of a project.
#[derive(Debug, Clone, Default)]
pub struct ProjectMeta {
    pub name: Option<String>,
    pub version: Option<String>,
    pub license: Evidence,
}

/// Reads the metadata files at the root of a tree.
pub fn from_tree(tree: &Tree) -> ProjectMeta {
    let mut meta = ProjectMeta::default();
    if let Some(text) = tree.text("PKG-INFO") {
        add_pkg_info(&mut meta, text);
    }
    if let Some(text) = tree.text("pyproject.toml") {
        match text.parse::<toml::Table>() {
            Ok(doc) => add_pyproject(&mut meta, &doc),
            Err(e) => {
                tracing::debug!(file = "pyproject.toml", error = %e.message(), "not valid TOML, passed over");
            }
        }
    }
    if let Some(text) = tree.text("setup.cfg") {
        add_setup_cfg(&mut meta, text);
    }
    for path in tree.entries.keys().filter(|p| is_license_file(p)) {
        if let Some(text) = tree.text(path) {
            meta.license.files.push((path.clone(), text.to_string()));
        }
    }
    meta
}

/// Parses core metadata headers (`Key: value`, continuation lines indented, the body
/// after the first blank line ignored).
pub fn parse_headers(text: &str) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = headers.last_mut() {
                let more = line.trim_start();
                value.push('\n');
                value.push_str(more.strip_prefix('|').unwrap_or(more));
            }
        } else if let Some((key, value)) = line.split_once(':') {
            headers.push((key.trim().to_string(), value.trim().to_string()));
        }
    }
    headers
}

fn add_pkg_info(meta: &mut ProjectMeta, text: &str) {
    for (key, value) in parse_headers(text) {
        match key.to_ascii_lowercase().as_str() {
            "name" => meta.name = meta.name.take().or(Some(value)),
            "version" => meta.version = meta.version.take().or(Some(value)),
            "license-expression" => meta.license.expressions.push(value),
            "license" => meta.license.texts.push(value),
            "classifier" => meta.license.classifiers.push(value),
            _ => {}
        }
    }
}

fn add_pyproject(meta: &mut ProjectMeta, doc: &toml::Table) {
    let project = doc.get("project").and_then(toml::Value::as_table);
    let poetry = doc
        .get("tool")
        .and_then(|t| t.get("poetry"))
        .and_then(toml::Value::as_table);
    for table in [project, poetry].into_iter().flatten() {
        let string = |key: &str| {
            table
                .get(key)
                .and_then(toml::Value::as_str)
                .map(str::to_string)
        };
        meta.name = meta.name.take().or_else(|| string("name"));
        meta.version = meta.version.take().or_else(|| string("version"));
        match table.get("license") {
            // PEP 639: a string is an SPDX expression; older tools wrote a name there.
            Some(toml::Value::String(s)) => {
                meta.license.expressions.push(s.clone());
                meta.license.texts.push(s.clone());
            }
            Some(toml::Value::Table(t)) => {
                if let Some(text) = t.get("text").and_then(toml::Value::as_str) {
                    meta.license.texts.push(text.to_string());
                }
            }
            _ => {}
        }
        if let Some(list) = table.get("classifiers").and_then(toml::Value::as_array) {
            meta.license.classifiers.extend(
                list.iter()
                    .filter_map(toml::Value::as_str)
                    .map(str::to_string),
            );
        }
    }
}

/// `[metadata]` of setup.cfg (INI: `key = value`, continuation lines indented).
fn add_setup_cfg(meta: &mut ProjectMeta, text: &str) {
    let mut in_metadata = false;
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_metadata = trimmed == "[metadata]";
            continue;
        }
        if !in_metadata || trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = entries.last_mut() {
                value.push('\n');
                value.push_str(trimmed);
            }
        } else if let Some((key, value)) = trimmed.split_once(['=', ':']) {
            entries.push((
                key.trim().to_ascii_lowercase().replace('-', "_"),
                value.trim().to_string(),
            ));
        }
    }
    for (key, value) in entries {
        match key.as_str() {
            "license_expression" => meta.license.expressions.push(value),
            "license" => meta.license.texts.push(value),
            "classifiers" => meta.license.classifiers.extend(
                value
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_string),
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Entry;

    fn tree(files: &[(&str, &str)]) -> Tree {
        let mut t = Tree::default();
        for (path, text) in files {
            let entry = Entry::File {
                sha256: String::new(),
                size: text.len() as u64,
                bytes: Some(text.as_bytes().to_vec()),
            };
            t.entries.insert((*path).to_string(), entry);
        }
        t
    }

    #[test]
    fn pkg_info() {
        let t = tree(&[(
            "PKG-INFO",
            "Metadata-Version: 2.4\nName: demo\nVersion: 1.2.0\nLicense-Expression: MIT\nLicense: line one\n        |line two\nClassifier: License :: OSI Approved :: MIT License\n\nName: body\n",
        )]);
        let m = from_tree(&t);
        assert_eq!(
            (m.name.as_deref(), m.version.as_deref()),
            (Some("demo"), Some("1.2.0"))
        );
        assert_eq!(m.license.expressions, ["MIT"]);
        assert_eq!(m.license.texts, ["line one\nline two"]);
        assert_eq!(
            m.license.classifiers,
            ["License :: OSI Approved :: MIT License"]
        );
    }

    #[test]
    fn pyproject_and_setup_cfg() {
        let t = tree(&[
            ("pyproject.toml", "[project]\nname = \"demo\"\nversion = \"0.1\"\nlicense = {text = \"BSD 3-Clause\"}\nclassifiers = [\"License :: OSI Approved :: BSD License\"]\n"),
            ("setup.cfg", "[metadata]\nname = other\nlicense = MIT\nclassifiers =\n    License :: OSI Approved :: MIT License\n    Programming Language :: Python\n[options]\nlicense = no\n"),
            ("LICENSE.txt", "some text"),
        ]);
        let m = from_tree(&t);
        assert_eq!(
            (m.name.as_deref(), m.version.as_deref()),
            (Some("demo"), Some("0.1"))
        );
        assert_eq!(m.license.texts, ["BSD 3-Clause", "MIT"]);
        assert_eq!(m.license.classifiers.len(), 3);
        assert_eq!(
            m.license.files,
            [("LICENSE.txt".to_string(), "some text".to_string())]
        );
    }

    #[test]
    fn pep639_string_and_bad_toml() {
        let m = from_tree(&tree(&[(
            "pyproject.toml",
            "[project]\nname = \"x\"\nlicense = \"Apache-2.0\"\n",
        )]));
        assert_eq!(m.license.expressions, ["Apache-2.0"]);
        let m = from_tree(&tree(&[("pyproject.toml", "[project\nname=")]));
        assert!(m.name.is_none());
    }
}
