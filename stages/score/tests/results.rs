//! `runs/NAME/results.json` and the files of `score --export`, read back as other tools
//! read them: with `serde_json`, against the `scores` and `executions` tables.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{read_scores, score, write_dataset, write_run};
use schemas::{Candidate, ExecStatus, Execution, Score};
use serde_json::Value;

fn d(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run_file(dir: &Path, run: &str, name: &str) -> PathBuf {
    dir.join("runs").join(run).join(name)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn executions(dir: &Path, run: &str) -> Vec<Execution> {
    schemas::read_table_from(&run_file(dir, run, "executions.parquet")).unwrap()
}

fn candidates(dir: &Path, run: &str) -> Vec<Candidate> {
    schemas::read_table_from(&run_file(dir, run, "candidates.parquet")).unwrap()
}

/// Checks that `expected` keys stand in `text` in this order (`serde_json::Value` sorts
/// an object's keys, so the order is read from the text).
fn keys_in_order(text: &str, expected: &[&str]) {
    let mut at = 0;
    for key in expected {
        let quoted = format!("\"{key}\":");
        let pos = text[at..]
            .find(&quoted)
            .unwrap_or_else(|| panic!("no {quoted} after byte {at} in\n{text}"));
        at += pos + quoted.len();
    }
}

fn object_keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn sorted(keys: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = keys.iter().map(|k| (*k).to_string()).collect();
    v.sort();
    v
}

/// Equal up to the last bits `serde_json`'s float parsing may lose.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

/// Run `mixed`: five samples per task with passes spread unevenly, tokens and a price on
/// every answer, a time-limit rule on every execution; sample 4 of `t1` is `infra`, and
/// sample 0 of `t2` is repeated (a passing second row, which must not count).
fn mixed_run(dir: &Path) {
    write_dataset(dir);
    write_run(
        dir,
        "mixed",
        "openai:m@http://x",
        &common::all_tasks(),
        5,
        |i, s| (i * 7 + s as usize * 3) % 4 == 0,
    );
    let cands: Vec<Candidate> = candidates(dir, "mixed")
        .into_iter()
        .map(|c| Candidate {
            tokens_in: Some(100),
            tokens_out: Some(10 + i64::from(c.sample)),
            cost: Some(0.25),
            answer: Some(format!("def {}(x):\n    return {}\n", c.task_id, c.sample)),
            ..c
        })
        .collect();
    schemas::write_table_to(&run_file(dir, "mixed", "candidates.parquet"), &cands).unwrap();
    let mut execs: Vec<Execution> = executions(dir, "mixed")
        .into_iter()
        .map(|e| {
            let infra = e.task_id == "t1" && e.sample == 4;
            Execution {
                status: if infra { ExecStatus::Infra } else { e.status },
                fingerprint: if infra { None } else { e.fingerprint },
                detail: (e.status != ExecStatus::Pass && !infra)
                    .then(|| format!("case 1 of {}: expected 1, got 2", e.task_id)),
                reference_seconds: Some(0.01),
                time_limit_seconds: Some(0.2),
                time_factor: Some(4.0),
                time_floor_seconds: Some(0.2),
                ..e
            }
        })
        .collect();
    let first = execs
        .iter()
        .find(|e| e.task_id == "t2" && e.sample == 0)
        .unwrap()
        .clone();
    execs.push(Execution {
        status: ExecStatus::Pass,
        fingerprint: None,
        ..first
    });
    schemas::write_table_to(&run_file(dir, "mixed", "executions.parquet"), &execs).unwrap();
}

/// The counted rows of a run as `score` counts them: valid tasks, the first row of each
/// (task, sample).
fn counted(execs: &[Execution]) -> Vec<&Execution> {
    let mut seen = std::collections::BTreeSet::new();
    execs
        .iter()
        .filter(|e| e.task_id != common::INVALID && seen.insert((e.task_id.clone(), e.sample)))
        .collect()
}

fn score_row<'a>(rows: &'a [Score], breakdown: &str, group: &str, k: i32) -> &'a Score {
    rows.iter()
        .find(|r| r.breakdown.as_str() == breakdown && r.group_key == group && r.k == k)
        .unwrap_or_else(|| panic!("no {breakdown}/{group}/{k}"))
}

