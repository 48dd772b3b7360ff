//! What a run's answers cost: a price per million prompt tokens and per million completion
//! tokens, given on the command line (`--price-in X --price-out Y`) or per model in a TOML
//! file (`--prices FILE`, a table per model name as in `openai:MODEL@URL`):
//!
//! ```toml
//! ["qwen2.5-coder"]
//! in = 0.2
//! out = 0.6
//! ```
//!
//! The cost of an answer is `tokens_in * in / 1e6 + tokens_out * out / 1e6`, in whatever
//! currency the prices are in; null when the endpoint reported no token counts or no price
//! was given, and 0 for the reference solvers, which ask nobody. Prices are not part of an
//! answer's input hash: other prices never ask the model again, they only change `cost`
//! (which the stage recomputes for every row of the table when prices are given).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::spec::Spec;

/// Prices in currency units per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Per million prompt tokens (`usage.prompt_tokens`).
    pub input: f64,
    /// Per million completion tokens (`usage.completion_tokens`, reasoning included).
    pub output: f64,
}

impl Price {
    /// The cost of an answer with these token counts (`None` when one is missing).
    pub fn cost(&self, tokens_in: Option<i64>, tokens_out: Option<i64>) -> Option<f64> {
        let (i, o) = (tokens_in?, tokens_out?);
        Some(i as f64 * self.input / 1e6 + o as f64 * self.output / 1e6)
    }

    /// `Err`: a price that is negative or not a number, with what to change (`what` names
    /// where it was given).
    fn check(&self, what: &str) -> Result<(), String> {
        for (name, v) in [("in", self.input), ("out", self.output)] {
            if !v.is_finite() || v < 0.0 {
                return Err(format!(
                    "{what}: price `{name}` is {v}; give a number >= 0 (currency units per million tokens)"
                ));
            }
        }
        Ok(())
    }
}

/// How the answers of a run are priced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pricing {
    /// Reference solvers: every answer costs 0.
    Free,
    /// No price (none given, or a solver that reports no tokens): cost is null.
    Unknown,
    /// A model's prices.
    Priced(Price),
}

impl Pricing {
    /// The cost of an answer with these token counts.
    pub fn cost(&self, tokens_in: Option<i64>, tokens_out: Option<i64>) -> Option<f64> {
        match self {
            Pricing::Free => Some(0.0),
            Pricing::Unknown => None,
            Pricing::Priced(p) => p.cost(tokens_in, tokens_out),
        }
    }

    /// Whether costs come from prices given on this run (so kept rows are repriced).
    pub fn is_given(&self) -> bool {
        !matches!(self, Pricing::Unknown)
    }
}

/// A model's entry of a `--prices` file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(rename = "in")]
    input: f64,
    #[serde(rename = "out")]
    output: f64,
}

/// The format, said in errors about a file.
const FORMAT: &str = "a table per model name with `in` and `out` prices per million tokens, e.g. `[\"qwen2.5-coder\"]` then `in = 0.2` and `out = 0.6` on their own lines (quote names holding dots)";

/// The price of `model` in the text of a `--prices` file (`file`: its name, for errors).
pub fn parse(text: &str, file: &str, model: &str) -> Result<Price, String> {
    let table: BTreeMap<String, Entry> = toml::from_str(text).map_err(|e| {
        let at = e.span().map_or_else(String::new, |s| {
            let line = text.get(..s.start).unwrap_or(text).matches('\n').count() + 1;
            format!(" at line {line}")
        });
        format!(
            "--prices {file}: not a price table ({}{at}); write {FORMAT}",
            e.message().trim().replace('\n', ", ")
        )
    })?;
    let Some(e) = table.get(model) else {
        let known: Vec<&str> = table.keys().map(String::as_str).collect();
        return Err(format!(
            "--prices {file}: no prices for model `{model}` (it has {}); add a table `[\"{model}\"]` with `in = ...` and `out = ...` per million tokens, or give --price-in and --price-out",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ));
    };
    let p = Price {
        input: e.input,
        output: e.output,
    };
    p.check(&format!("--prices {file}, model `{model}`"))?;
    Ok(p)
}

/// The price of `model` in a `--prices` file.
pub fn load(path: &Path, model: &str) -> anyhow::Result<Price> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        anyhow::anyhow!("--prices {file}: cannot read it ({e}); give a TOML file of {FORMAT}")
    })?;
    parse(&text, &file, model).map_err(anyhow::Error::msg)
}

