//! The `docker` backend: the same runner and JSON-lines protocol as the process backend, in a
//! container per worker, started through the Docker Engine API (bollard) on one or several
//! engines.
//!
//! # What a container gets
//! - the image `execute --build-image` made ([`crate::image`]: Debian's Python, coverage and
//!   pytest), with the runner's files laid into a layer of their own on each engine
//!   (`freshbench-runner:<hash of the base image and the runner>`, made once);
//! - network `none` (only `lo`), a read-only root, tmpfs work folder (`/sandbox/work`) and
//!   `/tmp` of the limits' disk size, all capabilities dropped, `no-new-privileges`, the
//!   unprivileged user `10001:10001`, memory with no swap, CPUs and a pids limit, rlimits for
//!   core files, file size and open files (the runner lowers address space and CPU per
//!   request, as in the process backend);
//! - the repository tree, and a repository environment (a venv and the Python it was made
//!   from), read-only at their host paths (so a venv's absolute paths hold): bound from the
//!   host by an engine on this machine; copied once into a volume of a remote engine
//!   (`tcp://`), named by a hash of the folder's path and identity and filled by one upload
//!   whose last entry marks it complete, then mounted like a bind. The tools' interpreter is
//!   replaced by the image's own Python;
//! - the runner is pid 1 of the container: ending a request's process kills everything else
//!   in the container (`--kill-all`), and ending the worker removes the container.
//!
//! # Clean-up
//! Every container is labelled `freshbench.worker` with its owner (`host:pid`); it is removed
//! when its worker is dropped or times out, and, started with auto-remove and stdin attached
//! once, it also goes when freshbench dies (the runner ends at the end of its input, the
//! engine then removes the container). A backend removes at start every container of this
//! machine whose owner process is gone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bollard::models::{ContainerCreateBody, HostConfig, ResourcesUlimits};
use bollard::query_parameters::{
    AttachContainerOptions, CommitContainerOptions, CreateContainerOptions, ListContainersOptions,
    RemoveContainerOptions, UploadToContainerOptions,
};
use bollard::{Docker, API_DEFAULT_VERSION};
use futures_util::StreamExt as _;
use sha2::{Digest as _, Sha256};
use tokio::io::AsyncWriteExt as _;

use crate::backend::{
    default_interpreter, resolve_dir, Backend, ExecError, Failure, Limits, Worker, WorkerInfo,
    WorkerSpec,
};
use crate::process::{PythonDirs, RUNNER_FILES};
use crate::protocol::{Isolation, Outcome, Request};
use crate::worker::{await_answer, decode_answer, encode_request, said};

/// The local engine's socket.
pub const LOCAL_SOCKET: &str = "unix:///var/run/docker.sock";
/// Where the runner's files are in the runner image.
pub const RUNNER_DIR: &str = "/opt/freshbench/runner";
/// The image's Python (Debian's), which stands in for the tools' interpreter.
pub const IMAGE_PYTHON: &str = "/usr/bin/python3";
/// The unprivileged user code runs as (made by the image's recipe).
pub const SANDBOX_USER: &str = "10001:10001";
/// The work folder and scratch inside a container.
pub const WORK: &str = "/sandbox/work";
const SCRATCH: &str = "/tmp";
/// The label every worker container carries; its value is the owner, `host:pid`.
pub const LABEL_OWNER: &str = "freshbench.worker";
/// How long a container may take to start and say hello.
const START_TIMEOUT: Duration = Duration::from_secs(90);
/// The stderr kept per worker (its tail is shown when it dies).
const LOG_CAP: usize = 64 << 10;

/// Options of the docker backend.
#[derive(Debug, Clone)]
pub struct DockerOptions {
    /// The engines (`unix://…`, `tcp://…`); workers go to them in turn.
    pub hosts: Vec<String>,
    /// The base image; `None`: [`crate::image::default_tag`].
    pub image: Option<String>,
    /// CPUs per container.
    pub cpus: f64,
    /// Memory per container (swap included: no swap).
    pub memory_bytes: u64,
    /// Timeout of one API call.
    pub connect_timeout: Duration,
}

impl Default for DockerOptions {
    fn default() -> DockerOptions {
        DockerOptions {
            hosts: vec![LOCAL_SOCKET.into()],
            image: None,
            cpus: 1.0,
            memory_bytes: 4 << 30,
            connect_timeout: Duration::from_secs(30),
        }
    }
}

