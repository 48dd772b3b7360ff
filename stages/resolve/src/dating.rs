//! Code dates: when each function's code was first published (`functions.code_date`),
//! decided per function from the earlier versions crawl fetched (`snapshots`,
//! `history_files`), never from the release alone.
//!
//! A function's code is its syntax-tree hash ([`crate::fingerprint`]), so a function that
//! was only reformatted, or moved to another file, or renamed, is found in the earlier
//! version that holds it. Its code date is the publication of the earliest fetched
//! version holding that hash; found in none, it is the crawled version's publication. For
//! git sources, the lines' own dates (`files.line_dates`) can say more: a function whose
//! every line is older than the earliest snapshot holding it existed verbatim since the
//! latest of its lines' dates, and the earlier of the two dates is its code date. The
//! source says how good that is: `release_history` / `git_history` when the repository's
//! history was examined (its baseline, the last version before the cutoff, was fetched, or
//! no version before the cutoff exists), so that "after the cutoff" is exact; else
//! `release_date`, the crawled version's date, an upper bound.

use std::collections::{HashMap, HashSet};

use schemas::{
    CodeDateSource, Function, HistoryFile, LineDate, Repo, RepoStatus, Snapshot, SnapshotRole,
    SourceKind, Timestamp,
};

use crate::module_name::module_name;

/// Sets `code_date`, `code_date_source`, `first_seen` and `after_cutoff` of a
/// repository's `functions` from its earlier versions.
pub fn date_functions(
    repo: Option<&Repo>,
    functions: &mut [Function],
    snapshots: &[&Snapshot],
    files: &[(&HistoryFile, &[String])],
    line_dates: &HashMap<&str, &[LineDate]>,
) {
    let Some(repo) = repo else { return };
    let mut current: HashMap<&str, Vec<String>> = HashMap::new();
    for f in functions.iter() {
        current
            .entry(f.path.as_str())
            .or_default()
            .push(f.code_hash.clone());
    }
    let mut ok: Vec<&Snapshot> = snapshots
        .iter()
        .copied()
        .filter(|s| s.status == RepoStatus::Ok && s.published_at.is_some())
        .collect();
    ok.sort_by(|a, b| (a.published_at, &a.version).cmp(&(b.published_at, &b.version)));
    let mut by_version: HashMap<&str, Vec<(&HistoryFile, &[String])>> = HashMap::new();
    for f in files {
        by_version.entry(f.0.version.as_str()).or_default().push(*f);
    }
    // The code hashes of each fetched version, oldest first.
    let known: Vec<(Timestamp, &str, HashSet<String>)> = ok
        .iter()
        .map(|s| {
            let mut set = HashSet::new();
            for &(f, hashes) in by_version
                .get(s.version.as_str())
                .map_or(&[][..], Vec::as_slice)
            {
                match (&f.content, &f.reason) {
                    (Some(_), _) => set.extend(hashes.iter().cloned()),
                    // Identical to the crawled file at the same path: its functions.
                    (None, None) => {
                        set.extend(current.get(f.path.as_str()).into_iter().flatten().cloned());
                    }
                    (None, Some(_)) => {}
                }
            }
            (
                s.published_at.unwrap_or(Timestamp(0)),
                s.version.as_str(),
                set,
            )
        })
        .collect();
    let baseline_failed = snapshots
        .iter()
        .any(|s| s.role == SnapshotRole::Baseline && s.status == RepoStatus::Error);
    let examined = repo.cutoff.is_some()
        && matches!(repo.source, SourceKind::Pypi | SourceKind::Git)
        && !baseline_failed;
    let history_source = match repo.source {
        SourceKind::Git => CodeDateSource::GitHistory,
        _ => CodeDateSource::ReleaseHistory,
    };
    for f in functions.iter_mut() {
        let first = known.iter().find(|(_, _, set)| set.contains(&f.code_hash));
        let (date, seen, source) = match first {
            Some((t, v, _)) => (Some(*t), Some((*v).to_string()), Some(history_source)),
            None if examined => (repo.published_at, None, Some(history_source)),
            None => (
                repo.published_at,
                None,
                repo.published_at.map(|_| CodeDateSource::ReleaseDate),
            ),
        };
        // The lines' own dates, when they prove the code older still.
        let lines = line_dates
            .get(f.path.as_str())
            .and_then(|runs| lines_date(runs, f.start_line, f.end_line));
        let (date, source) = match (date, lines) {
            (Some(d), Some(l)) if l < d => (Some(l), Some(CodeDateSource::GitHistory)),
            (None, Some(l)) => (Some(l), Some(CodeDateSource::GitHistory)),
            _ => (date, source),
        };
        f.code_date = date;
        f.first_seen = seen;
        f.code_date_source = source;
        f.after_cutoff = repo.cutoff.zip(date).map(|(c, d)| d > c);
    }
}

/// The latest date of the lines `start..=end`, when runs cover every one of them.
fn lines_date(runs: &[LineDate], start: i32, end: i32) -> Option<Timestamp> {
    let mut latest: Option<Timestamp> = None;
    let mut next = start;
    for r in runs.iter().filter(|r| r.end >= start && r.start <= end) {
        if r.start > next {
            return None; // a gap: some line has no date
        }
        latest = latest.max(Some(r.date));
        next = r.end + 1;
    }
    (next > end).then_some(latest).flatten()
}

/// The code hashes of the functions of an earlier version's file (none when its text is
/// absent); `resolve` computes them for all files at once, on its thread pool.
pub fn hashes_of(file: &HistoryFile) -> Vec<String> {
    let (path, Some(text)) = (file.path.as_str(), file.content.as_deref()) else {
        return Vec::new();
    };
    let (module, is_package) = module_name(path);
    match crate::parse::code_hashes(text, &module, is_package) {
        Ok(hashes) => hashes,
        Err(e) => {
            tracing::warn!(path, error = %e, "an earlier version's file could not be analyzed");
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_is_as_old_as_its_newest_line() {
        let t = Timestamp::from_unix_seconds;
        let runs = [
            LineDate {
                start: 1,
                end: 3,
                date: t(100),
            },
            LineDate {
                start: 4,
                end: 4,
                date: t(300),
            },
            LineDate {
                start: 5,
                end: 9,
                date: t(200),
            },
        ];
        assert_eq!(lines_date(&runs, 1, 3), Some(t(100)));
        assert_eq!(lines_date(&runs, 2, 6), Some(t(300)));
        assert_eq!(lines_date(&runs, 5, 9), Some(t(200)));
        // Past the dated lines, or across a gap: no date.
        assert_eq!(lines_date(&runs, 8, 10), None);
        assert_eq!(lines_date(&[runs[0].clone(), runs[2].clone()], 3, 5), None);
    }
}
