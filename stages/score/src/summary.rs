//! The summary printed on stdout: per run, pass@1 and pass@k (the largest k the group has)
//! with their 95% intervals, over all tasks and per task family, and within each family by
//! its splits (function tasks by class, completion tasks by the syntax level of the masked
//! span, assertion tasks by form and by program). A plain aligned text table, one line per
//! run and group; then, when a run scored assertion tasks on both programs, a second table
//! of each such run's memorization gap (pass@1 on original programs minus on mutated ones).

use std::fmt::Write as _;

use crate::data::{Dataset, RunData};
use crate::estimate::Estimate;
use crate::scores::{FamilyScores, GroupScore, MemorizationGap};

/// One run to summarise.
#[derive(Debug, Clone, Copy)]
pub struct RunSummary<'a> {
    pub data: &'a RunData,
    /// Over all valid tasks (the `overall` breakdown), `None` when nothing was scored.
    pub overall: Option<&'a GroupScore>,
    pub families: &'a [FamilyScores],
    /// The memorization gap on assertion tasks, `None` without assertion tasks scored on
    /// both programs.
    pub memorization: Option<&'a MemorizationGap>,
}

fn cell(e: Option<Estimate>) -> String {
    match e {
        Some(e) if e.value.is_finite() => format!(
            "{:.1}% [{:.1}, {:.1}]",
            e.value * 100.0,
            e.low * 100.0,
            e.high * 100.0
        ),
        _ => "-".to_string(),
    }
}

fn line(
    run: &str,
    family: &str,
    level: &str,
    valid: Option<usize>,
    g: Option<&GroupScore>,
) -> [String; 6] {
    let tasks = match (g, valid) {
        (Some(g), Some(v)) => format!("{} / {v}", g.tasks),
        (Some(g), None) => g.tasks.to_string(),
        (None, Some(v)) => format!("0 / {v}"),
        (None, None) => "0".to_string(),
    };
    let top = g
        .and_then(|g| g.by_k.last().copied())
        .filter(|(k, _)| *k > 1);
    [
        run.to_string(),
        family.to_string(),
        level.to_string(),
        tasks,
        cell(g.and_then(|g| g.at(1))),
        top.map_or_else(
            || "-".to_string(),
            |(k, e)| format!("@{k} {}", cell(Some(e))),
        ),
    ]
}

/// The summary's text (ending with a newline).
pub fn render(dataset: &Dataset, runs: &[RunSummary]) -> String {
    let mut rows: Vec<[String; 6]> = vec![[
        "run".into(),
        "family".into(),
        "level".into(),
        "tasks".into(),
        "pass@1 [95% CI]".into(),
        "pass@k [95% CI]".into(),
    ]];
    for r in runs {
        let name = &r.data.name;
        rows.push(line(
            name,
            "all",
            "all",
            Some(dataset.tasks.len()),
            r.overall,
        ));
        for f in r.families {
            rows.push(line(
                name,
                f.family.as_str(),
                "all",
                Some(f.valid),
                f.all.as_ref(),
            ));
            for split in &f.splits {
                for g in &split.groups {
                    let label = format!("{} {}", split.split.name(), g.key);
                    rows.push(line(name, f.family.as_str(), &label, None, Some(g)));
                }
            }
        }
    }
    let mut out = aligned(&rows, 3);
    let gaps: Vec<[String; 5]> = runs
        .iter()
        .filter_map(|r| {
            let m = r.memorization?;
            let points = |x: f64| format!("{:+.1}", x * 100.0);
            Some([
                r.data.name.clone(),
                format!(
                    "{} [{}, {}]",
                    points(m.gap.value),
                    points(m.gap.low),
                    points(m.gap.high)
                ),
                format!("{:.1}% of {}", m.original * 100.0, m.original_tasks),
                format!("{:.1}% of {}", m.mutated * 100.0, m.mutated_tasks),
                m.assertions.to_string(),
            ])
        })
        .collect();
    if !gaps.is_empty() {
        out.push_str(
            "\nmemorization gap: assertion tasks' pass@1 on the original programs minus on \
             mutated ones, in points, 95% CI over assertions (large and positive: the model \
             recalls the repository's values rather than working them out)\n",
        );
        let mut rows = vec![[
            "run".to_string(),
            "gap [95% CI]".to_string(),
            "original".to_string(),
            "mutated".to_string(),
            "assertions".to_string(),
        ]];
        rows.extend(gaps);
        out.push_str(&aligned(&rows, 1));
    }
    out
}

