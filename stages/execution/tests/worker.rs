//! The worker's ordinary behaviour: round trips, exceptions, coverage arcs, structured
//! values, a crash in the middle of a batch, a pytest request.

use std::time::Duration;

use execution::{
    run_batch, Backend as _, Limits, ProcessBackend, ProcessOptions, PytestRun, Request, Status,
    Value, WorkerSpec,
};

fn backend() -> ProcessBackend {
    ProcessBackend::new(ProcessOptions::default())
}

/// The fallback as root runs code under a sandbox uid, which must reach the interpreter:
/// the system's python3 (the tools venv lives under /root, mode 0700).
fn fallback_spec() -> WorkerSpec {
    let root = execution::process::is_root();
    WorkerSpec {
        interpreter: root.then(|| "/usr/bin/python3".into()),
        ..WorkerSpec::default()
    }
}

fn limits() -> Limits {
    Limits {
        wall: Duration::from_secs(5),
        ..Limits::default()
    }
}

const MODULE: &str = r#"
import math

def add(a, b):
    return a + b

def sign(x):
    if x > 0:
        return "pos"
    else:
        return "neg"

def boom(msg):
    raise ValueError(msg)

def values():
    return (float("nan"), [1, (2, 3)], {1, 2}, frozenset([3]), {"k": b"\x00\xff"}, None, True,
            2 ** 100, -0.0, float("inf"), "é")

def die():
    import os
    os.abort()

def loud():
    print("hello")
    return 1
"#;

#[test]
fn call_round_trip_exception_and_values() {
    let reqs = vec![
        Request::call_source(MODULE, "add", "[2, 3]"),
        Request::call_source(MODULE, "add", "['a', 'b']"),
        Request::call_source(MODULE, "boom", "['bad input']"),
        Request::call_source(MODULE, "values", "[]"),
        Request::call_source(MODULE, "loud", "[]"),
        Request::call_source(MODULE, "add", "[1,"),
    ];
    let out = run_batch(&backend(), &WorkerSpec::default(), &reqs, &limits()).unwrap();
    assert!(out[0].passes(&Value::int(5)), "{:?}", out[0]);
    assert_eq!(out[0].repr.as_deref(), Some("5"));
    assert!(out[1].passes(&Value::str("ab")));
    assert_eq!(out[2].status, Status::Exception);
    let exc = out[2].exception.as_ref().unwrap();
    assert_eq!(
        (exc.type_name.as_str(), exc.message.as_str()),
        ("ValueError", "bad input")
    );
    let v = out[3].value.as_ref().unwrap();
    let Value::Tuple(items) = v else {
        panic!("not a tuple: {v:?}")
    };
    assert!(matches!(items[0], Value::Float(f) if f.is_nan()));
    assert!(items[1].same(&Value::List(vec![
        Value::int(1),
        Value::Tuple(vec![Value::int(2), Value::int(3)])
    ])));
    assert!(items[2].same(&Value::Set(vec![Value::int(2), Value::int(1)])));
    assert!(matches!(items[3], Value::Frozenset(_)));
    assert!(items[4].same(&Value::Dict(vec![(
        Value::str("k"),
        Value::Bytes("00ff".into())
    )])));
    assert!(items[7].same(&Value::Int("1267650600228229401496703205376".into())));
    assert!(matches!(items[9], Value::Float(f) if f == f64::INFINITY));
    assert!(items[10].same(&Value::str("é")));
    assert_eq!(out[4].stdout, "hello\n");
    assert_eq!(out[5].status, Status::HarnessError);
    for o in &out {
        assert_eq!(o.isolation, out[0].isolation);
    }
}

#[test]
fn coverage_arcs_of_if_else() {
    let reqs = vec![
        Request::call_source(MODULE, "sign", "[1]").with_coverage(true),
        Request::call_source(MODULE, "sign", "[-1]").with_coverage(true),
    ];
    let out = run_batch(&backend(), &WorkerSpec::default(), &reqs, &limits()).unwrap();
    let a = out[0].coverage.as_ref().expect("coverage");
    let b = out[1].coverage.as_ref().expect("coverage");
    // def sign is line 7: `if` 8, return "pos" 9, else 10, return "neg" 11.
    assert_eq!((a.first_line, a.last_line), (7, 11));
    assert_eq!(a.function_arcs, vec![(8, 9), (8, 11), (9, -7), (11, -7)]);
    assert!(a.arcs.contains(&(8, 9)) && !a.arcs.contains(&(8, 11)));
    assert!(b.arcs.contains(&(8, 11)) && !b.arcs.contains(&(8, 9)));
    assert!((a.ratio() - 0.5).abs() < 1e-9);
}

