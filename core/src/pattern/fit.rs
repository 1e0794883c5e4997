//! Fitting the pattern weights by least squares on positions labelled with their final disc difference.
//!
//! Per phase, ridge regression (`prior` pseudo-samples at zero per weight) by full-batch gradient steps where each
//! weight moves by the mean residual of the samples it appears in (Buro's method for Logistello: rare configurations
//! converge as fast as common ones).

use std::collections::HashMap;

use crate::symmetry::mirror_columns;
use crate::wthor::WthorGame;
use crate::Status;

use super::features::BIAS;
use super::{features, position_phase, PatternWeights, FEATURES, PHASES, SCALE, WEIGHTS_PER_PHASE};

/// A position (`player` to move) and its final disc difference for the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub player: u64,
    pub opponent: u64,
    pub score: i8,
    /// The score is the position's own exact value (else that of a position some moves of human play away).
    pub exact: bool,
}

/// The labelled positions of a WTHOR game. Each takes the value of the nearest position in the game (in moves) whose
/// value is known, the earlier one on a tie: the position at `depth` empties (the game's theoretical score, perfect
/// play from there), the positions in `exact` (values for the player to move, as [`super::label`] makes them), and
/// the final position. Human errors in the moves between make a label wrong by 9-14 discs at 14-18 empties (RMS)
/// when the nearest is 4-8 moves away. Games that do not replay give nothing.
pub fn wthor_samples(game: &WthorGame, depth: u32, exact: &HashMap<(u64, u64), i8>) -> Vec<Sample> {
    let Ok(replayed) = game.replay() else { return vec![] };
    let positions = replayed.positions();
    let for_black = |pos: &crate::Position, score: i32| if pos.side == crate::Color::Black { score } else { -score };
    let black = |discs: u8| 2 * discs as i32 - 64;
    // (index, value for black); the final position is last.
    let mut known: Vec<(usize, i32)> =
        replayed.index_with_empties(depth).map(|i| (i, black(game.theoretical_score))).into_iter().collect();
    for (i, pos) in positions.iter().enumerate() {
        if let Some(&score) = exact.get(&(pos.player.0, pos.opponent.0)) {
            known.push((i, for_black(pos, score as i32)));
        }
    }
    known.push((positions.len() - 1, black(game.black_score)));
    positions
        .iter()
        .enumerate()
        .filter(|(_, pos)| matches!(replayed.rules.status(pos), Status::Moves(_)))
        .map(|(i, pos)| {
            let &(j, value) = known.iter().min_by_key(|(j, _)| (j.abs_diff(i), *j)).expect("the final position");
            let exact = j == i;
            Sample { player: pos.player.0, opponent: pos.opponent.0, score: for_black(pos, value) as i8, exact }
        })
        .collect()
}

/// How to fit.
#[derive(Clone, Copy, Debug)]
pub struct FitConfig {
    pub epochs: u32,
    /// Step size on the per-weight mean residual (a sample has 47 weights, so above about 2/47 it diverges).
    pub rate: f64,
    /// Ridge penalty, as pseudo-samples at zero per weight: keeps rare configurations from memorising their games.
    pub prior: f64,
}

impl Default for FitConfig {
    fn default() -> FitConfig {
        FitConfig { epochs: 400, rate: 0.025, prior: 16.0 }
    }
}

/// Fits the phases that have samples, `threads` phases at a time (each sample also counts as its mirror image);
/// `progress(phase, epoch, rmse)` reports the training error in discs. Phases without samples keep zero weights.
pub fn fit(
    samples: &[Sample],
    config: FitConfig,
    threads: usize,
    progress: impl Fn(usize, u32, f64) + Sync,
) -> PatternWeights {
    let mut by_phase: Vec<Vec<Sample>> = vec![vec![]; PHASES];
    for s in samples {
        let mirrored = Sample { player: mirror_columns(s.player), opponent: mirror_columns(s.opponent), ..*s };
        by_phase[position_phase(s.player, s.opponent)].extend([*s, mirrored]);
    }
    let mut todo: Vec<usize> = (0..PHASES).filter(|&ph| !by_phase[ph].is_empty()).collect();
    let mut weights = PatternWeights::zero();
    while !todo.is_empty() {
        let batch: Vec<usize> = todo.drain(..threads.max(1).min(todo.len())).collect();
        let fitted: Vec<(usize, Vec<f64>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = batch
                .iter()
                .map(|&ph| {
                    let (samples, progress) = (&by_phase[ph], &progress);
                    scope.spawn(move || (ph, fit_phase(samples, config, |epoch, rmse| progress(ph, epoch, rmse))))
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a fitting thread does not panic")).collect()
        });
        for (ph, fitted) in fitted {
            for (w, f) in weights.phase_weights_mut(ph).iter_mut().zip(fitted) {
                *w = (f * SCALE as f64).round().clamp(i16::MIN as f64 + 1.0, i16::MAX as f64) as i16;
            }
        }
    }
    weights
}

fn fit_phase(samples: &[Sample], config: FitConfig, mut progress: impl FnMut(u32, f64)) -> Vec<f64> {
    let feats: Vec<[u32; FEATURES]> = samples.iter().map(|s| features(s.player, s.opponent)).collect();
    let mut count = vec![0.0f64; WEIGHTS_PER_PHASE];
    for f in &feats {
        for &i in f {
            count[i as usize] += 1.0;
        }
    }
    count[BIAS] = samples.len() as f64;
    let mut w = vec![0.0f64; WEIGHTS_PER_PHASE];
    let mut grad = vec![0.0f64; WEIGHTS_PER_PHASE];
    for epoch in 1..=config.epochs {
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut squares = 0.0;
        for (s, f) in samples.iter().zip(&feats) {
            let predicted = f.iter().fold(w[BIAS], |sum, &i| sum + w[i as usize]);
            let residual = s.score as f64 - predicted;
            squares += residual * residual;
            grad[BIAS] += residual;
            for &i in f {
                grad[i as usize] += residual;
            }
        }
        for ((w, g), c) in w.iter_mut().zip(&grad).zip(&count) {
            *w += config.rate * (g - config.prior * *w) / (c + config.prior);
        }
        progress(epoch, (squares / samples.len() as f64).sqrt());
    }
    w
}

/// A sum of squared errors (in discs) and its count.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErrorSum {
    pub squares: f64,
    pub count: usize,
}

