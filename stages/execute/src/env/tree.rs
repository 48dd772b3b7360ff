//! A repository's tree, written from the contents crawl recorded in `files` (Python files,
//! dependency files, and the data files its tests read, text or bytes), and the
//! `.dist-info` that stands for the project being installed.
//!
//! `trees/<repo_id>-<hash>/` holds `tree/` (the files) and `meta/` (the
//! `<name>-<version>.dist-info` folder with `METADATA` and `entry_points.txt` made from the
//! project's own metadata files ([`super::dist_info`]), a `RECORD` of the Python files
//! under the import root and `INSTALLER`). `meta/` goes on the worker's `sys.path` beside the tree, so
//! `importlib.metadata` finds the project's version and entry points (the plugins it or
//! pytest discovers); it stays out of the environment, which repositories with the same
//! dependency set share. An `*.egg-info` folder of the sdist is read for that metadata but
//! not written into the tree: a second, partial distribution of the project on `sys.path`
//! would shadow the `.dist-info`. `<hash>` hashes the paths and contents and the name and
//! version, so a repository whose files changed gets a new tree. The folder is built under
//! `.tmp-<pid>` and renamed into place, so a crash never leaves a half tree in use.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::EnvError;

/// Bump when the layout of a tree folder changes (3: data files' bytes, the project's
/// real metadata, entry points and `RECORD`; 4: the import root beside an `*.egg-info`).
const TREE_FORMAT: u32 = 4;

/// A file to write into a tree: its path and its bytes (`None`: nothing to write, a row
/// crawl skipped).
pub trait TreeFile {
    fn path(&self) -> &str;
    fn contents(&self) -> Option<&[u8]>;
}

impl TreeFile for (&str, &str) {
    fn path(&self) -> &str {
        self.0
    }
    fn contents(&self) -> Option<&[u8]> {
        Some(self.1.as_bytes())
    }
}

impl TreeFile for (&str, &[u8]) {
    fn path(&self) -> &str {
        self.0
    }
    fn contents(&self) -> Option<&[u8]> {
        Some(self.1)
    }
}

/// A `files` row: its text, else its bytes (a data file that is not UTF-8); nothing for a
/// row crawl skipped.
impl TreeFile for &schemas::File {
    fn path(&self) -> &str {
        &self.path
    }
    fn contents(&self) -> Option<&[u8]> {
        if self.status != schemas::FileStatus::Ok {
            return None;
        }
        self.content
            .as_deref()
            .map(str::as_bytes)
            .or_else(|| self.bytes.as_ref().map(|b| b.0.as_slice()))
    }
}

/// The `RECORD` of the project: its Python files as an install would place them, relative
/// to the import root (`src/pkg/a.py` of a src layout is `pkg/a.py`), without hashes.
/// pytest reads it to find the modules of a plugin (a `pytest11` entry point) and rewrite
/// their assertions, as it does for an installed plugin.
pub fn record(files: &[(&str, &[u8])], import_root: &str) -> String {
    let prefix = if import_root == "." {
        String::new()
    } else {
        format!("{import_root}/")
    };
    let mut out = String::new();
    for (path, _) in files {
        let Some(rel) = path.strip_prefix(prefix.as_str()) else {
            continue;
        };
        let top_is_module = rel
            .split('/')
            .next()
            .is_some_and(|t| !t.contains('.') || !rel.contains('/'));
        if Path::new(rel).extension().is_some_and(|e| e == "py")
            && top_is_module
            && !in_egg_info(rel)
        {
            out.push_str(rel);
            out.push_str(",,\n");
        }
    }
    out
}

/// Whether `path` lies in an `*.egg-info` folder (read for metadata, not written).
fn in_egg_info(path: &str) -> bool {
    path.rsplit_once('/')
        .is_some_and(|(dir, _)| dir.split('/').any(|d| d.ends_with(".egg-info")))
}

/// A materialized repository.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The repository's files (the worker's `tree`).
    pub root: PathBuf,
    /// The folder holding the project's `.dist-info` (read-only, on `sys.path`).
    pub meta: PathBuf,
    /// `"src"` for a src layout, else `"."`: where the project's packages import from.
    pub import_root: String,
    /// Whether this call wrote it (else it was reused).
    pub written: bool,
}

/// Whether a path is safe to write under a root: relative, no `..`, not empty.
fn safe(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Where the repository's modules are imported from: the folder that holds the project's
/// `*.egg-info` when it is one folder down (setuptools writes it beside the packages in an
/// sdist, `lib/markdown2.egg-info` for `package_dir={"": "lib"}`), else `src` when the
/// repository has a src layout (a package or module directly under `src/`), else `.`.
pub fn import_root<'a>(paths: impl IntoIterator<Item = &'a str>) -> String {
    let paths: Vec<&str> = paths.into_iter().collect();
    let beside_egg_info = paths.iter().find_map(|p| {
        let parts: Vec<&str> = p.split('/').collect();
        (parts.len() == 3 && parts[1].ends_with(".egg-info") && parts[2] == "PKG-INFO")
            .then_some(parts[0])
    });
    let holds_code = |dir: &str| {
        paths.iter().any(|p| {
            p.strip_prefix(dir)
                .and_then(|r| r.strip_prefix('/'))
                .is_some_and(|rest| {
                    let parts: Vec<&str> = rest.split('/').collect();
                    (parts.len() == 1
                        && std::path::Path::new(parts[0])
                            .extension()
                            .is_some_and(|e| e == "py"))
                        || (parts.len() == 2 && parts[1] == "__init__.py")
                })
        })
    };
    if let Some(dir) = beside_egg_info.filter(|d| holds_code(d)) {
        return dir.to_string();
    }
    if holds_code("src") { "src" } else { "." }.to_string()
}

