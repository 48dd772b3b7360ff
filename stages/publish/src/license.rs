//! The license policy: which repositories' tasks may be published, judged from the SPDX
//! license expression `crawl` recorded in `repos.license`.
//!
//! An expression is read with SPDX's grammar and precedence (`WITH` binds tighter than
//! `AND`, which binds tighter than `OR`; parentheses group; operators in any case, ids
//! compared without regard to case) and judged against the allow-list:
//! - an id is allowed when the list holds it; `X+` ("X or any later version") when the list
//!   holds `X+` or `X` (the licensee may choose `X` itself);
//! - `A OR B` when either side is allowed (the licensee chooses);
//! - `A AND B` when both are (both apply);
//! - `X WITH E` when the list holds `X WITH E`, or `X` alone: an SPDX exception only grants
//!   permissions beyond `X` (`LLVM-exception`, `Classpath-exception-2.0`), never removes any.
//!
//! No license recorded (`repos.license` null: crawl found none it could recognise) means
//! "all rights reserved" and is never allowed; neither is an expression that does not parse.
//!
//! The default allow-list ([`DEFAULT_ALLOWED`]) holds permissive licenses only. The Mozilla
//! Public License 2.0 is left out: its copyleft is per file, and every task copies code out
//! of the repository's files (the prompt, the reference solution), so those excerpts would
//! have to be redistributed under MPL-2.0 and the snapshot would carry copyleft terms for
//! part of its content. Whoever accepts that adds `--allow-license MPL-2.0` (the card then
//! lists it). BSD-4-Clause and Apache-1.1 are left out for their advertising clauses, and
//! the GPL family for its copyleft.

use std::path::Path;

use anyhow::Context as _;
pub use schemas::spdx::{parse, Expr, ParseError};

/// Licenses allowed by default: permissive ones, which allow redistribution of excerpts
/// with attribution (the card and the manifest name every source).
pub const DEFAULT_ALLOWED: &[&str] = &[
    "MIT",
    "MIT-0",
    "Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "0BSD",
    "ISC",
    "PSF-2.0",
    "Python-2.0",
    "Unlicense",
    "Zlib",
    "BSL-1.0",
    "CC0-1.0",
];

/// Where the allow-list came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicySource {
    /// [`DEFAULT_ALLOWED`].
    Default,
    /// `--allow-license` and/or `--licenses FILE`.
    Given,
}

/// The allow-list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Allowed ids (or `ID WITH EXCEPTION` pairs), as given, in order, without repeats.
    pub allowed: Vec<String>,
    pub source: PolicySource,
}

/// The `--licenses FILE.toml` format.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    /// SPDX ids allowed.
    allow: Vec<String>,
}

/// The verdict on one repository's license.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Left out, with the reason.
    Refused(String),
}

impl Policy {
    /// The default allow-list.
    pub fn default_policy() -> Policy {
        Policy {
            allowed: DEFAULT_ALLOWED.iter().map(|s| (*s).to_string()).collect(),
            source: PolicySource::Default,
        }
    }

