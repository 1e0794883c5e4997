//! The search below the root, compiled once per kernel: deep nodes (table, stability and enhanced transposition
//! cut-offs, ordering by probes and the pattern evaluation, probcut in the selective passes), shallow nodes, and the
//! last empties.

use super::ordering::*;
use super::*;

impl Search<'_> {
    pub(super) fn max_score(&self) -> i32 {
        self.mask.count_ones() as i32
    }

    /// The score of a finished game from the point of view of the owner of `p`.
    #[inline(always)]
    pub(super) fn final_score(&self, p: u64, o: u64) -> i32 {
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
        let left = self.node_limit.saturating_sub(self.total_nodes());
        self.next_check = self.nodes + CHECK_EVERY.min(left.max(1));
        if self.total_nodes() >= self.node_limit || self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
        self.report(self.stage);
    }

    /// Tells the progress hook, if any, that the solve is at `stage`.
    pub(super) fn report(&mut self, stage: Stage) {
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
    pub(super) fn children(&self, p: u64, o: u64, moves: crate::Bitboard) -> Vec<(Square, u64, u64)> {
        moves
            .map(|sq| {
                let f = self.flips(p, o, sq.index() as u32);
                (sq, o ^ f, p | f | sq.bit())
            })
            .collect()
    }

    pub(super) fn moves(&self, p: u64, o: u64) -> u64 {
        crate::kernel::moves_with(self.kernel, p, o) & self.mask
    }
    fn flips(&self, p: u64, o: u64, sq: u32) -> u64 {
        crate::kernel::flips_with(self.kernel, p, o, sq)
    }

    /// The probe's value of (p, o) for `p`, `depth` plies deep.
    pub(super) fn estimate(&mut self, p: u64, o: u64, depth: u32) -> i32 {
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
    pub(super) fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> i32 {
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

const PROBE_INF: i32 = 1 << 20;
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
                // wipeout, which finds it faster by the fewest replies first (FFO #59's exact pass: 1.3 M nodes
                // against 16 M with probes).
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
                // A probe high in the tree can take millions of nodes: the limits are checked here too.
                if s.nodes >= s.next_check {
                    s.check_limits();
                }
                if s.aborted {
                    return 0;
                }
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
                if s.nodes >= s.next_check {
                    s.check_limits();
                }
                if s.aborted {
                    return 0;
                }
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
