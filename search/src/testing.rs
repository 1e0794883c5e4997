//! Positions and evaluators the search's tests share.

use othello_core::solve::{Limits, Mode, Solution, Solver};
use othello_core::{Game, Move, Position, Rules, Status};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::config::MctsConfig;
use crate::evaluator::{Evaluation, Evaluator};
use crate::tree::{Node, State, Tree, ROOT};

pub(crate) fn quiet() -> MctsConfig {
    MctsConfig { root_noise: false, ..MctsConfig::default() }
}

pub(crate) fn rng(seed: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(seed)
}

/// Positions with `empties` empties and at least two moves from seeded random games, each with every move's
/// exact score, until `keep` has taken `count` of them.
pub(crate) fn random_endgames<T>(
    seed: u64,
    count: usize,
    empties: u32,
    mut keep: impl FnMut(&Position, &Solution) -> Option<T>,
) -> Vec<T> {
    let rules = Rules::othello();
    let mut solver = Solver::new();
    let mut r = rng(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let mut game = Game::new(rules);
        while !game.is_over() && 64 - game.position().occupied().count() > empties {
            let mv = match game.status() {
                Status::Moves(m) => Move::Play(m.nth(r.random_range(0..m.count())).unwrap()),
                _ => Move::Pass,
            };
            game.push(mv).unwrap();
        }
        if !matches!(game.status(), Status::Moves(m) if m.count() >= 2) {
            continue;
        }
        let s = solver.solve(&rules, game.position(), Mode::AllMoves, Limits::default()).unwrap();
        found.extend(keep(game.position(), &s));
    }
    found
}

/// Positions from random games with `empties` empties where exactly one move wins and no other does.
pub(crate) fn single_winning_moves(count: usize, empties: u32) -> Vec<(Position, Move)> {
    random_endgames(21, count, empties, |pos, s| {
        let winners: Vec<Move> = s.move_scores.iter().filter(|m| m.1 > 0).map(|m| m.0).collect();
        (winners.len() == 1).then(|| (*pos, winners[0]))
    })
}

/// The solver as an evaluator: the exact result and margin of every leaf, uniform priors.
pub(crate) struct ExactEvaluator(pub(crate) Solver);

impl Evaluator for ExactEvaluator {
    fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
        out.clear();
        for pos in positions {
            let s = self.0.solve(rules, pos, Mode::Exact, Limits::default()).unwrap();
            out.push(Evaluation { value: s.score.signum() as f32, margin: s.score as f32, ..Evaluation::default() });
        }
    }
}

/// Positions from random games with `empties` empties where several moves keep the best result but not all of
/// them reach the best margin: each with its best moves.
pub(crate) fn margin_choices(count: usize, empties: u32) -> Vec<(Position, Vec<Move>)> {
    random_endgames(22, count, empties, |pos, s| {
        let keeping = s.move_scores.iter().filter(|m| m.1.signum() == s.score.signum()).count();
        (keeping >= 2 && keeping > s.best_moves.len()).then(|| (*pos, s.best_moves.clone()))
    })
}

/// The start position's root, its network value -0.5 for the side to move (0.5 for the root's mover), with
/// three moves: priors 0.5, 0.3, 0.2; visits 2, 1, 0; mean values 0.2, -0.4, unvisited (v_mix 0.10625).
pub(crate) fn three_root_moves(config: MctsConfig) -> Tree {
    let rules = Rules::othello();
    let pos = rules.start_position();
    let mut tree = Tree::new(rules, pos, config, rng(1));
    tree.nodes[ROOT as usize].network_value = -0.5;
    tree.nodes[ROOT as usize].state = State::Expanded;
    let moves = rules.legal_moves(&pos);
    for (square, (prior, visits, value_sum)) in moves.zip([(0.5, 2, 0.4), (0.3, 1, -0.4), (0.2, 0, 0.0)]) {
        let mut child = Node::new(pos, Move::Play(square), prior);
        (child.visits, child.value_sum) = (visits, value_sum);
        tree.nodes.push(child);
    }
    (tree.nodes[ROOT as usize].first_child, tree.nodes[ROOT as usize].children) = (1, 3);
    tree
}
