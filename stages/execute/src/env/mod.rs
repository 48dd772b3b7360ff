//! Python environments for repositories: one virtual environment per dependency set,
//! created once with uv (fallback: `python -m venv` and pip) and cached by a content hash
//! of what defines it, and each repository's tree materialized from crawl's `files`.
//!
//! Under the cache folder (`--cache-dir`, default `$FRESHBENCH_CACHE` or `.cache`):
//! - `envs/<key>/`: a finished environment (`freshbench-env.json` inside says what defines
//!   it, `freshbench-build.log` what the installer said). `<key>` hashes the interpreter
//!   (implementation, version, base executable), the sorted requirement strings, and the
//!   tool requirements freshbench adds ([`tool_requirements`]: the coverage it pins, and
//!   its pinned pytest unless the repository asks for its own);
//! - `envs/<key>.failed`: an environment that did not build, with the installer's message
//!   (reused as a failure until `--rebuild-envs`);
//! - `envs/<key>.tmp-<pid>`: one being built. It is renamed into place only when complete, so
//!   a crash leaves a `.tmp-*` that no run trusts; leftovers of dead processes are removed;
//! - `trees/`: repository trees (see [`tree`]); `uv/`: uv's own cache.
//!
//! The project itself is never installed with its build backend: its tree goes on
//! `sys.path`, and a `.dist-info` beside it, made from the project's own metadata files
//! (`PKG-INFO`, its entry points from `pyproject.toml`, `setup.cfg`, an `*.egg-info` or a
//! literal `setup.py`), makes `importlib.metadata` find its version and entry points
//! (see [`tree::materialize`] and [`dist_info`]). Building an environment runs the installer on the host,
//! so by default it installs wheels only (`--no-build`): no third-party `setup.py` runs
//! outside the sandbox unless `--allow-sdist-builds`.
#![allow(unsafe_code)]

pub mod dist_info;
pub mod functions;
pub mod pep440;
pub mod pytest_config;
pub mod requirements;
pub mod sdist;
pub mod tree;

use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

/// The tool versions freshbench runs (pytest and coverage go into every environment).
pub const TOOLS_REQUIREMENTS: &str = include_str!("../../../../pipelines/requirements-tools.txt");

/// Bump when the layout of an environment changes: every key changes with it (2: packages
/// without a wheel are copied in from their sdists; 3: a pin to a version the index does
/// not have is relaxed; each time, earlier failures are tried again).
const ENV_FORMAT: u32 = 3;
/// The most pins of one environment relaxed ([`missing_pins`]).
const MAX_RELAXED: usize = 8;
/// The most packages of one environment installed from their sdists' files.
const MAX_UNPACKED: usize = 8;
/// The largest sdist of a dependency that is fetched.
const SDIST_MAX_BYTES: u64 = 64 << 20;
/// The marker a finished environment holds.
const MARKER: &str = "freshbench-env.json";
const LOG: &str = "freshbench-build.log";
/// Characters of installer output kept in a failure's message.
const MESSAGE_CAP: usize = 4000;

/// The pinned `pytest` and `coverage` requirements, from `pipelines/requirements-tools.txt`.
pub static PINS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    TOOLS_REQUIREMENTS
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("pytest==") || l.starts_with("coverage=="))
        .map(str::to_string)
        .collect()
});

/// The requirements freshbench adds to an environment of `requirements`: coverage at its
/// pinned version (the runner measures with it), and pytest at its pinned version unless
/// the repository's requirements name pytest themselves (with a version the pin does not
/// satisfy, see [`requirements::extract`]): then a bare `pytest`, so that the repository's
/// own requirement decides the version and pytest is there whatever its markers say.
pub fn tool_requirements(requirements: &[String]) -> Vec<String> {
    let names_pytest = requirements.iter().any(|r| {
        requirements::requirement_name(r).is_some_and(|n| requirements::normalize(n) == "pytest")
    });
    PINS.iter()
        .map(|p| {
            if names_pytest && p.starts_with("pytest==") {
                "pytest".to_string()
            } else {
                p.clone()
            }
        })
        .collect()
}

