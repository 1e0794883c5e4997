//! One self-play game: MCTS at every move, with the training targets of every position.

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Game, Move, Outcome, Position, Rules, Status};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::evaluator::{policy_index, Evaluator, POLICY_SIZE};
use crate::mcts::{MctsConfig, Tree};

/// How self-play plays (the `[selfplay]` section of a run config); every default documented here is what an
/// unset key means.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Evaluations per full search. Default 200.
    pub simulations: u32,
    /// Leaves gathered per evaluator call within one tree. Default 8.
    pub batch: usize,
    /// Playout cap randomization: the share of moves that get a full search and are recorded as policy
    /// targets; the others get `cheap_simulations`, no root noise, and are played but not recorded. Default 1.0
    /// (off); KataGo uses 0.25.
    pub full_search_share: f32,
    /// Evaluations of a cheap search. Default 40.
    pub cheap_simulations: u32,
    /// Moves played by sampling visits (temperature 1) at the start of a game; then the most visited. Default 10.
    pub temperature_moves: u32,
    /// Positions with at most this many empties are solved exactly: the solver's best move is played and its
    /// best moves become the policy target. 0 (the default) turns it off until it is measured.
    pub solve_empties: u32,
    /// What evaluates leaves: "network" (the newest model of the run, else a seeded random initialisation),
    /// "uniform" (a uniform prior, value 0) or "rollouts" (random games). Default "network".
    pub evaluator: String,
    /// Random games per leaf for the "rollouts" evaluator. Default 4.
    pub rollouts: u32,
    /// Games per replay shard. Default 16.
    pub games_per_shard: usize,
    #[serde(skip)]
    pub mcts: MctsConfig,
}

impl Default for SelfPlayConfig {
    fn default() -> SelfPlayConfig {
        SelfPlayConfig {
            simulations: 200,
            batch: 8,
            full_search_share: 1.0,
            cheap_simulations: 40,
            temperature_moves: 10,
            solve_empties: 0,
            evaluator: "network".into(),
            rollouts: 4,
            games_per_shard: 16,
            mcts: MctsConfig::default(),
        }
    }
}

/// One position of a self-play game and what it teaches.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRecord {
    pub position: Position,
    pub ply: u32,
    /// Visit distribution of the search (or the solver's best moves), over the 64 squares and the pass.
    pub policy: [f32; POLICY_SIZE],
    /// A full search (a policy target to train on), not a cheap one.
    pub full_search: bool,
    /// Solved exactly by the endgame solver.
    pub solved: bool,
}

/// A finished self-play game.
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
    /// The result for the side to move in position `i`: 1 win, 0 draw, -1 loss.
    pub fn value_target(&self, i: usize) -> f32 {
        self.outcome().margin_for(self.positions[i].position.side).signum() as f32
    }
    /// The final disc margin for the side to move in position `i`.
    pub fn margin_target(&self, i: usize) -> i32 {
        self.outcome().margin_for(self.positions[i].position.side)
    }
    /// Final ownership of each square from the side to move in position `i`: 1 own, -1 opponent's, 0 empty.
    pub fn ownership_target(&self, i: usize) -> [i8; 64] {
        let last = self.game.position();
        let side = self.positions[i].position.side;
        let (mine, theirs) = (last.discs(side), last.discs(!side));
        std::array::from_fn(|sq| (mine.0 >> sq & 1) as i8 - (theirs.0 >> sq & 1) as i8)
    }
}

