//! The built `score` binary on datasets written by hand.

mod common;

use std::path::Path;

use common::{read_scores, score, standard, write_dataset, write_run, write_slices};
use schemas::{examples, Family, Score, Slice, Validation};

fn get<'a>(rows: &'a [Score], breakdown: &str, group: &str, k: i32) -> &'a Score {
    let breakdown: schemas::Breakdown = breakdown.parse().unwrap();
    rows.iter()
        .find(|r| r.breakdown == breakdown && r.group_key == group && r.k == k)
        .unwrap_or_else(|| panic!("no row {breakdown}/{group}/k={k} in {rows:#?}"))
}

fn groups(rows: &[Score], breakdown: &str) -> Vec<(String, i64)> {
    let breakdown: schemas::Breakdown = breakdown.parse().unwrap();
    rows.iter()
        .filter(|r| r.breakdown == breakdown && r.k == 1)
        .map(|r| (r.group_key.clone(), r.tasks))
        .collect()
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn d(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

#[test]
fn oracle_and_null_runs_with_a_cutoff() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    standard(dir);
    let out = score(&[
        "--data",
        d(dir),
        "--run",
        "oracle",
        "--run",
        "null",
        "--cutoff",
        "2024-01-01",
        "--bootstrap",
        "300",
    ]);
    ok(&out);

    let oracle = read_scores(dir, "oracle");
    let all = get(&oracle, "overall", "all", 1);
    assert_eq!(all.run, "oracle");
    // The invalid task is excluded: 9 of 10.
    assert_eq!(all.tasks, 9);
    assert_eq!((all.pass_at_k, all.ci_low, all.ci_high), (1.0, 1.0, 1.0));
    // One sample per task: pass@1 only.
    assert!(oracle.iter().all(|r| r.k == 1));

    let null = read_scores(dir, "null");
    for k in [1, 2, 3] {
        let r = get(&null, "overall", "all", k);
        assert_eq!(
            (r.pass_at_k, r.ci_low, r.ci_high, r.tasks),
            (0.0, 0.0, 0.0, 9)
        );
    }
    assert!(!null.iter().any(|r| r.k > 3));

    for rows in [&oracle, &null] {
        assert_eq!(groups(rows, "family"), [("function".into(), 9)]);
        assert_eq!(
            groups(rows, "class"),
            [
                ("self_contained".into(), 5),
                ("weakly_self_contained".into(), 4)
            ]
        );
        assert_eq!(
            groups(rows, "repo"),
            [
                ("alpha".into(), 4),
                ("beta".into(), 4),
                ("gamma&co".into(), 1)
            ]
        );
        assert_eq!(
            groups(rows, "window"),
            [
                ("before_cutoff".into(), 4),
                ("after_cutoff".into(), 4),
                ("unknown".into(), 1)
            ]
        );
        let diff = groups(rows, "difficulty");
        assert!(
            diff.iter().all(|(g, _)| g.ends_with(" (proxy)")),
            "{diff:?}"
        );
        assert_eq!(diff.iter().map(|(_, n)| n).sum::<i64>(), 9);
        // Breakdowns in order.
        let order: Vec<&str> = rows.iter().map(|r| r.breakdown.as_str()).collect();
        let mut dedup = order.clone();
        dedup.dedup();
        assert_eq!(
            dedup,
            [
                "overall",
                "family",
                "class",
                "repo",
                "difficulty",
                "window",
                "quarter"
            ]
        );
        // The contamination curve's groups: the quarter of each task's code date.
        assert_eq!(
            groups(rows, "quarter"),
            [
                ("2023Q2".into(), 4),
                ("2024Q3".into(), 4),
                ("unknown".into(), 1)
            ]
        );
    }

    // One report, in the first run's folder, holding both runs.
    let report = dir.join("runs/oracle/report.html");
    assert!(!dir.join("runs/null/report.html").exists());
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.matches("<svg class=\"chart\"").count() >= 6, "charts");
    assert!(html.contains("<b>oracle</b>") && html.contains("<b>null</b>"));
    assert!(html.contains("gamma&amp;co") && !html.contains("gamma&co"));
    assert!(html.contains("before_cutoff") && html.contains("after_cutoff"));
    assert!(html.contains("id=\"curve\"") && html.matches("class=\"curve\"").count() == 2);
    assert!(html.contains("has likely seen"));
    assert!(html.contains("<b>oracle</b> is ahead") && html.contains("href=\"#compared\""));
    assert!(
        html.contains("<span class=\"big\">+100.0</span><span class=\"ci\">CI +100.0 to +100.0")
    );
    assert!(html.contains("Proxy difficulty"));
    assert!(!html.contains("<script") && !html.contains("<link"));
    assert!(html.contains("logic") && html.contains("runtime") && html.contains("syntax"));
    assert!(html.contains("pass@3"));
}

