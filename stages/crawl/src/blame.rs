//! Per-line dates of a git checkout (`files.line_dates`): for every line of the crawled
//! commit, the date of the newest commit that wrote it or removed a line next to it, read
//! from one `git log -p` over the first-parent history (one process for the repository,
//! none per file).
//!
//! The log is read newest commit first. For each file of the crawled commit, a map says
//! which line of the crawled file (if any) each line of the version being read is. A
//! commit's hunks date the crawled lines they add; a hunk that only removes lines dates
//! the two lines around the removal, so that a function whose body lost a line is not
//! dated by its untouched neighbours. The map is then carried to the commit's parent:
//! added lines leave it, removed lines enter it as no crawled line. A renamed file
//! (`-M`) carries its map to its old name; a file the commit created leaves the map.
//!
//! What that proves: no commit after a line's date touched the line or the gap after it,
//! so a block of lines existed verbatim, together and in order, since the latest of their
//! dates. That is the "earliest date its lines can be proven to exist" of a function
//! (resolve takes the latest date over its lines). A file whose hunks do not fit its map
//! (a log that cannot be read) gets no dates rather than wrong ones.

use std::collections::HashMap;
use std::io::BufRead;

use schemas::{LineDate, Timestamp};

/// The state of one file of the crawled commit while the log is read.
struct Tracked {
    /// The crawled file's path (the key of the result).
    crawled: String,
    /// For each line of the version being read, the crawled line (0-based) it is.
    map: Vec<Option<u32>>,
    /// Set when a hunk did not fit `map`: the file gets no dates.
    broken: bool,
}

/// One hunk of a `-U0` diff: old and new start and length as git writes them.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Hunk {
    old_start: usize,
    old_len: usize,
    new_start: usize,
    new_len: usize,
}

/// Reads line dates from a log.
pub struct Blame {
    /// Dates of each crawled file's lines; `None` until a commit dates the line.
    dates: HashMap<String, Vec<Option<Timestamp>>>,
    /// Undated lines left, to stop reading once every line has its date.
    undated: usize,
    /// The tracked files by their name in the version being read.
    by_path: HashMap<String, Tracked>,
    /// Files of the commit being read, by their name in its parent.
    moved: Vec<(String, Tracked)>,
}

