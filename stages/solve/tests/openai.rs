//! `solve --model openai:MODEL@URL` against a stand-in of an OpenAI-compatible server on
//! 127.0.0.1 (a `TcpListener` speaking just enough HTTP/1.1): concurrency, retries after
//! 429 and 500, the cache, resuming after a kill, the completions API, a refused key, and
//! completion tasks over the chat endpoint and with fill-in-the-middle prompts, assertion
//! tasks over both endpoints; what the options of the request send (seed, stop sequences,
//! the system message), reasoning models' answers, token counts and costs, and the errors
//! of bad options.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;

/// The stand-in server's state, shared with the test.
#[derive(Default)]
struct State {
    /// Every HTTP request, failures included.
    requests: AtomicUsize,
    /// Entry points answered (one per successful request).
    served: Mutex<Vec<String>>,
    /// Paths requested.
    paths: Mutex<Vec<String>>,
    /// Request bodies (of the requests answered).
    bodies: Mutex<Vec<serde_json::Value>>,
    /// Authorization headers seen.
    auth: Mutex<Vec<Option<String>>>,
    /// The next this many requests get 429 (with `Retry-After: 0`), then the next
    /// `fail_500` get 500.
    fail_429: AtomicUsize,
    fail_500: AtomicUsize,
    /// Every request gets this status when non-zero.
    always: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    delay_ms: AtomicUsize,
    /// How function tasks are answered on the chat endpoint: [`Think::None`] and the others.
    think: AtomicUsize,
}

/// How a reasoning model answers a function task on the chat endpoint ([`State::think`]).
#[derive(Clone, Copy)]
#[repr(usize)]
enum Think {
    /// No reasoning.
    None = 0,
    /// A `<think>` block before the answer ([`thinking_answer`]).
    Block = 1,
    /// Cut by `max_tokens` inside a `<think>` block that never closes ([`unfinished_answer`]).
    Unclosed = 2,
    /// Only a `reasoning_content` field, the content null, cut by `max_tokens`.
    FieldOnly = 3,
    /// The answer in `content`, the reasoning in a `reasoning` field.
    Field = 4,
}

struct StandIn {
    base: String,
    state: Arc<State>,
}

impl StandIn {
    fn start(delay_ms: usize) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State::default());
        state.delay_ms.store(delay_ms, Ordering::SeqCst);
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let state = Arc::clone(&shared);
                std::thread::spawn(move || {
                    let _ = handle(stream, &state);
                });
            }
        });
        StandIn {
            base: format!("http://{addr}/v1"),
            state,
        }
    }

    fn spec(&self) -> String {
        format!("openai:stand-in-coder@{}", self.base)
    }

    fn requests(&self) -> usize {
        self.state.requests.load(Ordering::SeqCst)
    }

    fn think(&self, mode: Think) {
        self.state.think.store(mode as usize, Ordering::SeqCst);
    }

    /// The bodies of the requests answered so far.
    fn bodies(&self) -> Vec<serde_json::Value> {
        self.state.bodies.lock().unwrap().clone()
    }

    fn served(&self) -> Vec<String> {
        let mut s = self.state.served.lock().unwrap().clone();
        s.sort();
        s
    }
}

/// Takes one from a countdown, if any is left.
fn take(counter: &AtomicUsize) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

/// What the model "says" to a chat request: the function in a fence, with a word around;
/// `word_count` comes without its imports (solve puts them back).
fn chat_answer(f: &Fixture) -> String {
    let code = if f.entry == "word_count" {
        f.function()
    } else {
        f.canonical()
    };
    format!(
        "Here is `{}`:\n\n```python\n{code}```\n\nIt works.",
        f.entry
    )
}

/// What a reasoning model says: its thoughts in a `<think>` block, then [`chat_answer`].
fn thinking_answer(f: &Fixture) -> String {
    format!(
        "<think>\nThe docstring says what `{}` does; a fence holds ```python\ndef {}(): pass\n``` but that is a draft.\n</think>\n\n{}",
        f.entry,
        f.entry,
        chat_answer(f)
    )
}

/// What a reasoning model says when `max_tokens` cut it before its thoughts ended.
fn unfinished_answer(f: &Fixture) -> String {
    format!(
        "<think>\nFirst a draft:\n```python\n{}```\nNow check it",
        f.canonical()
    )
}

/// What the model "says" to a chat request for a masked fixture: the fill in a fence, with
/// the line of the prefix it completes repeated for the expression (solve drops it).
fn masked_chat_answer(m: &Masked) -> String {
    let code = if m.id == "c01" {
        format!("return {}", m.reference)
    } else {
        m.reference.to_string()
    };
    format!("The missing code:\n\n```python\n{code}\n```\n")
}

/// What the model "says" to a FIM request: the fill, an end of text, and more.
fn masked_fim_answer(m: &Masked) -> String {
    format!("{}<|endoftext|>\ndef unrelated():\n    pass\n", m.reference)
}

/// What the model "says" to an assertion task's prompt (`None`: not one): chat answers
/// with some words around, completions continuing the test's line.
fn assertion_answer(text: &str, chat: bool) -> Option<&'static str> {
    let verify = text.ends_with("# Answer:") || text.contains("True if it passes");
    let raises = text.contains("def test_parse_none");
    if verify && (raises || text.contains("def test_total")) {
        Some(if chat {
            "**True**: it passes."
        } else {
            " True"
        })
    } else if raises {
        Some(if chat {
            "It raises:\n```python\nwith pytest.raises(TypeError):\n    parse_price(None)\n```"
        } else {
            "TypeError):"
        })
    } else if text.contains("def test_total") {
        Some(if chat {
            "```python\nassert total(prices, discount=1) == 5\n```"
        } else {
            " 5"
        })
    } else {
        None
    }
}

