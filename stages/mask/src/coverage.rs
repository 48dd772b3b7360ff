//! The coverage rule: which repository tests execute a span, from the lines each test
//! executed (`repo_tests.lines`).
//!
//! A span is a candidate only when every statement it holds (for an expression, the
//! statement it is evaluated in; see [`crate::spans::Unit`]) was executed by at least one
//! passing, non-flaky test. Its judges are exactly those tests: every passing, non-flaky
//! test that executed at least one of those statements, so that together they execute all
//! of them.
//!
//! Paths: execute's runner records each file as coverage.py measured it, relative to the
//! pytest rootdir, which is the root of the repository's materialized tree: normally the
//! very `files.path`. [`PathMatcher`] makes them match anyway when a runner reports them
//! otherwise: `\` becomes `/`, `.` components and empty ones go, an absolute path or one
//! climbing out with `..` is matched by its longest tail that is a file of the repository,
//! and a path shorter than the file's (relative to a `src/` import root, say) by the one
//! file it is the tail of. Paths that match no file are counted in the summary.

use std::collections::{BTreeSet, HashMap, HashSet};

use schemas::{RepoTest, TestOutcome};

use crate::spans::Unit;

/// Maps the paths coverage recorded to the repository's `files.path`.
#[derive(Debug)]
pub struct PathMatcher<'a> {
    paths: HashSet<&'a str>,
    cache: HashMap<String, Option<&'a str>>,
}

/// A path with `\` as `/`, and without empty and `.` components; for an absolute path or
/// one with `..`, the components after the last `..` (and the root).
pub fn normalize(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => parts.clear(),
            p => parts.push(p),
        }
    }
    parts.join("/")
}

impl<'a> PathMatcher<'a> {
    pub fn new(paths: impl IntoIterator<Item = &'a str>) -> Self {
        PathMatcher {
            paths: paths.into_iter().collect(),
            cache: HashMap::new(),
        }
    }

    /// The repository file a recorded path names, if any.
    pub fn resolve(&mut self, recorded: &str) -> Option<&'a str> {
        if let Some(&p) = self.paths.get(recorded) {
            return Some(p);
        }
        if let Some(hit) = self.cache.get(recorded) {
            return *hit;
        }
        let hit = self.lookup(recorded);
        self.cache.insert(recorded.to_string(), hit);
        hit
    }

    fn lookup(&self, recorded: &str) -> Option<&'a str> {
        let norm = normalize(recorded);
        if norm.is_empty() {
            return None;
        }
        let parts: Vec<&str> = norm.split('/').collect();
        // Longest tail first: `/tmp/x/tree/pkg/mod.py` is `pkg/mod.py` before `mod.py`.
        for i in 0..parts.len() {
            if let Some(&p) = self.paths.get(parts[i..].join("/").as_str()) {
                return Some(p);
            }
        }
        let tail = format!("/{norm}");
        let mut longer = self.paths.iter().filter(|p| p.ends_with(&tail));
        match (longer.next(), longer.next()) {
            (Some(&p), None) => Some(p),
            _ => None,
        }
    }
}

/// One test of a repository as the rule sees it.
#[derive(Debug, Clone, PartialEq)]
struct TestRef {
    node_id: String,
    seconds: f64,
    /// Passed, and not flaky.
    passing: bool,
}

/// Which tests executed which lines of which files, for one repository.
#[derive(Debug, Default)]
pub struct Coverage {
    tests: Vec<TestRef>,
    /// path -> line -> indices into `tests`, ascending.
    by_line: HashMap<String, HashMap<i32, Vec<u32>>>,
    /// Recorded paths that match no file of the repository.
    pub unmatched: BTreeSet<String>,
}

/// Why a span failed the coverage rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoverageGate {
    /// Some statement of the span was executed by no test at all.
    NotCovered,
    /// Every statement was executed, but some only by tests that failed, erred, were
    /// skipped or are flaky.
    NoPassingTests,
}

/// A span's judges.
#[derive(Debug, Clone, PartialEq)]
pub struct Judges {
    /// Node ids, sorted.
    pub tests: Vec<String>,
    /// Their recorded seconds, summed.
    pub seconds: f64,
}

