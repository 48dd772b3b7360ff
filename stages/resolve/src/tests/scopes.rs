//! Python's scoping rules: which names are free in a function and where they are bound.

use super::{analyze, binding, chains, free, func};
use crate::{Binding, ImportTarget, TargetType};

fn enclosing(qualname: &str, ty: TargetType) -> Binding {
    Binding::Enclosing {
        qualname: qualname.into(),
        target_type: ty,
    }
}

#[test]
fn a_name_assigned_anywhere_in_a_function_is_local_throughout() {
    let a = analyze(
        "
        def f():
            print(x)
            x = 1
        ",
    );
    assert_eq!(chains(&a, "f"), ["print"]);
}

#[test]
fn every_binding_form_is_local() {
    let a = analyze(
        "
        def f(p, *ps, k=1, **kw):
            for i, (j, *js) in p: pass
            with open(p) as fh, ctx() as (w1, w2): pass
            try: pass
            except ValueError as err: pass
            import json, os.path as osp
            from collections import deque as dq
            def helper(): pass
            class K: pass
            if (walrus := 3): pass
            del deleted
            a = b = 0
            c, [d, e] = 1, (2, 3)
            g: int = 0
            h += 1
            match p:
                case [m1, *mrest] if m1: pass
                case {'k': mv, **mkw}: pass
                case Point(x=mx) as mas: pass
            return (p, ps, k, kw, i, j, js, fh, w1, w2, err, json, osp, dq, helper, K, walrus,
                    deleted, a, b, c, d, e, g, h, m1, mrest, mv, mkw, mx, mas)
        ",
    );
    // Local bindings all, but the imported names stay references of the function: the
    // code they name lives elsewhere.
    assert_eq!(
        chains(&a, "f"),
        [
            "Point",
            "ValueError",
            "ctx",
            "dq",
            "int",
            "json",
            "open",
            "osp"
        ]
    );
    assert!(matches!(
        binding(&a, "f", "json"),
        Binding::EnclosingImport(_)
    ));
}

#[test]
fn comprehension_variables_are_local_to_the_comprehension() {
    let a = analyze(
        "
        def f(rows):
            inner = [i * j for i in rows for j in i if j]
            return inner, i, {k: v for k, v in table}, (g for g in gen)
        ",
    );
    // `i` outside the comprehension is a global; the first iterable (`table`, `gen`) is
    // evaluated in the function.
    assert_eq!(chains(&a, "f"), ["gen", "i", "table"]);
}

#[test]
fn walrus_in_a_comprehension_binds_in_the_enclosing_function() {
    let a = analyze(
        "
        def f(xs):
            [last := x for x in xs]
            return last
        [(w := 1) for _ in range(3)]
        def g():
            return w
        ",
    );
    assert!(chains(&a, "f").is_empty());
    assert_eq!(chains(&a, "g"), ["w"]);
    assert!(
        a.symbols.names.contains_key("w"),
        "module-level walrus in a comprehension binds a global"
    );
}

#[test]
fn class_bodies_do_not_enclose_methods() {
    let a = analyze(
        "
        def outer():
            y = 1
            class C:
                x = 1
                z = x + y
                def m(self):
                    return x, y
            return C
        ",
    );
    assert_eq!(binding(&a, "outer.<locals>.C.m", "x"), Binding::Global);
    assert_eq!(
        binding(&a, "outer.<locals>.C.m", "y"),
        enclosing("outer", TargetType::Variable)
    );
    // `x` is free in the method and not bound in `outer` either: a reference of `outer`.
    assert_eq!(chains(&a, "outer"), ["x"]);
}

#[test]
fn closures_are_enclosing_bindings_and_not_references_of_the_outer_function() {
    let a = analyze(
        "
        def outer(n):
            def helper():
                return z
            total = 0
            def inner():
                return n + total + helper() + z
            return inner
        ",
    );
    let inner = "outer.<locals>.inner";
    assert_eq!(
        binding(&a, inner, "n"),
        enclosing("outer", TargetType::Variable)
    );
    assert_eq!(
        binding(&a, inner, "helper"),
        enclosing("outer", TargetType::Function)
    );
    assert_eq!(binding(&a, inner, "z"), Binding::Global);
    // Free in the nested functions and bound nowhere in `outer`: `z` only.
    assert_eq!(chains(&a, "outer"), ["z"]);
    let z = free(&a, "outer", "z");
    assert_eq!((z.count, z.line), (2, 3));
}

