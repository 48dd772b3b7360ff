//! What to crawl: source specs (`pypi:NAME[==VERSION]`, `git:URL[@REF]`, `path:DIR`) and
//! the sources file (TOML) that lists them with an optional cutoff and package index.
//!
//! Every error here is a user error: it names the spec or the file and says what to write
//! instead.

use std::fmt;
use std::path::{Path, PathBuf};

use schemas::{SourceKind, Timestamp};
use serde::Deserialize;

/// A bad source spec or sources file.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(
        "source `{spec}`: {problem}; write `pypi:NAME[==VERSION]`, `git:URL[@REF]` or `path:DIR`"
    )]
    BadSpec { spec: String, problem: String },
    #[error("sources file {path}: cannot read it ({source})")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "sources file {path}: {problem}; expected TOML like \
         `since = \"2024-01-01\"`, `index_url = \"https://pypi.org/pypi\"`, `sources = [\"pypi:attrs\"]`"
    )]
    BadFile { path: PathBuf, problem: String },
    #[error("cutoff `{text}` ({origin}) is not a calendar date; write it as YYYY-MM-DD with a day the month has, e.g. 2026-06-01")]
    BadDate { text: String, origin: String },
}

/// One repository source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A release of a package on the package index; the latest when `version` is `None`.
    Pypi {
        name: String,
        version: Option<String>,
    },
    /// A git repository (URL, local path or `file://` URL), at `git_ref` or its HEAD.
    Git {
        url: String,
        git_ref: Option<String>,
    },
    /// A local folder.
    Path { dir: PathBuf },
}

impl Source {
    /// The source kind as stored in `repos.source`.
    pub fn kind(&self) -> SourceKind {
        match self {
            Source::Pypi { .. } => SourceKind::Pypi,
            Source::Git { .. } => SourceKind::Git,
            Source::Path { .. } => SourceKind::Path,
        }
    }
}

/// A source together with the spec it was written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceSpec {
    /// The spec exactly as given (recorded in `repos.spec`).
    pub spec: String,
    pub source: Source,
}

impl fmt::Display for SourceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec)
    }
}

/// Parses a spec. `base` is the folder relative local paths are taken from (the sources
/// file's folder for specs read from it; `None` for the command line, i.e. the current
/// directory).
pub fn parse_spec(spec: &str, base: Option<&Path>) -> Result<SourceSpec, SourceError> {
    let bad = |problem: &str| SourceError::BadSpec {
        spec: spec.to_string(),
        problem: problem.to_string(),
    };
    let (kind, rest) = spec
        .split_once(':')
        .ok_or_else(|| bad("no source kind before `:`"))?;
    if rest.trim().is_empty() {
        return Err(bad("nothing after the source kind"));
    }
    let source = match kind {
        "pypi" => {
            let (name, version) = match rest.split_once("==") {
                Some((n, v)) => (n, Some(v)),
                None => (rest, None),
            };
            if !is_package_name(name) {
                return Err(bad(
                    "a package name has only letters, digits, `.`, `_` and `-`",
                ));
            }
            if let Some(v) = version {
                if !is_version(v) {
                    return Err(bad("a version has only letters, digits and `.+!_-`"));
                }
            }
            Source::Pypi {
                name: name.to_string(),
                version: version.map(str::to_string),
            }
        }
        "git" => {
            let (url, git_ref) = split_git_ref(rest);
            if url.starts_with('-') || git_ref.is_some_and(|r| r.starts_with('-')) {
                return Err(bad("a git URL or ref cannot start with `-`"));
            }
            let url = match base {
                Some(base) if is_relative_local(url) => {
                    base.join(url).to_string_lossy().into_owned()
                }
                _ => url.to_string(),
            };
            Source::Git {
                url,
                git_ref: git_ref.map(str::to_string),
            }
        }
        "path" => {
            let dir = PathBuf::from(rest);
            let dir = match base {
                Some(base) if dir.is_relative() => base.join(dir),
                _ => dir,
            };
            Source::Path { dir }
        }
        _ => return Err(bad(&format!("unknown source kind `{kind}`"))),
    };
    Ok(SourceSpec {
        spec: spec.to_string(),
        source,
    })
}

fn is_package_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
}

fn is_version(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".+!_-".contains(&b))
}

/// Splits `URL[@REF]`. URLs hold `@` of their own (`git@host:org/repo`,
/// `https://user@host/repo`), so the part after the last `@` is a ref only when it has no
/// `:` and the `@` is not the user-info of a `scheme://user@host` URL.
pub fn split_git_ref(text: &str) -> (&str, Option<&str>) {
    let Some((head, tail)) = text.rsplit_once('@') else {
        return (text, None);
    };
    if tail.is_empty() || tail.contains(':') || head.is_empty() {
        return (text, None);
    }
    if let Some((_, after_scheme)) = head.split_once("://") {
        if !after_scheme.contains('/') {
            return (text, None);
        }
    }
    (head, Some(tail))
}

/// A local path (not a URL, not `host:path`) that is relative.
fn is_relative_local(url: &str) -> bool {
    !url.contains("://") && !url.contains(':') && Path::new(url).is_relative()
}

/// Parses a cutoff given as `YYYY-MM-DD` (an RFC 3339 time is accepted too).
pub fn parse_cutoff(text: &str, origin: &str) -> Result<Timestamp, SourceError> {
    Timestamp::parse(text).ok_or_else(|| SourceError::BadDate {
        text: text.to_string(),
        origin: origin.to_string(),
    })
}

