//! One repository's assertion tasks (`RepoReason`'s family): real assertions of its passing
//! tests, their subjects' values recorded by execution, on the original program and on
//! mutated variants of it.
//!
//! 1. Candidates: the assertions [`execute::assertion::find`] accepts, in tests that passed
//!    and were not flaky in `repo_tests`, no slower than `--max-judge-seconds`.
//! 2. A seeded order of the candidates; the first `3 × --assertions-per-repo` are recorded:
//!    per test file one run of their tests with each of them rewritten to a capture
//!    (`__freshbench_capture__(key, X)`), in the sandbox, never read from the source. A
//!    candidate is kept when its place ran exactly once (no loop, no exception before it),
//!    its value reads the same in every process (no `at 0x` address in a `repr`), and the
//!    value is not `None` (the `null` answer) — `raises`: an exception was raised.
//! 3. Up to `--assertions-per-repo` kept assertions. For each, mutants (the `mutants`
//!    library) of the repository functions its test executed, on executed lines: first
//!    those the subject names, then those these call by name, then the rest; up to
//!    `--assertion-mutants` of them in a seeded order within each tier, each run with the
//!    test (every candidate of it captured), until `--variants` are found: a variant
//!    is kept when the place still ran once and its value is stable, not `None`, and
//!    differs from the original's (`Value::matches`, the kind's tolerance).
//! 4. The tasks of an assertion: the value form on the original program and on each
//!    variant; with a variant, one verify task on each of the two programs, one claim
//!    true and one false by construction (a seeded coin chooses which), the false claim
//!    being the other program's value. The model sees the test (its file's imports, then
//!    the function, the assertion masked) and the functions the test executed, ranked by
//!    executed lines within `--context-budget` tokens, in the task's program's text (on a
//!    variant the mutated function is always among them, at its rank).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use execute::assertion::{self, find, Candidate, Program};
use execute::completion::Judges;
use execution::{ExecError, Value};
use schemas::{
    AssertionForm, AssertionKind, AssertionTask, ContextSnippet, File, FileKind, FileStatus,
    Function, RepoTest, TestOutcome,
};

use crate::bm25::count_tokens;
use crate::coverage::PathMatcher;
use crate::repo::{is_test_file, RepoInput};
use crate::select::seeded;

/// What shapes a repository's assertion tasks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AssertionOptions {
    /// Assertions (groups of tasks) per repository.
    pub per_repo: usize,
    /// Mutants tried per assertion.
    pub tries: usize,
    /// Mutated variants kept per assertion.
    pub variants: usize,
    /// Tokens of code context per task.
    pub context_budget: usize,
    pub seed: u64,
    /// Tests slower than this in `repo_tests` are left out.
    pub max_test_seconds: f64,
}

impl Default for AssertionOptions {
    fn default() -> Self {
        AssertionOptions {
            per_repo: 32,
            tries: 12,
            variants: 1,
            context_budget: 2048,
            seed: 0,
            max_test_seconds: 30.0,
        }
    }
}

/// The counters of the assertion family, summed over repositories.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssertionSummary {
    pub repos: usize,
    /// Repositories whose environment did not build (no worker).
    pub repos_without_worker: usize,
    /// Assertions of the accepted forms in test functions.
    pub candidates: usize,
    /// Of them, in tests that did not pass, were flaky, or are not in `repo_tests`
    /// (parametrized tests among them: their node ids carry the parameters).
    pub not_passing: usize,
    /// In tests slower than the limit.
    pub too_slow: usize,
    /// Not recorded: beyond three times the cap in the seeded order.
    pub beyond_cap: usize,
    /// Recorded, but the place did not run (an exception before it, or the run failed).
    pub not_reached: usize,
    /// The place ran more than once.
    pub repeated: usize,
    /// The value is `None` (or nothing was raised).
    pub value_none: usize,
    /// The value's repr holds an address.
    pub unstable: usize,
    /// Recorded and usable, but over the cap.
    pub over_cap: usize,
    /// Kept assertions.
    pub kept: usize,
    /// Of them, with at least one mutated variant.
    pub with_variant: usize,
    /// Mutant runs made.
    pub mutant_runs: usize,
    /// Test runs made in all (recording and mutants).
    pub runs: usize,
    /// Tasks written, per form and program.
    pub tasks: BTreeMap<(String, bool), usize>,
    /// Seconds spent running tests.
    pub seconds: f64,
}

