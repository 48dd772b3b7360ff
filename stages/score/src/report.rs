//! The HTML report: one self-contained file (inline CSS and SVG, no script, no fonts or
//! anything else fetched) that compares the runs side by side. Its summary has each run's
//! tokens, cost and cost per solved task ([`crate::data::run_cost`]); its failures section
//! lists the tasks some run failed, each linked to its page in `tasks/` beside the report
//! ([`crate::pages`], which writes those pages and shares this file's CSS).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use schemas::{Breakdown, Family, Score};

use crate::data::{run_cost, Dataset, DifficultySource, RunData};
use crate::difficulty::{self, Explanation, Figure};
use crate::estimate::Estimate;
use crate::pages;
use crate::scores::{
    failures_by_figure, figure_correlations, group_rank, paired_gap, FamilyScores, MemorizationGap,
    Split,
};
use crate::svg::{self, escape, pct, Bar, Series};

/// One run to report: what was read and the scores computed.
#[derive(Debug, Clone, Copy)]
pub struct RunReport<'a> {
    pub data: &'a RunData,
    pub scores: &'a [Score],
    /// The run's results per task family, overall and in each split of the family
    /// ([`crate::scores::family_scores`]).
    pub families: &'a [FamilyScores],
    /// pass@1 before the cutoff minus after it, with its interval ([`crate::scores::window_gap`]).
    pub gap: Option<Estimate>,
    /// pass@1 on assertion tasks' original programs minus on their mutated variants, with
    /// its interval ([`crate::scores::memorization_gap`]); `None` without assertion tasks
    /// scored on both.
    pub memorization: Option<MemorizationGap>,
}

/// How the scores were made, for the method notes.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    pub resamples: usize,
    pub seed: u64,
}

const STATUS_ORDER: [(&str, &str); 7] = [
    ("pass", "#009E73"),
    ("fail", "#D55E00"),
    ("error", "#E69F00"),
    ("timeout", "#CC79A7"),
    ("memory", "#56B4E9"),
    ("syntax", "#0072B2"),
    ("sandbox_violation", "#222222"),
];
const FINGERPRINT_ORDER: [(&str, &str); 4] = [
    ("syntax", "#0072B2"),
    ("runtime", "#E69F00"),
    ("logic", "#D55E00"),
    ("none", "#9aa4b2"),
];
const OTHER_COLOURS: [&str; 4] = ["#8C6D1F", "#6b7280", "#b4befe", "#a3a3a3"];

/// The colour of a sample's status (`not executed`, `infra` and others grey).
pub(crate) fn status_colour(status: &str) -> &'static str {
    STATUS_ORDER
        .iter()
        .find(|(s, _)| *s == status)
        .map_or("#9aa4b2", |(_, c)| *c)
}

