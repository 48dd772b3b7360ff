//! Example `assertion_tasks` rows, for the tests of this crate (its unit tests and the
//! integration tests under `tests/`): one place that builds them, as
//! [`schemas::examples`] does for the other task tables (which has no assertion task yet).
//! Compiled into the library, as `schemas::examples` is, so that the integration tests
//! reach it without a feature.
//!
//! The repository is one module, `pkg/prices.py` ([`PRICES`]); its test file holds two
//! tests: `test_total` (an `equal` assertion, `total(prices, discount=1)`: 5 on the original
//! program, 7 under the mutant `-` → `+`) and `test_parse_none` (a `raises` assertion,
//! `parse_price(None)`: `TypeError` on the original, `AttributeError` under the mutant
//! `is None` → `is not None`).

use schemas::{AssertionForm, AssertionKind, AssertionTask, ContextSnippet};

use crate::task::VALUE_MARK;

/// The module the tests exercise.
pub const PRICES: &str = "def total(prices, discount=0):\n    \"\"\"The sum of the prices, less the discount.\"\"\"\n    return sum(prices) - discount\n\n\ndef parse_price(text):\n    if text is None:\n        raise TypeError(\"no price\")\n    if not text.strip():\n        raise ValueError(\"empty price\")\n    return int(text)\n";

/// The test file's imports, the head of every test source.
pub const IMPORTS: &str = "import pytest\n\nfrom pkg.prices import parse_price, total\n\n\n";

/// One of the two example assertions.
struct Example {
    name: &'static str,
    kind: AssertionKind,
    subject: &'static str,
    /// The test function before the assertion.
    head: &'static str,
    /// The assertion with `{}` where its expected value goes.
    assertion: &'static str,
    /// The test function after the assertion.
    tail: &'static str,
    line: i32,
    /// The value (tagged JSON, Python text) on the original program and under the mutant.
    original: (&'static str, &'static str),
    mutated: (&'static str, &'static str),
    /// The mutation: the original text and its replacement in [`PRICES`].
    mutation: (&'static str, &'static str),
}

