//! License detection: an SPDX identifier for a repository, from (in this order) a PEP 639
//! license expression, a license field that names a license, trove classifiers, and the
//! text of license files at the root.
//!
//! It is conservative: a name or classifier that does not pin one license down ("BSD
//! License", "GPL" without a version, two different classifiers) gives nothing rather than
//! a guess, and detection falls through to the next kind of evidence. In particular the
//! classifier `License :: OSI Approved :: BSD License` is not taken as BSD-3-Clause: only a
//! license file (or a metadata field naming the clauses) tells BSD-2-Clause from
//! BSD-3-Clause. GPL-family texts without an "or later" notice are recorded as `-only`.

use schemas::LicenseSource;

/// What a repository says about its license, gathered from its metadata and files.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// PEP 639 license expressions (`License-Expression`, `[project] license = "..."`).
    pub expressions: Vec<String>,
    /// Free license fields (`License:`, pypi `info.license`, `[project] license.text`,
    /// setup.cfg `license`), in order of trust.
    pub texts: Vec<String>,
    /// Trove classifiers (only those starting with `License ::` matter).
    pub classifiers: Vec<String>,
    /// License files at the root: (file name, text).
    pub files: Vec<(String, String)>,
}

/// A recognised license and where it came from (`repos.license`, `repos.license_source`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct License {
    pub id: String,
    pub source: LicenseSource,
}

/// SPDX identifiers recognised by name (any case), with the current form of deprecated ones.
const SPDX_IDS: &[(&str, &str)] = &[
    ("MIT", "MIT"),
    ("MIT-0", "MIT-0"),
    ("Apache-2.0", "Apache-2.0"),
    ("Apache-1.1", "Apache-1.1"),
    ("BSD-2-Clause", "BSD-2-Clause"),
    ("BSD-3-Clause", "BSD-3-Clause"),
    ("BSD-4-Clause", "BSD-4-Clause"),
    ("0BSD", "0BSD"),
    ("ISC", "ISC"),
    ("MPL-2.0", "MPL-2.0"),
    ("MPL-1.1", "MPL-1.1"),
    ("GPL-2.0-only", "GPL-2.0-only"),
    ("GPL-2.0-or-later", "GPL-2.0-or-later"),
    ("GPL-3.0-only", "GPL-3.0-only"),
    ("GPL-3.0-or-later", "GPL-3.0-or-later"),
    ("LGPL-2.0-only", "LGPL-2.0-only"),
    ("LGPL-2.0-or-later", "LGPL-2.0-or-later"),
    ("LGPL-2.1-only", "LGPL-2.1-only"),
    ("LGPL-2.1-or-later", "LGPL-2.1-or-later"),
    ("LGPL-3.0-only", "LGPL-3.0-only"),
    ("LGPL-3.0-or-later", "LGPL-3.0-or-later"),
    ("AGPL-3.0-only", "AGPL-3.0-only"),
    ("AGPL-3.0-or-later", "AGPL-3.0-or-later"),
    ("GPL-2.0", "GPL-2.0-only"),
    ("GPL-2.0+", "GPL-2.0-or-later"),
    ("GPL-3.0", "GPL-3.0-only"),
    ("GPL-3.0+", "GPL-3.0-or-later"),
    ("LGPL-2.0", "LGPL-2.0-only"),
    ("LGPL-2.1", "LGPL-2.1-only"),
    ("LGPL-2.1+", "LGPL-2.1-or-later"),
    ("LGPL-3.0", "LGPL-3.0-only"),
    ("LGPL-3.0+", "LGPL-3.0-or-later"),
    ("AGPL-3.0", "AGPL-3.0-only"),
    ("Unlicense", "Unlicense"),
    ("PSF-2.0", "PSF-2.0"),
    ("Python-2.0", "Python-2.0"),
    ("Zlib", "Zlib"),
    ("BSL-1.0", "BSL-1.0"),
    ("CC0-1.0", "CC0-1.0"),
    ("EPL-1.0", "EPL-1.0"),
    ("EPL-2.0", "EPL-2.0"),
    ("EUPL-1.2", "EUPL-1.2"),
    ("Artistic-2.0", "Artistic-2.0"),
    ("WTFPL", "WTFPL"),
    ("HPND", "HPND"),
];