/// The report's style, which the task pages share.
pub(crate) const CSS: &str = r"
:root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#f3f4f6;--card:#ffffff;--accent:#0072B2}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}
main{max-width:1000px;margin:0 auto;padding:28px 20px 48px}
header h1{font-size:28px;margin:0 0 2px;letter-spacing:-.01em}
header .sub{color:var(--muted);margin:0}
nav{margin:14px 0 0;font-size:14px;display:flex;flex-wrap:wrap;gap:4px 16px}
nav a{color:var(--accent);text-decoration:none}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 22px 20px;margin:18px 0;box-shadow:0 1px 2px rgba(0,0,0,.04)}
h2{font-size:19px;margin:0 0 6px}
h3{font-size:15px;margin:18px 0 4px;color:#374151}
p{margin:6px 0}
.note{color:#4b5563;font-size:14px}
.callout{border-left:4px solid #E69F00;background:#fff8eb;padding:10px 14px;border-radius:6px;margin:10px 0;font-size:14px}
.callout.warn{border-left-color:#D55E00;background:#fdf0ea}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:14px;margin:8px 0}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right}
tbody tr:nth-child(even){background:#fafbfc}
.ci{color:var(--muted);font-size:12px;display:block;white-space:nowrap}
.big{font-size:18px;font-weight:700}
.swatch{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:7px;vertical-align:-1px}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;margin:8px 0 6px}
svg.chart{max-width:100%;height:auto;display:block;margin:4px 0}
svg.mini{vertical-align:middle;margin-right:8px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;background:#f3f4f6;padding:1px 4px;border-radius:4px}
.model{display:block;margin-left:19px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;color:var(--muted);word-break:break-all}
.scroll{overflow-x:auto}
table.summary th{white-space:normal}
table.summary td:first-child{min-width:170px;max-width:260px}
footer{color:var(--muted);font-size:12px;text-align:center;margin-top:24px}
table.failed td{vertical-align:top}
table.failed td.first{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;overflow-wrap:anywhere}
table.failed a,.note a{color:var(--accent)}
.runfail{display:block;white-space:nowrap}
";

fn find<'a>(scores: &'a [Score], breakdown: Breakdown, group: &str, k: i32) -> Option<&'a Score> {
    scores
        .iter()
        .find(|s| s.breakdown == breakdown && s.group_key == group && s.k == k)
}

fn bar_of(s: &Score) -> Bar {
    Bar {
        value: s.pass_at_k,
        low: s.ci_low,
        high: s.ci_high,
        tasks: s.tasks,
    }
}

/// The groups of a breakdown over all runs, in their natural order.
fn groups(runs: &[RunReport], breakdown: Breakdown) -> Vec<String> {
    let keys: BTreeSet<(usize, String)> = runs
        .iter()
        .flat_map(|r| r.scores.iter())
        .filter(|s| s.breakdown == breakdown)
        .map(|s| group_rank(breakdown, &s.group_key))
        .collect();
    keys.into_iter().map(|(_, k)| k).collect()
}

fn series(runs: &[RunReport]) -> Vec<Series> {
    runs.iter()
        .enumerate()
        .map(|(i, r)| Series {
            name: r.data.name.clone(),
            colour: svg::run_colour(i),
        })
        .collect()
}

fn legend(items: &[(String, &str)]) -> String {
    let mut s = String::from("<div class=\"legend\">");
    for (name, colour) in items {
        let _ = write!(
            s,
            "<span><span class=\"swatch\" style=\"background:{colour}\"></span>{}</span>",
            escape(name)
        );
    }
    s.push_str("</div>");
    s
}

/// pass@1 of each run (a bar, or none where it has no score) per group of a breakdown.
fn bars(runs: &[RunReport], breakdown: Breakdown, keys: &[String]) -> Vec<Vec<Option<Bar>>> {
    keys.iter()
        .map(|g| {
            runs.iter()
                .map(|r| find(r.scores, breakdown, g, 1).map(bar_of))
                .collect()
        })
        .collect()
}

fn run_legend(runs: &[RunReport]) -> String {
    if runs.len() < 2 {
        return String::new();
    }
    let items: Vec<(String, &str)> = series(runs)
        .into_iter()
        .map(|s| (s.name, s.colour))
        .collect();
    legend(&items)
}

/// The pass@1 chart of a breakdown, one bar per run in each group; `None` without groups.
fn breakdown_chart(runs: &[RunReport], breakdown: Breakdown, title: &str) -> Option<String> {
    let keys = groups(runs, breakdown);
    if keys.is_empty() {
        return None;
    }
    let values = bars(runs, breakdown, &keys);
    Some(svg::bar_chart(
        title,
        &keys,
        &series(runs),
        &values,
        "no tasks",
    ))
}

fn chart_or_note(runs: &[RunReport], breakdown: Breakdown, title: &str) -> String {
    breakdown_chart(runs, breakdown, title).map_or_else(
        || "<p class=\"note\">No scored tasks in this breakdown.</p>".to_string(),
        |svg| format!("{}{svg}", run_legend(runs)),
    )
}

fn estimate_cell(e: Option<Estimate>) -> String {
    match e {
        Some(e) => format!(
            "<span class=\"big\">{}</span><span class=\"ci\">CI {}–{}</span>",
            pct(e.value),
            pct(e.low),
            pct(e.high)
        ),
        None => "<span class=\"ci\">—</span>".to_string(),
    }
}

fn score_cell(s: Option<&Score>) -> String {
    match s {
        Some(s) => format!(
            "<span class=\"big\">{}</span><span class=\"ci\">CI {}–{}</span>",
            pct(s.pass_at_k),
            pct(s.ci_low),
            pct(s.ci_high)
        ),
        None => "<span class=\"ci\">—</span>".to_string(),
    }
}

/// A count with thousands separators: `1,234,567`; `—` when unknown.
fn thousands(n: Option<i64>) -> String {
    let Some(n) = n else {
        return "—".to_string();
    };
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    if n < 0 {
        out.insert(0, '-');
    }
    out
}

/// An amount of the price table's currency: two decimals from 1 on, four below (answers
/// cost fractions of a cent); `—` when unknown.
fn money(x: Option<f64>) -> String {
    match x {
        Some(x) if x.abs() >= 1.0 => format!("{x:.2}"),
        Some(x) => format!("{x:.4}"),
        None => "—".to_string(),
    }
}

/// Each run's tokens, cost and cost per solved task ([`run_cost`]): a table of its own
/// beside the summary, which has no room left for them.
fn costs(h: &mut String, runs: &[RunReport]) {
    h.push_str(
        "<h3>Tokens and cost</h3><div class=\"scroll\"><table class=\"costs\"><thead><tr>\
         <th>Run</th><th class=\"num\">Answers</th><th class=\"num\">Tokens in</th>\
         <th class=\"num\">Tokens out</th><th class=\"num\">Cost</th>\
         <th class=\"num\">Tasks solved</th><th class=\"num\">Cost per solved task</th>\
         </tr></thead><tbody>",
    );
    for (i, r) in runs.iter().enumerate() {
        let c = run_cost(r.data);
        let partial = if c.cost.is_some() && c.priced < c.answers {
            format!(
                "<span class=\"ci\">{} of {} answers priced</span>",
                c.priced, c.answers
            )
        } else {
            String::new()
        };
        let _ = write!(
            h,
            "<tr><td><span class=\"swatch\" style=\"background:{}\"></span><b>{}</b></td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}{partial}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            svg::run_colour(i),
            escape(&r.data.name),
            c.answers,
            thousands(c.tokens_in),
            thousands(c.tokens_out),
            money(c.cost),
            c.solved_tasks,
            money(c.cost_per_solved),
        );
    }
    h.push_str(
        "</tbody></table></div><p class=\"note\">Summed over each run's answers to valid \
         tasks (one per task and sample) that report them; the cost is in the currency of \
         <code>solve</code>'s price table, and the cost per solved task divides it by the \
         tasks with at least one passing sample. — when unknown (no price given, no token \
         counts reported, or no task solved).</p>",
    );
}

/// Renders the report.
pub fn render(dataset: &Dataset, runs: &[RunReport], meta: &Meta) -> String {
    let names: Vec<String> = runs.iter().map(|r| r.data.name.clone()).collect();
    let title = if names.len() == 1 {
        format!("freshbench report: {}", names[0])
    } else {
        format!("freshbench report: {}", names.join(" vs "))
    };
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{CSS}</style></head><body><main>",
        escape(&title)
    );
    header(&mut h, dataset, runs, meta, &names);
    summary(&mut h, dataset, runs);
    compared(&mut h, dataset, runs, meta);
    family_class(&mut h, runs);
    family_tables(&mut h, runs);
    memorization(&mut h, runs);
    difficulty(&mut h, dataset, runs);
    window(&mut h, dataset, runs);
    contamination(&mut h, dataset, runs);
    repos(&mut h, runs);
    failures(&mut h, dataset, runs);
    method(&mut h, dataset, runs, meta);
    let _ = write!(
        h,
        "<footer>freshbench score {}</footer></main></body></html>",
        env!("CARGO_PKG_VERSION")
    );
    h.push('\n');
    h
}

/// With several runs: each pair's difference in pass@1 on the tasks both scored, with its
/// paired interval, and which run is ahead when the interval leaves no doubt.
fn compared(h: &mut String, dataset: &Dataset, runs: &[RunReport], meta: &Meta) {
    if runs.len() < 2 {
        return;
    }
    h.push_str(
        "<section id=\"compared\"><h2>Runs compared</h2><p>pass@1 of the first run minus \
         the second's, on the tasks both have scored, with a paired 95% bootstrap interval: \
         the same tasks are drawn for both runs, so a difference can be clear while the two \
         runs' own intervals overlap.</p><div class=\"scroll\"><table><thead><tr>\
         <th>Runs</th><th class=\"num\">Tasks</th><th class=\"num\">Difference (points)</th>\
         <th>Verdict</th></tr></thead><tbody>",
    );
    for (i, a) in runs.iter().enumerate() {
        for b in &runs[i + 1..] {
            let (an, bn) = (escape(&a.data.name), escape(&b.data.name));
            let Some((e, tasks)) = paired_gap(dataset, a.data, b.data, meta.resamples, meta.seed)
            else {
                let _ = write!(
                    h,
                    "<tr><td><b>{an}</b> − <b>{bn}</b></td><td class=\"num\">0</td>\
                     <td class=\"num\">—</td><td>no task scored in both</td></tr>"
                );
                continue;
            };
            let verdict = if e.low > 0.0 {
                format!("<b>{an}</b> is ahead")
            } else if e.high < 0.0 {
                format!("<b>{bn}</b> is ahead")
            } else {
                "no clear difference (the interval holds zero)".to_string()
            };
            let _ = write!(
                h,
                "<tr><td><b>{an}</b> − <b>{bn}</b></td><td class=\"num\">{tasks}</td>\
                 <td class=\"num\"><span class=\"big\">{:+.1}</span><span class=\"ci\">CI \
                 {:+.1} to {:+.1}</span></td><td>{verdict}</td></tr>",
                e.value * 100.0,
                e.low * 100.0,
                e.high * 100.0
            );
        }
    }
    h.push_str("</tbody></table></div></section>");
}

fn header(h: &mut String, dataset: &Dataset, runs: &[RunReport], meta: &Meta, names: &[String]) {
    let runs_html: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            format!(
                "<span class=\"swatch\" style=\"background:{}\"></span><b>{}</b>",
                svg::run_colour(i),
                escape(n)
            )
        })
        .collect();
    let _ = write!(
        h,
        "<header><h1>freshbench report</h1><p class=\"sub\">{} &nbsp;·&nbsp; {} valid task{} \
         ({} invalid excluded) &nbsp;·&nbsp; difficulty from {} &nbsp;·&nbsp; {} &nbsp;·&nbsp; \
         {} bootstrap resamples, seed {}</p>",
        runs_html.join(" &nbsp;vs&nbsp; "),
        dataset.tasks.len(),
        if dataset.tasks.len() == 1 { "" } else { "s" },
        dataset.invalid,
        match dataset.difficulty_source {
            DifficultySource::Slices => "slices (ESV, MCL, DFI)",
            DifficultySource::Proxy => "a proxy (no slices table)",
        },
        dataset.cutoff.as_deref().map_or_else(
            || "no cutoff given".to_string(),
            |c| format!("cutoff {}", escape(c))
        ),
        meta.resamples,
        meta.seed
    );
    let _ = write!(
        h,
        "<nav><a href=\"#summary\">Summary</a>{}<a href=\"#family\">Family and class</a><a href=\"#families\">Per family</a>{}\
         <a href=\"#difficulty\">Difficulty</a><a href=\"#cutoff\">Before and after the cutoff</a><a href=\"#curve\">Contamination curve</a>\
         <a href=\"#repos\">Repositories</a><a href=\"#failures\">Failures</a>{}\
         <a href=\"#method\">Method</a></nav></header>",
        if names.len() > 1 {
            "<a href=\"#compared\">Runs compared</a>"
        } else {
            ""
        },
        if has_memorization(runs) {
            "<a href=\"#memorization\">Memorization gap</a>"
        } else {
            ""
        },
        if has_failed_tasks(dataset, runs) {
            "<a href=\"#failed-tasks\">Failed tasks</a>"
        } else {
            ""
        }
    );
}