impl Blame {
    /// A reader for the crawled files, given as (path, number of lines).
    pub fn new<'a>(files: impl IntoIterator<Item = (&'a str, usize)>) -> Self {
        let mut dates = HashMap::new();
        let mut by_path = HashMap::new();
        let mut undated = 0;
        for (path, lines) in files {
            undated += lines;
            dates.insert(path.to_string(), vec![None; lines]);
            by_path.insert(
                path.to_string(),
                Tracked {
                    crawled: path.to_string(),
                    map: (0..lines as u32).map(Some).collect(),
                    broken: false,
                },
            );
        }
        Blame {
            dates,
            undated,
            by_path,
            moved: Vec::new(),
        }
    }

    /// Whether every line has its date (the rest of the log can be left unread).
    pub fn done(&self) -> bool {
        self.undated == 0
    }

    /// Reads a `git log --first-parent -p -U0 -M --format=%x00%ct` log, commit by commit,
    /// stopping early once every line is dated.
    pub fn read(&mut self, log: impl BufRead) -> std::io::Result<()> {
        let mut commit: Option<Timestamp> = None;
        let mut file: Option<FileDiff> = None;
        let mut pending = 0usize;
        for line in log.split(b'\n') {
            let line = line?;
            let line = String::from_utf8_lossy(&line);
            if pending > 0 {
                if line.starts_with(['+', '-']) {
                    pending -= 1;
                    continue;
                }
                if line.starts_with('\\') {
                    continue; // "\ No newline at end of file"
                }
                pending = 0;
            }
            if let Some(secs) = line.strip_prefix('\0') {
                self.finish(file.take(), commit);
                self.end_commit();
                if self.done() {
                    return Ok(());
                }
                commit = secs.trim().parse().ok().map(Timestamp::from_unix_seconds);
            } else if let Some(rest) = line.strip_prefix("diff --git ") {
                self.finish(file.take(), commit);
                file = Some(FileDiff::new(rest));
            } else if let Some(f) = file.as_mut() {
                if let Some(hunk) = line.strip_prefix("@@ -") {
                    if let Some(h) = parse_hunk(hunk) {
                        pending = h.old_len + h.new_len;
                        f.hunks.push(h);
                    } else {
                        f.unreadable = true;
                    }
                } else if let Some(p) = line.strip_prefix("rename from ") {
                    f.old = Some(unquote(p));
                } else if let Some(p) = line.strip_prefix("rename to ") {
                    f.new = Some(unquote(p));
                } else if let Some(p) = line.strip_prefix("--- ") {
                    if p == "/dev/null" {
                        f.created = true;
                    } else {
                        f.old = Some(strip(p, "a/"));
                    }
                } else if let Some(p) = line.strip_prefix("+++ ") {
                    if p != "/dev/null" {
                        f.new = Some(strip(p, "b/"));
                    }
                } else if line.starts_with("Binary files ") {
                    f.unreadable = true;
                }
            }
        }
        self.finish(file.take(), commit);
        self.end_commit();
        Ok(())
    }

    /// Files renamed by the commit just read take their old names, once every file of
    /// the commit is done (a commit may rename `a.py` to `b.py` and create a new `a.py`).
    fn end_commit(&mut self) {
        for (old, tracked) in self.moved.drain(..) {
            self.by_path.insert(old, tracked);
        }
    }

    /// Applies one file's diff of a commit dated `date`.
    fn finish(&mut self, file: Option<FileDiff>, date: Option<Timestamp>) {
        let (Some(f), Some(date)) = (file, date) else {
            return;
        };
        let Some(new) = f.new.clone().or_else(|| f.header_new.clone()) else {
            return;
        };
        let Some(mut tracked) = self.by_path.remove(&new) else {
            return;
        };
        if f.unreadable {
            tracked.broken = true;
        }
        if !tracked.broken {
            match carry(&tracked.map, &f.hunks) {
                Some((marks, parent)) => {
                    let dates = self.dates.get_mut(&tracked.crawled);
                    if let Some(dates) = dates {
                        for crawled in marks {
                            let slot = &mut dates[crawled as usize];
                            if slot.is_none() {
                                *slot = Some(date);
                                self.undated -= 1;
                            }
                        }
                    }
                    tracked.map = parent;
                }
                None => tracked.broken = true,
            }
        }
        if tracked.broken {
            // Its lines will never be dated: stop waiting for them.
            if let Some(dates) = self.dates.get_mut(&tracked.crawled) {
                self.undated -= dates.iter().filter(|d| d.is_none()).count();
                dates.clear();
            }
            return;
        }
        if f.created {
            // The parent has no such file: whatever is left undated stays so.
            if let Some(dates) = self.dates.get(&tracked.crawled) {
                let left = dates.iter().filter(|d| d.is_none()).count();
                self.undated -= left;
            }
            return;
        }
        let old = f.old.unwrap_or(new);
        self.moved.push((old, tracked));
    }

    /// The dates, as runs of lines with one date; a file appears only when every one of
    /// its lines has a date.
    pub fn into_runs(self) -> HashMap<String, Vec<LineDate>> {
        let mut out = HashMap::new();
        for (path, dates) in self.dates {
            if dates.is_empty() || dates.iter().any(Option::is_none) {
                continue;
            }
            let mut runs: Vec<LineDate> = Vec::new();
            for (i, d) in dates.into_iter().flatten().enumerate() {
                let line = i as i32 + 1;
                match runs.last_mut() {
                    Some(r) if r.date == d && r.end == line - 1 => r.end = line,
                    _ => runs.push(LineDate {
                        start: line,
                        end: line,
                        date: d,
                    }),
                }
            }
            out.insert(path, runs);
        }
        out
    }
}

/// The parts of one file's diff in a commit.
struct FileDiff {
    /// The new name from the `diff --git` line (when no `+++`/`rename to` line gives it).
    header_new: Option<String>,
    old: Option<String>,
    new: Option<String>,
    created: bool,
    unreadable: bool,
    hunks: Vec<Hunk>,
}

impl FileDiff {
    fn new(header: &str) -> Self {
        // `a/OLD b/NEW`: reliable only without quoting or spaces; a rename or `+++` line
        // overrides it.
        let header_new = header
            .rsplit_once(" b/")
            .filter(|_| !header.contains('"'))
            .map(|(_, n)| n.to_string());
        FileDiff {
            header_new,
            old: None,
            new: None,
            created: false,
            unreadable: false,
            hunks: Vec::new(),
        }
    }
}

/// Dates one commit's hunks on the map of its version: the crawled lines it marks, and
/// the map of its parent's version; `None` when the hunks do not fit the map.
fn carry(map: &[Option<u32>], hunks: &[Hunk]) -> Option<(Vec<u32>, Vec<Option<u32>>)> {
    let mut marks = Vec::new();
    let mut parent: Vec<Option<u32>> = Vec::with_capacity(map.len());
    let mut pos = 0usize;
    for h in hunks {
        // Where the hunk's new lines begin (0-based); for a removal, the gap's place.
        let begin = if h.new_len > 0 {
            h.new_start.checked_sub(1)?
        } else {
            h.new_start
        };
        let end = begin + h.new_len;
        if begin < pos || end > map.len() {
            return None;
        }
        parent.extend_from_slice(&map[pos..begin]);
        let old_begin = if h.old_len > 0 {
            h.old_start.checked_sub(1)?
        } else {
            h.old_start
        };
        if parent.len() != old_begin {
            return None;
        }
        if h.new_len > 0 {
            marks.extend(map[begin..end].iter().flatten());
        } else {
            // A removal: the lines on both sides of the gap.
            if begin > 0 {
                marks.extend(map[begin - 1]);
            }
            if let Some(after) = map.get(begin) {
                marks.extend(*after);
            }
        }
        parent.extend(std::iter::repeat_n(None, h.old_len));
        pos = end;
    }
    parent.extend_from_slice(&map[pos..]);
    Some((marks, parent))
}

