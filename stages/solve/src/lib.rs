//! `solve`: a model's answers to the tasks, into `DIR/runs/<run>/candidates.parquet`.
//!
//! Reads the task tables of `--family` (`function_tasks`, status `ok`; `completion_tasks`
//! and `assertion_tasks` of mask; by default every one there is) and `validations` (only
//! `valid` tasks, by family and task id; without that table it stops and says to run
//! `execute --validate`, unless `--unvalidated`), takes the tasks of `--task ID` and
//! `--tasks FILE` (ids one a line, `#` comments) when given and the first `--limit N` in
//! task id order (the same N on every run: ids are content hashes), and asks a solver
//! ([`spec::Spec`]) for `--samples` answers per task:
//! - the reference solvers ([`reference`](mod@reference)): `oracle` (the reference
//!   solution, the masked text, or the assertion's recorded answer), `null` (the entry
//!   point with an empty body; the neutral fill `None` or `pass`; `None` for assertions),
//!   `mutant` (one mutation from the `mutants` library within the entry point or the masked
//!   span, picked by a hash of task id and sample; an error row for assertion tasks, whose
//!   mutants mask makes) and `memorized` (the contamination check: an assertion's value on
//!   the original program, right on original tasks and wrong on mutated ones; the
//!   reference for the other families);
//! - `openai:MODEL@URL` ([`openai`]): an OpenAI-compatible endpoint, chat or completions,
//!   with retries and backoff, and an answer cache ([`cache`]) so a rerun asks nothing twice;
//!   `openai-fim:MODEL@URL` asks the completions endpoint with fill-in-the-middle prompts
//!   for completion tasks and the value form of assertion tasks ([`prompt::fim`]: the
//!   format from `--fim-preset`, the model name or `--fim-prefix`/`--fim-suffix`/
//!   `--fim-middle`);
//! - `command:PROGRAM` ([`command`]): a program reading the task as JSON on stdin;
//! - `file:PATH` ([`file`](mod@file)): answers made by other harnesses, read from a file.
//!
//! `file:PATH` judges answers made elsewhere: a JSON lines file (or one JSON array,
//! gzip-compressed or not) of `EvalPlus`, human-eval or `BigCodeBench` samples, each `task_id`
//! (freshbench's, or the exported `freshbench/<task_id>`) with `completion` (the prompt's
//! continuation) or `solution` (the whole program; for completion tasks the fill, for
//! assertion tasks the value), the lines of one task its samples in file order. The text
//! becomes the answer a `command:` program printing it would give; a task or sample the
//! file lacks is an error row, a line naming no task a warning, a line that is not such an
//! object an error naming the file and line. The file's sha256 is part of the input hash.
//!
//! The prompt is built per task family ([`prompt`]; completion and assertion prompts within
//! `--prompt-budget`) and the model's text becomes code in [`clean`] (function answers),
//! [`fill`] (completion fills) or [`prompt::assertion::clean`] (an assertion's value, or
//! `True` / `False`); the row keeps both (`answer`, `raw`), the sha256 of the
//! exact request sent (`prompt_hash`), tokens and latency. Rows are sorted by (task id,
//! sample).
//!
//! What is sent, to match other harnesses (`EvalPlus`, lm-evaluation-harness), is the user's
//! to set, and every option of it is part of the input hash (and of the cache key, through
//! the request body) only when given, so that without them requests and rows are what they
//! were:
//! - `--seed N` sends `"seed": N + sample` (samples at a temperature above 0 differ, and a
//!   rerun draws them again) to both endpoints, and gives `seed` to `command:` programs;
//! - `--stop SEQ` (repeatable, at most 4, the `OpenAI` limit) replaces the completions
//!   endpoint's stops of the family (the function family: `\ndef `, `\nclass `,
//!   `\nif __name__`, `\nprint(`; plain assertion prompts: a newline; FIM prompts: the
//!   format's end-of-text and sentinel tokens) and is the chat endpoint's only stops;
//!   `--no-stop` sends none;
//! - `--system TEXT` (or `@FILE`) replaces the family's system message of chat prompts
//!   ([`prompt::function::SYSTEM`] and the others; `''` sends none), and `--system-role
//!   user` puts the system text at the start of the user message, for chat templates
//!   without a system role.
//!
//! Reasoning models: a `<think>` (or `<thinking>`) block at the start of the text, or the
//! text up to a lone `</think>`, is dropped before cleaning ([`clean::strip_think`]), and a
//! `reasoning_content` or `reasoning` field of the message is never read as the answer; an
//! answer cut inside reasoning that never closes (`finish_reason` `length`) is an empty
//! answer, an `ok` row that then fails when executed (the model's failure, not the
//! harness's). `raw` keeps the text as the endpoint returned it.
//!
//! Costs ([`price`]): with `--price-in X --price-out Y` (per million prompt and completion
//! tokens) or `--prices FILE` (TOML, a table per model name), `cost` is
//! `tokens_in * X / 1e6 + tokens_out * Y / 1e6` (null without token counts; 0 for the
//! reference solvers). Cached answers cost what producing them did. Prices are not part of
//! the input hash: a rerun with other prices asks nothing again and reprices every row of
//! the table. The summary line gives the run's tokens and cost.
//!
//! A rerun resumes: a row of the run's table is kept when its status is `ok` and the hash
//! of what produced it (model spec, sampling and prompt options, the task's prompt, the
//! sample and [`BUILD_ID`]) still matches; the (task, sample) pairs missing, in `error` or
//! made otherwise are asked again. The table is written atomically every few seconds
//! ([`schemas::cli::Checkpoint`]) while answers come in and at the end, so a killed run
//! loses at most the answers of the last seconds. A table made with another model spec is
//! refused (a new `--run` name, or `--force` to replace it). With `--shard i/n` the run
//! writes `candidates-i-of-n.parquet`; `--merge-shards` joins a complete set of them into
//! `candidates.parquet` ([`schemas::shards`]).
//!
//! Why blocking `ureq` and threads rather than an async runtime: ureq is already the
//! workspace's HTTP client (crawl uses it), a pool of N threads each making one blocking
//! request at a time is all that tens of concurrent requests to a model server need (the
//! time is spent waiting for the model, not in the client), and the stage builds without
//! tokio or another runtime. The same pool runs `command:` programs and reference solvers.

