//! `slice`: the difficulty of every valid task, from the dynamic slice of the execution
//! that judges it.
//!
//! Reads the tasks of every family (`function_tasks` and `test_cases`, `completion_tasks`,
//! `assertion_tasks`) and `validations` (only valid tasks are sliced), and writes `slices`:
//! per task, ESV (reading load), MCL (simulation depth), DFI (integration width), the
//! files, modules and functions of the slice, the inputs counted, the tracer's cost against
//! the same runs without it, and a status (`ok`, `timeout`, `too_large`, `untraceable`).
//!
//! The code runs where all repository code runs: in execute's sandboxed workers, whose
//! runner traces it (`stages/execution/python/slicer.py`: `sys.settrace`, data dependences
//! from the bytecode's loads and stores, control dependences from the enclosing branches,
//! the backward slice computed in the worker). [`trace`] builds the requests per family and
//! [`figures`] turns the worker's reports into the figures. The definitions are in
//! `schemas/TABLES.md` and ARCHITECTURE.md.
//!
//! Resumable: a rerun keeps a row when the hash of what made it (the task's validation,
//! the options, this build and execute's) is unchanged; rows are checkpointed every few
//! seconds. A task whose worker could not start (the harness's failure) gets no row and
//! makes the run lacking (exit 1); a rerun slices it.

pub mod figures;
pub mod trace;

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser;
use execute::evaluate::{self, EvalOptions, Item};
use execute::tasks::{CodeRef, Interpreters};
use schemas::cli::{CommonArgs, Outcome as StageOutcome, ResumeArgs};
use schemas::{Family, Slice, SliceStatus, Validation};

use crate::trace::{TraceOptions, Traced};

/// A hash of this crate's code, recorded at build time.
pub const BUILD_ID: &str = env!("FRESHBENCH_BUILD_ID");

/// Trace every valid task's judged execution in the sandbox and write `slices`: its
/// dynamic slice's ESV (reading load), MCL (simulation depth) and DFI (integration width).
#[derive(Debug, Parser)]
#[command(name = "slice", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub env: execute::env::EnvArgs,
    /// Tasks traced in parallel (each thread runs its own workers).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Statement executions traced per unit (a case or a test); more makes the task
    /// `too_large` (its figures would not be exact).
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    pub max_events: u64,
    /// Wall-clock and CPU seconds of one traced run (a case, or a task's tests); more is
    /// `timeout`.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub timeout: u64,
    /// Address space of the code's process, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub memory_mb: u64,
    /// At most this many of a completion task's judge tests are traced, evenly spread over
    /// them (a task of click can have over a thousand); the row says how many were.
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub max_units: usize,
    /// Only tasks of this family (`function`, `completion`, `assertion`); repeatable.
    #[arg(long = "family", value_name = "FAMILY")]
    pub families: Vec<Family>,
    /// Only this task (its `task_id`); repeatable.
    #[arg(long = "task", value_name = "ID")]
    pub tasks: Vec<String>,
    /// Slice again the tasks that already have a row made from the same inputs.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub backend: execution::BackendArgs,
    /// Don't build environments: tasks that need one get no row (the run is lacking).
    #[arg(long)]
    pub no_envs: bool,
    #[command(flatten)]
    pub resume: ResumeArgs,
}

/// A unit of work: a task, or the tasks of one assertion on one program (one trace).
struct Work<'a> {
    first: Item<'a>,
    ids: Vec<&'a str>,
    hash: String,
}