/// A reasoning model's reply to a function task ([`Think`]): 42 prompt tokens, and
/// completion tokens that count the reasoning (`completion_tokens_details` says how many).
fn reasoning_reply(f: &Fixture, think: usize) -> serde_json::Value {
    let usage = |out: i64, reasoning: i64| {
        serde_json::json!({"prompt_tokens": 42, "completion_tokens": out,
            "total_tokens": 42 + out,
            "completion_tokens_details": {"reasoning_tokens": reasoning}})
    };
    let (message, finish, usage) = match think {
        t if t == Think::Block as usize => (
            serde_json::json!({"role": "assistant", "content": thinking_answer(f)}),
            "stop",
            usage(30, 23),
        ),
        t if t == Think::Unclosed as usize => (
            serde_json::json!({"role": "assistant", "content": unfinished_answer(f)}),
            "length",
            usage(64, 64),
        ),
        t if t == Think::FieldOnly as usize => (
            serde_json::json!({"role": "assistant", "content": null,
                "reasoning_content": format!("```python\n{}```", f.canonical())}),
            "length",
            usage(64, 64),
        ),
        _ => (
            serde_json::json!({"role": "assistant", "content": chat_answer(f),
                "reasoning": format!("```python\ndef {}(): pass\n```", f.entry)}),
            "stop",
            usage(30, 23),
        ),
    };
    serde_json::json!({
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": usage
    })
}

fn handle(stream: TcpStream, state: &State) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let mut length = 0;
    let mut auth = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            match k.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = v.trim().parse().unwrap_or(0),
                "authorization" => auth = Some(v.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();

    state.requests.fetch_add(1, Ordering::SeqCst);
    state.paths.lock().unwrap().push(path.clone());
    state.auth.lock().unwrap().push(auth);
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.max_in_flight.fetch_max(now, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(
        state.delay_ms.load(Ordering::SeqCst) as u64
    ));

    let always = state.always.load(Ordering::SeqCst);
    let (status, extra, payload) = if always != 0 {
        (always, "", r#"{"error":{"message":"refused"}}"#.to_string())
    } else if take(&state.fail_429) {
        (
            429,
            "Retry-After: 0\r\n",
            r#"{"error":{"message":"slow down"}}"#.to_string(),
        )
    } else if take(&state.fail_500) {
        (500, "", r#"{"error":{"message":"boom"}}"#.to_string())
    } else {
        let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        state.bodies.lock().unwrap().push(request.clone());
        // The task is the fixture whose `def NAME(` the prompt holds.
        let text = if path.ends_with("/chat/completions") {
            // The last user message (`--system ''` and `--system-role user` leave only one).
            request["messages"]
                .as_array()
                .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
                .and_then(|m| m["content"].as_str())
                .unwrap_or("")
                .to_string()
        } else {
            request["prompt"].as_str().unwrap_or("").to_string()
        };
        let chat = path.ends_with("/chat/completions");
        if let Some(said) = assertion_answer(&text, chat) {
            state.served.lock().unwrap().push("assertion".to_string());
            let reply = if chat {
                serde_json::json!({
                    "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": said}}],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 3}
                })
            } else {
                serde_json::json!({
                    "choices": [{"index": 0, "finish_reason": "stop", "text": said}],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 3}
                })
            };
            state.in_flight.fetch_sub(1, Ordering::SeqCst);
            let payload = reply.to_string();
            let mut stream = stream;
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{payload}",
                payload.len()
            );
            return stream.write_all(response.as_bytes());
        }
        let masked = common::MASKED.iter().find(|m| {
            let first = m
                .prefix
                .lines()
                .find(|l| l.starts_with("def "))
                .unwrap_or(m.prefix);
            text.contains(first)
                || (m.prefix.starts_with("import math") && text.contains("def main():"))
        });
        if let Some(m) = masked {
            state.served.lock().unwrap().push(m.id.to_string());
            let reply = if path.ends_with("/chat/completions") {
                serde_json::json!({
                    "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": masked_chat_answer(m)}}],
                    "usage": {"prompt_tokens": 30, "completion_tokens": 4}
                })
            } else {
                serde_json::json!({
                    "choices": [{"index": 0, "finish_reason": "stop", "text": masked_fim_answer(m)}],
                    "usage": {"prompt_tokens": 30, "completion_tokens": 4}
                })
            };
            state.in_flight.fetch_sub(1, Ordering::SeqCst);
            let payload = reply.to_string();
            let mut stream = stream;
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{payload}",
                payload.len()
            );
            return stream.write_all(response.as_bytes());
        }
        match common::FIXTURES
            .iter()
            .find(|f| text.contains(&format!("def {}(", f.entry)))
        {
            None => (
                400,
                "",
                r#"{"error":{"message":"unknown task"}}"#.to_string(),
            ),
            Some(f) => {
                state.served.lock().unwrap().push(f.entry.to_string());
                let think = state.think.load(Ordering::SeqCst);
                let reply = if path.ends_with("/chat/completions") && think != Think::None as usize
                {
                    reasoning_reply(f, think)
                } else if path.ends_with("/chat/completions") {
                    serde_json::json!({
                        "id": "x",
                        "object": "chat.completion",
                        "choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": chat_answer(f)}}],
                        "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}
                    })
                } else {
                    serde_json::json!({
                        "id": "x",
                        "object": "text_completion",
                        "choices": [{"index": 0, "finish_reason": "stop", "text": f.body}],
                        "usage": {"prompt_tokens": 40, "completion_tokens": 5}
                    })
                };
                (200, "", reply.to_string())
            }
        }
    };
    let reason = match status {
        200 => "OK",
        429 => "Too Many Requests",
        _ => "Error",
    };
    // Out of flight before the answer leaves: once the client has it, it may send its next
    // request, and that one must not be counted beside this one.
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut stream = stream;
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{payload}",
        payload.len()
    );
    stream.write_all(response.as_bytes())
}

