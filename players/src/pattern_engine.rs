//! The strongest fixed yardstick the harness can build without Edax's weights: a classical engine on the pattern
//! evaluation fitted on WTHOR (`othello_core::pattern`), searched the way Edax searches the midgame: principal
//! variation search, iterative deepening, a transposition table, moves ordered by the table's best move and then by
//! the evaluation and the opponent's mobility; the exact solver once few squares are empty.
//!
//! Why this is a search of its own and not the solver's (`othello_core::solve`) with a depth limit: the solver's
//! values are exact disc margins, so its table, bounds, stability cut-offs and enhanced transposition cut-offs all
//! rest on a value that never changes with depth; here a value is a depth-limited estimate (a table entry holds
//! the depth it was searched to, and a bound from one depth says nothing of another), the evaluation is carried
//! move by move in a `PatternState`, and a clock stops iterative deepening. Where the game is small enough, this
//! engine calls the solver itself rather than searching on.

use std::time::{Duration, Instant};

use othello_core::kernel::{Kernel, KernelKind};
use othello_core::pattern::{CompactWeights, PatternState, SCALE};
use othello_core::position::hash_discs;
use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Game, Move, Objective, Rules, Square, Status};

use crate::agent::{Agent, AgentError};

/// How long the engine thinks per move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// A full-width search to this many plies.
    Depth(u32),
    /// Iterative deepening until this much time has passed; the deepest finished iteration's move.
    Time(Duration),
}

/// An opponent reply weighs this much against the evaluation when ordering moves (two discs, as in the solver).
const ORDER_MOBILITY_WEIGHT: i32 = 2 * SCALE;
/// Table entries: 2^18 of 16 bytes (4 MB), kept between the moves of a game.
const TABLE_LEN: usize = 1 << 18;
const INF: i32 = 1 << 20;
/// Nodes between looks at the clock.
const CHECK_EVERY: u64 = 1 << 12;
/// The engine stops deepening once this share of its time is spent: the next iteration would not finish.
const DEEPEN_SHARE: f64 = 0.4;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    lower: i32,
    upper: i32,
    depth: u8,
    best: u8,
}

const NO_MOVE: u8 = 64;

/// One search: the table, the evaluation, the counters and the clock.
struct Searcher<'a> {
    table: &'a mut [Entry],
    eval: &'static CompactWeights,
    nodes: u64,
    next_check: u64,
    deadline: Option<Instant>,
    aborted: bool,
}

impl Searcher<'_> {
    fn entry(&self, key: u64) -> Option<Entry> {
        let e = self.table[key as usize & (TABLE_LEN - 1)];
        (e.key == key).then_some(e)
    }

    fn store(&mut self, key: u64, depth: u32, best: u8, value: i32, alpha: i32, beta: i32) {
        let (lower, upper) = if value <= alpha {
            (-INF, value)
        } else if value >= beta {
            (value, INF)
        } else {
            (value, value)
        };
        self.table[key as usize & (TABLE_LEN - 1)] = Entry { key, lower, upper, depth: depth as u8, best };
    }

    fn check_clock(&mut self) {
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            self.aborted |= self.deadline.is_some_and(|d| Instant::now() >= d);
        }
    }
}

/// A finished game's value in evaluation units: the disc difference (empties to the winner), above any estimate.
fn final_value(p: u64, o: u64) -> i32 {
    let (pc, oc) = (p.count_ones() as i32, o.count_ones() as i32);
    let empties = 64 - pc - oc;
    let diff = pc - oc;
    let margin = match diff.signum() {
        1 => diff + empties,
        -1 => diff - empties,
        _ => 0,
    };
    SCALE * margin
}

/// The value of a position at the search's horizon: exact when the board is full or one side has no disc left,
/// else the pattern evaluation. Other finished games (neither side can move) are rare enough to be left to it.
#[inline(always)]
fn leaf_value<K: Kernel>(eval: &CompactWeights, p: u64, o: u64) -> i32 {
    if p == 0 || o == 0 || p | o == u64::MAX {
        final_value(p, o)
    } else {
        eval.evaluate_with::<K>(p, o)
    }
}