/// Plays one game of self-play with `evaluator`, seeded with `seed`.
pub fn play_game(rules: Rules, evaluator: &mut dyn Evaluator, config: &SelfPlayConfig, seed: u64) -> GameRecord {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let mut tree = Tree::new(rules, *game.position(), config.mcts.clone(), Pcg64Mcg::seed_from_u64(rng.random()));
    let mut solver = (config.solve_empties > 0).then(Solver::new);
    let mut positions = Vec::new();
    while !game.is_over() {
        let pos = *game.position();
        let ply = game.moves().len() as u32;
        if game.status() == Status::MustPass {
            game.push(Move::Pass).expect("a forced pass is legal");
            tree.advance(Move::Pass);
            continue;
        }
        let empties = (rules.mask() & !pos.occupied().0).count_ones();
        let solved = match solver.as_mut().filter(|_| empties <= config.solve_empties) {
            Some(s) => s.solve(&rules, &pos, Mode::Exact, Limits::default()).ok(),
            None => None,
        };
        let (mv, record) = if let Some(solution) = solved {
            let mut policy = [0.0; POLICY_SIZE];
            for m in &solution.best_moves {
                policy[policy_index(*m)] = 1.0 / solution.best_moves.len() as f32;
            }
            let mv = solution.best_moves[rng.random_range(0..solution.best_moves.len())];
            (mv, PositionRecord { position: pos, ply, policy, full_search: true, solved: true })
        } else {
            let full = rng.random::<f32>() < config.full_search_share;
            tree.config.root_noise = full && config.mcts.root_noise;
            let sims = if full { config.simulations } else { config.cheap_simulations };
            tree.search(evaluator, sims, config.batch);
            let temperature = if ply < config.temperature_moves { 1.0 } else { 0.0 };
            let mv = tree.choose_move(temperature).expect("a searched position with moves");
            (mv, PositionRecord { position: pos, ply, policy: tree.policy_target(), full_search: full, solved: false })
        };
        positions.push(record);
        game.push(mv).expect("search and solver play legal moves");
        tree.advance(mv);
    }
    GameRecord { game, positions, seed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::{RolloutEvaluator, UniformEvaluator};

    fn small() -> SelfPlayConfig {
        SelfPlayConfig { simulations: 64, cheap_simulations: 16, full_search_share: 0.5, ..SelfPlayConfig::default() }
    }

    #[test]
    fn records_are_legal_consistent_and_reproducible() {
        let rules = Rules::othello();
        for seed in 0..4 {
            let a = play_game(rules, &mut RolloutEvaluator::new(seed, 1), &small(), seed);
            let b = play_game(rules, &mut RolloutEvaluator::new(seed, 1), &small(), seed);
            assert_eq!(a.game.moves(), b.game.moves(), "same seed, same game");
            assert_eq!(a.positions, b.positions);
            // The moves replay under the rules, and the recorded positions are the game's.
            let replayed = Game::replay(rules, a.game.moves()).unwrap();
            assert!(replayed.is_over());
            assert_eq!(replayed.outcome(), a.outcome());
            for (i, r) in a.positions.iter().enumerate() {
                assert_eq!(replayed.positions()[r.ply as usize], r.position);
                let legal = rules.legal_moves(&r.position);
                let sum: f32 = r.policy.iter().sum();
                assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
                for (sq, &p) in r.policy.iter().enumerate() {
                    assert!(p == 0.0 || (sq < 64 && legal.0 >> sq & 1 == 1), "policy on illegal {sq}");
                }
                let o = replayed.outcome();
                let mover_margin = o.margin_for(r.position.side);
                assert_eq!(a.value_target(i), mover_margin.signum() as f32);
                let own = a.ownership_target(i).iter().map(|&x| x as i32).sum::<i32>();
                assert_eq!(
                    own,
                    replayed.position().discs(r.position.side).count() as i32
                        - replayed.position().discs(!r.position.side).count() as i32
                );
            }
            let cheap = a.positions.iter().filter(|r| !r.full_search).count();
            assert!(cheap > 0 && cheap < a.positions.len(), "playout cap randomization mixes both kinds");
        }
    }

    #[test]
    fn solved_endgames_play_perfectly() {
        let rules = Rules::othello();
        let config = SelfPlayConfig { solve_empties: 10, simulations: 16, ..SelfPlayConfig::default() };
        let record = play_game(rules, &mut UniformEvaluator, &config, 3);
        let mut solver = Solver::new();
        let solved: Vec<&PositionRecord> = record.positions.iter().filter(|r| r.solved).collect();
        assert!(solved.len() >= 8, "the last 10 empties are solved");
        for r in solved {
            assert!(64 - r.position.occupied().count() <= 10);
            let all = solver.solve(&rules, &r.position, Mode::AllMoves, Limits::default()).unwrap();
            let played = record.game.moves()[r.ply as usize];
            let value = all.move_scores.iter().find(|m| m.0 == played).unwrap().1;
            assert_eq!(value, all.score, "the played move is optimal");
        }
        // Perfect play from the first solved position keeps its exact value to the end.
        let first = record.positions.iter().find(|r| r.solved).unwrap();
        let exact = solver.solve(&rules, &first.position, Mode::Exact, Limits::default()).unwrap().score;
        assert_eq!(record.outcome().margin_for(first.position.side), exact);
    }
}
