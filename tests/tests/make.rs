//! The make pipeline (pipelines/dataset.mk) on the fixtures: it runs from crawl to the
//! report, a second make with nothing changed runs no stage, and a changed table reruns
//! exactly the stages downstream of it.

use std::path::Path;
use std::process::Command;

use freshbench_tests::{bin, root};

fn make(dir: &Path, extra: &[&str]) -> std::process::Output {
    let d = format!("D={}", dir.display());
    let mut args = vec![
        "--no-print-directory",
        "-f",
        "Makefile",
        "pipeline",
        d.as_str(),
        "SRC=data/fixtures/sources.toml",
        "SYNTH_ARGS=--no-envs",
    ];
    args.extend_from_slice(extra);
    Command::new("make")
        .args(&args)
        .current_dir(root())
        .output()
        .expect("make runs")
}

#[test]
fn the_pipeline_reruns_only_what_changed() {
    if Command::new("make").arg("--version").output().is_err() {
        eprintln!("SKIPPED: make pipeline test: no `make` on PATH");
        return;
    }
    // The stage binaries the makefile names.
    for b in [
        "crawl",
        "resolve",
        "classify",
        "synthesize-tests",
        "execute",
        "mask",
        "slice",
        "solve",
        "score",
    ] {
        bin(b);
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let out = make(&dir, &[]);
    assert!(
        out.status.success(),
        "make pipeline failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("report.html").is_file());
    let timings = std::fs::read_to_string(dir.join("timings.tsv")).unwrap();
    for stage in [
        "crawl",
        "resolve",
        "classify",
        "synthesize-tests",
        "repo-tests",
        "mask",
        "validate",
        "slice",
        "solve:oracle",
        "execute:mutant",
        "execute:memorized",
        "score",
    ] {
        assert!(
            timings.lines().any(|l| l.split('\t').nth(1) == Some(stage)),
            "{stage} has no timing:\n{timings}"
        );
    }
    let stages_run = timings.lines().count();
    completion_tasks_of_the_fixtures(&dir);
    assertion_tasks_of_the_fixtures(&dir);
    slices_of_the_fixtures(&dir);
    assertion_values_of_textkit(tmp.path(), &dir);

    // Nothing changed: `make -q` says up to date, and a second make runs no stage.
    let q = make(&dir, &["-q"]);
    assert_eq!(
        q.status.code(),
        Some(0),
        "make -q: something is out of date"
    );
    let again = make(&dir, &[]);
    assert!(again.status.success());
    let timings = std::fs::read_to_string(dir.join("timings.tsv")).unwrap();
    assert_eq!(timings.lines().count(), stages_run, "a stage ran again");

    // A newer classifications table: synthesize-tests and everything after it, nothing before.
    let f = std::fs::File::options()
        .append(true)
        .open(dir.join("classifications.parquet"))
        .unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    let dry = make(&dir, &["-n"]);
    let plan = String::from_utf8_lossy(&dry.stdout);
    assert!(plan.contains("synthesize-tests --data"), "{plan}");
    assert!(plan.contains("score --data"), "{plan}");
    assert!(!plan.contains("crawl --data"), "{plan}");
    assert!(!plan.contains("resolve --data"), "{plan}");
    assert!(!plan.contains("classify --data"), "{plan}");
}

/// The fixtures' completion tasks (mask on the fixtures' own suites): spans of every level,
/// each splicing back into its file, judged by tests, and no task whose reference appears in
/// its own context.
fn completion_tasks_of_the_fixtures(dir: &Path) {
    let tasks: Vec<schemas::CompletionTask> = schemas::read_table(dir).unwrap();
    let files: Vec<schemas::File> = schemas::read_table(dir).unwrap();
    for level in schemas::SpanKind::ALL {
        assert!(
            tasks.iter().any(|t| t.span_kind == *level),
            "no {level} span among the fixtures' {} completion tasks",
            tasks.len()
        );
    }
    for t in &tasks {
        let file = files
            .iter()
            .find(|f| f.repo_id == t.repo_id && f.path == t.path)
            .unwrap();
        let whole = format!("{}{}{}", t.prefix, t.reference, t.suffix);
        assert_eq!(
            Some(whole.as_str()),
            file.content.as_deref(),
            "{}",
            t.task_id
        );
        assert!(!t.tests.is_empty(), "{}", t.task_id);
        for c in &t.context {
            assert!(
                !c.text.contains(t.reference.trim()),
                "task {}: its reference {:?} is in its context ({})",
                t.task_id,
                t.reference,
                c.path
            );
        }
    }
}

/// The fixtures' assertion tasks (mask running the fixtures' suites with captures and
/// mutants): mutated ones among them, the kinds of assertion, and the reference solvers
/// where they must be: oracle 100%, null 0%, memorized 100% on the original programs and
/// 0% on the mutated ones.
fn assertion_tasks_of_the_fixtures(dir: &Path) {
    use schemas::{AssertionKind, AssertionTask, ExecStatus, Execution, Validation};
    let tasks: Vec<AssertionTask> = schemas::read_table(dir).unwrap();
    let validations: Vec<Validation> = schemas::read_table(dir).unwrap();
    let valid: std::collections::HashSet<&str> = validations
        .iter()
        .filter(|v| v.valid)
        .map(|v| v.task_id.as_str())
        .collect();
    let mine: Vec<&AssertionTask> = tasks
        .iter()
        .filter(|t| valid.contains(t.task_id.as_str()))
        .collect();
    assert!(
        mine.iter().any(|t| t.mutated),
        "no valid mutated assertion task"
    );
    for kind in [
        AssertionKind::Equal,
        AssertionKind::Approx,
        AssertionKind::Raises,
    ] {
        assert!(
            mine.iter().any(|t| t.kind == kind),
            "no valid {kind} assertion task"
        );
    }
    let by_id: std::collections::HashMap<&str, &AssertionTask> =
        mine.iter().map(|t| (t.task_id.as_str(), *t)).collect();
    for (run, want) in [
        ("oracle", Some(true)),
        ("null", Some(false)),
        ("memorized", None),
    ] {
        let execs: Vec<Execution> = schemas::read_table(&dir.join("runs").join(run)).unwrap();
        let mut seen = 0;
        for e in execs
            .iter()
            .filter(|e| by_id.contains_key(e.task_id.as_str()))
        {
            seen += 1;
            let t = by_id[e.task_id.as_str()];
            let pass = e.status == ExecStatus::Pass;
            // memorized: right on the original programs, wrong on every mutated one.
            let expect = want.unwrap_or(!t.mutated);
            assert_eq!(
                pass, expect,
                "run {run}, task {} ({:?}): {:?}",
                t.task_id, t.masked_assertion, e.detail
            );
        }
        assert_eq!(
            seen,
            mine.len(),
            "run {run}: every valid assertion task judged"
        );
    }
}

/// Every valid task of every family has a slice, at least 98% of each family with figures
/// (`ok`), and the report's difficulty comes from them.
fn slices_of_the_fixtures(dir: &Path) {
    use schemas::{Slice, SliceStatus, Validation};
    let validations: Vec<Validation> = schemas::read_table(dir).unwrap();
    let slices: Vec<Slice> = schemas::read_table(dir).unwrap();
    let of: std::collections::HashMap<&str, &Slice> =
        slices.iter().map(|s| (s.task_id.as_str(), s)).collect();
    for family in [
        schemas::Family::Function,
        schemas::Family::Completion,
        schemas::Family::Assertion,
    ] {
        let valid: Vec<&Validation> = validations
            .iter()
            .filter(|v| v.valid && v.family == family)
            .collect();
        assert!(!valid.is_empty(), "no valid {family} task");
        let ok = valid
            .iter()
            .filter(|v| {
                of.get(v.task_id.as_str())
                    .is_some_and(|s| s.status == SliceStatus::Ok)
            })
            .count();
        assert!(
            ok * 100 >= valid.len() * 98,
            "{family}: {ok} of {} valid tasks sliced: {:?}",
            valid.len(),
            slices
                .iter()
                .filter(|s| s.family == family && s.status != SliceStatus::Ok)
                .map(|s| s.reason.clone())
                .take(3)
                .collect::<Vec<_>>()
        );
        for v in &valid {
            if let Some(s) = of
                .get(v.task_id.as_str())
                .filter(|s| s.status == SliceStatus::Ok)
            {
                assert!(
                    s.esv.unwrap() > 0 && s.mcl.unwrap() > 0 && s.depth.unwrap() > 0,
                    "{s:?}"
                );
            }
        }
    }
    let report = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        !report.contains("Proxy difficulty"),
        "the report uses the proxy"
    );
}

/// Every assertion of textkit (whose `test_values.py` holds values of each kind the family
/// documents) and ledger (objects with a repr: `Money`), in a copy of the dataset: mask without the per-repository cap, then
/// validation. Each kind of value is among the valid tasks, and the one whose repr follows
/// PYTHONHASHSEED (a `Counter` built from a set) is rejected as `unstable`.
fn assertion_values_of_textkit(tmp: &Path, dir: &Path) {
    use schemas::{AssertionTask, Validation};
    let copy = tmp.join("textkit-assertions");
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
        }
    }
    for (prog, args) in [
        (
            "mask",
            vec![
                "--family",
                "assertion",
                "--repo",
                "textkit",
                "--repo",
                "ledger",
                "--assertions-per-repo",
                "500",
                "--assertion-mutants",
                "1",
            ],
        ),
        ("execute", vec!["--validate", "--jobs", "2"]),
    ] {
        let out = Command::new(bin(prog))
            .arg("--data")
            .arg(&copy)
            .args(&args)
            .current_dir(root())
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{prog} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tasks: Vec<AssertionTask> = schemas::read_table(&copy).unwrap();
    let validations: Vec<Validation> = schemas::read_table(&copy).unwrap();
    let valid: std::collections::HashSet<&str> = validations
        .iter()
        .filter(|v| v.valid)
        .map(|v| v.task_id.as_str())
        .collect();
    let mine: Vec<&AssertionTask> = tasks
        .iter()
        .filter(|t| valid.contains(t.task_id.as_str()))
        .collect();
    // Values of each kind, as tagged JSON.
    for tag in [
        "\"t\":\"float\"",
        "\"t\":\"set\"",
        "\"t\":\"frozenset\"",
        "\"t\":\"dict\"",
        "\"t\":\"tuple\"",
        "\"t\":\"object\"",
    ] {
        assert!(
            mine.iter().any(|t| t.value_json.contains(tag)),
            "no valid assertion task whose value holds {tag}"
        );
    }
    // The Counter built from a set: its repr follows PYTHONHASHSEED, so no task of it.
    let seeded: Vec<&AssertionTask> = tasks
        .iter()
        .filter(|t| {
            t.test_node_id
                .ends_with("test_value_that_depends_on_the_hash_seed")
        })
        .collect();
    assert!(
        !seeded.is_empty(),
        "the hash-seed assertion was not recorded"
    );
    // On the original program its value follows the set's order: `unstable`. (A variant
    // may be stable: a mutant that leaves one word has one order.)
    assert!(seeded.iter().any(|t| !t.mutated));
    for t in seeded.iter().filter(|t| !t.mutated) {
        let v = validations.iter().find(|v| v.task_id == t.task_id).unwrap();
        assert!(
            !v.valid
                && v.reason
                    .as_deref()
                    .is_some_and(|r| r.starts_with("unstable")),
            "{}: {:?}",
            t.task_id,
            v.reason
        );
    }
}
