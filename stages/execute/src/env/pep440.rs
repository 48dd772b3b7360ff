//! The part of PEP 440 that decides whether a pinned version satisfies a requirement's
//! version specifiers (`pytest>=7,<9`): enough to tell when a repository's own requirement
//! on a tool freshbench pins asks for something the pin does not give.
//!
//! Versions are release numbers with optional pre-release (`a`, `b`, `rc`), post-release
//! and development parts; epochs and local versions are not read (such a version does not
//! parse, and the caller then treats the specifier as unsatisfied).

use std::cmp::Ordering;

/// A parsed version (`1.0` and `1.0.0` are equal).
#[derive(Debug, Clone)]
pub struct Version {
    release: Vec<u64>,
    /// (0 = a, 1 = b, 2 = rc, number).
    pre: Option<(u8, u64)>,
    post: Option<u64>,
    dev: Option<u64>,
}

impl Version {
    /// Parses `1.2.3`, `v1.2`, `1.0rc1`, `1.0.post2`, `1.0.dev3`, `1.0a1.dev2`.
    pub fn parse(text: &str) -> Option<Version> {
        let s = text.trim().to_ascii_lowercase();
        let s = s.strip_prefix('v').unwrap_or(&s);
        let end = s
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len());
        let (release_text, mut rest) = s.split_at(end);
        let release_text = release_text.trim_end_matches('.');
        if release_text.is_empty() {
            return None;
        }
        let release: Vec<u64> = release_text
            .split('.')
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?;
        let mut v = Version {
            release,
            pre: None,
            post: None,
            dev: None,
        };
        // What may follow, in this order: pre, post, dev; separators `.`, `-`, `_` allowed.
        rest = rest.trim_start_matches(['.', '-', '_']);
        for (tag, kind) in [
            ("rc", 2),
            ("c", 2),
            ("alpha", 0),
            ("a", 0),
            ("beta", 1),
            ("b", 1),
        ] {
            if let Some(after) = rest.strip_prefix(tag) {
                let (n, after) = number(after);
                v.pre = Some((kind, n));
                rest = after.trim_start_matches(['.', '-', '_']);
                break;
            }
        }
        for tag in ["post", "rev", "r"] {
            if let Some(after) = rest.strip_prefix(tag) {
                let (n, after) = number(after);
                v.post = Some(n);
                rest = after.trim_start_matches(['.', '-', '_']);
                break;
            }
        }
        if let Some(after) = rest.strip_prefix("dev") {
            let (n, after) = number(after);
            v.dev = Some(n);
            rest = after;
        }
        rest.is_empty().then_some(v)
    }

    fn release_at(&self, i: usize) -> u64 {
        self.release.get(i).copied().unwrap_or(0)
    }

    /// A pre-release or development release (`1.0rc1`, `1.0.dev2`).
    pub fn is_pre(&self) -> bool {
        self.pre.is_some() || self.dev.is_some()
    }

    /// The same version with only its first `n` release numbers kept (for prefix matches).
    fn release_prefix_eq(&self, prefix: &[u64]) -> bool {
        prefix
            .iter()
            .enumerate()
            .all(|(i, p)| self.release_at(i) == *p)
    }
}