#[test]
fn concurrent_requests_usage_and_the_cache() {
    let server = StandIn::start(150);
    let dir = dataset(true);
    let cache = dir.path().join("cache");
    let spec = server.spec();
    let args = [
        "--run",
        "m",
        "--model",
        &spec,
        "--samples",
        "2",
        "--concurrency",
        "3",
        "--cache-dir",
        cache.to_str().unwrap(),
        "--api-key-env",
        "STAND_IN_KEY",
    ];
    let out = solve_cmd(dir.path(), &args)
        .env("STAND_IN_KEY", "sk-test")
        .output()
        .unwrap();
    assert_code(&out, 0);
    let n = solvable().len() * 2;
    assert_eq!(server.requests(), n);
    let max = server.state.max_in_flight.load(Ordering::SeqCst);
    assert!(
        max > 1 && max <= 3,
        "max in flight {max} with --concurrency 3"
    );
    assert!(server
        .state
        .auth
        .lock()
        .unwrap()
        .iter()
        .all(|a| a.as_deref() == Some("Bearer sk-test")));
    assert!(server
        .state
        .paths
        .lock()
        .unwrap()
        .iter()
        .all(|p| p == "/v1/chat/completions"));
    let rows = candidates(dir.path(), "m");
    assert_eq!(rows.len(), n);
    for c in &rows {
        let f = Fixture::by_id(&c.task_id);
        assert_eq!(c.status, "ok".parse().unwrap(), "{c:?}");
        assert_eq!(c.model, spec);
        assert_eq!(c.raw.as_deref(), Some(chat_answer(f).as_str()));
        let want = if f.entry == "word_count" {
            format!("{}\n{}", f.imports, f.function())
        } else {
            f.canonical()
        };
        assert_eq!(c.answer.as_deref(), Some(want.as_str()));
        assert_eq!((c.tokens_in, c.tokens_out), (Some(42), Some(7)));
        assert_eq!(c.prompt_hash.len(), 64);
        assert!(c.latency_ms >= 100.0, "latency {}", c.latency_ms);
    }
    let hashes: std::collections::BTreeSet<&str> =
        rows.iter().map(|c| c.prompt_hash.as_str()).collect();
    assert_eq!(hashes.len(), solvable().len(), "one request body per task");

    // Again, replacing the table: every answer from the cache, no request.
    let out = solve(dir.path(), &[&args[..], &["--force"]].concat());
    assert_code(&out, 0);
    assert_eq!(server.requests(), n, "the cache was not used");
    assert!(
        stdout(&out).contains(&format!("{n} from the cache, 0 asked")),
        "{}",
        stdout(&out)
    );
    let again = candidates(dir.path(), "m");
    let answers = |rows: &[schemas::Candidate]| -> Vec<Option<String>> {
        rows.iter().map(|c| c.answer.clone()).collect()
    };
    assert_eq!(answers(&again), answers(&rows));
    assert_eq!(again[0].tokens_in, Some(42));

    // Another temperature is another key: asked again.
    let out = solve(
        dir.path(),
        &[
            &args[..],
            &["--force", "--temperature", "0.5", "--limit", "1"],
        ]
        .concat(),
    );
    assert_code(&out, 0);
    assert_eq!(server.requests(), n + 2, "one task, two samples");
}

