//! Environments, offline: requirement extraction from every dependency file kind, the
//! stability of the cache key, atomic creation and cached failures (with a stand-in for uv
//! that makes a fake environment), and the materialized tree.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use execute::env::requirements::{
    extract, from_requirements_txt, from_setup_cfg, from_setup_py, DepFile,
};
use execute::env::{env_key, sdist, tree, EnvConfig, EnvState, Envs, Interpreter, PINS};

fn dep<'a>(path: &'a str, content: &'a str) -> DepFile<'a> {
    DepFile { path, content }
}

#[test]
fn pyproject_dependencies_test_extras_and_groups() {
    let text = r#"
[project]
name = "My.Pkg"
dependencies = ["attrs>=22", "packaging; python_version >= '3.8'"]

[project.optional-dependencies]
test = ["hypothesis", "pytest>=7", "my-pkg[speedups]"]
Testing = ["freezegun"]
docs = ["sphinx"]
dev = ["coverage[toml]", "tox"]
speedups = ["ujson"]

[dependency-groups]
tests = [{ include-group = "base" }, "pympler"]
dev = ["ruff"]
lint = ["flake8"]
base = ["never-here"]
"#;
    let reqs = extract("my_pkg", &[dep("pyproject.toml", text)]);
    assert_eq!(
        reqs,
        vec![
            "attrs>=22",
            "freezegun",
            "hypothesis",
            "packaging; python_version >= '3.8'",
            "pympler",
            "ruff",
            "tox",
            "ujson",
        ],
        "extras of the project itself are followed; pytest and coverage are freshbench's; docs, lint and included groups are not taken"
    );
}

#[test]
fn requirements_txt_skips_options_comments_paths_and_urls() {
    let text = "# a comment\n\
        requests>=2.0  # trailing\n\
        -r other.txt\n\
        -e .\n\
        -c constraints.txt\n\
        --index-url https://example.invalid/simple\n\
        numpy==1.26.0 \\\n    --hash=sha256:abc\n\
        ./local/pkg\n\
        https://example.invalid/x.tar.gz\n\
        pkg @ https://example.invalid/pkg-1.0.tar.gz\n\
        \n\
        six; python_version < '3'\n";
    assert_eq!(
        from_requirements_txt(text),
        vec![
            "requests>=2.0",
            "numpy==1.26.0",
            "pkg @ https://example.invalid/pkg-1.0.tar.gz",
            "six; python_version < '3'",
        ]
    );
    // Root files only; test and dev variants in, docs and linting out.
    let reqs = extract(
        "x",
        &[
            dep("requirements.txt", "a\n"),
            dep("requirements-test.txt", "b\n"),
            dep("requirements_dev.txt", "c\n"),
            dep("requirements-docs.txt", "sphinx\n"),
            dep("requirements-mypy.txt", "mypy\n"),
            dep("docs/requirements.txt", "furo\n"),
            // For Python 2 (ecdsa's), with a requirement only git can fetch.
            dep(
                "build-requirements-2.7.txt",
                "git+https://example.invalid/coveralls.git#egg=coveralls\n",
            ),
            dep("requirements-py2.txt", "mock==2.0.0\n"),
        ],
    );
    assert_eq!(reqs, vec!["a", "b", "c"]);
}

#[test]
fn setup_cfg_install_requires_and_test_extras() {
    let text = "[metadata]\nname = x\n\n[options]\npackages = find:\ninstall_requires =\n    click>=8\n    # a comment\n    rich ; python_version>'3.7'\n\n[options.extras_require]\ntesting =\n    pytest-mock\ntest = hypothesis; mock\ndocs =\n    sphinx\n";
    assert_eq!(
        from_setup_cfg(text),
        vec![
            "click>=8",
            "rich ; python_version>'3.7'",
            "pytest-mock",
            "hypothesis",
            "mock"
        ]
    );
}

#[test]
fn setup_py_literal_lists_without_running_it() {
    let text = r#"
from setuptools import setup
deps = compute()
setup(
    name="x",
    install_requires=[
        "requests>=2",  # http
        'idna',
    ],
    tests_require = ["pytest", "responses"],
    extras_require={"docs": ["sphinx"]},
    setup_requires=deps,
)
"#;
    assert_eq!(
        from_setup_py(text),
        vec!["requests>=2", "idna", "pytest", "responses"]
    );
    let reqs = extract("x", &[dep("setup.py", text)]);
    assert_eq!(reqs, vec!["idna", "requests>=2", "responses"]);
}