#[test]
fn pass_at_k_end_to_end_and_missing_tasks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_dataset(dir);
    // Four samples, two pass, on every valid task but t0 (missing).
    let tasks: Vec<usize> = (1..9).collect();
    write_run(dir, "half", "command:half", &tasks, 4, |_, s| s < 2);
    let out = score(&["--data", d(dir), "--run", "half"]);
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("without any execution"), "{stderr}");
    let rows = read_scores(dir, "half");
    let at = |k| get(&rows, "overall", "all", k);
    assert!((at(1).pass_at_k - 0.5).abs() < 1e-12);
    // 1 - C(2,2)/C(4,2)
    assert!((at(2).pass_at_k - 5.0 / 6.0).abs() < 1e-12);
    assert!((at(4).pass_at_k - 1.0).abs() < 1e-12);
    assert_eq!(at(1).tasks, 8);
    assert!(rows.iter().all(|r| r.k == 1 || r.k == 2 || r.k == 4));
    // Every task scores the same: the interval is the point.
    assert_eq!(
        (at(2).ci_low, at(2).ci_high),
        (at(2).pass_at_k, at(2).pass_at_k)
    );
    // No cutoff: no window breakdown.
    assert!(!rows
        .iter()
        .any(|r| r.breakdown == "window".parse().unwrap()));
    let html = std::fs::read_to_string(dir.join("runs/half/report.html")).unwrap();
    assert!(html.contains("1 valid task without any execution"));
    assert!(html.contains("command:half"));
    assert!(html.contains("No cutoff was given"));
}

#[test]
fn slices_give_difficulty_tertiles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    common::standard(dir);
    write_slices(dir);
    ok(&score(&["--data", d(dir), "--run", "oracle"]));
    let rows = read_scores(dir, "oracle");
    // Difficulty grows with the task number: t0-t2 low, t3-t5 medium, t6-t8 high.
    assert_eq!(
        groups(&rows, "difficulty"),
        [("low".into(), 3), ("medium".into(), 3), ("high".into(), 3)]
    );
    // Each figure on its own: ESV 10..18, MCL 0..800 and DFI 1, 1, 1, 2, ... all rise
    // with the task number.
    for breakdown in ["esv", "mcl", "dfi"] {
        assert_eq!(
            groups(&rows, breakdown),
            [("low".into(), 3), ("medium".into(), 3), ("high".into(), 3)],
            "{breakdown}"
        );
    }
    let html = std::fs::read_to_string(dir.join("runs/oracle/report.html")).unwrap();
    assert!(html.contains("ESV") && !html.contains("Proxy difficulty"));
    assert!(html.contains("low (ESV 10–12)") && html.contains("high (MCL 600–800)"));
    assert!(html.contains("<b>oracle</b>: no failures."));
    assert!(html.contains("ESV–MCL rho=1.00"));
}

