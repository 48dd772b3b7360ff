//! The requirement set of a repository, read from the dependency files crawl recorded
//! (never by running them): `pyproject.toml` (dependencies, the test and dev extras and
//! dependency groups, tox settings), `PKG-INFO` (`Requires-Dist`), the `requires.txt` of
//! the project's `*.egg-info`, `setup.cfg`, the literal lists of a `setup.py`, `tox.ini` (the test environments' `deps`, `extras` and
//! `dependency_groups`), and requirement files: `requirements*.txt`,
//! `test-requirements.txt` and the like at the root, the `.txt` files of a root
//! `requirements/` folder, and every file they or tox include with `-r`.
//!
//! Other folders do not count (a `docs/requirements.txt` is for building documentation,
//! not for running tests), nor do files for documentation, linting, type checking or
//! packaging. The result is deduplicated and sorted, so that it can key an environment.
//! Requirements on the project itself are dropped (the tree is put on `sys.path`
//! instead; its extras and groups are followed). `coverage` is freshbench's: its runner
//! measures with it, at the version freshbench pins. A repository's own requirements on
//! `pytest`, its plugins and `pluggy` are kept, and win over freshbench's pinned `pytest`
//! (see [`super::tool_requirements`]); only a `pytest` requirement that freshbench's pin
//! already satisfies (`pytest`, `pytest>=7`) is dropped, so that the pin stays. Where two
//! sources pin one package to different versions, the test sources win over the
//! project's own dependencies, and those over the dev ones.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Optional-dependency groups (`[project.optional-dependencies]`) that hold test needs.
const EXTRA_GROUPS: &[&str] = &["test", "tests", "testing", "dev"];
/// `[dependency-groups]` (PEP 735) that hold test needs.
const DEPENDENCY_GROUPS: &[&str] = &["test", "tests", "testing", "dev"];
/// `[options.extras_require]` keys of a `setup.cfg` that hold test needs.
const CFG_EXTRAS: &[&str] = &["test", "tests", "testing", "dev"];
/// Packages every environment gets at freshbench's own pinned versions, whatever the
/// repository asks.
const PINNED_BY_FRESHBENCH: &[&str] = &["coverage"];
/// tox factors that are the test run itself.
const TEST_FACTORS: &[&str] = &["test", "tests", "testing", "unit"];
/// Words that make a requirement file one for something other than running the tests.
const NOT_FOR_TESTS: &[&str] = &[
    "doc",
    "lint",
    "mypy",
    "typing",
    "typecheck",
    "pre-commit",
    "precommit",
    "style",
    "release",
    "packaging",
    "benchmark",
];
/// A dependency file: its path relative to the repository root and its text.
#[derive(Debug, Clone, Copy)]
pub struct DepFile<'a> {
    pub path: &'a str,
    pub content: &'a str,
}

/// Where a requirement came from, the most specific to the tests first: when two sources
/// pin one package to different versions, the first kind wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    Test,
    Base,
    Dev,
}

/// The origin of a requirement file or group by its name.
fn origin_of(name: &str) -> Origin {
    let lower = name.to_ascii_lowercase();
    if lower.contains("test") {
        Origin::Test
    } else if lower.contains("dev") {
        Origin::Dev
    } else {
        Origin::Base
    }
}

/// Requirements as they are found, before the project's own are followed and pins settled.
struct Found {
    me: String,
    reqs: Vec<(Origin, String)>,
    /// Extras and groups of the project itself to follow, with the origin that asked.
    own_extras: BTreeMap<String, Origin>,
    own_groups: BTreeMap<String, Origin>,
}

impl Found {
    fn add(&mut self, origin: Origin, r: &str) {
        let r = r.trim();
        let Some(name) = requirement_name(r) else {
            return;
        };
        let name = normalize(name);
        if name == self.me {
            for e in requirement_extras(r) {
                self.own_extras.entry(normalize(&e)).or_insert(origin);
            }
            return;
        }
        // A lint plugin checks files, not code: see `pytest_config::LINT_PLUGINS`.
        if PINNED_BY_FRESHBENCH.contains(&name.as_str())
            || super::pytest_config::is_lint_plugin(&name)
        {
            return;
        }
        if name == "pytest" && pin_satisfies("pytest", r) {
            return;
        }
        self.reqs.push((origin, r.to_string()));
    }

