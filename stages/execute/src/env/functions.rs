//! Interpreters for functions that use third-party libraries (a weakly self-contained
//! function may use numpy): the repository's environment, built
//! with uv from the dependency files crawl recorded plus the packages the functions import,
//! and cached. Functions that use only the standard library run on the tools' interpreter.
//! `synthesize-tests` runs the originals there, and `execute` the tasks and the answers.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use super::requirements::{self, DepFile};
use super::{EnvConfig, EnvState, Envs};
use anyhow::Context as _;
use schemas::{File, FileKind, FileStatus, RefKind, Reference, Repo};

/// The distribution that provides an importable top-level module, where the names differ.
fn distribution(module: &str) -> &str {
    match module {
        "yaml" => "PyYAML",
        "PIL" => "Pillow",
        "sklearn" => "scikit-learn",
        "bs4" => "beautifulsoup4",
        "dateutil" => "python-dateutil",
        "attr" => "attrs",
        "cv2" => "opencv-python",
        "pkg_resources" => "setuptools",
        "OpenSSL" => "pyOpenSSL",
        "Crypto" => "pycryptodome",
        "jwt" => "PyJWT",
        "serial" => "pyserial",
        "dns" => "dnspython",
        "gmpy2" => "gmpy2",
        other => other,
    }
}

/// Modules a test file may import that are no distribution to install: the test runner's
/// own (pytest, and `py`, which pytest provides), freshbench's coverage, and names that
/// several distributions share (`google`).
const NOT_INSTALLED: &[&str] = &["pytest", "_pytest", "pluggy", "py", "coverage", "google"];

/// The third-party top-level modules a repository's test files (and conftests) import at
/// module level, by `import`, `from ... import` or `*`, which may be more than its
/// dependency files declare (idna's tests import `hypothesis`, declared nowhere). Not the
/// standard library, not the runner's ([`NOT_INSTALLED`]), and not a module of the
/// repository: a top-level name of its modules, or the stem of any of its Python files or
/// folders (`tests/helpers.py` is imported as `helpers` once pytest puts `tests/` on the
/// path). A file that does not parse adds nothing.
pub fn test_imports(files: &[&File]) -> BTreeSet<String> {
    let py: Vec<&File> = files
        .iter()
        .copied()
        .filter(|f| f.status == FileStatus::Ok && super::sdist::is_py(&f.path))
        .collect();
    let mut own: BTreeSet<String> = BTreeSet::new();
    for f in &py {
        let (module, _) = resolve::module_name(&f.path);
        own.extend(module.split('.').next().map(str::to_string));
        let mut parts = f.path.split('/').peekable();
        while let Some(part) = parts.next() {
            let stem = if parts.peek().is_none() {
                part.strip_suffix(".py").unwrap_or(part)
            } else {
                part
            };
            own.insert(stem.to_string());
        }
    }
    let mut out = BTreeSet::new();
    for f in py.iter().filter(|f| f.kind == FileKind::Test) {
        let Some(text) = f.content.as_deref() else {
            continue;
        };
        let (module, is_package) = resolve::module_name(&f.path);
        let Ok(analysis) = resolve::analyze_file(text, &module, is_package) else {
            continue;
        };
        let symbols = &analysis.symbols;
        let imported = symbols
            .names
            .values()
            .filter_map(|s| match &s.kind {
                resolve::SymbolKind::Import(resolve::ImportTarget::Dotted(d)) => Some(d),
                _ => None,
            })
            .chain(symbols.star_imports.iter().filter_map(|t| match t {
                resolve::ImportTarget::Dotted(d) => Some(d),
                resolve::ImportTarget::Invalid(_) => None,
            }));
        for dotted in imported {
            let top = dotted.split('.').next().unwrap_or(dotted);
            if !top.is_empty()
                && !resolve::is_stdlib(top)
                && !NOT_INSTALLED.contains(&top)
                && !own.contains(top)
            {
                out.insert(top.to_string());
            }
        }
    }
    out
}

/// Third-party top-level modules a function's references use.
pub fn third_party(refs: &[&Reference]) -> BTreeSet<String> {
    refs.iter()
        .filter(|r| r.kind == RefKind::ThirdParty)
        .filter_map(|r| r.target_module.clone())
        .collect()
}