/// Only slices of status `ok` measure a task: the others are placed by the proxy in the
/// combined difficulty (function tasks, named `(proxy)`) and are `unknown` in ESV, MCL and
/// DFI each; the report names the figure that goes with the failures.
#[test]
fn slices_that_are_not_ok_are_unknown_and_each_figure_is_a_breakdown() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_dataset(dir);
    // t0-t6 traced: ESV rises with the task number, MCL falls, DFI goes 1, 2, 3, 1, ...;
    // t7 timed out, t8 could not be traced (t9 is invalid).
    common::write_slices_with(dir, |i| match i {
        7 => common::unmeasured_slice(i, schemas::SliceStatus::Timeout),
        8 => common::unmeasured_slice(i, schemas::SliceStatus::Untraceable),
        _ => Slice {
            esv: Some(10 + i as i32),
            mcl: Some(1000 - 10 * i as i64),
            dfi: Some(1 + (i % 3) as i32),
            ..examples::slice(&common::task_id(i), Family::Function)
        },
    });
    // Of 4 samples, task i passes 4 - i (none from t4 on): failures rise with ESV.
    write_run(dir, "graded", "m", &common::all_tasks(), 4, |i, s| {
        (s as usize) + i < 4
    });
    ok(&score(&["--data", d(dir), "--run", "graded"]));
    let rows = read_scores(dir, "graded");
    // ESV and MCL cancel out in the combined rank: DFI orders it (1: t0, t3, t6; 2: t1,
    // t4; 3: t2, t5).
    let tertiles = |low, medium, high| {
        vec![
            ("low".to_string(), low),
            ("medium".to_string(), medium),
            ("high".to_string(), high),
            ("unknown".to_string(), 2),
        ]
    };
    // In the combined difficulty the two function tasks without a slice are placed by
    // the proxy (branches and lines), named so; each figure's own breakdown has them
    // `unknown`.
    let combined = groups(&rows, "difficulty");
    let sliced: Vec<(String, i64)> = combined
        .iter()
        .filter(|(g, _)| !g.ends_with("(proxy)"))
        .cloned()
        .collect();
    assert_eq!(sliced, tertiles(3, 2, 2)[..3]);
    let proxied: i64 = combined
        .iter()
        .filter(|(g, _)| g.ends_with("(proxy)"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(proxied, 2, "{combined:?}");
    assert_eq!(groups(&rows, "esv"), tertiles(3, 2, 2));
    assert_eq!(groups(&rows, "mcl"), tertiles(3, 2, 2));
    assert_eq!(groups(&rows, "dfi"), tertiles(3, 2, 2));
    // ESV's low tertile is t0-t2: 4, 3 and 2 of 4 samples pass; its unknown t7 and t8
    // pass none; MCL's low tertile is t4-t6, which pass none.
    assert!((get(&rows, "esv", "low", 1).pass_at_k - 0.75).abs() < 1e-12);
    assert!(get(&rows, "esv", "unknown", 1).pass_at_k.abs() < 1e-12);
    assert!(get(&rows, "mcl", "low", 1).pass_at_k.abs() < 1e-12);
    let e = get(&rows, "esv", "low", 1);
    assert!(e.ci_low <= e.pass_at_k && e.pass_at_k <= e.ci_high);
    assert!(rows
        .iter()
        .any(|r| r.breakdown.as_str() == "dfi" && r.k == 4));

    let html = std::fs::read_to_string(dir.join("runs/graded/report.html")).unwrap();
    assert!(html.contains("low (ESV 10–12)"), "ESV bins");
    assert!(html.contains("low (MCL 940–960)") && html.contains("high (DFI 3)"));
    assert!(html.contains("unknown (no ok slice)"));
    assert!(html.contains("1 <code>timeout</code>, 1 <code>untraceable</code>"));
    assert!(html.contains("ESV–MCL rho=-1.00"));
    let sentence = html
        .split("<p><b>graded</b>: ")
        .nth(1)
        .and_then(|s| s.split("</p>").next())
        .unwrap_or_else(|| panic!("no sentence for graded in {html}"));
    assert!(sentence.starts_with("ESV rho=0.9"), "{sentence}");
    assert!(sentence.contains("MCL rho=-0.9"), "{sentence}");
    assert!(
        sentence.ends_with(": ESV explains most of the failures (over 7 tasks)."),
        "{sentence}"
    );
}

/// The gap before and after the cutoff is judged by the interval of the difference itself.
#[test]
fn the_gap_at_the_cutoff_has_its_own_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_dataset(dir);
    // Tasks 0-3 are of a repository published before 2024-01-01, 4-7 after it.
    write_run(dir, "recall", "m", &common::all_tasks(), 2, |i, _| i <= 3);
    write_run(dir, "close", "m", &common::all_tasks(), 2, |i, _| {
        [0, 1, 2, 4, 5].contains(&i)
    });
    let args = [
        "--data",
        d(dir),
        "--run",
        "recall",
        "--run",
        "close",
        "--cutoff",
        "2024-01-01",
    ];
    ok(&score(&args));
    let html = std::fs::read_to_string(dir.join("runs/recall/report.html")).unwrap();
    assert!(
        html.contains(
            "100.0 points higher on older code, beyond the uncertainty (the 95% interval of \
             the difference is [100.0, 100.0] points, all above zero)"
        ),
        "{html}"
    );
    // 75% against 50% on four tasks each: a gap within the uncertainty.
    assert!(html.contains("25.0 points higher on older code, within the uncertainty"));
    assert_eq!(html.matches("<p class=\"callout warn\"><b>").count(), 1);
    // Paired on the 9 valid tasks: recall wins t3, close wins t4 and t5.
    assert!(
        html.contains(
            "<b>recall</b> − <b>close</b></td><td class=\"num\">9</td><td class=\"num\">\
             <span class=\"big\">-11.1</span>"
        ),
        "{html}"
    );
    assert!(html.contains("no clear difference (the interval holds zero)"));
}