pub mod backoff;
pub mod cache;
pub mod clean;
pub mod command;
pub mod examples;
pub mod file;
pub mod fill;
pub mod openai;
pub mod price;
pub mod prompt;
pub mod reference;
pub mod solver;
pub mod spec;
pub mod task;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser;
use schemas::cli::{check_run_name, CommonArgs, Outcome, ResumeArgs};
use schemas::{AnswerStatus, Candidate};

/// A hash of the code that turns a task into a request and a model's text into an answer
/// (this crate, the mutants library of the reference solvers, the contract), recorded at
/// build time by `build.rs`: part of every answer's `input_hash`.
pub const BUILD_ID: &str = env!("FRESHBENCH_BUILD_ID");

use crate::backoff::Backoff;
use crate::cache::Cache;
use crate::price::Pricing;
use crate::prompt::fim::{Custom, Fim, Order, Preset};
use crate::prompt::Api;
use crate::reference::Reference;
use crate::solver::{Answer, Solver};
use crate::spec::Spec;
use crate::task::{Families, Family, Selection, Shard, Task};

/// Most stop sequences a request may have (the `OpenAI` API's limit).
pub const MAX_STOPS: usize = 4;

/// The long help of `--stop`: the defaults it replaces, from the prompt modules.
fn stop_help() -> String {
    use clap::ValueEnum as _;
    let list = |stops: &[String]| {
        stops
            .iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let function: Vec<String> = prompt::function::COMPLETION_STOP
        .iter()
        .map(|s| (*s).to_string())
        .collect();
    let presets: Vec<String> = Preset::value_variants()
        .iter()
        .map(|p| format!("    {}: {}", p.as_str(), list(&p.fim().stop)))
        .collect();
    format!(
        "A stop sequence sent as `\"stop\"` (repeatable, at most {MAX_STOPS}, the most OpenAI-compatible endpoints take). \
         Part of the input hash, so changing it asks again.\n\n\
         It replaces the stops the completions endpoint gets by default, by task family:\n  \
         function tasks: {}\n  \
         assertion tasks (without FIM): {}\n  \
         FIM prompts (completion tasks, assertion values): the format's, per --fim-preset:\n{}\n    \
         (a custom format: its sentinels)\n\n\
         The chat endpoint gets no stop unless given. Escapes are not read: give a newline as \
         itself (in bash, $'\\n').",
        list(&function),
        list(&[prompt::assertion::PLAIN_STOP.to_string()]),
        presets.join("\n")
    )
}

/// The long help of `--system`: the default system messages, from the prompt modules.
fn system_help() -> String {
    format!(
        "The system message of chat prompts instead of the family's: TEXT, or `@FILE` for the \
         text of FILE (its trailing newline dropped); `--system ''` sends no system message. \
         Part of the input hash. See --system-role for models without a system role.\n\n\
         The defaults, by task family:\n  \
         function: {:?}\n  \
         completion: {:?}\n  \
         assertion: {:?}",
        prompt::function::SYSTEM,
        prompt::completion::SYSTEM,
        prompt::assertion::SYSTEM
    )
}

/// Ask a model (or a reference solver) for answers to the tasks, into
/// DIR/runs/RUN/candidates.parquet.
// Each flag is an independent switch of the command line.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Parser)]
#[command(name = "solve", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The run's name: answers go to DIR/runs/RUN/ (letters, digits, `.`, `_`, `-`).
    #[arg(long, value_name = "NAME")]
    pub run: String,
    /// Who answers: `oracle`, `null`, `mutant` (reference solvers; `mutant` gives error rows
    /// on assertion tasks), `memorized` (the contamination check: an assertion's value on the
    /// original program, so right on original tasks and wrong on mutated ones; the reference
    /// on function and completion tasks), `openai:MODEL@URL` (an OpenAI-compatible API, URL
    /// its base such as `http://127.0.0.1:8000/v1`), `openai-fim:MODEL@URL` (its completions
    /// endpoint, completion tasks and assertion values asked with fill-in-the-middle prompts
    /// in the format of --fim-preset, else the one the model's name suggests),
    /// `command:PROGRAM [ARGS...]` (reads the task as JSON on stdin, prints the answer) or
    /// `file:PATH` (answers made elsewhere: JSON lines of `task_id` with `completion` or
    /// `solution`, as `EvalPlus`, human-eval and `BigCodeBench` write them; a task's lines are
    /// its samples).
    #[arg(long, value_name = "SPEC", required_unless_present = "merge_shards")]
    pub model: Option<String>,
    /// The task families to solve: `function` (`function_tasks`), `completion`
    /// (`completion_tasks`), `assertion` (`assertion_tasks`) or `all` (every one of those
    /// tables that is there).
    #[arg(long, value_enum, value_name = "FAMILY", default_value_t = Families::All)]
    pub family: Families,
    /// The endpoint of `openai:` models: `chat` (/chat/completions; the default) or
    /// `completions` (/completions; function tasks: the answer is the prompt followed by the
    /// completion; completion tasks need a FIM format, --fim-preset; assertion tasks: the
    /// test cut where the value goes, the value its continuation up to the line's end).
    /// `openai-fim:` models always use `completions`.
    #[arg(long, value_enum)]
    pub api: Option<Api>,
    /// The fill-in-the-middle format of completion tasks (and of assertion tasks' value
    /// form, the test around `??`) on the completions endpoint:
    /// `starcoder` (`<fim_prefix>`, `<fim_suffix>`, `<fim_middle>`, `<file_sep>`),
    /// `codellama` (`<PRE>`, `<SUF>`, `<MID>`), `deepseek` (`<｜fim▁begin｜>`,
    /// `<｜fim▁hole｜>`, `<｜fim▁end｜>`), `qwen` (`<|fim_prefix|>`, `<|fim_suffix|>`,
    /// `<|fim_middle|>`, `<|file_sep|>`) or `codestral` (`[SUFFIX]`, `[PREFIX]`, suffix
    /// first).
    #[arg(long, value_enum, value_name = "NAME")]
    pub fim_preset: Option<Preset>,
    /// A custom FIM sentinel put before the prefix (overrides the preset's; without a
    /// preset, give --fim-suffix and --fim-middle too).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub fim_prefix: Option<String>,
    /// A custom FIM sentinel put before the suffix.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub fim_suffix: Option<String>,
    /// A custom FIM sentinel after which the model writes the middle (may be empty with
    /// --fim-order spm).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub fim_middle: Option<String>,
    /// A custom separator put before each context file (`SEP PATH` then its text); without
    /// one, context files go into the prefix under `# file: PATH` comments.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub fim_file_sep: Option<String>,
    /// The order of a custom FIM format: `psm` (prefix, suffix, middle) or `spm` (suffix
    /// first).
    #[arg(long, value_enum, value_name = "ORDER")]
    pub fim_order: Option<Order>,
    /// Most tokens (words and punctuation marks) of a completion task's prompt: context,
    /// prefix and suffix together. Over it, the lowest ranked context snippets go, then
    /// whole lines from the start of the prefix and the end of the suffix (said in the
    /// prompt as `# [N lines omitted]`). Of an assertion task's prompt: the lowest ranked
    /// code snippets go (never the first, nor the test).
    #[arg(long, value_name = "N", default_value_t = prompt::DEFAULT_BUDGET)]
    pub prompt_budget: usize,
    /// The environment variable holding the API key (sent as a bearer token; unset is fine
    /// for local servers).
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// The price of a million prompt tokens (any currency; with --price-out): each answer's
    /// `cost` is its tokens times the prices. Not part of the input hash: a rerun with other
    /// prices asks nothing again and reprices the run's rows.
    #[arg(
        long,
        value_name = "X",
        requires = "price_out",
        conflicts_with = "prices"
    )]
    pub price_in: Option<f64>,
    /// The price of a million completion tokens (reasoning tokens included; with
    /// --price-in).
    #[arg(
        long,
        value_name = "Y",
        requires = "price_in",
        conflicts_with = "prices"
    )]
    pub price_out: Option<f64>,
    /// Prices per model from a TOML file: a table per model name (the MODEL of
    /// `openai:MODEL@URL`, quoted when it holds dots) with `in` and `out`, per million
    /// prompt and completion tokens: `["qwen2.5-coder"]`, `in = 0.2`, `out = 0.6`.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Answers per task (sample 0 to N-1); each is asked and cached on its own.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub samples: u32,
    /// Sampling temperature sent to the model (and given to `command:` programs).
    #[arg(long, value_name = "T", default_value_t = 0.0)]
    pub temperature: f64,
    /// Most tokens an answer may have.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_tokens: u32,
    /// Sent as `"seed"` to the endpoint (and given to `command:` programs): sample i is
    /// asked with N + i, so samples at a temperature above 0 differ and can be drawn again.
    /// Without it no seed is sent (some endpoints refuse the field). Part of the input hash
    /// (and of the cache key), so changing it asks again.
    #[arg(long, value_name = "N")]
    pub seed: Option<u32>,
    /// A stop sequence sent as `"stop"` (repeatable, at most 4): replaces the completions
    /// endpoint's default stops; the chat endpoint gets none unless given.
    #[arg(
        long = "stop",
        value_name = "SEQ",
        allow_hyphen_values = true,
        long_help = stop_help()
    )]
    pub stops: Vec<String>,
    /// Send no stop sequence, not even the completions endpoint's defaults.
    #[arg(long, conflicts_with = "stops")]
    pub no_stop: bool,
    /// The system message of chat prompts instead of the family's (`@FILE`: the text of
    /// FILE; `''`: no system message).
    #[arg(
        long,
        value_name = "TEXT|@FILE",
        allow_hyphen_values = true,
        long_help = system_help()
    )]
    pub system: Option<String>,
    /// Where the system text goes: `system` (a system message) or `user` (the start of the
    /// user message, then a blank line; for models whose chat template has no system role).
    #[arg(long, value_enum, value_name = "ROLE", default_value_t = prompt::SystemRole::System)]
    pub system_role: prompt::SystemRole,
    /// Answers asked at once (threads, each making one request or running one program).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub concurrency: usize,
    /// Retries of a request after a 429, a 5xx or a transport error, with exponential
    /// backoff (or the server's Retry-After).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
    /// Seconds one request (or one run of a `command:` program) may take.
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    pub timeout: f64,
    /// The answer cache of `openai:` models (default: `$FRESHBENCH_CACHE/solve`, else
    /// `.cache/solve` in the working directory). Deleting it is safe.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Neither read nor write the answer cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Only this task (a `task_id` of `function_tasks`, `completion_tasks` or
    /// `assertion_tasks`); repeatable.
    #[arg(long = "task", value_name = "ID")]
    pub tasks: Vec<String>,
    /// Only the tasks listed in FILE: task ids one a line (blank lines and `#` comments
    /// ignored), besides those of --task.
    #[arg(long = "tasks", value_name = "FILE")]
    pub tasks_file: Option<PathBuf>,
    /// At most N tasks: the first N in task id order (after --task and --tasks, before
    /// --shard). Task ids are content hashes, so the same N tasks on every run and machine,
    /// whatever the tables' row order.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Only the tasks whose index in task id order is i-1 modulo n; the answers go to
    /// DIR/runs/RUN/candidates-i-of-n.parquet (join them with --merge-shards).
    #[arg(long, value_name = "i/n")]
    pub shard: Option<Shard>,
    /// Join the shard tables of the run (candidates-i-of-n.parquet, all n of them) into
    /// candidates.parquet, and ask nothing.
    #[arg(long, conflicts_with = "shard")]
    pub merge_shards: bool,
    /// Solve every ok task when DIR/validations.parquet is missing (normally `execute
    /// --validate` must have run).
    #[arg(long)]
    pub unvalidated: bool,
    /// Replace the run's table instead of resuming it (needed when it was made with
    /// another model spec). Cached answers are still used; see --no-cache.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub resume: ResumeArgs,
    /// The first retry's backoff in milliseconds (doubling up to a minute).
    #[arg(long, value_name = "MS", default_value_t = 1000, hide = true)]
    pub retry_base_ms: u64,
}