    fn add_all(&mut self, origin: Origin, reqs: impl IntoIterator<Item = String>) {
        for r in reqs {
            self.add(origin, &r);
        }
    }
}

/// Whether freshbench's pinned version of `tool` satisfies the version specifiers of the
/// requirement `req` on it (markers aside): then the pin already gives what it asks.
fn pin_satisfies(tool: &str, req: &str) -> bool {
    let prefix = format!("{tool}==");
    let Some(pinned) = super::PINS.iter().find_map(|p| p.strip_prefix(&prefix)) else {
        return false;
    };
    requirement_specifier(req)
        .is_some_and(|spec| super::pep440::satisfies(pinned, spec) == Some(true))
}

/// The version specifiers of a requirement (`>=7,<9` of `pytest[x] (>=7,<9) ; marker`);
/// `None` for a direct reference (`name @ URL`).
pub fn requirement_specifier(req: &str) -> Option<&str> {
    let name = requirement_name(req)?;
    let mut rest = req.trim_start()[name.len()..].trim_start();
    if rest.starts_with('[') {
        rest = rest[rest.find(']')? + 1..].trim_start();
    }
    let spec = rest.split(';').next().unwrap_or("").trim();
    if spec.starts_with('@') {
        return None;
    }
    Some(
        spec.strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(spec)
            .trim(),
    )
}

