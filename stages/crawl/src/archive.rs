//! Reading source archives (`.tar.gz`, `.tgz`, `.zip`, a wheel's `.whl`, and the plain
//! `.tar` that `git archive` writes) in memory into a [`Tree`], never unpacking them to disk.
//!
//! A crafted archive is refused whole: an entry with an absolute path or a `..`
//! component, or a link whose target is absolute or leaves the archive. Device files,
//! fifos and other odd entries are passed over. The single top-level folder that sdists
//! have (`name-1.0/`) is stripped. The uncompressed bytes read are capped, so that a
//! decompression bomb ends in an error instead of filling memory.

use std::cell::Cell;
use std::io::{self, Cursor, Read};
use std::rc::Rc;

use flate2::read::GzDecoder;

use crate::files::{is_wanted, wanted};
use crate::tree::{in_skipped_dir, read_hashed, Entry, Keeper, Limits, Tree, Want};

/// Links longer than this are not link targets but junk.
const MAX_LINK_BYTES: u64 = 4096;

/// Why an archive could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("unsupported archive format: {name} (crawl reads .tar.gz, .tgz, .zip, .whl and .tar)")]
    Unsupported { name: String },
    #[error("refused archive {name}: entry `{entry}` {problem}")]
    Crafted {
        name: String,
        entry: String,
        problem: &'static str,
    },
    #[error("corrupt archive {name}: {detail}")]
    Corrupt { name: String, detail: String },
    #[error(
        "archive {name} holds more than {limit} bytes uncompressed; refused as a possible \
         decompression bomb (raise --max-archive-bytes if it is genuine)"
    )]
    TooLarge { name: String, limit: u64 },
}

/// The archive formats `crawl` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    TarGz,
    /// An uncompressed tar (`git archive`).
    Tar,
    /// A zip, or a wheel (a zip of the installed files).
    Zip,
}

/// The format of an archive from its file name.
pub fn format_of(file_name: &str) -> Result<Format, ArchiveError> {
    let ends_with = |suffix: &str| {
        let name = file_name.as_bytes();
        name.len() >= suffix.len()
            && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
    };
    if ends_with(".tar.gz") || ends_with(".tgz") {
        Ok(Format::TarGz)
    } else if ends_with(".tar") {
        Ok(Format::Tar)
    } else if ends_with(".zip") || ends_with(".whl") {
        Ok(Format::Zip)
    } else {
        Err(ArchiveError::Unsupported {
            name: file_name.to_string(),
        })
    }
}

/// Checks an entry path and returns it normalised (`./` and empty parts dropped):
/// refused when absolute (`/x`, `\x`, `C:x`) or when any component is `..`.
pub fn check_entry_path(raw: &str) -> Result<String, &'static str> {
    if raw.starts_with(['/', '\\']) || has_drive_prefix(raw) {
        return Err("has an absolute path");
    }
    let mut parts = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("has a `..` component"),
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

fn has_drive_prefix(raw: &str) -> bool {
    let b = raw.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// Checks a link target and returns the path it points at, relative to the archive
/// root. A symbolic link's target is taken from the link's folder, a hard link's from
/// the archive root. Refused when absolute or when it climbs out of the archive.
pub fn check_link_target(
    link_path: &str,
    target: &str,
    hard: bool,
) -> Result<String, &'static str> {
    if target.starts_with(['/', '\\']) || has_drive_prefix(target) {
        return Err("is a link to an absolute path");
    }
    let mut parts: Vec<&str> = if hard {
        Vec::new()
    } else {
        link_path.split('/').collect()
    };
    if !hard {
        parts.pop();
    }
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("is a link that leaves the archive");
                }
            }
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

