//! Walking a folder on disk (a `path:` source, or a git checkout) into a [`Tree`].
//!
//! Symbolic links are never followed: a link whose name `crawl` would record becomes a
//! skipped entry naming its target; other links are passed over. Skipped folders (see
//! [`is_skipped_dir`]) are not entered; fifos, sockets and devices are not read.

use std::fs;
use std::path::{Path, PathBuf};

use crate::files::{is_wanted, wanted};
use crate::tree::{is_skipped_dir, read_hashed, Entry, Keeper, Limits, Tree};

/// Why a folder could not be walked.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("{path}: no such folder")]
    NotFound { path: PathBuf },
    #[error("{path}: not a folder")]
    NotDir { path: PathBuf },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Walks `root`. Kept files (see [`wanted`]) are read within `limits`; with `hash_all`,
/// every other regular file is hashed too, for the tree listing. The folder at the relative
/// path `exclude` (the dataset directory, when it lies inside the project) is not entered.
pub fn walk(
    root: &Path,
    limits: &Limits,
    hash_all: bool,
    exclude: Option<&str>,
) -> Result<Tree, WalkError> {
    match fs::metadata(root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(WalkError::NotFound {
                path: root.to_path_buf(),
            })
        }
        Err(source) => {
            return Err(WalkError::Io {
                path: root.to_path_buf(),
                source,
            })
        }
        Ok(m) if !m.is_dir() => {
            return Err(WalkError::NotDir {
                path: root.to_path_buf(),
            })
        }
        Ok(_) => {}
    }
    let mut tree = Tree::default();
    let mut keeper = Keeper::new(*limits);
    let mut stack = vec![String::new()];
    while let Some(rel_dir) = stack.pop() {
        let dir = root.join(&rel_dir);
        let io_err = |source| WalkError::Io {
            path: dir.clone(),
            source,
        };
        let mut children = fs::read_dir(&dir)
            .map_err(io_err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(io_err)?;
        children.sort_by_key(fs::DirEntry::file_name);
        for child in children {
            let Some(name) = child.file_name().to_str().map(str::to_string) else {
                tracing::warn!(path = %child.path().display(), "file name not UTF-8, passed over");
                continue;
            };
            let rel = if rel_dir.is_empty() {
                name
            } else {
                format!("{rel_dir}/{name}")
            };
            let file_type = child.file_type().map_err(|source| WalkError::Io {
                path: child.path(),
                source,
            })?;
            if file_type.is_dir() {
                if !is_skipped_dir(&rel) && exclude != Some(rel.as_str()) {
                    stack.push(rel);
                }
            } else if file_type.is_symlink() {
                let target = fs::read_link(child.path()).map_err(|source| WalkError::Io {
                    path: child.path(),
                    source,
                })?;
                let target = target.to_string_lossy();
                let link = Entry::link("symlink", &target);
                if let Entry::Link { sha256, .. } = &link {
                    tree.listing.insert(rel.clone(), sha256.clone());
                }
                if is_wanted(&rel) {
                    tree.entries.insert(rel, link);
                } else {
                    tracing::debug!(path = %rel, target = %target, "symlink not followed");
                }
            } else if file_type.is_file() {
                let want = wanted(&rel);
                let cap = keeper.cap(want);
                if cap.is_none() && !hash_all {
                    continue;
                }
                let path = child.path();
                let mut file = fs::File::open(&path).map_err(|source| WalkError::Io {
                    path: path.clone(),
                    source,
                })?;
                let (sha256, size, bytes) = read_hashed(&mut file, cap.is_some(), cap.unwrap_or(0))
                    .map_err(|source| WalkError::Io { path, source })?;
                keeper.held(want, bytes.as_ref());
                tree.listing.insert(rel.clone(), sha256.clone());
                if cap.is_some() {
                    tree.entries.insert(
                        rel,
                        Entry::File {
                            sha256,
                            size,
                            bytes,
                        },
                    );
                }
            } else {
                tracing::debug!(path = %rel, "not a regular file, passed over");
            }
        }
    }
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_without_following_links_or_entering_skipped_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        for d in ["pkg", ".venv/lib", "node_modules/x", "src/build"] {
            fs::create_dir_all(root.join(d)).unwrap();
        }
        fs::write(root.join("pkg/a.py"), "a = 1\n").unwrap();
        fs::write(root.join(".venv/lib/b.py"), "").unwrap();
        fs::write(root.join("node_modules/x/c.py"), "").unwrap();
        fs::write(root.join("src/build/d.py"), "").unwrap();
        fs::write(root.join("README.md"), "hi").unwrap();
        fs::write(dir.path().join("secret.py"), "s = 1\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.py"), root.join("pkg/leak.py")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        let tree = walk(&root, &Limits::code_only(100), true, None).unwrap();
        let paths: Vec<&str> = tree.entries.keys().map(String::as_str).collect();
        // `up`, a link to a folder, is recorded (as a data file not followed), never entered.
        assert_eq!(paths, ["pkg/a.py", "pkg/leak.py", "src/build/d.py", "up"]);
        assert!(
            matches!(&tree.entries["pkg/leak.py"], Entry::Link { what, .. } if what.contains("secret.py"))
        );
        assert!(matches!(&tree.entries["up"], Entry::Link { .. }));
        assert!(tree.listing.contains_key("README.md"));
        assert!(!tree.listing.keys().any(|p| p.starts_with("up/")));
        assert!(matches!(
            walk(&root.join("nope"), &Limits::code_only(100), true, None),
            Err(WalkError::NotFound { .. })
        ));
        assert!(matches!(
            walk(&root.join("README.md"), &Limits::code_only(100), true, None),
            Err(WalkError::NotDir { .. })
        ));
    }

    #[test]
    fn walks_data_files_with_their_bytes_links_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        for d in ["tests/data", "pkg/__pycache__", "pkg.egg-info"] {
            fs::create_dir_all(root.join(d)).unwrap();
        }
        fs::write(root.join("tests/data/in.gz"), b"\x1f\x8b\x08\x00\xff").unwrap();
        fs::write(root.join("tests/data/a.json"), "{}").unwrap();
        fs::write(root.join("pkg/__pycache__/m.pyc"), b"\x00").unwrap();
        fs::write(root.join("pkg/_speedups.so"), b"\x7fELF").unwrap();
        fs::write(root.join("pkg.egg-info/entry_points.txt"), "[x]\n").unwrap();
        fs::write(root.join("pkg.egg-info/SOURCES.txt"), "pkg\n").unwrap();
        fs::write(dir.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("tests/data/s.txt"))
            .unwrap();
        let limits = Limits {
            max_file_bytes: 100,
            data: Some(crate::tree::DataLimits {
                max_file_bytes: 100,
                max_repo_bytes: 1000,
            }),
        };
        let tree = walk(&root, &limits, false, None).unwrap();
        let paths: Vec<&str> = tree.entries.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [
                "pkg.egg-info/entry_points.txt",
                "tests/data/a.json",
                "tests/data/in.gz",
                "tests/data/s.txt"
            ]
        );
        assert_eq!(
            tree.bytes("tests/data/in.gz"),
            Some(&b"\x1f\x8b\x08\x00\xff"[..])
        );
        assert!(matches!(
            &tree.entries["tests/data/s.txt"],
            Entry::Link { .. }
        ));
        let rows = crate::files::file_rows("r", &tree, &limits, None);
        let link = rows.iter().find(|f| f.path == "tests/data/s.txt").unwrap();
        assert_eq!(link.status, schemas::FileStatus::Skipped);
        assert!(link.content.is_none() && link.bytes.is_none());
    }
}
