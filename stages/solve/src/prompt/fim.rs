//! Fill-in-the-middle sentinels: the tokens a code model was trained with to read a prefix
//! and a suffix and write the middle, with presets for the common model families and
//! custom ones (`--fim-prefix`, `--fim-suffix`, `--fim-middle`, `--fim-file-sep`,
//! `--fim-order`).

/// The order of the parts in the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Order {
    /// Prefix, suffix, middle: `{P}{prefix}{S}{suffix}{M}`.
    Psm,
    /// Suffix first: `{S}{suffix}{P}{prefix}{M}` (Codestral).
    Spm,
}

/// A model family's FIM format (`--fim-preset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// `StarCoder` / `StarCoder2`: `<fim_prefix>`, `<fim_suffix>`, `<fim_middle>`, files
    /// separated by `<file_sep>`.
    Starcoder,
    /// Code Llama: `<PRE> `, ` <SUF>`, ` <MID>`.
    Codellama,
    /// DeepSeek-Coder: `<｜fim▁begin｜>`, `<｜fim▁hole｜>`, `<｜fim▁end｜>`.
    Deepseek,
    /// Qwen2.5-Coder: `<|fim_prefix|>`, `<|fim_suffix|>`, `<|fim_middle|>`, files separated
    /// by `<|file_sep|>`.
    Qwen,
    /// Codestral: `[SUFFIX]` then `[PREFIX]` (suffix first, no middle token).
    Codestral,
}

impl Preset {
    pub const ALL: [Preset; 5] = [
        Preset::Starcoder,
        Preset::Codellama,
        Preset::Deepseek,
        Preset::Qwen,
        Preset::Codestral,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Starcoder => "starcoder",
            Preset::Codellama => "codellama",
            Preset::Deepseek => "deepseek",
            Preset::Qwen => "qwen",
            Preset::Codestral => "codestral",
        }
    }

    /// The preset a model name suggests (`qwen2.5-coder-7b` → `qwen`), for `openai-fim:`
    /// specs given no `--fim-preset`.
    pub fn detect(model: &str) -> Option<Preset> {
        let m = model.to_ascii_lowercase();
        if m.contains("starcoder") {
            Some(Preset::Starcoder)
        } else if m.contains("codellama") || m.contains("code-llama") || m.contains("code_llama") {
            Some(Preset::Codellama)
        } else if m.contains("deepseek") {
            Some(Preset::Deepseek)
        } else if m.contains("qwen") {
            Some(Preset::Qwen)
        } else if m.contains("codestral") {
            Some(Preset::Codestral)
        } else {
            None
        }
    }

    /// The preset's sentinels.
    pub fn fim(self) -> Fim {
        let s = |v: &[&str]| v.iter().map(|t| (*t).to_string()).collect::<Vec<_>>();
        let (prefix, suffix, middle, file_sep, order, stop) = match self {
            Preset::Starcoder => (
                "<fim_prefix>",
                "<fim_suffix>",
                "<fim_middle>",
                Some("<file_sep>"),
                Order::Psm,
                s(&[
                    "<|endoftext|>",
                    "<file_sep>",
                    "<fim_prefix>",
                    "<fim_suffix>",
                ]),
            ),
            Preset::Codellama => (
                "<PRE> ",
                " <SUF>",
                " <MID>",
                None,
                Order::Psm,
                s(&["<EOT>", "</s>", "<PRE>", "<SUF>"]),
            ),
            Preset::Deepseek => (
                "<｜fim▁begin｜>",
                "<｜fim▁hole｜>",
                "<｜fim▁end｜>",
                None,
                Order::Psm,
                s(&[
                    "<|EOT|>",
                    "<｜end▁of▁sentence｜>",
                    "<｜fim▁begin｜>",
                    "<｜fim▁hole｜>",
                ]),
            ),
            Preset::Qwen => (
                "<|fim_prefix|>",
                "<|fim_suffix|>",
                "<|fim_middle|>",
                Some("<|file_sep|>"),
                Order::Psm,
                s(&[
                    "<|endoftext|>",
                    "<|file_sep|>",
                    "<|fim_pad|>",
                    "<|repo_name|>",
                ]),
            ),
            Preset::Codestral => (
                "[PREFIX]",
                "[SUFFIX]",
                "",
                None,
                Order::Spm,
                s(&["</s>", "[SUFFIX]", "[PREFIX]", "[MIDDLE]"]),
            ),
        };
        Fim {
            name: self.as_str().to_string(),
            prefix: prefix.to_string(),
            suffix: suffix.to_string(),
            middle: middle.to_string(),
            file_sep: file_sep.map(str::to_string),
            path_in_prefix: self == Preset::Starcoder,
            order,
            stop,
        }
    }
}

