//! The exact endgame solver: the minimax value (final disc difference under the rules' scoring) and every best
//! move of a position, by null-window alpha-beta (PVS) on the bitboards.
//!
//! On 8x8 boards the root runs a selective pass first (probcut on the pattern evaluation, [`crate::pattern`]), in a
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

use crate::kernel::{Kernel, KernelKind};
use crate::last_flip::last_flip_count;
use crate::pattern::{CompactWeights, PatternState, SCALE};
use crate::position::{hash_discs, Position};
use crate::rules::{Objective, Rules, Scoring, Start, Status};
use crate::square::{Move, Square};
use crate::stability::stable_discs;
use crate::transposition::{Entries, Entry, Table};

mod ordering;
mod root;
mod search;
mod split;
#[cfg(test)]
mod tests;

use split::{Pool, Split};

/// Positions with at most this many empties are searched without the table and without ordering keys: from 7
/// empties up a table probe (on huge pages, after the ordering's prefetch) saves more than it costs (FFO #40-#53:
/// a fifth fewer nodes, 0.96-0.98x the time on an Intel Xeon, level on a Zen 3).
pub const SHALLOW: u32 = 6;
/// Nodes with more empties than this try the table on every child before searching (ETC). Below, the cut-offs
/// it finds save less than its cache misses cost (FFO #40-#53: 11 took 1.02x the time).
const ETC_EMPTIES: u8 = 12;
/// Nodes with at least this many empties order their moves by a [`PROBE_DEPTH`]-ply search on the pattern
/// evaluation instead of the one-ply fastest-first key, and from [`EVAL_ORDER_EMPTIES`] by the evaluation itself
/// (0 plies); both plus [`ORDER_MOBILITY_WEIGHT`] per opponent reply. Tuned in time on FFO #40-#59: below these
/// the ordering's cost outweighs the nodes it saves (evaluation from 13, 15 or 16 and probes from 16, 17 or 19
/// were slower).
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
/// With the cheap evaluation (other boards and objectives) the probes go deeper, the evaluation itself being a
/// weak guide (4 plies took the fewest nodes on FFO #40-#47 ordered by the cheap evaluation).
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
/// finding its surviving move first: probes of at most 3 plies find it soonest (fastest-first took 3.2x the time;
/// caps of 1, 2 and 4 plies 1.6x, 1.2x and 1.8x).
const ESCAPE_PROBE_DEPTH: u32 = 3;
/// With more than one thread, nodes with at least this many empties share out their moves after the first among
/// the idle threads (young brothers wait).
const SPLIT_EMPTIES: u8 = 12;
/// The transposition table's default size: 16 MB, 2^20 entries of 16 bytes in buckets of two. Larger tables keep
/// more but miss the caches more often: FFO #40-#59 on one thread takes 3% longer with 64 MB.
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
/// Nodes between looks at the limits and the progress hook.
const CHECK_EVERY: u64 = 1 << 16;

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
            // A limit below the usual interval is checked at the limit itself.
            next_check: CHECK_EVERY.min(limits.nodes.unwrap_or(u64::MAX)),
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
        order.sort_by_key(|&i| std::cmp::Reverse(jobs[i].0.empties(&jobs[i].1)));
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
