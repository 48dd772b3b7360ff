//! The reference solvers, which answer from the task itself: `oracle` (the reference
//! solution: must pass every valid task), `null` (the entry point with an empty body: must
//! fail every task) and `mutant` (the reference solution with one small semantic mutation:
//! how well the tests tell a near miss apart).
//!
//! For `completion` tasks the answer is a fill: `oracle` the masked text, `null` the
//! neutral fill of the span's level (`None` for an expression, `pass` otherwise), `mutant`
//! the masked text with one mutation of the `mutants` library, made on the whole file
//! (prefix, reference, suffix) restricted to the span, or on the masked text alone when the
//! file does not parse.
//!
//! For `assertion` tasks: `oracle` answers the recorded answer (the value, or `True` /
//! `False`), `null` answers `None` in both forms (never right: mask keeps no task whose value
//! is `None`, and `None` is no verify answer), and `mutant` has no meaning (the family's
//! mutants are made by mask, on the program rather than on the answer): its answers are
//! error rows saying so.
//!
//! `memorized` is the benchmark's own contamination check: it answers what a model that
//! memorized the repository (and its tests) would. On an `assertion` task that is the
//! subject's value on the original program, `original_json` written as mask writes values
//! ([`schemas::tagged::assertion_python`]), and in the verify form `True` exactly when the
//! claim is that text. It must score 100% on the tasks of the original program and 0% on
//! the mutated ones: there the value differs from the original by construction, and a
//! verify claim is the original value (then the answer is `False`) or the mutated one
//! (`True`). Any other score is a bug in mask or in the judge (a mutated task whose value
//! did not change, a value the judge does not read back as written), and a model that
//! scores well on original tasks but near `memorized` on mutated ones answers from memory.
//! For `function` and `completion` tasks `memorized` answers as `oracle` does: a model that
//! memorized the repository knows the reference code itself.

use std::time::Instant;

use schemas::{AssertionForm, AssertionKind, SpanKind};

use crate::solver::{seed_of, Answer, Solver};
use crate::task::{Family, Task};

/// Which reference solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    Oracle,
    Null,
    Mutant,
    /// What a memorized repository gives (see the module's documentation).
    Memorized,
}

impl Solver for Reference {
    fn solve(&self, task: &Task, sample: u32) -> anyhow::Result<Answer> {
        let started = Instant::now();
        let hash = task.prompt_digest();
        let code = match (self, task.family) {
            (Reference::Memorized, Family::Assertion) => memorized_answer(task),
            (Reference::Oracle | Reference::Memorized, _) => Ok(task.canonical_solution.clone()),
            (Reference::Null, Family::Assertion) => Ok(NULL_ASSERTION.to_string()),
            (Reference::Null, Family::Completion) => Ok(null_fill(task).to_string()),
            (Reference::Null, _) => null_answer(&task.canonical_solution, &task.entry_point),
            (Reference::Mutant, Family::Assertion) => Err(NoAnswer(
                "mutant: no meaning for assertion tasks (their mutants are made by mask, on the program: the mutated tasks); use oracle, null or memorized".into(),
            )),
            (Reference::Mutant, Family::Completion) => {
                mutant_fill(task, sample).map(|(_, code)| code)
            }
            (Reference::Mutant, _) => mutant_answer(task, sample).map(|(_, code)| code),
        };
        Ok(match code {
            Ok(code) => Answer::ok(hash, code.clone(), code, started),
            Err(why) => Answer::error(hash, why.0, started),
        })
    }
}

/// Why a reference solver has no answer to a task (recorded as the answer's error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NoAnswer(pub String);

impl From<String> for NoAnswer {
    fn from(s: String) -> NoAnswer {
        NoAnswer(s)
    }
}

impl From<&str> for NoAnswer {
    fn from(s: &str) -> NoAnswer {
        NoAnswer(s.to_string())
    }
}

/// The `null` answer of an assertion task, in both forms.
pub const NULL_ASSERTION: &str = "None";

