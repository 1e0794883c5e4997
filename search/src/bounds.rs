//! Score-bounded MCTS (Cazenave and Saffidine, 2010): every node carries bounds on its exact utility, tightened by
//! minimax from the finished games found below it. A node's value is read clamped to its bounds, a walk never
//! enters a child that cannot beat what its mover is already sure of, a proven node (bounds met) backs its exact
//! value up without an evaluation, and a proven move is played unless the chosen one promises more. Near the end of
//! a game the search thus plays exactly once it has seen enough lines, where averages would still blur a won line
//! with a lost one.

use othello_core::Move;

use crate::tree::{Tree, ROOT};

impl Tree {
    /// After the bounds of the last node of `path` changed: the minimax of the children's bounds for each ancestor
    /// in turn, up to one that does not change.
    pub(crate) fn tighten_bounds(&mut self, path: &[u32]) {
        for &id in path.iter().rev().skip(1) {
            // The children's bounds are for this node's mover, who picks the best of them.
            let (mut best_pessimistic, mut best_optimistic) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
            for child in self.children(id) {
                best_pessimistic = best_pessimistic.max(child.pessimistic);
                best_optimistic = best_optimistic.max(child.optimistic);
            }
            let node = &mut self.nodes[id as usize];
            let bounds = (-best_optimistic, -best_pessimistic);
            if bounds == (node.pessimistic, node.optimistic) {
                return;
            }
            (node.pessimistic, node.optimistic) = bounds;
        }
    }

