//! When to try a request again: which answers are worth a retry, how long to wait
//! (exponential backoff with jitter, or the server's `Retry-After`).

use std::time::Duration;

/// The longest `Retry-After` honoured; a server asking for more gets this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_mins(5);

/// What to do after an HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Overloaded or failing for now (408, 409, 429, 5xx): wait and ask again.
    Retry,
    /// This request is refused (400 with a too-long prompt, 422, ...): the answer is an error.
    Fail,
    /// Every request will be refused (401, 403: the key; 404: the URL or model name): stop.
    Fatal,
}

pub fn classify(status: u16) -> Verdict {
    match status {
        408 | 409 | 425 | 429 | 500..=599 => Verdict::Retry,
        401 | 403 | 404 => Verdict::Fatal,
        _ => Verdict::Fail,
    }
}

/// Exponential backoff: `base * 2^attempt`, at most `cap`, times a jitter factor in
/// `[0.5, 1)` drawn from a seed (so concurrent requests that failed together do not come
/// back together, and a run's waits are reproducible).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub cap: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base: Duration::from_secs(1),
            cap: Duration::from_mins(1),
        }
    }
}

impl Backoff {
    /// The wait before retry number `attempt + 1` (attempt 0 is the first request).
    pub fn delay(&self, attempt: u32, seed: u64) -> Duration {
        let full = self
            .base
            .saturating_mul(1u32 << attempt.min(20))
            .min(self.cap);
        let r = splitmix64(seed ^ u64::from(attempt).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
        full.mul_f64(0.5 + 0.5 * unit)
    }
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A `Retry-After` header in seconds (`0`, `2`, `1.5`), capped at [`MAX_RETRY_AFTER`].
/// An HTTP date or anything else is `None` (the backoff decides).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().parse().ok()?;
    if !secs.is_finite() || secs < 0.0 {
        return None;
    }
    Some(Duration::from_secs_f64(secs).min(MAX_RETRY_AFTER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        assert_eq!(classify(429), Verdict::Retry);
        assert_eq!(classify(500), Verdict::Retry);
        assert_eq!(classify(503), Verdict::Retry);
        assert_eq!(classify(400), Verdict::Fail);
        assert_eq!(classify(422), Verdict::Fail);
        assert_eq!(classify(401), Verdict::Fatal);
        assert_eq!(classify(404), Verdict::Fatal);
    }

    #[test]
    fn delays_grow_up_to_the_cap_with_bounded_jitter() {
        let b = Backoff {
            base: Duration::from_millis(100),
            cap: Duration::from_secs(2),
        };
        for seed in [0, 1, 42, u64::MAX] {
            let mut last_full = Duration::ZERO;
            for attempt in 0..40 {
                let full = (Duration::from_millis(100) * 2u32.pow(attempt.min(20)))
                    .min(Duration::from_secs(2));
                assert!(full >= last_full);
                last_full = full;
                let d = b.delay(attempt, seed);
                assert!(
                    d >= full / 2 && d <= full,
                    "attempt {attempt}: {d:?} vs {full:?}"
                );
            }
        }
        assert!(b.delay(0, 7) < Duration::from_millis(101));
        assert!(b.delay(30, 7) >= Duration::from_secs(1));
        // Reproducible, and different seeds spread.
        assert_eq!(b.delay(3, 9), b.delay(3, 9));
        let spread: std::collections::BTreeSet<Duration> = (0..20).map(|s| b.delay(3, s)).collect();
        assert!(spread.len() > 10);
    }

    #[test]
    fn retry_after_values() {
        assert_eq!(parse_retry_after("0"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after(" 2 "), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_after("99999"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}
