//! Stable discs: discs that no sequence of moves can flip. Their count bounds the final score, which lets the
//! endgame solver cut branches that cannot reach its window.

use std::sync::OnceLock;

const COL_A: u64 = 0x0101_0101_0101_0101;
const COL_H: u64 = 0x8080_8080_8080_8080;
const ROW_1: u64 = 0xff;
const ROW_8: u64 = 0xff00_0000_0000_0000;
const EDGE: u64 = COL_A | COL_H | ROW_1 | ROW_8;

/// The squares from which `steps` steps of (dr, dc) leave the board.
const fn leaving(dr: i32, dc: i32, steps: i32) -> u64 {
    let mut mask = 0;
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = (sq / 8 + dr * steps, sq % 8 + dc * steps);
        if r < 0 || r > 7 || c < 0 || c > 7 {
            mask |= 1 << sq;
        }
        sq += 1;
    }
    mask
}

/// The squares of `occupied` whose whole ray towards (DR rows, DC columns) per step is occupied, up to the board's
/// edge: rays of 1, 2, then 4 squares are checked by doubling.
#[inline(always)]
fn full_ray<const DR: i32, const DC: i32>(occupied: u64) -> u64 {
    let shift = DR * 8 + DC;
    let step = |f: u64, n: i32| if shift > 0 { f >> (shift * n) } else { f << (-shift * n) };
    let mut f = occupied;
    f &= step(f, 1) | const { leaving(DR, DC, 1) };
    f &= step(f, 2) | const { leaving(DR, DC, 2) };
    f & (step(f, 4) | const { leaving(DR, DC, 4) })
}

/// The squares on full lines (rows, columns, both diagonals) of `occupied`, one mask per axis.
#[inline(always)]
fn full_lines(occupied: u64) -> [u64; 4] {
    let mut rows = occupied & occupied >> 4;
    rows &= rows >> 2;
    rows &= rows >> 1;
    let mut cols = occupied & occupied >> 32;
    cols &= cols >> 16;
    cols &= cols >> 8;
    [
        (rows & COL_A) * 0xff,
        (cols & ROW_1) * COL_A,
        full_ray::<1, 1>(occupied) & full_ray::<-1, -1>(occupied),
        full_ray::<1, -1>(occupied) & full_ray::<-1, 1>(occupied),
    ]
}

/// Column A as a byte (row 1 in bit 0) and back.
#[inline(always)]
pub(crate) fn column_to_byte(col_a: u64) -> usize {
    ((col_a & COL_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
}
const BYTE_TO_COLUMN: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            if b >> i & 1 == 1 {
                t[b] |= 1 << (8 * i);
            }
            i += 1;
        }
        b += 1;
    }
    t
};

/// For every line of eight squares (`mine` | `theirs` << 8), the discs of `mine` that no sequence of placements
/// on the line can flip. An edge disc can only be flipped along its edge, and any empty edge square may be filled
/// by either side (a move is legal through the other directions), so this is exact for edges.
fn edge_table() -> &'static [u8; 1 << 16] {
    static TABLE: OnceLock<Box<[u8; 1 << 16]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([0u8; 1 << 16]);
        // Lines with more discs first: a placement only adds discs.
        let mut lines: Vec<(u8, u8)> =
            (0..=255u8).flat_map(|m| (0..=255u8).map(move |t| (m, t))).filter(|(m, t)| m & t == 0).collect();
        lines.sort_by_key(|(m, t)| std::cmp::Reverse((m | t).count_ones()));
        for (m, t) in lines {
            let mut stable = m;
            for sq in 0..8 {
                if (m | t) >> sq & 1 == 1 {
                    continue;
                }
                // Mine placed: my discs all stay mine. Theirs placed: mine lose the flipped ones. (On a board with
                // discs on row 1 only, the board's flips are the line's.)
                let f = crate::kernel::flips(m as u64, t as u64, sq) as u8;
                stable &= table[(m | f | 1 << sq) as usize | ((t & !f) as usize) << 8];
                let f = crate::kernel::flips(t as u64, m as u64, sq) as u8;
                stable &= !f & table[(m & !f) as usize | ((t | f | 1 << sq) as usize) << 8];
            }
            table[m as usize | (t as usize) << 8] = stable;
        }
        table
    })
}

/// The stable discs of `mine` on the four edges.
#[inline(always)]
fn edge_stable(mine: u64, theirs: u64) -> u64 {
    let table = edge_table();
    let line = |m: usize, t: usize| table[m | t << 8] as u64;
    line(mine as usize & 0xff, theirs as usize & 0xff)
        | line((mine >> 56) as usize, (theirs >> 56) as usize) << 56
        | BYTE_TO_COLUMN[line(column_to_byte(mine), column_to_byte(theirs)) as usize]
        | BYTE_TO_COLUMN[line(column_to_byte(mine >> 7), column_to_byte(theirs >> 7)) as usize] << 7
}

