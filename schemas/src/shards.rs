//! Shard files: the one place that names, finds, checks and merges the tables that
//! `--shard i/n` runs write (`solve`'s candidates, `execute --run`'s executions).
//!
//! Shard `i` of `n` of table `T` in a folder is `T-i-of-n.parquet`. A set is only ever read
//! whole: [`read_complete`] refuses (naming what is wrong) a folder whose shard files are of
//! several counts `n`, miss one of `1..=n`, or hold the same row (by the caller's key) twice;
//! nothing is deleted then. [`merge`] writes the rows of a complete set as the whole table and
//! only then removes the shard files.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

use crate::cli::Shard;
use crate::io::{read_table_from, write_table_to, TableError};
use crate::table::Table;

/// What is wrong with a folder's shard files.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("{dir}: no shard files of `{table}` ({table}-I-of-N.parquet); run the stage with --shard I/N first")]
    None { dir: PathBuf, table: &'static str },
    #[error("{dir}: shard files of `{table}` for several shard counts ({counts}); remove the stale ones (nothing was merged or deleted)")]
    MixedCounts {
        dir: PathBuf,
        table: &'static str,
        counts: String,
    },
    #[error("{dir}: shards {missing} of `{table}` are missing; run the stage with --shard for each of them first (nothing was merged or deleted)")]
    Missing {
        dir: PathBuf,
        table: &'static str,
        missing: String,
    },
    #[error("{dir}: {key} is in two shard files of `{table}` ({first} and {second}); rerun the shards with one --shard count (nothing was merged or deleted)")]
    Duplicate {
        dir: PathBuf,
        table: &'static str,
        key: String,
        first: PathBuf,
        second: PathBuf,
    },
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The file of shard `shard` of table `T` in `dir`.
pub fn shard_path<T: Table>(dir: &Path, shard: Shard) -> PathBuf {
    dir.join(format!(
        "{}-{}-of-{}.parquet",
        T::NAME,
        shard.index,
        shard.count
    ))
}

/// The shard files of `T` in `dir` (none when the folder does not exist), sorted.
pub fn find<T: Table>(dir: &Path) -> Result<Vec<(Shard, PathBuf)>, ShardError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ShardError::Io {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    let prefix = format!("{}-", T::NAME);
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| ShardError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let shard = name
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".parquet"))
            .and_then(|r| r.split_once("-of-"))
            .and_then(|(i, n)| format!("{i}/{n}").parse::<Shard>().ok());
        if let Some(shard) = shard {
            out.push((shard, entry.path()));
        }
    }
    out.sort_by_key(|(s, _)| (s.count, s.index));
    Ok(out)
}

/// A complete set of shard files and their rows.
#[derive(Debug)]
pub struct ShardSet<T> {
    /// `n` of the set.
    pub count: usize,
    /// The files, shard 1 first.
    pub files: Vec<PathBuf>,
    /// Every row of every shard, in shard order.
    pub rows: Vec<T>,
}

impl<T> ShardSet<T> {
    /// Removes the shard files (after their rows were written elsewhere).
    pub fn remove_files(&self) -> Result<(), ShardError> {
        for p in &self.files {
            std::fs::remove_file(p).map_err(|source| ShardError::Io {
                path: p.clone(),
                source,
            })?;
        }
        Ok(())
    }
}

/// Reads every shard file of `T` in `dir`, refusing a set that is not complete and
/// consistent: one shard count, every shard of it present, every row's `key` in one row
/// only.
pub fn read_complete<T: Table, K: Ord + Debug>(
    dir: &Path,
    key: impl Fn(&T) -> K,
) -> Result<ShardSet<T>, ShardError> {
    let found = find::<T>(dir)?;
    let mut counts: BTreeMap<usize, BTreeMap<usize, PathBuf>> = BTreeMap::new();
    for (s, p) in found {
        counts.entry(s.count).or_default().insert(s.index, p);
    }
    let (count, files) = match counts.len() {
        0 => {
            return Err(ShardError::None {
                dir: dir.to_path_buf(),
                table: T::NAME,
            })
        }
        1 => counts.into_iter().next().expect("one count"),
        _ => {
            return Err(ShardError::MixedCounts {
                dir: dir.to_path_buf(),
                table: T::NAME,
                counts: counts
                    .keys()
                    .map(|n| format!("of {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
    };
    let missing: Vec<String> = (1..=count)
        .filter(|i| !files.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(ShardError::Missing {
            dir: dir.to_path_buf(),
            table: T::NAME,
            missing: missing.join(", "),
        });
    }
    let mut seen: BTreeMap<K, PathBuf> = BTreeMap::new();
    let mut rows = Vec::new();
    for path in files.values() {
        for row in read_table_from::<T>(path)? {
            let k = key(&row);
            if let Some(first) = seen.get(&k) {
                return Err(ShardError::Duplicate {
                    dir: dir.to_path_buf(),
                    table: T::NAME,
                    key: format!("{k:?}"),
                    first: first.clone(),
                    second: path.clone(),
                });
            }
            seen.insert(k, path.clone());
            rows.push(row);
        }
    }
    Ok(ShardSet {
        count,
        files: files.into_values().collect(),
        rows,
    })
}

/// Merges the complete set of shard files of `T` in `dir` into `DIR/<table>.parquet`,
/// sorted by `key`, then removes the shard files. `check` sees the set before anything is
/// written (to refuse shards made with different models, say).
pub fn merge<T: Table, K: Ord + Debug>(
    dir: &Path,
    key: impl Fn(&T) -> K,
    check: impl FnOnce(&ShardSet<T>) -> anyhow::Result<()>,
) -> anyhow::Result<ShardSet<T>> {
    let mut set = read_complete::<T, K>(dir, &key)?;
    check(&set)?;
    set.rows.sort_by_key(|r| key(r));
    let whole = dir.join(format!("{}.parquet", T::NAME));
    write_table_to(&whole, &set.rows)?;
    set.remove_files()?;
    Ok(set)
}