impl Args {
    fn check(&self) -> anyhow::Result<()> {
        check_run_name(&self.run)?;
        if self.samples == 0 {
            anyhow::bail!("--samples 0: give at least 1");
        }
        if self.concurrency == 0 {
            anyhow::bail!("--concurrency 0: give at least 1");
        }
        if self.max_tokens == 0 {
            anyhow::bail!("--max-tokens 0: give at least 1");
        }
        if self.prompt_budget < prompt::completion::OVERHEAD * 2 {
            anyhow::bail!(
                "--prompt-budget {}: give at least {}",
                self.prompt_budget,
                prompt::completion::OVERHEAD * 2
            );
        }
        if !self.temperature.is_finite() || self.temperature < 0.0 {
            anyhow::bail!("--temperature {}: give a number >= 0", self.temperature);
        }
        // A year at most: `Duration::from_secs_f64` takes no larger values.
        let max_secs = 365.0 * 86_400.0;
        if !(self.timeout > 0.0 && self.timeout <= max_secs) {
            anyhow::bail!(
                "--timeout {}: give a positive number of seconds",
                self.timeout
            );
        }
        if self.stops.len() > MAX_STOPS {
            anyhow::bail!(
                "--stop given {} times: OpenAI-compatible endpoints take at most {MAX_STOPS} stop sequences; give at most {MAX_STOPS} --stop options",
                self.stops.len()
            );
        }
        if self.stops.iter().any(String::is_empty) {
            anyhow::bail!("--stop '': an empty stop sequence; give a text to stop at, or --no-stop to send none");
        }
        Ok(())
    }