#[test]
fn output_is_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_dataset(dir);
    write_run(dir, "mixed", "m", &common::all_tasks(), 5, |i, s| {
        (i * 7 + s as usize * 3) % 4 == 0
    });
    let args = ["--data", d(dir), "--run", "mixed", "--cutoff", "2024-01-01"];
    ok(&score(&args));
    let first_rows = read_scores(dir, "mixed");
    let first_html = std::fs::read(dir.join("runs/mixed/report.html")).unwrap();
    ok(&score(&args));
    assert_eq!(first_rows, read_scores(dir, "mixed"));
    assert_eq!(
        first_html,
        std::fs::read(dir.join("runs/mixed/report.html")).unwrap()
    );
    // Non-trivial intervals that hold their estimates.
    let all = get(&first_rows, "overall", "all", 1);
    assert!(
        all.ci_low < all.pass_at_k && all.pass_at_k < all.ci_high,
        "{all:?}"
    );
    for r in &first_rows {
        assert!(r.ci_low <= r.pass_at_k + 1e-12 && r.pass_at_k <= r.ci_high + 1e-12);
    }
    // Another seed moves the intervals but not the estimates.
    ok(&score(&[
        "--data",
        d(dir),
        "--run",
        "mixed",
        "--cutoff",
        "2024-01-01",
        "--seed",
        "9",
    ]));
    let other = read_scores(dir, "mixed");
    assert_eq!(
        first_rows.iter().map(|r| r.pass_at_k).collect::<Vec<_>>(),
        other.iter().map(|r| r.pass_at_k).collect::<Vec<_>>()
    );
    assert_ne!(first_rows, other);
}

#[test]
fn report_path_option() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    standard(dir);
    let path = dir.join("out/cmp.html");
    ok(&score(&[
        "--data",
        d(dir),
        "--run",
        "null",
        "--run",
        "oracle",
        "--report",
        path.to_str().unwrap(),
    ]));
    assert!(path.is_file());
    assert!(!dir.join("runs/null/report.html").exists());
    assert!(dir.join("runs/null/scores.parquet").is_file());
    assert!(dir.join("runs/oracle/scores.parquet").is_file());
}

#[test]
fn missing_run_is_an_error_that_says_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    standard(dir);
    let out = score(&["--data", d(dir), "--run", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("solve") && stderr.contains("execute --data"),
        "{stderr}"
    );
    assert!(stderr.contains("--run nope"), "{stderr}");

    // A run folder without executions.
    std::fs::create_dir_all(dir.join("runs/empty")).unwrap();
    let out = score(&["--data", d(dir), "--run", "empty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no executions"));
    assert!(!dir.join("runs/empty/scores.parquet").exists());
}

