//! The `crawl` stage: the first of freshbench. It fetches the repositories named as
//! sources (`pypi:NAME[==VERSION]`: a release's sdist from the package index;
//! `git:URL[@REF]`: a clone; `path:DIR`: a local folder), on the command line or in a
//! TOML sources file, and writes `DIR/repos.parquet` (one row per source, ok, skipped or
//! failed with the reason) and `DIR/files.parquet` (every Python file and dependency
//! file with its text, for `resolve` to parse, and the data files the tests read, within
//! a size budget, for `execute` to lay out) into the dataset directory.
//!
//! Archives are read in memory and checked entry by entry; git clones go to a temporary
//! folder inside the dataset directory; nothing is written anywhere else except the
//! download cache, when one is given. With a cutoff date (`since`), releases and commits
//! older than it are skipped, files carry the lines changed since it, and each source's
//! earlier versions (the baseline before the cutoff, `--history N` more) are fetched into
//! `snapshots` and `history_files` ([`history`]) for `resolve` to date every function's
//! code. Git files also carry every line's date ([`blame`]).

pub mod archive;
pub mod blame;
pub mod files;
pub mod git;
pub mod history;
pub mod http;
pub mod license;
pub mod local;
pub mod metadata;
pub mod pypi;
pub mod repo;
pub mod sources;
pub mod tree;
pub mod walk;

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use schemas::cli::{CommonArgs, Outcome};
use schemas::{File, FileStatus, HistoryFile, Repo, RepoStatus, Snapshot, Timestamp};
use url::Url;

use crate::repo::Crawled;
use crate::sources::{parse_cutoff, parse_spec, read_sources_file, Source, SourceSpec};

/// The package index used when neither `--index-url` nor the sources file names one.
pub const DEFAULT_INDEX_URL: &str = "https://pypi.org/pypi";
/// Folder of temporary git clones, inside the dataset directory.
pub const TMP_DIR: &str = ".crawl-tmp";

/// Fetch repositories (package releases, git repositories, local folders) into the
/// `repos` and `files` tables.
#[derive(Debug, clap::Parser)]
#[command(name = "crawl", version)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Sources to crawl: `pypi:NAME[==VERSION]` (a release on the package index, the
    /// latest when no version is given), `git:URL[@REF]` (a git repository, URL or local
    /// path, at a branch, tag or commit) or `path:DIR` (a local folder). They come after
    /// those of the sources file.
    #[arg(value_name = "SOURCE")]
    pub specs: Vec<String>,
    /// A TOML file listing sources: `sources = ["pypi:attrs", "git:URL@REF",
    /// "path:DIR"]`, with an optional cutoff `since = "YYYY-MM-DD"`, earlier versions
    /// `history = N` and package index `index_url = "URL"`. Relative paths in it are taken
    /// from its folder.
    #[arg(long = "sources", value_name = "FILE.toml")]
    pub sources_file: Option<PathBuf>,
    /// Cutoff date: releases and last commits older than it are recorded as skipped; for
    /// the others the last release (or commit) before it is fetched too, to date each
    /// function's code, and files get the lines changed since it. Overrides `since` of the
    /// sources file.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub since: Option<String>,
    /// With a cutoff, also fetch up to N earlier releases (or commits) spread over the
    /// project's life, for a code date finer than before or after the cutoff. Overrides
    /// `history` of the sources file [default: 0].
    #[arg(long, value_name = "N")]
    pub history: Option<usize>,
    /// Base URL of the package index's JSON API (`{URL}/{name}/json`); overrides
    /// `index_url` of the sources file [default: `https://pypi.org/pypi`].
    #[arg(long, value_name = "URL")]
    pub index_url: Option<String>,
    /// Files larger than this many bytes are recorded as skipped, without their text.
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub max_file_bytes: u64,
    /// Data files (the other files of a tree, which tests read: fixtures, templates, small
    /// binaries) larger than this many bytes are recorded as skipped, without their content.
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub max_data_file_bytes: u64,
    /// Most bytes of data files recorded per repository; the files beyond it (those outside
    /// test folders, then the largest, first) are recorded as skipped. 0 records no data
    /// file's content.
    #[arg(long, value_name = "N", default_value_t = 16 << 20)]
    pub max_data_bytes: u64,
    /// Most bytes read from one archive, downloaded or uncompressed; an archive holding
    /// more is refused as a possible decompression bomb.
    #[arg(long, value_name = "N", default_value_t = 512 << 20)]
    pub max_archive_bytes: u64,
    /// Keep downloaded archives in this folder, named by their sha256, and reuse them.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}