    /// The stop sequences to send instead of the prompt's (`None`: the prompt's; empty:
    /// none, `--no-stop`).
    fn stop(&self) -> Option<Vec<String>> {
        if self.no_stop {
            Some(Vec::new())
        } else if self.stops.is_empty() {
            None
        } else {
            Some(self.stops.clone())
        }
    }

    /// The `--system` text (`@FILE` read; a trailing newline of the file dropped).
    fn system_text(&self) -> anyhow::Result<Option<String>> {
        let Some(given) = &self.system else {
            return Ok(None);
        };
        let Some(file) = given.strip_prefix('@') else {
            return Ok(Some(given.clone()));
        };
        let text = std::fs::read_to_string(file).map_err(|e| {
            anyhow::anyhow!(
                "--system @{file}: cannot read {file} ({e}); give the path of a text file after `@`, or the system text itself"
            )
        })?;
        Ok(Some(text.trim_end_matches(['\n', '\r']).to_string()))
    }

    fn run_dir(&self) -> anyhow::Result<PathBuf> {
        Ok(self.common.data()?.join("runs").join(&self.run))
    }

    /// The table this invocation writes.
    fn out_path(&self) -> anyhow::Result<PathBuf> {
        let dir = self.run_dir()?;
        Ok(match self.shard {
            Some(s) => schemas::shards::shard_path::<Candidate>(&dir, s),
            None => schemas::table_path::<Candidate>(&dir),
        })
    }

