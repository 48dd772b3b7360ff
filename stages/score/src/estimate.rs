//! The statistics: the unbiased pass@k estimator, the k values reported, a seeded
//! pseudo-random generator and the percentile bootstrap over tasks (or over clusters of
//! tasks, for a statistic of their sums: [`bootstrap_statistic`]).

/// The unbiased estimator of pass@k for one task with `n` samples of which `c` pass
/// (Chen et al., 2021): the probability that at least one of `k` samples drawn without
/// replacement from the `n` passes, `1 - C(n-c, k) / C(n, k)`.
///
/// Computed as `1 - prod_{i = n-c+1}^{n} (1 - k / i)`, which never forms a binomial
/// coefficient (those overflow for a few hundred samples) and loses no precision.
/// Returns `None` when `k` is 0 or larger than `n` (the estimator is undefined there), or
/// when `c > n`.
pub fn pass_at_k(n: u32, c: u32, k: u32) -> Option<f64> {
    if k == 0 || k > n || c > n {
        return None;
    }
    if n - c < k {
        // Every draw of k samples holds a passing one.
        return Some(1.0);
    }
    let k = f64::from(k);
    let mut all_fail = 1.0;
    for i in (n - c + 1)..=n {
        all_fail *= 1.0 - k / f64::from(i);
    }
    Some(1.0 - all_fail)
}

/// The k values reported for a group whose smallest sample count is `n_min`: the 1-2-5
/// series (1, 2, 5, 10, 20, 50, 100, ...) up to `n_min`, and `n_min` itself (the chance
/// that any sample passes). Empty when `n_min` is 0.
pub fn ks_for(n_min: u32) -> Vec<u32> {
    let mut ks = Vec::new();
    let mut decade = 1u32;
    'series: loop {
        for step in [1, 2, 5] {
            let Some(k) = decade.checked_mul(step) else {
                break 'series;
            };
            if k > n_min {
                break 'series;
            }
            ks.push(k);
        }
        match decade.checked_mul(10) {
            Some(d) => decade = d,
            None => break,
        }
    }
    if n_min > 0 && ks.last() != Some(&n_min) {
        ks.push(n_min);
    }
    ks
}

/// `SplitMix64` (Steele, Lea and Flood, 2014): a 64-bit generator of one word of state.
///
/// The bootstrap needs reproducible draws from a seed, not cryptographic or
/// high-dimensional quality; these twelve lines give exactly that and are stable across
/// platforms and releases, where an added crate (rand and its generators) would bring a
/// dependency whose streams may change between versions and so change the published
/// intervals.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index below `bound` (> 0), by Lemire's multiply-shift: the bias is at
    /// most `bound / 2^64`, far below anything a bootstrap can see.
    pub fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }
}

/// A 64-bit FNV-1a hash of text, to derive a seed per group from its name.
pub fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// A point estimate with its 95% percentile bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Mean over tasks.
    pub value: f64,
    /// 2.5th percentile of the resampled means.
    pub low: f64,
    /// 97.5th percentile of the resampled means.
    pub high: f64,
}

impl Estimate {
    /// A value without spread: the interval is the point.
    pub fn point(value: f64) -> Estimate {
        Estimate {
            value,
            low: value,
            high: value,
        }
    }
}

/// The means of several per-unit measures over each of `resamples` bootstrap draws: each
/// round draws as many units as there are, with replacement, from `rng`, and takes the
/// mean of every measure over the draw (`out[round][j]`, measure `j`). The one resampling
/// loop of the crate: [`bootstrap`] and [`bootstrap_statistic`] are its percentiles.
///
/// `per_unit[j][u]` is measure `j` of unit `u` (a task, or a group of tasks); every inner
/// vector has the same length, which must not be 0.
fn resampled_means(per_unit: &[Vec<f64>], resamples: usize, rng: &mut SplitMix64) -> Vec<Vec<f64>> {
    let units = per_unit.first().map_or(0, Vec::len);
    let mut rounds = Vec::with_capacity(resamples);
    let mut sums = vec![0.0; per_unit.len()];
    for _ in 0..resamples {
        sums.fill(0.0);
        for _ in 0..units {
            let u = rng.below(units);
            for (s, v) in sums.iter_mut().zip(per_unit) {
                *s += v[u];
            }
        }
        rounds.push(sums.iter().map(|s| s / units as f64).collect());
    }
    rounds
}

