//! A finished game with the training targets of each of its positions: what a replay shard stores, whoever
//! played the game (self-play, or expert games imported from WTHOR).

use othello_core::{Game, Move, Outcome, Position, Rules, Status, POLICY_SIZE};
use rand::{Rng, SeedableRng};

/// One position of a game and what it teaches.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRecord {
    pub position: Position,
    pub ply: u32,
    /// Visit distribution of the search (or the solver's best moves), over the 64 squares and the pass.
    pub policy: [f32; POLICY_SIZE],
    /// A full search (a policy target to train on), not a cheap one.
    pub full_search: bool,
    /// Solved exactly by the endgame solver: the final disc margin for the side to move under perfect play.
    pub exact_margin: Option<i32>,
    /// The search's value of the move played, for the side to move, in -1..1 (its mean over the simulations
    /// through that move); `None` where no search chose the move (the solver, expert games).
    pub search_value: Option<f32>,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub game: Game,
    pub positions: Vec<PositionRecord>,
    pub seed: u64,
}

impl GameRecord {
    pub fn outcome(&self) -> Outcome {
        self.game.outcome()
    }
    /// The result for the side to move in position `i`: 1 win, 0 draw, -1 loss (see [`GameRecord::margin_target`]).
    pub fn value_target(&self, i: usize) -> f32 {
        self.margin_target(i).signum() as f32
    }
    /// The final disc margin for the side to move in position `i`: exact where the position was solved; before
    /// the first solved position, that position's exact margin (what the game comes to when both sides play
    /// perfectly from there, whatever moves were played after it); else the game's.
    pub fn margin_target(&self, i: usize) -> i32 {
        let side = self.positions[i].position.side;
        match self.positions[i..].iter().find_map(|r| Some((r.position.side, r.exact_margin?))) {
            Some((solved_side, margin)) if solved_side == side => margin,
            Some((_, margin)) => -margin,
            None => self.outcome().margin_for(side),
        }
    }
    /// The search's value of position `i` for its side to move: the searched value of the move played, or where
    /// no search was made the value target (exact where solved).
    pub fn search_value_target(&self, i: usize) -> f32 {
        match self.positions[i].search_value {
            Some(q) if q.is_finite() => q.clamp(-1.0, 1.0),
            _ => self.value_target(i),
        }
    }
    /// Final ownership of each square from the side to move in position `i`: 1 own, -1 opponent's, 0 empty.
    pub fn ownership_target(&self, i: usize) -> [i8; 64] {
        let last = self.game.position();
        let side = self.positions[i].position.side;
        let (mine, theirs) = (last.discs(side), last.discs(!side));
        std::array::from_fn(|sq| (mine.0 >> sq & 1) as i8 - (theirs.0 >> sq & 1) as i8)
    }

    /// A game of seeded random moves, each position's policy target uniform over its legal moves and every other
    /// one a full search (forced passes are not recorded, as in self-play): synthetic data in the shard format for
    /// tests and benchmarks, made in microseconds.
    pub fn random(rules: Rules, seed: u64) -> GameRecord {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let mut game = Game::new(rules);
        let mut positions = vec![];
        while !game.is_over() {
            let mv = match game.status() {
                Status::Moves(moves) => {
                    let mut policy = [0.0; POLICY_SIZE];
                    for sq in moves {
                        policy[sq.index()] = 1.0 / moves.count() as f32;
                    }
                    let ply = game.moves().len() as u32;
                    let position = *game.position();
                    positions.push(PositionRecord {
                        position,
                        ply,
                        policy,
                        full_search: ply.is_multiple_of(2),
                        exact_margin: None,
                        search_value: None,
                    });
                    Move::Play(moves.nth(rng.random_range(0..moves.count())).expect("a legal move"))
                }
                _ => Move::Pass,
            };
            game.push(mv).expect("a legal move");
        }
        GameRecord { game, positions, seed }
    }
}
