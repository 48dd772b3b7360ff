//! `pypi:` sources: a release's JSON document from the package index
//! (`{index}/{name}/json` for the latest, `{index}/{name}/{version}/json` for a pinned
//! one), its source distribution downloaded (or taken from the cache), checked against
//! the published sha256 and read in memory.

use schemas::Timestamp;
use serde_json::Value;
use url::Url;

use crate::archive::{format_of, read_archive};
use crate::http::FetchError;
use crate::license::{detect, Evidence};
use crate::repo::{Crawled, Draft};
use crate::sources::SourceSpec;
use crate::Context;

/// Why a release could not be crawled.
#[derive(Debug, thiserror::Error)]
pub enum PypiError {
    #[error("no release {what} on the package index ({source})")]
    NotFound { what: String, source: FetchError },
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("{url}: not a release document ({problem})")]
    BadDocument { url: String, problem: &'static str },
    #[error("release {what} has no source distribution (sdist), only {others}")]
    NoSdist { what: String, others: String },
    #[error("{file}: its sha256 is {got}, but the index gives {expected}; refused")]
    Digest {
        file: String,
        got: String,
        expected: String,
    },
    #[error("{file}: the index gives no sha256 to check it against; refused")]
    NoDigest { file: String },
    #[error("{url}: bad download URL ({detail})")]
    BadUrl { url: String, detail: String },
    #[error(transparent)]
    Archive(#[from] crate::archive::ArchiveError),
}

/// The sdist chosen from a release's `urls`.
#[derive(Debug)]
struct Sdist<'a> {
    file: &'a str,
    url: &'a str,
    sha256: Option<&'a str>,
    uploaded: Option<Timestamp>,
}

/// The URL of a release's JSON document.
pub fn document_url(
    index: &Url,
    name: &str,
    version: Option<&str>,
) -> Result<Url, url::ParseError> {
    let base = index.as_str().trim_end_matches('/');
    match version {
        Some(v) => Url::parse(&format!("{base}/{name}/{v}/json")),
        None => Url::parse(&format!("{base}/{name}/json")),
    }
}

/// Crawls one release.
pub fn crawl(ctx: &Context, spec: &SourceSpec, name: &str, version: Option<&str>) -> Crawled {
    let mut draft = Draft::new(spec, name.to_string(), ctx.cutoff);
    draft.version = version.map(str::to_string);
    match crawl_inner(ctx, &mut draft, name, version) {
        Ok(done) => done,
        Err(e) => draft.error(e.to_string()),
    }
}