/// The sorted, deduplicated requirement strings of a repository named `project`.
pub fn extract(project: &str, files: &[DepFile<'_>]) -> Vec<String> {
    let mut found = Found {
        me: normalize(project),
        reqs: Vec::new(),
        own_extras: BTreeMap::new(),
        own_groups: BTreeMap::new(),
    };
    let by_path: BTreeMap<&str, &str> = files.iter().map(|f| (f.path, f.content)).collect();
    let mut pyproject: Option<toml::Table> = None;
    let mut setup_cfg: Option<&str> = None;
    // What the project declares it needs, with the extra each belongs to: `Requires-Dist`
    // of its `PKG-INFO` and its `*.egg-info/requires.txt`.
    let mut declared: Vec<(String, Option<String>)> = Vec::new();
    // Requirement files to read, with the origin of whoever named them.
    let mut queue: Vec<(String, Origin)> = Vec::new();
    for f in files {
        match f.path {
            "pyproject.toml" => match f.content.parse::<toml::Table>() {
                Ok(t) => {
                    from_pyproject_into(&t, &mut found);
                    let tox = tox_in_pyproject(&t);
                    tox_into(&tox, "pyproject.toml", &mut found, &mut queue);
                    pyproject = Some(t);
                }
                Err(e) => {
                    tracing::debug!(file = f.path, error = %e, "pyproject.toml does not parse: ignored");
                }
            },
            "setup.cfg" => {
                setup_cfg = Some(f.content);
                for (section, key, value) in ini_entries(f.content) {
                    let origin = match (section.as_str(), normalize(&key).as_str()) {
                        ("options", "install-requires") => Origin::Base,
                        ("options", "tests-require") => Origin::Test,
                        ("options.extras_require", k) if CFG_EXTRAS.contains(&k) => origin_of(k),
                        _ => continue,
                    };
                    found.add_all(origin, cfg_list(&value));
                }
            }
            "setup.py" => {
                found.add_all(Origin::Base, setup_py_list(f.content, "install_requires"));
                found.add_all(Origin::Test, setup_py_list(f.content, "tests_require"));
            }
            "tox.ini" => {
                let tox = from_tox_ini(f.content);
                tox_into(&tox, "tox.ini", &mut found, &mut queue);
            }
            "PKG-INFO" => declared.extend(requires_dist(f.content)),
            path if crawl::files::is_egg_info_requires(path) => {
                declared.extend(requires_txt(f.content));
            }
            path if is_counted_requirements_file(path) => {
                queue.push((path.to_string(), origin_of(path)));
            }
            _ => {}
        }
    }
    for (req, extra) in &declared {
        match extra {
            None => found.add(Origin::Base, req),
            Some(e) if EXTRA_GROUPS.contains(&e.as_str()) => found.add(origin_of(e), req),
            Some(_) => {}
        }
    }
    let mut read: BTreeSet<String> = BTreeSet::new();
    while let Some((path, origin)) = queue.pop() {
        if !read.insert(path.clone()) {
            continue;
        }
        let Some(text) = by_path.get(path.as_str()) else {
            continue;
        };
        found.add_all(origin, from_requirements_txt(text));
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        for inc in requirement_includes(text) {
            if let Some(p) = join_relative(dir, &inc).filter(|p| !is_not_for_tests(p)) {
                let o = origin_of(p.rsplit('/').next().unwrap_or(&p));
                queue.push((p, if o == Origin::Base { origin } else { o }));
            }
        }
    }
    follow_own(&mut found, pyproject.as_ref(), setup_cfg, &declared);
    settle_pins(found.reqs)
}

/// Follows the project's own extras (`project[tests]`) and dependency groups named by the
/// sources read, until no new one is named.
fn follow_own(
    found: &mut Found,
    pyproject: Option<&toml::Table>,
    setup_cfg: Option<&str>,
    declared: &[(String, Option<String>)],
) {
    let mut seen_extras: BTreeSet<String> = BTreeSet::new();
    let mut seen_groups: BTreeSet<String> = BTreeSet::new();
    loop {
        let next_extra = found
            .own_extras
            .iter()
            .find(|(e, _)| !seen_extras.contains(*e))
            .map(|(e, o)| (e.clone(), *o));
        let next_group = found
            .own_groups
            .iter()
            .find(|(g, _)| !seen_groups.contains(*g))
            .map(|(g, o)| (g.clone(), *o));
        if let Some((extra, origin)) = next_extra {
            seen_extras.insert(extra.clone());
            let mut reqs = pyproject
                .map(|t| optional_group(t, &extra))
                .unwrap_or_default();
            if let Some(text) = setup_cfg {
                for (section, key, value) in ini_entries(text) {
                    if section == "options.extras_require" && normalize(&key) == extra {
                        reqs.extend(cfg_list(&value));
                    }
                }
            }
            reqs.extend(
                declared
                    .iter()
                    .filter(|(_, e)| e.as_deref() == Some(extra.as_str()))
                    .map(|(r, _)| r.clone()),
            );
            found.add_all(origin, reqs);
        } else if let Some((group, origin)) = next_group {
            seen_groups.insert(group.clone());
            if let Some(t) = pyproject {
                found.add_all(origin, dependency_group(t, &group));
            }
        } else {
            break;
        }
    }
}

/// The requirement strings, deduplicated and sorted; where one package is pinned (`==`)
/// to different versions by sources of different origins, only the pins of the best
/// origin are kept.
fn settle_pins(reqs: Vec<(Origin, String)>) -> Vec<String> {
    let exact = |r: &str| {
        requirement_specifier(r)
            .filter(|s| s.starts_with("==") && !s.contains(',') && !s.ends_with(".*"))
            .map(|s| s.trim_start_matches('=').trim().to_string())
    };
    let mut best_pin: BTreeMap<String, (Origin, BTreeSet<String>)> = BTreeMap::new();
    for (origin, r) in &reqs {
        if let (Some(name), Some(v)) = (requirement_name(r), exact(r)) {
            let e = best_pin
                .entry(normalize(name))
                .or_insert((*origin, BTreeSet::new()));
            if *origin < e.0 {
                *e = (*origin, BTreeSet::new());
            }
            if *origin == e.0 {
                e.1.insert(v);
            }
        }
    }
    let mut out: BTreeSet<String> = BTreeSet::new();
    for (origin, r) in reqs {
        let name = requirement_name(&r).map(normalize).unwrap_or_default();
        let dropped = match (best_pin.get(&name), exact(&r)) {
            (Some((best, versions)), Some(v)) => origin > *best && !versions.contains(&v),
            _ => false,
        };
        if !dropped {
            out.insert(r);
        }
    }
    out.into_iter().collect()
}

/// Whether `path` is a requirement file read without being included: at the root, a
/// name with `requirements` in it (`requirements-test.txt`, `test-requirements.txt`);
/// in a root `requirements/` folder, any `.txt`; neither for documentation, linting, ...
/// nor for Python 2.
pub fn is_counted_requirements_file(path: &str) -> bool {
    let txt = Path::new(path).extension().is_some_and(|e| e == "txt");
    let counted = match path.split_once('/') {
        None => path.contains("requirements"),
        Some(("requirements", rest)) => !rest.contains('/'),
        Some(_) => false,
    };
    txt && counted && !is_not_for_tests(path)
}

/// Marks in a requirement file's name that make it one for Python 2
/// (`build-requirements-2.7.txt`, `requirements-py2.txt`), whose pins cannot go with
/// Python 3 and whose entries the Python 3 file names again.
const PYTHON_2: &[&str] = &["py2", "python2", "2.6", "2.7"];

fn is_not_for_tests(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    NOT_FOR_TESTS.iter().any(|w| lower.contains(w)) || PYTHON_2.iter().any(|w| name.contains(w))
}

/// `dir` joined with a relative path, `..` resolved; `None` when it leaves the root.
fn join_relative(dir: &str, rel: &str) -> Option<String> {
    let rel = rel
        .trim()
        .trim_start_matches("{toxinidir}/")
        .trim_start_matches("{toxinidir}");
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/")).filter(|p| !p.is_empty())
}

/// The files a requirements file includes (`-r FILE`, `--requirement FILE`).
pub fn requirement_includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l
                .strip_prefix("--requirement")
                .or_else(|| l.strip_prefix("-r"))?;
            let rest = rest.trim_start_matches('=').trim();
            let rest = rest.split(" #").next().unwrap_or("").trim();
            (!rest.is_empty()).then(|| rest.to_string())
        })
        .collect()
}

