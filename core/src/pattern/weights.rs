//! Fitted weights and their file format (`weights.bin`).

use std::sync::OnceLock;

use thiserror::Error;

use super::compact::{CompactWeights, COMPACT_SHIFT, COMPACT_STRIDE, INDEX_MASK};
use super::features::{features_with, ternaries, Lanes, BIAS, LANES, WEIGHTS_PER_PHASE};
use super::{position_phase, PHASES};
use crate::kernel::Kernel;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum WeightsError {
    #[error("not an evaluation weights file (no OZEV header)")]
    Magic,
    #[error("weights format version {0}; this build reads version {VERSION}")]
    Version(u16),
    #[error("the weights were made for {found} weights per phase; this build has {WEIGHTS_PER_PHASE}")]
    Shape { found: u32 },
    #[error("the weights end early, in phase {phase}")]
    Truncated { phase: usize },
    #[error("{0} bytes after the last phase")]
    Trailing(usize),
}

const MAGIC: &[u8; 4] = b"OZEV";
const VERSION: u16 = 1;
/// A stored i16 with this value is followed by a u16 count of zero weights.
const ZERO_RUN: i16 = i16::MIN;

/// Fitted weights: `PHASES` phases of `WEIGHTS_PER_PHASE` weights, each in 1/[`SCALE`] disc.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternWeights {
    weights: Vec<i16>,
}

impl PatternWeights {
    pub fn zero() -> PatternWeights {
        PatternWeights { weights: vec![0; PHASES * WEIGHTS_PER_PHASE] }
    }

    /// The weights that ship with the crate (fitted on WTHOR; docs/BENCHMARKS.md says how).
    pub fn builtin() -> &'static PatternWeights {
        static BUILTIN: OnceLock<PatternWeights> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            PatternWeights::from_bytes(include_bytes!("weights.bin")).expect("the shipped weights match this build")
        })
    }

    pub fn phase_weights(&self, phase: usize) -> &[i16] {
        &self.weights[phase * WEIGHTS_PER_PHASE..(phase + 1) * WEIGHTS_PER_PHASE]
    }

    pub fn phase_weights_mut(&mut self, phase: usize) -> &mut [i16] {
        &mut self.weights[phase * WEIGHTS_PER_PHASE..(phase + 1) * WEIGHTS_PER_PHASE]
    }

    /// The expected final disc difference for `p`, the side to move, in 1/[`SCALE`] disc.
    pub fn evaluate(&self, p: u64, o: u64) -> i32 {
        self.evaluate_with::<crate::kernel::portable::Portable>(p, o)
    }

    /// [`PatternWeights::evaluate`] with a kernel's primitives (the solver's search is compiled once per kernel).
    #[inline(always)]
    pub fn evaluate_with<K: Kernel>(&self, p: u64, o: u64) -> i32 {
        weighted_sum::<K, _>(self.phase_weights(position_phase(p, o)), p, o)
    }

    /// The weights in 1/4 disc as i8 (rounded; saturated beyond +-32 discs), for the solver's move ordering.
    pub fn compact(&self) -> CompactWeights {
        let half = 1 << (COMPACT_SHIFT - 1);
        let mut weights = vec![0i8; PHASES * COMPACT_STRIDE];
        for phase in 0..PHASES {
            let out = &mut weights[phase * COMPACT_STRIDE..][..WEIGHTS_PER_PHASE];
            for (c, &w) in out.iter_mut().zip(self.phase_weights(phase)) {
                *c = ((w as i32 + half) >> COMPACT_SHIFT).clamp(-128, 127) as i8;
            }
        }
        let mut digits = Box::new([Lanes([0; LANES]); 64]);
        for (sq, d) in digits.iter_mut().enumerate() {
            *d = ternaries(1 << sq);
        }
        CompactWeights { weights, digits }
    }

    /// The file format: `OZEV`, u16 version, u32 weights per phase, u8 phases, then the weights of each phase as
    /// little-endian i16, where -32768 is followed by a u16 count of zeros (most configurations never occur).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(VERSION.to_le_bytes());
        out.extend((WEIGHTS_PER_PHASE as u32).to_le_bytes());
        out.push(PHASES as u8);
        for phase in 0..PHASES {
            let w = self.phase_weights(phase);
            let mut i = 0;
            while i < w.len() {
                let run = w[i..].iter().take(u16::MAX as usize).take_while(|&&v| v == 0).count();
                if run > 2 {
                    out.extend(ZERO_RUN.to_le_bytes());
                    out.extend((run as u16).to_le_bytes());
                    i += run;
                } else {
                    out.extend(w[i].max(ZERO_RUN + 1).to_le_bytes());
                    i += 1;
                }
            }
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, WeightsError> {
        if bytes.len() < 11 || &bytes[..4] != MAGIC {
            return Err(WeightsError::Magic);
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != VERSION {
            return Err(WeightsError::Version(version));
        }
        let found = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]);
        if found as usize != WEIGHTS_PER_PHASE || bytes[10] as usize != PHASES {
            return Err(WeightsError::Shape { found });
        }
        let mut weights = Vec::with_capacity(PHASES * WEIGHTS_PER_PHASE);
        let mut rest = &bytes[11..];
        let next = |rest: &mut &[u8]| -> Option<i16> {
            let (v, tail) = rest.split_first_chunk::<2>()?;
            *rest = tail;
            Some(i16::from_le_bytes(*v))
        };
        for phase in 0..PHASES {
            let end = (phase + 1) * WEIGHTS_PER_PHASE;
            while weights.len() < end {
                match next(&mut rest).ok_or(WeightsError::Truncated { phase })? {
                    ZERO_RUN => {
                        let run = next(&mut rest).ok_or(WeightsError::Truncated { phase })? as u16 as usize;
                        if weights.len() + run > end {
                            return Err(WeightsError::Truncated { phase });
                        }
                        weights.resize(weights.len() + run, 0);
                    }
                    v => weights.push(v),
                }
            }
        }
        if !rest.is_empty() {
            return Err(WeightsError::Trailing(rest.len()));
        }
        Ok(PatternWeights { weights })
    }
}

/// The bias plus the weight of each pattern instance of the position, from one phase's weights.
#[inline(always)]
pub(super) fn weighted_sum<K: Kernel, W: Copy + Into<i32>>(w: &[W], p: u64, o: u64) -> i32 {
    // Every feature is below WEIGHTS_PER_PHASE, so the mask changes no index.
    features_with::<K>(p, o).iter().fold(w[BIAS].into(), |sum, &f| sum + w[f as usize & INDEX_MASK].into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn weights_round_trip_and_bad_files_are_refused() {
        let mut w = PatternWeights::zero();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        for _ in 0..10_000 {
            let i = rng.random_range(0..w.weights.len());
            w.weights[i] = rng.random_range(-3000..3000);
        }
        let bytes = w.to_bytes();
        assert_eq!(PatternWeights::from_bytes(&bytes), Ok(w));
        assert_eq!(
            PatternWeights::from_bytes(&bytes[..bytes.len() - 1]),
            Err(WeightsError::Truncated { phase: PHASES - 1 })
        );
        assert_eq!(PatternWeights::from_bytes(b"GARBAGE!!!!!"), Err(WeightsError::Magic));
        let mut longer = bytes.clone();
        longer.extend([0, 0]);
        assert_eq!(PatternWeights::from_bytes(&longer), Err(WeightsError::Trailing(2)));
    }
}