fn crawl_inner(
    ctx: &Context,
    draft: &mut Draft,
    name: &str,
    version: Option<&str>,
) -> Result<Crawled, PypiError> {
    let what = version.map_or_else(|| name.to_string(), |v| format!("{name}=={v}"));
    let doc_url = document_url(&ctx.index_url, name, version).map_err(|e| PypiError::BadUrl {
        url: ctx.index_url.to_string(),
        detail: e.to_string(),
    })?;
    let not_found = |e: FetchError| match e {
        FetchError::NotFound { .. } => PypiError::NotFound {
            what: what.clone(),
            source: e,
        },
        e => PypiError::Fetch(e),
    };
    // Some mirrors serve only the project's document, not one per release; that document
    // lists every release's files under `releases`, so a pinned version is looked up there.
    let (doc, doc_url, release_files) = match (ctx.http.get_json(&doc_url), version) {
        (Ok((doc, url)), _) => (doc, url, None),
        (Err(first @ FetchError::NotFound { .. }), Some(v)) => {
            let project_url =
                document_url(&ctx.index_url, name, None).map_err(|e| PypiError::BadUrl {
                    url: ctx.index_url.to_string(),
                    detail: e.to_string(),
                })?;
            let (doc, url) = ctx.http.get_json(&project_url).map_err(not_found)?;
            match doc.get("releases").and_then(|r| r.get(v)).cloned() {
                Some(files) => (doc, url, Some(files)),
                None => return Err(not_found(first)),
            }
        }
        (Err(e), _) => return Err(not_found(e)),
    };
    let bad = |problem| PypiError::BadDocument {
        url: doc_url.to_string(),
        problem,
    };
    let info = doc
        .get("info")
        .filter(|i| i.is_object())
        .ok_or_else(|| bad("no `info`"))?;
    if let Some(n) = info.get("name").and_then(Value::as_str) {
        draft.name = n.to_string();
    }
    if release_files.is_none() {
        if let Some(v) = info.get("version").and_then(Value::as_str) {
            draft.version = Some(v.to_string());
        }
    }
    let info_evidence = evidence_of(info);
    draft.license = detect(&info_evidence);
    let urls = release_files
        .as_ref()
        .or_else(|| doc.get("urls"))
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `urls` list"))?;
    let sdist = choose_sdist(urls, &what)?;
    draft.published_at = sdist.uploaded;
    let archive_url = listed_url(&doc_url, &sdist)?;
    draft.url = Some(archive_url.to_string());
    if let Some(reason) = draft.before_cutoff("released") {
        return Ok(draft.clone().skipped(reason));
    }
    let (_, bytes) = fetcher(ctx).fetch_at(&archive_url, &sdist)?;
    let tree = read_archive(sdist.file, &bytes, &ctx.limits(), ctx.max_archive_bytes)?;
    let meta = crate::metadata::from_tree(&tree);
    let mut evidence = info_evidence;
    evidence.expressions.extend(meta.license.expressions);
    evidence.texts.extend(meta.license.texts);
    evidence.classifiers.extend(meta.license.classifiers);
    evidence.files.extend(meta.license.files);
    draft.license = detect(&evidence);
    draft.commit = Some(tree.hash());
    let Some(cutoff) = ctx.cutoff else {
        return Ok(draft.clone().ok(&tree, &ctx.limits(), None));
    };
    // The releases before this one, to date its code: the project's document lists them.
    let project = if doc.get("releases").is_some_and(Value::is_object) {
        Ok((doc, doc_url))
    } else {
        document_url(&ctx.index_url, name, None)
            .map_err(|e| e.to_string())
            .and_then(|u| ctx.http.get_json(&u).map_err(|e| e.to_string()))
    };
    let earlier = Earlier::fetch(ctx, draft, &project, &tree, cutoff);
    let baseline = earlier.baseline_texts;
    let changed = |path: &str, content: &str| match &baseline {
        Some(texts) => match texts.get(path) {
            Some(old) => crate::history::changed_lines(old, content),
            None => crate::git::whole_file(content),
        },
        None => crate::git::whole_file(content),
    };
    Ok(draft
        .clone()
        .ok(&tree, &ctx.limits(), Some(&changed))
        .with_history(earlier.snapshots, earlier.files))
}

/// The releases fetched before the crawled one ([`crate::history`]).
struct Earlier {
    snapshots: Vec<schemas::Snapshot>,
    files: Vec<schemas::HistoryFile>,
    /// The baseline's texts by path, when it was fetched; `None` without a baseline (every
    /// line is then new).
    baseline_texts: Option<std::collections::BTreeMap<String, String>>,
}

/// One earlier release as the project document lists it.
struct Listed<'a> {
    version: &'a str,
    files: &'a [Value],
    published_at: Option<Timestamp>,
    /// Why it is yanked, when every file of it is.
    yanked: Option<String>,
}

