//! What a search leaves behind: the move to play, the searched value of a move, and the policy targets (visit
//! counts for PUCT, the improved policy for Gumbel).

use othello_core::{Move, POLICY_SIZE};
use rand::Rng;

use crate::gumbel::softmax;
use crate::tree::{Node, Tree, ROOT};

impl Tree {
    /// The visit distribution over the root moves: the policy target; a proven root's is spread evenly over its
    /// best moves (the walks leave a child once it cannot beat what is already sure, so visits no longer follow
    /// it), and a proven move the search plays (`Tree::proven_or`) counts as many visits as the most visited.
    pub fn policy_target(&self) -> [f32; POLICY_SIZE] {
        let mut target = [0.0; POLICY_SIZE];
        if let Some(exact) = self.nodes[ROOT as usize].proven() {
            let best: Vec<Move> = self.children(ROOT).filter(|c| c.proven() == Some(-exact)).map(|c| c.mv).collect();
            for mv in &best {
                target[mv.policy_index()] = 1.0 / best.len() as f32;
            }
            return target;
        }
        let most_visited = self.most_visited_root_child();
        let max_visits = most_visited.map_or(0, |c| self.nodes[c as usize].visits);
        let played = most_visited.map(|c| self.proven_or(c));
        let count = |c: &Node| if Some(c.mv) == played { c.visits.max(max_visits) } else { c.visits };
        let total: u32 = self.children(ROOT).map(count).sum();
        for c in self.children(ROOT) {
            target[c.mv.policy_index()] = count(c) as f32 / total.max(1) as f32;
        }
        target
    }

    /// The Gumbel policy target: softmax(logit + sigma(completed q)) over the root moves, unvisited moves valued
    /// at the root's `Tree::mixed_value`.
    pub fn gumbel_policy_target(&self) -> [f32; POLICY_SIZE] {
        let (completed, sigma) = self.root_completed();
        let mut shares: Vec<f32> = self.children(ROOT).zip(&completed).map(|(c, q)| c.logit() + sigma.of(*q)).collect();
        softmax(&mut shares);
        let mut target = [0.0; POLICY_SIZE];
        for (c, share) in self.children(ROOT).zip(shares) {
            target[c.mv.policy_index()] = share;
        }
        target
    }

    /// The searched value of root move `mv` for the root's side to move (as `Tree::child_q`; the root's value
    /// before the root is expanded): what the search expects of the move it plays.
    pub fn move_value(&self, mv: Move) -> f32 {
        self.root_child(mv).map_or_else(|| self.root_value(), |c| self.child_q(c))
    }

    /// The root child with the most visits, ties to the higher prior; `None` before the root is expanded.
    pub(crate) fn most_visited_root_child(&self) -> Option<u32> {
        let root = &self.nodes[ROOT as usize];
        (root.first_child..root.first_child + root.children).max_by(|&a, &b| {
            let (a, b) = (&self.nodes[a as usize], &self.nodes[b as usize]);
            a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior))
        })
    }

    /// The move to play: sampled in proportion to visits^(1/temperature), or when the temperature is 0 the most
    /// visited (ties to the higher prior) unless a proven move is worth at least as much (`Tree::proven_or`).
    /// `None` at a finished game or an unsearched root.
    pub fn choose_move(&mut self, temperature: f32) -> Option<Move> {
        let children: Vec<(Move, u32, f32)> = self.children(ROOT).map(|c| (c.mv, c.visits, c.prior)).collect();
        if children.is_empty() {
            return None;
        }
        if temperature <= 1e-3 {
            return self.most_visited_root_child().map(|c| self.proven_or(c));
        }
        let weights: Vec<f64> = children.iter().map(|c| (c.1 as f64).powf(1.0 / temperature as f64)).collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return Some(children[self.rng.random_range(0..children.len())].0);
        }
        let mut x = self.rng.random::<f64>() * total;
        for (c, w) in children.iter().zip(&weights) {
            if x < *w {
                return Some(c.0);
            }
            x -= w;
        }
        children.last().map(|c| c.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MctsConfig;
    use crate::evaluator::{RolloutEvaluator, UniformEvaluator};
    use crate::testing::{quiet, random_endgames, rng, single_winning_moves};
    use othello_core::Rules;

    /// `gumbel_q_scale` multiplies the searched values' share of the policy target: over the same tree, each
    /// move's log-odds against the prior's grow threefold from scale 0.1 to 0.3, and at a tiny scale the target is
    /// the prior. (Small scales keep every move's share above f32's underflow in this decided endgame.)
    #[test]
    fn the_gumbel_q_scale_weighs_the_searched_values_in_the_policy_target() {
        let (pos, _) = single_winning_moves(1, 3)[0];
        let mut tree = Tree::new(Rules::othello(), pos, quiet(), rng(3));
        tree.gumbel_search(&mut RolloutEvaluator::new(3, 4), 32, 8, 8);
        let moves: Vec<(usize, f32)> = tree.children(ROOT).map(|c| (c.mv.policy_index(), c.prior)).collect();
        let log_odds_against_prior = |target: &[f32; POLICY_SIZE]| -> Vec<f32> {
            let (first, prior) = moves[0];
            moves.iter().map(|&(i, p)| (target[i] / target[first]).ln() - (p / prior).ln()).collect()
        };
        let mut targets = vec![];
        for scale in [0.1, 0.3, 1e-6] {
            tree.config.gumbel_q_scale = scale;
            targets.push(log_odds_against_prior(&tree.gumbel_policy_target()));
        }
        assert!(targets[0].iter().any(|x| x.abs() > 0.5), "the values move the target: {:?}", targets[0]);
        for ((base, tripled), tiny) in targets[0].iter().zip(&targets[1]).zip(&targets[2]) {
            assert!((tripled - 3.0 * base).abs() < 1e-2 * (1.0 + base.abs()), "{tripled} against 3 x {base}");
            assert!(tiny.abs() < 1e-3, "{tiny}");
        }
    }

    /// Walks leave a root move once it is proven best so far, so its visits stop counting its worth; where the
    /// search plays such a move over the most visited one, the policy target weighs it as much as the most visited.
    #[test]
    fn a_proven_move_played_is_weighed_in_the_policy_target() {
        let rules = Rules::othello();
        let cases = random_endgames(26, 60, 6, |pos, _| Some(*pos));
        let mut played_over_most_visited = 0;
        for (i, pos) in cases.iter().enumerate() {
            let mut tree = Tree::new(rules, *pos, MctsConfig { score_utility: 1.0, ..quiet() }, rng(i as u64));
            tree.search(&mut UniformEvaluator, 200, 4);
            if tree.root_proven().is_some() {
                continue;
            }
            let played = tree.choose_move(0.0).unwrap();
            let most_visited = tree.nodes[tree.most_visited_root_child().unwrap() as usize].mv;
            if played == most_visited {
                continue;
            }
            played_over_most_visited += 1;
            let target = tree.policy_target();
            let top = target.iter().copied().fold(0.0, f32::max);
            assert_eq!(target[played.policy_index()], top, "position {i}: {played:?} over {most_visited:?}");
        }
        eprintln!("{played_over_most_visited} of 60 searches play a proven move over the most visited");
        assert!(played_over_most_visited >= 5, "{played_over_most_visited} of 60");
    }
}