/// A FIM format: its sentinels, their order, and where generation stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fim {
    /// The preset's name, or `custom`.
    pub name: String,
    /// Before the prefix.
    pub prefix: String,
    /// Before the suffix.
    pub suffix: String,
    /// After both: the model writes the middle from here (may be empty, as for Codestral).
    pub middle: String,
    /// Before each file of the cross-file context (and the task's file); without it the
    /// context goes into the prefix under `# file: PATH` comments.
    pub file_sep: Option<String>,
    /// With context files: the task file's path goes after the prefix sentinel
    /// (`{sep}{P}{path}\n{prefix}`, `StarCoder2`) rather than before it
    /// (`{sep}{path}\n{P}{prefix}`, Qwen2.5-Coder).
    pub path_in_prefix: bool,
    pub order: Order,
    /// Stop sequences sent with the request (at most 4, the common API limit); the answer is
    /// also cut at them and at the sentinels.
    pub stop: Vec<String>,
}

/// Custom sentinels (each overrides the preset's, when a preset is given too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Custom {
    pub prefix: Option<String>,
    pub suffix: Option<String>,
    pub middle: Option<String>,
    pub file_sep: Option<String>,
    pub order: Option<Order>,
}

impl Custom {
    pub fn is_empty(&self) -> bool {
        *self == Custom::default()
    }
}

impl Fim {
    /// `base` (a preset) with the custom sentinels put in; without a preset, prefix, suffix
    /// and middle must all be given.
    pub fn resolve(base: Option<Preset>, custom: &Custom) -> Result<Option<Fim>, String> {
        let Some(base) = base else {
            if custom.is_empty() {
                return Ok(None);
            }
            let (Some(prefix), Some(suffix), Some(middle)) =
                (&custom.prefix, &custom.suffix, &custom.middle)
            else {
                return Err("custom FIM sentinels need all of --fim-prefix, --fim-suffix and --fim-middle (an empty --fim-middle \"\" is fine), or a --fim-preset to start from".into());
            };
            let mut fim = Fim {
                name: "custom".into(),
                prefix: prefix.clone(),
                suffix: suffix.clone(),
                middle: middle.clone(),
                file_sep: custom.file_sep.clone().filter(|s| !s.is_empty()),
                path_in_prefix: false,
                order: custom.order.unwrap_or(Order::Psm),
                stop: Vec::new(),
            };
            fim.stop = fim.default_stop();
            return fim.checked().map(Some);
        };
        let mut fim = base.fim();
        if custom.is_empty() {
            return Ok(Some(fim));
        }
        fim.name = format!("{}+custom", fim.name);
        if let Some(p) = &custom.prefix {
            fim.prefix.clone_from(p);
        }
        if let Some(s) = &custom.suffix {
            fim.suffix.clone_from(s);
        }
        if let Some(m) = &custom.middle {
            fim.middle.clone_from(m);
        }
        if let Some(f) = &custom.file_sep {
            fim.file_sep = Some(f.clone()).filter(|s| !s.is_empty());
        }
        if let Some(o) = custom.order {
            fim.order = o;
        }
        fim.checked().map(Some)
    }

    fn checked(self) -> Result<Fim, String> {
        if self.prefix.trim().is_empty() || self.suffix.trim().is_empty() {
            return Err("--fim-prefix and --fim-suffix must not be empty".into());
        }
        if self.order == Order::Psm && self.middle.trim().is_empty() {
            return Err("an empty --fim-middle needs --fim-order spm (the model must know where the middle starts)".into());
        }
        Ok(self)
    }