/// Principal variation search of (p, o) to `depth` plies within (alpha, beta); fail-soft, in 1/SCALE disc.
#[inline(always)]
fn pvs<K: Kernel>(
    s: &mut Searcher,
    p: u64,
    o: u64,
    state: &PatternState,
    depth: u32,
    mut alpha: i32,
    beta: i32,
) -> i32 {
    s.nodes += 1;
    s.check_clock();
    if s.aborted {
        return 0;
    }
    if depth == 0 {
        return leaf_value::<K>(s.eval, p, o);
    }
    let moves = K::moves(p, o);
    if moves == 0 {
        if K::moves(o, p) == 0 {
            return final_value(p, o);
        }
        return -pvs::<K>(s, o, p, &state.passed(), depth, -beta, -alpha);
    }
    let child_empties = 63 - (p | o).count_ones();
    if depth == 1 {
        // The children's evaluations from this node's pattern state.
        let base = state.children_base();
        let mut best = -INF;
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let f = K::flips(p, o, sq);
            s.nodes += 1;
            let v = if child_empties == 0 || o ^ f == 0 {
                -final_value(o ^ f, p | f | 1 << sq)
            } else {
                -s.eval.evaluate_child(&base, sq, f, child_empties)
            };
            best = best.max(v);
        }
        return best;
    }
    let key = hash_discs(p, o);
    let mut table_move = NO_MOVE;
    if let Some(e) = s.entry(key) {
        if e.depth as u32 >= depth {
            if e.lower >= beta {
                return e.lower;
            }
            if e.upper <= alpha {
                return e.upper;
            }
            if e.lower == e.upper {
                return e.lower;
            }
        }
        table_move = e.best;
    }
    // Children ordered: the table's move, then by the child's evaluation and its replies, best for us first.
    let base = state.children_base();
    let mut children: arrayvec::ArrayVec<(i32, u32, u64), 40> = arrayvec::ArrayVec::new();
    let mut rest = moves;
    while rest != 0 {
        let sq = rest.trailing_zeros();
        rest &= rest - 1;
        let f = K::flips(p, o, sq);
        let key = if sq as u8 == table_move {
            -INF
        } else {
            let (cp, co) = (o ^ f, p | f | 1 << sq);
            s.eval.evaluate_child(&base, sq, f, child_empties)
                + ORDER_MOBILITY_WEIGHT * K::moves(cp, co).count_ones() as i32
        };
        children.push((key, sq, f));
    }
    children.sort_unstable_by_key(|c| c.0);
    let original_alpha = alpha;
    let (mut best, mut best_move) = (-INF, NO_MOVE);
    for (i, &(_, sq, f)) in children.iter().enumerate() {
        let (cp, co) = (o ^ f, p | f | 1 << sq);
        let child = s.eval.play(state, sq, f);
        let mut v;
        if i == 0 {
            v = -pvs::<K>(s, cp, co, &child, depth - 1, -beta, -alpha);
        } else {
            v = -pvs::<K>(s, cp, co, &child, depth - 1, -alpha - 1, -alpha);
            if v > alpha && v < beta {
                v = -pvs::<K>(s, cp, co, &child, depth - 1, -beta, -v);
            }
        }
        if s.aborted {
            return 0;
        }
        if v > best {
            (best, best_move) = (v, sq as u8);
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    s.store(key, depth, best_move, best, original_alpha, beta);
    best
}

/// One iteration at the root: every move's value to `depth` plies (the best exactly, the others as bounds),
/// searched in `order`, which is re-sorted best first. `None` when the clock stopped it.
#[inline(always)]
fn root_iteration<K: Kernel>(s: &mut Searcher, p: u64, o: u64, depth: u32, order: &mut [(u32, i32)]) -> Option<()> {
    let state = PatternState::new(p, o);
    let mut alpha = -INF;
    for (i, entry) in order.iter_mut().enumerate() {
        let sq = entry.0;
        let f = K::flips(p, o, sq);
        let (cp, co) = (o ^ f, p | f | 1 << sq);
        let child = s.eval.play(&state, sq, f);
        let mut v = if i == 0 {
            -pvs::<K>(s, cp, co, &child, depth - 1, -INF, INF)
        } else {
            let v = -pvs::<K>(s, cp, co, &child, depth - 1, -alpha - 1, -alpha);
            if v > alpha {
                -pvs::<K>(s, cp, co, &child, depth - 1, -INF, -v)
            } else {
                v
            }
        };
        if s.aborted {
            return None;
        }
        if i > 0 && v <= alpha {
            // Only a bound: keep it below the best.
            v = v.min(alpha - 1);
        }
        alpha = alpha.max(v);
        entry.1 = v;
    }
    // Stable: among equals the earlier (previously better) move stays first.
    order.sort_by_key(|m| -m.1);
    Some(())
}

fn root_iteration_entry<K: Kernel>(
    s: &mut Searcher,
    p: u64,
    o: u64,
    depth: u32,
    order: &mut [(u32, i32)],
) -> Option<()> {
    root_iteration::<K>(s, p, o, depth, order)
}

othello_core::kernel_entry!(
    /// [`root_iteration`] compiled for a kernel.
    fn root_iteration_with(
        s: &mut Searcher,
        p: u64,
        o: u64,
        depth: u32,
        order: &mut [(u32, i32)],
    ) -> Option<()> = root_iteration_entry
);

/// What a search found: the move, its value in discs, the depth of the last finished iteration, the nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSearch {
    pub best: Square,
    pub value: f64,
    pub depth: u32,
    pub nodes: u64,
    /// Whether the value is the exact solver's.
    pub exact: bool,
}