fn summary(h: &mut String, dataset: &Dataset, runs: &[RunReport]) {
    let ks: BTreeSet<i32> = runs
        .iter()
        .flat_map(|r| r.scores.iter())
        .filter(|s| s.breakdown == Breakdown::Overall && s.k > 1)
        .map(|s| s.k)
        .collect();
    h.push_str("<section id=\"summary\"><h2>Summary</h2>");
    h.push_str(
        "<div class=\"scroll\"><table class=\"summary\"><thead><tr><th>Run and model</th>\
         <th class=\"num\">Tasks scored / valid</th><th class=\"num\">Samples per task</th>\
         <th class=\"num\">pass@1</th>",
    );
    for k in &ks {
        let _ = write!(h, "<th class=\"num\">pass@{k}</th>");
    }
    h.push_str("</tr></thead><tbody>");
    for (i, r) in runs.iter().enumerate() {
        let d = r.data;
        let ns = d.outcomes.values().map(|o| o.n);
        let samples = match (ns.clone().min(), ns.max()) {
            (Some(a), Some(b)) if a == b => a.to_string(),
            (Some(a), Some(b)) => format!("{a}–{b}"),
            _ => "—".to_string(),
        };
        let _ = write!(
            h,
            "<tr><td><span class=\"swatch\" style=\"background:{}\"></span><b>{}</b>\
             <span class=\"model\">{}</span></td><td class=\"num\">{} / {}{}</td>\
             <td class=\"num\">{samples}</td><td class=\"num\">{}</td>",
            svg::run_colour(i),
            escape(&d.name),
            escape(&d.model),
            d.outcomes.len(),
            dataset.tasks.len(),
            if d.missing_tasks > 0 {
                format!("<span class=\"ci\">{} missing</span>", d.missing_tasks)
            } else {
                String::new()
            },
            score_cell(find(r.scores, Breakdown::Overall, "all", 1))
        );
        for k in &ks {
            let _ = write!(
                h,
                "<td class=\"num\">{}</td>",
                score_cell(find(r.scores, Breakdown::Overall, "all", *k))
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div>");
    costs(h, runs);
    // Warnings about what did not count.
    for r in runs {
        let d = r.data;
        let mut parts = Vec::new();
        if d.missing_tasks > 0 {
            parts.push(format!(
                "{} valid task{} without any execution (not scored: neither passed nor failed)",
                d.missing_tasks,
                if d.missing_tasks == 1 { "" } else { "s" }
            ));
        }
        if d.missing_samples > 0 {
            parts.push(format!(
                "{} sample{} answered but not executed (not scored)",
                d.missing_samples,
                if d.missing_samples == 1 { "" } else { "s" }
            ));
        }
        if d.infra_samples > 0 {
            parts.push(format!(
                "{} sample{} the harness could not judge (infra: not the model's failure, not scored)",
                d.infra_samples,
                if d.infra_samples == 1 { "" } else { "s" }
            ));
        }
        if d.duplicate_executions > 0 {
            parts.push(format!(
                "{} repeated execution row{} (the first counts)",
                d.duplicate_executions,
                if d.duplicate_executions == 1 { "" } else { "s" }
            ));
        }
        if !parts.is_empty() {
            let _ = write!(
                h,
                "<div class=\"callout warn\"><b>{}</b> is incomplete: {}. Run <code>solve</code> and \
                 <code>execute --run {}</code> on the rest to score it on every valid task.</div>",
                escape(&d.name),
                parts.join("; "),
                escape(&d.name)
            );
        }
    }
    // pass@k curves.
    let mut all_ks: BTreeSet<i32> = ks;
    all_ks.insert(1);
    let keys: Vec<String> = all_ks.iter().map(|k| format!("pass@{k}")).collect();
    let values: Vec<Vec<Option<Bar>>> = all_ks
        .iter()
        .map(|k| {
            runs.iter()
                .map(|r| find(r.scores, Breakdown::Overall, "all", *k).map(bar_of))
                .collect()
        })
        .collect();
    if runs
        .iter()
        .any(|r| find(r.scores, Breakdown::Overall, "all", 1).is_some())
    {
        h.push_str("<h3>pass@k over all valid tasks</h3>");
        h.push_str(&run_legend(runs));
        h.push_str(&svg::bar_chart(
            "pass@k over all tasks",
            &keys,
            &series(runs),
            &values,
            "fewer samples than k",
        ));
        h.push_str(
            "<p class=\"note\">Bars are the unbiased pass@k estimate averaged over tasks; whiskers \
             are 95% bootstrap intervals over tasks; n is the number of tasks.</p>",
        );
    } else {
        h.push_str("<p class=\"note\">No run has a scored task.</p>");
    }
    h.push_str("</section>");
}

fn family_class(h: &mut String, runs: &[RunReport]) {
    h.push_str("<section id=\"family\"><h2>By task family and function class</h2>");
    h.push_str("<h3>pass@1 by family</h3>");
    h.push_str(&chart_or_note(
        runs,
        Breakdown::Family,
        "pass@1 by task family",
    ));
    h.push_str("<h3>pass@1 by function class</h3>");
    h.push_str(&chart_or_note(
        runs,
        Breakdown::Class,
        "pass@1 by function class",
    ));
    h.push_str(
        "<p class=\"note\">Classes apply to function tasks: <code>self_contained</code> functions \
         use only their parameters and builtins, <code>weakly_self_contained</code> ones also \
         well-known libraries.</p></section>",
    );
}

fn family_title(family: Family) -> &'static str {
    match family {
        Family::Function => "Function tasks",
        Family::Completion => "Completion tasks",
        Family::Assertion => "Assertion tasks",
    }
}

fn family_note(family: Family) -> &'static str {
    match family {
        Family::Function => {
            "Write a function from its signature and docstring; judged by test cases whose \
             expected values were recorded by running the original. By function class."
        }
        Family::Completion => {
            "Fill one masked syntax span of a repository file, given the text before and \
             after it and ranked context from other files; judged by the repository's own \
             tests that execute the span (a sample passes when all of them pass). By level, \
             the syntax level of the span: <code>expression</code>, <code>statement</code>, \
             <code>block</code>, <code>function</code>."
        }
        Family::Assertion => {
            "A real assertion of a repository test with its expected value masked: predict \
             the value the code really produces (<code>value</code> form), or say whether \
             the assertion shown with a claimed value holds (<code>verify</code> form); \
             judged against the value recorded by running the test. Each assertion is posed \
             on the <code>original</code> program and on <code>mutated</code> variants of \
             it (one mutant of the code the test runs, under which the value changes), \
             where a recalled answer is wrong. By form and by program."
        }
    }
}

/// A table per task family (each run over all the family's tasks and in each of its
/// splits), and for the splits other than the function class (which has its chart above)
/// a chart of pass@1 by group: completion tasks by level, assertion tasks by form and by
/// program.
fn family_tables(h: &mut String, runs: &[RunReport]) {
    let present: Vec<Family> = Family::ALL
        .iter()
        .copied()
        .filter(|f| {
            runs.iter()
                .any(|r| r.families.iter().any(|s| s.family == *f))
        })
        .collect();
    let splits: Vec<String> = present
        .iter()
        .map(|f| {
            let names: Vec<&str> = Split::of(*f).iter().map(|s| s.name()).collect();
            format!("{} tasks by {}", f.as_str(), names.join(" and by "))
        })
        .collect();
    let _ = write!(
        h,
        "<section id=\"families\"><h2>Per family</h2><p class=\"note\">pass@1 and pass@k \
         of each task family, over all its scored tasks and in each of its splits ({}), \
         with 95% bootstrap intervals over tasks. A family's first row is the family's bar \
         above.</p>",
        splits.join(", ")
    );
    if present.is_empty() {
        h.push_str("<p class=\"note\">No valid tasks.</p></section>");
        return;
    }
    for family in present {
        let of = |r: &RunReport<'_>| r.families.iter().find(|s| s.family == family).cloned();
        let fams: Vec<Option<FamilyScores>> = runs.iter().map(of).collect();
        let ks: BTreeSet<i32> = fams
            .iter()
            .flatten()
            .flat_map(|f| f.all.iter().chain(f.splits.iter().flat_map(|s| &s.groups)))
            .flat_map(|g| g.by_k.iter().map(|(k, _)| *k))
            .filter(|k| *k > 1)
            .collect();
        let _ = write!(
            h,
            "<h3 id=\"family-{}\">{}</h3><p class=\"note\">{}</p>",
            family.as_str(),
            family_title(family),
            family_note(family)
        );
        let splits = Split::of(family);
        // One split: its name heads the column; several: each row names its split.
        let header = match splits {
            [one] => one.name(),
            _ => "group",
        };
        let _ = write!(
            h,
            "<div class=\"scroll\"><table class=\"family\"><thead><tr><th>Run</th><th>{}</th>\
             <th class=\"num\">Tasks scored / valid</th><th class=\"num\">pass@1</th>",
            escape(&header[..1].to_uppercase()) + &header[1..]
        );
        for k in &ks {
            let _ = write!(h, "<th class=\"num\">pass@{k}</th>");
        }
        h.push_str("</tr></thead><tbody>");
        for (i, (r, f)) in runs.iter().zip(&fams).enumerate() {
            let Some(f) = f else { continue };
            let run_cell = format!(
                "<span class=\"swatch\" style=\"background:{}\"></span><b>{}</b>",
                svg::run_colour(i),
                escape(&r.data.name)
            );
            let scored = f.all.as_ref().map_or(0, |g| g.tasks);
            let _ = write!(
                h,
                "<tr><td>{run_cell}</td><td>all</td><td class=\"num\">{scored} / {}</td>\
                 <td class=\"num\">{}</td>",
                f.valid,
                estimate_cell(f.all.as_ref().and_then(|g| g.at(1)))
            );
            for k in &ks {
                let _ = write!(
                    h,
                    "<td class=\"num\">{}</td>",
                    estimate_cell(f.all.as_ref().and_then(|g| g.at(*k)))
                );
            }
            h.push_str("</tr>");
            for split in &f.splits {
                let named = if splits.len() > 1 {
                    format!("{} ", split.split.name())
                } else {
                    String::new()
                };
                for g in &split.groups {
                    let _ = write!(
                        h,
                        "<tr><td></td><td>{named}<code>{}</code></td><td class=\"num\">{}</td>\
                         <td class=\"num\">{}</td>",
                        escape(&g.key),
                        g.tasks,
                        estimate_cell(g.at(1))
                    );
                    for k in &ks {
                        let _ = write!(h, "<td class=\"num\">{}</td>", estimate_cell(g.at(*k)));
                    }
                    h.push_str("</tr>");
                }
            }
        }
        h.push_str("</tbody></table></div>");
        for &split in splits.iter().filter(|s| **s != Split::Class) {
            split_chart(h, runs, &fams, family, split);
        }
    }
    h.push_str("</section>");
}

/// pass@1 of a family's tasks by the groups of one split, one bar per run; nothing when no
/// run has a group in it.
fn split_chart(
    h: &mut String,
    runs: &[RunReport],
    fams: &[Option<FamilyScores>],
    family: Family,
    split: Split,
) {
    let groups_of = |f: &Option<FamilyScores>| {
        f.as_ref()
            .and_then(|f| f.splits.iter().find(|s| s.split == split))
            .map(|s| s.groups.clone())
            .unwrap_or_default()
    };
    let keys: BTreeSet<(usize, String)> = fams
        .iter()
        .flat_map(groups_of)
        .map(|g| split.rank(&g.key))
        .collect();
    if keys.is_empty() {
        return;
    }
    let keys: Vec<String> = keys.into_iter().map(|(_, k)| k).collect();
    let values: Vec<Vec<Option<Bar>>> = keys
        .iter()
        .map(|key| {
            fams.iter()
                .map(|f| {
                    let g = groups_of(f).into_iter().find(|g| g.key == *key)?;
                    let e = g.at(1)?;
                    Some(Bar {
                        value: e.value,
                        low: e.low,
                        high: e.high,
                        tasks: g.tasks,
                    })
                })
                .collect()
        })
        .collect();
    h.push_str(&run_legend(runs));
    h.push_str(&svg::bar_chart(
        &format!("pass@1 of {} tasks by {}", family.as_str(), split.name()),
        &keys,
        &series(runs),
        &values,
        "no tasks",
    ));
}

/// Whether some run has a memorization gap (assertion tasks scored on both programs).
fn has_memorization(runs: &[RunReport]) -> bool {
    runs.iter().any(|r| r.memorization.is_some())
}

/// The memorization gap of each run that has one; nothing at all when none has.
fn memorization(h: &mut String, runs: &[RunReport]) {
    if !has_memorization(runs) {
        return;
    }
    h.push_str(
        "<section id=\"memorization\"><h2>Memorization gap</h2><p>pass@1 on assertion \
         tasks posed on the original program minus pass@1 on those posed on mutated \
         variants of it, over the same assertions: a large positive gap is the sign of \
         memorization, since a model that recalls the repository's values passes the \
         originals but not the variants, whose values differ, while a model that works the \
         values out from the code scores alike on both.</p>\
         <div class=\"scroll\"><table><thead><tr><th>Run</th><th class=\"num\">Assertions</th>\
         <th class=\"num\">pass@1 original</th><th class=\"num\">pass@1 mutated</th>\
         <th class=\"num\">Gap (points)</th><th>Verdict</th></tr></thead><tbody>",
    );
    let mut one_sided = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let Some(m) = &r.memorization else { continue };
        let verdict = if m.gap.low > 0.0 {
            "higher on the originals, beyond the uncertainty: a sign of memorization"
        } else if m.gap.high < 0.0 {
            "higher on the variants, beyond the uncertainty: no sign of memorization"
        } else {
            "no clear gap (the interval holds zero)"
        };
        let _ = write!(
            h,
            "<tr><td><span class=\"swatch\" style=\"background:{}\"></span><b>{}</b></td>\
             <td class=\"num\">{}</td>\
             <td class=\"num\">{}<span class=\"ci\">{} tasks</span></td>\
             <td class=\"num\">{}<span class=\"ci\">{} tasks</span></td>\
             <td class=\"num\"><span class=\"big\">{:+.1}</span><span class=\"ci\">CI \
             {:+.1} to {:+.1}</span></td><td>{verdict}</td></tr>",
            svg::run_colour(i),
            escape(&r.data.name),
            m.assertions,
            pct(m.original),
            m.original_tasks,
            pct(m.mutated),
            m.mutated_tasks,
            m.gap.value * 100.0,
            m.gap.low * 100.0,
            m.gap.high * 100.0,
        );
        if m.one_sided > 0 {
            one_sided.push(format!("{} ({})", escape(&r.data.name), m.one_sided));
        }
    }
    h.push_str("</tbody></table></div>");
    h.push_str(
        "<p class=\"note\">Over the assertions of which the run scored both an original and a \
         mutated task; each side is the mean pass@1 of those assertions' tasks on that \
         program. The 95% interval resamples whole assertions, as the tasks of one assertion \
         share its test and code.</p>",
    );
    if !one_sided.is_empty() {
        let _ = write!(
            h,
            "<p class=\"note\">Assertions scored on one program only, left out of the gap: {}.</p>",
            one_sided.join(", ")
        );
    }
    h.push_str("</section>");
}

