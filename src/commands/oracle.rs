//! `oracle` (an agent against perfect play on positions from WTHOR games), `optimal-moves` (players' moves in
//! stored games against the solver) and `agreement` (a network's moves against the moves of WTHOR's players).

use std::path::PathBuf;

use anyhow::Result;
use othello_eval::matches::output_dir;
use othello_eval::optimal_moves::fixed::{optimal_moves, solve_with_progress, OptimalMoves, OptimalMovesOptions};
use othello_eval::optimal_moves::score_played_by_empties;

use super::report::{print_every_player, print_report, Report};
use crate::flags::{positive, thread_count};
use crate::input::read_wthor_games;

/// Measure an agent against the exact solver on positions with E empties from WTHOR games: its optimal-move rate
/// and mean disc loss, with 95% intervals.
#[derive(clap::Args)]
pub struct OracleArgs {
    /// An agent spec (see `arena --help`), e.g. greedy+endgame14 or net:model=runs/a,sims=200.
    #[arg(long, default_value = "greedy")]
    agent: String,
    /// Empty squares of each position.
    #[arg(long, default_value_t = 14)]
    empties: u32,
    /// Positions drawn from the games.
    #[arg(long, value_parser = positive::<usize>, default_value_t = 200)]
    positions: usize,
    /// WTHOR game files to sample from.
    #[arg(long, num_args = 1.., required = true)]
    wthor: Vec<PathBuf>,
    /// Seeds the draw and the agent.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Positions solved at a time, one thread each.
    #[arg(long, value_parser = thread_count, default_value_t = 1)]
    threads: usize,
}

pub fn oracle(a: OracleArgs) -> Result<()> {
    let games = read_wthor_games(&a.wthor)?;
    let empties = a.empties;
    let positions = othello_eval::wthor_positions(&games, empties, a.positions, a.seed);
    anyhow::ensure!(!positions.is_empty(), "no position with {empties} empties and a choice of moves in these games");
    let mut agent = othello_eval::agent_from_spec(&a.agent, a.seed)?;
    let mut report = Report::new();
    let solutions = solve_with_progress(&positions, a.threads, &mut |e| report.event(e))?;
    report.finish()?;
    let record = othello_eval::optimal_moves::score_agent(&mut agent, &positions, &solutions)?;
    print_report(&format!("{}: {} positions with {empties} empties", agent.name(), record.positions), &record);
    Ok(())
}

/// How often a player's moves in an arena directory's games (or a run's RUN/eval) were optimal: every position after
/// the opening where it had a choice and at most MAX_EMPTIES empties, solved exactly; in all and by four empties at a
/// time. Without --player, every player's: a table, OUT/optimal-moves.csv, and OUT/optimal-moves.svg (the runs'
/// checkpoints against step, time and positions, several runs on one picture).
#[derive(clap::Args)]
pub struct OptimalMovesArgs {
    /// Arena directories or run directories (a game stored by two counts once).
    #[arg(long, required = true, num_args = 1..)]
    games: Vec<PathBuf>,
    /// The player's spec as the arena stored it (see `ratings`); without it, every player.
    #[arg(long)]
    player: Option<String>,
    /// Where the table and the picture go (default: the games' directory for one, else ./optimal-moves-comparison).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Instead of each player's own moves, one set of N positions for all: drawn (seeded) from the games between
    /// players without a model (a run's fixed ladder), each player asked for its move in each. Runs rated on one
    /// ladder share these positions, whatever their checkpoints met. Their exact values are kept in
    /// OUT/fixed-positions.csv, read back when the same positions are drawn again.
    #[arg(long, value_parser = positive::<usize>)]
    fixed_positions: Option<usize>,
    /// The most empty squares of a position counted.
    #[arg(long, default_value_t = 20)]
    max_empties: u32,
    /// Positions solved at a time, one thread each.
    #[arg(long, value_parser = thread_count, default_value_t = 1)]
    threads: usize,
}

pub fn optimal_moves_command(a: OptimalMovesArgs) -> Result<()> {
    let out = output_dir(a.out, &a.games, "optimal-moves-comparison");
    let max_empties = a.max_empties;
    let options = OptimalMovesOptions {
        dirs: &a.games,
        out: &out,
        player: a.player.as_deref(),
        max_empties,
        fixed_positions: a.fixed_positions,
        threads: a.threads,
    };
    let mut report = Report::new();
    let found = optimal_moves(options, &mut |e| report.event(e))?;
    report.finish()?;
    match found {
        OptimalMoves::Every { records, counted } => print_every_player(&records, counted, max_empties),
        OptimalMoves::One { player, played, solutions, counted } => {
            let record = othello_eval::optimal_moves::score_played(&played, &solutions);
            let all = format!("{player}: {} {counted} with at most {max_empties} empties", record.positions);
            print_report(&all, &record);
            for (empties, record) in score_played_by_empties(&played, &solutions, 4) {
                let (low, high) = (empties.start(), empties.end().min(&max_empties));
                print_report(&format!("  {low}-{high} empties: {} {counted}", record.positions), &record);
            }
        }
    }
    Ok(())
}

/// How often a network's most probable legal move is the move played in WTHOR games (give games it was not trained
/// on), with a 95% interval and a random legal move's rate beside it.
#[derive(clap::Args)]
pub struct AgreementArgs {
    /// A checkpoint, or a run directory (its newest checkpoint).
    #[arg(long)]
    model: String,
    /// WTHOR game files.
    #[arg(long, num_args = 1.., required = true)]
    wthor: Vec<PathBuf>,
    /// Use at most this many games (the files' first).
    #[arg(long, value_parser = positive::<usize>, default_value_t = 2000)]
    games: usize,
}

pub fn agreement(a: AgreementArgs) -> Result<()> {
    let path = othello_net::resolve_model(std::path::Path::new(&a.model))?;
    let device = othello_net::DeviceChoice::Flex.device()?;
    let (net, info) = othello_net::load_model(&path, None, &device)?;
    let mut all = read_wthor_games(&a.wthor)?;
    all.truncate(a.games);
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
