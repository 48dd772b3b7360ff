//! SPDX license expressions: the one reader of them, shared by `crawl` (which normalises
//! what a project declares) and `publish` (which judges it against an allow-list).
//!
//! The grammar is SPDX's (annex D of the specification): ids made of letters, digits, `-`
//! and `.`, with `+` for "or any later version", `DocumentRef-X:LicenseRef-Y` references,
//! `WITH` binding an exception to one id (never to a parenthesized expression), `AND`
//! binding tighter than `OR`, parentheses to group, operators in any case.

use std::fmt;

/// A parsed SPDX license expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// A license id as written (`MIT`, `GPL-2.0+`, `LicenseRef-Foo`).
    Id(String),
    /// `license WITH exception`.
    With(String, String),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn side(e: &Expr, f: &mut fmt::Formatter<'_>, parent_and: bool) -> fmt::Result {
            match e {
                Expr::Or(..) if parent_and => write!(f, "({e})"),
                _ => write!(f, "{e}"),
            }
        }
        match self {
            Expr::Id(id) => f.write_str(id),
            Expr::With(id, exc) => write!(f, "{id} WITH {exc}"),
            Expr::And(a, b) => {
                side(a, f, true)?;
                f.write_str(" AND ")?;
                side(b, f, true)
            }
            Expr::Or(a, b) => write!(f, "{a} OR {b}"),
        }
    }
}

/// Why an expression could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

fn is_idstring(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// An id token: `idstring`, `idstring+`, or `DocumentRef-idstring:LicenseRef-idstring` (the
/// only form with a `:`).
fn is_id(token: &str) -> bool {
    if let Some((doc, lic)) = token.split_once(':') {
        return doc.strip_prefix("DocumentRef-").is_some_and(is_idstring)
            && lic.strip_prefix("LicenseRef-").is_some_and(is_idstring);
    }
    is_idstring(token.strip_suffix('+').unwrap_or(token))
}

/// Reads an SPDX license expression.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    let spaced = text.replace('(', " ( ").replace(')', " ) ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    if tokens.is_empty() {
        return Err(ParseError("empty license expression".into()));
    }
    let mut p = Parser { tokens, at: 0 };
    let expr = p.or()?;
    if let Some(t) = p.peek() {
        return Err(ParseError(format!("unexpected `{t}` in `{}`", text.trim())));
    }
    Ok(expr)
}

struct Parser<'a> {
    tokens: Vec<&'a str>,
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.at).copied()
    }

    fn keyword(&mut self, word: &str) -> bool {
        if self.peek().is_some_and(|t| t.eq_ignore_ascii_case(word)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.and()?;
        while self.keyword("OR") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.with()?;
        while self.keyword("AND") {
            left = Expr::And(Box::new(left), Box::new(self.with()?));
        }
        Ok(left)
    }

    fn with(&mut self) -> Result<Expr, ParseError> {
        if self.peek() == Some("(") {
            self.at += 1;
            let inner = self.or()?;
            if self.peek() != Some(")") {
                return Err(ParseError("a `(` is not closed".into()));
            }
            self.at += 1;
            return Ok(inner);
        }
        let id = self.id("a license id")?;
        if self.keyword("WITH") {
            let exception = self.id("an exception id after WITH")?;
            return Ok(Expr::With(id, exception));
        }
        Ok(Expr::Id(id))
    }

    fn id(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(t)
                if is_id(t)
                    && !["AND", "OR", "WITH"]
                        .iter()
                        .any(|k| t.eq_ignore_ascii_case(k)) =>
            {
                self.at += 1;
                Ok(t.to_string())
            }
            Some(t) => Err(ParseError(format!("expected {what}, found `{t}`"))),
            None => Err(ParseError(format!("expected {what} at the end"))),
        }
    }
}

impl Expr {
    /// The same expression with every license id (not exception ids) mapped by `f`.
    #[must_use]
    pub fn map_ids(self, f: &impl Fn(String) -> String) -> Expr {
        match self {
            Expr::Id(id) => Expr::Id(f(id)),
            Expr::With(id, exc) => Expr::With(f(id), exc),
            Expr::And(a, b) => Expr::And(Box::new(a.map_ids(f)), Box::new(b.map_ids(f))),
            Expr::Or(a, b) => Expr::Or(Box::new(a.map_ids(f)), Box::new(b.map_ids(f))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_display() {
        let e = parse("mit or apache-2.0 and (bsd-3-clause or isc)").unwrap();
        assert_eq!(e.to_string(), "mit OR apache-2.0 AND (bsd-3-clause OR isc)");
        assert!(matches!(e, Expr::Or(..)));
        assert_eq!(
            parse("GPL-2.0-or-later WITH Classpath-exception-2.0").unwrap(),
            Expr::With("GPL-2.0-or-later".into(), "Classpath-exception-2.0".into())
        );
    }

    /// Regression: crawl took `:` nowhere and publish took it anywhere; SPDX allows it only
    /// in `DocumentRef-X:LicenseRef-Y`. And crawl accepted `WITH` after a parenthesis.
    #[test]
    fn colons_only_in_document_refs_and_with_only_after_an_id() {
        assert!(parse("DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2").is_ok());
        for bad in [
            "MIT:2",
            "a:b",
            "DocumentRef-x:MIT",
            "(MIT AND ISC) WITH LLVM-exception",
            "",
            "MIT OR",
            "(MIT",
            "MIT)",
        ] {
            assert!(parse(bad).is_err(), "{bad} was accepted");
        }
    }
}