/// One engine a backend uses.
struct Engine {
    host: String,
    docker: Docker,
    /// On this machine (a Unix socket): host paths can be bound.
    local: bool,
    /// The engine's version.
    version: String,
    /// The base image with the runner laid in.
    runner_image: String,
    /// Volumes known to hold a folder of this machine (remote engines).
    volumes: Mutex<std::collections::HashSet<String>>,
}

/// The `docker` backend.
pub struct DockerBackend {
    rt: Arc<tokio::runtime::Runtime>,
    engines: Vec<Engine>,
    next: AtomicUsize,
    owner: String,
    image: String,
    opts: DockerOptions,
    python_dirs: PythonDirs,
    /// The tools' interpreter, replaced by the image's Python.
    tools_python: PathBuf,
}

/// Connects to one engine.
pub fn connect(host: &str, timeout: Duration) -> Result<Docker, ExecError> {
    let secs = timeout.as_secs().max(1);
    let r = if let Some(path) = host.strip_prefix("unix://") {
        Docker::connect_with_unix(path, secs, API_DEFAULT_VERSION)
    } else if host.starts_with('/') {
        Docker::connect_with_unix(host, secs, API_DEFAULT_VERSION)
    } else if host.starts_with("tcp://") || host.starts_with("http://") {
        Docker::connect_with_http(host, secs, API_DEFAULT_VERSION)
    } else {
        return Err(ExecError::Config(format!(
            "--docker-host {host}: give unix:///path/to/docker.sock or tcp://host:port"
        )));
    };
    r.map_err(|e| ExecError::DockerSetup {
        host: host.into(),
        detail: e.to_string(),
    })
}

/// A runtime for the engine API; callers stay synchronous.
pub fn runtime() -> Result<tokio::runtime::Runtime, ExecError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("docker-api")
        .enable_all()
        .build()
        .map_err(|source| ExecError::Io {
            what: "cannot start the docker API runtime",
            path: PathBuf::new(),
            source,
        })
}

/// `host:pid` of this process, the owner label of its containers.
fn owner() -> String {
    format!("{}:{}", hostname(), std::process::id())
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map_or_else(|_| "unknown".into(), |h| h.trim().to_string())
}

/// Whether process `pid` of this machine is alive.
#[allow(unsafe_code)]
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

fn setup_err(host: &str) -> impl Fn(bollard::errors::Error) -> ExecError + '_ {
    move |e| ExecError::DockerSetup {
        host: host.into(),
        detail: e.to_string(),
    }
}

/// A tar of files (path in the archive, text, mode), with their folders.
pub(crate) fn tar_of(files: &[(String, &[u8], u32)]) -> std::io::Result<Vec<u8>> {
    let mut b = tar::Builder::new(Vec::new());
    let mut dirs: Vec<String> = Vec::new();
    for (path, _, _) in files {
        let mut acc = String::new();
        for part in Path::new(path)
            .parent()
            .into_iter()
            .flat_map(Path::components)
        {
            if !acc.is_empty() {
                acc.push('/');
            }
            acc.push_str(&part.as_os_str().to_string_lossy());
            if !dirs.contains(&acc) {
                dirs.push(acc.clone());
            }
        }
    }
    for d in &dirs {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Directory);
        h.set_mode(0o755);
        h.set_size(0);
        b.append_data(&mut h, format!("{d}/"), std::io::empty())?;
    }
    for (path, data, mode) in files {
        let mut h = tar::Header::new_gnu();
        h.set_mode(*mode);
        h.set_size(data.len() as u64);
        b.append_data(&mut h, path, *data)?;
    }
    b.into_inner()
}

impl DockerBackend {
    /// Connects to every engine of `opts`, removes the containers a dead freshbench left on
    /// them, and makes sure each has the image (and the runner layer on it).
    pub fn new(opts: &DockerOptions) -> Result<DockerBackend, ExecError> {
        if opts.hosts.is_empty() {
            return Err(ExecError::Config("no docker engine given".into()));
        }
        let rt = runtime()?;
        let image = opts.image.clone().unwrap_or_else(crate::image::default_tag);
        let mut engines = Vec::new();
        for host in &opts.hosts {
            let docker = connect(host, opts.connect_timeout)?;
            let engine = rt.block_on(prepare(host, docker, &image))?;
            engines.push(engine);
        }
        Ok(DockerBackend {
            rt: Arc::new(rt),
            engines,
            next: AtomicUsize::new(0),
            owner: owner(),
            image,
            opts: opts.clone(),
            python_dirs: PythonDirs::default(),
            tools_python: resolve_dir(&default_interpreter()),
        })
    }

