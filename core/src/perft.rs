//! Perft: the number of move sequences of a given length, in the three published counting conventions.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;
use crate::kernel::{Kernel, KernelKind};
use crate::kernel_entry;
use crate::position::Position;
use crate::rules::{Rules, Status};
use crate::square::Move;

/// How passes and finished games are counted (see `data/perft.txt`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Convention {
    /// OEIS A124004 / Edax `count games`: sequences of exactly n plies; a forced pass is a ply; games that ended
    /// before ply n are not counted.
    Edges,
    /// Aart Bik / Egaroucid mode 1: a forced pass is a ply; a finished game counts as one leaf at every deeper n.
    Leaves,
    /// Egaroucid mode 2: a pass does not use up a ply; a finished game counts as one leaf.
    NoPass,
}

impl FromStr for Convention {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Convention, ParseError> {
        match s.to_ascii_lowercase().as_str() {
            "edges" | "a124004" => Ok(Convention::Edges),
            "leaves" | "mode1" => Ok(Convention::Leaves),
            "no-pass" | "nopass" | "mode2" => Ok(Convention::NoPass),
            _ => Err(ParseError::UnknownName {
                what: "perft convention",
                value: s.to_string(),
                expected: "edges, leaves, no-pass",
            }),
        }
    }
}

impl fmt::Display for Convention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Convention::Edges => "edges",
            Convention::Leaves => "leaves",
            Convention::NoPass => "no-pass",
        })
    }
}

/// Counts the move sequences of `depth` plies from `pos` under `rules`, with the fastest kernel.
pub fn perft(rules: &Rules, pos: &Position, depth: u32, convention: Convention) -> u64 {
    perft_with(KernelKind::best(), rules, pos, depth, convention)
}

/// [`perft`] with a chosen kernel.
pub fn perft_with(kind: KernelKind, rules: &Rules, pos: &Position, depth: u32, convention: Convention) -> u64 {
    if rules.has_standard_moves() {
        perft_bitboards(kind, pos.player.0, pos.opponent.0, depth, convention, rules.mask())
    } else {
        perft_rules(rules, pos, depth, convention)
    }
}

/// Any rule set, through the general `Rules` API (variants with an opening phase or no passing).
fn perft_rules(rules: &Rules, pos: &Position, depth: u32, convention: Convention) -> u64 {
    if depth == 0 {
        return 1;
    }
    match rules.status(pos) {
        Status::Over => (convention != Convention::Edges) as u64,
        Status::MustPass => {
            let d = if convention == Convention::NoPass { depth } else { depth - 1 };
            perft_rules(rules, &pos.pass(), d, convention)
        }
        Status::Moves(m) => m.map(|sq| perft_rules(rules, &rules.play_legal(pos, sq), depth - 1, convention)).sum(),
    }
}

kernel_entry!(fn perft_bitboards(p: u64, o: u64, depth: u32, convention: Convention, mask: u64) -> u64 = perft_loop);

/// Depth-first count with an explicit stack (so that the whole loop is one function the kernel inlines into) and
/// bulk counting one ply from the leaves.
#[inline(always)]
fn perft_loop<K: Kernel>(p: u64, o: u64, depth: u32, convention: Convention, mask: u64) -> u64 {
    struct Frame {
        p: u64,
        o: u64,
        moves: u64,
        depth: u32,
    }
    let mut stack: Vec<Frame> = Vec::with_capacity(depth as usize + 1);
    let mut total = 0u64;
    let mut node = Some((p, o, depth));
    loop {
        // Expand `node`, following forced passes without a stack frame.
        while let Some((p, o, d)) = node.take() {
            if d == 0 {
                total += 1;
                break;
            }
            let moves = K::moves(p, o) & mask;
            if moves == 0 {
                if K::moves(o, p) & mask == 0 {
                    total += (convention != Convention::Edges) as u64;
                } else {
                    node = Some((o, p, if convention == Convention::NoPass { d } else { d - 1 }));
                }
                continue;
            }
            if d == 1 {
                total += moves.count_ones() as u64;
                break;
            }
            stack.push(Frame { p, o, moves, depth: d });
        }
        // Next unexplored move of the deepest frame.
        let Some(top) = stack.last_mut() else { return total };
        if top.moves == 0 {
            stack.pop();
            continue;
        }
        let sq = top.moves.trailing_zeros();
        top.moves &= top.moves - 1;
        let f = K::flips(top.p, top.o, sq);
        node = Some((top.o ^ f, top.p | f | 1 << sq, top.depth - 1));
    }
}