/// A reader that fails once more than `limit` bytes in all have passed through it and
/// every other reader sharing its counter.
struct Capped<R> {
    inner: R,
    used: Rc<Cell<u64>>,
    limit: u64,
    hit: Rc<Cell<bool>>,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let used = self.used.get() + n as u64;
        self.used.set(used);
        if used > self.limit {
            self.hit.set(true);
            return Err(io::Error::other("uncompressed size limit reached"));
        }
        Ok(n)
    }
}

/// Entries as read, before the top-level folder is stripped.
struct Collected {
    name: String,
    keeper: Keeper,
    /// (path, entry); `None` for folders and for files not needed.
    entries: Vec<(String, Option<Entry>)>,
    listing: Vec<(String, String)>,
}

impl Collected {
    fn crafted(&self, entry: &str, problem: &'static str) -> ArchiveError {
        ArchiveError::Crafted {
            name: self.name.clone(),
            entry: entry.to_string(),
            problem,
        }
    }

    /// Records a regular file, reading it through `reader`.
    fn file(&mut self, path: String, reader: &mut dyn Read) -> io::Result<()> {
        // The top folder is known only at the end: the path with or without it.
        let want = match (wanted(&path), wanted(strip_first(&path))) {
            (Some(Want::Code), _) | (_, Some(Want::Code)) => Some(Want::Code),
            (a, b) => a.or(b),
        };
        let cap = self.keeper.cap(want);
        let (sha256, size, bytes) = read_hashed(reader, cap.is_some(), cap.unwrap_or(0))?;
        self.keeper.held(want, bytes.as_ref());
        self.listing.push((path.clone(), sha256.clone()));
        let entry = cap.is_some().then_some(Entry::File {
            sha256,
            size,
            bytes,
        });
        self.entries.push((path, entry));
        Ok(())
    }

    /// The tree: the single top-level folder stripped, skipped folders left out.
    fn into_tree(self) -> Tree {
        let top = self
            .entries
            .first()
            .and_then(|(p, _)| p.split('/').next())
            .unwrap_or("")
            .to_string();
        let strip = !top.is_empty()
            && self.entries.iter().all(|(p, e)| {
                p.split('/').next() == Some(top.as_str())
                    && (p.contains('/') || (e.is_none() && *p == top))
            })
            && self.entries.iter().any(|(p, _)| p.contains('/'));
        let fix = |p: &str| {
            if strip {
                strip_first(p).to_string()
            } else {
                p.to_string()
            }
        };
        let mut tree = Tree::default();
        for (path, sha) in &self.listing {
            let path = fix(path);
            if !path.is_empty() && !in_skipped_dir(&path) {
                tree.listing.insert(path, sha.clone());
            }
        }
        for (path, entry) in self.entries {
            let path = fix(&path);
            if let Some(entry) = entry.filter(|_| !in_skipped_dir(&path) && is_wanted(&path)) {
                tree.entries.insert(path, entry);
            }
        }
        tree
    }
}

fn strip_first(path: &str) -> &str {
    path.split_once('/').map_or("", |(_, rest)| rest)
}

/// Reads an archive held in memory. `name` (its file name) gives the format and names
/// it in errors.
pub fn read_archive(
    name: &str,
    bytes: &[u8],
    limits: &Limits,
    max_archive_bytes: u64,
) -> Result<Tree, ArchiveError> {
    let format = format_of(name)?;
    let used = Rc::new(Cell::new(0));
    let hit = Rc::new(Cell::new(false));
    let mut collected = Collected {
        name: name.to_string(),
        keeper: Keeper::new(*limits),
        entries: Vec::new(),
        listing: Vec::new(),
    };
    let result = match format {
        Format::TarGz => {
            let capped = Capped {
                inner: GzDecoder::new(bytes),
                used,
                limit: max_archive_bytes,
                hit: hit.clone(),
            };
            read_tar(&mut collected, capped)
        }
        Format::Tar => {
            let capped = Capped {
                inner: bytes,
                used,
                limit: max_archive_bytes,
                hit: hit.clone(),
            };
            read_tar(&mut collected, capped)
        }
        Format::Zip => read_zip(&mut collected, bytes, &used, max_archive_bytes, &hit),
    };
    match result {
        _ if hit.get() => Err(ArchiveError::TooLarge {
            name: name.to_string(),
            limit: max_archive_bytes,
        }),
        Ok(()) => Ok(collected.into_tree()),
        Err(Failure::Refused(e)) => Err(e),
        Err(Failure::Io(e)) => Err(ArchiveError::Corrupt {
            name: name.to_string(),
            detail: e.to_string(),
        }),
    }
}