#[test]
fn bad_input_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    standard(dir);
    for bad in ["2024-13-01", "2023-02-29", "soon"] {
        let out = score(&["--data", d(dir), "--run", "oracle", "--cutoff", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("YYYY-MM-DD"));
    }
    let out = score(&["--data", d(dir), "--run", "../oracle"]);
    assert_eq!(out.status.code(), Some(2));
    let out = score(&["--data", d(dir), "--run", "oracle", "--bootstrap", "0"]);
    assert_eq!(out.status.code(), Some(2));
    // No dataset tables.
    let empty = tempfile::tempdir().unwrap();
    let out = score(&["--data", d(empty.path()), "--run", "oracle"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `execute` first"));
}

#[test]
fn a_run_with_nothing_to_score_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_dataset(dir);
    // Only the invalid task was run.
    write_run(dir, "only-invalid", "m", &[9], 1, |_, _| true);
    let out = score(&["--data", d(dir), "--run", "only-invalid"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(read_scores(dir, "only-invalid").is_empty());
    assert!(dir.join("runs/only-invalid/report.html").is_file());
}

#[test]
fn help_documents_every_option() {
    let out = score(&["--help"]);
    ok(&out);
    let help = String::from_utf8_lossy(&out.stdout);
    for opt in [
        "--data",
        "--run",
        "--cutoff",
        "--report",
        "--bootstrap",
        "--seed",
        "--quiet",
        "--verbose",
    ] {
        assert!(help.contains(opt), "{opt} missing from\n{help}");
    }
}

/// Completion tasks are scored beside function tasks: in the family breakdown, by level in
/// the summary and the report, in the windows and on the contamination curve; without
/// slices of their own they are `unknown` difficulty, and nothing breaks.
#[test]
fn completion_tasks_by_level_beside_function_tasks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    standard(dir);
    common::write_completion(dir);
    write_slices(dir);
    // One sample each: c0 passes, c1 and c2 fail (c3 is invalid: ignored).
    common::add_completion_run(dir, "oracle", 1, |i, _| i == 0);
    let out = score(&[
        "--data",
        d(dir),
        "--run",
        "oracle",
        "--cutoff",
        "2024-01-01",
    ]);
    ok(&out);
    let rows = read_scores(dir, "oracle");
    assert_eq!(
        groups(&rows, "family"),
        [("function".into(), 9), ("completion".into(), 3)]
    );
    assert_eq!(get(&rows, "overall", "all", 1).tasks, 12);
    let c = get(&rows, "family", "completion", 1);
    assert!((c.pass_at_k - 1.0 / 3.0).abs() < 1e-12, "{c:?}");
    // The class breakdown stays the function tasks'.
    assert_eq!(
        groups(&rows, "class").iter().map(|(_, n)| n).sum::<i64>(),
        9
    );
    // Completion tasks' code dates place them in the windows and quarters: c0, c1 before
    // the cutoff (with alpha's 4), c2 after it (with beta's 4).
    assert_eq!(
        groups(&rows, "window"),
        [
            ("before_cutoff".into(), 6),
            ("after_cutoff".into(), 5),
            ("unknown".into(), 1)
        ]
    );
    assert_eq!(
        groups(&rows, "quarter"),
        [
            ("2023Q2".into(), 6),
            ("2024Q3".into(), 5),
            ("unknown".into(), 1)
        ]
    );
    // No slice for them: unknown difficulty, the function tasks' tertiles unchanged.
    assert_eq!(
        groups(&rows, "difficulty"),
        [
            ("low".into(), 3),
            ("medium".into(), 3),
            ("high".into(), 3),
            ("unknown".into(), 3)
        ]
    );

    // The summary on stdout: the completion family overall and by level, beside functions.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = |needle: &str| {
        stdout
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} in\n{stdout}"))
            .to_string()
    };
    assert!(line("function    all").contains("9 / 9"), "{stdout}");
    assert!(line("completion  all").contains("3 / 3"), "{stdout}");
    assert!(line("completion  all").contains("33.3%"), "{stdout}");
    assert!(line("level expression").contains("2  "), "{stdout}");
    assert!(line("level expression").contains("50.0%"), "{stdout}");
    assert!(line("level block").contains("0.0%"), "{stdout}");
    assert!(
        !stdout.contains("level function"),
        "c3 is invalid: {stdout}"
    );

    let html = std::fs::read_to_string(dir.join("runs/oracle/report.html")).unwrap();
    assert!(html.contains("id=\"family-completion\"") && html.contains("Completion tasks"));
    assert!(html.contains("pass@1 of completion tasks by level"));
    assert!(html.contains("<code>expression</code>") && html.contains("<code>block</code>"));
}

/// A dataset of completion tasks only (no `function_tasks` table) is scored too.
#[test]
fn a_dataset_of_completion_tasks_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    standard(dir);
    common::write_completion(dir);
    common::add_completion_run(dir, "oracle", 2, |_, s| s == 0);
    std::fs::remove_file(dir.join("function_tasks.parquet")).unwrap();
    let validations: Vec<Validation> = schemas::read_table(dir).unwrap();
    let completion: Vec<Validation> = validations
        .into_iter()
        .filter(|v| v.family == schemas::Family::Completion)
        .collect();
    schemas::write_table(dir, &completion).unwrap();
    let out = score(&["--data", d(dir), "--run", "oracle"]);
    ok(&out);
    let rows = read_scores(dir, "oracle");
    assert_eq!(groups(&rows, "family"), [("completion".into(), 3)]);
    assert!(groups(&rows, "class").is_empty());
    let c = get(&rows, "family", "completion", 1);
    assert_eq!(c.tasks, 3);
    assert!((c.pass_at_k - 0.5).abs() < 1e-12);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("level expression"), "{stdout}");
}