fn interp() -> Interpreter {
    Interpreter {
        base: PathBuf::from("/opt/python/bin/python3.11"),
        version: "3.11.7".into(),
        implementation: "cpython".into(),
    }
}

#[test]
fn env_key_is_stable_and_depends_on_what_defines_the_environment() {
    let pins = vec!["pytest==9.2.0".to_string(), "coverage==7.17.5".to_string()];
    let a = env_key(
        &interp(),
        &["b".into(), "a".into(), "a".into()],
        &pins,
        false,
    );
    let b = env_key(&interp(), &["a".into(), " b ".into()], &pins, false);
    assert_eq!(a, b, "order, duplicates and spaces do not matter");
    assert_eq!(a.len(), 32);
    // A fixed input gives a fixed key, from one build to the next (a change here throws
    // every cached environment away: bump ENV_FORMAT on purpose, then update this value).
    assert_eq!(a, "d633dfae0aa09d5e0e2070cd8a9ef419");
    let other_pins = vec!["pytest==8.0.0".to_string(), "coverage==7.17.5".to_string()];
    assert_ne!(
        a,
        env_key(&interp(), &["a".into(), "b".into()], &other_pins, false)
    );
    let mut i = interp();
    i.version = "3.12.1".into();
    assert_ne!(a, env_key(&i, &["a".into(), "b".into()], &pins, false));
    assert_ne!(a, env_key(&interp(), &["a".into()], &pins, false));
    assert_ne!(
        a,
        env_key(&interp(), &["a".into(), "b".into()], &pins, true)
    );
    assert!(PINS.iter().any(|p| p.starts_with("pytest==")));
    assert!(PINS.iter().any(|p| p.starts_with("coverage==")));
}

/// A stand-in for uv: `venv` makes `DIR/bin/python` (a link to a real Python) and
/// `DIR/lib/python3/site-packages`; `pip install` fails when the requirements mention
/// `fail-me`, and, as uv does with `--no-build`, says that `sdonly` and `cext` have no wheel
/// unless a `.dist-info` of theirs is already in site-packages. Every call is counted in `calls`.
fn fake_uv(dir: &Path) -> PathBuf {
    let uv = dir.join("fake-uv");
    let python = execution::default_interpreter();
    let script = r#"#!/bin/sh
echo "$@" >> 'CALLS'
if [ "$1" = venv ]; then
  for a; do last=$a; done
  mkdir -p "$last/bin" "$last/lib/python3/site-packages" && ln -sf 'PYTHON' "$last/bin/python"
  exit 0
fi
while [ $# -gt 0 ]; do
  if [ "$1" = -r ]; then f=$2; fi
  if [ "$1" = --python ]; then py=$2; fi
  shift
done
if grep -q fail-me "$f"; then
  echo 'error: No solution found when resolving dependencies: fail-me was not found' >&2
  exit 1
fi
site="$(dirname "$(dirname "$py")")/lib/python3/site-packages"
for p in sdonly cext; do
  if grep -q "^$p" "$f" && ! ls -d "$site/$p"-*.dist-info >/dev/null 2>&1; then
    echo "  cause: Because all versions of $p have no usable wheels and you require $p, we can conclude that your requirements are unsatisfiable." >&2
    echo "hint: Wheels are required for \`$p\` because building from source is disabled for all packages (i.e., with \`--no-build\`)" >&2
    exit 1
  fi
done
exit 0
"#
    .replace("CALLS", &dir.join("calls").display().to_string())
    .replace("PYTHON", &python.display().to_string());
    std::fs::write(&uv, script).unwrap();
    std::fs::set_permissions(&uv, std::fs::Permissions::from_mode(0o755)).unwrap();
    uv
}

fn config(cache: &Path, uv: PathBuf, rebuild: bool) -> EnvConfig {
    EnvConfig {
        cache_dir: cache.to_path_buf(),
        python: execution::default_interpreter(),
        uv: Some(uv),
        rebuild,
        timeout: Duration::from_mins(2),
        allow_sdist_builds: false,
        sdist_index: None,
    }
}

fn calls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("calls")).map_or(0, |s| s.lines().count())
}

