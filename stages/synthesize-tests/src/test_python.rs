//! For tests: a bare `python3` running a script of the test's own on JSON the test wrote
//! (to check generated text against Python's own `re` and decoders; no repository code).

/// What `script` prints for `input` on its standard input, when it succeeds. `None`, with
/// the reason printed, when there is no `python3` (the caller skips); a failing script
/// fails the test.
pub fn json_through(script: &str, input: &str, what: &str) -> Option<Vec<u8>> {
    let mut child = match std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("skipped: no python3 to {what} ({e})");
            return None;
        }
    };
    std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), input.as_bytes())
        .expect("write");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}
