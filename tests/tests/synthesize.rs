//! synthesize-tests on the fixture projects, as a built binary: coverage function by
//! function, expected values checked against oracles written here, prompts, determinism,
//! resuming, and bad input.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use freshbench_tests::{pipeline, run, run_ok};
use schemas::{Function, FunctionTask, TestCase};

/// Options every run here uses: no environments (the numpy functions need the network to
/// build one; they are rejected with `environment`), and a time budget no search reaches,
/// so that the call budget alone decides and runs are reproducible on a loaded machine.
const OPTS: &[&str] = &["--no-envs", "--seconds", "600", "--jobs", "2"];

fn synthesize(dir: &Path, extra: &[&str]) -> std::process::Output {
    let d = dir.to_str().expect("utf-8 temp path");
    let mut args = vec!["--data", d];
    if !extra.contains(&"-v") {
        args.push("-q");
    }
    args.extend_from_slice(OPTS);
    args.extend_from_slice(extra);
    run_ok("synthesize-tests", &args)
}

/// The fixtures crawled, resolved, classified and synthesized once for all tests.
fn dataset() -> &'static Path {
    static DATA: OnceLock<tempfile::TempDir> = OnceLock::new();
    DATA.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        pipeline(dir.path());
        synthesize(dir.path(), &[]);
        dir
    })
    .path()
}

/// A copy of the fixture tables up to classify (no tasks).
fn fresh_copy() -> tempfile::TempDir {
    let src = dataset();
    let dir = tempfile::tempdir().unwrap();
    for t in [
        "repos",
        "files",
        "modules",
        "functions",
        "references",
        "classifications",
    ] {
        std::fs::copy(
            src.join(format!("{t}.parquet")),
            dir.path().join(format!("{t}.parquet")),
        )
        .unwrap();
    }
    dir
}

fn tasks_by_name(dir: &Path) -> BTreeMap<String, FunctionTask> {
    let functions: Vec<Function> = schemas::read_table(dir).unwrap();
    let names: BTreeMap<&str, &str> = functions
        .iter()
        .map(|f| (f.function_id.as_str(), f.qualname.as_str()))
        .collect();
    let tasks: Vec<FunctionTask> = schemas::read_table(dir).unwrap();
    tasks
        .into_iter()
        .map(|t| (names[t.function_id.as_str()].to_string(), t))
        .collect()
}

/// The rows with the columns that record time blanked.
fn timeless(dir: &Path) -> (Vec<FunctionTask>, Vec<TestCase>) {
    let mut tasks: Vec<FunctionTask> = schemas::read_table(dir).unwrap();
    for t in &mut tasks {
        t.seconds = 0.0;
        t.search_seconds = 0.0;
    }
    (tasks, schemas::read_table(dir).unwrap())
}

/// Every function of the fixtures whose arcs can all be reached with literal arguments.
const REACHABLE: &[&str] = &[
    "clamp",
    "is_prime",
    "simplify_ratio",
    "round_half_even",
    "digit_sum",
    "summary",
    "grade",
    "slugify",
    "strip_punctuation",
    "parse_date",
    "days_between",
    "parse_key_values",
    "most_common_words",
    "group_by_initial",
    "pairwise_diffs",
    "chunked",
    "top_k",
    "insert_sorted",
    "dedupe",
    "truncate",
    "pad",
    "run_length_encode",
    "run_length_decode",
    "first_repeated",
    "count_vowels",
    "join_nonempty",
    "parse_int",
    "to_hex",
    "word_lengths",
    "transpose",
    "sort_by_length",
    "caesar",
    "Table.split_line",
    "celsius_to_kelvin",
    "hpa_to_inhg",
    "inhg_to_hpa",
    "fit_linear",
    "apply_calibration",
    "celsius_to_fahrenheit",
    "dew_point",
    "rolling_median",
    "outliers",
    "rms",
];

#[test]
fn every_reachable_arc_is_covered_function_by_function() {
    let tasks = tasks_by_name(dataset());
    let mut short = Vec::new();
    for name in REACHABLE {
        let t = tasks
            .get(*name)
            .unwrap_or_else(|| panic!("no task for {name}"));
        if t.status != "ok".parse().unwrap() || t.arcs_covered != t.arcs_total || t.arcs_total == 0
        {
            short.push(format!(
                "{name}: {} {}/{} arcs, {:?}",
                t.status, t.arcs_covered, t.arcs_total, t.reason
            ));
        }
        assert!(t.cases > 0, "{name} has no cases");
        assert!(t.branches_covered <= t.branches_total);
    }
    assert!(
        short.is_empty(),
        "short of full coverage:\n{}",
        short.join("\n")
    );
}