/// How reading stopped early.
enum Failure {
    Refused(ArchiveError),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

fn read_tar(c: &mut Collected, reader: impl Read) -> Result<(), Failure> {
    let mut archive = tar::Archive::new(reader);
    for entry in archive.entries()? {
        let mut entry = entry?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let path = check_entry_path(&raw).map_err(|p| Failure::Refused(c.crafted(&raw, p)))?;
        let kind = entry.header().entry_type();
        if path.is_empty() {
            continue;
        }
        if std::str::from_utf8(&entry.path_bytes()).is_err() {
            tracing::debug!(archive = %c.name, entry = %raw, "name not UTF-8, passed over");
            continue;
        }
        match kind {
            tar::EntryType::Regular | tar::EntryType::Continuous => c.file(path, &mut entry)?,
            tar::EntryType::Directory => c.entries.push((path, None)),
            tar::EntryType::Symlink | tar::EntryType::Link => {
                let hard = kind == tar::EntryType::Link;
                let target = entry
                    .link_name_bytes()
                    .map(|t| String::from_utf8_lossy(&t).into_owned())
                    .unwrap_or_default();
                check_link_target(&path, &target, hard)
                    .map_err(|p| Failure::Refused(c.crafted(&raw, p)))?;
                let link = Entry::link(if hard { "hard link" } else { "symlink" }, &target);
                c.entries.push((path, Some(link)));
            }
            tar::EntryType::XGlobalHeader => {}
            other => {
                tracing::debug!(archive = %c.name, entry = %raw, kind = ?other, "odd entry, passed over");
            }
        }
    }
    Ok(())
}

const S_IFMT: u32 = 0o170_000;
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFLNK: u32 = 0o120_000;

fn read_zip(
    c: &mut Collected,
    bytes: &[u8],
    used: &Rc<Cell<u64>>,
    limit: u64,
    hit: &Rc<Cell<bool>>,
) -> Result<(), Failure> {
    let zip_err = |e: zip::result::ZipError| Failure::Io(io::Error::other(e));
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(zip_err)?;
    for i in 0..archive.len() {
        let file = archive.by_index(i).map_err(zip_err)?;
        let raw = file.name().replace('\\', "/");
        let path = check_entry_path(&raw).map_err(|p| Failure::Refused(c.crafted(&raw, p)))?;
        if path.is_empty() {
            continue;
        }
        let mode = file.unix_mode().map(|m| m & S_IFMT);
        let mut reader = Capped {
            inner: file,
            used: used.clone(),
            limit,
            hit: hit.clone(),
        };
        if mode == Some(S_IFLNK) {
            let mut target = String::new();
            (&mut reader)
                .take(MAX_LINK_BYTES)
                .read_to_string(&mut target)?;
            check_link_target(&path, &target, false)
                .map_err(|p| Failure::Refused(c.crafted(&raw, p)))?;
            c.entries
                .push((path, Some(Entry::link("symlink", &target))));
        } else if reader.inner.is_dir() || mode == Some(S_IFDIR) {
            c.entries.push((path, None));
        } else if mode.is_none_or(|m| m == S_IFREG || m == 0) {
            c.file(path, &mut reader)?;
        } else {
            tracing::debug!(archive = %c.name, entry = %raw, "odd entry, passed over");
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "archive_tests.rs"]
mod tests;