#[test]
fn retries_after_429_and_500_succeed() {
    let server = StandIn::start(0);
    server.state.fail_429.store(3, Ordering::SeqCst);
    server.state.fail_500.store(2, Ordering::SeqCst);
    let dir = dataset(true);
    let spec = server.spec();
    let started = Instant::now();
    let out = solve(
        dir.path(),
        &[
            "--run",
            "r",
            "--model",
            &spec,
            "--limit",
            "2",
            "--concurrency",
            "1",
            "--no-cache",
            "--retry-base-ms",
            "20",
        ],
    );
    assert_code(&out, 0);
    assert_eq!(server.requests(), 2 + 3 + 2);
    assert_eq!(server.served().len(), 2);
    assert!(candidates(dir.path(), "r")
        .iter()
        .all(|c| c.status == "ok".parse().unwrap()));
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn exhausted_retries_are_error_rows_and_a_rerun_asks_them_again() {
    let server = StandIn::start(0);
    server.state.fail_500.store(1000, Ordering::SeqCst);
    let dir = dataset(true);
    let cache = dir.path().join("cache");
    let spec = server.spec();
    let args = [
        "--run",
        "r",
        "--model",
        &spec,
        "--limit",
        "3",
        "--retries",
        "2",
        "--retry-base-ms",
        "5",
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    let out = solve(dir.path(), &args);
    assert_code(&out, 1);
    assert_eq!(server.requests(), 3 * 3, "3 answers, 3 attempts each");
    let rows = candidates(dir.path(), "r");
    assert_eq!(rows.len(), 3);
    for c in &rows {
        assert_eq!(c.status, "error".parse().unwrap());
        let e = c.error.as_deref().unwrap();
        assert!(
            e.contains("HTTP 500") && e.contains("after 3 attempts"),
            "{e}"
        );
        assert_eq!(c.answer, None);
    }
    // Failures are not cached: the rerun asks the three again and completes them.
    server.state.fail_500.store(0, Ordering::SeqCst);
    let out = solve(dir.path(), &args);
    assert_code(&out, 0);
    assert_eq!(server.requests(), 9 + 3);
    assert!(candidates(dir.path(), "r")
        .iter()
        .all(|c| c.status == "ok".parse().unwrap()));
}

#[test]
fn completions_api_continues_the_prompt() {
    let server = StandIn::start(0);
    let dir = dataset(true);
    let spec = server.spec();
    let out = solve(
        dir.path(),
        &[
            "--run",
            "c",
            "--model",
            &spec,
            "--api",
            "completions",
            "--no-cache",
        ],
    );
    assert_code(&out, 0);
    assert!(server
        .state
        .paths
        .lock()
        .unwrap()
        .iter()
        .all(|p| p == "/v1/completions"));
    let rows = candidates(dir.path(), "c");
    assert_eq!(rows.len(), solvable().len());
    for c in &rows {
        let f = Fixture::by_id(&c.task_id);
        assert_eq!(c.raw.as_deref(), Some(f.body));
        assert_eq!(c.answer.as_deref(), Some(f.canonical().as_str()));
        assert_eq!(c.tokens_in, Some(40));
    }
}

#[test]
fn a_refused_key_stops_the_run_with_exit_2() {
    let server = StandIn::start(0);
    server.state.always.store(401, Ordering::SeqCst);
    let dir = dataset(true);
    let spec = server.spec();
    let out = solve(
        dir.path(),
        &[
            "--run",
            "k",
            "--model",
            &spec,
            "--no-cache",
            "--concurrency",
            "1",
            "--api-key-env",
            "SOLVE_TEST_UNSET_KEY",
        ],
    );
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("401") && err.contains("API key"), "{err}");
    assert_eq!(server.requests(), 1, "the run went on after a 401");
}

#[test]
fn a_killed_run_resumes_asking_only_the_missing_answers() {
    let server = StandIn::start(250);
    let dir = dataset(true);
    let spec = server.spec();
    let args = [
        "--run",
        "k",
        "--model",
        &spec,
        "--samples",
        "2",
        "--concurrency",
        "1",
        "--no-cache",
        "--checkpoint-secs",
        "0",
    ];
    let total = solvable().len() * 2;
    let path = candidates_path(dir.path(), "k");
    let mut child = solve_cmd(dir.path(), &args).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let rows: Vec<schemas::Candidate> = schemas::read_table_from(&path).unwrap_or_default();
        if rows.len() >= 3 {
            break;
        }
        assert!(Instant::now() < deadline, "no checkpoint came");
        assert!(
            child.try_wait().unwrap().is_none(),
            "solve ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Let a request the killed run had in flight reach the stand-in before counting.
    std::thread::sleep(Duration::from_millis(600));
    let before = candidates(dir.path(), "k");
    assert!(
        before.len() >= 3 && before.len() < total,
        "{} rows",
        before.len()
    );
    assert!(before.iter().all(|c| c.status == "ok".parse().unwrap()));

    // The rerun asks for exactly what the checkpoint lacks.
    let first_requests = server.requests();
    server.state.served.lock().unwrap().clear();
    let out = solve(dir.path(), &args);
    assert_code(&out, 0);
    assert_eq!(server.requests() - first_requests, total - before.len());
    let mut missing: Vec<String> = solvable()
        .iter()
        .flat_map(|f| (0..2).map(move |s| (f, s)))
        .filter(|(f, s)| !before.iter().any(|c| c.task_id == f.id && c.sample == *s))
        .map(|(f, _)| f.entry.to_string())
        .collect();
    missing.sort();
    assert_eq!(server.served(), missing);
    let after = candidates(dir.path(), "k");
    assert_eq!(after.len(), total);
    assert!(after.iter().all(|c| c.status == "ok".parse().unwrap()));
    // The answers of the first run were kept as they were, not asked again.
    let kept: BTreeMap<(String, i32), f64> = after
        .iter()
        .map(|c| ((c.task_id.clone(), c.sample), c.latency_ms))
        .collect();
    for c in &before {
        // Bit for bit: the row was kept, not made again.
        assert_eq!(
            kept[&(c.task_id.clone(), c.sample)].to_bits(),
            c.latency_ms.to_bits()
        );
    }
}

#[test]
fn completion_tasks_over_fim_prompts() {
    let server = StandIn::start(0);
    let dir = completion_dataset(true);
    let spec = format!("openai-fim:Qwen2.5-Coder-7B@{}", server.base);
    let out = solve(
        dir.path(),
        &[
            "--run",
            "fim",
            "--model",
            &spec,
            "--family",
            "completion",
            "--no-cache",
            "--max-tokens",
            "64",
        ],
    );
    assert_code(&out, 0);
    assert!(server
        .state
        .paths
        .lock()
        .unwrap()
        .iter()
        .all(|p| p == "/v1/completions"));
    let bodies = server.state.bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), solvable_masked().len());
    for b in &bodies {
        let prompt = b["prompt"].as_str().unwrap();
        let m = solvable_masked()
            .into_iter()
            .find(|m| prompt.contains(m.prefix))
            .expect("the prefix is in the prompt");
        assert!(
            !prompt.contains(m.reference),
            "the reference is in {prompt:?}"
        );
        let (p, s, mid) = (
            prompt.find("<|fim_prefix|>").unwrap(),
            prompt.find("<|fim_suffix|>").unwrap(),
            prompt.find("<|fim_middle|>").unwrap(),
        );
        assert!(
            p < s && s < mid && prompt.ends_with("<|fim_middle|>"),
            "{prompt}"
        );
        assert!(prompt.contains(&format!(
            "<|fim_prefix|>{}<|fim_suffix|>{}<|fim_middle|>",
            m.prefix, m.suffix
        )));
        if m.id == "c01" {
            // The context, with the file separator, before the prefix.
            assert!(prompt.starts_with("<|file_sep|>pkg/util.py\ndef twice(x):\n    return 2 * x\n<|file_sep|>pkg/mod.py\n<|fim_prefix|>"), "{prompt}");
        }
        assert_eq!(b["max_tokens"], 64);
        assert_eq!(b["stop"][0], "<|endoftext|>");
        assert_eq!(b["model"], "Qwen2.5-Coder-7B");
    }
    let rows = candidates(dir.path(), "fim");
    assert_eq!(rows.len(), solvable_masked().len());
    for c in &rows {
        let m = Masked::by_id(&c.task_id);
        assert_eq!(c.model, spec);
        assert_eq!(c.answer.as_deref(), Some(m.reference), "{c:?}");
        assert_eq!(c.raw.as_deref(), Some(masked_fim_answer(m).as_str()));
        assert_eq!(c.tokens_in, Some(30));
    }
    // Another preset is another prompt: asked again, not kept.
    let again = solve(
        dir.path(),
        &[
            "--run",
            "fim",
            "--model",
            &spec,
            "--family",
            "completion",
            "--no-cache",
            "--max-tokens",
            "64",
            "--fim-preset",
            "starcoder",
        ],
    );
    assert_code(&again, 0);
    let bodies = server.state.bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), 2 * solvable_masked().len());
    assert!(bodies[solvable_masked().len()..]
        .iter()
        .all(|b| b["prompt"].as_str().unwrap().contains("<fim_middle>")));
}

