//! The difficulty figures of a task from the slices of its traced executions (units: a
//! function task's cases, a completion or assertion task's tests). The worker reports, per
//! unit, the statements of the slice (file, first line, executions, call depths, the
//! function holding it, the role of its file) and the inputs feeding it; this module makes
//! the figures of `slices` from them, with the family's rule for what code counts:
//!
//! - function: the task's own code (all of it is traced);
//! - completion: the code under test only (`code` files): the judge tests are not shown to
//!   the model, though the slice runs through them;
//! - assertion: the code under test and the test (the test is shown).

use std::collections::{BTreeMap, BTreeSet};

use execution::{Role, SliceUnit, UnitStatus};
use schemas::Family;

/// At most this many functions and inputs are listed in a row.
pub const LISTED: usize = 200;

/// The figures of one task.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Figures {
    pub esv: i32,
    pub mcl: i64,
    pub depth: i32,
    pub dfi: i32,
    pub files: i32,
    pub modules: i32,
    pub functions: i32,
    pub module_statements: i32,
    pub slice_functions: Vec<String>,
    pub slice_files: Vec<String>,
    pub inputs: Vec<String>,
}

/// The roles whose statements count for a family's figures.
pub fn counted(family: Family) -> &'static [Role] {
    match family {
        Family::Completion => &[Role::Code],
        _ => &[Role::Code, Role::Test],
    }
}

/// The figures of the `ok` units of a task (None when there is none).
pub fn figures(units: &[SliceUnit], family: Family) -> Option<Figures> {
    let roles = counted(family);
    let ok: Vec<&SliceUnit> = units
        .iter()
        .filter(|u| u.status == UnitStatus::Ok)
        .collect();
    if ok.is_empty() {
        return None;
    }
    // Distinct functions by (file, qualified name, lines); module-level statements by
    // (file, line).
    let mut functions: BTreeMap<(String, String), i32> = BTreeMap::new();
    let mut module_lines: BTreeSet<(String, i32)> = BTreeSet::new();
    let mut files: BTreeSet<String> = BTreeSet::new();
    let mut inputs: BTreeSet<String> = BTreeSet::new();
    let mut executions: u64 = 0;
    let mut depth: i32 = 0;
    for u in &ok {
        let mut lo = u32::MAX;
        let mut hi = 0u32;
        for s in u.statements.iter().filter(|s| roles.contains(&s.role)) {
            files.insert(s.path.clone());
            executions = executions.saturating_add(s.count);
            lo = lo.min(s.min_depth);
            hi = hi.max(s.max_depth);
            if s.function.is_empty() {
                module_lines.insert((s.path.clone(), s.line));
            } else {
                let lines = (s.last_line - s.first_line + 1).max(1);
                functions.insert((s.path.clone(), s.function.clone()), lines);
            }
        }
        if hi >= lo {
            depth = depth.max((hi - lo + 1) as i32);
        }
        for i in &u.inputs {
            // Completion: an input counts when the code under test reads it.
            if roles.contains(&i.role) {
                inputs.insert(i.key.clone());
            }
        }
    }
    // MCL: the executions of one unit's slice, the mean over the units (a task judged by
    // more cases or tests is not harder to simulate for that alone).
    let mcl = (executions as f64 / ok.len() as f64).round() as i64;
    let modules: BTreeSet<&str> = files.iter().map(|p| parent(p)).collect();
    let function_lines: i32 = functions.values().sum();
    Some(Figures {
        esv: function_lines + module_lines.len() as i32,
        mcl,
        depth,
        dfi: inputs.len() as i32,
        files: files.len() as i32,
        modules: modules.len() as i32,
        functions: functions.len() as i32,
        module_statements: module_lines.len() as i32,
        slice_functions: functions
            .keys()
            .take(LISTED)
            .map(|(p, f)| format!("{p}::{f}"))
            .collect(),
        slice_files: files.into_iter().collect(),
        inputs: inputs.into_iter().take(LISTED).collect(),
    })
}