#[test]
fn environments_are_built_atomically_reused_and_failures_cached() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let uv = fake_uv(dir.path());
    // A leftover of a run that crashed while building (its pid is gone): never trusted,
    // removed when the cache is opened.
    let envs_dir = cache.join("envs");
    std::fs::create_dir_all(envs_dir.join("0123.tmp-999999999/bin")).unwrap();
    let envs = Envs::open(config(&cache, uv.clone(), false)).unwrap();
    assert!(!envs_dir.join("0123.tmp-999999999").exists());

    let reqs = vec!["six".to_string()];
    let key = envs.key(&reqs);
    // A half environment under the final name's tmp of another (dead) process is ignored.
    let env = envs.ensure(&reqs).unwrap();
    assert_eq!(env.state, EnvState::Built);
    assert_eq!(env.dir, envs_dir.join(&key));
    assert!(env.dir.join("freshbench-env.json").is_file());
    assert!(env.dir.join("freshbench-requirements.txt").is_file());
    let leftovers: Vec<_> = std::fs::read_dir(&envs_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let requested = std::fs::read_to_string(env.dir.join("freshbench-requirements.txt")).unwrap();
    assert!(
        requested.contains("six")
            && requested.contains("pytest==")
            && requested.contains("coverage==")
    );
    assert_eq!(calls(dir.path()), 2, "venv, then pip install");

    // Reused: no installer call.
    assert_eq!(envs.ensure(&reqs).unwrap().state, EnvState::Reused);
    assert_eq!(calls(dir.path()), 2);

    // A failure is a state with the installer's message, cached under the same key.
    let bad = vec!["fail-me".to_string()];
    let failed = envs.ensure(&bad).unwrap();
    match &failed.state {
        EnvState::Failed { message, cached } => {
            assert!(!cached);
            assert!(message.contains("fail-me was not found"), "{message}");
        }
        s => panic!("expected a failure, got {s:?}"),
    }
    assert!(!failed.dir.exists(), "no half environment left");
    assert!(envs_dir.join(format!("{}.failed", failed.key)).is_file());
    let n = calls(dir.path());
    match envs.ensure(&bad).unwrap().state {
        EnvState::Failed { cached, message } => {
            assert!(cached);
            assert!(message.contains("fail-me was not found"));
        }
        s => panic!("expected a cached failure, got {s:?}"),
    }
    assert_eq!(
        calls(dir.path()),
        n,
        "a cached failure does not run the installer"
    );

    // --rebuild-envs: built again (once per run), failures retried.
    let rebuilding = Envs::open(config(&cache, uv, true)).unwrap();
    assert_eq!(rebuilding.ensure(&reqs).unwrap().state, EnvState::Built);
    assert_eq!(rebuilding.ensure(&reqs).unwrap().state, EnvState::Reused);
    assert!(matches!(
        rebuilding.ensure(&bad).unwrap().state,
        EnvState::Failed { cached: false, .. }
    ));
}

#[test]
fn tree_is_written_once_with_its_dist_info_and_src_layout() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("src/my_pkg/__init__.py", "X = 1\n"),
        ("tests/test_x.py", "def test(): pass\n"),
        ("../escape.py", "no\n"),
        ("pyproject.toml", "[project]\nname='my-pkg'\n"),
    ];
    let t = tree::materialize(dir.path(), "r1", "My-Pkg", "1.0-post1", &files).unwrap();
    assert!(t.written);
    assert_eq!(t.import_root, "src");
    assert_eq!(
        std::fs::read_to_string(t.root.join("src/my_pkg/__init__.py")).unwrap(),
        "X = 1\n"
    );
    assert!(!dir.path().join("escape.py").exists() && !t.root.join("../escape.py").exists());
    let dist = t.meta.join("my_pkg-1.0_post1.dist-info");
    let metadata = std::fs::read_to_string(dist.join("METADATA")).unwrap();
    assert!(
        metadata.contains("Name: My-Pkg\nVersion: 1.0-post1\n"),
        "{metadata}"
    );
    assert!(dist.join("RECORD").is_file() && dist.join("INSTALLER").is_file());
    let mode = std::fs::metadata(t.root.join("tests/test_x.py"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
    let again = tree::materialize(dir.path(), "r1", "My-Pkg", "1.0-post1", &files).unwrap();
    assert!(!again.written);
    assert_eq!(again.root, t.root);
    // Other contents: another folder.
    let changed = tree::materialize(dir.path(), "r1", "My-Pkg", "1.0-post1", &files[..2]).unwrap();
    assert_ne!(changed.root, t.root);
    assert_eq!(
        tree::import_root(["pkg/__init__.py", "src_stuff/a.py"]),
        "."
    );
    assert_eq!(
        tree::import_root(["src/pkg/__init__.py", "tests/t.py"]),
        "src"
    );
    // Beside the egg-info setuptools wrote (`package_dir={"": "lib"}`).
    assert_eq!(
        tree::import_root([
            "lib/markdown2.egg-info/PKG-INFO",
            "lib/markdown2.py",
            "test/test_markdown2.py"
        ]),
        "lib"
    );
    // An egg-info beside no code says nothing.
    assert_eq!(
        tree::import_root(["meta/x.egg-info/PKG-INFO", "pkg/__init__.py"]),
        "."
    );
}

/// A `.tar.gz` of `files` under one top folder, as sdists are laid out.
fn sdist_archive(top: &str, files: &[(&str, &str)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for (path, text) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("{top}/{path}"), text.as_bytes())
            .unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

/// A stand-in for the package index's JSON API on 127.0.0.1: answers GETs from `routes`
/// (404 otherwise) and returns its base URL.
fn index_stand_in(routes: std::collections::HashMap<String, Vec<u8>>) -> String {
    use std::io::{BufRead as _, BufReader, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            let _ = reader.read_line(&mut request);
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 0) && header != "\r\n" {
                header.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let (status, body) = routes
                .get(path)
                .map_or((404, &b"not found"[..]), |b| (200, b.as_slice()));
            let head = format!(
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body);
        }
    });
    base
}

