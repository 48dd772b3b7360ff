//! Shared helpers of the crawl integration tests: a stand-in for the package index (a
//! tiny HTTP/1.1 server on 127.0.0.1), archive builders, and running the stage.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clap::Parser as _;
use schemas::cli::Outcome;

/// Answers by path: status and body.
type Routes = Arc<Mutex<HashMap<String, (u16, Vec<u8>)>>>;

/// An HTTP server answering GETs from a table of paths, recording what was asked.
pub struct Server {
    pub base: String,
    routes: Routes,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let routes: Routes = Arc::default();
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, l) = (routes.clone(), log.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                if reader.read_line(&mut request).is_err() {
                    continue;
                }
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).map_or(true, |n| n == 0) || header == "\r\n" {
                        break;
                    }
                }
                let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                l.lock().unwrap().push(path.clone());
                let (status, body) = r
                    .lock()
                    .unwrap()
                    .get(&path)
                    .cloned()
                    .unwrap_or((404, b"not found".to_vec()));
                let head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Server { base, routes, log }
    }

    pub fn serve(&self, path: &str, body: impl Into<Vec<u8>>) {
        self.routes
            .lock()
            .unwrap()
            .insert(path.to_string(), (200, body.into()));
    }

    pub fn index(&self) -> String {
        format!("{}/pypi", self.base)
    }

    pub fn requests(&self, path: &str) -> usize {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|p| *p == path)
            .count()
    }

    /// Serves a release: its archive at `/files/{file}` and its JSON document at
    /// `/pypi/{name}/{version}/json` (and `/pypi/{name}/json` when `latest`). `url` is
    /// the download URL written in the document (`None`: the absolute one).
    pub fn release(&self, r: &Release<'_>) {
        self.serve(&format!("/files/{}", r.file), r.archive.clone());
        let url = r
            .url
            .map_or_else(|| format!("{}/files/{}", self.base, r.file), str::to_string);
        let sha = r
            .sha256
            .map_or_else(|| schemas::id::sha256_hex(&r.archive), str::to_string);
        let doc = serde_json::json!({
            "info": {
                "name": r.name, "version": r.version, "license": r.license,
                "license_expression": r.license_expression, "classifiers": r.classifiers,
            },
            "urls": [
                {"packagetype": "bdist_wheel", "filename": format!("{}-{}-py3-none-any.whl", r.name, r.version),
                 "url": format!("{}/files/none.whl", self.base), "digests": {"sha256": "00"}},
                {"packagetype": "sdist", "filename": r.file, "url": url, "digests": {"sha256": sha},
                 "upload_time": "2020-01-01T00:00:00", "upload_time_iso_8601": r.uploaded},
            ],
        });
        let body = serde_json::to_vec(&doc).unwrap();
        self.serve(
            &format!("/pypi/{}/{}/json", r.name, r.version),
            body.clone(),
        );
        if r.latest {
            self.serve(&format!("/pypi/{}/json", r.name), body);
        }
    }
}

/// Serves the project document `/pypi/{name}/json` of `latest`, with every release of
/// `all` under `releases` (their sdists, or wheels when `wheel`; `yanked` ones marked), as
/// the package index lists a project's history.
pub fn serve_project(server: &Server, latest: &Release<'_>, all: &[&Release<'_>]) {
    let mut releases = serde_json::Map::new();
    for r in all {
        server.serve(&format!("/files/{}", r.file), r.archive.clone());
        let entry = serde_json::json!({
            "packagetype": if r.wheel { "bdist_wheel" } else { "sdist" },
            "filename": r.file,
            "url": format!("{}/files/{}", server.base, r.file),
            "digests": {"sha256": schemas::id::sha256_hex(&r.archive)},
            "upload_time_iso_8601": r.uploaded,
            "yanked": r.yanked,
            "yanked_reason": if r.yanked { Some("broken") } else { None },
        });
        releases.insert(r.version.to_string(), serde_json::json!([entry]));
    }
    let doc = serde_json::json!({
        "info": {"name": latest.name, "version": latest.version},
        "urls": [{
            "packagetype": "sdist", "filename": latest.file,
            "url": format!("{}/files/{}", server.base, latest.file),
            "digests": {"sha256": schemas::id::sha256_hex(&latest.archive)},
            "upload_time_iso_8601": latest.uploaded,
        }],
        "releases": releases,
    });
    server.serve(
        &format!("/pypi/{}/json", latest.name),
        serde_json::to_vec(&doc).unwrap(),
    );
}

