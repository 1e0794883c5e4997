//! The sequential probability ratio test on game pairs, as fishtest runs it: the generalized log-likelihood ratio
//! of two Elo hypotheses over the pentanomial counts of pair scores (0, 1/4, 1/2, 3/4, 1: each opening played
//! with both colours), stopped when it crosses a bound set by the error rates.

use thiserror::Error;

use crate::ratings::expected_score;

/// The scores of a game pair, per game: both lost, a loss and a draw, ..., both won.
pub const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// What replaces a zero count, so that every outcome keeps some probability (fishtest's regularisation).
const EMPTY_COUNT: f64 = 1e-3;

#[derive(Debug, Error, PartialEq)]
pub enum SprtError {
    #[error("elo0 ({elo0}) must be below elo1 ({elo1})")]
    Hypotheses { elo0: f64, elo1: f64 },
    #[error("alpha and beta must lie strictly between 0 and 0.5 (got {alpha}, {beta})")]
    ErrorRates { alpha: f64, beta: f64 },
}

/// The test's verdict so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The log-likelihood ratio fell to the lower bound: the candidate is not `elo1` better (H0 accepted).
    H0,
    /// It rose to the upper bound: the candidate is `elo1` better rather than `elo0` (H1 accepted).
    H1,
    /// Neither bound reached: play on.
    Continue,
}

/// A test of H0: the candidate is `elo0` Elo stronger, against H1: it is `elo1` stronger (logistic Elo).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

impl Sprt {
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        // Written so that NaN fails too.
        if elo0.partial_cmp(&elo1) != Some(std::cmp::Ordering::Less) {
            return Err(SprtError::Hypotheses { elo0, elo1 });
        }
        let rate = |x: f64| x > 0.0 && x < 0.5;
        if !rate(alpha) || !rate(beta) {
            return Err(SprtError::ErrorRates { alpha, beta });
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// The lower and upper bounds of the log-likelihood ratio: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The generalized log-likelihood ratio of H1 against H0 given the pentanomial counts of the pairs played.
    pub fn llr(&self, pairs: &[u64; 5]) -> f64 {
        let n: u64 = pairs.iter().sum();
        if n == 0 {
            return 0.0;
        }
        let counts: Vec<f64> = pairs.iter().map(|&c| if c == 0 { EMPTY_COUNT } else { c as f64 }).collect();
        let total: f64 = counts.iter().sum();
        let p: Vec<f64> = counts.iter().map(|c| c / total).collect();
        let p0 = closest_with_mean(&p, expected_score(self.elo0));
        let p1 = closest_with_mean(&p, expected_score(self.elo1));
        n as f64 * (0..5).map(|i| p[i] * (p1[i] / p0[i]).ln()).sum::<f64>()
    }

    pub fn decide(&self, pairs: &[u64; 5]) -> Decision {
        let (lower, upper) = self.bounds();
        match self.llr(pairs) {
            llr if llr <= lower => Decision::H0,
            llr if llr >= upper => Decision::H1,
            _ => Decision::Continue,
        }
    }
}

/// The index into [`PAIR_SCORES`] of a pair whose two games scored `first` and `second` (1, 0.5, 0).
pub fn pair_category(first: f64, second: f64) -> usize {
    ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize
}

/// The distribution over [`PAIR_SCORES`] with mean `s` closest to `p` (the maximum-likelihood one under that
/// constraint): `p_i / (1 + x (a_i - s))`, with `x` the root of `sum p_i (a_i - s) / (1 + x (a_i - s))`, which
/// decreases in `x` between the poles at -1 / (1 - s) and 1 / s.
fn closest_with_mean(p: &[f64], s: f64) -> Vec<f64> {
    let f = |x: f64| p.iter().zip(PAIR_SCORES).map(|(p, a)| p * (a - s) / (1.0 + x * (a - s))).sum::<f64>();
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    p.iter().zip(PAIR_SCORES).map(|(p, a)| p / (1.0 + x * (a - s))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn bounds_are_fishtests() {
        let (lo, hi) = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap().bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
    }

    /// The closest distribution keeps the required mean and sums to one; a sample whose mean is halfway between
    /// the hypotheses favours neither.
    #[test]
    fn the_constrained_distribution_has_the_required_mean() {
        let p = [0.1, 0.2, 0.4, 0.2, 0.1];
        for s in [0.3, 0.5, 0.62] {
            let q = closest_with_mean(&p, s);
            let mean: f64 = q.iter().zip(PAIR_SCORES).map(|(q, a)| q * a).sum();
            assert!((mean - s).abs() < 1e-9 && (q.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{q:?}");
        }
        // Symmetric counts (mean 0.5) between hypotheses symmetric about 0 Elo: the ratio is 0.
        let sprt = Sprt::new(-10.0, 10.0, 0.05, 0.05).unwrap();
        assert!(sprt.llr(&[10, 20, 40, 20, 10]).abs() < 1e-9);
        assert!(sprt.llr(&[5, 15, 40, 25, 15]) > 0.0 && sprt.llr(&[15, 25, 40, 15, 5]) < 0.0);
    }

    /// Simulated matches with known outcome probabilities: at the truth elo0 the test accepts H1 about alpha of the
    /// time, at elo1 it accepts H0 about beta of the time (the overshoot of discrete steps makes both a little
    /// smaller than asked); both stay near their targets, neither collapses to 0.
    #[test]
    fn error_rates_stay_near_alpha_and_beta() {
        let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let draw = 0.3;
        let mut run = |elo: f64| -> Decision {
            // A game: win, draw or loss with the draw rate fixed and the expected score of `elo`.
            let s = expected_score(elo);
            let win = s - draw / 2.0;
            let mut pairs = [0u64; 5];
            loop {
                let mut game = || {
                    let u: f64 = rng.random();
                    if u < win {
                        1.0
                    } else if u < win + draw {
                        0.5
                    } else {
                        0.0
                    }
                };
                let (a, b) = (game(), game());
                pairs[pair_category(a, b)] += 1;
                match sprt.decide(&pairs) {
                    Decision::Continue => continue,
                    d => return d,
                }
            }
        };
        let trials = 1000;
        let false_h1 = (0..trials).filter(|_| run(0.0) == Decision::H1).count() as f64 / trials as f64;
        let false_h0 = (0..trials).filter(|_| run(50.0) == Decision::H0).count() as f64 / trials as f64;
        assert!((0.01..=0.075).contains(&false_h1), "accepted H1 at elo0 in {false_h1}");
        assert!((0.01..=0.075).contains(&false_h0), "accepted H0 at elo1 in {false_h0}");
        // Far from both hypotheses the answer is the nearer one almost always.
        assert!((0..100).filter(|_| run(150.0) == Decision::H1).count() >= 99);
        assert!((0..100).filter(|_| run(-100.0) == Decision::H0).count() >= 99);
    }
}