impl AssertionSummary {
    pub fn merge(&mut self, o: &AssertionSummary) {
        self.repos += o.repos;
        self.repos_without_worker += o.repos_without_worker;
        self.candidates += o.candidates;
        self.not_passing += o.not_passing;
        self.too_slow += o.too_slow;
        self.beyond_cap += o.beyond_cap;
        self.not_reached += o.not_reached;
        self.repeated += o.repeated;
        self.value_none += o.value_none;
        self.unstable += o.unstable;
        self.over_cap += o.over_cap;
        self.kept += o.kept;
        self.with_variant += o.with_variant;
        self.mutant_runs += o.mutant_runs;
        self.runs += o.runs;
        for (k, v) in &o.tasks {
            *self.tasks.entry(k.clone()).or_default() += v;
        }
        self.seconds += o.seconds;
    }

    /// The summary as lines for stderr.
    ///
    /// # Errors
    /// When writing fails.
    pub fn render(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let pct = |n: usize| {
            if self.candidates == 0 {
                0.0
            } else {
                100.0 * n as f64 / self.candidates as f64
            }
        };
        writeln!(
            out,
            "assertion tasks: {} repositories ({} without an environment), {} candidate assertions",
            self.repos, self.repos_without_worker, self.candidates
        )?;
        for (name, n) in [
            ("test not passing, flaky or parametrized", self.not_passing),
            ("test too slow", self.too_slow),
            ("beyond 3x the cap (not recorded)", self.beyond_cap),
            ("not reached when recorded", self.not_reached),
            ("ran more than once", self.repeated),
            ("value None / nothing raised", self.value_none),
            ("value unstable (an address)", self.unstable),
            ("over the cap", self.over_cap),
        ] {
            writeln!(out, "  lost: {name:<40} {n:>6} ({:.1}%)", pct(n))?;
        }
        writeln!(
            out,
            "  kept assertions: {} ({} with a mutated variant, {:.1}%); {} test runs ({} with a mutant), {:.0} s",
            self.kept,
            self.with_variant,
            if self.kept == 0 {
                0.0
            } else {
                100.0 * self.with_variant as f64 / self.kept as f64
            },
            self.runs,
            self.mutant_runs,
            self.seconds
        )?;
        for ((form, mutated), n) in &self.tasks {
            writeln!(
                out,
                "  tasks: {form:<7} {:<9} {n}",
                if *mutated { "mutated" } else { "original" }
            )?;
        }
        Ok(())
    }
}

/// A candidate with what was recorded of it.
struct Kept<'a> {
    cand: Candidate,
    path: &'a str,
    source: &'a str,
    test: &'a RepoTest,
    group_id: String,
    value: Value,
    variants: Vec<Variant>,
    /// Seconds of the runs made for it.
    seconds: f64,
}

struct Variant {
    mutant: mutants::Mutant,
    path: String,
    /// The mutated function's bytes in the mutated file.
    function: (usize, usize),
    value: Value,
}

/// Why a recorded value is not usable, or none.
fn unusable(kind: AssertionKind, count: u32, v: &Value) -> Option<&'static str> {
    if count != 1 {
        return Some("repeated");
    }
    if *v == Value::None {
        return Some("none");
    }
    if !v.is_stable() {
        return Some("unstable");
    }
    if kind == AssertionKind::Raises && !matches!(v, Value::Str(_)) {
        return Some("none");
    }
    None
}