/// A release to serve.
pub struct Release<'a> {
    pub name: &'a str,
    pub version: &'a str,
    pub file: &'a str,
    pub archive: Vec<u8>,
    pub uploaded: &'a str,
    pub latest: bool,
    pub url: Option<&'a str>,
    pub sha256: Option<&'a str>,
    pub license: Option<&'a str>,
    pub license_expression: Option<&'a str>,
    pub classifiers: Vec<&'a str>,
    /// Listed as a wheel (no sdist) in the project document.
    pub wheel: bool,
    /// Listed as yanked in the project document.
    pub yanked: bool,
}

impl<'a> Release<'a> {
    pub fn new(name: &'a str, version: &'a str, file: &'a str, archive: Vec<u8>) -> Self {
        Release {
            name,
            version,
            file,
            archive,
            uploaded: "2024-05-06T07:08:09.123456Z",
            latest: false,
            url: None,
            sha256: None,
            license: None,
            license_expression: None,
            classifiers: Vec::new(),
            wheel: false,
            yanked: false,
        }
    }
}

/// A tar entry: path, type, data, link target, written raw into the header so that
/// crafted paths get in as they are.
pub type TarEntry<'a> = (&'a str, tar::EntryType, &'a [u8], Option<&'a str>);

pub fn tar_gz(entries: &[TarEntry<'_>]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, kind, data, link) in entries {
        let mut h = tar::Header::new_gnu();
        let gnu = h.as_gnu_mut().unwrap();
        gnu.name[..path.len()].copy_from_slice(path.as_bytes());
        if let Some(link) = link {
            gnu.linkname[..link.len()].copy_from_slice(link.as_bytes());
        }
        h.set_entry_type(*kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(1_700_000_000);
        h.set_cksum();
        b.append(&h, *data).unwrap();
    }
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&b.into_inner().unwrap()).unwrap();
    e.finish().unwrap()
}

/// A zip (a wheel) of regular files.
pub fn zip_files(files: &[(&str, &str)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for (path, data) in files {
        w.start_file(*path, opts).unwrap();
        w.write_all(data.as_bytes()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// Regular files only.
pub fn tar_gz_files(files: &[(&str, &[u8])]) -> Vec<u8> {
    let entries: Vec<TarEntry<'_>> = files
        .iter()
        .map(|(p, d)| (*p, tar::EntryType::Regular, *d, None))
        .collect();
    tar_gz(&entries)
}

/// Runs the stage through the library with these arguments after `--data DIR -q`.
pub fn run(data: &Path, args: &[&str]) -> anyhow::Result<Outcome> {
    let mut command_line = vec![
        "crawl".to_string(),
        "--data".into(),
        data.display().to_string(),
        "-q".into(),
    ];
    command_line.extend(args.iter().map(|s| (*s).to_string()));
    crawl::run(&crawl::Args::parse_from(command_line))
}

pub fn tables(data: &Path) -> (Vec<schemas::Repo>, Vec<schemas::File>) {
    (
        schemas::read_table(data).unwrap(),
        schemas::read_table(data).unwrap(),
    )
}

/// Every path under `dir`, relative, sorted.
pub fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            out.push(e.path().strip_prefix(dir).unwrap().to_path_buf());
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Whether git can be run; prints why a test is skipped when it cannot.
pub fn have_git() -> bool {
    let ok = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: git is not installed on this machine");
    }
    ok
}