#[test]
fn results_json_holds_the_fields_and_the_scores_tables_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    mixed_run(dir);
    let out = score(&[
        "--data",
        d(dir),
        "--run",
        "mixed",
        "--cutoff",
        "2024-01-01",
        "--bootstrap",
        "200",
        "--seed",
        "7",
    ]);
    ok(&out);
    let path = run_file(dir, "mixed", "results.json");
    let text = std::fs::read_to_string(&path).unwrap();
    // Without --export, results.json alone.
    assert!(!run_file(dir, "mixed", "eval_results.json").exists());
    assert!(!run_file(dir, "mixed", "sample_results.jsonl").exists());

    let v: Value = serde_json::from_str(&text).unwrap();
    let top = [
        "schema_version",
        "freshbench_version",
        "run",
        "model",
        "created",
        "options",
        "counts",
        "pass_at_k",
        "cost",
    ];
    assert_eq!(object_keys(&v), sorted(&top));
    keys_in_order(&text, &top);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["schema_version"], score::results::SCHEMA_VERSION);
    assert_eq!(v["freshbench_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["run"], "mixed");
    assert_eq!(v["model"], "openai:m@http://x");
    let created = v["created"].as_str().unwrap();
    assert!(
        schemas::Timestamp::parse(created).is_some() && created.ends_with('Z'),
        "{created}"
    );

    let o = &v["options"];
    assert_eq!(
        object_keys(o),
        sorted(&[
            "ks",
            "bootstrap",
            "confidence",
            "seed",
            "cutoff",
            "time_limit"
        ])
    );
    assert_eq!(o["bootstrap"], 200);
    assert_eq!(o["seed"], 7);
    assert_eq!(o["confidence"], 0.95);
    assert_eq!(o["cutoff"], "2024-01-01");
    // t1 has four judged samples, the others five: k up to 4 overall, 5 in some groups.
    assert_eq!(o["ks"], serde_json::json!([1, 2, 4, 5]));
    let rule = &o["time_limit"];
    assert_eq!(rule["factor"], 4.0);
    assert_eq!(rule["floor_seconds"], 0.2);
    assert_eq!(rule["factors"], serde_json::json!([4.0]));
    assert_eq!(rule["floors_seconds"], serde_json::json!([0.2]));
    assert_eq!(rule["rows_with_rule"], 51);

    // Counts against the executions table.
    let execs = executions(dir, "mixed");
    let rows = counted(&execs);
    let c = &v["counts"];
    assert_eq!(c["tasks_valid"], 9);
    assert_eq!(c["tasks_invalid"], 1);
    assert_eq!(c["tasks_scored"], 9);
    assert_eq!(c["tasks_missing"], 0);
    assert_eq!(c["samples"], rows.len());
    assert_eq!(c["samples"], 45);
    assert_eq!(c["infra_excluded"], 1);
    assert_eq!(c["samples_scored"], 44);
    let passed = rows.iter().filter(|e| e.status == ExecStatus::Pass).count();
    assert_eq!(c["samples_passed"], passed);
    assert_eq!(c["executions_ignored"], 5);
    assert_eq!(c["executions_duplicate"], 1);
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    for e in &rows {
        *statuses.entry(e.status.as_str().into()).or_default() += 1;
    }
    assert_eq!(
        serde_json::from_value::<BTreeMap<String, usize>>(c["statuses"].clone()).unwrap(),
        statuses
    );
    assert_eq!(c["statuses"]["infra"], 1);
    let solved: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|e| e.status == ExecStatus::Pass)
        .map(|e| e.task_id.as_str())
        .collect();
    assert_eq!(c["tasks_solved"], solved.len());

    // pass@k: the scores table's rows, in order, with the same numbers.
    let table = read_scores(dir, "mixed");
    let back: score::results::Results = serde_json::from_str(&text).unwrap();
    assert_eq!(back.pass_at_k.len(), table.len());
    for (r, s) in back.pass_at_k.iter().zip(&table) {
        assert_eq!(
            (r.breakdown.as_str(), r.group.as_str(), r.k, r.tasks),
            (s.breakdown.as_str(), s.group_key.as_str(), s.k, s.tasks)
        );
        for (a, b) in [
            (r.pass_at_k, s.pass_at_k),
            (r.ci_low, s.ci_low),
            (r.ci_high, s.ci_high),
        ] {
            assert!(close(a.unwrap(), b), "{r:?} against {s:?}");
        }
    }
    let first = &v["pass_at_k"][0];
    assert_eq!(
        object_keys(first),
        sorted(&[
            "breakdown",
            "group",
            "k",
            "pass_at_k",
            "ci_low",
            "ci_high",
            "tasks"
        ])
    );
    let all = score_row(&table, "overall", "all", 1);
    assert_eq!(
        (&first["breakdown"], &first["group"], &first["k"]),
        (
            &Value::from("overall"),
            &Value::from("all"),
            &Value::from(1)
        )
    );
    assert!(close(first["pass_at_k"].as_f64().unwrap(), all.pass_at_k));
    assert!(back
        .pass_at_k
        .iter()
        .any(|r| r.breakdown == "window" && r.group == "after_cutoff"));

    // Cost: the answers of valid tasks, one per (task, sample): 9 tasks of 5.
    let cost = &v["cost"];
    assert_eq!(
        object_keys(cost),
        sorted(&[
            "tokens_in",
            "tokens_out",
            "total",
            "samples",
            "samples_priced",
            "per_solved_task"
        ])
    );
    assert_eq!(cost["samples"], 45);
    assert_eq!(cost["samples_priced"], 45);
    assert_eq!(cost["tokens_in"], 4500);
    assert_eq!(cost["tokens_out"], 9 * (10 + 11 + 12 + 13 + 14));
    assert!(close(cost["total"].as_f64().unwrap(), 45.0 * 0.25));
    assert!(close(
        cost["per_solved_task"].as_f64().unwrap(),
        45.0 * 0.25 / solved.len() as f64
    ));

    // The same input gives the same file but for the time it was written.
    ok(&score(&[
        "--data",
        d(dir),
        "--run",
        "mixed",
        "--cutoff",
        "2024-01-01",
        "--bootstrap",
        "200",
        "--seed",
        "7",
    ]));
    let mut again = read_json(&path);
    again["created"] = v["created"].clone();
    assert_eq!(again, v);
}

