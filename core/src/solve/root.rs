//! The root of a solve: the passes (selective, then exact) in aspiration windows, the modes' handling of the root
//! moves, and the principal variation.

use super::*;

impl Search<'_> {
    pub(super) fn solve(&mut self, rules: &Rules, pos: &Position, mode: Mode) -> Result<Solution, SolveError> {
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
    pub(super) fn solve_with_line(
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
    pub(super) fn principal_variation(&mut self, rules: &Rules, pos: &Position, first: Move, score: i32) -> Vec<Move> {
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
    pub(super) fn aspiration(&mut self, children: &mut [(Square, u64, u64)], guess: i32) -> i32 {
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
}
