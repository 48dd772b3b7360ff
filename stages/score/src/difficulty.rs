//! Difficulty buckets: tertiles of a combined difficulty, the mean of each measure's
//! normalized rank.
//!
//! Ranks make measures of different scales (lines, executed statements, inputs) comparable
//! without choosing weights or units, and a rank does not care about the long tails these
//! counts have. Ties share their average rank.

/// The bucket names, easiest first.
pub const BUCKETS: [&str; 3] = ["low", "medium", "high"];

/// Normalized average ranks of `values` in `[0, 1]` (0 for the smallest); ties get the
/// average of their ranks; a single value gets 0.5.
pub fn normalized_ranks(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![0.5];
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && values[order[j + 1]].total_cmp(&values[order[i]]).is_eq() {
            j += 1;
        }
        // Positions i..=j (0-based) tie: their average position.
        let avg = (i + j) as f64 / 2.0;
        for &o in &order[i..=j] {
            ranks[o] = avg / (n - 1) as f64;
        }
        i = j + 1;
    }
    ranks
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
}