/// [`tool_requirements`] with pytest unpinned: what is tried when the pinned pytest cannot
/// go with what the repository asks for (a plugin or a `pluggy` that wants another pytest).
fn unpinned_pytest(tools: &[String]) -> Option<Vec<String>> {
    tools.iter().any(|t| t.starts_with("pytest==")).then(|| {
        tools
            .iter()
            .map(|t| {
                if t.starts_with("pytest==") {
                    "pytest".to_string()
                } else {
                    t.clone()
                }
            })
            .collect()
    })
}

/// How environments are built.
#[derive(Debug, Clone)]
pub struct EnvConfig {
    /// The cache folder (holds `envs/`, `trees/`, `uv/`).
    pub cache_dir: PathBuf,
    /// An interpreter of the Python to build on (a venv's is fine: its base is used).
    pub python: PathBuf,
    /// uv; `None`: `python -m venv` and pip.
    pub uv: Option<PathBuf>,
    /// Rebuild environments (failed ones included) instead of reusing them.
    pub rebuild: bool,
    /// Wall-clock limit of one installer command.
    pub timeout: Duration,
    /// Let the installer build source distributions (runs their build code on the host).
    pub allow_sdist_builds: bool,
    /// The package index's JSON API, where the sdists of packages that have no wheel are
    /// fetched from to be copied in unbuilt (uv only; `None`: such an environment fails).
    pub sdist_index: Option<url::Url>,
}

/// The options of every stage that builds repository environments and runs code in them
/// (execute, mask): the one place they are declared and turned into an [`EnvConfig`].
#[derive(Debug, Clone, Default, clap::Args)]
#[allow(clippy::struct_excessive_bools)] // command-line switches
pub struct EnvArgs {
    /// The Python interpreter of the worker (default: .tools/venv/bin/python, else python3);
    /// with --repo-tests, the Python environments are built on (its base interpreter).
    #[arg(long, value_name = "PATH")]
    pub python: Option<std::path::PathBuf>,
    /// The cache folder: environments in `DIR/envs`, repository trees in `DIR/trees`, uv's
    /// cache in `DIR/uv` (default: `$FRESHBENCH_CACHE`, else `.cache` of the working directory).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<std::path::PathBuf>,
    /// Build environments again, failed ones included, instead of reusing the cached ones.
    #[arg(long)]
    pub rebuild_envs: bool,
    /// The uv to build environments with (default: `$FRESHBENCH_UV`, `.tools/venv/bin/uv`, uv on
    /// `PATH`; without one, `python -m venv` and pip).
    #[arg(long, value_name = "PATH")]
    pub uv: Option<std::path::PathBuf>,
    /// Build environments with `python -m venv` and pip even when uv is there.
    #[arg(long)]
    pub no_uv: bool,
    /// Seconds one installer command (venv creation, installation) may take.
    #[arg(long, value_name = "SECS", default_value_t = 1200)]
    pub env_timeout: u64,
    /// Let the installer build source distributions: this runs third-party build code on the
    /// host, outside the sandbox (by default only wheels are installed).
    #[arg(long)]
    pub allow_sdist_builds: bool,
    /// The package index's JSON API: a dependency that has no wheel has its sdist fetched
    /// from there and its modules copied into the environment, never built [default:
    /// `https://pypi.org/pypi`].
    #[arg(long, value_name = "URL")]
    pub index_url: Option<url::Url>,
    /// Never copy in a dependency's sdist: an environment that needs a package without a
    /// wheel fails.
    #[arg(long)]
    pub no_sdist_copies: bool,
}

impl EnvArgs {
    /// The interpreter: `--python`, else the default one.
    pub fn interpreter(&self) -> PathBuf {
        self.python
            .clone()
            .unwrap_or_else(execution::backend::default_interpreter)
    }

