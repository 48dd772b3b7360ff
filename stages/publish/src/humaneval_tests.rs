//! The generated `check` functions, run against the reference solution (which must pass)
//! and against wrong solutions (which must fail), through the execution library's worker as
//! all task code runs (`tests/common/checks.rs`).

#[path = "../tests/common/checks.rs"]
mod checks;

use schemas::{FunctionTask, TestCase};

use super::*;

pub(crate) fn task(id: &str, entry: &str, prompt: &str, canonical: &str) -> FunctionTask {
    FunctionTask {
        prompt: prompt.into(),
        entry_point: entry.into(),
        canonical_solution: canonical.into(),
        cases: 0,
        arcs_covered: 1,
        arcs_total: 1,
        mutants_total: 0,
        mutants_killed: 0,
        mutation_score: None,
        held_out_mutation_score: None,
        calls: 1,
        search_seconds: 0.0,
        seconds: 0.0,
        config_hash: "c".into(),
        ..schemas::examples::function_task(id, "r")
    }
}

pub(crate) fn case(
    task: &str,
    ordinal: i32,
    args: &str,
    expected_json: Option<&str>,
    exception: Option<&str>,
) -> TestCase {
    TestCase {
        case_id: format!("{task}-{ordinal}"),
        task_id: task.into(),
        ordinal,
        args: args.into(),
        kwargs: "{}".into(),
        expected_repr: None,
        expected_json: expected_json.map(str::to_string),
        expected_exception: exception.map(str::to_string),
        is_edge: false,
        from_observed: false,
        arcs: 0,
    }
}

/// A prompt and the body that completes it.
struct Fixture {
    task: FunctionTask,
    body: &'static str,
    /// Bodies that must fail the check, and ones that must pass it.
    wrong: Vec<&'static str>,
    right: Vec<&'static str>,
}

fn fixture(id: &str, entry: &str, head: &str, body: &'static str) -> Fixture {
    Fixture {
        task: task(id, entry, head, &format!("{head}{body}")),
        body,
        wrong: Vec::new(),
        right: Vec::new(),
    }
}