#[test]
fn a_crash_is_charged_to_its_request_and_the_batch_goes_on() {
    let reqs = vec![
        Request::call_source(MODULE, "add", "[1, 1]"),
        Request::call_source(MODULE, "die", "[]"),
        Request::call_source(MODULE, "add", "[2, 2]"),
    ];
    let out = run_batch(&backend(), &WorkerSpec::default(), &reqs, &limits()).unwrap();
    assert!(out[0].passes(&Value::int(2)));
    assert_eq!(out[1].status, Status::Crash, "{:?}", out[1]);
    assert!(out[1].detail.as_deref().unwrap_or("").contains("SIGABRT"));
    assert!(out[2].passes(&Value::int(4)));
}

#[test]
fn the_fallback_without_namespaces_still_runs_and_says_so() {
    let b = ProcessBackend::new(ProcessOptions {
        rlimits_only: true,
        ..ProcessOptions::default()
    });
    let reqs = vec![Request::call_source(MODULE, "add", "[2, 3]")];
    let out = run_batch(&b, &fallback_spec(), &reqs, &limits()).unwrap();
    assert!(out[0].passes(&Value::int(5)), "{:?}", out[0]);
    assert_eq!(out[0].isolation, execution::Isolation::RlimitsOnly);
    let refused = ProcessBackend::new(ProcessOptions {
        rlimits_only: true,
        require_isolation: true,
        ..ProcessOptions::default()
    });
    assert!(matches!(
        refused.start(&WorkerSpec::default(), &limits()),
        Err(execution::ExecError::IsolationUnavailable { .. })
    ));
}

#[test]
fn pytest_request_reports_outcomes_and_lines_per_test() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(
        root.join("calc.py"),
        "def double(x):\n    return 2 * x\n\n\ndef half(x):\n    return x / 2\n",
    )
    .unwrap();
    std::fs::write(
        root.join("tests/test_calc.py"),
        "import calc\n\n\ndef test_double():\n    assert calc.double(2) == 4\n\n\ndef test_half_wrong():\n    assert calc.half(2) == 2\n",
    )
    .unwrap();
    // A test talking to a server of its own on loopback: inside a network namespace `lo` is
    // the namespace's own, up, and pytest requests may use it.
    std::fs::write(
        root.join("tests/test_net.py"),
        "import socket\n\n\ndef test_local_server():\n    srv = socket.socket()\n    srv.bind(('127.0.0.1', 0))\n    srv.listen(1)\n    c = socket.create_connection(srv.getsockname(), timeout=2)\n    conn, _ = srv.accept()\n    c.sendall(b'hi')\n    assert conn.recv(2) == b'hi'\n",
    )
    .unwrap();
    let spec = WorkerSpec::for_tree(root);
    let req = Request::Pytest(PytestRun {
        rootdir: ".".into(),
        node_ids: vec![],
        coverage: true,
        extra_args: vec![],
        pristine: false,
        overlay: vec![],
        capture: false,
        trace: None,
        observe: None,
    });
    let out = run_batch(&backend(), &spec, &[req], &limits()).unwrap();
    let o = &out[0];
    assert_eq!(o.status, Status::Ok, "{o:?}");
    assert_eq!(o.tests.len(), 3, "{o:?}");
    let t0 = &o.tests[0];
    assert_eq!(
        (t0.node_id.as_str(), t0.outcome.as_str()),
        ("tests/test_calc.py::test_double", "passed")
    );
    let calc = t0
        .lines
        .iter()
        .find(|f| f.path == "calc.py")
        .expect("calc.py lines");
    assert_eq!(calc.lines, vec![2]);
    let t1 = &o.tests[1];
    assert_eq!(t1.outcome, schemas::TestOutcome::Failed);
    let calc = t1
        .lines
        .iter()
        .find(|f| f.path == "calc.py")
        .expect("calc.py lines");
    assert_eq!(calc.lines, vec![6]);
    let net = &o.tests[2];
    assert_eq!(net.node_id, "tests/test_net.py::test_local_server");
    if o.isolation == execution::Isolation::Namespaces {
        assert_eq!(net.outcome, schemas::TestOutcome::Passed, "{net:?}");
    } else {
        println!("SKIP the loopback test's outcome: no network namespace");
    }
    // The original tree is untouched (the worker ran on its copy).
    let names: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn a_dead_worker_is_charged_to_its_request_and_replaced() {
    // Without namespaces the runner is not protected as a pid namespace's init: a request
    // can kill it through ctypes (past the audit hook), which kills the whole worker.
    let b = ProcessBackend::new(ProcessOptions {
        rlimits_only: true,
        ..ProcessOptions::default()
    });
    let killer = "import ctypes, os, time\n\ndef solve(x):\n    ctypes.CDLL(None).kill(os.getppid(), 9)\n    time.sleep(1)\n    return x\n";
    let reqs = vec![
        Request::call_source(MODULE, "add", "[1, 1]"),
        Request::call_source(killer, "solve", "[1]"),
        Request::call_source(MODULE, "add", "[2, 2]"),
    ];
    let out = run_batch(&b, &fallback_spec(), &reqs, &limits()).unwrap();
    assert!(out[0].passes(&Value::int(2)), "{:?}", out[0]);
    assert_eq!(out[1].status, Status::Crash, "{:?}", out[1]);
    assert!(
        out[1]
            .detail
            .as_deref()
            .unwrap_or("")
            .contains("worker died"),
        "{:?}",
        out[1]
    );
    assert!(out[2].passes(&Value::int(4)), "{:?}", out[2]);
}

