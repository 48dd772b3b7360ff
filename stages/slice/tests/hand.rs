//! The stage's figures on small programs whose slices were worked out by hand: a value that
//! depends on one of two branches, on a loop-carried variable, on a global of another
//! module, on a call three deep; traced in execute's sandboxed worker as the stage traces
//! assertion and completion tasks, turned into figures by the stage's own code.

use std::collections::HashMap;

use execute::completion::{CompletionOptions, RepoWorker};
use execute::evaluate::{self, EvalOptions};
use execute::tasks::JudgeOptions;
use execution::{Criterion, WorkerSpec};
use schemas::Family;
use slice::figures::{figures, Figures};
use slice::trace::{self, TraceOptions};

const CONSTS: &str = "RATE = 3\nUNUSED = 4\n";

const CALC: &str = r"from pkg import consts


def pick(flag, a, b):
    x = a * 2
    y = b + 1
    if flag:
        r = x
    else:
        r = y
    return r


def total(xs, k):
    s = 0
    n = 0
    for x in xs:
        s = s + x
        n = n + k
    return s


def price(n):
    return n * consts.RATE


def a(x):
    return b(x) + 1


def b(x):
    return c(x) * 2


def c(x):
    y = x - 1
    z = x + 1
    return y
";

const TESTS: &str = r"from pkg.calc import a, pick, price, total


def test_pick():
    assert pick(True, 3, 4) == 6


def test_total():
    assert total([1, 2, 3], 5) == 6


def test_price():
    assert price(2) == 6


def test_deep():
    v = a(5)
    w = 0
    assert v == 9
";

/// (ESV, MCL, depth, DFI, files, functions)
type Short = (i32, i64, i32, i32, i32, i32);

fn short(f: &Figures) -> Short {
    (f.esv, f.mcl, f.depth, f.dfi, f.files, f.functions)
}

#[test]
fn hand_checked_slices() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(root.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(root.join("pkg/consts.py"), CONSTS).unwrap();
    std::fs::write(root.join("pkg/calc.py"), CALC).unwrap();
    std::fs::write(root.join("tests/test_calc.py"), TESTS).unwrap();
    let mut repos = HashMap::new();
    repos.insert(
        "r".to_string(),
        Ok(RepoWorker {
            spec: WorkerSpec::for_tree(root),
            key: "test".into(),
            test_files: vec!["tests/test_calc.py".into()],
            pytest_args: vec!["-p".into(), "no:randomly".into(), "--tb=short".into()],
            test_sources: std::collections::BTreeMap::new(),
        }),
    );
    let eval = EvalOptions {
        time: None,
        jobs: 1,
        judge: JudgeOptions::default(),
        force: false,
        backend: execution::BackendArgs::default(),
        python: execution::default_interpreter(),
        envs: None,
        shard: None,
        resume: schemas::cli::ResumeArgs {
            checkpoint_secs: 10.0,
        },
        completion: CompletionOptions::default(),
    };
    let opts = TraceOptions {
        max_events: 100_000,
        timeout: std::time::Duration::from_mins(1),
        memory_bytes: 2 << 30,
        max_units: 32,
    };
    let node = |t: &str| format!("tests/test_calc.py::{t}");
    let assert_at = |line: i32| Criterion::Lines {
        path: "tests/test_calc.py".into(),
        first: line,
        last: line,
        forward: false,
    };
    // (test, criterion, family, the figures worked out by hand)
    let cases: Vec<(&str, Criterion, Family, Short)> = vec![
        // assert pick(True, 3, 4) == 6 <- return r <- r = x <- x = a * 2; r = x under `if
        // flag`. ESV: test_pick (2 lines) + pick (8); MCL: 1 + 4; depth: test, pick;
        // DFI: flag and a, given by the test (b feeds y, not in the slice).
        (
            "test_pick",
            assert_at(5),
            Family::Assertion,
            (10, 5, 2, 2, 2, 2),
        ),
        // total: s = 0, the three `for` that gave an x, the three s = s + x, return s.
        // ESV 2 + 7; MCL 1 + 8; DFI: xs (k feeds n only).
        (
            "test_total",
            assert_at(9),
            Family::Assertion,
            (9, 9, 2, 1, 2, 2),
        ),
        // price: n * consts.RATE; DFI: n and the other module's RATE (consts itself is a
        // module: code, not an input).
        (
            "test_price",
            assert_at(13),
            Family::Assertion,
            (4, 2, 2, 2, 2, 2),
        ),
        // v == 9 <- v = a(5) <- a <- b <- c (y = x - 1, return y); not w, not z.
        // ESV: test_deep 4 + a 2 + b 2 + c 4; MCL 6; depth 4 (test, a, b, c); DFI: a's x.
        (
            "test_deep",
            assert_at(19),
            Family::Assertion,
            (12, 6, 4, 1, 2, 4),
        ),
        // The completion span `y = x - 1` (calc line 36) judged by test_deep: forward to
        // the test's statements it feeds, then back. Only the code under test counts:
        // a, b, c (ESV 8), 4 statements, depth 3 (a..c), DFI 1.
        (
            "test_deep",
            Criterion::Lines {
                path: "pkg/calc.py".into(),
                first: 36,
                last: 36,
                forward: true,
            },
            Family::Completion,
            (8, 4, 3, 1, 1, 3),
        ),
    ];
    let mut got = Vec::new();
    evaluate::parallel(
        &eval,
        &repos,
        &cases,
        |workers, (test, criterion, family, _)| {
            let t = trace::pytest(
                workers,
                "r",
                &[node(test)],
                &[],
                false,
                criterion.clone(),
                &opts,
            )?;
            Ok((t, *family))
        },
        |r| got.push(r),
    )
    .unwrap();
    for ((test, _, _, want), (traced, family)) in cases.iter().zip(&got) {
        assert!(traced.infra.is_none(), "{test}: {:?}", traced.infra);
        assert_eq!(traced.units.len(), 1, "{test}: {traced:?}");
        let f = figures(&traced.units, *family)
            .unwrap_or_else(|| panic!("{test}: no figures: {:?}", traced.units));
        assert_eq!(short(&f), *want, "{test} ({family}): {f:?}");
        assert!(traced.plain_seconds > 0.0 && traced.trace_seconds > 0.0);
    }
    let price = figures(&got[2].0.units, Family::Assertion).unwrap();
    assert_eq!(
        price.inputs,
        ["global:pkg.consts:RATE", "param:pkg/calc.py:price:n"]
    );
}