    /// How prompts are made for `spec` (`Err`: options that do not go together).
    fn prompt_options(&self, spec: &Spec) -> anyhow::Result<prompt::Options> {
        let custom = Custom {
            prefix: self.fim_prefix.clone(),
            suffix: self.fim_suffix.clone(),
            middle: self.fim_middle.clone(),
            file_sep: self.fim_file_sep.clone(),
            order: self.fim_order,
        };
        let given = self.fim_preset.is_some() || !custom.is_empty();
        let (api, fim) = match spec {
            Spec::OpenAi {
                model, fim: true, ..
            } => {
                if self.api == Some(Api::Chat) {
                    anyhow::bail!("--api chat: `openai-fim:` models are asked on the completions endpoint; use `openai:{model}@URL` for the chat endpoint");
                }
                let preset = self.fim_preset.or_else(|| Preset::detect(model));
                let fim = Fim::resolve(preset, &custom).map_err(anyhow::Error::msg)?;
                let Some(fim) = fim else {
                    anyhow::bail!(
                        "--model openai-fim:{model}: the model's name suggests no FIM format; give --fim-preset (starcoder, codellama, deepseek, qwen, codestral) or --fim-prefix, --fim-suffix and --fim-middle"
                    );
                };
                (Api::Completions, Some(fim))
            }
            Spec::OpenAi { fim: false, .. } => {
                let api = self.api.unwrap_or(Api::Chat);
                let fim = Fim::resolve(self.fim_preset, &custom).map_err(anyhow::Error::msg)?;
                if api == Api::Chat && fim.is_some() {
                    anyhow::bail!("--fim-preset and --fim-*: fill-in-the-middle prompts are for the completions endpoint; add --api completions or give --model openai-fim:MODEL@URL");
                }
                (api, fim)
            }
            _ => {
                if given {
                    tracing::warn!(model = %spec, "--fim-* options apply to `openai:` models only; ignored");
                }
                (self.api.unwrap_or(Api::Chat), None)
            }
        };
        let openai = matches!(spec, Spec::OpenAi { .. });
        let system_given = self.system.is_some() || self.system_role != prompt::SystemRole::System;
        if system_given && !(openai && api == Api::Chat) {
            tracing::warn!(model = %spec, "--system and --system-role shape chat prompts of `openai:` models only; ignored");
        }
        if (self.no_stop || !self.stops.is_empty()) && !openai {
            tracing::warn!(model = %spec, "--stop and --no-stop are sent to `openai:` models only; ignored");
        }
        if self.seed.is_some() && !matches!(spec, Spec::OpenAi { .. } | Spec::Command { .. }) {
            tracing::warn!(model = %spec, "--seed is for `openai:` models and `command:` programs; ignored");
        }
        Ok(prompt::Options {
            api,
            fim,
            budget: self.prompt_budget,
            system: if openai { self.system_text()? } else { None },
            system_role: self.system_role,
        })
    }

    /// The hash of what produces an answer of `model` to `task`'s `sample` (a row is kept
    /// on a rerun only while it matches): for models asked over HTTP the prompt options
    /// (budget and FIM format of completion tasks) too; for `file:` answers the sha256 of
    /// the file (`file_sha256`), so a changed file gives new answers.
    fn input_hash(
        &self,
        spec: &Spec,
        opts: &prompt::Options,
        task: &Task,
        sample: u32,
        file_sha256: Option<&str>,
    ) -> String {
        let mut options = format!(
            "api={:?} temperature={} max_tokens={}",
            opts.api,
            self.temperature.to_bits(),
            self.max_tokens
        );
        let digest = opts.digest(task.family);
        if matches!(spec, Spec::OpenAi { .. }) && !digest.is_empty() {
            options.push(' ');
            options.push_str(&digest);
        }
        for extra in self.request_digest(spec, opts) {
            options.push(' ');
            options.push_str(&extra);
        }
        let spec_text = spec.to_string();
        let prompt_digest = task.prompt_digest();
        let sample = sample.to_le_bytes();
        let mut parts: Vec<&[u8]> = vec![
            b"candidate/2",
            BUILD_ID.as_bytes(),
            spec_text.as_bytes(),
            options.as_bytes(),
            task.task_id.as_bytes(),
            task.family.as_str().as_bytes(),
            task.prompt.as_bytes(),
            prompt_digest.as_bytes(),
            task.entry_point.as_bytes(),
            task.canonical_solution.as_bytes(),
            &sample,
        ];
        // What `memorized` answers from, though no prompt shows it.
        if let Some(a) = &task.assertion {
            parts.push(a.original_json.as_bytes());
        }
        // What `file:` answers come from.
        if let Some(sha) = file_sha256 {
            parts.push(sha.as_bytes());
        }
        schemas::id::content_id(&parts)
    }

