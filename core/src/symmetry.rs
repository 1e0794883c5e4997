//! The 8 symmetries of the square board (the dihedral group D4), for bitboards, squares, moves and positions.

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::square::Square;

/// A symmetry: transpose (optional), then mirror the columns and/or the rows.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Symmetry(u8);

impl Symmetry {
    pub const IDENTITY: Symmetry = Symmetry(0);
    /// Columns a<->h.
    pub const MIRROR_COLUMNS: Symmetry = Symmetry(1);
    /// Rows 1<->8.
    pub const MIRROR_ROWS: Symmetry = Symmetry(2);
    pub const ROTATE_180: Symmetry = Symmetry(3);
    /// Reflection in the a1-h8 diagonal.
    pub const TRANSPOSE: Symmetry = Symmetry(4);
    pub const ROTATE_CLOCKWISE: Symmetry = Symmetry(5);
    pub const ROTATE_ANTICLOCKWISE: Symmetry = Symmetry(6);
    /// Reflection in the h1-a8 diagonal.
    pub const ANTI_TRANSPOSE: Symmetry = Symmetry(7);

    /// All eight, identity first.
    pub const ALL: [Symmetry; 8] =
        [Symmetry(0), Symmetry(1), Symmetry(2), Symmetry(3), Symmetry(4), Symmetry(5), Symmetry(6), Symmetry(7)];

    /// The symmetry with index `i` (0..8), e.g. a random one for augmentation.
    pub fn from_index(i: usize) -> Symmetry {
        Symmetry((i % 8) as u8)
    }
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        if self.0 & 4 != 0 {
            // (mirror after transpose)^-1 = transpose after mirror = the other mirror after transpose.
            Symmetry(4 | (self.0 & 1) << 1 | (self.0 & 2) >> 1)
        } else {
            self
        }
    }

    /// Applies the symmetry to the squares of a `size`x`size` board (in the top-left corner of the bitboard).
    pub fn apply(self, b: Bitboard, size: u8) -> Bitboard {
        let mut x = b.0;
        if self.0 & 4 != 0 {
            x = transpose(x);
        }
        let unused = 8 - size as u32;
        if self.0 & 1 != 0 {
            x = mirror_columns(x) >> unused;
        }
        if self.0 & 2 != 0 {
            x = x.swap_bytes() >> (8 * unused);
        }
        Bitboard(x)
    }

    pub fn apply_square(self, sq: Square, size: u8) -> Square {
        self.apply(Bitboard::from(sq), size).first().expect("a symmetry maps a square to a square")
    }

    pub fn apply_position(self, pos: &Position, size: u8) -> Position {
        Position { player: self.apply(pos.player, size), opponent: self.apply(pos.opponent, size), side: pos.side }
    }
}

pub(crate) fn mirror_columns(mut x: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    x = ((x >> 1) & K1) | ((x & K1) << 1);
    x = ((x >> 2) & K2) | ((x & K2) << 2);
    ((x >> 4) & K4) | ((x & K4) << 4)
}

/// Swaps (row, column): three delta swaps.
pub(crate) fn transpose(mut x: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0f0f_0f0f_0000_0000;
    let mut t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = K1 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use rand::{Rng, SeedableRng};

    /// Each symmetry, square by square, from its definition as a map of (column, row).
    fn reference(sym: Symmetry, sq: Square, size: u8) -> Square {
        let (mut c, mut r) = (sq.col(), sq.row());
        if sym.0 & 4 != 0 {
            std::mem::swap(&mut c, &mut r);
        }
        if sym.0 & 1 != 0 {
            c = size - 1 - c;
        }
        if sym.0 & 2 != 0 {
            r = size - 1 - r;
        }
        Square::at(c, r).unwrap()
    }

    #[test]
    fn symmetries_match_their_definition_on_every_board_size() {
        for size in [4u8, 6, 8] {
            for sym in Symmetry::ALL {
                for sq in Square::all().filter(|s| s.col() < size && s.row() < size) {
                    assert_eq!(sym.apply_square(sq, size), reference(sym, sq, size), "{sym:?} {sq} {size}");
                    assert_eq!(sym.inverse().apply_square(sym.apply_square(sq, size), size), sq);
                }
            }
        }
        assert_eq!(Symmetry::ROTATE_CLOCKWISE.apply_square("a1".parse().unwrap(), 8).to_string(), "h1");
    }

    #[test]
    fn moves_and_flips_commute_with_symmetries() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let rules = Rules::othello();
        for _ in 0..20_000 {
            let occ: u64 = rng.random::<u64>() | rng.random::<u64>();
            let p = occ & rng.random::<u64>();
            let pos = Position { player: Bitboard(p), opponent: Bitboard(occ & !p), side: crate::Color::Black };
            let sym = Symmetry::from_index(rng.random_range(0..8));
            let t = sym.apply_position(&pos, 8);
            assert_eq!(rules.legal_moves(&t), sym.apply(rules.legal_moves(&pos), 8));
            for sq in rules.legal_moves(&pos) {
                assert_eq!(t.flips(sym.apply_square(sq, 8)), sym.apply(pos.flips(sq), 8));
            }
        }
        // The start position is symmetric under the 180-degree turn and both diagonal reflections, not a mirror.
        let start = rules.start_position();
        assert_eq!(Symmetry::ROTATE_180.apply_position(&start, 8), start);
        assert_eq!(Symmetry::TRANSPOSE.apply_position(&start, 8), start);
        assert_ne!(Symmetry::MIRROR_COLUMNS.apply_position(&start, 8), start);
    }
}