    /// The policy from the command line: `--licenses FILE` and `--allow-license` entries
    /// together replace the default list; neither given keeps it.
    pub fn from_args(flags: &[String], file: Option<&Path>) -> anyhow::Result<Policy> {
        let mut entries: Vec<String> = Vec::new();
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--licenses {}: cannot read it", path.display()))?;
            let parsed: PolicyFile = toml::from_str(&text).with_context(|| {
                format!(
                    "--licenses {}: expected `allow = [\"MIT\", \"Apache-2.0\", ...]`",
                    path.display()
                )
            })?;
            entries.extend(parsed.allow);
        }
        entries.extend(flags.iter().cloned());
        if file.is_none() && flags.is_empty() {
            return Ok(Policy::default_policy());
        }
        Policy::new(&entries)
    }

    /// A given allow-list: each entry an SPDX id, or `ID WITH EXCEPTION`.
    pub fn new(entries: &[String]) -> anyhow::Result<Policy> {
        let mut allowed: Vec<String> = Vec::new();
        for entry in entries {
            let normal = match parse(entry) {
                Ok(Expr::Id(id)) => id,
                Ok(Expr::With(id, exc)) => format!("{id} WITH {exc}"),
                Ok(_) => anyhow::bail!(
                    "allowed license {entry:?}: give one SPDX id per entry (an OR or AND \
                     expression is judged from its ids)"
                ),
                Err(e) => anyhow::bail!("allowed license {entry:?}: not an SPDX id ({e})"),
            };
            if !allowed.iter().any(|a| a.eq_ignore_ascii_case(&normal)) {
                allowed.push(normal);
            }
        }
        if allowed.is_empty() {
            anyhow::bail!("the allow-list of licenses is empty: nothing could be published");
        }
        Ok(Policy {
            allowed,
            source: PolicySource::Given,
        })
    }

    fn holds(&self, text: &str) -> bool {
        self.allowed.iter().any(|a| a.eq_ignore_ascii_case(text))
    }

    /// Whether one parsed expression is allowed (rules in the module doc).
    pub fn allows(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Id(id) => {
                self.holds(id) || id.strip_suffix('+').is_some_and(|base| self.holds(base))
            }
            Expr::With(id, exc) => {
                self.holds(&format!("{id} WITH {exc}")) || self.allows(&Expr::Id(id.clone()))
            }
            Expr::And(a, b) => self.allows(a) && self.allows(b),
            Expr::Or(a, b) => self.allows(a) || self.allows(b),
        }
    }

    /// The verdict on a `repos.license` value.
    pub fn judge(&self, license: Option<&str>) -> Verdict {
        let Some(text) = license.map(str::trim).filter(|t| !t.is_empty()) else {
            return Verdict::Refused(
                "no license recorded (crawl recognised none): all rights reserved".into(),
            );
        };
        match parse(text) {
            Ok(expr) if self.allows(&expr) => Verdict::Allowed,
            Ok(_) => Verdict::Refused(format!("license `{text}` is not in the allow-list")),
            Err(e) => Verdict::Refused(format!("license `{text}` could not be read: {e}")),
        }
    }

    /// The licenses under which an allowed expression's code is redistributed: the allowed
    /// alternatives of an `OR`, every part of an `AND`, the license of a `WITH`.
    pub fn granted(&self, expr: &Expr) -> Vec<String> {
        match expr {
            Expr::Id(id) | Expr::With(id, _) => vec![id.clone()],
            Expr::And(a, b) => {
                let mut out = self.granted(a);
                out.extend(self.granted(b));
                out
            }
            Expr::Or(a, b) => {
                let mut out = Vec::new();
                for side in [a, b] {
                    if self.allows(side) {
                        out.extend(self.granted(side));
                    }
                }
                out
            }
        }
    }
}