impl Earlier {
    fn fetch(
        ctx: &Context,
        draft: &Draft,
        project: &Result<(Value, Url), String>,
        current: &crate::tree::Tree,
        cutoff: Timestamp,
    ) -> Earlier {
        use crate::history::{self, Candidate};
        use schemas::{RepoStatus, SnapshotRole};
        let repo_id = draft.repo_id();
        let mut out = Earlier {
            snapshots: Vec::new(),
            files: Vec::new(),
            baseline_texts: None,
        };
        let (project, project_url) = match project {
            Ok((p, u)) => (p, u),
            Err(e) => {
                out.snapshots.push(history::not_fetched(
                    &repo_id,
                    "(releases)",
                    SnapshotRole::Baseline,
                    None,
                    RepoStatus::Error,
                    format!("the project's list of releases could not be fetched: {e}"),
                ));
                return out;
            }
        };
        let current_version = draft.version.as_deref().unwrap_or("");
        let now = draft.published_at.unwrap_or(cutoff);
        let mut listed: Vec<Listed<'_>> = releases_of(project)
            .into_iter()
            .filter(|r| r.version != current_version)
            .collect();
        for r in listed.iter().filter(|r| r.published_at.is_none()) {
            out.snapshots.push(history::not_fetched(
                &repo_id,
                r.version,
                SnapshotRole::History,
                None,
                RepoStatus::Skipped,
                "no upload time: it cannot be placed in time".into(),
            ));
        }
        listed.retain(|r| r.published_at.is_some_and(|t| t < now));
        listed.sort_by_key(|r| r.published_at);
        // Yanked releases are not what was published: never a baseline or a history point.
        let kept: Vec<&Listed<'_>> = listed.iter().filter(|r| r.yanked.is_none()).collect();
        let candidates: Vec<Candidate> = kept
            .iter()
            .map(|r| Candidate {
                version: r.version.to_string(),
                published_at: r.published_at.unwrap_or(cutoff),
            })
            .collect();
        let picks = history::pick(&candidates, cutoff, ctx.history);
        let baseline_at = picks
            .iter()
            .find(|(_, role)| *role == SnapshotRole::Baseline)
            .map(|(i, _)| candidates[*i].published_at);
        for r in &listed {
            let passed_over = r
                .published_at
                .is_some_and(|t| t < cutoff && baseline_at.is_none_or(|b| t > b));
            if let (Some(why), true) = (&r.yanked, passed_over) {
                out.snapshots.push(history::not_fetched(
                    &repo_id,
                    r.version,
                    SnapshotRole::Baseline,
                    r.published_at,
                    RepoStatus::Skipped,
                    format!("yanked ({why}); the release before it is the baseline"),
                ));
            }
        }
        for (i, role) in picks {
            let c = &candidates[i];
            match fetch_release(ctx, project_url, kept[i]) {
                Ok((artifact, url, sha, tree)) => {
                    let mut row =
                        history::fetched(&repo_id, c, role, artifact, Some(url), Some(sha));
                    out.files
                        .extend(history::history_rows(&mut row, &tree, current));
                    if role == SnapshotRole::Baseline {
                        out.baseline_texts = Some(history::texts(&tree));
                    }
                    out.snapshots.push(row);
                }
                Err(e) => out.snapshots.push(history::not_fetched(
                    &repo_id,
                    &c.version,
                    role,
                    Some(c.published_at),
                    RepoStatus::Error,
                    e.to_string(),
                )),
            }
        }
        out
    }
}

/// Every release of a project document's `releases`, with its upload time (the earliest
/// of its files') and whether it is yanked.
fn releases_of(project: &Value) -> Vec<Listed<'_>> {
    let Some(releases) = project.get("releases").and_then(Value::as_object) else {
        return Vec::new();
    };
    releases
        .iter()
        .filter_map(|(version, files)| {
            let files = files.as_array()?;
            if files.is_empty() {
                return None;
            }
            let published_at = files
                .iter()
                .filter_map(|f| {
                    f.get("upload_time_iso_8601")
                        .or_else(|| f.get("upload_time"))
                        .and_then(Value::as_str)
                        .and_then(Timestamp::parse)
                })
                .min();
            let all_yanked = files
                .iter()
                .all(|f| f.get("yanked").and_then(Value::as_bool) == Some(true));
            let yanked = all_yanked.then(|| {
                files
                    .iter()
                    .find_map(|f| f.get("yanked_reason").and_then(Value::as_str))
                    .filter(|r| !r.is_empty())
                    .unwrap_or("no reason given")
                    .to_string()
            });
            Some(Listed {
                version,
                files,
                published_at,
                yanked,
            })
        })
        .collect()
}

