//! One side's figures over one round, and the rounds of a side as one: this machine's speed
//! drifts from one run of a few seconds to the next, and alternating rounds spread that drift over
//! every side instead of handing it to one.

use serde::{Deserialize, Serialize};

/// What a side did in a round, or in all its rounds once combined.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct Round {
    /// Requests (wrk) or transactions (pgbench) a second.
    pub rate: f64,
    /// Latencies, ms.
    pub p50: f64,
    pub p99: f64,
    /// Non-2xx or unexpected answers and socket errors (wrk), failed transactions (pgbench).
    pub errors: u64,
    /// pgbench ended a client early (an error it does not count as a failed transaction).
    pub aborted: bool,
    /// Requests or transactions counted.
    pub count: u64,
}

/// The rounds as one: the mean rate, the median p50, the highest p99, the errors and counts
/// added up, aborted if any round was.
pub fn combine(rounds: &[Round]) -> Round {
    if rounds.is_empty() {
        return Round::default();
    }
    let mut p50s: Vec<f64> = rounds.iter().map(|r| r.p50).collect();
    Round {
        rate: rounds.iter().map(|r| r.rate).sum::<f64>() / rounds.len() as f64,
        p50: percentile(&mut p50s, 50),
        p99: rounds.iter().map(|r| r.p99).fold(0.0, f64::max),
        errors: rounds.iter().map(|r| r.errors).sum(),
        aborted: rounds.iter().any(|r| r.aborted),
        count: rounds.iter().map(|r| r.count).sum(),
    }
}

/// The p-th percentile (0-100) of `values`: the smallest value at or above p % of them (0 for
/// none).
pub fn percentile(values: &mut [f64], p: usize) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = (values.len() * p).div_ceil(100).max(1);
    values[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentile_is_a_value_of_the_set() {
        assert_eq!(percentile(&mut [3.0, 1.0, 2.0], 50), 2.0);
        assert_eq!(percentile(&mut [4.0, 1.0, 3.0, 2.0], 50), 2.0);
        assert_eq!(percentile(&mut (1..=100).map(f64::from).collect::<Vec<_>>(), 99), 99.0);
        assert_eq!(percentile(&mut [5.0], 1), 5.0);
        assert_eq!(percentile(&mut [], 50), 0.0);
    }

    #[test]
    fn rounds_combine_as_mean_median_highest_and_sums() {
        let round = |rate, p50, p99, errors, aborted| Round { rate, p50, p99, errors, aborted, count: 10 };
        let combined = combine(&[
            round(100.0, 1.0, 5.0, 0, false),
            round(200.0, 3.0, 4.0, 2, false),
            round(300.0, 2.0, 9.0, 1, true),
        ]);
        assert_eq!(combined, Round { rate: 200.0, p50: 2.0, p99: 9.0, errors: 3, aborted: true, count: 30 });
    }
}