    /// The format's sentinels, trimmed, the empty ones left out.
    fn sentinels(&self) -> impl Iterator<Item = String> + '_ {
        [
            Some(&self.prefix),
            Some(&self.suffix),
            Some(&self.middle),
            self.file_sep.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(|s| s.trim().to_string())
        .filter(|t| !t.is_empty())
    }

    /// The sentinels themselves, as stop sequences of a custom format.
    fn default_stop(&self) -> Vec<String> {
        let mut stop: Vec<String> = Vec::new();
        for t in self.sentinels() {
            if !stop.contains(&t) {
                stop.push(t);
            }
        }
        stop.truncate(4);
        stop
    }

    /// Every text an answer is cut at: the stop sequences and the sentinels (trimmed).
    pub fn markers(&self) -> Vec<String> {
        let mut out: Vec<String> = self.stop.clone();
        for t in self.sentinels() {
            if !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    /// What shapes a FIM prompt, as text for row hashes.
    pub fn digest(&self) -> String {
        format!(
            "fim={} prefix={:?} suffix={:?} middle={:?} file_sep={:?} path_in_prefix={} order={:?} stop={:?}",
            self.name,
            self.prefix,
            self.suffix,
            self.middle,
            self.file_sep,
            self.path_in_prefix,
            self.order,
            self.stop
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_have_their_sentinels() {
        let q = Preset::Qwen.fim();
        assert_eq!(
            (q.prefix.as_str(), q.suffix.as_str(), q.middle.as_str()),
            ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>")
        );
        assert_eq!(q.file_sep.as_deref(), Some("<|file_sep|>"));
        let c = Preset::Codellama.fim();
        assert_eq!(
            (c.prefix.as_str(), c.suffix.as_str(), c.middle.as_str()),
            ("<PRE> ", " <SUF>", " <MID>")
        );
        assert_eq!(Preset::Codestral.fim().order, Order::Spm);
        for p in Preset::ALL {
            let f = p.fim();
            assert!(f.stop.len() <= 4 && !f.stop.is_empty(), "{p:?}");
            assert_eq!(f.name, p.as_str());
            assert!(f.clone().checked().is_ok(), "{p:?}");
        }
    }

    #[test]
    fn model_names_suggest_presets() {
        assert_eq!(Preset::detect("Qwen/Qwen2.5-Coder-7B"), Some(Preset::Qwen));
        assert_eq!(
            Preset::detect("bigcode/starcoder2-3b"),
            Some(Preset::Starcoder)
        );
        assert_eq!(
            Preset::detect("deepseek-coder-6.7b-base"),
            Some(Preset::Deepseek)
        );
        assert_eq!(Preset::detect("codellama:7b-code"), Some(Preset::Codellama));
        assert_eq!(Preset::detect("codestral-latest"), Some(Preset::Codestral));
        assert_eq!(Preset::detect("gpt-4o"), None);
    }

    #[test]
    fn custom_sentinels() {
        assert_eq!(Fim::resolve(None, &Custom::default()), Ok(None));
        let partial = Custom {
            prefix: Some("<P>".into()),
            ..Custom::default()
        };
        assert!(Fim::resolve(None, &partial)
            .unwrap_err()
            .contains("--fim-suffix"));
        let f = Fim::resolve(
            None,
            &Custom {
                prefix: Some("<P>".into()),
                suffix: Some("<S>".into()),
                middle: Some("<M>".into()),
                ..Custom::default()
            },
        )
        .unwrap()
        .unwrap();
        assert_eq!(f.name, "custom");
        assert_eq!(f.stop, ["<P>", "<S>", "<M>"]);
        // A preset with one sentinel replaced.
        let f = Fim::resolve(Some(Preset::Starcoder), &partial)
            .unwrap()
            .unwrap();
        assert_eq!(f.prefix, "<P>");
        assert_eq!(f.suffix, "<fim_suffix>");
        assert_eq!(f.name, "starcoder+custom");
        let no_middle = Custom {
            prefix: Some("<P>".into()),
            suffix: Some("<S>".into()),
            middle: Some(String::new()),
            ..Custom::default()
        };
        assert!(Fim::resolve(None, &no_middle).unwrap_err().contains("spm"));
        assert!(Fim::resolve(
            None,
            &Custom {
                order: Some(Order::Spm),
                ..no_middle
            }
        )
        .is_ok());
    }
}
