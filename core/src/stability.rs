//! Stable discs: discs that no sequence of moves can flip. Their count bounds the final score, which lets the
//! endgame solver cut branches that cannot reach its window.

/// Every row, column and diagonal (of length >= 2) of the 8x8 board, grouped by direction.
struct Lines {
    rows: [u64; 8],
    cols: [u64; 8],
    diag: [u64; 15],
    anti: [u64; 15],
}

const fn build_lines() -> Lines {
    let mut l = Lines { rows: [0; 8], cols: [0; 8], diag: [0; 15], anti: [0; 15] };
    let mut sq = 0;
    while sq < 64 {
        let (c, r) = (sq % 8, sq / 8);
        let bit = 1u64 << sq;
        l.rows[r] |= bit;
        l.cols[c] |= bit;
        l.diag[c + 7 - r] |= bit; // c - r constant: a1-h8 direction
        l.anti[c + r] |= bit; // c + r constant: h1-a8 direction
        sq += 1;
    }
    l
}

static LINES: Lines = build_lines();

const COL_A: u64 = 0x0101_0101_0101_0101;
const COL_H: u64 = 0x8080_8080_8080_8080;
const ROW_1: u64 = 0xff;
const ROW_8: u64 = 0xff00_0000_0000_0000;
const EDGE: u64 = COL_A | COL_H | ROW_1 | ROW_8;

fn full(lines: &[u64], occupied: u64) -> u64 {
    lines.iter().fold(0, |f, &line| if occupied & line == line { f | line } else { f })
}

/// The stable discs of `mine` on a full 8x8 board (`theirs` the other discs): along each of the four axes a stable
/// disc sits on a full line, on the board's edge, or next to a stable disc of its colour. Iterated to a fixed
/// point from the corners. A subset of the truly stable discs (it never claims an unstable one).
pub fn stable_discs(mine: u64, theirs: u64) -> u64 {
    let occupied = mine | theirs;
    let rows = full(&LINES.rows, occupied) | COL_A | COL_H;
    let cols = full(&LINES.cols, occupied) | ROW_1 | ROW_8;
    let diag = full(&LINES.diag, occupied) | EDGE;
    let anti = full(&LINES.anti, occupied) | EDGE;
    let mut stable = 0u64;
    loop {
        let h = rows | (stable << 1 & !COL_A) | (stable >> 1 & !COL_H);
        let v = cols | stable << 8 | stable >> 8;
        let d = diag | (stable << 9 & !COL_A) | (stable >> 9 & !COL_H);
        let a = anti | (stable << 7 & !COL_H) | (stable >> 7 & !COL_A);
        let next = mine & h & v & d & a;
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