/// Downloads (or takes from the cache) and reads an earlier release: its sdist, else a
/// wheel (which holds the same Python files), checked against the index's sha256.
fn fetch_release(
    ctx: &Context,
    project_url: &Url,
    release: &Listed<'_>,
) -> Result<(schemas::Artifact, String, String, crate::tree::Tree), PypiError> {
    let what = release.version;
    let (artifact, chosen) = match choose_sdist(release.files, what) {
        Ok(s) => (schemas::Artifact::Sdist, s),
        Err(PypiError::NoSdist { .. }) => {
            (schemas::Artifact::Wheel, choose_wheel(release.files, what)?)
        }
        Err(e) => return Err(e),
    };
    let (url, expected, bytes) = fetcher(ctx).fetch_listed(project_url, &chosen)?;
    let tree = read_archive(
        chosen.file,
        &bytes,
        &ctx.code_limits(),
        ctx.max_archive_bytes,
    )?;
    Ok((artifact, url.to_string(), expected, tree))
}

/// A wheel of a release when it has no sdist: a pure one (`none-any`) first.
fn choose_wheel<'a>(urls: &'a [Value], what: &str) -> Result<Sdist<'a>, PypiError> {
    let field = |v: &'a Value, k: &str| v.get(k).and_then(Value::as_str);
    let wheels: Vec<&'a Value> = urls
        .iter()
        .filter(|u| field(u, "packagetype") == Some("bdist_wheel"))
        .collect();
    let chosen = wheels
        .iter()
        .copied()
        .find(|u| field(u, "filename").is_some_and(|f| f.ends_with("-none-any.whl")))
        .or_else(|| wheels.first().copied())
        .ok_or_else(|| PypiError::NoSdist {
            what: what.to_string(),
            others: "no wheel either".into(),
        })?;
    Ok(Sdist {
        file: field(chosen, "filename").unwrap_or(""),
        url: field(chosen, "url").unwrap_or(""),
        sha256: chosen
            .get("digests")
            .and_then(|d| d.get("sha256"))
            .and_then(Value::as_str),
        uploaded: None,
    })
}

/// License evidence of a release document's `info`.
fn evidence_of(info: &Value) -> Evidence {
    let text = |key: &str| {
        info.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    Evidence {
        expressions: text("license_expression").into_iter().collect(),
        texts: text("license").into_iter().collect(),
        classifiers: info
            .get("classifiers")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        files: Vec::new(),
    }
}

/// The sdist of a release: one in a format `crawl` reads when there is one (`.tar.gz`
/// before `.zip`), else the first, whose format is then reported.
fn choose_sdist<'a>(urls: &'a [Value], what: &str) -> Result<Sdist<'a>, PypiError> {
    let field = |v: &'a Value, k: &str| v.get(k).and_then(Value::as_str);
    let sdists: Vec<&'a Value> = urls
        .iter()
        .filter(|u| field(u, "packagetype") == Some("sdist"))
        .collect();
    let rank = |u: &&'a Value| match u.get("filename").and_then(Value::as_str).map(format_of) {
        Some(Ok(crate::archive::Format::TarGz)) => 0,
        Some(Ok(crate::archive::Format::Zip)) => 1,
        _ => 2,
    };
    let Some(chosen) = sdists.into_iter().min_by_key(rank) else {
        let mut kinds: Vec<&str> = urls
            .iter()
            .filter_map(|u| field(u, "packagetype"))
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        let others = if kinds.is_empty() {
            "no files at all".to_string()
        } else {
            kinds.join(", ")
        };
        return Err(PypiError::NoSdist {
            what: what.to_string(),
            others,
        });
    };
    let file = field(chosen, "filename")
        .or_else(|| field(chosen, "url").and_then(|u| u.rsplit('/').next()))
        .unwrap_or("");
    let uploaded = field(chosen, "upload_time_iso_8601")
        .or_else(|| field(chosen, "upload_time"))
        .and_then(Timestamp::parse);
    Ok(Sdist {
        file,
        url: field(chosen, "url").unwrap_or(""),
        sha256: chosen
            .get("digests")
            .and_then(|d| d.get("sha256"))
            .and_then(Value::as_str),
        uploaded,
    })
}