#[test]
fn a_dependency_without_a_wheel_is_copied_in_from_its_sdist_never_built() {
    use sha2::Digest as _;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let uv = fake_uv(dir.path());
    let pure = |v: &str| {
        sdist_archive(
            &format!("sdonly-{v}"),
            &[
                (
                    "PKG-INFO",
                    &format!("Metadata-Version: 2.1\nName: sdonly\nVersion: {v}\n"),
                ),
                ("setup.py", "raise SystemExit('never run')\n"),
                ("sdonly.py", &format!("VERSION = {v:?}\n")),
            ],
        )
    };
    let ext = sdist_archive(
        "cext-1.0",
        &[
            ("setup.py", "from setuptools import setup, Extension\nsetup(ext_modules=[Extension('cext', ['cext.c'])])\n"),
            ("cext.c", ""),
        ],
    );
    let mut routes = std::collections::HashMap::new();
    let mut doc = |name: &str, archives: Vec<(&str, Vec<u8>)>| {
        let mut releases = serde_json::Map::new();
        for (v, bytes) in archives {
            let file = format!("{name}-{v}.tar.gz");
            let sha = hex::encode(sha2::Sha256::digest(&bytes));
            releases.insert(
                v.to_string(),
                serde_json::json!([{"packagetype": "sdist", "filename": file,
                    "url": format!("/files/{file}"), "digests": {"sha256": sha}}]),
            );
            routes.insert(format!("/files/{file}"), bytes);
        }
        let body = serde_json::json!({"info": {"name": name}, "releases": releases});
        routes.insert(format!("/pypi/{name}/json"), body.to_string().into_bytes());
    };
    doc("sdonly", vec![("1.0", pure("1.0")), ("2.0", pure("2.0"))]);
    doc("cext", vec![("1.0", ext)]);
    let base = index_stand_in(routes);
    let mut cfg = config(&cache, uv, false);
    cfg.sdist_index = Some(url::Url::parse(&format!("{base}/pypi")).unwrap());
    let envs = Envs::open(cfg).unwrap();

    // The version the requirement allows, its module copied in, setup.py never run.
    let env = envs.ensure(&["sdonly<2".to_string()]).unwrap();
    assert_eq!(env.state, EnvState::Built, "{:?}", env.state);
    let site = env.dir.join("lib/python3/site-packages");
    assert_eq!(
        std::fs::read_to_string(site.join("sdonly.py")).unwrap(),
        "VERSION = \"1.0\"\n"
    );
    assert!(!site.join("setup.py").exists());
    assert!(site.join("sdonly-1.0.dist-info/METADATA").is_file());
    let log = std::fs::read_to_string(env.dir.join("freshbench-build.log")).unwrap();
    assert!(log.contains("sdonly 1.0 has no wheel"), "{log}");
    // The archive is kept by its sha256 beside crawl's.
    assert_eq!(std::fs::read_dir(cache.join("sdists")).unwrap().count(), 1);

    // An sdist that has to be compiled is refused, with the reason.
    match envs.ensure(&["cext".to_string()]).unwrap().state {
        EnvState::Failed { message, .. } => assert!(
            message.contains("cext has no wheel, and its sdist cannot be used without building it: its setup.py builds extension modules"),
            "{message}"
        ),
        s => panic!("expected a failure, got {s:?}"),
    }
}