    /// The environment configuration these options give.
    pub fn config(&self) -> EnvConfig {
        EnvConfig {
            cache_dir: self.cache_dir.clone().unwrap_or_else(default_cache_dir),
            python: self.interpreter(),
            uv: if self.no_uv {
                None
            } else {
                self.uv.clone().or_else(find_uv)
            },
            rebuild: self.rebuild_envs,
            timeout: Duration::from_secs(self.env_timeout),
            allow_sdist_builds: self.allow_sdist_builds,
            sdist_index: if self.no_sdist_copies {
                None
            } else {
                self.index_url.clone().or_else(default_sdist_index)
            },
        }
    }
}

/// The interpreter environments are built on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Interpreter {
    /// The base (non-venv) executable.
    pub base: PathBuf,
    /// `3.11.7`.
    pub version: String,
    /// `cpython`.
    pub implementation: String,
}

impl Interpreter {
    /// Asks `python` for its base executable and version.
    pub fn probe(python: &Path) -> Result<Interpreter, EnvError> {
        let out = Command::new(python)
            .args([
                "-I",
                "-c",
                "import sys,platform;print(getattr(sys,'_base_executable',None) or sys.executable);print(platform.python_version());print(sys.implementation.name)",
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|source| EnvError::Io {
                what: "cannot run the interpreter",
                path: python.to_path_buf(),
                source,
            })?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        match (
            out.status.success(),
            lines.next(),
            lines.next(),
            lines.next(),
        ) {
            (true, Some(base), Some(version), Some(implementation)) => Ok(Interpreter {
                base: PathBuf::from(base),
                version: version.to_string(),
                implementation: implementation.to_string(),
            }),
            _ => Err(EnvError::Interpreter {
                path: python.to_path_buf(),
                detail: String::from_utf8_lossy(&out.stderr).into_owned(),
            }),
        }
    }
}

/// Errors that stop the stage (not a failed build: that is [`EnvState::Failed`]).
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the interpreter {path} did not say its version (pass another with --python): {detail}"
    )]
    Interpreter { path: PathBuf, detail: String },
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> EnvError + 'a {
    move |source| EnvError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// How an environment came to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvState {
    /// Built by this call.
    Built,
    /// Found in the cache.
    Reused,
    /// The installer failed (now, or in an earlier run when `cached`).
    Failed { message: String, cached: bool },
}

impl EnvState {
    /// `built`, `reused`, `failed`, `failed (cached)`.
    pub fn label(&self) -> &'static str {
        match self {
            EnvState::Built => "built",
            EnvState::Reused => "reused",
            EnvState::Failed { cached: false, .. } => "failed",
            EnvState::Failed { cached: true, .. } => "failed (cached)",
        }
    }
}

/// An environment (usable unless its state is `Failed`).
#[derive(Debug, Clone)]
pub struct Env {
    pub key: String,
    /// `envs/<key>`.
    pub dir: PathBuf,
    /// `envs/<key>/bin/python` (the interpreter of a worker).
    pub python: PathBuf,
    pub state: EnvState,
}

/// What defines an environment; its hash is the key.
#[derive(Debug, serde::Serialize)]
struct KeyMaterial<'a> {
    format: u32,
    interpreter: &'a Interpreter,
    requirements: Vec<String>,
    pins: &'a [String],
    sdist_builds: bool,
}

/// The environments of one cache folder.
pub struct Envs {
    cfg: EnvConfig,
    interpreter: Interpreter,
    /// One lock per key: jobs of this process needing the same environment build it once.
    locks: Mutex<HashMap<String, Arc<Mutex<()>>>>,
    /// Keys rebuilt by this process (with `rebuild`, each is rebuilt once).
    rebuilt: Mutex<HashSet<String>>,
}

