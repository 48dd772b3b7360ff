//! Any OpenAI-compatible HTTP endpoint (vLLM, llama.cpp server, Ollama, hosted APIs):
//! `POST {base}/chat/completions` or `{base}/completions`, with retries (429, 5xx, transport
//! errors; `Retry-After` honoured), a per-request timeout and the answer cache.
//!
//! The body holds, in this order, `model`, `messages` (or `prompt`), `temperature`,
//! `max_tokens`, then `stop` (completions: the family's stops unless `--stop` or
//! `--no-stop` say otherwise; chat: only `--stop`'s) and `seed` (`--seed` plus the sample
//! index, only when given): without those options a body is what it always was, since some
//! endpoints refuse fields they do not know. The answer is the message's `content` (chat)
//! or the choice's `text`; a `reasoning_content` or `reasoning` field is never the answer
//! (a message with only reasoning, cut by `max_tokens`, has an empty answer). Token counts
//! are `usage.prompt_tokens` and `usage.completion_tokens` as the endpoint reports them:
//! the latter includes reasoning tokens (`completion_tokens_details.reasoning_tokens` is a
//! part of it, not added to it); without it, `total_tokens - prompt_tokens`.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::backoff::{classify, parse_retry_after, Backoff, Verdict};
use crate::cache::{self, Cache, Entry};
use crate::prompt::{self, Api, Message, Prompt};
use crate::solver::{seed_of, sha256_hex, Answer, Solver};
use crate::spec::url_host;
use crate::task::Task;

/// How to ask the endpoint.
#[derive(Debug, Clone)]
pub struct Config {
    /// The spec as recorded in the table (part of the cache key).
    pub spec: String,
    pub model: String,
    pub base_url: String,
    /// The endpoint and how prompts are made for it.
    pub prompt: prompt::Options,
    pub api_key: Option<String>,
    pub temperature: f64,
    pub max_tokens: u32,
    /// `--seed`: sample `s` is asked with seed `seed + s` (`None`: no `"seed"` sent).
    pub seed: Option<u32>,
    /// `--stop` (`Some(empty)`: `--no-stop`; `None`: the prompt's own stops).
    pub stop: Option<Vec<String>>,
    /// Retries after the first request.
    pub retries: u32,
    /// Per request.
    pub timeout: Duration,
    pub backoff: Backoff,
}

/// The model behind an OpenAI-compatible endpoint.
pub struct OpenAi {
    cfg: Config,
    agent: ureq::Agent,
    cache: Option<Cache>,
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: &'a [Message],
    temperature: f64,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
}

#[derive(Serialize)]
struct CompletionBody<'a> {
    model: &'a str,
    prompt: &'a str,
    temperature: f64,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
}

/// What a request sends beside the prompt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params<'a> {
    pub temperature: f64,
    pub max_tokens: u32,
    /// `"seed"`, sent only when given.
    pub seed: Option<u64>,
    /// `"stop"`: `None` the prompt's own (completions: the family's; chat: none), an empty
    /// list none at all, else these.
    pub stop: Option<&'a [String]>,
}

impl Params<'_> {
    /// Sampling without a seed or other stops (the body as it was before those options).
    pub fn plain(temperature: f64, max_tokens: u32) -> Params<'static> {
        Params {
            temperature,
            max_tokens,
            seed: None,
            stop: None,
        }
    }
}

/// The request body, as sent (fields in a fixed order, whatever `serde_json`'s features).
pub fn request_body(model: &str, prompt: &Prompt, p: &Params<'_>) -> String {
    let json = match prompt {
        Prompt::Chat(messages) => serde_json::to_string(&ChatBody {
            model,
            messages,
            temperature: p.temperature,
            max_tokens: p.max_tokens,
            stop: p.stop.filter(|s| !s.is_empty()),
            seed: p.seed,
        }),
        Prompt::Completion { prompt, stop } => serde_json::to_string(&CompletionBody {
            model,
            prompt,
            temperature: p.temperature,
            max_tokens: p.max_tokens,
            stop: match p.stop {
                None => Some(stop.as_slice()),
                Some([]) => None,
                Some(given) => Some(given),
            },
            seed: p.seed,
        }),
    };
    json.expect("a request body serializes")
}

/// A successful reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub text: String,
    pub tokens_in: Option<i64>,
    pub tokens_out: Option<i64>,
    pub finish_reason: Option<String>,
    pub latency_ms: f64,
}

/// Why a request gave no reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// This answer failed (after the retries): recorded as an error row.
    #[error("{0}")]
    Failed(String),
    /// No answer can succeed: the run stops.
    #[error("{0}")]
    Fatal(String),
}

/// A response body that holds no answer (not JSON, no choices, no text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadReply(pub String);

