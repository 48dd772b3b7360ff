use schemas::{Function, Param, Reference};

use super::{classify, Class};
use crate::config::Config;

fn func(name: &str) -> Function {
    Function {
        function_id: format!("id-{name}"),
        repo_id: "r".into(),
        path: "m.py".into(),
        module: "pkg.m".into(),
        qualname: name.into(),
        name: name.into(),
        class_name: None,
        is_method: false,
        is_nested: false,
        is_async: false,
        is_generator: false,
        returns_value: true,
        writes_globals: false,
        start_byte: 0,
        end_byte: 10,
        start_line: 1,
        end_line: 5,
        params: vec![param("x", Some("int"))],
        returns: Some("int".into()),
        decorators: vec![],
        docstring: Some("Doc.".into()),
        source: String::new(),
        lines: 5,
        complexity: 2,
        has_syntax_error: false,
        code_hash: String::new(),
        code_date: None,
        code_date_source: None,
        first_seen: None,
        after_cutoff: None,
    }
}

fn param(name: &str, ann: Option<&str>) -> Param {
    Param {
        name: name.into(),
        kind: schemas::ParamKind::PositionalOrKeyword,
        annotation: ann.map(Into::into),
        default: None,
    }
}

fn reference(kind: &str, chain: &str, target: &str) -> Reference {
    Reference {
        function_id: "id".into(),
        repo_id: "r".into(),
        name: chain.split('.').next().unwrap().into(),
        chain: chain.into(),
        kind: kind.parse().expect("a reference kind"),
        target_module: Some(target.split('.').next().unwrap().into()),
        target: Some(target.into()),
        target_path: None,
        target_type: None,
        is_call: true,
        is_store: false,
        count: 1,
        line: 2,
        reason: None,
    }
}

fn verdict(f: &Function, refs: &[Reference]) -> super::Verdict {
    let refs: Vec<&Reference> = refs.iter().collect();
    classify(&Config::builtin(), f, &refs)
}

#[test]
fn builtins_only_is_self_contained() {
    let v = verdict(&func("f"), &[reference("builtin", "len", "builtins.len")]);
    assert_eq!(v.class, Class::SelfContained, "{v:?}");
    assert!(v.reasons.is_empty());
}

#[test]
fn allowed_library_is_weakly_self_contained() {
    let v = verdict(
        &func("f"),
        &[
            reference("stdlib", "math.sqrt", "math.sqrt"),
            reference("third_party", "np.array", "numpy.array"),
        ],
    );
    assert_eq!(v.class, Class::WeaklySelfContained);
    assert_eq!(v.libraries, vec!["math", "numpy"]);
}

#[test]
fn internal_use_is_repo_dependent_even_with_other_reasons() {
    let v = verdict(
        &func("f"),
        &[
            reference("internal", "helper", "pkg.util.helper"),
            reference("builtin", "print", "builtins.print"),
        ],
    );
    assert_eq!(v.class, Class::RepoDependent);
    assert_eq!(v.internal_deps, vec!["pkg.util.helper"]);
    assert_eq!(v.reasons, vec!["side_effect:io:builtins.print"]);
}

#[test]
fn more_specific_allowed_prefix_beats_effect() {
    let v = verdict(
        &func("f"),
        &[reference("stdlib", "os.path.join", "os.path.join")],
    );
    assert_eq!(v.class, Class::WeaklySelfContained, "{v:?}");
    let v = verdict(
        &func("f"),
        &[reference("stdlib", "os.environ", "os.environ")],
    );
    assert_eq!(v.reasons, vec!["side_effect:environment:os.environ"]);
    let v = verdict(
        &func("f"),
        &[reference(
            "stdlib",
            "datetime.datetime.now",
            "datetime.datetime.now",
        )],
    );
    assert_eq!(v.reasons, vec!["clock:datetime.datetime.now"]);
    let v = verdict(
        &func("f"),
        &[reference(
            "stdlib",
            "datetime.datetime.strptime",
            "datetime.datetime.strptime",
        )],
    );
    assert_eq!(v.class, Class::WeaklySelfContained);
}

