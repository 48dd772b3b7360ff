//! `classify`: sorts every function that `resolve` found into the classes of `Code2Bench`.
//!
//! Reads `functions` and `references` from the dataset directory and writes
//! `classifications`: per function, `self_contained` (only its parameters, builtins and
//! names it defines), `weakly_self_contained` (also allow-listed libraries),
//! `repo_dependent` (uses code of its repository: the material of completion and
//! assertion tasks) or `rejected`, with every reason that applies. The allow-list, the
//! effects, the transparent decorators, the generatable types and the limits live in a
//! TOML config ([`config`]); the rules are in [`rules`]. `synthesize-tests` reads the
//! result.

pub mod config;
pub mod rules;
pub mod shape;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use std::io::Write as _;

use anyhow::Context as _;
use clap::Parser;
use schemas::cli::{CommonArgs, Outcome};
use schemas::{Classification, Function, Reference};

pub use config::Config;
pub use rules::{classify, Class, Verdict};

/// Sort functions into self-contained, weakly self-contained, repo-dependent and rejected.
#[derive(Debug, Parser)]
#[command(name = "classify", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// A TOML config whose tables replace the built-in ones of the same name (allow-list,
    /// effects, decorators, types, limits); see stages/classify/classify.toml.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the built-in config and exit (no --data needed).
    #[arg(long)]
    pub print_default_config: bool,
}

/// Classifies every function; pure, for tests and other stages.
pub fn classify_all(
    config: &Config,
    functions: &[Function],
    references: &[Reference],
) -> Vec<Classification> {
    let mut by_function: HashMap<&str, Vec<&Reference>> = HashMap::new();
    for r in references {
        by_function
            .entry(r.function_id.as_str())
            .or_default()
            .push(r);
    }
    let hash = config.hash();
    functions
        .iter()
        .map(|f| {
            let refs = by_function
                .get(f.function_id.as_str())
                .map_or(&[][..], Vec::as_slice);
            let v = classify(config, f, refs);
            Classification {
                function_id: f.function_id.clone(),
                repo_id: f.repo_id.clone(),
                class: v.class,
                reasons: v.reasons,
                libraries: v.libraries,
                internal_deps: v.internal_deps,
                config_hash: hash.clone(),
            }
        })
        .collect()
}

/// The stage: read, classify, write, summarize on stdout.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    if args.print_default_config {
        std::io::stdout()
            .write_all(config::DEFAULT_CONFIG.as_bytes())
            .context("printing the config")?;
        return Ok(Outcome::Success);
    }
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::builtin(),
    };
    let dir = args.common.data()?;
    let functions: Vec<Function> =
        schemas::read_table(dir).context("reading the functions found by resolve")?;
    let references: Vec<Reference> =
        schemas::read_table(dir).context("reading the references found by resolve")?;
    tracing::info!(functions = functions.len(), references = references.len(), config = %config.hash(), "classifying");
    let rows = classify_all(&config, &functions, &references);
    let path = schemas::write_table(dir, &rows).context("writing classifications")?;
    tracing::info!(path = %path.display(), rows = rows.len(), "wrote");
    print_summary(&rows).context("printing the summary")?;
    Ok(Outcome::Success)
}

fn print_summary(rows: &[Classification]) -> std::io::Result<()> {
    // writeln!, not println!: a closed pipe (`| head`) must end the stage quietly.
    let mut out = std::io::stdout().lock();
    let mut by_class: BTreeMap<Class, usize> = BTreeMap::new();
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows {
        *by_class.entry(r.class).or_default() += 1;
        if r.class == Class::Rejected {
            for reason in &r.reasons {
                // The family of a reason: `side_effect:io:builtins.print` -> `side_effect:io`.
                let family: Vec<&str> = reason.split(':').take(2).collect();
                let key = if reason.starts_with("side_effect:") {
                    family.join(":")
                } else {
                    family[0].to_string()
                };
                *by_reason.entry(key).or_default() += 1;
            }
        }
    }
    writeln!(out, "classified {} functions", rows.len())?;
    for class in Class::ALL {
        writeln!(
            out,
            "  {:<22} {:>7}",
            class.as_str(),
            by_class.get(class).copied().unwrap_or(0)
        )?;
    }
    if !by_reason.is_empty() {
        let mut reasons: Vec<_> = by_reason.into_iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        writeln!(out, "rejection reasons (a function may have several):")?;
        for (reason, n) in reasons {
            writeln!(out, "  {reason:<34} {n:>7}")?;
        }
    }
    Ok(())
}
