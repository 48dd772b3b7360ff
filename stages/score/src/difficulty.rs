//! Difficulty buckets: tertiles of a combined difficulty, the mean of each measure's
//! normalized rank, and tertiles of each of the slice's figures on its own; and Spearman's
//! rank correlation, to tell which figure goes with a run's failures.
//!
//! Ranks make measures of different scales (lines, executed statements, inputs) comparable
//! without choosing weights or units, and a rank does not care about the long tails these
//! counts have. Ties share their average rank.

use schemas::Breakdown;

/// The bucket names, easiest first.
pub const BUCKETS: [&str; 3] = ["low", "medium", "high"];

/// The bucket of a task without a slice of status `ok` (or without a measure).
pub const UNKNOWN: &str = "unknown";

/// The fewest tasks a rank correlation is reported over: below, a handful of tasks would
/// give any value at all.
pub const MIN_TASKS: usize = 6;

/// One of the figures of a task's slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Figure {
    /// ESV, reading load: lines of the functions holding a statement of the slice.
    Esv,
    /// MCL, simulation depth: statements of the slice executed, with repetition.
    Mcl,
    /// DFI, integration width: independent inputs feeding the slice from outside.
    Dfi,
}

impl Figure {
    /// The figures, in the order they are shown (and indexed: `Figure::Esv as usize` is 0).
    pub const ALL: [Figure; 3] = [Figure::Esv, Figure::Mcl, Figure::Dfi];

    /// Its name as the report writes it: `ESV`, `MCL`, `DFI`.
    pub fn name(self) -> &'static str {
        match self {
            Figure::Esv => "ESV",
            Figure::Mcl => "MCL",
            Figure::Dfi => "DFI",
        }
    }

    /// The breakdown of `scores` that holds its tertiles.
    pub fn breakdown(self) -> Breakdown {
        match self {
            Figure::Esv => Breakdown::Esv,
            Figure::Mcl => Breakdown::Mcl,
            Figure::Dfi => Breakdown::Dfi,
        }
    }

    /// What it measures, for the report.
    pub fn meaning(self) -> &'static str {
        match self {
            Figure::Esv => "reading load: lines of the functions holding a statement of the slice",
            Figure::Mcl => "simulation depth: statements of the slice executed in one judged run (a case or a test), with repetition",
            Figure::Dfi => "integration width: independent inputs feeding the slice from outside",
        }
    }
}

/// Average ranks of `values`, 1-based (1 for the smallest); tied values share the average
/// of the positions they take (`[5, 7, 7]` ranks `[1, 2.5, 2.5]`).
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && values[order[j + 1]].total_cmp(&values[order[i]]).is_eq() {
            j += 1;
        }
        // Positions i..=j (0-based) tie: their average position, 1-based.
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &o in &order[i..=j] {
            ranks[o] = avg;
        }
        i = j + 1;
    }
    ranks
}

/// Normalized average ranks of `values` in `[0, 1]` (0 for the smallest); ties get the
/// average of their ranks; a single value gets 0.5.
pub fn normalized_ranks(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    if n == 1 {
        return vec![0.5];
    }
    average_ranks(values)
        .into_iter()
        .map(|r| (r - 1.0) / (n - 1) as f64)
        .collect()
}

/// The combined difficulty of each item: the mean over measures of the item's normalized
/// rank. `measures[m][i]` is measure `m` of item `i`.
pub fn combined(measures: &[Vec<f64>]) -> Vec<f64> {
    let items = measures.first().map_or(0, Vec::len);
    let ranks: Vec<Vec<f64>> = measures.iter().map(|m| normalized_ranks(m)).collect();
    (0..items)
        .map(|i| ranks.iter().map(|r| r[i]).sum::<f64>() / ranks.len() as f64)
        .collect()
}

/// The tertile of each score: 0 (low), 1 (medium) or 2 (high), by the share of items with a
/// strictly smaller score. Equal scores share a bucket, so buckets are about, not exactly,
/// a third each.
pub fn tertiles(scores: &[f64]) -> Vec<usize> {
    let n = scores.len();
    let mut sorted = scores.to_vec();
    sorted.sort_by(f64::total_cmp);
    scores
        .iter()
        .map(|s| {
            let below = sorted.partition_point(|x| x.total_cmp(s).is_lt());
            (3 * below / n).min(2)
        })
        .collect()
}

/// Non-blank lines of a text.
pub fn code_lines(text: &str) -> usize {
    text.lines().filter(|l| !l.trim().is_empty()).count()
}

/// Spearman's rank correlation of `x` and `y` (paired by position): Pearson's correlation
/// of their average ranks ([`average_ranks`]), so ties count as the textbook's tie-corrected
/// coefficient does. `None` with fewer than two pairs or when either side is constant (the
/// correlation is undefined then, not zero).
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    assert_eq!(x.len(), y.len(), "spearman: the two sides differ in length");
    if x.len() < 2 {
        return None;
    }
    pearson(&average_ranks(x), &average_ranks(y))
}

