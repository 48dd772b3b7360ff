//! The report rendered by a real browser: headless Chromium takes a screenshot, which must
//! be a valid PNG with something drawn on it. The screenshot is copied to
//! `target/report-screenshot.png` for a human to look at.
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
}