/// Detects the license from all the evidence, in the documented order.
pub fn detect(evidence: &Evidence) -> Option<License> {
    let found = |id: String, source| Some(License { id, source });
    if let Some(id) = evidence.expressions.iter().find_map(|e| from_expression(e)) {
        return found(id, LicenseSource::Metadata);
    }
    if let Some(id) = evidence.texts.iter().find_map(|t| from_name(t)) {
        return found(id, LicenseSource::Metadata);
    }
    if let Some(id) = from_classifiers(&evidence.classifiers) {
        return found(id, LicenseSource::Classifier);
    }
    let mut ids: Vec<&str> = evidence
        .files
        .iter()
        .filter_map(|(_, text)| from_text(text))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    // The LGPL is a set of permissions on top of the GPL, so LGPL projects ship both texts.
    if let [a, b] = ids[..] {
        if a.strip_prefix('L') == Some(b) || b.strip_prefix('L') == Some(a) {
            ids.retain(|id| id.starts_with("LGPL"));
        }
    }
    match ids[..] {
        [id] => found(id.to_string(), LicenseSource::LicenseFile),
        _ => None,
    }
}

/// The current SPDX form of an identifier, any case.
fn spdx_id(token: &str) -> Option<&'static str> {
    SPDX_IDS
        .iter()
        .find(|(id, _)| id.eq_ignore_ascii_case(token))
        .map(|(_, canonical)| *canonical)
}

/// Checks and normalises an SPDX license expression (`MIT OR Apache-2.0`,
/// `GPL-2.0-or-later WITH Classpath-exception-2.0`) with the one SPDX reader
/// ([`schemas::spdx`]). Known identifiers get their current form; other well-formed
/// identifiers (`LicenseRef-...`) are kept as written.
pub fn from_expression(expr: &str) -> Option<String> {
    let parsed = schemas::spdx::parse(expr).ok()?;
    let canonical = parsed.map_ids(&|id| spdx_id(&id).map_or(id, str::to_string));
    Some(canonical.to_string())
}

/// An SPDX id from a license field: an SPDX id or expression of known ids, a well-known
/// license name ("MIT License", "Apache 2.0", "GPLv3+", "BSD 3-Clause"), or a whole
/// license text pasted into the field.
pub fn from_name(field: &str) -> Option<String> {
    let field = field.trim();
    if field.is_empty() {
        return None;
    }
    if field.len() > 200 || field.lines().count() > 2 {
        return from_text(field).map(str::to_string);
    }
    if let Some(id) = spdx_id(field) {
        return Some(id.to_string());
    }
    let is_known_expression = field.split_whitespace().count() > 1
        && from_expression(field).is_some_and(|e| {
            e.replace(['(', ')'], " ").split_whitespace().all(|t| {
                ["AND", "OR", "WITH"].contains(&t) || SPDX_IDS.iter().any(|(_, c)| *c == t)
            })
        });
    if is_known_expression {
        return from_expression(field);
    }
    well_known_name(field).map(str::to_string)
}

