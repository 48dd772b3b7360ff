//! What names a snapshot among the quarters: its quarter (`2026Q4`), the configs of its
//! card (`latest`, the quarter's, one per table), and the task-version rule, that a task's
//! id changes only when what defines it changes.
//!
//! # Configs
//!
//! The Hugging Face `datasets` library reads every split of a config with the columns of
//! its first file, and every config of a folder with one builder: the splits of a config
//! cannot be the families (their tables have different columns), nor a config a JSON-lines
//! export (the builder is Parquet's). So the card has, each with a `test` split of one
//! Parquet file: `latest` (the default) and the quarter's config (`2026q4`), on the tasks of
//! the first family published (function tasks when there are any); `latest-FAMILY` and
//! `2026q4-FAMILY` on each other family's tasks; and one config per table, named after it.
//!
//! # Task ids
//!
//! [`TASK_ID_RULES`] states per family what a task's id is a hash of
//! ([`schemas::id::content_id`] of those parts, in that order); the card's rule is written
//! from it, and [`task_id`] recomputes an id from a row by it. The stages that make the ids
//! (`synthesize-tests`, `mask`) test their rows against the same parts.

use std::fmt::{self, Write as _};

use schemas::Family;
use schemas::Table as _;

use crate::manifest::Manifest;

/// The config that follows the benchmark: the newest quarter's tasks, the card's default.
pub const LATEST: &str = "latest";

/// A quarter of a year, `2026Q4`: the benchmark's version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Quarter {
    pub year: u16,
    /// 1 to 4.
    pub quarter: u8,
}

impl Quarter {
    /// `2026Q4` or `2026q4`.
    pub fn parse(text: &str) -> anyhow::Result<Quarter> {
        let bad = || {
            anyhow::anyhow!(
                "--quarter {text:?}: give a year and a quarter as YYYYqN, e.g. 2026q4 (N from 1 to 4)"
            )
        };
        let t = text.trim();
        let (year, q) = t
            .split_once(['q', 'Q'])
            .filter(|(y, q)| y.len() == 4 && q.len() == 1)
            .ok_or_else(bad)?;
        let year: u16 = year
            .parse()
            .ok()
            .filter(|_| year.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(bad)?;
        let quarter: u8 = q
            .parse()
            .ok()
            .filter(|q| (1..=4).contains(q))
            .ok_or_else(bad)?;
        Ok(Quarter { year, quarter })
    }

    /// The quarter a `YYYY-MM-DD` date falls in.
    pub fn of_date(date: &str) -> Option<Quarter> {
        let year: u16 = date.get(..4)?.parse().ok()?;
        let month: u8 = date.get(5..7)?.parse().ok()?;
        (1..=12).contains(&month).then_some(Quarter {
            year,
            quarter: (month - 1) / 3 + 1,
        })
    }

    /// The first day of the quarter, `YYYY-MM-DD`.
    pub fn start(self) -> String {
        format!("{:04}-{:02}-01", self.year, (self.quarter - 1) * 3 + 1)
    }

    /// The quarter's config on the card: `2026q4`.
    pub fn config_name(self) -> String {
        format!("{:04}q{}", self.year, self.quarter)
    }
}

impl fmt::Display for Quarter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}Q{}", self.year, self.quarter)
    }
}

/// The table of a family's tasks.
pub fn task_table(family: Family) -> &'static str {
    match family {
        Family::Function => schemas::FunctionTask::NAME,
        Family::Completion => schemas::CompletionTask::NAME,
        Family::Assertion => schemas::AssertionTask::NAME,
    }
}

/// A config of the card: one `test` split of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub name: String,
    /// The Parquet file, relative to the snapshot.
    pub path: String,
    pub default: bool,
}