#[test]
fn what_cannot_be_a_task_is_rejected_with_its_reason() {
    let tasks = tasks_by_name(dataset());
    // numpy, and no environment with --no-envs: not tried (`infra`, tried again by a rerun
    // with environments), not rejected.
    for name in ["moving_average", "normalize"] {
        let t = &tasks[name];
        assert_eq!(t.status, schemas::TaskStatus::Infra, "{name}");
        assert!(
            t.reason.as_deref().unwrap_or("").contains("(--no-envs)"),
            "{t:?}"
        );
    }
    // Returns a function: no value to compare, so classify leaves it out of the candidates.
    assert!(!tasks.contains_key("retry"), "retry became a task");
    let functions: Vec<Function> = schemas::read_table(dataset()).unwrap();
    let classes: Vec<schemas::Classification> = schemas::read_table(dataset()).unwrap();
    let retry = functions
        .iter()
        .find(|f| f.qualname == "retry")
        .expect("the fixture defines retry");
    let c = classes
        .iter()
        .find(|c| c.function_id == retry.function_id)
        .expect("retry is classified");
    assert_eq!(c.class, "rejected".parse().unwrap());
    assert!(
        c.reasons.iter().any(|r| r == "returns_function"),
        "{:?}",
        c.reasons
    );
    // Every candidate has a row: the reachable ones, the two without an environment, and
    // the rest (each named in the coverage test's exceptions).
    let candidates = classes
        .iter()
        .filter(|c| matches!(c.class.as_str(), "self_contained" | "weakly_self_contained"))
        .count();
    assert_eq!(tasks.len(), candidates);
    assert!(REACHABLE.iter().all(|n| tasks.contains_key(*n)));
}

fn ints(literal: &str) -> Vec<i128> {
    literal
        .trim_matches(['[', ']'])
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .unwrap_or_else(|_| panic!("not an int list: {literal}"))
        })
        .collect()
}

fn cases_of(name: &str) -> Vec<TestCase> {
    let tasks = tasks_by_name(dataset());
    let id = &tasks[name].task_id;
    let cases: Vec<TestCase> = schemas::read_table(dataset()).unwrap();
    let mine: Vec<TestCase> = cases.into_iter().filter(|c| c.task_id == *id).collect();
    assert!(!mine.is_empty(), "{name} has no cases");
    mine
}

fn is_prime(n: i128) -> bool {
    if n < 2 {
        return false;
    }
    let mut d = 2;
    while d * d <= n {
        if n % d == 0 {
            return false;
        }
        d += 1;
    }
    true
}

