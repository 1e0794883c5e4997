//! The number of discs the last move of a game flips, by table.
//!
//! With one empty square left on a full 8x8 board, every other square is taken, so what a move there flips depends
//! on the mover's discs alone: along each of the four lines through the square, the run of opponent discs up to the
//! mover's nearest disc. Each line's discs are gathered into a byte (a shift or one multiplication) and a 2 KB
//! table gives the flips on that line. The exact solver scores its last empty square this way (Edax's
//! `count_last_flip`), far cheaper than computing the flipped discs.

use crate::kernel::RAYS;
use crate::stability::column_to_byte;

/// `FLIPS_IN_LINE[k][line]`: discs flipped on a line of 8 squares by a move on square `k` of it, where `line` holds
/// the mover's discs and every other square but `k` is the opponent's. A square past the end of a shorter line
/// (a diagonal) reads as an opponent disc, which never outflanks, so the same table serves every line.
const FLIPS_IN_LINE: [[u8; 256]; 8] = {
    let mut table = [[0u8; 256]; 8];
    let mut k = 0;
    while k < 8 {
        let mut line = 0;
        while line < 256 {
            let mut flips = 0;
            // Towards square 0, then towards square 7: a run of opponent discs closed by one of the mover's.
            let mut j = k as i32 - 1;
            while j >= 0 && line >> j & 1 == 0 {
                j -= 1;
            }
            if j >= 0 {
                flips += k as i32 - 1 - j;
            }
            let mut j = k + 1;
            while j < 8 && line >> j & 1 == 0 {
                j += 1;
            }
            if j < 8 {
                flips += (j - k - 1) as i32;
            }
            table[k][line] = flips as u8;
            line += 1;
        }
        k += 1;
    }
    table
};

/// Discs flipped by `p` playing on `sq` when every square but `sq` is taken (`p`'s or the opponent's); 0 when the
/// move is not legal. `sq` < 64.
#[inline(always)]
pub(crate) fn last_flip_count(p: u64, sq: u32) -> u32 {
    let (row, col) = (sq as usize / 8, sq as usize % 8);
    // The diagonals through the square, from the kernel's rays (in the order of `DIRECTIONS`); the square itself is
    // empty, so leaving it out changes nothing.
    let rays = &RAYS.0[sq as usize];
    let (diagonal, anti_diagonal) = (rays[2] | rays[6], rays[3] | rays[7]);
    let file = column_to_byte(p >> col);
    // A diagonal holds one square per column: summing its rows into the top byte keeps each at its column's bit.
    let diagonal = ((p & diagonal).wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    let anti_diagonal = ((p & anti_diagonal).wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    let rank = (p >> (8 * row) & 0xff) as usize;
    (FLIPS_IN_LINE[col][rank]
        + FLIPS_IN_LINE[row][file]
        + FLIPS_IN_LINE[col][diagonal]
        + FLIPS_IN_LINE[col][anti_diagonal]) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::portable::Portable;
    use crate::kernel::Kernel;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    #[test]
    fn counts_match_the_flips_of_the_kernel_on_full_boards() {
        let mut rng = Pcg64::seed_from_u64(7);
        for sq in 0..64 {
            for _ in 0..2_000 {
                // Dense, sparse and even boards, so that long runs of either colour occur.
                let density = [0.2, 0.5, 0.8][rng.random_range(0..3)];
                let mut p = 0u64;
                for bit in 0..64 {
                    if rng.random_bool(density) {
                        p |= 1 << bit;
                    }
                }
                p &= !(1 << sq);
                let o = !p & !(1 << sq);
                assert_eq!(last_flip_count(p, sq), Portable::flips(p, o, sq).count_ones(), "p {p:#018x}, square {sq}");
            }
        }
    }
}
