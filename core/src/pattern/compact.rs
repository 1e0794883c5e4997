//! The weights in i8 with incremental evaluation: the solver's move ordering.

use std::sync::OnceLock;

use super::features::{Lanes, BASES, BIAS, WEIGHTS_PER_PHASE};
use super::state::PatternState;
use super::weights::{weighted_sum, PatternWeights};
use super::{phase, position_phase};
use crate::kernel::Kernel;

/// [`CompactWeights`] hold each weight divided by 2^COMPACT_SHIFT: in 1/4 disc.
pub(super) const COMPACT_SHIFT: u32 = 3;
/// [`CompactWeights`]' phases start this far apart, a power of two, so that a feature masked by `INDEX_MASK`
/// provably lies within its phase and the 46 lookups need no bounds checks (the padding is never read).
pub(super) const COMPACT_STRIDE: usize = WEIGHTS_PER_PHASE.next_power_of_two();
pub(super) const INDEX_MASK: usize = COMPACT_STRIDE - 1;

/// [`PatternWeights`] in half the bytes: the three phases that the solver's move ordering visits then nearly fit in
/// a 512 KB L2 cache, where the loads of the weights were most of the evaluation's time. Rounding costs at most 1/8
/// disc per weight, far below the evaluation's own error (the shipped weights stay within +-18 discs, +-72 here).
pub struct CompactWeights {
    pub(crate) weights: Vec<i8>,
    /// Per square, the value of a mover's disc there in each instance's index: a power of three in the instances
    /// holding the square, 0 elsewhere. The indices of a position are the sum over the mover's discs plus twice the
    /// sum over the opponent's, which is what lets [`PatternState`] be updated by additions.
    pub(crate) digits: Box<[Lanes; 64]>,
}

impl CompactWeights {
    /// The shipped weights, compacted once.
    pub fn builtin() -> &'static CompactWeights {
        static BUILTIN: OnceLock<CompactWeights> = OnceLock::new();
        BUILTIN.get_or_init(|| PatternWeights::builtin().compact())
    }

    /// [`PatternWeights::evaluate_with`] in the same units (1/[`SCALE`] disc).
    #[inline(always)]
    pub fn evaluate_with<K: Kernel>(&self, p: u64, o: u64) -> i32 {
        let phase = position_phase(p, o);
        weighted_sum::<K, _>(&self.weights[phase * COMPACT_STRIDE..][..COMPACT_STRIDE], p, o) << COMPACT_SHIFT
    }

    /// The digit vector of a square (masked: no bounds check).
    #[inline(always)]
    fn digit(&self, sq: u32) -> &Lanes {
        &self.digits[sq as usize & 63]
    }

    /// The state of the child reached when the mover of `state` plays `sq`, flipping `flips` (roles swapped: the
    /// flipped discs leave the old opponent's number and join the old mover's, with the new disc).
    #[inline(always)]
    pub fn play(&self, state: &PatternState, sq: u32, flips: u64) -> PatternState {
        let mut child = state.passed();
        child.opponent.add(self.digit(sq));
        let mut rest = flips;
        while rest != 0 {
            let d = self.digit(rest.trailing_zeros());
            child.mover.sub(d);
            child.opponent.add(d);
            rest &= rest - 1;
        }
        child
    }

    /// [`CompactWeights::evaluate_with`] of the child reached when the mover of the position whose
    /// [`PatternState::children_base`] is `base` plays `sq`, flipping `flips`, for the child's side to move;
    /// `empties` is the child's count. The child's indices are the base plus the flipped discs once (each was the
    /// opponent's, counted twice, and is now the mover's) and the new disc twice (the opponent's in the child).
    #[inline(always)]
    pub fn evaluate_child(&self, base: &Lanes, sq: u32, flips: u64, empties: u32) -> i32 {
        let mut x = *base;
        x.add(self.digit(sq));
        x.add(self.digit(sq));
        let mut rest = flips;
        while rest != 0 {
            x.add(self.digit(rest.trailing_zeros()));
            rest &= rest - 1;
        }
        let w = &self.weights[phase(empties) * COMPACT_STRIDE..][..COMPACT_STRIDE];
        let sum =
            x.0.iter()
                .zip(BASES)
                .fold(w[BIAS] as i32, |sum, (&lane, base)| sum + w[(base + lane as u32) as usize & INDEX_MASK] as i32);
        sum << COMPACT_SHIFT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::portable::Portable;
    use crate::pattern::features::FEATURES;
    use crate::pattern::weights::PatternWeights;
    use rand::{Rng, SeedableRng};

    #[test]
    fn compact_weights_stay_within_their_rounding_of_the_full_evaluation() {
        // No shipped weight saturates in i8 ...
        let full = PatternWeights::builtin();
        let limit = 127 << COMPACT_SHIFT;
        assert!(
            (0..crate::pattern::PHASES).flat_map(|p| full.phase_weights(p)).all(|&w| (w as i32).abs() <= limit),
            "a weight beyond +-{limit}"
        );
        // ... so each of the 46 weights and the bias is off by at most half a step.
        let compact = CompactWeights::builtin();
        let bound = (FEATURES as i32 + 1) * (1 << (COMPACT_SHIFT - 1));
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(10);
        let mut differed = 0;
        for _ in 0..5_000 {
            let occ: u64 = rng.random::<u64>() | rng.random::<u64>();
            let p = occ & rng.random::<u64>();
            let (a, b) = (full.evaluate(p, occ & !p), compact.evaluate_with::<Portable>(p, occ & !p));
            assert!((a - b).abs() <= bound, "{a} against {b}");
            differed += (a != b) as u32;
        }
        // The rounding is real (the test would pass trivially with the full weights themselves).
        assert!(differed > 1_000, "{differed}");
    }
}
