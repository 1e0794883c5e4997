//! AlphaZero's child choice, `q + c * P * sqrt(N) / (1 + n)` with first-play urgency, and the Dirichlet noise
//! that self-play adds to the root's priors.

use rand_distr::{Distribution, Gamma};

use crate::config::InteriorSelection;
use crate::tree::{Tree, ROOT};

impl Tree {
    pub(crate) fn best_child(&self, id: u32) -> u32 {
        if id != ROOT && self.config.interior == InteriorSelection::Gumbel {
            return self.gumbel_child(id);
        }
        let parent = &self.nodes[id as usize];
        let parent_visits = parent.visits + parent.virtual_visits;
        let sqrt_n = (parent_visits.max(1) as f32).sqrt();
        let children = parent.first_child..parent.first_child + parent.children;
        let parent_q = -parent.bounded_mean(0.0);
        let visited_prior: f32 =
            children.clone().map(|c| &self.nodes[c as usize]).filter(|c| c.visits > 0).map(|c| c.prior).sum();
        let reduction = if id == ROOT && self.config.root_noise { 0.0 } else { self.config.fpu_reduction };
        let fpu = parent_q - reduction * visited_prior.sqrt();
        // What the mover is sure of already (the best child's pessimistic bound, kept as the parent's optimistic
        // one): a child that cannot beat it needs no more search. That child included: the walks go where the
        // answer can still change ([`Tree::proven_or`] plays it).
        let assured = -parent.optimistic;
        let mut best = (f32::NEG_INFINITY, children.start);
        for c in children {
            let child = &self.nodes[c as usize];
            if child.optimistic <= assured {
                continue;
            }
            let n = child.visits + child.virtual_visits;
            // A virtual visit counts as a loss for the player choosing this child.
            let mean = if n > 0 { (child.value_sum - child.virtual_visits as f32) / n as f32 } else { fpu };
            let q = mean.clamp(child.pessimistic, child.optimistic);
            let u = self.config.cpuct * child.prior * sqrt_n / (1 + n) as f32;
            if q + u > best.0 {
                best = (q + u, c);
            }
        }
        best.1
    }

    pub(crate) fn add_root_noise(&mut self) {
        let root = &self.nodes[ROOT as usize];
        let n = root.children as usize;
        if n < 2 {
            return;
        }
        let alpha = (self.config.dirichlet_total / n as f32) as f64;
        let Ok(gamma) = Gamma::new(alpha, 1.0) else { return };
        let noise: Vec<f64> = (0..n).map(|_| gamma.sample(&mut self.rng)).collect();
        let sum: f64 = noise.iter().sum();
        if sum <= 0.0 || !sum.is_finite() {
            return;
        }
        let eps = self.config.dirichlet_epsilon;
        let first = root.first_child as usize;
        for (i, x) in noise.into_iter().enumerate() {
            let child = &mut self.nodes[first + i];
            child.prior = (1.0 - eps) * child.prior + eps * (x / sum) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MctsConfig;
    use crate::evaluator::{RolloutEvaluator, UniformEvaluator};
    use crate::testing::{quiet, rng, single_winning_moves};
    use othello_core::{Color, Game, Rules};

    #[test]
    fn rollout_mcts_picks_the_only_winning_move() {
        let cases = single_winning_moves(20, 7);
        let mut right = 0;
        for (i, (pos, winner)) in cases.iter().enumerate() {
            let mut tree = Tree::new(Rules::othello(), *pos, quiet(), rng(i as u64));
            tree.search(&mut RolloutEvaluator::new(i as u64, 4), 1000, 8);
            right += (tree.choose_move(0.0) == Some(*winner)) as usize;
        }
        assert!(right >= 19, "{right} of 20 winning moves found");
    }

    /// Plays one game on 6x6 between a search of `a_sims` (black when `a_black`) and one of `b_sims`.
    fn match_game(a_sims: u32, b_sims: u32, a_black: bool, seed: u64) -> i32 {
        let rules = Rules::othello().with_size(6).unwrap();
        let mut game = Game::new(rules);
        let mut trees = [
            Tree::new(rules, *game.position(), quiet(), rng(seed)),
            Tree::new(rules, *game.position(), quiet(), rng(seed + 1)),
        ];
        let mut evals = [RolloutEvaluator::new(seed, 2), RolloutEvaluator::new(seed + 1, 2)];
        while !game.is_over() {
            let black_to_move = game.position().side == Color::Black;
            let i = if black_to_move == a_black { 0 } else { 1 };
            let sims = if i == 0 { a_sims } else { b_sims };
            trees[i].search(&mut evals[i], sims, 4);
            // Sampled opening moves make the games differ.
            let temperature = if game.moves().len() < 4 { 1.0 } else { 0.0 };
            let mv = trees[i].choose_move(temperature).unwrap();
            game.push(mv).unwrap();
            for t in &mut trees {
                t.advance(mv);
            }
        }
        let margin = game.outcome().margin_for(Color::Black);
        if a_black {
            margin
        } else {
            -margin
        }
    }

    #[test]
    fn more_simulations_beat_fewer() {
        let (mut wins, mut losses) = (0, 0);
        for g in 0..20 {
            let m = match_game(300, 10, g % 2 == 0, 100 + g);
            wins += (m > 0) as u32;
            losses += (m < 0) as u32;
        }
        assert!(wins >= 14 && wins > 3 * losses, "{wins} wins, {losses} losses");
    }

    /// Root noise follows the kind of the search about to run, on a reused tree too: the priors of an expanded root
    /// are the evaluator's until noise is turned on, and change at once when it is.
    #[test]
    fn root_noise_is_decided_per_search() {
        let rules = Rules::othello();
        let mut tree = Tree::new(rules, rules.start_position(), MctsConfig::default(), rng(4));
        tree.search(&mut UniformEvaluator, 200, 8);
        let mv = tree.choose_move(0.0).unwrap();
        tree.advance(mv);
        let priors = |t: &Tree| t.children(ROOT).map(|c| c.prior).collect::<Vec<f32>>();
        let uniform = priors(&tree);
        assert!(uniform.len() > 1 && uniform.iter().all(|&p| (p - uniform[0]).abs() < 1e-6), "{uniform:?}");
        tree.set_root_noise(false);
        assert_eq!(priors(&tree), uniform, "a cheap search keeps the evaluator's priors");
        tree.set_root_noise(true);
        let noised = priors(&tree);
        assert!(noised != uniform && (noised.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{noised:?}");
    }
}
