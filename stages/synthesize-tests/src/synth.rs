//! One function from start to rows: its parameters' types, the search, the minimal test
//! set, the determinism re-check, the mutation score, the gates and the task's text.
//!
//! The function's observed calls ([`crate::observed`]) that fit its entry point seed the
//! search and give its parameters their types; a case from one of them (or a mutation of
//! one) is a `test_cases` row with `from_observed`. A task's `config_hash` is
//! [`config_hash`]: the options' hash, and the digest of the observed rows when there are.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use execution::ExecError;
use execution::{Batch, Limits};
use schemas::id::content_id;
use schemas::{
    Function, FunctionClass, FunctionTask, ObservedCall, ParamKind, PromptKind, Reference,
    SearchStop, TaskStatus, TestCase,
};

use crate::doc::doc_types;
use crate::exec::{self, Original};
use crate::literal::parse_literal;
use crate::pyval::PyVal;
use crate::search::{Arc, Budget, CallResult, Case, Found, ParamSpec, Search};
use crate::strategy::Pool;
use crate::task;
use crate::types::{of_value, parse_annotation, Ty};
use crate::usage::{self, Analysis};

/// What shapes a task besides the function itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub budget: Budget,
    /// At most this many cases per task (edge cases included).
    pub max_cases: usize,
    /// At most this many mutants per task (0: no mutation score).
    pub mutants: usize,
    /// A task needs at least this share of its arcs covered.
    pub min_coverage: f64,
    /// A task needs at least this mutation score (when it has mutants).
    pub min_mutation_score: f64,
    /// Limits of one call of the original.
    pub limits: Limits,
    /// The interpreter standard-library functions run on.
    pub python: std::path::PathBuf,
    /// Mixed into each function's search seed (`--seed`; 0: the function id's hash alone).
    pub seed: u64,
}

impl Options {
    /// A hash of everything here that changes the rows, and of the code that makes them
    /// ([`crate::BUILD_ID`]): a task made by another build of freshbench is made again.
    pub fn hash(&self) -> String {
        let b = &self.budget;
        let text = format!(
            "calls={} stall={} edge_calls={} edge_cases={} shrink={} reservoir={} max_cases={} mutants={} min_cov={} min_ms={} wall={:?} mem={} python={}",
            b.calls, b.stall, b.edge_calls, b.edge_cases, b.shrink_calls, b.reservoir, self.max_cases, self.mutants,
            self.min_coverage, self.min_mutation_score, self.limits.wall, self.limits.memory_bytes,
            self.python.display()
        );
        // Seed 0 leaves the text, and so the hash, as it was before there was a seed.
        let text = if self.seed == 0 {
            text
        } else {
            format!("{text} seed={}", self.seed)
        };
        content_id(&[
            b"synthesize-tests/2",
            crate::BUILD_ID.as_bytes(),
            text.as_bytes(),
        ])
    }
}

/// The `config_hash` of a function's task: [`Options::hash`] alone when the search had no
/// observed rows (none recorded, or `--no-observed`), else that and the rows' digest
/// ([`crate::observed::digest`]): a task is made again when its observations change or
/// observed seeds are switched on or off for it.
pub fn config_hash(opts: &Options, observed: &[ObservedCall]) -> String {
    match crate::observed::digest(observed) {
        None => opts.hash(),
        Some(d) => content_id(&[
            b"synthesize-tests/observed",
            opts.hash().as_bytes(),
            d.as_bytes(),
        ]),
    }
}

/// The two workers a function's synthesis uses.
pub struct Batches<'a> {
    /// Search and mutants (hash seed 0).
    pub primary: Batch<'a>,
    /// The determinism re-check (another hash seed, a fresh process per case).
    pub recheck: Batch<'a>,
}

/// The task and its cases.
pub struct Synthesized {
    pub task: FunctionTask,
    pub cases: Vec<TestCase>,
}

