//! `oracle`: an agent against perfect play on positions from WTHOR games.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use othello_core::solve::Solution;
use othello_core::Move;
use othello_eval::endgame_oracle::{
    choose_moves, fixed_positions_csv, ladder_positions, optimal_moves_csv, parse_fixed_positions_csv,
    played_moves_by_player, position_set_name, score_played, score_played_by_empties, OptimalMovesRow, OWN_MOVES,
};

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
    let rows = super::arena::rows_of(o.dirs)?;
    let names = || o.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ");
    let max_empties = o.max_empties;
    if let Some(count) = o.fixed_positions {
        let Some(mut fixed) = FixedPositions::draw(&rows, max_empties, count, o.out)? else {
            anyhow::bail!(
                "{}: no position with a choice and at most {max_empties} empties in the games between untrained players",
                names()
            );
        };
        let specs = match o.player {
            Some(player) => vec![player.to_string()],
            None => players_of(&rows),
        };
        // One player must answer; of every player, those that can.
        let answered = fixed.ask(&specs, o.threads, o.player.is_some())?;
        if let (Some(player), Some((_, moves))) = (o.player, answered.first()) {
            let played: Vec<_> = fixed.positions.iter().cloned().zip(moves.iter().copied()).collect();
            print_by_empties(player, &played, fixed.solutions.as_deref().unwrap_or_default(), "positions", max_empties);
        } else {
            let records = fixed.rows(&specs);
            print_every_player(&records, "positions", max_empties);
            eprintln!("{}", store_every_player(o.out, &records)?);
        }
        return Ok(());
    }
    let mut by_player = played_moves_by_player(&rows, max_empties)?;
    by_player.retain(|p, _| o.player.is_none_or(|wanted| wanted == p));
    let positions: Vec<_> = by_player.values().flatten().map(|(game, _)| game.clone()).collect();
    let solutions = solve_with_progress(&positions, o.threads)?;
    let Some(player) = o.player else {
        anyhow::ensure!(!by_player.is_empty(), "{}: no move with a choice and at most {max_empties} empties", names());
        let mut start = 0;
        let mut records = vec![];
        for (player, played) in by_player {
            let report = score_played(&played, &solutions[start..start + played.len()]);
            start += played.len();
            records.push(OptimalMovesRow { player, report, position_set: OWN_MOVES.to_string() });
        }
        print_every_player(&records, "moves", max_empties);
        eprintln!("{}", store_every_player(o.out, &records)?);
        return Ok(());
    };
    let Some(played) = by_player.get(player).filter(|played| !played.is_empty()) else {
        anyhow::bail!("{}: no move of '{player}' with a choice and at most {max_empties} empties", names());
    };
    print_by_empties(player, played, &solutions, "moves", max_empties);
    Ok(())
}

/// Every player of the games in `rows`, in name order.
fn players_of(rows: &[othello_eval::arena::ResultRow]) -> Vec<String> {
    let all = rows.iter().flat_map(|r| [r.black.clone(), r.white.clone()]);
    all.collect::<std::collections::BTreeSet<_>>().into_iter().collect()
}

/// One fixed set of positions from the games between untrained players, each solved once (when a player is first
/// asked, unless an earlier process stored their values) and kept in `fixed-positions.csv`, and the record of every
/// player asked so far: all answer the same positions, so their records compare directly (also across runs on one
/// ladder and seed).
pub struct FixedPositions {
    positions: Vec<othello_core::Game>,
    /// None until a player without a record is asked: records reused from a stored table need no solving.
    solutions: Option<Vec<Solution>>,
    /// Where their values are kept: `fixed-positions.csv` beside the records.
    store: PathBuf,
    /// Its [`position_set_name`]: stored records of it are of these positions.
    set: String,
    records: BTreeMap<String, othello_eval::OracleReport>,
    /// Stored records of other positions (an earlier set, drawn under other settings): kept, never deleted.
    others: Vec<OptimalMovesRow>,
}

impl FixedPositions {
    /// `count` positions with a choice and at most `max_empties` empties from the games in `rows` between players
    /// without a model ([`ladder_positions`]), their values kept in `dir`; None when the games hold none.
    pub fn draw(
        rows: &[othello_eval::arena::ResultRow],
        max_empties: u32,
        count: usize,
        dir: &Path,
    ) -> Result<Option<FixedPositions>> {
        let positions = ladder_positions(rows, max_empties, count, 1)?;
        if positions.is_empty() {
            return Ok(None);
        }
        let set = position_set_name(&positions);
        let store = othello_eval::arena::ArenaDir::new(dir).fixed_positions_csv();
        let (records, others) = (BTreeMap::new(), Vec::new());
        Ok(Some(FixedPositions { positions, solutions: None, store, set, records, others }))
    }