/// How the answers of `spec` are priced: reference solvers are free; `openai:` models cost
/// what `flat` (`--price-in`, `--price-out`) or their entry of the `file` (`--prices`) says;
/// anything else (and a model without a price given) has no cost.
pub fn pricing(spec: &Spec, flat: Option<Price>, file: Option<&Path>) -> anyhow::Result<Pricing> {
    if spec.is_reference() {
        return Ok(Pricing::Free);
    }
    let Spec::OpenAi { model, .. } = spec else {
        if flat.is_some() || file.is_some() {
            tracing::warn!(model = %spec, "prices apply to `openai:` models only (others report no tokens); ignored");
        }
        return Ok(Pricing::Unknown);
    };
    if let Some(p) = flat {
        p.check("--price-in/--price-out")
            .map_err(anyhow::Error::msg)?;
        return Ok(Pricing::Priced(p));
    }
    match file {
        Some(path) => Ok(Pricing::Priced(load(path, model)?)),
        None => Ok(Pricing::Unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn openai(model: &str) -> Spec {
        Spec::OpenAi {
            model: model.into(),
            base_url: "http://127.0.0.1:1/v1".into(),
            fim: false,
        }
    }

    #[test]
    fn costs_are_per_million_tokens() {
        let p = Price {
            input: 0.2,
            output: 0.6,
        };
        let c = p.cost(Some(1_000_000), Some(500_000)).unwrap();
        assert!((c - 0.5).abs() < 1e-12, "{c}");
        let c = p.cost(Some(42), Some(7)).unwrap();
        assert!((c - (42.0 * 0.2 + 7.0 * 0.6) / 1e6).abs() < 1e-18, "{c}");
        assert_eq!(p.cost(None, Some(7)), None);
        assert_eq!(p.cost(Some(42), None), None);
        assert_eq!(Pricing::Free.cost(None, None), Some(0.0));
        assert_eq!(Pricing::Unknown.cost(Some(1), Some(1)), None);
        assert!(!Pricing::Unknown.is_given() && Pricing::Free.is_given());
    }

    #[test]
    fn files_give_a_price_per_model() {
        let text = "[\"qwen2.5-coder\"]\nin = 0.2\nout = 0.6\n\n[gpt-4o]\nin = 2\nout = 10\n";
        assert_eq!(
            parse(text, "p.toml", "qwen2.5-coder").unwrap(),
            Price {
                input: 0.2,
                output: 0.6
            }
        );
        // Integers are prices too.
        assert_eq!(
            parse(text, "p.toml", "gpt-4o").unwrap(),
            Price {
                input: 2.0,
                output: 10.0
            }
        );
        let e = parse(text, "p.toml", "llama").unwrap_err();
        assert!(
            e.contains("p.toml") && e.contains("`llama`") && e.contains("gpt-4o, qwen2.5-coder"),
            "{e}"
        );
        assert!(e.contains("[\"llama\"]"), "{e}");
    }

    #[test]
    fn bad_files_say_what_to_write() {
        for bad in [
            "in = 0.2",
            "[m]\nin = 0.2",
            "[m]\nin = \"cheap\"\nout = 1",
            "[m]\nin = 1\nout = 1\ncurrency = 1",
            "[m\nin = 1",
            // A dotted name not quoted: a nested table.
            "[qwen2.5]\nin = 1\nout = 1",
        ] {
            let e = parse(bad, "p.toml", "m").unwrap_err();
            assert!(e.contains("p.toml"), "{bad}: {e}");
            assert!(
                e.contains("no prices for model") || e.contains("in = 0.2"),
                "{bad}: {e}"
            );
        }
        let e = parse("[m]\nin = -1\nout = 1", "p.toml", "m").unwrap_err();
        assert!(e.contains(">= 0") && e.contains("`m`"), "{e}");
        let e = parse("[m]\nin = nan\nout = 1", "p.toml", "m").unwrap_err();
        assert!(e.contains(">= 0"), "{e}");
        let e = load(Path::new("/nonexistent/p.toml"), "m").unwrap_err();
        assert!(e.to_string().contains("/nonexistent/p.toml"), "{e}");
    }

    #[test]
    fn solvers_are_priced_by_kind() {
        let flat = Price {
            input: 1.0,
            output: 2.0,
        };
        assert_eq!(
            pricing(&Spec::Oracle, Some(flat), None).unwrap(),
            Pricing::Free
        );
        assert_eq!(pricing(&Spec::Null, None, None).unwrap(), Pricing::Free);
        assert_eq!(
            pricing(&openai("m"), Some(flat), None).unwrap(),
            Pricing::Priced(flat)
        );
        assert_eq!(pricing(&openai("m"), None, None).unwrap(), Pricing::Unknown);
        let command = Spec::Command {
            program: "x".into(),
            args: vec![],
        };
        assert_eq!(
            pricing(&command, Some(flat), None).unwrap(),
            Pricing::Unknown
        );
        let bad = Price {
            input: -1.0,
            output: 0.0,
        };
        let e = pricing(&openai("m"), Some(bad), None).unwrap_err();
        assert!(e.to_string().contains("--price-in"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.toml");
        std::fs::write(&path, "[\"m\"]\nin = 3\nout = 4\n").unwrap();
        assert_eq!(
            pricing(&openai("m"), None, Some(&path)).unwrap(),
            Pricing::Priced(Price {
                input: 3.0,
                output: 4.0
            })
        );
        assert!(pricing(&openai("n"), None, Some(&path)).is_err());
    }
}