/// A parameter's type from the best evidence there is: its annotation, the types of the
/// values the repository's tests passed it (`observed`, [`crate::observed::observed_types`]:
/// added to an annotation, and joined by the best guess, since tests pass what they thought
/// of and a guess may see more: an iterator where the tests gave lists), its default value,
/// the docstring, how the body uses it; a mixture of common types when none says anything.
pub fn param_specs(
    f: &Function,
    analysis: &Analysis,
    observed: &BTreeMap<String, Ty>,
) -> Vec<ParamSpec> {
    let names: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let docs = f
        .docstring
        .as_deref()
        .map(|d| doc_types(d, &names))
        .unwrap_or_default();
    let mut specs: Vec<ParamSpec> = f
        .params
        .iter()
        .map(|p| {
            let kind = p.kind;
            let annotated = p
                .annotation
                .as_deref()
                .map(|a| parse_annotation(a).prune())
                .filter(|t| *t != Ty::Any && t.generatable());
            let default = p.default.as_deref().map(parse_literal);
            let default_none = matches!(default, Some(Some(PyVal::None)));
            let from_default = match &default {
                Some(Some(v)) if *v != PyVal::None => Some(of_value(v)),
                _ => None,
            };
            let seen = observed.get(&p.name).filter(|t| t.generatable()).cloned();
            let annotated = match (annotated, &seen) {
                (Some(t), Some(s)) => Some(Ty::Union(vec![t, s.clone()]).flatten()),
                (a, _) => a,
            };
            let var_positional = kind == ParamKind::VarPositional;
            // How a loop over it uses its items (`for f in funcs: f(x)`).
            let items = analysis.ty_of(&format!("{}[]", p.name));
            let items_used = items.clone();
            let used = analysis.ty_of(&p.name);
            // How a loop over a dict's values uses them (`for k, v in d.items()`).
            let used = match (used, analysis.ty_of(&format!("{}{{}}", p.name))) {
                (Some(t), Some(v)) => Some(t.with_value(&v)),
                (t, _) => t,
            };
            let used = if var_positional {
                // The uses of `*args` are of the tuple; its values are its items.
                items
                    .or_else(|| used.map(Ty::item))
                    .filter(|t| *t != Ty::Any)
            } else {
                match (used, &items) {
                    (Some(t), Some(i)) => Some(t.with_item(i)),
                    (t, _) => t,
                }
            };
            let evidence = analysis.evidence.get(&p.name);
            // A body that checks the type with `isinstance` takes more than one: what its
            // uses say joins the default's type (`escapes="eol"`, then `if
            // isinstance(escapes, str): ...` and `escapes.keys()` for a mapping).
            let guess = match (from_default, used) {
                (Some(d), Some(u)) if evidence.is_some_and(|e| !e.isinstance.is_empty()) => {
                    Some(Ty::Union(vec![d, u]).flatten())
                }
                (d, u) => d.or_else(|| docs.get(&p.name).cloned()).or(u),
            };
            let guessed = match (seen, guess) {
                (Some(s), Some(g)) => Some(Ty::Union(vec![s, g]).flatten()),
                (s, g) => s.or(g),
            };
            let ty = match (annotated, guessed) {
                // Types the body checks with `isinstance` are generated too, even beyond the
                // annotation: the branch is there to be taken.
                (Some(t), _) => {
                    // `Iterable[Any]` with its items used as text (`for a in aligns: if a
                    // == "left"`) is an iterable of text.
                    let t = match &items_used {
                        Some(i) if !var_positional => t.with_item(i),
                        _ => t,
                    };
                    let mut members = vec![t];
                    if let Some(e) = evidence {
                        members.extend(e.isinstance.iter().map(|k| k.ty()));
                    }
                    Ty::Union(members).flatten()
                }
                (None, Some(t)) => {
                    let mut members = vec![t];
                    if let Some(e) = evidence {
                        members.extend(e.isinstance.iter().map(|k| k.ty()));
                    }
                    Ty::Union(members).flatten()
                }
                (None, None) => Ty::Any,
            };
            let ty = match evidence {
                Some(e) if !var_positional => e.shaped(ty),
                _ => ty,
            };
            // The constants it is compared with for equality, drawn as values of their own.
            let ty = match evidence {
                Some(e)
                    if !e.equals.is_empty() && !var_positional && kind != ParamKind::VarKeyword =>
                {
                    Ty::Union(vec![ty, Ty::Literal(e.equals.clone())]).flatten()
                }
                _ => ty,
            };
            // `**fields` read by literal keys (`fields['particles']`, `kwargs.get('sep')`):
            // those keywords are passed, each value of the annotation's type (what
            // `**fields: T` says of every value), else of its key's uses.
            let ty = match analysis.ty_of(&p.name) {
                Some(Ty::Record(keys)) if kind == ParamKind::VarKeyword => Ty::Record(
                    keys.into_iter()
                        .map(|(k, t)| {
                            (
                                k,
                                if p.annotation.is_some() {
                                    ty.clone()
                                } else {
                                    t
                                },
                            )
                        })
                        .collect(),
                ),
                _ => ty,
            };
            let none_checked = evidence.is_some_and(|e| e.none_checked);
            let ty = if (default_none || none_checked) && ty != Ty::Any {
                Ty::optional(ty)
            } else {
                ty
            };
            ParamSpec {
                name: p.name.clone(),
                kind,
                ty,
                has_default: p.default.is_some(),
            }
        })
        .collect();
    // A parameter nothing types, compared for equality with one something does, is of its
    // type (`assert width == height`, and `range(width)`).
    let typed: BTreeMap<String, Ty> = specs
        .iter()
        .filter(|s| s.ty != Ty::Any)
        .map(|s| (s.name.clone(), s.ty.clone()))
        .collect();
    for spec in &mut specs {
        if spec.ty != Ty::Any
            || matches!(spec.kind, ParamKind::VarPositional | ParamKind::VarKeyword)
        {
            continue;
        }
        if let Some(t) = analysis
            .equal_params
            .iter()
            .filter(|(a, _)| *a == spec.name)
            .find_map(|(_, b)| typed.get(b))
        {
            spec.ty = t.clone();
        }
    }
    specs
}

