//! Turning what a source gave into its `repos` row and `files` rows, the same way for
//! every source kind.

use schemas::{File, FileStatus, HistoryFile, Repo, RepoStatus, Snapshot, SourceKind, Timestamp};

use crate::files::{file_rows, ChangedLines};
use crate::license::License;
use crate::sources::SourceSpec;
use crate::tree::{Limits, Tree};

/// The rows one source gave.
#[derive(Debug, Clone)]
pub struct Crawled {
    pub repo: Repo,
    pub files: Vec<File>,
    /// Earlier versions fetched to date its code ([`crate::history`]).
    pub snapshots: Vec<Snapshot>,
    /// Their Python files.
    pub history: Vec<HistoryFile>,
}

impl Crawled {
    /// The same rows with the earlier versions fetched for them.
    #[must_use]
    pub fn with_history(mut self, snapshots: Vec<Snapshot>, history: Vec<HistoryFile>) -> Crawled {
        self.snapshots = snapshots;
        self.history = history;
        self
    }
}

/// What is known of a repository while it is being crawled.
#[derive(Debug, Clone)]
pub struct Draft {
    pub source: SourceKind,
    pub spec: String,
    pub name: String,
    pub version: Option<String>,
    pub git_ref: Option<String>,
    pub commit: Option<String>,
    pub published_at: Option<Timestamp>,
    pub url: Option<String>,
    pub license: Option<License>,
    pub cutoff: Option<Timestamp>,
}

impl Draft {
    pub fn new(spec: &SourceSpec, name: String, cutoff: Option<Timestamp>) -> Self {
        Draft {
            source: spec.source.kind(),
            spec: spec.spec.clone(),
            name,
            version: None,
            git_ref: None,
            commit: None,
            published_at: None,
            url: None,
            license: None,
            cutoff,
        }
    }

    /// Content hash of the source kind, the name and the version (pypi) or commit (git,
    /// path). A source that failed before either was known is identified by its spec.
    pub fn repo_id(&self) -> String {
        let which = if self.source == SourceKind::Pypi {
            self.version.as_ref().or(self.commit.as_ref())
        } else {
            self.commit.as_ref().or(self.version.as_ref())
        };
        let which = which.unwrap_or(&self.spec);
        schemas::id::content_id(&[
            self.source.as_str().as_bytes(),
            self.name.as_bytes(),
            which.as_bytes(),
        ])
    }

    /// Whether it was published before the cutoff; the reason names both dates.
    pub fn before_cutoff(&self, what: &str) -> Option<String> {
        let (published, cutoff) = (self.published_at?, self.cutoff?);
        (published < cutoff).then(|| {
            format!(
                "{what} {} is before the cutoff {}",
                published.date_string(),
                cutoff.date_string()
            )
        })
    }

    fn row(self, status: RepoStatus, reason: Option<String>, files: &[File]) -> Repo {
        let repo_id = self.repo_id();
        let (license, license_source) = match self.license {
            Some(l) => (Some(l.id), Some(l.source)),
            None => (None, None),
        };
        Repo {
            repo_id,
            source: self.source,
            spec: self.spec,
            name: self.name,
            version: self.version,
            git_ref: self.git_ref,
            commit: self.commit,
            published_at: self.published_at,
            url: self.url,
            license,
            license_source,
            cutoff: self.cutoff,
            status,
            reason,
            files_total: files.len() as i64,
            files_skipped: files.iter().filter(|f| f.status != FileStatus::Ok).count() as i64,
        }
    }

    /// A repository left out on purpose (older than the cutoff, a duplicate).
    pub fn skipped(self, reason: String) -> Crawled {
        Crawled {
            repo: self.row(RepoStatus::Skipped, Some(reason), &[]),
            files: Vec::new(),
            snapshots: Vec::new(),
            history: Vec::new(),
        }
    }

    /// A repository that could not be fetched or read.
    pub fn error(self, reason: String) -> Crawled {
        Crawled {
            repo: self.row(RepoStatus::Error, Some(reason), &[]),
            files: Vec::new(),
            snapshots: Vec::new(),
            history: Vec::new(),
        }
    }

    /// A repository crawled: its recorded files from `tree`, changed lines from `changed`.
    pub fn ok(self, tree: &Tree, limits: &Limits, changed: Option<ChangedLines<'_>>) -> Crawled {
        let files = file_rows(&self.repo_id(), tree, limits, changed);
        Crawled {
            repo: self.row(RepoStatus::Ok, None, &files),
            files,
            snapshots: Vec::new(),
            history: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::parse_spec;

    #[test]
    fn ids_and_cutoff_reason() {
        let spec = parse_spec("pypi:demo==1.0", None).unwrap();
        let mut d = Draft::new(&spec, "demo".into(), Timestamp::parse("2024-01-01"));
        let by_spec = d.repo_id();
        d.version = Some("1.0".into());
        assert_ne!(d.repo_id(), by_spec);
        assert_eq!(d.repo_id().len(), 32);
        assert_eq!(d.before_cutoff("released"), None);
        d.published_at = Timestamp::parse("2023-06-30T10:00:00Z");
        assert_eq!(
            d.before_cutoff("released").unwrap(),
            "released 2023-06-30 is before the cutoff 2024-01-01"
        );
        let row = d.skipped("old".into()).repo;
        assert_eq!((row.status, row.files_total), (RepoStatus::Skipped, 0));
    }
}
