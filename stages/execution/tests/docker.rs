//! The docker backend against a real engine: workers answer, containers go in every case
//! (dropped worker, dead runner, a dead owner's leftovers), several engines share the work and
//! an engine that is not on this machine gets this machine's files through volumes. Each
//! test skips, saying why, where no engine answers.

use std::collections::HashMap;
use std::net::TcpListener;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use bollard::models::ContainerCreateBody;
use bollard::query_parameters::{CreateContainerOptions, InspectContainerOptions};
use execution::docker::{self, DockerBackend, DockerOptions, LABEL_OWNER};
use execution::{Backend as _, Isolation, Limits, Request, Status, Value, WorkerSpec};

/// The tests count this process's containers: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn local() -> Option<DockerBackend> {
    match docker::try_local() {
        Ok(Some(b)) => Some(b),
        Ok(None) => {
            println!(
                "SKIP: no Docker engine reachable at {}",
                docker::LOCAL_SOCKET
            );
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_worker_answers_and_its_container_goes_when_dropped() {
    let _one = serial();
    let Some(backend) = local() else { return };
    let limits = Limits::default();
    let mut w = backend.start(&WorkerSpec::default(), &limits).unwrap();
    assert_eq!(w.isolation(), Isolation::Docker);
    assert_eq!(w.info().uid, 10_001);
    assert_eq!(w.info().interfaces, vec!["lo".to_string()]);
    let o = w
        .call(
            &Request::call_source("def f(a, b):\n    return a * b\n", "f", "[6, 7]"),
            &limits,
        )
        .unwrap();
    assert!(o.passes(&Value::int(42)), "{o:?}");
    assert_eq!(o.isolation, Isolation::Docker);
    // The root is read-only, even where the audit hook does not look (a child process).
    let o = w
        .call(
            &Request::call_source(
                "import subprocess\ndef f():\n    return subprocess.run(['sh', '-c', 'touch /usr/x 2>&1; echo $?'], capture_output=True, text=True).stdout.strip()\n",
                "f",
                "[]",
            ),
            &limits,
        )
        .unwrap();
    assert_eq!(o.status, Status::Ok, "{o:?}");
    assert!(!o.passes(&Value::Str("0".into())), "{o:?}");
    assert_eq!(backend.own_containers().unwrap().len(), 1);
    drop(w);
    assert!(backend.own_containers().unwrap().is_empty());
}

#[test]
fn a_dead_runner_ends_the_worker_and_its_container() {
    let _one = serial();
    let Some(backend) = local() else { return };
    let limits = Limits {
        wall: Duration::from_secs(3),
        ..Limits::default()
    };
    let mut w = backend.start(&WorkerSpec::default(), &limits).unwrap();
    // The runner is pid 1 of its container; the code cannot signal it (the guard refuses),
    // so end it from outside: the engine kills the container.
    assert_eq!(w.info().work, docker::WORK);
    let containers = backend.own_containers().unwrap();
    assert_eq!(containers.len(), 1);
    let rt = docker::runtime().unwrap();
    let api = docker::connect(docker::LOCAL_SOCKET, Duration::from_secs(10)).unwrap();
    rt.block_on(api.kill_container(
        &containers[0],
        None::<bollard::query_parameters::KillContainerOptions>,
    ))
    .unwrap();
    let err = w
        .call(
            &Request::call_source("def f():\n    return 1\n", "f", "[]"),
            &limits,
        )
        .unwrap_err();
    assert!(matches!(err, execution::Failure::Died(_)), "{err:?}");
    drop(w);
    for _ in 0..50 {
        if backend.own_containers().unwrap().is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the container is still there");
}

#[test]
fn leftovers_of_a_dead_owner_are_removed_at_start() {
    let _one = serial();
    let Some(first) = local() else { return };
    drop(first);
    let rt = docker::runtime().unwrap();
    let api = docker::connect(docker::LOCAL_SOCKET, Duration::from_secs(10)).unwrap();
    // A pid no process has: the owner is gone.
    let dead = (400_000..4_000_000)
        .find(|p| !std::path::Path::new(&format!("/proc/{p}")).exists())
        .unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string();
    let created = rt
        .block_on(api.create_container(
            None::<CreateContainerOptions>,
            ContainerCreateBody {
                image: Some(execution::image::default_tag()),
                cmd: Some(vec!["true".into()]),
                labels: Some(HashMap::from([(
                    LABEL_OWNER.to_string(),
                    format!("{host}:{dead}"),
                )])),
                ..ContainerCreateBody::default()
            },
        ))
        .unwrap();
    let second = DockerBackend::new(&DockerOptions::default()).unwrap();
    let gone = rt
        .block_on(api.inspect_container(&created.id, None::<InspectContainerOptions>))
        .is_err();
    drop(second);
    assert!(gone, "the leftover container {} is still there", created.id);
}

/// A TCP engine: the local socket behind a loopback proxy, as a remote engine looks.
fn tcp_proxy() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(tcp) = conn else { return };
            let Ok(unix) = UnixStream::connect(docker::LOCAL_SOCKET.trim_start_matches("unix://"))
            else {
                return;
            };
            let (mut t1, mut u1) = (tcp.try_clone().unwrap(), unix.try_clone().unwrap());
            let (mut t2, mut u2) = (tcp, unix);
            std::thread::spawn(move || pump(&mut t1, &mut u1));
            std::thread::spawn(move || pump(&mut u2, &mut t2));
        }
    });
    format!("tcp://{addr}")
}

