//! The exact endgame solver: the minimax value (final disc difference under the rules' scoring) and every best
//! move of a position, by null-window alpha-beta (PVS) on the bitboards.
//!
//! On 8x8 boards the root runs a selective pass first (probcut on the pattern evaluation, [`crate::eval`]), in a
//! window around an 8-ply estimate: it leaves best moves in the table and an estimate for the exact pass, which
//! starts in a narrow window around it and widens it only when the score falls outside (aspiration).
//! Deep nodes (more than [`SHALLOW`] empties): a transposition table, a stability cut-off, and moves ordered by the
//! opponent's resulting mobility (fastest first), or from 14 empties up by the pattern evaluation (its state
//! updated move by move; searched 2 plies from 18 empties, 4 from 22) plus the opponent's mobility (on boards
//! other than 8x8 and for the fewest-discs objective, where the patterns do not apply, a 4-ply search on a cheap
//! evaluation of mobility and corners).
//! Shallow nodes: no table; the stability cut-off from 3 empties; the legal moves as one bitboard, tried by quadrant
//! parity (C- and X-squares last); dedicated two- and last-empty functions, the last scored by a table of flip
//! counts (`last_flip.rs`).
//! On more than one thread the threads share the table and split nodes ([`split`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use thiserror::Error;

use crate::eval::{CompactWeights, PatternState, SCALE};
use crate::kernel::{Kernel, KernelKind};
use crate::last_flip::last_flip_count;
use crate::position::{hash_discs, Position};
use crate::rules::{Objective, Rules, Scoring, Start, Status};
use crate::square::{Move, Square};
use crate::stability::stable_discs;
use crate::transposition::{Entries, Entry, Table};

mod split;
use split::{Pool, Split};

/// Positions with at most this many empties are searched without the table and without ordering keys (8 until
/// the table moved to huge pages; 7 until the ETC moved after the ordering: from 7 empties the table now pays on
/// an Intel Xeon, FFO #40-#53 0.96-0.98x with a fifth fewer nodes, and was level on a Zen 3).
pub const SHALLOW: u32 = 6;
/// Nodes with more empties than this try the table on every child before searching (ETC). Below, the cut-offs
/// it finds save less than its cache misses cost (from 13 rather than 11: FFO #40-#53 0.98x the time).
const ETC_EMPTIES: u8 = 12;
/// Nodes with at least this many empties order their moves by a [`PROBE_DEPTH`]-ply search on the pattern
/// evaluation instead of the one-ply fastest-first key, and from [`EVAL_ORDER_EMPTIES`] by the evaluation itself
/// (0 plies); both plus [`ORDER_MOBILITY_WEIGHT`] per opponent reply (tuned in time on FFO #40-#53: with the
/// unrolled evaluation 14 empties beats 16, 13 and 15 do not; probes from 17 paid once the evaluation was
/// updated move by move; from 18 with the smaller table on the Xeon VM, 16, 17 and 19 not; docs/BENCHMARKS.md).
const PROBE_EMPTIES: u8 = 18;
const PROBE_DEPTH: u32 = 2;
const EVAL_ORDER_EMPTIES: u8 = 14;
/// From this many empties the ordering probes go [`DEEP_PROBE_DEPTH`] plies deep: a subtree there is large enough
/// to repay them (FFO #56 and #58: 17% fewer nodes; 22 and 24 empties measured alike, 6 plies from 27 worse).
const DEEP_PROBE_EMPTIES: u8 = 22;
const DEEP_PROBE_DEPTH: u32 = 4;
/// An opponent reply (corners count twice) weighs two discs against the evaluation when ordering, as in Edax's
/// ordering (32, 64, 96 and 160 measured: 64 took the fewest nodes).
const ORDER_MOBILITY_WEIGHT: i32 = 2 * SCALE;
/// With the cheap evaluation (other boards and objectives) the probes go deeper (tuned on FFO #40-#47 before the
/// patterns existed).
const CHEAP_PROBE_DEPTH: u32 = 4;
/// The root's first pass searches a window of +-ROOT_WINDOW discs around a ROOT_PROBE_DEPTH-ply probe's estimate,
/// each later pass one around the previous pass's score (+-1, +-2, +-5 measured worse on FFO #40-#47).
const ROOT_PROBE_DEPTH: u32 = 8;
const ROOT_WINDOW: i32 = 3;
/// Probcut confidence of each selective pass, as a multiple (in hundredths) of the probe's error spread: Edax's
/// 73%, 87%, 95%, 98% and 99% levels. [`EXACT`] is the level of proven values.
const PROBCUT_T: [i32; 5] = [110, 150, 200, 260, 330];
/// The same levels in percent, as reported in [`Progress`].
const PROBCUT_CONFIDENCE: [u8; 5] = [73, 87, 95, 98, 99];
const EXACT: u8 = PROBCUT_T.len() as u8;
/// The selective passes the exact root search runs first, to fill the table with best moves and narrow the window.
const ROOT_LEVELS: [u8; 1] = [0];
/// Selective passes try probcut at nodes with at least this many empties; below, every pass searches exactly
/// (so their table entries serve the exact pass).
const PROBCUT_EMPTIES: u8 = 10;
/// The shallow search tries the stability cut-off only when it would cut even with this many of the opponent's
/// discs unstable: with less to spare it cut in 0-17% of tries (FFO #45), each a stability search.
const SHALLOW_UNSTABLE: i32 = 6;
/// Windows within this many discs of a wipeout: the side going for it orders its moves fastest-first even where
/// probes would be used; the side escaping it probes, on the pattern evaluation at most [`ESCAPE_PROBE_DEPTH`]
/// plies.
const EXTREME: i32 = 4;
/// Proving that a move does *not* wipe out (FFO #59 with every best move) is won at the escaping side's nodes, by
/// finding its surviving move first: probes there of at most 3 plies took 271 s, where fastest-first took 880 s,
/// caps of 1, 2 and 4 plies (the usual depth) 441, 321 and 497 s, and the evaluation alone more than fastest-first
/// (all before the corner cut).
const ESCAPE_PROBE_DEPTH: u32 = 3;
/// With more than one thread, nodes with at least this many empties share out their moves after the first among
/// the idle threads (young brothers wait).
const SPLIT_EMPTIES: u8 = 12;
/// The transposition table's default size: 16 MB, 2^20 entries of 16 bytes in buckets of two. Larger tables keep
/// more but miss the caches more often: FFO #40-#59 on one thread took 3% longer with 64 MB, and #45-#46 longer
/// still with 256 MB (docs/BENCHMARKS.md).
pub const TABLE_BYTES: usize = 16 << 20;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SolveError {
    #[error(
        "not solved within the limit ({nodes} nodes searched in {:.1} s); {empties} empties",
        elapsed.as_secs_f64()
    )]
    Limit { nodes: u64, elapsed: Duration, empties: u32 },
    #[error("the solver does not play the centre-filling opening of traditional Reversi")]
    Opening,
    #[error("{0}")]
    Position(#[from] crate::ParseError),
}

/// What to search for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The exact score and every move that reaches it.
    Exact,
    /// The exact score and one move that reaches it, without proving which other moves do too: what Edax's
    /// solve reports, and much faster when the others are hard to refute (FFO #59: a wipeout, where showing that
    /// a move does *not* wipe out means searching a 33-empty tree, minutes against a fraction of a second).
    BestMove,
    /// The exact score of every legal move.
    AllMoves,
    /// Win, draw or loss only (a window of (-1, 1)): faster; `score` is then -1, 0 or 1.
    WinDrawLoss,
}

/// Budget for one solve; `None` means unlimited.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Nodes of all the solve's threads (a helper's counted as it finishes its share of a split point).
    pub nodes: Option<u64>,
    pub time: Option<Duration>,
}

/// The result of a solve, from the side to move's point of view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Solution {
    /// Final disc difference (mover minus opponent) under perfect play; -1/0/1 in `WinDrawLoss` mode.
    pub score: i32,
    /// Every move reaching `score` (`Move::Pass` when the mover must pass; empty when the game is over).
    pub best_moves: Vec<Move>,
    /// In `AllMoves` mode, every legal move with its exact score, best first.
    pub move_scores: Vec<(Move, i32)>,
    /// With [`Solver::set_principal_variation`]: a line of perfect play for both sides from the position to the
    /// end of the game, starting with the first of `best_moves` (cut short where a limit stopped it).
    pub principal_variation: Vec<Move>,
    pub nodes: u64,
    /// Of `nodes`, those searched by the helper threads (0 on one thread).
    pub helper_nodes: u64,
    pub elapsed: Duration,
}

/// How far a solve has got: handed to the hook set by [`Solver::on_progress`] at each root pass or move and every
/// 65,536 nodes, so that a long solve can show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub nodes: u64,
    pub elapsed: Duration,
    pub stage: Stage,
}

type ProgressHook = Box<dyn FnMut(&Progress) + Send>;

/// The part of a solve under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A search of the root moves within `window` (exclusive bounds on the score): a selective pass, with its
    /// probcut confidence in percent, or the exact one (`None`).
    Pass { confidence: Option<u8>, window: (i32, i32) },
    /// After the score: `done` of the `of` root moves tested (which reach it, or their exact scores).
    Moves { done: usize, of: usize },
}

const NO_MOVE: u8 = 64;