/// Means and 95% percentile bootstrap intervals of several per-task measures at once
/// (one per k), over the same resamples.
///
/// `per_task[j][t]` is measure `j` of task `t`; every inner vector has the same length.
/// Each of `resamples` rounds draws as many tasks as there are, with replacement, from
/// `rng`, and takes the mean of each measure over the draw; the interval is the 2.5th and
/// 97.5th percentiles of those means (linear interpolation between order statistics).
/// With no tasks every estimate is NaN; with `resamples == 0` the interval is the point.
pub fn bootstrap(per_task: &[Vec<f64>], resamples: usize, rng: &mut SplitMix64) -> Vec<Estimate> {
    let tasks = per_task.first().map_or(0, Vec::len);
    let means: Vec<f64> = per_task.iter().map(|v| mean(v)).collect();
    if tasks == 0 || resamples == 0 {
        return means.into_iter().map(Estimate::point).collect();
    }
    let rounds = resampled_means(per_task, resamples, rng);
    means
        .into_iter()
        .enumerate()
        .map(|(j, m)| {
            let mut d: Vec<f64> = rounds.iter().map(|r| r[j]).collect();
            d.sort_by(f64::total_cmp);
            Estimate {
                value: m,
                low: quantile(&d, 0.025),
                high: quantile(&d, 0.975),
            }
        })
        .collect()
}

/// A statistic of the means of several per-unit measures, with its 95% percentile
/// bootstrap interval: `stat` is applied to the measures' means over all units (the
/// point) and over each round of [`bootstrap`]'s resampling (the interval's percentiles).
///
/// This resamples whole units, so a unit may be a cluster of tasks: with a cluster's sums
/// and counts as its measures, `stat` can form ratios of sums (a mean over the tasks of
/// the clusters drawn) and their differences. NaN when there are no units; the point with
/// `resamples == 0`.
pub fn bootstrap_statistic(
    per_unit: &[Vec<f64>],
    resamples: usize,
    rng: &mut SplitMix64,
    stat: impl Fn(&[f64]) -> f64,
) -> Estimate {
    let units = per_unit.first().map_or(0, Vec::len);
    if units == 0 {
        return Estimate::point(f64::NAN);
    }
    let means: Vec<f64> = per_unit.iter().map(|v| mean(v)).collect();
    let value = stat(&means);
    if resamples == 0 {
        return Estimate::point(value);
    }
    let mut d: Vec<f64> = resampled_means(per_unit, resamples, rng)
        .iter()
        .map(|m| stat(m))
        .collect();
    d.sort_by(f64::total_cmp);
    Estimate {
        value,
        low: quantile(&d, 0.025),
        high: quantile(&d, 0.975),
    }
}

/// The difference of the means of two independent groups of per-task values
/// (`mean(a) - mean(b)`), with its 95% percentile bootstrap interval: each of `resamples`
/// rounds draws each group anew from itself, with replacement and at its own size. This
/// tests the gap itself; two groups' intervals may overlap while the interval of their
/// difference excludes zero. NaN when a group is empty; the point with `resamples == 0`.
pub fn difference(a: &[f64], b: &[f64], resamples: usize, rng: &mut SplitMix64) -> Estimate {
    let value = mean(a) - mean(b);
    if a.is_empty() || b.is_empty() || resamples == 0 {
        return Estimate {
            value,
            low: value,
            high: value,
        };
    }
    let draw = |v: &[f64], rng: &mut SplitMix64| {
        (0..v.len()).map(|_| v[rng.below(v.len())]).sum::<f64>() / v.len() as f64
    };
    let mut diffs: Vec<f64> = (0..resamples)
        .map(|_| draw(a, rng) - draw(b, rng))
        .collect();
    diffs.sort_by(f64::total_cmp);
    Estimate {
        value,
        low: quantile(&diffs, 0.025),
        high: quantile(&diffs, 0.975),
    }
}