const TOTAL: Example = Example {
    name: "test_total",
    kind: AssertionKind::Equal,
    subject: "total(prices, discount=1)",
    head: "def test_total():\n    prices = [1, 2, 3]\n    ",
    assertion: "assert total(prices, discount=1) == {}",
    tail: "\n",
    line: 8,
    original: (r#"{"t":"int","v":"5"}"#, "5"),
    mutated: (r#"{"t":"int","v":"7"}"#, "7"),
    mutation: ("sum(prices) - discount", "sum(prices) + discount"),
};

const RAISES: Example = Example {
    name: "test_parse_none",
    kind: AssertionKind::Raises,
    subject: "parse_price(None)",
    head: "def test_parse_none():\n    ",
    assertion: "with pytest.raises({}):",
    tail: "\n        parse_price(None)\n",
    line: 12,
    original: (r#"{"t":"str","v":"TypeError"}"#, "TypeError"),
    mutated: (r#"{"t":"str","v":"AttributeError"}"#, "AttributeError"),
    mutation: ("if text is None:", "if text is not None:"),
};

/// The `equal` task `total(prices, discount=1) == ??` in `form`, on the original program
/// (answer `5`) or `mutated` (answer `7`). The verify form claims the original value, `5`
/// (answer `True`, or `False` when mutated); [`with_claim`] makes another claim.
pub fn assertion_task(task_id: &str, form: AssertionForm, mutated: bool) -> AssertionTask {
    build(&TOTAL, task_id, form, mutated)
}

/// The `raises` task `with pytest.raises(??): parse_price(None)` in `form`, on the original
/// program (answer `TypeError`) or `mutated` (answer `AttributeError`). The verify form
/// claims the original type.
pub fn raises_task(task_id: &str, form: AssertionForm, mutated: bool) -> AssertionTask {
    build(&RAISES, task_id, form, mutated)
}

/// A verify task `t` claiming `claim` instead (its answer `True` exactly when the claim is
/// the value on the task's program).
pub fn with_claim(mut t: AssertionTask, claim: &str) -> AssertionTask {
    let e = if t.kind == AssertionKind::Raises {
        &RAISES
    } else {
        &TOTAL
    };
    let shown = e.assertion.replace("{}", claim);
    t.test_source = format!("{IMPORTS}{}{shown}{}", e.head, e.tail);
    t.masked_assertion = shown;
    t.answer = if claim == t.value_python {
        "True"
    } else {
        "False"
    }
    .into();
    t.claim = Some(claim.into());
    t
}

fn build(e: &Example, task_id: &str, form: AssertionForm, mutated: bool) -> AssertionTask {
    let (value_json, value_python) = if mutated { e.mutated } else { e.original };
    let program = if mutated {
        PRICES.replacen(e.mutation.0, e.mutation.1, 1)
    } else {
        PRICES.to_string()
    };
    let (claim, shown) = match form {
        AssertionForm::Value => (None, e.assertion.replace("{}", VALUE_MARK)),
        AssertionForm::Verify => (
            Some(e.original.1.to_string()),
            e.assertion.replace("{}", e.original.1),
        ),
    };
    let answer = match form {
        AssertionForm::Value => value_python.to_string(),
        AssertionForm::Verify => if mutated { "False" } else { "True" }.to_string(),
    };
    let start = (IMPORTS.len() + e.head.len()) as i64;
    AssertionTask {
        task_id: task_id.into(),
        group_id: format!("g-{}", e.name),
        repo_id: "repo".into(),
        test_node_id: format!("tests/test_prices.py::{}", e.name),
        path: "tests/test_prices.py".into(),
        line: e.line,
        start_byte: start,
        end_byte: start + e.assertion.replace("{}", e.original.1).len() as i64,
        kind: e.kind,
        form,
        subject: e.subject.into(),
        test_source: format!("{IMPORTS}{}{shown}{}", e.head, e.tail),
        masked_assertion: shown,
        code_context: vec![
            ContextSnippet {
                path: "pkg/prices.py".into(),
                text: program.clone(),
                score: 2.5,
            },
            ContextSnippet {
                path: "pkg/__init__.py".into(),
                text: "\"\"\"Prices.\"\"\"\n".into(),
                score: 0.5,
            },
        ],
        context_tokens: 60,
        context_budget: 2000,
        mutated,
        mutant_id: mutated.then(|| format!("m-{}", e.name)),
        mutated_path: mutated.then(|| "pkg/prices.py".into()),
        mutated_text: mutated.then_some(program),
        mutation: mutated.then(|| format!("pkg/prices.py: {} -> {}", e.mutation.0, e.mutation.1)),
        value_json: value_json.into(),
        value_python: value_python.into(),
        original_json: e.original.0.into(),
        claim,
        answer,
        tests_seconds: 0.01,
        record_seconds: 0.0,
        code_date: None,
        code_date_source: None,
        after_cutoff: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_are_consistent() {
        for mutated in [false, true] {
            for t in [
                assertion_task("a", AssertionForm::Value, mutated),
                raises_task("r", AssertionForm::Value, mutated),
            ] {
                assert!(t.test_source.contains(&t.masked_assertion));
                assert!(t.masked_assertion.contains(VALUE_MARK));
                assert_eq!(
                    schemas::tagged::assertion_python(
                        &t.value_json,
                        t.kind == AssertionKind::Raises
                    )
                    .unwrap(),
                    t.answer
                );
                assert_eq!(t.original_json == t.value_json, !mutated);
                assert_eq!(
                    t.code_context[0].text.contains(" + discount")
                        || t.code_context[0].text.contains("is not None"),
                    mutated
                );
            }
            let v = assertion_task("v", AssertionForm::Verify, mutated);
            assert!(!v.test_source.contains(VALUE_MARK));
            assert!(v.test_source.contains("== 5\n"));
            assert_eq!(v.answer, if mutated { "False" } else { "True" });
            let v = with_claim(v, "7");
            assert_eq!(v.answer, if mutated { "True" } else { "False" });
            assert!(v.test_source.contains("== 7\n"));
        }
    }
}
