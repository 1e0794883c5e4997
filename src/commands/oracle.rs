//! `oracle`: an agent against perfect play on positions from WTHOR games.

use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use othello_core::solve::Solution;

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

/// What `optimal-moves` measures.
pub struct OptimalMovesOptions<'a> {
    /// Arena directories or runs.
    pub dirs: &'a [PathBuf],
    /// Where every player's record goes.
    pub out: &'a Path,
    /// One player (printed by empties, nothing stored), else every player of the games.
    pub player: Option<&'a str>,
    pub max_empties: u32,
    /// Instead of each player's own moves: this many positions from the games between untrained players, the same
    /// for every player, each asked for its move.
    pub fixed_positions: Option<usize>,
    pub threads: usize,
}

/// `optimal-moves`: how often players' moves were optimal, each move solved exactly. Their own moves in the games of
/// `dirs` (arena directories or runs), or their choices in one fixed set of positions from those games. For one
/// player in all and by four empties at a time; for every player a table, and in `out` `optimal-moves.csv` and,
/// when the players include checkpoints of training runs, `optimal-moves.svg` (several runs on one picture).
pub fn optimal_moves(o: OptimalMovesOptions) -> Result<()> {
    use othello_eval::endgame_oracle::{
        choose_moves, ladder_positions, played_moves_by_player, score_played, score_played_by_empties, PlayedMoves,
    };
    let rows = super::arena::rows_of(o.dirs)?;
    let names = || o.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ");
    let max_empties = o.max_empties;
    // Each player's moves, and where the exact values of their positions' moves lie in `solutions`.
    let mut measured: Vec<(String, PlayedMoves, Range<usize>)> = vec![];
    let solutions = match o.fixed_positions {
        None => {
            let mut by_player = played_moves_by_player(&rows, max_empties)?;
            by_player.retain(|p, _| o.player.is_none_or(|wanted| wanted == p));
            let positions: Vec<_> = by_player.values().flatten().map(|(game, _)| game.clone()).collect();
            let mut start = 0;
            for (player, played) in by_player {
                let own = start..start + played.len();
                start = own.end;
                measured.push((player, played, own));
            }
            solve_with_progress(&positions, o.threads)?
        }
        Some(count) => {
            let positions = ladder_positions(&rows, max_empties, count, 1)?;
            anyhow::ensure!(
                !positions.is_empty(),
                "{}: no position with a choice and at most {max_empties} empties in the games between untrained players",
                names()
            );
            let solutions = solve_with_progress(&positions, o.threads)?;
            let specs: Vec<String> = match o.player {
                Some(player) => vec![player.to_string()],
                None => {
                    let all = rows.iter().flat_map(|r| [r.black.clone(), r.white.clone()]);
                    all.collect::<std::collections::BTreeSet<_>>().into_iter().collect()
                }
            };
            let bar = ProgressBar::new(specs.len() as u64).with_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} players  ETA {eta}").expect("a valid template"),
            );
            if bar.is_hidden() {
                eprintln!("{} players, {} positions each", specs.len(), positions.len());
            }
            let chosen = choose_moves(&specs, &positions, o.threads, 1, || bar.inc(1));
            bar.finish_and_clear();
            for (spec, moves) in specs.into_iter().zip(chosen) {
                // A player that cannot answer (an engine that fails, a checkpoint since removed) is left out.
                match moves {
                    Ok(moves) => {
                        measured.push((spec, positions.iter().cloned().zip(moves).collect(), 0..positions.len()))
                    }
                    Err(why) if o.player.is_none() => eprintln!("{spec}: left out: {why}"),
                    Err(why) => return Err(why.into()),
                }
            }
            solutions
        }
    };
    let what = match o.fixed_positions {
        Some(_) => "positions",
        None => "moves",
    };
    let Some(player) = o.player else {
        anyhow::ensure!(!measured.is_empty(), "{}: no move with a choice and at most {max_empties} empties", names());
        let reports =
            measured.iter().map(|(p, played, own)| (p.clone(), score_played(played, &solutions[own.clone()])));
        return report_every_player(o.out, reports.collect(), what, max_empties);
    };
    let Some((_, played, own)) = measured.first().filter(|(_, played, _)| !played.is_empty()) else {
        anyhow::bail!("{}: no move of '{player}' with a choice and at most {max_empties} empties", names());
    };
    let solutions = &solutions[own.clone()];
    let report = score_played(played, solutions);
    print_report(&format!("{player}: {} {what} with at most {max_empties} empties", report.positions), &report);
    for (empties, report) in score_played_by_empties(played, solutions, 4) {
        let (low, high) = (empties.start(), empties.end().min(&max_empties));
        print_report(&format!("  {low}-{high} empties: {} {what}", report.positions), &report);
    }
    Ok(())
}