#[test]
fn completion_tasks_over_chat() {
    let server = StandIn::start(0);
    let dir = completion_dataset(true);
    let spec = server.spec();
    let out = solve(
        dir.path(),
        &[
            "--run",
            "chat",
            "--model",
            &spec,
            "--family",
            "completion",
            "--no-cache",
        ],
    );
    assert_code(&out, 0);
    let bodies = server.state.bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), solvable_masked().len());
    for b in &bodies {
        let user = b["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("<MASK>"), "{user}");
        let m = solvable_masked()
            .into_iter()
            .find(|m| user.contains(&format!("{}<MASK>{}", m.prefix, m.suffix)))
            .expect("the file with the marker");
        assert!(!user.contains(m.reference), "the reference is in {user:?}");
    }
    let rows = candidates(dir.path(), "chat");
    for c in &rows {
        let m = Masked::by_id(&c.task_id);
        // The repeated `return ` of c01 dropped, the fence taken.
        assert_eq!(c.answer.as_deref(), Some(m.reference), "{c:?}");
    }
    // The completions endpoint without a FIM format refuses completion tasks.
    let out = solve(
        dir.path(),
        &[
            "--run",
            "plain",
            "--model",
            &spec,
            "--api",
            "completions",
            "--no-cache",
        ],
    );
    assert_code(&out, 2);
    assert!(stderr(&out).contains("--fim-preset"), "{}", stderr(&out));
}

#[test]
fn assertion_tasks_over_chat_and_completions() {
    let server = StandIn::start(0);
    let dir = assertion_dataset(false);
    let spec = server.spec();
    let want = |id: &str| {
        let t = asserted_by_id(id);
        match (t.form, t.kind) {
            (schemas::AssertionForm::Verify, _) => "True",
            (_, schemas::AssertionKind::Raises) => "TypeError",
            _ => "5",
        }
    };
    for api in ["chat", "completions"] {
        let run = format!("assert-{api}");
        let out = solve(
            dir.path(),
            &[
                "--run",
                &run,
                "--model",
                &spec,
                "--api",
                api,
                "--family",
                "assertion",
                "--no-cache",
            ],
        );
        assert_code(&out, 0);
        let rows = candidates(dir.path(), &run);
        assert_eq!(rows.len(), solvable_asserted().len());
        for c in &rows {
            assert_eq!(c.answer.as_deref(), Some(want(&c.task_id)), "{api}: {c:?}");
            assert_eq!(c.tokens_in, Some(50));
        }
    }
    let bodies = server.state.bodies.lock().unwrap().clone();
    let n = solvable_asserted().len();
    assert_eq!(bodies.len(), 2 * n);
    for b in &bodies[..n] {
        let user = b["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("# file: pkg/prices.py\ndef total("), "{user}");
        assert!(
            user.contains("# file: tests/test_prices.py\nimport pytest\n"),
            "{user}"
        );
        // Neither the answer's place nor the memorized value is given away.
        assert!(
            !user.contains("mutat") && !user.contains("original"),
            "{user}"
        );
    }
    for b in &bodies[n..] {
        let prompt = b["prompt"].as_str().unwrap();
        assert_eq!(b["stop"], serde_json::json!(["\n"]));
        assert!(prompt.contains("# file: pkg/prices.py\n"), "{prompt}");
        assert!(
            prompt.ends_with("assert total(prices, discount=1) == ")
                || prompt.ends_with("with pytest.raises(")
                || prompt.ends_with("# Answer:"),
            "{prompt}"
        );
    }
}

/// The answer solve makes of [`chat_answer`]: the fence's code, `word_count`'s imports put
/// back.
fn chat_cleaned(f: &Fixture) -> String {
    if f.entry == "word_count" {
        format!("{}\n{}", f.imports, f.function())
    } else {
        f.canonical()
    }
}

/// `solve --run RUN --model SPEC` and more arguments.
fn run_args(run: &str, spec: &str, extra: &[&str]) -> Vec<String> {
    ["--run", run, "--model", spec]
        .iter()
        .chain(extra)
        .map(|s| (*s).to_string())
        .collect()
}

fn solve_with(dir: &std::path::Path, args: &[String]) -> std::process::Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    solve(dir, &args)
}