/// The stage.
pub fn run(args: &Args) -> anyhow::Result<StageOutcome> {
    if args.jobs == 0 {
        anyhow::bail!("--jobs 0: give at least 1");
    }
    if args.timeout == 0 || args.max_events == 0 || args.max_units == 0 {
        anyhow::bail!("--timeout, --max-events and --max-units must be at least 1");
    }
    let dir = args.common.data()?;
    if !schemas::table_exists::<Validation>(dir) {
        anyhow::bail!(
            "{} has no validations.parquet: run `execute --data {} --validate` first (only valid tasks are sliced)",
            dir.display(),
            dir.display()
        );
    }
    let validations: Vec<Validation> =
        schemas::read_table(dir).context("reading the validations")?;
    let mut valid: HashMap<&str, &Validation> = HashMap::new();
    let mut invalid: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for v in &validations {
        if v.valid {
            valid.insert(v.task_id.as_str(), v);
        } else {
            invalid.insert(v.task_id.as_str());
        }
    }
    let loaded = evaluate::load_tasks(dir)?;
    let topts = TraceOptions {
        max_events: args.max_events,
        timeout: Duration::from_secs(args.timeout),
        memory_bytes: args.memory_mb.saturating_mul(1 << 20),
        max_units: args.max_units,
    };
    let chosen = |i: &Item<'_>| {
        let id = i.task_id();
        valid.contains_key(id)
            && !invalid.contains(id)
            && (args.families.is_empty() || args.families.contains(&i.family()))
            && (args.tasks.is_empty() || args.tasks.iter().any(|t| t == id))
    };
    let items: Vec<Item<'_>> = loaded.items().filter(chosen).collect();
    let work = group(&items, &valid, &topts);
    let hashes: HashMap<&str, &str> = work
        .iter()
        .flat_map(|w| w.ids.iter().map(|id| (*id, w.hash.as_str())))
        .collect();

    let old: Vec<Slice> = if !args.force && schemas::table_exists::<Slice>(dir) {
        schemas::read_table(dir).context("reading the slices written before")?
    } else {
        Vec::new()
    };
    let narrowed = !args.families.is_empty() || !args.tasks.is_empty();
    // Kept: rows made from the same inputs; with --family or --task, also the rows of the
    // tasks not asked for (still valid), so a partial run adds to the table.
    let mut done: BTreeMap<String, Slice> = old
        .into_iter()
        .filter(|s| match hashes.get(s.task_id.as_str()) {
            Some(h) => *h == s.input_hash && args.backend.made(s.isolation),
            None => narrowed && valid.contains_key(s.task_id.as_str()),
        })
        .map(|s| (s.task_id.clone(), s))
        .collect();
    let todo: Vec<&Work<'_>> = work
        .iter()
        .filter(|w| w.ids.iter().any(|id| !done.contains_key(*id)))
        .collect();
    let kept = hashes.len() - todo.iter().map(|w| w.ids.len()).sum::<usize>();
    tracing::info!(
        tasks = hashes.len(),
        already_done = kept,
        traces = todo.len(),
        "slicing tasks"
    );

    let python = args.env.interpreter();
    let envs = (!args.no_envs).then(|| args.env.config());
    let refs: Vec<CodeRef<'_>> = todo
        .iter()
        .filter_map(|w| match w.first {
            Item::Function(t) => Some((&t.task).into()),
            _ => None,
        })
        .collect();
    let mut interp = Interpreters::plan(dir, &refs, python.clone())?;
    interp.build(&refs, envs.clone())?;
    let repo_ids = evaluate::repos_of(todo.iter().map(|w| w.first));
    let repos = execute::completion::repo_workers(dir, &repo_ids, envs.as_ref())?;
    let eval = EvalOptions {
        time: None,
        jobs: args.jobs,
        judge: execute::tasks::JudgeOptions::default(),
        force: args.force,
        backend: args.backend.clone(),
        python,
        envs,
        shard: None,
        resume: args.resume,
        completion: execute::completion::CompletionOptions::default(),
    };

    let bar = schemas::cli::progress(&args.common, todo.len() as u64, "traces");
    let mut checkpoint = args.resume.checkpoint()?;
    let save = |done: &BTreeMap<String, Slice>| -> anyhow::Result<()> {
        let rows: Vec<Slice> = done.values().cloned().collect();
        schemas::write_table(dir, &rows).context("writing slices")?;
        Ok(())
    };
    let mut infra: Vec<String> = Vec::new();
    let result = evaluate::parallel(
        &eval,
        &repos,
        &todo,
        |workers, w| {
            let traced = match w.first {
                Item::Function(t) => trace::function(workers, &interp, t, &topts)?,
                Item::Completion(t) => trace::completion(workers, t, &topts)?,
                Item::Assertion(t) => trace::assertion(workers, t, &topts)?,
            };
            Ok((*w, traced))
        },
        |(w, traced): (&Work<'_>, Traced)| {
            bar.inc(1);
            if let Some(why) = &traced.infra {
                infra.push(format!("{}: {why}", w.first.task_id()));
            } else {
                for id in &w.ids {
                    done.insert((*id).to_string(), row(id, w, &traced, &topts));
                }
            }
            if checkpoint.due() {
                if let Err(e) = save(&done) {
                    tracing::warn!(error = %e, "checkpoint failed");
                }
            }
        },
    );
    bar.finish_and_clear();
    // Rows of tasks that are no longer valid go.
    done.retain(|id, _| valid.contains_key(id.as_str()));
    save(&done)?;
    result.context("no worker may start; the slices made so far are saved")?;
    let rows: Vec<&Slice> = done.values().collect();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} valid tasks: {kept} slices kept from an earlier run, {} traces run",
        hashes.len(),
        todo.len()
    )?;
    summary(&mut out, &rows, &hashes)?;
    if !infra.is_empty() {
        writeln!(
            out,
            "{} traces could not run (the harness failed); rerun the same command to slice them; first: {}",
            infra.len(),
            infra[0]
        )?;
    }
    let none_ok = !rows.is_empty() && rows.iter().all(|r| r.status != SliceStatus::Ok);
    Ok(if infra.is_empty() && !none_ok {
        StageOutcome::Success
    } else {
        StageOutcome::Lacking
    })
}

