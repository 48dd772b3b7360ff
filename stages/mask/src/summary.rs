//! What `mask` found, lost at each gate and wrote, per level: printed on stderr.

use std::io::Write;

use schemas::SpanKind;

/// The position of a level in the per-level counters.
pub fn level(kind: SpanKind) -> usize {
    match kind {
        SpanKind::Expression => 0,
        SpanKind::Statement => 1,
        SpanKind::Block => 2,
        SpanKind::Function => 3,
    }
}

/// Spans per level.
pub type PerLevel = [usize; 4];

/// Counters of one run (or one repository; they add up).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Repositories with files to mask.
    pub repos: usize,
    /// Of them, repositories without any `repo_tests` row.
    pub repos_without_tests: usize,
    /// Source files parsed.
    pub files: usize,
    /// Test files (never masked).
    pub test_files: usize,
    /// Source files with no line executed by any test.
    pub files_without_coverage: usize,
    /// Paths in `repo_tests.lines` that match no file of their repository.
    pub unmatched_paths: usize,
    pub found: PerLevel,
    pub too_small: PerLevel,
    pub too_big: PerLevel,
    pub not_covered: PerLevel,
    pub no_passing_tests: PerLevel,
    /// Their judge tests took longer than `--max-judge-seconds` in `repo_tests`.
    pub judges_too_slow: PerLevel,
    /// The reference appears elsewhere in its own file.
    pub leak: PerLevel,
    /// Left out by `--per-file` and `--per-repo`.
    pub cap: PerLevel,
    pub written: PerLevel,
    /// Context snippets dropped because they hold the reference.
    pub snippets_dropped: usize,
}

fn add(a: &mut PerLevel, b: &PerLevel) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

impl Summary {
    pub fn merge(&mut self, o: &Summary) {
        self.repos += o.repos;
        self.repos_without_tests += o.repos_without_tests;
        self.files += o.files;
        self.test_files += o.test_files;
        self.files_without_coverage += o.files_without_coverage;
        self.unmatched_paths += o.unmatched_paths;
        add(&mut self.found, &o.found);
        add(&mut self.too_small, &o.too_small);
        add(&mut self.too_big, &o.too_big);
        add(&mut self.not_covered, &o.not_covered);
        add(&mut self.no_passing_tests, &o.no_passing_tests);
        add(&mut self.judges_too_slow, &o.judges_too_slow);
        add(&mut self.leak, &o.leak);
        add(&mut self.cap, &o.cap);
        add(&mut self.written, &o.written);
        self.snippets_dropped += o.snippets_dropped;
    }

    /// Tasks written, all levels.
    pub fn total_written(&self) -> usize {
        self.written.iter().sum()
    }

    /// The summary as printed.
    pub fn render(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            out,
            "mask: {} repositories ({} without repo tests), {} source files parsed ({} without coverage), {} test files not masked",
            self.repos,
            self.repos_without_tests,
            self.files,
            self.files_without_coverage,
            self.test_files
        )?;
        if self.unmatched_paths > 0 {
            writeln!(
                out,
                "  {} covered paths in repo_tests match no file of their repository",
                self.unmatched_paths
            )?;
        }
        write!(out, "  {:<22}", "spans")?;
        for k in SpanKind::ALL {
            write!(out, " {:>10}", k.as_str())?;
        }
        writeln!(out, " {:>10}", "total")?;
        let rows: [(&str, &PerLevel); 9] = [
            ("found", &self.found),
            ("- too small", &self.too_small),
            ("- too big", &self.too_big),
            ("- not covered", &self.not_covered),
            ("- no passing tests", &self.no_passing_tests),
            ("- judges too slow", &self.judges_too_slow),
            ("- leak (in own file)", &self.leak),
            ("- cap", &self.cap),
            ("= tasks written", &self.written),
        ];
        for (name, counts) in rows {
            write!(out, "  {name:<22}")?;
            for c in counts {
                write!(out, " {c:>10}")?;
            }
            writeln!(out, " {:>10}", counts.iter().sum::<usize>())?;
        }
        writeln!(
            out,
            "  context snippets dropped for holding their task's reference: {}",
            self.snippets_dropped
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_add_up_in_the_table() {
        let mut s = Summary {
            found: [5, 4, 3, 2],
            too_small: [1, 0, 0, 0],
            written: [4, 4, 3, 2],
            ..Summary::default()
        };
        s.merge(&s.clone());
        let mut out = Vec::new();
        s.render(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("found"), "{text}");
        assert!(
            text.lines()
                .any(|l| l.starts_with("  = tasks written") && l.trim_end().ends_with(" 26")),
            "{text}"
        );
        assert_eq!(s.total_written(), 26);
    }
}