/// The folder of a path (`""` at the top): a file's package.
fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use execution::{SliceInput, SliceStatement};

    fn stmt(
        path: &str,
        line: i32,
        count: u64,
        depth: (u32, u32),
        func: (&str, i32, i32),
    ) -> SliceStatement {
        SliceStatement {
            path: path.into(),
            line,
            count,
            min_depth: depth.0,
            max_depth: depth.1,
            function: func.0.into(),
            first_line: func.1,
            last_line: func.2,
            role: if path.starts_with("tests/") {
                Role::Test
            } else {
                Role::Code
            },
        }
    }

    fn unit(statements: Vec<SliceStatement>, inputs: &[(&str, Role)]) -> SliceUnit {
        SliceUnit {
            node_id: None,
            status: UnitStatus::Ok,
            reason: None,
            events: 10,
            cap: 100,
            seconds: 0.1,
            slice_seconds: 0.0,
            tracer: "settrace".into(),
            statements,
            inputs: inputs
                .iter()
                .map(|(k, r)| SliceInput {
                    key: (*k).into(),
                    role: *r,
                })
                .collect(),
        }
    }

    #[test]
    fn a_call_three_deep() {
        // a (lines 1-2) -> b (4-5) -> c (7-10): the slice holds one statement of a and b
        // and two of c; the only input is a's parameter.
        let u = unit(
            vec![
                stmt("deep.py", 2, 1, (1, 1), ("a", 1, 2)),
                stmt("deep.py", 5, 1, (2, 2), ("b", 4, 5)),
                stmt("deep.py", 8, 1, (3, 3), ("c", 7, 10)),
                stmt("deep.py", 10, 1, (3, 3), ("c", 7, 10)),
            ],
            &[("param:deep.py:a:x", Role::Code)],
        );
        let f = figures(&[u], Family::Function).unwrap();
        assert_eq!((f.esv, f.mcl, f.depth, f.dfi), (2 + 2 + 4, 4, 3, 1));
        assert_eq!((f.files, f.modules, f.functions), (1, 1, 3));
        assert_eq!(
            f.slice_functions,
            ["deep.py::a", "deep.py::b", "deep.py::c"]
        );
    }

    #[test]
    fn units_add_executions_and_share_functions() {
        let a = unit(
            vec![stmt("m.py", 2, 3, (1, 1), ("f", 1, 4))],
            &[("param:m.py:f:x", Role::Code)],
        );
        let b = unit(
            vec![
                stmt("m.py", 2, 1, (1, 1), ("f", 1, 4)),
                stmt("m.py", 6, 1, (1, 1), ("", 0, 0)),
            ],
            &[("param:m.py:f:x", Role::Code), ("global:m:K", Role::Code)],
        );
        let f = figures(&[a, b], Family::Function).unwrap();
        // f counted once (4 lines) plus one module-level statement; MCL the mean of the
        // units' executions (3 and 2).
        assert_eq!((f.esv, f.mcl, f.dfi, f.module_statements), (5, 3, 2, 1));
    }

    #[test]
    fn completion_counts_the_code_under_test_only() {
        let u = unit(
            vec![
                stmt("tests/test_m.py", 4, 1, (1, 1), ("test_m", 3, 6)),
                stmt("pkg/m.py", 2, 2, (2, 3), ("f", 1, 3)),
            ],
            &[
                ("param:tests/test_m.py:test_m:tmp_path", Role::Test),
                ("param:pkg/m.py:f:s", Role::Code),
            ],
        );
        let c = figures(std::slice::from_ref(&u), Family::Completion).unwrap();
        assert_eq!((c.esv, c.mcl, c.depth, c.dfi, c.files), (3, 2, 2, 1, 1));
        let a = figures(&[u], Family::Assertion).unwrap();
        assert_eq!(
            (a.esv, a.mcl, a.depth, a.dfi, a.files, a.modules),
            (7, 3, 3, 2, 2, 2)
        );
    }

    #[test]
    fn no_ok_unit_no_figures() {
        let mut u = unit(vec![], &[]);
        u.status = UnitStatus::TooLarge;
        assert_eq!(figures(&[u], Family::Function), None);
    }
}
