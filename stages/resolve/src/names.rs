//! The names Python knows without an import: Python 3.11's `dir(builtins)`, the module
//! dunders every module has, and `sys.stdlib_module_names`. The lists were generated once
//! with python3.11 (`src/data/*.txt`, one name a line) and are embedded at build time.

use std::collections::HashSet;
use std::sync::OnceLock;

static BUILTINS_TXT: &str = include_str!("data/builtins.txt");
static STDLIB_TXT: &str = include_str!("data/stdlib_modules.txt");

/// Names every module has in its global namespace, set by the import system.
pub const MODULE_DUNDERS: [&str; 8] = [
    "__name__",
    "__file__",
    "__doc__",
    "__spec__",
    "__package__",
    "__loader__",
    "__builtins__",
    "__path__",
];

fn set(text: &'static str) -> HashSet<&'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Whether `name` is in Python 3.11's `dir(builtins)`.
pub fn is_builtin(name: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| set(BUILTINS_TXT)).contains(name)
}

/// Whether `name` is one of the module dunders (`__name__`, `__file__`, ...).
pub fn is_module_dunder(name: &str) -> bool {
    MODULE_DUNDERS.contains(&name)
}

/// Whether `name` is one of Python 3.11's keywords (`keyword.kwlist`): never a name, though
/// the parser may leave one as an identifier inside a syntax error.
pub fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "False"
            | "None"
            | "True"
            | "and"
            | "as"
            | "assert"
            | "async"
            | "await"
            | "break"
            | "class"
            | "continue"
            | "def"
            | "del"
            | "elif"
            | "else"
            | "except"
            | "finally"
            | "for"
            | "from"
            | "global"
            | "if"
            | "import"
            | "in"
            | "is"
            | "lambda"
            | "nonlocal"
            | "not"
            | "or"
            | "pass"
            | "raise"
            | "return"
            | "try"
            | "while"
            | "with"
            | "yield"
    )
}

/// Whether `top` (a top-level module name) is in Python 3.11's `sys.stdlib_module_names`.
pub fn is_stdlib(top: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| set(STDLIB_TXT)).contains(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_hold_what_python_311_has() {
        for b in [
            "len",
            "print",
            "ValueError",
            "__import__",
            "ExceptionGroup",
            "aiter",
        ] {
            assert!(is_builtin(b), "{b}");
        }
        assert!(!is_builtin("os"));
        for m in [
            "os",
            "sys",
            "json",
            "__future__",
            "tomllib",
            "asyncio",
            "_thread",
        ] {
            assert!(is_stdlib(m), "{m}");
        }
        assert!(!is_stdlib("numpy"));
        assert!(!is_stdlib("os.path"), "only top-level names are listed");
        assert!(is_module_dunder("__file__") && !is_module_dunder("__all__"));
        assert!(
            is_keyword("def") && is_keyword("None") && !is_keyword("match") && !is_keyword("print")
        );
    }
}