fn number(s: &str) -> (u64, &str) {
    let s = s.trim_start_matches(['.', '-', '_']);
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    (s[..end].parse().unwrap_or(0), &s[end..])
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        let n = self.release.len().max(other.release.len());
        for i in 0..n {
            match self.release_at(i).cmp(&other.release_at(i)) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        // A dev release of a final sorts before its pre-releases; a final after them.
        let pre_key = |v: &Version| match (v.pre, v.post, v.dev) {
            (None, None, Some(_)) => (0u8, 0u8, 0u64),
            (Some((k, n)), _, _) => (1, k, n),
            _ => (2, 0, 0),
        };
        pre_key(self)
            .cmp(&pre_key(other))
            .then_with(|| {
                self.post
                    .map_or(0, |p| p + 1)
                    .cmp(&other.post.map_or(0, |p| p + 1))
            })
            .then_with(|| {
                self.dev
                    .map_or(u64::MAX, |d| d)
                    .cmp(&other.dev.map_or(u64::MAX, |d| d))
            })
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Whether `version` satisfies every specifier of `specifiers` (`>=7,<9`, `~=8.1`,
/// `==8.*`, `!=8.0.1`); `None` when a specifier or the version cannot be read. An empty
/// text is satisfied by any version.
pub fn satisfies(version: &str, specifiers: &str) -> Option<bool> {
    let v = Version::parse(version)?;
    let mut ok = true;
    for spec in specifiers
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let op_end = spec
            .find(|c: char| !matches!(c, '<' | '>' | '=' | '!' | '~'))
            .unwrap_or(spec.len());
        let (op, target) = (&spec[..op_end], spec[op_end..].trim());
        let holds = match op {
            "==" | "!=" => {
                let equal = if let Some(prefix) = target.strip_suffix(".*") {
                    let prefix: Vec<u64> = prefix
                        .split('.')
                        .map(|p| p.parse().ok())
                        .collect::<Option<_>>()?;
                    v.release_prefix_eq(&prefix)
                } else {
                    v == Version::parse(target)?
                };
                equal == (op == "==")
            }
            "===" => version.trim() == target,
            ">=" => v >= Version::parse(target)?,
            "<=" => v <= Version::parse(target)?,
            ">" => v > Version::parse(target)?,
            // `<V` excludes V's own pre-releases too.
            "<" => {
                let t = Version::parse(target)?;
                v < t && !(v.is_pre() && !t.is_pre() && v.release_prefix_eq(&t.release))
            }
            "~=" => {
                let t = Version::parse(target)?;
                if t.release.len() < 2 {
                    return None;
                }
                v >= t && v.release_prefix_eq(&t.release[..t.release.len() - 1])
            }
            _ => return None,
        };
        ok &= holds;
    }
    Some(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_versions() {
        let order = [
            "1.0.dev1",
            "1.0a1",
            "1.0a2.dev1",
            "1.0a2",
            "1.0b1",
            "1.0rc1",
            "1.0",
            "1.0.post1",
            "1.0.1",
            "1.1",
            "2",
        ];
        for w in order.windows(2) {
            let (a, b) = (Version::parse(w[0]).unwrap(), Version::parse(w[1]).unwrap());
            assert!(a < b, "{} < {}", w[0], w[1]);
        }
        assert_eq!(Version::parse("1.0"), Version::parse("1.0"));
        assert_eq!(
            Version::parse("1.0")
                .unwrap()
                .cmp(&Version::parse("1.0.0").unwrap()),
            Ordering::Equal
        );
        assert!(Version::parse("1.0+local").is_none());
    }

    #[test]
    fn specifiers() {
        for (spec, want) in [
            ("", Some(true)),
            (">=7", Some(true)),
            (">=7,<9", Some(false)),
            ("<10", Some(true)),
            ("==9.2.0", Some(true)),
            ("==9.2", Some(true)),
            ("==9.*", Some(true)),
            ("==8.*", Some(false)),
            ("!=9.2.0", Some(false)),
            ("!=9.1.*", Some(true)),
            ("~=9.1", Some(true)),
            ("~=9.1.0", Some(false)),
            ("~=9", None),
            ("> 9.2.0", Some(false)),
            ("<=9.2.0", Some(true)),
            ("===9.2.0", Some(true)),
            ("=>9", None),
        ] {
            assert_eq!(satisfies("9.2.0", spec), want, "{spec}");
        }
        assert_eq!(satisfies("9.2.0rc1", "<9.2"), Some(false));
        assert_eq!(satisfies("9.1.5", "<9.2"), Some(true));
    }
}