/// The card's configs, in the header's order: `latest` (the default) and the quarter's on
/// the first family's tasks, `latest-FAMILY` and `QUARTER-FAMILY` on each other family's,
/// then one per table under the table's name. Without a quarter in the manifest, or any
/// task table, only the tables' (the function tasks', else the first task table's, else
/// `repos`, the default).
pub fn configs(manifest: &Manifest) -> Vec<Config> {
    let quarter = Quarter::parse(&manifest.quarter).ok();
    let families: Vec<(Family, &str)> = Family::ALL
        .iter()
        .filter_map(|&f| {
            manifest
                .tables
                .get(task_table(f))
                .map(|t| (f, t.path.as_str()))
        })
        .collect();
    let mut out = Vec::new();
    if let Some(q) = quarter {
        for (i, (family, path)) in families.iter().enumerate() {
            let suffix = if i == 0 {
                String::new()
            } else {
                format!("-{}", family.as_str())
            };
            for (version, default) in [(LATEST.to_string(), i == 0), (q.config_name(), false)] {
                out.push(Config {
                    name: format!("{version}{suffix}"),
                    path: (*path).to_string(),
                    default,
                });
            }
        }
    }
    let fallback = if out.is_empty() {
        families
            .first()
            .map_or(schemas::Repo::NAME, |(f, _)| task_table(*f))
    } else {
        ""
    };
    for (name, table) in &manifest.tables {
        out.push(Config {
            name: name.clone(),
            path: table.path.clone(),
            default: name == fallback,
        });
    }
    out
}

/// What a family's task id is a hash of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskIdRule {
    pub family: Family,
    /// The parts hashed, in order: columns of the family's table (text as UTF-8, integers
    /// in decimal, a null as empty text), but `program`, which is `original` for the
    /// original program and `MUTATED_PATH:MUTANT_ID` for a mutated variant.
    pub inputs: &'static [&'static str],
    /// What the inputs are themselves made of, for the card.
    pub note: &'static str,
}

/// The part of an assertion task's id that names its program.
pub const PROGRAM: &str = "program";

/// The columns [`PROGRAM`] is made of.
pub const PROGRAM_COLUMNS: [&str; 3] = ["mutated", "mutated_path", "mutant_id"];

/// The task-version rule, per family: a task's id is [`schemas::id::content_id`] of these
/// inputs and of nothing else, so it changes only when one of them changes, and the same
/// inputs give the same id in every quarter's snapshot. The ids are made by
/// `synthesize-tests` (`synth.rs`, function tasks) and `mask` (`repo.rs::task_id`,
/// completion tasks; `assertions.rs`, assertion tasks), whose tests check their rows
/// against these inputs.
pub const TASK_ID_RULES: [TaskIdRule; 3] = [
    TaskIdRule {
        family: Family::Function,
        inputs: &["function_id", "prompt", "canonical_solution"],
        note: "`function_id` is itself the hash of `repo_id`, the file's path, the function's \
               qualified name and its source text (and its ordinal, for a second identical \
               definition in one file); a prompt whose docstring was written by freshbench \
               holds examples from the test search, so other examples make another task",
    },
    TaskIdRule {
        family: Family::Completion,
        inputs: &["repo_id", "path", "start_byte", "end_byte", "reference"],
        note: "the span's place in the file and its original text: an edit elsewhere in the \
               file that moves the span's bytes makes another task",
    },
    TaskIdRule {
        family: Family::Assertion,
        inputs: &["group_id", PROGRAM, "form", "claim"],
        note: "`group_id` is the hash of the text `assertion`, `repo_id`, `path`, \
               `test_node_id`, the masked value's first byte (`start_byte`) and its original \
               text; `program` is `original`, or `mutated_path:mutant_id` on a mutated \
               variant (a mutant's id names its operator, its span and a hash of its \
               replacement); `claim` is empty in the `value` form",
    },
];

/// The rule of a family.
pub fn rule(family: Family) -> &'static TaskIdRule {
    TASK_ID_RULES
        .iter()
        .find(|r| r.family == family)
        .unwrap_or(&TASK_ID_RULES[0])
}

/// The columns of a family's table an id depends on: its inputs, [`PROGRAM`] as the columns
/// it is made of.
pub fn defining_columns(family: Family) -> Vec<&'static str> {
    rule(family)
        .inputs
        .iter()
        .flat_map(|&i| {
            if i == PROGRAM {
                PROGRAM_COLUMNS.to_vec()
            } else {
                vec![i]
            }
        })
        .collect()
}

