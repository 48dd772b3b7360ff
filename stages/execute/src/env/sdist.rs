//! Dependencies the package index offers only as a source distribution, installed without
//! running their build code.
//!
//! Environments install wheels only (`--no-build`), because building an sdist runs its
//! `setup.py` or build backend on the host, outside the sandbox. Many small pure-Python
//! projects never published a wheel (docopt; pytest plugins such as pytest-clarity), and a
//! repository that needs one would have no environment at all. Such an sdist holds its
//! modules as they are imported: when the installer names packages that have no usable
//! wheel, each one's sdist is fetched (through crawl's [`crawl::pypi::Fetcher`], checked
//! against the index's sha256), read in memory, and, when nothing in it has to be compiled,
//! its top-level packages and modules are written into the environment's `site-packages`
//! with a `.dist-info` made from its `PKG-INFO` (so the installer, on its next try, sees the
//! requirement satisfied and installs the `Requires-Dist` it declares). No code of the sdist
//! runs on the host: its files are only copied. An sdist that builds extension modules
//! (`ext_modules`, Cython, a Rust or Meson backend) is refused, and the environment fails
//! as before, with the reason.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use crawl::tree::{DataLimits, Limits};

/// A Python file (`.py`, as the import system spells it: case matters).
pub(crate) fn is_py(path: &str) -> bool {
    Path::new(path).extension().is_some_and(|e| e == "py")
}

/// Characters of a name as requirement strings spell it.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

/// The packages uv says have no usable wheel, from its message for a failed `--no-build`
/// install: the hint lines (``Wheels are required for `docopt` ``) and the clauses of its
/// explanation (`Because docopt==0.6.2 has no usable wheels`, `all versions of X have no
/// usable wheels`, `... and Y>=1 has no usable wheels`). Names are as written, in order of
/// first mention, without duplicates (compared normalized).
pub fn wheelless(message: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut push = |name: &str| {
        let name = name.trim_matches(|c: char| !is_name_char(c) || c == '.' || c == '-');
        if !name.is_empty()
            && !found
                .iter()
                .any(|f| super::requirements::normalize(f) == super::requirements::normalize(name))
        {
            found.push(name.to_string());
        }
    };
    for part in message.split("Wheels are required for `").skip(1) {
        if let Some((name, _)) = part.split_once('`') {
            push(name);
        }
    }
    for marker in [" has no usable wheels", " have no usable wheels"] {
        let mut rest = message;
        while let Some(at) = rest.find(marker) {
            let before = &rest[..at];
            let word = before
                .rsplit(|c: char| c.is_whitespace())
                .next()
                .unwrap_or("");
            let name_end = word.find(|c: char| !is_name_char(c)).unwrap_or(word.len());
            push(&word[..name_end]);
            rest = &rest[at + marker.len()..];
        }
    }
    found
}

/// The version to take among those with an sdist: the highest one `specifier` allows (any
/// when `None`), final releases before pre-releases.
pub fn choose_version(versions: &[&str], specifier: Option<&str>) -> Option<String> {
    let allowed = |v: &str| specifier.is_none_or(|s| super::pep440::satisfies(v, s) == Some(true));
    let parsed: Vec<(super::pep440::Version, &str)> = versions
        .iter()
        .filter(|v| allowed(v))
        .filter_map(|v| super::pep440::Version::parse(v).map(|p| (p, *v)))
        .collect();
    let best = |pre: bool| {
        parsed
            .iter()
            .filter(|(p, _)| p.is_pre() == pre)
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, v)| (*v).to_string())
    };
    best(false).or_else(|| best(true))
}

/// An sdist's installable part: the files to write into `site-packages` (paths relative
/// to it) and the `.dist-info` that says what they are.
#[derive(Debug, Clone)]
pub struct Unpacked {
    pub name: String,
    pub version: String,
    pub files: Vec<(String, Vec<u8>)>,
    /// `METADATA` (from the sdist's `PKG-INFO`, see [`super::dist_info::metadata`]).
    pub metadata: String,
    /// `entry_points.txt`, when it declares any.
    pub entry_points: Option<String>,
}

