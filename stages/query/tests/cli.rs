//! The `query` binary: where the SQL comes from, each output format, exit codes and
//! positions of errors, `--list`, and datasets without runs or without tasks.

mod common;

use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use arrow::array::{Array as _, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

const REPOS: &str = "SELECT name, files_total FROM repos ORDER BY name";

fn query(data: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--data")
        .arg(data)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    child.wait_with_output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        stderr(out)
    );
    stdout(out)
}

fn dataset() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::write_dataset(tmp.path());
    tmp
}

const TABLE: &str = "\
+-------+-------------+
| name  | files_total |
+-------+-------------+
| alpha | 3           |
| beta  | 3           |
+-------+-------------+
";

#[test]
fn a_query_as_argument_prints_a_table() {
    let data = dataset();
    assert_eq!(ok(&query(data.path(), &[REPOS], None)), TABLE);
}

#[test]
fn a_query_from_a_file_and_from_stdin() {
    let data = dataset();
    let file = data.path().join("q.sql");
    std::fs::write(&file, format!("-- the repositories\n{REPOS};\n")).unwrap();
    let from_file = query(data.path(), &["-f", file.to_str().unwrap()], None);
    assert_eq!(ok(&from_file), TABLE);
    assert_eq!(ok(&query(data.path(), &[], Some(REPOS))), TABLE);
}

#[test]
fn csv_and_jsonl() {
    let data = dataset();
    let csv = query(data.path(), &["--format", "csv", REPOS], None);
    assert_eq!(ok(&csv), "name,files_total\nalpha,3\nbeta,3\n");
    let sql = "SELECT task_id, valid FROM tasks WHERE task_id IN ('a1', 't1') ORDER BY task_id";
    let jsonl = query(data.path(), &["--format", "jsonl", sql], None);
    assert_eq!(
        ok(&jsonl),
        "{\"task_id\":\"a1\",\"valid\":null}\n{\"task_id\":\"t1\",\"valid\":true}\n"
    );
    // An empty result still has its header.
    let empty = query(
        data.path(),
        &["--format", "csv", "SELECT name FROM repos WHERE false"],
        None,
    );
    assert_eq!(ok(&empty), "name\n");
}

