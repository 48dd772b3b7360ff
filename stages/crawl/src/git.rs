//! `git:` sources: clone into a temporary folder inside the dataset directory (removed
//! afterwards, also on error), check out the ref, and record the commit, its date and,
//! with a cutoff, the lines each file changed since then.
//!
//! Changed lines are those of the HEAD version added or modified after the cutoff: the
//! hunks of `git diff -U0 <base> HEAD`, where `base` is the last commit before the
//! cutoff; with no commit before it, every line is new. A hunk that only deletes lines
//! has no line in HEAD and records nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use schemas::{LineRange, Timestamp};

use crate::repo::{Crawled, Draft};
use crate::sources::SourceSpec;
use crate::walk::{walk, WalkError};
use crate::Context;

/// Why a git source could not be crawled.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git is not installed (or not on PATH); install it to crawl git sources")]
    NotInstalled,
    #[error("`git {args}` failed: {stderr}")]
    Failed { args: String, stderr: String },
    #[error("ref `{git_ref}` not found in {url}")]
    NoRef { git_ref: String, url: String },
    #[error("cannot make a temporary folder in {path}: {source}")]
    Temp {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("git printed a commit date that cannot be read: `{text}`")]
    BadDate { text: String },
    #[error(transparent)]
    Walk(#[from] WalkError),
    /// Another error, its text with the random clone folder replaced by `<clone>` so
    /// that the same inputs give the same `reason`.
    #[error("{0}")]
    Redacted(String),
}

impl GitError {
    fn redact(self, clone: &Path) -> Self {
        GitError::Redacted(
            self.to_string()
                .replace(&*clone.to_string_lossy(), "<clone>"),
        )
    }
}

/// Runs git (in `dir` when given) and returns its standard output.
fn git(dir: Option<&Path>, args: &[&str]) -> Result<String, GitError> {
    git_bytes(dir, args).map(|out| String::from_utf8_lossy(&out).into_owned())
}