/// The user message of a chat body (the last message of role `user`).
fn user_of(body: &serde_json::Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string()
}

#[test]
fn seeds_stops_and_the_system_message_are_sent() {
    let server = StandIn::start(0);
    let dir = dataset(true);
    let cache = dir.path().join("cache");
    let spec = server.spec();
    let cache_args = ["--cache-dir", cache.to_str().unwrap(), "--limit", "2"];
    let new_bodies = |since: &mut usize| {
        let all = server.bodies();
        let fresh = all[*since..].to_vec();
        *since = all.len();
        fresh
    };
    let mut seen = 0;

    // No option: no seed, no stop, the family's system message first.
    let out = solve_with(dir.path(), &run_args("plain", &spec, &cache_args));
    assert_code(&out, 0);
    let ids: Vec<String> = candidates(dir.path(), "plain")
        .into_iter()
        .map(|c| c.task_id)
        .collect();
    assert_eq!(ids, ["t01", "t02"], "--limit 2 takes the first task ids");
    for b in new_bodies(&mut seen) {
        assert!(b.get("seed").is_none() && b.get("stop").is_none(), "{b}");
        assert_eq!(b["messages"][0]["role"], "system");
        assert_eq!(b["messages"][0]["content"], solve::prompt::function::SYSTEM);
        assert_eq!(b["messages"].as_array().unwrap().len(), 2);
    }

    // A seed per sample, the stops and the system text given.
    let given = [
        &cache_args[..],
        &[
            "--samples",
            "2",
            "--seed",
            "40",
            "--stop",
            "\nEND",
            "--stop",
            "###",
            "--system",
            "Answer in Python.",
        ],
    ]
    .concat();
    let out = solve_with(dir.path(), &run_args("given", &spec, &given));
    assert_code(&out, 0);
    let bodies = new_bodies(&mut seen);
    assert_eq!(bodies.len(), 4, "two tasks, two samples");
    let mut seeds: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for b in &bodies {
        assert_eq!(b["stop"], serde_json::json!(["\nEND", "###"]));
        assert_eq!(
            b["messages"][0],
            serde_json::json!({"role": "system", "content": "Answer in Python."})
        );
        seeds
            .entry(user_of(b))
            .or_default()
            .push(b["seed"].as_i64().unwrap());
    }
    assert_eq!(seeds.len(), 2);
    for s in seeds.values_mut() {
        s.sort_unstable();
        assert_eq!(s, &[40, 41], "seed N + sample");
    }
    assert!(candidates(dir.path(), "given")
        .iter()
        .all(|c| c.status == "ok".parse().unwrap()));
    // The same options again: every row kept. Another seed: asked again (not from the
    // cache, whose key holds the seed).
    let out = solve_with(dir.path(), &run_args("given", &spec, &given));
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("4 kept from an earlier run, 0 from the cache, 0 asked"),
        "{}",
        stdout(&out)
    );
    let reseeded: Vec<String> = given
        .iter()
        .map(|a| if *a == "40" { "50" } else { a })
        .map(str::to_string)
        .collect();
    let out = solve_with(
        dir.path(),
        &run_args(
            "given",
            &spec,
            &reseeded.iter().map(String::as_str).collect::<Vec<_>>(),
        ),
    );
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("0 kept from an earlier run, 0 from the cache, 4 asked"),
        "{}",
        stdout(&out)
    );
    let mut s: Vec<i64> = new_bodies(&mut seen)
        .iter()
        .map(|b| b["seed"].as_i64().unwrap())
        .collect();
    s.sort_unstable();
    assert_eq!(s, [50, 50, 51, 51]);

    // `--system ''`: no system message at all.
    let out = solve_with(
        dir.path(),
        &run_args(
            "bare",
            &spec,
            &[&cache_args[..], &["--system", ""]].concat(),
        ),
    );
    assert_code(&out, 0);
    for b in new_bodies(&mut seen) {
        let m = b["messages"].as_array().unwrap();
        assert_eq!(m.len(), 1, "{b}");
        assert_eq!(m[0]["role"], "user");
        assert!(m[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Implement the Python function"));
    }

    // `--system @FILE --system-role user`: the file's text opens the user message.
    let file = dir.path().join("system.txt");
    std::fs::write(&file, "You only write Python.\n").unwrap();
    let at = format!("@{}", file.display());
    let out = solve_with(
        dir.path(),
        &run_args(
            "in-user",
            &spec,
            &[&cache_args[..], &["--system", &at, "--system-role", "user"]].concat(),
        ),
    );
    assert_code(&out, 0);
    for b in new_bodies(&mut seen) {
        let m = b["messages"].as_array().unwrap();
        assert_eq!(m.len(), 1, "{b}");
        assert_eq!(m[0]["role"], "user");
        assert!(
            m[0]["content"]
                .as_str()
                .unwrap()
                .starts_with("You only write Python.\n\nImplement the Python function"),
            "{b}"
        );
    }
    assert!(candidates(dir.path(), "in-user")
        .iter()
        .all(|c| c.answer.as_deref() == Some(chat_cleaned(Fixture::by_id(&c.task_id)).as_str())));

    // The completions endpoint: the family's stops, replaced by --stop, none with --no-stop.
    let comp = [&cache_args[..], &["--api", "completions"]].concat();
    let out = solve_with(dir.path(), &run_args("comp", &spec, &comp));
    assert_code(&out, 0);
    for b in new_bodies(&mut seen) {
        assert_eq!(
            b["stop"],
            serde_json::json!(solve::prompt::function::COMPLETION_STOP)
        );
        assert!(b.get("seed").is_none());
    }
    let out = solve_with(
        dir.path(),
        &run_args(
            "comp-stop",
            &spec,
            &[&comp[..], &["--stop", "\n\n\n", "--seed", "7"]].concat(),
        ),
    );
    assert_code(&out, 0);
    for b in new_bodies(&mut seen) {
        assert_eq!(b["stop"], serde_json::json!(["\n\n\n"]));
        assert_eq!(b["seed"], 7, "sample 0 gets the seed itself");
    }
    let out = solve_with(
        dir.path(),
        &run_args("comp-none", &spec, &[&comp[..], &["--no-stop"]].concat()),
    );
    assert_code(&out, 0);
    let bodies = new_bodies(&mut seen);
    assert_eq!(bodies.len(), 2);
    for b in bodies {
        assert!(b.get("stop").is_none(), "{b}");
    }
}

#[test]
fn reasoning_is_stripped_from_answers_and_kept_in_raw() {
    let server = StandIn::start(0);
    let dir = dataset(true);
    let spec = server.spec();
    let ask = |run: &str, think: Think| {
        server.think(think);
        let out = solve_with(
            dir.path(),
            &run_args(run, &spec, &["--no-cache", "--limit", "3"]),
        );
        assert_code(&out, 0);
        let rows = candidates(dir.path(), run);
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|c| c.status == "ok".parse().unwrap()));
        rows
    };
    // A `<think>` block (holding a fenced draft) before the answer: dropped from the answer,
    // kept in raw; completion tokens count the reasoning.
    for c in ask("block", Think::Block) {
        let f = Fixture::by_id(&c.task_id);
        assert_eq!(c.answer.as_deref(), Some(chat_cleaned(f).as_str()));
        assert_eq!(c.raw.as_deref(), Some(thinking_answer(f).as_str()));
        assert_eq!((c.tokens_in, c.tokens_out), (Some(42), Some(30)));
    }
    // Reasoning in a field of its own is never the answer, nor in raw.
    for c in ask("field", Think::Field) {
        let f = Fixture::by_id(&c.task_id);
        assert_eq!(c.answer.as_deref(), Some(chat_cleaned(f).as_str()));
        assert_eq!(c.raw.as_deref(), Some(chat_answer(f).as_str()));
        assert_eq!(c.tokens_out, Some(30));
    }
    // Cut inside reasoning that never closes: an empty answer in an ok row (it fails when
    // executed), though the reasoning holds the reference in a fence.
    for c in ask("cut", Think::Unclosed) {
        let f = Fixture::by_id(&c.task_id);
        assert_eq!(c.answer.as_deref(), Some(""));
        assert_eq!(c.raw.as_deref(), Some(unfinished_answer(f).as_str()));
        assert_eq!(c.tokens_out, Some(64));
    }
    for c in ask("only-field", Think::FieldOnly) {
        assert_eq!(c.answer.as_deref(), Some(""));
        assert_eq!(c.raw.as_deref(), Some(""));
        assert_eq!(c.tokens_out, Some(64));
    }
}