    /// The engines: host and version.
    pub fn engines(&self) -> Vec<(String, String)> {
        self.engines
            .iter()
            .map(|e| (e.host.clone(), e.version.clone()))
            .collect()
    }

    /// The base image.
    pub fn image(&self) -> &str {
        &self.image
    }

    /// The options.
    pub fn options(&self) -> &DockerOptions {
        &self.opts
    }

    /// Containers of this backend's owner still present on its engines (none once every
    /// worker is dropped).
    pub fn own_containers(&self) -> Result<Vec<String>, ExecError> {
        let mut out = Vec::new();
        for e in &self.engines {
            out.extend(
                self.rt
                    .block_on(list_labelled(&e.docker, Some(&self.owner)))
                    .map_err(setup_err(&e.host))?
                    .into_iter()
                    .map(|(id, _)| id),
            );
        }
        Ok(out)
    }
}

/// The marker a filled volume ends with.
const FILLED: &str = ".freshbench-filled";
/// The label of the volumes that hold a folder of this machine (its value: the path).
pub const LABEL_FILES: &str = "freshbench.files";

impl DockerBackend {
    /// The volume of a remote engine that holds `dir` of this machine, filled on first use.
    fn volume_of(&self, engine: &Engine, dir: &Path) -> Result<String, ExecError> {
        use std::os::unix::fs::MetadataExt as _;
        let meta = std::fs::metadata(dir).map_err(|source| ExecError::Io {
            what: "cannot read",
            path: dir.to_path_buf(),
            source,
        })?;
        let mut h = Sha256::new();
        h.update(dir.as_os_str().as_encoded_bytes());
        h.update(
            format!(
                "\0{}:{}:{}:{}",
                meta.dev(),
                meta.ino(),
                meta.mtime(),
                meta.mtime_nsec()
            )
            .as_bytes(),
        );
        let name = format!("freshbench-files-{}", hex::encode(&h.finalize()[..8]));
        if engine.volumes.lock().is_ok_and(|v| v.contains(&name)) {
            return Ok(name);
        }
        let t0 = Instant::now();
        let uploaded = self.rt.block_on(fill_volume(engine, &name, dir))?;
        if uploaded > 0 {
            tracing::info!(
                host = engine.host,
                dir = %dir.display(),
                mib = uploaded >> 20,
                ms = t0.elapsed().as_millis(),
                "copied a folder into a volume of a remote engine"
            );
        }
        if let Ok(mut v) = engine.volumes.lock() {
            v.insert(name.clone());
        }
        Ok(name)
    }
}

/// Makes volume `name` hold `dir` unless it already does (its marker is there); the bytes
/// uploaded (0: already filled).
async fn fill_volume(engine: &Engine, name: &str, dir: &Path) -> Result<u64, ExecError> {
    let docker = &engine.docker;
    let err = |e: bollard::errors::Error| ExecError::Docker {
        host: engine.host.clone(),
        detail: format!("volume for {}: {e}", dir.display()),
    };
    docker
        .create_volume(bollard::models::VolumeCreateOptions {
            name: Some(name.into()),
            labels: Some(HashMap::from([(
                LABEL_FILES.to_string(),
                dir.display().to_string(),
            )])),
            ..bollard::models::VolumeCreateOptions::default()
        })
        .await
        .map_err(err)?;
    let helper = docker
        .create_container(
            None::<CreateContainerOptions>,
            ContainerCreateBody {
                image: Some(engine.runner_image.clone()),
                cmd: Some(vec!["true".into()]),
                network_disabled: Some(true),
                host_config: Some(HostConfig {
                    binds: Some(vec![format!("{name}:/fill")]),
                    ..HostConfig::default()
                }),
                ..ContainerCreateBody::default()
            },
        )
        .await
        .map_err(err)?;
    let result = async {
        let mut marker = docker.download_from_container(
            &helper.id,
            Some(bollard::query_parameters::DownloadFromContainerOptions {
                path: format!("/fill/{FILLED}"),
            }),
        );
        let mut filled = true;
        while let Some(chunk) = marker.next().await {
            if chunk.is_err() {
                filled = false;
                break;
            }
        }
        if filled {
            return Ok(0);
        }
        let tar = tar_of_dir(dir).map_err(|e| ExecError::Io {
            what: "cannot pack for a remote engine",
            path: dir.to_path_buf(),
            source: e,
        })?;
        let n = tar.len() as u64;
        docker
            .upload_to_container(
                &helper.id,
                Some(UploadToContainerOptions {
                    path: "/fill".into(),
                    ..UploadToContainerOptions::default()
                }),
                bollard::body_full(tar.into()),
            )
            .await
            .map_err(err)?;
        Ok(n)
    }
    .await;
    remove(docker, &helper.id).await;
    result
}

