//! Many positions at once: legal-move masks and moves applied for a whole batch, for the self-play workers
//! (one kernel dispatch per batch, not per position).

use crate::kernel::{Kernel, KernelKind};
use crate::kernel_entry;
use crate::position::Position;
use crate::rules::Rules;
use crate::square::Move;
use crate::Bitboard;

/// The legal moves of every position, written to `out` (which must be as long as `positions`).
pub fn legal_masks(rules: &Rules, positions: &[Position], out: &mut [u64]) {
    assert_eq!(positions.len(), out.len(), "one mask per position");
    if rules.start == crate::Start::EmptyCentre {
        // Positions may still be in the centre-filling opening: go through the general API.
        for (pos, m) in positions.iter().zip(out.iter_mut()) {
            *m = rules.legal_moves(pos).0;
        }
        return;
    }
    masks_batch(KernelKind::best(), positions, out, rules.mask());
}

/// Plays `moves[i]` in `positions[i]`; moves must be legal (passes only where forced).
pub fn apply_moves(rules: &Rules, positions: &mut [Position], moves: &[Move]) {
    assert_eq!(positions.len(), moves.len(), "one move per position");
    if rules.start == crate::Start::EmptyCentre {
        for (pos, &mv) in positions.iter_mut().zip(moves) {
            *pos = match mv {
                Move::Play(sq) => rules.play_legal(pos, sq),
                Move::Pass => pos.pass(),
            };
        }
        return;
    }
    apply_batch(KernelKind::best(), positions, moves);
}

kernel_entry!(fn masks_batch(positions: &[Position], out: &mut [u64], mask: u64) -> () = masks_loop);
kernel_entry!(fn apply_batch(positions: &mut [Position], moves: &[Move]) -> () = apply_loop);

#[inline(always)]
fn masks_loop<K: Kernel>(positions: &[Position], out: &mut [u64], mask: u64) {
    for (pos, m) in positions.iter().zip(out.iter_mut()) {
        *m = K::moves(pos.player.0, pos.opponent.0) & mask;
    }
}

#[inline(always)]
fn apply_loop<K: Kernel>(positions: &mut [Position], moves: &[Move]) {
    for (pos, &mv) in positions.iter_mut().zip(moves) {
        *pos = match mv {
            Move::Play(sq) => {
                let f = K::flips(pos.player.0, pos.opponent.0, sq.index() as u32);
                pos.play_with_flips(sq, Bitboard(f))
            }
            Move::Pass => pos.pass(),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Status;
    use rand::{Rng, SeedableRng};

    #[test]
    fn batches_agree_with_one_position_at_a_time() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        for rules in [Rules::othello(), Rules::traditional(), Rules::othello().with_size(6).unwrap()] {
            let mut batch = vec![rules.start_position(); 64];
            let mut masks = vec![0u64; 64];
            for _ in 0..70 {
                legal_masks(&rules, &batch, &mut masks);
                let mut moves = Vec::new();
                let mut expected = Vec::new();
                for (pos, &m) in batch.iter().zip(&masks) {
                    assert_eq!(m, rules.legal_moves(pos).0);
                    let mv = match rules.status(pos) {
                        Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
                        Status::MustPass | Status::Over => Move::Pass,
                    };
                    expected.push(if rules.is_over(pos) { pos.pass() } else { rules.play(pos, mv).unwrap() });
                    moves.push(mv);
                }
                apply_moves(&rules, &mut batch, &moves);
                assert_eq!(batch, expected);
            }
        }
    }
}