fn difficulty(h: &mut String, dataset: &Dataset, runs: &[RunReport]) {
    h.push_str("<section id=\"difficulty\"><h2>By difficulty</h2>");
    match dataset.difficulty_source {
        DifficultySource::Slices => {
            h.push_str(
                "<p class=\"note\">Tertiles of a combined difficulty: the mean of each task's \
                 normalized rank in ESV (lines of the functions in its dynamic slice), MCL \
                 (statements of the slice executed per judged run) and DFI (independent \
                 external inputs), among the valid tasks whose slice has status <code>ok</code>. Tasks without \
                 one (no slice, or one that timed out, was too large or could not be traced) \
                 are <code>unknown</code>.</p>",
            );
            slice_statuses(h, dataset);
        }
        DifficultySource::Proxy => h.push_str(
            "<div class=\"callout\"><b>Proxy difficulty.</b> There is no <code>slices</code> \
             table (run <code>slice</code> for ESV, MCL and DFI), so the buckets are tertiles of \
             a proxy: the mean normalized rank of a function task's branch arcs and the \
             non-blank lines of its reference solution. Groups are marked <code>(proxy)</code>; \
             tasks other than function tasks are <code>unknown (proxy)</code>. pass@1 by ESV, \
             MCL and DFI each, and which of them explains the failures, need the slices.</div>",
        ),
    }
    h.push_str(&chart_or_note(
        runs,
        Breakdown::Difficulty,
        "pass@1 by difficulty",
    ));
    if dataset.difficulty_source == DifficultySource::Slices {
        by_figure(h, dataset, runs);
    }
    h.push_str("</section>");
}

/// How many valid tasks have a slice of each status, when some have none of status `ok`.
fn slice_statuses(h: &mut String, dataset: &Dataset) {
    let ok = dataset.slice_statuses.get("ok").copied().unwrap_or(0);
    let others: Vec<String> = dataset
        .slice_statuses
        .iter()
        .filter(|(status, n)| status.as_str() != "ok" && **n > 0)
        .map(|(status, n)| format!("{n} <code>{}</code>", escape(status)))
        .collect();
    if others.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<p class=\"note\">Of the {} valid tasks, {ok} have a slice of status <code>ok</code>; \
         {} are <code>unknown</code> here and in the figures below.</p>",
        dataset.tasks.len(),
        others.join(", ")
    );
}

/// A figure's rho, two decimals; `—` when undefined.
fn rho(r: Option<f64>) -> String {
    r.map_or_else(|| "—".to_string(), |r| format!("{r:.2}"))
}

/// The smallest and largest value of a figure among the valid tasks of each of its
/// tertiles.
fn figure_ranges(dataset: &Dataset, figure: Figure) -> BTreeMap<&'static str, (i64, i64)> {
    let mut out: BTreeMap<&'static str, (i64, i64)> = BTreeMap::new();
    for t in &dataset.tasks {
        let (Some(f), Some(bucket)) = (t.figures, t.figure_bucket(figure)) else {
            continue;
        };
        let v = f.get(figure);
        let e = out.entry(bucket).or_insert((v, v));
        e.0 = e.0.min(v);
        e.1 = e.1.max(v);
    }
    out
}

/// A tertile's label with the figure's range in it: `low (ESV 3–12)`.
fn bin_label(figure: Figure, key: &str, ranges: &BTreeMap<&'static str, (i64, i64)>) -> String {
    match ranges.get(key) {
        Some((lo, hi)) if lo == hi => format!("{key} ({} {lo})", figure.name()),
        Some((lo, hi)) => format!("{key} ({} {lo}–{hi})", figure.name()),
        None if key == difficulty::UNKNOWN => format!("{key} (no ok slice)"),
        None => key.to_string(),
    }
}