/// The `memorized` answer of an assertion task: the value on the original program as Python
/// text (value form; `raises`: the exception type's name), or whether the claim is that text
/// (verify form).
pub fn memorized_answer(task: &Task) -> Result<String, NoAnswer> {
    let a = task
        .assertion
        .as_ref()
        .ok_or("memorized: an assertion task without its test; this is a bug in solve")?;
    let original =
        schemas::tagged::assertion_python(&a.original_json, a.kind == AssertionKind::Raises)
            .map_err(|e| {
                NoAnswer(format!(
                    "memorized: the original value (original_json) cannot be written as Python: {e}"
                ))
            })?;
    Ok(match a.form {
        AssertionForm::Value => original,
        AssertionForm::Verify => {
            let holds = a.claim.as_deref() == Some(original.as_str());
            (if holds { "True" } else { "False" }).to_string()
        }
    })
}

/// The reference solution with the entry point's body replaced by `pass` (its docstring
/// kept): it defines the function, with the imports, and does nothing. The same neutral
/// solution validation checks fails ([`mutants::null_function`]).
pub fn null_answer(canonical: &str, entry_point: &str) -> Result<String, NoAnswer> {
    mutants::null_function(canonical, entry_point)
        .map_err(|e| NoAnswer(format!("null: the reference solution: {e}")))
}

/// The mutant for a sample: one of the mutants of the entry point (of the whole solution
/// when the entry point is not found), picked by a hash of the task id and the sample, so
/// the same on every run. Returns the mutant's id and its source.
pub fn mutant_answer(task: &Task, sample: u32) -> Result<(String, String), NoAnswer> {
    let source = &task.canonical_solution;
    let span = mutants::find_function(source, &task.entry_point).map(|f| (f.start, f.end));
    let all = mutants::mutants(
        source,
        &mutants::Options {
            span,
            ..mutants::Options::default()
        },
    )
    .map_err(|e| NoAnswer(format!("mutant: {e}")))?;
    if all.is_empty() {
        return Err(NoAnswer(format!(
            "mutant: no mutants: `{}` holds nothing the mutation operators change",
            task.entry_point
        )));
    }
    let pick = (seed_of(&task.task_id, sample) % all.len() as u64) as usize;
    let m = &all[pick];
    tracing::debug!(task = %task.task_id, sample, mutant = %m.id, "mutant picked");
    Ok((m.id.clone(), m.source.clone()))
}

/// The neutral fill of a completion task: `None` for an expression, `pass` for a statement,
/// block or function (one of the fills validation checks fail).
pub fn null_fill(task: &Task) -> &'static str {
    match task.completion.as_ref().map(|c| c.span_kind) {
        Some(SpanKind::Expression) => "None",
        _ => "pass",
    }
}

/// The mutant fill of a completion task for a sample: the mutants of the span within its
/// file (of the masked text alone, dedented, when the file does not parse), one picked by a
/// hash of the task id and the sample; the span deleted (the neutral fill) when no
/// operator changes it. Returns the mutant's id and the mutated span.
pub fn mutant_fill(task: &Task, sample: u32) -> Result<(String, String), NoAnswer> {
    let c = task
        .completion
        .as_ref()
        .ok_or("mutant: a completion task without its file; this is a bug in solve")?;
    let reference = &task.canonical_solution;
    let whole = format!("{}{reference}{}", c.prefix, c.suffix);
    let span = (c.prefix.len(), c.prefix.len() + reference.len());
    let in_file = mutants::mutants(
        &whole,
        &mutants::Options {
            span: Some(span),
            ..mutants::Options::default()
        },
    );
    let all: Vec<(String, String)> = match in_file {
        Ok(all) => all
            .into_iter()
            .filter_map(|m| {
                let end = m.source.len().checked_sub(c.suffix.len())?;
                let span_text = m.source.get(c.prefix.len()..end)?;
                (m.source.starts_with(&c.prefix) && m.source.ends_with(&c.suffix))
                    .then(|| (m.id, span_text.to_string()))
            })
            .collect(),
        Err(file_error) => {
            let (text, indented) = dedent_fill(reference, &c.indent);
            let all = mutants::mutants(&text, &mutants::Options::default()).map_err(|e| {
                NoAnswer(format!(
                    "mutant: neither the file ({file_error}) nor the masked text ({e}) parses"
                ))
            })?;
            all.into_iter()
                .map(|m| {
                    let span_text = if indented {
                        reindent_fill(&m.source, &c.indent)
                    } else {
                        m.source
                    };
                    (m.id, span_text)
                })
                .collect()
        }
    };
    let mut all: Vec<(String, String)> = all.into_iter().filter(|(_, f)| f != reference).collect();
    if all.is_empty() && null_fill(task) != reference.trim() {
        // Nothing the operators change (`self.x = y`): the span deleted, the classic
        // statement-deletion mutant (the neutral fill validation saw fail).
        all.push(("deleted".into(), null_fill(task).to_string()));
    }
    if all.is_empty() {
        return Err(NoAnswer(
            "mutant: no mutants: the masked span holds nothing the mutation operators change"
                .into(),
        ));
    }
    let pick = (seed_of(&task.task_id, sample) % all.len() as u64) as usize;
    let (id, answer) = all[pick].clone();
    tracing::debug!(task = %task.task_id, sample, mutant = %id, "mutant picked");
    Ok((id, answer))
}

