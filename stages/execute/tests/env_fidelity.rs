//! A repository's environment as a plain install of it would be: its data files in the
//! tree (bytes kept), the project's real metadata and entry points in its `.dist-info`
//! (found by `importlib.metadata`), its own pins of pytest and its plugins over
//! freshbench's, and its test requirements from every source a developer would use.

use std::process::Command;

use execute::env::requirements::{extract, from_tox_ini, requires_dist, DepFile};
use execute::env::{tool_requirements, tree, PINS};
use schemas::{Bytes, File, FileKind, FileStatus};

fn dep<'a>(path: &'a str, content: &'a str) -> DepFile<'a> {
    DepFile { path, content }
}

fn row(path: &str, kind: FileKind, content: Option<&str>, bytes: Option<&[u8]>) -> File {
    File {
        repo_id: "r".into(),
        path: path.into(),
        kind,
        sha256: String::new(),
        size: 0,
        content: content.map(str::to_string),
        bytes: bytes.map(|b| Bytes(b.to_vec())),
        status: if content.is_some() || bytes.is_some() {
            FileStatus::Ok
        } else {
            FileStatus::Skipped
        },
        reason: None,
        changed_lines: None,
        line_dates: None,
    }
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\xff\xfe";

const PYPROJECT: &str = r#"
[project]
name = "demo"
dynamic = ["version"]
[project.scripts]
demo = "demo.cli:main"
[project.entry-points."demo.plugins"]
csv = "demo.formats:Csv"
"#;

#[test]
fn materialize_writes_data_bytes_and_real_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        row("src/demo/__init__.py", FileKind::Source, Some("X = 1\n"), None),
        row("tests/data/logo.png", FileKind::Data, None, Some(PNG)),
        row("tests/data/table.csv", FileKind::Data, Some("a,b\r\n1,2\r\n"), None),
        row("tests/data/too_big.bin", FileKind::Data, None, None),
        row("pyproject.toml", FileKind::Dependency, Some(PYPROJECT), None),
        row(
            "PKG-INFO",
            FileKind::Dependency,
            Some("Metadata-Version: 2.4\nName: demo\nVersion: 2.0\nSummary: A demo\nRequires-Dist: attrs\n\nLong text.\n"),
            None,
        ),
        row(
            "src/demo.egg-info/entry_points.txt",
            FileKind::Data,
            Some("[pytest11]\ndemo = demo.plugin\n"),
            None,
        ),
    ];
    let rows: Vec<&File> = files.iter().collect();
    let t = tree::materialize(dir.path(), "r", "demo", "2.0", &rows).unwrap();
    assert_eq!(
        std::fs::read(t.root.join("tests/data/logo.png")).unwrap(),
        PNG
    );
    assert_eq!(
        std::fs::read(t.root.join("tests/data/table.csv")).unwrap(),
        b"a,b\r\n1,2\r\n"
    );
    assert!(
        !t.root.join("tests/data/too_big.bin").exists(),
        "a skipped row has nothing to write"
    );
    assert!(
        !t.root.join("src/demo.egg-info").exists(),
        "the egg-info is read for the metadata, not laid out beside the dist-info"
    );
    let dist = t.meta.join("demo-2.0.dist-info");
    assert_eq!(
        std::fs::read_to_string(dist.join("METADATA")).unwrap(),
        "Metadata-Version: 2.4\nName: demo\nVersion: 2.0\nSummary: A demo\nRequires-Dist: attrs\n\nLong text.\n"
    );
    assert_eq!(
        std::fs::read_to_string(dist.join("entry_points.txt")).unwrap(),
        "[console_scripts]\ndemo = demo.cli:main\n\n[demo.plugins]\ncsv = demo.formats:Csv\n\n[pytest11]\ndemo = demo.plugin\n\n"
    );

    // Other bytes of a data file: another tree.
    let mut changed = files.clone();
    changed[1].bytes = Some(Bytes(b"\x89PNG other".to_vec()));
    let rows2: Vec<&File> = changed.iter().collect();
    let t2 = tree::materialize(dir.path(), "r", "demo", "2.0", &rows2).unwrap();
    assert_ne!(t2.root, t.root);
    // The (path, text) form still works, and gives the same tree for the same text files.
    let texts = [("src/demo/__init__.py", "X = 1\n")];
    let t3 = tree::materialize(dir.path(), "r", "demo", "2.0", &texts).unwrap();
    assert!(t3.root.join("src/demo/__init__.py").is_file());
}

