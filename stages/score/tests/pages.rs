//! The task pages beside the report, on a dataset of the three families written by hand:
//! the report (made by the `score` binary) lists the failed tasks and links them, and
//! [`score::pages::write`] writes a page per failed task, with its prompt, reference,
//! answers, first failing case and diff.

mod common;

use std::path::Path;

use common::{add_assertion_run, add_completion_run, edit_run, realistic_failures, score};
use score::data::{load_dataset, load_run};

fn d(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

/// `model-a` (function tasks t0-t2 pass, t3-t5 fail their second sample, t6-t8 fail both;
/// completion task c2 fails; assertion tasks on mutated programs fail) and `oracle` (all
/// pass), with tokens and costs.
fn fixture(dir: &Path) {
    common::write_dataset(dir);
    common::write_completion(dir);
    common::write_assertion(dir);
    common::write_run(
        dir,
        "model-a",
        "openai:a",
        &common::all_tasks(),
        2,
        |i, s| i < 3 || (i < 6 && s == 0),
    );
    add_completion_run(dir, "model-a", 1, |i, _| i != 2);
    add_assertion_run(dir, "model-a", |id| !id.contains('m'));
    realistic_failures(dir, "model-a", Some(0.0021));
    edit_run(
        dir,
        "model-a",
        |c| {
            if c.task_id == "c2" {
                c.answer = Some("a - b".into());
            }
        },
        |e| {
            if e.task_id == "c2" {
                e.detail = Some("tests/test_mod.py::test_add: assert -1 == 3 <x>".into());
            }
        },
    );
    common::write_run(dir, "oracle", "oracle", &common::all_tasks(), 1, |_, _| {
        true
    });
    add_completion_run(dir, "oracle", 1, |_, _| true);
    add_assertion_run(dir, "oracle", |_| true);
    realistic_failures(dir, "oracle", Some(0.0));
}

/// Writes the pages as `score` does beside `report`.
fn write_pages(dir: &Path, runs: &[&str], report: &Path) -> usize {
    let dataset = load_dataset(dir, None).unwrap();
    let runs: Vec<_> = runs
        .iter()
        .map(|r| load_run(dir, r, &dataset).unwrap())
        .collect();
    score::pages::write(dir, &dataset, &runs, report).unwrap()
}

fn html_files(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| Path::new(n).extension().is_some_and(|e| e == "html"))
        .collect();
    names.sort();
    names
}