/// The Hugging Face Hub's license identifier for an SPDX id, where it has one
/// (<https://hf.co/docs/hub/repositories-licenses>); others are `other` on the card.
pub fn hub_license(spdx: &str) -> Option<&'static str> {
    const MAP: &[(&str, &str)] = &[
        ("MIT", "mit"),
        ("Apache-2.0", "apache-2.0"),
        ("BSD-2-Clause", "bsd-2-clause"),
        ("BSD-3-Clause", "bsd-3-clause"),
        ("BSD-3-Clause-Clear", "bsd-3-clause-clear"),
        ("ISC", "isc"),
        ("Unlicense", "unlicense"),
        ("Zlib", "zlib"),
        ("BSL-1.0", "bsl-1.0"),
        ("CC0-1.0", "cc0-1.0"),
        ("MPL-2.0", "mpl-2.0"),
        ("Artistic-2.0", "artistic-2.0"),
        ("EPL-1.0", "epl-1.0"),
        ("EPL-2.0", "epl-2.0"),
        ("WTFPL", "wtfpl"),
        ("PostgreSQL", "postgresql"),
        ("NCSA", "ncsa"),
        ("GPL-2.0-only", "gpl-2.0"),
        ("GPL-2.0-or-later", "gpl-2.0"),
        ("GPL-3.0-only", "gpl-3.0"),
        ("GPL-3.0-or-later", "gpl-3.0"),
        ("LGPL-2.1-only", "lgpl-2.1"),
        ("LGPL-2.1-or-later", "lgpl-2.1"),
        ("LGPL-3.0-only", "lgpl-3.0"),
        ("LGPL-3.0-or-later", "lgpl-3.0"),
        ("AGPL-3.0-only", "agpl-3.0"),
        ("AGPL-3.0-or-later", "agpl-3.0"),
    ];
    let id = spdx.strip_suffix('+').unwrap_or(spdx);
    MAP.iter()
        .find(|(s, _)| s.eq_ignore_ascii_case(id))
        .map(|(_, h)| *h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(ids: &[&str]) -> Policy {
        Policy::new(&ids.iter().map(|s| (*s).to_string()).collect::<Vec<_>>()).unwrap()
    }

    fn allowed(p: &Policy, license: &str) -> bool {
        p.judge(Some(license)) == Verdict::Allowed
    }

    #[test]
    fn parses_with_spdx_precedence() {
        let e = parse("MIT OR Apache-2.0 AND BSD-3-Clause").unwrap();
        assert_eq!(
            e,
            Expr::Or(
                Box::new(Expr::Id("MIT".into())),
                Box::new(Expr::And(
                    Box::new(Expr::Id("Apache-2.0".into())),
                    Box::new(Expr::Id("BSD-3-Clause".into()))
                ))
            )
        );
        let e = parse("(MIT OR Apache-2.0) and GPL-2.0-only with Classpath-exception-2.0").unwrap();
        assert_eq!(
            e.to_string(),
            "(MIT OR Apache-2.0) AND GPL-2.0-only WITH Classpath-exception-2.0"
        );
        for bad in [
            "",
            "MIT OR",
            "(MIT",
            "MIT)",
            "AND MIT",
            "MIT Apache-2.0",
            "MIT WITH",
            "M!T",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn default_list_is_permissive_only() {
        let p = Policy::default_policy();
        for ok in [
            "MIT",
            "mit",
            "Apache-2.0",
            "BSD-3-Clause",
            "PSF-2.0",
            "0BSD",
            "Unlicense",
        ] {
            assert!(allowed(&p, ok), "{ok} should be allowed");
        }
        for no in [
            "GPL-3.0-only",
            "GPL-2.0-or-later",
            "LGPL-3.0-only",
            "AGPL-3.0-only",
            "MPL-2.0",
            "BSD-4-Clause",
            "LicenseRef-Proprietary",
        ] {
            assert!(!allowed(&p, no), "{no} should not be allowed");
        }
        assert!(matches!(p.judge(None), Verdict::Refused(r) if r.contains("no license")));
        assert!(matches!(p.judge(Some("  ")), Verdict::Refused(_)));
        assert!(
            matches!(p.judge(Some("MIT OR")), Verdict::Refused(r) if r.contains("could not be read"))
        );
    }

    #[test]
    fn or_needs_one_and_needs_all() {
        let p = Policy::default_policy();
        assert!(allowed(&p, "GPL-3.0-only OR MIT"));
        assert!(allowed(&p, "MIT OR GPL-3.0-only"));
        assert!(!allowed(&p, "GPL-3.0-only OR LGPL-2.1-only"));
        assert!(allowed(&p, "MIT AND BSD-3-Clause"));
        assert!(!allowed(&p, "MIT AND GPL-3.0-only"));
        assert!(!allowed(&p, "GPL-3.0-only AND MIT"));
        // AND binds tighter than OR: GPL OR (MIT AND Apache) is allowed ...
        assert!(allowed(&p, "GPL-3.0-only OR MIT AND Apache-2.0"));
        // ... but (GPL OR MIT) AND LGPL is not.
        assert!(!allowed(&p, "(GPL-3.0-only OR MIT) AND LGPL-3.0-only"));
        assert!(allowed(
            &p,
            "(GPL-3.0-only OR MIT) AND (ISC OR LGPL-3.0-only)"
        ));
    }

    #[test]
    fn with_and_or_later() {
        let p = Policy::default_policy();
        assert!(allowed(&p, "Apache-2.0 WITH LLVM-exception"));
        assert!(!allowed(&p, "GPL-2.0-only WITH Classpath-exception-2.0"));
        let q = policy(&["GPL-2.0-only WITH Classpath-exception-2.0", "GPL-2.0"]);
        assert!(allowed(&q, "gpl-2.0-only with classpath-exception-2.0"));
        assert!(allowed(&q, "GPL-2.0+"), "X+ is allowed when X is");
        assert!(!allowed(&q, "GPL-2.0-only"));
    }

    #[test]
    fn given_list_replaces_default() {
        let p = policy(&["GPL-3.0-only", "gpl-3.0-only"]);
        assert_eq!(p.allowed, ["GPL-3.0-only"]);
        assert_eq!(p.source, PolicySource::Given);
        assert!(allowed(&p, "GPL-3.0-only"));
        assert!(!allowed(&p, "MIT"));
        assert!(Policy::new(&["MIT OR Apache-2.0".into()]).is_err());
        assert!(Policy::new(&["not a license!".into()]).is_err());
        assert!(Policy::new(&[]).is_err());
    }

    #[test]
    fn policy_file_and_flags_combine() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("licenses.toml");
        std::fs::write(&path, "allow = [\"MPL-2.0\"]\n").unwrap();
        let p = Policy::from_args(&["MIT".into()], Some(&path)).unwrap();
        assert_eq!(p.allowed, ["MPL-2.0", "MIT"]);
        std::fs::write(&path, "allowed = [\"MIT\"]\n").unwrap();
        let err = Policy::from_args(&[], Some(&path)).unwrap_err();
        assert!(format!("{err:#}").contains("allow = ["), "{err:#}");
        assert_eq!(
            Policy::from_args(&[], None).unwrap(),
            Policy::default_policy()
        );
    }

    #[test]
    fn granted_licenses_of_allowed_alternatives() {
        let p = Policy::default_policy();
        let e = parse("GPL-3.0-only OR (MIT AND ISC)").unwrap();
        assert_eq!(p.granted(&e), ["MIT", "ISC"]);
        assert_eq!(hub_license("MIT"), Some("mit"));
        assert_eq!(hub_license("PSF-2.0"), None);
    }

    proptest::proptest! {
        /// Printing a parsed expression and parsing it again gives the same tree and the
        /// same verdict.
        #[test]
        fn display_round_trips(ids in proptest::collection::vec(
            proptest::sample::select(vec!["MIT", "GPL-3.0-only", "ISC", "LGPL-2.1-only", "Apache-2.0"]), 1..6),
            ops in proptest::collection::vec(proptest::bool::ANY, 5)) {
            let mut text = ids[0].to_string();
            for (i, id) in ids.iter().enumerate().skip(1) {
                let op = if ops[i - 1] { " AND " } else { " OR " };
                text = if i % 2 == 0 { format!("({text}){op}{id}") } else { format!("{text}{op}{id}") };
            }
            let e = parse(&text).unwrap();
            let again = parse(&e.to_string()).unwrap();
            let p = Policy::default_policy();
            proptest::prop_assert_eq!(p.allows(&e), p.allows(&again));
            proptest::prop_assert_eq!(e, again);
        }
    }
}