/// The rows as an aligned text table: columns from `first_figure` on to the right (counts
/// and figures), the others to the left (names).
fn aligned<const N: usize>(rows: &[[String; N]], first_figure: usize) -> String {
    let mut widths = [0usize; N];
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut text = String::new();
        for (i, (c, w)) in row.iter().zip(widths).enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            if i >= first_figure {
                let _ = write!(text, "{c:>w$}");
            } else {
                let _ = write!(text, "{c:<w$}");
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {

    use schemas::{AssertionForm, Breakdown, Family, SpanKind};

    use super::*;
    use crate::data::{AssertionInfo, DifficultySource, TaskInfo};
    use crate::scores::{family_scores, memorization_gap, score_run};

    fn task(id: &str, family: Family, level: Option<SpanKind>) -> TaskInfo {
        TaskInfo {
            task_id: id.into(),
            family,
            class: (family == Family::Function).then_some(schemas::FunctionClass::SelfContained),
            level,
            assertion: None,
            repo: "r".into(),
            difficulty: "unknown".into(),
            figures: None,
            figure_buckets: None,
            window: None,
            quarter: "unknown".into(),
        }
    }

    fn run(outcomes: &[(&str, u32, u32)]) -> RunData {
        crate::data::test_run("oracle", "oracle", outcomes)
    }

    fn summary(ds: &Dataset, r: &RunData) -> String {
        let families = family_scores(ds, r, 100, 0);
        let rows = score_run(ds, r, 100, 0);
        let overall = GroupScore::from_rows(&rows, Breakdown::Overall, "all");
        let memorization = memorization_gap(ds, r, 100, 0);
        render(
            ds,
            &[RunSummary {
                data: r,
                overall: overall.as_ref(),
                families: &families,
                memorization: memorization.as_ref(),
            }],
        )
    }

    #[test]
    fn completion_by_level_beside_functions() {
        let ds = Dataset {
            tasks: vec![
                task("f1", Family::Function, None),
                task("c1", Family::Completion, Some(SpanKind::Block)),
                task("c2", Family::Completion, Some(SpanKind::Expression)),
            ],
            invalid: 0,
            difficulty_source: DifficultySource::Slices,
            slice_statuses: std::collections::BTreeMap::new(),
            cutoff: None,
        };
        let text = summary(&ds, &run(&[("f1", 2, 2), ("c1", 2, 1), ("c2", 2, 0)]));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("run"), "{text}");
        let find = |needle: &str| {
            lines
                .iter()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{needle} in\n{text}"))
        };
        assert!(find("oracle  all ").contains("3 / 3"), "{text}");
        assert!(find("function    all").contains("1 / 1"), "{text}");
        assert!(find("function    all").contains("100.0% [100.0, 100.0]"));
        assert!(find("completion  all").contains("2 / 2"), "{text}");
        assert!(find("completion  all").contains("25.0%"), "{text}");
        assert!(find("completion  all").contains("@2 50.0%"), "{text}");
        assert!(find("level expression").contains("0.0% [0.0, 0.0]"));
        assert!(find("level block").contains("50.0% [50.0, 50.0]"));
        // Expression before block (the contract's order).
        let at = |n: &str| text.find(n).unwrap();
        assert!(at("level expression") < at("level block"));
        assert!(find("class self_contained").contains("100.0%"));
        // Nothing scored: a dash, not a crash.
        let text = summary(&ds, &run(&[]));
        assert!(text.contains("0 / 2"), "{text}");
        assert!(text.contains("0 / 3"), "{text}");
    }

    #[test]
    fn assertion_tasks_by_form_and_program_and_the_memorization_gap() {
        let assertion = |id: &str, form: AssertionForm, mutated: bool| TaskInfo {
            assertion: Some(AssertionInfo {
                group_id: "g".into(),
                form,
                mutated,
            }),
            ..task(id, Family::Assertion, None)
        };
        let ds = Dataset {
            tasks: vec![
                task("f1", Family::Function, None),
                assertion("a0", AssertionForm::Value, false),
                assertion("a1", AssertionForm::Value, true),
                assertion("a2", AssertionForm::Value, true),
                assertion("a3", AssertionForm::Verify, false),
            ],
            invalid: 0,
            difficulty_source: DifficultySource::Slices,
            slice_statuses: std::collections::BTreeMap::new(),
            cutoff: None,
        };
        // Right on the originals, wrong on the variants.
        let text = summary(
            &ds,
            &run(&[
                ("f1", 1, 1),
                ("a0", 1, 1),
                ("a1", 1, 0),
                ("a2", 1, 0),
                ("a3", 1, 1),
            ]),
        );
        let find = |needle: &str| {
            text.lines()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{needle} in\n{text}"))
        };
        assert!(find("assertion  all").contains("4 / 4"), "{text}");
        assert!(find("assertion  all").contains("50.0%"), "{text}");
        assert!(find("form value").contains("33.3%"), "{text}");
        assert!(find("form verify").contains("100.0%"), "{text}");
        assert!(find("program original").contains("100.0% [100.0, 100.0]"));
        assert!(find("program mutated").contains("0.0% [0.0, 0.0]"));
        let at = |n: &str| text.find(n).unwrap();
        assert!(at("form value") < at("form verify"));
        assert!(at("form verify") < at("program original"));
        assert!(at("program original") < at("program mutated"));
        // The gap: 1.0 over the one assertion.
        assert!(text.contains("memorization gap:"), "{text}");
        let gap = text
            .lines()
            .skip_while(|l| !l.starts_with("memorization gap:"))
            .find(|l| l.starts_with("oracle"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            gap.contains("+100.0 [+100.0, +100.0]")
                && gap.contains("100.0% of 2")
                && gap.contains("0.0% of 2")
                && gap.ends_with(" 1"),
            "{gap}"
        );
    }

    #[test]
    fn no_memorization_gap_without_assertion_tasks() {
        let ds = Dataset {
            tasks: vec![task("f1", Family::Function, None)],
            invalid: 0,
            difficulty_source: DifficultySource::Slices,
            slice_statuses: std::collections::BTreeMap::new(),
            cutoff: None,
        };
        let text = summary(&ds, &run(&[("f1", 1, 1)]));
        assert!(
            !text.contains("memorization") && !text.contains("assertion"),
            "{text}"
        );
    }
}
