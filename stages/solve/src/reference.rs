//! The reference solvers, which answer from the task itself: `oracle` (the reference
//! solution: must pass every valid task), `null` (the entry point with an empty body: must
//! fail every task) and `mutant` (the reference solution with one small semantic mutation:
//! how well the tests tell a near miss apart).

use std::time::Instant;

use crate::solver::{seed_of, sha256_hex, Answer, Solver};
use crate::task::Task;

/// Which reference solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    Oracle,
    Null,
    Mutant,
}

impl Solver for Reference {
    fn solve(&self, task: &Task, sample: u32) -> anyhow::Result<Answer> {
        let started = Instant::now();
        let hash = sha256_hex(&task.prompt);
        let code = match self {
            Reference::Oracle => Ok(task.canonical_solution.clone()),
            Reference::Null => null_answer(&task.canonical_solution, &task.entry_point),
            Reference::Mutant => mutant_answer(task, sample).map(|(_, code)| code),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Family;

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
}
