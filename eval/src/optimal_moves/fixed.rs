//! Players against the solver on the evaluation's games: each player's own moves with few empties, or every
//! player's choice in one fixed set of positions from the games between untrained players, each move solved
//! exactly. The records go to `optimal-moves.csv` and, for checkpoints of training runs, `optimal-moves.svg`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use othello_core::solve::Solution;
use othello_core::{Game, Move};

use crate::arena::{ArenaDir, ArenaError, ResultRow};
use crate::events::Event;
use crate::matches::rows_of;
use crate::optimal_moves::{
    choose_moves, fixed_positions_csv, ladder_positions, optimal_moves_csv, parse_fixed_positions_csv,
    played_moves_by_player, position_set_name, score_played, solve_all, OptimalMovesRow, OWN_MOVES,
};
use crate::ratings_plot::{curves_of, plot_curves, FixedLine};
use crate::stage::StageError;
use crate::OptimalMovesReport;
use othello_players::AgentSpec;

/// What `optimal-moves` measures.
pub struct OptimalMovesOptions<'a> {
    /// Arena directories or runs.
    pub dirs: &'a [PathBuf],
    /// Where every player's record goes.
    pub out: &'a Path,
    /// One player (its moves returned, nothing stored), else every player of the games.
    pub player: Option<&'a AgentSpec>,
    pub max_empties: u32,
    /// Instead of each player's own moves: this many positions from the games between untrained players, the same
    /// for every player, each asked for its move.
    pub fixed_positions: Option<usize>,
    pub threads: usize,
}