/// A reusable solver: keeps its transposition table between positions.
pub struct Solver {
    kernel: KernelKind,
    table: Table,
    eval: &'static CompactWeights,
    threads: usize,
    principal_variation: bool,
    fresh_table: bool,
    /// Whether a solve has written to the table since it was made.
    table_used: bool,
    progress: Option<ProgressHook>,
}

/// One solve under way: its rules' settings, counters and limits, and the table it reads and writes.
struct Search<'a> {
    kernel: KernelKind,
    table: Entries<'a>,
    eval: &'static CompactWeights,
    mask: u64,
    passing: bool,
    scoring: Scoring,
    objective: Objective,
    use_stability: bool,
    /// The pattern evaluation is for 8x8 boards and the most-discs objective.
    use_patterns: bool,
    salt: u64,
    /// The current pass's selectivity: an index into [`PROBCUT_T`], or [`EXACT`].
    level: u8,
    nodes: u64,
    next_check: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
    progress: Option<&'a mut ProgressHook>,
    started: Instant,
    stage: Stage,
    /// The other threads of the solve, when it has more than one.
    pool: Option<&'a Pool>,
    /// The innermost split point whose moves this thread is searching.
    split: Option<Arc<Split>>,
    /// A helper thread, whose nodes go to the pool's count.
    helper: bool,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    pub fn new() -> Solver {
        Solver::with_kernel(KernelKind::best())
    }

    pub fn with_kernel(kernel: KernelKind) -> Solver {
        let table = Table::with_bytes(TABLE_BYTES);
        Solver {
            kernel,
            table,
            eval: CompactWeights::builtin(),
            threads: 1,
            principal_variation: false,
            fresh_table: false,
            table_used: false,
            progress: None,
        }
    }

    /// Gives the solver a new, empty transposition table of about `bytes` (rounded down to a power of two entries
    /// of 16 bytes, at least four).
    pub fn set_table_bytes(&mut self, bytes: usize) {
        self.table = Table::with_bytes(bytes);
        self.table_used = false;
    }

    /// Searches each position on `threads` threads sharing the table (1, the default: the per-thread figures).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Also finds a line of perfect play (`Solution::principal_variation`) after each exact solve. Not counted in
    /// the solve's nodes and time; it obeys the same limits, a line cut short by them ending where they struck.
    pub fn set_principal_variation(&mut self, on: bool) {
        self.principal_variation = on;
    }

    /// Calls `hook` as the solves go: at each root pass or move and every 65,536 nodes.
    pub fn on_progress(&mut self, hook: impl FnMut(&Progress) + Send + 'static) {
        self.progress = Some(Box::new(hook));
    }

    /// Has the system back the whole table with memory now rather than page by page during the first solves (the
    /// kernel zeroing a 64 MB table took about 0.25 s of the first FFO problem's time on the development VM), so
    /// that the times a benchmark reports are the search's alone, as Edax's are.
    pub fn touch_table(&mut self) {
        self.table.touch();
    }

    /// Empties the table before each solve (not counted in its time), so that a solve's nodes and time do not
    /// depend on the positions solved before it, as in Edax's problem-file runs (which clear its tables per
    /// problem). Off by default: a solver following one game gains from what the previous move's solve left.
    pub fn set_fresh_table(&mut self, on: bool) {
        self.fresh_table = on;
    }

    /// Solves `pos` under `rules`.
    pub fn solve(&mut self, rules: &Rules, pos: &Position, mode: Mode, limits: Limits) -> Result<Solution, SolveError> {
        rules.check_position(pos)?;
        if rules.start == Start::EmptyCentre && rules.in_opening(pos) {
            return Err(SolveError::Opening);
        }
        if self.fresh_table && self.table_used {
            self.table.clear();
        }
        self.table_used = true;
        let pool = Pool::default();
        let (threads, line) = (self.threads, self.principal_variation);
        let mut search = self.start(rules, limits);
        if threads == 1 {
            return search.solve_with_line(rules, pos, mode, line);
        }
        std::thread::scope(|scope| {
            for _ in 1..threads {
                let helper = search.helper(&pool);
                scope.spawn(move || helper.serve());
            }
            search.pool = Some(&pool);
            let result = search.solve_with_line(rules, pos, mode, line);
            pool.close();
            result
        })
    }

    /// A search under `rules` within `limits`, starting now.
    fn start(&mut self, rules: &Rules, limits: Limits) -> Search<'_> {
        let started = Instant::now();
        let mask = rules.mask();
        // Table entries stay valid across solves under the same rules: the rules are mixed into every key.
        let variant = (rules.passing as u64) | (rules.scoring as u64) << 1 | (rules.objective as u64) << 2;
        let use_stability = rules.size == 8 && rules.objective == Objective::MostDiscs;
        Search {
            kernel: self.kernel,
            table: self.table.entries(),
            eval: self.eval,
            mask,
            passing: rules.passing,
            scoring: rules.scoring,
            objective: rules.objective,
            use_stability,
            use_patterns: use_stability,
            salt: hash_discs(mask, variant),
            level: EXACT,
            nodes: 0,
            next_check: CHECK_EVERY,
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            deadline: limits.time.map(|t| started + t),
            aborted: false,
            progress: self.progress.as_mut(),
            started,
            stage: Stage::Moves { done: 0, of: 0 },
            pool: None,
            split: None,
            helper: false,
        }
    }
}

