//! The report and a task page rendered by a real browser: headless Chromium takes a
//! screenshot of each, which must be a valid PNG with something drawn on it (the report's
//! bars, the page's coloured diff lines). The screenshots are copied to
//! `target/report-screenshot.png` and `target/task-page-screenshot.png` for a human to look
//! at. The task page's text is checked too: its answer, its diff and its failing case.
//!
//! Skips, saying why, when no Chromium is on `PATH` (Debian: `apt-get install chromium`).

mod common;

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BROWSERS: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

fn find_browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    BROWSERS.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// A decoded 8-bit PNG: width, height, channels and the unfiltered pixel bytes.
struct Image {
    width: usize,
    height: usize,
    channels: usize,
    pixels: Vec<u8>,
}

/// Decodes the PNGs Chromium writes (8-bit RGB or RGBA, not interlaced): chunks, the
/// inflated IDAT stream and the five scanline filters.
fn decode_png(bytes: &[u8]) -> Image {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    let mut at = 8;
    let (mut width, mut height, mut channels) = (0, 0, 0);
    let mut idat = Vec::new();
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                height = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(data[8], 8, "bit depth");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    other => panic!("colour type {other} not handled"),
                };
                assert_eq!(data[12], 0, "interlaced");
            }
            b"IDAT" => idat.extend_from_slice(data),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .expect("inflate IDAT");
    let stride = width * channels;
    assert_eq!(raw.len(), height * (stride + 1), "scanlines");
    let mut pixels = vec![0u8; height * stride];
    for y in 0..height {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= channels {
                pixels[y * stride + x - channels]
            } else {
                0
            };
            let b = if y > 0 {
                pixels[(y - 1) * stride + x]
            } else {
                0
            };
            let c = if x >= channels && y > 0 {
                pixels[(y - 1) * stride + x - channels]
            } else {
                0
            };
            let predictor = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => u8::midpoint(a, b),
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                other => panic!("filter {other}"),
            };
            pixels[y * stride + x] = line[x].wrapping_add(predictor);
        }
    }
    Image {
        width,
        height,
        channels,
        pixels,
    }
}

