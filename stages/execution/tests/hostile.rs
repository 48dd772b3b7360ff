//! The hostile suite: every program of `tests/hostile/` attacks the sandbox when called; run
//! as one batch, each must end with the right non-pass status within its limits, the batch
//! must go on, and the host must be unchanged afterwards.

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use execution::{
    run_batch, Backend, Call, Isolation, Limits, ProcessBackend, ProcessOptions, Request, Status,
    Target, Value, WorkerSpec,
};

const MARKER: &str = "freshbench-hostile-marker";

fn hostile_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hostile")
}

/// Processes that belong to sandboxes: a sandbox uid (60000..65000, or the docker image's
/// 10001) or a runner's command line.
fn sandbox_processes() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let me = std::process::id().to_string();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) || name == me {
            continue;
        }
        let status = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
        // A zombie is dead: it only waits for the host's init to collect its exit status.
        if status
            .lines()
            .any(|l| l.starts_with("State:") && l.contains("Z (zombie)"))
        {
            continue;
        }
        let uid: u32 = status
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|u| u.parse().ok())
            .unwrap_or(0);
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if (60_000..65_000).contains(&uid)
            || uid == 10_001
            || cmdline.contains("freshbench-exec-")
            || cmdline.contains("/opt/freshbench/runner")
        {
            found.insert(format!("pid {name} uid {uid}: {cmdline}"));
        }
    }
    found
}

fn markers() -> Vec<PathBuf> {
    ["/tmp", "/root", "/home"]
        .iter()
        .map(|d| Path::new(d).join(MARKER))
        .filter(|p| p.exists())
        .collect()
}

struct Case {
    name: &'static str,
    arg: String,
    statuses: &'static [Status],
    /// Needs namespaces to hold (skipped, with a printed reason, without them).
    needs_namespaces: bool,
}

/// The two suites scan the host's processes: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn hostile_programs_get_no_pass_and_leave_the_host_unchanged() {
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let backend = ProcessBackend::new(ProcessOptions::default());
    suite(&backend, None, &|| {
        backend.namespaces_unavailable().unwrap_or_default()
    });
}

/// The same suite through the docker backend: a container per worker, every case holds (the
/// container gives what namespaces give), and no container is left afterwards.
#[test]
fn hostile_programs_through_docker() {
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let backend = match execution::docker::try_local() {
        Ok(Some(b)) => b,
        Ok(None) => {
            println!(
                "SKIP the docker suite: no Docker engine reachable at {}",
                execution::docker::LOCAL_SOCKET
            );
            return;
        }
        Err(e) => panic!("{e}"),
    };
    suite(&backend, None, &String::new);
    let left = backend.own_containers().unwrap();
    assert!(left.is_empty(), "containers left: {left:?}");
    println!("containers left: 0");
}

/// The same suite without namespaces (the fallback), where namespace-only cases are skipped.
/// As root the fallback runs the code under a sandbox uid, which must reach the interpreter:
/// the system's python3 then (the tools venv lives under /root).
#[test]
fn hostile_programs_without_namespaces() {
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let root = execution::process::is_root();
    let python = PathBuf::from("/usr/bin/python3");
    if root && !python.exists() {
        println!("SKIP the fallback suite: running as root needs /usr/bin/python3, absent here");
        return;
    }
    let opts = ProcessOptions {
        rlimits_only: true,
        ..ProcessOptions::default()
    };
    let backend = ProcessBackend::new(opts);
    suite(&backend, root.then_some(python), &|| {
        backend.namespaces_unavailable().unwrap_or_default()
    });
}

