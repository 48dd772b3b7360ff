//! Earlier versions of a crawled repository, fetched to date its code (DESIGN's code age):
//! a new release of a mature library is mostly old code, so what is new must be judged per
//! function, against what was published before.
//!
//! With a cutoff, every pypi and git source also gets its **baseline**, the last release (or
//! first-parent commit) published before the cutoff, and with `--history N` up to N more
//! earlier versions spread evenly over the project's life. Each becomes a `snapshots` row
//! (fetched, or skipped or failed with the reason) and its Python files `history_files`
//! rows, with their text only where it differs from the crawled version's file at the same
//! path. The crawled version's `changed_lines` are the lines that differ from the baseline
//! (a line diff; every line of a file the baseline lacks). Which function is new is decided
//! by `resolve`, on syntax trees, from these rows.

use std::collections::BTreeMap;

use schemas::{Artifact, HistoryFile, LineRange, RepoStatus, Snapshot, SnapshotRole, Timestamp};
use similar::{DiffOp, TextDiff};

use crate::files::{classify, Kind};
use crate::tree::{Entry, Tree};

/// An earlier version to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Release version or commit.
    pub version: String,
    pub published_at: Timestamp,
}

/// The versions to fetch among `earlier` (oldest first, all published before the crawled
/// version): the last one before `cutoff` as the baseline, and up to `history` more spread
/// evenly over the others (the oldest first among them).
pub fn pick(
    earlier: &[Candidate],
    cutoff: Timestamp,
    history: usize,
) -> Vec<(usize, SnapshotRole)> {
    let mut out = Vec::new();
    let baseline = earlier.iter().rposition(|c| c.published_at < cutoff);
    if let Some(b) = baseline {
        out.push((b, SnapshotRole::Baseline));
    }
    let others: Vec<usize> = (0..earlier.len())
        .filter(|i| Some(*i) != baseline)
        .collect();
    for k in spread(others.len(), history) {
        out.push((others[k], SnapshotRole::History));
    }
    out
}

/// `n` distinct indices of `0..len`, evenly spread and the first included; all of them
/// when `n >= len`.
pub fn spread(len: usize, n: usize) -> Vec<usize> {
    if n == 0 || len == 0 {
        return Vec::new();
    }
    if n >= len {
        return (0..len).collect();
    }
    let mut out: Vec<usize> = (0..n).map(|k| k * len / n).collect();
    out.dedup();
    out
}

/// The `snapshots` row of a version that was fetched and read.
pub fn fetched(
    repo_id: &str,
    c: &Candidate,
    role: SnapshotRole,
    artifact: Artifact,
    url: Option<String>,
    sha256: Option<String>,
) -> Snapshot {
    Snapshot {
        repo_id: repo_id.to_string(),
        version: c.version.clone(),
        role,
        published_at: Some(c.published_at),
        artifact: Some(artifact),
        url,
        sha256,
        status: RepoStatus::Ok,
        reason: None,
        files: 0,
        files_differing: 0,
    }
}

/// The `snapshots` row of a version that was not fetched: `skipped` or `error`, with why.
pub fn not_fetched(
    repo_id: &str,
    version: &str,
    role: SnapshotRole,
    published_at: Option<Timestamp>,
    status: RepoStatus,
    reason: String,
) -> Snapshot {
    Snapshot {
        repo_id: repo_id.to_string(),
        version: version.to_string(),
        role,
        published_at,
        artifact: None,
        url: None,
        sha256: None,
        status,
        reason: Some(reason),
        files: 0,
        files_differing: 0,
    }
}