/// The requirements of the environment in which a repository's functions that import
/// `modules` run: those its dependency files declare, plus the distributions of the
/// modules they do not name. What defines the environment, so also part of the hash of
/// every row made by running code in it.
pub fn requirements_for(repo: &Repo, files: &[&File], modules: &BTreeSet<String>) -> Vec<String> {
    let deps: Vec<DepFile<'_>> = files
        .iter()
        .filter(|f| {
            f.repo_id == repo.repo_id
                && f.kind == FileKind::Dependency
                && f.status == FileStatus::Ok
        })
        .filter_map(|f| {
            f.content.as_deref().map(|c| DepFile {
                path: &f.path,
                content: c,
            })
        })
        .collect();
    let mut reqs: BTreeSet<String> = requirements::extract(&repo.name, &deps)
        .into_iter()
        .collect();
    let named: BTreeSet<String> = reqs
        .iter()
        .filter_map(|r| requirements::requirement_name(r).map(requirements::normalize))
        .collect();
    for m in modules {
        let d = distribution(m);
        if !named.contains(&requirements::normalize(d)) {
            reqs.insert(d.to_string());
        }
    }
    reqs.into_iter().collect()
}

/// For each repository that has functions needing third-party modules, the requirements of
/// its environment, or why there are none.
pub fn requirement_sets(
    dir: &std::path::Path,
    needs: &BTreeMap<String, BTreeSet<String>>,
) -> anyhow::Result<BTreeMap<String, Result<Vec<String>, String>>> {
    let mut out = BTreeMap::new();
    if needs.is_empty() {
        return Ok(out);
    }
    let repos: Vec<Repo> =
        schemas::read_table(dir).context("reading the repositories crawl recorded")?;
    let files: Vec<File> = schemas::read_table(dir).context("reading the files crawl recorded")?;
    let mut by_repo: HashMap<&str, Vec<&File>> = HashMap::new();
    for f in &files {
        by_repo.entry(f.repo_id.as_str()).or_default().push(f);
    }
    for (repo_id, modules) in needs {
        let r = match repos.iter().find(|r| r.repo_id == *repo_id) {
            Some(repo) => Ok(requirements_for(
                repo,
                by_repo.get(repo_id.as_str()).map_or(&[][..], Vec::as_slice),
                modules,
            )),
            None => Err("the repository is not in repos.parquet".to_string()),
        };
        out.insert(repo_id.clone(), r);
    }
    Ok(out)
}

/// The interpreter of each requirement set's environment (built, or found in the cache),
/// or why there is none.
pub fn interpreters(
    sets: &BTreeMap<String, Result<Vec<String>, String>>,
    cfg: EnvConfig,
) -> anyhow::Result<HashMap<String, Result<PathBuf, String>>> {
    let mut out = HashMap::new();
    if sets.values().all(Result::is_err) {
        for (repo_id, r) in sets {
            if let Err(why) = r {
                out.insert(repo_id.clone(), Err(why.clone()));
            }
        }
        return Ok(out);
    }
    let mut cfg = cfg;
    std::fs::create_dir_all(&cfg.cache_dir)
        .with_context(|| format!("creating the cache folder {}", cfg.cache_dir.display()))?;
    // The installer runs in other folders: the paths it gets must be absolute.
    cfg.cache_dir = std::fs::canonicalize(&cfg.cache_dir)
        .with_context(|| format!("resolving the cache folder {}", cfg.cache_dir.display()))?;
    let envs = Envs::open(cfg).context("opening the environment cache")?;
    for (repo_id, reqs) in sets {
        let r = match reqs {
            Err(why) => Err(why.clone()),
            Ok(reqs) => {
                tracing::info!(repo = %repo_id, requirements = ?reqs, "environment for functions using third-party modules");
                match envs.ensure(reqs) {
                    Ok(env) => match env.state {
                        EnvState::Failed { message, .. } => Err(super::cap_tail(&message, 400)),
                        _ => Ok(env.python),
                    },
                    Err(e) => Err(e.to_string()),
                }
            }
        };
        out.insert(repo_id.clone(), r);
    }
    Ok(out)
}