/// The assertion tasks of one repository, and its counters.
///
/// # Errors
/// When no worker may start by configuration.
pub fn assertion_repo(
    judges: &mut Judges<'_>,
    input: &RepoInput<'_>,
    opts: &AssertionOptions,
) -> Result<(Vec<AssertionTask>, AssertionSummary), ExecError> {
    let mut sum = AssertionSummary {
        repos: 1,
        ..AssertionSummary::default()
    };
    let started = std::time::Instant::now();
    let tests: HashMap<&str, &RepoTest> = input
        .tests
        .iter()
        .map(|t| (t.node_id.as_str(), *t))
        .collect();
    let mut parser = find::parser();
    let mut test_files: Vec<&File> = input
        .files
        .iter()
        .copied()
        .filter(|f| f.kind == FileKind::Test && f.status == FileStatus::Ok)
        .filter(|f| {
            std::path::Path::new(&f.path)
                .extension()
                .is_some_and(|e| e == "py")
                && f.content.is_some()
        })
        .collect();
    test_files.sort_by(|a, b| a.path.cmp(&b.path));
    test_files.dedup_by(|a, b| a.path == b.path);
    // Candidates in usable tests, in a seeded order.
    let mut pool: Vec<(u64, String, Candidate, &File, &RepoTest)> = Vec::new();
    for f in &test_files {
        let text = f.content.as_deref().unwrap_or_default();
        for c in find::candidates(&mut parser, &f.path, text) {
            sum.candidates += 1;
            let Some(t) = tests.get(c.node_id.as_str()).copied() else {
                sum.not_passing += 1;
                continue;
            };
            if t.outcome != TestOutcome::Passed || t.flaky {
                sum.not_passing += 1;
                continue;
            }
            if t.seconds > opts.max_test_seconds {
                sum.too_slow += 1;
                continue;
            }
            let group_id = schemas::id::content_id(&[
                b"assertion",
                input.repo_id.as_bytes(),
                f.path.as_bytes(),
                c.node_id.as_bytes(),
                c.target.0.to_string().as_bytes(),
                &text.as_bytes()[c.target.0..c.target.1],
            ]);
            pool.push((seeded(opts.seed, &group_id), group_id, c, f, t));
        }
    }
    pool.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let record_cap = opts.per_repo.saturating_mul(3);
    if pool.len() > record_cap {
        sum.beyond_cap += pool.len() - record_cap;
        pool.truncate(record_cap);
    }
    if judges.worker(input.repo_id).is_none() {
        sum.repos_without_worker = 1;
        return Ok((Vec::new(), sum));
    }
    // Record: one run per test file with every chosen candidate of it captured.
    let mut by_file: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, p) in pool.iter().enumerate() {
        by_file.entry(p.3.path.as_str()).or_default().push(i);
    }
    let mut recorded: HashMap<usize, (u32, Value)> = HashMap::new();
    let mut shares: HashMap<usize, f64> = HashMap::new();
    for (path, idx) in &by_file {
        let source = pool[idx[0]].3.content.as_deref().unwrap_or_default();
        let ids: BTreeSet<&str> = idx.iter().map(|&i| pool[i].2.node_id.as_str()).collect();
        let all = find::candidates(&mut parser, path, source);
        let cands: Vec<&Candidate> = all
            .iter()
            .filter(|c| ids.contains(c.node_id.as_str()))
            .collect();
        let text = find::capture_text(source, &cands);
        if !find::parses(&mut parser, &text) {
            continue;
        }
        let ids: Vec<String> = ids.into_iter().map(str::to_string).collect();
        let seconds: f64 = idx.iter().map(|&i| pool[i].4.seconds).sum();
        let r = assertion::record(
            judges,
            input.repo_id,
            &ids,
            path,
            &text,
            Program { mutated: None },
            0,
            seconds,
        )?;
        sum.runs += 1;
        for &i in idx {
            shares.insert(i, r.seconds / idx.len() as f64);
            if let Some(v) = r.values.get(&pool[i].2.key()) {
                recorded.insert(i, v.clone());
            }
        }
    }
    let mut kept: Vec<Kept<'_>> = Vec::new();
    for (i, (_, group_id, cand, f, t)) in pool.iter().enumerate() {
        let Some((count, value)) = recorded.get(&i) else {
            sum.not_reached += 1;
            continue;
        };
        match unusable(cand.kind, *count, value) {
            Some("repeated") => sum.repeated += 1,
            Some("none") => sum.value_none += 1,
            Some(_) => sum.unstable += 1,
            None if kept.len() >= opts.per_repo => sum.over_cap += 1,
            None => kept.push(Kept {
                cand: cand.clone(),
                path: &f.path,
                source: f.content.as_deref().unwrap_or_default(),
                test: t,
                group_id: group_id.clone(),
                value: value.clone(),
                variants: Vec::new(),
                seconds: shares.get(&i).copied().unwrap_or(0.0),
            }),
        }
    }
    sum.kept = kept.len();
    // Mutants of the code each kept assertion's test executed.
    let sources: HashMap<&str, &str> = input
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Source && !is_test_file(f))
        .filter_map(|f| Some((f.path.as_str(), f.content.as_deref()?)))
        .collect();
    let mut matcher = PathMatcher::new(sources.keys().copied());
    let mut functions: HashMap<&str, Vec<&Function>> = HashMap::new();
    for f in input.functions {
        functions.entry(f.path.as_str()).or_default().push(f);
    }
    let mut runs: HashMap<(String, String), execute::assertion::Recorded> = HashMap::new();
    let all_cands: HashMap<&str, Vec<Candidate>> = test_files
        .iter()
        .map(|f| {
            let text = f.content.as_deref().unwrap_or_default();
            (
                f.path.as_str(),
                find::candidates(&mut parser, &f.path, text),
            )
        })
        .collect();
    for k in &mut kept {
        let ranked = executed_functions(k.test, &mut matcher, &functions);
        // The functions the subject names (`f` of `f(2)`, `total` of `acc.total()`) are
        // the likeliest to change its value: their mutants are tried first.
        // Then the functions those call by name (`_helper` of `self._helper(x)`), then the
        // rest the test ran.
        let named: BTreeSet<&str> = identifiers(k.cand.subject_text(k.source));
        let called: BTreeSet<&str> = ranked
            .iter()
            .filter(|(f, _)| named.contains(f.name.as_str()))
            .filter_map(|(f, _)| {
                let src = sources.get(f.path.as_str())?;
                src.get(f.start_byte as usize..f.end_byte as usize)
            })
            .flat_map(identifiers)
            .collect();
        let tier = |f: &Function| {
            if named.contains(f.name.as_str()) {
                0u8
            } else if called.contains(f.name.as_str()) {
                1
            } else {
                2
            }
        };
        let mut tries: Vec<((u8, u64), &Function, mutants::Mutant)> = Vec::new();
        for (f, lines) in &ranked {
            let Some(src) = sources.get(f.path.as_str()) else {
                continue;
            };
            let span = (f.start_byte as usize, f.end_byte as usize);
            let Ok(ms) = mutants::mutants(
                src,
                &mutants::Options {
                    span: Some(span),
                    ..mutants::Options::default()
                },
            ) else {
                continue;
            };
            for m in ms {
                if lines.contains(&(m.line as i32)) {
                    let order = seeded(opts.seed, &format!("{}/{}/{}", k.group_id, f.path, m.id));
                    tries.push(((tier(f), order), f, m));
                }
            }
        }
        tries.sort_by(|a, b| (a.0, &a.2.id).cmp(&(b.0, &b.2.id)));
        tracing::debug!(test = %k.test.node_id, line = k.cand.line, functions = ranked.len(), tries = tries.len(), "mutants");
        let tol = assertion::tolerance(k.cand.kind);
        for (_, f, m) in tries.into_iter().take(opts.tries) {
            if k.variants.len() >= opts.variants {
                break;
            }
            let cache_key = (format!("{}:{}", f.path, m.id), k.test.node_id.clone());
            if !runs.contains_key(&cache_key) {
                // Every candidate of this test is a capture, so that an earlier assertion
                // the mutant changes does not stop the test before this one.
                let same_test = find::same_test(
                    all_cands.get(k.path).map_or(&[][..], Vec::as_slice),
                    &k.cand,
                );
                let text = find::capture_text(k.source, &same_test);
                let r = assertion::record(
                    judges,
                    input.repo_id,
                    std::slice::from_ref(&k.test.node_id),
                    k.path,
                    &text,
                    Program {
                        mutated: Some((f.path.as_str(), m.source.as_str())),
                    },
                    0,
                    k.test.seconds,
                )?;
                sum.runs += 1;
                sum.mutant_runs += 1;
                k.seconds += r.seconds;
                runs.insert(cache_key.clone(), r);
            }
            let r = &runs[&cache_key];
            let Some((count, v)) = r.values.get(&k.cand.key()) else {
                tracing::debug!(test = %k.test.node_id, line = k.cand.line, mutant = %m.id, failure = ?r.failure, "mutant: not reached");
                continue;
            };
            if unusable(k.cand.kind, *count, v).is_some() || v.matches(&k.value, tol) {
                tracing::debug!(test = %k.test.node_id, line = k.cand.line, mutant = %m.id, value = %v.canonical(), "mutant: same value or unusable");
                continue;
            }
            let delta = m.replacement.len() as i64 - m.original.len() as i64;
            let end = (f.end_byte + delta).max(f.start_byte) as usize;
            k.variants.push(Variant {
                path: f.path.clone(),
                function: (f.start_byte as usize, end),
                value: v.clone(),
                mutant: m,
            });
        }
        if !k.variants.is_empty() {
            sum.with_variant += 1;
        }
    }
    sum.seconds = started.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    for k in &kept {
        rows.extend(tasks_of(
            &mut parser,
            input.repo_id,
            k,
            &sources,
            &mut matcher,
            &functions,
            opts,
        ));
    }
    for r in &rows {
        *sum.tasks
            .entry((r.form.as_str().to_string(), r.mutated))
            .or_default() += 1;
    }
    rows.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    Ok((rows, sum))
}