fn screenshot(browser: &Path, html: &Path, png: &Path, profile: &Path) {
    let mut child = Command::new(browser)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-extensions",
            "--force-device-scale-factor=1",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1280,2400")
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the browser");
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            assert!(
                png.is_file(),
                "no screenshot (browser exit {status}):\n{err}"
            );
            return;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the browser took more than 3 minutes to take a screenshot");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn report_renders_in_a_browser() {
    let Some(browser) = find_browser() else {
        println!(
            "skipped: no chromium on PATH (looked for {}); install Debian's chromium package \
             (apt-get install chromium) to run this test",
            BROWSERS.join(", ")
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    common::write_dataset(&dir);
    common::write_run(&dir, "oracle", "oracle", &common::all_tasks(), 1, |_, _| {
        true
    });
    common::write_run(&dir, "null", "null", &common::all_tasks(), 3, |_, _| false);
    common::realistic_failures(&dir, "null", None);
    common::realistic_failures(&dir, "oracle", Some(0.0));
    common::write_run(
        &dir,
        "model-a",
        "openai:model-a@http://localhost:8000",
        &common::all_tasks(),
        5,
        |i, s| {
            // Better on the older repository, as a model that has seen it would be.
            if i < 4 {
                s < 4
            } else {
                (i + s as usize) % 4 == 0
            }
        },
    );
    common::realistic_failures(&dir, "model-a", Some(0.0125));
    let out = common::score(&[
        "--data",
        dir.to_str().unwrap(),
        "--run",
        "model-a",
        "--run",
        "oracle",
        "--run",
        "null",
        "--cutoff",
        "2024-01-01",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = dir.join("runs/model-a/report.html");
    let png = tmp.path().join("report.png");
    screenshot(&browser, &html, &png, &tmp.path().join("profile"));

    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.len() > 20_000, "screenshot of {} bytes", bytes.len());
    let shot = common::target_dir().join("report-screenshot.png");
    std::fs::copy(&png, &shot).unwrap();
    std::fs::copy(&html, common::target_dir().join("report-example.html")).unwrap();
    println!("screenshot: {}", shot.display());

    let img = decode_png(&bytes);
    assert_eq!((img.width, img.height), (1280, 2400));
    let mut colours = std::collections::HashSet::new();
    let mut not_background = 0usize;
    let background = img.pixels[..3].to_vec();
    for px in img.pixels.chunks(img.channels) {
        colours.insert(px[..3].to_vec());
        if px[..3] != background[..] {
            not_background += 1;
        }
    }
    assert!(colours.len() > 50, "{} colours", colours.len());
    // Text, cards and charts cover a good part of the page.
    let share = not_background as f64 / (img.width * img.height) as f64;
    assert!(
        share > 0.2,
        "only {share:.3} of the pixels differ from the background"
    );
    // The runs' colours are drawn (bars): Okabe-Ito blue and orange.
    assert!(colours.contains(&vec![0x00, 0x72, 0xB2]), "no blue bars");
    assert!(colours.contains(&vec![0xE6, 0x9F, 0x00]), "no orange bars");

    task_page_renders(&browser, &dir, &html, tmp.path());
}

/// The page of task t6, which model-a and null fail (wrong values, exceptions, a syntax
/// error): its text holds the answer, the diff's lines and the failing case, and the
/// browser draws it with the diff's colours.
fn task_page_renders(browser: &Path, dir: &Path, report: &Path, tmp: &Path) {
    let dataset = score::data::load_dataset(dir, None).unwrap();
    let runs: Vec<score::data::RunData> = ["model-a", "oracle", "null"]
        .iter()
        .map(|r| score::data::load_run(dir, r, &dataset).unwrap())
        .collect();
    let pages = score::pages::write(dir, &dataset, &runs, report).unwrap();
    assert!(pages >= 5, "{pages} pages");
    let page = report.parent().unwrap().join("tasks/t6.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script") && !html.contains("<link"));
    let text = visible_text(&html);
    for needle in [
        "Task t6",
        "function task  ·  repository beta",
        "Prompt",
        "def f6(x):",
        "Reference solution",
        // model-a's answer, and its diff against the reference.
        "Answerdef f6(x):\n    x = x + 0\n",
        "    x = x + 5\n    x = x + 7\n    return x\n",
        "--- reference solution+++ answer@@ -5,5 +5,5 @@",
        "-    x = x + 6+    x = x + 7",
        // The failing cases: a wrong value, and an exception.
        "Case2Arguments[3]Expected24Returned25",
        "Expected24RaisedTypeError: unsupported operand type(s) for +: 'int' and 'str'",
        // null's syntax error, as it is.
        "syntax: invalid syntax (line 2)",
        "1 of 5 samples passed",
        "0 of 3 samples passed",
    ] {
        assert!(
            text.contains(needle),
            "{needle:?} not in the page's text:\n{text}"
        );
    }

    let png = tmp.join("task-page.png");
    screenshot(browser, &page, &png, &tmp.join("profile-page"));
    let bytes = std::fs::read(&png).unwrap();
    let shot = common::target_dir().join("task-page-screenshot.png");
    std::fs::copy(&png, &shot).unwrap();
    std::fs::copy(&page, common::target_dir().join("task-page-example.html")).unwrap();
    println!("task page screenshot: {}", shot.display());
    let img = decode_png(&bytes);
    assert_eq!((img.width, img.height), (1280, 2400));
    let colours: std::collections::HashSet<Vec<u8>> = img
        .pixels
        .chunks(img.channels)
        .map(|px| px[..3].to_vec())
        .collect();
    // The diff's added and removed lines' backgrounds, the fail badge's orange-red.
    assert!(
        colours.contains(&vec![0xe6, 0xf4, 0xea]),
        "no added line drawn"
    );
    assert!(
        colours.contains(&vec![0xfd, 0xec, 0xea]),
        "no removed line drawn"
    );
    assert!(
        colours.contains(&vec![0xD5, 0x5E, 0x00]),
        "no fail badge drawn"
    );
}

/// The text of an HTML page as a reader sees it, roughly: tags dropped, the entities the
/// pages write decoded.
fn visible_text(html: &str) -> String {
    let body = &html[html.find("<body>").unwrap_or(0)..];
    let mut out = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}
