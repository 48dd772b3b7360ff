//! Values through a real worker: argument literals beyond `ast.literal_eval`, returned
//! iterators drawn under coverage, values unstable between processes, tolerance, and the
//! hash seed of a worker.

use std::time::Duration;

use execution::value::{Tolerance, ITER_ITEMS};
use execution::{run_batch, Limits, Outcome, ProcessBackend, Request, Status, Value, WorkerSpec};

fn limits() -> Limits {
    Limits {
        wall: Duration::from_secs(10),
        ..Limits::default()
    }
}

fn run(spec: &WorkerSpec, reqs: &[Request]) -> Vec<Outcome> {
    let backend = ProcessBackend::new(execution::ProcessOptions::default());
    let out = run_batch(&backend, spec, reqs, &limits()).unwrap();
    assert_eq!(out.len(), reqs.len());
    out
}

fn ok_value(o: &Outcome) -> &Value {
    assert_eq!(o.status, Status::Ok, "{o:?}");
    o.value.as_ref().expect("a value")
}

const ARGS: &str = r#"
import builtins, ast, math

def apply(f, *xs):
    return f(*xs)

def kinds(*args, **kwargs):
    return [type(a).__name__ for a in args] + sorted(kwargs)

def floats(*xs):
    return [("nan" if math.isnan(x) else x) for x in xs]

def same_object(a, b):
    return a is b

def patch():
    builtins.len = lambda x: 42
    builtins.compile = None
    ast.Constant = None
    ast.literal_eval = None
    return 1
"#;

#[test]
fn argument_literals_beyond_literal_eval() {
    let call = |f: &str, args: &str| Request::call_source(ARGS, f, args);
    let reqs = vec![
        call("apply", "[len, [1, 2, 3]]"),
        call("apply", "[sorted, (3, 1, 2)]"),
        call("apply", "[operator.add, 2, 5]"),
        call("apply", "[operator.not_, 0]"),
        call(
            "floats",
            "[float('nan'), float('inf'), float('-inf'), -float('inf'), float('2.5'), -1.5]",
        ),
        call(
            "kinds",
            "(set(), frozenset(), frozenset([1, 2]), set((1,)), {1}, 1+2j, b'x', None, ...)",
        ),
        call("same_object", "[len, len]"),
        // Patching builtins and `ast` does not change how later arguments are read.
        call("patch", "[]"),
        call("apply", "[len, 'abcd']"),
        call("floats", "[float('inf')]"),
    ];
    let mut kw = Request::call_source(ARGS, "kinds", "[]");
    if let Request::Call(c) = &mut kw {
        c.kwargs = "{'key': max, 'default': frozenset()}".into();
    }
    let mut reqs = reqs;
    reqs.push(kw);
    let out = run(&WorkerSpec::default(), &reqs);
    let ints = |v: &[i64]| Value::List(v.iter().map(|i| Value::int(*i)).collect());
    assert!(out[0].passes(&Value::int(3)), "{:?}", out[0]);
    assert!(out[1].passes(&ints(&[1, 2, 3])), "{:?}", out[1]);
    assert!(out[2].passes(&Value::int(7)), "{:?}", out[2]);
    assert!(out[3].passes(&Value::Bool(true)), "{:?}", out[3]);
    let expected = Value::List(vec![
        Value::str("nan"),
        Value::Float(f64::INFINITY),
        Value::Float(f64::NEG_INFINITY),
        Value::Float(f64::NEG_INFINITY),
        Value::Float(2.5),
        Value::Float(-1.5),
    ]);
    assert!(out[4].passes(&expected), "{:?}", out[4]);
    let names: Vec<Value> = [
        "set",
        "frozenset",
        "frozenset",
        "set",
        "set",
        "complex",
        "bytes",
        "NoneType",
        "ellipsis",
    ]
    .iter()
    .map(|n| Value::str(n))
    .collect();
    assert!(out[5].passes(&Value::List(names)), "{:?}", out[5]);
    assert!(out[6].passes(&Value::Bool(true)), "{:?}", out[6]);
    assert!(out[7].passes(&Value::int(1)), "{:?}", out[7]);
    assert!(
        out[8].passes(&Value::int(4)),
        "patched len reached the arguments: {:?}",
        out[8]
    );
    assert!(
        out[9].passes(&Value::List(vec![Value::Float(f64::INFINITY)])),
        "{:?}",
        out[9]
    );
    assert!(
        out[10].passes(&Value::List(vec![Value::str("default"), Value::str("key")])),
        "{:?}",
        out[10]
    );
}

