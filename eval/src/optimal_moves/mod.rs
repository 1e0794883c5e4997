//! Optimal moves: how often a player's move is the exact solver's, and how many discs it gives away on average,
//! on positions with E empties from real games, on the moves each player made in stored games, and (`fixed`) on
//! every player's choices in one fixed set of positions from a ladder's games.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::RangeInclusive;

use othello_core::ggf::parse_ggf;
use othello_core::solve::{solve_many, Limits, Mode, Solution, SolveError};
use othello_core::wthor::WthorGame;
use othello_core::{parse_transcript, Color, Game, Move, Rules, Status};
use rand::seq::SliceRandom;
use rand::SeedableRng;

mod files;
pub mod fixed;

pub use files::*;

use crate::arena::{ArenaError, ResultRow};
use othello_players::agent::{Agent, AgentError};
use othello_players::spec::AgentSpec;

/// The positions with exactly `empties` empty squares reached in `games` where the side to move has a choice of
/// moves, shuffled (seeded) and cut to `count`. Each game gives at most one.
pub fn wthor_positions(games: &[WthorGame], empties: u32, count: usize, seed: u64) -> Vec<Game> {
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

/// An agent's record against the solver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptimalMovesReport {
    pub positions: usize,
    /// Positions where the agent's move reaches the exact best score.
    pub optimal: usize,
    /// Positions where the agent's move keeps the position's result under perfect play (a win stays a win, a draw
    /// a draw): the moves a player that plays for the result alone counts as right.
    pub result_kept: usize,
    /// Discs lost against perfect play, summed.
    pub total_loss: i64,
    /// The squares of the losses, summed (for the interval of the mean).
    pub total_squared_loss: i64,
}

