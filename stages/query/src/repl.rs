//! The interactive prompt: statements end with `;` (a statement may span lines), with line
//! editing and a history kept in a file (rustyline, with its default features off: no
//! clipboard, no custom bindings, just the editor and file history).
//!
//! Commands (at the start of a statement): `\d` or `.tables` lists the tables and views
//! with their row counts, `\d NAME` or `.schema NAME` shows a table's columns, `\?` or
//! `.help` shows this, `\q`, `.quit` or Ctrl-D leaves.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

use crate::output;
use crate::session::Session;
use crate::Args;

const HELP: &str = "\
SQL statements end with `;` and may span lines.
  \\d, .tables          the tables and views, with their row counts
  \\d NAME, .schema NAME   the columns of a table or view
  \\?, .help            this help
  \\q, .quit, Ctrl-D    leave";

/// The history file: `--history`, else `~/.freshbench_query_history`.
fn history_path(args: &Args) -> Option<PathBuf> {
    args.history.clone().or_else(|| {
        std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".freshbench_query_history"))
    })
}

/// What a line at the start of a statement asks for.
enum Command<'a> {
    List,
    Describe(&'a str),
    Help,
    Quit,
}

fn command(line: &str) -> Option<Command<'_>> {
    let line = line.trim().trim_end_matches(';').trim();
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(w, r)| (w, r.trim()));
    match word {
        "\\d" | ".tables" if rest.is_empty() => Some(Command::List),
        "\\d" | ".schema" | "\\d+" if !rest.is_empty() => Some(Command::Describe(rest)),
        "\\?" | ".help" | "\\h" => Some(Command::Help),
        "\\q" | ".quit" | ".exit" | "exit" | "quit" => Some(Command::Quit),
        _ => None,
    }
}

/// Runs the prompt until the user leaves.
pub fn run(
    runtime: &tokio::runtime::Runtime,
    session: &Session,
    args: &Args,
) -> anyhow::Result<()> {
    let mut editor = DefaultEditor::new().context("starting the interactive prompt")?;
    let history = history_path(args);
    if let Some(path) = &history {
        // A missing history file is the first session, not an error.
        let _ = editor.load_history(path);
    }
    eprintln!(
        "freshbench query: SQL over {}; \\? for help, \\q to leave.",
        args.common.data()?.display()
    );
    let mut buffer = String::new();
    loop {
        let prompt = if buffer.is_empty() {
            "query> "
        } else {
            "  ...> "
        };
        let line = match editor.readline(prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                buffer.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e).context("reading from the prompt"),
        };
        if buffer.is_empty() {
            if line.trim().is_empty() {
                continue;
            }
            if let Some(cmd) = command(&line) {
                let _ = editor.add_history_entry(line.trim());
                let sql = match cmd {
                    Command::Quit => break,
                    Command::Help => {
                        eprintln!("{HELP}");
                        continue;
                    }
                    Command::List => {
                        match runtime.block_on(session.list()) {
                            Ok(list) => output::emit(&list, args.format, args.output.as_deref())?,
                            Err(e) => eprintln!("error: {e}"),
                        }
                        continue;
                    }
                    Command::Describe(name) => format!("DESCRIBE {name}"),
                };
                execute(runtime, session, args, &sql)?;
                continue;
            }
        }
        buffer.push_str(&line);
        buffer.push('\n');
        if line.trim_end().ends_with(';') {
            let sql = std::mem::take(&mut buffer);
            let _ = editor.add_history_entry(sql.trim_end());
            execute(runtime, session, args, &sql)?;
        }
    }
    if let Some(path) = &history {
        if let Err(e) = editor.save_history(path) {
            tracing::warn!(path = %path.display(), error = %e, "could not save the history");
        }
    }
    Ok(())
}

/// Runs one input and prints its result, or its error (the prompt goes on after an error).
fn execute(
    runtime: &tokio::runtime::Runtime,
    session: &Session,
    args: &Args,
    sql: &str,
) -> anyhow::Result<()> {
    let started = Instant::now();
    match runtime.block_on(session.run_sql(sql)) {
        Ok(Some(result)) => {
            output::emit(&result, args.format, args.output.as_deref())?;
            let rows = result.num_rows();
            eprintln!(
                "{rows} row{} in {:.3} s",
                if rows == 1 { "" } else { "s" },
                started.elapsed().as_secs_f64()
            );
        }
        Ok(None) => {}
        Err(e) => eprintln!("error: {e}"),
    }
    Ok(())
}