impl Search<'_> {
    fn solve(&mut self, rules: &Rules, pos: &Position, mode: Mode) -> Result<Solution, SolveError> {
        let started = self.started;
        let (p, o) = (pos.player.0, pos.opponent.0);
        let mut solution = Solution::default();
        match rules.status(pos) {
            Status::Over => {
                let score = self.final_score(p, o);
                solution.score = if mode == Mode::WinDrawLoss { score.signum() } else { score };
            }
            Status::MustPass => {
                let inner = self.solve(rules, &pos.pass(), mode)?;
                let move_scores = if mode == Mode::AllMoves { vec![(Move::Pass, -inner.score)] } else { vec![] };
                return Ok(Solution {
                    score: -inner.score,
                    best_moves: vec![Move::Pass],
                    move_scores,
                    elapsed: started.elapsed(),
                    ..inner
                });
            }
            Status::Moves(moves) => {
                let limit = self.max_score();
                let mut children = self.children(p, o, moves);
                // Fewest opponent replies first.
                children.sort_by_key(|&(_, cp, co)| self.moves(cp, co).count_ones());
                match mode {
                    Mode::WinDrawLoss => {
                        let v = self.root_window(&mut children, -1, 1);
                        solution.score = v.signum();
                    }
                    Mode::BestMove => {
                        solution.score = self.root_exact(&mut children, p, o);
                        // The last pass moved the move reaching the score to the front.
                        solution.best_moves = vec![Move::Play(children[0].0)];
                    }
                    Mode::Exact => {
                        let best = self.root_exact(&mut children, p, o);
                        solution.score = best;
                        // A move is best when a null window around `best` shows it reaches `best` (cheaper in
                        // nodes, measured on FFO #40-#44, than testing each move against the best so far).
                        let mut best_squares = vec![];
                        for (done, &(sq, cp, co)) in children.iter().enumerate() {
                            self.report(Stage::Moves { done, of: children.len() });
                            if self.aborted {
                                break;
                            }
                            if -self.search(cp, co, -best, -best + 1) >= best {
                                best_squares.push(sq);
                            }
                        }
                        best_squares.sort();
                        solution.best_moves = best_squares.into_iter().map(Move::Play).collect();
                    }
                    Mode::AllMoves => {
                        let mut scores: Vec<(Square, i32)> = children
                            .iter()
                            .enumerate()
                            .map(|(done, &(sq, cp, co))| {
                                self.report(Stage::Moves { done, of: children.len() });
                                (sq, -self.search(cp, co, -limit - 1, limit + 1))
                            })
                            .collect();
                        scores.sort_by_key(|&(sq, v)| (-v, sq));
                        solution.move_scores = scores.into_iter().map(|(sq, v)| (Move::Play(sq), v)).collect();
                        solution.score = solution.move_scores.first().map_or(0, |m| m.1);
                        solution.best_moves =
                            solution.move_scores.iter().filter(|m| m.1 == solution.score).map(|m| m.0).collect();
                    }
                }
            }
        }
        solution.nodes = self.total_nodes();
        solution.helper_nodes = solution.nodes - self.nodes;
        solution.elapsed = started.elapsed();
        if self.aborted {
            return Err(SolveError::Limit {
                nodes: solution.nodes,
                elapsed: solution.elapsed,
                empties: (self.mask & !(p | o)).count_ones(),
            });
        }
        Ok(solution)
    }

    /// [`Search::solve`], then, when `principal_variation` is asked for and the score is exact, the line.
    fn solve_with_line(
        &mut self,
        rules: &Rules,
        pos: &Position,
        mode: Mode,
        line: bool,
    ) -> Result<Solution, SolveError> {
        let mut solution = self.solve(rules, pos, mode)?;
        if let (true, false, Some(&first)) = (line, mode == Mode::WinDrawLoss, solution.best_moves.first()) {
            solution.principal_variation = self.principal_variation(rules, pos, first, solution.score);
        }
        Ok(solution)
    }

    /// A line of perfect play from `pos`, worth `score` to its mover, starting with `first` (a move reaching it):
    /// at each position after it, the first move (the table's best, then fewest replies first) that a null window
    /// shows to keep the score. Ends with the game, or where the limits stop the search.
    fn principal_variation(&mut self, rules: &Rules, pos: &Position, first: Move, score: i32) -> Vec<Move> {
        let mut line = vec![first];
        let Ok(mut pos) = rules.play(pos, first) else { return line };
        let mut score = -score;
        loop {
            let (p, o) = (pos.player.0, pos.opponent.0);
            let keeping = match rules.status(&pos) {
                Status::Over => break,
                Status::MustPass => Move::Pass,
                Status::Moves(moves) => {
                    let key = hash_discs(p, o) ^ self.salt;
                    let entry = self.table.find(self.table.bucket(key), key);
                    let hinted = if entry.key == key { entry.best } else { NO_MOVE };
                    let mut children = self.children(p, o, moves);
                    children.sort_by_key(|&(sq, cp, co)| (sq.index() as u8 != hinted, self.moves(cp, co).count_ones()));
                    let mut keeping = None;
                    for (sq, cp, co) in children {
                        let keeps = -self.search(cp, co, -score, -score + 1) >= score;
                        if self.aborted {
                            return line;
                        }
                        if keeps {
                            keeping = Some(Move::Play(sq));
                            break;
                        }
                    }
                    // Some child keeps the score, since the position is worth it; only a limit leaves none.
                    let Some(keeping) = keeping else { return line };
                    keeping
                }
            };
            line.push(keeping);
            let Ok(next) = rules.play(&pos, keeping) else { return line };
            pos = next;
            score = -score;
        }
        line
    }

    /// The best score over the root moves within (alpha, beta) (PVS); the best move moves to the front, to be
    /// searched first by the next pass.
    fn root_window(&mut self, children: &mut [(Square, u64, u64)], mut alpha: i32, beta: i32) -> i32 {
        let confidence = PROBCUT_CONFIDENCE.get(self.level as usize).copied();
        self.report(Stage::Pass { confidence, window: (alpha, beta) });
        let mut best = -i32::MAX;
        let mut best_index = 0;
        for (i, &(_, cp, co)) in children.iter().enumerate() {
            if i == 1 && self.can_split() {
                let moves = children[1..].iter().map(|&(sq, cp, co)| (sq.index() as u8, cp, co)).collect();
                let best_sq = children[best_index].0.index() as u8;
                let sq;
                (best, sq) = self.share_out(moves, alpha, beta, best, best_sq);
                best_index = children.iter().position(|c| c.0.index() as u8 == sq).unwrap_or(0);
                break;
            }
            let v = if i == 0 {
                -self.search(cp, co, -beta, -alpha)
            } else {
                let v = -self.search(cp, co, -alpha - 1, -alpha);
                if v > alpha && v < beta {
                    -self.search(cp, co, -beta, -v)
                } else {
                    v
                }
            };
            if v > best {
                (best, best_index) = (v, i);
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        children[..=best_index].rotate_right(1);
        best
    }

    /// The exact root score. On 8x8 boards selective passes (probcut on the pattern evaluation) come first, each
    /// searched in a window around the previous one's score; they leave best moves in the table for the exact
    /// pass, whose window is moved until the score falls inside (aspiration).
    fn root_exact(&mut self, children: &mut [(Square, u64, u64)], p: u64, o: u64) -> i32 {
        if !self.use_patterns {
            let limit = self.max_score() + 1;
            return self.root_window(children, -limit, limit);
        }
        let mut guess = self.estimate(p, o, ROOT_PROBE_DEPTH) / SCALE;
        for level in ROOT_LEVELS {
            self.level = level;
            guess = self.aspiration(children, guess);
            if self.aborted {
                return guess;
            }
        }
        self.level = EXACT;
        self.aspiration(children, guess)
    }

    /// The score in a window of +-ROOT_WINDOW around `guess`, moved until the score falls inside.
    fn aspiration(&mut self, children: &mut [(Square, u64, u64)], guess: i32) -> i32 {
        let full = (-self.max_score() - 1, self.max_score() + 1);
        let (mut lo, mut hi) = ((guess - ROOT_WINDOW).max(full.0), (guess + ROOT_WINDOW).min(full.1));
        let (mut failed_low, mut failed_high) = (false, false);
        loop {
            let v = self.root_window(children, lo, hi);
            if self.aborted {
                return v;
            }
            let (low, high) = (v <= lo && lo > full.0, v >= hi && hi < full.1);
            // Probcut's answers depend on the window, so a selective pass can fail low, then high, then low...
            // for ever; it only estimates, so it stops at the first reversal. (Exact bounds never contradict.)
            if self.level < EXACT && (low && failed_high || high && failed_low) {
                return v;
            }
            if low {
                failed_low = true;
                (lo, hi) = ((v - 2 * ROOT_WINDOW).max(full.0), v + 1);
            } else if high {
                failed_high = true;
                (lo, hi) = (v - 1, (v + 2 * ROOT_WINDOW).min(full.1));
            } else {
                return v;
            }
        }
    }

    fn max_score(&self) -> i32 {
        self.mask.count_ones() as i32
    }

    /// The score of a finished game from the point of view of the owner of `p`.
    #[inline(always)]
    fn final_score(&self, p: u64, o: u64) -> i32 {
        let empties = (self.mask & !(p | o)).count_ones() as i32;
        self.score_of_counts(p.count_ones() as i32, o.count_ones() as i32, empties)
    }

    /// The score of a finished game with `pc` discs for the side to score, `oc` for its opponent.
    #[inline(always)]
    fn score_of_counts(&self, pc: i32, oc: i32, empties: i32) -> i32 {
        let diff = match self.objective {
            Objective::MostDiscs => pc - oc,
            Objective::FewestDiscs => oc - pc,
        };
        match self.scoring {
            Scoring::DiscCount => diff,
            Scoring::EmptiesToWinner => diff + diff.signum() * empties,
        }
    }

    #[cold]
    fn check_limits(&mut self) {
        if self.helper {
            // The first thread checks the limits on every thread's nodes: hand ours over now, not only when our
            // share of the split point is done (a share can run for minutes).
            self.hand_over_nodes();
        }
        self.next_check = self.nodes + CHECK_EVERY;
        if self.total_nodes() >= self.node_limit || self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
        self.report(self.stage);
    }

    /// Tells the progress hook, if any, that the solve is at `stage`.
    fn report(&mut self, stage: Stage) {
        self.stage = stage;
        let nodes = self.total_nodes();
        if let Some(hook) = &mut self.progress {
            hook(&Progress { nodes, elapsed: self.started.elapsed(), stage });
        }
    }

    /// The stability cut-off: `p` scores at most 64 - 2 x the opponent's stable discs, so a node whose bound is at
    /// most `alpha` fails low at once. Only computed when it would cut even with `unstable` of the opponent's discs
    /// unstable.
    #[inline(always)]
    fn stability_cut(&self, p: u64, o: u64, alpha: i32, unstable: i32) -> Option<i32> {
        if !self.use_stability || alpha < 64 - 2 * (o.count_ones() as i32 - unstable) {
            return None;
        }
        let bound = 64 - 2 * stable_discs(o, p).count_ones() as i32;
        (bound <= alpha).then_some(bound)
    }

    /// Enhanced transposition cut-off: a child (by its table key) of a node with `n_empties` already known to be bad
    /// enough for the opponent.
    #[inline(always)]
    fn etc_cut(&self, child_keys: impl Iterator<Item = u64>, n_empties: u8, beta: i32) -> Option<i32> {
        for key in child_keys {
            let e = self.table.find(self.table.bucket(key), key);
            if e.key == key && e.empties == n_empties - 1 && e.level >= self.level && -(e.upper as i32) >= beta {
                return Some(-(e.upper as i32));
            }
        }
        None
    }

    /// Each move of `moves` with the child position it leads to (the child's player, its opponent).
    fn children(&self, p: u64, o: u64, moves: crate::Bitboard) -> Vec<(Square, u64, u64)> {
        moves
            .map(|sq| {
                let f = self.flips(p, o, sq.index() as u32);
                (sq, o ^ f, p | f | sq.bit())
            })
            .collect()
    }

    fn moves(&self, p: u64, o: u64) -> u64 {
        crate::kernel::moves_with(self.kernel, p, o) & self.mask
    }
    fn flips(&self, p: u64, o: u64, sq: u32) -> u64 {
        crate::kernel::flips_with(self.kernel, p, o, sq)
    }

    /// The probe's value of (p, o) for `p`, `depth` plies deep.
    fn estimate(&mut self, p: u64, o: u64, depth: u32) -> i32 {
        match self.kernel {
            // SAFETY: as in `search`.
            #[cfg(target_arch = "x86_64")]
            KernelKind::Avx512 if self.kernel.is_available() => unsafe {
                avx512::probe(self, p, o, depth, -PROBE_INF, PROBE_INF)
            },
            #[cfg(target_arch = "x86_64")]
            KernelKind::Avx2 if self.kernel.is_available() => unsafe {
                avx2::probe(self, p, o, depth, -PROBE_INF, PROBE_INF)
            },
            _ => unsafe { portable::probe(self, p, o, depth, -PROBE_INF, PROBE_INF) },
        }
    }

    /// Searches (p, o) within (alpha, beta) with the solver's kernel. Fail-soft.
    fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> i32 {
        match self.kernel {
            // SAFETY: the kernel was available when the solver was made (KernelKind::best / is_available).
            #[cfg(target_arch = "x86_64")]
            KernelKind::Avx512 if self.kernel.is_available() => unsafe { avx512::search(self, p, o, alpha, beta) },
            #[cfg(target_arch = "x86_64")]
            KernelKind::Avx2 if self.kernel.is_available() => unsafe { avx2::search(self, p, o, alpha, beta) },
            _ => unsafe { portable::search(self, p, o, alpha, beta) },
        }
    }
}

const CHECK_EVERY: u64 = 1 << 16;
const PROBE_INF: i32 = 1 << 20;
const QUADRANTS: [u64; 4] =
    [0x0000_0000_0f0f_0f0f, 0x0000_0000_f0f0_f0f0, 0x0f0f_0f0f_0000_0000, 0xf0f0_f0f0_0000_0000];
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The X- and C-squares (next to a corner), which the last empties try last within each parity group.
const C_AND_X: u64 = 0x42c3_0000_0000_c342;

/// Ordering value of each square (corners best, X-squares worst), as in Edax.
#[rustfmt::skip]
const SQUARE_VALUE: [u8; 64] = [
    18,  4, 16, 12, 12, 16,  4, 18,
     4,  2,  6,  8,  8,  6,  2,  4,
    16,  6, 14, 10, 10, 14,  6, 16,
    12,  8, 10,  0,  0, 10,  8, 12,
    12,  8, 10,  0,  0, 10,  8, 12,
    16,  6, 14, 10, 10, 14,  6, 16,
     4,  2,  6,  8,  8,  6,  2,  4,
    18,  4, 16, 12, 12, 16,  4, 18,
];

/// Probcut at a node with `empties` empties in a pass of selectivity `level`: the probe depth and the margin in the
/// evaluation's units. The spreads (exact score minus probe, in hundredths of a disc) were measured by
/// `cargo run --release -p othello-core --example probcut_calibration` (docs/BENCHMARKS.md); at even depths the
/// probe's mean error is within a disc of zero, so no bias is corrected.
#[inline(always)]
fn probcut_margin(empties: u8, level: u8) -> (u32, i32) {
    let (depth, sigma) = if empties >= 20 { (4, 750) } else { (2, 900) };
    (depth, PROBCUT_T[level as usize] * sigma * SCALE / 10_000)
}

/// The number of `moves`, corners counting twice.
#[inline(always)]
fn weighted_mobility(moves: u64) -> i32 {
    (moves.count_ones() + (moves & CORNERS).count_ones()) as i32
}

/// Discs of `d` in a corner or next to an own corner along an edge: cheap, certainly stable.
#[inline(always)]
fn corner_stability(d: u64) -> u32 {
    let stable = ((0x0100_0000_0000_0001 & d) << 1
        | (0x8000_0000_0000_0080 & d) >> 1
        | (0x0000_0000_0000_0081 & d) << 8
        | (0x8100_0000_0000_0000 & d) >> 8
        | CORNERS)
        & d;
    stable.count_ones()
}

/// The squares next to a square of `d`.
#[inline(always)]
const fn around(d: u64) -> u64 {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    (d << 1 & NOT_A)
        | (d >> 1 & NOT_H)
        | d << 8
        | d >> 8
        | (d << 9 & NOT_A)
        | (d >> 9 & NOT_H)
        | (d << 7 & NOT_H)
        | (d >> 7 & NOT_A)
}

/// Empty squares next to a disc of `d`: where the opponent of `d` may later find moves.
#[inline(always)]
fn potential_mobility(d: u64, empties: u64) -> u32 {
    (around(d) & empties).count_ones()
}

/// The squares of quadrants holding an odd number of empties: playing there first is the parity heuristic.
#[inline(always)]
fn odd_quadrants(empties: u64) -> u64 {
    QUADRANTS.iter().fold(0, |m, &q| if (empties & q).count_ones() & 1 == 1 { m | q } else { m })
}

/// The search, compiled once per kernel so that the kernel inlines (see `kernel_entry!` for the same idea).
macro_rules! search_with_kernel {
    ($module:ident, $kernel:ty $(, $features:literal)?) => {
        mod $module {
            use super::*;
            type K = $kernel;

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn search(s: &mut Search, p: u64, o: u64, mut alpha: i32, mut beta: i32) -> i32 {
                let empties = s.mask & !(p | o);
                if empties.count_ones() <= SHALLOW {
                    return shallow(s, p, o, alpha, beta, empties);
                }
                s.nodes += 1;
                if s.nodes >= s.next_check {
                    s.check_limits();
                }
                if s.aborted || s.halted() {
                    return 0;
                }
                let moves = K::moves(p, o) & s.mask;
                if moves == 0 {
                    if !s.passing || K::moves(o, p) & s.mask == 0 {
                        return s.final_score(p, o);
                    }
                    return -search(s, o, p, -beta, -alpha);
                }
                if let Some(bound) = s.stability_cut(p, o, alpha, 0) {
                    return bound;
                }
                let key = hash_discs(p, o) ^ s.salt;
                let bucket = s.table.bucket(key);
                let n_empties = empties.count_ones() as u8;
                let mut tt_move = NO_MOVE;
                let entry = s.table.find(bucket, key);
                if entry.key == key && entry.empties == n_empties {
                    tt_move = entry.best;
                    if entry.level >= s.level {
                        let (lower, upper) = (entry.lower as i32, entry.upper as i32);
                        if lower >= beta || upper <= alpha || lower == upper {
                            return if lower >= beta { lower } else { upper };
                        }
                        alpha = alpha.max(lower);
                        beta = beta.min(upper);
                    }
                }
                // Selective passes: when a shallow probe lands far enough outside the window, take it as the
                // answer (probcut).
                if s.level < EXACT && n_empties >= PROBCUT_EMPTIES {
                    let (depth, margin) = probcut_margin(n_empties, s.level);
                    let (lo, hi) = (alpha * SCALE - margin, beta * SCALE + margin);
                    let v = probe(s, p, o, depth, lo, hi);
                    if v >= hi {
                        return beta;
                    }
                    if v <= lo {
                        return alpha;
                    }
                }
                let alpha_in = alpha;

                // Order (after the table move): fewest replies for the opponent (corners count double), then our
                // corner-anchored discs, the opponent's potential mobility, parity, and a square table: the
                // weights of Edax's fast endgame ordering, applied as a key where smaller goes first.
                let odd = odd_quadrants(empties);
                // High up the tree the ordering is worth a small search of its own, except for a side going for a
                // wipeout, which finds it faster by the fewest replies first (FFO #59's exact pass: 1.3 M nodes,
                // was 16 M).
                let max = s.max_score();
                let order_empties = if s.use_patterns { EVAL_ORDER_EMPTIES } else { PROBE_EMPTIES };
                let probe_order = n_empties >= order_empties && alpha < max - EXTREME;
                let escaping = beta <= EXTREME - max;
                // A side escaping a wipeout that can take a corner keeps a disc for good: the opponent scores at
                // most max - 2 (FFO #59 with every best move: 0.35x the time). Tested after the table probe: before
                // it, the test cost 1% on searches that never reach such windows.
                if beta <= 2 - max && s.use_stability && moves & CORNERS != 0 {
                    return 2 - max;
                }
                // (square, child's player, child's opponent, ordering key, child's table key): at most one per
                // empty square; not zeroed first (a memset of the whole array was 1% of the time).
                let mut list = ArrayVec::<(u32, u64, u64, i32, u64), 64>::new();
                let mut rest = moves;
                while rest != 0 {
                    let sq = rest.trailing_zeros();
                    rest &= rest - 1;
                    let f = K::flips(p, o, sq);
                    let (cp, co) = (o ^ f, p | f | 1 << sq);
                    // The children that use the table ask for their buckets now, all before any is read, so that
                    // the memory latencies overlap (the table misses were a fifth of the time, by `perf`).
                    let child_key = if n_empties > SHALLOW as u8 + 1 {
                        let child_key = hash_discs(cp, co) ^ s.salt;
                        K::prefetch(s.table.slot(s.table.bucket(child_key)));
                        child_key
                    } else {
                        0
                    };
                    list.push((sq, cp, co, 0, child_key));
                }
                let list = list.as_mut_slice();
                // Enhanced transposition cut-off: where the ordering searches, before it (an ordering probe costs
                // more than waiting for the children's buckets)...
                if n_empties >= PROBE_EMPTIES {
                    if let Some(v) = s.etc_cut(list.iter().map(|m| m.4), n_empties, beta) {
                        return v;
                    }
                }
                let probe_depth = match n_empties {
                    DEEP_PROBE_EMPTIES.. => DEEP_PROBE_DEPTH,
                    PROBE_EMPTIES.. => PROBE_DEPTH,
                    _ => 0,
                };
                let probe_depth = if escaping { probe_depth.min(ESCAPE_PROBE_DEPTH) } else { probe_depth };
                // The children's evaluations and probes update this node's pattern state rather than read every
                // pattern anew.
                let state = (s.use_patterns && probe_order).then(|| PatternState::new(p, o));
                let base = state.filter(|_| probe_depth == 0).map(|state| state.children_base());
                for (sq, cp, co, key, _) in list.iter_mut() {
                    let (sq, cp, co) = (*sq, *cp, *co);
                    *key = if sq as u8 == tt_move {
                        i32::MIN
                    } else if let Some(state) = &state {
                        let replies = weighted_mobility(K::moves(cp, co) & s.mask);
                        let value = if let Some(base) = &base {
                            s.nodes += 1;
                            s.eval.evaluate_child(base, sq, cp ^ o, n_empties as u32 - 1)
                        } else {
                            let child = s.eval.play(state, sq, cp ^ o);
                            pattern_probe(s, cp, co, &child, probe_depth, -PROBE_INF, PROBE_INF)
                        };
                        value + ORDER_MOBILITY_WEIGHT * replies
                    } else if probe_order {
                        probe(s, cp, co, CHEAP_PROBE_DEPTH, -PROBE_INF, PROBE_INF)
                    } else {
                        let replies = K::moves(cp, co) & s.mask;
                        let child_empties = empties & !(1 << sq);
                        let mut key = weighted_mobility(replies) << 15;
                        key -= (corner_stability(co) as i32) << 11;
                        key += (potential_mobility(co, child_empties) as i32) << 5;
                        key -= (((odd >> sq) & 1) as i32) << 4;
                        key - SQUARE_VALUE[sq as usize] as i32
                    };
                }
                // ...elsewhere after it, which gives the prefetched buckets time to arrive (FFO #40-#53: 0.97x).
                if n_empties > ETC_EMPTIES && n_empties < PROBE_EMPTIES {
                    if let Some(v) = s.etc_cut(list.iter().map(|m| m.4), n_empties, beta) {
                        return v;
                    }
                }
                let mut best = -i32::MAX;
                let mut best_sq = NO_MOVE;
                for i in 0..list.len() {
                    if i == 1 && n_empties >= SPLIT_EMPTIES && s.can_split() {
                        let rest = &mut list[1..];
                        rest.sort_unstable_by_key(|m| m.3);
                        let moves = rest.iter().map(|&(sq, cp, co, ..)| (sq as u8, cp, co)).collect();
                        (best, best_sq) = s.share_out(moves, alpha, beta, best, best_sq);
                        break;
                    }
                    // The best remaining move, picked when needed rather than sorted up front: most nodes cut on
                    // their first move and never look at the rest (FFO #40-#53 0.94x against a sort).
                    let next = (i..list.len()).min_by_key(|&j| list[j].3).unwrap_or(i);
                    list.swap(i, next);
                    let (sq, cp, co, ..) = list[i];
                    let v = if i == 0 {
                        -search(s, cp, co, -beta, -alpha)
                    } else {
                        let v = -search(s, cp, co, -alpha - 1, -alpha);
                        if v > alpha && v < beta {
                            -search(s, cp, co, -beta, -v)
                        } else {
                            v
                        }
                    };
                    if v > best {
                        best = v;
                        best_sq = sq as u8;
                        if v > alpha {
                            alpha = v;
                            if alpha >= beta {
                                break;
                            }
                        }
                    }
                }
                if !s.aborted && !s.halted() {
                    let (lower, upper) = if best <= alpha_in {
                        (-127, best)
                    } else if best >= beta {
                        (best, 127)
                    } else {
                        (best, best)
                    };
                    // Replace our own entry, else the shallower of the two (deep results cost more to redo).
                    let (first, second) = (s.table.get(bucket), s.table.get(bucket + 1));
                    let slot = if first.key == key || second.key != key && first.empties <= second.empties {
                        bucket
                    } else {
                        bucket + 1
                    };
                    // Below the probcut nodes every pass searches exactly.
                    let level = if n_empties < PROBCUT_EMPTIES { EXACT } else { s.level };
                    s.table.set(slot, Entry::new(key, lower as i8, upper as i8, best_sq, n_empties, level));
                }
                best
            }

            /// Ordering value of a position for its side to move: alpha-beta to `depth` on the pattern evaluation (at
            /// least one ply: the ordering evaluates children from their parent's state itself) or the cheap one,
            /// finished games scored in the same units. Its nodes count in the solver's nodes.
            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn probe(s: &mut Search, p: u64, o: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
                if s.use_patterns {
                    debug_assert!(depth >= 1);
                    return pattern_probe(s, p, o, &PatternState::new(p, o), depth, alpha, beta);
                }
                s.nodes += 1;
                let moves = K::moves(p, o) & s.mask;
                if depth == 0 {
                    // Other boards and objectives: mobility, potential mobility and corners.
                    let empties = s.mask & !(p | o);
                    let replies = K::moves(o, p) & s.mask;
                    return 16 * (weighted_mobility(moves) - weighted_mobility(replies))
                        + 4 * (potential_mobility(o, empties) as i32 - potential_mobility(p, empties) as i32)
                        + 32 * (corner_stability(p) as i32 - corner_stability(o) as i32);
                }
                if moves == 0 {
                    if K::moves(o, p) & s.mask == 0 {
                        // In the cheap evaluation's units, far smaller than a disc.
                        return 1024 * s.final_score(p, o);
                    }
                    return -probe(s, o, p, depth, -beta, -alpha);
                }
                let mut best = -PROBE_INF;
                let mut rest = moves;
                while rest != 0 {
                    let sq = rest.trailing_zeros();
                    rest &= rest - 1;
                    let f = K::flips(p, o, sq);
                    let v = -probe(s, o ^ f, p | f | 1 << sq, depth - 1, -beta, -alpha);
                    if v > best {
                        best = v;
                        if v > alpha {
                            alpha = v;
                            if alpha >= beta {
                                break;
                            }
                        }
                    }
                }
                best
            }

            /// [`probe`] on the pattern evaluation, `depth` >= 1 plies, with the position's pattern state, which each
            /// move updates (the leaves are evaluated from their parent's).
            $(#[target_feature(enable = $features)])?
            unsafe fn pattern_probe(
                s: &mut Search,
                p: u64,
                o: u64,
                state: &PatternState,
                depth: u32,
                mut alpha: i32,
                beta: i32,
            ) -> i32 {
                s.nodes += 1;
                let moves = K::moves(p, o) & s.mask;
                if moves == 0 {
                    if K::moves(o, p) & s.mask == 0 {
                        return SCALE * s.final_score(p, o);
                    }
                    return -pattern_probe(s, o, p, &state.passed(), depth, -beta, -alpha);
                }
                let base = (depth == 1).then(|| state.children_base());
                let child_empties = (s.mask & !(p | o)).count_ones() - 1;
                let mut best = -PROBE_INF;
                let mut rest = moves;
                while rest != 0 {
                    let sq = rest.trailing_zeros();
                    rest &= rest - 1;
                    let f = K::flips(p, o, sq);
                    let v = if let Some(base) = &base {
                        s.nodes += 1;
                        -s.eval.evaluate_child(base, sq, f, child_empties)
                    } else {
                        let child = s.eval.play(state, sq, f);
                        -pattern_probe(s, o ^ f, p | f | 1 << sq, &child, depth - 1, -beta, -alpha)
                    };
                    if v > best {
                        best = v;
                        if v > alpha {
                            alpha = v;
                            if alpha >= beta {
                                break;
                            }
                        }
                    }
                }
                best
            }

            /// Few empties: the legal moves in one bitboard (cheaper than a mispredicted branch per empty square),
            /// tried odd quadrants first and C- and X-squares last within each group.
            $(#[target_feature(enable = $features)])?
            unsafe fn shallow(s: &mut Search, p: u64, o: u64, mut alpha: i32, beta: i32, empties: u64) -> i32 {
                s.nodes += 1;
                match empties.count_ones() {
                    0 => return s.final_score(p, o),
                    1 => return last(s, p, o, empties),
                    2 => return two(s, p, o, alpha, beta, empties),
                    _ => {}
                }
                // From 3 empties: with 2 the cut-off costs more time than it saves.
                if let Some(bound) = s.stability_cut(p, o, alpha, SHALLOW_UNSTABLE) {
                    return bound;
                }
                let moves = K::moves(p, o) & empties;
                if moves == 0 {
                    // No move: pass if the rules let the opponent play on, else the game is over.
                    if !s.passing || K::moves(o, p) & empties == 0 {
                        return s.final_score(p, o);
                    }
                    return -shallow(s, o, p, -beta, -alpha, empties);
                }
                let odd = odd_quadrants(empties);
                let mut best = -i32::MAX;
                for group in [odd & !C_AND_X, odd & C_AND_X, !odd & !C_AND_X, !odd & C_AND_X] {
                    let mut rest = moves & group;
                    while rest != 0 {
                        let sq = rest.trailing_zeros();
                        rest &= rest - 1;
                        let f = K::flips(p, o, sq);
                        let v = -shallow(s, o ^ f, p | f | 1 << sq, -beta, -alpha, empties & !(1 << sq));
                        if v > best {
                            best = v;
                            if v > alpha {
                                alpha = v;
                                if alpha >= beta {
                                    return best;
                                }
                            }
                        }
                    }
                }
                best
            }

            /// Two empty squares left (no parity to order by: both lie in odd quadrants or both in one even
            /// quadrant). Counts its children as nodes, as `shallow` would.
            $(#[target_feature(enable = $features)])?
            unsafe fn two(s: &mut Search, p: u64, o: u64, alpha: i32, beta: i32, empties: u64) -> i32 {
                let (mut a, mut b) = (empties & empties.wrapping_neg(), empties & (empties - 1));
                if a & C_AND_X != 0 && b & C_AND_X == 0 {
                    (a, b) = (b, a);
                }
                let mut best = -i32::MAX;
                for (sq, other) in [(a, b), (b, a)] {
                    let f = K::flips(p, o, sq.trailing_zeros());
                    if f != 0 {
                        s.nodes += 1;
                        best = best.max(-last(s, o ^ f, p | f | sq, other));
                        if best >= beta {
                            return best;
                        }
                    }
                }
                if best == -i32::MAX {
                    if !s.passing || K::moves(o, p) & empties == 0 {
                        return s.final_score(p, o);
                    }
                    s.nodes += 1;
                    return -two(s, o, p, -beta, -alpha, empties);
                }
                best
            }

            /// One empty square left.
            $(#[target_feature(enable = $features)])?
            unsafe fn last(s: &mut Search, p: u64, o: u64, empty: u64) -> i32 {
                let sq = empty.trailing_zeros();
                if s.mask == !0 {
                    // A full board but one square: the count of the flips (by table) is all the score needs.
                    let pc = p.count_ones() as i32;
                    let n = last_flip_count(p, sq) as i32;
                    if n != 0 {
                        return s.score_of_counts(pc + n + 1, 63 - pc - n, 0);
                    }
                    if s.passing {
                        let n = last_flip_count(o, sq) as i32;
                        if n != 0 {
                            return s.score_of_counts(pc - n, 64 - pc + n, 0);
                        }
                    }
                    return s.score_of_counts(pc, 63 - pc, 1);
                }
                let f = K::flips(p, o, sq);
                if f != 0 {
                    return s.final_score(p | f | empty, o ^ f);
                }
                if s.passing {
                    let f = K::flips(o, p, sq);
                    if f != 0 {
                        return s.final_score(p ^ f, o | f | empty);
                    }
                }
                s.final_score(p, o)
            }
        }
    };
}

search_with_kernel!(portable, crate::kernel::portable::Portable);
#[cfg(target_arch = "x86_64")]
search_with_kernel!(avx2, crate::kernel::x86::Avx2, "avx2,bmi1,bmi2,popcnt,lzcnt");
#[cfg(target_arch = "x86_64")]
search_with_kernel!(
    avx512,
    crate::kernel::x86::Avx512,
    "avx512f,avx512cd,avx512vl,avx512bw,avx2,bmi1,bmi2,popcnt,lzcnt"
);

/// Solves one position with a fresh solver and no limits.
pub fn solve(rules: &Rules, pos: &Position) -> Result<Solution, SolveError> {
    Solver::new().solve(rules, pos, Mode::Exact, Limits::default())
}

/// Solves every position of `jobs` on `threads` threads, each with a solver of its own (made by [`Solver::new`],
/// then `setup`: a table size, a principal variation, a fresh table per position), and hands each result to
/// `report` with its index in `jobs` as soon as it is found. On more than one thread the positions with the most
/// empties start first (they take the longest, and a long one started last would leave the other threads idle at
/// the end). With fewer positions than threads, each solver searches on several.
pub fn solve_many(
    jobs: &[(Rules, Position)],
    mode: Mode,
    limits: Limits,
    threads: usize,
    setup: impl Fn(&mut Solver) + Sync,
    mut report: impl FnMut(usize, Result<Solution, SolveError>),
) {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    if threads > 1 {
        order.sort_by_key(|&i| std::cmp::Reverse((jobs[i].0.mask() & !jobs[i].1.occupied().0).count_ones()));
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    let solvers = threads.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..solvers {
            let (next, order, sender, setup) = (&next, &order, sender.clone(), &setup);
            scope.spawn(move || {
                let mut solver = Solver::new();
                setup(&mut solver);
                solver.set_threads(threads / solvers);
                solver.touch_table();
                while let Some(&i) = order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    let (rules, pos) = &jobs[i];
                    if sender.send((i, solver.solve(rules, pos, mode, limits))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (i, result) in receiver {
            report(i, result);
        }
    });
}

/// One line of a problem file (the FFO suite's format): `<board> <side> [<best moves> <score> <id> ...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub position: Position,
    pub size: u8,
    /// The expected best moves and score, when the line gives them.
    pub best_moves: Option<Vec<Move>>,
    pub score: Option<i32>,
    pub id: Option<String>,
}

impl Problem {
    /// Parses a line; `None` for blank lines and `#` or `%` comments. Two layouts: the FFO file's (board, side,
    /// best moves, score, id) and Edax's `.obf` (`<board> <side>; <move>:<score>; ...`, the best moves being
    /// those with the top score).
    pub fn parse(line: &str) -> Option<Result<Problem, crate::ParseError>> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            return None;
        }
        if let Some((board, scored)) = line.split_once(';') {
            return Some(Problem::parse_obf(board, scored));
        }
        let mut fields = line.split_whitespace();
        let board = fields.next().unwrap_or("");
        // The side is its own field in the FFO files, or glued to the board (Edax's 65-character form).
        let board_text = match fields.clone().next() {
            Some(side) if side.len() == 1 && board.len() != 65 && board.len() != 37 && board.len() != 17 => {
                fields.next();
                format!("{board} {side}")
            }
            _ => board.to_string(),
        };
        Some((|| {
            let (position, size) = Position::parse_board(&board_text)?;
            let best_moves = fields
                .next()
                .map(|m| m.split(',').map(str::parse::<Move>).collect::<Result<Vec<_>, _>>())
                .transpose()?;
            let score = fields.next().map(parse_score).transpose()?;
            let id = fields.next().map(str::to_string);
            Ok(Problem { position, size, best_moves, score, id })
        })())
    }

    fn parse_obf(board: &str, scored: &str) -> Result<Problem, crate::ParseError> {
        let (position, size) = Position::parse_board(board.trim())?;
        let mut moves = Vec::new();
        for entry in scored.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let bad = || crate::ParseError::BadScore(entry.chars().take(16).collect());
            let (mv, score) = entry.split_once(':').ok_or_else(bad)?;
            moves.push((mv.trim().parse::<Move>()?, parse_score(score.trim())?));
        }
        let score = moves.iter().map(|&(_, s)| s).max();
        let best_moves = score.map(|top| moves.iter().filter(|&&(_, s)| s == top).map(|&(m, _)| m).collect());
        Ok(Problem { position, size, best_moves, score, id: None })
    }
}

/// `+38`, `-4`, `0`: a final disc difference.
fn parse_score(text: &str) -> Result<i32, crate::ParseError> {
    text.trim_start_matches('+')
        .parse()
        .ok()
        .filter(|s: &i32| s.abs() <= 64)
        .ok_or_else(|| crate::ParseError::BadScore(text.chars().take(16).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bitboard, Game};
    use rand::{Rng, SeedableRng};

    /// Plain minimax through the `Rules` API: no pruning, no table, no kernel-specific code.
    fn minimax(rules: &Rules, pos: &Position) -> i32 {
        match rules.status(pos) {
            Status::Over => rules.outcome(pos).margin_for(pos.side),
            Status::MustPass => -minimax(rules, &pos.pass()),
            Status::Moves(m) => m.map(|sq| -minimax(rules, &rules.play_legal(pos, sq))).max().unwrap(),
        }
    }

    /// The minimax score of `pos` and its best moves (by name; a forced pass is the only move when there is no
    /// other).
    fn minimax_best(rules: &Rules, pos: &Position) -> (i32, Vec<String>) {
        let children: Vec<(Move, i32)> = match rules.status(pos) {
            Status::Over => vec![],
            Status::MustPass => vec![(Move::Pass, -minimax(rules, &pos.pass()))],
            Status::Moves(m) => m.map(|sq| (Move::Play(sq), -minimax(rules, &rules.play_legal(pos, sq)))).collect(),
        };
        let want = children.iter().map(|c| c.1).max().unwrap_or_else(|| minimax(rules, pos));
        let best: Vec<Move> = children.iter().filter(|c| c.1 == want).map(|c| c.0).collect();
        (want, sorted(&best))
    }

    /// A position from a random game with `empties` empty squares left (or fewer, if the game ends first).
    fn random_position(rules: &Rules, empties: u32, rng: &mut impl Rng) -> Position {
        let mut game = Game::new(*rules);
        let total = rules.mask().count_ones();
        while !game.is_over() && total - game.position().occupied().count() > empties {
            let mv = match game.status() {
                Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
                _ => Move::Pass,
            };
            game.push(mv).unwrap();
        }
        *game.position()
    }

    #[test]
    fn progress_reports_the_passes_in_order_and_the_last_window_holds_the_score() {
        let rules = Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() };
        let ffo40 = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
        let (pos, _) = Position::parse_board(ffo40).unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut solver = Solver::new();
        let log = seen.clone();
        solver.on_progress(move |p| log.lock().unwrap().push(*p));
        let solution = solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap();
        let seen = seen.lock().unwrap();
        assert!(seen.windows(2).all(|w| w[0].nodes <= w[1].nodes && w[0].elapsed <= w[1].elapsed));
        assert!(seen.len() > 3 && seen.iter().all(|p| p.nodes <= solution.nodes), "{seen:?}");
        let passes: Vec<(Option<u8>, (i32, i32))> = seen
            .iter()
            .filter_map(|p| match p.stage {
                Stage::Pass { confidence, window } => Some((confidence, window)),
                Stage::Moves { .. } => None,
            })
            .collect();
        // The selective pass comes first; the exact pass's last window is the one the score fell inside.
        assert_eq!(passes.first().unwrap().0, Some(PROBCUT_CONFIDENCE[0]), "{passes:?}");
        let (confidence, (lo, hi)) = *passes.last().unwrap();
        assert!(confidence.is_none() && lo < solution.score && solution.score < hi, "{passes:?} {}", solution.score);
        // Then every root move is tested against the score, in order.
        let moves: Vec<Stage> = seen.iter().map(|p| p.stage).skip_while(|s| matches!(s, Stage::Pass { .. })).collect();
        let of = pos.moves().count() as usize;
        assert!((0..of).all(|done| moves.contains(&Stage::Moves { done, of })), "{moves:?}");
    }

    #[test]
    fn a_fresh_table_makes_each_solve_independent_of_the_ones_before() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(31);
        let rules = Rules::othello();
        let positions: Vec<Position> =
            (0..6).map(|_| random_position(&rules, rng.random_range(14..=17), &mut rng)).collect();
        // A small table, so that what earlier solves leave in it matters.
        let solver = |fresh| {
            let mut s = Solver::new();
            s.set_table_bytes(1 << 16);
            s.set_fresh_table(fresh);
            s
        };
        let nodes = |s: &mut Solver, pos| s.solve(&rules, pos, Mode::Exact, Limits::default()).unwrap().nodes;
        let alone: Vec<u64> = positions.iter().map(|pos| nodes(&mut solver(false), pos)).collect();
        let in_turn = |fresh| {
            let mut s = solver(fresh);
            let mut got: Vec<u64> = positions.iter().rev().map(|pos| nodes(&mut s, pos)).collect();
            got.reverse();
            got
        };
        assert_eq!(in_turn(true), alone);
        assert_ne!(in_turn(false), alone, "the table's history made no difference: the test shows nothing");
    }

    #[test]
    fn solving_many_on_threads_reports_each_position_once_with_its_sequential_answer() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(29);
        let variants = [Rules::othello(), Rules::reverse(), Rules::othello().with_size(6).unwrap()];
        let jobs: Vec<(Rules, Position)> = (0..30)
            .map(|i| {
                let rules = variants[i % variants.len()];
                (rules, random_position(&rules, rng.random_range(2..=12), &mut rng))
            })
            .collect();
        // The score and the best moves, in a fixed order (the order found depends on the table's history).
        let answer = |s: Solution| (s.score, sorted(&s.best_moves));
        let mut solver = Solver::new();
        let want: Vec<(i32, Vec<String>)> = jobs
            .iter()
            .map(|(rules, pos)| answer(solver.solve(rules, pos, Mode::Exact, Limits::default()).unwrap()))
            .collect();
        for threads in [1, 3] {
            let mut got = vec![None; jobs.len()];
            solve_many(
                &jobs,
                Mode::Exact,
                Limits::default(),
                threads,
                |_| {},
                |i, s| {
                    assert!(got[i].replace(answer(s.unwrap())).is_none(), "position {i} reported twice");
                },
            );
            assert_eq!(got, want.iter().cloned().map(Some).collect::<Vec<_>>(), "{threads} threads");
        }
        // A single position on two threads: its solver searches on both.
        let single = [(Rules::othello(), random_position(&Rules::othello(), 18, &mut rng))];
        let want = answer(solver.solve(&single[0].0, &single[0].1, Mode::Exact, Limits::default()).unwrap());
        let mut got = vec![];
        solve_many(&single, Mode::Exact, Limits::default(), 2, |_| {}, |_, s| got.push(s.unwrap()));
        assert!(got.len() == 1 && got[0].helper_nodes > 0);
        assert_eq!(answer(got.remove(0)), want);
    }

    #[test]
    fn a_solve_on_several_threads_or_with_a_tiny_table_finds_the_answers_of_one() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(31);
        let variants = [Rules::othello(), Rules { scoring: Scoring::EmptiesToWinner, ..Rules::reverse() }];
        let (mut one, mut three, mut tiny) = (Solver::new(), Solver::new(), Solver::new());
        three.set_threads(3);
        // A table of two buckets, shared by two threads: nearly every entry is overwritten before it is read
        // again, so any answer taken from another position's entry would show.
        tiny.set_table_bytes(0);
        tiny.set_threads(2);
        let mut helper_nodes = 0;
        for i in 0..12 {
            let rules = variants[i % variants.len()];
            let pos = random_position(&rules, rng.random_range(14..=18), &mut rng);
            let want = one.solve(&rules, &pos, Mode::AllMoves, Limits::default()).unwrap();
            for mode in [Mode::Exact, Mode::BestMove, Mode::AllMoves, Mode::WinDrawLoss] {
                for (solver, name) in [(&mut three, "three threads"), (&mut tiny, "tiny table")] {
                    let got = solver.solve(&rules, &pos, mode, Limits::default()).unwrap();
                    helper_nodes += got.helper_nodes;
                    let context = format!("{} {mode:?} {name}", pos.to_board_string(8));
                    match mode {
                        Mode::WinDrawLoss => assert_eq!(got.score, want.score.signum(), "{context}"),
                        _ => assert_eq!(got.score, want.score, "{context}"),
                    }
                    match mode {
                        Mode::Exact => assert_eq!(sorted(&got.best_moves), sorted(&want.best_moves), "{context}"),
                        Mode::BestMove => assert!(want.best_moves.contains(&got.best_moves[0]), "{context}"),
                        Mode::AllMoves => assert_eq!(got.move_scores, want.move_scores, "{context}"),
                        Mode::WinDrawLoss => {}
                    }
                }
            }
        }
        // The helpers did search: the positions are large enough to split.
        assert!(helper_nodes > 0);
    }

    /// Each scoring, objective and board size, and no passing.
    fn rule_variants() -> [Rules; 6] {
        [
            Rules::othello(),
            Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() },
            Rules::reverse(),
            Rules { scoring: Scoring::EmptiesToWinner, ..Rules::reverse() },
            Rules { passing: false, ..Rules::othello() },
            Rules::othello().with_size(6).unwrap(),
        ]
    }

    fn sorted(moves: &[Move]) -> Vec<String> {
        let mut names: Vec<String> = moves.iter().map(Move::to_string).collect();
        names.sort();
        names
    }

    #[test]
    fn the_solver_agrees_with_plain_minimax_on_random_positions() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(13);
        let variants = rule_variants();
        let mut solvers: Vec<Solver> = KernelKind::available().into_iter().map(Solver::with_kernel).collect();
        let mut checked = 0;
        for i in 0..3000 {
            let rules = variants[i % variants.len()];
            let empties = if i % 20 == 0 { rng.random_range(9..=10) } else { rng.random_range(1..=8) };
            let pos = random_position(&rules, empties, &mut rng);
            let (want, best) = minimax_best(&rules, &pos);
            for solver in &mut solvers {
                let got = solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap();
                assert_eq!(got.score, want, "{rules} {pos}");
                assert_eq!(sorted(&got.best_moves), best, "best moves of {pos}");
                let one = solver.solve(&rules, &pos, Mode::BestMove, Limits::default()).unwrap();
                assert_eq!(one.score, want, "{rules} {pos}");
                if !best.is_empty() {
                    assert!(
                        one.best_moves.len() == 1 && best.contains(&one.best_moves[0].to_string()),
                        "{pos}: {one:?}"
                    );
                }
                let wdl = solver.solve(&rules, &pos, Mode::WinDrawLoss, Limits::default()).unwrap();
                assert_eq!(wdl.score, want.signum());
            }
            checked += 1;
        }
        assert_eq!(checked, 3000);
    }

    /// Windows at the end of the scale (a side going for, or escaping, a wipeout) order moves their own way and
    /// cut where the escaping side can take a corner: positions with one side down to one to three discs.
    #[test]
    fn near_wipeouts_agree_with_plain_minimax() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(15);
        let variants = [Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() }, Rules::othello()];
        let mut solver = Solver::new();
        let mut wipeouts = 0;
        for i in 0..400 {
            let rules = variants[i % variants.len()];
            let mut pos = random_position(&rules, rng.random_range(7..=11), &mut rng);
            // The opponent keeps a few of its discs; the player gets the rest.
            let mut kept = 0u64;
            for _ in 0..rng.random_range(1..=3) {
                let left = pos.opponent.0 & !kept;
                if left != 0 {
                    let nth = rng.random_range(0..left.count_ones());
                    kept |= Bitboard(left).nth(nth).unwrap().bit();
                }
            }
            pos.player = Bitboard(pos.player.0 | pos.opponent.0 & !kept);
            pos.opponent = Bitboard(kept);
            let (want, best) = minimax_best(&rules, &pos);
            let got = solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap();
            assert_eq!((got.score, sorted(&got.best_moves)), (want, best), "{rules} {pos}");
            wipeouts += (want.abs() >= 62) as u32;
        }
        // Enough of them end in (or escape) a wipeout by a margin for those windows to be searched.
        assert!(wipeouts >= 40, "{wipeouts} near wipeouts");
    }

    /// Plays `line` from `pos` (worth `score` to its mover), checking that every position on the way is worth the
    /// score to whoever moves there, by `value`, and that the line ends the game with that score.
    fn check_line_keeps_the_score(
        rules: &Rules,
        mut pos: Position,
        mut score: i32,
        line: &[Move],
        mut value: impl FnMut(&Position) -> i32,
    ) {
        for (i, &mv) in line.iter().enumerate() {
            pos = rules.play(&pos, mv).unwrap_or_else(|e| panic!("move {i} of {line:?}: {e}"));
            score = -score;
            assert_eq!(value(&pos), score, "after move {i} of {line:?}: {pos}");
        }
        assert!(rules.is_over(&pos), "{line:?} stops before the end: {pos}");
        assert_eq!(rules.outcome(&pos).margin_for(pos.side), score, "{line:?}");
    }

    #[test]
    fn principal_variations_are_lines_of_perfect_play() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(16);
        let variants = rule_variants();
        let modes = [Mode::Exact, Mode::BestMove, Mode::AllMoves];
        let mut solver = Solver::new();
        solver.set_principal_variation(true);
        let mut passes = 0;
        // Against minimax, up to 9 empties.
        for i in 0..500 {
            let rules = variants[i % variants.len()];
            let pos = random_position(&rules, rng.random_range(1..=9), &mut rng);
            let got = solver.solve(&rules, &pos, modes[i % modes.len()], Limits::default()).unwrap();
            let line = &got.principal_variation;
            assert_eq!(line.first(), got.best_moves.first(), "{rules} {pos}");
            check_line_keeps_the_score(&rules, pos, got.score, line, |p| minimax(&rules, p));
            passes += line.contains(&Move::Pass) as u32;
        }
        assert!(passes >= 10, "{passes} lines with a pass");
        // From 14 to 20 empties, where the table's moves lead the way: each position on the line solved by a
        // solver of its own (another table).
        let rules = Rules::othello();
        let mut checker = Solver::new();
        for _ in 0..10 {
            let pos = random_position(&rules, rng.random_range(14..=20), &mut rng);
            let got = solver.solve(&rules, &pos, Mode::BestMove, Limits::default()).unwrap();
            check_line_keeps_the_score(&rules, pos, got.score, &got.principal_variation, |p| {
                checker.solve(&rules, p, Mode::BestMove, Limits::default()).unwrap().score
            });
        }
        // Without it asked for, or for win/draw/loss alone, there is none.
        let pos = random_position(&rules, 12, &mut rng);
        assert!(solver
            .solve(&rules, &pos, Mode::WinDrawLoss, Limits::default())
            .unwrap()
            .principal_variation
            .is_empty());
        solver.set_principal_variation(false);
        assert!(solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap().principal_variation.is_empty());
    }

    #[test]
    fn all_moves_mode_scores_every_move_exactly() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(14);
        let rules = Rules::othello();
        let mut solver = Solver::new();
        for _ in 0..100 {
            let pos = random_position(&rules, 9, &mut rng);
            let got = solver.solve(&rules, &pos, Mode::AllMoves, Limits::default()).unwrap();
            for (mv, score) in &got.move_scores {
                let child = rules.play(&pos, *mv).unwrap();
                assert_eq!(*score, -minimax(&rules, &child));
            }
            let exact = solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap();
            assert_eq!(exact.score, got.score);
            let mut a = exact.best_moves.clone();
            let mut b = got.best_moves.clone();
            a.sort_by_key(|m| m.to_string());
            b.sort_by_key(|m| m.to_string());
            assert_eq!(a, b);
        }
    }

    /// 4x4 Othello from the start, solved, agrees with brute force over the whole game tree.
    #[test]
    fn four_by_four_othello_is_solved_from_the_start() {
        let rules = Rules::othello().with_size(4).unwrap();
        let start = rules.start_position();
        let want = minimax(&rules, &start);
        let got = solve(&rules, &start).unwrap();
        assert_eq!(got.score, want);
        // Perfect play on 4x4 is a white win (black, to move, loses).
        assert!(got.score < 0, "{}", got.score);
    }

    #[test]
    #[ignore = "slow: solves 6x6 Othello from the start (minutes)"]
    fn six_by_six_othello_is_a_16_20_white_win() {
        let rules = Rules::othello().with_size(6).unwrap();
        let got = solve(&rules, &rules.start_position()).unwrap();
        assert_eq!(got.score, 16 - 20);
    }

    #[test]
    fn limits_give_an_honest_not_solved() {
        let rules = Rules::othello();
        let pos = random_position(&rules, 36, &mut rand_pcg::Pcg64Mcg::seed_from_u64(15));
        let limits = Limits { nodes: Some(100_000), time: None };
        let err = Solver::new().solve(&rules, &pos, Mode::Exact, limits).unwrap_err();
        assert!(matches!(err, SolveError::Limit { empties: 36, .. }), "{err}");
        let err = Solver::new().solve(&rules, &pos, Mode::BestMove, limits).unwrap_err();
        assert!(matches!(err, SolveError::Limit { empties: 36, .. }), "{err}");
        let limits = Limits { nodes: None, time: Some(Duration::from_millis(50)) };
        assert!(Solver::new().solve(&rules, &pos, Mode::Exact, limits).is_err());
        // On two threads the limit stops the helpers too (the solve returns), and the solver then solves the next
        // position exactly.
        let mut two = Solver::new();
        two.set_threads(2);
        let started = Instant::now();
        let err = two.solve(&rules, &pos, Mode::BestMove, limits).unwrap_err();
        assert!(matches!(err, SolveError::Limit { empties: 36, .. }) && started.elapsed() < Duration::from_secs(5));
        // A node limit counts the helpers' nodes as they go (each hands its count over every CHECK_EVERY nodes), so
        // the solve stops near the limit rather than after the helpers' shares of the split points are done.
        let mut three = Solver::new();
        three.set_threads(3);
        let limit = 4_000_000;
        let err = three.solve(&rules, &pos, Mode::BestMove, Limits { nodes: Some(limit), time: None }).unwrap_err();
        let SolveError::Limit { nodes, .. } = err else { panic!("{err}") };
        assert!((limit..limit * 3 / 2).contains(&nodes), "{nodes} nodes");
        let smaller = random_position(&rules, 16, &mut rand_pcg::Pcg64Mcg::seed_from_u64(16));
        let want = Solver::new().solve(&rules, &smaller, Mode::Exact, Limits::default()).unwrap();
        let got = two.solve(&rules, &smaller, Mode::Exact, Limits::default()).unwrap();
        assert_eq!((got.score, sorted(&got.best_moves)), (want.score, sorted(&want.best_moves)));
    }

    /// A node with 33 legal moves (more than games reach in practice, but a board string can set one up below
    /// the root): white's b2 here leaves black 33 moves. The search from that node orders all 33 (no selective pass
    /// under the fewest-discs objective to cut it first) until the node limit stops it.
    #[test]
    fn nodes_with_more_than_32_moves_are_searched() {
        let text = "----------OXOOO-XXX-XX--O--OO-O---O-OXO--OXX-XO--XOO-OO-O-----X- O";
        let (pos, _) = Position::parse_board(text).unwrap();
        let b2 = pos.play_unchecked("b2".parse().unwrap());
        assert_eq!(b2.moves().count(), 33);
        let mut solver = Solver::new();
        let mut search = solver.start(&Rules::reverse(), Limits { nodes: Some(100_000), time: None });
        search.search(b2.player.0, b2.opponent.0, -65, 65);
        assert!(search.aborted && search.nodes >= 100_000);
    }

    #[test]
    fn problem_lines_parse() {
        let line = FFO_40;
        let p = Problem::parse(line).unwrap().unwrap();
        assert_eq!(p.score, Some(38));
        assert_eq!(p.best_moves, Some(vec![Move::Play("a2".parse().unwrap())]));
        assert_eq!(p.id.as_deref(), Some("ffo40"));
        assert!(Problem::parse("# comment").is_none());
        assert!(Problem::parse("OX X").unwrap().is_err());
        assert!(Problem::parse(&line.replace("+38", "+3x")).unwrap().is_err());
    }

    #[test]
    fn obf_lines_parse_with_every_top_scored_move_best() {
        // FFO #40 in Edax's layout, with a made-up second move scored level with the first.
        let board = &FFO_40[..66];
        let p = Problem::parse(&format!("{board}; A2:+38; B1:-4; C1:+38;")).unwrap().unwrap();
        assert_eq!(p.score, Some(38));
        let square = |s: &str| Move::Play(s.parse().unwrap());
        assert_eq!(p.best_moves, Some(vec![square("a2"), square("c1")]));
        assert_eq!(p.position, Problem::parse(FFO_40).unwrap().unwrap().position);
        let bare = Problem::parse(&format!("{board};")).unwrap().unwrap();
        assert_eq!((bare.score, bare.best_moves), (None, None));
        assert!(Problem::parse("% a comment").is_none());
        for bad in ["A2+38;", "A2:+99;", "Z9:+2;", "A2:;"] {
            assert!(Problem::parse(&format!("{board}; {bad}")).unwrap().is_err(), "{bad}");
        }
    }

    const FFO_40: &str = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X a2 +38 ffo40 20";
}