/// `importlib.metadata`, as the project and pytest use it, finds the version and the entry
/// points of a tree's `.dist-info` on `sys.path`.
#[test]
fn importlib_metadata_finds_version_and_entry_points() {
    let python = execution::default_interpreter();
    if Command::new(&python)
        .arg("-c")
        .arg("pass")
        .status()
        .is_err()
    {
        eprintln!("skipped: no Python interpreter at {}", python.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = "[metadata]\nname = demo\n\n[options.entry_points]\ndemo.plugins =\n    json = demo.formats:Json\n";
    let files = [
        ("demo/__init__.py", "X = 1\n"),
        ("demo/formats.py", "class Json: pass\n"),
        ("setup.cfg", cfg),
        (
            "PKG-INFO",
            "Metadata-Version: 2.1\nName: demo\nVersion: 3.1\n",
        ),
    ];
    let t = tree::materialize(dir.path(), "r", "demo", "3.1", &files).unwrap();
    let script = "import importlib.metadata as m, sys\n\
        eps = m.entry_points(group='demo.plugins')\n\
        print(m.version('demo'), [e.name for e in eps], eps['json'].load().__name__)\n\
        print(sorted(str(f) for f in m.files('demo')))\n";
    let out = Command::new(&python)
        .args(["-I", "-c"])
        .arg(format!(
            "import sys; sys.path[:0] = [{:?}, {:?}]\n{script}",
            t.root.display().to_string(),
            t.meta.display().to_string()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // RECORD lists the modules as installed, so that pytest finds a plugin's modules to
    // rewrite its assertions (regression: pytest-mock's introspection tests failed).
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "3.1 ['json'] Json\n['demo/__init__.py', 'demo/formats.py']"
    );
    let src = [
        ("src/demo/__init__.py", &b""[..]),
        ("src/demo/x.py", b""),
        ("tests/test_x.py", b""),
    ];
    assert_eq!(
        tree::record(&src, "src"),
        "demo/__init__.py,,\ndemo/x.py,,\n"
    );
}

fn pinned(tool: &str) -> String {
    PINS.iter()
        .find(|p| p.starts_with(&format!("{tool}==")))
        .unwrap()
        .clone()
}

#[test]
fn repository_pins_of_pytest_and_plugins_win_coverage_stays_freshbench() {
    let pyproject = r#"
[project]
name = "demo"
[project.optional-dependencies]
test = ["pytest==8.3.4", "pluggy==1.5.0", "pytest-asyncio==0.21.2", "coverage==6.0", "pytest-cov"]
"#;
    let reqs = extract("demo", &[dep("pyproject.toml", pyproject)]);
    assert_eq!(
        reqs,
        [
            "pluggy==1.5.0",
            "pytest-asyncio==0.21.2",
            "pytest-cov",
            "pytest==8.3.4"
        ],
        "the repository's pins are kept; coverage is freshbench's"
    );
    let tools = tool_requirements(&reqs);
    assert_eq!(tools.len(), 2);
    assert!(tools.contains(&"pytest".to_string()), "{tools:?}");
    assert!(tools.contains(&pinned("coverage")), "{tools:?}");

    // A requirement the pin satisfies asks for nothing more: freshbench's pin stays.
    let loose =
        "[project]\nname = 'demo'\n[dependency-groups]\ntests = ['pytest>=7', 'pytest-xdist']\n";
    let reqs = extract("demo", &[dep("pyproject.toml", loose)]);
    assert_eq!(reqs, ["pytest-xdist"]);
    let tools = tool_requirements(&reqs);
    assert!(tools.contains(&pinned("pytest")) && tools.contains(&pinned("coverage")));

    // One the pin does not satisfy is the repository's: pytest is then unpinned by us.
    let capped = extract(
        "demo",
        &[dep(
            "requirements-test.txt",
            "pytest<8 ; python_version >= '3.8'\n",
        )],
    );
    assert_eq!(capped, ["pytest<8 ; python_version >= '3.8'"]);
    assert!(tool_requirements(&capped).contains(&"pytest".to_string()));
}

#[test]
fn test_requirements_from_every_source() {
    let pkg_info = "Metadata-Version: 2.1\nName: demo\nVersion: 1\nRequires-Dist: attrs>=22\nRequires-Dist: hypothesis; extra == \"tests\"\nRequires-Dist: tomli; python_version < \"3.11\" and extra == 'testing'\nRequires-Dist: sphinx; extra == \"docs\"\nProvides-Extra: tests\n\nBody: not a header\n";
    assert_eq!(
        requires_dist(pkg_info),
        [
            ("attrs>=22".to_string(), None),
            ("hypothesis".to_string(), Some("tests".to_string())),
            (
                "tomli; python_version < \"3.11\"".to_string(),
                Some("testing".to_string())
            ),
            ("sphinx".to_string(), Some("docs".to_string())),
        ]
    );
    // Regression: factors that choose variants (`pytest6`, `pytestmain`) are not the plain
    // run, and a bare URL is not a requirement (pytest-mock's and pluggy's tox.ini).
    let tox = "[tox]\nenv_list = py3{10,11}-tests\n\n[testenv]\ndeps =\n    -r{toxinidir}/requirements/ci.txt\n    mock\n    tests: pytest-mock\n    lint: ruff\n    pytest6: pytest==6.2.5\n    pytestmain: git+https://github.com/pytest-dev/pytest.git@main\n    git+https://example.invalid/x.git@main\n    {[base]deps}\nextras = speedups\ndependency_groups = tests: fixtures\n\n[testenv:docs]\ndeps = sphinx\n";
    let needs = from_tox_ini(tox);
    assert_eq!(
        needs.deps,
        [
            "-r{toxinidir}/requirements/ci.txt",
            "mock",
            "pytest-mock",
            "git+https://example.invalid/x.git@main",
            "{[base]deps}"
        ]
    );
    assert_eq!(
        (needs.extras, needs.groups),
        (vec!["speedups".to_string()], vec!["fixtures".to_string()])
    );

    let pyproject = r#"
[project]
name = "demo"
[project.optional-dependencies]
speedups = ["ujson"]
[dependency-groups]
fixtures = ["responses"]
testing = ["freezegun"]
"#;
    let reqs = extract(
        "demo",
        &[
            dep("PKG-INFO", pkg_info),
            dep("pyproject.toml", pyproject),
            dep("tox.ini", tox),
            dep("test-requirements.txt", "pytest-timeout\n"),
            dep(
                "requirements/tests.txt",
                "-r base.txt\n--requirement ../docs/requirements.txt\nrequests-mock\n",
            ),
            dep("requirements/base.txt", "idna\n"),
            dep("requirements/ci.txt", "trustme\n"),
            dep("requirements/docs.txt", "furo\n"),
            dep("docs/requirements.txt", "sphinx-rtd-theme\n"),
            dep("requirements/lint.txt", "flake8\n"),
        ],
    );
    assert_eq!(
        reqs,
        [
            "attrs>=22",
            "freezegun",
            "hypothesis",
            "idna",
            "mock",
            "pytest-mock",
            "pytest-timeout",
            "requests-mock",
            "responses",
            "tomli; python_version < \"3.11\"",
            "trustme",
            "ujson",
        ]
    );
}

#[test]
fn an_egg_infos_requires_txt_counts_as_declared_requirements() {
    // An sdist of an older setuptools: its PKG-INFO has no Requires-Dist, its
    // egg-info lists them; a vendored project's egg-info does not count.
    let pkg_info = "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n\nlong text\n";
    let requires = "docopt>=0.6.2\n\n[:python_version < \"3.8\"]\nimportlib-metadata\n\n\
                    [Tests]\nmock\n\n[tests:sys_platform == \"win32\"]\ncolorama\n\n\
                    [speedups]\nujson\n";
    let files = [
        dep("PKG-INFO", pkg_info),
        dep("src/demo.egg-info/requires.txt", requires),
        dep("vendor/other.egg-info/requires.txt", "django\n"),
    ];
    assert_eq!(
        extract("demo", &files),
        [
            "colorama; sys_platform == \"win32\"",
            "docopt>=0.6.2",
            "importlib-metadata; python_version < \"3.8\"",
            "mock",
        ]
    );
    // The project's own extra, named by a test source, is followed into requires.txt.
    let files = [
        dep("demo.egg-info/requires.txt", requires),
        dep("test-requirements.txt", "demo[speedups]\n"),
    ];
    assert!(extract("demo", &files).contains(&"ujson".to_string()));
}

#[test]
fn conflicting_pins_are_settled_for_the_test_sources() {
    let reqs = extract(
        "demo",
        &[
            dep("requirements.txt", "attrs==23.1.0\nidna==3.4\n"),
            dep(
                "requirements-dev.txt",
                "attrs==22.2.0\nidna==3.4\nsix==1.16.0\n",
            ),
            dep("requirements-test.txt", "attrs==24.2.0\n"),
        ],
    );
    assert_eq!(reqs, ["attrs==24.2.0", "idna==3.4", "six==1.16.0"]);
}

#[test]
fn lint_plugins_are_not_test_requirements() {
    // base58's tests extra: pytest-flake8 1.3 cannot load under pytest 9, and its items
    // check style, not code; the other plugins and libraries stay.
    let cfg = "[options.extras_require]\ntests =\n\tmypy\n\tPyHamcrest>=2.0.2\n\t\
               pytest>=4.6\n\tpytest-benchmark\n\tpytest-cov\n\tpytest-flake8\n\t\
               pytest_MyPy\n";
    assert_eq!(
        extract("base58", &[dep("setup.cfg", cfg)]),
        [
            "PyHamcrest>=2.0.2",
            "mypy",
            "pytest-benchmark",
            "pytest-cov"
        ]
    );
}
