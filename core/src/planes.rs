//! The network's input: a position as planes of 8x8 (smaller boards in the top-left corner). Here, not in
//! `othello-net`, so that whatever reads positions (the Python package, tests) encodes them as the network does.

use crate::stability::stable_discs;
use crate::{Bitboard, Position, Rules, Symmetry};

/// Input planes, in order: own discs, opponent discs, legal moves, board squares, own stable discs,
/// opponent stable discs.
pub const PLANES: [&str; 6] = ["own", "opponent", "legal", "board", "own_stable", "opponent_stable"];

/// Appends the input planes of `pos` (seen through `sym`) to `out`: `PLANES.len()` planes of 64 floats.
pub fn encode(rules: &Rules, pos: &Position, sym: Symmetry, out: &mut Vec<f32>) {
    let size = rules.size;
    let t = |b: u64| sym.apply(Bitboard(b), size).0;
    let (own, opp) = (t(pos.player.0), t(pos.opponent.0));
    let legal = t(rules.legal_moves(pos).0);
    let board = rules.mask();
    let (own_stable, opp_stable) = if size == 8 { (stable_discs(own, opp), stable_discs(opp, own)) } else { (0, 0) };
    for plane in [own, opp, legal, board, own_stable, opp_stable] {
        out.extend((0..64).map(|sq| (plane >> sq & 1) as f32));
    }
}
