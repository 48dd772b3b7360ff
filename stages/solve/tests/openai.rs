//! `solve --model openai:MODEL@URL` against a stand-in of an OpenAI-compatible server on
//! 127.0.0.1 (a `TcpListener` speaking just enough HTTP/1.1): concurrency, retries after
//! 429 and 500, the cache, resuming after a kill, the completions API, a refused key, and
//! completion tasks over the chat endpoint and with fill-in-the-middle prompts, assertion
//! tasks over both endpoints.

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
            request["messages"][1]["content"]
                .as_str()
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
                let reply = if path.ends_with("/chat/completions") {
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