/// A tar of the folder's contents (symlinks kept as links), its marker last.
fn tar_of_dir(dir: &Path) -> std::io::Result<Vec<u8>> {
    let mut b = tar::Builder::new(Vec::new());
    b.follow_symlinks(false);
    b.append_dir_all(".", dir)?;
    let mut h = tar::Header::new_gnu();
    h.set_mode(0o644);
    h.set_size(0);
    b.append_data(&mut h, FILLED, std::io::empty())?;
    b.into_inner()
}

/// Containers labelled as workers (of `owner` only, if given): id and owner.
async fn list_labelled(
    docker: &Docker,
    owner: Option<&str>,
) -> Result<Vec<(String, String)>, bollard::errors::Error> {
    let label = match owner {
        Some(o) => format!("{LABEL_OWNER}={o}"),
        None => LABEL_OWNER.to_string(),
    };
    let filters = HashMap::from([("label".to_string(), vec![label])]);
    let list = docker
        .list_containers(Some(ListContainersOptions {
            all: true,
            filters: Some(filters),
            ..ListContainersOptions::default()
        }))
        .await?;
    Ok(list
        .into_iter()
        .filter_map(|c| {
            let owner = c.labels.as_ref()?.get(LABEL_OWNER)?.clone();
            Some((c.id?, owner))
        })
        .collect())
}

async fn remove(docker: &Docker, id: &str) {
    let _ = docker
        .remove_container(
            id,
            Some(RemoveContainerOptions {
                force: true,
                v: true,
                ..RemoveContainerOptions::default()
            }),
        )
        .await;
}

/// Connects, cleans up after dead owners, checks the image and lays the runner into it.
async fn prepare(host: &str, docker: Docker, image: &str) -> Result<Engine, ExecError> {
    let version = docker.version().await.map_err(|e| ExecError::DockerSetup {
        host: host.into(),
        detail: format!("unreachable ({e}); is the engine running, and is --docker-host right?"),
    })?;
    let local = host.starts_with("unix://") || host.starts_with('/');
    let me = hostname();
    let mut removed = 0;
    for (id, owner) in list_labelled(&docker, None)
        .await
        .map_err(setup_err(host))?
    {
        let (h, pid) = owner.rsplit_once(':').unwrap_or((owner.as_str(), ""));
        let dead = h == me && pid.parse::<i32>().is_ok_and(|p| !alive(p));
        if dead {
            remove(&docker, &id).await;
            removed += 1;
        }
    }
    if removed > 0 {
        tracing::info!(
            host,
            removed,
            "removed containers left by a freshbench that ended"
        );
    }
    let base = docker
        .inspect_image(image)
        .await
        .map_err(|e| ExecError::DockerSetup {
            host: host.into(),
            detail: format!(
                "no image {image} ({e}); build it with `execute --build-image` (make setup does where an engine is reachable)"
            ),
        })?;
    let base_id = base.id.unwrap_or_default();
    let mut h = Sha256::new();
    h.update(base_id.as_bytes());
    for (name, text) in RUNNER_FILES {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.update([0]);
    }
    let tag = hex::encode(&h.finalize()[..6]);
    let runner_image = format!("freshbench-runner:{tag}");
    if docker.inspect_image(&runner_image).await.is_err() {
        lay_runner(host, &docker, image, &tag).await?;
    }
    Ok(Engine {
        host: host.into(),
        docker,
        local,
        version: version.version.unwrap_or_default(),
        runner_image,
        volumes: Mutex::new(std::collections::HashSet::new()),
    })
}

