//! The docker backend's image, built without a registry (`execute --build-image`).
//!
//! No image can be pulled, so freshbench makes its own from what it can reach, Debian's
//! packages and the Python package registry:
//! 1. `mmdebstrap` makes a minimal Debian ([`SUITE`], variant `minbase`) with Debian's
//!    `python3` into a folder (documentation and translations left out);
//! 2. the wheels of the tools the runner uses in it (coverage and pytest, pinned as in
//!    `pipelines/requirements-tools.txt`, with their dependencies) are downloaded on the host
//!    by pip and installed by unpacking them into the folder's `dist-packages` (a wheel is a
//!    zip laid out as installed): nothing runs inside the image and no network is open to it;
//! 3. the folder gets the unprivileged user 10001 and the work folder, is packed by `tar`
//!    and imported into each engine (`docker import`, through the engine API).
//!
//! The tag is a hash of this recipe (suite, mirror, packages, pins, the steps' version):
//! `freshbench-python:<hash>`. A build whose tag every engine already has does nothing;
//! changing the recipe changes the tag, and the next build makes the new image. Debian's
//! packages of a suite get security updates, so two builds of one recipe on different days
//! can differ in those; the recipe, not the bytes, names the image.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use bollard::query_parameters::CreateImageOptions;
use futures_util::StreamExt as _;
use sha2::{Digest as _, Sha256};

use crate::backend::ExecError;
use crate::docker::{connect, runtime};

/// The Debian suite.
pub const SUITE: &str = "bookworm";
/// Where its packages come from.
pub const MIRROR: &str = "http://deb.debian.org/debian";
/// Debian's packages installed besides `minbase`.
pub const PACKAGES: &[&str] = &["python3"];
/// The Python of [`SUITE`] (the wheels are chosen for it).
pub const PYTHON_VERSION: &str = "3.11";
/// The tools installed from wheels (the same pins as `pipelines/requirements-tools.txt`).
pub const WHEELS: &[&str] = &["coverage==7.17.5", "pytest==9.2.0"];
/// The version of the steps below: changing what they do changes it.
const STEPS_VERSION: u32 = 1;
/// The image's repository name.
pub const REPOSITORY: &str = "freshbench-python";

/// The text that defines the image.
pub fn recipe() -> String {
    format!(
        "suite={SUITE}\nmirror={MIRROR}\nvariant=minbase\npackages={}\npython={PYTHON_VERSION}\nwheels={}\nuser={}\nsteps={STEPS_VERSION}\n",
        PACKAGES.join(","),
        WHEELS.join(","),
        crate::docker::SANDBOX_USER,
    )
}

/// `freshbench-python:<hash of the recipe>`.
pub fn default_tag() -> String {
    let h = Sha256::digest(recipe().as_bytes());
    format!("{REPOSITORY}:{}", hex::encode(&h[..6]))
}

/// How to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The engines to import into.
    pub hosts: Vec<String>,
    /// Build even where the tag exists.
    pub force: bool,
    /// The Python whose pip downloads the wheels.
    pub pip_python: PathBuf,
    /// Where the folder and the tar are made (default: the system temporary folder).
    pub temp_root: Option<PathBuf>,
}

/// What a build did.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    pub tag: String,
    /// Engines that already had it.
    pub present: Vec<String>,
    /// Engines it was imported into.
    pub imported: Vec<String>,
    pub debootstrap: Duration,
    pub wheels: Duration,
    pub import: Duration,
    /// The image's size on the first engine, bytes.
    pub size_bytes: u64,
    pub wheel_files: Vec<String>,
}