/// The repository functions a test executed, with the lines of each that ran, most lines
/// first.
fn executed_functions<'f>(
    test: &RepoTest,
    matcher: &mut PathMatcher<'_>,
    functions: &HashMap<&str, Vec<&'f Function>>,
) -> Vec<(&'f Function, BTreeSet<i32>)> {
    let mut out: Vec<(&Function, BTreeSet<i32>)> = Vec::new();
    for fl in &test.lines {
        let Some(path) = matcher.resolve(&fl.path) else {
            continue;
        };
        for f in functions.get(path).map_or(&[][..], Vec::as_slice) {
            if f.is_nested {
                continue;
            }
            let lines: BTreeSet<i32> = fl
                .lines
                .iter()
                .copied()
                .filter(|l| (f.start_line..=f.end_line).contains(l))
                .collect();
            if !lines.is_empty() {
                out.push((f, lines));
            }
        }
    }
    out.sort_by(|a, b| {
        b.1.len()
            .cmp(&a.1.len())
            .then_with(|| (&a.0.path, a.0.start_byte).cmp(&(&b.0.path, b.0.start_byte)))
    });
    out
}

/// A function's text from the start of its first line.
fn function_text(source: &str, start: usize, end: usize) -> &str {
    let end = end.min(source.len());
    let start = source[..start.min(end)].rfind('\n').map_or(0, |i| i + 1);
    &source[start..end]
}