impl Envs {
    /// Opens the cache folder, removing `.tmp-*` leftovers of processes that are gone.
    pub fn open(cfg: EnvConfig) -> Result<Envs, EnvError> {
        let interpreter = Interpreter::probe(&cfg.python)?;
        let dir = cfg.cache_dir.join("envs");
        std::fs::create_dir_all(&dir).map_err(io_err("cannot create", &dir))?;
        remove_stale_tmp(&dir);
        Ok(Envs {
            cfg,
            interpreter,
            locks: Mutex::new(HashMap::new()),
            rebuilt: Mutex::new(HashSet::new()),
        })
    }

    pub fn interpreter(&self) -> &Interpreter {
        &self.interpreter
    }

    pub fn config(&self) -> &EnvConfig {
        &self.cfg
    }

    /// The key of the environment for `requirements` (order and duplicates do not matter).
    pub fn key(&self, requirements: &[String]) -> String {
        env_key(
            &self.interpreter,
            requirements,
            &tool_requirements(requirements),
            self.cfg.allow_sdist_builds,
        )
    }

    /// The environment for `requirements`: reused, or built now, or a recorded failure.
    pub fn ensure(&self, requirements: &[String]) -> Result<Env, EnvError> {
        let key = self.key(requirements);
        let lock = {
            let mut m = self
                .locks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            m.entry(key.clone()).or_default().clone()
        };
        let _guard = lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let envs = self.cfg.cache_dir.join("envs");
        let dir = envs.join(&key);
        let failed = envs.join(format!("{key}.failed"));
        let env = |state| Env {
            key: key.clone(),
            dir: dir.clone(),
            python: dir.join("bin/python"),
            state,
        };
        let rebuild = self.cfg.rebuild
            && self
                .rebuilt
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(key.clone());
        if rebuild {
            let _ = std::fs::remove_file(&failed);
            if dir.exists() {
                let old = envs.join(format!("{key}.old-{}", std::process::id()));
                std::fs::rename(&dir, &old).map_err(io_err("cannot move away", &dir))?;
                let _ = std::fs::remove_dir_all(&old);
            }
        } else {
            if is_complete(&dir) {
                return Ok(env(EnvState::Reused));
            }
            if let Ok(text) = std::fs::read_to_string(&failed) {
                let message = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| {
                        v.get("message")
                            .and_then(|m| m.as_str().map(str::to_string))
                    })
                    .unwrap_or(text);
                return Ok(env(EnvState::Failed {
                    message,
                    cached: true,
                }));
            }
        }
        let mut reqs: Vec<String> = requirements.to_vec();
        reqs.sort();
        reqs.dedup();
        let tmp = envs.join(format!("{key}.tmp-{}", std::process::id()));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io_err("cannot remove", &tmp))?;
        }
        tracing::info!(key = %key, requirements = reqs.len(), "building an environment");
        let t0 = Instant::now();
        let tools = tool_requirements(&reqs);
        let built = match self.build(&tmp, &reqs, &tools) {
            Err(InstallFailed(first))
                if unpinned_pytest(&tools).is_some()
                    && (first.contains("pytest") || first.contains("pluggy")) =>
            {
                // The pinned pytest may be what cannot go with the repository's plugins:
                // once more with pytest left to the resolver, as a plain install would.
                let unpinned = unpinned_pytest(&tools).unwrap_or_default();
                tracing::info!(key = %key, "the install failed with freshbench's pytest; trying pytest unpinned");
                let _ = std::fs::remove_dir_all(&tmp);
                self.build(&tmp, &reqs, &unpinned)
                    .map(|()| unpinned)
                    .map_err(|InstallFailed(second)| {
                        InstallFailed(format!(
                            "{second}\n(with freshbench's pytest pinned, it failed too:)\n{}",
                            cap_tail(&first, MESSAGE_CAP / 2)
                        ))
                    })
            }
            other => other.map(|()| tools.clone()),
        };
        match built {
            Ok(installed_tools) => {
                let material = KeyMaterial {
                    format: ENV_FORMAT,
                    interpreter: &self.interpreter,
                    requirements: reqs,
                    pins: &installed_tools,
                    sdist_builds: self.cfg.allow_sdist_builds,
                };
                let marker = tmp.join(MARKER);
                let text = serde_json::to_string_pretty(&material).unwrap_or_default();
                std::fs::write(&marker, text).map_err(io_err("cannot write", &marker))?;
                make_world_readable(&tmp);
                match schemas::io::rename_durably(&tmp, &dir) {
                    Ok(()) => {}
                    Err(_) if is_complete(&dir) => {
                        // Another process finished the same environment first: use it.
                        let _ = std::fs::remove_dir_all(&tmp);
                        return Ok(env(EnvState::Reused));
                    }
                    Err(e) => {
                        let _ = std::fs::remove_dir_all(&tmp);
                        return Err(io_err("cannot rename into place", &dir)(e));
                    }
                }
                tracing::info!(key = %key, seconds = t0.elapsed().as_secs(), "environment built");
                Ok(env(EnvState::Built))
            }
            Err(InstallFailed(message)) => {
                let _ = std::fs::remove_dir_all(&tmp);
                let body = serde_json::json!({ "key": key, "message": message }).to_string();
                schemas::io::write_bytes_atomic(&failed, body.as_bytes())
                    .map_err(io_err("cannot write", &failed))?;
                tracing::warn!(key = %key, "environment did not build");
                Ok(env(EnvState::Failed {
                    message,
                    cached: false,
                }))
            }
        }
    }

    /// Builds an environment in `tmp` with `reqs` and freshbench's `tools`; `Err` is the
    /// installer's message.
    fn build(&self, tmp: &Path, reqs: &[String], tools: &[String]) -> Result<(), InstallFailed> {
        std::fs::create_dir_all(tmp)
            .map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        let log = tmp.join(LOG);
        let reqs_file = tmp.join("freshbench-requirements.txt");
        let mut all: Vec<String> = reqs.to_vec();
        all.extend(tools.iter().cloned());
        std::fs::write(&reqs_file, all.join("\n") + "\n")
            .map_err(|e| format!("cannot write {}: {e}", reqs_file.display()))?;
        let base = &self.interpreter.base;
        let uv_cache = self.cfg.cache_dir.join("uv");
        let run = |mut cmd: Command| {
            let shown = format!("{cmd:?}");
            run_logged(&mut cmd, &log, self.cfg.timeout, &self.cfg.cache_dir)
                .map_err(|why| InstallFailed(format!("{why}\n$ {shown}\n{}", log_tail(&log))))
        };
        let Some(uv) = &self.cfg.uv else {
            let mut venv = Command::new(base);
            venv.args(["-m", "venv"]).arg(tmp);
            run(venv)?;
            let mut install = Command::new(tmp.join("bin/python"));
            install
                .args([
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--disable-pip-version-check",
                    "--no-input",
                    "-r",
                ])
                .arg(&reqs_file);
            if !self.cfg.allow_sdist_builds {
                install.args(["--only-binary", ":all:"]);
            }
            return run(install);
        };
        let uv_env = |c: &mut Command| {
            c.env("UV_CACHE_DIR", &uv_cache)
                .env("UV_PYTHON_DOWNLOADS", "never")
                .env("UV_NO_PROGRESS", "1");
            if std::env::var_os("SSL_CERT_FILE").is_some() {
                // Trust the machine's store (and SSL_CERT_FILE), as a proxy with its own
                // CA needs.
                c.env("UV_NATIVE_TLS", "1");
            }
        };
        let mut venv = Command::new(uv);
        venv.args([
            "venv",
            "--no-config",
            "--no-project",
            "--relocatable",
            "--allow-existing",
            "-q",
            "--python",
        ])
        .arg(base)
        .arg(tmp);
        uv_env(&mut venv);
        run(venv)?;
        let install = || {
            let mut c = Command::new(uv);
            c.args(["pip", "install", "--no-config", "-q", "--python"])
                .arg(tmp.join("bin/python"))
                .arg("-r")
                .arg(&reqs_file);
            if !self.cfg.allow_sdist_builds {
                c.arg("--no-build");
            }
            uv_env(&mut c);
            c
        };
        // Packages that have no wheel: their sdists' files are copied in (never built),
        // then the install is tried again (see [`sdist`]).
        let mut unpacked: Vec<String> = Vec::new();
        let mut relaxed = 0;
        loop {
            let Err(InstallFailed(message)) = run(install()) else {
                return Ok(());
            };
            // A repository's pin to a version its index does not have (a test requirements
            // file pinned to a release newer than the index's copy, or one taken down): the
            // newest version up to it stands in, as the project's tests were meant to run
            // with about that version.
            let missing = missing_pins(&message);
            let mut changed = false;
            for (name, version) in &missing {
                for line in &mut all {
                    let pin = format!("=={version}");
                    if requirements::requirement_name(line).is_some_and(|n| {
                        requirements::normalize(n) == requirements::normalize(name)
                    }) && line.contains(&pin)
                        && relaxed < MAX_RELAXED
                    {
                        let was = line.clone();
                        *line = line.replacen(&pin, &format!("<={version}"), 1);
                        append_log(&log, &format!("freshbench: the index has no {name}=={version}: `{was}` relaxed to `{line}`"));
                        tracing::info!(package = %name, version = %version, "a pin the index cannot satisfy: relaxed to the newest version up to it");
                        relaxed += 1;
                        changed = true;
                    }
                }
            }
            if changed {
                std::fs::write(&reqs_file, all.join("\n") + "\n")
                    .map_err(|e| format!("cannot write {}: {e}", reqs_file.display()))?;
                continue;
            }
            let Some(index) = self
                .cfg
                .sdist_index
                .as_ref()
                .filter(|_| !self.cfg.allow_sdist_builds)
            else {
                return Err(InstallFailed(message));
            };
            let new: Vec<String> = sdist::wheelless(&message)
                .into_iter()
                .filter(|n| {
                    !unpacked
                        .iter()
                        .any(|u| requirements::normalize(u) == requirements::normalize(n))
                })
                .collect();
            if new.is_empty() || unpacked.len() + new.len() > MAX_UNPACKED {
                return Err(InstallFailed(message));
            }
            for name in new {
                match self.unpack_sdist(tmp, index, &name, reqs) {
                    Ok(line) => {
                        tracing::info!(package = %name, "no wheel: installed from its sdist's files, not built");
                        append_log(&log, &line);
                        unpacked.push(name);
                    }
                    Err(why) => {
                        return Err(InstallFailed(format!(
                            "{message}\n{name} has no wheel, and its sdist cannot be used without building it: {why}"
                        )));
                    }
                }
            }
        }
    }

    /// Fetches the sdist of `name` (the version the requirements on it allow) and copies
    /// its packages and modules into the environment being built at `tmp`; says what it
    /// installed.
    fn unpack_sdist(
        &self,
        tmp: &Path,
        index: &url::Url,
        name: &str,
        reqs: &[String],
    ) -> Result<String, String> {
        let specifier = reqs
            .iter()
            .filter(|r| {
                requirements::requirement_name(r)
                    .is_some_and(|n| requirements::normalize(n) == requirements::normalize(name))
            })
            .find_map(|r| requirements::requirement_specifier(r))
            .map(str::to_string);
        let http = crawl::http::Http::new();
        let store = self.cfg.cache_dir.join("sdists");
        let from_index = crawl::pypi::Fetcher {
            http: &http,
            index,
            cache: std::fs::create_dir_all(&store)
                .is_ok()
                .then_some(store.as_path()),
            max_archive_bytes: SDIST_MAX_BYTES,
        };
        let fetched = from_index
            .sdist(name, &|versions| {
                sdist::choose_version(versions, specifier.as_deref())
            })
            .map_err(|e| e.to_string())?;
        let unpacked = sdist::unpack(
            &fetched.name,
            &fetched.version,
            &fetched.file,
            &fetched.bytes,
        )?;
        let site = site_packages(tmp).ok_or("the new environment has no site-packages folder")?;
        unpacked
            .install(&site)
            .map_err(|e| format!("cannot write into {}: {e}", site.display()))?;
        Ok(format!(
            "freshbench: {} {} has no wheel: {} files of {} copied into site-packages, not built",
            fetched.name,
            fetched.version,
            unpacked.files.len(),
            fetched.file
        ))
    }
}