/// Prints every player's record of `counted` (moves, or positions) with at most `max_empties` empties, best
/// first, and stores it in `out`: `optimal-moves.csv`, and the checkpoints' rates drawn in `optimal-moves.svg`.
fn report_every_player(
    out: &Path,
    mut reports: Vec<(String, othello_eval::OracleReport)>,
    counted: &str,
    max_empties: u32,
) -> Result<()> {
    use othello_eval::ratings_plot::{curves_of, plot_curves};
    reports.sort_by(|a, b| b.1.optimal_rate().total_cmp(&a.1.optimal_rate()));
    let width = reports.iter().map(|(p, _)| p.len()).max().unwrap_or(6).max(6);
    println!("{counted} with a choice and at most {max_empties} empties, against the solver:");
    println!(
        "{:<width$}  {:>9}  {:>8}  {:>11}  {:>11}  {:>9}",
        "player", counted, "optimal", "95%", "result kept", "mean loss"
    );
    for (player, r) in &reports {
        let (low, high) = r.optimal_interval();
        println!(
            "{player:<width$}  {:>9}  {:>7.1}%  {:>4.1}-{:<5.1}  {:>10.1}%  {:>9.2}",
            r.positions,
            100.0 * r.optimal_rate(),
            100.0 * low,
            100.0 * high,
            100.0 * r.result_kept_rate(),
            r.mean_loss()
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let arena = othello_eval::arena::ArenaDir::new(out);
    let csv = arena.optimal_moves_csv();
    othello_run::write_atomic(&csv, othello_eval::endgame_oracle::optimal_moves_csv(&reports).as_bytes())
        .with_context(|| format!("writing {}", csv.display()))?;
    let (curves, mut fixed) = curves_of(reports.iter().map(|(player, r)| {
        let (low, high) = r.optimal_interval();
        (player.clone(), 100.0 * r.optimal_rate(), 100.0 * low, 100.0 * high)
    }));
    if curves.is_empty() {
        eprintln!("every player's record in {}", csv.display());
        return Ok(());
    }
    fixed.push(("perfect play".to_string(), 100.0));
    let svg = arena.optimal_moves_svg();
    plot_curves(&curves, &fixed, "optimal moves (%)", &svg).map_err(|e| anyhow::anyhow!("{}: {e}", svg.display()))?;
    eprintln!("every player's record in {}, the checkpoints' drawn in {}", csv.display(), svg.display());
    Ok(())
}

/// Every move of each position solved exactly, `threads` positions at a time, with a progress bar.
fn solve_with_progress(positions: &[othello_core::Game], threads: usize) -> Result<Vec<Solution>> {
    let bar = ProgressBar::new(positions.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} positions solved  ETA {eta}").expect("a valid template"),
    );
    // Without a terminal the bar is hidden: a line before and after instead.
    let started = std::time::Instant::now();
    if bar.is_hidden() {
        eprintln!("solving {} positions on {threads} thread{}", positions.len(), if threads == 1 { "" } else { "s" });
    }
    let solutions = othello_eval::endgame_oracle::solve_all(positions, threads, |settled| bar.inc(settled as u64))?;
    bar.finish_and_clear();
    if bar.is_hidden() {
        eprintln!("solved in {:.1} s", started.elapsed().as_secs_f64());
    }
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