impl ErrorSum {
    /// The root-mean-square error (0 with no sample).
    pub fn rms(&self) -> f64 {
        (self.squares / self.count.max(1) as f64).sqrt()
    }
}

/// The error of `weights` on `samples` in one phase: over them all, and over the exactly labelled ones.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseError {
    pub all: ErrorSum,
    pub exact: ErrorSum,
}

/// Per phase (index = phase), the error of `weights` on `samples`: how `fit-eval` judges a fit on held-out games.
pub fn phase_errors(weights: &PatternWeights, samples: &[Sample]) -> Vec<PhaseError> {
    let mut errors = vec![PhaseError::default(); PHASES];
    for s in samples {
        let e = &mut errors[position_phase(s.player, s.opponent)];
        let squared = (weights.evaluate(s.player, s.opponent) as f64 / SCALE as f64 - s.score as f64).powi(2);
        let sums: &mut [&mut ErrorSum] = if s.exact { &mut [&mut e.all, &mut e.exact] } else { &mut [&mut e.all] };
        for sum in sums {
            sum.squares += squared;
            sum.count += 1;
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// With zero weights the error is the labels' own root mean square, per phase, counted by hand: phase 15
    /// (the start, 60 empties) holds labels 2 (exact) and -4, phase 0 (a full board) holds 3.
    #[test]
    fn phase_errors_are_the_root_mean_squares_of_each_phase() {
        let start = crate::Rules::othello().start_position();
        let (p, o) = (start.player.0, start.opponent.0);
        let samples = [
            Sample { player: p, opponent: o, score: 2, exact: true },
            Sample { player: p, opponent: o, score: -4, exact: false },
            Sample { player: !0 << 8, opponent: 0xff, score: 3, exact: false },
        ];
        let errors = phase_errors(&PatternWeights::zero(), &samples);
        assert_eq!(errors[15].all, ErrorSum { squares: 20.0, count: 2 });
        assert!((errors[15].all.rms() - 10f64.sqrt()).abs() < 1e-12);
        assert_eq!(errors[15].exact, ErrorSum { squares: 4.0, count: 1 });
        assert_eq!(errors[0].all, ErrorSum { squares: 9.0, count: 1 });
        assert_eq!(errors[0].exact.count, 0);
        assert_eq!(errors.iter().map(|e| e.all.count).sum::<usize>(), 3);
    }

    /// Labels made by a known pattern evaluation (on the short diagonals, whose 81 configurations 30,000 random
    /// positions cover) are learnt back: on fresh positions, the error is a fraction of the labels' spread.
    #[test]
    fn fit_recovers_a_pattern_evaluation() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut truth = PatternWeights::zero();
        let diagonal_4 = crate::pattern::features::OFFSETS[10] as usize..crate::pattern::features::OFFSETS[11] as usize;
        for w in &mut truth.phase_weights_mut(5)[diagonal_4] {
            *w = rng.random_range(-2..=2) * SCALE as i16;
        }
        // Labels must not change under the mirror, as the fit adds each sample's mirror image.
        let label =
            |p: u64, o: u64| (truth.evaluate(p, o) + truth.evaluate(mirror_columns(p), mirror_columns(o))) / SCALE;
        let mut sample = || {
            // 20 to 23 empties: phase 5.
            let mut occ = !0u64;
            while occ.count_ones() > 42 {
                occ &= !(1 << rng.random_range(0..64));
            }
            let p = occ & rng.random::<u64>();
            Sample { player: p, opponent: occ & !p, score: label(p, occ & !p).clamp(-64, 64) as i8, exact: true }
        };
        let train: Vec<Sample> = (0..30_000).map(|_| sample()).collect();
        let fresh: Vec<Sample> = (0..2_000).map(|_| sample()).collect();
        let rms = |v: &mut dyn Iterator<Item = f64>, n: usize| (v.map(|x| x * x).sum::<f64>() / n as f64).sqrt();
        let spread = rms(&mut fresh.iter().map(|s| s.score as f64), fresh.len());
        let fitted = fit(&train, FitConfig::default(), 1, |ph, _, _| assert_eq!(ph, 5));
        let error = rms(
            &mut fresh.iter().map(|s| (fitted.evaluate(s.player, s.opponent) as f64 / SCALE as f64) - s.score as f64),
            fresh.len(),
        );
        assert!(spread > 4.0, "labels spread {spread}");
        assert!(error < spread / 5.0, "error {error} vs spread {spread}");
    }
}