/// The `site-packages` folder of the environment at `dir` (`lib/python3.X/site-packages`).
/// The exact pins uv says no version satisfies, from its message for a failed install
/// (`there is no version of certifi==2026.10.23`, `only certifi<=2026.8.1 is available and
/// you require certifi==2026.10.23`): name and version, in order, without duplicates.
pub fn missing_pins(message: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    let mut take = |word: &str| {
        let word = word.trim_end_matches([',', '.', ':', ';', ')']);
        if let Some((name, version)) = word.split_once("==") {
            let ok = |s: &str| !s.is_empty() && !s.contains(['=', '<', '>', '!', '~', '*']);
            if ok(name) && ok(version) && !found.iter().any(|(n, v)| n == name && v == version) {
                found.push((name.to_string(), version.to_string()));
            }
        }
    };
    for part in message.split("there is no version of ").skip(1) {
        take(part.split_whitespace().next().unwrap_or(""));
    }
    for part in message.split(" is available and you require ").skip(1) {
        take(part.split_whitespace().next().unwrap_or(""));
    }
    found
}

fn site_packages(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir.join("lib"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
}

/// Appends a line of freshbench's own to an environment's build log.
fn append_log(log: &Path, line: &str) {
    use std::io::Write as _;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        let _ = writeln!(f, "{line}");
    }
}