    /// Finds the positions' exact values once: those an earlier process stored for these positions (a file that
    /// does not read is named and replaced), else solved on `threads` and stored.
    fn solve(&mut self, threads: usize) -> Result<()> {
        if self.solutions.is_some() {
            return Ok(());
        }
        let stored = match std::fs::read_to_string(&self.store) {
            Ok(text) => parse_fixed_positions_csv(&text, &self.store, &self.positions).unwrap_or_else(|why| {
                eprintln!("{why}: solving the positions again");
                None
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                eprintln!("{}: {e}: solving the positions again", self.store.display());
                None
            }
        };
        let solutions = match stored {
            Some(solutions) => solutions,
            None => {
                let solutions = solve_with_progress(&self.positions, threads)?;
                let csv = fixed_positions_csv(&self.positions, &solutions);
                if let Some(dir) = self.store.parent() {
                    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
                }
                othello_run::write_atomic(&self.store, csv.as_bytes())
                    .with_context(|| format!("writing {}", self.store.display()))?;
                solutions
            }
        };
        self.solutions = Some(solutions);
        Ok(())
    }

    /// Takes the records in `stored` that count these positions: those players are not asked again.
    /// The others are kept as they are, to be stored again.
    pub fn reuse(&mut self, stored: Vec<OptimalMovesRow>) {
        for row in stored {
            if row.position_set == self.set {
                self.records.insert(row.player, row.report);
            } else {
                self.others.push(row);
            }
        }
    }

    /// Asks each of `specs` without a record for its move in every position, the players and their positions spread
    /// over `threads` (and the positions, when first needed, solved on them), and records them; returns the players
    /// asked now with their moves. One that cannot answer (an engine that fails, a checkpoint since removed) is left
    /// out with a line, or is the error when `strict`.
    pub fn ask(&mut self, specs: &[String], threads: usize, strict: bool) -> Result<Vec<(String, Vec<Move>)>> {
        let new: Vec<String> = specs.iter().filter(|spec| !self.records.contains_key(*spec)).cloned().collect();
        if new.is_empty() {
            return Ok(vec![]);
        }
        self.solve(threads)?;
        let solutions = self.solutions.as_deref().expect("solved above");
        let bar = ProgressBar::new((new.len() * self.positions.len()) as u64).with_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} positions asked  ETA {eta}").expect("a valid template"),
        );
        if bar.is_hidden() {
            eprintln!("{} player{}, {} positions each", new.len(), super::plural(new.len()), self.positions.len());
        }
        let chosen = choose_moves(&new, &self.positions, threads, 1, |n| bar.inc(n as u64));
        bar.finish_and_clear();
        let mut answered = vec![];
        for (spec, moves) in new.into_iter().zip(chosen) {
            match moves {
                Ok(moves) => {
                    let played: Vec<_> = self.positions.iter().cloned().zip(moves.iter().copied()).collect();
                    self.records.insert(spec.clone(), score_played(&played, solutions));
                    answered.push((spec, moves));
                }
                Err(why) if !strict => eprintln!("{spec}: left out: {why}"),
                Err(why) => return Err(why.into()),
            }
        }
        Ok(answered)
    }

    /// The records of those of `specs` that have one, as `optimal-moves.csv` stores them.
    pub fn rows(&self, specs: &[String]) -> Vec<OptimalMovesRow> {
        let record = |spec: &String| {
            let report = *self.records.get(spec)?;
            Some(OptimalMovesRow { player: spec.clone(), report, position_set: self.set.clone() })
        };
        specs.iter().filter_map(record).collect()
    }
}

/// A run's evaluation against the solver as it goes: every player of RUN/eval's games put to one fixed set of
/// positions from the ladder's games (drawn on the first call, once the ladder's round robin is stored), each
/// player once: the records kept in RUN/eval/optimal-moves.csv are reused on resuming.
pub struct RunOptimalMoves {
    eval: PathBuf,
    max_empties: u32,
    count: usize,
    fixed: Option<FixedPositions>,
}

impl RunOptimalMoves {
    pub fn new(eval: PathBuf, max_empties: u32, count: usize) -> RunOptimalMoves {
        RunOptimalMoves { eval, max_empties, count, fixed: None }
    }