/// Runs git (in `dir` when given) and returns its standard output's bytes.
fn git_bytes(dir: Option<&Path>, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    let out = cmd
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                GitError::NotInstalled
            } else {
                GitError::Failed {
                    args: args.join(" "),
                    stderr: e.to_string(),
                }
            }
        })?;
    if !out.status.success() {
        return Err(GitError::Failed {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out.stdout)
}

/// The repository name of a clone URL or path: its last component without `.git`.
pub fn repo_name(url: &str) -> String {
    let trimmed = url.trim_end_matches(['/', '\\']);
    let last = trimmed.rsplit(['/', ':', '\\']).next().unwrap_or(trimmed);
    let name = last.strip_suffix(".git").unwrap_or(last);
    if name.is_empty() {
        url.to_string()
    } else {
        name.to_string()
    }
}

/// Crawls one git source.
pub fn crawl(ctx: &Context, spec: &SourceSpec, url: &str, git_ref: Option<&str>) -> Crawled {
    let mut draft = Draft::new(spec, repo_name(url), ctx.cutoff);
    draft.url = Some(url.to_string());
    draft.git_ref = git_ref.map(str::to_string);
    match crawl_inner(ctx, &mut draft, url, git_ref) {
        Ok(done) => done,
        Err(e) => draft.error(e.to_string()),
    }
}

fn crawl_inner(
    ctx: &Context,
    draft: &mut Draft,
    url: &str,
    git_ref: Option<&str>,
) -> Result<Crawled, GitError> {
    let tmp_root = ctx.tmp_root();
    let temp = |source| GitError::Temp {
        path: tmp_root.clone(),
        source,
    };
    std::fs::create_dir_all(&tmp_root).map_err(temp)?;
    // Removed when dropped, whichever way this function returns.
    let clone_dir = tempfile::Builder::new()
        .prefix("git-")
        .tempdir_in(&tmp_root)
        .map_err(temp)?;
    let checkout = clone_dir.path().join("repo");
    crawl_clone(ctx, draft, url, git_ref, &checkout).map_err(|e| e.redact(&checkout))
}

fn crawl_clone(
    ctx: &Context,
    draft: &mut Draft,
    url: &str,
    git_ref: Option<&str>,
    checkout: &Path,
) -> Result<Crawled, GitError> {
    git(
        None,
        &["clone", "--quiet", "--", url, &checkout.to_string_lossy()],
    )?;
    let dir = Some(checkout);
    if let Some(r) = git_ref {
        let commit = [
            format!("{r}^{{commit}}"),
            format!("refs/remotes/origin/{r}^{{commit}}"),
        ]
        .iter()
        .find_map(|candidate| git(dir, &["rev-parse", "--verify", "--quiet", candidate]).ok())
        .ok_or_else(|| GitError::NoRef {
            git_ref: r.to_string(),
            url: url.to_string(),
        })?;
        git(dir, &["checkout", "--quiet", "--detach", commit.trim()])?;
    }
    draft.commit = Some(git(dir, &["rev-parse", "HEAD"])?.trim().to_string());
    let date = git(dir, &["show", "-s", "--format=%cI", "HEAD"])?;
    let date = Timestamp::parse(date.trim()).ok_or_else(|| GitError::BadDate {
        text: date.trim().to_string(),
    })?;
    draft.published_at = Some(date);
    if let Some(reason) = draft.before_cutoff("last commit") {
        return Ok(draft.clone().skipped(reason));
    }
    let tree = walk(checkout, &ctx.limits(), false, None)?;
    let meta = crate::metadata::from_tree(&tree);
    draft.version.clone_from(&meta.version);
    draft.license = crate::license::detect(&meta.license);
    let Some(cutoff) = ctx.cutoff else {
        return with_line_dates(checkout, draft.clone().ok(&tree, &ctx.limits(), None));
    };
    let before = format!("--before={}", git_date(cutoff));
    let base = git(dir, &["rev-list", "-1", &before, "HEAD"])?;
    let base = base.trim();
    let changed: HashMap<String, Vec<LineRange>> = if base.is_empty() {
        HashMap::new()
    } else {
        let diff = git(
            dir,
            &[
                "-c",
                "core.quotePath=false",
                "diff",
                "-U0",
                "--no-renames",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--text",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                base,
                "HEAD",
                "--",
                "*.py",
                "*requirements*.txt",
                "pyproject.toml",
                "setup.cfg",
            ],
        )?;
        parse_diff(&diff)
    };
    let all_new = base.is_empty();
    let lines = |path: &str, content: &str| {
        if all_new {
            whole_file(content)
        } else {
            changed.get(path).cloned().unwrap_or_default()
        }
    };
    let (snapshots, history) = earlier_commits(ctx, draft, checkout, &tree, cutoff)?;
    let crawled = draft
        .clone()
        .ok(&tree, &ctx.limits(), Some(&lines))
        .with_history(snapshots, history);
    with_line_dates(checkout, crawled)
}

/// The crawled rows with their Python files' `line_dates`.
fn with_line_dates(checkout: &Path, mut crawled: Crawled) -> Result<Crawled, GitError> {
    let python = crawled
        .files
        .iter()
        // The files the log's pathspec `*.py` names.
        .filter(|f| Path::new(&f.path).extension() == Some("py".as_ref()))
        .filter_map(|f| Some((f.path.as_str(), f.content.as_deref()?.lines().count())));
    let mut dates = line_dates(checkout, python)?;
    for f in &mut crawled.files {
        f.line_dates = dates.remove(&f.path);
    }
    Ok(crawled)
}

/// Every line's date ([`crate::blame`]) for the Python files given with their line
/// counts, from one `git log` over the first-parent history of HEAD, read as it streams
/// and stopped once every line is dated.
fn line_dates<'a>(
    checkout: &Path,
    files: impl IntoIterator<Item = (&'a str, usize)>,
) -> Result<HashMap<String, Vec<schemas::LineDate>>, GitError> {
    let args = [
        "-c",
        "core.quotePath=false",
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "-p",
        "-U0",
        "-M",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--text",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        "--format=%x00%ct",
        "HEAD",
        "--",
        "*.py",
    ];
    let failed = |e: std::io::Error| GitError::Failed {
        args: args.join(" "),
        stderr: e.to_string(),
    };
    let mut child = Command::new("git")
        .arg("-C")
        .arg(checkout)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                GitError::NotInstalled
            } else {
                failed(e)
            }
        })?;
    let mut blame = crate::blame::Blame::new(files);
    let stdout = child.stdout.take().map(std::io::BufReader::new);
    let read = match stdout {
        Some(out) => blame.read(out),
        None => Ok(()),
    };
    // Stopped early (every line dated): the rest of the log is not needed.
    if blame.done() {
        let _ = child.kill();
    }
    let status = child.wait().map_err(failed)?;
    read.map_err(failed)?;
    if !blame.done() && !status.success() {
        return Err(GitError::Failed {
            args: args.join(" "),
            stderr: format!("exited with {status}"),
        });
    }
    Ok(blame.into_runs())
}