/// The mean, NaN when empty.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The `p` quantile of sorted values by linear interpolation between order statistics
/// (Hyndman and Fan's type 7, the default of R and numpy).
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        len => {
            let h = (len - 1) as f64 * p.clamp(0.0, 1.0);
            let lo = h.floor() as usize;
            let hi = (lo + 1).min(len - 1);
            sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn pass_at_k_by_hand() {
        // n = 5, c = 2: pass@k = 1 - C(3, k) / C(5, k).
        let want = [
            (1, 1.0 - 3.0 / 5.0),
            (2, 1.0 - 3.0 / 10.0),
            (3, 1.0 - 1.0 / 10.0),
            (4, 1.0),
            (5, 1.0),
        ];
        for (k, p) in want {
            assert!(close(pass_at_k(5, 2, k).unwrap(), p), "k={k}");
        }
        // pass@1 is the share of passing samples.
        assert!(close(pass_at_k(10, 3, 1).unwrap(), 0.3));
        // n = 4, c = 2, k = 2: 1 - C(2,2)/C(4,2) = 1 - 1/6.
        assert!(close(pass_at_k(4, 2, 2).unwrap(), 5.0 / 6.0));
        // n = 10, c = 1, k = 5: 1 - C(9,5)/C(10,5) = 1 - 126/252.
        assert!(close(pass_at_k(10, 1, 5).unwrap(), 0.5));
        assert_eq!(pass_at_k(3, 0, 3), Some(0.0));
        assert_eq!(pass_at_k(3, 3, 1), Some(1.0));
        assert_eq!(pass_at_k(1, 1, 1), Some(1.0));
        assert_eq!(pass_at_k(1, 0, 1), Some(0.0));
    }

    #[test]
    fn pass_at_k_undefined() {
        assert_eq!(pass_at_k(3, 1, 0), None);
        assert_eq!(pass_at_k(3, 1, 4), None);
        assert_eq!(pass_at_k(3, 4, 1), None);
        assert_eq!(pass_at_k(0, 0, 1), None);
    }

    #[test]
    fn pass_at_k_is_stable_for_many_samples() {
        // C(1000, 500) overflows every float; the product form does not care.
        let p = pass_at_k(1000, 1, 500).unwrap();
        assert!(close(p, 0.5), "{p}");
        let p = pass_at_k(1000, 10, 1).unwrap();
        assert!(close(p, 0.01), "{p}");
        assert!(pass_at_k(1000, 3, 100).unwrap().is_finite());
    }

    /// Brute force: the share of k-subsets of the samples that hold a passing one.
    fn by_enumeration(n: u32, c: u32, k: u32) -> f64 {
        let (mut hit, mut all) = (0u64, 0u64);
        for mask in 0u32..(1 << n) {
            if mask.count_ones() != k {
                continue;
            }
            all += 1;
            // Samples 0..c pass.
            if mask & ((1 << c) - 1) != 0 {
                hit += 1;
            }
        }
        hit as f64 / all as f64
    }

    proptest! {
        #[test]
        fn pass_at_k_matches_enumeration(n in 1u32..=12, c_frac in 0.0f64..=1.0, k_frac in 0.0f64..=1.0) {
            let c = (f64::from(n) * c_frac).round() as u32;
            let k = 1 + ((f64::from(n - 1)) * k_frac).round() as u32;
            let got = pass_at_k(n, c, k).unwrap();
            let want = by_enumeration(n, c, k);
            prop_assert!((got - want).abs() < 1e-9, "n={} c={} k={}: {} vs {}", n, c, k, got, want);
        }

        #[test]
        fn pass_at_k_grows_with_k_and_c(n in 1u32..=40, c in 0u32..=40, k in 1u32..=40) {
            prop_assume!(c <= n && k <= n);
            let p = pass_at_k(n, c, k).unwrap();
            prop_assert!((0.0..=1.0).contains(&p));
            if k < n {
                prop_assert!(pass_at_k(n, c, k + 1).unwrap() >= p - 1e-12);
            }
            if c < n {
                prop_assert!(pass_at_k(n, c + 1, k).unwrap() >= p - 1e-12);
            }
        }
    }

    #[test]
    fn ks_series() {
        assert_eq!(ks_for(0), Vec::<u32>::new());
        assert_eq!(ks_for(1), vec![1]);
        assert_eq!(ks_for(3), vec![1, 2, 3]);
        assert_eq!(ks_for(5), vec![1, 2, 5]);
        assert_eq!(ks_for(10), vec![1, 2, 5, 10]);
        assert_eq!(ks_for(16), vec![1, 2, 5, 10, 16]);
        assert_eq!(ks_for(100), vec![1, 2, 5, 10, 20, 50, 100]);
        assert_eq!(ks_for(u32::MAX).last(), Some(&u32::MAX));
    }

    #[test]
    fn splitmix_known_values() {
        // Reference outputs of SplitMix64 seeded with 0 (as in Vigna's splitmix64.c).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut r = SplitMix64::new(7);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let i = r.below(7);
            assert!(i < 7);
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn quantiles() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert!(close(quantile(&v, 0.0), 1.0));
        assert!(close(quantile(&v, 0.5), 3.0));
        assert!(close(quantile(&v, 1.0), 5.0));
        assert!(close(quantile(&v, 0.125), 1.5));
        assert!(quantile(&[], 0.5).is_nan());
        assert!(close(quantile(&[4.0], 0.9), 4.0));
    }

    fn tasks(count: usize, share: f64) -> Vec<f64> {
        // The first `share` of tasks pass.
        (0..count)
            .map(|i| {
                if (i as f64) < share * count as f64 {
                    1.0
                } else {
                    0.0
                }
            })
            .collect()
    }

    #[test]
    fn bootstrap_contains_the_estimate() {
        for (count, share) in [(10, 0.3), (50, 0.5), (10, 0.9), (200, 0.1)] {
            let v = tasks(count, share);
            let e = bootstrap(&[v], 1000, &mut SplitMix64::new(1))[0];
            assert!(e.low <= e.value && e.value <= e.high, "{e:?}");
            assert!(e.low < e.high, "{e:?}");
            assert!(e.low >= 0.0 && e.high <= 1.0);
        }
    }

    #[test]
    fn bootstrap_is_deterministic_for_a_seed() {
        // Per-task values of all sizes, so that the percentiles move with the draws.
        let spread: Vec<f64> = (0..30).map(|i| f64::from(i * i % 31) / 31.0).collect();
        let v = vec![tasks(30, 0.4), spread];
        let a = bootstrap(&v, 500, &mut SplitMix64::new(42));
        let b = bootstrap(&v, 500, &mut SplitMix64::new(42));
        let c = bootstrap(&v, 500, &mut SplitMix64::new(43));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(close(a[0].value, 0.4));
    }

    #[test]
    fn bootstrap_narrows_with_more_tasks() {
        let width = |count| {
            let e = bootstrap(&[tasks(count, 0.5)], 1000, &mut SplitMix64::new(3))[0];
            e.high - e.low
        };
        let (w10, w100, w1000) = (width(10), width(100), width(1000));
        assert!(w10 > w100 && w100 > w1000, "{w10} {w100} {w1000}");
        // About 1.96 * 2 * sqrt(0.25 / n).
        assert!((w100 - 0.196).abs() < 0.05, "{w100}");
    }

    #[test]
    fn difference_of_two_groups() {
        // 60% against 40% on 60 tasks each: the two intervals (about ±0.12 each) overlap,
        // the interval of the difference (about ±0.18 around 0.2) excludes zero.
        let (a, b) = (tasks(60, 0.6), tasks(60, 0.4));
        let ea = bootstrap(std::slice::from_ref(&a), 2000, &mut SplitMix64::new(5))[0];
        let eb = bootstrap(std::slice::from_ref(&b), 2000, &mut SplitMix64::new(5))[0];
        assert!(
            ea.low < eb.high,
            "the groups' intervals overlap: {ea:?} {eb:?}"
        );
        let d = difference(&a, &b, 2000, &mut SplitMix64::new(5));
        assert!(close(d.value, 0.2));
        assert!(d.low > 0.0 && d.low < d.value && d.value < d.high, "{d:?}");
        // The same groups: an interval around zero.
        let same = difference(&a, &a, 2000, &mut SplitMix64::new(5));
        assert!(
            same.value == 0.0 && same.low < 0.0 && same.high > 0.0,
            "{same:?}"
        );
        // Deterministic for a seed; the point without resamples; NaN without a group.
        assert_eq!(d, difference(&a, &b, 2000, &mut SplitMix64::new(5)));
        let p = difference(&a, &b, 0, &mut SplitMix64::new(5));
        assert_eq!((p.low, p.high), (p.value, p.value));
        assert!(difference(&a, &[], 100, &mut SplitMix64::new(5))
            .value
            .is_nan());
    }

    #[test]
    fn a_statistic_of_one_mean_is_the_bootstrap_of_it() {
        // The same resampling: the same interval for the same seed.
        let spread: Vec<f64> = (0..25).map(|i| f64::from(i * 7 % 11) / 11.0).collect();
        let per = vec![spread];
        let a = bootstrap(&per, 400, &mut SplitMix64::new(9))[0];
        let b = bootstrap_statistic(&per, 400, &mut SplitMix64::new(9), |m| m[0]);
        assert_eq!(a, b);
    }

    #[test]
    fn a_ratio_of_sums_over_clusters() {
        // Two clusters: (sum 3 of 4 tasks) and (sum 0 of 2 tasks). The pooled mean is
        // 3 / 6 = 0.5 (not the mean of the clusters' means, 0.375); a resample holds both
        // clusters (0.5), only the first (0.75) or only the second (0.0).
        let per = vec![vec![3.0, 0.0], vec![4.0, 2.0]];
        let e = bootstrap_statistic(&per, 2000, &mut SplitMix64::new(1), |m| m[0] / m[1]);
        assert!(close(e.value, 0.5), "{e:?}");
        assert!(close(e.low, 0.0) && close(e.high, 0.75), "{e:?}");
        let p = bootstrap_statistic(&per, 0, &mut SplitMix64::new(1), |m| m[0] / m[1]);
        assert_eq!((p.value, p.low, p.high), (0.5, 0.5, 0.5));
        let none = bootstrap_statistic(&[vec![], vec![]], 10, &mut SplitMix64::new(1), |m| m[0]);
        assert!(none.value.is_nan());
    }

    #[test]
    fn bootstrap_degenerate_cases() {
        let e = bootstrap(&[vec![1.0; 12]], 100, &mut SplitMix64::new(0))[0];
        assert_eq!((e.value, e.low, e.high), (1.0, 1.0, 1.0));
        let e = bootstrap(&[vec![0.25]], 100, &mut SplitMix64::new(0))[0];
        assert_eq!((e.value, e.low, e.high), (0.25, 0.25, 0.25));
        let e = bootstrap(&[vec![]], 100, &mut SplitMix64::new(0))[0];
        assert!(e.value.is_nan());
        let e = bootstrap(&[tasks(10, 0.5)], 0, &mut SplitMix64::new(0))[0];
        assert_eq!((e.low, e.high), (0.5, 0.5));
    }
}