    /// The move of root child `chosen`, unless the best proven root move is worth at least `chosen`'s value: then
    /// that one (ties to the more visited). A proven root thus plays its best move, and a proof is never traded for
    /// an estimate that promises no more.
    pub(crate) fn proven_or(&self, chosen: u32) -> Move {
        let best_proven = self
            .children(ROOT)
            .filter_map(|c| Some((c.proven()?, c.visits, c.mv)))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        match best_proven {
            Some((exact, _, mv)) if exact >= self.child_q(chosen) => mv,
            _ => self.nodes[chosen as usize].mv,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MctsConfig;
    use crate::evaluator::{Evaluation, Evaluator, UniformEvaluator};
    use crate::testing::{quiet, random_endgames, rng};
    use crate::value::utility;
    use othello_core::{Game, Position, Rules, Square, Status};

    /// Terminal positions carry their exact value: a finished game is a certain win for the side with more discs.
    #[test]
    fn terminal_values_are_exact() {
        let rules = Rules::othello();
        let g = Game::from_transcript(rules, "e6 f4 e3 d6 c5 f6 e7 f5").unwrap(); // g5 wins 13-0 at once
        let mut tree = Tree::new(rules, *g.position(), quiet(), rng(7));
        tree.search(&mut UniformEvaluator, 400, 4);
        assert_eq!(tree.choose_move(0.0), Some(Move::Play("g5".parse().unwrap())));
        assert!(tree.root_value() > 0.5, "{}", tree.root_value());
    }

    /// A move that ends the game is exact as soon as its parent is expanded, however little the prior makes of it:
    /// with the wipe-out g5 given no prior at all, two simulations (PUCT) or two considered moves (Gumbel, which
    /// ranks root moves by prior) play g5; with the result alone as the utility they prove the root won.
    #[test]
    fn a_move_that_ends_the_game_is_exact_before_it_is_visited() {
        struct HidesTheWipeOut;
        impl Evaluator for HidesTheWipeOut {
            fn evaluate(&mut self, _rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
                let mut blind = Evaluation::default();
                blind.policy["g5".parse::<Square>().unwrap().index()] = 0.0;
                out.clear();
                out.resize(positions.len(), blind);
            }
        }
        let rules = Rules::othello();
        let g = Game::from_transcript(rules, "e6 f4 e3 d6 c5 f6 e7 f5").unwrap();
        let g5 = Move::Play("g5".parse().unwrap());
        let after = rules.play(g.position(), g5).unwrap();
        assert!(matches!(rules.status(&after), Status::Over) && after.white().count() == 0);
        for w in [0.0, 0.25] {
            let config = MctsConfig { score_utility: w, ..quiet() };
            let proven = (w == 0.0).then_some(1.0);
            let mut puct = Tree::new(rules, *g.position(), config.clone(), rng(7));
            puct.search(&mut HidesTheWipeOut, 2, 1);
            assert_eq!((puct.choose_move(0.0), puct.root_proven()), (Some(g5), proven), "PUCT, w {w}");
            let mut gumbel = Tree::new(rules, *g.position(), config, rng(7));
            assert_eq!(gumbel.gumbel_search(&mut HidesTheWipeOut, 2, 1, 2), Some(g5), "Gumbel, w {w}");
            assert_eq!(gumbel.root_proven(), proven, "Gumbel, w {w}");
        }
    }

    /// A search that has seen the lines of an endgame that matter proves its root: the proof is the solver's exact
    /// score (as a utility, with the margin weighed and without), and a proven root plays one of the solver's best
    /// moves and makes them its policy target, though its evaluator knows nothing (uniform priors, value 0).
    #[test]
    fn proven_roots_hold_the_solvers_score_and_play_its_move() {
        let rules = Rules::othello();
        let cases = random_endgames(24, 20, 5, |pos, s| Some((*pos, s.score, s.move_scores.clone())));
        for w in [0.0, 1.0] {
            let mut proven = 0;
            for (i, (pos, score, move_scores)) in cases.iter().enumerate() {
                let config = MctsConfig { score_utility: w, ..quiet() };
                let mut tree = Tree::new(rules, *pos, config.clone(), rng(i as u64));
                tree.search(&mut UniformEvaluator, 3000, 4);
                let Some(value) = tree.root_proven() else { continue };
                proven += 1;
                let exact = utility(&rules, &config, score.signum() as f32, *score as f32);
                assert_eq!(value, exact, "w {w}, position {i} (solver: {score})");
                assert_eq!(tree.root_value(), exact);
                // With the result alone, any move keeping the solver's result is best.
                let best = |mv: Move| {
                    let reached = move_scores.iter().find(|m| m.0 == mv).unwrap().1;
                    if w > 0.0 {
                        reached == *score
                    } else {
                        reached.signum() == score.signum()
                    }
                };
                let played = tree.choose_move(0.0).unwrap();
                assert!(best(played), "w {w}, position {i}: {played:?}, the solver {score}: {move_scores:?}");
                let target = tree.policy_target();
                let on_best: f32 = move_scores.iter().filter(|m| best(m.0)).map(|m| target[m.0.policy_index()]).sum();
                assert!((on_best - 1.0).abs() < 1e-5, "w {w}, position {i}: {on_best} of the target on best moves");
            }
            eprintln!("w {w}: {proven} of 20 roots proven with 3000 simulations");
            assert!(proven >= 18, "w {w}: {proven} of 20 roots proven");
        }
    }

    /// A player's Gumbel search of 400 simulations proves nearly every root with four empties, whatever the priors
    /// say, and where it has, plays the solver's move.
    #[test]
    fn gumbel_plays_the_solvers_move_once_the_root_is_proven() {
        let rules = Rules::othello();
        let cases = random_endgames(25, 30, 4, |pos, s| Some((*pos, s.best_moves.clone())));
        let mut proven = 0;
        for (i, (pos, best)) in cases.iter().enumerate() {
            let config = MctsConfig { score_utility: 1.0, ..quiet() };
            let mut tree = Tree::new(rules, *pos, config, rng(i as u64));
            let played = tree.gumbel_search(&mut UniformEvaluator, 400, 4, 8).unwrap();
            if tree.root_proven().is_some() {
                proven += 1;
                assert!(best.contains(&played), "position {i}: {played:?}, the solver's best {best:?}");
            }
        }
        eprintln!("{proven} of 30 roots proven with 400 simulations");
        assert!(proven >= 27, "{proven} of 30 roots proven");
    }
}