#[test]
fn other_argument_forms_are_bad_arguments() {
    let bad = [
        "[hash]",
        "[id]",
        "[open]",
        "[print]",
        "[__import__]",
        "[lambda x: x]",
        "[operator.itemgetter(0)]",
        "[operator.attrgetter]",
        "[operator.__dict__]",
        "[os.system]",
        "[len.__self__]",
        "[__import__('os')]",
        "[float(1)]",
        "[set('abc')]",
        "[2 ** 10]",
        "[x for x in [1]]",
        "[{**{}}]",
        "[*[1]]",
        "{'a': 1}",
        "[1,",
    ];
    let reqs: Vec<Request> = bad
        .iter()
        .map(|a| Request::call_source(ARGS, "kinds", a))
        .collect();
    let out = run(&WorkerSpec::default(), &reqs);
    for (a, o) in bad.iter().zip(&out) {
        assert_eq!(o.status, Status::HarnessError, "{a}: {o:?}");
        assert!(
            o.detail
                .as_deref()
                .unwrap_or("")
                .starts_with("bad arguments"),
            "{a}: {o:?}"
        );
    }
}

const ITERS: &str = r#"
import itertools, time

def gen(n):
    for i in range(n):
        if i % 2:
            yield -i
        else:
            yield i

def count():
    return itertools.count()

def mapped():
    return map(str, [1, 2])

def zipped():
    return zip("ab", (1, 2))

def listed():
    return iter([1, [2]])

def fails_later():
    yield 1
    raise KeyError("lazy")

def slow():
    for i in range(3):
        time.sleep(0.15)
        yield i

def nested():
    return [iter([1])]

class Point:
    def __repr__(self):
        return "Point(1, 2)"

def plain():
    return object()

def point():
    return Point()

def exact_list():
    return [1, 2]
"#;

#[test]
fn returned_iterators_are_drawn() {
    let call = |f: &str, args: &str| Request::call_source(ITERS, f, args);
    let reqs = vec![
        call("gen", "[4]"),
        call("count", "[]"),
        call("mapped", "[]"),
        call("zipped", "[]"),
        call("listed", "[]"),
        call("fails_later", "[]"),
        call("slow", "[]"),
        call("nested", "[]"),
        call("exact_list", "[]"),
    ];
    let out = run(&WorkerSpec::default(), &reqs);
    let iter = |items: Vec<Value>, truncated| Value::Iter { items, truncated };
    let gen = iter(
        vec![Value::int(0), Value::int(-1), Value::int(2), Value::int(-3)],
        false,
    );
    assert!(out[0].passes(&gen), "{:?}", out[0]);
    assert_eq!(out[0].repr.as_deref(), Some("<generator> [0, -1, 2, -3]"));
    let Value::Iter { items, truncated } = ok_value(&out[1]) else {
        panic!("{:?}", out[1])
    };
    assert!(*truncated);
    assert_eq!(items.len(), ITER_ITEMS);
    assert!(items[ITER_ITEMS - 1].same(&Value::int(ITER_ITEMS as i64 - 1)));
    assert!(out[1].repr.as_deref().unwrap().ends_with(" ..."));
    assert!(out[2].passes(&iter(vec![Value::str("1"), Value::str("2")], false)));
    let pair = |s: &str, i| Value::Tuple(vec![Value::str(s), Value::int(i)]);
    assert!(out[3].passes(&iter(vec![pair("a", 1), pair("b", 2)], false)));
    assert!(out[4].passes(&iter(
        vec![Value::int(1), Value::List(vec![Value::int(2)])],
        false
    )));
    assert!(!out[4].passes(&Value::List(vec![
        Value::int(1),
        Value::List(vec![Value::int(2)])
    ])));
    // Raising while drawn is raising.
    assert_eq!(out[5].status, Status::Exception, "{:?}", out[5]);
    let exc = out[5].exception.as_ref().unwrap();
    assert_eq!(exc.type_name, "KeyError");
    assert!(out[5].value.is_none());
    // Drawing is part of the call's time.
    assert!(out[6].seconds >= 0.4, "{:?}", out[6]);
    // Iterators inside a returned list are drawn too (`[iter([1])]`), with a stable repr.
    assert!(
        out[7].passes(&Value::List(vec![Value::Iter {
            items: vec![Value::int(1)],
            truncated: false
        }])),
        "{:?}",
        out[7]
    );
    assert_eq!(out[7].repr.as_deref(), Some("[<list_iterator> [1]]"));
    assert!(ok_value(&out[7]).is_stable());
    assert!(ok_value(&out[8]).is_stable());
    assert!(out[8].passes(&Value::List(vec![Value::int(1), Value::int(2)])));
}