#[test]
fn copies_modules_and_packages_but_no_tooling_or_tests() {
    let bytes = sdist_archive(
        "pkg-1.0",
        &[
            (
                "PKG-INFO",
                "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\nRequires-Dist: six\n",
            ),
            (
                "setup.py",
                "from setuptools import setup\nsetup(name='pkg')\n",
            ),
            ("conftest.py", ""),
            ("single.py", "X = 1\n"),
            ("test_single.py", "def test(): pass\n"),
            ("pkg/__init__.py", "from .core import f\n"),
            ("pkg/core.py", "def f():\n    return 2\n"),
            ("pkg/data/words.txt", "a\nb\n"),
            ("tests/__init__.py", ""),
            ("docs/conf.py", ""),
        ],
    );
    let u = sdist::unpack("pkg", "1.0", "pkg-1.0.tar.gz", &bytes).unwrap();
    let paths: Vec<&str> = u.files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "pkg/__init__.py",
            "pkg/core.py",
            "pkg/data/words.txt",
            "single.py"
        ]
    );
    assert!(u.metadata.contains("Requires-Dist: six"));

    // Installed: importable, and importlib.metadata knows its version.
    let dir = tempfile::tempdir().unwrap();
    u.install(dir.path()).unwrap();
    let record = std::fs::read_to_string(dir.path().join("pkg-1.0.dist-info/RECORD")).unwrap();
    assert!(
        record.contains("pkg/core.py,,\n") && record.contains("pkg-1.0.dist-info/METADATA,,\n")
    );
    let python = execution::default_interpreter();
    let out = std::process::Command::new(python)
        .args([
            "-I",
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); import pkg, single, importlib.metadata as m; print(pkg.f(), single.X, m.version('pkg'))",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "2 1 1.0",
        "{out:?}"
    );
}

#[test]
fn src_layout_and_refusals() {
    let src = sdist_archive(
        "p-2",
        &[
            ("src/p/__init__.py", "V = 2\n"),
            ("src/p/tests/__init__.py", ""),
            ("setup.cfg", "[metadata]\nname = p\n"),
        ],
    );
    let u = sdist::unpack("p", "2", "p-2.tar.gz", &src).unwrap();
    assert_eq!(
        u.files.len(),
        2,
        "the package's own subfolders are part of it"
    );
    assert!(
        u.metadata.contains("Name: p\nVersion: 2\n"),
        "{}",
        u.metadata
    );

    // A pytest plugin as one module under src/, found through its entry point.
    let plugin = sdist_archive(
        "pytest_q-1",
        &[
            (
                "src/pytest_q.py",
                "def pytest_addoption(parser):\n    pass\n",
            ),
            (
                "src/pytest_q.egg-info/entry_points.txt",
                "[pytest11]\nq = pytest_q\n",
            ),
            ("tests/test_q.py", ""),
        ],
    );
    let u = sdist::unpack("pytest-q", "1", "pytest_q-1.tar.gz", &plugin).unwrap();
    assert_eq!(u.files.len(), 1);
    assert_eq!(u.files[0].0, "pytest_q.py");
    assert!(
        u.entry_points
            .as_deref()
            .is_some_and(|e| e.contains("[pytest11]\nq = pytest_q")),
        "{:?}",
        u.entry_points
    );

    let ext = sdist_archive(
        "c-1",
        &[("setup.py", "from setuptools import setup, Extension\nsetup(ext_modules=[Extension('c._x', ['c/_x.c'])])\n"), ("c/__init__.py", "")],
    );
    let why = sdist::unpack("c", "1", "c-1.tar.gz", &ext).unwrap_err();
    assert!(why.contains("builds extension modules"), "{why}");

    let pyx = sdist_archive("y-1", &[("y/__init__.py", ""), ("y/fast.pyx", "")]);
    assert_eq!(
        sdist::unpack("y", "1", "y-1.tar.gz", &pyx).unwrap_err(),
        "y/fast.pyx has to be compiled"
    );

    let empty = sdist_archive("e-1", &[("setup.py", ""), ("tests/test_e.py", "")]);
    assert!(sdist::unpack("e", "1", "e-1.tar.gz", &empty)
        .unwrap_err()
        .contains("no package or module"));
}
