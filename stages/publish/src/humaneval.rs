//! `--export jsonl`: the function tasks in the shape of `HumanEval` / `EvalPlus`
//! (`function_tasks.jsonl`), one JSON object per line:
//!
//! - `task_id`: `freshbench/<function_tasks.task_id>`;
//! - `prompt`: the task's prompt (imports, signature, docstring);
//! - `entry_point`: the function's name;
//! - `canonical_solution`: what completes the prompt, as in `HumanEval`, where `prompt +
//!   canonical_solution` is the whole program. freshbench's prompt is the reference
//!   solution's text up to the end of its docstring, so this is the rest of the solution
//!   (the body). When the prompt is not a prefix of the solution (a `synthesized` prompt,
//!   whose docstring was written from the cases), it is the whole solution instead, after a
//!   newline if the prompt lacks one: `prompt + canonical_solution` then defines the
//!   function twice, and the second definition (the original) is the one that counts;
//! - `test`: Python source defining `check(candidate)`, which asserts every test case.
//!
//! # What `check` checks, and how it differs from freshbench's own judging
//!
//! Each case calls `candidate(*ARGS, **KWARGS)` with the case's argument text pasted as it
//! is (Python literals, plus the few calls and names the test-case format allows:
//! `float('nan')`, `iter([...])`, `set()`, builtins such as `abs`, `operator.add`; the
//! function imports `operator` for those). A case that expects a value asserts
//! `_match(result, EXPECTED)`, where `EXPECTED` is written from `expected_json` (the
//! tagged value, exact to the bit for floats) and `_match` follows the rules of the
//! harness (`execute::value`): exact types (`1`, `1.0` and `True` differ, a tuple is not a
//! list, a subclass is not its base), floats within `math.isclose(rel_tol=1e-9,
//! abs_tol=1e-12)` with NaN equal to NaN, sets and dicts in any order (dict keys matched
//! exactly), a returned iterator by its first 1000 items and whether it went on, any other
//! object by its type's qualified name and its `repr`. A case that expects an exception
//! asserts that the call raises one whose type's `__qualname__` is the recorded one.
//!
//! It is an approximation of the harness, which runs each case in a sandboxed, fresh
//! process with limits and judges the result from outside the candidate's reach:
//! - `check` runs in the candidate's own namespace, as `HumanEval` harnesses run it: a
//!   candidate can patch what `check` uses, exit the process or print a fake result, and
//!   a module-level name it defines can shadow a builtin that an argument names;
//! - no time or memory limit: the harness that runs `check` must bring its own;
//! - within sets, elements that match only within the float tolerance are paired greedily,
//!   where the harness finds a maximum matching (they differ only for sets holding floats
//!   that are each close to several others);
//! - the 1000-item budget applies to each returned iterator, where the harness shares it
//!   among all the iterators of one result;
//! - a case whose expected value cannot be read (no `expected_json`, which the harness
//!   cannot judge either) or whose arguments span lines is left out with a comment; a task
//!   left with no case at all is not exported.

use std::fmt::Write as _;

use schemas::{FunctionTask, TestCase};
use serde::Serialize;

use schemas::tagged::{expected_python, py_str_of, TaggedError};

/// One line of the export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct HumanEvalTask {
    pub task_id: String,
    pub prompt: String,
    pub entry_point: String,
    pub canonical_solution: String,
    pub test: String,
}

/// The helpers every `check` defines before its asserts (indented for the function body).
const HELPERS: &str = r#"    import datetime
    import decimal
    import fractions
    import operator
    import pathlib
    import re
    import types

    class _It:
        """A returned iterator, as the harness draws it: first items, and whether it went on."""

        def __init__(self, items, truncated):
            self.items, self.truncated = items, truncated

    class _Obj:
        """Another object: its type's qualified name and its repr."""

        def __init__(self, type_name, text):
            self.type_name, self.text = type_name, text

    def _close(a, b):
        if a != a or b != b:
            return a != a and b != b
        if a == b:
            return True
        if a in (float("inf"), float("-inf")) or b in (float("inf"), float("-inf")):
            return False
        return abs(a - b) <= max(1e-09 * max(abs(a), abs(b)), 1e-12)

    def _match(got, exp, tol=True):
        t = type(exp)
        if t is _It:
            tg = type(got)
            if not (hasattr(tg, "__next__") and hasattr(tg, "__iter__")):
                return False
            items, truncated = [], True
            for _ in range(1000):
                try:
                    items.append(next(got))
                except StopIteration:
                    truncated = False
                    break
            return (truncated == exp.truncated and len(items) == len(exp.items)
                    and all(_match(g, e, tol) for g, e in zip(items, exp.items)))
        if t is _Obj:
            tg = type(got)
            name = getattr(tg, "__qualname__", "?")
            module = getattr(tg, "__module__", "builtins")
            if module != "builtins":
                name = "%s.%s" % (module, name)
            text, cut = repr(got), "...<truncated>"
            if exp.text.endswith(cut):
                return name == exp.type_name and text.startswith(exp.text[:-len(cut)])
            return name == exp.type_name and text == exp.text
        if type(got) is not t:
            return False
        if t is float:
            return _close(got, exp) if tol else (got == exp or (got != got and exp != exp))
        if t is list or t is tuple:
            return len(got) == len(exp) and all(_match(g, e, tol) for g, e in zip(got, exp))
        if t is set or t is frozenset:
            if len(got) != len(exp):
                return False
            rest = list(got)
            for e in exp:
                for i, g in enumerate(rest):
                    if _match(g, e, tol):
                        del rest[i]
                        break
                else:
                    return False
            return True
        if t is dict:
            if len(got) != len(exp):
                return False
            index = {(type(k), k): (k, v) for k, v in got.items()}
            for ek, ev in exp.items():
                hit = index.get((type(ek), ek))
                if hit is None or not _match(hit[0], ek, False):
                    hit = next(((k, v) for k, v in got.items() if _match(k, ek, False)), None)
                    if hit is None:
                        return False
                if not _match(hit[1], ev, tol):
                    return False
            return True
        return got == exp

    def _raises(name, call):
        try:
            call()
        except BaseException as e:
            return type(e).__qualname__ == name
        return False