#[test]
fn parquet_goes_to_the_output_file_and_reads_back() {
    let data = dataset();
    let outdir = tempfile::tempdir().unwrap();
    let out = outdir.path().join("result.parquet");
    let run = query(
        data.path(),
        &[
            "--format",
            "parquet",
            "--output",
            out.to_str().unwrap(),
            REPOS,
        ],
        None,
    );
    assert_eq!(ok(&run), "");
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&out).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<_> = reader.map(Result::unwrap).collect();
    let names: Vec<String> = batches
        .iter()
        .flat_map(|b| {
            let col = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
            (0..col.len())
                .map(|i| col.value(i).to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(names, ["alpha", "beta"]);

    // Parquet needs --output.
    let refused = query(data.path(), &["--format", "parquet", REPOS], None);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("--output"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn the_table_format_goes_to_an_output_file_too() {
    let data = dataset();
    let outdir = tempfile::tempdir().unwrap();
    let out = outdir.path().join("result.txt");
    let run = query(
        data.path(),
        &["--output", out.to_str().unwrap(), REPOS],
        None,
    );
    assert_eq!(ok(&run), "");
    assert_eq!(std::fs::read_to_string(out).unwrap(), TABLE);
}

#[test]
fn a_syntax_error_exits_2_with_its_position() {
    let data = dataset();
    let out = query(data.path(), &["SELECT name\nFROM repos ORDER name"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("found: ORDER"), "{err}");
    assert!(
        err.contains("at line 2, column 12:\n  2 | FROM repos ORDER name\n    |            ^"),
        "{err}"
    );
}

#[test]
fn views_from_a_folder_in_dependency_order_with_branches() {
    let data = dataset();
    let views = tempfile::tempdir().unwrap();
    let write = |name: &str, sql: &str| std::fs::write(views.path().join(name), sql).unwrap();
    // `counted` reads `names`, which sorts after it.
    write("counted.sql", "SELECT count(*) AS n FROM names");
    write(
        "names.sql",
        "-- repository names\nSELECT name FROM repos;\n",
    );
    write(
        "families.sql",
        "SELECT 'function' AS family FROM function_tasks\n\
         UNION ALL -- branch\n\
         SELECT 'other' AS family FROM no_such_table\n",
    );
    write("orphan.sql", "SELECT * FROM no_such_table");
    let sql = "SELECT (SELECT n FROM counted) AS n, (SELECT count(*) FROM families) AS f";
    let args = [
        "--views",
        views.path().to_str().unwrap(),
        "--format",
        "csv",
        sql,
    ];
    let out = query(data.path(), &args, None);
    assert_eq!(ok(&out), "n,f\n2,4\n");
    let err = stderr(&out);
    assert!(
        err.contains("view skipped") && err.contains("orphan"),
        "{err}"
    );
    assert!(!err.contains("families"), "{err}");

    // A view that does not parse stops query, naming the file and the place.
    write("broken.sql", "-- broken\nSELECT a\nFROM t ORDER a\n");
    let out = query(data.path(), &args, None);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("broken.sql") && err.contains("at line 3, column 8"),
        "{err}"
    );
}

#[test]
fn a_planning_error_points_at_the_name() {
    let data = dataset();
    let out = query(data.path(), &["SELECT name,\n       nope FROM repos"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("nope"), "{err}");
    assert!(err.contains("at line 2, column 8"), "{err}");

    let out = query(
        data.path(),
        &["SELECT * FROM repos JOIN missing_table USING (repo_id)"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("at line 1, column 26"), "{err}");
}

#[test]
fn list_shows_tables_runs_and_views_with_row_counts() {
    let data = dataset();
    let out = ok(&query(data.path(), &["--list", "--format", "csv"], None));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "name,kind,rows,source");
    let row = |name: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("{name},")))
            .unwrap_or_else(|| panic!("{name} not listed:\n{out}"))
            .to_string()
    };
    assert!(row("repos").starts_with("repos,table,2,"));
    assert!(row("function_tasks").starts_with("function_tasks,table,4,"));
    assert!(row("executions").starts_with("executions,run table,13,"));
    assert!(row("scores").starts_with("scores,run table,4,"));
    // 4 function tasks, 1 completion task, 3 assertion tasks (an original, two variants).
    assert!(row("tasks").starts_with("tasks,view,8,"));
    assert!(row("leaderboard").starts_with("leaderboard,view,2,"));
    assert!(row("difficulty").starts_with("difficulty,view,5,"));
    assert!(row("valid_tasks").starts_with("valid_tasks,view,3,"));
}

#[test]
fn without_slices_difficulty_falls_back_to_the_proxy() {
    // t1 and t2 (the valid function tasks) tie on both proxy measures: both `low (proxy)`;
    // c1, a completion task, is `unknown (proxy)`. The oracle run keeps its scores.
    let data = dataset();
    std::fs::remove_file(data.path().join("slices.parquet")).unwrap();
    let sql = "SELECT run, bucket, tasks, pass_at_1, source FROM difficulty ORDER BY run, bucket";
    let out = query(data.path(), &["--format", "csv", sql], None);
    assert_eq!(
        ok(&out),
        "run,bucket,tasks,pass_at_1,source\n\
         mutant,low (proxy),2,0.25,executions\n\
         mutant,unknown (proxy),1,1.0,executions\n\
         oracle,low,1,1.0,scores\n\
         oracle,medium,1,1.0,scores\n"
    );
    let list = ok(&query(data.path(), &["--list", "--format", "csv"], None));
    assert!(list.contains("slices,empty stand-in,0,"), "{list}");
}

#[test]
fn a_dataset_without_runs_has_empty_run_tables() {
    let tmp = tempfile::tempdir().unwrap();
    common::write_tables(tmp.path());
    let out = query(
        tmp.path(),
        &[
            "--format",
            "csv",
            "SELECT (SELECT count(*) FROM executions) AS e, (SELECT count(*) FROM leaderboard) AS l, \
             (SELECT count(*) FROM tasks) AS t",
        ],
        None,
    );
    assert_eq!(ok(&out), "e,l,t\n0,0,8\n");
    // An empty runs folder is no different.
    std::fs::create_dir_all(tmp.path().join("runs").join("empty")).unwrap();
    let out = query(
        tmp.path(),
        &["--format", "csv", "SELECT count(*) AS n FROM scores"],
        None,
    );
    assert_eq!(ok(&out), "n\n0\n");
}

#[test]
fn views_over_absent_tables_are_skipped_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    schemas::write_table(tmp.path(), &[common::repo("r1", "alpha")]).unwrap();
    let out = query(
        tmp.path(),
        &["--format", "csv", "SELECT name FROM repos"],
        None,
    );
    assert_eq!(ok(&out), "name\nalpha\n");
    let err = stderr(&out);
    assert!(
        err.contains("view skipped") && err.contains("tasks"),
        "{err}"
    );

    // Function tasks without validations: `valid` is null (an empty stand-in for it).
    schemas::write_table(
        tmp.path(),
        &[common::function_task("t1", "r1", "self_contained", "ok", 3)],
    )
    .unwrap();
    let out = query(
        tmp.path(),
        &["--format", "csv", "SELECT task_id, repo, valid FROM tasks"],
        None,
    );
    assert_eq!(ok(&out), "task_id,repo,valid\nt1,alpha,\n");
    let list = ok(&query(tmp.path(), &["--list", "--format", "csv"], None));
    assert!(list.contains("validations,empty stand-in,0,"), "{list}");
    // No completion_tasks (a dataset made before mask): the view is the function branch,
    // with the completion columns null; no `functions` table either (an empty stand-in).
    assert!(list.contains("functions,empty stand-in,0,"), "{list}");
    let out = query(
        tmp.path(),
        &[
            "--format",
            "csv",
            "SELECT task_id, family, level, path, code_date FROM tasks",
        ],
        None,
    );
    assert_eq!(
        ok(&out),
        "task_id,family,level,path,code_date\nt1,function,,,\n"
    );
}

#[test]
fn the_tasks_view_of_completion_tasks_only() {
    let tmp = tempfile::tempdir().unwrap();
    common::write_tables(tmp.path());
    // Completion (and assertion) tasks without function tasks.
    std::fs::remove_file(tmp.path().join("function_tasks.parquet")).unwrap();
    let out = query(
        tmp.path(),
        &[
            "--format",
            "csv",
            "SELECT task_id, family, repo, level, path, valid, cases, after_cutoff \
             FROM tasks ORDER BY task_id",
        ],
        None,
    );
    assert_eq!(
        ok(&out),
        "task_id,family,repo,level,path,valid,cases,after_cutoff\n\
         a1,assertion,alpha,,tests/test_mod.py,,1,\n\
         a1-m0,assertion,alpha,,tests/test_mod.py,,1,\n\
         a1-m1,assertion,alpha,,tests/test_mod.py,,1,\n\
         c1,completion,beta,statement,pkg/mod.py,true,2,true\n"
    );
    let out = query(
        tmp.path(),
        &[
            "--format",
            "csv",
            "SELECT completion_tasks, fresh_completion_tasks FROM freshness WHERE repo = 'beta'",
        ],
        None,
    );
    assert_eq!(ok(&out), "completion_tasks,fresh_completion_tasks\n1,1\n");
    // The assertion columns: an assertion's original and variants share its group.
    let out = query(
        tmp.path(),
        &[
            "--format",
            "csv",
            "SELECT task_id, form, kind, mutated, group_id FROM tasks ORDER BY task_id",
        ],
        None,
    );
    assert_eq!(
        ok(&out),
        "task_id,form,kind,mutated,group_id\n\
         a1,value,equal,false,a1\n\
         a1-m0,value,equal,true,a1\n\
         a1-m1,value,equal,true,a1\n\
         c1,,,,\n"
    );
}

#[test]
fn a_table_of_another_schema_version_stops_with_the_file_named() {
    let tmp = tempfile::tempdir().unwrap();
    common::write_tables(tmp.path());
    // Written without freshbench's stamp.
    let batch = arrow::array::RecordBatch::try_from_iter([(
        "x",
        std::sync::Arc::new(arrow::array::Int32Array::from(vec![1])) as arrow::array::ArrayRef,
    )])
    .unwrap();
    let file = File::create(tmp.path().join("stray.parquet")).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let out = query(tmp.path(), &["SELECT 1"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("stray.parquet") && err.contains("schema version"),
        "{err}"
    );
}