/// One trace per task, except the tasks of one assertion on one program (value and verify
/// forms), which share theirs.
fn group<'a>(
    items: &[Item<'a>],
    valid: &HashMap<&str, &Validation>,
    opts: &TraceOptions,
) -> Vec<Work<'a>> {
    let mut out: Vec<Work<'a>> = Vec::new();
    let mut programs: HashMap<(&str, Option<&str>), usize> = HashMap::new();
    for item in items {
        let id = item.task_id();
        if let Item::Assertion(t) = item {
            let key = (t.group_id.as_str(), t.mutant_id.as_deref());
            if let Some(&i) = programs.get(&key) {
                out[i].ids.push(id);
                continue;
            }
            programs.insert(key, out.len());
        }
        out.push(Work {
            first: *item,
            ids: vec![id],
            hash: String::new(),
        });
    }
    for w in &mut out {
        // The program's hash: its first task's validation (task, cases, placement, build)
        // and the options; every task of the program shares it.
        let v = valid[w.first.task_id()];
        w.hash = schemas::id::content_id(&[
            b"slice/1",
            BUILD_ID.as_bytes(),
            execute::BUILD_ID.as_bytes(),
            w.first.task_id().as_bytes(),
            v.input_hash.as_bytes(),
            &opts.max_events.to_le_bytes(),
            &opts.timeout.as_secs().to_le_bytes(),
            &opts.memory_bytes.to_le_bytes(),
            &(opts.max_units as u64).to_le_bytes(),
        ]);
    }
    out
}

/// The row of task `id` from its program's trace.
fn row(id: &str, w: &Work<'_>, t: &Traced, opts: &TraceOptions) -> Slice {
    let family = w.first.family();
    let (status, reason) = trace::status(t);
    let f = figures::figures(&t.units, family);
    let ok = status == SliceStatus::Ok;
    let f = if ok { f } else { None };
    let events: u64 = t.units.iter().map(|u| u.events).sum();
    Slice {
        task_id: id.to_string(),
        family,
        status,
        reason,
        esv: f.as_ref().map(|f| f.esv),
        mcl: f.as_ref().map(|f| f.mcl),
        depth: f.as_ref().map(|f| f.depth),
        dfi: f.as_ref().map(|f| f.dfi),
        files: f.as_ref().map(|f| f.files),
        modules: f.as_ref().map(|f| f.modules),
        functions: f.as_ref().map(|f| f.functions),
        module_statements: f.as_ref().map(|f| f.module_statements),
        slice_functions: f
            .as_ref()
            .map(|f| f.slice_functions.clone())
            .unwrap_or_default(),
        slice_files: f
            .as_ref()
            .map(|f| f.slice_files.clone())
            .unwrap_or_default(),
        inputs: f.map(|f| f.inputs).unwrap_or_default(),
        units: t.planned as i32,
        units_ok: t
            .units
            .iter()
            .filter(|u| u.status == execution::UnitStatus::Ok)
            .count() as i32,
        events: i64::try_from(events).unwrap_or(i64::MAX),
        event_cap: i64::try_from(opts.max_events).unwrap_or(i64::MAX),
        trace_seconds: t.trace_seconds,
        plain_seconds: t.plain_seconds,
        tracer: t
            .units
            .first()
            .map_or_else(|| "settrace".into(), |u| u.tracer.clone()),
        isolation: t.isolation,
        input_hash: w.hash.clone(),
    }
}

/// Per family: tasks, sliced, statuses, the figures' medians and the tracer's cost.
fn summary(
    out: &mut impl std::io::Write,
    rows: &[&Slice],
    wanted: &HashMap<&str, &str>,
) -> std::io::Result<()> {
    for family in [Family::Function, Family::Completion, Family::Assertion] {
        let mine: Vec<&Slice> = rows
            .iter()
            .copied()
            .filter(|r| r.family == family)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let ok: Vec<&Slice> = mine
            .iter()
            .copied()
            .filter(|r| r.status == SliceStatus::Ok)
            .collect();
        writeln!(
            out,
            "sliced {} {family} tasks: {} ok ({:.1}%)",
            mine.len(),
            ok.len(),
            100.0 * ok.len() as f64 / mine.len() as f64
        )?;
        let mut statuses: BTreeMap<&str, usize> = BTreeMap::new();
        for r in mine.iter().filter(|r| r.status != SliceStatus::Ok) {
            *statuses.entry(r.status.as_str()).or_default() += 1;
        }
        for (s, n) in statuses {
            writeln!(out, "  {s:<12} {n}")?;
        }
        if !ok.is_empty() {
            let med = |mut v: Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            writeln!(
                out,
                "  median ESV {} MCL {} DFI {} depth {}; tracer cost median {:.1}x the plain runs",
                med(ok.iter().map(|r| f64::from(r.esv.unwrap_or(0))).collect()),
                med(ok.iter().map(|r| r.mcl.unwrap_or(0) as f64).collect()),
                med(ok.iter().map(|r| f64::from(r.dfi.unwrap_or(0))).collect()),
                med(ok.iter().map(|r| f64::from(r.depth.unwrap_or(0))).collect()),
                med(ok
                    .iter()
                    .map(|r| r.trace_seconds / r.plain_seconds.max(1e-6))
                    .collect()),
            )?;
        }
    }
    let missing = wanted
        .keys()
        .filter(|id| !rows.iter().any(|r| r.task_id == **id))
        .count();
    if missing > 0 {
        writeln!(out, "{missing} valid tasks have no slice yet")?;
    }
    Ok(())
}