/// Lowercase, every character but letters, digits, `.` and `+` made a space, spaces
/// collapsed, with a space at both ends so that ` word ` finds whole words.
fn normalize_name(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' || c == '+' {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect();
    format!(
        " {} ",
        mapped.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}

fn well_known_name(field: &str) -> Option<&'static str> {
    let n = normalize_name(field);
    let has = |s: &str| n.contains(s);
    let word_starts = |p: &str| n.split(' ').any(|w| w.starts_with(p));
    let families = [
        has(" mit ") || has(" expat "),
        has("apache"),
        (word_starts("bsd") || has("freebsd")) && !has("0bsd") && !has("zero clause"),
        has("0bsd") || has("zero clause"),
        has("general public")
            || word_starts("gpl")
            || word_starts("lgpl")
            || word_starts("agpl")
            || has("affero"),
        has("mozilla") || word_starts("mpl"),
        has(" isc ") || has(" iscl "),
        has("python software foundation") || has(" psf ") || has(" psfl "),
        has("unlicense"),
    ];
    // A field naming two licenses ("MIT or Apache") says nothing about how they combine.
    if families.iter().filter(|f| **f).count() != 1 {
        return None;
    }
    let number = first_number(&n);
    match families.iter().position(|f| *f)? {
        0 if has("no attribution") => Some("MIT-0"),
        0 => Some("MIT"),
        1 => match number.as_deref() {
            None | Some("2" | "2.0") => Some("Apache-2.0"),
            Some("1.1") => Some("Apache-1.1"),
            _ => None,
        },
        2 if has(" 3 ") || has("three") || has(" new ") || has("modified") || has("revised") => {
            Some("BSD-3-Clause")
        }
        2 if has(" 2 ") || has(" two ") || has("simplified") || has("freebsd") => {
            Some("BSD-2-Clause")
        }
        2 if has(" 4 ") || has("original") => Some("BSD-4-Clause"),
        3 => Some("0BSD"),
        4 => gnu_family(&n, number.as_deref()),
        5 => match number.as_deref() {
            Some("2" | "2.0") => Some("MPL-2.0"),
            Some("1.1") => Some("MPL-1.1"),
            _ => None,
        },
        6 => Some("ISC"),
        7 => Some("PSF-2.0"),
        8 => Some("Unlicense"),
        _ => None,
    }
}

/// The first number in a normalised name, where `v3`, `gplv3` and `3.0` all give `3`.
fn first_number(n: &str) -> Option<String> {
    let start = n.find(|c: char| c.is_ascii_digit())?;
    let digits: String = n[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let digits = digits.trim_end_matches('.');
    Some(digits.strip_suffix(".0").unwrap_or(digits).to_string())
}

fn gnu_family(n: &str, number: Option<&str>) -> Option<&'static str> {
    let later = n.contains('+')
        || n.contains("or later")
        || n.contains("any later")
        || n.contains("or newer");
    let pick = |only, or_later| Some(if later { or_later } else { only });
    let lesser = n.contains("lesser")
        || n.contains("library")
        || n.split(' ').any(|w| w.starts_with("lgpl"));
    let affero = n.contains("affero") || n.split(' ').any(|w| w.starts_with("agpl"));
    match (affero, lesser, number?) {
        (true, _, "3") => pick("AGPL-3.0-only", "AGPL-3.0-or-later"),
        (false, true, "2") => pick("LGPL-2.0-only", "LGPL-2.0-or-later"),
        (false, true, "2.1") => pick("LGPL-2.1-only", "LGPL-2.1-or-later"),
        (false, true, "3") => pick("LGPL-3.0-only", "LGPL-3.0-or-later"),
        (false, false, "2") => pick("GPL-2.0-only", "GPL-2.0-or-later"),
        (false, false, "3") => pick("GPL-3.0-only", "GPL-3.0-or-later"),
        _ => None,
    }
}

/// One id from the `License ::` classifiers, when they all name the same recognised
/// license. Any license classifier that is not recognised ("BSD License", "Other/
/// Proprietary License") or a second, different one makes the result unknown.
pub fn from_classifiers(classifiers: &[String]) -> Option<String> {
    let mut found: Option<&'static str> = None;
    for c in classifiers {
        let Some(rest) = c.trim().strip_prefix("License ::") else {
            continue;
        };
        let last = rest.rsplit("::").next().unwrap_or(rest).trim();
        if last == "OSI Approved" {
            continue;
        }
        let id = from_classifier_name(last)?;
        if found.is_some_and(|f| f != id) {
            return None;
        }
        found = Some(id);
    }
    found.map(str::to_string)
}

fn from_classifier_name(name: &str) -> Option<&'static str> {
    spdx_id(name).or_else(|| well_known_name(name))
}