impl Coverage {
    /// The coverage of one repository's tests; `paths` are its files' paths.
    pub fn build<'a>(tests: &[&RepoTest], paths: impl IntoIterator<Item = &'a str>) -> Self {
        let mut matcher = PathMatcher::new(paths);
        let mut cov = Coverage::default();
        for t in tests {
            let index = cov.tests.len() as u32;
            cov.tests.push(TestRef {
                node_id: t.node_id.clone(),
                seconds: t.seconds.max(0.0),
                passing: t.outcome == TestOutcome::Passed && !t.flaky,
            });
            for fl in &t.lines {
                let Some(path) = matcher.resolve(&fl.path) else {
                    cov.unmatched.insert(fl.path.clone());
                    continue;
                };
                let lines = cov.by_line.entry(path.to_string()).or_default();
                for &l in &fl.lines {
                    let at = lines.entry(l).or_default();
                    if at.last() != Some(&index) {
                        at.push(index);
                    }
                }
            }
        }
        cov
    }

    /// Whether any test executed a line of `path`.
    pub fn has_file(&self, path: &str) -> bool {
        self.by_line.contains_key(path)
    }

    /// The tests that executed any line of `unit` in `path`.
    fn executing(&self, path: &str, unit: Unit) -> Vec<u32> {
        let Some(lines) = self.by_line.get(path) else {
            return Vec::new();
        };
        let mut out: Vec<u32> = (unit.first..=unit.last)
            .filter_map(|l| lines.get(&l))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The coverage rule for a span of `path` with these units: its judges, or the gate
    /// it fails.
    pub fn judge(&self, path: &str, units: &[Unit]) -> Result<Judges, CoverageGate> {
        let mut judges: Vec<u32> = Vec::new();
        let mut unpassed = false;
        for &unit in units {
            let ran = self.executing(path, unit);
            if ran.is_empty() {
                return Err(CoverageGate::NotCovered);
            }
            let passing: Vec<u32> = ran
                .into_iter()
                .filter(|&i| self.tests[i as usize].passing)
                .collect();
            if passing.is_empty() {
                unpassed = true;
            }
            judges.extend(passing);
        }
        if unpassed || units.is_empty() {
            return Err(CoverageGate::NoPassingTests);
        }
        judges.sort_unstable();
        judges.dedup();
        let mut tests: Vec<&TestRef> = judges.iter().map(|&i| &self.tests[i as usize]).collect();
        tests.sort_by(|a, b| a.node_id.cmp(&b.node_id));
        tests.dedup_by(|a, b| a.node_id == b.node_id);
        Ok(Judges {
            seconds: tests.iter().map(|t| t.seconds).sum(),
            tests: tests.into_iter().map(|t| t.node_id.clone()).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemas::{FileLines, Isolation};

    fn test(node: &str, outcome: TestOutcome, flaky: bool, lines: &[(&str, &[i32])]) -> RepoTest {
        RepoTest {
            repo_id: "r".into(),
            node_id: node.into(),
            outcome,
            seconds: 0.5,
            flaky,
            lines: lines
                .iter()
                .map(|(p, l)| FileLines {
                    path: (*p).into(),
                    lines: l.to_vec(),
                })
                .collect(),
            isolation: Isolation::Namespaces,
            detail: None,
            input_hash: String::new(),
        }
    }

    fn unit(first: i32, last: i32) -> Unit {
        Unit { first, last }
    }

    #[test]
    fn every_statement_needs_a_passing_non_flaky_test() {
        let rows = [
            test("t::a", TestOutcome::Passed, false, &[("m.py", &[1, 2])]),
            test("t::b", TestOutcome::Passed, false, &[("m.py", &[3])]),
            test("t::flaky", TestOutcome::Passed, true, &[("m.py", &[4])]),
            test("t::fails", TestOutcome::Failed, false, &[("m.py", &[5, 1])]),
            test("t::other", TestOutcome::Passed, false, &[("n.py", &[1])]),
        ];
        let refs: Vec<&RepoTest> = rows.iter().collect();
        let cov = Coverage::build(&refs, ["m.py", "n.py"]);
        // Lines 1 and 3: two tests together; the failing test that ran line 1 is no judge.
        let j = cov.judge("m.py", &[unit(1, 1), unit(3, 3)]).unwrap();
        assert_eq!(j.tests, ["t::a", "t::b"]);
        assert!((j.seconds - 1.0).abs() < 1e-9);
        // A line only a flaky or a failing test ran.
        assert_eq!(
            cov.judge("m.py", &[unit(1, 1), unit(4, 4)]),
            Err(CoverageGate::NoPassingTests)
        );
        assert_eq!(
            cov.judge("m.py", &[unit(5, 5)]),
            Err(CoverageGate::NoPassingTests)
        );
        // A line nobody ran; another file's line 1 does not count.
        assert_eq!(
            cov.judge("m.py", &[unit(1, 1), unit(6, 6)]),
            Err(CoverageGate::NotCovered)
        );
        assert_eq!(
            cov.judge("x.py", &[unit(1, 1)]),
            Err(CoverageGate::NotCovered)
        );
        // A multi-line statement counts when any of its lines was recorded.
        assert_eq!(
            cov.judge("m.py", &[unit(6, 8), unit(2, 3)]),
            Err(CoverageGate::NotCovered)
        );
        assert_eq!(
            cov.judge("m.py", &[unit(2, 3)]).unwrap().tests,
            ["t::a", "t::b"]
        );
    }

    #[test]
    fn recorded_paths_are_matched_to_files() {
        let mut m = PathMatcher::new(["src/pkg/mod.py", "pkg/other.py", "a/x.py", "b/x.py"]);
        assert_eq!(m.resolve("src/pkg/mod.py"), Some("src/pkg/mod.py"));
        assert_eq!(m.resolve("./src//pkg/./mod.py"), Some("src/pkg/mod.py"));
        assert_eq!(m.resolve("src\\pkg\\mod.py"), Some("src/pkg/mod.py"));
        assert_eq!(
            m.resolve("/tmp/trees/r-1/tree/src/pkg/mod.py"),
            Some("src/pkg/mod.py")
        );
        assert_eq!(m.resolve("../../work/pkg/other.py"), Some("pkg/other.py"));
        // Relative to the import root: the one file it is the tail of.
        assert_eq!(m.resolve("pkg/mod.py"), Some("src/pkg/mod.py"));
        // Ambiguous or unknown.
        assert_eq!(m.resolve("x.py"), None);
        assert_eq!(m.resolve("/usr/lib/python3/os.py"), None);
        let rows = [test(
            "t",
            TestOutcome::Passed,
            false,
            &[("./src/pkg/mod.py", &[1]), ("/usr/lib/os.py", &[1])],
        )];
        let refs: Vec<&RepoTest> = rows.iter().collect();
        let cov = Coverage::build(&refs, ["src/pkg/mod.py"]);
        assert!(cov.has_file("src/pkg/mod.py"));
        assert_eq!(cov.unmatched.iter().collect::<Vec<_>>(), ["/usr/lib/os.py"]);
    }
}