/// The parts of a row's id by its family's rule, the row as its JSON object (columns by
/// name); `None` when a column is missing or of a kind no id is made of.
pub fn id_parts(family: Family, row: &serde_json::Value) -> Option<Vec<String>> {
    use serde_json::Value;
    let text = |name: &str| -> Option<String> {
        match row.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Null => Some(String::new()),
            _ => None,
        }
    };
    rule(family)
        .inputs
        .iter()
        .map(|&input| {
            if input != PROGRAM {
                return text(input);
            }
            match row.get("mutated")? {
                Value::Bool(false) => Some("original".to_string()),
                Value::Bool(true) => {
                    Some(format!("{}:{}", text("mutated_path")?, text("mutant_id")?))
                }
                _ => None,
            }
        })
        .collect()
}

/// A row's task id by its family's rule ([`TASK_ID_RULES`]); `None` as for [`id_parts`].
pub fn task_id<T: serde::Serialize>(family: Family, row: &T) -> Option<String> {
    let value = serde_json::to_value(row).ok()?;
    let parts = id_parts(family, &value)?;
    let bytes: Vec<&[u8]> = parts.iter().map(String::as_bytes).collect();
    Some(schemas::id::content_id(&bytes))
}

/// The Python expression of one input of a task row `t` (a dict of its columns), for the
/// card's recipe.
fn python_part(input: &str) -> String {
    match input {
        PROGRAM => {
            "(f\"{t['mutated_path']}:{t['mutant_id']}\" if t[\"mutated\"] else \"original\")"
                .to_string()
        }
        "claim" => "t[\"claim\"] or \"\"".to_string(),
        other => format!("t[\"{other}\"]"),
    }
}

/// The card's Python recipe: `content_id` and each published family's id.
pub fn python_recipe(families: &[Family]) -> String {
    let mut out = String::from(
        "import hashlib\n\ndef content_id(*parts):\n    h = hashlib.sha256()\n    for part in \
         parts:\n        data = str(part).encode()\n        h.update(len(data).to_bytes(8, \
         \"little\") + data)\n    return h.hexdigest()[:32]\n\n",
    );
    for family in families {
        let parts: Vec<String> = rule(*family)
            .inputs
            .iter()
            .map(|i| python_part(i))
            .collect();
        let _ = write!(
            out,
            "def {}_task_id(t):\n    return content_id({})\n\n",
            family.as_str(),
            parts.join(", ")
        );
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarters_parse_and_follow_dates() {
        let q = Quarter::parse("2026q4").unwrap();
        assert_eq!(q, Quarter::parse("2026Q4").unwrap());
        assert_eq!(
            (q.to_string(), q.config_name()),
            ("2026Q4".into(), "2026q4".into())
        );
        assert_eq!(q.start(), "2026-10-01");
        for bad in [
            "2026q5", "2026q0", "26q4", "2026-q4", "2026q", "q4", "2026q41", "+026q4", "",
        ] {
            assert!(Quarter::parse(bad).is_err(), "{bad:?}");
        }
        for (date, want) in [
            ("2026-01-01", "2026Q1"),
            ("2026-03-31", "2026Q1"),
            ("2026-04-01", "2026Q2"),
            ("2026-09-30", "2026Q3"),
            ("2026-12-01", "2026Q4"),
        ] {
            assert_eq!(Quarter::of_date(date).unwrap().to_string(), want, "{date}");
        }
        assert!(Quarter::of_date("2026-13-01").is_none());
    }

    #[test]
    fn every_family_has_one_rule_of_distinct_inputs() {
        for family in Family::ALL {
            let n = TASK_ID_RULES.iter().filter(|r| r.family == *family).count();
            assert_eq!(n, 1, "{family:?}");
            let cols = defining_columns(*family);
            let mut distinct = cols.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), cols.len(), "{cols:?}");
            assert!(!cols.contains(&"task_id"));
        }
    }
}