/// One item a line of a `setup.cfg` list value (several lines: one a line; one line:
/// split at `;`, setuptools' "list-semi"), comments dropped.
fn cfg_list(value: &str) -> Vec<String> {
    let items: Vec<&str> = if value.contains('\n') {
        value.lines().collect()
    } else {
        value.split(';').collect()
    };
    items
        .into_iter()
        .map(|item| item.find(" #").map_or(item, |i| &item[..i]).trim())
        .filter(|i| !i.is_empty() && !i.starts_with('#') && requirement_name(i).is_some())
        .map(str::to_string)
        .collect()
}

/// The requirements of setuptools' `*.egg-info/requires.txt`, each (with the marker of its
/// section) with the extra it belongs to: lines before any section are the project's own,
/// `[extra]`, `[extra:marker]` and `[:marker]` sections name an extra, a marker or both.
pub fn requires_txt(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let (mut extra, mut marker): (Option<String>, Option<String>) = (None, None);
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let (e, m) = section.split_once(':').unwrap_or((section, ""));
            extra = Some(normalize(e.trim())).filter(|e| !e.is_empty());
            marker = Some(m.trim().to_string()).filter(|m| !m.is_empty());
            continue;
        }
        if requirement_name(line).is_none() {
            continue;
        }
        let req = match &marker {
            Some(m) => format!("{line}; {m}"),
            None => line.to_string(),
        };
        out.push((req, extra.clone()));
    }
    out
}