/// The package index sdists are fetched from by default (crawl's).
pub fn default_sdist_index() -> Option<url::Url> {
    url::Url::parse(crawl::DEFAULT_INDEX_URL).ok()
}

/// Why an environment did not build: the installer's message (a cached state of the
/// environment, not an error of the stage).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InstallFailed(pub String);

impl From<String> for InstallFailed {
    fn from(s: String) -> InstallFailed {
        InstallFailed(s)
    }
}

/// The content hash of what defines an environment (32 hex digits).
pub fn env_key(
    interpreter: &Interpreter,
    requirements: &[String],
    pins: &[String],
    sdist_builds: bool,
) -> String {
    let mut reqs: Vec<String> = requirements.iter().map(|r| r.trim().to_string()).collect();
    reqs.sort();
    reqs.dedup();
    let material = KeyMaterial {
        format: ENV_FORMAT,
        interpreter,
        requirements: reqs,
        pins,
        sdist_builds,
    };
    let bytes = serde_json::to_vec(&material).unwrap_or_default();
    hex::encode(&Sha256::digest(&bytes)[..16])
}

fn is_complete(dir: &Path) -> bool {
    dir.join(MARKER).is_file() && dir.join("bin/python").exists()
}

/// Removes `<x>.tmp-<pid>` and `<x>.old-<pid>` entries of `dir` whose process is gone.
pub fn remove_stale_tmp(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let pid = name
            .rsplit_once(".tmp-")
            .or_else(|| name.rsplit_once(".old-"))
            .and_then(|(_, pid)| pid.parse::<i32>().ok());
        if let Some(pid) = pid {
            if !process_alive(pid) {
                tracing::debug!(path = %e.path().display(), "removing a leftover of a dead run");
                let p = e.path();
                if p.is_dir() {
                    let _ = std::fs::remove_dir_all(&p);
                } else {
                    let _ = std::fs::remove_file(&p);
                }
            }
        }
    }
}