impl From<String> for BadReply {
    fn from(s: String) -> BadReply {
        BadReply(s)
    }
}

impl From<&str> for BadReply {
    fn from(s: &str) -> BadReply {
        BadReply(s.to_string())
    }
}

/// The text and usage of a response body.
pub fn parse_reply(api: Api, body: &str) -> Result<Reply, BadReply> {
    let v: Value = serde_json::from_str(body)
        .map_err(|e| format!("the response is not JSON ({e}): {}", tail(body, 300)))?;
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| format!("the response has no choices: {}", tail(body, 300)))?;
    let message = choice.get("message");
    let text = match api {
        Api::Chat => message.and_then(|m| m.get("content")),
        Api::Completions => choice.get("text"),
    };
    let finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_string);
    // Reasoning in a field of its own is never the answer: a message that has only that
    // (its content null or missing, as when max_tokens cut the reasoning) answers nothing.
    let reasoned = message.is_some_and(|m| {
        ["reasoning_content", "reasoning"]
            .iter()
            .any(|k| m.get(k).and_then(Value::as_str).is_some())
    });
    let text = match text.and_then(Value::as_str) {
        Some(t) => t,
        None if reasoned => "",
        None => {
            return Err(format!(
                "the response's first choice has no text (finish_reason {})",
                finish_reason.as_deref().unwrap_or("none")
            )
            .into())
        }
    };
    let usage = |k: &str| {
        v.get("usage")
            .and_then(|u| u.get(k))
            .and_then(Value::as_i64)
    };
    let tokens_in = usage("prompt_tokens");
    // Reasoning tokens are part of completion_tokens (OpenAI's
    // completion_tokens_details.reasoning_tokens breaks it down), so it is taken as it is.
    let tokens_out = usage("completion_tokens").or_else(|| {
        usage("total_tokens")
            .zip(tokens_in)
            .map(|(total, prompt)| total - prompt)
            .filter(|n| *n >= 0)
    });
    Ok(Reply {
        text: text.to_string(),
        tokens_in,
        tokens_out,
        finish_reason,
        latency_ms: 0.0,
    })
}

/// The last `max` characters of a text, on one line.
pub fn tail(text: &str, max: usize) -> String {
    let t = text.trim();
    let n = t.chars().count();
    let cut: String = if n > max {
        let s: String = t.chars().skip(n - max).collect();
        format!("...{s}")
    } else {
        t.to_string()
    };
    cut.replace('\n', " ")
}