"#;

/// What the export made of the tasks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExportStats {
    /// Tasks written.
    pub tasks: usize,
    /// Cases asserted.
    pub cases: usize,
    /// Cases left out (unreadable expected value, arguments on several lines).
    pub cases_left_out: usize,
    /// Tasks not written because none of their cases could be asserted.
    pub tasks_left_out: Vec<String>,
}

/// `canonical_solution` in `HumanEval`'s sense (see the module doc).
pub fn completion_of(prompt: &str, canonical: &str) -> String {
    match canonical.strip_prefix(prompt) {
        Some(rest) => rest.to_string(),
        None if prompt.is_empty() || prompt.ends_with('\n') => canonical.to_string(),
        None => format!("\n{canonical}"),
    }
}

/// The call of one case: `candidate(*ARGS, **KWARGS)`, omitting empty parts.
fn call_of(case: &TestCase) -> Result<String, TaggedError> {
    let args = case.args.trim();
    let kwargs = case.kwargs.trim();
    if [args, kwargs].iter().any(|t| t.contains(['\n', '\r'])) {
        return Err(TaggedError("its arguments span lines".into()));
    }
    let mut parts = Vec::new();
    if !args.is_empty() && args != "[]" {
        parts.push(format!("*{args}"));
    }
    if !kwargs.is_empty() && kwargs != "{}" {
        parts.push(format!("**{kwargs}"));
    }
    Ok(format!("candidate({})", parts.join(", ")))
}

/// One case's assert line (indented), or why it is left out.
fn assert_of(case: &TestCase) -> Result<String, TaggedError> {
    let call = call_of(case)?;
    let label = format!("case {}", case.ordinal);
    if let Some(exc) = &case.expected_exception {
        let name = py_str_of(exc);
        let msg = py_str_of(&format!("{label}: expected {exc} to be raised"));
        return Ok(format!(
            "    assert _raises({name}, lambda: {call}), {msg}\n"
        ));
    }
    let json = case
        .expected_json
        .as_deref()
        .ok_or_else(|| TaggedError("no expected value recorded".into()))?;
    let expected = expected_python(json)
        .map_err(|e| TaggedError(format!("expected value unreadable: {e}")))?;
    let msg = py_str_of(&label);
    Ok(format!("    assert _match({call}, {expected}), {msg}\n"))
}

/// The `test` source of a task: `check(candidate)` asserting its cases (in ordinal order),
/// and the number of cases left out. `None` when no case could be asserted.
pub fn check_source(task: &FunctionTask, cases: &[&TestCase]) -> (Option<String>, usize) {
    let mut sorted: Vec<&TestCase> = cases.to_vec();
    sorted.sort_by_key(|c| c.ordinal);
    let mut body = String::new();
    let (mut asserted, mut left_out) = (0usize, 0usize);
    for case in &sorted {
        match assert_of(case) {
            Ok(line) => {
                body.push_str(&line);
                asserted += 1;
            }
            Err(why) => {
                let _ = writeln!(
                    body,
                    "    # case {} left out: {}",
                    case.ordinal,
                    why.0.replace(['\n', '\r'], " ")
                );
                left_out += 1;
            }
        }
    }
    if asserted == 0 {
        return (None, left_out);
    }
    let mut out = String::new();
    let _ = writeln!(out, "def check(candidate):");
    let _ = writeln!(
        out,
        "    \"\"\"freshbench task {}: {asserted} cases recorded by running the original function.\n\n    \
         Values compare as freshbench's harness compares them: exact types, floats within\n    \
         math.isclose(rel_tol=1e-09, abs_tol=1e-12) with NaN equal to NaN, sets and dicts in\n    \
         any order, a returned iterator by its first 1000 items.\n    \"\"\"",
        task.task_id
    );
    out.push_str(HELPERS);
    out.push_str(&body);
    (Some(out), left_out)
}

/// The export of the published function tasks, in their order, with the cases of each.
pub fn export(tasks: &[FunctionTask], cases: &[TestCase]) -> (Vec<HumanEvalTask>, ExportStats) {
    let mut by_task: std::collections::HashMap<&str, Vec<&TestCase>> =
        std::collections::HashMap::new();
    for c in cases {
        by_task.entry(c.task_id.as_str()).or_default().push(c);
    }
    let mut stats = ExportStats::default();
    let mut out = Vec::new();
    for task in tasks {
        let task_cases = by_task
            .get(task.task_id.as_str())
            .cloned()
            .unwrap_or_default();
        let (test, left_out) = check_source(task, &task_cases);
        stats.cases_left_out += left_out;
        let Some(test) = test else {
            stats.tasks_left_out.push(task.task_id.clone());
            continue;
        };
        stats.cases += task_cases.len() - left_out;
        stats.tasks += 1;
        out.push(HumanEvalTask {
            task_id: format!("freshbench/{}", task.task_id),
            prompt: task.prompt.clone(),
            entry_point: task.entry_point.clone(),
            canonical_solution: completion_of(&task.prompt, &task.canonical_solution),
            test,
        });
    }
    (out, stats)
}

pub use crate::to_jsonl;

#[cfg(test)]
#[path = "humaneval_tests.rs"]
mod tests;