/// The masked text with the span's indentation taken off its later lines, when all of them
/// have it (then `true`).
fn dedent_fill(text: &str, indent: &str) -> (String, bool) {
    let mut lines = text.split('\n');
    let first = lines.next().unwrap_or("");
    let rest: Vec<&str> = lines.collect();
    if indent.is_empty()
        || rest.is_empty()
        || !rest
            .iter()
            .all(|l| l.trim().is_empty() || l.starts_with(indent))
    {
        return (text.to_string(), false);
    }
    let mut out = vec![first.to_string()];
    out.extend(
        rest.iter()
            .map(|l| l.get(indent.len()..).unwrap_or("").to_string()),
    );
    (out.join("\n"), true)
}

/// [`dedent_fill`] undone.
fn reindent_fill(text: &str, indent: &str) -> String {
    text.split('\n')
        .enumerate()
        .map(|(i, l)| {
            if i == 0 || l.is_empty() {
                l.to_string()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::sha256_hex;

    const CANON: &str = "import math\n\n\ndef area(r: float) -> float:\n    \"\"\"Area of a circle.\"\"\"\n    if r < 0:\n        raise ValueError(\"negative\")\n    return math.pi * r ** 2\n";

    fn task(canon: &str) -> Task {
        Task {
            task_id: "t1".into(),
            family: Family::Function,
            prompt:
                "import math\n\n\ndef area(r: float) -> float:\n    \"\"\"Area of a circle.\"\"\"\n"
                    .into(),
            entry_point: "area".into(),
            canonical_solution: canon.into(),
            completion: None,
            assertion: None,
        }
    }

    #[test]
    fn oracle_is_the_reference() {
        let a = Reference::Oracle.solve(&task(CANON), 0).unwrap();
        assert_eq!(a.answer.as_deref(), Some(CANON));
        assert_eq!(a.prompt_hash, sha256_hex(task(CANON).prompt));
    }

    #[test]
    fn null_keeps_signature_and_docstring() {
        assert_eq!(
            null_answer(CANON, "area").unwrap(),
            "import math\n\n\ndef area(r: float) -> float:\n    \"\"\"Area of a circle.\"\"\"\n    pass\n"
        );
        assert_eq!(
            null_answer("def f(x):\n  return x\n\ndef g():\n  pass\n", "f").unwrap(),
            "def f(x):\n  pass\n\ndef g():\n  pass\n"
        );
        assert_eq!(
            null_answer("def f(x): return x\n", "f").unwrap(),
            "def f(x): pass\n"
        );
        assert!(null_answer(CANON, "volume").is_err());
    }

    #[test]
    fn mutant_is_one_edit_and_fixed() {
        let t = task(CANON);
        let (id, a) = mutant_answer(&t, 0).unwrap();
        assert_ne!(a, CANON);
        assert_eq!(mutant_answer(&t, 0).unwrap(), (id, a.clone()));
        // One contiguous edit: a common prefix and suffix leave a short change.
        let prefix = CANON
            .bytes()
            .zip(a.bytes())
            .take_while(|(x, y)| x == y)
            .count();
        let suffix = CANON
            .bytes()
            .rev()
            .zip(a.bytes().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let changed = CANON.len().saturating_sub(prefix + suffix);
        assert!(changed < 40, "{a}");
        // Samples pick from the same list, so several of them show several mutants.
        let distinct: std::collections::BTreeSet<String> =
            (0..20).map(|s| mutant_answer(&t, s).unwrap().1).collect();
        assert!(distinct.len() > 1);
    }

    #[test]
    fn no_mutants_is_an_error_answer() {
        let t = task("def area(r):\n    \"\"\"Nothing.\"\"\"\n    pass\n");
        let a = Reference::Mutant.solve(&t, 0).unwrap();
        assert!(!a.is_ok());
        assert!(a.error.unwrap().contains("no mutants"));
        let broken = task("def area(r):\n    return (\n");
        assert!(Reference::Mutant.solve(&broken, 0).unwrap().error.is_some());
    }

    #[test]
    fn mutants_stay_in_the_entry_point() {
        let canon = "def helper(x):\n    return x + 1\n\n\ndef area(r):\n    return r * r\n";
        for s in 0..10 {
            let (_, a) = mutant_answer(&task(canon), s).unwrap();
            assert!(a.starts_with("def helper(x):\n    return x + 1\n"), "{a}");
        }
    }

    fn completion(
        kind: SpanKind,
        prefix: &str,
        reference: &str,
        suffix: &str,
        indent: &str,
    ) -> Task {
        let mut t = schemas::examples::completion_task("c1", "r");
        t.span_kind = kind;
        t.prefix = prefix.into();
        t.reference = reference.into();
        t.suffix = suffix.into();
        t.indent = indent.into();
        Task::from(&t)
    }

    #[test]
    fn completion_oracle_and_null() {
        let t = Task::from(&schemas::examples::completion_task("c1", "r"));
        let a = Reference::Oracle.solve(&t, 0).unwrap();
        assert_eq!(a.answer.as_deref(), Some("a + b"));
        assert_eq!(a.prompt_hash, t.prompt_digest());
        assert_eq!(
            Reference::Null.solve(&t, 0).unwrap().answer.as_deref(),
            Some("None")
        );
        let block = completion(
            SpanKind::Block,
            "def f(x):\n    ",
            "y = x\n    return y",
            "\n",
            "    ",
        );
        assert_eq!(
            Reference::Null.solve(&block, 0).unwrap().answer.as_deref(),
            Some("pass")
        );
    }

    #[test]
    fn completion_mutants_change_only_the_span() {
        let t = completion(
            SpanKind::Block,
            "def f(x):\n    y = x + 1\n    ",
            "if x > 0:\n        return y * 2\n    return y",
            "\n\n\ndef g(z):\n    return z - 1\n",
            "    ",
        );
        let mut seen = std::collections::BTreeSet::new();
        for s in 0..12 {
            let (id, fill) = mutant_fill(&t, s).unwrap();
            assert_ne!(fill, t.canonical_solution);
            assert_eq!(
                mutant_fill(&t, s).unwrap(),
                (id, fill.clone()),
                "fixed per sample"
            );
            assert!(
                fill.starts_with("if ") || fill.starts_with("pass"),
                "{fill}"
            );
            seen.insert(fill);
        }
        assert!(seen.len() > 1);
        // The prefix's `x + 1` and the suffix's `z - 1` are never touched: only the fill is
        // answered, and it is a one-edit variant of the reference.
        let (_, fill) = mutant_fill(&t, 0).unwrap();
        assert!(!fill.contains("def g"));
    }

    #[test]
    fn completion_mutants_of_a_fragment() {
        // The file does not parse (a fragment): the masked text alone is mutated, dedented
        // and indented back.
        let t = completion(
            SpanKind::Block,
            "    ",
            "x = a + b\n    y = x * 2",
            "\n",
            "    ",
        );
        for s in 0..6 {
            let (_, fill) = mutant_fill(&t, s).unwrap();
            assert_ne!(fill, t.canonical_solution);
            let lines: Vec<&str> = fill.split('\n').collect();
            assert!(lines.len() == 2 && lines[1].starts_with("    "), "{fill:?}");
        }
        let none = completion(
            SpanKind::Expression,
            "def f(a):\n    x = ",
            "a",
            "\n    return x\n",
            "    ",
        );
        // Nothing an operator changes: the span deleted (its neutral fill) is the mutant.
        assert_eq!(
            mutant_fill(&none, 0).unwrap(),
            ("deleted".into(), "None".into())
        );
        let broken = completion(
            SpanKind::Expression,
            "def f(:\n    return ",
            "a +",
            "\n",
            "    ",
        );
        assert!(Reference::Mutant
            .solve(&broken, 0)
            .unwrap()
            .error
            .unwrap()
            .contains("parses"));
    }

    fn answer_of(r: Reference, t: &Task) -> Answer {
        r.solve(t, 0).unwrap()
    }

    #[test]
    fn assertion_oracle_null_and_memorized() {
        use crate::examples::{assertion_task, raises_task, with_claim};
        use schemas::AssertionForm::{Value, Verify};
        // (task, whether it is of the original program)
        let rows = [
            (assertion_task("v0", Value, false), true),
            (assertion_task("v1", Value, true), false),
            (raises_task("r0", Value, false), true),
            (raises_task("r1", Value, true), false),
            // Verify, claiming the original value: true, then false under the mutant.
            (assertion_task("c0", Verify, false), true),
            (assertion_task("c1", Verify, true), false),
            (raises_task("c2", Verify, true), false),
            // Claiming another value: false on the original; under the mutant, claiming
            // the mutated value, true.
            (with_claim(assertion_task("c3", Verify, false), "6"), true),
            (with_claim(assertion_task("c4", Verify, true), "7"), false),
            (
                with_claim(raises_task("c5", Verify, true), "AttributeError"),
                false,
            ),
        ];
        for (row, original) in &rows {
            let t = Task::from(row);
            let oracle = answer_of(Reference::Oracle, &t);
            assert_eq!(oracle.answer.as_deref(), Some(row.answer.as_str()));
            assert_eq!(oracle.prompt_hash, t.prompt_digest());
            let null = answer_of(Reference::Null, &t);
            assert_eq!(null.answer.as_deref(), Some("None"));
            assert_ne!(null.answer.as_deref(), Some(row.answer.as_str()));
            // Right exactly on the original program.
            let memorized = answer_of(Reference::Memorized, &t);
            assert!(memorized.is_ok(), "{memorized:?}");
            assert_eq!(
                memorized.answer.as_deref() == Some(row.answer.as_str()),
                *original,
                "{}: memorized {:?}, answer {}",
                row.task_id,
                memorized.answer,
                row.answer
            );
            let mutant = answer_of(Reference::Mutant, &t);
            assert!(!mutant.is_ok());
            assert!(
                mutant.error.as_deref().unwrap().contains("no meaning"),
                "{mutant:?}"
            );
        }
        let t = Task::from(&raises_task("r1", Value, true));
        assert_eq!(
            answer_of(Reference::Memorized, &t).answer.as_deref(),
            Some("TypeError")
        );
        // An original value that cannot be read is an error row, not a wrong answer.
        let mut broken = assertion_task("b", Value, false);
        broken.original_json = "{".into();
        let a = answer_of(Reference::Memorized, &Task::from(&broken));
        assert!(a.error.unwrap().contains("original_json"));
    }

    #[test]
    fn memorized_is_the_reference_for_other_families() {
        let f = task(CANON);
        let (m, o) = (
            answer_of(Reference::Memorized, &f),
            answer_of(Reference::Oracle, &f),
        );
        assert_eq!(
            (m.answer, m.prompt_hash, m.error),
            (o.answer, o.prompt_hash, o.error)
        );
        let c = Task::from(&schemas::examples::completion_task("c1", "r"));
        assert_eq!(
            answer_of(Reference::Memorized, &c).answer.as_deref(),
            Some("a + b")
        );
    }
}
