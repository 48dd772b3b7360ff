//! The task pages: one static HTML file per task that some run failed (a scored sample that
//! did not pass), in the folder `tasks/` beside the report, and `tasks/index.html` listing
//! them all. A page shows the task (id, family, repository, its facts), its prompt and its
//! reference answer, and for every run each sample: its status and fingerprint, its first
//! failing case (a function task's `executions.detail` taken apart into the case, its
//! arguments, the value expected and the value returned or the exception raised; the
//! detail as it is for the other families), the answer, and the answer's unified line diff
//! against the reference ([`similar`]). Everything that comes from data is escaped; long
//! answers, prompts and diffs are cut with a note of what was left out. Like the report,
//! the pages have inline CSS only: no script, nothing fetched, no timestamp.
//!
//! The report links every task it lists to its page ([`href`]) and lists the failed tasks
//! ([`failed_tasks`], [`failed_table`]); [`write`] writes the pages beside it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;
use schemas::{ExecStatus, Family};
use similar::{ChangeTag, TextDiff};

use crate::data::{self, Dataset, RunData, SampleRecord, TaskInfo, TaskText};
use crate::report::{status_colour, CSS};
use crate::svg::{self, escape};

/// The folder of the task pages, beside the report.
pub const FOLDER: &str = "tasks";
/// The page of the folder that lists every failed task.
pub const INDEX: &str = "index.html";
/// Failed tasks the report lists (the rest are in [`INDEX`]).
pub const REPORT_ROWS: usize = 100;
/// An answer, prompt or reference is shown up to this many lines...
const SHOWN_LINES: usize = 300;
/// ... and this many bytes.
const SHOWN_BYTES: usize = 20_000;
/// Lines of a completion task's text shown before the mask, and after it.
const AROUND_MASK: (usize, usize) = (40, 20);
/// Lines of a diff shown.
const DIFF_LINES: usize = 400;
/// Characters of a failure in the tables.
const SHORT_FAILURE: usize = 160;