#[test]
fn every_reason_is_listed() {
    let mut f = func("f");
    f.params.clear();
    f.returns_value = false;
    f.decorators = vec![
        "retry(times=3)".into(),
        "functools.lru_cache(maxsize=None)".into(),
    ];
    f.lines = 2;
    let v = verdict(
        &f,
        &[
            reference("stdlib", "random.random", "random.random"),
            reference("unresolved", "ghost", "ghost"),
        ],
    );
    assert_eq!(v.class, Class::Rejected);
    assert_eq!(
        v.reasons,
        vec![
            "no_return_value",
            "no_parameters",
            "decorator:retry",
            "too_short:2",
            "randomness:random.random",
            "unresolved:ghost"
        ]
    );
}

#[test]
fn generators_coroutines_methods_and_nested() {
    let mut f = func("f");
    f.is_generator = true;
    f.returns_value = false;
    assert_eq!(verdict(&f, &[]).reasons, vec!["generator"]);
    let mut f = func("f");
    f.is_async = true;
    assert_eq!(verdict(&f, &[]).reasons, vec!["coroutine"]);
    let mut f = func("C.m");
    f.is_method = true;
    f.params.insert(0, param("self", None));
    assert_eq!(verdict(&f, &[]).reasons, vec!["method"]);
    f.decorators = vec!["staticmethod".into()];
    f.params.remove(0);
    assert_eq!(verdict(&f, &[]).class, Class::SelfContained);
}

#[test]
fn ungeneratable_parameter_types() {
    let mut f = func("f");
    f.params = vec![
        param("a", Some("Optional[list[int]]")),
        param("b", Some("\"Account\"")),
        param("c", Some("Callable[[int], int]")),
    ];
    let v = verdict(&f, &[]);
    assert_eq!(
        v.reasons,
        vec![
            "ungeneratable_param:b:Account",
            "ungeneratable_param:c:Callable"
        ]
    );
}

#[test]
fn library_not_allowed_and_global_writes() {
    let v = verdict(
        &func("f"),
        &[reference(
            "stdlib",
            "inspect.signature",
            "inspect.signature",
        )],
    );
    assert_eq!(v.reasons, vec!["library_not_allowed:inspect"]);
    let mut r = reference("internal", "COUNTER", "pkg.m.COUNTER");
    r.is_store = true;
    let v = verdict(&func("f"), &[r]);
    assert_eq!(v.class, Class::RepoDependent);
    assert_eq!(v.reasons, vec!["side_effect:writes_globals:COUNTER"]);
}

#[test]
fn closure_variables_are_not_repository_code() {
    let mut f = func("outer.<locals>.inner");
    f.is_nested = true;
    let v = verdict(&f, &[reference("internal", "count", "pkg.m.outer.count")]);
    assert_eq!(v.class, Class::Rejected);
    assert_eq!(v.reasons, vec!["nested"]);
}

/// Regression: the values of `Literal["left", "right"]` were read as type names and
/// rejected the function as ungeneratable.
#[test]
fn literal_values_are_not_type_names() {
    let mut f = func("f");
    f.params = vec![
        param("a", Some("Literal['left', \"right\"]")),
        param("b", Some("'Optional[int]'")),
        param("c", Some("object")),
    ];
    let v = verdict(&f, &[]);
    assert_eq!(v.class, Class::SelfContained, "{v:?}");
}

/// Regression: a closure variable of a grand-parent function made a nested function
/// repo-dependent.
#[test]
fn closure_variables_of_any_enclosing_function() {
    let mut f = func("retry.<locals>.decorate.<locals>.wrapper");
    f.is_nested = true;
    let refs = [
        reference("internal", "times", "pkg.m.retry.times"),
        reference("internal", "func", "pkg.m.retry.<locals>.decorate.func"),
    ];
    let v = verdict(&f, &refs);
    assert_eq!(
        (v.class, v.internal_deps.len()),
        (Class::Rejected, 0),
        "{v:?}"
    );
    let v = verdict(&f, &[reference("internal", "helper", "pkg.m.helper")]);
    assert_eq!(v.class, Class::RepoDependent);
}