/// pass@1 by the tertiles of ESV, MCL and DFI each, how alike the three rank the tasks,
/// and per run which of them goes most with its failures.
fn by_figure(h: &mut String, dataset: &Dataset, runs: &[RunReport]) {
    let (between, measured) = figure_correlations(dataset);
    h.push_str("<h3>By each figure</h3>");
    if measured < difficulty::MIN_TASKS {
        let _ = write!(
            h,
            "<p class=\"note\">The figures against each other: too few tasks (&lt;{}) with a \
             slice of status <code>ok</code> ({measured}).</p>",
            difficulty::MIN_TASKS
        );
    } else {
        let pairs: Vec<String> = difficulty::FIGURE_PAIRS
            .iter()
            .zip(between)
            .map(|((a, b), r)| format!("{}–{} rho={}", a.name(), b.name(), rho(r)))
            .collect();
        let _ = write!(
            h,
            "<p>The figures against each other (Spearman's rank correlation over the \
             {measured} valid tasks with a slice of status <code>ok</code>): {}. A rho near 1 \
             (or −1) would make two figures one measure counted twice; the nearer zero, the \
             more each tells of its own.</p>",
            pairs.join(", ")
        );
    }
    for figure in Figure::ALL {
        let breakdown = figure.breakdown();
        let keys = groups(runs, breakdown);
        let _ = write!(
            h,
            "<h3>pass@1 by {}</h3><p class=\"note\">{}, {}.</p>",
            figure.name(),
            figure.name(),
            figure.meaning()
        );
        if keys.is_empty() {
            h.push_str("<p class=\"note\">No scored tasks in this breakdown.</p>");
            continue;
        }
        let ranges = figure_ranges(dataset, figure);
        let labels: Vec<String> = keys.iter().map(|k| bin_label(figure, k, &ranges)).collect();
        let values = bars(runs, breakdown, &keys);
        h.push_str(&run_legend(runs));
        h.push_str(&svg::bar_chart(
            &format!("pass@1 by tertile of {}", figure.name()),
            &labels,
            &series(runs),
            &values,
            "no tasks",
        ));
    }
    h.push_str(
        "<p class=\"note\">Each figure's bins are its tertiles among the valid tasks with a \
         slice of status <code>ok</code> (tied values share a bin, so bins are about, not \
         exactly, a third), with the smallest and largest value in the bin; whiskers are 95% \
         bootstrap intervals over tasks.</p>",
    );
    h.push_str("<h3>Which figure explains the failures</h3>");
    let _ = write!(
        h,
        "<p class=\"note\">Per run, Spearman's rank correlation (rho) of each figure with the \
         task's failure rate (1 − its mean pass over samples), over the valid tasks with a \
         slice of status <code>ok</code> the run scored; the figure with the largest rho \
         explains most of the failures. A rho near zero means the figure has little to do \
         with which tasks fail; fewer than {} tasks give no rho.</p>",
        difficulty::MIN_TASKS
    );
    for r in runs {
        let name = escape(&r.data.name);
        let e = failures_by_figure(dataset, r.data);
        let text = match &e {
            Explanation::TooFew(n) => format!(
                "too few tasks (&lt;{}) with a slice of status <code>ok</code> and a scored \
                 sample ({n}) to tell which figure explains the failures",
                difficulty::MIN_TASKS
            ),
            Explanation::NoFailures => "no failures".to_string(),
            Explanation::EvenFailures => {
                "every task fails as often as every other: no figure can explain the failures"
                    .to_string()
            }
            Explanation::Rhos { rho: rhos, tasks } => {
                let each: Vec<String> = Figure::ALL
                    .iter()
                    .zip(rhos)
                    .map(|(f, r)| format!("{} rho={}", f.name(), rho(*r)))
                    .collect();
                let leaders: Vec<&str> = e.leaders().iter().map(|f| f.name()).collect();
                let verdict = match leaders.as_slice() {
                    [] => "no figure rises with the failures (no rho above zero)".to_string(),
                    [one] => format!("{one} explains most of the failures"),
                    several => format!(
                        "{} explain most of the failures (tied)",
                        several.join(" and ")
                    ),
                };
                format!("{}: {verdict} (over {tasks} tasks)", each.join(", "))
            }
        };
        let _ = write!(h, "<p><b>{name}</b>: {text}.</p>");
    }
}

fn window(h: &mut String, dataset: &Dataset, runs: &[RunReport]) {
    h.push_str("<section id=\"cutoff\"><h2>Before and after the cutoff</h2>");
    let Some(cutoff) = &dataset.cutoff else {
        h.push_str(
            "<p class=\"note\">No cutoff was given. Score with <code>--cutoff YYYY-MM-DD</code> \
             (a model's training cutoff) to compare tasks whose code was published before it \
             with those whose code was published after it.</p></section>",
        );
        return;
    };
    let _ = write!(
        h,
        "<p>Tasks are split by when the code they are made from was first published (its code \
         date: each function dated against the earlier releases or commits of its repository, \
         not by the release it was crawled from), against the cutoff <b>{}</b>. A model that \
         does much better on code published before the cutoff than on code published after it \
         has likely seen the older code (or code very like it) in training: its score there \
         measures memory as much as skill. The tasks after the cutoff are the fair \
         measure.</p>",
        escape(cutoff)
    );
    h.push_str(&chart_or_note(
        runs,
        Breakdown::Window,
        "pass@1 before and after the cutoff",
    ));
    for r in runs {
        let before = find(r.scores, Breakdown::Window, "before_cutoff", 1);
        let after = find(r.scores, Breakdown::Window, "after_cutoff", 1);
        let (Some(b), Some(a)) = (before, after) else {
            continue;
        };
        let Some(gap) = r.gap else { continue };
        let points = |x: f64| format!("{:.1}", x * 100.0);
        let interval = format!(
            "the 95% interval of the difference is [{}, {}] points",
            points(gap.low),
            points(gap.high)
        );
        let beyond = gap.low > 0.0;
        let verdict = if beyond {
            format!(
                "{} points higher on older code, beyond the uncertainty ({interval}, all above \
                 zero): a sign that the model has seen the older code",
                points(gap.value)
            )
        } else if gap.value > 0.0 {
            format!(
                "{} points higher on older code, within the uncertainty ({interval}, which \
                 holds zero)",
                points(gap.value)
            )
        } else if gap.value < 0.0 {
            format!(
                "{} points lower on older code: no sign that the model has seen it",
                points(-gap.value)
            )
        } else {
            "the same before and after the cutoff".to_string()
        };
        let _ = write!(
            h,
            "<p class=\"{}\"><b>{}</b>: pass@1 {} before the cutoff ({} tasks), {} after it ({} tasks); \
             {verdict}.</p>",
            if beyond {
                "callout warn"
            } else {
                "note"
            },
            escape(&r.data.name),
            pct(b.pass_at_k),
            b.tasks,
            pct(a.pass_at_k),
            a.tasks,
        );
    }
    h.push_str("</section>");
}

/// pass@1 by the quarter of the tasks' code date, one line per run.
fn contamination(h: &mut String, dataset: &Dataset, runs: &[RunReport]) {
    h.push_str("<section id=\"curve\"><h2>Contamination curve</h2>");
    let keys: Vec<String> = groups(runs, Breakdown::Quarter)
        .into_iter()
        .filter(|k| k != "unknown")
        .collect();
    if keys.is_empty() {
        h.push_str(
            "<p class=\"note\">No scored task has a code date (crawl with a cutoff, so that each \
             function is dated against the versions of its repository before it).</p></section>",
        );
        return;
    }
    let values: Vec<Vec<Option<Bar>>> = keys
        .iter()
        .map(|q| {
            runs.iter()
                .map(|r| find(r.scores, Breakdown::Quarter, q, 1).map(bar_of))
                .collect()
        })
        .collect();
    let cutoff_at = dataset
        .cutoff
        .as_deref()
        .and_then(schemas::Timestamp::parse)
        .map(crate::data::quarter_of)
        .and_then(|c| keys.iter().position(|k| *k >= c));
    h.push_str(
        "<p>pass@1 by the quarter in which the tasks' code was first published, with 95% \
         intervals. A model that has memorised older code scores higher on the quarters before \
         its training cutoff; a curve that drops at the cutoff is that sign, a flat one is \
         not.</p>",
    );
    h.push_str(&run_legend(runs));
    h.push_str(&crate::curve::line_chart(
        "pass@1 by quarter of the code's date",
        &keys,
        &series(runs),
        &values,
        cutoff_at,
    ));
    let unknown: i64 = runs
        .iter()
        .filter_map(|r| find(r.scores, Breakdown::Quarter, "unknown", 1))
        .map(|s| s.tasks)
        .max()
        .unwrap_or(0);
    if unknown > 0 {
        let _ = write!(
            h,
            "<p class=\"note\">{unknown} scored tasks have no code date and are not on the curve.</p>"
        );
    }
    h.push_str("</section>");
}