#[test]
fn as_root_the_fallback_refuses_an_interpreter_its_uid_cannot_reach() {
    if !execution::process::is_root() {
        println!("SKIP: only meaningful as root");
        return;
    }
    let venv =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/venv/bin/python");
    let canon = std::fs::canonicalize(&venv).unwrap_or_default();
    if !canon.starts_with("/root") {
        println!("SKIP: the tools venv is not under /root here");
        return;
    }
    let b = ProcessBackend::new(ProcessOptions {
        rlimits_only: true,
        ..ProcessOptions::default()
    });
    let spec = WorkerSpec {
        interpreter: Some(venv),
        ..WorkerSpec::default()
    };
    assert!(matches!(
        b.start(&spec, &limits()),
        Err(execution::ExecError::RootFallback { .. })
    ));
}

const COUNTER: &str = "n = 0\n\ndef bump():\n    global n\n    n += 1\n    return n\n";

#[test]
fn calls_of_one_target_share_a_process_unless_fresh_and_targets_never_do() {
    let patcher =
        "import builtins\n\ndef solve():\n    builtins.len = lambda x: 42\n    return 0\n";
    let user = "def solve():\n    return len([1, 2])\n";
    let fresh = |r: Request| match r {
        Request::Call(mut c) => {
            c.fresh = true;
            Request::Call(c)
        }
        Request::Pytest(p) => Request::Pytest(p),
    };
    let reqs = vec![
        Request::call_source(COUNTER, "bump", "[]"),
        Request::call_source(COUNTER, "bump", "[]"),
        fresh(Request::call_source(COUNTER, "bump", "[]")),
        fresh(Request::call_source(COUNTER, "bump", "[]")),
        Request::call_source(patcher, "solve", "[]"),
        Request::call_source(user, "solve", "[]"),
    ];
    let out = run_batch(&backend(), &WorkerSpec::default(), &reqs, &limits()).unwrap();
    let got: Vec<_> = out
        .iter()
        .map(|o| o.repr.clone().unwrap_or_default())
        .collect();
    assert_eq!(got, ["1", "2", "1", "1", "0", "2"]);
}

#[test]
fn file_and_module_targets_of_a_tree_with_coverage() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/__init__.py"), "").unwrap();
    std::fs::write(
        dir.path().join("pkg/text.py"),
        "from . import helpers\n\n\ndef shout(s):\n    if not s:\n        return ''\n    return helpers.up(s) + '!'\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pkg/helpers.py"),
        "def up(s):\n    return s.upper()\n",
    )
    .unwrap();
    let spec = WorkerSpec::for_tree(dir.path());
    let by_module = Request::Call(execution::Call {
        target: execution::Target::Module {
            name: "pkg.text".into(),
        },
        function: "shout".into(),
        args: "['hi']".into(),
        kwargs: "{}".into(),
        coverage: true,
        fresh: false,
        trace: None,
    });
    let by_file = Request::call_file("pkg/helpers.py", "up", "['x']");
    let out = run_batch(&backend(), &spec, &[by_module, by_file], &limits()).unwrap();
    assert!(out[0].passes(&Value::str("HI!")), "{:?}", out[0]);
    let cov = out[0].coverage.as_ref().unwrap();
    assert_eq!(cov.file, "pkg/text.py");
    assert_eq!((cov.first_line, cov.last_line), (4, 7));
    assert!(
        cov.arcs.contains(&(5, 7)) && !cov.arcs.contains(&(5, 6)),
        "{cov:?}"
    );
    assert!(out[1].passes(&Value::str("X")), "{:?}", out[1]);
}