fn process_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Adds read (and, on folders, search) permission for everyone: the worker's sandbox uid
/// must read the environment whatever the umask was.
fn make_world_readable(dir: &Path) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        let mode = meta.permissions().mode();
        let want = if meta.is_dir() || mode & 0o100 != 0 {
            mode | 0o555
        } else {
            mode | 0o444
        };
        if want != mode {
            let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(want));
        }
        if meta.is_dir() {
            if let Ok(rd) = std::fs::read_dir(&p) {
                stack.extend(rd.flatten().map(|e| e.path()));
            }
        }
    }
}

/// Runs `cmd` (in `cwd`) with its output appended to `log`, killing its process group after
/// `timeout`. `Err` says why it failed.
fn run_logged(
    cmd: &mut Command,
    log: &Path,
    timeout: Duration,
    cwd: &Path,
) -> Result<(), InstallFailed> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let mut child = cmd
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(err))
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", cmd.get_program().to_string_lossy()))?;
    let t0 = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                return Err(InstallFailed(format!("the installer failed ({status})")))
            }
            Ok(None) => {}
            Err(e) => return Err(InstallFailed(format!("cannot wait for the installer: {e}"))),
        }
        if t0.elapsed() > timeout {
            // SAFETY: killing the process group of our own child.
            unsafe {
                libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
            }
            let _ = child.wait();
            return Err(InstallFailed(format!(
                "the installer took more than {timeout:?} and was killed"
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The last [`MESSAGE_CAP`] characters of a log.
fn log_tail(log: &Path) -> String {
    let mut s = String::new();
    if let Ok(mut f) = std::fs::File::open(log) {
        let mut bytes = Vec::new();
        let _ = f.read_to_end(&mut bytes);
        s = String::from_utf8_lossy(&bytes).into_owned();
    }
    cap_tail(s.trim(), MESSAGE_CAP)
}

/// The end of `s`, at most `cap` characters, marked when cut.
pub fn cap_tail(s: &str, cap: usize) -> String {
    let n = s.chars().count();
    if n <= cap {
        return s.to_string();
    }
    let tail: String = s.chars().skip(n - cap).collect();
    format!("...{tail}")
}

/// The uv to use: `$FRESHBENCH_UV`, `.tools/venv/bin/uv` (of the working directory or a
/// folder above the running binary), `uv` on `PATH`; `None` when there is none (then venv and pip).
pub fn find_uv() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FRESHBENCH_UV") {
        return Some(PathBuf::from(p));
    }
    if let Some(c) = execution::backend::find_tool("uv").filter(|c| c.is_file()) {
        return std::fs::canonicalize(&c).ok().or(Some(c));
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("uv"))
            .find(|p| p.is_file())
    })
}

