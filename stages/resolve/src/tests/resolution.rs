//! Repository-level resolution: imports of every form, re-exports, star imports.

use super::resolve_in;
use crate::{resolve_repo, RefKind, Resolution, TargetType};

fn check(r: &Resolution, kind: RefKind, target: Option<&str>, module: Option<&str>) {
    assert_eq!(r.kind, kind, "{r:?}");
    assert_eq!(r.target.as_deref(), target, "{r:?}");
    assert_eq!(r.target_module.as_deref(), module, "{r:?}");
}

fn internal(r: &Resolution, target: &str, module: &str, path: &str, ty: TargetType) {
    check(r, RefKind::Internal, Some(target), Some(module));
    assert_eq!(r.target_path.as_deref(), Some(path), "{r:?}");
    assert_eq!(r.target_type, Some(ty), "{r:?}");
    assert!(r.reason.is_none());
}

const USES: &str = "
    import os
    import numpy as np
    import xml.etree.ElementTree as ET
    import a.b.c
    from collections import OrderedDict as OD
    from os.path import *
    try:
        import simplejson as json
    except ImportError:
        import json
    from typing import TYPE_CHECKING
    if TYPE_CHECKING:
        from pandas import DataFrame
    LIMIT = 3
    def local_fn(): pass
    class Local: pass
    def user():
        os.path.join(np.array(ET.parse(OD())), a.b.c.d())
        json.loads(DataFrame, LIMIT, local_fn, Local.attr, len(__file__), undefined_thing, join)
";

fn uses(chain: &str) -> Resolution {
    resolve_in(&[("mod.py", USES)], "mod.py", "user", chain)
}

#[test]
fn external_imports_resolve_by_their_top_level_package() {
    check(
        &uses("os.path.join"),
        RefKind::Stdlib,
        Some("os.path.join"),
        Some("os"),
    );
    check(
        &uses("np.array"),
        RefKind::ThirdParty,
        Some("numpy.array"),
        Some("numpy"),
    );
    check(
        &uses("ET.parse"),
        RefKind::Stdlib,
        Some("xml.etree.ElementTree.parse"),
        Some("xml"),
    );
    check(
        &uses("a.b.c.d"),
        RefKind::ThirdParty,
        Some("a.b.c.d"),
        Some("a"),
    );
    check(
        &uses("OD"),
        RefKind::Stdlib,
        Some("collections.OrderedDict"),
        Some("collections"),
    );
    // The first binding wins: the `try` branch.
    check(
        &uses("json.loads"),
        RefKind::ThirdParty,
        Some("simplejson.loads"),
        Some("simplejson"),
    );
    check(
        &uses("DataFrame"),
        RefKind::ThirdParty,
        Some("pandas.DataFrame"),
        Some("pandas"),
    );
    // Not defined in the module: the star import of an external module provides it.
    check(
        &uses("join"),
        RefKind::Stdlib,
        Some("os.path.join"),
        Some("os"),
    );
}

#[test]
fn module_globals_builtins_and_unresolved() {
    internal(
        &uses("LIMIT"),
        "mod.LIMIT",
        "mod",
        "mod.py",
        TargetType::Variable,
    );
    internal(
        &uses("local_fn"),
        "mod.local_fn",
        "mod",
        "mod.py",
        TargetType::Function,
    );
    internal(
        &uses("Local.attr"),
        "mod.Local.attr",
        "mod",
        "mod.py",
        TargetType::Class,
    );
    check(&uses("len"), RefKind::Builtin, Some("builtins.len"), None);
    check(&uses("__file__"), RefKind::Builtin, Some("__file__"), None);
    // With `from os.path import *` in the module, an unknown name may come from there.
    check(
        &uses("undefined_thing"),
        RefKind::Stdlib,
        Some("os.path.undefined_thing"),
        Some("os"),
    );
    let u = resolve_in(
        &[("m.py", "import os\ndef f():\n    return undefined_thing\n")],
        "m.py",
        "f",
        "undefined_thing",
    );
    check(&u, RefKind::Unresolved, None, None);
    assert!(u
        .reason
        .unwrap()
        .contains("`undefined_thing` is not defined in module `m`"));
}