/// Without completion tasks the summary has the function family only.
#[test]
fn the_summary_without_completion_tasks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    standard(dir);
    let out = score(&["--data", d(dir), "--run", "oracle", "--run", "null"]);
    ok(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("run "), "{stdout}");
    assert!(!stdout.contains("completion"), "{stdout}");
    let oracle: Vec<&str> = stdout.lines().filter(|l| l.starts_with("oracle")).collect();
    // all, function, its two classes.
    assert_eq!(oracle.len(), 4, "{stdout}");
    assert!(oracle[0].contains("9 / 9") && oracle[0].contains("100.0% [100.0, 100.0]"));
    assert!(stdout
        .lines()
        .any(|l| l.starts_with("null") && l.contains("@3 0.0%")));
    // Nor anything of assertion tasks and their memorization gap.
    assert!(!stdout.contains("assertion") && !stdout.contains("memorization"));
    let html = std::fs::read_to_string(dir.join("runs/oracle/report.html")).unwrap();
    assert!(!html.contains("Completion tasks"));
    assert!(!html.contains("Assertion tasks") && !html.contains("id=\"memorization\""));
}

/// Assertion tasks beside function tasks: scored in the breakdowns, by form and by program
/// in the summary and the report, and each run's memorization gap (a run that recalls the
/// originals has a gap of 100 points, the oracle none).
#[test]
fn assertion_tasks_by_form_and_program_and_the_memorization_gap() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    standard(dir);
    common::write_assertion(dir);
    common::add_assertion_run(dir, "oracle", |_| true);
    // `null` fails every function task; here it passes the originals only, as a model
    // that recalls the repository's values would.
    common::add_assertion_run(dir, "null", |id| !id.contains('m'));
    let out = score(&["--data", d(dir), "--run", "oracle", "--run", "null"]);
    ok(&out);
    let rows = read_scores(dir, "null");
    // a2o is invalid: 10 assertion tasks, 4 of them originals.
    assert_eq!(
        groups(&rows, "family"),
        [("function".into(), 9), ("assertion".into(), 10)]
    );
    let a = get(&rows, "family", "assertion", 1);
    assert!((a.pass_at_k - 0.4).abs() < 1e-12, "{a:?}");
    assert!(groups(&rows, "class").iter().all(|(_, n)| *n < 10));

    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = |run: &str, needle: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(run) && l.contains(needle))
            .unwrap_or_else(|| panic!("{run} {needle} in\n{stdout}"))
            .to_string()
    };
    assert!(
        line("null", "assertion  all").contains("10 / 10"),
        "{stdout}"
    );
    // Value form: a?o pass, a?m? fail (2 of 6); verify: a?vo pass, a?vm fail (2 of 4).
    assert!(line("null", "form value").contains("33.3%"), "{stdout}");
    assert!(line("null", "form verify").contains("50.0%"), "{stdout}");
    assert!(line("null", "program original").contains("100.0% [100.0, 100.0]"));
    assert!(line("null", "program mutated").contains("0.0% [0.0, 0.0]"));
    assert!(line("oracle", "program mutated").contains("100.0%"));
    // The gaps, after the table.
    let gaps = &stdout[stdout.find("memorization gap:").expect("the gaps")..];
    let gap = |run: &str| {
        gaps.lines()
            .find(|l| l.starts_with(run))
            .unwrap_or_else(|| panic!("{run} in\n{gaps}"))
            .to_string()
    };
    assert!(gap("null").contains("+100.0 [+100.0, +100.0]"), "{gaps}");
    assert!(gap("null").contains("100.0% of 4") && gap("null").contains("0.0% of 6"));
    assert!(gap("oracle").contains("+0.0 [+0.0, +0.0]"), "{gaps}");
    assert!(
        gap("oracle").trim_end().ends_with(" 2"),
        "two assertions: {gaps}"
    );

    let html = std::fs::read_to_string(dir.join("runs/oracle/report.html")).unwrap();
    assert!(html.contains("id=\"family-assertion\"") && html.contains("Assertion tasks"));
    assert!(html.contains("pass@1 of assertion tasks by form"));
    assert!(html.contains("pass@1 of assertion tasks by program"));
    assert!(html.contains("<section id=\"memorization\">"));
    assert!(html.contains("a large positive gap is the sign of memorization"));
}