/// The `history_files` rows of an earlier version's tree, compared with the crawled
/// version's `current` tree; the counts go into `snap`.
pub fn history_rows(snap: &mut Snapshot, tree: &Tree, current: &Tree) -> Vec<HistoryFile> {
    let mut rows = Vec::new();
    for (path, entry) in &tree.entries {
        if !matches!(classify(path), Some(Kind::Source | Kind::Test)) {
            continue;
        }
        let Entry::File { sha256, bytes, .. } = entry else {
            continue;
        };
        let same =
            matches!(current.entries.get(path), Some(Entry::File { sha256: s, .. }) if s == sha256);
        let (content, reason) = if same {
            (None, None)
        } else {
            match bytes.as_deref().map(std::str::from_utf8) {
                Some(Ok(text)) => (
                    Some(text.strip_prefix('\u{feff}').unwrap_or(text).to_string()),
                    None,
                ),
                Some(Err(_)) => (None, Some("not UTF-8".to_string())),
                None => (None, Some("too large to read".to_string())),
            }
        };
        snap.files += 1;
        snap.files_differing += i64::from(!same);
        rows.push(HistoryFile {
            repo_id: snap.repo_id.clone(),
            version: snap.version.clone(),
            path: path.clone(),
            sha256: sha256.clone(),
            content,
            reason,
        });
    }
    rows
}

/// The lines of `new` that are not in `old` (added or changed), as ranges of `new`'s
/// 1-based line numbers.
pub fn changed_lines(old: &str, new: &str) -> Vec<LineRange> {
    let diff = TextDiff::from_lines(old, new);
    let mut out: Vec<LineRange> = Vec::new();
    for op in diff.ops() {
        let range = match *op {
            DiffOp::Insert {
                new_index, new_len, ..
            }
            | DiffOp::Replace {
                new_index, new_len, ..
            } => new_index..new_index + new_len,
            DiffOp::Equal { .. } | DiffOp::Delete { .. } => continue,
        };
        if range.is_empty() {
            continue;
        }
        let (start, end) = (range.start as i32 + 1, range.end as i32);
        match out.last_mut() {
            Some(last) if last.end + 1 >= start => last.end = end,
            _ => out.push(LineRange { start, end }),
        }
    }
    out
}

/// The texts of the baseline's files by path, for [`changed_lines`] of the crawled files.
pub fn texts(tree: &Tree) -> BTreeMap<String, String> {
    tree.entries
        .keys()
        .filter_map(|p| tree.text(p).map(|t| (p.clone(), t.to_string())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: &str, day: &str) -> Candidate {
        Candidate {
            version: v.into(),
            published_at: Timestamp::parse(day).unwrap(),
        }
    }

    #[test]
    fn the_baseline_is_the_last_before_the_cutoff() {
        let all = [
            c("1.0", "2024-01-01"),
            c("1.1", "2025-01-01"),
            c("1.2", "2026-05-01"),
            c("1.3", "2026-07-01"),
        ];
        let cutoff = Timestamp::parse("2026-06-01").unwrap();
        assert_eq!(pick(&all, cutoff, 0), [(2, SnapshotRole::Baseline)]);
        assert_eq!(
            pick(&all, cutoff, 2),
            [
                (2, SnapshotRole::Baseline),
                (0, SnapshotRole::History),
                (1, SnapshotRole::History)
            ]
        );
        // Nothing before the cutoff: no baseline, every line is new.
        let late = Timestamp::parse("2020-01-01").unwrap();
        assert_eq!(pick(&all, late, 0), []);
    }

    #[test]
    fn spreads_are_even_distinct_and_start_at_the_first() {
        assert_eq!(spread(10, 3), [0, 3, 6]);
        assert_eq!(spread(3, 5), [0, 1, 2]);
        assert_eq!(spread(0, 2), Vec::<usize>::new());
        assert_eq!(spread(7, 1), [0]);
    }

    #[test]
    fn changed_lines_are_the_new_side_of_inserts_and_replacements() {
        let old = "a\nb\nc\nd\n";
        let new = "a\nB\nc\nd\ne\nf\n";
        assert_eq!(
            changed_lines(old, new),
            [
                LineRange { start: 2, end: 2 },
                LineRange { start: 5, end: 6 }
            ]
        );
        assert_eq!(changed_lines(new, new), []);
        assert_eq!(
            changed_lines("", "x\ny\n"),
            [LineRange { start: 1, end: 2 }]
        );
        // A deletion leaves nothing on the new side.
        assert_eq!(changed_lines("a\nb\n", "a\n"), []);
    }
}