/// Lowercase words of a text, punctuation and markup dropped, one space apart.
fn normalize_text(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// GPL-family titles, found near the top of a license text.
const GNU_TITLES: &[(&str, &str)] = &[
    (
        "gnu affero general public license version 3",
        "AGPL-3.0-only",
    ),
    (
        "gnu lesser general public license version 3",
        "LGPL-3.0-only",
    ),
    (
        "gnu lesser general public license version 2 1",
        "LGPL-2.1-only",
    ),
    (
        "gnu library general public license version 2",
        "LGPL-2.0-only",
    ),
    ("gnu general public license version 3", "GPL-3.0-only"),
    ("gnu general public license version 2", "GPL-2.0-only"),
];

/// Recognises a license by its text (a LICENSE/COPYING file). All the licenses whose
/// marks are found must agree; a file that holds two licenses gives nothing.
pub fn from_text(text: &str) -> Option<&'static str> {
    let t = normalize_text(text);
    let head = prefix(&t, 2000);
    let mut ids: Vec<&'static str> = Vec::new();
    let title = GNU_TITLES
        .iter()
        .filter_map(|(title, id)| head.find(title).map(|at| (at, *id)))
        .min();
    if let Some((_, id)) = title {
        ids.push(id);
    } else if let Some(id) = gnu_notice(&t) {
        ids.push(id);
    }
    if head.contains("apache license") && head.contains("version 2 0") {
        ids.push("Apache-2.0");
    }
    if t.contains("mozilla public license version 2 0")
        || t.contains("mozilla public license v 2 0")
    {
        ids.push("MPL-2.0");
    }
    if t.contains("permission is hereby granted free of charge to any person obtaining a copy")
        && t.contains("the above copyright notice and this permission notice shall be included")
    {
        ids.push("MIT");
    }
    if t.contains("permission to use copy modify and")
        && t.contains(
            "distribute this software for any purpose with or without fee is hereby granted",
        )
    {
        let notice = "provided that the above copyright notice and this permission notice appear in all copies";
        ids.push(if t.contains(notice) { "ISC" } else { "0BSD" });
    }
    if t.contains("redistribution and use in source and binary forms with or without modification are permitted") {
        ids.push(if t.contains("all advertising materials mentioning features or use of this software") {
            "BSD-4-Clause"
        } else if t.contains("neither the name") || t.contains("endorse or promote products derived from this software") {
            "BSD-3-Clause"
        } else {
            "BSD-2-Clause"
        });
    }
    if t.contains("this is free and unencumbered software released into the public domain") {
        ids.push("Unlicense");
    }
    if t.contains("python software foundation license version 2")
        || t.contains("this license agreement is between the python software foundation")
    {
        ids.push("PSF-2.0");
    }
    ids.sort_unstable();
    ids.dedup();
    match ids[..] {
        [id] => Some(id),
        _ => None,
    }
}

/// The first `max` bytes of `s` or a little less, cut at a character boundary.
fn prefix(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A GPL-family notice ("... under the terms of the GNU General Public License as
/// published by the Free Software Foundation, either version 3 of the License, or (at your
/// option) any later version").
fn gnu_notice(t: &str) -> Option<&'static str> {
    const FAMILIES: &[(&str, &str)] = &[
        ("gnu affero general public license", "AGPL"),
        ("gnu lesser general public license", "LGPL"),
        ("gnu general public license", "GPL"),
    ];
    for (name, family) in FAMILIES {
        let Some(at) = t.find(&format!(
            "{name} as published by the free software foundation"
        )) else {
            continue;
        };
        let rest = prefix(&t[at..], 300);
        let later = rest.contains("any later version");
        let version = ["3", "2 1", "2"]
            .into_iter()
            .find(|v| rest.contains(&format!("version {v} ")))?;
        let id = match (*family, version, later) {
            ("AGPL", "3", false) => "AGPL-3.0-only",
            ("AGPL", "3", true) => "AGPL-3.0-or-later",
            ("LGPL", "3", false) => "LGPL-3.0-only",
            ("LGPL", "3", true) => "LGPL-3.0-or-later",
            ("LGPL", "2 1", false) => "LGPL-2.1-only",
            ("LGPL", "2 1", true) => "LGPL-2.1-or-later",
            ("GPL", "3", false) => "GPL-3.0-only",
            ("GPL", "3", true) => "GPL-3.0-or-later",
            ("GPL", "2", false) => "GPL-2.0-only",
            ("GPL", "2", true) => "GPL-2.0-or-later",
            _ => return None,
        };
        return Some(id);
    }
    None
}

#[cfg(test)]
#[path = "license_tests.rs"]
mod tests;