/// The earlier commits fetched to date the code ([`crate::history`]): the last
/// first-parent commit before the cutoff and `--history` more spread over the history,
/// each read with one `git archive` (one process per commit, none per file).
fn earlier_commits(
    ctx: &Context,
    draft: &Draft,
    checkout: &Path,
    current: &crate::tree::Tree,
    cutoff: Timestamp,
) -> Result<(Vec<schemas::Snapshot>, Vec<schemas::HistoryFile>), GitError> {
    use crate::history::{self, Candidate};
    let dir = Some(checkout);
    let log = git(dir, &["log", "--first-parent", "--format=%H %ct", "HEAD"])?;
    let mut earlier: Vec<Candidate> = log
        .lines()
        .skip(1) // HEAD itself
        .filter_map(|l| {
            let (commit, secs) = l.split_once(' ')?;
            Some(Candidate {
                version: commit.to_string(),
                published_at: Timestamp::from_unix_seconds(secs.trim().parse().ok()?),
            })
        })
        .collect();
    earlier.reverse();
    let repo_id = draft.repo_id();
    let mut snapshots = Vec::new();
    let mut files = Vec::new();
    for (i, role) in history::pick(&earlier, cutoff, ctx.history) {
        let c = &earlier[i];
        let archived = git_bytes(
            dir,
            &["archive", "--format=tar", "--prefix=snapshot/", &c.version],
        )
        .and_then(|bytes| {
            crate::archive::read_archive(
                "snapshot.tar",
                &bytes,
                &ctx.code_limits(),
                ctx.max_archive_bytes,
            )
            .map_err(|e| GitError::Redacted(e.to_string()))
        });
        match archived {
            Ok(tree) => {
                let mut row = history::fetched(
                    &repo_id,
                    c,
                    role,
                    schemas::Artifact::Git,
                    draft.url.clone(),
                    None,
                );
                files.extend(history::history_rows(&mut row, &tree, current));
                snapshots.push(row);
            }
            Err(e) => snapshots.push(history::not_fetched(
                &repo_id,
                &c.version,
                role,
                Some(c.published_at),
                schemas::RepoStatus::Error,
                e.to_string(),
            )),
        }
    }
    Ok((snapshots, files))
}

/// A time as git's `--before` reads it.
fn git_date(t: Timestamp) -> String {
    t.to_string().replace('T', " ").replace('Z', " +0000")
}

/// One range over every line of a text (none for an empty one).
pub fn whole_file(content: &str) -> Vec<LineRange> {
    let n = content.lines().count();
    if n == 0 {
        Vec::new()
    } else {
        vec![LineRange {
            start: 1,
            end: n as i32,
        }]
    }
}