/// Pearson's correlation; `None` when either side has no spread.
fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// Which figure of the slices goes with a run's failures ([`explain_failures`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Explanation {
    /// Fewer than [`MIN_TASKS`] tasks to correlate over (how many there are).
    TooFew(usize),
    /// No task failed any sample: nothing to explain.
    NoFailures,
    /// Every task fails as often as every other (all of them always, say): ranks cannot
    /// tell the tasks apart.
    EvenFailures,
    /// Spearman's rho of each figure (in [`Figure::ALL`] order) with the failure rate,
    /// `None` for a figure that is the same on every task; over `tasks` tasks.
    Rhos { rho: [Option<f64>; 3], tasks: usize },
}

impl Explanation {
    /// The figures that explain most of the failures: those whose rho is the largest (more
    /// than one when they tie), when that rho is above zero; none otherwise (no figure
    /// rises with the failures).
    pub fn leaders(&self) -> Vec<Figure> {
        let Explanation::Rhos { rho, .. } = self else {
            return Vec::new();
        };
        let best = rho
            .iter()
            .flatten()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        if best <= 0.0 {
            return Vec::new();
        }
        Figure::ALL
            .iter()
            .zip(rho)
            .filter(|(_, r)| r.is_some_and(|r| best - r < 1e-12))
            .map(|(f, _)| *f)
            .collect()
    }
}

/// Spearman's rho of each figure with the per-task failure rate (1 - the task's mean pass
/// over its samples): `figures[i]` are task `i`'s ESV, MCL and DFI, `failure[i]` its
/// failure rate. Fewer than [`MIN_TASKS`] tasks, no failure at all, or the same failure
/// rate everywhere give no rho.
pub fn explain_failures(figures: &[[f64; 3]], failure: &[f64]) -> Explanation {
    assert_eq!(figures.len(), failure.len());
    if failure.len() < MIN_TASKS {
        return Explanation::TooFew(failure.len());
    }
    if failure.iter().all(|f| *f <= 0.0) {
        return Explanation::NoFailures;
    }
    if failure.iter().all(|f| f.total_cmp(&failure[0]).is_eq()) {
        return Explanation::EvenFailures;
    }
    let rho = Figure::ALL.map(|f| {
        let x: Vec<f64> = figures.iter().map(|v| v[f as usize]).collect();
        spearman(&x, failure)
    });
    Explanation::Rhos {
        rho,
        tasks: failure.len(),
    }
}

/// Spearman's rho between the figures themselves, over items whose figures are
/// `values[i]` (in [`Figure::ALL`] order): ESV with MCL, ESV with DFI, MCL with DFI (the
/// order of [`FIGURE_PAIRS`]); `None` for a pair with a constant side.
pub fn between_figures(values: &[[f64; 3]]) -> [Option<f64>; 3] {
    FIGURE_PAIRS.map(|(a, b)| {
        let x: Vec<f64> = values.iter().map(|v| v[a as usize]).collect();
        let y: Vec<f64> = values.iter().map(|v| v[b as usize]).collect();
        spearman(&x, &y)
    })
}

