//! What the search orders moves and prunes by, cheap enough for every node: square values as in Edax, mobility,
//! certainly stable corners, potential mobility, quadrant parity and probcut's margins.

use super::{PROBCUT_T, SCALE};

const QUADRANTS: [u64; 4] =
    [0x0000_0000_0f0f_0f0f, 0x0000_0000_f0f0_f0f0, 0x0f0f_0f0f_0000_0000, 0xf0f0_f0f0_0000_0000];
pub(super) const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The X- and C-squares (next to a corner), which the last empties try last within each parity group.
pub(super) const C_AND_X: u64 = 0x42c3_0000_0000_c342;

/// Ordering value of each square (corners best, X-squares worst), as in Edax.
#[rustfmt::skip]
pub(super) const SQUARE_VALUE: [u8; 64] = [
    18,  4, 16, 12, 12, 16,  4, 18,
     4,  2,  6,  8,  8,  6,  2,  4,
    16,  6, 14, 10, 10, 14,  6, 16,
    12,  8, 10,  0,  0, 10,  8, 12,
    12,  8, 10,  0,  0, 10,  8, 12,
    16,  6, 14, 10, 10, 14,  6, 16,
     4,  2,  6,  8,  8,  6,  2,  4,
    18,  4, 16, 12, 12, 16,  4, 18,
];

/// Probcut at a node with `empties` empties in a pass of selectivity `level`: the probe depth and the margin in the
/// evaluation's units. The spreads (exact score minus probe, in hundredths of a disc) were measured by
/// `cargo run --release -p othello-core --example probcut_calibration` (docs/BENCHMARKS.md); at even depths the
/// probe's mean error is within a disc of zero, so no bias is corrected.
#[inline(always)]
pub(super) fn probcut_margin(empties: u8, level: u8) -> (u32, i32) {
    let (depth, sigma) = if empties >= 20 { (4, 750) } else { (2, 900) };
    (depth, PROBCUT_T[level as usize] * sigma * SCALE / 10_000)
}

/// The number of `moves`, corners counting twice.
#[inline(always)]
pub(super) fn weighted_mobility(moves: u64) -> i32 {
    (moves.count_ones() + (moves & CORNERS).count_ones()) as i32
}

/// Discs of `d` in a corner or next to an own corner along an edge: cheap, certainly stable.
#[inline(always)]
pub(super) fn corner_stability(d: u64) -> u32 {
    let stable = ((0x0100_0000_0000_0001 & d) << 1
        | (0x8000_0000_0000_0080 & d) >> 1
        | (0x0000_0000_0000_0081 & d) << 8
        | (0x8100_0000_0000_0000 & d) >> 8
        | CORNERS)
        & d;
    stable.count_ones()
}

/// The squares next to a square of `d`.
#[inline(always)]
const fn around(d: u64) -> u64 {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    (d << 1 & NOT_A)
        | (d >> 1 & NOT_H)
        | d << 8
        | d >> 8
        | (d << 9 & NOT_A)
        | (d >> 9 & NOT_H)
        | (d << 7 & NOT_H)
        | (d >> 7 & NOT_A)
}

/// Empty squares next to a disc of `d`: where the opponent of `d` may later find moves.
#[inline(always)]
pub(super) fn potential_mobility(d: u64, empties: u64) -> u32 {
    (around(d) & empties).count_ones()
}

/// The squares of quadrants holding an odd number of empties: playing there first is the parity heuristic.
#[inline(always)]
pub(super) fn odd_quadrants(empties: u64) -> u64 {
    QUADRANTS.iter().fold(0, |m, &q| if (empties & q).count_ones() & 1 == 1 { m | q } else { m })
}
