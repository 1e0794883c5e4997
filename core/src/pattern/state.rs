//! A position's pattern indices kept as the two sides' ternary numbers, updated move by move.

use super::features::{ternaries, Lanes};

/// A position's pattern instances as the two sides' ternary numbers, which a move updates by additions (Edax's
/// incremental evaluation): the solver's ordering searches carry it down instead of reading every pattern anew at
/// each leaf.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PatternState {
    pub(crate) mover: Lanes,
    pub(crate) opponent: Lanes,
}

impl PatternState {
    pub fn new(p: u64, o: u64) -> PatternState {
        PatternState { mover: ternaries(p), opponent: ternaries(o) }
    }

    /// The same position with the other side to move (a pass).
    pub fn passed(&self) -> PatternState {
        PatternState { mover: self.opponent, opponent: self.mover }
    }

    /// What [`CompactWeights::evaluate_child`] starts from: the indices of any child, less its move's changes
    /// (the opponent's number plus twice the mover's, the roles as they will be after the move).
    #[inline(always)]
    pub fn children_base(&self) -> Lanes {
        let mut base = self.opponent;
        base.add(&self.mover);
        base.add(&self.mover);
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::portable::Portable;
    use crate::pattern::CompactWeights;
    use crate::Bitboard;
    use rand::{Rng, SeedableRng};

    #[test]
    fn pattern_states_updated_move_by_move_match_the_positions_read_anew() {
        let compact = CompactWeights::builtin();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut children = 0;
        for _ in 0..300 {
            // A random walk of legal moves (passing when stuck) from a random position, the state carried along.
            let occ: u64 = rng.random::<u64>() & rng.random::<u64>() | 0x0000_0018_1800_0000;
            let mut p = occ & rng.random::<u64>();
            let mut o = occ & !p;
            let mut state = PatternState::new(p, o);
            for _ in 0..40 {
                assert_eq!(state, PatternState::new(p, o));
                let moves = Bitboard(crate::kernel::moves(p, o));
                if moves.is_empty() {
                    if crate::kernel::moves(o, p) == 0 {
                        break;
                    }
                    (p, o, state) = (o, p, state.passed());
                    continue;
                }
                // Every child evaluated from this node's base agrees with the child's own evaluation.
                let base = state.children_base();
                for sq in moves {
                    let f = crate::kernel::flips(p, o, sq.index() as u32);
                    let (cp, co) = (o ^ f, p | f | 1 << sq.index());
                    let empties = 64 - (cp | co).count_ones();
                    let expected = compact.evaluate_with::<Portable>(cp, co);
                    assert_eq!(compact.evaluate_child(&base, sq.index() as u32, f, empties), expected);
                    children += 1;
                }
                let sq = moves.nth(rng.random_range(0..moves.count())).expect("a legal move").index() as u32;
                let f = crate::kernel::flips(p, o, sq);
                state = compact.play(&state, sq, f);
                (p, o) = (o ^ f, p | f | 1 << sq);
            }
        }
        assert!(children > 10_000, "{children}");
    }
}