#[test]
fn a_run_without_rule_price_or_scored_task_has_nulls_and_zeros() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_dataset(dir);
    // Only the invalid task was run: nothing to score (exit 1), results.json still written.
    write_run(dir, "only-invalid", "m", &[9], 1, |_, _| true);
    let out = score(&["--data", d(dir), "--run", "only-invalid"]);
    assert_eq!(out.status.code(), Some(1));
    let v = read_json(&run_file(dir, "only-invalid", "results.json"));
    assert_eq!(v["counts"]["tasks_scored"], 0);
    assert_eq!(v["counts"]["tasks_missing"], 9);
    assert_eq!(v["counts"]["executions_ignored"], 1);
    assert_eq!(v["pass_at_k"], serde_json::json!([]));
    assert_eq!(v["options"]["ks"], serde_json::json!([]));
    assert_eq!(v["options"]["cutoff"], Value::Null);
    let rule = &v["options"]["time_limit"];
    assert_eq!(
        (&rule["factor"], &rule["floor_seconds"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(rule["factors"], serde_json::json!([]));
    let cost = &v["cost"];
    assert_eq!(cost["total"], Value::Null);
    assert_eq!(cost["tokens_in"], Value::Null);
    assert_eq!(cost["per_solved_task"], Value::Null);
    assert_eq!(cost["samples"], 0);
}

#[test]
fn export_writes_evalplus_results_and_one_line_per_execution() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    mixed_run(dir);
    ok(&score(&["--data", d(dir), "--run", "mixed", "--export"]));
    assert!(run_file(dir, "mixed", "results.json").is_file());
    let execs = executions(dir, "mixed");
    let rows = counted(&execs);
    let table = read_scores(dir, "mixed");

    // eval_results.json: EvalPlus's keys, then freshbench's.
    let path = run_file(dir, "mixed", "eval_results.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let top = ["date", "hash", "eval", "pass_at_k", "freshbench"];
    keys_in_order(&text, &top);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(object_keys(&v), sorted(&top));
    let date = v["date"].as_str().unwrap();
    assert_eq!(date.len(), 16, "{date}");
    assert!(schemas::Timestamp::parse(&format!("{}T{}:00Z", &date[..10], &date[11..])).is_some());
    let hash = v["hash"].as_str().unwrap();
    assert!(
        hash.len() == 32 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "{hash}"
    );

    let eval = v["eval"].as_object().unwrap();
    let ids: Vec<&str> = eval.keys().map(String::as_str).collect();
    assert_eq!(
        ids,
        (0..9)
            .map(|i| format!("freshbench/t{i}"))
            .collect::<Vec<_>>()
    );
    let sample_keys = [
        "task_id",
        "solution",
        "base_status",
        "plus_status",
        "base_fail_tests",
        "plus_fail_tests",
    ];
    keys_in_order(&text, &sample_keys);
    let cands = candidates(dir, "mixed");
    for (id, samples) in eval {
        let task = id.strip_prefix("freshbench/").unwrap();
        let of_task: Vec<&&Execution> = rows
            .iter()
            .filter(|e| e.task_id == task && e.status != ExecStatus::Infra)
            .collect();
        let samples = samples.as_array().unwrap();
        // One entry per scored sample, in sample order; the infra sample of t1 left out.
        assert_eq!(samples.len(), of_task.len(), "{id}");
        assert_eq!(samples.len(), if task == "t1" { 4 } else { 5 }, "{id}");
        let passing = samples
            .iter()
            .filter(|s| s["base_status"] == "pass")
            .count();
        let expected = of_task
            .iter()
            .filter(|e| e.status == ExecStatus::Pass)
            .count();
        assert_eq!(passing, expected, "{id}");
        for (s, e) in samples.iter().zip(&of_task) {
            assert_eq!(object_keys(s), sorted(&sample_keys));
            assert_eq!(s["task_id"], id.as_str());
            assert_eq!(s["base_status"], s["plus_status"]);
            let status = match e.status {
                ExecStatus::Pass => "pass",
                ExecStatus::Timeout => "timeout",
                _ => "fail",
            };
            assert_eq!(s["base_status"], status);
            assert_eq!(s["base_fail_tests"], serde_json::json!([]));
            assert_eq!(s["plus_fail_tests"], serde_json::json!([]));
            let answer = cands
                .iter()
                .find(|c| c.task_id == task && c.sample == e.sample)
                .and_then(|c| c.answer.clone())
                .unwrap();
            assert_eq!(s["solution"], answer.as_str());
        }
    }
    // The repeated row of t2 sample 0 (a pass) does not count: the first row does.
    let first_t2 = execs
        .iter()
        .find(|e| e.task_id == "t2" && e.sample == 0)
        .unwrap();
    let t2_status = if first_t2.status == ExecStatus::Pass {
        "pass"
    } else {
        "fail"
    };
    assert_eq!(v["eval"]["freshbench/t2"][0]["base_status"], t2_status);

    // pass@k: EvalPlus's k (1, 10, 100) that every task has: pass@1 only, the table's.
    for side in ["base", "plus"] {
        let p = v["pass_at_k"][side].as_object().unwrap();
        assert_eq!(p.keys().collect::<Vec<_>>(), ["pass@1"]);
        assert!(close(
            p["pass@1"].as_f64().unwrap(),
            score_row(&table, "overall", "all", 1).pass_at_k
        ));
    }
    let f = &v["freshbench"];
    assert_eq!(f["export_version"], score::export::EXPORT_VERSION);
    assert_eq!(f["run"], "mixed");
    assert_eq!(f["model"], "openai:m@http://x");
    assert_eq!(f["samples"], 44);
    assert_eq!(f["infra_excluded"], 1);
    assert_eq!(f["invalid_excluded"], 5);
    assert_eq!(f["duplicates_excluded"], 1);
    assert_eq!(f["samples_without_answer"], 0);
    assert!(f["statuses"].get("infra").is_none());
    let in_statuses: u64 = f["statuses"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(in_statuses, 44);

    // sample_results.jsonl: one line per execution row, in (task, sample) order.
    let text = std::fs::read_to_string(run_file(dir, "mixed", "sample_results.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), execs.len());
    assert!(text.ends_with('\n'));
    let line_keys = [
        "task_id",
        "family",
        "sample",
        "status",
        "counted",
        "fingerprint",
        "detail",
        "cases_passed",
        "cases_total",
        "seconds",
        "answer",
        "tokens_in",
        "tokens_out",
        "cost",
    ];
    let parsed: Vec<Value> = lines
        .iter()
        .map(|l| {
            keys_in_order(l, &line_keys);
            serde_json::from_str(l).unwrap()
        })
        .collect();
    let order: Vec<(String, i64)> = parsed
        .iter()
        .map(|l| {
            (
                l["task_id"].as_str().unwrap().to_string(),
                l["sample"].as_i64().unwrap(),
            )
        })
        .collect();
    let mut want = order.clone();
    want.sort();
    assert_eq!(order, want);
    let mut by_counted: BTreeMap<String, usize> = BTreeMap::new();
    for l in &parsed {
        assert_eq!(object_keys(l), sorted(&line_keys));
        assert_eq!(l["family"], "function");
        *by_counted
            .entry(l["counted"].as_str().unwrap().into())
            .or_default() += 1;
    }
    assert_eq!(
        by_counted,
        BTreeMap::from([
            ("duplicate".into(), 1),
            ("infra".into(), 1),
            ("invalid".into(), 5),
            ("scored".into(), 44),
        ])
    );
    // Each line is its execution row and candidate.
    let line = parsed
        .iter()
        .find(|l| l["task_id"] == "freshbench/t1" && l["sample"] == 4)
        .unwrap();
    assert_eq!(line["status"], "infra");
    assert_eq!(line["counted"], "infra");
    assert_eq!(line["fingerprint"], Value::Null);
    let failed = parsed
        .iter()
        .find(|l| l["counted"] == "scored" && l["status"] != "pass")
        .unwrap();
    let task = failed["task_id"]
        .as_str()
        .unwrap()
        .strip_prefix("freshbench/")
        .unwrap();
    let e = execs
        .iter()
        .find(|e| e.task_id == task && i64::from(e.sample) == failed["sample"])
        .unwrap();
    assert_eq!(failed["status"], e.status.as_str());
    assert_eq!(failed["fingerprint"], e.fingerprint.unwrap().as_str());
    assert_eq!(failed["detail"], e.detail.as_deref().unwrap());
    assert_eq!(
        (&failed["cases_passed"], &failed["cases_total"]),
        (&Value::from(e.cases_passed), &Value::from(e.cases_total))
    );
    assert_eq!(failed["tokens_in"], 100);
    assert_eq!(
        failed["tokens_out"],
        10 + failed["sample"].as_i64().unwrap()
    );
    assert_eq!(failed["cost"], 0.25);
    assert_eq!(
        failed["answer"],
        format!("def {task}(x):\n    return {}\n", failed["sample"]).as_str()
    );
}

#[test]
fn export_of_every_family_uses_the_published_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_dataset(dir);
    common::write_completion(dir);
    common::write_assertion(dir);
    write_run(dir, "all", "m", &common::all_tasks(), 10, |i, s| {
        (i + s as usize) % 2 == 0
    });
    common::add_completion_run(dir, "all", 10, |i, _| i == 0);
    // One sample for assertion tasks: pass@10 is not there for every task.
    common::add_assertion_run(dir, "all", |id| id.ends_with('o'));
    ok(&score(&["--data", d(dir), "--run", "all", "--export"]));
    let v = read_json(&run_file(dir, "all", "eval_results.json"));
    let eval = v["eval"].as_object().unwrap();
    for id in [
        "freshbench/t0",
        "freshbench/c0",
        "freshbench/a0o",
        "freshbench/a1vm",
    ] {
        assert!(eval.contains_key(id), "{id}");
    }
    // Invalid tasks of every family are left out.
    for id in ["freshbench/t9", "freshbench/c3", "freshbench/a2o"] {
        assert!(!eval.contains_key(id), "{id}");
    }
    assert_eq!(eval["freshbench/c0"].as_array().unwrap().len(), 10);
    assert_eq!(eval["freshbench/c0"][0]["solution"], "a + b");
    assert_eq!(eval["freshbench/a0o"][0]["base_status"], "pass");
    assert_eq!(eval["freshbench/a0m0"][0]["base_status"], "fail");
    assert_eq!(object_keys(&v["pass_at_k"]["base"]), ["pass@1".to_string()]);
    let text = std::fs::read_to_string(run_file(dir, "all", "sample_results.jsonl")).unwrap();
    let families: BTreeMap<String, usize> = text.lines().fold(BTreeMap::new(), |mut m, l| {
        let l: Value = serde_json::from_str(l).unwrap();
        *m.entry(l["family"].as_str().unwrap().to_string())
            .or_default() += 1;
        m
    });
    assert_eq!(
        families,
        BTreeMap::from([
            ("assertion".into(), 11),
            ("completion".into(), 40),
            ("function".into(), 100),
        ])
    );

    // With ten samples on every task, EvalPlus's pass@10 is there too.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_dataset(dir);
    write_run(dir, "ten", "m", &common::all_tasks(), 10, |i, s| {
        (i + s as usize) % 3 == 0
    });
    ok(&score(&["--data", d(dir), "--run", "ten", "--export"]));
    let v = read_json(&run_file(dir, "ten", "eval_results.json"));
    let table = read_scores(dir, "ten");
    let base = v["pass_at_k"]["base"].as_object().unwrap();
    assert_eq!(base.keys().collect::<Vec<_>>(), ["pass@1", "pass@10"]);
    for k in [1, 10] {
        assert!(close(
            base[&format!("pass@{k}")].as_f64().unwrap(),
            score_row(&table, "overall", "all", k).pass_at_k
        ));
    }
    assert_eq!(v["pass_at_k"]["plus"], v["pass_at_k"]["base"]);
}

#[test]
fn bad_input_says_what_to_change_and_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    common::standard(dir);

    // A run folder without executions.
    std::fs::create_dir_all(dir.join("runs/empty")).unwrap();
    let out = score(&["--data", d(dir), "--run", "empty", "--export"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no executions") && stderr.contains("execute --data"),
        "{stderr}"
    );
    assert!(!run_file(dir, "empty", "results.json").exists());

    // --export of a run without candidates: nothing is written, for any run named.
    std::fs::remove_file(run_file(dir, "null", "candidates.parquet")).unwrap();
    let out = score(&[
        "--data",
        d(dir),
        "--run",
        "oracle",
        "--run",
        "null",
        "--export",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("candidates")
            && stderr.contains("solve --data")
            && stderr.contains("without --export"),
        "{stderr}"
    );
    for run in ["oracle", "null"] {
        for f in [
            "scores.parquet",
            "results.json",
            "eval_results.json",
            "sample_results.jsonl",
        ] {
            assert!(!run_file(dir, run, f).exists(), "{run}/{f}");
        }
    }
    // Without --export the same run is scored (its model unknown).
    ok(&score(&["--data", d(dir), "--run", "null"]));
    let v = read_json(&run_file(dir, "null", "results.json"));
    assert_eq!(v["model"], "unknown (no candidates table)");
    assert_eq!(v["cost"]["samples"], 0);
}

#[test]
fn help_documents_export() {
    let out = score(&["--help"]);
    ok(&out);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("--export") && help.contains("eval_results.json"),
        "{help}"
    );
}
