//! The files of one repository as every source kind hands them on: the files `crawl`
//! keeps (Python, dependency, license and metadata files, and the data files its tests
//! may read) with their bytes, links that were seen but not followed, and the (path,
//! sha256) listing of every regular file from which a tree hash is made.

use std::collections::BTreeMap;
use std::io::{self, Read};

use sha2::{Digest, Sha256};

/// Folders never walked or read, wherever they are.
const SKIPPED_DIRS: &[&str] = &["venv", "node_modules", "__pycache__"];
/// Folders skipped at the root only: build output there, but a package may be named so
/// (the `build` project itself keeps its code in `src/build/`).
const SKIPPED_ROOT_DIRS: &[&str] = &["build", "dist"];

/// How much of a tree a reading keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Python, dependency and metadata files larger than this are only hashed.
    pub max_file_bytes: u64,
    /// Data files (what tests read); `None`: not read at all (the earlier versions read
    /// only to date the Python code).
    pub data: Option<DataLimits>,
}

impl Limits {
    /// Python, dependency and metadata files only.
    pub const fn code_only(max_file_bytes: u64) -> Limits {
        Limits {
            max_file_bytes,
            data: None,
        }
    }
}

/// The size budget of a repository's data files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataLimits {
    /// A data file larger than this is recorded as skipped.
    pub max_file_bytes: u64,
    /// The most bytes of data files recorded for one repository; the files over it (the
    /// largest, and those outside test folders first) are recorded as skipped.
    pub max_repo_bytes: u64,
}

impl DataLimits {
    /// Most data bytes held in memory while a tree is read: the budget is spent afterwards,
    /// by priority, among the files held (a reading cannot know which files come later).
    pub fn read_cap(&self) -> u64 {
        self.max_repo_bytes.saturating_mul(4)
    }
}

/// What a reading keeps of each file, file by file: the bytes of code files up to their
/// limit, and those of data files while the data held stays under the read cap.
#[derive(Debug)]
pub struct Keeper {
    limits: Limits,
    data_held: u64,
}

impl Keeper {
    pub fn new(limits: Limits) -> Keeper {
        Keeper {
            limits,
            data_held: 0,
        }
    }

    /// The most bytes to keep of a file that is wanted as `want`; `None`: not wanted.
    pub fn cap(&self, want: Option<Want>) -> Option<u64> {
        match want? {
            Want::Code => Some(self.limits.max_file_bytes),
            Want::Data => {
                let data = self.limits.data?;
                let left = data.read_cap().saturating_sub(self.data_held);
                Some(data.max_file_bytes.min(left))
            }
        }
    }

    /// Notes the bytes kept of a file wanted as `want`.
    pub fn held(&mut self, want: Option<Want>, bytes: Option<&Vec<u8>>) {
        if let (Some(Want::Data), Some(b)) = (want, bytes) {
            self.data_held += b.len() as u64;
        }
    }
}

/// Why a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Python, dependency and metadata files: always read (up to the file size limit).
    Code,
    /// Other files of the tree, read within the data budget.
    Data,
}

/// One kept path of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A regular file. `bytes` is `None` when it was larger than the file size limit and
    /// only hashed.
    File {
        sha256: String,
        size: u64,
        bytes: Option<Vec<u8>>,
    },
    /// A symbolic or hard link, never followed; `what` says so for the `reason` column.
    /// The hash and size are of the link target text.
    Link {
        sha256: String,
        size: u64,
        what: String,
    },
}

impl Entry {
    /// A link entry for a link to `target`.
    pub fn link(kind: &str, target: &str) -> Self {
        Entry::Link {
            sha256: schemas::id::sha256_hex(target.as_bytes()),
            size: target.len() as u64,
            what: format!("{kind} to {target}, not followed"),
        }
    }
}

/// The files of a repository that `crawl` looks at.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Kept entries by `/`-separated path relative to the repository root.
    pub entries: BTreeMap<String, Entry>,
    /// sha256 of every regular file (kept or not) and of every link's target text, by
    /// path, for [`Tree::hash`].
    pub listing: BTreeMap<String, String>,
}