/// The added or changed line ranges (in the new version) of each file of a `-U0` diff.
pub fn parse_diff(diff: &str) -> HashMap<String, Vec<LineRange>> {
    let mut out: HashMap<String, Vec<LineRange>> = HashMap::new();
    let mut path: Option<String> = None;
    let mut pending = 0usize;
    for line in diff.lines() {
        if pending > 0 && (line.starts_with(['+', '-'])) {
            pending -= 1;
            continue;
        }
        if line.starts_with("diff --git ") {
            path = None;
        } else if let Some(p) = line.strip_prefix("+++ ") {
            path = (p != "/dev/null")
                .then(|| unquote(p))
                .map(|p| p.strip_prefix("b/").unwrap_or(&p).to_string());
            if let Some(p) = &path {
                out.entry(p.clone()).or_default();
            }
        } else if let Some(hunk) = line.strip_prefix("@@ -") {
            let Some((old, new)) = hunk.split_once(" +") else {
                continue;
            };
            let new = new.split(' ').next().unwrap_or("");
            let (old_n, (start, new_n)) = (count(old).1, count(new));
            pending = old_n + new_n;
            if let (Some(p), true) = (&path, new_n > 0) {
                let range = LineRange {
                    start: start as i32,
                    end: (start + new_n - 1) as i32,
                };
                out.entry(p.clone()).or_default().push(range);
            }
        }
    }
    out
}

/// `a,b` or `a` (count 1) of a hunk header.
fn count(part: &str) -> (usize, usize) {
    match part.split_once(',') {
        Some((a, b)) => (a.parse().unwrap_or(0), b.parse().unwrap_or(0)),
        None => (part.parse().unwrap_or(0), 1),
    }
}

/// Undoes git's C-style quoting of a path (`"b/a\tb.py"`).
pub(crate) fn unquote(p: &str) -> String {
    let Some(inner) = p.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
        return p.to_string();
    };
    let mut bytes = Vec::new();
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(d @ b'0'..=b'7') => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = chars.peek() {
                        v = v * 8 + u32::from(n - b'0');
                        chars.next();
                    }
                }
                bytes.push(v as u8);
            }
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: i32, end: i32) -> LineRange {
        LineRange { start, end }
    }

    #[test]
    fn parses_hunks() {
        let diff = "diff --git a/m.py b/m.py\nindex 1..2 100644\n--- a/m.py\n+++ b/m.py\n\
            @@ -2 +2 @@ def f():\n-    return 1\n+    return 2\n\
            @@ -10,0 +11,3 @@\n++++ not a header\n+b\n+c\n\
            @@ -20,2 +23,0 @@\n-x\n-y\n\
            diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n\
            diff --git a/gone.py b/gone.py\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n\
            diff --git \"a/t\\tb.py\" \"b/t\\tb.py\"\n--- \"a/t\\tb.py\"\n+++ \"b/t\\tb.py\"\n@@ -1 +1 @@\n-q\n+w\n";
        let got = parse_diff(diff);
        assert_eq!(got["m.py"], [r(2, 2), r(11, 13)]);
        assert_eq!(got["new.py"], [r(1, 2)]);
        assert_eq!(got["t\tb.py"], [r(1, 1)]);
        assert!(!got.contains_key("gone.py"));
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn names_and_whole_files() {
        assert_eq!(repo_name("https://github.com/org/proj.git"), "proj");
        assert_eq!(repo_name("git@github.com:org/proj.git"), "proj");
        assert_eq!(repo_name("/tmp/x/repo/"), "repo");
        assert_eq!(repo_name("file:///tmp/x/repo"), "repo");
        assert_eq!(whole_file(""), []);
        assert_eq!(whole_file("a\nb\n"), [r(1, 2)]);
        assert_eq!(whole_file("a\nb"), [r(1, 2)]);
        assert_eq!(
            git_date(Timestamp::parse("2024-01-02").unwrap()),
            "2024-01-02 00:00:00 +0000"
        );
    }
}
