//! The one option group that chooses where code runs ([`BackendArgs`]), flattened into every
//! stage that runs code, and the one factory that turns it into a [`Backend`]: callers never
//! name a backend.

use std::time::Duration;

use crate::backend::{Backend, ExecError};
use crate::docker::{DockerBackend, DockerOptions};
use crate::process::{ProcessBackend, ProcessOptions};

/// The backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum BackendKind {
    /// A Python runner in fresh Linux namespaces on this machine (rlimits only where
    /// namespaces are refused).
    #[default]
    Process,
    /// A Python runner in a container per worker, on one or several Docker engines.
    Docker,
}

impl BackendKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Process => "process",
            BackendKind::Docker => "docker",
        }
    }
}

/// Where and how code runs: the same options in every stage that runs code.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Where code runs")]
pub struct BackendArgs {
    /// `process`: a sandboxed Python on this machine (Linux namespaces); `docker`: a container
    /// per worker on the Docker engines of --docker-host, from the image `execute
    /// --build-image` makes.
    #[arg(long, value_enum, value_name = "KIND", default_value_t = BackendKind::Process)]
    pub backend: BackendKind,
    /// Refuse to run code without isolation (exit 1): with `process`, where namespaces are
    /// missing, instead of falling back to rlimits only.
    #[arg(long)]
    pub require_isolation: bool,
    /// With `docker`: the engines to use (`unix:///var/run/docker.sock`, `tcp://host:2375`);
    /// repeatable or comma-separated, workers spread over them in turn. Default: `$DOCKER_HOST`,
    /// else the local engine's socket.
    #[arg(long = "docker-host", value_name = "URL", value_delimiter = ',')]
    pub docker_hosts: Vec<String>,
    /// With `docker`: the base image (default: the one this build's `execute --build-image`
    /// makes, `freshbench-python:<hash of its recipe>`).
    #[arg(long, value_name = "TAG")]
    pub image: Option<String>,
    /// With `docker`: CPUs a container may use.
    #[arg(long, value_name = "N", default_value_t = 1.0)]
    pub cpus: f64,
    /// With `docker`: memory of a container, in MiB (swap is not allowed).
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub container_memory_mb: u64,
}

impl Default for BackendArgs {
    fn default() -> BackendArgs {
        BackendArgs {
            backend: BackendKind::Process,
            require_isolation: false,
            docker_hosts: Vec::new(),
            image: None,
            cpus: 1.0,
            container_memory_mb: 4096,
        }
    }
}

impl BackendArgs {
    /// The backend these options name. A docker backend connects to its engines here and
    /// removes the containers an earlier freshbench left behind, so an unreachable engine or
    /// a missing image is said once, before any work starts.
    pub fn backend(&self) -> Result<Box<dyn Backend>, ExecError> {
        match self.backend {
            BackendKind::Process => Ok(Box::new(ProcessBackend::new(ProcessOptions {
                require_isolation: self.require_isolation,
                ..ProcessOptions::default()
            }))),
            BackendKind::Docker => {
                if !(self.cpus > 0.0 && self.cpus.is_finite()) {
                    return Err(ExecError::Config(format!(
                        "--cpus {}: give a positive number",
                        self.cpus
                    )));
                }
                if self.container_memory_mb < 64 {
                    return Err(ExecError::Config(format!(
                        "--container-memory-mb {}: give at least 64",
                        self.container_memory_mb
                    )));
                }
                Ok(Box::new(DockerBackend::new(&self.docker_options())?))
            }
        }
    }

    /// Whether a row of `isolation` could have been made by this backend: rows made by the
    /// other one are made again on a rerun, so a table says which backend judged it.
    pub fn made(&self, isolation: crate::Isolation) -> bool {
        use crate::Isolation as I;
        match self.backend {
            BackendKind::Process => !matches!(isolation, I::Docker),
            BackendKind::Docker => matches!(isolation, I::Docker | I::None),
        }
    }

    /// The docker backend's options.
    pub fn docker_options(&self) -> DockerOptions {
        DockerOptions {
            hosts: self.hosts(),
            image: self.image.clone(),
            cpus: self.cpus,
            memory_bytes: self.container_memory_mb.saturating_mul(1 << 20),
            connect_timeout: Duration::from_secs(30),
        }
    }

    /// The engines: --docker-host, else `$DOCKER_HOST`, else the local socket.
    pub fn hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = self
            .docker_hosts
            .iter()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .collect();
        if hosts.is_empty() {
            if let Some(h) = std::env::var_os("DOCKER_HOST").filter(|h| !h.is_empty()) {
                hosts.extend(
                    h.to_string_lossy()
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty()),
                );
            }
        }
        if hosts.is_empty() {
            hosts.push(crate::docker::LOCAL_SOCKET.to_string());
        }
        hosts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Isolation;
    use clap::Parser as _;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        backend: BackendArgs,
    }

    #[test]
    fn engines_are_repeatable_or_comma_separated() {
        let cli = Cli::parse_from([
            "x",
            "--backend",
            "docker",
            "--docker-host",
            "tcp://a:2375, tcp://b:2375",
            "--docker-host",
            "unix:///run/docker.sock",
        ]);
        assert_eq!(cli.backend.backend, BackendKind::Docker);
        assert_eq!(
            cli.backend.hosts(),
            ["tcp://a:2375", "tcp://b:2375", "unix:///run/docker.sock"]
        );
        let d = Cli::parse_from(["x"]).backend;
        assert_eq!(d.backend, BackendKind::Process);
        assert!(Cli::try_parse_from(["x", "--backend", "vm"]).is_err());
    }

    #[test]
    fn a_row_is_kept_only_by_the_backend_that_made_it() {
        let process = BackendArgs::default();
        let docker = BackendArgs {
            backend: BackendKind::Docker,
            ..BackendArgs::default()
        };
        assert!(process.made(Isolation::Namespaces) && process.made(Isolation::RlimitsOnly));
        assert!(!process.made(Isolation::Docker));
        assert!(docker.made(Isolation::Docker) && docker.made(Isolation::None));
        assert!(!docker.made(Isolation::Namespaces));
    }

    #[test]
    fn bad_limits_are_refused_before_any_engine_is_asked() {
        let bad = BackendArgs {
            backend: BackendKind::Docker,
            cpus: 0.0,
            docker_hosts: vec!["tcp://192.0.2.1:1".into()],
            ..BackendArgs::default()
        };
        assert!(matches!(bad.backend(), Err(ExecError::Config(m)) if m.contains("--cpus")));
    }
}