const LEDGER: &[(&str, &str)] = &[
    ("src/ledger/__init__.py", "from .accounts import Account\nfrom .api import *\n"),
    ("src/ledger/accounts.py", "class Account:\n    def deposit(self, n): pass\n"),
    ("src/ledger/util.py", "def helper(): pass\n_hidden = 1\n"),
    ("src/ledger/api.py", "__all__ = ['open_account']\ndef open_account(): pass\ndef internal_only(): pass\n"),
    ("src/ledger/sub/__init__.py", "from .deep import *\n"),
    (
        "src/ledger/sub/deep.py",
        "from ..util import *\nfrom ...beyond import x\nfrom ..accounts import Account as A\nfrom .. import util\n\
         def deep_fn(): pass\ndef uses():\n    return A.deposit, util._hidden\n",
    ),
    (
        "src/ledger/service.py",
        "
        from .accounts import Account
        from . import util
        from .sub import deep_fn, helper
        from ledger import open_account, internal_only
        from .sub.deep import x
        import ledger.util
        import ledger as L
        from .util import _hidden
        def serve():
            Account.deposit(util.helper(), deep_fn, helper, open_account, internal_only, x)
            ledger.util.helper(L.Account, L.sub.deep.deep_fn, _hidden)
        ",
    ),
];

fn ledger(chain: &str) -> Resolution {
    resolve_in(LEDGER, "src/ledger/service.py", "serve", chain)
}

#[test]
fn relative_imports_and_internal_definitions() {
    internal(
        &ledger("Account.deposit"),
        "ledger.accounts.Account.deposit",
        "ledger.accounts",
        "src/ledger/accounts.py",
        TargetType::Class,
    );
    internal(
        &ledger("util.helper"),
        "ledger.util.helper",
        "ledger.util",
        "src/ledger/util.py",
        TargetType::Function,
    );
    internal(
        &ledger("ledger.util.helper"),
        "ledger.util.helper",
        "ledger.util",
        "src/ledger/util.py",
        TargetType::Function,
    );
    internal(
        &ledger("_hidden"),
        "ledger.util._hidden",
        "ledger.util",
        "src/ledger/util.py",
        TargetType::Variable,
    );
}

#[test]
fn relative_imports_climb_packages() {
    let r = resolve_in(LEDGER, "src/ledger/sub/deep.py", "uses", "A.deposit");
    internal(
        &r,
        "ledger.accounts.Account.deposit",
        "ledger.accounts",
        "src/ledger/accounts.py",
        TargetType::Class,
    );
    let r = resolve_in(LEDGER, "src/ledger/sub/deep.py", "uses", "util._hidden");
    internal(
        &r,
        "ledger.util._hidden",
        "ledger.util",
        "src/ledger/util.py",
        TargetType::Variable,
    );
}

#[test]
fn an_unknown_name_falls_back_to_an_external_star_import_passed_on_by_an_internal_one() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/compat.py", "from numpy import *\n"),
        (
            "pkg/use.py",
            "from .compat import *\ndef f():\n    return array([1]), len([])\n",
        ),
    ];
    check(
        &resolve_in(&files, "pkg/use.py", "f", "array"),
        RefKind::ThirdParty,
        Some("numpy.array"),
        Some("numpy"),
    );
    check(
        &resolve_in(&files, "pkg/use.py", "f", "len"),
        RefKind::Builtin,
        Some("builtins.len"),
        None,
    );
}

#[test]
fn re_exports_through_packages_and_star_imports() {
    // `from .sub import deep_fn`: sub/__init__ star-imports deep, which defines it.
    internal(
        &ledger("deep_fn"),
        "ledger.sub.deep.deep_fn",
        "ledger.sub.deep",
        "src/ledger/sub/deep.py",
        TargetType::Function,
    );
    // A chain of star imports: sub/__init__ <- deep <- util.
    internal(
        &ledger("helper"),
        "ledger.util.helper",
        "ledger.util",
        "src/ledger/util.py",
        TargetType::Function,
    );
    // `__all__` lets `open_account` through the package's star import ...
    internal(
        &ledger("open_account"),
        "ledger.api.open_account",
        "ledger.api",
        "src/ledger/api.py",
        TargetType::Function,
    );
    // ... but not `internal_only`.
    let r = ledger("internal_only");
    check(&r, RefKind::Unresolved, None, None);
    assert!(r.reason.unwrap().contains("internal_only"));
    // Through a module alias and a chain of packages.
    internal(
        &ledger("L.Account"),
        "ledger.accounts.Account",
        "ledger.accounts",
        "src/ledger/accounts.py",
        TargetType::Class,
    );
    internal(
        &ledger("L.sub.deep.deep_fn"),
        "ledger.sub.deep.deep_fn",
        "ledger.sub.deep",
        "src/ledger/sub/deep.py",
        TargetType::Function,
    );
}

#[test]
fn a_relative_import_beyond_the_top_level_package_is_unresolved() {
    let r = ledger("x");
    check(&r, RefKind::Unresolved, None, None);
    assert!(
        r.reason.unwrap().contains("climbs above"),
        "reason names the problem"
    );
}