fn pump(from: &mut dyn std::io::Read, to: &mut dyn std::io::Write) {
    let mut buf = [0u8; 16 << 10];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        }
    }
}

#[test]
fn workers_spread_over_engines_and_a_remote_one_gets_local_files_in_a_volume() {
    let _one = serial();
    let Some(first) = local() else { return };
    drop(first);
    let remote = tcp_proxy();
    let backend = DockerBackend::new(&DockerOptions {
        hosts: vec![remote.clone(), docker::LOCAL_SOCKET.into()],
        ..DockerOptions::default()
    })
    .unwrap();
    assert_eq!(backend.engines().len(), 2);
    let limits = Limits::default();
    let req = Request::call_source("def f():\n    return 5\n", "f", "[]");
    // In turn: the remote engine, then the local one; both answer.
    for _ in 0..2 {
        let mut w = backend.start(&WorkerSpec::default(), &limits).unwrap();
        assert!(w.call(&req, &limits).unwrap().passes(&Value::int(5)));
    }
    // A tree of this machine reaches the remote engine through a volume, filled once.
    let tree = tempfile::tempdir().unwrap();
    std::fs::create_dir(tree.path().join("pkg")).unwrap();
    std::fs::write(tree.path().join("pkg/mod.py"), "VALUE = 41\n").unwrap();
    let spec = WorkerSpec {
        sys_path: vec![".".into()],
        ..WorkerSpec::for_tree(tree.path())
    };
    let read = Request::call_source(
        "from pkg.mod import VALUE\ndef f():\n    return VALUE + 1\n",
        "f",
        "[]",
    );
    for _ in 0..2 {
        let mut w = backend.start(&spec, &limits).unwrap();
        let o = w.call(&read, &limits).unwrap();
        assert!(o.passes(&Value::int(42)), "{o:?}");
    }
    let mut w = backend.start(&spec, &limits).unwrap();
    assert!(w.call(&req, &limits).unwrap().passes(&Value::int(5)));
    drop(w);
    assert!(backend.own_containers().unwrap().is_empty());
    // The volume is a cache of the engine; this test's goes with its tree.
    let rt = docker::runtime().unwrap();
    let api = docker::connect(docker::LOCAL_SOCKET, Duration::from_secs(10)).unwrap();
    let filter = format!("{}={}", docker::LABEL_FILES, tree.path().display());
    let vols = rt
        .block_on(
            api.list_volumes(Some(bollard::query_parameters::ListVolumesOptions {
                filters: Some(HashMap::from([("label".to_string(), vec![filter])])),
            })),
        )
        .unwrap();
    let vols = vols.volumes.unwrap_or_default();
    assert_eq!(vols.len(), 1, "one volume for the tree: {vols:?}");
    for v in vols {
        rt.block_on(api.remove_volume(
            &v.name,
            None::<bollard::query_parameters::RemoveVolumeOptions>,
        ))
        .unwrap();
    }
}