    /// What shapes the answers of `spec` beside the prompt, as text for row hashes: the
    /// seed, the stops and the system text, each only when given (so rows made without them
    /// keep their hash) and only for the solvers that use it.
    fn request_digest(&self, spec: &Spec, opts: &prompt::Options) -> Vec<String> {
        let mut out = Vec::new();
        let openai = matches!(spec, Spec::OpenAi { .. });
        if let (Some(seed), true) = (self.seed, openai || matches!(spec, Spec::Command { .. })) {
            out.push(format!("seed={seed}"));
        }
        if openai {
            match self.stop() {
                Some(stops) if stops.is_empty() => out.push("stop=none".into()),
                Some(stops) => out.push(format!("stop={stops:?}")),
                None => {}
            }
            let system = opts.system_digest();
            if !system.is_empty() {
                out.push(system);
            }
        }
        out
    }

    fn cache(&self) -> Option<Cache> {
        if self.no_cache {
            return None;
        }
        Some(Cache::new(
            self.cache_dir
                .clone()
                .unwrap_or_else(|| schemas::cli::cache_root().join("solve")),
        ))
    }

    /// The solver of `spec`; `from_file` is the answers of a `file:` spec, read in [`run`].
    fn solver(
        &self,
        spec: &Spec,
        opts: &prompt::Options,
        from_file: Option<file::FileSolver>,
    ) -> Box<dyn Solver> {
        let timeout = Duration::from_secs_f64(self.timeout);
        match spec {
            Spec::Oracle => Box::new(Reference::Oracle),
            Spec::Null => Box::new(Reference::Null),
            Spec::Mutant => Box::new(Reference::Mutant),
            Spec::Memorized => Box::new(Reference::Memorized),
            Spec::OpenAi {
                model, base_url, ..
            } => Box::new(openai::OpenAi::new(
                openai::Config {
                    spec: spec.to_string(),
                    model: model.clone(),
                    base_url: base_url.clone(),
                    prompt: opts.clone(),
                    api_key: std::env::var(&self.api_key_env)
                        .ok()
                        .filter(|k| !k.trim().is_empty()),
                    temperature: self.temperature,
                    max_tokens: self.max_tokens,
                    seed: self.seed,
                    stop: self.stop(),
                    retries: self.retries,
                    timeout,
                    backoff: Backoff {
                        base: Duration::from_millis(self.retry_base_ms),
                        ..Backoff::default()
                    },
                },
                self.cache(),
            )),
            Spec::Command { program, args } => Box::new(command::CommandSolver {
                program: program.clone(),
                args: args.clone(),
                temperature: self.temperature,
                max_tokens: self.max_tokens,
                seed: self.seed,
                timeout,
            }),
            Spec::File { .. } => {
                Box::new(from_file.expect("a `file:` spec's answers are read before its solver"))
            }
        }
    }
}

type Key = (String, i32);

fn key_of(c: &Candidate) -> Key {
    (c.task_id.clone(), c.sample)
}

/// The rows of an earlier run of this table, after checking they are of the same model.
fn existing_rows(path: &Path, model: &str, force: bool) -> anyhow::Result<Vec<Candidate>> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    if force {
        tracing::info!(path = %path.display(), "--force: replacing the run's answers");
        return Ok(Vec::new());
    }
    let rows: Vec<Candidate> = schemas::read_table_from(path).with_context(|| {
        format!(
            "reading the answers of an earlier run in {}",
            path.display()
        )
    })?;
    if let Some(other) = rows.iter().find(|r| r.model != model) {
        anyhow::bail!(
            "{}: this run was made with model `{}`, not `{model}`; use a new --run name, or --force to replace its answers",
            path.display(),
            other.model
        );
    }
    Ok(rows)
}

fn save(path: &Path, rows: &BTreeMap<Key, Candidate>) -> anyhow::Result<()> {
    let rows: Vec<Candidate> = rows.values().cloned().collect();
    schemas::write_table_to(path, &rows)
        .with_context(|| format!("writing the answers to {}", path.display()))
}

fn candidate(
    run: &str,
    model: &str,
    task: &Task,
    sample: u32,
    input_hash: String,
    a: Answer,
    pricing: &Pricing,
) -> Candidate {
    let ok = a.is_ok();
    let cost = pricing.cost(a.tokens_in, a.tokens_out);
    Candidate {
        run: run.to_string(),
        task_id: task.task_id.clone(),
        family: task.family,
        sample: sample as i32,
        model: model.to_string(),
        prompt_hash: a.prompt_hash,
        answer: a.answer,
        raw: a.raw,
        status: if ok {
            AnswerStatus::Ok
        } else {
            AnswerStatus::Error
        },
        error: a.error,
        tokens_in: a.tokens_in,
        tokens_out: a.tokens_out,
        latency_ms: a.latency_ms,
        cost,
        input_hash,
    }
}

