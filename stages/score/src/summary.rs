//! The summary printed on stdout: per run, pass@1 and pass@k (the largest k the group has)
//! with their 95% intervals, over all tasks and per task family, and within each family by
//! level (completion tasks by the syntax level of the masked span, function tasks by
//! class). A plain aligned text table, one line per run and group.

use std::fmt::Write as _;

use crate::data::{Dataset, RunData};
use crate::estimate::Estimate;
use crate::scores::{level_name, FamilyScores, GroupScore};

/// One run to summarise.
#[derive(Debug, Clone, Copy)]
pub struct RunSummary<'a> {
    pub data: &'a RunData,
    /// Over all valid tasks (the `overall` breakdown), `None` when nothing was scored.
    pub overall: Option<&'a GroupScore>,
    pub families: &'a [FamilyScores],
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
            for g in &f.levels {
                let label = match level_name(f.family) {
                    Some(what) => format!("{what} {}", g.key),
                    None => g.key.clone(),
                };
                rows.push(line(name, f.family.as_str(), &label, None, Some(g)));
            }
        }
    }
    let mut widths = [0usize; 6];
    for row in &rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut text = String::new();
        for (i, (c, w)) in row.iter().zip(widths).enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            // Counts and figures to the right, names to the left.
            if i >= 3 {
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

    use schemas::{Breakdown, Family, SpanKind};

    use super::*;
    use crate::data::{DifficultySource, TaskInfo};
    use crate::scores::{family_scores, score_run};

    fn task(id: &str, family: Family, level: Option<SpanKind>) -> TaskInfo {
        TaskInfo {
            task_id: id.into(),
            family,
            class: (family == Family::Function).then_some(schemas::FunctionClass::SelfContained),
            level,
            repo: "r".into(),
            difficulty: "unknown".into(),
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
        render(
            ds,
            &[RunSummary {
                data: r,
                overall: overall.as_ref(),
                families: &families,
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
}