/// The smallest set of cases that covers what all kept cases cover (greedy: the case adding
/// the most arcs first, the smaller input on a tie), then the edge cases, up to `max`.
pub fn select(found: &Found, max: usize, edge_cases: usize) -> Vec<usize> {
    let mut chosen: Vec<usize> = Vec::new();
    let mut covered: BTreeSet<Arc> = BTreeSet::new();
    loop {
        let best = found
            .cases
            .iter()
            .enumerate()
            .filter(|(i, _)| !chosen.contains(i))
            .map(|(i, c)| {
                let gain = c.arcs.iter().filter(|a| !covered.contains(a)).count();
                (i, gain, c.input.size())
            })
            .filter(|&(_, gain, _)| gain > 0)
            .max_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)).then(b.0.cmp(&a.0)));
        let Some((i, _, _)) = best else { break };
        covered.extend(found.cases[i].arcs.iter().copied());
        chosen.push(i);
        if chosen.len() >= max {
            break;
        }
    }
    let mut extra = 0;
    for (i, c) in found.cases.iter().enumerate() {
        if chosen.len() >= max || extra >= edge_cases {
            break;
        }
        if c.is_edge && !chosen.contains(&i) {
            chosen.push(i);
            extra += 1;
        }
    }
    chosen.sort_unstable();
    chosen
}

/// Branch arcs: those leaving a line from which two or more arcs leave.
fn branch_arcs(total: &BTreeSet<Arc>) -> BTreeSet<Arc> {
    let mut out_degree: BTreeMap<i32, usize> = BTreeMap::new();
    for (a, _) in total {
        *out_degree.entry(*a).or_default() += 1;
    }
    total
        .iter()
        .filter(|(a, _)| out_degree.get(a).copied().unwrap_or(0) >= 2)
        .copied()
        .collect()
}

fn expected_text(r: &CallResult) -> String {
    match r {
        CallResult::Returned { repr, .. } => repr.clone(),
        CallResult::Raised { type_name, message } => {
            let first = message.lines().next().unwrap_or("");
            if first.is_empty() {
                format!("Traceback (most recent call last):\n    ...\n{type_name}")
            } else {
                format!("Traceback (most recent call last):\n    ...\n{type_name}: {first}")
            }
        }
        CallResult::Failed { status, .. } => status.clone(),
    }
}