/// The stage.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    args.check()?;
    if args.merge_shards {
        return merge_shards(args);
    }
    let given = args.model.as_deref().unwrap_or_default();
    let spec: Spec = given.parse()?;
    let model = spec.to_string();
    let opts = args.prompt_options(&spec)?;
    let flat = args
        .price_in
        .zip(args.price_out)
        .map(|(input, output)| price::Price { input, output });
    let pricing = price::pricing(&spec, flat, args.prices.as_deref())?;
    let mut ids = args.tasks.clone();
    if let Some(file) = &args.tasks_file {
        ids.extend(task::read_ids(file)?);
    }
    let dir = args.common.data()?;
    let tasks = task::load(
        dir,
        &Selection {
            families: args.family,
            unvalidated: args.unvalidated,
            tasks: ids,
            limit: args.limit,
            shard: args.shard,
        },
    )?;
    // The mutant solver has no answer to an assertion task (its mutants are the mutated
    // tasks mask made): they are left out of its run, said so, not answered in error.
    let tasks = if matches!(spec, Spec::Mutant) {
        let before = tasks.len();
        let kept: Vec<Task> = tasks
            .into_iter()
            .filter(|t| t.family != Family::Assertion)
            .collect();
        if kept.len() < before {
            tracing::info!(
                assertion_tasks = before - kept.len(),
                "the mutant solver leaves out assertion tasks (their mutated programs are tasks of their own)"
            );
        }
        kept
    } else {
        tasks
    };
    let completions = tasks
        .iter()
        .filter(|t| t.family == Family::Completion)
        .count();
    if matches!(spec, Spec::OpenAi { .. })
        && opts.api == Api::Completions
        && opts.fim.is_none()
        && completions > 0
    {
        anyhow::bail!(
            "{completions} completion tasks and --api completions without a fill-in-the-middle format: give --fim-preset (or --fim-prefix, --fim-suffix and --fim-middle), use --api chat, or leave them out with --family function or --family assertion"
        );
    }
    // `file:` answers are read and bound to the tasks before anything is asked: a bad line
    // stops the run, and the file's sha256 is part of every answer's input hash.
    let from_file = match &spec {
        Spec::File { path } => Some(file::FileSolver::open(path, dir, &tasks, args.samples)?),
        _ => None,
    };
    let file_sha256 = from_file.as_ref().map(|f| f.sha256().to_string());
    let path = args.out_path()?;
    let mut rows: BTreeMap<Key, Candidate> = existing_rows(&path, &model, args.force)?
        .into_iter()
        .map(|c| (key_of(&c), c))
        .collect();
    // Prices are not in the input hash: rows kept from an earlier run cost what this run's
    // prices say (the answers asked now get theirs as they come).
    if pricing.is_given() {
        for c in rows.values_mut() {
            c.cost = pricing.cost(c.tokens_in, c.tokens_out);
        }
    }
    let wanted: Vec<(&Task, u32, String)> = tasks
        .iter()
        .flat_map(|t| (0..args.samples).map(move |s| (t, s)))
        .map(|(t, s)| {
            let hash = args.input_hash(&spec, &opts, t, s, file_sha256.as_deref());
            (t, s, hash)
        })
        .collect();
    // Kept: an answer made from exactly this (model, options, prompt, sample, build).
    let keep = |c: &Candidate, hash: &str| c.status == AnswerStatus::Ok && c.input_hash == hash;
    let kept = wanted
        .iter()
        .filter(|(t, s, h)| {
            rows.get(&(t.task_id.clone(), *s as i32))
                .is_some_and(|c| keep(c, h))
        })
        .count();
    let jobs: Vec<(&Task, u32, String)> = wanted
        .iter()
        .filter(|(t, s, h)| {
            rows.get(&(t.task_id.clone(), *s as i32))
                .is_none_or(|c| !keep(c, h))
        })
        .cloned()
        .collect();
    tracing::info!(
        run = %args.run,
        model = %model,
        tasks = tasks.len(),
        completion_tasks = completions,
        assertion_tasks = tasks.iter().filter(|t| t.family == Family::Assertion).count(),
        samples = args.samples,
        kept,
        to_ask = jobs.len(),
        concurrency = args.concurrency,
        "solving"
    );
    if tasks.is_empty() {
        tracing::warn!("no task to solve: the task tables have no ok (and valid) task selected");
    }

    let solver = args.solver(&spec, &opts, from_file);
    let bar = schemas::cli::progress(&args.common, jobs.len() as u64, "answers");
    let mut checkpoint = args.resume.checkpoint()?;
    let mut save_error: Option<anyhow::Error> = None;
    let (mut asked, mut cached) = (0usize, 0usize);
    let fatal = schemas::pool::stream(
        &jobs,
        args.concurrency,
        || (),
        |(), (task, sample, _)| solver.solve(task, *sample),
        |i, a| {
            let (task, sample, hash) = &jobs[i];
            bar.inc(1);
            if a.cached {
                cached += 1;
            } else {
                asked += 1;
            }
            if let Some(e) = &a.error {
                tracing::debug!(task = %task.task_id, sample, error = %e, "no answer");
            }
            let c = candidate(&args.run, &model, task, *sample, hash.clone(), a, &pricing);
            rows.insert(key_of(&c), c);
            if checkpoint.due() {
                if let Err(e) = save(&path, &rows) {
                    save_error = Some(e);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        },
    );
    bar.finish_and_clear();
    if let Some(e) = save_error {
        return Err(e);
    }
    save(&path, &rows)?;
    if let Err(e) = fatal {
        return Err(e.context(format!(
            "the model could not be asked; the answers so far are saved in {}, rerun to complete the rest",
            path.display()
        )));
    }
    let selected: Vec<&Candidate> = wanted
        .iter()
        .filter_map(|(t, s, _)| rows.get(&(t.task_id.clone(), *s as i32)))
        .collect();
    let errors: Vec<&Candidate> = selected
        .iter()
        .copied()
        .filter(|c| c.status != AnswerStatus::Ok)
        .collect();
    summary(&Summary {
        path: &path,
        model: &model,
        tasks: tasks.len(),
        answers: selected.len(),
        errors: &errors,
        kept,
        asked,
        cached,
        totals: Totals::of(&selected),
        price_hint: pricing == Pricing::Unknown && matches!(spec, Spec::OpenAi { .. }),
    })
    .context("printing the summary")?;
    Ok(if errors.is_empty() && !tasks.is_empty() {
        Outcome::Success
    } else {
        Outcome::Lacking
    })
}

struct Summary<'a> {
    path: &'a Path,
    model: &'a str,
    tasks: usize,
    answers: usize,
    errors: &'a [&'a Candidate],
    kept: usize,
    asked: usize,
    cached: usize,
    totals: Totals,
    /// No price was given for a model that reports tokens: the summary says how to give one.
    price_hint: bool,
}

