//! `optimal-moves`: how often players play the exact solver's move, either in stored games (`--games`) or an agent
//! asked on positions drawn from WTHOR games (`--agent --wthor`).

use std::path::PathBuf;

use anyhow::Result;
use othello_eval::matches::output_dir;
use othello_eval::optimal_moves::fixed::{optimal_moves, solve_with_progress, OptimalMoves, OptimalMovesOptions};
use othello_eval::optimal_moves::score_played_by_empties;
use othello_players::AgentSpec;

use super::report::{print_every_player, print_report, Report};
use crate::flags::{positive, thread_count};
use crate::input::read_wthor_games;

/// How often players play the exact solver's move: in stored games (--games), or an agent's on WTHOR positions (--agent
/// --wthor).
///
/// With --games: players' moves in an arena directory's games (or a run's RUN/eval), every position after the opening
/// where it had a choice and at most MAX_EMPTIES empties, solved exactly; in all and by four empties at a time; without
/// --player, every player's: a table, OUT/optimal-moves.csv, and OUT/optimal-moves.svg (the runs' checkpoints against
/// step, time and positions, several runs on one picture). With --agent and --wthor: one agent asked on positions with
/// E empties drawn from WTHOR games, its optimal-move rate and mean disc loss with 95% intervals.
#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("source").required(true).args(["games", "agent"]))]
pub struct OptimalMovesArgs {
    /// Arena directories or run directories (a game stored by two counts once).
    #[arg(long, num_args = 1..)]
    games: Vec<PathBuf>,
    /// The player's spec as the arena stored it (see `ratings`); without it, every player.
    #[arg(long, requires = "games")]
    player: Option<AgentSpec>,
    /// Where the table and the picture go (default: the games' directory for one, else ./optimal-moves-comparison).
    #[arg(long, requires = "games")]
    out: Option<PathBuf>,
    /// Instead of each player's own moves, one set of N positions for all: drawn (seeded) from the games between
    /// players without a model (a run's fixed ladder), each player asked for its move in each. Runs rated on one
    /// ladder share these positions, whatever their checkpoints met. Their exact values are kept in
    /// OUT/fixed-positions.csv, read back when the same positions are drawn again.
    #[arg(long, value_parser = positive::<usize>, requires = "games")]
    fixed_positions: Option<usize>,
    /// The most empty squares of a position counted.
    #[arg(long, default_value_t = 20)]
    max_empties: u32,
    /// An agent spec (see `arena --help`) asked on WTHOR positions, e.g. greedy+endgame14 or
    /// net:model=runs/a,sims=200.
    #[arg(long, requires = "wthor", conflicts_with = "games")]
    agent: Option<AgentSpec>,
    /// WTHOR game files to draw the agent's positions from.
    #[arg(long, num_args = 1.., requires = "agent")]
    wthor: Vec<PathBuf>,
    /// Empty squares of each WTHOR position.
    #[arg(long, default_value_t = 14, requires = "agent")]
    empties: u32,
    /// WTHOR positions drawn.
    #[arg(long, value_parser = positive::<usize>, default_value_t = 200, requires = "agent")]
    positions: usize,
    /// Seeds the draw of WTHOR positions and the agent.
    #[arg(long, default_value_t = 1, requires = "agent")]
    seed: u64,
    /// Positions solved at a time, one thread each.
    #[arg(long, value_parser = thread_count, default_value_t = 1)]
    threads: usize,
}

pub fn optimal_moves_command(a: OptimalMovesArgs) -> Result<()> {
    if let Some(agent) = &a.agent {
        return agent_on_wthor(agent, &a);
    }
    let out = output_dir(a.out, &a.games, "optimal-moves-comparison");
    let max_empties = a.max_empties;
    let options = OptimalMovesOptions {
        dirs: &a.games,
        out: &out,
        player: a.player.as_ref(),
        max_empties,
        fixed_positions: a.fixed_positions,
        threads: a.threads,
    };
    let mut report = Report::new();
    let found = optimal_moves(options, &mut |e| report.event(e))?;
    report.finish();
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

/// One agent against the solver on WTHOR positions.
fn agent_on_wthor(spec: &AgentSpec, a: &OptimalMovesArgs) -> Result<()> {
    let games = read_wthor_games(&a.wthor)?;
    let empties = a.empties;
    let positions = othello_eval::wthor_positions(&games, empties, a.positions, a.seed);
    anyhow::ensure!(!positions.is_empty(), "no position with {empties} empties and a choice of moves in these games");
    let mut agent = spec.agent(a.seed)?;
    // WTHOR's positions are 8x8 Othello: an agent of other rules is refused before any position is solved.
    agent.check_rules(&othello_core::Rules::othello())?;
    let mut report = Report::new();
    let solutions = solve_with_progress(&positions, a.threads, &mut |e| report.event(e))?;
    report.finish();
    let record = othello_eval::optimal_moves::score_agent(&mut agent, &positions, &solutions)?;
    print_report(&format!("{}: {} positions with {empties} empties", agent.name(), record.positions), &record);
    Ok(())
}