/// The code a task shows: the executed functions ranked, in the program's text, within the
/// budget; the mutated one (`variant`) always in.
fn code_context(
    ranked: &[(&Function, BTreeSet<i32>)],
    sources: &HashMap<&str, &str>,
    variant: Option<&Variant>,
    budget: usize,
) -> (Vec<ContextSnippet>, usize, Vec<usize>) {
    let is_mutated = |f: &Function| {
        variant.is_some_and(|v| {
            v.path == f.path
                && v.mutant.start_byte >= f.start_byte as usize
                && v.mutant.start_byte < f.end_byte as usize
        })
    };
    let text_of = |f: &Function| -> Option<String> {
        if is_mutated(f) {
            let v = variant?;
            return Some(function_text(&v.mutant.source, v.function.0, v.function.1).to_string());
        }
        let src = sources.get(f.path.as_str())?;
        Some(function_text(src, f.start_byte as usize, f.end_byte as usize).to_string())
    };
    let mut out = Vec::new();
    let mut used = 0;
    let mut taken = Vec::new();
    let must = ranked.iter().position(|(f, _)| is_mutated(f));
    let must_tokens = must
        .and_then(|i| text_of(ranked[i].0))
        .map_or(0, |t| count_tokens(&t));
    for (i, (f, lines)) in ranked.iter().enumerate() {
        let Some(text) = text_of(f) else { continue };
        let n = count_tokens(&text);
        let reserve = if must.is_some_and(|m| m > i) {
            must_tokens
        } else {
            0
        };
        if Some(i) != must && used + n + reserve > budget {
            continue;
        }
        used += n;
        taken.push(i);
        out.push(ContextSnippet {
            path: f.path.clone(),
            text,
            score: lines.len() as f64,
        });
    }
    (out, used, taken)
}