/// The pattern engine: `pattern:depth=N` or `pattern:time=S`, exact from `exact` empties.
pub struct PatternEngine {
    budget: Budget,
    exact_empties: u32,
    kernel: KernelKind,
    table: Vec<Entry>,
    solver: Solver,
}

impl PatternEngine {
    /// The default exact-solve point: twice the depth (at most 20 empties) for a depth, 18 for a time budget.
    pub fn new(budget: Budget, exact_empties: Option<u32>) -> PatternEngine {
        let exact_empties = exact_empties.unwrap_or(match budget {
            Budget::Depth(d) => (2 * d).min(20),
            Budget::Time(_) => 18,
        });
        PatternEngine {
            budget,
            exact_empties,
            kernel: KernelKind::best(),
            table: vec![Entry::default(); TABLE_LEN],
            solver: Solver::new(),
        }
    }

    pub fn with_kernel(mut self, kernel: KernelKind) -> PatternEngine {
        self.kernel = kernel;
        self.solver = Solver::with_kernel(kernel);
        self
    }

    /// Searches the position for its side to move (which has a legal move) under standard 8x8 rules.
    pub fn search(&mut self, rules: &Rules, game: &Game) -> Result<EngineSearch, AgentError> {
        self.check_rules(rules)?;
        let name = self.name();
        let refuse = |message: String| AgentError::Failed { agent: name.clone(), message };
        let pos = game.position();
        let Status::Moves(moves) = game.status() else {
            return Err(refuse("no legal move to search".into()));
        };
        let started = Instant::now();
        let empties = 64 - pos.occupied().count();
        if empties <= self.exact_empties {
            let limits = Limits { time: self.time_left(started).map(|t| t.max(Duration::from_millis(1))), nodes: None };
            if let Ok(solution) = self.solver.solve(rules, pos, Mode::BestMove, limits) {
                if let Some(Move::Play(best)) = solution.best_moves.first() {
                    return Ok(EngineSearch {
                        best: *best,
                        value: solution.score as f64,
                        depth: empties,
                        nodes: solution.nodes,
                        exact: true,
                    });
                }
            }
        }
        let (p, o) = (pos.player.0, pos.opponent.0);
        let mut order: Vec<(u32, i32)> = moves.map(|sq| (sq.index() as u32, 0)).collect();
        let max_depth = match self.budget {
            Budget::Depth(d) => d,
            Budget::Time(_) => 60,
        };
        let deadline = match self.budget {
            Budget::Time(t) => Some(started + t),
            Budget::Depth(_) => None,
        };
        let mut searcher = Searcher {
            table: &mut self.table,
            eval: CompactWeights::builtin(),
            nodes: 0,
            next_check: CHECK_EVERY,
            deadline,
            aborted: false,
        };
        let mut done = 0;
        let mut best = order[0];
        for depth in 1..=max_depth.min(empties) {
            let mut trial = order.clone();
            if root_iteration_with(self.kernel, &mut searcher, p, o, depth, &mut trial).is_none() {
                break;
            }
            (order, done, best) = (trial.clone(), depth, trial[0]);
            if let Budget::Time(t) = self.budget {
                if started.elapsed().as_secs_f64() > DEEPEN_SHARE * t.as_secs_f64() {
                    break;
                }
            }
        }
        let best_square = Square::new(best.0 as u8).ok_or_else(|| refuse("no move searched".into()))?;
        Ok(EngineSearch {
            best: best_square,
            value: best.1 as f64 / SCALE as f64,
            depth: done,
            nodes: searcher.nodes,
            exact: done == empties,
        })
    }

    fn time_left(&self, started: Instant) -> Option<Duration> {
        match self.budget {
            Budget::Time(t) => Some(t.saturating_sub(started.elapsed())),
            Budget::Depth(_) => None,
        }
    }
}