/// The wheel-style escaped `<name>-<version>.dist-info` folder name.
pub fn dist_info_name(name: &str, version: &str) -> String {
    let name = super::requirements::normalize(name).replace('-', "_");
    let version = version.trim().replace('-', "_");
    format!("{name}-{version}.dist-info")
}

/// Writes the repository `repo_id` (its files: `(path, text)`, `(path, bytes)` or `files`
/// rows) under `trees_dir`, or reuses the folder an earlier run wrote for the same contents.
pub fn materialize<F: TreeFile>(
    trees_dir: &Path,
    repo_id: &str,
    name: &str,
    version: &str,
    files: &[F],
) -> Result<Tree, EnvError> {
    let mut sorted: Vec<(&str, &[u8])> = files
        .iter()
        .filter_map(|f| Some((f.path(), f.contents()?)))
        .filter(|(p, _)| safe(p))
        .collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    sorted.dedup_by(|a, b| a.0 == b.0);
    let mut h = Sha256::new();
    h.update(format!("{TREE_FORMAT}\0{name}\0{version}\0").as_bytes());
    for (p, c) in &sorted {
        h.update(p.as_bytes());
        h.update([0]);
        h.update(Sha256::digest(c));
    }
    let hash = hex::encode(&h.finalize()[..8]);
    let dir = trees_dir.join(format!("{repo_id}-{hash}"));
    let tree = |written| Tree {
        root: dir.join("tree"),
        meta: dir.join("meta"),
        import_root: import_root(sorted.iter().map(|(p, _)| *p)),
        written,
    };
    if dir.join("tree").is_dir() && dir.join("meta").is_dir() {
        return Ok(tree(false));
    }
    std::fs::create_dir_all(trees_dir).map_err(super::io_err("cannot create", trees_dir))?;
    super::remove_stale_tmp(trees_dir);
    let tmp = trees_dir.join(format!("{repo_id}-{hash}.tmp-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(super::io_err("cannot remove", &tmp))?;
    }
    let result = write_all(&tmp, name, version, &sorted, &tree(false).import_root);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    if let Err(e) = schemas::io::rename_durably(&tmp, &dir) {
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.join("meta").is_dir() {
            return Err(super::io_err("cannot rename into place", &dir)(e));
        }
        return Ok(tree(false));
    }
    Ok(tree(true))
}

fn write_all(
    tmp: &Path,
    name: &str,
    version: &str,
    files: &[(&str, &[u8])],
    import_root: &str,
) -> Result<(), EnvError> {
    let mkdir = |d: &Path| -> Result<(), EnvError> {
        std::fs::create_dir_all(d).map_err(super::io_err("cannot create", d))?;
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755))
            .map_err(super::io_err("cannot set permissions of", d))
    };
    let write = |p: &Path, bytes: &[u8]| -> Result<(), EnvError> {
        std::fs::write(p, bytes).map_err(super::io_err("cannot write", p))?;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o644))
            .map_err(super::io_err("cannot set permissions of", p))
    };
    let root = tmp.join("tree");
    mkdir(tmp)?;
    mkdir(&root)?;
    for (path, content) in files.iter().filter(|(p, _)| !in_egg_info(p)) {
        let p = root.join(path);
        let mut parent = p.parent();
        // Folders are made one by one so each gets its mode (the umask may be strict).
        let mut chain = Vec::new();
        while let Some(d) = parent {
            if d == root || d.is_dir() {
                break;
            }
            chain.push(d.to_path_buf());
            parent = d.parent();
        }
        for d in chain.iter().rev() {
            mkdir(d)?;
        }
        write(&p, content)?;
    }
    let dist = tmp.join("meta").join(dist_info_name(name, version));
    mkdir(&tmp.join("meta"))?;
    mkdir(&dist)?;
    // The metadata files are text: the others cannot be one of them.
    let texts: Vec<(&str, &str)> = files
        .iter()
        .filter_map(|(p, c)| Some((*p, std::str::from_utf8(c).ok()?)))
        .collect();
    let metadata = super::dist_info::metadata(name, version, &texts);
    write(&dist.join("METADATA"), metadata.as_bytes())?;
    let entry_points = super::dist_info::entry_points(name, &texts);
    if !entry_points.is_empty() {
        write(
            &dist.join("entry_points.txt"),
            entry_points.to_text().as_bytes(),
        )?;
    }
    write(&dist.join("RECORD"), record(files, import_root).as_bytes())?;
    write(&dist.join("INSTALLER"), b"freshbench\n")?;
    Ok(())
}