/// The URL of the archive `chosen` names, taken relative to `listed_at` (the document that
/// lists it).
fn listed_url(listed_at: &Url, chosen: &Sdist<'_>) -> Result<Url, PypiError> {
    listed_at.join(chosen.url).map_err(|e| PypiError::BadUrl {
        url: chosen.url.to_string(),
        detail: e.to_string(),
    })
}

/// The [`Fetcher`] of a crawl's context.
fn fetcher(ctx: &Context) -> Fetcher<'_> {
    Fetcher {
        http: &ctx.http,
        index: &ctx.index_url,
        cache: ctx.cache.as_deref(),
        max_archive_bytes: ctx.max_archive_bytes,
    }
}

/// What fetches a project's source distribution from the package index: how `crawl`
/// fetches a release, and how `execute` fetches a dependency that has no wheel.
pub struct Fetcher<'a> {
    pub http: &'a crate::http::Http,
    /// The index's JSON API (`https://pypi.org/pypi`).
    pub index: &'a Url,
    /// Archives by sha256 (`None`: not kept).
    pub cache: Option<&'a std::path::Path>,
    pub max_archive_bytes: u64,
}

/// A source distribution [`Fetcher::sdist`] chose.
#[derive(Debug, Clone)]
pub struct FetchedSdist {
    /// The project's name as the index spells it.
    pub name: String,
    pub version: String,
    /// The archive's file name (`docopt-0.6.2.tar.gz`).
    pub file: String,
    /// The archive, checked against the index's sha256.
    pub bytes: Vec<u8>,
}

