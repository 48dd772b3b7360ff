//! Module names from file paths, and relative imports resolved against a module.

/// The dotted module name of a repository file and whether it is a package `__init__`:
/// `.py` stripped, `/` turned into `.`, `pkg/__init__.py` named `pkg`, and a leading
/// `src/` folder (the src layout) stripped.
pub fn module_name(path: &str) -> (String, bool) {
    let path = path.strip_prefix("./").unwrap_or(path);
    let path = path.strip_prefix("src/").unwrap_or(path);
    let stem = path
        .strip_suffix(".py")
        .or_else(|| path.strip_suffix(".pyi"))
        .unwrap_or(path);
    match stem.strip_suffix("/__init__") {
        Some(pkg) => (pkg.replace('/', "."), true),
        None => (stem.replace('/', "."), false),
    }
}

/// The absolute module a relative import names: `level` leading dots and the dotted
/// `rest` after them (`from ..pkg.mod import f` is level 2, rest `pkg.mod`), seen from
/// `module` (a package `__init__` counts as its own package). Errs with the reason when
/// the dots climb above the top-level package.
pub fn resolve_relative(
    module: &str,
    is_package: bool,
    level: usize,
    rest: Option<&str>,
) -> Result<String, ClimbsAbove> {
    let mut package: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split('.').collect()
    };
    if !is_package {
        package.pop();
    }
    if level == 0 || level > package.len() {
        return Err(ClimbsAbove {
            import: format!("{}{}", ".".repeat(level), rest.unwrap_or("")),
            module: module.to_string(),
        });
    }
    package.truncate(package.len() + 1 - level);
    let mut out = package.join(".");
    if let Some(r) = rest.filter(|r| !r.is_empty()) {
        out.push('.');
        out.push_str(r);
    }
    Ok(out)
}

/// A relative import whose dots climb above the top-level package (the code is wrong, or
/// not where its author ran it from).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("relative import `from {import}` climbs above the top-level package of `{module}`")]
pub struct ClimbsAbove {
    pub import: String,
    pub module: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_paths() {
        assert_eq!(module_name("pkg/sub/mod.py"), ("pkg.sub.mod".into(), false));
        assert_eq!(module_name("pkg/__init__.py"), ("pkg".into(), true));
        assert_eq!(module_name("src/pkg/__init__.py"), ("pkg".into(), true));
        assert_eq!(module_name("src/pkg/util.py"), ("pkg.util".into(), false));
        assert_eq!(module_name("setup.py"), ("setup".into(), false));
        assert_eq!(
            module_name("tests/test_a.py"),
            ("tests.test_a".into(), false)
        );
    }

    #[test]
    fn relative_imports() {
        assert_eq!(
            resolve_relative("pkg.mod", false, 1, Some("util")).unwrap(),
            "pkg.util"
        );
        assert_eq!(resolve_relative("pkg.mod", false, 1, None).unwrap(), "pkg");
        assert_eq!(
            resolve_relative("pkg", true, 1, Some("impl")).unwrap(),
            "pkg.impl"
        );
        assert_eq!(
            resolve_relative("pkg.sub", true, 2, Some("x.y")).unwrap(),
            "pkg.x.y"
        );
        assert_eq!(
            resolve_relative("pkg.sub.mod", false, 2, Some("other")).unwrap(),
            "pkg.other"
        );
        assert!(resolve_relative("pkg.mod", false, 2, Some("x")).is_err());
        assert!(resolve_relative("mod", false, 1, Some("x")).is_err());
        assert!(resolve_relative("pkg", true, 2, None)
            .unwrap_err()
            .to_string()
            .contains("climbs above"));
    }
}