/// The stable discs of `mine` on a full 8x8 board (`theirs` the other discs): the edge discs no play along their
/// edge can flip, then, grown to a fixed point, discs that along each of the four axes sit on a full line, on the
/// board's edge, or next to a stable disc of their colour. A subset of the truly stable discs (it never claims an
/// unstable one).
pub fn stable_discs(mine: u64, theirs: u64) -> u64 {
    let [rows, cols, diag, anti] = full_lines(mine | theirs);
    let (rows, cols, diag, anti) = (rows | COL_A | COL_H, cols | ROW_1 | ROW_8, diag | EDGE, anti | EDGE);
    let mut stable = edge_stable(mine, theirs);
    let inner = mine & !EDGE;
    loop {
        let h = rows | (stable << 1 & !COL_A) | (stable >> 1 & !COL_H);
        let v = cols | stable << 8 | stable >> 8;
        let d = diag | (stable << 9 & !COL_A) | (stable >> 9 & !COL_H);
        let a = anti | (stable << 7 & !COL_H) | (stable >> 7 & !COL_A);
        let next = stable | inner & h & v & d & a;
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{flips, moves};
    use rand::{Rng, SeedableRng};

    /// The shifted full-line masks agree with checking every line of each axis square by square.
    #[test]
    fn full_lines_agree_with_a_square_by_square_check() {
        let on_full_line = |occupied: u64, sq: i32, (dr, dc): (i32, i32)| {
            [1, -1].iter().all(|&sign| {
                let (mut r, mut c) = (sq / 8, sq % 8);
                while (0..8).contains(&r) && (0..8).contains(&c) {
                    if occupied >> (r * 8 + c) & 1 == 0 {
                        return false;
                    }
                    (r, c) = (r + sign * dr, c + sign * dc);
                }
                true
            })
        };
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        for _ in 0..20_000 {
            // Dense boards, so that full lines are common.
            let occupied = rng.random::<u64>() | rng.random::<u64>() | rng.random::<u64>();
            let lines = full_lines(occupied);
            for (axis, dir) in [(0, 1), (1, 0), (1, 1), (1, -1)].into_iter().enumerate() {
                for sq in 0..64 {
                    assert_eq!(lines[axis] >> sq & 1 == 1, on_full_line(occupied, sq, dir), "{occupied:#x} {sq}");
                }
            }
        }
    }

    #[test]
    fn columns_pack_to_bytes_and_back() {
        for (b, &column) in BYTE_TO_COLUMN.iter().enumerate() {
            assert_eq!(column_to_byte(column), b);
            assert_eq!(column_to_byte(column | !COL_A), b);
        }
    }

    /// On an edge, a run of discs from a corner and every disc of a full edge are stable; discs that an opponent
    /// disc and an empty square bracket are not.
    #[test]
    fn edge_table_knows_the_edge_cases() {
        let table = edge_table();
        let stable = |m: u8, t: u8| table[m as usize | (t as usize) << 8];
        assert_eq!(stable(0b0000_0111, 0), 0b0000_0111);
        assert_eq!(stable(0b1010_1010, 0b0101_0101), 0b1010_1010);
        assert_eq!(stable(0b0000_0100, 0b0000_0010), 0);
        // Theirs a1, mine b1-c1: theirs at d1 flips both.
        assert_eq!(stable(0b0000_0110, 0b0000_0001), 0);
        // Mine a1 and c1, theirs b1: theirs at d1 flips c1; a1 is a corner.
        assert_eq!(stable(0b0000_0101, 0b0000_0010), 0b0000_0001);
    }

    /// Stable discs stay: play random games on, and no disc called stable is ever flipped.
    #[test]
    fn discs_called_stable_are_never_flipped() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(12);
        let mut claimed = 0;
        for _ in 0..3000 {
            let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            let (mut turn, mut plies) = (false, 0);
            let check_at = 30 + rng.random_range(0..25);
            let mut watched: Option<(u64, bool)> = None; // stable discs, and the colour (turn) they belong to
            loop {
                let m = moves(p, o);
                if m == 0 {
                    if moves(o, p) == 0 {
                        break;
                    }
                    (p, o, turn) = (o, p, !turn);
                    continue;
                }
                if watched.is_none() && plies >= check_at {
                    let s = stable_discs(p, o);
                    claimed += s.count_ones();
                    watched = Some((s, turn));
                }
                let sq = crate::Bitboard(m).nth(rng.random_range(0..m.count_ones())).unwrap().index() as u32;
                let f = flips(p, o, sq);
                if let Some((s, owner)) = watched {
                    if owner != turn {
                        assert_eq!(f & s, 0, "a stable disc was flipped");
                    }
                }
                (p, o, turn) = (o ^ f, p | f | 1 << sq, !turn);
                plies += 1;
            }
            if let Some((s, owner)) = watched {
                let final_owner_discs = if owner == turn { p } else { o };
                assert_eq!(s & !final_owner_discs, 0);
            }
        }
        assert!(claimed > 10_000, "the test must see many stable discs: {claimed}");
    }
}