const PAGE_CSS: &str = r"
main.page{max-width:1120px}
.crumbs{margin:0 0 10px;font-size:14px;display:flex;gap:16px;flex-wrap:wrap}
.crumbs a{color:var(--accent);text-decoration:none}
h1 code{font-size:22px;background:none;padding:0;word-break:break-all}
table.facts{width:auto;margin:10px 0 0}
table.facts tr:nth-child(even){background:none}
table.facts th,table.facts td{border-bottom:none}
table.facts th{text-transform:none;letter-spacing:0;font-size:13px;padding:3px 14px 3px 0;vertical-align:top}
table.facts td{padding:3px 0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;word-break:break-word}
.tally{font-weight:400;color:var(--muted);font-size:14px;margin-left:8px}
pre.code,pre.diff,pre.detail{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;line-height:1.5;background:#f8fafc;border:1px solid var(--line);border-radius:6px;padding:8px 10px;margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
pre.diff{padding:6px 0}
pre.diff span{display:block;padding:0 10px;min-height:1.5em}
pre.diff .add{background:#e6f4ea;color:#14532d}
pre.diff .del{background:#fdecea;color:#7f1d1d}
pre.diff .hunk{color:#6d28d9;background:#f5f3ff}
pre.diff .head{color:var(--muted);font-weight:600}
mark.mask{background:#fde68a;color:#78350f;border-radius:3px;padding:0 4px;font-weight:600}
.cut{color:var(--muted);font-style:italic}
details.sample{border:1px solid var(--line);border-radius:8px;margin:10px 0;background:#fff}
details.sample>summary{cursor:pointer;padding:8px 12px;font-size:14px;display:flex;gap:10px;align-items:center;flex-wrap:wrap}
details.sample[open]>summary{border-bottom:1px solid var(--line)}
details.sample .body{padding:4px 14px 10px}
.badge{display:inline-block;color:#fff;border-radius:4px;padding:0 7px;font-size:12px;font-weight:600;line-height:20px}
table.case{width:auto;min-width:50%;margin:6px 0}
table.case th{text-transform:none;letter-spacing:0;font-size:13px;color:#374151;white-space:nowrap;vertical-align:top;width:1%}
table.case td{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;white-space:pre-wrap;overflow-wrap:anywhere}
table.case tr.expected td{background:#e6f4ea}
table.case tr.got td{background:#fdecea}
";

/// The file name of a task's page: the id where it is made of letters, digits, `_` and
/// `-` (task ids are hashes), else those kept, the rest as `_`, and a hash of the id so
/// that two ids do not share a page; `index` is taken by [`INDEX`].
pub fn page_name(task_id: &str) -> String {
    let safe = !task_id.is_empty()
        && task_id != "index"
        && task_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if safe {
        return format!("{task_id}.html");
    }
    let kept: String = task_id
        .chars()
        .take(40)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // FNV-1a: the same name on every run and machine.
    let hash = task_id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{kept}_{hash:016x}.html")
}

/// The link from the report to a task's page: `tasks/NAME.html`.
pub fn href(task_id: &str) -> String {
    format!("{FOLDER}/{}", page_name(task_id))
}

/// How one run did on a task it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunFailures {
    /// The run's place among the runs (its colour).
    pub run: usize,
    /// Scored samples that did not pass.
    pub failed: u32,
    /// Scored samples.
    pub scored: u32,
}

/// A task that some run failed.
#[derive(Debug, Clone)]
pub struct FailedTask<'a> {
    pub task: &'a TaskInfo,
    /// The runs that failed it, in the runs' order.
    pub runs: Vec<RunFailures>,
    /// The first failed sample: of the first run that failed the task, the lowest sample.
    pub first: Option<&'a SampleRecord>,
}

/// The valid tasks that some run failed: most runs failing first, then the lowest share
/// of passing samples over all runs, then by id.
pub fn failed_tasks<'a>(dataset: &'a Dataset, runs: &[&'a RunData]) -> Vec<FailedTask<'a>> {
    let mut out: Vec<(f64, FailedTask)> = Vec::new();
    for task in &dataset.tasks {
        let id = task.task_id.as_str();
        let (mut passed, mut scored) = (0u32, 0u32);
        let mut failures = Vec::new();
        for (i, r) in runs.iter().enumerate() {
            let Some(o) = r.outcomes.get(id) else {
                continue;
            };
            passed += o.c;
            scored += o.n;
            if o.c < o.n {
                failures.push(RunFailures {
                    run: i,
                    failed: o.n - o.c,
                    scored: o.n,
                });
            }
        }
        if failures.is_empty() {
            continue;
        }
        let first = failures.iter().find_map(|f| {
            runs[f.run]
                .samples
                .get(id)
                .and_then(|s| s.iter().find(|s| s.failed()))
        });
        out.push((
            f64::from(passed) / f64::from(scored.max(1)),
            FailedTask {
                task,
                runs: failures,
                first,
            },
        ));
    }
    out.sort_by(|(pa, a), (pb, b)| {
        b.runs
            .len()
            .cmp(&a.runs.len())
            .then(pa.total_cmp(pb))
            .then_with(|| a.task.task_id.cmp(&b.task.task_id))
    });
    out.into_iter().map(|(_, f)| f).collect()
}

/// The table of failed tasks (task, family, repository, the runs that failed it and how
/// often, the first failure), at most `limit` rows, each task linked to its page:
/// `prefix` + its file name (`tasks/` from the report, nothing from the index).
pub fn failed_table(
    h: &mut String,
    rows: &[FailedTask],
    runs: &[&RunData],
    prefix: &str,
    limit: usize,
) {
    h.push_str(
        "<div class=\"scroll\"><table class=\"failed\"><thead><tr><th>Task</th><th>Family</th>\
         <th>Repository</th><th>Runs that failed it</th><th>First failure</th></tr></thead><tbody>",
    );
    for f in rows.iter().take(limit) {
        let id = &f.task.task_id;
        let _ = write!(
            h,
            "<tr><td><a href=\"{}{}\"><code>{}</code></a></td><td>{}</td><td>{}</td><td>",
            escape(prefix),
            escape(&page_name(id)),
            escape(id),
            f.task.family.as_str(),
            escape(&f.task.repo)
        );
        for r in &f.runs {
            let _ = write!(
                h,
                "<span class=\"runfail\"><span class=\"swatch\" style=\"background:{}\"></span>{} \
                 <span class=\"note\">{} of {} failed</span></span>",
                svg::run_colour(r.run),
                escape(&runs[r.run].name),
                r.failed,
                r.scored
            );
        }
        let _ = write!(
            h,
            "</td><td class=\"first\">{}</td></tr>",
            f.first
                .map_or_else(|| "—".to_string(), |s| escape(&short_failure(s)))
        );
    }
    h.push_str("</tbody></table></div>");
}

/// A failure in one line: `fail (logic): case 3: expected 3, got 4`, cut to
/// [`SHORT_FAILURE`] characters.
pub fn short_failure(s: &SampleRecord) -> String {
    let mut text = status_text(s);
    // A fingerprint that repeats the status (`syntax (syntax)`) says nothing more.
    if let Some(f) = s.fingerprint.filter(|f| f.as_str() != text) {
        let _ = write!(text, " ({})", f.as_str());
    }
    if let Some(d) = &s.detail {
        let d = match parse_case(d) {
            Some(c) => format!("case {}: expected {}, got {}", c.case, c.expected, c.got),
            None => d.lines().next().unwrap_or_default().to_string(),
        };
        let _ = write!(text, ": {d}");
    }
    if text.chars().count() > SHORT_FAILURE {
        text = text.chars().take(SHORT_FAILURE - 1).collect::<String>() + "…";
    }
    text
}

fn status_text(s: &SampleRecord) -> String {
    s.status
        .map_or_else(|| "not executed".to_string(), |st| st.as_str().to_string())
}

/// A function task's failing case, taken apart from `executions.detail`: `case N: args A
/// kwargs K: expected E, got G` (execute's wording).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaseFailure<'a> {
    pub case: &'a str,
    pub args: &'a str,
    pub kwargs: &'a str,
    /// The recorded behaviour: a value's repr, or `raises TYPE`.
    pub expected: &'a str,
    /// What the answer did: a value's repr, `raised TYPE: MESSAGE`, or another status.
    pub got: &'a str,
}

/// Takes a function task's detail apart; `None` when it is not of that form (a syntax
/// error, a detail cut before `got`, another family's).
pub fn parse_case(detail: &str) -> Option<CaseFailure<'_>> {
    let rest = detail.strip_prefix("case ")?;
    let (case, rest) = rest.split_once(": args ")?;
    if case.is_empty() || !case.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (args, rest) = rest.split_once(" kwargs ")?;
    let (kwargs, rest) = rest.split_once(": expected ")?;
    // The first `, got `: an error message after it may hold another (`expected str, got int`).
    let (expected, got) = rest.split_once(", got ")?;
    Some(CaseFailure {
        case,
        args,
        kwargs,
        expected,
        got,
    })
}

/// Text cut to [`SHOWN_LINES`] lines and [`SHOWN_BYTES`] bytes: the part shown, and the
/// lines left out.
fn cut(text: &str) -> (&str, usize) {
    let mut end = text.len().min(SHOWN_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some((i, _)) = text[..end].match_indices('\n').nth(SHOWN_LINES - 1) {
        end = i + 1;
    }
    let shown = &text[..end];
    let hidden = text[end..].lines().count();
    (shown, if end < text.len() { hidden.max(1) } else { 0 })
}

fn cut_note(hidden: usize, what: &str) -> String {
    if hidden == 0 {
        return String::new();
    }
    format!(
        "<p class=\"cut\">… {hidden} more line{} of {what} not shown.</p>",
        if hidden == 1 { "" } else { "s" }
    )
}

/// A block of code, cut to its first lines.
fn code_block(text: &str, what: &str) -> String {
    let (shown, hidden) = cut(text);
    format!(
        "<pre class=\"code\">{}</pre>{}",
        escape(shown),
        cut_note(hidden, what)
    )
}

/// The last `n` lines of a text (and the lines before them), or its first `n` (and the
/// lines after them).
fn tail(text: &str, n: usize) -> (&str, usize) {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < text.len())
        .collect();
    if starts.len() <= n {
        return (text, 0);
    }
    let from = starts[starts.len() - n];
    (&text[from..], starts.len() - n)
}

fn head(text: &str, n: usize) -> (&str, usize) {
    match text.match_indices('\n').nth(n - 1) {
        Some((i, _)) if i + 1 < text.len() => (&text[..=i], text[i + 1..].lines().count()),
        _ => (text, 0),
    }
}

/// A completion task's text around the mask: the lines before it, the mask, the lines
/// after it.
fn masked_block(prefix: &str, kind: &str, suffix: &str) -> String {
    let (before, above) = tail(prefix, AROUND_MASK.0);
    let (after, below) = head(suffix, AROUND_MASK.1);
    let (before, _) = cut(before);
    let (after, _) = cut(after);
    let mut h = String::new();
    if above > 0 {
        let _ = write!(h, "<p class=\"cut\">… {above} lines above not shown.</p>");
    }
    let _ = write!(
        h,
        "<pre class=\"code\">{}<mark class=\"mask\">⟨masked {}⟩</mark>{}</pre>",
        escape(before),
        escape(kind),
        escape(after)
    );
    if below > 0 {
        let _ = write!(h, "<p class=\"cut\">… {below} lines below not shown.</p>");
    }
    h
}

/// The unified line diff of the answer against the reference (removed lines: in the
/// reference, not in the answer), both cut as they are shown; at most [`DIFF_LINES`]
/// lines.
pub fn diff_block(reference: &str, answer: &str, reference_label: &str) -> String {
    if reference.trim_end() == answer.trim_end() {
        return format!(
            "<p class=\"note\">The answer is the {} line for line.</p>",
            escape(reference_label)
        );
    }
    // Both end in a newline, so that a last line without one is not a change.
    let (old, new) = (with_newline(cut(reference).0), with_newline(cut(answer).0));
    let diff = TextDiff::from_lines(old.as_str(), new.as_str());
    if diff
        .ops()
        .iter()
        .all(|op| op.tag() == similar::DiffTag::Equal)
    {
        return format!(
            "<p class=\"note\">The lines shown are the same as the {}'s; they differ after them.</p>",
            escape(reference_label)
        );
    }
    let mut h = format!(
        "<pre class=\"diff\"><span class=\"head\">--- {}</span><span class=\"head\">+++ answer</span>",
        escape(reference_label)
    );
    let mut lines = 0usize;
    let mut left = 0usize;
    let udiff = diff.unified_diff();
    for hunk in udiff.iter_hunks() {
        for (i, change) in hunk.iter_changes().enumerate() {
            if lines >= DIFF_LINES {
                left += 1;
                continue;
            }
            if i == 0 {
                let _ = write!(h, "<span class=\"hunk\">{}</span>", hunk.header());
            }
            let (class, sign) = match change.tag() {
                ChangeTag::Delete => ("del", '-'),
                ChangeTag::Insert => ("add", '+'),
                ChangeTag::Equal => ("ctx", ' '),
            };
            let text = change.value().trim_end_matches(['\n', '\r']);
            let _ = write!(h, "<span class=\"{class}\">{sign}{}</span>", escape(text));
            lines += 1;
        }
    }
    h.push_str("</pre>");
    h.push_str(&cut_note(left, "the diff"));
    h
}

fn with_newline(text: &str) -> String {
    let mut t = text.to_string();
    if !t.is_empty() && !t.ends_with('\n') {
        t.push('\n');
    }
    t
}

/// The failure of a sample: a function task's case taken apart, else the detail as it is.
fn failure_block(family: Family, s: &SampleRecord) -> String {
    let Some(detail) = &s.detail else {
        return if s.failed() {
            "<p class=\"note\">No detail recorded.</p>".to_string()
        } else {
            String::new()
        };
    };
    let title = if s.status == Some(ExecStatus::Infra) {
        "What the harness reported"
    } else {
        "First failure"
    };
    match parse_case(detail).filter(|_| family == Family::Function) {
        Some(c) => {
            let (got_name, got) = match c.got.strip_prefix("raised ") {
                Some(e) => ("Raised", e),
                None => ("Returned", c.got),
            };
            let mut h = format!(
                "<h3>{title}</h3><table class=\"case\"><tbody><tr><th>Case</th><td>{}</td></tr>\
                 <tr><th>Arguments</th><td>{}</td></tr>",
                escape(c.case),
                escape(c.args)
            );
            if c.kwargs != "{}" {
                let _ = write!(
                    h,
                    "<tr><th>Keyword arguments</th><td>{}</td></tr>",
                    escape(c.kwargs)
                );
            }
            let _ = write!(
                h,
                "<tr class=\"expected\"><th>Expected</th><td>{}</td></tr>\
                 <tr class=\"got\"><th>{got_name}</th><td>{}</td></tr></tbody></table>",
                escape(c.expected),
                escape(got)
            );
            h
        }
        None => format!(
            "<h3>{title}</h3><pre class=\"detail\">{}</pre>",
            escape(detail)
        ),
    }
}

/// One sample: a summary line (status, fingerprint, cases) and, open when it failed, its
/// failure, answer and diff.
fn sample_block(
    h: &mut String,
    family: Family,
    text: Option<&TaskText>,
    s: &SampleRecord,
    same_as: Option<i32>,
) {
    let status = status_text(s);
    let _ = write!(
        h,
        "<details class=\"sample\"{}><summary><b>sample {}</b><span class=\"badge\" \
         style=\"background:{}\">{}</span>",
        if s.failed() { " open" } else { "" },
        s.sample,
        status_colour(&status),
        escape(&status)
    );
    if let Some(f) = s.fingerprint {
        let _ = write!(h, "<span>fingerprint <code>{}</code></span>", f.as_str());
    }
    if s.status.is_some() && s.cases.1 > 0 {
        let unit = if family == Family::Function {
            "cases"
        } else {
            "tests"
        };
        let _ = write!(
            h,
            "<span class=\"note\">{} of {} {unit} passed</span>",
            s.cases.0, s.cases.1
        );
    }
    h.push_str("</summary><div class=\"body\">");
    h.push_str(&failure_block(family, s));
    if let Some(e) = &s.error {
        let _ = write!(
            h,
            "<h3>The model could not be asked</h3><pre class=\"detail\">{}</pre>",
            escape(e)
        );
    }
    match (&s.answer, same_as) {
        (Some(_), Some(earlier)) => {
            let _ = write!(
                h,
                "<p class=\"note\">The same answer as sample {earlier} above.</p>"
            );
        }
        (Some(answer), None) => {
            h.push_str("<h3>Answer</h3>");
            h.push_str(&code_block(answer, "the answer"));
            if let Some(t) = text {
                let _ = write!(h, "<h3>Diff against the {}</h3>", t.reference_label);
                h.push_str(&diff_block(&t.reference, answer, t.reference_label));
            }
        }
        (None, _) => h.push_str("<p class=\"note\">No answer.</p>"),
    }
    h.push_str("</div></details>");
}

/// The links at the top of a page: the report, the index, the failed tasks before and
/// after this one.
#[derive(Debug, Clone, Copy)]
pub struct Links<'a> {
    /// The report, from the folder: `../report.html`.
    pub report: &'a str,
    pub previous: Option<&'a str>,
    pub next: Option<&'a str>,
}

fn head_html(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{CSS}{PAGE_CSS}</style></head><body><main class=\"page\">",
        escape(title)
    )
}

fn foot_html(h: &mut String) {
    let _ = writeln!(
        h,
        "<footer>freshbench score {}</footer></main></body></html>",
        env!("CARGO_PKG_VERSION")
    );
}

fn crumbs(h: &mut String, links: &Links) {
    let _ = write!(
        h,
        "<nav class=\"crumbs\"><a href=\"{}\">← Report</a><a href=\"{INDEX}\">All failed tasks</a>",
        escape(links.report)
    );
    if let Some(p) = links.previous {
        let _ = write!(
            h,
            "<a href=\"{}\">‹ Previous failed task</a>",
            escape(&page_name(p))
        );
    }
    if let Some(n) = links.next {
        let _ = write!(
            h,
            "<a href=\"{}\">Next failed task ›</a>",
            escape(&page_name(n))
        );
    }
    h.push_str("</nav>");
}

/// A task's page: the task, its prompt and reference (`text`; `None` when its task table
/// has no row for it), and each run's samples of it.
pub fn render_page(
    task: &TaskInfo,
    text: Option<&TaskText>,
    runs: &[&RunData],
    links: &Links,
) -> String {
    let id = &task.task_id;
    let mut h = head_html(&format!("freshbench task {id}"));
    h.push_str("<header>");
    crumbs(&mut h, links);
    let _ = write!(
        h,
        "<h1>Task <code>{}</code></h1><p class=\"sub\">{} task &nbsp;·&nbsp; repository <b>{}</b> \
         &nbsp;·&nbsp; difficulty {}</p>",
        escape(id),
        task.family.as_str(),
        escape(&task.repo),
        escape(&task.difficulty)
    );
    if let Some(t) = text.filter(|t| !t.facts.is_empty()) {
        h.push_str("<table class=\"facts\"><tbody>");
        for (name, value) in &t.facts {
            let _ = write!(
                h,
                "<tr><th>{}</th><td>{}</td></tr>",
                escape(name),
                escape(value)
            );
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</header>");
    match text {
        Some(t) => {
            h.push_str("<section id=\"prompt\"><h2>Prompt</h2>");
            match &t.masked {
                Some(m) => h.push_str(&masked_block(&t.prompt, &m.kind, &m.suffix)),
                None => h.push_str(&code_block(&t.prompt, "the prompt")),
            }
            let label = t.reference_label;
            let _ = write!(
                h,
                "</section><section id=\"reference\"><h2>{}{}</h2>{}</section>",
                label[..1].to_uppercase(),
                &label[1..],
                code_block(&t.reference, label)
            );
        }
        None => h.push_str(
            "<section id=\"prompt\"><p class=\"note\">The task tables have no row for this \
             task: no prompt or reference to show.</p></section>",
        ),
    }
    for (i, r) in runs.iter().enumerate() {
        run_section(&mut h, task, text, i, r);
    }
    foot_html(&mut h);
    h
}

fn run_section(h: &mut String, task: &TaskInfo, text: Option<&TaskText>, i: usize, r: &RunData) {
    let o = r.outcomes.get(&task.task_id);
    let tally = o.map_or_else(
        || "not scored".to_string(),
        |o| {
            format!(
                "{} of {} sample{} passed",
                o.c,
                o.n,
                if o.n == 1 { "" } else { "s" }
            )
        },
    );
    let _ = write!(
        h,
        "<section id=\"run-{i}\"><h2><span class=\"swatch\" style=\"background:{}\"></span>{}\
         <span class=\"tally\">{tally}</span></h2><span class=\"model\">{}</span>",
        svg::run_colour(i),
        escape(&r.name),
        escape(&r.model)
    );
    match r.samples.get(&task.task_id) {
        Some(samples) if !samples.is_empty() => {
            for (j, s) in samples.iter().enumerate() {
                // An answer given before in the run is not shown twice.
                let same_as = s.answer.as_ref().and_then(|a| {
                    samples[..j]
                        .iter()
                        .find(|t| t.answer.as_ref() == Some(a))
                        .map(|t| t.sample)
                });
                sample_block(h, task.family, text, s, same_as);
            }
        }
        _ => h.push_str("<p class=\"note\">No sample of this task in this run.</p>"),
    }
    h.push_str("</section>");
}

/// The index of the folder: every failed task, linked to its page.
pub fn render_index(rows: &[FailedTask], runs: &[&RunData], report: &str) -> String {
    let mut h = head_html("freshbench failed tasks");
    let _ = write!(
        h,
        "<header><nav class=\"crumbs\"><a href=\"{}\">← Report</a></nav><h1>Failed tasks</h1>\
         <p class=\"sub\">{} task{} that some run failed (a scored sample that did not pass), \
         those most runs failed first.</p></header><section>",
        escape(report),
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    );
    failed_table(&mut h, rows, runs, "", usize::MAX);
    h.push_str("</section>");
    foot_html(&mut h);
    h
}

/// `../NAME`, the report's file name with its bytes other than letters, digits and
/// `-._~` percent-encoded, for a link from the folder.
fn report_link(report: &Path) -> String {
    let name = report.file_name().map_or_else(
        || "report.html".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut out = String::from("../");
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Writes the task pages and their index into [`FOLDER`] beside `report`, and removes the
/// pages of an earlier report there that are not written again (the folder is the
/// report's); the prompts and references are read from the task tables of `dir`. Returns
/// the number of task pages. Without a failed task, nothing is written (and the folder,
/// emptied, is removed).
pub fn write(
    dir: &Path,
    dataset: &Dataset,
    runs: &[RunData],
    report: &Path,
) -> anyhow::Result<usize> {
    let runs: Vec<&RunData> = runs.iter().collect();
    let failed = failed_tasks(dataset, &runs);
    let folder = report
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(FOLDER);
    let ids: BTreeSet<&str> = failed.iter().map(|f| f.task.task_id.as_str()).collect();
    let texts = if ids.is_empty() {
        std::collections::BTreeMap::default()
    } else {
        data::load_task_texts(dir, &ids)?
    };
    let back = report_link(report);
    let mut written: BTreeSet<String> = BTreeSet::new();
    for (i, f) in failed.iter().enumerate() {
        let id = f.task.task_id.as_str();
        let links = Links {
            report: &back,
            previous: i.checked_sub(1).map(|j| failed[j].task.task_id.as_str()),
            next: failed.get(i + 1).map(|g| g.task.task_id.as_str()),
        };
        let html = render_page(f.task, texts.get(id), &runs, &links);
        let name = page_name(id);
        let path = folder.join(&name);
        schemas::io::write_bytes_atomic(&path, html.as_bytes())
            .with_context(|| format!("writing the task page {}", path.display()))?;
        written.insert(name);
    }
    if !failed.is_empty() {
        let path = folder.join(INDEX);
        schemas::io::write_bytes_atomic(&path, render_index(&failed, &runs, &back).as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        written.insert(INDEX.to_string());
    }
    remove_stale(&folder, &written)?;
    tracing::info!(pages = failed.len(), folder = %folder.display(), "task pages written");
    Ok(failed.len())
}

/// Removes the `.html` files of `folder` not in `keep`, and the folder when that empties it.
fn remove_stale(folder: &Path, keep: &BTreeSet<String>) -> anyhow::Result<()> {
    let entries = match std::fs::read_dir(folder) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", folder.display())),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = Path::new(&name).extension().is_some_and(|e| e == "html");
        if ours && !keep.contains(&name) && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())
                .with_context(|| format!("removing the old page {}", entry.path().display()))?;
        }
    }
    if keep.is_empty() {
        // Only when empty: anything else in it is not ours to remove.
        let _ = std::fs::remove_dir(folder);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{test_run, DifficultySource, Outcome};
    use std::collections::BTreeMap;

    fn task(id: &str, family: Family) -> TaskInfo {
        TaskInfo {
            task_id: id.into(),
            family,
            class: None,
            level: None,
            assertion: None,
            repo: "r<&>".into(),
            difficulty: "low".into(),
            figures: None,
            figure_buckets: None,
            window: None,
            quarter: "unknown".into(),
        }
    }

    fn sample(n: i32, status: ExecStatus, answer: &str, detail: Option<&str>) -> SampleRecord {
        SampleRecord {
            sample: n,
            answer: Some(answer.into()),
            error: None,
            status: Some(status),
            fingerprint: (status != ExecStatus::Pass).then_some(schemas::Fingerprint::Logic),
            detail: detail.map(str::to_string),
            cases: (0, 3),
        }
    }

    fn text() -> TaskText {
        TaskText {
            prompt: "def f(x):\n    \"\"\"<doc>\"\"\"\n".into(),
            masked: None,
            reference: "def f(x):\n    return x + 1\n".into(),
            reference_label: "reference solution",
            facts: vec![("entry point", "f".into())],
        }
    }

    /// A run with the samples of task `t`.
    fn run_with(name: &str, samples: Vec<SampleRecord>) -> RunData {
        let n = samples.iter().filter(|s| s.status.is_some()).count() as u32;
        let c = samples
            .iter()
            .filter(|s| s.status == Some(ExecStatus::Pass))
            .count() as u32;
        let mut r = test_run(name, "m<odel>", &[("t", n, c)]);
        r.samples.insert("t".into(), samples);
        r
    }

    /// `n` lines made by `line`, joined.
    fn joined(n: usize, line: impl Fn(usize) -> String) -> String {
        let mut out = String::new();
        for i in 0..n {
            out.push_str(&line(i));
        }
        out
    }

    const LINKS: Links<'static> = Links {
        report: "../report.html",
        previous: None,
        next: Some("u"),
    };

    #[test]
    fn page_names_are_safe_and_distinct() {
        assert_eq!(page_name("0123abcdef"), "0123abcdef.html");
        assert_eq!(page_name("t-1_x"), "t-1_x.html");
        assert_eq!(href("t1"), "tasks/t1.html");
        let odd = ["../x", "a/b", "a b", "index", "é", ""];
        let names: BTreeSet<String> = odd.iter().map(|id| page_name(id)).collect();
        assert_eq!(names.len(), odd.len(), "{names:?}");
        for n in &names {
            let stem = n.strip_suffix(".html").unwrap();
            assert!(
                stem.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                "{n}"
            );
            assert_ne!(n, INDEX);
        }
        assert_eq!(page_name("a/b"), page_name("a/b"));
        assert_ne!(page_name("a/b"), page_name("a_b"));
    }

    #[test]
    fn a_function_tasks_detail_is_taken_apart() {
        let c = parse_case("case 3: args [1, \"a\"] kwargs {\"k\": 2}: expected 4, got 5").unwrap();
        assert_eq!(
            c,
            CaseFailure {
                case: "3",
                args: "[1, \"a\"]",
                kwargs: "{\"k\": 2}",
                expected: "4",
                got: "5"
            }
        );
        // An error message that holds `, got ` itself stays whole.
        let c = parse_case(
            "case 0: args [] kwargs {}: expected 'x', got raised TypeError: expected str, got int",
        )
        .unwrap();
        assert_eq!(c.expected, "'x'");
        assert_eq!(c.got, "raised TypeError: expected str, got int");
        for other in [
            "syntax: invalid syntax (line 2)",
            "case x: args [] kwargs {}: expected 1, got 2",
            "case 1: args [1] kwargs {}: expected 1111111 ...",
            "tests/test_a.py::test_b failed",
        ] {
            assert_eq!(parse_case(other), None, "{other}");
        }
    }

    #[test]
    fn a_page_shows_the_case_the_answer_and_the_diff_escaped() {
        let t = task("t", Family::Function);
        let a = run_with(
            "a<run>",
            vec![
                sample(
                    0,
                    ExecStatus::Fail,
                    "def f(x):\n    return x + 2  # <b>\n",
                    Some("case 1: args [<1>] kwargs {}: expected 2, got 3"),
                ),
                sample(
                    1,
                    ExecStatus::Error,
                    "def f(x):\n    return x + 2  # <b>\n",
                    Some(
                        "case 1: args [1] kwargs {\"y\": 1}: expected 2, got raised KeyError: 'y'",
                    ),
                ),
                sample(2, ExecStatus::Pass, "def f(x):\n    return x + 1", None),
            ],
        );
        let html = render_page(&t, Some(&text()), &[&a], &LINKS);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(!html.contains("<b>\n") && !html.contains("<run>") && !html.contains("<doc>"));
        assert!(html.contains("a&lt;run&gt;") && html.contains("m&lt;odel&gt;"));
        assert!(html.contains("repository <b>r&lt;&amp;&gt;</b>"));
        assert!(html.contains("&quot;&quot;&quot;&lt;doc&gt;&quot;&quot;&quot;"));
        assert!(html.contains("<tr><th>Arguments</th><td>[&lt;1&gt;]</td></tr>"));
        assert!(html.contains("<th>Returned</th><td>3</td>"));
        assert!(html.contains("<tr><th>Keyword arguments</th><td>{&quot;y&quot;: 1}</td></tr>"));
        assert!(html.contains("<th>Raised</th><td>KeyError: &#39;y&#39;</td>"));
        // No keyword arguments: no row for them in the first case.
        assert_eq!(html.matches("Keyword arguments").count(), 1);
        assert!(html.contains(
            "<span class=\"hunk\">@@ -1,2 +1,2 @@</span><span class=\"ctx\"> def f(x):</span>\
             <span class=\"del\">-    return x + 1</span>\
             <span class=\"add\">+    return x + 2  # &lt;b&gt;</span>"
        ));
        // The second sample's answer is the first's: shown once.
        assert!(html.contains("The same answer as sample 0 above."));
        assert_eq!(html.matches("<h3>Answer</h3>").count(), 2);
        // The passing sample (no newline at its end) is the reference, closed.
        assert!(html.contains("The answer is the reference solution line for line."));
        assert_eq!(html.matches("<details class=\"sample\" open>").count(), 2);
        assert!(html.contains("1 of 3 samples passed"));
        assert!(html.contains("<a href=\"../report.html\">← Report</a>"));
        assert!(html.contains("<a href=\"u.html\">Next failed task ›</a>"));
        assert!(!html.contains("Previous failed task"));
        assert!(!html.contains("<script") && !html.contains("http"));
    }

    #[test]
    fn huge_answers_and_diffs_are_cut() {
        let t = task("t", Family::Function);
        let answer: String = joined(5000, |i| format!("line {i}\n"));
        let a = run_with("a", vec![sample(0, ExecStatus::Fail, &answer, None)]);
        let html = render_page(&t, Some(&text()), &[&a], &LINKS);
        assert!(html.contains("line 299\n") && !html.contains("line 300\n"));
        assert!(html.contains("… 4700 more lines of the answer not shown."));
        assert!(html.contains("No detail recorded."));
        // The diff: 300 lines added and 2 removed, of which 400 are shown in all.
        let diff = &html[html.find("<pre class=\"diff\">").unwrap()..];
        assert_eq!(diff.matches("<span class=\"add\">").count(), 300);
        assert!(html.len() < 100_000, "{} bytes", html.len());
        // One long line is cut by its bytes.
        let long = "x".repeat(100_000);
        let (shown, hidden) = cut(&long);
        assert_eq!((shown.len(), hidden), (SHOWN_BYTES, 1));
        let many: String = "d\n".repeat(2 * DIFF_LINES);
        let block = diff_block("", &many, "reference solution");
        assert_eq!(block.matches("<span class=\"add\">").count(), SHOWN_LINES);
        assert!(!block.contains("<span class=\"del\">"));
        let lines: String = joined(2 * DIFF_LINES, |i| format!("{i}\n"));
        let other: String = joined(2 * DIFF_LINES, |i| format!("{i}!\n"));
        let block = diff_block(&lines, &other, "reference solution");
        assert_eq!(block.matches("<span class=\"").count() - 3, DIFF_LINES);
        assert!(block.contains("more lines of the diff not shown"));
    }

    #[test]
    fn completion_and_assertion_details_are_shown_as_they_are() {
        let t = task("t", Family::Completion);
        let prefix: String = joined(100, |i| format!("p{i}\n")) + "    ";
        let tt = TaskText {
            prompt: prefix,
            masked: Some(crate::data::Masked {
                kind: "statement".into(),
                suffix: joined(50, |i| format!("\ns{i}")),
            }),
            reference: "x = 1".into(),
            reference_label: "masked text",
            facts: Vec::new(),
        };
        let detail = "case 1: args [] kwargs {}: expected 1, got 2";
        let a = run_with(
            "a",
            vec![sample(0, ExecStatus::Fail, "x = 2", Some(detail))],
        );
        let html = render_page(&t, Some(&tt), &[&a], &LINKS);
        assert!(html.contains(&format!("<pre class=\"detail\">{detail}</pre>")));
        assert!(!html.contains("<table class=\"case\">"));
        assert!(html.contains("… 61 lines above not shown."));
        assert!(html.contains("p61\n") && !html.contains("p60\n"));
        assert!(html.contains("p99\n    <mark class=\"mask\">⟨masked statement⟩</mark>\ns0\n"));
        assert!(html.contains("s18\n</pre>") && html.contains("… 31 lines below not shown."));
        assert!(html.contains("<h2>Masked text</h2>"));
        assert!(html.contains("<span class=\"del\">-x = 1</span><span class=\"add\">+x = 2</span>"));
        // Without the task's row: said so, the samples still shown.
        let html = render_page(&t, None, &[&a], &LINKS);
        assert!(html.contains("no prompt or reference to show") && html.contains("x = 2"));
    }

    #[test]
    fn failed_tasks_most_runs_first_with_their_first_failure() {
        let ds = Dataset {
            tasks: vec![
                task("p", Family::Function),
                task("q", Family::Function),
                task("r", Family::Function),
                task("s", Family::Function),
            ],
            invalid: 0,
            difficulty_source: DifficultySource::Proxy,
            slice_statuses: BTreeMap::new(),
            cutoff: None,
        };
        // p: passed by both; q: failed by a (1 of 2); r: failed by both; s: failed by b.
        let mut a = test_run("a", "m", &[("p", 1, 1), ("q", 2, 1), ("r", 1, 0)]);
        let mut b = test_run("b", "m", &[("p", 1, 1), ("r", 1, 0), ("s", 4, 0)]);
        a.samples.insert(
            "q".into(),
            vec![
                sample(0, ExecStatus::Pass, "ok", None),
                sample(
                    1,
                    ExecStatus::Fail,
                    "no",
                    Some("case 2: args [1] kwargs {}: expected 1, got 2"),
                ),
            ],
        );
        b.samples.insert(
            "r".into(),
            vec![sample(0, ExecStatus::Timeout, "slow", None)],
        );
        a.outcomes.insert("gone".into(), Outcome { n: 1, c: 0 });
        let rows = failed_tasks(&ds, &[&a, &b]);
        let ids: Vec<&str> = rows.iter().map(|f| f.task.task_id.as_str()).collect();
        // r (two runs) first; then s (no pass) before q (one of two passed); never p, nor a
        // task not in the dataset.
        assert_eq!(ids, ["r", "s", "q"]);
        assert_eq!(
            rows[0].runs,
            [
                RunFailures {
                    run: 0,
                    failed: 1,
                    scored: 1
                },
                RunFailures {
                    run: 1,
                    failed: 1,
                    scored: 1
                }
            ]
        );
        // r: a has no samples recorded, so the first failure is b's.
        assert_eq!(
            rows[0].first.map(|s| s.status),
            Some(Some(ExecStatus::Timeout))
        );
        assert_eq!(rows[2].first.map(|s| s.sample), Some(1));
        assert_eq!(
            short_failure(rows[2].first.unwrap()),
            "fail (logic): case 2: expected 1, got 2"
        );
        let mut h = String::new();
        failed_table(&mut h, &rows, &[&a, &b], "tasks/", 2);
        assert!(h.contains("<a href=\"tasks/r.html\"><code>r</code></a>"));
        assert!(h.contains("<a href=\"tasks/s.html\">") && !h.contains("tasks/q.html"));
        assert!(h.contains("b <span class=\"note\">4 of 4 failed</span>"));
        assert!(h.contains("<td>r&lt;&amp;&gt;</td>"));
        assert!(h.contains("<td class=\"first\">—</td>"));
        let index = render_index(&rows, &[&a, &b], "../report.html");
        assert!(index.contains("3 tasks that some run failed"));
        assert!(index.contains("<a href=\"q.html\">"));
    }

    #[test]
    fn short_failures_are_one_capped_line() {
        let mut s = sample(0, ExecStatus::Syntax, "x", Some("invalid syntax\n  line 2"));
        s.fingerprint = Some(schemas::Fingerprint::Syntax);
        assert_eq!(short_failure(&s), "syntax: invalid syntax");
        s.detail = Some("y".repeat(500));
        assert_eq!(short_failure(&s).chars().count(), SHORT_FAILURE);
        s.status = None;
        s.detail = None;
        assert_eq!(short_failure(&s), "not executed (syntax)");
    }

    #[test]
    fn the_report_link_is_percent_encoded() {
        assert_eq!(report_link(Path::new("/a/report.html")), "../report.html");
        assert_eq!(report_link(Path::new("x/c #1.html")), "../c%20%231.html");
    }
}
