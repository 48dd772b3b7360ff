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
/// mutants): values of every kind the family documents, the hash-seed-dependent one
/// rejected by validation, and the reference solvers where they must be: oracle 100%,
/// null 0%, memorized 100% on the original programs and 0% on the mutated ones.
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
    for t in &seeded {
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