/// The cache folder: `$FRESHBENCH_CACHE` (when set and not empty), else `.cache` of the
/// working directory ([`schemas::cli::cache_root`], the same rule in every stage).
pub fn default_cache_dir() -> PathBuf {
    schemas::cli::cache_root()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_pins_no_version_satisfies() {
        // uv 0.13's messages, the first as seen for a real project's test requirements.
        let seen = [
            ("error: No solution found when resolving dependencies\n  cause: Because there is no version of certifi==2026.10.23 and you require certifi==2026.10.23, we can conclude that your requirements are unsatisfiable.", vec![("certifi", "2026.10.23")]),
            ("  cause: Because only Foo.Bar<=1.2 is available and you require Foo.Bar==1.4, we can conclude", vec![("Foo.Bar", "1.4")]),
            ("  cause: Because there is no version of a==1 and b==2 depends on a==1, b==2 cannot be used.\n  And because there is no version of c==3.0.post1, ...", vec![("a", "1"), ("c", "3.0.post1")]),
            // A range is no pin to relax, and a missing wheel is another failure.
            ("  cause: Because there is no version of d>=9 and you require d>=9, we can conclude", vec![]),
            ("  cause: Because docopt==0.6.2 has no usable wheels and you require docopt==0.6.2", vec![]),
        ];
        for (message, pins) in seen {
            let want: Vec<(String, String)> = pins
                .iter()
                .map(|(n, v)| ((*n).to_string(), (*v).to_string()))
                .collect();
            assert_eq!(missing_pins(message), want, "{message}");
        }
    }
}