#[test]
fn costs_come_from_the_prices_and_the_summary_totals_them() {
    let server = StandIn::start(0);
    let dir = dataset(true);
    let cache = dir.path().join("cache");
    let spec = server.spec();
    let n = solvable().len();
    let cached = ["--cache-dir", cache.to_str().unwrap()];
    let flat = [&cached[..], &["--price-in", "0.2", "--price-out", "0.6"]].concat();
    let each = (42.0 * 0.2 + 7.0 * 0.6) / 1e6;
    let costs_are = |run: &str, want: f64| {
        let rows = candidates(dir.path(), run);
        assert_eq!(rows.len(), n);
        for c in rows {
            let cost = c.cost.unwrap_or(f64::NAN);
            assert!((cost - want).abs() < 1e-15, "{cost} != {want}: {c:?}");
        }
    };
    let totals = |cost: f64| format!("; {} tokens in, {} out, cost {cost:.6}", 42 * n, 7 * n);

    let out = solve_with(dir.path(), &run_args("p", &spec, &flat));
    assert_code(&out, 0);
    assert_eq!(server.requests(), n);
    costs_are("p", each);
    assert!(
        stdout(&out).contains(&totals(each * n as f64)),
        "{}",
        stdout(&out)
    );

    // Other prices, from a file: nothing asked again, every kept row repriced.
    let prices = dir.path().join("prices.toml");
    std::fs::write(
        &prices,
        "# per million tokens\n[\"stand-in-coder\"]\nin = 1\nout = 2.0\n\n[\"qwen2.5-coder\"]\nin = 0.2\nout = 0.6\n",
    )
    .unwrap();
    let from_file = [&cached[..], &["--prices", prices.to_str().unwrap()]].concat();
    let out = solve_with(dir.path(), &run_args("p", &spec, &from_file));
    assert_code(&out, 0);
    assert_eq!(server.requests(), n, "other prices asked again");
    assert!(
        stdout(&out).contains(&format!("{n} kept from an earlier run")),
        "{}",
        stdout(&out)
    );
    let each_file = (42.0 + 7.0 * 2.0) / 1e6;
    costs_are("p", each_file);
    assert!(stdout(&out).contains(&totals(each_file * n as f64)));

    // Cached answers cost what producing them did.
    let out = solve_with(
        dir.path(),
        &run_args("p", &spec, &[&flat[..], &["--force"]].concat()),
    );
    assert_code(&out, 0);
    assert_eq!(server.requests(), n);
    assert!(stdout(&out).contains(&format!("{n} from the cache")));
    costs_are("p", each);

    // Without prices there is no cost, and the summary says how to give one.
    let out = solve_with(dir.path(), &run_args("free", &spec, &cached));
    assert_code(&out, 0);
    assert!(candidates(dir.path(), "free")
        .iter()
        .all(|c| c.cost.is_none() && c.tokens_in == Some(42)));
    assert!(
        stdout(&out).contains(&format!(
            "{} tokens in, {} out, cost unknown (give --price-in and --price-out, or --prices)",
            42 * n,
            7 * n
        )),
        "{}",
        stdout(&out)
    );

    // Reference solvers cost nothing.
    let out = solve(dir.path(), &["--run", "o", "--model", "oracle"]);
    assert_code(&out, 0);
    costs_are("o", 0.0);
    assert!(
        stdout(&out).contains("no token counts, cost 0.000000"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn bad_options_exit_2_saying_what_to_change() {
    let server = StandIn::start(0);
    let dir = dataset(true);
    let spec = server.spec();
    let bad_toml = dir.path().join("bad.toml");
    std::fs::write(&bad_toml, "[\"stand-in-coder\"]\nin = 0.2\nout =\n").unwrap();
    let other = dir.path().join("other.toml");
    std::fs::write(&other, "[\"qwen2.5-coder\"]\nin = 0.2\nout = 0.6\n").unwrap();
    let no_file = dir.path().join("no-such-ids.txt");
    let (bad_toml, other, no_file) = (
        bad_toml.to_str().unwrap(),
        other.to_str().unwrap(),
        no_file.to_str().unwrap(),
    );
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec![
                "--stop", "a", "--stop", "b", "--stop", "c", "--stop", "d", "--stop", "e",
            ],
            vec!["--stop given 5 times", "at most 4", "give at most 4 --stop"],
        ),
        (
            vec!["--prices", bad_toml],
            vec![bad_toml, "not a price table", "line 3", "in = 0.2"],
        ),
        (
            vec!["--prices", other],
            vec![
                other,
                "no prices for model `stand-in-coder`",
                "qwen2.5-coder",
                "[\"stand-in-coder\"]",
            ],
        ),
        (
            vec!["--tasks", no_file],
            vec!["--tasks", no_file, "cannot read", "one a line"],
        ),
        (
            vec!["--system", "@/nonexistent/system.txt"],
            vec!["--system @/nonexistent/system.txt", "cannot read"],
        ),
        (vec!["--price-in", "0.2"], vec!["--price-out"]),
        (
            vec!["--price-in=-1", "--price-out", "1"],
            vec!["give a number >= 0"],
        ),
        (vec!["--stop", "x", "--no-stop"], vec!["--no-stop"]),
    ];
    for (extra, says) in cases {
        let out = solve_with(dir.path(), &run_args("bad", &spec, &extra));
        assert_code(&out, 2);
        let err = stderr(&out);
        for s in says {
            assert!(err.contains(s), "{extra:?}: {s:?} not in {err}");
        }
    }
    assert_eq!(server.requests(), 0, "a bad option still asked the model");
}

#[test]
fn a_tasks_file_selects_tasks() {
    let server = StandIn::start(0);
    let dir = dataset(true);
    let spec = server.spec();
    let ids = dir.path().join("ids.txt");
    std::fs::write(&ids, "# the branchy ones\nt05\n\n  t02  # clamp\n").unwrap();
    let out = solve_with(
        dir.path(),
        &run_args(
            "some",
            &spec,
            &[
                "--no-cache",
                "--tasks",
                ids.to_str().unwrap(),
                "--task",
                "t01",
            ],
        ),
    );
    assert_code(&out, 0);
    assert_eq!(server.served(), ["add", "clamp", "fizzbuzz"]);
    let got: Vec<String> = candidates(dir.path(), "some")
        .into_iter()
        .map(|c| c.task_id)
        .collect();
    assert_eq!(got, ["t01", "t02", "t05"]);
}

#[test]
fn the_help_shows_the_defaults_it_replaces() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_solve"))
        .arg("--help")
        .output()
        .unwrap();
    assert_code(&out, 0);
    let help = stdout(&out);
    for default in [
        solve::prompt::function::SYSTEM,
        solve::prompt::completion::SYSTEM,
        solve::prompt::assertion::SYSTEM,
    ] {
        // Wrapped over lines: compare the words.
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words(&help).contains(&words(default)), "{default}");
    }
    assert!(help.contains(r#"function tasks: "\ndef ", "\nclass ", "\nif __name__", "\nprint(""#));
    assert!(help.contains(r#"qwen: "<|endoftext|>""#), "{help}");
}
