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
        "EXEC_ARGS=--no-envs",
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
        "score",
    ] {
        assert!(
            timings.lines().any(|l| l.split('\t').nth(1) == Some(stage)),
            "{stage} has no timing:\n{timings}"
        );
    }
    let stages_run = timings.lines().count();
    completion_tasks_of_the_fixtures(&dir);

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