/// Everything a source needs to be crawled.
pub struct Context {
    /// The dataset directory.
    pub data: PathBuf,
    pub cutoff: Option<Timestamp>,
    /// Earlier versions to fetch beyond the baseline (`--history`).
    pub history: usize,
    pub index_url: Url,
    pub max_file_bytes: u64,
    /// The data files' budget (`--max-data-file-bytes`, `--max-data-bytes`).
    pub data_limits: tree::DataLimits,
    pub max_archive_bytes: u64,
    pub cache: Option<PathBuf>,
    pub http: http::Http,
}

impl Context {
    /// What the crawled version's tree is read with: code files and data files.
    pub fn limits(&self) -> tree::Limits {
        tree::Limits {
            max_file_bytes: self.max_file_bytes,
            data: Some(self.data_limits),
        }
    }

    /// What an earlier version's tree is read with: only what dates the code.
    pub fn code_limits(&self) -> tree::Limits {
        tree::Limits::code_only(self.max_file_bytes)
    }

    /// Where temporary clones go (inside the dataset directory).
    pub fn tmp_root(&self) -> PathBuf {
        self.data.join(TMP_DIR)
    }
}

/// What a crawl gave: the rows, in source order.
#[derive(Debug, Clone, Default)]
pub struct Crawl {
    pub repos: Vec<Repo>,
    pub files: Vec<File>,
    pub snapshots: Vec<Snapshot>,
    pub history: Vec<HistoryFile>,
}

/// The sources and settings named by the arguments (and the sources file). Every error
/// is one of use.
pub fn plan(args: &Args) -> anyhow::Result<(Vec<SourceSpec>, Context)> {
    let file = match &args.sources_file {
        Some(path) => read_sources_file(path)?,
        None => sources::SourcesFile::default(),
    };
    if file.held_out {
        tracing::info!(
            sources = file.sources.len(),
            "a held-out corpus (`held_out = true`): measure on it, don't tune on it"
        );
    }
    let mut specs = file.sources;
    for spec in &args.specs {
        specs.push(parse_spec(spec, None)?);
    }
    if specs.is_empty() {
        bail!("no sources: name some as arguments (`pypi:NAME`, `git:URL`, `path:DIR`) or in a file given with --sources");
    }
    let cutoff = match &args.since {
        Some(text) => Some(parse_cutoff(text, "--since")?),
        None => file.since,
    };
    let index = args
        .index_url
        .clone()
        .or(file.index_url)
        .unwrap_or_else(|| DEFAULT_INDEX_URL.to_string());
    let index_url = Url::parse(&index)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .with_context(|| {
            format!(
                "package index `{index}` is not an http(s) URL; give one like {DEFAULT_INDEX_URL}"
            )
        })?;
    let ctx = Context {
        data: args.common.data()?.to_path_buf(),
        cutoff,
        history: args.history.or(file.history).unwrap_or(0),
        index_url,
        max_file_bytes: args.max_file_bytes,
        data_limits: tree::DataLimits {
            max_file_bytes: args.max_data_file_bytes,
            max_repo_bytes: args.max_data_bytes,
        },
        max_archive_bytes: args.max_archive_bytes,
        cache: args.cache.clone(),
        http: http::Http::new(),
    };
    Ok((specs, ctx))
}

/// Crawls one source.
pub fn crawl_source(ctx: &Context, spec: &SourceSpec) -> Crawled {
    match &spec.source {
        Source::Pypi { name, version } => pypi::crawl(ctx, spec, name, version.as_deref()),
        Source::Git { url, git_ref } => git::crawl(ctx, spec, url, git_ref.as_deref()),
        Source::Path { dir } => local::crawl(ctx, spec, dir),
    }
}