/// The tasks of one kept assertion.
fn tasks_of(
    parser: &mut tree_sitter::Parser,
    repo_id: &str,
    k: &Kept<'_>,
    sources: &HashMap<&str, &str>,
    matcher: &mut PathMatcher<'_>,
    functions: &HashMap<&str, Vec<&Function>>,
    opts: &AssertionOptions,
) -> Vec<AssertionTask> {
    let raises = k.cand.kind == AssertionKind::Raises;
    let json = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    let shown = |v: &Value| schemas::tagged::assertion_python(&json(v), raises).ok();
    let Some(original_python) = shown(&k.value) else {
        return Vec::new();
    };
    let ranked = executed_functions(k.test, matcher, functions);
    let subject = k.cand.subject_text(k.source).to_string();
    let mut make = |variant: Option<&Variant>, form: AssertionForm, claim: Option<String>| {
        let (value, value_python) = match variant {
            Some(v) => (&v.value, shown(&v.value)?),
            None => (&k.value, original_python.clone()),
        };
        let masked = match &claim {
            Some(c) => k.cand.with_claim(c),
            None => k.cand.masked.clone(),
        };
        let (context, tokens, taken) = code_context(&ranked, sources, variant, opts.context_budget);
        let dated: Vec<&Function> = taken.iter().map(|&i| ranked[i].0).collect();
        let newest = dated
            .iter()
            .filter(|f| f.code_date.is_some())
            .max_by_key(|f| f.code_date);
        let answer = match (&claim, form) {
            (Some(c), AssertionForm::Verify) => {
                (if *c == value_python { "True" } else { "False" }).to_string()
            }
            _ => value_python.clone(),
        };
        let program = variant.map_or("original".to_string(), |v| {
            format!("{}:{}", v.path, v.mutant.id)
        });
        Some(AssertionTask {
            // The assertion, the program, the form and the claim, and nothing else: the
            // task-version rule on publish's card (`publish::version::TASK_ID_RULES`).
            task_id: schemas::id::content_id(&[
                k.group_id.as_bytes(),
                program.as_bytes(),
                form.as_str().as_bytes(),
                claim.as_deref().unwrap_or("").as_bytes(),
            ]),
            group_id: k.group_id.clone(),
            repo_id: repo_id.to_string(),
            test_node_id: k.test.node_id.clone(),
            path: k.path.to_string(),
            line: k.cand.line as i32,
            start_byte: k.cand.target.0 as i64,
            end_byte: k.cand.target.1 as i64,
            kind: k.cand.kind,
            form,
            subject: subject.clone(),
            test_source: find::test_source(parser, k.source, &k.cand, &masked),
            masked_assertion: masked,
            code_context: context,
            context_tokens: tokens as i32,
            context_budget: opts.context_budget as i32,
            mutated: variant.is_some(),
            mutant_id: variant.map(|v| v.mutant.id.clone()),
            mutated_path: variant.map(|v| v.path.clone()),
            mutated_text: variant.map(|v| v.mutant.source.clone()),
            mutation: variant.map(|v| {
                format!(
                    "{}:{}: {} -> {}",
                    v.path,
                    v.mutant.line,
                    one_line(&v.mutant.original),
                    one_line(&v.mutant.replacement)
                )
            }),
            value_json: json(value),
            value_python,
            original_json: json(&k.value),
            claim,
            answer,
            tests_seconds: k.test.seconds,
            record_seconds: k.seconds,
            code_date: newest.and_then(|f| f.code_date),
            code_date_source: newest.and_then(|f| f.code_date_source),
            after_cutoff: if dated.iter().any(|f| f.after_cutoff == Some(true)) {
                Some(true)
            } else if dated.iter().all(|f| f.after_cutoff == Some(false)) && !dated.is_empty() {
                Some(false)
            } else {
                None
            },
        })
    };
    let mut out = Vec::new();
    out.extend(make(None, AssertionForm::Value, None));
    for v in &k.variants {
        out.extend(make(Some(v), AssertionForm::Value, None));
    }
    if let Some(v) = k.variants.first() {
        if let Some(variant_python) = shown(&v.value) {
            let coin = seeded(opts.seed, &format!("verify/{}", k.group_id)).is_multiple_of(2);
            let (on_original, on_variant) = if coin {
                (original_python.clone(), original_python.clone())
            } else {
                (variant_python.clone(), variant_python)
            };
            // coin: the original's claim holds and the variant's does not; else the reverse.
            out.extend(make(None, AssertionForm::Verify, Some(on_original)));
            out.extend(make(Some(v), AssertionForm::Verify, Some(on_variant)));
        }
    }
    out
}

/// The identifiers of a piece of code.
fn identifiers(code: &str) -> BTreeSet<&str> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .collect()
}

fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() > 80 {
        format!(
            "{}...",
            &s[..s.char_indices().nth(77).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}