/// Runs every program through `backend`; `weak` says why the isolation is not namespaces or
/// a container, where it is not.
#[allow(clippy::too_many_lines)]
fn suite(backend: &dyn Backend, interpreter: Option<PathBuf>, weak: &dyn Fn() -> String) {
    use Status::{
        Crash, Exception, Memory, Ok, OutputLimit, ResourceLimit, SandboxViolation, Timeout,
    };
    assert!(
        markers().is_empty(),
        "markers left by an earlier run: {:?}",
        markers()
    );
    let before = sandbox_processes();

    // Host fixtures: a sentinel in the host's /tmp, a secret, a repository tree, a listener.
    let host = tempfile::Builder::new()
        .prefix("fb-hostile-")
        .tempdir()
        .unwrap();
    let sentinel = host.path().join("sentinel.txt");
    std::fs::write(&sentinel, "sentinel").unwrap();
    let secret = host.path().join("secret.txt");
    std::fs::write(&secret, "the secret").unwrap();
    let tree = host.path().join("repo");
    std::fs::create_dir(&tree).unwrap();
    let original = tree.join("original.py");
    std::fs::write(&original, "ORIGINAL = 1\n").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();

    let one = "1".to_string();
    let quoted = |p: &Path| format!("{:?}", p.display().to_string());
    let c = |name, arg: &String, statuses, needs_namespaces| Case {
        name,
        arg: arg.clone(),
        statuses,
        needs_namespaces,
    };
    let cases = vec![
        c("infinite_loop", &one, &[Timeout][..], false),
        c("sleep", &one, &[Timeout], false),
        c("fork_bomb", &one, &[ResourceLimit], false),
        c("thread_bomb", &one, &[ResourceLimit, Memory], false),
        c("memory_bomb", &one, &[Memory], false),
        c("huge_output", &one, &[OutputLimit], false),
        c("fill_disk", &one, &[ResourceLimit], false),
        c(
            "write_host_tmp",
            &quoted(&sentinel),
            &[SandboxViolation, Exception],
            false,
        ),
        c("write_home", &one, &[SandboxViolation], false),
        c(
            "write_repo_original",
            &quoted(&original),
            &[SandboxViolation],
            false,
        ),
        c(
            "delete_repo_original",
            &quoted(&original),
            &[SandboxViolation],
            false,
        ),
        c("read_shadow", &one, &[SandboxViolation], false),
        c(
            "read_outside",
            &quoted(&secret),
            &[SandboxViolation, Exception],
            false,
        ),
        c(
            "net_loopback",
            &port.to_string(),
            &[SandboxViolation],
            false,
        ),
        c("net_loopback_ctypes", &port.to_string(), &[Exception], true),
        c("net_outside", &one, &[SandboxViolation], false),
        c("kill_parent", &one, &[SandboxViolation], false),
        c("kill_everything", &one, &[SandboxViolation], false),
        c("ignore_sigterm", &one, &[Timeout], false),
        c("daemon", &one, &[SandboxViolation], false),
        c("setsid_escape", &one, &[SandboxViolation], false),
        c("close_stdout", &one, &[Crash], false),
        c("fake_protocol", &one, &[SandboxViolation, Crash], false),
        c("sys_exit", &one, &[Exception], false),
        c("os_exit", &one, &[Crash], false),
        c("eq_always_true", &one, &[Ok], false),
        c("int_subclass", &one, &[Ok], false),
        c("patch_builtins", &one, &[Ok, SandboxViolation], false),
        c("patch_runner", &one, &[SandboxViolation], false),
        c("deep_recursion", &one, &[Exception], false),
        c("deep_recursion_unlimited", &one, &[Crash], false),
        c("segfault", &one, &[Crash], false),
        c("raise_rlimits", &one, &[Exception, ResourceLimit], false),
        c("fd_bomb", &one, &[ResourceLimit], false),
        c("hang_in_repr", &one, &[Timeout], false),
        c(
            "read_runner_memory",
            &one,
            &[Exception, SandboxViolation],
            false,
        ),
        c("steal_nonce_gc", &one, &[SandboxViolation], false),
    ];
    let on_disk = std::fs::read_dir(hostile_dir())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "py")
        })
        .count();
    assert_eq!(
        on_disk,
        cases.len(),
        "every program of tests/hostile has a case"
    );
    assert!(cases.len() >= 25);

    let spec = WorkerSpec {
        interpreter,
        ..WorkerSpec::for_tree(&tree)
    };
    let limits = Limits {
        wall: Duration::from_secs(2),
        cpu_seconds: 2,
        memory_bytes: 512 << 20,
        processes: 32,
        file_size_bytes: 4 << 20,
        open_files: 256,
        output_bytes: 64 << 10,
        disk_bytes: 16 << 20,
    };
    let strong = |i: Isolation| matches!(i, Isolation::Namespaces | Isolation::Docker);
    let namespaces = strong(backend.start(&spec, &limits).unwrap().isolation());
    if !namespaces {
        println!("SKIP namespace-dependent cases and assertions: {}", weak());
    }
    let cases: Vec<Case> = cases
        .into_iter()
        .filter(|c| {
            let run = namespaces || !c.needs_namespaces;
            if !run {
                println!(
                    "SKIP {}: needs namespaces, which this suite runs without",
                    c.name
                );
            }
            run
        })
        .collect();

    // A harmless call between every attack shows the batch going on.
    let mut requests = Vec::new();
    for case in &cases {
        let text =
            std::fs::read_to_string(hostile_dir().join(format!("{}.py", case.name))).unwrap();
        requests.push(Request::Call(Call {
            target: Target::Source {
                name: case.name.into(),
                text,
            },
            function: "solve".into(),
            args: format!("[{}]", case.arg),
            kwargs: "{}".into(),
            coverage: false,
            fresh: false,
            trace: None,
        }));
        requests.push(Request::call_source(
            "def solve(x):\n    return x\n",
            "solve",
            "[1]",
        ));
    }
    let t0 = Instant::now();
    let outcomes = run_batch(backend, &spec, &requests, &limits).unwrap();
    let total = t0.elapsed();
    assert_eq!(outcomes.len(), requests.len());
    let isolation = outcomes[0].isolation;
    assert_eq!(namespaces, strong(isolation), "{isolation:?}");
    println!("isolation: {}", isolation.as_str());

    let mut failures = Vec::new();
    println!(
        "{:<26} {:<18} {:>7}  detail",
        "program", "status", "seconds"
    );
    for (i, case) in cases.iter().enumerate() {
        let o = &outcomes[2 * i];
        let detail = o
            .exception
            .as_ref()
            .map(|e| format!("{}: {}", e.type_name, e.message))
            .or_else(|| o.detail.clone())
            .unwrap_or_default();
        let detail: String = detail.chars().take(90).collect();
        println!(
            "{:<26} {:<18} {:>7.2}  {}",
            case.name,
            o.status.as_str(),
            o.wall_seconds,
            detail.replace('\n', " ")
        );
        if o.passes(&Value::int(1)) {
            failures.push(format!("{}: passed!", case.name));
        }
        if !case.statuses.contains(&o.status) {
            failures.push(format!(
                "{}: status {:?}, expected one of {:?}: {o:?}",
                case.name, o.status, case.statuses
            ));
        }
        if o.wall_seconds > 6.0 {
            failures.push(format!("{}: took {:.1}s", case.name, o.wall_seconds));
        }
        let after = &outcomes[2 * i + 1];
        if !after.passes(&Value::int(1)) {
            failures.push(format!(
                "the harmless call after {} failed: {after:?}",
                case.name
            ));
        }
    }
    let sys_exit = &outcomes[2 * cases.iter().position(|c| c.name == "sys_exit").unwrap()];
    assert_eq!(
        sys_exit.exception.as_ref().map(|e| e.type_name.as_str()),
        Some("SystemExit")
    );
    let eq = &outcomes[2 * cases
        .iter()
        .position(|c| c.name == "eq_always_true")
        .unwrap()];
    assert!(matches!(eq.value, Some(Value::Object { .. })), "{eq:?}");
    let secret_read = &outcomes[2 * cases.iter().position(|c| c.name == "read_outside").unwrap()];
    assert!(!secret_read.stdout.contains("the secret") && secret_read.repr.is_none());
    println!(
        "batch of {} requests in {:.1}s",
        requests.len(),
        total.as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The host is unchanged.
    std::thread::sleep(Duration::from_millis(200));
    let after = sandbox_processes();
    let stray: Vec<_> = after.difference(&before).collect();
    assert!(stray.is_empty(), "stray processes: {stray:?}");
    assert_eq!(std::fs::read_to_string(&sentinel).unwrap(), "sentinel");
    assert_eq!(
        std::fs::read_to_string(&original).unwrap(),
        "ORIGINAL = 1\n"
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "the secret");
    let left = markers();
    for m in &left {
        let _ = std::fs::remove_file(m);
    }
    assert!(left.is_empty(), "files written outside: {left:?}");
    let mut repo_files: Vec<_> = std::fs::read_dir(&tree)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    repo_files.sort();
    assert_eq!(repo_files, vec![std::ffi::OsString::from("original.py")]);
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("somebody connected to the host's loopback listener: {other:?}"),
    }
}