/// Makes `freshbench-runner:TAG`: the base image with the runner's files in [`RUNNER_DIR`].
async fn lay_runner(host: &str, docker: &Docker, image: &str, tag: &str) -> Result<(), ExecError> {
    let err = setup_err(host);
    let created = docker
        .create_container(
            None::<CreateContainerOptions>,
            ContainerCreateBody {
                image: Some(image.into()),
                cmd: Some(vec!["true".into()]),
                network_disabled: Some(true),
                ..ContainerCreateBody::default()
            },
        )
        .await
        .map_err(&err)?;
    let files: Vec<(String, &[u8], u32)> = RUNNER_FILES
        .iter()
        .map(|(n, t)| {
            (
                format!("{}/{n}", RUNNER_DIR.trim_start_matches('/')),
                t.as_bytes(),
                0o644,
            )
        })
        .collect();
    let tar = tar_of(&files).map_err(|e| ExecError::DockerSetup {
        host: host.into(),
        detail: format!("cannot pack the runner: {e}"),
    })?;
    let result = async {
        docker
            .upload_to_container(
                &created.id,
                Some(UploadToContainerOptions {
                    path: "/".into(),
                    ..UploadToContainerOptions::default()
                }),
                bollard::body_full(tar.into()),
            )
            .await?;
        docker
            .commit_container(
                CommitContainerOptions {
                    container: Some(created.id.clone()),
                    repo: Some("freshbench-runner".into()),
                    tag: Some(tag.into()),
                    comment: Some("freshbench's runner on its base image".into()),
                    ..CommitContainerOptions::default()
                },
                bollard::models::ContainerConfig::default(),
            )
            .await
    }
    .await;
    remove(docker, &created.id).await;
    result.map(|_| ()).map_err(err)
}

