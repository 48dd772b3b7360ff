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
use schemas::{File, Reference, Repo};

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
        .filter(|r| r.kind == "third_party")
        .filter_map(|r| r.target_module.clone())
        .collect()
}

/// For each repository that has functions needing third-party modules, the interpreter of
/// its environment, or why there is none.
pub fn interpreters(
    dir: &std::path::Path,
    needs: &BTreeMap<String, BTreeSet<String>>,
    cfg: EnvConfig,
) -> anyhow::Result<HashMap<String, Result<PathBuf, String>>> {
    let mut out = HashMap::new();
    if needs.is_empty() {
        return Ok(out);
    }
    let repos: Vec<Repo> =
        schemas::read_table(dir).context("reading the repositories crawl recorded")?;
    let files: Vec<File> = schemas::read_table(dir).context("reading the files crawl recorded")?;
    let mut cfg = cfg;
    std::fs::create_dir_all(&cfg.cache_dir)
        .with_context(|| format!("creating the cache folder {}", cfg.cache_dir.display()))?;
    // The installer runs in other folders: the paths it gets must be absolute.
    cfg.cache_dir = std::fs::canonicalize(&cfg.cache_dir)
        .with_context(|| format!("resolving the cache folder {}", cfg.cache_dir.display()))?;
    let envs = Envs::open(cfg).context("opening the environment cache")?;
    for (repo_id, modules) in needs {
        let Some(repo) = repos.iter().find(|r| r.repo_id == *repo_id) else {
            out.insert(
                repo_id.clone(),
                Err("the repository is not in repos.parquet".into()),
            );
            continue;
        };
        let deps: Vec<DepFile<'_>> = files
            .iter()
            .filter(|f| f.repo_id == *repo_id && f.kind == "dependency" && f.status == "ok")
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
        let reqs: Vec<String> = reqs.into_iter().collect();
        tracing::info!(repo = %repo.name, requirements = ?reqs, "environment for functions using third-party modules");
        let r = match envs.ensure(&reqs) {
            Ok(env) => match env.state {
                EnvState::Failed { message, .. } => Err(super::cap_tail(&message, 400)),
                _ => Ok(env.python),
            },
            Err(e) => Err(e.to_string()),
        };
        out.insert(repo_id.clone(), r);
    }
    Ok(out)
}