/// A pytest request with `pristine` sees the tree as copied, whatever an earlier request
/// did to the work folder (an answer spliced in, files deleted or made unreadable, files
/// added), and a replaced file that does not compile is a `SyntaxError` before any test.
/// Subprocesses the tests start import from the work folder, not the original tree.
#[test]
fn pristine_pytest_requests_undo_what_earlier_ones_did() {
    use execution::protocol::Overlay;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("tests/data")).unwrap();
    std::fs::write(root.join("calc.py"), "def double(x):\n    return 2 * x\n").unwrap();
    std::fs::write(root.join("tests/data/expected.txt"), "4\n").unwrap();
    std::fs::write(
        root.join("tests/test_calc.py"),
        "import os, subprocess, sys\nimport calc\n\nHERE = os.path.dirname(__file__)\n\n\
         def test_double():\n    with open(os.path.join(HERE, 'data', 'expected.txt')) as f:\n        assert calc.double(2) == int(f.read())\n\n\
         def test_subprocess_sees_the_work_copy():\n    out = subprocess.run([sys.executable, '-c', 'import calc; print(calc.double(3))'], capture_output=True, text=True, check=True)\n    assert out.stdout.strip() == '6'\n\n\
         def test_vandal():\n    if os.environ.get('VANDAL_OFF') is None and os.path.exists(os.path.join(HERE, 'vandal.flag')):\n        os.remove(os.path.join(HERE, 'data', 'expected.txt'))\n        os.chmod(os.path.join(HERE, '..', 'calc.py'), 0)\n        open(os.path.join(HERE, '..', 'junk.py'), 'w').write('x = 1')\n",
    )
    .unwrap();
    let spec = WorkerSpec::for_tree(root);
    let run = |overlay: Vec<Overlay>, ids: &[&str]| {
        Request::Pytest(PytestRun {
            rootdir: ".".into(),
            node_ids: ids.iter().map(|s| (*s).to_string()).collect(),
            coverage: false,
            extra_args: vec![],
            pristine: true,
            overlay,
            capture: false,
            trace: None,
            observe: None,
        })
    };
    let ov = |path: &str, text: &str| Overlay {
        path: path.into(),
        text: text.into(),
    };
    let both = [
        "tests/test_calc.py::test_double",
        "tests/test_calc.py::test_subprocess_sees_the_work_copy",
    ];
    let reqs = vec![
        // An answer that is wrong: both tests fail (the subprocess sees it too).
        run(
            vec![ov("calc.py", "def double(x):\n    return 3 * x\n")],
            &both,
        ),
        // The original again: both pass.
        run(vec![], &both),
        // A vandal: deletes a data file, makes calc.py unreadable, adds a file.
        run(
            vec![ov("tests/vandal.flag", "")],
            &["tests/test_calc.py::test_vandal"],
        ),
        // Clean again.
        run(vec![], &both),
        // An answer that does not parse.
        run(vec![ov("calc.py", "def double(x:\n    return\n")], &both),
    ];
    let mut limits = limits();
    limits.wall = Duration::from_mins(1);
    limits.cpu_seconds = 60;
    let out = run_batch(&backend(), &spec, &reqs, &limits).unwrap();
    let outcomes = |o: &execution::protocol::Outcome| {
        o.tests
            .iter()
            .map(|t| t.outcome.as_str().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(outcomes(&out[0]), ["failed", "failed"], "{:?}", out[0]);
    assert_eq!(outcomes(&out[1]), ["passed", "passed"], "{:?}", out[1]);
    assert_eq!(outcomes(&out[2]), ["passed"], "{:?}", out[2]);
    assert_eq!(outcomes(&out[3]), ["passed", "passed"], "{:?}", out[3]);
    assert_eq!(out[4].status, Status::Exception, "{:?}", out[4]);
    assert_eq!(
        out[4].exception.as_ref().map(|e| e.type_name.as_str()),
        Some("SyntaxError")
    );
    assert!(out[4].tests.is_empty());
    // The original tree is untouched.
    assert_eq!(
        std::fs::read_to_string(root.join("calc.py")).unwrap(),
        "def double(x):\n    return 2 * x\n"
    );
    assert!(!root.join("junk.py").exists());
}
