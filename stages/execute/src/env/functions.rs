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
        other => other,
    }
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
