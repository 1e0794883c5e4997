//! The textbook baseline: alpha-beta to a fixed depth on a hand-written evaluation (square weights, mobility,
//! corners), the kind of player Othello papers and alpha-zero-general measure learnt players against.

use othello_core::{Bitboard, Game, Move, Objective, Position, Rules, Square, Status};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::agent::{Agent, AgentError};

/// The classic 8x8 square weights (corners good, the squares next to them bad, edges fair).
#[rustfmt::skip]
const WEIGHTS_8X8: [i32; 64] = [
    100, -20,  10,   5,   5,  10, -20, 100,
    -20, -50,  -2,  -2,  -2,  -2, -50, -20,
     10,  -2,  -1,  -1,  -1,  -1,  -2,  10,
      5,  -2,  -1,  -1,  -1,  -1,  -2,   5,
      5,  -2,  -1,  -1,  -1,  -1,  -2,   5,
     10,  -2,  -1,  -1,  -1,  -1,  -2,  10,
    -20, -50,  -2,  -2,  -2,  -2, -50, -20,
    100, -20,  10,   5,   5,  10, -20, 100,
];

/// A legal move (and mobility) is worth this many weight points.
const MOBILITY: i32 = 5;
/// A finished game's value per disc of margin: above any evaluation.
const FINAL: i32 = 10_000;

/// Alpha-beta to `depth` plies on square weights and mobility; ties among the best moves broken at random
/// (seeded), so that its games vary.
pub struct PositionalAgent {
    depth: u32,
    rng: Pcg64Mcg,
}

impl PositionalAgent {
    pub fn new(depth: u32, seed: u64) -> PositionalAgent {
        PositionalAgent { depth: depth.max(1), rng: Pcg64Mcg::seed_from_u64(seed) }
    }
}

/// Square weights for any board size: the 8x8 table read by how far a square is from the nearest edge in each
/// direction, so that corners, X- and C-squares and edges keep their roles on 4x4 and 6x6.
fn weight(sq: Square, size: u8) -> i32 {
    let fold = |x: u8| {
        let from_edge = x.min(size - 1 - x);
        // Distance 0, 1 keep their roles; the rest of the board is the 8x8 table's centre.
        if from_edge >= 2 {
            2 + (from_edge > 2) as u8
        } else {
            from_edge
        }
    };
    let (c, r) = (fold(sq.col()), fold(sq.row()));
    WEIGHTS_8X8[r as usize * 8 + c as usize]
}

/// [`weight`] of every square of the rules' board, 0 off it.
fn board_weights(rules: &Rules) -> [i32; 64] {
    std::array::from_fn(|i| {
        Square::new(i as u8).filter(|_| rules.mask() >> i & 1 == 1).map_or(0, |sq| weight(sq, rules.size))
    })
}

/// The position's value for the side to move: square weights, mobility and, for a finished game, the result.
fn evaluate(rules: &Rules, pos: &Position, weights: &[i32; 64]) -> i32 {
    let sign = if rules.objective == Objective::FewestDiscs { -1 } else { 1 };
    let material = |b: Bitboard| b.map(|sq| weights[sq.index()]).sum::<i32>();
    let mobility = rules.legal_moves(pos).count() as i32 - rules.legal_moves(&pos.pass()).count() as i32;
    sign * (material(pos.player) - material(pos.opponent)) + MOBILITY * mobility
}

impl PositionalAgent {
    fn negamax(&self, rules: &Rules, pos: &Position, depth: u32, mut alpha: i32, beta: i32, w: &[i32; 64]) -> i32 {
        match rules.status(pos) {
            Status::Over => FINAL * rules.outcome(pos).margin_for(pos.side),
            _ if depth == 0 => evaluate(rules, pos, w),
            Status::MustPass => -self.negamax(rules, &pos.pass(), depth, -beta, -alpha, w),
            Status::Moves(moves) => {
                let mut ordered: Vec<Square> = moves.collect();
                ordered.sort_by_key(|sq| -w[sq.index()]);
                let mut best = i32::MIN + 1;
                for sq in ordered {
                    let v = -self.negamax(rules, &rules.play_legal(pos, sq), depth - 1, -beta, -alpha, w);
                    best = best.max(v);
                    alpha = alpha.max(v);
                    if alpha >= beta {
                        break;
                    }
                }
                best
            }
        }
    }
}

