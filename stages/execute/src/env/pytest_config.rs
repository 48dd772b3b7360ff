//! The part of a repository's pytest configuration that decides *which* files its plain
//! run collects: `addopts` (for `--doctest-modules`) and `testpaths`.
//!
//! freshbench names the test files it runs (so that a file can be rerun alone and a test
//! deselected), and pytest given paths collects only from them: a project whose own
//! configuration also collects the doctests of its modules would lose those tests. This
//! module reads the configuration as pytest finds it (the first of `pytest.ini`,
//! `pyproject.toml` with `[tool.pytest]` (pytest 9's native table) or
//! `[tool.pytest.ini_options]`, `tox.ini` with `[pytest]`, `setup.cfg` with
//! `[tool:pytest]`, at the tree's root), never running anything.
//!
//! It also says what every run of the tests is given ([`run_args`]): lint plugins
//! (pytest-flake8, pytest-mypy, ...) are not installed ([`LINT_PLUGINS`]), since their items
//! check the style of files rather than run code, and an old one can stop a newer pytest
//! from starting at all; their options are taken out of `addopts` so that pytest does not
//! refuse them.

use super::requirements::ini_entries;

/// pytest plugins that only lint or type-check the project's files, by the option that turns
/// each on: never installed in a test environment.
pub const LINT_PLUGINS: &[(&str, &str)] = &[
    ("pytest-flake8", "--flake8"),
    ("pytest-flakes", "--flakes"),
    ("pytest-pycodestyle", "--pycodestyle"),
    ("pytest-codestyle", "--codestyle"),
    ("pytest-pep8", "--pep8"),
    ("pytest-pydocstyle", "--pydocstyle"),
    ("pytest-docstyle", "--docstyle"),
    ("pytest-pylint", "--pylint"),
    ("pytest-mypy", "--mypy"),
    ("pytest-black", "--black"),
    ("pytest-isort", "--isort"),
    ("pytest-ruff", "--ruff"),
    ("pytest-mccabe", "--mccabe"),
];

/// Whether `name` (normalized: lower case, `-` for `_` and `.`) is one of [`LINT_PLUGINS`].
pub fn is_lint_plugin(name: &str) -> bool {
    LINT_PLUGINS.iter().any(|(p, _)| *p == name)
}

/// The arguments every pytest run of a repository's tests gets: no pytest-randomly (it
/// would reorder tests between runs), short tracebacks, and, when its `addopts` turns on a
/// lint plugin, `addopts` again without that plugin's options (`-o addopts=...`).
pub fn run_args(config: &PytestConfig) -> Vec<String> {
    let mut args = vec!["-p".into(), "no:randomly".into(), "--tb=short".into()];
    if let Some(kept) = config.addopts_without_lint() {
        args.push("-o".into());
        args.push(format!("addopts={}", join_args(&kept)));
    }
    args
}

/// Arguments joined so that pytest's shell-like split gives them back.
fn join_args(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty() && !a.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
                a.clone()
            } else if a.contains('"') {
                format!("'{a}'")
            } else {
                format!("\"{a}\"")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What decides the collection of a plain run.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PytestConfig {
    /// The configuration file it came from (`-` when none).
    pub source: String,
    /// `addopts`, split into arguments.
    pub addopts: Vec<String>,
    /// `testpaths`, as written (folders or files relative to the root).
    pub testpaths: Vec<String>,
}

impl PytestConfig {
    /// Whether the plain run collects the doctests of Python modules.
    pub fn doctest_modules(&self) -> bool {
        self.addopts.iter().any(|a| a == "--doctest-modules")
    }

    /// `addopts` without the options of [`LINT_PLUGINS`] (`--flake8`, and `--mypy-...` and
    /// `--pylint-...=VALUE` of the same plugins), or `None` when it has none of them.
    pub fn addopts_without_lint(&self) -> Option<Vec<String>> {
        let lint = |a: &str| {
            LINT_PLUGINS.iter().any(|(_, flag)| {
                a == *flag
                    || a.strip_prefix(flag)
                        .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('='))
            })
        };
        // A plugin's option given its value apart (`--pylint-rcfile FILE`) leaves the value:
        // it cannot be told from a path the run is given.
        let kept: Vec<String> = self.addopts.iter().filter(|a| !lint(a)).cloned().collect();
        let dropped = kept.len() < self.addopts.len();
        dropped.then_some(kept)
    }

    /// Whether `path` (relative to the root) is under one of `testpaths`, or anywhere when
    /// the configuration names none.
    pub fn in_testpaths(&self, path: &str) -> bool {
        self.testpaths.is_empty()
            || self.testpaths.iter().any(|t| {
                let t = t.trim_start_matches("./").trim_end_matches('/');
                t.is_empty() || t == "." || path == t || path.starts_with(&format!("{t}/"))
            })
    }
}

/// The configuration of a tree from its root files, given as `(path, text)`.
pub fn find(files: &[(&str, &str)]) -> PytestConfig {
    let at_root = |p: &str| files.iter().find(|(path, _)| *path == p).map(|(_, t)| *t);
    // pytest.ini wins even when it has no [pytest] section.
    if let Some(text) = at_root("pytest.ini") {
        return from_ini(text, &["pytest", "tool:pytest"], "pytest.ini").unwrap_or(PytestConfig {
            source: "pytest.ini".into(),
            ..PytestConfig::default()
        });
    }
    if let Some(c) = at_root("pyproject.toml").and_then(from_pyproject) {
        return c;
    }
    if let Some(c) = at_root("tox.ini").and_then(|t| from_ini(t, &["pytest"], "tox.ini")) {
        return c;
    }
    if let Some(c) = at_root("setup.cfg").and_then(|t| from_ini(t, &["tool:pytest"], "setup.cfg")) {
        return c;
    }
    PytestConfig {
        source: "-".into(),
        ..PytestConfig::default()
    }
}