/// Crawls every source in order, calling `each` after each one. A repository that an
/// earlier source already gave is recorded as skipped, so repository ids stay unique
/// among the rows that have files.
pub fn crawl_all(ctx: &Context, specs: &[SourceSpec], mut each: impl FnMut(&Crawled)) -> Crawl {
    let mut out = Crawl::default();
    for spec in specs {
        let mut done = crawl_source(ctx, spec);
        let earlier = out
            .repos
            .iter()
            .find(|r| r.repo_id == done.repo.repo_id && r.status == RepoStatus::Ok);
        if let (Some(first), RepoStatus::Ok) = (earlier, done.repo.status) {
            done.repo.status = RepoStatus::Skipped;
            done.repo.reason = Some(format!("same repository as source `{}`", first.spec));
            done.repo.files_total = 0;
            done.repo.files_skipped = 0;
            done.files.clear();
            done.snapshots.clear();
            done.history.clear();
        }
        each(&done);
        out.repos.push(done.repo);
        out.files.extend(done.files);
        out.snapshots.extend(done.snapshots);
        out.history.extend(done.history);
    }
    out
}

/// Runs the stage: crawls, writes both tables, prints the summary.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    let (specs, ctx) = plan(args)?;
    let data = args.common.data()?;
    std::fs::create_dir_all(data).with_context(|| {
        format!(
            "cannot create the dataset directory {}; give a writable --data",
            data.display()
        )
    })?;
    tempfile::tempfile_in(data).with_context(|| {
        format!(
            "dataset directory {} is not writable; give a writable --data",
            data.display()
        )
    })?;
    // Clones a killed run left behind: the folder is this stage's own.
    let stale = ctx.tmp_root();
    if stale.exists() {
        tracing::info!(path = %stale.display(), "removing temporary clones of an earlier run");
        std::fs::remove_dir_all(&stale)
            .with_context(|| format!("cannot remove {}", stale.display()))?;
    }
    let bar = schemas::cli::progress(&args.common, specs.len() as u64, "crawl");
    let crawl = crawl_all(&ctx, &specs, |done| {
        let r = &done.repo;
        tracing::info!(spec = %r.spec, status = %r.status, files = r.files_total, reason = r.reason.as_deref().unwrap_or(""), "source done");
        bar.inc(1);
    });
    bar.finish_and_clear();
    // Only remove the folder of clones when this run left it empty.
    let _ = std::fs::remove_dir(ctx.tmp_root());
    let repos_path = schemas::write_table(data, &crawl.repos).context("writing the repos table")?;
    let files_path = schemas::write_table(data, &crawl.files).context("writing the files table")?;
    schemas::write_table(data, &crawl.snapshots).context("writing the snapshots table")?;
    schemas::write_table(data, &crawl.history).context("writing the history_files table")?;
    let count = |s: RepoStatus| crawl.repos.iter().filter(|r| r.status == s).count();
    let (ok, skipped, errors) = (
        count(RepoStatus::Ok),
        count(RepoStatus::Skipped),
        count(RepoStatus::Error),
    );
    let files_skipped = crawl
        .files
        .iter()
        .filter(|f| f.status != FileStatus::Ok)
        .count();
    for r in crawl.repos.iter().filter(|r| r.status == RepoStatus::Error) {
        eprintln!(
            "crawl: source `{}` failed: {}",
            r.spec,
            r.reason.as_deref().unwrap_or("unknown reason")
        );
    }
    // Written, not printed: a closed stdout (`| head`) is then an error that main_with
    // recognises as a broken pipe, not a panic.
    let mut out = std::io::stdout().lock();
    writeln!(out, "repos: {ok} ok, {skipped} skipped, {errors} error")?;
    writeln!(
        out,
        "files: {} kept, {files_skipped} skipped",
        crawl.files.len() - files_skipped
    )?;
    let data: Vec<&File> = crawl
        .files
        .iter()
        .filter(|f| f.kind == schemas::FileKind::Data)
        .collect();
    let data_kept: Vec<&&File> = data.iter().filter(|f| f.status == FileStatus::Ok).collect();
    let data_bytes: i64 = data_kept.iter().map(|f| f.size).sum();
    writeln!(
        out,
        "of them data files: {} kept ({data_bytes} bytes, {} binary), {} skipped",
        data_kept.len(),
        data_kept.iter().filter(|f| f.bytes.is_some()).count(),
        data.len() - data_kept.len()
    )?;
    writeln!(
        out,
        "wrote {} and {}",
        repos_path.display(),
        files_path.display()
    )?;
    Ok(if errors > 0 {
        Outcome::Lacking
    } else {
        Outcome::Success
    })
}
