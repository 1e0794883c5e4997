//! `oracle`: an agent against perfect play on positions from WTHOR games.

use std::path::{Path, PathBuf};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::input::read_wthor_games;

/// `oracle`: how often an agent's move is optimal on positions with `empties` empties from WTHOR games.
pub fn run(agent: &str, empties: u32, count: usize, wthor: &[PathBuf], seed: u64, threads: usize) -> Result<()> {
    let games = read_wthor_games(wthor)?;
    let positions = othello_eval::oracle_positions(&games, empties, count, seed);
    anyhow::ensure!(!positions.is_empty(), "no position with {empties} empties and a choice of moves in these games");
    let mut agent = othello_eval::agent_from_spec(agent, seed)?;
    let solutions = solve_with_progress(&positions, threads)?;
    let report = othello_eval::endgame_oracle::evaluate(&mut agent, &positions, &solutions)?;
    print_report(&format!("{}: {} positions with {empties} empties", agent.name(), report.positions), &report);
    Ok(())
}

/// `optimal-moves`: how often `player`'s moves in an arena directory's games were optimal, in all and by four
/// empties at a time.
pub fn optimal_moves(dir: &Path, player: &str, max_empties: u32, threads: usize) -> Result<()> {
    use othello_eval::endgame_oracle::{played_moves, score_played, score_played_by_empties};
    let played = played_moves(&othello_eval::arena::ArenaDir::new(dir), player, max_empties)?;
    anyhow::ensure!(
        !played.is_empty(),
        "{}: no move of '{player}' with a choice and at most {max_empties} empties",
        dir.display()
    );
    let positions: Vec<_> = played.iter().map(|(game, _)| game.clone()).collect();
    let solutions = solve_with_progress(&positions, threads)?;
    let report = score_played(&played, &solutions);
    print_report(&format!("{player}: {} moves with at most {max_empties} empties", report.positions), &report);
    for (empties, report) in score_played_by_empties(&played, &solutions, 4) {
        let (low, high) = (empties.start(), empties.end().min(&max_empties));
        print_report(&format!("  {low}-{high} empties: {} moves", report.positions), &report);
    }
    Ok(())
}

/// Every move of each position solved exactly, `threads` positions at a time, with a progress bar.
fn solve_with_progress(positions: &[othello_core::Game], threads: usize) -> Result<Vec<othello_core::solve::Solution>> {
    let bar = ProgressBar::new(positions.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} positions solved  ETA {eta}").expect("a valid template"),
    );
    let solutions = othello_eval::endgame_oracle::solve_all(positions, threads, || bar.inc(1))?;
    bar.finish_and_clear();
    Ok(solutions)
}

fn print_report(what: &str, report: &othello_eval::OracleReport) {
    let (low, high) = report.optimal_interval();
    println!(
        "{what}: optimal {:.1}% (95%: {:.1}-{:.1}), result kept {:.1}%, mean loss {:.2} +- {:.2} discs",
        100.0 * report.optimal_rate(),
        100.0 * low,
        100.0 * high,
        100.0 * report.result_kept_rate(),
        report.mean_loss(),
        report.mean_loss_half_width()
    );
}

/// `agreement`: how often a network's most probable legal move is the move played in WTHOR games (use games the
/// network was not trained on), beside a random legal move's rate.
pub fn agreement(model: &str, wthor: &[PathBuf], games: usize) -> Result<()> {
    let path = othello_net::resolve_model(std::path::Path::new(model))?;
    let device = othello_net::DeviceChoice::Flex.device()?;
    let (net, info) = othello_net::load_model(&path, None, &device)?;
    let mut all = read_wthor_games(wthor)?;
    all.truncate(games);
    anyhow::ensure!(!all.is_empty(), "no games in the WTHOR files");
    let result = othello_train::agreement::expert_agreement(&net, &device, &all);
    let (low, high) = othello_eval::ratings::proportion_interval(result.agreed, result.positions);
    println!(
        "{} (step {}): {} positions of {} games: agreement {:.1}% (95%: {:.1}-{:.1}); a random legal move {:.1}%",
        path.display(),
        info.step,
        result.positions,
        all.len(),
        100.0 * result.rate(),
        100.0 * low,
        100.0 * high,
        100.0 * result.random_rate()
    );
    Ok(())
}