#[test]
fn code_a_returned_generator_runs_is_covered() {
    // `def gen` is line 4: `for` 5, `if` 6, `yield -i` 7, `else` 8, `yield i` 9.
    let reqs = vec![
        Request::call_source(ITERS, "gen", "[1]").with_coverage(true),
        Request::call_source(ITERS, "gen", "[2]").with_coverage(true),
    ];
    let out = run(&WorkerSpec::default(), &reqs);
    let one = out[0].coverage.as_ref().expect("coverage");
    let two = out[1].coverage.as_ref().expect("coverage");
    assert_eq!((one.first_line, one.last_line), (4, 9), "{one:?}");
    assert!(one.arcs.contains(&(6, 9)), "{one:?}");
    assert!(!one.arcs.contains(&(6, 7)), "{one:?}");
    assert!(
        two.arcs.contains(&(6, 7)) && two.arcs.contains(&(6, 9)),
        "{two:?}"
    );
    assert!(two.ratio() > one.ratio());
}

#[test]
fn objects_with_addresses_are_unstable_and_floats_match_within_tolerance() {
    let reqs = vec![
        Request::call_source(ITERS, "plain", "[]"),
        Request::call_source(ITERS, "point", "[]"),
        Request::call_source("def f():\n    return 0.1 + 0.2\n", "f", "[]"),
    ];
    let out = run(&WorkerSpec::default(), &reqs);
    assert!(!ok_value(&out[0]).is_stable(), "{:?}", out[0]);
    let point = ok_value(&out[1]);
    assert!(point.is_stable(), "{point:?}");
    assert!(matches!(point, Value::Object { type_name, .. } if type_name == "candidate.Point"));
    assert!(!out[2].passes(&Value::Float(0.3)));
    assert!(out[2].passes_within(&Value::Float(0.3), Tolerance::default()));
    assert!(!out[2].passes_within(&Value::Float(0.3), Tolerance::EXACT));
    assert!(!out[2].passes_within(&Value::int(0), Tolerance::default()));
}

const SETS: &str = r"
SETS = [
    {'alpha', 'beta', 'gamma', 'delta', 'epsilon'},
    {'a', 'b', 'c', 'd', 'e', 'f', 'g'},
    {'one', 'two', 'three', 'four', 'five', 'six'},
    {'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9'},
]

def reprs():
    return [repr(s) for s in SETS]
";

fn set_reprs(seed: u32) -> Value {
    let spec = WorkerSpec {
        hash_seed: seed,
        ..WorkerSpec::default()
    };
    let out = run(&spec, &[Request::call_source(SETS, "reprs", "[]")]);
    ok_value(&out[0]).clone()
}

#[test]
fn the_hash_seed_of_a_worker_orders_its_sets() {
    let zero = set_reprs(0);
    let one = set_reprs(1);
    let zero_again = set_reprs(0);
    let one_again = set_reprs(1);
    assert!(zero.same(&zero_again), "{zero:?} / {zero_again:?}");
    assert!(one.same(&one_again), "{one:?} / {one_again:?}");
    assert!(
        !zero.same(&one),
        "seeds 0 and 1 ordered every set alike: {zero:?}"
    );
}