fn from_ini(text: &str, sections: &[&str], source: &str) -> Option<PytestConfig> {
    let entries = ini_entries(text);
    let mut found = false;
    let mut cfg = PytestConfig {
        source: source.into(),
        ..PytestConfig::default()
    };
    // A section with no keys still counts: look for its header too.
    if text.lines().any(|l| {
        let l = l.trim();
        sections.iter().any(|s| l == format!("[{s}]"))
    }) {
        found = true;
    }
    for (section, key, value) in entries {
        if !sections.contains(&section.as_str()) {
            continue;
        }
        found = true;
        match key.as_str() {
            "addopts" => cfg.addopts = split_args(&value),
            "testpaths" => cfg.testpaths = value.split_whitespace().map(str::to_string).collect(),
            _ => {}
        }
    }
    found.then_some(cfg)
}

fn from_pyproject(text: &str) -> Option<PytestConfig> {
    let t = text.parse::<toml::Table>().ok()?;
    let pytest = t.get("tool")?.as_table()?.get("pytest")?.as_table()?;
    // pytest 9 reads `[tool.pytest]` itself; older ones `[tool.pytest.ini_options]`.
    let table = pytest
        .get("ini_options")
        .and_then(toml::Value::as_table)
        .unwrap_or(pytest);
    let list = |v: Option<&toml::Value>| -> Vec<String> {
        match v {
            Some(toml::Value::String(s)) => split_args(s),
            Some(toml::Value::Array(a)) => a
                .iter()
                .filter_map(toml::Value::as_str)
                .flat_map(split_args)
                .collect(),
            _ => Vec::new(),
        }
    };
    Some(PytestConfig {
        source: "pyproject.toml".into(),
        addopts: list(table.get("addopts")),
        testpaths: list(table.get("testpaths")),
    })
}

/// Shell-like splitting of an option string: whitespace separates, quotes group.
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (_, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lint_plugins_options_leave_addopts() {
        let cfg = "[tool:pytest]\naddopts = --flake8 -ra --mypy-ignore-missing-imports --pylint-rcfile=x.rc --doctest-modules -k 'not slow'\n";
        let c = find(&[("setup.cfg", cfg)]);
        assert_eq!(
            c.addopts_without_lint().unwrap(),
            ["-ra", "--doctest-modules", "-k", "not slow"]
        );
        let args = run_args(&c);
        assert_eq!(
            args[3..],
            ["-o", "addopts=-ra --doctest-modules -k \"not slow\""]
        );
        assert_eq!(
            split_args(args[4].strip_prefix("addopts=").unwrap()),
            c.addopts_without_lint().unwrap()
        );
        // No lint option: addopts stays as the project wrote it, and nothing overrides it.
        let plain = find(&[(
            "setup.cfg",
            "[tool:pytest]\naddopts = -ra --strict-markers\n",
        )]);
        assert_eq!(plain.addopts_without_lint(), None);
        assert_eq!(run_args(&plain), ["-p", "no:randomly", "--tb=short"]);
        assert!(is_lint_plugin("pytest-flake8") && !is_lint_plugin("pytest-cov"));
    }

    #[test]
    fn pytest9_native_table_with_lists() {
        let py = "[tool.pytest]\naddopts = [ \"--doctest-modules\" ]\ntestpaths = [ \"src\", \"tests\" ]\n";
        let c = find(&[("pyproject.toml", py)]);
        assert!(c.doctest_modules());
        assert_eq!(c.testpaths, ["src", "tests"]);
        assert!(c.in_testpaths("src/humanize/number.py"));
        assert!(!c.in_testpaths("docs/conf.py"));
        assert!(!c.in_testpaths("srcx/a.py"));
    }

    #[test]
    fn ini_options_string_and_precedence() {
        let py = "[tool.pytest.ini_options]\naddopts = \"-ra --doctest-modules\"\n";
        let cfg = "[tool:pytest]\naddopts = -q\n";
        let c = find(&[("setup.cfg", cfg), ("pyproject.toml", py)]);
        assert_eq!(c.source, "pyproject.toml");
        assert!(c.doctest_modules());
        assert!(c.in_testpaths("anything/at/all.py"));
        // pytest.ini wins, even empty.
        let c = find(&[("pyproject.toml", py), ("pytest.ini", "# nothing\n")]);
        assert_eq!(c.source, "pytest.ini");
        assert!(!c.doctest_modules());
    }

    #[test]
    fn setup_cfg_and_tox_sections() {
        let cfg = "[metadata]\nname = x\n[tool:pytest]\naddopts =\n    --doctest-modules\n    -p no:cacheprovider\ntestpaths = src tests\n";
        let c = find(&[("setup.cfg", cfg)]);
        assert_eq!(c.source, "setup.cfg");
        assert_eq!(c.addopts, ["--doctest-modules", "-p", "no:cacheprovider"]);
        assert_eq!(c.testpaths, ["src", "tests"]);
        let tox = "[tox]\nenvlist = py\n[pytest]\naddopts = '--doctest-modules'\n";
        assert!(find(&[("tox.ini", tox), ("setup.cfg", cfg)]).doctest_modules());
        // A pyproject without a pytest table does not stop the search.
        let c = find(&[
            ("pyproject.toml", "[project]\nname='x'\n"),
            ("setup.cfg", cfg),
        ]);
        assert_eq!(c.source, "setup.cfg");
        assert_eq!(find(&[]).source, "-");
    }
}