#[test]
fn the_report_links_a_page_per_failed_task() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fixture(dir);
    let out = score(&["--data", d(dir), "--run", "model-a", "--run", "oracle"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = dir.join("runs/model-a/report.html");
    let html = std::fs::read_to_string(&report).unwrap();

    // The failed tasks, linked, in the failures section and the navigation.
    assert!(html.contains("<a href=\"#failed-tasks\">Failed tasks</a>"));
    let section = &html[html.find("id=\"failed-tasks\"").unwrap()..];
    assert!(
        section.contains("The 13 tasks that some run failed"),
        "{section}"
    );
    for id in ["t6", "t3", "c2", "a0m0", "a1vm"] {
        assert!(
            section.contains(&format!(
                "<a href=\"tasks/{id}.html\"><code>{id}</code></a>"
            )),
            "{id}"
        );
    }
    for id in ["t0", "t9", "c3", "a0o", "a2o"] {
        assert!(!section.contains(&format!("tasks/{id}.html")), "{id}");
    }
    assert!(section.contains("<a href=\"tasks/index.html\">all failed tasks</a>"));
    // The first failure of t6 (sample 0: (6 + 0) % 3 = 0, a logic failure) in a line.
    assert!(
        section.contains("fail (logic): case 2: expected 24, got 25"),
        "{section}"
    );

    // Tokens and cost of the valid tasks' answers: 9 x 2 + 3 + 10 = 31 for model-a (1200
    // tokens in and 80 out each), which solved t0-t5, c0, c1 and the four originals: 12 tasks.
    let costs = &html[html.find("<table class=\"costs\">").unwrap()..];
    assert!(
        costs.contains(
            "<b>model-a</b></td><td class=\"num\">31</td><td class=\"num\">37,200</td>\
             <td class=\"num\">2,480</td><td class=\"num\">0.0651</td><td class=\"num\">12</td>\
             <td class=\"num\">0.0054</td>"
        ),
        "{costs}"
    );
    // The oracle's answers cost nothing: 0 per each of its 22 solved tasks.
    assert!(costs.contains(
        "<b>oracle</b></td><td class=\"num\">22</td><td class=\"num\">26,400</td>\
         <td class=\"num\">1,760</td><td class=\"num\">0.0000</td><td class=\"num\">22</td>\
         <td class=\"num\">0.0000</td>"
    ));

    // The pages: the failed tasks and the index, and an old page removed.
    let folder = dir.join("runs/model-a/tasks");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("old-task.html"), "old").unwrap();
    std::fs::write(folder.join("notes.txt"), "mine").unwrap();
    assert_eq!(write_pages(dir, &["model-a", "oracle"], &report), 13);
    let mut want: Vec<String> = [
        "a0m0", "a0m1", "a0vm", "a1m0", "a1m1", "a1vm", "c2", "index", "t3", "t4", "t5", "t6",
        "t7", "t8",
    ]
    .iter()
    .map(|n| format!("{n}.html"))
    .collect();
    want.sort();
    assert_eq!(html_files(&folder), want);
    assert!(folder.join("notes.txt").is_file());

    let page = std::fs::read_to_string(folder.join("t6.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<a href=\"../report.html\">← Report</a>"));
    assert!(page.contains("<h1>Task <code>t6</code></h1>"));
    assert!(page.contains("function task &nbsp;·&nbsp; repository <b>beta</b>"));
    assert!(page.contains(
        "<pre class=\"code\">def f6(x):\n    &quot;&quot;&quot;Doc.&quot;&quot;&quot;\n</pre>"
    ));
    assert!(page.contains("<h2>Reference solution</h2>"));
    // Both runs, model-a's failed samples open, the oracle's passing one closed.
    assert!(page.contains("openai:a") && page.contains("0 of 2 samples passed"));
    assert!(page.contains("1 of 1 sample passed"));
    assert_eq!(page.matches("<details class=\"sample\" open>").count(), 2);
    assert_eq!(page.matches("<details class=\"sample\">").count(), 1);
    // The first failing case, taken apart: sample 0 returned a wrong value, sample 1 raised.
    assert!(page.contains("<tr class=\"expected\"><th>Expected</th><td>24</td></tr><tr class=\"got\"><th>Returned</th><td>25</td></tr>"));
    assert!(page.contains("<th>Raised</th><td>TypeError: unsupported operand type(s) for +: &#39;int&#39; and &#39;str&#39;</td>"));
    assert!(page.contains("<tr><th>Arguments</th><td>[3]</td></tr>"));
    // The diff against the reference.
    assert!(
        page.contains(
            "<span class=\"del\">-    x = x + 6</span><span class=\"add\">+    x = x + 7</span>"
        ),
        "{page}"
    );
    assert!(page.contains("<span class=\"hunk\">@@ "));
    assert!(page.contains("The answer is the reference solution line for line."));
    assert!(page.contains("<a href=\"t7.html\">Next failed task ›</a>"));
    assert!(!page.contains("<script") && !page.contains("<link"));

    // An undated repository's name escaped.
    let page = std::fs::read_to_string(folder.join("t8.html")).unwrap();
    assert!(page.contains("<b>gamma&amp;co</b>") && !page.contains("gamma&co"));
    // A syntax error is no case: shown as it is.
    assert!(page.contains("<pre class=\"detail\">syntax: invalid syntax (line 2)</pre>"));

    // A completion task: the text around the mask, the masked text, the detail as it is.
    let page = std::fs::read_to_string(folder.join("c2.html")).unwrap();
    assert!(page.contains(
        "<pre class=\"code\">def add(a, b):\n    return <mark class=\"mask\">⟨masked block⟩</mark>\n</pre>"
    ), "{page}");
    assert!(page.contains("<h2>Masked text</h2>"));
    assert!(page.contains(
        "<pre class=\"detail\">tests/test_mod.py::test_add: assert -1 == 3 &lt;x&gt;</pre>"
    ));
    assert!(page.contains("<span class=\"del\">-a + b</span><span class=\"add\">+a - b</span>"));

    // An assertion task: the test, the recorded answer, the mutation.
    let page = std::fs::read_to_string(folder.join("a0m0.html")).unwrap();
    assert!(page.contains("<h2>Recorded answer</h2><pre class=\"code\">4</pre>"));
    assert!(page.contains("mutated: pkg/mod.py:2: a + b -&gt; a + b + 1"));
    assert!(page.contains("<span class=\"del\">-4</span><span class=\"add\">+3</span>"));

    let index = std::fs::read_to_string(folder.join("index.html")).unwrap();
    assert!(index.contains("13 tasks that some run failed"));
    assert!(index.contains("<a href=\"t6.html\"><code>t6</code></a>"));

    // A report without failures: the pages go, the folder keeps what is not a page.
    assert_eq!(write_pages(dir, &["oracle"], &report), 0);
    assert!(html_files(&folder).is_empty());
    assert!(folder.join("notes.txt").is_file());
}

#[test]
fn a_report_elsewhere_gets_its_pages_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    fixture(&dir);
    let report = tmp.path().join("out dir/compare #1.html");
    let out = score(&[
        "--data",
        d(&dir),
        "--run",
        "model-a",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(write_pages(&dir, &["model-a"], &report), 13);
    let page = std::fs::read_to_string(tmp.path().join("out dir/tasks/t3.html")).unwrap();
    assert!(page.contains("<a href=\"../compare%20%231.html\">← Report</a>"));
    // Its only run failed one sample of two, the second.
    assert!(page.contains("1 of 2 samples passed"));
    assert!(!tmp.path().join("data/runs/model-a/tasks").exists());
}
