//! Text in the shapes the standard library's decoders take ([`Shape::of_decoder`]):
//! percent-encoding, URLs, HTML character references, Base64, hexadecimal, IP addresses
//! and UUIDs. Code that hands its argument to `unquote` or `b64decode` branches on what
//! the decoder gives back (`if decoded == url: break`), and random characters decode to
//! themselves or fail at once. Each shape draws mostly valid text, made by encoding drawn
//! values, and now and then a near miss (a broken escape, a bad digit), since the failing
//! decode is behaviour too.

use std::fmt::Write as _;

use base64::Engine as _;
use proptest::prelude::*;
use proptest::strategy::Union;

use crate::types::Shape;

/// One of `items`, as an owned string.
fn texts(items: &[&'static str]) -> BoxedStrategy<String> {
    proptest::sample::select(items.to_vec())
        .prop_map(str::to_string)
        .boxed()
}

/// Plain words and characters that need escaping, the material the encoders encode.
fn plain_text() -> BoxedStrategy<String> {
    let piece = Union::new_weighted(vec![
        (
            4,
            texts(&["a", "path", "name", "x y", "é", "漢", "key", "1"]),
        ),
        (
            3,
            texts(&[
                " ", "/", "?", "&", "=", "#", "%", "+", "<", ">", "\"", "'", ":", "@", ";", ",",
            ]),
        ),
        (2, "[a-z0-9]{1,6}".boxed()),
    ]);
    proptest::collection::vec(piece, 0..6)
        .prop_map(|v| v.concat())
        .boxed()
}

/// `s` percent-encoded: the characters `which` picks (by their byte's index), each byte
/// as `%XX`, in upper or lower case.
fn percent_encode(s: &str, which: &[bool], lower: bool) -> String {
    let mut out = String::new();
    for (i, b) in s.bytes().enumerate() {
        let must = !(b.is_ascii_alphanumeric() || b"-._~".contains(&b));
        if (must && which.get(i % which.len().max(1)).copied().unwrap_or(true)) || b >= 0x80 {
            let _ = if lower {
                write!(out, "%{b:02x}")
            } else {
                write!(out, "%{b:02X}")
            };
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// Characters percent-encoding always escapes, one of which every encoded text holds.
const ESCAPED: &[&str] = &[" ", "/", "?", "&", "=", "#", "%", "+", "é", "€", "\n", "\""];

fn percent() -> BoxedStrategy<String> {
    let material = (
        plain_text(),
        proptest::sample::select(ESCAPED),
        plain_text(),
    )
        .prop_map(|(a, e, b)| format!("{a}{e}{b}"));
    let encoded = (
        material,
        proptest::collection::vec(any::<bool>(), 1..8),
        any::<bool>(),
        // Times it is encoded again (`%2541`: what decodes twice).
        Union::new_weighted(vec![
            (4, Just(0usize)),
            (2, Just(1)),
            (1, Just(2)),
            (1, Just(3)),
        ]),
    )
        .prop_map(|(s, which, lower, again)| {
            let mut t = percent_encode(&s, &which, lower);
            if !t.contains('%') {
                t = percent_encode(&s, &[true], lower);
            }
            for _ in 0..again {
                t = t.replace('%', "%25");
            }
            t
        })
        .boxed();
    let query = proptest::collection::vec((plain_text(), plain_text()), 1..4)
        .prop_map(|kvs| {
            kvs.iter()
                .map(|(k, v)| {
                    format!(
                        "{}={}",
                        percent_encode(k, &[true], false),
                        percent_encode(v, &[true], false).replace("%20", "+")
                    )
                })
                .collect::<Vec<_>>()
                .join("&")
        })
        .boxed();
    let broken = texts(&["%", "%4", "%G1", "100%", "a%2", "%%41", "%zz"]);
    Union::new_weighted(vec![(5, encoded), (2, query), (1, broken)]).boxed()
}

fn url() -> BoxedStrategy<String> {
    let scheme = proptest::sample::select(vec![
        "http://",
        "https://",
        "ftp://",
        "file://",
        "HTTP://",
        "git+ssh://",
        "mailto:",
        "",
        "//",
    ]);
    let user = proptest::sample::select(vec!["", "", "", "user@", "user:pass@", "a%40b@"]);
    let host = proptest::sample::select(vec![
        "example.com",
        "www.example.org",
        "localhost",
        "127.0.0.1",
        "[::1]",
        "[2001:db8::1]",
        "xn--nxasmq6b.com",
        "éxample.com",
        "EXAMPLE.COM",
        "",
    ]);
    let port = proptest::sample::select(vec![
        "", "", "", ":80", ":8080", ":443", ":0", ":99999", ":",
    ]);
    let path = proptest::collection::vec(
        proptest::sample::select(vec!["a", "b", "..", ".", "", "x%20y", "index.html", "é"]),
        0..4,
    )
    .prop_map(|segs| {
        if segs.is_empty() {
            String::new()
        } else {
            format!("/{}", segs.join("/"))
        }
    });
    let query = proptest::sample::select(vec!["", "", "?a=1", "?a=1&b=2", "?q=x%20y", "?", "?a"]);
    let fragment = proptest::sample::select(vec!["", "", "#top", "#", "#a=b"]);
    (scheme, user, host, port, path, query, fragment)
        .prop_map(|(s, u, h, p, path, q, f)| {
            if s == "mailto:" {
                format!("mailto:{u}{h}{q}")
            } else if s.is_empty() {
                // A relative reference: a path and what follows it.
                format!("{}{q}{f}", path.trim_start_matches('/'))
            } else {
                format!("{s}{u}{h}{p}{path}{q}{f}")
            }
        })
        .boxed()
}

fn html() -> BoxedStrategy<String> {
    let reference = texts(&[
        "&amp;",
        "&lt;",
        "&gt;",
        "&quot;",
        "&#39;",
        "&apos;",
        "&nbsp;",
        "&copy;",
        "&eacute;",
        "&#65;",
        "&#x41;",
        "&#X263a;",
        "&#0;",
        "&#1114112;",
        "&amp",
        "&bogus;",
        "&",
        "&#;",
        "&ampx",
    ]);
    proptest::collection::vec(
        Union::new_weighted(vec![(3, reference), (2, plain_text())]),
        1..5,
    )
    .prop_map(|v| v.concat())
    .boxed()
}

fn base64_text() -> BoxedStrategy<String> {
    let valid = (
        proptest::collection::vec(any::<u8>(), 0..24),
        prop_oneof![
            Just(&base64::engine::general_purpose::STANDARD),
            Just(&base64::engine::general_purpose::URL_SAFE),
            Just(&base64::engine::general_purpose::STANDARD_NO_PAD),
        ],
    )
        .prop_map(|(bytes, engine)| engine.encode(bytes))
        .boxed();
    // Text that was Base64 before: words a test would encode.
    let words = proptest::sample::select(vec!["hello", "a", "{\"a\": 1}", "é", "key=value"])
        .prop_map(|w| base64::engine::general_purpose::STANDARD.encode(w))
        .boxed();
    let broken = texts(&["=", "abc", "a===", "!!!!", "YQ", "YW Jj", "-_-_"]);
    Union::new_weighted(vec![(5, valid), (2, words), (1, broken)]).boxed()
}

fn hex_text() -> BoxedStrategy<String> {
    let valid = (proptest::collection::vec(any::<u8>(), 0..16), 0u8..3)
        .prop_map(|(bytes, style)| match style {
            0 => hex::encode(&bytes),
            1 => hex::encode_upper(&bytes),
            _ => bytes
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" "),
        })
        .boxed();
    let broken = texts(&["0", "abc", "0g", "zz", "0x1f", " ", "ff-00"]);
    Union::new_weighted(vec![(5, valid), (1, broken)]).boxed()
}

fn ip() -> BoxedStrategy<String> {
    let octet = Union::new_weighted(vec![
        (6, (0u32..=255).boxed()),
        (1, Just(0u32).boxed()),
        (1, Just(255u32).boxed()),
        (1, (256u32..1000).boxed()),
    ]);
    let v4 = (
        proptest::collection::vec(octet, 4),
        proptest::option::weighted(0.3, 0u32..=33),
    )
        .prop_map(|(os, prefix)| {
            let a = os.iter().map(u32::to_string).collect::<Vec<_>>().join(".");
            match prefix {
                Some(p) => format!("{a}/{p}"),
                None => a,
            }
        })
        .boxed();
    let v6 = (
        proptest::collection::vec(0u32..=0xffff, 1..8),
        any::<bool>(),
        proptest::option::weighted(0.3, 0u32..=129),
    )
        .prop_map(|(groups, compress, prefix)| {
            let gs: Vec<String> = groups.iter().map(|g| format!("{g:x}")).collect();
            let a = if compress || gs.len() < 8 {
                let (head, tail) = gs.split_at(gs.len() / 2);
                format!("{}::{}", head.join(":"), tail.join(":"))
            } else {
                gs.join(":")
            };
            match prefix {
                Some(p) => format!("{a}/{p}"),
                None => a,
            }
        })
        .boxed();
    let named = texts(&[
        "127.0.0.1",
        "0.0.0.0",
        "255.255.255.255",
        "10.0.0.0/8",
        "192.168.1.1",
        "::",
        "::1",
        "fe80::1%eth0",
        "::ffff:1.2.3.4",
        "2001:db8::/32",
        "1.2.3",
        "01.2.3.4",
        "1.2.3.4.5",
        "localhost",
    ]);
    Union::new_weighted(vec![(3, v4), (2, v6), (2, named)]).boxed()
}

fn uuid_text() -> BoxedStrategy<String> {
    (any::<[u8; 16]>(), 0u8..5)
        .prop_map(|(b, style)| {
            let h = hex::encode(b);
            let dashed = format!(
                "{}-{}-{}-{}-{}",
                &h[0..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..32]
            );
            match style {
                0 | 1 => dashed,
                2 => format!("{{{}}}", dashed.to_uppercase()),
                3 => format!("urn:uuid:{dashed}"),
                _ => h,
            }
        })
        .boxed()
}

/// One character: printable ASCII, the odd classes code branches on
/// ([`crate::strategy::ODD_CHARS`]: wide, combining, zero-width, unnamed), or any at all.
fn one_char() -> BoxedStrategy<String> {
    Union::new_weighted(vec![
        (3, proptest::char::range(' ', '~').boxed()),
        (
            4,
            proptest::sample::select(crate::strategy::ODD_CHARS).boxed(),
        ),
        (1, any::<char>().boxed()),
    ])
    .prop_map(String::from)
    .boxed()
}

/// Text of a decoder's shape; `None` for the shapes [`crate::strategy`] draws itself
/// (JSON, numbers, dates).
pub fn strategy(shape: Shape) -> Option<BoxedStrategy<String>> {
    Some(match shape {
        Shape::Json | Shape::Number | Shape::Date => return None,
        Shape::Percent => percent(),
        Shape::Url => url(),
        Shape::Html => html(),
        Shape::Base64 => base64_text(),
        Shape::Hex => hex_text(),
        Shape::Ip => ip(),
        Shape::Uuid => uuid_text(),
        Shape::Char => one_char(),
        Shape::Encoding => proptest::sample::select(CODECS)
            .prop_map(str::to_string)
            .boxed(),
    })
}

/// Codec names as code meets them: the common ones under their usual spellings, one that
/// decodes every byte (`latin-1`), ones that refuse most text (`ascii`) or most bytes
/// (`utf-16`), and one that is no codec.
const CODECS: &[&str] = &[
    "utf-8",
    "ascii",
    "latin-1",
    "latin1",
    "utf-16",
    "cp1252",
    "utf-8-sig",
    "UTF-8",
    "iso-8859-15",
    "no-such-codec",
];

/// Edge values of a decoder's shape: the plain cases and the classic failures.
pub fn edges(shape: Shape) -> &'static [&'static str] {
    match shape {
        Shape::Json | Shape::Number | Shape::Date => &[],
        Shape::Percent => &[
            "a%20b",
            "%2541",
            "%252541",
            "a+b%2Bc",
            "%E2%82%AC",
            "%zz",
            "%",
            "a=1&b=%20",
        ],
        Shape::Url => &[
            "https://user:pass@example.com:8080/a/b?x=1&y=2#frag",
            "http://example.com",
            "/relative/path?q=1",
            "//example.com/a",
            "mailto:a@example.com",
            "http://[::1]:80/",
            "file:///etc/hosts",
            "http://example.com:99999",
        ],
        Shape::Html => &[
            "&amp;",
            "&lt;b&gt;",
            "&#39;&#x41;",
            "&amp;amp;",
            "&bogus;",
            "a & b",
            "&nbsp;",
        ],
        Shape::Base64 => &["aGVsbG8=", "aGVsbG8", "YQ==", "-_8=", "+/8=", "=", "!!!"],
        Shape::Hex => &["00ff", "DEADBEEF", "de ad", "0", "zz", "abc"],
        Shape::Ip => &[
            "127.0.0.1",
            "::1",
            "10.0.0.0/8",
            "2001:db8::/32",
            "256.1.1.1",
            "1.2.3",
            "::ffff:1.2.3.4",
        ],
        Shape::Char => &[
            "a", "\u{301}", "漢", "Ａ", "\u{200b}", "\u{0}", "😀", "ـ", "\u{378}", "7",
        ],
        Shape::Encoding => &["utf-8", "ascii", "latin-1", "utf-16", "no-such-codec"],
        Shape::Uuid => &[
            "12345678-1234-5678-1234-567812345678",
            "{12345678-1234-5678-1234-567812345678}",
            "urn:uuid:12345678-1234-5678-1234-567812345678",
            "12345678123456781234567812345678",
            "not-a-uuid",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    fn draws(shape: Shape, n: usize) -> Vec<String> {
        let s = strategy(shape).expect("a decoder's shape");
        let mut r = TestRunner::deterministic();
        (0..n)
            .map(|_| s.new_tree(&mut r).expect("draws").current())
            .collect()
    }

    /// What is drawn for each shape decodes in Python's own decoders, most of the time (the
    /// near misses are drawn on purpose), and percent-encoding is drawn nested; a bare
    /// python3 runs the standard library's decoders on text the test drew.
    #[test]
    fn drawn_text_decodes_in_python() {
        let shapes = [
            (Shape::Percent, "percent"),
            (Shape::Url, "url"),
            (Shape::Html, "html"),
            (Shape::Base64, "base64"),
            (Shape::Hex, "hex"),
            (Shape::Ip, "ip"),
            (Shape::Uuid, "uuid"),
            (Shape::Encoding, "encoding"),
        ];
        let cases: Vec<(&str, Vec<String>)> = shapes
            .iter()
            .map(|(s, name)| (*name, draws(*s, 60)))
            .collect();
        let nested = cases[0].1.iter().filter(|t| t.contains("%25")).count();
        assert!(nested >= 5, "{:?}", cases[0].1);
        let json = serde_json::to_string(&cases).expect("json");
        let script = r#"
import base64, binascii, codecs, html, ipaddress, json, sys, urllib.parse, uuid
def ok(kind, t):
    try:
        if kind == "percent":
            return urllib.parse.unquote(t) != t
        if kind == "url":
            u = urllib.parse.urlsplit(t)
            return bool(u.scheme or u.path or u.netloc)
        if kind == "html":
            return html.unescape(t) != t
        if kind == "base64":
            base64.b64decode(t + "=" * (-len(t) % 4), altchars=b"-_" if ("-" in t or "_" in t) else None, validate=True)
            return True
        if kind == "hex":
            bytes.fromhex(t); return True
        if kind == "ip":
            try: ipaddress.ip_address(t)
            except ValueError: ipaddress.ip_network(t, strict=False)
            return True
        if kind == "uuid":
            uuid.UUID(t); return True
        if kind == "encoding":
            codecs.lookup(t); return True
    except (ValueError, binascii.Error, LookupError):
        return False
share = {kind: sum(ok(kind, t) for t in ts) / len(ts) for kind, ts in json.load(sys.stdin)}
print(json.dumps(share))
"#;
        let Some(stdout) =
            crate::test_python::json_through(script, &json, "decode the drawn text with")
        else {
            return;
        };
        let share: std::collections::BTreeMap<String, f64> =
            serde_json::from_slice(&stdout).expect("json back");
        for (kind, s) in &share {
            assert!(
                *s >= 0.6,
                "{kind}: only {s} of the drawn text decodes: {share:?}"
            );
        }
        assert_eq!(share.len(), shapes.len());
    }

    #[test]
    fn every_decoder_shape_has_edges_and_draws() {
        for shape in [
            Shape::Percent,
            Shape::Url,
            Shape::Html,
            Shape::Base64,
            Shape::Hex,
            Shape::Ip,
            Shape::Uuid,
            Shape::Char,
            Shape::Encoding,
        ] {
            assert!(!edges(shape).is_empty(), "{shape:?}");
            assert!(strategy(shape).is_some(), "{shape:?}");
        }
        assert!(strategy(Shape::Json).is_none() && edges(Shape::Json).is_empty());
        let chars = draws(Shape::Char, 100);
        assert!(chars.iter().all(|c| c.chars().count() == 1), "{chars:?}");
        let combining = chars
            .iter()
            .filter(|c| ["\u{301}", "\u{308}"].contains(&c.as_str()))
            .count();
        assert!(combining >= 2, "{chars:?}");
    }
}