#[test]
fn global_and_nonlocal() {
    let a = analyze(
        "
        counter = 0
        def bump():
            global counter, created
            counter += 1
            created = True
        def reader():
            global counter
            return counter
        def outer():
            n = 0
            def inc():
                nonlocal n
                n += 1
                return n
            return inc
        ",
    );
    let c = free(&a, "bump", "counter");
    assert!(c.is_store && c.binding == Binding::Global);
    assert!(free(&a, "bump", "created").is_store);
    assert!(func(&a, "bump").writes_globals);
    assert!(!free(&a, "reader", "counter").is_store);
    assert!(
        !func(&a, "reader").writes_globals,
        "declares global but only reads it"
    );
    let n = free(&a, "outer.<locals>.inc", "n");
    assert!(n.is_store);
    assert_eq!(n.binding, enclosing("outer", TargetType::Variable));
    assert!(func(&a, "outer.<locals>.inc").writes_globals);
    assert!(chains(&a, "outer").is_empty());
    assert!(
        a.symbols.names.contains_key("created"),
        "a `global` declaration makes a module name"
    );
}

#[test]
fn global_at_module_level_changes_nothing() {
    let a = analyze(
        "
        global x
        x = 1
        def f():
            return x
        ",
    );
    assert!(a.symbols.names.contains_key("x"));
    assert_eq!(binding(&a, "f", "x"), Binding::Global);
}

#[test]
fn lambdas_and_nested_functions_contribute_their_free_names() {
    let a = analyze(
        "
        def f(a):
            g = lambda q, r=default: q + a + b
            return [lambda: i for i in range(3)]
        ",
    );
    assert_eq!(chains(&a, "f"), ["b", "default", "range"]);
}

#[test]
fn decorators_annotations_and_defaults_are_references() {
    let a = analyze(
        "
        @register(name)
        def f(a: Ann = fallback, *, cb=lambda v: v + w) -> Ret:
            return a
        ",
    );
    assert_eq!(
        chains(&a, "f"),
        ["Ann", "Ret", "fallback", "name", "register", "w"]
    );
    assert!(free(&a, "f", "register").is_call);
    assert_eq!(free(&a, "f", "register").line, 1);
}

#[test]
fn method_decorators_see_the_class_body() {
    let a = analyze(
        "
        class C:
            @property
            def v(self):
                return self._v
            @v.setter
            def v(self, x):
                self._v = x
        ",
    );
    let setter = &a.functions[1];
    assert_eq!(setter.qualname, "C.v");
    let names: Vec<_> = setter
        .free_names
        .iter()
        .map(|n| (n.chain.as_str(), n.binding.clone()))
        .collect();
    assert_eq!(names, [("v.setter", enclosing("C", TargetType::Function))]);
    assert_eq!(chains(&a, "C.v"), ["property"]);
}

#[test]
fn an_import_in_an_enclosing_function_is_kept_as_an_import() {
    let a = analyze(
        "
        def outer():
            import json
            def inner():
                return json.dumps({})
            return inner
        ",
    );
    assert_eq!(
        binding(&a, "outer.<locals>.inner", "json.dumps"),
        Binding::EnclosingImport(ImportTarget::Dotted("json".into()))
    );
}

#[test]
fn chains_counts_calls_and_lines() {
    let a = analyze(
        "
        def f(x):
            os.path.join(x)
            os.path.join(x, 1)
            y = os.getcwd
            z = a.b().c
            w = s[0].t.u
            return os.path.join
        ",
    );
    assert_eq!(chains(&a, "f"), ["a.b", "os.getcwd", "os.path.join", "s"]);
    let j = free(&a, "f", "os.path.join");
    assert_eq!(
        (j.count, j.line, j.is_call, j.name.as_str()),
        (3, 2, true, "os")
    );
    assert!(!free(&a, "f", "os.getcwd").is_call);
    assert!(free(&a, "f", "a.b").is_call);
}

#[test]
fn chains_with_whitespace_are_normalised() {
    let a = analyze(
        "
        def f():
            return (os
                    .path . join)
        ",
    );
    assert_eq!(chains(&a, "f"), ["os.path.join"]);
}

#[test]
fn match_value_patterns_are_reads_and_captures_are_local() {
    let a = analyze(
        "
        def f(cmd):
            match cmd:
                case Point(x=px, y=0): return px
                case Color.RED: return None
                case [first, *_]: return first
                case {Key.A: val}: return val
                case other: return other
        ",
    );
    assert_eq!(chains(&a, "f"), ["Color.RED", "Key.A", "Point"]);
}

#[test]
fn class_scope_header_uses_and_module_level_code_are_not_function_references() {
    let a = analyze(
        "
        import os
        x = os.getcwd()
        class C(Base):
            y = helper()
            def m(self):
                return self.y
        ",
    );
    assert!(chains(&a, "C.m").is_empty());
}

#[test]
fn a_deeply_nested_expression_does_not_overflow_the_stack() {
    let depth = 20_000;
    let src = format!(
        "def f():\n    return {}x{}\n\ndef g():\n    return {}\n",
        "(".repeat(depth),
        ")".repeat(depth),
        vec!["y"; depth].join(" + ")
    );
    // Run on a thread with a small stack: the walk must not recurse per level.
    let a = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || crate::analyze_file(&src, "m", false).unwrap())
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(chains(&a, "f"), ["x"]);
    assert_eq!(free(&a, "g", "y").count, depth as u32);
}
