//! The exact-solver oracle: on positions with E empties taken from real games, how often an agent's move is
//! optimal and how many discs it gives away on average.

use othello_core::solve::{solve_many, Limits, Mode, Solution, SolveError};
use othello_core::wthor::WthorGame;
use othello_core::{Game, Rules, Status};
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::agent::{Agent, AgentError};

/// The positions with exactly `empties` empty squares reached in `games` where the side to move has a choice of
/// moves, shuffled (seeded) and cut to `count`. Each game gives at most one.
pub fn oracle_positions(games: &[WthorGame], empties: u32, count: usize, seed: u64) -> Vec<Game> {
    let mut found: Vec<Game> = games
        .iter()
        .filter_map(|g| {
            let full = g.replay().ok()?;
            let at = full.index_with_empties(empties)?;
            let mut game = Game::new(Rules::othello());
            game.play_all(&full.moves()[..at]).ok()?;
            matches!(game.status(), Status::Moves(m) if m.count() > 1).then_some(game)
        })
        .collect();
    found.shuffle(&mut rand_pcg::Pcg64Mcg::seed_from_u64(seed));
    found.truncate(count);
    found
}

/// An agent's record against the oracle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OracleReport {
    pub positions: usize,
    /// Positions where the agent's move reaches the exact best score.
    pub optimal: usize,
    /// Discs lost against perfect play, summed.
    pub total_loss: i64,
    /// The squares of the losses, summed (for the interval of the mean).
    pub total_squared_loss: i64,
}

impl OracleReport {
    pub fn optimal_rate(&self) -> f64 {
        self.optimal as f64 / self.positions.max(1) as f64
    }
    pub fn mean_loss(&self) -> f64 {
        self.total_loss as f64 / self.positions.max(1) as f64
    }
    /// The 95% interval of the optimal-move rate (Wilson's).
    pub fn optimal_interval(&self) -> (f64, f64) {
        crate::ratings::proportion_interval(self.optimal, self.positions)
    }
    /// Half the 95% interval of the mean loss (normal approximation).
    pub fn mean_loss_half_width(&self) -> f64 {
        let n = self.positions as f64;
        if n < 2.0 {
            return f64::INFINITY;
        }
        let mean = self.mean_loss();
        let variance = (self.total_squared_loss as f64 - n * mean * mean).max(0.0) / (n - 1.0);
        1.96 * (variance / n).sqrt()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Solve(#[from] SolveError),
}

/// The exact value of every move in each game's current position, the games solved `threads` at a time;
/// `on_solved` is called as each is done (for a progress bar).
pub fn solve_all(games: &[Game], threads: usize, mut on_solved: impl FnMut()) -> Result<Vec<Solution>, SolveError> {
    let jobs: Vec<_> = games.iter().map(|g| (g.rules, *g.position())).collect();
    let mut solutions = vec![None; jobs.len()];
    solve_many(
        &jobs,
        Mode::AllMoves,
        Limits::default(),
        threads,
        |_| {},
        |i, solution| {
            solutions[i] = Some(solution);
            on_solved();
        },
    );
    // The first error in game order wins.
    solutions.into_iter().map(|s| s.expect("solve_many reports every position")).collect()
}

/// Scores `agent`'s move in each game's current position against `solutions`, those positions' exact values of
/// every move (from [`solve_all`]).
pub fn evaluate(agent: &mut dyn Agent, games: &[Game], solutions: &[Solution]) -> Result<OracleReport, OracleError> {
    let mut report = OracleReport { positions: 0, optimal: 0, total_loss: 0, total_squared_loss: 0 };
    for (game, solution) in games.iter().zip(solutions) {
        let chosen = agent.select_move(game)?;
        let value = solution.move_scores.iter().find(|(m, _)| *m == chosen).map(|(_, v)| *v).ok_or_else(|| {
            OracleError::Agent(AgentError::Failed {
                agent: agent.name(),
                message: format!("chose {chosen}, not a legal move of {}", game.position()),
            })
        })?;
        report.positions += 1;
        report.optimal += (value == solution.score) as usize;
        let loss = (solution.score - value) as i64;
        report.total_loss += loss;
        report.total_squared_loss += loss * loss;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{EndgameAgent, GreedyAgent, RandomAgent};
    use othello_core::wthor::WthorFile;

    fn wthor_games() -> Vec<WthorGame> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/wthor/WTH_2015.wtb");
        WthorFile::parse(&std::fs::read(path).unwrap()).unwrap().games
    }

    #[test]
    fn the_oracle_separates_perfect_greedy_and_random_play() {
        let positions = oracle_positions(&wthor_games(), 12, 150, 1);
        assert_eq!(positions.len(), 150);
        assert!(positions.iter().all(|g| 64 - g.position().occupied().count() == 12));
        let solutions = solve_all(&positions, 2, || {}).unwrap();
        let perfect = evaluate(&mut EndgameAgent::new(RandomAgent::new(1), 12, 1), &positions, &solutions).unwrap();
        assert_eq!((perfect.optimal, perfect.total_loss), (150, 0), "the solver's own moves are optimal");
        let random = evaluate(&mut RandomAgent::new(2), &positions, &solutions).unwrap();
        let greedy = evaluate(&mut GreedyAgent::new(3), &positions, &solutions).unwrap();
        // Every position offers at least two moves; random play misses the best one often and loses discs.
        assert!(random.optimal_rate() < 0.8 && random.mean_loss() > 2.0, "{random:?}");
        assert!(greedy.optimal < 150, "{greedy:?}");
        // The intervals hold their estimates, and the perfect player's loss is exactly zero.
        let (low, high) = random.optimal_interval();
        assert!(low < random.optimal_rate() && random.optimal_rate() < high && high - low < 0.2, "{low} {high}");
        assert_eq!(perfect.mean_loss_half_width(), 0.0);
        assert!(random.mean_loss_half_width() > 0.0 && random.mean_loss_half_width() < random.mean_loss());
    }
}