/// The contents of a sources file.
#[derive(Debug, Clone, Default)]
pub struct SourcesFile {
    pub since: Option<Timestamp>,
    /// `history = N`: earlier versions to fetch beyond the baseline.
    pub history: Option<usize>,
    pub index_url: Option<String>,
    /// `held_out = true`: a corpus kept for measuring only (nobody tunes a stage on it);
    /// crawl says so, and the figures made on it are reported apart.
    pub held_out: bool,
    pub sources: Vec<SourceSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    since: Option<toml::Value>,
    history: Option<usize>,
    index_url: Option<String>,
    #[serde(default)]
    held_out: bool,
    #[serde(default)]
    sources: Vec<String>,
}

/// Reads a sources file; relative local paths in it are taken from its folder.
pub fn read_sources_file(path: &Path) -> Result<SourcesFile, SourceError> {
    let text = std::fs::read_to_string(path).map_err(|source| SourceError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_sources_file(&text, path)
}

/// Parses the text of the sources file at `path`.
pub fn parse_sources_file(text: &str, path: &Path) -> Result<SourcesFile, SourceError> {
    let bad = |problem: String| SourceError::BadFile {
        path: path.to_path_buf(),
        problem,
    };
    let raw: RawFile = toml::from_str(text).map_err(|e| bad(e.message().to_string()))?;
    let origin = format!("`since` in {}", path.display());
    let since = match raw.since {
        None => None,
        // TOML's own date type (`since = 2024-01-01`) and a string both work.
        Some(toml::Value::String(s)) => Some(parse_cutoff(&s, &origin)?),
        Some(toml::Value::Datetime(d)) => Some(parse_cutoff(&d.to_string(), &origin)?),
        Some(other) => {
            return Err(bad(format!(
                "`since` must be a date, not {}",
                other.type_str()
            )))
        }
    };
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let sources = raw
        .sources
        .iter()
        .map(|s| parse_spec(s, Some(base)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SourcesFile {
        since,
        history: raw.history,
        index_url: raw.index_url,
        held_out: raw.held_out,
        sources,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_kind() {
        let s = parse_spec("pypi:attrs==23.1.0", None).unwrap();
        assert_eq!(
            s.source,
            Source::Pypi {
                name: "attrs".into(),
                version: Some("23.1.0".into())
            }
        );
        let s = parse_spec("pypi:attrs", None).unwrap();
        assert_eq!(
            s.source,
            Source::Pypi {
                name: "attrs".into(),
                version: None
            }
        );
        let s = parse_spec("git:/some/repo@v1", None).unwrap();
        assert_eq!(
            s.source,
            Source::Git {
                url: "/some/repo".into(),
                git_ref: Some("v1".into())
            }
        );
        let s = parse_spec("path:x/y", Some(Path::new("/base"))).unwrap();
        assert_eq!(
            s.source,
            Source::Path {
                dir: PathBuf::from("/base/x/y")
            }
        );
    }

    #[test]
    fn git_refs_and_user_info() {
        assert_eq!(
            split_git_ref("git@github.com:org/repo.git"),
            ("git@github.com:org/repo.git", None)
        );
        assert_eq!(
            split_git_ref("git@github.com:org/repo.git@v2"),
            ("git@github.com:org/repo.git", Some("v2"))
        );
        assert_eq!(
            split_git_ref("https://user@host.org"),
            ("https://user@host.org", None)
        );
        assert_eq!(
            split_git_ref("https://host.org/r.git@main"),
            ("https://host.org/r.git", Some("main"))
        );
        assert_eq!(
            split_git_ref("file:///tmp/r@abc123"),
            ("file:///tmp/r", Some("abc123"))
        );
        assert_eq!(split_git_ref("/tmp/r"), ("/tmp/r", None));
    }

    #[test]
    fn bad_specs_say_what_to_write() {
        for spec in [
            "attrs",
            "pypi:",
            "pypi:attrs>=1",
            "svn:x",
            "git:--upload-pack=x",
            "pypi:a==1 2",
        ] {
            let err = parse_spec(spec, None).unwrap_err().to_string();
            assert!(err.contains("pypi:NAME"), "{spec}: {err}");
        }
    }

    #[test]
    fn sources_file() {
        let text = "since = \"2024-01-01\"\nindex_url = \"http://x\"\nsources = [\"path:a\", \"git:b@v1\", \"git:https://h/r\"]\n";
        let f = parse_sources_file(text, Path::new("/cfg/sources.toml")).unwrap();
        assert_eq!(f.since.unwrap().date_string(), "2024-01-01");
        assert_eq!(f.index_url.as_deref(), Some("http://x"));
        assert_eq!(
            f.sources[0].source,
            Source::Path {
                dir: PathBuf::from("/cfg/a")
            }
        );
        assert_eq!(
            f.sources[1].source,
            Source::Git {
                url: "/cfg/b".into(),
                git_ref: Some("v1".into())
            }
        );
        assert_eq!(
            f.sources[2].source,
            Source::Git {
                url: "https://h/r".into(),
                git_ref: None
            }
        );
        let f = parse_sources_file("since = 2024-02-03\n", Path::new("s.toml")).unwrap();
        assert_eq!(f.since.unwrap().date_string(), "2024-02-03");
        assert!(!f.held_out);
        let f = parse_sources_file(
            "held_out = true\nsources = [\"path:a\"]\n",
            Path::new("s.toml"),
        )
        .unwrap();
        assert!(f.held_out);
        for bad in [
            "since = \"yesterday\"",
            "sources = [\"nope\"]",
            "surces = []",
            "since = 3",
            "held_out = \"yes\"",
            "[[[",
        ] {
            assert!(
                parse_sources_file(bad, Path::new("s.toml")).is_err(),
                "{bad}"
            );
        }
    }
}