fn int(i: i64) -> String {
    format!(r#"{{"t":"int","v":"{i}"}}"#)
}

fn fixtures() -> (Vec<Fixture>, Vec<TestCase>) {
    let mut fx = Vec::new();
    let mut cases = Vec::new();

    // Floats, NaN, dicts, exceptions, keyword arguments.
    let mut f = fixture(
        "stats",
        "stats",
        "import math\n\n\ndef stats(values, *, scale=1):\n    \"\"\"Mean and count.\"\"\"\n",
        "    if not values:\n        raise ValueError('empty')\n    return {'mean': math.fsum(values) / len(values) * scale, 'n': len(values)}\n",
    );
    f.wrong = vec![
        // An int where a float is expected.
        "    if not values:\n        raise ValueError('empty')\n    return {'mean': int(sum(values) / len(values)), 'n': len(values)}\n",
        // The wrong exception.
        "    if not values:\n        raise TypeError('empty')\n    return {'mean': math.fsum(values) / len(values) * scale, 'n': len(values)}\n",
        // No exception.
        "    if not values:\n        return {}\n    return {'mean': math.fsum(values) / len(values) * scale, 'n': len(values)}\n",
        // A key too many.
        "    if not values:\n        raise ValueError('empty')\n    return {'mean': math.fsum(values) / len(values) * scale, 'n': len(values), 'x': 0}\n",
    ];
    f.right = vec![
        // Within the tolerance.
        "    if not values:\n        raise ValueError('empty')\n    return {'n': len(values), 'mean': (math.fsum(values) / len(values) * scale) * (1 + 1e-12)}\n",
    ];
    fx.push(f);
    let fl = |x: &str| format!(r#"{{"t":"float","v":{x}}}"#);
    let dict = |mean: &str, n: i64| {
        format!(
            r#"{{"t":"dict","v":[[{{"t":"str","v":"mean"}},{mean}],[{{"t":"str","v":"n"}},{}]]}}"#,
            int(n)
        )
    };
    cases.push(case(
        "stats",
        0,
        "[[1.0, 2.0, 4.0]]",
        Some(&dict(&fl("2.3333333333333335"), 3)),
        None,
    ));
    cases.push(case("stats", 1, "[[]]", None, Some("ValueError")));
    cases.push(case(
        "stats",
        2,
        "[[float('nan'), 1.0]]",
        Some(&dict(r#"{"t":"float","v":"nan"}"#, 2)),
        None,
    ));
    let mut kw = case(
        "stats",
        3,
        "[[0.1, 0.2]]",
        Some(&dict(&fl("0.30000000000000004"), 2)),
        None,
    );
    kw.kwargs = "{'scale': 2}".into();
    cases.push(kw);
    cases.push(case(
        "stats",
        4,
        "[[float('inf')]]",
        Some(&dict(r#"{"t":"float","v":"inf"}"#, 1)),
        None,
    ));
    // A case without an expected value is left out, not asserted.
    cases.push(case("stats", 5, "[[1.0]]", None, None));

    // Tuples against lists, unicode, sets, frozensets, bytes, None.
    let mut f = fixture(
        "words",
        "words",
        "def words(text):\n    \"\"\"Words with their lengths, distinct letters, encoded.\"\"\"\n",
        "    if not text:\n        return None\n    ws = text.split()\n    return [(w, len(w)) for w in ws], set(text) - {' '}, frozenset(ws), text.encode()\n",
    );
    f.wrong = vec![
        // Lists instead of tuples.
        "    if not text:\n        return None\n    ws = text.split()\n    return [[w, len(w)] for w in ws], set(text) - {' '}, frozenset(ws), text.encode()\n",
        // A set instead of a frozenset.
        "    if not text:\n        return None\n    ws = text.split()\n    return [(w, len(w)) for w in ws], set(text) - {' '}, set(ws), text.encode()\n",
        // The empty string instead of None.
        "    if not text:\n        return ''\n    ws = text.split()\n    return [(w, len(w)) for w in ws], set(text) - {' '}, frozenset(ws), text.encode()\n",
    ];
    fx.push(f);
    let s = |x: &str| format!(r#"{{"t":"str","v":"{x}"}}"#);
    let tup = |items: &[String]| format!(r#"{{"t":"tuple","v":[{}]}}"#, items.join(","));
    let coll = |t: &str, items: &[String]| format!(r#"{{"t":"{t}","v":[{}]}}"#, items.join(","));
    let expected = tup(&[
        coll(
            "list",
            &[tup(&[s("é漢"), int(2)]), tup(&[s("b\\\\'"), int(3)])],
        ),
        coll("set", &[s("é"), s("漢"), s("b"), s("\\\\"), s("'")]),
        coll("frozenset", &[s("b\\\\'"), s("é漢")]),
        r#"{"t":"bytes","v":"c3a9e6bca220625c27"}"#.to_string(),
    ]);
    cases.push(case("words", 0, r#"["é漢 b\\'"]"#, Some(&expected), None));
    cases.push(case("words", 1, "['']", Some(r#"{"t":"none"}"#), None));

    // Iterators: a finite one, an argument that is an iterator, an endless one.
    let mut f = fixture(
        "evens",
        "evens",
        "def evens(items, limit=None):\n    \"\"\"The even items, lazily.\"\"\"\n",
        "    if limit is None:\n        return (x for x in items if x % 2 == 0)\n    import itertools\n    return (2 * i for i in itertools.count())\n",
    );
    f.wrong = vec![
        // A list is not an iterator.
        "    if limit is None:\n        return [x for x in items if x % 2 == 0]\n    import itertools\n    return (2 * i for i in itertools.count())\n",
        // An endless iterator must go on past 1000 items.
        "    if limit is None:\n        return (x for x in items if x % 2 == 0)\n    return (2 * i for i in range(999))\n",
    ];
    fx.push(f);
    cases.push(case(
        "evens",
        0,
        "[iter([1, 2, 3, 4])]",
        Some(&format!(
            r#"{{"t":"iter","v":{{"items":[{},{}],"truncated":false}}}}"#,
            int(2),
            int(4)
        )),
        None,
    ));
    let endless: Vec<String> = (0..1000).map(|i| int(2 * i)).collect();
    cases.push(case(
        "evens",
        1,
        "[[], 1]",
        Some(&format!(
            r#"{{"t":"iter","v":{{"items":[{}],"truncated":true}}}}"#,
            endless.join(",")
        )),
        None,
    ));

    // Other objects (type and repr), a function passed as an argument.
    let mut f = fixture(
        "ratio",
        "ratio",
        "from fractions import Fraction\n\n\ndef ratio(a, b, f=abs):\n    \"\"\"a / b as a fraction.\"\"\"\n",
        "    return Fraction(f(a), b)\n",
    );
    f.wrong = vec![
        "    return f(a) / b\n",
        "    return Fraction(f(a) + 1, b)\n",
    ];
    fx.push(f);
    cases.push(case(
        "ratio",
        0,
        "[-1, 3, abs]",
        Some(r#"{"t":"object","v":{"type":"fractions.Fraction","repr":"Fraction(1, 3)"}}"#),
        None,
    ));
    cases.push(case("ratio", 1, "[1, 0]", None, Some("ZeroDivisionError")));

    // Arguments that are objects of standard types, as synthesize-tests writes them.
    let mut f = fixture(
        "shift",
        "shift",
        "import datetime\n\n\ndef shift(day, days, path):\n    \"\"\"The day some days later, in a folder named by the path's stem.\"\"\"\n",
        "    return day + datetime.timedelta(days=int(days)), path.stem\n",
    );
    f.wrong = vec![
        "    return day + datetime.timedelta(days=int(days) + 1), path.stem\n",
        "    return day + datetime.timedelta(days=int(days)), path.name\n",
    ];
    fx.push(f);
    cases.push(case(
        "shift",
        0,
        "[datetime.date(2024, 2, 28), decimal.Decimal(\"2.5\"), pathlib.PurePosixPath(\"a/b.txt\")]",
        Some(&tup(&[
            r#"{"t":"object","v":{"type":"datetime.date","repr":"datetime.date(2024, 3, 1)"}}"#
                .to_string(),
            s("b"),
        ])),
        None,
    ));
    cases.push(case(
        "shift",
        1,
        "[datetime.date(2024, 12, 31), fractions.Fraction(7, 2), pathlib.PurePosixPath(\"x\")]",
        Some(&tup(&[
            r#"{"t":"object","v":{"type":"datetime.date","repr":"datetime.date(2025, 1, 3)"}}"#
                .to_string(),
            s("x"),
        ])),
        None,
    ));

    // An attribute bag and a compiled pattern, as synthesize-tests writes them.
    let mut f = fixture(
        "rank",
        "rank",
        "def rank(token, unit):\n    \"\"\"Whether the token is a number above one, and whether its unit matches.\"\"\"\n",
        "    return token.type == \"number\" and token.value > 1, bool(unit.match(token.unit))\n",
    );
    f.wrong = vec![
        "    return token.type == \"number\" and token.value >= 1, bool(unit.match(token.unit))\n",
    ];
    fx.push(f);
    cases.push(case(
        "rank",
        0,
        "[types.SimpleNamespace(type=\"number\", value=1, unit=\"px\"), re.compile(\"p\", 2)]",
        Some(&tup(&[
            r#"{"t":"bool","v":false}"#.to_string(),
            r#"{"t":"bool","v":true}"#.to_string(),
        ])),
        None,
    ));
    (fx, cases)
}

/// The verdicts of [`checks::run_checks`]; `None` (with the reason printed) when no worker
/// can start here.
fn run_checks(rows: &[(String, String, String)]) -> Option<Vec<String>> {
    match checks::run_checks(rows) {
        Ok(v) => Some(v),
        Err(why) => {
            eprintln!("SKIPPED: the generated checks were not run: {why}");
            None
        }
    }
}

#[test]
fn check_functions_pass_the_reference_and_fail_wrong_solutions() {
    let (fx, cases) = fixtures();
    let tasks: Vec<FunctionTask> = fx.iter().map(|f| f.task.clone()).collect();
    let (rows, stats) = export(&tasks, &cases);
    assert_eq!(rows.len(), 6);
    assert_eq!(stats.cases_left_out, 1, "{stats:?}");
    assert_eq!(stats.cases, cases.len() - 1);
    for (row, f) in rows.iter().zip(&fx) {
        assert_eq!(row.task_id, format!("freshbench/{}", f.task.task_id));
        assert_eq!(
            row.canonical_solution, f.body,
            "the body completes the prompt"
        );
        assert!(row.test.starts_with("def check(candidate):\n"));
    }
    assert!(rows[0]
        .test
        .contains("# case 5 left out: no expected value recorded"));
    assert!(rows[0]
        .test
        .contains("candidate(*[[0.1, 0.2]], **{'scale': 2})"));

    let mut runs = Vec::new();
    let mut expect = Vec::new();
    for (row, f) in rows.iter().zip(&fx) {
        let mut add = |body: &str, pass: bool, what: String| {
            runs.push((
                format!("{}{body}", row.prompt),
                row.test.clone(),
                row.entry_point.clone(),
            ));
            expect.push((pass, what));
        };
        add(
            &row.canonical_solution,
            true,
            format!("{}: reference", row.task_id),
        );
        for (i, w) in f.wrong.iter().enumerate() {
            add(w, false, format!("{}: wrong solution {i}", row.task_id));
        }
        for (i, r) in f.right.iter().enumerate() {
            add(
                r,
                true,
                format!("{}: other right solution {i}", row.task_id),
            );
        }
    }
    let Some(verdicts) = run_checks(&runs) else {
        return;
    };
    assert_eq!(verdicts.len(), expect.len());
    for (verdict, (pass, what)) in verdicts.iter().zip(&expect) {
        if *pass {
            assert_eq!(verdict, "pass", "{what}");
        } else {
            assert!(verdict.starts_with("fail: case "), "{what}: {verdict}");
        }
    }
}

#[test]
fn a_synthesized_prompt_gets_the_whole_solution() {
    let prompt =
        "def f(x):\n    \"\"\"Behave as these examples show.\n\n    >>> f(1)\n    2\n    \"\"\"\n";
    let canonical = "def f(x):\n    return x + 1\n";
    assert_eq!(completion_of(prompt, canonical), canonical);
    let no_newline = "def f(x):\n    \"\"\"Doc.\"\"\"";
    assert_eq!(
        completion_of(no_newline, canonical),
        format!("\n{canonical}")
    );
    assert_eq!(
        completion_of("def f(x):", canonical),
        "\n    return x + 1\n"
    );
    assert_eq!(
        completion_of("def f(x):\n", "def f(x):\n    return 1\n"),
        "    return 1\n"
    );
    let t = task("syn", "f", prompt, canonical);
    let cases = [case("syn", 0, "[1]", Some(&int(2)), None)];
    let (rows, _) = export(std::slice::from_ref(&t), &cases);
    let program = format!("{}{}", rows[0].prompt, rows[0].canonical_solution);
    let Some(verdicts) = run_checks(&[(program, rows[0].test.clone(), "f".into())]) else {
        return;
    };
    assert_eq!(verdicts, ["pass"]);
}

#[test]
fn a_task_without_usable_cases_is_not_exported() {
    let t = task("none", "f", "def f():\n", "def f():\n    return 1\n");
    let cases = [case("none", 0, "[]", None, None)];
    let (rows, stats) = export(&[t], &cases);
    assert!(rows.is_empty());
    assert_eq!(stats.tasks_left_out, ["none"]);
    let mut multi = case("x", 0, "[1,\n2]", Some(&int(1)), None);
    assert!(assert_of(&multi).unwrap_err().0.contains("span lines"));
    multi.args = "[]".into();
    assert_eq!(
        assert_of(&multi).unwrap(),
        "    assert _match(candidate(), 1), 'case 0'\n"
    );
}