/// `Requires-Dist` of core metadata: each requirement (its extra clause removed from the
/// marker) with the extra it belongs to. A marker that joins an extra with `or` is not
/// read.
pub fn requires_dist(pkg_info: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for line in pkg_info.lines() {
        if line.trim().is_empty() {
            break;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("requires-dist") {
            continue;
        }
        let (req, marker) = value.split_once(';').unwrap_or((value, ""));
        let (req, marker) = (req.trim(), marker.trim());
        if !marker.contains("extra") {
            out.push((value.trim().to_string(), None));
            continue;
        }
        if marker.contains(" or ") {
            continue;
        }
        let mut extra = None;
        let mut rest: Vec<&str> = Vec::new();
        for clause in marker.split(" and ") {
            let c = clause
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .trim();
            if let Some(v) = c.strip_prefix("extra") {
                let v = v.trim_start().trim_start_matches("==").trim();
                extra = Some(normalize(v.trim_matches(['"', '\''])));
            } else {
                rest.push(clause.trim());
            }
        }
        let req = if rest.is_empty() {
            req.to_string()
        } else {
            format!("{req}; {}", rest.join(" and "))
        };
        out.push((req, extra));
    }
    out
}

/// What a tox configuration asks its test environments to install.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ToxNeeds {
    /// `deps` lines as written (requirements, `-r FILE`, `.[extra]`).
    pub deps: Vec<String>,
    /// `extras` of the project.
    pub extras: Vec<String>,
    /// `dependency_groups` of the project.
    pub groups: Vec<String>,
}

/// Whether a tox environment (`testenv`, `testenv:py312-tests`) runs the tests.
fn is_test_env(section: &str) -> bool {
    let Some(name) = section.strip_prefix("testenv") else {
        return false;
    };
    let name = name.trim_start_matches(':').to_ascii_lowercase();
    name.is_empty()
        || ((name.contains("test") || name.starts_with("py"))
            && !["doc", "lint", "type", "mypy", "style"]
                .iter()
                .any(|w| name.contains(w)))
}

/// The value of a tox setting line, when it applies to the plain test run: unconditional,
/// or conditioned on a factor that is the tests themselves (`tests: pytest-mock`). Other
/// factors choose variants a plain run is not (`pytest6: pytest==6.2.5`, `pytestmain:
/// git+https://...`, `coverage: coverage`, `py38: backports`).
fn tox_line(line: &str) -> Option<&str> {
    let line = line.trim();
    if let Some((cond, rest)) = line.split_once(':') {
        let is_cond = !cond.is_empty()
            && cond.chars().all(|c| {
                c.is_ascii_alphanumeric()
                    || matches!(c, '_' | '.' | ',' | '!' | '{' | '}' | '-' | ' ')
            })
            && !rest.starts_with('/');
        if is_cond {
            let factors = cond
                .split([',', '-', '{', '}', ' '])
                .map(|f| f.trim().to_ascii_lowercase());
            let applies = factors
                .filter(|f| !f.is_empty() && !f.starts_with('!'))
                .any(|f| TEST_FACTORS.contains(&f.as_str()));
            return applies.then(|| rest.trim());
        }
    }
    Some(line)
}

/// `deps`, `extras` and `dependency_groups` of a `tox.ini`'s test environments.
pub fn from_tox_ini(text: &str) -> ToxNeeds {
    let mut needs = ToxNeeds::default();
    for (section, key, value) in ini_entries(text) {
        if !is_test_env(&section) {
            continue;
        }
        let target = match key.as_str() {
            "deps" => &mut needs.deps,
            "extras" => &mut needs.extras,
            "dependency_groups" => &mut needs.groups,
            _ => continue,
        };
        for line in value.lines() {
            let Some(v) = tox_line(line) else {
                continue;
            };
            if key == "deps" {
                target.push(v.to_string());
            } else {
                target.extend(
                    v.split([',', ' '])
                        .map(str::trim)
                        .filter(|x| !x.is_empty())
                        .map(str::to_string),
                );
            }
        }
    }
    needs
}