fn repos(h: &mut String, runs: &[RunReport]) {
    h.push_str("<section id=\"repos\"><h2>By repository</h2>");
    let keys = groups(runs, Breakdown::Repo);
    if keys.is_empty() {
        h.push_str("<p class=\"note\">No scored tasks.</p></section>");
        return;
    }
    h.push_str("<div class=\"scroll\"><table><thead><tr><th>Repository</th>");
    for (i, r) in runs.iter().enumerate() {
        let _ = write!(
            h,
            "<th><span class=\"swatch\" style=\"background:{}\"></span>{} pass@1</th>",
            svg::run_colour(i),
            escape(&r.data.name)
        );
    }
    h.push_str("</tr></thead><tbody>");
    for key in &keys {
        let _ = write!(h, "<tr><td>{}</td>", escape(key));
        for (i, r) in runs.iter().enumerate() {
            match find(r.scores, Breakdown::Repo, key, 1) {
                Some(s) => {
                    let _ = write!(
                        h,
                        "<td>{}<b>{}</b><span class=\"ci\">95% CI {}–{} · n={}</span></td>",
                        svg::mini_bar(bar_of(s), svg::run_colour(i)),
                        pct(s.pass_at_k),
                        pct(s.ci_low),
                        pct(s.ci_high),
                        s.tasks
                    );
                }
                None => h.push_str("<td><span class=\"ci\">no tasks</span></td>"),
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div></section>");
}

/// Categories in a fixed order with their colours, then any others by name.
fn categories(
    fixed: &[(&str, &'static str)],
    counts: &[&BTreeMap<String, usize>],
) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = fixed
        .iter()
        .filter(|(name, _)| counts.iter().any(|c| c.contains_key(*name)))
        .map(|(name, colour)| ((*name).to_string(), *colour))
        .collect();
    let others: BTreeSet<&String> = counts
        .iter()
        .flat_map(|c| c.keys())
        .filter(|k| !fixed.iter().any(|(f, _)| f == k))
        .collect();
    for (i, other) in others.into_iter().enumerate() {
        out.push((other.clone(), OTHER_COLOURS[i % OTHER_COLOURS.len()]));
    }
    out
}

fn counts_block(
    h: &mut String,
    title: &str,
    runs: &[RunReport],
    fixed: &[(&str, &'static str)],
    of: fn(&RunData) -> &BTreeMap<String, usize>,
) {
    let maps: Vec<&BTreeMap<String, usize>> = runs.iter().map(|r| of(r.data)).collect();
    let cats = categories(fixed, &maps);
    let names: Vec<String> = runs.iter().map(|r| r.data.name.clone()).collect();
    let counts: Vec<Vec<usize>> = maps
        .iter()
        .map(|m| {
            cats.iter()
                .map(|(c, _)| m.get(c).copied().unwrap_or(0))
                .collect()
        })
        .collect();
    h.push_str(&legend(&cats));
    h.push_str(&svg::stacked_chart(title, &names, &cats, &counts));
    if cats.is_empty() {
        return;
    }
    h.push_str("<div class=\"scroll\"><table><thead><tr><th></th>");
    for n in &names {
        let _ = write!(h, "<th class=\"num\">{}</th>", escape(n));
    }
    h.push_str("</tr></thead><tbody>");
    for (c, (cat, colour)) in cats.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><td><span class=\"swatch\" style=\"background:{colour}\"></span><code>{}</code></td>",
            escape(cat)
        );
        for row in &counts {
            let total: usize = row.iter().sum();
            let _ = write!(
                h,
                "<td class=\"num\">{}<span class=\"ci\">{}</span></td>",
                row[c],
                pct(row[c] as f64 / total as f64)
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div>");
}

/// Whether some run failed a task (and so the report lists it and it has a page).
fn has_failed_tasks(dataset: &Dataset, runs: &[RunReport]) -> bool {
    dataset.tasks.iter().any(|t| {
        runs.iter()
            .any(|r| r.data.outcomes.get(&t.task_id).is_some_and(|o| o.c < o.n))
    })
}

/// The tasks some run failed, each linked to its page; at most [`pages::REPORT_ROWS`].
fn failed_tasks(h: &mut String, dataset: &Dataset, runs: &[RunReport]) {
    let data: Vec<&RunData> = runs.iter().map(|r| r.data).collect();
    let rows = pages::failed_tasks(dataset, &data);
    if rows.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<h3 id=\"failed-tasks\">Failed tasks</h3><p class=\"note\">The {} task{} that some \
         run failed (a scored sample that did not pass), those most runs failed first{}. Each \
         task's page shows its prompt and reference, and every run's answers with their first \
         failing case and their diff against the reference; <a href=\"{}/{}\">all failed \
         tasks</a>.</p>",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        if rows.len() > pages::REPORT_ROWS {
            format!(" (the first {} here)", pages::REPORT_ROWS)
        } else {
            String::new()
        },
        pages::FOLDER,
        pages::INDEX
    );
    pages::failed_table(
        h,
        &rows,
        &data,
        &format!("{}/", pages::FOLDER),
        pages::REPORT_ROWS,
    );
}

fn failures(h: &mut String, dataset: &Dataset, runs: &[RunReport]) {
    h.push_str("<section id=\"failures\"><h2>Failures</h2>");
    h.push_str("<h3>Status of every scored sample</h3>");
    counts_block(
        h,
        "status of every scored sample, per run",
        runs,
        &STATUS_ORDER,
        |d| &d.statuses,
    );
    h.push_str("<h3>Fingerprints of the failed samples</h3>");
    h.push_str(
        "<p class=\"note\"><code>syntax</code>: the answer does not parse; <code>runtime</code>: it \
         raises or crashes; <code>logic</code>: it runs but returns the wrong value.</p>",
    );
    counts_block(
        h,
        "failure fingerprints, per run",
        runs,
        &FINGERPRINT_ORDER,
        |d| &d.fingerprints,
    );
    let ignored: Vec<String> = runs
        .iter()
        .filter(|r| r.data.ignored_executions > 0)
        .map(|r| format!("{} ({})", escape(&r.data.name), r.data.ignored_executions))
        .collect();
    if !ignored.is_empty() {
        let _ = write!(
            h,
            "<p class=\"note\">Executions of tasks that are not valid were left out: {}.</p>",
            ignored.join(", ")
        );
    }
    failed_tasks(h, dataset, runs);
    h.push_str("</section>");
}

fn method(h: &mut String, dataset: &Dataset, runs: &[RunReport], meta: &Meta) {
    let _ = write!(
        h,
        "<section id=\"method\"><h2>Method</h2>\
         <p class=\"note\"><b>Tasks.</b> Only tasks that <code>execute</code> validated (the \
         original passes, an empty body fails, results are stable) count: {} valid, {} invalid \
         left out. A valid task with no execution in a run is not scored for that run and is \
         reported as missing.</p>\
         <p class=\"note\"><b>pass@k.</b> For a task with n samples of which c pass, the unbiased \
         estimator 1 − C(n−c, k) / C(n, k) (computed as a product), averaged over tasks. A sample \
         passes when its execution status is <code>pass</code>. k runs over 1, 2, 5, 10, 20, 50, \
         ... up to the smallest n among a group's tasks, and that n itself.</p>\
         <p class=\"note\"><b>Intervals.</b> 95% percentile bootstrap over tasks: {} resamples of \
         the group's tasks with replacement (seed {}, so the report is reproducible). The gap \
         before and after the cutoff has an interval of its own: each window's tasks are \
         resampled apart and the difference of the two means taken each time; a gap counts \
         as real when that whole interval is above zero.{}</p>\
         <p class=\"note\"><b>Difficulty.</b> {}</p></section>",
        dataset.tasks.len(),
        dataset.invalid,
        meta.resamples,
        meta.seed,
        if has_memorization(runs) {
            " The memorization gap resamples assertions instead: each round draws as many \
             assertions as there are, with replacement, pools the pass@1 of their original \
             tasks and of their mutated tasks, and takes the difference."
        } else {
            ""
        },
        match dataset.difficulty_source {
            DifficultySource::Slices =>
                "Tertiles of the mean normalized rank of ESV, MCL and DFI from the slices table \
                 (slices of status <code>ok</code> only; the other tasks are \
                 <code>unknown</code>), and the tertiles of each figure on its own. Which \
                 figure explains a run's failures: the largest Spearman rank correlation \
                 (average ranks for ties) of a figure with the per-task failure rate.",
            DifficultySource::Proxy =>
                "No slices table: tertiles of the mean normalized rank of branch arcs and \
                 non-blank lines of the reference solution (a proxy).",
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Outcome, TaskInfo};
    use crate::scores::{family_scores, memorization_gap, score_run};

    fn dataset() -> Dataset {
        let task = |id: &str, repo: &str| TaskInfo {
            task_id: id.into(),
            family: "function".parse().unwrap(),
            class: Some(schemas::FunctionClass::SelfContained),
            level: None,
            assertion: None,
            repo: repo.into(),
            difficulty: "low (proxy)".into(),
            figures: None,
            figure_buckets: None,
            window: Some("after_cutoff".into()),
            quarter: "unknown".into(),
        };
        Dataset {
            tasks: vec![task("a", "<b>bold</b>"), task("b", "plain")],
            invalid: 1,
            difficulty_source: DifficultySource::Proxy,
            slice_statuses: BTreeMap::new(),
            cutoff: Some("2024-01-01".into()),
        }
    }

    fn run(name: &str, c: u32) -> RunData {
        RunData {
            name: name.into(),
            model: "command:<x>".into(),
            outcomes: [("a", c), ("b", c)]
                .into_iter()
                .map(|(id, c)| (id.to_string(), Outcome { n: 1, c }))
                .collect(),
            missing_tasks: 0,
            missing_samples: 0,
            ignored_executions: 2,
            duplicate_executions: 0,
            infra_samples: 0,
            statuses: [("pass".to_string(), 2 * c as usize)].into_iter().collect(),
            fingerprints: BTreeMap::new(),
            samples: BTreeMap::new(),
            spend: crate::data::Spend::default(),
        }
    }

    #[test]
    fn report_escapes_data_and_compares_runs() {
        let ds = dataset();
        let (a, b) = (run("ora<cle", 1), run("null", 0));
        let (sa, sb) = (score_run(&ds, &a, 50, 0), score_run(&ds, &b, 50, 0));
        let (fa, fb) = (family_scores(&ds, &a, 50, 0), family_scores(&ds, &b, 50, 0));
        let html = render(
            &ds,
            &[
                RunReport {
                    data: &a,
                    scores: &sa,
                    families: &fa,
                    gap: None,
                    memorization: None,
                },
                RunReport {
                    data: &b,
                    scores: &sb,
                    families: &fb,
                    gap: None,
                    memorization: None,
                },
            ],
            &Meta {
                resamples: 50,
                seed: 0,
            },
        );
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(!html.contains("<b>bold</b>") && html.contains("&lt;b&gt;bold&lt;/b&gt;"));
        assert!(!html.contains("ora<cle") && html.contains("ora&lt;cle"));
        assert!(html.contains("command:&lt;x&gt;"));
        assert!(!html.contains("<script"));
        // Nothing fetched: the only URL is the SVG namespace, which is a name, not a fetch.
        let urls = html.replace("http://www.w3.org/2000/svg", "");
        assert!(!urls.contains("http://") && !urls.contains("https://") && !urls.contains("<link"));
        assert!(html.contains("Proxy difficulty"));
        assert!(html.contains("low (proxy)"));
        // Both runs in the legend, in their colours.
        assert!(html.contains(svg::run_colour(0)) && html.contains(svg::run_colour(1)));
        assert!(html.matches("<svg class=\"chart\"").count() >= 6);
        // Function tasks only: their table, no completion table.
        assert!(
            html.contains("id=\"family-function\"") && html.contains("<code>self_contained</code>")
        );
        assert!(!html.contains("Completion tasks"));
        // No assertion tasks: nothing of them, no memorization section or link.
        assert!(!html.contains("ssertion") && !html.contains("emorization"));
        assert!(html.contains("in each of its splits (function tasks by class)"));
    }

    #[test]
    fn failed_tasks_are_linked_and_costs_shown() {
        let ds = dataset();
        let oracle = run("oracle", 1);
        let mut null = run("null", 0);
        null.spend = crate::data::Spend {
            answers: 3,
            tokens_in: Some(1_234_567),
            tokens_out: Some(890),
            cost: Some(2.5),
            priced: 2,
        };
        let html = render_runs(&ds, &[oracle.clone(), null]);
        assert!(html.contains("<a href=\"#failed-tasks\">Failed tasks</a>"));
        let section = &html[html.find("id=\"failed-tasks\"").unwrap()..];
        let section = &section[..section.find("</section>").unwrap()];
        assert!(section.contains("The 2 tasks that some run failed"));
        for id in ["a", "b"] {
            assert!(section.contains(&format!(
                "<a href=\"tasks/{id}.html\"><code>{id}</code></a>"
            )));
        }
        // The bold repository escaped; only null failed them; no sample recorded: no failure.
        assert!(section.contains("<td>&lt;b&gt;bold&lt;/b&gt;</td>"));
        assert!(section.contains("null <span class=\"note\">1 of 1 failed</span>"));
        assert!(!section.contains("oracle"));
        assert!(section.contains("<td class=\"first\">—</td>"));
        assert!(section.contains("<a href=\"tasks/index.html\">all failed tasks</a>"));
        let costs = &html[html.find("<table class=\"costs\">").unwrap()..];
        let costs = &costs[..costs.find("</table>").unwrap()];
        // The oracle: nothing known, but the tasks it solved.
        assert!(
            costs.contains(
                "<b>oracle</b></td><td class=\"num\">0</td><td class=\"num\">—</td>\
             <td class=\"num\">—</td><td class=\"num\">—</td><td class=\"num\">2</td>\
             <td class=\"num\">—</td>"
            ),
            "{costs}"
        );
        // null: a lower bound of its cost, and no task solved.
        assert!(
            costs.contains(
                "<b>null</b></td><td class=\"num\">3</td><td class=\"num\">1,234,567</td>\
             <td class=\"num\">890</td><td class=\"num\">2.50<span class=\"ci\">2 of 3 \
             answers priced</span></td><td class=\"num\">0</td><td class=\"num\">—</td>"
            ),
            "{costs}"
        );
        // Nothing failed: no table, no link.
        let html = render_runs(&ds, &[oracle]);
        assert!(!html.contains("failed-tasks") && !html.contains("tasks/"));
    }

    #[test]
    fn counts_and_amounts() {
        assert_eq!(thousands(Some(1_234_567)), "1,234,567");
        assert_eq!(thousands(Some(-1000)), "-1,000");
        assert_eq!(thousands(Some(999)), "999");
        assert_eq!(thousands(None), "—");
        assert_eq!(money(Some(12.345)), "12.35");
        assert_eq!(money(Some(0.000_42)), "0.0004");
        assert_eq!(money(None), "—");
    }

    #[test]
    fn completion_tasks_get_a_table_by_level() {
        let mut ds = dataset();
        for (id, level) in [
            ("c1", schemas::SpanKind::Expression),
            ("c2", schemas::SpanKind::Block),
        ] {
            ds.tasks.push(TaskInfo {
                task_id: id.into(),
                family: schemas::Family::Completion,
                class: None,
                level: Some(level),
                assertion: None,
                repo: "plain".into(),
                difficulty: "unknown (proxy)".into(),
                figures: None,
                figure_buckets: None,
                window: Some("after_cutoff".into()),
                quarter: "unknown".into(),
            });
        }
        let mut a = run("oracle", 1);
        a.outcomes.insert("c1".into(), Outcome { n: 1, c: 1 });
        a.outcomes.insert("c2".into(), Outcome { n: 1, c: 0 });
        let sa = score_run(&ds, &a, 50, 0);
        let fa = family_scores(&ds, &a, 50, 0);
        let html = render(
            &ds,
            &[RunReport {
                data: &a,
                scores: &sa,
                families: &fa,
                gap: None,
                memorization: None,
            }],
            &Meta {
                resamples: 50,
                seed: 0,
            },
        );
        let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("{needle}"));
        assert!(at("id=\"family-function\"") < at("id=\"family-completion\""));
        assert!(html.contains("Completion tasks"));
        assert!(at("<code>expression</code>") < at("<code>block</code>"));
        assert!(html.contains("pass@1 of completion tasks by level"));
        // The completion family over its two tasks: one passes.
        let table = &html[at("id=\"family-completion\"")..];
        assert!(
            table.contains("<td>all</td><td class=\"num\">2 / 2</td><td class=\"num\"><span class=\"big\">50.0%</span>"),
            "{table}"
        );
    }

    /// The dataset of [`dataset`] with the assertion tasks of one assertion `g`: its
    /// original `a0` and two variants `a1`, `a2` in the value form, and `a3` (original)
    /// and `a4` (mutated) in the verify form.
    fn with_assertions() -> Dataset {
        let mut ds = dataset();
        for (id, form, mutated) in [
            ("a0", schemas::AssertionForm::Value, false),
            ("a1", schemas::AssertionForm::Value, true),
            ("a2", schemas::AssertionForm::Value, true),
            ("a3", schemas::AssertionForm::Verify, false),
            ("a4", schemas::AssertionForm::Verify, true),
        ] {
            ds.tasks.push(TaskInfo {
                task_id: id.into(),
                family: schemas::Family::Assertion,
                class: None,
                level: None,
                assertion: Some(crate::data::AssertionInfo {
                    group_id: "g".into(),
                    form,
                    mutated,
                }),
                repo: "plain".into(),
                difficulty: "unknown (proxy)".into(),
                figures: None,
                figure_buckets: None,
                window: Some("after_cutoff".into()),
                quarter: "unknown".into(),
            });
        }
        ds
    }

    fn render_one(ds: &Dataset, a: &RunData) -> String {
        let sa = score_run(ds, a, 50, 0);
        let fa = family_scores(ds, a, 50, 0);
        render(
            ds,
            &[RunReport {
                data: a,
                scores: &sa,
                families: &fa,
                gap: None,
                memorization: memorization_gap(ds, a, 50, 0),
            }],
            &Meta {
                resamples: 50,
                seed: 0,
            },
        )
    }

    #[test]
    fn assertion_tasks_by_form_and_program_and_the_memorization_gap() {
        let ds = with_assertions();
        // Right on the originals, wrong on the variants.
        let mut a = run("oracle", 1);
        for (id, c) in [("a0", 1), ("a1", 0), ("a2", 0), ("a3", 1), ("a4", 0)] {
            a.outcomes.insert(id.into(), Outcome { n: 1, c });
        }
        let html = render_one(&ds, &a);
        let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("{needle}"));
        assert!(html.contains("Assertion tasks"));
        let table = &html[at("id=\"family-assertion\"")..];
        // 2 of 5 pass; the value form 1 of 3, the verify form 1 of 2.
        assert!(
            table.contains("<td>all</td><td class=\"num\">5 / 5</td><td class=\"num\"><span class=\"big\">40.0%</span>"),
            "{table}"
        );
        assert!(table.contains("<td>form <code>value</code></td><td class=\"num\">3</td><td class=\"num\"><span class=\"big\">33.3%</span>"));
        assert!(table.contains("<td>form <code>verify</code></td><td class=\"num\">2</td><td class=\"num\"><span class=\"big\">50.0%</span>"));
        assert!(table.contains("<td>program <code>original</code></td><td class=\"num\">2</td><td class=\"num\"><span class=\"big\">100.0%</span>"));
        assert!(table.contains("<td>program <code>mutated</code></td><td class=\"num\">3</td><td class=\"num\"><span class=\"big\">0.0%</span>"));
        assert!(html.contains("pass@1 of assertion tasks by form"));
        assert!(html.contains("pass@1 of assertion tasks by program"));
        // The gap section, its link and its sentence.
        assert!(html.contains("<a href=\"#memorization\">Memorization gap</a>"));
        let section = &html[at("<section id=\"memorization\">")..];
        let section = &section[..section.find("</section>").unwrap()];
        assert!(section.contains("a large positive gap is the sign of memorization"));
        assert!(
            section.contains("<span class=\"big\">+100.0</span>"),
            "{section}"
        );
        assert!(section.contains("a sign of memorization"), "{section}");
        assert!(html.contains("The memorization gap resamples assertions"));
        assert!(at("id=\"families\"") < at("id=\"memorization\""));
    }

    #[test]
    fn no_memorization_section_without_a_gap() {
        let ds = with_assertions();
        // An even run: a gap of zero, shown.
        let mut a = run("even", 1);
        for id in ["a0", "a1", "a2", "a3", "a4"] {
            a.outcomes.insert(id.into(), Outcome { n: 2, c: 1 });
        }
        let html = render_one(&ds, &a);
        assert!(html.contains("<span class=\"big\">+0.0</span>"));
        assert!(html.contains("no clear gap"));
        // A run that scored no assertion task: no section, no link, no method note.
        let html = render_one(&ds, &run("functions-only", 1));
        assert!(!html.contains("id=\"memorization\"") && !html.contains("#memorization"));
        assert!(!html.contains("The memorization gap"));
        // Only the originals scored: no gap either.
        let mut a = run("originals", 1);
        for id in ["a0", "a3"] {
            a.outcomes.insert(id.into(), Outcome { n: 1, c: 1 });
        }
        assert!(!render_one(&ds, &a).contains("id=\"memorization\""));
    }

    /// Seven function tasks `s0`..`s6` with slices of status `ok` (ESV 10 + i, MCL
    /// falling, DFI 2 on all) and `x`, whose slice timed out.
    fn sliced() -> Dataset {
        let bucket = |i: usize| difficulty::BUCKETS[(3 * i / 7).min(2)];
        let mut tasks: Vec<TaskInfo> = (0..7)
            .map(|i| TaskInfo {
                task_id: format!("s{i}"),
                family: schemas::Family::Function,
                class: Some(schemas::FunctionClass::SelfContained),
                level: None,
                assertion: None,
                repo: "plain".into(),
                difficulty: "low".into(),
                figures: Some(crate::data::Figures {
                    esv: 10 + i as i32,
                    mcl: 100 - i as i64,
                    dfi: 2,
                }),
                figure_buckets: Some([bucket(i), bucket(6 - i), "low"]),
                window: None,
                quarter: "unknown".into(),
            })
            .collect();
        tasks.push(TaskInfo {
            task_id: "x".into(),
            difficulty: "unknown".into(),
            figures: None,
            figure_buckets: Some(["unknown"; 3]),
            ..tasks[0].clone()
        });
        Dataset {
            tasks,
            invalid: 0,
            difficulty_source: DifficultySource::Slices,
            slice_statuses: [("ok".to_string(), 7), ("timeout".to_string(), 1)]
                .into_iter()
                .collect(),
            cutoff: None,
        }
    }

    fn outcomes_run(name: &str, outcomes: &[(&str, u32, u32)]) -> RunData {
        crate::data::test_run(name, "m", outcomes)
    }

    fn render_runs(ds: &Dataset, runs: &[RunData]) -> String {
        let scores: Vec<Vec<Score>> = runs.iter().map(|r| score_run(ds, r, 50, 0)).collect();
        let families: Vec<Vec<FamilyScores>> =
            runs.iter().map(|r| family_scores(ds, r, 50, 0)).collect();
        let reports: Vec<RunReport> = runs
            .iter()
            .zip(&scores)
            .zip(&families)
            .map(|((data, scores), families)| RunReport {
                data,
                scores,
                families,
                gap: None,
                memorization: None,
            })
            .collect();
        render(
            ds,
            &reports,
            &Meta {
                resamples: 50,
                seed: 0,
            },
        )
    }

    #[test]
    fn difficulty_by_each_figure_and_the_figure_of_the_failures() {
        let ds = sliced();
        // `hard` fails the tasks of larger ESV more (and of smaller MCL); `easy` fails none;
        // `few` scored five of the tasks only.
        let hard = outcomes_run(
            "hard",
            &[
                ("s0", 2, 2),
                ("s1", 2, 2),
                ("s2", 2, 1),
                ("s3", 2, 1),
                ("s4", 2, 0),
                ("s5", 2, 0),
                ("s6", 2, 0),
                ("x", 2, 0),
            ],
        );
        let ids = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "x"];
        let all: Vec<(&str, u32, u32)> = ids.iter().map(|id| (*id, 1, 1)).collect();
        let easy = outcomes_run("easy", &all);
        let few = outcomes_run("few", &all[..5]);
        let html = render_runs(&ds, &[hard, easy, few]);
        let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("{needle}"));
        let section = &html[at("<section id=\"difficulty\">")..];
        let section = &section[..section.find("</section>").unwrap()];
        // A chart per figure, bins labelled with their range.
        for figure in ["ESV", "MCL", "DFI"] {
            assert!(
                section.contains(&format!("pass@1 by tertile of {figure}")),
                "{figure}"
            );
        }
        assert!(section.contains("low (ESV 10–12)"), "{section}");
        assert!(section.contains("medium (ESV 13–14)"));
        assert!(section.contains("high (ESV 15–16)"));
        assert!(section.contains("low (MCL 94–96)"));
        assert!(section.contains("low (DFI 2)"));
        assert!(section.contains("unknown (no ok slice)"));
        assert!(!section.contains("medium (DFI"));
        // The timed-out slice is counted among the unknown.
        assert!(
            section.contains("7 have a slice of status <code>ok</code>; 1 <code>timeout</code>"),
            "{section}"
        );
        // The figures against each other: ESV and MCL reversed, DFI constant.
        assert!(
            section.contains("ESV–MCL rho=-1.00, ESV–DFI rho=—, MCL–DFI rho=—"),
            "{section}"
        );
        // hard: failure rates 0, 0, .5, .5, 1, 1, 1 rise with ESV.
        assert!(
            section.contains(
                "<b>hard</b>: ESV rho=0.94, MCL rho=-0.94, DFI rho=—: ESV explains most of \
                 the failures (over 7 tasks)."
            ),
            "{section}"
        );
        assert!(section.contains("<b>easy</b>: no failures."));
        assert!(section.contains("<b>few</b>: too few tasks (&lt;6)"));
        assert!(at("pass@1 by difficulty") < at("pass@1 by tertile of ESV"));
    }

    #[test]
    fn too_few_measured_tasks_for_the_figures() {
        let mut ds = sliced();
        ds.tasks.truncate(3);
        let html = render_runs(&ds, &[outcomes_run("r", &[("s0", 1, 0), ("s1", 1, 1)])]);
        assert!(
            html.contains("The figures against each other: too few tasks (&lt;6)"),
            "{html}"
        );
        assert!(html.contains("<b>r</b>: too few tasks (&lt;6)"));
        // The proxy has neither the charts nor the sentences.
        let html = render_runs(&dataset(), &[run("p", 1)]);
        assert!(!html.contains("pass@1 by tertile of") && !html.contains("explains most"));
    }
}