/// Perft by brute force over `Game`-level moves, for tests: plays explicit `Move::Pass` values through
/// `Rules::play`, an independent route from the bitboard loop.
pub fn perft_reference(rules: &Rules, pos: &Position, depth: u32, convention: Convention) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves: Vec<Move> = match rules.status(pos) {
        Status::Over => return (convention != Convention::Edges) as u64,
        Status::MustPass => vec![Move::Pass],
        Status::Moves(m) => m.map(Move::Play).collect(),
    };
    moves
        .into_iter()
        .map(|mv| {
            let next = rules.play(pos, mv).expect("generated moves are legal");
            let d = if mv == Move::Pass && convention == Convention::NoPass { depth } else { depth - 1 };
            perft_reference(rules, &next, d, convention)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// data/perft.txt, columns n, A124004 (edges), MODE1 (leaves), MODE2 (no-pass).
    pub(crate) fn published() -> Vec<(u32, u64, u64, u64)> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/perft.txt");
        let text = std::fs::read_to_string(path).expect("the published perft table in data/");
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("n "))
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                Some((f[0].parse().ok()?, f[1].parse().ok()?, f[2].parse().ok()?, f[3].parse().ok()?))
            })
            .collect()
    }

    fn check(max_depth: u32, min_depth: u32, kernels: &[KernelKind]) {
        let rules = Rules::othello();
        let start = rules.start_position();
        let rows = published();
        assert!(rows.len() >= 15);
        for &(n, edges, leaves, no_pass) in rows.iter().filter(|r| (min_depth..=max_depth).contains(&r.0)) {
            for &kind in kernels {
                assert_eq!(perft_with(kind, &rules, &start, n, Convention::Edges), edges, "{kind} edges {n}");
                assert_eq!(perft_with(kind, &rules, &start, n, Convention::Leaves), leaves, "{kind} leaves {n}");
                assert_eq!(perft_with(kind, &rules, &start, n, Convention::NoPass), no_pass, "{kind} no-pass {n}");
            }
        }
    }

    #[test]
    fn perft_matches_all_three_published_conventions_through_depth_11() {
        check(11, 0, &KernelKind::available());
    }

    #[test]
    #[ignore = "slow: depths 12-14 with the fastest kernel (about 15 minutes); run with --ignored"]
    fn perft_matches_the_published_counts_at_depths_12_to_14() {
        check(14, 12, &[KernelKind::best()]);
    }

    #[test]
    fn bitboard_perft_agrees_with_the_move_by_move_reference() {
        let rules = Rules::othello();
        for conv in [Convention::Edges, Convention::Leaves, Convention::NoPass] {
            for d in 0..=9 {
                let want = perft_reference(&rules, &rules.start_position(), d, conv);
                assert_eq!(perft(&rules, &rules.start_position(), d, conv), want, "{conv} {d}");
            }
        }
        // The fast loop also serves smaller boards through its mask.
        for size in [4u8, 6] {
            let r = rules.with_size(size).unwrap();
            for conv in [Convention::Edges, Convention::Leaves, Convention::NoPass] {
                let d = if size == 4 { 14 } else { 8 };
                assert_eq!(
                    perft(&r, &r.start_position(), d, conv),
                    perft_reference(&r, &r.start_position(), d, conv),
                    "{size}x{size} {conv}"
                );
            }
        }
    }

    #[test]
    fn variants_change_perft_as_the_rules_say() {
        // Traditional Reversi: 4 * 3 * 2 * 1 ways to fill the centre.
        let t = Rules::traditional();
        assert_eq!(perft(&t, &t.start_position(), 4, Convention::Edges), 24);
        // 4x4 Othello is small enough to count every game to the end: no sequence is longer than 12 plies + passes.
        let four = Rules::othello().with_size(4).unwrap();
        let all = perft(&four, &four.start_position(), 20, Convention::Leaves);
        assert_eq!(all, perft(&four, &four.start_position(), 30, Convention::Leaves), "every game ended by ply 20");
        assert_eq!(perft(&four, &four.start_position(), 30, Convention::Edges), 0);
        // The mirrored start is the standard one reflected, so its counts are the same.
        let mirrored = Rules { start: crate::Start::Mirrored, ..Rules::othello() };
        assert_eq!(perft(&mirrored, &mirrored.start_position(), 8, Convention::Leaves), 390_216);
    }
}