impl Backend for DockerBackend {
    fn name(&self) -> &'static str {
        "docker"
    }

    fn start(&self, spec: &WorkerSpec, limits: &Limits) -> Result<Box<dyn Worker>, ExecError> {
        let t0 = Instant::now();
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.engines.len();
        let engine = &self.engines[i];
        let mut binds: Vec<PathBuf> = Vec::new();
        let interpreter = match &spec.interpreter {
            Some(p) if resolve_dir(p) != self.tools_python => {
                let p = resolve_dir(p);
                binds.extend(self.python_dirs.get(&p)?);
                p.to_string_lossy().into_owned()
            }
            _ => IMAGE_PYTHON.to_string(),
        };
        binds.extend(spec.readonly.iter().cloned());
        if let Some(t) = &spec.tree {
            binds.push(std::path::absolute(t).unwrap_or_else(|_| t.clone()));
        }
        binds.sort();
        binds.dedup();
        let mut mounts = Vec::with_capacity(binds.len());
        for b in &binds {
            mounts.push(if engine.local {
                format!("{0}:{0}:ro", b.display())
            } else {
                format!("{}:{}:ro", self.volume_of(engine, b)?, b.display())
            });
        }
        let mut cmd: Vec<String> = vec![
            interpreter.clone(),
            format!("{RUNNER_DIR}/runner.py"),
            "--work".into(),
            WORK.into(),
            "--scratch".into(),
            SCRATCH.into(),
        ];
        if let Some(t) = &spec.tree {
            cmd.push("--tree".into());
            cmd.push(
                std::path::absolute(t)
                    .unwrap_or_else(|_| t.clone())
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        let read_roots = [
            "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/dev", "/proc", "/sys", RUNNER_DIR,
        ];
        for r in read_roots {
            cmd.push("--read".into());
            cmd.push(r.into());
        }
        for b in &binds {
            cmd.push("--read".into());
            cmd.push(b.to_string_lossy().into_owned());
            cmd.push("--readonly".into());
            cmd.push(b.to_string_lossy().into_owned());
        }
        cmd.push("--readonly".into());
        cmd.push(RUNNER_DIR.into());
        for p in &spec.sys_path {
            cmd.push("--sys-path".into());
            cmd.push(p.clone());
        }
        for m in &spec.preload {
            cmd.push("--preload".into());
            cmd.push(m.clone());
        }
        cmd.push("--kill-all".into());
        let mut env: Vec<String> = vec![
            "PATH=/usr/local/bin:/usr/bin:/bin".into(),
            format!("HOME={WORK}"),
            format!("TMPDIR={SCRATCH}"),
            "LANG=C.UTF-8".into(),
            "PYTHONDONTWRITEBYTECODE=1".into(),
            "PYTHONNOUSERSITE=1".into(),
            "PYTHONIOENCODING=utf-8".into(),
        ];
        env.extend(
            spec.env
                .iter()
                .filter(|(k, _)| k != "PYTHONHASHSEED")
                .map(|(k, v)| format!("{k}={v}")),
        );
        env.push(format!("PYTHONHASHSEED={}", spec.hash_seed));
        // The work folder belongs to the sandbox user (the runner copies the tree into it,
        // permissions and times included); /tmp is everyone's, as usual.
        let (uid, gid) = SANDBOX_USER.split_once(':').unwrap_or(("10001", "10001"));
        let work_opts = format!(
            "rw,nosuid,nodev,size={},mode=0700,uid={uid},gid={gid}",
            limits.disk_bytes
        );
        let tmpfs_opts = format!("rw,nosuid,nodev,size={},mode=1777", limits.disk_bytes);
        let host_config = HostConfig {
            binds: Some(mounts),
            tmpfs: Some(HashMap::from([
                (WORK.to_string(), work_opts),
                (SCRATCH.to_string(), tmpfs_opts),
            ])),
            network_mode: Some("none".into()),
            readonly_rootfs: Some(true),
            cap_drop: Some(vec!["ALL".into()]),
            security_opt: Some(vec!["no-new-privileges".into()]),
            memory: Some(self.opts.memory_bytes as i64),
            memory_swap: Some(self.opts.memory_bytes as i64),
            nano_cpus: Some((self.opts.cpus * 1e9) as i64),
            pids_limit: Some(limits.processes as i64 + 8),
            ulimits: Some(vec![
                ulimit("core", 0),
                ulimit("fsize", limits.file_size_bytes),
                ulimit("nofile", limits.open_files.max(64)),
            ]),
            auto_remove: Some(true),
            ipc_mode: Some("private".into()),
            ..HostConfig::default()
        };
        let body = ContainerCreateBody {
            image: Some(engine.runner_image.clone()),
            cmd: Some(cmd),
            env: Some(env),
            user: Some(SANDBOX_USER.into()),
            working_dir: Some(WORK.into()),
            network_disabled: Some(true),
            open_stdin: Some(true),
            stdin_once: Some(true),
            attach_stdin: Some(true),
            attach_stdout: Some(true),
            attach_stderr: Some(true),
            tty: Some(false),
            labels: Some(HashMap::from([(
                LABEL_OWNER.to_string(),
                self.owner.clone(),
            )])),
            host_config: Some(host_config),
            ..ContainerCreateBody::default()
        };
        let docker = engine.docker.clone();
        let host = engine.host.clone();
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let started = self.rt.block_on(start_container(
            docker.clone(),
            host.clone(),
            body,
            tx,
            Arc::clone(&log),
        ));
        let (id, input) = started?;
        let mut worker = DockerWorker {
            rt: Arc::clone(&self.rt),
            docker,
            host,
            id,
            input: Some(input),
            lines: rx,
            log,
            info: None,
            next_id: 0,
            dead: false,
        };
        match worker.lines.recv_timeout(START_TIMEOUT) {
            Ok(Ok(line)) => match serde_json::from_str::<WorkerInfo>(&line) {
                Ok(info) => worker.info = Some(info),
                Err(e) => {
                    let detail = format!("bad hello {line:?}: {e}; {}", worker.log_tail());
                    return Err(ExecError::Handshake {
                        interpreter: PathBuf::from(interpreter),
                        detail,
                    });
                }
            },
            Ok(Err(e)) => {
                return Err(ExecError::Handshake {
                    interpreter: PathBuf::from(interpreter),
                    detail: e.to_string(),
                })
            }
            Err(_) => {
                worker.kill();
                return Err(ExecError::Handshake {
                    interpreter: PathBuf::from(interpreter),
                    detail: format!("no hello from the container; {}", worker.log_tail()),
                });
            }
        }
        tracing::debug!(
            host = worker.host,
            ms = t0.elapsed().as_millis(),
            "container started"
        );
        Ok(Box::new(worker))
    }
}

fn ulimit(name: &str, value: u64) -> ResourcesUlimits {
    ResourcesUlimits {
        name: Some(name.into()),
        soft: Some(value as i64),
        hard: Some(value as i64),
    }
}

type Input = std::pin::Pin<Box<dyn tokio::io::AsyncWrite + Send>>;

/// Turns the engine's output frames into the runner's lines: a line may span frames and a
/// frame may hold several lines (or end inside one, even inside a UTF-8 character).
#[derive(Debug, Default)]
pub struct LineBuffer {
    buf: Vec<u8>,
}

impl LineBuffer {
    /// The lines `frame` completes, each with its `\n`.
    pub fn push(&mut self, frame: &[u8]) -> Vec<String> {
        let start = self.buf.len();
        self.buf.extend_from_slice(frame);
        let mut out = Vec::new();
        let mut from = 0;
        for (i, b) in self.buf.iter().enumerate().skip(start) {
            if *b == b'\n' {
                out.push(String::from_utf8_lossy(&self.buf[from..=i]).into_owned());
                from = i + 1;
            }
        }
        self.buf.drain(..from);
        out
    }
}

/// Creates, attaches and starts a container; a task then turns its output frames into
/// lines (stdout) and a log tail (stderr).
async fn start_container(
    docker: Docker,
    host: String,
    body: ContainerCreateBody,
    tx: mpsc::Sender<std::io::Result<String>>,
    log: Arc<Mutex<String>>,
) -> Result<(String, Input), ExecError> {
    let err = |e: bollard::errors::Error| ExecError::Docker {
        host: host.clone(),
        detail: e.to_string(),
    };
    let created = docker
        .create_container(None::<CreateContainerOptions>, body)
        .await
        .map_err(err)?;
    let id = created.id;
    let attached = docker
        .attach_container(
            &id,
            Some(AttachContainerOptions {
                stdin: true,
                stdout: true,
                stderr: true,
                stream: true,
                logs: false,
                detach_keys: None,
            }),
        )
        .await;
    let attached = match attached {
        Ok(a) => a,
        Err(e) => {
            remove(&docker, &id).await;
            return Err(err(e));
        }
    };
    if let Err(e) = docker
        .start_container(
            &id,
            None::<bollard::query_parameters::StartContainerOptions>,
        )
        .await
    {
        remove(&docker, &id).await;
        return Err(err(e));
    }
    let mut output = attached.output;
    tokio::spawn(async move {
        // Frames are not lines: a line may span frames, a frame may hold several lines.
        let mut lines = LineBuffer::default();
        while let Some(frame) = output.next().await {
            match frame {
                Ok(bollard::container::LogOutput::StdOut { message }) => {
                    for text in lines.push(&message) {
                        if tx.send(Ok(text)).is_err() {
                            return;
                        }
                    }
                }
                Ok(bollard::container::LogOutput::StdErr { message }) => {
                    if let Ok(mut l) = log.lock() {
                        l.push_str(&String::from_utf8_lossy(&message));
                        if l.len() > LOG_CAP {
                            let mut cut = l.len() - LOG_CAP;
                            while !l.is_char_boundary(cut) {
                                cut += 1;
                            }
                            l.drain(..cut);
                        }
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    let _ = tx.send(Err(std::io::Error::other(e.to_string())));
                    return;
                }
            }
        }
    });
    Ok((id, attached.input))
}

/// A running container worker.
pub struct DockerWorker {
    rt: Arc<tokio::runtime::Runtime>,
    docker: Docker,
    host: String,
    id: String,
    input: Option<Input>,
    lines: Receiver<std::io::Result<String>>,
    log: Arc<Mutex<String>>,
    info: Option<WorkerInfo>,
    next_id: u64,
    dead: bool,
}

impl DockerWorker {
    fn log_tail(&self) -> String {
        said(&self.log.lock().map(|l| l.clone()).unwrap_or_default())
    }

    /// Ends the container (and everything in it) and removes it.
    fn kill(&mut self) {
        if self.dead {
            return;
        }
        self.dead = true;
        let input = self.input.take();
        let docker = self.docker.clone();
        let id = self.id.clone();
        self.rt.block_on(async move {
            drop(input);
            remove(&docker, &id).await;
        });
    }

    /// The container's id.
    pub fn container(&self) -> &str {
        &self.id
    }
}

impl Drop for DockerWorker {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Worker for DockerWorker {
    fn isolation(&self) -> Isolation {
        Isolation::Docker
    }

    fn info(&self) -> &WorkerInfo {
        self.info.as_ref().unwrap_or_else(|| WorkerInfo::unknown())
    }

    fn call(&mut self, req: &Request, limits: &Limits) -> Result<Outcome, Failure> {
        if self.dead {
            return Err(Failure::Died("the container was already removed".into()));
        }
        self.next_id += 1;
        let id = self.next_id;
        let line = encode_request(req, limits, id)?;
        let t0 = Instant::now();
        let Some(input) = self.input.as_mut() else {
            return Err(Failure::Died("the container's stdin is closed".into()));
        };
        let sent = self.rt.block_on(async {
            input.write_all(line.as_bytes()).await?;
            input.flush().await
        });
        if let Err(e) = sent {
            self.kill();
            return Err(Failure::Died(format!(
                "cannot send the request: {e}; {}",
                self.log_tail()
            )));
        }
        let answer = match await_answer(&self.lines, limits, t0) {
            Ok(answer) => answer,
            Err(why) => {
                let tail = self.log_tail();
                self.kill();
                return Err(why.failure(|| format!("the container ended; {tail}")));
            }
        };
        let mut outcome = decode_answer(&answer, id).inspect_err(|_| self.kill())?;
        outcome.isolation = Isolation::Docker;
        Ok(outcome)
    }

    fn memory_bytes(&self) -> Option<u64> {
        None
    }
}

/// The local engine with this build's image, for tests and checks: `Ok(None)` when no engine
/// answers at [`LOCAL_SOCKET`] (the caller skips, saying so); an error when one answers but
/// cannot serve (no image: `make setup` builds it).
pub fn try_local() -> Result<Option<DockerBackend>, ExecError> {
    let reachable = Path::new(LOCAL_SOCKET.trim_start_matches("unix://")).exists()
        && runtime()?
            .block_on(connect(LOCAL_SOCKET, Duration::from_secs(5))?.ping())
            .is_ok();
    if !reachable {
        return Ok(None);
    }
    DockerBackend::new(&DockerOptions::default()).map(Some)
}

/// Writes what a check of the docker backend shows (for `execute --check-sandbox`).
pub fn describe(backend: &DockerBackend, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for (host, version) in backend.engines() {
        writeln!(out, "engine: {host} (Docker {version})")?;
    }
    writeln!(out, "image: {}", backend.image())?;
    let o = backend.options();
    writeln!(
        out,
        "container: network none, read-only root, tmpfs {WORK} and {SCRATCH}, capabilities dropped, no-new-privileges, user {SANDBOX_USER}, {} MiB memory without swap, {} CPUs, pids limited",
        o.memory_bytes >> 20,
        o.cpus
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::LineBuffer;
    use proptest::prelude::*;

    #[test]
    fn frames_that_split_and_join_lines() {
        let mut b = LineBuffer::default();
        assert!(b.push(b"{\"a\": 1").is_empty());
        assert_eq!(b.push(b"}\n{\"b\"").as_slice(), ["{\"a\": 1}\n"]);
        assert_eq!(b.push(b": 2}\n{}\n").as_slice(), ["{\"b\": 2}\n", "{}\n"]);
        // A character cut between two frames comes out whole.
        let e = "\u{e9}\n".as_bytes();
        assert!(b.push(&e[..1]).is_empty());
        assert_eq!(b.push(&e[1..]).as_slice(), ["\u{e9}\n"]);
    }

    proptest! {
        /// However the stream is cut into frames, the same lines come out.
        #[test]
        fn any_framing_gives_the_same_lines(
            lines in prop::collection::vec("[a-z\u{e9}\u{4e2d} {}:\"]{0,20}", 0..8),
            cuts in prop::collection::vec(0usize..200, 0..10),
        ) {
            let want: Vec<String> = lines.iter().map(|l| format!("{l}\n")).collect();
            let stream = want.concat();
            let bytes = stream.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.push(0);
            cuts.push(bytes.len());
            cuts.sort_unstable();
            let mut b = LineBuffer::default();
            let mut got = Vec::new();
            for w in cuts.windows(2) {
                got.extend(b.push(&bytes[w[0]..w[1]]));
            }
            prop_assert_eq!(got, want);
        }
    }
}