fn build_err(detail: impl Into<String>) -> ExecError {
    ExecError::DockerSetup {
        host: "(build)".into(),
        detail: detail.into(),
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<(), ExecError> {
    let out = cmd
        .output()
        .map_err(|e| build_err(format!("cannot run {what}: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: String = err
            .lines()
            .rev()
            .take(15)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        return Err(build_err(format!(
            "{what} failed ({}):\n{tail}",
            out.status
        )));
    }
    Ok(())
}

/// Builds the image where it is missing (or everywhere with `force`).
pub fn build(opts: &BuildOptions) -> Result<BuildReport, ExecError> {
    let rt = runtime()?;
    let tag = default_tag();
    let mut report = BuildReport {
        tag: tag.clone(),
        ..BuildReport::default()
    };
    let mut engines = Vec::new();
    for host in &opts.hosts {
        let docker = connect(host, Duration::from_mins(10))?;
        rt.block_on(docker.version())
            .map_err(|e| ExecError::DockerSetup {
                host: host.clone(),
                detail: format!("unreachable: {e}"),
            })?;
        let has = rt.block_on(docker.inspect_image(&tag)).is_ok();
        if has && !opts.force {
            report.present.push(host.clone());
        } else {
            engines.push((host.clone(), docker));
        }
    }
    if engines.is_empty() {
        return Ok(report);
    }
    let temp_root = opts.temp_root.clone().unwrap_or_else(std::env::temp_dir);
    let tmp = tempfile::Builder::new()
        .prefix("freshbench-image-")
        .tempdir_in(&temp_root)
        .map_err(|e| {
            build_err(format!(
                "cannot make a folder in {}: {e}",
                temp_root.display()
            ))
        })?;
    let root = tmp.path().join("root");
    let t0 = Instant::now();
    let mmdebstrap = which("mmdebstrap").ok_or_else(|| {
        build_err("mmdebstrap not found: install Debian's package (apt-get install mmdebstrap)")
    })?;
    let mut cmd = Command::new(mmdebstrap);
    cmd.arg("--variant=minbase")
        .arg(format!("--include={}", PACKAGES.join(",")))
        .arg("--dpkgopt=path-exclude=/usr/share/doc/*")
        .arg("--dpkgopt=path-exclude=/usr/share/man/*")
        .arg("--dpkgopt=path-exclude=/usr/share/locale/*")
        .arg("--dpkgopt=path-exclude=/usr/share/info/*")
        .arg("--quiet")
        .arg(SUITE)
        .arg(&root)
        .arg(MIRROR);
    run(&mut cmd, "mmdebstrap")?;
    report.debootstrap = t0.elapsed();

    let t1 = Instant::now();
    let wheels = tmp.path().join("wheels");
    let mut pip = Command::new(&opts.pip_python);
    pip.args([
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--only-binary=:all:",
        "--platform",
        "manylinux_2_17_x86_64",
        "--platform",
        "manylinux2014_x86_64",
        "--python-version",
        PYTHON_VERSION,
        "--implementation",
        "cp",
        "-d",
    ])
    .arg(&wheels)
    .args(WHEELS);
    run(&mut pip, "pip download")?;
    let site = root.join(format!(
        "usr/local/lib/python{PYTHON_VERSION}/dist-packages"
    ));
    std::fs::create_dir_all(&site).map_err(|e| build_err(format!("{}: {e}", site.display())))?;
    let mut names: Vec<PathBuf> = std::fs::read_dir(&wheels)
        .map_err(|e| build_err(format!("{}: {e}", wheels.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    names.sort();
    for w in &names {
        unpack_wheel(w, &site)?;
        report.wheel_files.push(
            w.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
        );
    }
    report.wheels = t1.elapsed();

    finish_root(&root)?;
    let t2 = Instant::now();
    let tar_path = tmp.path().join("image.tar");
    run(
        Command::new("tar")
            .arg("--numeric-owner")
            .arg("-C")
            .arg(&root)
            .arg("-cf")
            .arg(&tar_path)
            .arg("."),
        "tar",
    )?;
    let bytes =
        std::fs::read(&tar_path).map_err(|e| build_err(format!("{}: {e}", tar_path.display())))?;
    let (repo, t) = tag.split_once(':').unwrap_or((REPOSITORY, "latest"));
    for (host, docker) in &engines {
        let mut stream = docker.create_image(
            Some(CreateImageOptions {
                from_src: Some("-".into()),
                repo: Some(repo.into()),
                tag: Some(t.into()),
                changes: vec![
                    format!("LABEL freshbench.recipe={}", &t),
                    "ENV LANG=C.UTF-8".into(),
                    format!("USER {}", crate::docker::SANDBOX_USER),
                ],
                ..CreateImageOptions::default()
            }),
            Some(bollard::body_full(bytes.clone().into())),
            None,
        );
        rt.block_on(async {
            while let Some(item) = stream.next().await {
                item.map_err(|e| ExecError::DockerSetup {
                    host: host.clone(),
                    detail: format!("import failed: {e}"),
                })?;
            }
            Ok::<(), ExecError>(())
        })?;
        report.imported.push(host.clone());
    }
    report.import = t2.elapsed();
    if let Some((_, docker)) = engines.first() {
        if let Ok(i) = rt.block_on(docker.inspect_image(&tag)) {
            report.size_bytes = i.size.unwrap_or(0).max(0) as u64;
        }
    }
    Ok(report)
}

/// Installs a wheel by unpacking it: `NAME.data/purelib` and `platlib` go into the site
/// folder too; scripts and headers are not needed by the runner and are left out.
fn unpack_wheel(wheel: &Path, site: &Path) -> Result<(), ExecError> {
    let f =
        std::fs::File::open(wheel).map_err(|e| build_err(format!("{}: {e}", wheel.display())))?;
    let mut zip = zip::ZipArchive::new(f)
        .map_err(|e| build_err(format!("{}: not a wheel: {e}", wheel.display())))?;
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| build_err(format!("{}: {e}", wheel.display())))?;
        let Some(name) = entry.enclosed_name() else {
            return Err(build_err(format!(
                "{}: an entry outside the wheel: {}",
                wheel.display(),
                entry.name()
            )));
        };
        let mut parts = name.components();
        let first = parts
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default();
        let rel: PathBuf = if Path::new(&first).extension().is_some_and(|x| x == "data") {
            let kind = parts
                .next()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            if kind != "purelib" && kind != "platlib" {
                continue;
            }
            parts.collect()
        } else {
            name.clone()
        };
        if rel.as_os_str().is_empty() || entry.is_dir() {
            continue;
        }
        let dest = site.join(&rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| build_err(format!("{}: {e}", parent.display())))?;
        }
        let mut data = Vec::new();
        entry
            .read_to_end(&mut data)
            .map_err(|e| build_err(format!("{}: {e}", wheel.display())))?;
        std::fs::write(&dest, data).map_err(|e| build_err(format!("{}: {e}", dest.display())))?;
    }
    Ok(())
}

/// The user, the work folder and a reachable `/root` (binds of host paths under it must be
/// reachable by the unprivileged user; it holds nothing).
fn finish_root(root: &Path) -> Result<(), ExecError> {
    use std::os::unix::fs::PermissionsExt as _;
    let append = |file: &str, line: &str| -> Result<(), ExecError> {
        let p = root.join(file);
        let mut text = std::fs::read_to_string(&p).unwrap_or_default();
        if !text.ends_with('\n') && !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
        std::fs::write(&p, text).map_err(|e| build_err(format!("{}: {e}", p.display())))
    };
    let (uid, gid) = crate::docker::SANDBOX_USER
        .split_once(':')
        .unwrap_or(("10001", "10001"));
    append(
        "etc/passwd",
        &format!(
            "freshbench:x:{uid}:{gid}:freshbench sandbox:{}:/usr/sbin/nologin\n",
            crate::docker::WORK
        ),
    )?;
    append("etc/group", &format!("freshbench:x:{gid}:\n"))?;
    for d in ["sandbox/work", "opt/freshbench"] {
        let p = root.join(d);
        std::fs::create_dir_all(&p).map_err(|e| build_err(format!("{}: {e}", p.display())))?;
    }
    let r = root.join("root");
    std::fs::set_permissions(&r, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| build_err(format!("{}: {e}", r.display())))?;
    Ok(())
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .or_else(|| {
            ["/usr/bin", "/usr/sbin", "/bin"]
                .iter()
                .map(|d| Path::new(d).join(name))
                .find(|p| p.is_file())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The image's tools are the tools' pins: one version of coverage and pytest runs code.
    #[test]
    fn wheels_match_the_tools_pins() {
        let req = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pipelines/requirements-tools.txt"),
        )
        .unwrap();
        for w in WHEELS {
            assert!(
                req.lines().any(|l| l.trim() == *w),
                "{w} is not pinned so in pipelines/requirements-tools.txt"
            );
        }
    }

    #[test]
    fn tag_names_the_recipe() {
        let t = default_tag();
        assert!(t.starts_with("freshbench-python:") && t.len() == "freshbench-python:".len() + 12);
        assert!(recipe().contains("coverage==7.17.5"));
    }
}
