//! `oracle`: an agent against perfect play on positions from WTHOR games.

use std::path::PathBuf;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::input::read_wthor_games;

/// `oracle`: how often an agent's move is optimal on positions with `empties` empties from WTHOR games.
pub fn run(agent: &str, empties: u32, count: usize, wthor: &[PathBuf], seed: u64, threads: usize) -> Result<()> {
    let games = read_wthor_games(wthor)?;
    let positions = othello_eval::oracle_positions(&games, empties, count, seed);
    anyhow::ensure!(!positions.is_empty(), "no position with {empties} empties and a choice of moves in these games");
    let mut agent = othello_eval::agent_from_spec(agent, seed)?;
    let bar = ProgressBar::new(positions.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} positions solved  ETA {eta}").expect("a valid template"),
    );
    let solutions = othello_eval::endgame_oracle::solve_all(&positions, threads, || bar.inc(1))?;
    bar.finish_and_clear();
    let report = othello_eval::endgame_oracle::evaluate(&mut agent, &positions, &solutions)?;
    println!(
        "{}: {} positions with {empties} empties: optimal {:.1}%, mean loss {:.2} discs",
        agent.name(),
        report.positions,
        100.0 * report.optimal_rate(),
        report.mean_loss()
    );
    Ok(())
}