/// Whether a host is reached without the proxy: loopback always, and `NO_PROXY`'s hosts.
fn bypasses_proxy(host: &str) -> bool {
    if host == "localhost" || host == "::1" || host.starts_with("127.") {
        return true;
    }
    ["NO_PROXY", "no_proxy"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .flat_map(|v| {
            v.split(',')
                .map(|s| s.trim().trim_start_matches('.').to_ascii_lowercase())
                .collect::<Vec<_>>()
        })
        .any(|n| !n.is_empty() && (n == "*" || host == n || host.ends_with(&format!(".{n}"))))
}

impl OpenAi {
    pub fn new(cfg: Config, cache: Option<Cache>) -> Self {
        let proxy = !bypasses_proxy(&url_host(&cfg.base_url));
        let agent = ureq::AgentBuilder::new()
            .timeout(cfg.timeout)
            .user_agent(concat!("freshbench-solve/", env!("CARGO_PKG_VERSION")))
            .try_proxy_from_env(proxy)
            .build();
        OpenAi { cfg, agent, cache }
    }

    fn url(&self) -> String {
        format!("{}{}", self.cfg.base_url, self.cfg.prompt.api.path())
    }

    /// Sends the body, retrying as [`classify`] says; `seed` spreads the backoff.
    pub fn call(&self, body: &str, seed: u64) -> Result<Reply, CallError> {
        let url = self.url();
        let attempts = self.cfg.retries + 1;
        let mut last = String::new();
        for attempt in 0..attempts {
            let started = Instant::now();
            let mut req = self
                .agent
                .post(&url)
                .set("Content-Type", "application/json");
            if let Some(key) = &self.cfg.api_key {
                req = req.set("Authorization", &format!("Bearer {key}"));
            }
            let wait = match req.send_string(body) {
                Ok(resp) => {
                    let text = resp.into_string().map_err(|e| {
                        CallError::Failed(format!("{url}: reading the response failed: {e}"))
                    });
                    match text {
                        Ok(text) => {
                            let mut reply = parse_reply(self.cfg.prompt.api, &text)
                                .map_err(|e| CallError::Failed(format!("{url}: {e}")))?;
                            // The latency of the request that answered (not of the retries).
                            reply.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
                            return Ok(reply);
                        }
                        Err(e) => {
                            last = e.to_string();
                            None
                        }
                    }
                }
                Err(ureq::Error::Status(code, resp)) => {
                    let retry_after = resp.header("retry-after").and_then(parse_retry_after);
                    let detail = resp.into_string().unwrap_or_default();
                    last = format!("{url} answered HTTP {code}: {}", tail(&detail, 300));
                    match classify(code) {
                        Verdict::Retry => retry_after,
                        Verdict::Fail => return Err(CallError::Failed(last)),
                        Verdict::Fatal => {
                            let hint = match code {
                                401 | 403 => format!(
                                    "check the API key (the environment variable named by --api-key-env{})",
                                    if self.cfg.api_key.is_none() { ", which is not set" } else { "" }
                                ),
                                _ => "check the base URL and the model name of --model openai:MODEL@URL".to_string(),
                            };
                            return Err(CallError::Fatal(format!("{last}; {hint}")));
                        }
                    }
                }
                Err(ureq::Error::Transport(t)) => {
                    last = format!("{url}: {t}");
                    None
                }
            };
            if attempt + 1 < attempts {
                let wait = wait.unwrap_or_else(|| self.cfg.backoff.delay(attempt, seed));
                tracing::debug!(attempt, wait_ms = wait.as_millis(), error = %last, "retrying");
                std::thread::sleep(wait);
            }
        }
        Err(CallError::Failed(format!(
            "{last} (gave up after {attempts} attempts)"
        )))
    }
}

impl Solver for OpenAi {
    fn solve(&self, task: &Task, sample: u32) -> anyhow::Result<Answer> {
        let started = Instant::now();
        let prompt = match prompt::build(task, &self.cfg.prompt) {
            Ok(p) => p,
            Err(e) => return Ok(Answer::error(task.prompt_digest(), e.0, started)),
        };
        let seed = self.cfg.seed.map(|s| u64::from(s) + u64::from(sample));
        let body = request_body(
            &self.cfg.model,
            &prompt,
            &Params {
                temperature: self.cfg.temperature,
                max_tokens: self.cfg.max_tokens,
                seed,
                stop: self.cfg.stop.as_deref(),
            },
        );
        let prompt_hash = sha256_hex(&body);
        let key = cache::key(&cache::KeyParts {
            spec: &self.cfg.spec,
            api: self.cfg.prompt.api.as_str(),
            temperature: self.cfg.temperature,
            max_tokens: self.cfg.max_tokens,
            sample,
            seed,
            body: &body,
        });
        let answer = |reply: &Reply, cached: bool| Answer {
            prompt_hash: prompt_hash.clone(),
            answer: Some(prompt::answer(task, &self.cfg.prompt, &reply.text)),
            raw: Some(reply.text.clone()),
            error: None,
            tokens_in: reply.tokens_in,
            tokens_out: reply.tokens_out,
            latency_ms: reply.latency_ms,
            cached,
        };
        if let Some(e) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            let reply = Reply {
                text: e.text,
                tokens_in: e.tokens_in,
                tokens_out: e.tokens_out,
                finish_reason: e.finish_reason,
                latency_ms: e.latency_ms,
            };
            return Ok(answer(&reply, true));
        }
        match self.call(&body, seed_of(&task.task_id, sample)) {
            Ok(reply) => {
                if reply.finish_reason.as_deref() == Some("length") {
                    tracing::debug!(task = %task.task_id, sample, "answer cut at --max-tokens");
                }
                if let Some(cache) = &self.cache {
                    let entry = Entry {
                        key,
                        spec: self.cfg.spec.clone(),
                        sample,
                        text: reply.text.clone(),
                        tokens_in: reply.tokens_in,
                        tokens_out: reply.tokens_out,
                        latency_ms: reply.latency_ms,
                        finish_reason: reply.finish_reason.clone(),
                    };
                    if let Err(e) = cache.put(&entry) {
                        tracing::warn!(dir = %cache.dir().display(), error = %e, "could not write to the cache");
                    }
                }
                Ok(answer(&reply, false))
            }
            Err(CallError::Failed(why)) => Ok(Answer::error(prompt_hash, why, started)),
            Err(CallError::Fatal(why)) => Err(anyhow::anyhow!(why)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_have_a_fixed_field_order() {
        let chat = Prompt::Chat(vec![Message {
            role: "user",
            content: "hi \"there\"".into(),
        }]);
        assert_eq!(
            request_body("m", &chat, &Params::plain(0.0, 16)),
            r#"{"model":"m","messages":[{"role":"user","content":"hi \"there\""}],"temperature":0.0,"max_tokens":16}"#
        );
        let comp = Prompt::Completion {
            prompt: "def f():\n".into(),
            stop: vec!["\ndef ".to_string()],
        };
        assert_eq!(
            request_body("m", &comp, &Params::plain(0.2, 8)),
            r#"{"model":"m","prompt":"def f():\n","temperature":0.2,"max_tokens":8,"stop":["\ndef "]}"#
        );
    }

    #[test]
    fn seeds_and_stops_are_sent_when_given() {
        let chat = Prompt::Chat(vec![Message {
            role: "user",
            content: "hi".into(),
        }]);
        let comp = Prompt::Completion {
            prompt: "p".into(),
            stop: vec!["\ndef ".to_string()],
        };
        let given = ["END".to_string(), "\n\n".to_string()];
        let p = Params {
            seed: Some(7),
            stop: Some(&given),
            ..Params::plain(0.0, 4)
        };
        assert_eq!(
            request_body("m", &chat, &p),
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0.0,"max_tokens":4,"stop":["END","\n\n"],"seed":7}"#
        );
        // --stop replaces the family's stops.
        assert_eq!(
            request_body("m", &comp, &p),
            r#"{"model":"m","prompt":"p","temperature":0.0,"max_tokens":4,"stop":["END","\n\n"],"seed":7}"#
        );
        // --no-stop: none sent, to either endpoint.
        let none = Params {
            stop: Some(&[]),
            ..Params::plain(0.0, 4)
        };
        assert_eq!(
            request_body("m", &comp, &none),
            r#"{"model":"m","prompt":"p","temperature":0.0,"max_tokens":4}"#
        );
        assert_eq!(
            request_body("m", &chat, &none),
            request_body("m", &chat, &Params::plain(0.0, 4))
        );
        // A seed alone.
        let seeded = Params {
            seed: Some(0),
            ..Params::plain(0.0, 4)
        };
        assert!(request_body("m", &chat, &seeded).ends_with(r#""max_tokens":4,"seed":0}"#));
    }

    #[test]
    fn reasoning_fields_are_never_the_answer() {
        let both = r#"{"choices":[{"message":{"content":"x = 1","reasoning_content":"Let me think."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":40,"completion_tokens_details":{"reasoning_tokens":35}}}"#;
        let r = parse_reply(Api::Chat, both).unwrap();
        assert_eq!(r.text, "x = 1");
        // Reasoning tokens are in completion_tokens already.
        assert_eq!((r.tokens_in, r.tokens_out), (Some(10), Some(40)));
        for field in ["reasoning_content", "reasoning"] {
            let cut = format!(
                r#"{{"choices":[{{"message":{{"content":null,"{field}":"Hmm, first"}},"finish_reason":"length"}}],"usage":{{"prompt_tokens":10,"completion_tokens":64}}}}"#
            );
            let r = parse_reply(Api::Chat, &cut).unwrap();
            assert_eq!(r.text, "", "{field}");
            assert_eq!(r.finish_reason.as_deref(), Some("length"));
            assert_eq!(r.tokens_out, Some(64));
        }
        // Only the total: the completion is the rest of it.
        let total = r#"{"choices":[{"text":"1"}],"usage":{"prompt_tokens":10,"total_tokens":13}}"#;
        let r = parse_reply(Api::Completions, total).unwrap();
        assert_eq!((r.tokens_in, r.tokens_out), (Some(10), Some(3)));
    }

    #[test]
    fn replies_are_parsed() {
        let chat = r#"{"choices":[{"message":{"role":"assistant","content":"x = 1"},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":3}}"#;
        let r = parse_reply(Api::Chat, chat).unwrap();
        assert_eq!(r.text, "x = 1");
        assert_eq!((r.tokens_in, r.tokens_out), (Some(11), Some(3)));
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        let comp = r#"{"choices":[{"text":"    return 1\n"}]}"#;
        let r = parse_reply(Api::Completions, comp).unwrap();
        assert_eq!(r.text, "    return 1\n");
        assert_eq!(r.tokens_in, None);
        assert!(parse_reply(Api::Chat, comp).is_err());
        assert!(parse_reply(Api::Chat, "<html>502</html>").is_err());
        assert!(parse_reply(Api::Chat, r#"{"choices":[]}"#).is_err());
        let refused =
            r#"{"choices":[{"message":{"content":null},"finish_reason":"content_filter"}]}"#;
        assert!(parse_reply(Api::Chat, refused)
            .unwrap_err()
            .0
            .contains("content_filter"));
    }

    #[test]
    fn tails_are_short() {
        assert_eq!(tail("  a\nb  ", 10), "a b");
        assert_eq!(tail("abcdef", 3), "...def");
        assert_eq!(tail("ééé", 2), "...éé");
    }

    #[test]
    fn loopback_is_never_proxied() {
        assert!(bypasses_proxy("127.0.0.1"));
        assert!(bypasses_proxy("localhost"));
        assert!(bypasses_proxy("::1"));
    }
}
