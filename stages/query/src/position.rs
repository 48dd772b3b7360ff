//! Where in the SQL a DataFusion error points: its diagnostic's span (DataFusion attaches
//! one to many planning errors), else the `at Line: L, Column: C` of a parser error, else the
//! first place the token the message names (`table 'x' not found`, `No field named y`)
//! appears in the SQL as a whole word.

use std::fmt;

use datafusion::error::DataFusionError;

/// A place in the SQL text: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// A query that failed: DataFusion's message and, when it can be told, where.
#[derive(Debug, Clone)]
pub struct QueryError {
    /// DataFusion's message.
    pub message: String,
    /// Where in the SQL it points.
    pub position: Option<Position>,
    /// The line of SQL it points into, to show with a caret.
    pub line_text: Option<String>,
}

impl QueryError {
    /// The error `err` raised by `sql`, located in it.
    pub fn new(err: &DataFusionError, sql: &str) -> Self {
        let message = err.to_string();
        let position = from_diagnostic(err)
            .or_else(|| from_parser_message(&message))
            .or_else(|| from_token(&message, sql));
        let line_text = position.and_then(|p| sql.lines().nth(p.line - 1).map(str::to_string));
        Self {
            message,
            position,
            line_text,
        }
    }

    /// The same error with its line counted `lines` further on (a part of a larger file).
    #[must_use]
    pub fn shifted(mut self, lines: usize) -> Self {
        if let Some(p) = &mut self.position {
            p.line += lines;
        }
        self
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(p) = self.position {
            write!(f, "\n  at line {}, column {}", p.line, p.column)?;
            if let Some(text) = &self.line_text {
                let gutter = p.line.to_string();
                let pad = " ".repeat(gutter.len());
                write!(f, ":\n  {gutter} | {text}\n  {pad} | ")?;
                // Keep tabs so the caret lines up under the column it points at.
                for c in text.chars().take(p.column.saturating_sub(1)) {
                    f.write_str(if c == '\t' { "\t" } else { " " })?;
                }
                f.write_str("^")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for QueryError {}

fn from_diagnostic(err: &DataFusionError) -> Option<Position> {
    let diagnostic = err.diagnostic()?;
    let span = diagnostic
        .span
        .or_else(|| diagnostic.notes.iter().find_map(|n| n.span))?;
    let line = usize::try_from(span.start.line).ok()?;
    let column = usize::try_from(span.start.column).ok()?;
    (line > 0 && column > 0).then_some(Position { line, column })
}

/// `... at Line: 3, Column: 14` (sqlparser's wording), the last one in the message.
fn from_parser_message(message: &str) -> Option<Position> {
    let at = message.rfind("Line: ")?;
    let rest = &message[at + "Line: ".len()..];
    let digits = |s: &str| -> Option<(usize, usize)> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        Some((s[..end].parse().ok()?, end))
    };
    let (line, end) = digits(rest)?;
    let rest = rest[end..].strip_prefix(", Column: ")?;
    let (column, _) = digits(rest)?;
    (line > 0 && column > 0).then_some(Position { line, column })
}

/// The tokens a message names: quoted ones (the last part of a dotted name), and the word
/// after `No field named` or `named`.
fn named_tokens(message: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for quote in ['\'', '"', '`'] {
        let mut parts = message.split(quote);
        parts.next();
        while let Some(inside) = parts.next() {
            parts.next();
            let last = inside.rsplit('.').next().unwrap_or(inside);
            let last = last.trim_matches(|c| c == '"' || c == '\'');
            if !last.is_empty() && !last.contains(char::is_whitespace) {
                tokens.push(last.to_string());
            }
        }
    }
    for marker in ["No field named ", "named "] {
        if let Some(at) = message.find(marker) {
            let word: String = message[at + marker.len()..]
                .trim_start_matches(['"', '\''])
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            let word = word.trim_end_matches('.');
            let last = word.rsplit('.').next().unwrap_or(word);
            if !last.is_empty() {
                tokens.push(last.to_string());
            }
        }
    }
    tokens
}

/// The first whole-word, case-insensitive occurrence of a token the message names.
fn from_token(message: &str, sql: &str) -> Option<Position> {
    let lower = sql.to_ascii_lowercase();
    for token in named_tokens(message) {
        let token = token.to_ascii_lowercase();
        let is_word = |c: char| c.is_alphanumeric() || c == '_';
        let mut from = 0;
        while let Some(found) = lower[from..].find(&token) {
            let start = from + found;
            let end = start + token.len();
            let before = lower[..start].chars().next_back();
            let after = lower[end..].chars().next();
            if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
                return Some(position_of(&lower, start));
            }
            from = end;
        }
    }
    None
}

/// The line and column of byte offset `at` in `text`.
fn position_of(text: &str, at: usize) -> Position {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line,
        column: text[line_start..at].chars().count() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parser_positions_are_read_from_the_message() {
        let m = "SQL error: ParserError(\"Expected: end of statement, found: x at Line: 2, Column: 7\")";
        assert_eq!(
            from_parser_message(m),
            Some(Position { line: 2, column: 7 })
        );
        assert_eq!(from_parser_message("no position here"), None);
    }

    #[test]
    fn a_named_token_is_found_as_a_whole_word() {
        let sql = "SELECT nope_not, x\nFROM nope";
        let m = "Error during planning: table 'datafusion.public.nope' not found";
        assert_eq!(from_token(m, sql), Some(Position { line: 2, column: 6 }));
        let m = "Schema error: No field named zed. Valid fields are t.a.";
        assert_eq!(
            from_token(m, "select a,\n  zed from t"),
            Some(Position { line: 2, column: 3 })
        );
    }

    #[test]
    fn the_caret_points_at_the_column() {
        let e = QueryError {
            message: "bad".into(),
            position: Some(Position { line: 1, column: 8 }),
            line_text: Some("SELECT * FRM t".into()),
        };
        assert_eq!(
            e.to_string(),
            "bad\n  at line 1, column 8:\n  1 | SELECT * FRM t\n    |        ^"
        );
    }
}