/// The expected values the original gave, checked case by case against oracles written
/// here from the functions' docstrings.
#[test]
fn expected_values_agree_with_independent_oracles() {
    for c in cases_of("is_prime") {
        let n = ints(&c.args)[0];
        let want = if is_prime(n) { "True" } else { "False" };
        assert_eq!(c.expected_repr.as_deref(), Some(want), "is_prime({n})");
    }
    // digit_sum(n, base=10): sum of the digits of |n|; ValueError for a base under 2.
    for c in cases_of("digit_sum") {
        if !c
            .args
            .chars()
            .all(|ch| ch.is_ascii_digit() || "[], -".contains(ch))
            || c.kwargs != "{}"
        {
            continue; // an argument of another type: checked by the other asserts
        }
        let a = ints(&c.args);
        let (n, base) = (a[0], a.get(1).copied().unwrap_or(10));
        if base < 2 {
            assert_eq!(
                c.expected_exception.as_deref(),
                Some("ValueError"),
                "digit_sum{a:?}"
            );
            continue;
        }
        let (mut m, mut total) = (n.abs(), 0);
        while m > 0 {
            total += m % base;
            m /= base;
        }
        assert_eq!(c.expected_repr, Some(total.to_string()), "digit_sum{a:?}");
    }
    // simplify_ratio(a, b): lowest terms, positive denominator; ValueError when b == 0.
    for c in cases_of("simplify_ratio") {
        let args = ints(&c.args);
        let (num, den) = (args[0], args[1]);
        if den == 0 {
            assert_eq!(c.expected_exception.as_deref(), Some("ValueError"));
            continue;
        }
        let common = gcd(num.abs(), den.abs());
        let (mut top, mut bottom) = (num / common, den / common);
        if bottom < 0 {
            top = -top;
            bottom = -bottom;
        }
        assert_eq!(
            c.expected_repr,
            Some(format!("({top}, {bottom})")),
            "simplify_ratio({num}, {den})"
        );
    }
    // The cases of is_prime reach both answers and the small-number branches.
    let reprs: Vec<String> = cases_of("is_prime")
        .into_iter()
        .filter_map(|c| c.expected_repr)
        .collect();
    assert!(reprs.contains(&"True".to_string()) && reprs.contains(&"False".to_string()));
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[test]
fn prompts_hold_signature_and_docstring_or_examples() {
    let tasks = tasks_by_name(dataset());
    let clamp = &tasks["clamp"];
    assert_eq!(clamp.prompt_kind, "docstring".parse().unwrap());
    assert!(clamp
        .prompt
        .contains("def clamp(x: float, lo: float, hi: float) -> float:"));
    assert!(clamp
        .prompt
        .trim_end()
        .ends_with("\"\"\"Limit ``x`` to the closed interval [lo, hi].\"\"\""));
    assert!(
        !clamp.prompt.contains("raise"),
        "the body leaked into the prompt"
    );
    assert!(clamp.canonical_solution.contains("raise ValueError"));
    // digit_sum has no docstring: the prompt shows examples the original gave.
    let ds = &tasks["digit_sum"];
    assert_eq!(ds.prompt_kind, "synthesized".parse().unwrap());
    assert!(ds.prompt.contains(">>> digit_sum("), "{}", ds.prompt);
    assert!(!ds.prompt.contains("divmod"));
    // Imports the function may use come first.
    let parse_date = &tasks["parse_date"];
    assert!(
        parse_date.prompt.starts_with("import datetime\n"),
        "{}",
        parse_date.prompt
    );
    assert_eq!(parse_date.entry_point, "parse_date");
}

#[test]
fn two_runs_give_identical_tasks_and_cases() {
    let again = fresh_copy();
    synthesize(again.path(), &[]);
    let (a_tasks, a_cases) = timeless(dataset());
    let (b_tasks, b_cases) = timeless(again.path());
    assert_eq!(a_tasks.len(), b_tasks.len());
    for (a, b) in a_tasks.iter().zip(&b_tasks) {
        assert_eq!(a, b, "task of {} differs between two runs", a.entry_point);
    }
    assert!(a_cases == b_cases, "test_cases differ between two runs");
}

#[test]
fn a_rerun_keeps_what_was_made_and_completes_the_rest() {
    let dir = fresh_copy();
    let (tasks, cases) = timeless(dataset());
    // As if a run had been killed after the first half of the functions.
    let half: Vec<FunctionTask> =
        schemas::read_table::<FunctionTask>(dataset()).unwrap()[..tasks.len() / 2].to_vec();
    schemas::write_table(dir.path(), &half).unwrap();
    schemas::write_table::<TestCase>(dir.path(), &[]).unwrap();
    let out = synthesize(dir.path(), &["-v"]);
    let log = String::from_utf8_lossy(&out.stderr);
    // Kept: the half that was made, but for the functions the harness could not try.
    let kept = half
        .iter()
        .filter(|t| t.status != schemas::TaskStatus::Infra)
        .count();
    assert!(log.contains(&format!("already_done={kept}")), "{log}");
    let (t2, c2) = timeless(dir.path());
    assert_eq!(t2, tasks);
    // The kept half has no cases (they were not written back); the rest was made again.
    let redone: std::collections::BTreeSet<&str> = tasks[half.len()..]
        .iter()
        .map(|t| t.task_id.as_str())
        .collect();
    let want: Vec<&TestCase> = cases
        .iter()
        .filter(|c| redone.contains(c.task_id.as_str()))
        .collect();
    let got: Vec<&TestCase> = c2
        .iter()
        .filter(|c| redone.contains(c.task_id.as_str()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn missing_classifications_is_an_error_that_says_what_to_run() {
    let dir = fresh_copy();
    std::fs::remove_file(dir.path().join("classifications.parquet")).unwrap();
    let out = run(
        "synthesize-tests",
        &["--data", dir.path().to_str().unwrap(), "-q"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("classifications.parquet") && err.contains("classify"),
        "{err}"
    );
}
