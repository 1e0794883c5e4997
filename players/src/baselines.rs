//! The baseline agents: uniformly random, greedy, and any agent with a perfect endgame.

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Game, Move, Rules};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::agent::{choices, Agent, AgentError};

/// Uniformly random legal moves, seeded.
pub struct RandomAgent {
    rng: Pcg64Mcg,
}

impl RandomAgent {
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent { rng: Pcg64Mcg::seed_from_u64(seed) }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let moves = choices(game)?;
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}

/// The move that flips the most discs; ties broken at random (seeded).
pub struct GreedyAgent {
    rng: Pcg64Mcg,
}

impl GreedyAgent {
    pub fn new(seed: u64) -> GreedyAgent {
        GreedyAgent { rng: Pcg64Mcg::seed_from_u64(seed) }
    }
}

impl Agent for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let moves = choices(game)?;
        let pos = game.position();
        let flips = |m: &Move| match m {
            Move::Play(sq) => pos.flips(*sq).count(),
            Move::Pass => 0,
        };
        let most = moves.iter().map(flips).max().unwrap_or(0);
        let best: Vec<Move> = moves.into_iter().filter(|m| flips(m) == most).collect();
        Ok(best[self.rng.random_range(0..best.len())])
    }
}

/// Any agent, plus perfect play once at most `empties` squares are empty: the exact solver picks among the best
/// moves (at random, seeded, so that games stay varied). Falls back to the inner agent when the solver fails
/// (a position it refuses, such as the opening of traditional Reversi).
pub struct EndgameAgent<A> {
    inner: A,
    empties: u32,
    solver: Solver,
    rng: Pcg64Mcg,
}

impl<A: Agent> EndgameAgent<A> {
    pub fn new(inner: A, empties: u32, seed: u64) -> EndgameAgent<A> {
        EndgameAgent { inner, empties, solver: Solver::new(), rng: Pcg64Mcg::seed_from_u64(seed) }
    }
}

impl<A: Agent> Agent for EndgameAgent<A> {
    fn name(&self) -> String {
        format!("{}+endgame{}", self.inner.name(), self.empties)
    }
    fn rules(&self) -> Option<Rules> {
        self.inner.rules()
    }
    fn check_rules(&self, rules: &Rules) -> Result<(), AgentError> {
        self.inner.check_rules(rules)
    }
    fn keep_stderr(&mut self, log: crate::engine::StderrLog) {
        self.inner.keep_stderr(log)
    }
    fn set_clock(&mut self, clock: crate::thinking_time::Clock) {
        self.inner.set_clock(clock)
    }
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let pos = game.position();
        let empties = game.rules.empties(pos);
        if empties <= self.empties {
            if let Ok(solution) = self.solver.solve(&game.rules, pos, Mode::Exact, Limits::default()) {
                if !solution.best_moves.is_empty() {
                    return Ok(solution.best_moves[self.rng.random_range(0..solution.best_moves.len())]);
                }
            }
        }
        self.inner.select_move(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::tests::play;

    #[test]
    fn the_same_seed_gives_the_same_games() {
        let rules = Rules::othello();
        let a = play(rules, &mut RandomAgent::new(1), &mut GreedyAgent::new(2));
        let b = play(rules, &mut RandomAgent::new(1), &mut GreedyAgent::new(2));
        assert_eq!(a, b);
    }

    /// Perfect play over the last 14 empties turns random games into wins: a real effect, measured in a match
    /// with colours alternated.
    #[test]
    fn a_perfect_endgame_beats_the_same_agent_without_it() {
        let rules = Rules::othello();
        let (mut wins, mut losses, games) = (0, 0, 200);
        for i in 0..games {
            let mut perfect = EndgameAgent::new(RandomAgent::new(i), 14, i);
            let mut plain = RandomAgent::new(1000 + i);
            let margin =
                if i % 2 == 0 { play(rules, &mut perfect, &mut plain) } else { -play(rules, &mut plain, &mut perfect) };
            wins += (margin > 0) as u32;
            losses += (margin < 0) as u32;
        }
        assert!(wins > 3 * losses, "{wins} wins, {losses} losses");
    }
}