/// The tokens and cost of a run's answers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Totals {
    /// `ok` answers.
    ok: usize,
    tokens_in: i64,
    tokens_out: i64,
    /// `ok` answers with both token counts.
    counted: usize,
    cost: f64,
    /// `ok` answers with a cost.
    priced: usize,
}

impl Totals {
    fn of(rows: &[&Candidate]) -> Totals {
        let mut t = Totals::default();
        for c in rows {
            t.tokens_in += c.tokens_in.unwrap_or(0);
            t.tokens_out += c.tokens_out.unwrap_or(0);
            t.cost += c.cost.unwrap_or(0.0);
            if c.status == AnswerStatus::Ok {
                t.ok += 1;
                t.counted += usize::from(c.tokens_in.is_some() && c.tokens_out.is_some());
                t.priced += usize::from(c.cost.is_some());
            }
        }
        t
    }

    /// `N tokens in, M out, cost C`, with what is missing said.
    fn describe(&self, price_hint: bool) -> String {
        let tokens = if self.counted == 0 && self.tokens_in == 0 && self.tokens_out == 0 {
            "no token counts".to_string()
        } else if self.counted < self.ok {
            format!(
                "{} tokens in, {} out ({} answers without token counts)",
                self.tokens_in,
                self.tokens_out,
                self.ok - self.counted
            )
        } else {
            format!("{} tokens in, {} out", self.tokens_in, self.tokens_out)
        };
        let cost = if self.priced == 0 {
            if price_hint {
                "cost unknown (give --price-in and --price-out, or --prices)".to_string()
            } else {
                "cost unknown".to_string()
            }
        } else if self.priced < self.ok {
            format!(
                "cost {:.6} ({} answers without one)",
                self.cost,
                self.ok - self.priced
            )
        } else {
            format!("cost {:.6}", self.cost)
        };
        format!("{tokens}, {cost}")
    }
}

fn summary(s: &Summary<'_>) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "solve: {} answers of `{}` to {} tasks: {} ok, {} error; {} kept from an earlier run, {} from the cache, {} asked; {}",
        s.answers,
        s.model,
        s.tasks,
        s.answers - s.errors.len(),
        s.errors.len(),
        s.kept,
        s.cached,
        s.asked,
        s.totals.describe(s.price_hint)
    )?;
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for c in s.errors {
        let r: String = c.error.as_deref().unwrap_or("").chars().take(120).collect();
        *reasons.entry(r).or_default() += 1;
    }
    let mut reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (r, n) in reasons.iter().take(5) {
        writeln!(out, "  {n:>5} x {r}")?;
    }
    if !s.errors.is_empty() {
        writeln!(
            out,
            "  rerun the same command to ask again for the answers in error"
        )?;
    }
    writeln!(out, "  wrote {}", s.path.display())?;
    Ok(())
}

/// `--merge-shards`: the complete set of the run's shard tables joined into
/// `candidates.parquet` (an incomplete or inconsistent set is refused, nothing deleted).
fn merge_shards(args: &Args) -> anyhow::Result<Outcome> {
    let run_dir = args.run_dir()?;
    let given = args
        .model
        .as_deref()
        .map(|m| m.parse::<Spec>().map(|s| s.to_string()))
        .transpose()?;
    let path = schemas::table_path::<Candidate>(&run_dir);
    let set = schemas::shards::merge::<Candidate, _>(&run_dir, key_of, |set| {
        let models: BTreeSet<&str> = set.rows.iter().map(|c| c.model.as_str()).collect();
        if models.len() > 1 {
            anyhow::bail!(
                "{}: the shards were made with different models ({}); rerun the odd ones (nothing was merged or deleted)",
                run_dir.display(),
                models.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        if let (Some(model), Some(given)) = (models.first(), &given) {
            if model != given {
                anyhow::bail!("the shards were made with model `{model}`, not `{given}`");
            }
        }
        if let Some(model) = models.first() {
            existing_rows(&path, model, args.force)?;
        }
        Ok(())
    })?;
    let model = set.rows.first().map_or("", |c| c.model.as_str());
    let errors = set
        .rows
        .iter()
        .filter(|c| c.status != AnswerStatus::Ok)
        .count();
    writeln!(
        std::io::stdout().lock(),
        "solve: merged {} shards: {} answers of `{model}`, {errors} error; wrote {}",
        set.count,
        set.rows.len(),
        path.display()
    )?;
    Ok(if errors == 0 {
        Outcome::Success
    } else {
        Outcome::Lacking
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_is_consistent() {
        use clap::CommandFactory as _;
        Args::command().debug_assert();
    }
}
