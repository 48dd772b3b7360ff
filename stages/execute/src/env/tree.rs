//! A repository's tree, written from the contents crawl recorded in `files`, and the minimal
//! `.dist-info` that stands for the project being installed.
//!
//! `trees/<repo_id>-<hash>/` holds `tree/` (the files) and `meta/` (the
//! `<name>-<version>.dist-info` folder with `METADATA`, an empty `RECORD` and `INSTALLER`).
//! `meta/` goes on the worker's `sys.path` beside the tree, so `importlib.metadata.version`
//! finds the project; it stays out of the environment, which repositories with the same
//! dependency set share. `<hash>` hashes the paths and contents and the name and version,
//! so a repository whose files changed gets a new tree. The folder is built under
//! `.tmp-<pid>` and renamed into place, so a crash never leaves a half tree in use.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::EnvError;

/// Bump when the layout of a tree folder changes.
const TREE_FORMAT: u32 = 1;

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

/// `src` when the repository has a src layout (a package or module directly under `src/`),
/// else `.`.
pub fn import_root<'a>(paths: impl IntoIterator<Item = &'a str>) -> String {
    let src = paths.into_iter().any(|p| {
        p.strip_prefix("src/").is_some_and(|rest| {
            let parts: Vec<&str> = rest.split('/').collect();
            (parts.len() == 1
                && std::path::Path::new(parts[0])
                    .extension()
                    .is_some_and(|e| e == "py"))
                || (parts.len() == 2 && parts[1] == "__init__.py")
        })
    });
    if src { "src" } else { "." }.to_string()
}

/// The wheel-style escaped `<name>-<version>.dist-info` folder name.
pub fn dist_info_name(name: &str, version: &str) -> String {
    let name = super::requirements::normalize(name).replace('-', "_");
    let version = version.trim().replace('-', "_");
    format!("{name}-{version}.dist-info")
}

/// Writes the repository `repo_id` (its `(path, content)` files) under `trees_dir`, or
/// reuses the folder an earlier run wrote for the same contents.
pub fn materialize(
    trees_dir: &Path,
    repo_id: &str,
    name: &str,
    version: &str,
    files: &[(&str, &str)],
) -> Result<Tree, EnvError> {
    let mut sorted: Vec<(&str, &str)> = files.iter().copied().filter(|(p, _)| safe(p)).collect();
    sorted.sort_unstable();
    sorted.dedup_by(|a, b| a.0 == b.0);
    let mut h = Sha256::new();
    h.update(format!("{TREE_FORMAT}\0{name}\0{version}\0").as_bytes());
    for (p, c) in &sorted {
        h.update(p.as_bytes());
        h.update([0]);
        h.update(Sha256::digest(c.as_bytes()));
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
    let result = write_all(&tmp, name, version, &sorted);
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
    files: &[(&str, &str)],
) -> Result<(), EnvError> {
    let mkdir = |d: &Path| -> Result<(), EnvError> {
        std::fs::create_dir_all(d).map_err(super::io_err("cannot create", d))?;
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755))
            .map_err(super::io_err("cannot set permissions of", d))
    };
    let write = |p: &Path, text: &str| -> Result<(), EnvError> {
        std::fs::write(p, text).map_err(super::io_err("cannot write", p))?;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o644))
            .map_err(super::io_err("cannot set permissions of", p))
    };
    let root = tmp.join("tree");
    mkdir(tmp)?;
    mkdir(&root)?;
    for (path, content) in files {
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
    write(
        &dist.join("METADATA"),
        &format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"),
    )?;
    write(&dist.join("RECORD"), "")?;
    write(&dist.join("INSTALLER"), "freshbench\n")?;
    Ok(())
}