/// What [`optimal_moves`] found.
pub enum OptimalMoves {
    /// One player's moves (or choices) and their exact values, for a table by empties; `counted`: "moves" or
    /// "positions".
    One { player: AgentSpec, played: Vec<(Game, Move)>, solutions: Vec<Solution>, counted: &'static str },
    /// Every player's record, stored in the output directory.
    Every { records: Vec<OptimalMovesRow>, counted: &'static str },
}

/// How often players' moves were optimal, each move solved exactly: their own moves in the games of `dirs`
/// (arena directories or runs), or their choices in one fixed set of positions from those games. Every player's
/// record is stored in `out` ([`store_every_player`]).
pub fn optimal_moves(o: OptimalMovesOptions, on_event: &mut dyn FnMut(Event)) -> Result<OptimalMoves, StageError> {
    let rows = rows_of(o.dirs)?;
    let names = || o.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ");
    let max_empties = o.max_empties;
    if let Some(count) = o.fixed_positions {
        let Some(mut fixed) = FixedPositions::draw(&rows, max_empties, count, o.out)? else {
            return Err(StageError::NoPositions { dirs: names(), max_empties });
        };
        let specs = match o.player {
            Some(player) => vec![player.clone()],
            None => players_of(&rows),
        };
        // One player must answer; of every player, those that can.
        let answered = fixed.ask(&specs, o.threads, o.player.is_some(), on_event)?;
        if let (Some(player), Some((_, moves))) = (o.player, answered.first()) {
            let played = fixed.positions.iter().cloned().zip(moves.iter().copied()).collect();
            let solutions = fixed.solutions.clone().unwrap_or_default();
            return Ok(OptimalMoves::One { player: player.clone(), played, solutions, counted: "positions" });
        }
        let records = fixed.rows(&specs);
        let stored = store_every_player(o.out, &records)?;
        on_event(Event::Stored { what: stored });
        return Ok(OptimalMoves::Every { records, counted: "positions" });
    }
    let mut by_player = played_moves_by_player(&rows, max_empties)?;
    by_player.retain(|p, _| o.player.is_none_or(|wanted| wanted == p));
    let positions: Vec<_> = by_player.values().flatten().map(|(game, _)| game.clone()).collect();
    let solutions = solve_with_progress(&positions, o.threads, on_event)?;
    let Some(player) = o.player else {
        if by_player.is_empty() {
            return Err(StageError::NoMoves { dirs: names(), max_empties, player: None });
        }
        let mut start = 0;
        let mut records = vec![];
        for (player, played) in by_player {
            let report = score_played(&played, &solutions[start..start + played.len()]);
            start += played.len();
            records.push(OptimalMovesRow { player, report, position_set: OWN_MOVES.to_string() });
        }
        let stored = store_every_player(o.out, &records)?;
        on_event(Event::Stored { what: stored });
        return Ok(OptimalMoves::Every { records, counted: "moves" });
    };
    match by_player.remove(player).filter(|played| !played.is_empty()) {
        Some(played) => Ok(OptimalMoves::One { player: player.clone(), played, solutions, counted: "moves" }),
        None => Err(StageError::NoMoves { dirs: names(), max_empties, player: Some(player.to_string()) }),
    }
}

/// Every player of the games in `rows`, in name order.
fn players_of(rows: &[ResultRow]) -> Vec<AgentSpec> {
    let all = rows.iter().flat_map(|r| [r.black.clone(), r.white.clone()]);
    all.collect::<BTreeSet<_>>().into_iter().collect()
}

/// One fixed set of positions from the games between untrained players, each solved once (when a player is first
/// asked, unless an earlier process stored their values) and kept in `fixed-positions.csv`, and the record of every
/// player asked so far: all answer the same positions, so their records compare directly (also across runs on one
/// ladder and seed).
pub struct FixedPositions {
    positions: Vec<Game>,
    /// None until a player without a record is asked: records reused from a stored table need no solving.
    solutions: Option<Vec<Solution>>,
    /// Where their values are kept: `fixed-positions.csv` beside the records.
    store: PathBuf,
    /// Its [`position_set_name`]: stored records of it are of these positions.
    set: String,
    records: BTreeMap<AgentSpec, OptimalMovesReport>,
    /// Stored records of other positions (an earlier set, drawn under other settings): kept, never deleted.
    others: Vec<OptimalMovesRow>,
}

impl FixedPositions {
    /// `count` positions with a choice and at most `max_empties` empties from the games in `rows` between players
    /// without a model ([`ladder_positions`]), their values kept in `dir`; None when the games hold none.
    pub fn draw(
        rows: &[ResultRow],
        max_empties: u32,
        count: usize,
        dir: &Path,
    ) -> Result<Option<FixedPositions>, ArenaError> {
        let positions = ladder_positions(rows, max_empties, count, 1)?;
        if positions.is_empty() {
            return Ok(None);
        }
        let set = position_set_name(&positions);
        let store = ArenaDir::new(dir).fixed_positions_csv();
        let (records, others) = (BTreeMap::new(), Vec::new());
        Ok(Some(FixedPositions { positions, solutions: None, store, set, records, others }))
    }

    /// Finds the positions' exact values once: those an earlier process stored for these positions (a file that
    /// does not read is named and replaced), else solved on `threads` and stored.
    fn solve(&mut self, threads: usize, on_event: &mut dyn FnMut(Event)) -> Result<(), ArenaError> {
        if self.solutions.is_some() {
            return Ok(());
        }
        let stored = match std::fs::read_to_string(&self.store) {
            Ok(text) => parse_fixed_positions_csv(&text, &self.store, &self.positions).unwrap_or_else(|why| {
                on_event(Event::Warning { message: format!("{why}: solving the positions again") });
                None
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                on_event(Event::Warning {
                    message: format!("{}: {e}: solving the positions again", self.store.display()),
                });
                None
            }
        };
        let solutions = match stored {
            Some(solutions) => solutions,
            None => {
                let solutions = solve_with_progress(&self.positions, threads, on_event)?;
                let csv = fixed_positions_csv(&self.positions, &solutions);
                if let Some(dir) = self.store.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| ArenaError::io(dir, e))?;
                }
                othello_run::write_atomic(&self.store, csv.as_bytes()).map_err(|e| ArenaError::io(&self.store, e))?;
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
    /// out ([`Event::LeftOut`]), or is the error when `strict`.
    pub fn ask(
        &mut self,
        specs: &[AgentSpec],
        threads: usize,
        strict: bool,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<Vec<(AgentSpec, Vec<Move>)>, StageError> {
        let new: Vec<AgentSpec> = specs.iter().filter(|spec| !self.records.contains_key(*spec)).cloned().collect();
        if new.is_empty() {
            return Ok(vec![]);
        }
        self.solve(threads, on_event)?;
        let solutions = self.solutions.as_deref().expect("solved above");
        let (players, positions) = (new.len(), self.positions.len());
        let total = players * positions;
        on_event(Event::Asking { players, positions, done: 0, total });
        let done = AtomicUsize::new(0);
        let chosen = std::thread::scope(|scope| {
            let asking = scope.spawn(|| {
                choose_moves(&new, &self.positions, threads, 1, |n| {
                    done.fetch_add(n, Ordering::Relaxed);
                })
            });
            // Each count once, and 0 only at the start: it begins the report. The last count is read after the
            // players have finished, so it is always reported.
            let mut reported = 0;
            loop {
                let finished = asking.is_finished();
                let now = done.load(Ordering::Relaxed);
                if now > reported {
                    on_event(Event::Asking { players, positions, done: now, total });
                    reported = now;
                }
                if finished {
                    break asking.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        });
        let mut answered = vec![];
        for (spec, moves) in new.into_iter().zip(chosen) {
            match moves {
                Ok(moves) => {
                    let played: Vec<_> = self.positions.iter().cloned().zip(moves.iter().copied()).collect();
                    self.records.insert(spec.clone(), score_played(&played, solutions));
                    answered.push((spec, moves));
                }
                Err(why) if !strict => on_event(Event::LeftOut { player: &spec, why: why.to_string() }),
                Err(why) => return Err(why.into()),
            }
        }
        Ok(answered)
    }

    /// The records of those of `specs` that have one, as `optimal-moves.csv` stores them.
    pub fn rows(&self, specs: &[AgentSpec]) -> Vec<OptimalMovesRow> {
        let record = |spec: &AgentSpec| {
            let report = *self.records.get(spec)?;
            Some(OptimalMovesRow { player: spec.clone(), report, position_set: self.set.clone() })
        };
        specs.iter().filter_map(record).collect()
    }
}

/// Every player's record, and the players asked this time.
pub type RecordsAndAsked = (Vec<OptimalMovesRow>, Vec<AgentSpec>);

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
    pub fn update(
        &mut self,
        threads: usize,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<Option<RecordsAndAsked>, StageError> {
        let arena = ArenaDir::new(&self.eval);
        let rows = arena.read()?;
        if self.fixed.is_none() {
            self.fixed = FixedPositions::draw(&rows, self.max_empties, self.count, &self.eval)?;
            if let Some(fixed) = &mut self.fixed {
                fixed.reuse(arena.read_optimal_moves()?);
            }
        }
        let Some(fixed) = &mut self.fixed else { return Ok(None) };
        let specs = players_of(&rows);
        let asked = fixed.ask(&specs, threads, false, on_event)?.into_iter().map(|(spec, _)| spec).collect();
        Ok(Some((fixed.rows(&specs), asked)))
    }

    /// [`store_every_player`] in RUN/eval: every record of these positions, whether or not its player is in the
    /// games now (a checkpoint since removed keeps its record), and the stored records of other positions.
    pub fn store(&self) -> Result<String, ArenaError> {
        let Some(fixed) = &self.fixed else { return Ok(String::new()) };
        let players: Vec<AgentSpec> = fixed.records.keys().cloned().collect();
        let mut rows = fixed.rows(&players);
        rows.extend(fixed.others.iter().cloned());
        store_every_player(&self.eval, &rows)
    }
}

/// The records, the highest optimal-move rate first.
pub fn best_first(records: &[OptimalMovesRow]) -> Vec<OptimalMovesRow> {
    let mut records = records.to_vec();
    records.sort_by(|a, b| b.report.optimal_rate().total_cmp(&a.report.optimal_rate()));
    records
}

/// Stores every player's record in `out`: `optimal-moves.csv` (best first), and the checkpoints' rates drawn in
/// `optimal-moves.svg`; returns a line saying where.
pub fn store_every_player(out: &Path, records: &[OptimalMovesRow]) -> Result<String, ArenaError> {
    let records = best_first(records);
    std::fs::create_dir_all(out).map_err(|e| ArenaError::io(out, e))?;
    let arena = ArenaDir::new(out);
    let csv = arena.optimal_moves_csv();
    othello_run::write_atomic(&csv, optimal_moves_csv(&records).as_bytes()).map_err(|e| ArenaError::io(&csv, e))?;
    let (curves, mut fixed) = curves_of(records.iter().map(|r| {
        let (low, high) = r.report.optimal_interval();
        (r.player.clone(), 100.0 * r.report.optimal_rate(), 100.0 * low, 100.0 * high)
    }));
    if curves.is_empty() {
        return Ok(format!("every player's record in {}", csv.display()));
    }
    fixed.push(FixedLine { label: "perfect play".into(), value: 100.0, external: false });
    let svg = arena.optimal_moves_svg();
    plot_curves(&curves, &fixed, "optimal moves (%)", &svg)
        .map_err(|problem| ArenaError::File { path: svg.clone(), problem })?;
    Ok(format!("every player's record in {}, the checkpoints' drawn in {}", csv.display(), svg.display()))
}

/// Every move of each position solved exactly, `threads` positions at a time, reporting [`Event::Solving`].
pub fn solve_with_progress(
    positions: &[Game],
    threads: usize,
    on_event: &mut dyn FnMut(Event),
) -> Result<Vec<Solution>, ArenaError> {
    let total = positions.len();
    on_event(Event::Solving { done: 0, total, threads });
    let mut done = 0;
    let solutions = solve_all(positions, threads, |settled| {
        done += settled;
        on_event(Event::Solving { done, total, threads });
    })?;
    Ok(solutions)
}