/// The tox configuration of a pyproject: `[tool.tox] legacy_tox_ini`, and the native
/// `env_run_base` table's `deps`, `extras` and `dependency_groups`.
fn tox_in_pyproject(t: &toml::Table) -> ToxNeeds {
    let Some(tox) = t
        .get("tool")
        .and_then(|x| x.get("tox"))
        .and_then(toml::Value::as_table)
    else {
        return ToxNeeds::default();
    };
    if let Some(legacy) = tox.get("legacy_tox_ini").and_then(toml::Value::as_str) {
        return from_tox_ini(legacy);
    }
    let base = tox.get("env_run_base");
    ToxNeeds {
        deps: strings(base.and_then(|b| b.get("deps"))),
        extras: strings(base.and_then(|b| b.get("extras"))),
        groups: strings(base.and_then(|b| b.get("dependency_groups"))),
    }
}

/// Adds what tox asks for: requirements, included files, the project's extras and groups.
fn tox_into(tox: &ToxNeeds, from: &str, found: &mut Found, queue: &mut Vec<(String, Origin)>) {
    for d in &tox.deps {
        let d = d.trim();
        if let Some(inc) = d
            .strip_prefix("--requirement")
            .or_else(|| d.strip_prefix("-r"))
        {
            let inc = inc.trim_start_matches('=').trim();
            if let Some(p) = join_relative("", inc).filter(|p| !is_not_for_tests(p)) {
                queue.push((p, Origin::Test));
            }
            continue;
        }
        let d = d.strip_prefix("-e").map_or(d, str::trim);
        let own = d
            .strip_prefix("{toxinidir}")
            .or_else(|| d.strip_prefix('.'))
            .map(|rest| rest.trim_start_matches('/'));
        if let Some(rest) = own {
            if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.split(']').next()) {
                for e in inner.split(',').map(str::trim).filter(|e| !e.is_empty()) {
                    found.own_extras.entry(normalize(e)).or_insert(Origin::Test);
                }
            }
            continue;
        }
        // A bare URL (`git+https://...@main`) is a variant to build, not a requirement.
        if d.contains('{') || d.starts_with('-') || (d.contains("://") && !d.contains(" @ ")) {
            tracing::debug!(file = from, line = d, "tox deps line not read");
            continue;
        }
        found.add(Origin::Test, d);
    }
    for e in &tox.extras {
        found.own_extras.entry(normalize(e)).or_insert(Origin::Test);
    }
    for g in &tox.groups {
        found.own_groups.entry(normalize(g)).or_insert(Origin::Test);
    }
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
    for g in DEPENDENCY_GROUPS {
        out.extend(dependency_group(t, g));
    }
    out
}

/// [`from_pyproject`], each requirement with its origin.
fn from_pyproject_into(t: &toml::Table, found: &mut Found) {
    found.add_all(
        Origin::Base,
        strings(t.get("project").and_then(|p| p.get("dependencies"))),
    );
    for g in EXTRA_GROUPS {
        found.add_all(origin_of(g), optional_group(t, g));
    }
    for g in DEPENDENCY_GROUPS {
        found.add_all(origin_of(g), dependency_group(t, g));
    }
}

/// The requirement strings of a `[dependency-groups]` group (by normalized name).
fn dependency_group(t: &toml::Table, group: &str) -> Vec<String> {
    t.get("dependency-groups")
        .and_then(toml::Value::as_table)
        .map(|groups| {
            groups
                .iter()
                .filter(|(k, _)| normalize(k) == group)
                .flat_map(|(_, v)| strings(Some(v)))
                .collect()
        })
        .unwrap_or_default()
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
pub(crate) fn ini_entries(text: &str) -> Vec<(String, String, String)> {
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
    let mut out = setup_py_list(text, "install_requires");
    out.extend(setup_py_list(text, "tests_require"));
    out
}

/// The requirement literals of `key=[...]` in a `setup.py`, wherever it is written so.
fn setup_py_list(text: &str, key: &str) -> Vec<String> {
    let mut out = Vec::new();
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