#[test]
fn submodules_are_modules() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/sub.py", "def f(): pass\n"),
        (
            "main.py",
            "from pkg import sub\nimport pkg\ndef g():\n    return sub, pkg\n",
        ),
    ];
    internal(
        &resolve_in(&files, "main.py", "g", "sub"),
        "pkg.sub",
        "pkg.sub",
        "pkg/sub.py",
        TargetType::Module,
    );
    internal(
        &resolve_in(&files, "main.py", "g", "pkg"),
        "pkg",
        "pkg",
        "pkg/__init__.py",
        TargetType::Module,
    );
}

#[test]
fn import_cycles_stop_with_a_reason() {
    let files = [
        ("a.py", "from b import x\n"),
        ("b.py", "from a import x\n"),
        ("c.py", "from a import x\ndef f():\n    return x\n"),
    ];
    let r = resolve_in(&files, "c.py", "f", "x");
    check(&r, RefKind::Unresolved, None, None);
    assert!(r.reason.unwrap().contains("hops"));
}

#[test]
fn star_imports_without_all_export_public_names_only() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/impl.py", "def public(): pass\ndef _private(): pass\n"),
        (
            "pkg/use.py",
            "from .impl import *\ndef f():\n    return public(), _private()\n",
        ),
    ];
    internal(
        &resolve_in(&files, "pkg/use.py", "f", "public"),
        "pkg.impl.public",
        "pkg.impl",
        "pkg/impl.py",
        TargetType::Function,
    );
    check(
        &resolve_in(&files, "pkg/use.py", "f", "_private"),
        RefKind::Unresolved,
        None,
        None,
    );
}

#[test]
fn closures_resolve_to_the_enclosing_function() {
    let files = [(
        "pkg/mod.py",
        "def outer():\n    cfg = {}\n    def inner():\n        return cfg.get\n    return inner\n",
    )];
    let r = resolve_in(&files, "pkg/mod.py", "outer.<locals>.inner", "cfg.get");
    internal(
        &r,
        "pkg.mod.outer.cfg.get",
        "pkg.mod",
        "pkg/mod.py",
        TargetType::Variable,
    );
}

#[test]
fn an_import_inside_the_enclosing_function_resolves_through_it() {
    let files = [("m.py", "def outer():\n    import json\n    def inner():\n        return json.dumps\n    return inner\n")];
    let r = resolve_in(&files, "m.py", "outer.<locals>.inner", "json.dumps");
    check(&r, RefKind::Stdlib, Some("json.dumps"), Some("json"));
}

#[test]
fn a_repository_module_named_like_a_stdlib_module_is_internal_only_when_it_exists() {
    // `code` is a standard library module; this repository has a `code` package too.
    let files = [
        ("code/__init__.py", ""),
        ("code/helpers.py", "def make(): pass\n"),
        ("code/test_x.py", "from code.helpers import make\nfrom code import interact\ndef t():\n    return make, interact\n"),
    ];
    internal(
        &resolve_in(&files, "code/test_x.py", "t", "make"),
        "code.helpers.make",
        "code.helpers",
        "code/helpers.py",
        TargetType::Function,
    );
    check(
        &resolve_in(&files, "code/test_x.py", "t", "interact"),
        RefKind::Stdlib,
        Some("code.interact"),
        Some("code"),
    );
}

#[test]
fn a_script_imports_a_module_next_to_it() {
    let files = [
        ("tests/helpers.py", "def make(): pass\n"),
        (
            "tests/test_x.py",
            "import helpers\ndef t():\n    return helpers.make()\n",
        ),
    ];
    internal(
        &resolve_in(&files, "tests/test_x.py", "t", "helpers.make"),
        "tests.helpers.make",
        "tests.helpers",
        "tests/helpers.py",
        TargetType::Function,
    );
}

#[test]
fn resolve_repo_returns_one_resolution_per_free_name() {
    let out = resolve_repo(&[("m.py", "import os\ndef f():\n    return os.sep, len\n")]).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].analysis.module, "m");
    assert_eq!(
        out[0].resolutions,
        vec![vec![
            Resolution {
                kind: RefKind::Builtin,
                target_module: None,
                target: Some("builtins.len".into()),
                target_path: None,
                target_type: None,
                reason: None
            },
            Resolution {
                kind: RefKind::Stdlib,
                target_module: Some("os".into()),
                target: Some("os.sep".into()),
                target_path: None,
                target_type: None,
                reason: None
            },
        ]]
    );
}