impl Agent for PatternEngine {
    fn name(&self) -> String {
        let budget = match self.budget {
            Budget::Depth(d) => format!("depth={d}"),
            Budget::Time(t) => format!("time={}", t.as_secs_f64()),
        };
        format!("pattern:{budget}")
    }

    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        match crate::agent::forced_move(game)? {
            Some(pass) => Ok(pass),
            None => Ok(Move::Play(self.search(&game.rules, game)?.best)),
        }
    }

    /// Any 8x8 rules where most discs win (other starts and scorings included): what the evaluation was fitted on.
    fn check_rules(&self, rules: &Rules) -> Result<(), AgentError> {
        match rules.size == 8 && rules.objective == Objective::MostDiscs {
            true => Ok(()),
            false => Err(AgentError::Failed {
                agent: self.name(),
                message: format!("the pattern evaluation is fitted for 8x8 most-discs Othello, not {rules}"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::tests::match_score;
    use othello_core::solve::solve;

    /// Plain negamax on the same evaluation, to `depth` plies, for the search to agree with.
    fn negamax(p: u64, o: u64, depth: u32) -> i32 {
        if depth == 0 {
            if p == 0 || o == 0 || p | o == u64::MAX {
                return final_value(p, o);
            }
            let weights = CompactWeights::builtin();
            return weights.evaluate_with::<othello_core::kernel::portable::Portable>(p, o);
        }
        let moves = othello_core::kernel::moves(p, o);
        if moves == 0 {
            if othello_core::kernel::moves(o, p) == 0 {
                return final_value(p, o);
            }
            return -negamax(o, p, depth);
        }
        othello_core::Bitboard(moves)
            .map(|sq| {
                let f = othello_core::kernel::flips(p, o, sq.index() as u32);
                -negamax(o ^ f, p | f | 1 << sq.index(), depth - 1)
            })
            .max()
            .unwrap_or(-INF)
    }

    fn random_game(seed: u64, plies: usize) -> Game {
        let mut rng = <rand_pcg::Pcg64Mcg as rand::SeedableRng>::seed_from_u64(seed);
        let mut game = Game::new(Rules::othello());
        for _ in 0..plies {
            match game.status() {
                Status::Over => break,
                Status::MustPass => game.push(Move::Pass).unwrap(),
                Status::Moves(m) => {
                    let sq = m.nth(rand::Rng::random_range(&mut rng, 0..m.count())).unwrap();
                    game.push(Move::Play(sq)).unwrap();
                }
            }
        }
        game
    }

    /// The pruned, table-driven search returns the negamax value of the best move, on every kernel.
    #[test]
    fn the_search_finds_the_negamax_value() {
        for seed in 0..40 {
            let game = random_game(seed, 10 + (seed as usize % 30));
            if !matches!(game.status(), Status::Moves(_)) {
                continue;
            }
            let pos = *game.position();
            let depth = 1 + (seed % 4) as u32;
            let empties = 64 - pos.occupied().count();
            let expected = negamax(pos.player.0, pos.opponent.0, depth.min(empties));
            for kernel in KernelKind::available() {
                let mut engine = PatternEngine::new(Budget::Depth(depth), Some(0)).with_kernel(kernel);
                let found = engine.search(&game.rules, &game).unwrap();
                assert_eq!(found.value, expected as f64 / SCALE as f64, "seed {seed} depth {depth} {kernel:?}");
                let f = othello_core::kernel::flips(pos.player.0, pos.opponent.0, found.best.index() as u32);
                let (cp, co) = (pos.opponent.0 ^ f, pos.player.0 | f | 1 << found.best.index());
                assert_eq!(-negamax(cp, co, depth.min(empties) - 1), expected, "the move reaches the value");
            }
        }
    }

    /// Near the end the engine plays a move the exact solver calls best.
    #[test]
    fn the_endgame_is_played_perfectly() {
        let mut checked = 0;
        for seed in 0..30 {
            let game = random_game(100 + seed, 46);
            if !matches!(game.status(), Status::Moves(_)) {
                continue;
            }
            let mut engine = PatternEngine::new(Budget::Depth(2), Some(20));
            let mv = engine.select_move(&game).unwrap();
            let truth = solve(&game.rules, game.position()).unwrap();
            assert!(truth.best_moves.contains(&mv), "seed {seed}: {mv} not in {:?}", truth.best_moves);
            checked += 1;
        }
        assert!(checked > 20);
    }

    /// Deeper is stronger, and the fitted patterns beat the textbook evaluation at equal depth.
    #[test]
    fn the_engine_beats_the_positional_baseline() {
        let rules = Rules::othello();
        let mut pattern = |_| -> Box<dyn Agent> { Box::new(PatternEngine::new(Budget::Depth(2), Some(0))) };
        let mut positional = |seed| -> Box<dyn Agent> { Box::new(crate::PositionalAgent::new(2, seed)) };
        let score = match_score(rules, &mut pattern, &mut positional, 20);
        assert!(score >= 0.8, "pattern:depth=2 scored {score} against positional:depth=2");
    }

    #[test]
    fn a_time_budget_is_kept_and_other_boards_are_refused() {
        let game = random_game(7, 12);
        let mut engine = PatternEngine::new(Budget::Time(Duration::from_millis(50)), None);
        let started = Instant::now();
        let found = engine.search(&game.rules, &game).unwrap();
        assert!(started.elapsed() < Duration::from_millis(500), "{:?}", started.elapsed());
        assert!(found.depth >= 3, "{found:?}");
        let small = Game::new(Rules::othello().with_size(6).unwrap());
        let err = engine.select_move(&small).unwrap_err().to_string();
        assert!(err.contains("8x8"), "{err}");
    }
}