/// `OLD[,N] +NEW[,N] @@...` of a hunk header.
fn parse_hunk(text: &str) -> Option<Hunk> {
    let (old, rest) = text.split_once(" +")?;
    let new = rest.split(' ').next()?;
    let part = |p: &str| -> Option<(usize, usize)> {
        match p.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((p.parse().ok()?, 1)),
        }
    };
    let ((old_start, old_len), (new_start, new_len)) = (part(old)?, part(new)?);
    Some(Hunk {
        old_start,
        old_len,
        new_start,
        new_len,
    })
}

fn strip(path: &str, prefix: &str) -> String {
    let p = unquote(path);
    p.strip_prefix(prefix).map_or(p.clone(), str::to_string)
}

fn unquote(p: &str) -> String {
    crate::git::unquote(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Timestamp {
        Timestamp::from_unix_seconds(s)
    }

    fn run(files: &[(&str, usize)], log: &str) -> HashMap<String, Vec<(i32, i32, i64)>> {
        let mut b = Blame::new(files.iter().copied());
        b.read(log.as_bytes()).unwrap();
        b.into_runs()
            .into_iter()
            .map(|(p, runs)| {
                let runs = runs
                    .into_iter()
                    .map(|r| (r.start, r.end, r.date.0 / 1_000_000))
                    .collect();
                (p, runs)
            })
            .collect()
    }

    // m.py at HEAD (5 lines): a, B, c, d, e. Commit 300 changed line 2 and removed a line
    // after line 4; commit 200 renamed old.py to m.py and added line 3; commit 100 created
    // old.py with four lines.
    const LOG: &str = "\x00300\n\n\
        diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n\
        @@ -2 +2 @@\n-b\n+B\n\
        @@ -5 +4,0 @@\n-gone\n\
        \x00200\n\n\
        diff --git a/old.py b/m.py\nsimilarity index 80%\nrename from old.py\nrename to m.py\n--- a/old.py\n+++ b/m.py\n\
        @@ -2,0 +3 @@\n+c\n\
        \x00100\n\n\
        diff --git a/old.py b/old.py\nnew file mode 100644\n--- /dev/null\n+++ b/old.py\n\
        @@ -0,0 +1,4 @@\n+a\n+b\n+d\n+-- e\n";

    #[test]
    fn dates_follow_changes_removals_and_renames() {
        let got = run(&[("m.py", 5)], LOG);
        // Line 1 from the creation; 2 changed at 300; 3 added at 200; 4 and 5 around the
        // removal at 300 (the removed line was after line 4).
        assert_eq!(
            got["m.py"],
            [(1, 1, 100), (2, 2, 300), (3, 3, 200), (4, 5, 300)]
        );
    }

    #[test]
    fn hunks_that_do_not_fit_leave_the_file_undated() {
        // A hunk past the end of a 2-line file.
        let log =
            "\x00100\n\ndiff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -7 +9 @@\n-x\n+y\n";
        let got = run(&[("m.py", 2), ("n.py", 1)], log);
        assert!(!got.contains_key("m.py"), "{got:?}");
        // n.py never appears in the log: never dated, never guessed.
        assert!(!got.contains_key("n.py"));
    }

    #[test]
    fn reading_stops_once_every_line_is_dated() {
        let mut b = Blame::new([("m.py", 1)]);
        let log = "\x00200\n\ndiff --git a/m.py b/m.py\n--- /dev/null\n+++ b/m.py\n@@ -0,0 +1 @@\n+a\n\x00100\nnot a log at all\n";
        b.read(log.as_bytes()).unwrap();
        assert!(b.done());
        assert_eq!(b.into_runs()["m.py"][0].date, t(200));
    }

    #[test]
    fn carry_maps_the_parent_version() {
        let map: Vec<Option<u32>> = (0..4).map(Some).collect();
        // Lines 2-3 replaced by one line (old 2,2 -> new 2,1... i.e. new has 3 lines).
        let h = Hunk {
            old_start: 2,
            old_len: 2,
            new_start: 2,
            new_len: 1,
        };
        let (marks, parent) = carry(&map[..3], &[h]).unwrap();
        assert_eq!(marks, [1]);
        assert_eq!(parent, [Some(0), None, None, Some(2)]);
        // An insertion before the first line.
        let h = Hunk {
            old_start: 0,
            old_len: 0,
            new_start: 1,
            new_len: 1,
        };
        let (marks, parent) = carry(&map, &[h]).unwrap();
        assert_eq!((marks, parent), (vec![0], vec![Some(1), Some(2), Some(3)]));
    }
}