fn summarize(discarded: &BTreeMap<String, usize>) -> String {
    let mut v: Vec<(&String, &usize)> = discarded.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .take(4)
        .map(|(k, n)| format!("{k} x{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Inputs from the reservoir tried against a mutant the cases do not kill.
const MUTANT_TRIES: usize = 24;

fn triples_of(cases: &[Case]) -> Vec<(String, String, CallResult)> {
    cases
        .iter()
        .map(|c| (c.args.clone(), c.kwargs.clone(), c.result.clone()))
        .collect()
}

/// The row of a function rejected before any search (no environment, say).
pub fn rejected(f: &Function, class: FunctionClass, opts: &Options, reason: String) -> Synthesized {
    let task = FunctionTask {
        task_id: content_id(&[f.function_id.as_bytes(), b"", b""]),
        function_id: f.function_id.clone(),
        repo_id: f.repo_id.clone(),
        class,
        prompt: String::new(),
        prompt_kind: PromptKind::Docstring,
        entry_point: f.name.clone(),
        canonical_solution: String::new(),
        code_date: f.code_date,
        code_date_source: f.code_date_source,
        after_cutoff: f.after_cutoff,
        status: TaskStatus::Rejected,
        reason: Some(reason),
        cases: 0,
        edge_cases: 0,
        arcs_covered: 0,
        arcs_total: 0,
        branches_covered: 0,
        branches_total: 0,
        stop: SearchStop::NotRun,
        mutants_total: 0,
        mutants_killed: 0,
        mutation_score: None,
        held_out_mutation_score: None,
        calls: 0,
        search_seconds: 0.0,
        seconds: 0.0,
        config_hash: opts.hash(),
    };
    Synthesized {
        task,
        cases: Vec::new(),
    }
}

/// The row of a function the harness could not try (its environment did not build, no
/// worker started): status `infra`, which a rerun tries again.
pub fn infra(f: &Function, class: FunctionClass, opts: &Options, why: &str) -> Synthesized {
    let mut s = rejected(f, class, opts, format!("infra: {why}"));
    s.task.status = TaskStatus::Infra;
    s
}

/// Synthesizes the task of one function; `observed` are its rows of `observed_calls` (empty:
/// none, or not to be used).
pub fn synthesize(
    f: &Function,
    class: FunctionClass,
    refs: &[&Reference],
    observed: &[ObservedCall],
    opts: &Options,
    batches: &mut Batches<'_>,
) -> Result<Synthesized, ExecError> {
    let t0 = Instant::now();
    let mut task = rejected(f, class, opts, String::new()).task;
    task.reason = None;
    task.config_hash = config_hash(opts, observed);
    let reject = |mut task: FunctionTask, reason: String| {
        task.reason = Some(reason);
        task.seconds = t0.elapsed().as_secs_f64();
        task.task_id = content_id(&[
            task.function_id.as_bytes(),
            task.prompt.as_bytes(),
            task.canonical_solution.as_bytes(),
        ]);
        Ok(Synthesized {
            task,
            cases: Vec::new(),
        })
    };
    let standalone = match task::standalone_source(f) {
        Ok(s) => s,
        Err(why) => return reject(task, why.0),
    };
    let names: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let Some(analysis) = usage::analyze_bound(&standalone, &names, &task::bindings(refs)) else {
        return reject(task, "parse: the function does not parse on its own".into());
    };
    let imports = task::imports(refs);
    let (text, offset) = task::canonical(&imports, &standalone);
    task.canonical_solution.clone_from(&text);
    task.entry_point.clone_from(&analysis.name);
    // classify rejects these by default; a classify config without that rule lets them through.
    if f.params.is_empty() {
        return reject(task, "no_parameters: nothing to vary".into());
    }
    // The observed calls that fit the entry point: seeds, and their values' types.
    let untyped = param_specs(f, &analysis, &BTreeMap::new());
    let (seeds, left_out) = crate::observed::inputs(&untyped, observed);
    if left_out > 0 {
        tracing::debug!(function = %f.qualname, left_out, used = seeds.len(), "observed calls that are no literal call of the entry point");
    }
    let params = if seeds.is_empty() {
        untyped
    } else {
        param_specs(
            f,
            &analysis,
            &crate::observed::observed_types(&untyped, &seeds),
        )
    };
    // The defaults are constants of the function too (separators, thresholds).
    let mut constants = analysis.constants.clone();
    for p in &f.params {
        if let Some(v) = p.default.as_deref().and_then(parse_literal) {
            constants.add(v);
        }
    }
    let examples: Vec<crate::doc::Example> = f
        .docstring
        .as_deref()
        .map(|d| crate::doc::examples(d, &analysis.name))
        .unwrap_or_default();
    for e in &examples {
        for v in e.args.iter().chain(e.kwargs.iter().map(|(_, v)| v)) {
            constants.add(v.clone());
        }
    }
    // What the tests passed are constants of the function too (a date's shape, a keyword).
    for s in &seeds {
        for v in s.passed() {
            constants.add(v.clone());
        }
    }
    let example_inputs: Vec<crate::search::Input> = examples
        .iter()
        .filter_map(|e| crate::search::Input::from_example(&params, e))
        .collect();
    let mut pool = Pool::from_constants(&constants);
    pool.unicode = text.contains("unicodedata");
    pool.lines = ["splitlines(", "split('\\n'", "split(\"\\n\""]
        .iter()
        .any(|m| text.contains(m));
    let seed_key = match opts.seed {
        0 => f.function_id.clone(),
        n => format!("{}/{n}", f.function_id),
    };
    let seed_hex = schemas::id::sha256_hex(seed_key.as_bytes());
    let mut seed = [0u8; 32];
    for (i, b) in seed.iter_mut().enumerate() {
        *b = u8::from_str_radix(&seed_hex[2 * i..2 * i + 2], 16).unwrap_or(0);
    }

    // The search.
    let original = Original {
        batch: &mut batches.primary,
        text: &text,
        function: &analysis.name,
        error: None,
        slowest: 0.0,
    };
    let search = Search::new(&params, &pool, &analysis.raises, opts.budget, original)
        .with_seeds(seeds)
        .with_examples(example_inputs);
    let (found, original) = search.run_all(seed);
    let slowest = original.slowest;
    if let Some(e) = original.error {
        return Err(e);
    }
    task.calls = found.calls as i32;
    task.search_seconds = found.seconds;
    task.stop = found.stop;
    task.arcs_total = found.total.len() as i32;
    let branches = branch_arcs(&found.total);
    task.branches_total = branches.len() as i32;

    if found.total.is_empty() {
        let why = summarize(&found.discarded);
        return reject(
            task,
            format!("load_error: the function could not be called ({why})"),
        );
    }
    let chosen = select(&found, opts.max_cases, opts.budget.edge_cases);
    let cases: Vec<&Case> = chosen.iter().map(|&i| &found.cases[i]).collect();
    if cases.is_empty() {
        let why = summarize(&found.discarded);
        return reject(
            task,
            format!("no_usable_input: no input gave a result ({why})"),
        );
    }

    // Mutation score. The mutants are split in two, alternately. A mutant of the first half
    // that the cases do not tell apart is tried against other inputs the search ran (its
    // reservoir); one that kills it joins the cases, so each case either covers an arc or
    // kills a mutant. The second half is held out: run only against the final cases, it
    // measures the tests on mutants they were not completed for.
    let mut cases: Vec<Case> = cases.into_iter().cloned().collect();
    if opts.mutants > 0 {
        let mutant_opts = mutants::Options {
            max: Some(opts.mutants),
            operators: Vec::new(),
            span: Some((offset, text.len())),
        };
        match mutants::mutants(&text, &mutant_opts) {
            Ok(ms) => {
                let (guide, held): (Vec<_>, Vec<_>) =
                    ms.iter().enumerate().partition(|(i, _)| i % 2 == 0);
                let mut killed = 0;
                for (_, m) in guide {
                    let triples = triples_of(&cases);
                    let kill = |batch: &mut Batch<'_>, triples: &[(String, String, CallResult)]| {
                        exec::kills(
                            batch,
                            &m.source,
                            &analysis.name,
                            triples,
                            &opts.limits,
                            slowest,
                        )
                    };
                    if kill(&mut batches.primary, &triples)?.is_some() {
                        killed += 1;
                        continue;
                    }
                    if cases.len() >= opts.max_cases {
                        continue;
                    }
                    let others: Vec<&Case> = found
                        .reservoir
                        .iter()
                        .filter(|r| {
                            !cases
                                .iter()
                                .any(|c| c.args == r.args && c.kwargs == r.kwargs)
                        })
                        .take(MUTANT_TRIES)
                        .collect();
                    let triples: Vec<(String, String, CallResult)> = others
                        .iter()
                        .map(|c| (c.args.clone(), c.kwargs.clone(), c.result.clone()))
                        .collect();
                    if let Some(i) = kill(&mut batches.primary, &triples)? {
                        killed += 1;
                        cases.push(others[i].clone());
                    }
                }
                let triples = triples_of(&cases);
                let mut held_killed = 0;
                for (_, m) in &held {
                    if exec::kills(
                        &mut batches.primary,
                        &m.source,
                        &analysis.name,
                        &triples,
                        &opts.limits,
                        slowest,
                    )?
                    .is_some()
                    {
                        held_killed += 1;
                    }
                }
                task.mutants_total = ms.len() as i32;
                task.mutants_killed = killed + held_killed;
                if !ms.is_empty() {
                    task.mutation_score = Some(f64::from(killed + held_killed) / ms.len() as f64);
                }
                if !held.is_empty() {
                    task.held_out_mutation_score = Some(f64::from(held_killed) / held.len() as f64);
                }
            }
            Err(e) => tracing::warn!(function = %f.qualname, error = %e, "no mutants"),
        }
    }

    // Determinism: each case again, in a fresh process of a worker with another hash seed.
    let triples = triples_of(&cases);
    let same = exec::recheck(&mut batches.recheck, &text, &analysis.name, &triples)?;
    let differing = same.iter().filter(|s| !**s).count();
    if differing > 0 {
        let first = cases
            .iter()
            .zip(&same)
            .find(|(_, s)| !**s)
            .map(|(c, _)| c.input.call_text(&analysis.name, &params))
            .unwrap_or_default();
        let n = cases.len();
        return reject(
            task,
            format!("nondeterministic: {differing} of {n} cases behaved otherwise in a fresh process with another hash seed (first: {first})"),
        );
    }
    let covered: BTreeSet<Arc> = cases
        .iter()
        .flat_map(|c| c.arcs.iter().copied())
        .filter(|a| found.total.contains(a))
        .collect();
    task.arcs_covered = covered.len() as i32;
    task.branches_covered = branches.intersection(&covered).count() as i32;
    task.cases = cases.len() as i32;
    task.edge_cases = cases.iter().filter(|c| c.is_edge).count() as i32;

    // The prompt.
    if let Some(end) = analysis.docstring_end {
        task.prompt = task::docstring_prompt(&text, offset, end);
    } else {
        {
            task.prompt_kind = PromptKind::Synthesized;
            // Returned values before exceptions, small inputs before large (a docstring of
            // thousand-character arguments helps nobody); the order is stable.
            let mut examples: Vec<&Case> = cases
                .iter()
                .filter(|c| !matches!(c.result, CallResult::Failed { .. }))
                .collect();
            examples.sort_by_key(|c| {
                (
                    matches!(c.result, CallResult::Raised { .. }),
                    c.input.size() + c.args.len() / 8,
                )
            });
            let examples: Vec<(String, String)> = examples
                .iter()
                .take(3)
                .map(|c| {
                    (
                        c.input.call_text(&analysis.name, &params),
                        expected_text(&c.result),
                    )
                })
                .collect();
            task.prompt = task::synthesized_prompt(&text, offset, analysis.body_start, &examples);
        }
    }
    // What defines the task, and nothing else: the task-version rule on publish's card
    // (`publish::version::TASK_ID_RULES`), checked by `tests/task_ids.rs`.
    task.task_id = content_id(&[
        task.function_id.as_bytes(),
        task.prompt.as_bytes(),
        task.canonical_solution.as_bytes(),
    ]);

    // The gates.
    let ratio = if found.total.is_empty() {
        1.0
    } else {
        covered.len() as f64 / found.total.len() as f64
    };
    let mut reasons = Vec::new();
    if ratio + 1e-12 < opts.min_coverage {
        let missed: Vec<String> = found
            .total
            .difference(&covered)
            .take(6)
            .map(|(a, b)| format!("{a}->{b}"))
            .collect();
        reasons.push(format!(
            "coverage: {}/{} arcs after {} calls (stopped: {}, missed {})",
            covered.len(),
            found.total.len(),
            found.calls,
            found.stop.as_str(),
            missed.join(" ")
        ));
    }
    if let Some(ms) = task.mutation_score {
        if ms + 1e-12 < opts.min_mutation_score {
            reasons.push(format!(
                "mutation_score: {ms:.2} is under {:.2}",
                opts.min_mutation_score
            ));
        }
    }
    if reasons.is_empty() {
        task.status = TaskStatus::Ok;
    } else {
        task.reason = Some(reasons.join("; "));
    }
    task.seconds = t0.elapsed().as_secs_f64();
    let rows = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (repr, json, exc) = match &c.result {
                CallResult::Returned { value, repr } => {
                    (Some(repr.clone()), serde_json::to_string(value).ok(), None)
                }
                CallResult::Raised { type_name, .. } => (None, None, Some(type_name.clone())),
                CallResult::Failed { .. } => (None, None, None),
            };
            TestCase {
                case_id: content_id(&[
                    task.task_id.as_bytes(),
                    c.args.as_bytes(),
                    c.kwargs.as_bytes(),
                ]),
                task_id: task.task_id.clone(),
                ordinal: i as i32,
                args: c.args.clone(),
                kwargs: c.kwargs.clone(),
                expected_repr: repr,
                expected_json: json,
                expected_exception: exc,
                is_edge: c.is_edge,
                from_observed: c.from_observed,
                arcs: c.arcs.iter().filter(|a| found.total.contains(a)).count() as i32,
            }
        })
        .collect();
    Ok(Synthesized { task, cases: rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemas::{examples, Param};

    fn function(source: &str, params: &[(&str, Option<&str>, Option<&str>)]) -> Function {
        let mut f = examples::function("f-1", "r-1");
        f.source = source.into();
        f.params = params
            .iter()
            .map(|(name, annotation, default)| Param {
                name: (*name).into(),
                kind: ParamKind::PositionalOrKeyword,
                annotation: annotation.map(str::to_string),
                default: default.map(str::to_string),
            })
            .collect();
        f
    }

    #[test]
    fn compared_constants_and_compared_parameters_type_a_parameter() {
        let f = function(
            "def f(text, escapes='eol', width=None, height=None):\n    if isinstance(escapes, str):\n        if escapes == 'eol':\n            escapes = {}\n        elif escapes == 'ws':\n            escapes = {}\n    assert width == height\n    for i in range(width):\n        pass\n    return [escapes[k] for k in escapes.keys()]\n",
            &[("text", None, None), ("escapes", None, Some("'eol'")), ("width", None, None), ("height", None, None)],
        );
        let names: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
        let analysis = usage::analyze(&f.source, &names).expect("parses");
        let specs = param_specs(&f, &analysis, &BTreeMap::new());
        let Ty::Union(ms) = &specs[1].ty else {
            panic!("{:?}", specs[1].ty)
        };
        // The default's text, a mapping (the type check's other branch) and the two texts.
        assert!(ms.contains(&Ty::Str), "{ms:?}");
        assert!(ms.iter().any(|m| matches!(m, Ty::Dict(..))), "{ms:?}");
        assert!(
            ms.contains(&Ty::Literal(vec![
                PyVal::Str("eol".into()),
                PyVal::Str("ws".into())
            ])),
            "{ms:?}"
        );
        // `height` is said nothing of but that it equals `width`, an int.
        assert_eq!(specs[3].ty, specs[2].ty);
        assert_ne!(specs[3].ty, Ty::Any);
    }

    #[test]
    fn the_uses_of_star_args_type_its_items() {
        let mut f = function(
            "def pipe(data, *funcs):\n    for func in funcs:\n        data = func(data)\n    return data\n",
            &[("data", None, None), ("funcs", None, None)],
        );
        f.params[1].kind = ParamKind::VarPositional;
        let analysis = usage::analyze(&f.source, &["data".into(), "funcs".into()]).expect("parses");
        let specs = param_specs(&f, &analysis, &BTreeMap::new());
        assert_eq!(specs[1].ty, Ty::Callable, "each of *funcs is called");
    }

    #[test]
    fn keywords_read_by_literal_keys_are_passed() {
        let mut f = function(
            "def f(**fields: frozenset[str]):\n    fields['a'] &= fields['b']\n    return fields, fields.get('n', 0) + 1\n",
            &[("fields", Some("frozenset[str]"), None)],
        );
        f.params[0].kind = ParamKind::VarKeyword;
        let analysis = usage::analyze(&f.source, &["fields".into()]).expect("parses");
        let specs = param_specs(&f, &analysis, &BTreeMap::new());
        let strs = Ty::FrozenSet(Box::new(Ty::Str));
        assert_eq!(
            specs[0].ty,
            Ty::Record(vec![
                ("a".into(), strs.clone()),
                ("b".into(), strs.clone()),
                ("n".into(), strs)
            ])
        );
        // Without the annotation, each key's own uses type it.
        f.params[0].annotation = None;
        let Ty::Record(keys) = &param_specs(&f, &analysis, &BTreeMap::new())[0].ty else {
            panic!("a record")
        };
        assert_eq!(keys[2], ("n".into(), Ty::Int));
    }

    #[test]
    fn the_uses_of_items_fill_an_annotation_s_any() {
        let f = function(
            "def f(aligns, other):\n    out = []\n    for a in aligns:\n        out.append(a.upper())\n    return out, other\n",
            &[("aligns", Some("Iterable[Any]"), None), ("other", Some("List[int]"), None)],
        );
        let analysis =
            usage::analyze(&f.source, &["aligns".into(), "other".into()]).expect("parses");
        let specs = param_specs(&f, &analysis, &BTreeMap::new());
        assert_eq!(specs[0].ty, Ty::Iterable(Box::new(Ty::Str)));
        assert_eq!(
            specs[1].ty,
            Ty::List(Box::new(Ty::Int)),
            "a known item type stays"
        );
    }

    #[test]
    fn observed_types_join_the_guesses_and_an_annotation() {
        let f = function(
            "def f(text, n: int, sep=','):\n    return text.upper().split(sep)[n]\n",
            &[
                ("text", None, None),
                ("n", Some("int"), None),
                ("sep", None, Some("','")),
            ],
        );
        let analysis =
            usage::analyze(&f.source, &["text".into(), "n".into(), "sep".into()]).expect("parses");
        let guessed = param_specs(&f, &analysis, &BTreeMap::new());
        assert_eq!(guessed[0].ty, Ty::Str, "the uses say str");
        assert_eq!(guessed[1].ty, Ty::Int);
        assert_eq!(guessed[2].ty, Ty::Str, "the default says str");
        let observed: BTreeMap<String, Ty> = [
            ("text".to_string(), Ty::Bytes),
            ("n".to_string(), Ty::Str),
            ("sep".to_string(), Ty::Union(vec![Ty::Bytes, Ty::NoneT])),
        ]
        .into_iter()
        .collect();
        let seen = param_specs(&f, &analysis, &observed);
        // What the tests passed, and what the guesses say they did not (an iterator where
        // the tests gave lists, a key function where they gave None).
        assert_eq!(seen[0].ty, Ty::Union(vec![Ty::Bytes, Ty::Str]));
        assert_eq!(seen[1].ty, Ty::Union(vec![Ty::Int, Ty::Str]));
        assert_eq!(seen[2].ty, Ty::Union(vec![Ty::Bytes, Ty::NoneT, Ty::Str]));
    }

    #[test]
    fn the_config_hash_holds_the_observed_rows() {
        let opts = Options {
            budget: Budget::default(),
            max_cases: 12,
            mutants: 8,
            min_coverage: 1.0,
            min_mutation_score: 0.5,
            seed: 0,
            limits: Limits::default(),
            python: "python3".into(),
        };
        let row = |args: &str| ObservedCall {
            repo_id: "r".into(),
            function_id: "f".into(),
            ordinal: 0,
            args: args.into(),
            kwargs: "{}".into(),
            node_id: "t::t".into(),
            calls: 1,
            input_hash: "0".repeat(32),
        };
        assert_eq!(config_hash(&opts, &[]), opts.hash());
        let seeded = Options {
            seed: 2,
            ..opts.clone()
        };
        assert_ne!(seeded.hash(), opts.hash(), "another --seed, another search");
        let one = config_hash(&opts, &[row("[1]")]);
        assert_ne!(one, opts.hash());
        assert_eq!(one, config_hash(&opts, &[row("[1]")]));
        assert_ne!(one, config_hash(&opts, &[row("[2]")]));
    }
}
