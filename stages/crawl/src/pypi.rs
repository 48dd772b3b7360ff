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
    let archive_url = doc_url.join(sdist.url).map_err(|e| PypiError::BadUrl {
        url: sdist.url.to_string(),
        detail: e.to_string(),
    })?;
    draft.url = Some(archive_url.to_string());
    if let Some(reason) = draft.before_cutoff("released") {
        return Ok(draft.clone().skipped(reason));
    }
    format_of(sdist.file)?;
    let expected = sdist
        .sha256
        .ok_or_else(|| PypiError::NoDigest {
            file: sdist.file.to_string(),
        })?
        .to_ascii_lowercase();
    let bytes = download(ctx, &archive_url, sdist.file, &expected)?;
    let tree = read_archive(
        sdist.file,
        &bytes,
        ctx.max_file_bytes,
        ctx.max_archive_bytes,
    )?;
    let meta = crate::metadata::from_tree(&tree);
    let mut evidence = info_evidence;
    evidence.expressions.extend(meta.license.expressions);
    evidence.texts.extend(meta.license.texts);
    evidence.classifiers.extend(meta.license.classifiers);
    evidence.files.extend(meta.license.files);
    draft.license = detect(&evidence);
    draft.commit = Some(tree.hash());
    Ok(draft.clone().ok(&tree, ctx.max_file_bytes, None))
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

/// The archive's bytes, from the cache when it holds them, else downloaded (and cached);
/// refused unless their sha256 is `expected`.
fn download(ctx: &Context, url: &Url, file: &str, expected: &str) -> Result<Vec<u8>, PypiError> {
    let cached = ctx.cache.as_deref().map(|dir| dir.join(expected));
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
    let bytes = ctx.http.get_bytes(url, ctx.max_archive_bytes)?;
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