impl Agent for PositionalAgent {
    fn name(&self) -> String {
        format!("positional:depth={}", self.depth)
    }

    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let (rules, pos) = (&game.rules, game.position());
        let moves = match rules.status(pos) {
            Status::Over => return Err(AgentError::GameOver),
            Status::MustPass => return Ok(Move::Pass),
            Status::Moves(m) => m,
        };
        let weights = board_weights(rules);
        // Each root move searched with a window that still tells a tie from a loss, so that equal moves are found.
        let scored: Vec<(Square, i32)> = moves
            .map(|sq| {
                let child = rules.play_legal(pos, sq);
                (sq, -self.negamax(rules, &child, self.depth - 1, i32::MIN + 1, i32::MAX, &weights))
            })
            .collect();
        let best = scored.iter().map(|s| s.1).max().expect("a legal move");
        let tied: Vec<Square> = scored.iter().filter(|s| s.1 == best).map(|s| s.0).collect();
        Ok(Move::Play(tied[self.rng.random_range(0..tied.len())]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::tests::match_score;
    use crate::baselines::{GreedyAgent, RandomAgent};

    /// Plain minimax (no pruning) over the same evaluation.
    fn minimax(rules: &Rules, pos: &Position, depth: u32, w: &[i32; 64]) -> i32 {
        match rules.status(pos) {
            Status::Over => FINAL * rules.outcome(pos).margin_for(pos.side),
            _ if depth == 0 => evaluate(rules, pos, w),
            Status::MustPass => -minimax(rules, &pos.pass(), depth, w),
            Status::Moves(m) => m.map(|sq| -minimax(rules, &rules.play_legal(pos, sq), depth - 1, w)).max().unwrap(),
        }
    }

    #[test]
    fn alpha_beta_agrees_with_minimax() {
        let agent = PositionalAgent::new(3, 0);
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        for rules in [Rules::othello(), Rules::othello().with_size(6).unwrap(), Rules::reverse()] {
            let w = board_weights(&rules);
            let mut game = Game::new(rules);
            while !game.is_over() {
                let pos = *game.position();
                for depth in 1..=3 {
                    let want = minimax(&rules, &pos, depth, &w);
                    assert_eq!(agent.negamax(&rules, &pos, depth, i32::MIN + 1, i32::MAX, &w), want);
                }
                let mv = match game.status() {
                    Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
                    _ => Move::Pass,
                };
                game.push(mv).unwrap();
            }
        }
    }

    #[test]
    fn weights_keep_their_roles_on_every_board() {
        let at = |s: &str, size| weight(s.parse().unwrap(), size);
        assert_eq!((at("a1", 8), at("b2", 8), at("b1", 8), at("d4", 8)), (100, -50, -20, -1));
        assert_eq!((at("f6", 6), at("e5", 6), at("e6", 6), at("c3", 6)), (100, -50, -20, -1));
        assert_eq!((at("d4", 4), at("c3", 4), at("a2", 4)), (100, -50, -20));
        assert!((0..64).all(|i| WEIGHTS_8X8[i] == weight(Square::new(i as u8).unwrap(), 8)));
    }

    /// Depth buys strength: depth 2 beats greedy and random, depth 3 beats depth 1, in matches with colours
    /// alternated.
    #[test]
    fn deeper_search_wins_more() {
        let rules = Rules::othello();
        let depth = |d: u32| move |s: u64| -> Box<dyn Agent> { Box::new(PositionalAgent::new(d, s)) };
        let vs_random = match_score(rules, &mut depth(2), &mut |s| Box::new(RandomAgent::new(s)), 40);
        let vs_greedy = match_score(rules, &mut depth(2), &mut |s| Box::new(GreedyAgent::new(s)), 40);
        let deeper = match_score(rules, &mut depth(3), &mut depth(1), 40);
        assert!(vs_random >= 0.9 && vs_greedy >= 0.8 && deeper >= 0.65, "{vs_random} {vs_greedy} {deeper}");
    }
}