impl OptimalMovesReport {
    pub fn optimal_rate(&self) -> f64 {
        self.optimal as f64 / self.positions.max(1) as f64
    }
    pub fn result_kept_rate(&self) -> f64 {
        self.result_kept as f64 / self.positions.max(1) as f64
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

impl OptimalMovesReport {
    fn new() -> OptimalMovesReport {
        OptimalMovesReport { positions: 0, optimal: 0, result_kept: 0, total_loss: 0, total_squared_loss: 0 }
    }

    /// Counts `chosen` in the position `solution` solves; false when it is not one of its moves.
    fn record(&mut self, solution: &Solution, chosen: Move) -> bool {
        let Some(value) = solution.move_scores.iter().find(|(m, _)| *m == chosen).map(|(_, v)| *v) else {
            return false;
        };
        self.positions += 1;
        self.optimal += (value == solution.score) as usize;
        self.result_kept += (value.signum() == solution.score.signum()) as usize;
        let loss = (solution.score - value) as i64;
        self.total_loss += loss;
        self.total_squared_loss += loss * loss;
        true
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OptimalMovesError {
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Solve(#[from] SolveError),
}

/// The exact value of every move in each game's current position, each distinct position solved once, `threads`
/// at a time; `on_solved` is called with the number of games each solve settles (for a progress bar over games).
pub fn solve_all(
    games: &[Game],
    threads: usize,
    mut on_solved: impl FnMut(usize),
) -> Result<Vec<Solution>, SolveError> {
    let mut index_of = HashMap::new();
    let mut jobs = vec![];
    let mut copies = vec![];
    let job_of: Vec<usize> = games
        .iter()
        .map(|g| {
            let job = (g.rules, *g.position());
            let j = *index_of.entry(job).or_insert_with(|| {
                jobs.push(job);
                copies.push(0);
                jobs.len() - 1
            });
            copies[j] += 1;
            j
        })
        .collect();
    let mut solutions = vec![None; jobs.len()];
    solve_many(
        &jobs,
        Mode::AllMoves,
        Limits::default(),
        threads,
        |_| {},
        |i, solution| {
            solutions[i] = Some(solution);
            on_solved(copies[i]);
        },
    );
    // The first error, in the order the games first reach their positions, wins.
    let solutions: Vec<Solution> =
        solutions.into_iter().map(|s| s.expect("solve_many reports every position")).collect::<Result<_, _>>()?;
    Ok(job_of.into_iter().map(|j| solutions[j].clone()).collect())
}

/// Scores `agent`'s move in each game's current position against `solutions`, those positions' exact values of
/// every move (from [`solve_all`]).
pub fn score_agent(
    agent: &mut dyn Agent,
    games: &[Game],
    solutions: &[Solution],
) -> Result<OptimalMovesReport, OptimalMovesError> {
    let mut report = OptimalMovesReport::new();
    for (game, solution) in games.iter().zip(solutions) {
        let chosen = agent.select_move(game)?;
        if !report.record(solution, chosen) {
            return Err(OptimalMovesError::Agent(AgentError::Failed {
                agent: agent.name(),
                message: format!("chose {chosen}, not a legal move of {}", game.position()),
            }));
        }
    }
    Ok(report)
}

/// Positions, each with the move a player made or chose there.
pub type PlayedMoves = Vec<(Game, Move)>;

/// Where each player (an agent spec as the arena stored it) moved in the games `rows` (an arena's stored rows, or
/// several arenas') after the opening, with a choice of moves and at most `max_empties` empties: each position with
/// the move played, by player (players without such a move left out).
pub fn played_moves_by_player(
    rows: &[ResultRow],
    max_empties: u32,
) -> Result<BTreeMap<AgentSpec, PlayedMoves>, ArenaError> {
    let mut found: BTreeMap<AgentSpec, PlayedMoves> = BTreeMap::new();
    for row in rows {
        let path = row.record.clone();
        let fail = |problem: String| ArenaError::File { path: path.clone(), problem };
        let text = std::fs::read_to_string(&path).map_err(|e| fail(e.to_string()))?;
        let record = parse_ggf(&text).into_iter().next().ok_or_else(|| fail("no game record".into()))?;
        let full = record.and_then(|r| r.replay()).map_err(|e| fail(e.to_string()))?;
        let opening = parse_transcript(&row.opening)
            .ok()
            .and_then(|moves| Game::replay(full.rules, &moves).ok())
            .ok_or_else(|| fail(format!("the opening '{}' does not replay", row.opening)))?;
        let mut game = opening.clone();
        for &mv in &full.moves()[opening.moves().len().min(full.moves().len())..] {
            let empties = full.rules.empties(game.position());
            let choice = matches!(game.status(), Status::Moves(m) if m.count() > 1);
            if choice && empties <= max_empties {
                let player = if game.position().side == Color::Black { &row.black } else { &row.white };
                found.entry(player.clone()).or_default().push((game.clone(), mv));
            }
            game.push(mv).map_err(|e| fail(format!("move {mv}: {e}")))?;
        }
    }
    Ok(found)
}

/// A fixed set of positions to put every player to: the positions with a choice and at most `max_empties` empties
/// after the opening in those of the games `rows` that no trained player (a spec with `model=`) played, each
/// distinct position once, shuffled (seeded) and cut to `count`. Runs rated on one fixed ladder with one seed share
/// its round robin's games, and so these positions, whatever their checkpoints met.
pub fn ladder_positions(
    rows: &[ResultRow],
    max_empties: u32,
    count: usize,
    seed: u64,
) -> Result<Vec<Game>, ArenaError> {
    let untrained = |spec: &AgentSpec| spec.model().is_none();
    let ladder: Vec<ResultRow> = rows.iter().filter(|r| untrained(&r.black) && untrained(&r.white)).cloned().collect();
    let mut seen = HashSet::new();
    let mut found: Vec<Game> = played_moves_by_player(&ladder, max_empties)?
        .into_values()
        .flatten()
        .map(|(game, _)| game)
        .filter(|game| seen.insert((game.rules, *game.position())))
        .collect();
    // One order (by the discs) before the seeded shuffle, whatever order the rows came in.
    found.sort_by_key(|g| {
        let p = g.position();
        (p.player.0, p.opponent.0, p.side == Color::Black)
    });
    found.shuffle(&mut rand_pcg::Pcg64Mcg::seed_from_u64(seed));
    found.truncate(count);
    Ok(found)
}

/// Positions a player is asked in one go, by one agent of its own: a player's positions are spread over the threads
/// in these chunks, so that one slow player keeps every thread busy, and its moves do not hang on the thread count.
pub const POSITIONS_PER_AGENT: usize = 16;

/// The move each player chooses in each of `games`' current positions, or why
/// it could not. Each player's
/// positions go in chunks of [`POSITIONS_PER_AGENT`], spread over `threads` threads, each chunk asked by an agent of
/// its own seeded with `seed` plus the chunk's index; `on_positions(n)` is called as each chunk of n is done.
pub fn choose_moves(
    specs: &[AgentSpec],
    games: &[Game],
    threads: usize,
    seed: u64,
    on_positions: impl Fn(usize) + Sync,
) -> Vec<Result<Vec<Move>, AgentError>> {
    let chunks = games.len().div_ceil(POSITIONS_PER_AGENT).max(1);
    let work = specs.len() * chunks;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut answers: Vec<(usize, Result<Vec<Move>, AgentError>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.clamp(1, work.max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= work {
                            break mine;
                        }
                        let (spec, chunk) = (&specs[i / chunks], i % chunks);
                        let positions = games.chunks(POSITIONS_PER_AGENT).nth(chunk).unwrap_or_default();
                        let moves = spec
                            .agent(seed.wrapping_add(chunk as u64))
                            .and_then(|mut agent| positions.iter().map(|g| agent.select_move(g)).collect());
                        mine.push((i, moves));
                        on_positions(positions.len());
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a player's thread returns its moves")).collect()
    });
    answers.sort_unstable_by_key(|(i, _)| *i);
    let mut answers = answers.into_iter().map(|(_, moves)| moves);
    (0..specs.len())
        .map(|_| {
            answers.by_ref().take(chunks).try_fold(Vec::with_capacity(games.len()), |mut all, moves| {
                all.extend(moves?);
                Ok(all)
            })
        })
        .collect()
}

/// Scores moves already played (from [`played_moves_by_player`]) against `solutions`, their positions' exact values.
pub fn score_played(played: &[(Game, Move)], solutions: &[Solution]) -> OptimalMovesReport {
    let mut report = OptimalMovesReport::new();
    for ((_, mv), solution) in played.iter().zip(solutions) {
        report.record(solution, *mv);
    }
    report
}

/// [`score_played`] in bands of `band` empties (1 to `band`, then `band` + 1 to 2 `band`, ...), the fewest empties
/// first: where a player's misses are. Bands without a move are left out.
pub fn score_played_by_empties(
    played: &[(Game, Move)],
    solutions: &[Solution],
    band: u32,
) -> Vec<(RangeInclusive<u32>, OptimalMovesReport)> {
    let band = band.max(1);
    let mut bands = BTreeMap::new();
    for ((game, mv), solution) in played.iter().zip(solutions) {
        // A position with a move has an empty square.
        let index = game.rules.empties(game.position()).saturating_sub(1) / band;
        bands.entry(index).or_insert_with(OptimalMovesReport::new).record(solution, *mv);
    }
    bands.into_iter().map(|(i, report)| (i * band + 1..=(i + 1) * band, report)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::wthor::WthorFile;
    use othello_players::baselines::{EndgameAgent, GreedyAgent, RandomAgent};

    fn wthor_games() -> Vec<WthorGame> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/wthor/WTH_2015.wtb");
        WthorFile::parse(&std::fs::read(path).unwrap()).unwrap().games
    }

    /// On 4x4 every position is solved: a perfect player's stored moves are all optimal, a random player's are not,
    /// and only the moves after the opening, by the player asked about, with a choice, are counted.
    #[test]
    fn played_moves_are_scored_against_the_solver() {
        use crate::arena::{opening, play, schedule, ArenaDir};
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let arena = ArenaDir::new(&dir);
        let rules = Rules::othello().with_size(4).unwrap();
        let perfect = "random+endgame16";
        for p in &schedule(&crate::arena::specs(&["random", perfect]), None, 10).unwrap() {
            arena.store(&play(&rules, p, &opening(&rules, 5, p.pair, 1), 5, None).unwrap()).unwrap();
        }
        let rows = arena.read().unwrap();
        let played_moves = |player: &str, max_empties: u32| {
            played_moves_by_player(&rows, max_empties).unwrap().remove(&player.parse().unwrap()).unwrap_or_default()
        };
        let report = |player: &str, max_empties: u32| {
            let played = played_moves(player, max_empties);
            assert!(played.iter().all(|(g, mv)| g.position().moves().count() > 1
                && matches!(mv, Move::Play(sq) if g.position().moves().contains(*sq))));
            let solutions = solve_all(&played.iter().map(|(g, _)| g.clone()).collect::<Vec<_>>(), 2, |_| {}).unwrap();
            score_played(&played, &solutions)
        };
        let best = report(perfect, 16);
        assert!(best.positions >= 10 && best.optimal == best.positions && best.total_loss == 0, "{best:?}");
        let random = report("random", 16);
        assert!(random.positions >= 10 && random.optimal < random.positions, "{random:?}");
        assert!(report("random", 6).positions < random.positions, "fewer positions with at most 6 empties");
        assert_eq!(report("greedy", 16).positions, 0, "a player of no game");
        // The two players' moves are every move after the opening that had a choice (at most 16 empties: all).
        let every = played_moves_by_player(&rows, 16).unwrap();
        assert_eq!(every.keys().map(AgentSpec::to_string).collect::<Vec<_>>(), ["random", perfect]);
        let with_choice: usize = rows
            .iter()
            .map(|row| {
                let text = std::fs::read_to_string(&row.record).unwrap();
                let full = parse_ggf(&text).remove(0).unwrap().replay().unwrap();
                let skip = parse_transcript(&row.opening).unwrap().len();
                (skip..full.moves().len())
                    .filter(|&i| {
                        rules.legal_moves(Game::replay(rules, &full.moves()[..i]).unwrap().position()).count() > 1
                    })
                    .count()
            })
            .sum();
        assert_eq!(every.values().map(Vec::len).sum::<usize>(), with_choice);
        // The same position met twice is solved once, and each game still gets its solution.
        let positions: Vec<Game> = every.values().flatten().map(|(g, _)| g.clone()).collect();
        let twice: Vec<Game> = positions.iter().chain(&positions).cloned().collect();
        let mut settled = 0;
        let solutions = solve_all(&twice, 2, |n| settled += n).unwrap();
        assert_eq!(settled, twice.len());
        for (game, solution) in twice.iter().zip(&solutions) {
            let alone = solve_all(std::slice::from_ref(game), 1, |_| {}).unwrap();
            assert_eq!((solution.score, &solution.move_scores), (alone[0].score, &alone[0].move_scores));
        }
        // The bands partition the moves: their counts add up to the whole, each move in its own band.
        let random_played = played_moves("random", 16);
        let solutions =
            solve_all(&random_played.iter().map(|(g, _)| g.clone()).collect::<Vec<_>>(), 2, |_| {}).unwrap();
        let whole = score_played(&random_played, &solutions);
        let bands = score_played_by_empties(&random_played, &solutions, 4);
        assert!(bands.len() >= 2, "{bands:?}");
        assert_eq!(bands.iter().map(|(_, r)| r.positions).sum::<usize>(), whole.positions);
        assert_eq!(bands.iter().map(|(_, r)| r.optimal).sum::<usize>(), whole.optimal);
        assert_eq!(bands.iter().map(|(_, r)| r.total_loss).sum::<i64>(), whole.total_loss);
        for (range, r) in &bands {
            assert_eq!(range.end() - range.start(), 3);
            let inside =
                random_played.iter().filter(|(g, _)| range.contains(&(16 - g.position().occupied().count()))).count();
            assert_eq!(r.positions, inside, "{range:?}");
        }
    }

    /// The fixed positions come from the games no trained player played, each once, the same for one seed; every
    /// player is asked for its move in each, the perfect player's all optimal.
    #[test]
    fn every_player_meets_the_same_positions_from_the_ladder_games() {
        use crate::arena::{opening, play, schedule, ArenaDir};
        let scratch = tempfile::tempdir().unwrap();
        let arena = ArenaDir::new(scratch.path());
        let rules = Rules::othello().with_size(4).unwrap();
        let perfect = "random+endgame16";
        // A "trained" player: any spec with a model (its games are left out, so it need not load here).
        let trained = "net:model=absent,sims=1";
        for p in &schedule(&crate::arena::specs(&["random", perfect]), None, 10).unwrap() {
            arena.store(&play(&rules, p, &opening(&rules, 5, p.pair, 1), 5, None).unwrap()).unwrap();
        }
        let mut rows = arena.read().unwrap();
        let at = |games: &[Game]| games.iter().map(|g| *g.position()).collect::<Vec<_>>();
        let ladder = ladder_positions(&rows, 16, 1000, 7).unwrap();
        let mut seen = std::collections::HashSet::new();
        assert!(ladder.len() > POSITIONS_PER_AGENT && ladder.iter().all(|g| seen.insert(*g.position())), "each once");
        // A game with a trained player adds no position; another seed reorders, a count cuts.
        let mut extra = rows[0].clone();
        (extra.key, extra.black) = ("trained".into(), trained.parse().unwrap());
        rows.push(extra);
        assert_eq!(at(&ladder_positions(&rows, 16, 1000, 7).unwrap()), at(&ladder));
        let other = at(&ladder_positions(&rows, 16, 1000, 8).unwrap());
        assert!(other != at(&ladder) && other.iter().all(|p| seen.contains(p)));
        assert_eq!(at(&ladder_positions(&rows, 16, 5, 7).unwrap()), at(&ladder)[..5]);
        let specs: Vec<AgentSpec> = ["random", perfect, "greedy"].iter().map(|s| s.parse().unwrap()).collect();
        let chosen: Vec<Vec<Move>> =
            choose_moves(&specs, &ladder, 2, 3, |_| {}).into_iter().map(Result::unwrap).collect();
        let solutions = solve_all(&ladder, 2, |_| {}).unwrap();
        let score = |moves: &[Move]| {
            let played: Vec<_> = ladder.iter().cloned().zip(moves.iter().copied()).collect();
            score_played(&played, &solutions)
        };
        let best = score(&chosen[1]);
        assert_eq!((best.positions, best.optimal, best.total_loss), (ladder.len(), ladder.len(), 0));
        assert!(score(&chosen[0]).optimal < ladder.len());
        // Each chunk of positions asked by one agent seeded with the seed plus the chunk's index, position after
        // position, whatever the threads.
        let by_chunks: Vec<Move> = ladder
            .chunks(POSITIONS_PER_AGENT)
            .enumerate()
            .flat_map(|(chunk, positions)| {
                let mut random = othello_players::RandomAgent::new(3 + chunk as u64);
                positions.iter().map(|g| random.select_move(g).unwrap()).collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(chosen[0], by_chunks);
        let asked = std::sync::atomic::AtomicUsize::new(0);
        let alone = choose_moves(&specs[..1], &ladder, 3, 3, |n| {
            asked.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(alone[0].as_ref().unwrap(), &by_chunks, "one player over three threads");
        assert_eq!(asked.into_inner(), ladder.len());
        assert!(
            choose_moves(&[trained.parse().unwrap()], &ladder, 1, 3, |_| {})[0].is_err(),
            "a model that is not there"
        );
    }

    #[test]
    fn the_solver_separates_perfect_greedy_and_random_play() {
        let positions = wthor_positions(&wthor_games(), 12, 150, 1);
        assert_eq!(positions.len(), 150);
        assert!(positions.iter().all(|g| 64 - g.position().occupied().count() == 12));
        let solutions = solve_all(&positions, 2, |_| {}).unwrap();
        let perfect = score_agent(&mut EndgameAgent::new(RandomAgent::new(1), 12, 1), &positions, &solutions).unwrap();
        assert_eq!((perfect.optimal, perfect.result_kept, perfect.total_loss), (150, 150, 0), "the solver's moves");
        let random = score_agent(&mut RandomAgent::new(2), &positions, &solutions).unwrap();
        let greedy = score_agent(&mut GreedyAgent::new(3), &positions, &solutions).unwrap();
        // Every position offers at least two moves; random play misses the best one often and loses discs.
        assert!(random.optimal_rate() < 0.8 && random.mean_loss() > 2.0, "{random:?}");
        assert!(greedy.optimal < 150, "{greedy:?}");
        // Keeping the result is weaker than the best score, and both are counted from the solver's values.
        for r in [&random, &greedy] {
            assert!(r.optimal <= r.result_kept && r.result_kept <= r.positions, "{r:?}");
        }
        let mut greedy_again = GreedyAgent::new(3);
        let kept = positions
            .iter()
            .zip(&solutions)
            .filter(|(g, s)| {
                let mv = greedy_again.select_move(g).unwrap();
                s.move_scores.iter().any(|&(m, v)| m == mv && v.signum() == s.score.signum())
            })
            .count();
        assert_eq!(greedy.result_kept, kept);
        // The intervals hold their estimates, and the perfect player's loss is exactly zero.
        let (low, high) = random.optimal_interval();
        assert!(low < random.optimal_rate() && random.optimal_rate() < high && high - low < 0.2, "{low} {high}");
        assert_eq!(perfect.mean_loss_half_width(), 0.0);
        assert!(random.mean_loss_half_width() > 0.0 && random.mean_loss_half_width() < random.mean_loss());
    }
}
