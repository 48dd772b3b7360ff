//! What every stage binary shares: the common options, logging, progress bars, exit
//! codes and the printing of errors.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Options every stage takes.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonArgs {
    /// The dataset directory: the stage reads and writes `DIR/<table>.parquet` there
    /// (needed by every mode that reads or writes tables).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// No progress bars and only warnings in the log.
    #[arg(short, long)]
    pub quiet: bool,
    /// More log output (-v: debug, -vv: trace). `RUST_LOG` overrides.
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

impl CommonArgs {
    /// Options for a stage run on `dir` (tests and stages that call other stages).
    pub fn on(dir: impl Into<PathBuf>) -> CommonArgs {
        CommonArgs {
            data: Some(dir.into()),
            quiet: true,
            verbose: 0,
        }
    }

    /// The dataset directory, or an error saying to give `--data`.
    pub fn data(&self) -> anyhow::Result<&Path> {
        self.data.as_deref().ok_or_else(|| {
            anyhow::anyhow!(
                "--data DIR is required: the dataset directory this stage reads and writes"
            )
        })
    }
}

/// The options of a stage whose work is long and resumable (execute, solve,
/// synthesize-tests): how often the rows made so far are written.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct ResumeArgs {
    /// Seconds between checkpoints of the table being written (0: after every row).
    #[arg(long, value_name = "SECS", default_value_t = CHECKPOINT_SECS, hide = true)]
    pub checkpoint_secs: f64,
}

impl ResumeArgs {
    /// The checkpoint clock these options ask for.
    pub fn checkpoint(&self) -> anyhow::Result<Checkpoint> {
        if !(self.checkpoint_secs >= 0.0 && self.checkpoint_secs <= 86_400.0) {
            anyhow::bail!(
                "--checkpoint-secs {}: give seconds between 0 and a day",
                self.checkpoint_secs
            );
        }
        Ok(Checkpoint::every(Duration::from_secs_f64(
            self.checkpoint_secs,
        )))
    }
}

impl Default for ResumeArgs {
    fn default() -> ResumeArgs {
        ResumeArgs {
            checkpoint_secs: CHECKPOINT_SECS,
        }
    }
}

/// Seconds between two checkpoints of a long stage, the same in every stage: a killed run
/// loses at most the work of the last few seconds.
pub const CHECKPOINT_SECS: f64 = 10.0;

/// When to write the rows made so far: once the interval has passed since the last write.
#[derive(Debug, Clone, Copy)]
pub struct Checkpoint {
    every: Duration,
    last: Instant,
}

impl Checkpoint {
    pub fn every(every: Duration) -> Checkpoint {
        Checkpoint {
            every,
            last: Instant::now(),
        }
    }

    /// Whether a checkpoint is due now; when it is, the clock restarts.
    pub fn due(&mut self) -> bool {
        if self.last.elapsed() >= self.every {
            self.last = Instant::now();
            true
        } else {
            false
        }
    }
}

/// The folder of the caches (environments, trees, answers): `$FRESHBENCH_CACHE` when it is
/// set and not empty (an empty value counts as unset), else `.cache` of the working
/// directory.
pub fn cache_root() -> PathBuf {
    std::env::var_os("FRESHBENCH_CACHE")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(".cache"), PathBuf::from)
}

/// Parses a date option (`--since`, `--cutoff`, `--date`): `YYYY-MM-DD` (or an RFC 3339
/// time) that is a real calendar date, with a message saying what to write otherwise.
pub fn parse_date(flag: &str, text: &str) -> anyhow::Result<crate::Timestamp> {
    crate::Timestamp::parse(text).ok_or_else(|| {
        anyhow::anyhow!(
            "{flag} {text:?}: not a calendar date; write it as YYYY-MM-DD with a day the month has, e.g. 2026-06-01"
        )
    })
}

/// How a stage ended: 0 success, 1 ran but found what it checks for lacking, 2 error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Success,
    Lacking,
}

impl Outcome {
    pub fn code(self) -> ExitCode {
        match self {
            Outcome::Success => ExitCode::SUCCESS,
            Outcome::Lacking => ExitCode::from(1),
        }
    }
}

/// Starts `tracing` on stderr, structured as key=value.
pub fn init_logging(common: &CommonArgs) {
    let level = match (common.quiet, common.verbose) {
        (true, _) => "warn",
        (false, 0) => "info",
        (false, 1) => "debug",
        (false, _) => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// A progress bar on stderr, hidden when stderr is not a terminal or with `-q`.
pub fn progress(common: &CommonArgs, len: u64, what: &str) -> ProgressBar {
    if common.quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{msg:>12} [{bar:30}] {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Runs a stage's body and turns its result into the process exit code: the error's cause
/// chain is printed on stderr with exit code 2; a broken pipe on stdout is not an error.
/// A panic is reported as a bug in freshbench, not as a problem with the input.
pub fn main_with(stage: &'static str, body: impl FnOnce() -> anyhow::Result<Outcome>) -> ExitCode {
    std::panic::set_hook(Box::new(move |info| {
        eprintln!(
            "{stage}: internal error, a bug in freshbench (please report it with the command line): {info}"
        );
    }));
    match body() {
        Ok(outcome) => outcome.code(),
        Err(err) => {
            let broken_pipe = err.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("{stage}: error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(2)
        }
    }
}

/// `--shard i/n` of the stages whose work splits over machines (`solve`, `execute --run`):
/// the items whose index (in the stage's fixed order) mod n is i-1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Whether the item at `position` (0-based) belongs to this shard.
    pub fn holds(self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

/// A `--shard` value that is not `i/n` with `1 <= i <= n`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}`: give i/n with 1 <= i <= n, e.g. 2/8")]
pub struct BadShard(pub String);

impl std::str::FromStr for Shard {
    type Err = BadShard;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadShard(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Checks `--run NAME` the same way in every stage (solve names a run, execute, score and
/// query read it): the name is the folder `DIR/runs/NAME` (see [`check_folder_name`]).
pub fn check_run_name(name: &str) -> anyhow::Result<()> {
    check_folder_name("--run", name)
}

/// The one rule for a name freshbench makes a folder of (a run, a snapshot): letters,
/// digits, `.`, `_` and `-` only, not starting with `.` (no paths, no hidden folders,
/// nothing a shell would need quoted).
pub fn check_folder_name(flag: &str, name: &str) -> anyhow::Result<()> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !ok {
        anyhow::bail!(
            "{flag} `{name}`: it names a folder; use letters, digits, `.`, `_` and `-` only, not starting with `.`"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names() {
        for ok in ["gpt-4o", "qwen2.5_coder.7b", "a", "oracle"] {
            assert!(check_run_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".hidden",
            "a/b",
            "..",
            "../x",
            "a b",
            "x\\y",
            "gpt-4o@2024",
            "a\nb",
        ] {
            assert!(check_run_name(bad).is_err(), "{bad}");
        }
    }
}