/// Folders at an sdist's import root that are not the project's importable code.
const NOT_CODE: &[&str] = &[
    "tests",
    "test",
    "testing",
    "docs",
    "doc",
    "examples",
    "example",
    "benchmarks",
    "bench",
    "scripts",
    "tools",
];
/// Modules at the root that are the sdist's own tooling.
const NOT_MODULES: &[&str] = &[
    "setup.py",
    "conftest.py",
    "noxfile.py",
    "fabfile.py",
    "tasks.py",
    "ez_setup.py",
    "distribute_setup.py",
];
/// Sources that mean something has to be compiled.
const COMPILED: &[&str] = &[
    ".c", ".cc", ".cpp", ".cxx", ".pyx", ".pxd", ".rs", ".f", ".f90", ".go",
];
/// Build backends and setup calls that compile extension modules.
const BUILDS_EXTENSIONS: &[&str] = &[
    "ext_modules",
    "Extension(",
    "cythonize",
    "maturin",
    "setuptools_rust",
    "setuptools-rust",
    "scikit_build",
    "scikit-build",
    "mesonpy",
    "meson-python",
    "cffi_modules",
];

/// Reads an sdist (`file` names its format) and takes what would be installed: its
/// top-level packages (folders with an `__init__.py`, at the root or under `src/`, other
/// than tests, docs and examples) and modules (`*.py` at that root other than `setup.py`,
/// `conftest.py` and test modules), with every file under those packages (their data too).
/// `Err` says why it cannot be used without building it.
pub fn unpack(name: &str, version: &str, file: &str, bytes: &[u8]) -> Result<Unpacked, String> {
    const FILE_CAP: u64 = 16 << 20;
    let limits = Limits {
        max_file_bytes: FILE_CAP,
        data: Some(DataLimits {
            max_file_bytes: FILE_CAP,
            max_repo_bytes: 64 << 20,
        }),
    };
    let tree =
        crawl::archive::read_archive(file, bytes, &limits, 256 << 20).map_err(|e| e.to_string())?;
    for build_file in ["setup.py", "pyproject.toml", "setup.cfg"] {
        if let Some(text) = tree.text(build_file) {
            if let Some(what) = BUILDS_EXTENSIONS.iter().find(|w| text.contains(*w)) {
                return Err(format!(
                    "its {build_file} builds extension modules (`{what}`)"
                ));
            }
        }
    }
    let is_code_dir = |d: &str| !NOT_CODE.contains(&d) && !d.ends_with(".egg-info");
    let init_of = |root: &str| -> BTreeSet<String> {
        tree.listing
            .keys()
            .filter_map(|p| p.strip_prefix(root))
            .filter_map(|p| p.strip_suffix("/__init__.py"))
            .filter(|d| !d.contains('/') && is_code_dir(d))
            .map(str::to_string)
            .collect()
    };
    let modules_of = |root: &str| -> BTreeSet<String> {
        tree.listing
            .keys()
            .filter_map(|p| p.strip_prefix(root))
            .filter(|p| {
                !p.contains('/')
                    && is_py(p)
                    && !NOT_MODULES.contains(p)
                    && !p.starts_with("test_")
                    && !p.ends_with("_test.py")
            })
            .map(str::to_string)
            .collect()
    };
    let (src_packages, src_modules) = (init_of("src/"), modules_of("src/"));
    let (root, packages, modules) = if src_packages.is_empty() && src_modules.is_empty() {
        ("", init_of(""), modules_of(""))
    } else {
        ("src/", src_packages, src_modules)
    };
    if packages.is_empty() && modules.is_empty() {
        return Err("it holds no package or module to install".to_string());
    }
    let mut files = Vec::new();
    for path in tree.listing.keys() {
        let Some(rel) = path.strip_prefix(root) else {
            continue;
        };
        let top = rel.split('/').next().unwrap_or("");
        let wanted = if rel.contains('/') {
            packages.contains(top)
        } else {
            modules.contains(rel)
        };
        if !wanted {
            continue;
        }
        if COMPILED.iter().any(|ext| rel.ends_with(ext)) {
            return Err(format!("{rel} has to be compiled"));
        }
        match tree.bytes(path) {
            Some(b) => files.push((rel.to_string(), b.to_vec())),
            None if is_py(rel) => {
                return Err(format!(
                    "{rel} is larger than {FILE_CAP} bytes or unreadable"
                ));
            }
            // A data file left out (compiled junk, or over the budget): not installed.
            None => {}
        }
    }
    // METADATA and entry points as the project's own tree gets them (its PKG-INFO or
    // egg-info, pyproject.toml, setup.cfg): a pytest plugin is found by its `pytest11` entry.
    let texts: Vec<(&str, &str)> = tree
        .entries
        .keys()
        .filter_map(|p| tree.text(p).map(|t| (p.as_str(), t)))
        .collect();
    let metadata = super::dist_info::metadata(name, version, &texts);
    let entry_points = super::dist_info::entry_points(name, &texts);
    Ok(Unpacked {
        name: name.to_string(),
        version: version.to_string(),
        files,
        metadata,
        entry_points: (!entry_points.is_empty()).then(|| entry_points.to_text()),
    })
}

