//! The [`Mutant`] type, the [`Operator`]s that make mutants, and mutant ids.

use std::fmt;
use std::str::FromStr;

/// One mutant: the input source with one span replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    /// Stable and unique within one call: `operator:start-end:hash`, where the hash is a
    /// 64-bit FNV-1a of the replacement text (the same on every run and platform).
    pub id: String,
    pub operator: Operator,
    /// The replaced span of the *original* source, in bytes.
    pub start_byte: usize,
    pub end_byte: usize,
    /// 1-based line of `start_byte` in the original source.
    pub line: usize,
    /// The original text of the span.
    pub original: String,
    /// The text put in its place.
    pub replacement: String,
    /// The whole mutated source (the function or file that was passed in).
    pub source: String,
}

/// A kind of mutation. The order of the variants is the order of mutants that start at the
/// same byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    /// `+`↔`-`, `*`↔`/`, `/`↔`//`, `%`→`*`, `**`→`*`, the augmented assignments likewise,
    /// unary minus removed.
    Arithmetic,
    /// `<`↔`<=`, `>`↔`>=`, `==`↔`!=`, `in`↔`not in`, `is`↔`is not`.
    Comparison,
    /// `and`↔`or`, `not x`→`x`, `True`↔`False`.
    Boolean,
    /// Integer literals moved by one (`0`→`1`), string literals emptied (docstrings never).
    Constant,
    /// `return x` → `return None`.
    Return,
    /// An expression statement or assignment replaced by `pass` (never the only statement
    /// of its block, never a docstring).
    StatementDeletion,
    /// Each present bound `b` of a slice `a[b:c]` → `b + 1` and `b - 1` (parenthesized
    /// when `b` is not an atom). The step is no bound and is left alone.
    SliceBound,
    /// `if c:` → `if not (c):`, likewise `elif` and `while`.
    Negation,
}

impl Operator {
    /// Every operator, in order.
    pub const ALL: [Operator; 8] = [
        Operator::Arithmetic,
        Operator::Comparison,
        Operator::Boolean,
        Operator::Constant,
        Operator::Return,
        Operator::StatementDeletion,
        Operator::SliceBound,
        Operator::Negation,
    ];

    /// The operator's name in ids and tables (`snake_case`).
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Arithmetic => "arithmetic",
            Operator::Comparison => "comparison",
            Operator::Boolean => "boolean",
            Operator::Constant => "constant",
            Operator::Return => "return",
            Operator::StatementDeletion => "statement_deletion",
            Operator::SliceBound => "slice_bound",
            Operator::Negation => "negation",
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An operator name that is none of [`Operator::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mutation operator `{0}`; expected one of arithmetic, comparison, boolean, constant, return, statement_deletion, slice_bound, negation")]
pub struct UnknownOperator(pub String);

impl FromStr for Operator {
    type Err = UnknownOperator;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Operator::ALL
            .into_iter()
            .find(|op| op.as_str() == s)
            .ok_or_else(|| UnknownOperator(s.to_string()))
    }
}

/// The id of a mutant: readable operator and span, plus a hash of the replacement.
pub(crate) fn mutant_id(operator: Operator, start: usize, end: usize, replacement: &str) -> String {
    format!(
        "{operator}:{start}-{end}:{:016x}",
        fnv1a(replacement.as_bytes())
    )
}

/// 64-bit FNV-1a: tiny, and unlike `std`'s hasher the same on every run.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_names_round_trip() {
        for op in Operator::ALL {
            assert_eq!(op.as_str().parse::<Operator>(), Ok(op));
        }
        assert!("swap".parse::<Operator>().is_err());
    }

    #[test]
    fn ids_are_fixed_values() {
        // Stability across runs and builds: the id of a given edit never changes.
        assert_eq!(
            mutant_id(Operator::Arithmetic, 3, 4, "-"),
            format!("arithmetic:3-4:{:016x}", fnv1a(b"-"))
        );
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