impl Tree {
    /// The bytes of a kept regular file that was small enough to be read.
    pub fn bytes(&self, path: &str) -> Option<&[u8]> {
        match self.entries.get(path)? {
            Entry::File { bytes: Some(b), .. } => Some(b),
            _ => None,
        }
    }

    /// The text of a kept file, when it is UTF-8 (a leading BOM removed).
    pub fn text(&self, path: &str) -> Option<&str> {
        let s = std::str::from_utf8(self.bytes(path)?).ok()?;
        Some(s.strip_prefix('\u{feff}').unwrap_or(s))
    }

    /// Content hash of the sorted (path, sha256) listing of every regular file.
    pub fn hash(&self) -> String {
        let parts: Vec<&[u8]> = self
            .listing
            .iter()
            .flat_map(|(p, h)| [p.as_bytes(), h.as_bytes()])
            .collect();
        schemas::id::content_id(&parts)
    }
}

/// Whether a folder (given by its `/`-separated path from the root) is skipped: hidden
/// folders (`.git`, `.venv`, `.tox`, ...), virtualenvs, `node_modules`, `__pycache__`, and
/// `build`/`dist` at the root.
pub fn is_skipped_dir(dir: &str) -> bool {
    dir.split('/')
        .filter(|p| !p.is_empty())
        .enumerate()
        .any(|(depth, name)| {
            name.starts_with('.')
                || SKIPPED_DIRS.contains(&name)
                || (depth == 0 && SKIPPED_ROOT_DIRS.contains(&name))
        })
}

/// Whether any folder on the way to the file at `path` is skipped.
pub fn in_skipped_dir(path: &str) -> bool {
    path.rsplit_once('/')
        .is_some_and(|(dir, _)| is_skipped_dir(dir))
}

/// Reads a file's bytes to the end, hashing them; keeps them only when `keep` and they
/// are at most `max_file_bytes` long. Returns (sha256 hex, size, bytes kept).
pub fn read_hashed(
    reader: &mut dyn Read,
    keep: bool,
    max_file_bytes: u64,
) -> io::Result<(String, u64, Option<Vec<u8>>)> {
    let mut hasher = Sha256::new();
    let mut kept = keep.then(Vec::new);
    let mut size = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        size += n as u64;
        if let Some(k) = kept.as_mut() {
            if size > max_file_bytes {
                kept = None;
            } else {
                k.extend_from_slice(&buf[..n]);
            }
        }
    }
    Ok((hex::encode(hasher.finalize()), size, kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_dirs() {
        for d in [
            ".git",
            "a/.hidden",
            "venv",
            "pkg/node_modules",
            "x/__pycache__",
            ".tox",
            "build",
            "dist/x",
        ] {
            assert!(is_skipped_dir(d), "{d}");
        }
        for d in ["", "src", "src/build", "pkg/dist", "tests"] {
            assert!(!is_skipped_dir(d), "{d}");
        }
        assert!(in_skipped_dir(".venv/lib/x.py"));
        assert!(!in_skipped_dir(".hidden.py"));
    }

    #[test]
    fn reads_and_limits() {
        let (h, n, b) = read_hashed(&mut &b"hello"[..], true, 5).unwrap();
        assert_eq!(
            (h.as_str(), n, b.as_deref()),
            (
                schemas::id::sha256_hex(b"hello").as_str(),
                5,
                Some(&b"hello"[..])
            )
        );
        let (_, n, b) = read_hashed(&mut &b"hello!"[..], true, 5).unwrap();
        assert_eq!((n, b), (6, None));
    }

    #[test]
    fn hash_depends_on_paths_and_contents() {
        let mut a = Tree::default();
        a.listing.insert("x.py".into(), "00".into());
        let mut b = a.clone();
        assert_eq!(a.hash(), b.hash());
        b.listing.insert("y.py".into(), "00".into());
        assert_ne!(a.hash(), b.hash());
        a.listing.insert("y.py".into(), "01".into());
        assert_ne!(a.hash(), b.hash());
    }
}