impl Unpacked {
    /// Writes the files and the `.dist-info` (`METADATA`, `INSTALLER`, `RECORD`) into
    /// `site_packages`.
    pub fn install(&self, site_packages: &Path) -> std::io::Result<()> {
        let dist = site_packages.join(super::tree::dist_info_name(&self.name, &self.version));
        std::fs::create_dir_all(&dist)?;
        let mut record = String::new();
        for (rel, bytes) in &self.files {
            let path = site_packages.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, bytes)?;
            record.push_str(rel);
            record.push_str(",,\n");
        }
        let dist_name = dist
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        std::fs::write(dist.join("METADATA"), &self.metadata)?;
        std::fs::write(dist.join("INSTALLER"), "freshbench (sdist, not built)\n")?;
        let mut written = vec!["METADATA", "INSTALLER", "RECORD"];
        if let Some(text) = &self.entry_points {
            std::fs::write(dist.join("entry_points.txt"), text)?;
            written.push("entry_points.txt");
        }
        for f in written {
            let _ = writeln!(record, "{dist_name}/{f},,");
        }
        std::fs::write(dist.join("RECORD"), record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_packages_uv_finds_no_wheel_for() {
        // uv 0.13's messages, as seen for real projects' environments.
        let seen = [
            ("  cause: Because docopt==0.6.2 has no usable wheels and only docopt<=0.6.2 is available, we can conclude that docopt>=0.6.2 cannot be used.\n\nhint: Wheels are required for `docopt` because building from source is disabled for all packages (i.e., with `--no-build`)", vec!["docopt"]),
            ("  cause: Because pytest-pycodestyle>=2.3.0 has no usable wheels and you require pytest-pycodestyle>=2.3, we can conclude that your requirements are unsatisfiable.", vec!["pytest-pycodestyle"]),
            ("  cause: Because all versions of pytest-clarity have no usable wheels and you require pytest-clarity, we can conclude", vec!["pytest-clarity"]),
            ("Because a==1 depends on B.x>=2 and B.x>=2 has no usable wheels, a==1 cannot be used.\nhint: Wheels are required for `b-x` because", vec!["b-x"]),
            ("error: No solution found when resolving dependencies: fail-me was not found", vec![]),
        ];
        for (message, names) in seen {
            let got = wheelless(message);
            // `b-x` and `B.x` are one project: named once, as first written.
            assert_eq!(got, names, "{message}");
        }
    }

    #[test]
    fn takes_the_highest_allowed_final_version() {
        let vs = ["0.5", "0.6.2", "0.6.1", "1.0rc1", "junk"];
        assert_eq!(choose_version(&vs, None).as_deref(), Some("0.6.2"));
        assert_eq!(
            choose_version(&vs, Some("<0.6.2")).as_deref(),
            Some("0.6.1")
        );
        assert_eq!(
            choose_version(&vs, Some(">=1.0rc1")).as_deref(),
            Some("1.0rc1")
        );
        assert_eq!(choose_version(&vs, Some(">=2")), None);
    }
}