    /// Asks the players of the games without a record; returns every player's record and the players asked now.
    /// None while the ladder's games hold no position to ask.
    pub fn update(&mut self, threads: usize) -> Result<Option<(Vec<OptimalMovesRow>, Vec<String>)>> {
        let arena = othello_eval::arena::ArenaDir::new(&self.eval);
        let rows = arena.read()?;
        if self.fixed.is_none() {
            self.fixed = FixedPositions::draw(&rows, self.max_empties, self.count, &self.eval)?;
            if let Some(fixed) = &mut self.fixed {
                fixed.reuse(arena.read_optimal_moves()?);
            }
        }
        let Some(fixed) = &mut self.fixed else { return Ok(None) };
        let specs = players_of(&rows);
        let asked: Vec<String> = fixed.ask(&specs, threads, false)?.into_iter().map(|(spec, _)| spec).collect();
        Ok(Some((fixed.rows(&specs), asked)))
    }

    /// [`store_every_player`] in RUN/eval: every record of these positions, whether or not its player is in the
    /// games now (a checkpoint since removed keeps its record), and the stored records of other positions.
    pub fn store(&self) -> Result<String> {
        let Some(fixed) = &self.fixed else { return Ok(String::new()) };
        let players: Vec<String> = fixed.records.keys().cloned().collect();
        let mut rows = fixed.rows(&players);
        rows.extend(fixed.others.iter().cloned());
        store_every_player(&self.eval, &rows)
    }
}

/// One player's record of `counted` (moves, or positions) in all and by four empties at a time.
fn print_by_empties(
    player: &str,
    played: &[(othello_core::Game, Move)],
    solutions: &[Solution],
    counted: &str,
    max_empties: u32,
) {
    let report = score_played(played, solutions);
    print_report(&format!("{player}: {} {counted} with at most {max_empties} empties", report.positions), &report);
    for (empties, report) in score_played_by_empties(played, solutions, 4) {
        let (low, high) = (empties.start(), empties.end().min(&max_empties));
        print_report(&format!("  {low}-{high} empties: {} {counted}", report.positions), &report);
    }
}

/// The records, the highest optimal-move rate first.
fn best_first(records: &[OptimalMovesRow]) -> Vec<OptimalMovesRow> {
    let mut records = records.to_vec();
    records.sort_by(|a, b| b.report.optimal_rate().total_cmp(&a.report.optimal_rate()));
    records
}

/// Prints every player's record of `counted` (moves, or positions) with at most `max_empties` empties, best first.
pub fn print_every_player(records: &[OptimalMovesRow], counted: &str, max_empties: u32) {
    let records = best_first(records);
    let width = records.iter().map(|r| r.player.len()).max().unwrap_or(6).max(6);
    println!("{counted} with a choice and at most {max_empties} empties, against the solver:");
    println!(
        "{:<width$}  {:>9}  {:>8}  {:>11}  {:>11}  {:>9}",
        "player", counted, "optimal", "95%", "result kept", "mean loss"
    );
    for OptimalMovesRow { player, report: r, .. } in records {
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
}

/// Stores every player's record in `out`: `optimal-moves.csv` (best first), and the checkpoints' rates drawn in
/// `optimal-moves.svg`; returns a line saying where.
pub fn store_every_player(out: &Path, records: &[OptimalMovesRow]) -> Result<String> {
    use othello_eval::ratings_plot::{curves_of, plot_curves};
    let records = best_first(records);
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let arena = othello_eval::arena::ArenaDir::new(out);
    let csv = arena.optimal_moves_csv();
    othello_run::write_atomic(&csv, optimal_moves_csv(&records).as_bytes())
        .with_context(|| format!("writing {}", csv.display()))?;
    let (curves, mut fixed) = curves_of(records.iter().map(|r| {
        let (low, high) = r.report.optimal_interval();
        (r.player.clone(), 100.0 * r.report.optimal_rate(), 100.0 * low, 100.0 * high)
    }));
    if curves.is_empty() {
        return Ok(format!("every player's record in {}", csv.display()));
    }
    fixed.push(("perfect play".to_string(), 100.0));
    let svg = arena.optimal_moves_svg();
    plot_curves(&curves, &fixed, "optimal moves (%)", &svg).map_err(|e| anyhow::anyhow!("{}: {e}", svg.display()))?;
    Ok(format!("every player's record in {}, the checkpoints' drawn in {}", csv.display(), svg.display()))
}

/// Every move of each position solved exactly, `threads` positions at a time, with a progress bar.
fn solve_with_progress(positions: &[othello_core::Game], threads: usize) -> Result<Vec<Solution>> {
    let bar = ProgressBar::new(positions.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} positions solved  ETA {eta}").expect("a valid template"),
    );
    // Without a terminal the bar is hidden: a line before and after instead.
    let started = std::time::Instant::now();
    if bar.is_hidden() {
        eprintln!("solving {} positions on {threads} thread{}", positions.len(), super::plural(threads));
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