/// The pairs of figures [`between_figures`] correlates, in its order.
pub const FIGURE_PAIRS: [(Figure, Figure); 3] = [
    (Figure::Esv, Figure::Mcl),
    (Figure::Esv, Figure::Dfi),
    (Figure::Mcl, Figure::Dfi),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_with_ties() {
        assert_eq!(normalized_ranks(&[10.0, 30.0, 20.0]), vec![0.0, 1.0, 0.5]);
        assert_eq!(
            normalized_ranks(&[1.0, 1.0, 5.0, 9.0, 9.0]),
            vec![0.125, 0.125, 0.5, 0.875, 0.875]
        );
        assert_eq!(normalized_ranks(&[7.0]), vec![0.5]);
        assert!(normalized_ranks(&[]).is_empty());
    }

    #[test]
    fn combined_is_the_mean_of_ranks() {
        // Item 0 is easiest on both, item 2 hardest on one and middling on the other.
        let c = combined(&[vec![1.0, 2.0, 3.0], vec![10.0, 300.0, 20.0]]);
        assert_eq!(c, vec![0.0, 0.75, 0.75]);
    }

    #[test]
    fn tertiles_split_in_thirds() {
        let scores: Vec<f64> = (0..9).map(f64::from).collect();
        assert_eq!(tertiles(&scores), vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
        let scores = [5.0, 1.0, 3.0, 2.0, 4.0, 6.0];
        assert_eq!(tertiles(&scores), vec![2, 0, 1, 0, 1, 2]);
        assert_eq!(tertiles(&[3.0]), vec![0]);
        assert!(tertiles(&[]).is_empty());
    }

    #[test]
    fn tertiles_keep_ties_together() {
        // Everything equal: one bucket, not an arbitrary split.
        assert_eq!(tertiles(&[1.0; 6]), vec![0; 6]);
        let t = tertiles(&[0.0, 1.0, 1.0, 1.0, 1.0, 2.0]);
        assert_eq!(t[1], t[2]);
        assert_eq!(t[2], t[4]);
        assert_eq!(t, vec![0, 0, 0, 0, 0, 2]);
    }

    #[test]
    fn counts_code_lines() {
        assert_eq!(code_lines("def f():\n\n    return 1\n   \n"), 2);
        assert_eq!(code_lines(""), 0);
    }

    #[test]
    fn average_ranks_share_ties() {
        assert_eq!(average_ranks(&[5.0, 7.0, 7.0]), vec![1.0, 2.5, 2.5]);
        assert_eq!(average_ranks(&[3.0, 1.0, 2.0]), vec![3.0, 1.0, 2.0]);
        assert_eq!(average_ranks(&[4.0; 4]), vec![2.5; 4]);
        assert!(average_ranks(&[]).is_empty());
    }

    #[test]
    fn spearman_by_hand() {
        // No ties: d = rank differences 1, 1, 1, 1, 0; 1 - 6 * 4 / (5 * (25 - 1)) = 0.8.
        let rho = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap();
        assert!((rho - 0.8).abs() < 1e-12, "{rho}");
        // Any increasing function of x ranks alike: 1; a decreasing one: -1.
        let x = [0.5, 10.0, 3.0, 7.0];
        let y: Vec<f64> = x.iter().map(|v| v * v * v + 1.0).collect();
        assert!((spearman(&x, &y).unwrap() - 1.0).abs() < 1e-12);
        let y: Vec<f64> = x.iter().map(|v| -v).collect();
        assert!((spearman(&x, &y).unwrap() + 1.0).abs() < 1e-12);
    }

    #[test]
    fn spearman_with_ties() {
        // y ranks 1, 2, 3.5, 5, 3.5 against x's 1..5: deviations from the mean 3 are
        // (-2, -1, 0, 1, 2) and (-2, -1, 0.5, 2, 0.5), so rho = 8 / sqrt(10 * 9.5).
        let rho = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!((rho - 8.0 / 95f64.sqrt()).abs() < 1e-12, "{rho}");
        assert!((rho - 0.820_783).abs() < 1e-6);
        // Symmetric.
        let back = spearman(&[5.0, 6.0, 7.0, 8.0, 7.0], &[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert!((rho - back).abs() < 1e-12);
    }

    #[test]
    fn spearman_of_a_constant_is_undefined() {
        assert_eq!(spearman(&[2.0; 5], &[1.0, 2.0, 3.0, 4.0, 5.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[0.0; 3]), None);
        assert_eq!(spearman(&[1.0], &[2.0]), None);
        assert_eq!(spearman(&[], &[]), None);
    }

    #[test]
    fn the_figure_that_rises_with_the_failures_explains_them() {
        // Six tasks: ESV grows with the failure rate, MCL against it, DFI is constant.
        let failure = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
        let figures: Vec<[f64; 3]> = (0..6)
            .map(|i| [f64::from(i), f64::from(10 - i), 2.0])
            .collect();
        let e = explain_failures(&figures, &failure);
        let Explanation::Rhos { rho, tasks } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(*tasks, 6);
        assert!((rho[0].unwrap() - 1.0).abs() < 1e-12);
        assert!((rho[1].unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(rho[2], None);
        assert_eq!(e.leaders(), [Figure::Esv]);
        // Two figures alike: both lead.
        let figures: Vec<[f64; 3]> = (0..6)
            .map(|i| [f64::from(i), f64::from(i) * 3.0, 1.0])
            .collect();
        assert_eq!(
            explain_failures(&figures, &failure).leaders(),
            [Figure::Esv, Figure::Mcl]
        );
        // Every figure against the failures: none leads.
        let figures: Vec<[f64; 3]> = (0..6).map(|i| [f64::from(-i); 3]).collect();
        assert!(explain_failures(&figures, &failure).leaders().is_empty());
    }

    #[test]
    fn no_explanation_without_enough_tasks_or_failures() {
        let figures: Vec<[f64; 3]> = (0..6).map(|i| [f64::from(i); 3]).collect();
        assert_eq!(
            explain_failures(&figures[..5], &[1.0; 5]),
            Explanation::TooFew(5)
        );
        assert_eq!(
            explain_failures(&figures, &[0.0; 6]),
            Explanation::NoFailures
        );
        assert_eq!(
            explain_failures(&figures, &[1.0; 6]),
            Explanation::EvenFailures
        );
        assert!(Explanation::NoFailures.leaders().is_empty());
    }

    #[test]
    fn figures_against_each_other() {
        // ESV and MCL rank alike, DFI reverses them; a constant figure has no rho.
        let values: Vec<[f64; 3]> = (0..6)
            .map(|i| [f64::from(i), f64::from(i * i), f64::from(-i)])
            .collect();
        let r = between_figures(&values);
        assert!((r[0].unwrap() - 1.0).abs() < 1e-12);
        assert!((r[1].unwrap() + 1.0).abs() < 1e-12);
        assert!((r[2].unwrap() + 1.0).abs() < 1e-12);
        let flat: Vec<[f64; 3]> = (0..6).map(|i| [f64::from(i), 4.0, 4.0]).collect();
        assert_eq!(between_figures(&flat)[1..], [None, None]);
    }
}