impl Fetcher<'_> {
    /// The source distribution of the release of `name` that `choose` picks among the
    /// versions that have a non-yanked sdist (from the project's document, which lists
    /// every release).
    pub fn sdist(
        &self,
        name: &str,
        choose: &dyn Fn(&[&str]) -> Option<String>,
    ) -> Result<FetchedSdist, PypiError> {
        let doc_url = document_url(self.index, name, None).map_err(|e| PypiError::BadUrl {
            url: self.index.to_string(),
            detail: e.to_string(),
        })?;
        let (doc, doc_url) = self.http.get_json(&doc_url).map_err(|e| match e {
            FetchError::NotFound { .. } => PypiError::NotFound {
                what: name.to_string(),
                source: e,
            },
            e => PypiError::Fetch(e),
        })?;
        let bad = |problem| PypiError::BadDocument {
            url: doc_url.to_string(),
            problem,
        };
        let releases = doc
            .get("releases")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("no `releases`"))?;
        let has_sdist = |files: &Value| {
            files.as_array().is_some_and(|fs| {
                fs.iter().any(|f| {
                    f.get("packagetype").and_then(Value::as_str) == Some("sdist")
                        && f.get("yanked").and_then(Value::as_bool) != Some(true)
                })
            })
        };
        let versions: Vec<&str> = releases
            .iter()
            .filter(|(_, files)| has_sdist(files))
            .map(|(v, _)| v.as_str())
            .collect();
        let version = choose(&versions).ok_or_else(|| PypiError::NoSdist {
            what: name.to_string(),
            others: format!(
                "none of the {} releases with one is a version asked for",
                versions.len()
            ),
        })?;
        let files: Vec<Value> = releases
            .get(&version)
            .and_then(Value::as_array)
            .map(|fs| {
                fs.iter()
                    .filter(|f| f.get("yanked").and_then(Value::as_bool) != Some(true))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let what = format!("{name}=={version}");
        let chosen = choose_sdist(&files, &what)?;
        let (_, _, bytes) = self.fetch_listed(&doc_url, &chosen)?;
        let name = doc
            .get("info")
            .and_then(|i| i.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(name)
            .to_string();
        Ok(FetchedSdist {
            name,
            version,
            file: chosen.file.to_string(),
            bytes,
        })
    }

    /// The archive `chosen` names, its URL taken relative to `listed_at` (the document
    /// that lists it), checked against the sha256 the index gives: its URL, that sha256
    /// and its bytes.
    fn fetch_listed(
        &self,
        listed_at: &Url,
        chosen: &Sdist<'_>,
    ) -> Result<(Url, String, Vec<u8>), PypiError> {
        let url = listed_url(listed_at, chosen)?;
        let (expected, bytes) = self.fetch_at(&url, chosen)?;
        Ok((url, expected, bytes))
    }

    /// The archive `chosen` names, at `url` (an archive of a known format, with the sha256
    /// the index gives): that sha256 and its bytes.
    fn fetch_at(&self, url: &Url, chosen: &Sdist<'_>) -> Result<(String, Vec<u8>), PypiError> {
        format_of(chosen.file)?;
        let expected = chosen
            .sha256
            .ok_or_else(|| PypiError::NoDigest {
                file: chosen.file.to_string(),
            })?
            .to_ascii_lowercase();
        let bytes = self.download(url, chosen.file, &expected)?;
        Ok((expected, bytes))
    }

    /// The archive's bytes, from the cache when it holds them, else downloaded (and
    /// cached); refused unless their sha256 is `expected`.
    fn download(&self, url: &Url, file: &str, expected: &str) -> Result<Vec<u8>, PypiError> {
        let cached = self.cache.map(|dir| dir.join(expected));
        if let Some(bytes) = cached.as_deref().and_then(|p| std::fs::read(p).ok()) {
            if schemas::id::sha256_hex(&bytes) == expected {
                tracing::debug!(file, "archive taken from the cache");
                return Ok(bytes);
            }
            tracing::warn!(
                file,
                "cached archive does not match its sha256, fetching it again"
            );
        }
        let bytes = self.http.get_bytes(url, self.max_archive_bytes)?;
        let got = schemas::id::sha256_hex(&bytes);
        if got != expected {
            return Err(PypiError::Digest {
                file: file.to_string(),
                got,
                expected: expected.to_string(),
            });
        }
        if let Some(path) = cached {
            if let Err(e) = schemas::io::write_bytes_atomic(&path, &bytes) {
                tracing::warn!(path = %path.display(), error = %e, "could not keep the archive in the cache");
            }
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chooses_sdist() {
        let urls = vec![
            json!({"packagetype": "bdist_wheel", "filename": "a-1-py3-none-any.whl", "url": "w"}),
            json!({"packagetype": "sdist", "filename": "a-1.zip", "url": "z", "digests": {"sha256": "ab"}}),
            json!({"packagetype": "sdist", "filename": "a-1.tar.gz", "url": "t", "upload_time": "2024-01-02T03:04:05"}),
        ];
        let s = choose_sdist(&urls, "a").unwrap();
        assert_eq!((s.file, s.url, s.sha256), ("a-1.tar.gz", "t", None));
        assert_eq!(s.uploaded.unwrap().to_string(), "2024-01-02T03:04:05Z");
        let err = choose_sdist(&urls[..1], "a==1").unwrap_err().to_string();
        assert_eq!(
            err,
            "release a==1 has no source distribution (sdist), only bdist_wheel"
        );
    }

    #[test]
    fn document_urls() {
        let index = Url::parse("http://127.0.0.1:1/pypi/").unwrap();
        assert_eq!(
            document_url(&index, "attrs", None).unwrap().as_str(),
            "http://127.0.0.1:1/pypi/attrs/json"
        );
        assert_eq!(
            document_url(&index, "attrs", Some("1.0")).unwrap().as_str(),
            "http://127.0.0.1:1/pypi/attrs/1.0/json"
        );
    }
}
