//! Gumbel MuZero's child choice (Danihelka et al., 2022): completed values (an unvisited child at its parent's
//! `v_mix`), the monotone transform `sigma` that weighs them against the priors, and the improved policy.

use crate::config::MctsConfig;
use crate::tree::{Node, Tree, ROOT};

/// max N the most visits among the children), by the value range or, with `gumbel_q_rescale`, by the children's
/// least and greatest completed value.
pub(crate) struct Sigma {
    weight: f32,
    low: f32,
    span: f32,
}

impl Sigma {
    pub(crate) fn new(config: &MctsConfig, max_visits: u32, completed: &[f32]) -> Sigma {
        let weight = (50.0 + max_visits as f32) * config.gumbel_q_scale;
        if !config.gumbel_q_rescale {
            return Sigma { weight, low: -1.0, span: 2.0 };
        }
        let low = completed.iter().copied().fold(f32::INFINITY, f32::min);
        let high = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        // mctx's epsilon: equal values all map to 0.
        Sigma { weight, low, span: (high - low).max(1e-8) }
    }

    pub(crate) fn of(&self, q: f32) -> f32 {
        self.weight * (q - self.low) / self.span
    }
}

/// Logits into their softmax, in place.
pub(crate) fn softmax(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        total += *v;
    }
    for v in values.iter_mut() {
        *v /= total;
    }
}

impl Tree {
    /// [`InteriorSelection::Gumbel`]: `argmax pi'(c) - n(c) / (1 + sum n)`, with `pi'` the softmax of each
    /// child's log prior plus `sigma` of its value (the node's [`Tree::mixed_value`] for an unvisited one), `sigma`
    /// scaled by the node's own most visited child as the root's is by the root's. Virtual visits count as losses,
    /// as in PUCT, and a child that cannot beat what the mover is sure of is passed over.
    pub(crate) fn gumbel_child(&self, id: u32) -> u32 {
        let parent = &self.nodes[id as usize];
        let first = parent.first_child as usize;
        // At most one child per square.
        let children = &self.nodes[first..first + (parent.children as usize).min(64)];
        // Wanted only when a child is unvisited: a walk step need not sum the children twice.
        let mut unvisited = None;
        let assured = -parent.optimistic;
        let visits = |c: &Node| c.visits + c.virtual_visits;
        let total: u32 = children.iter().map(visits).sum();
        let most = children.iter().map(visits).max().unwrap_or(0);
        let mut completed = [0.0f32; 64];
        for (q, c) in completed.iter_mut().zip(children) {
            let n = visits(c);
            let mean = match n {
                0 => *unvisited.get_or_insert_with(|| self.mixed_value(id)),
                _ => (c.value_sum - c.virtual_visits as f32) / n as f32,
            };
            *q = mean.clamp(c.pessimistic, c.optimistic);
        }
        let completed = &completed[..children.len()];
        let sigma = Sigma::new(&self.config, most, completed);
        let mut improved = [0.0f32; 64];
        for ((share, c), q) in improved.iter_mut().zip(children).zip(completed) {
            *share = c.logit() + sigma.of(*q);
        }
        let improved = &mut improved[..children.len()];
        softmax(improved);
        let mut best = (f32::NEG_INFINITY, 0);
        for (i, (c, share)) in children.iter().zip(improved.iter()).enumerate() {
            if c.optimistic <= assured {
                continue;
            }
            let score = share - visits(c) as f32 / (1 + total) as f32;
            if score > best.0 {
                best = (score, i);
            }
        }
        (first + best.1) as u32
    }

    /// A root child's value for the root's side to move, within its bounds (the root's [`Tree::mixed_value`] if
    /// unvisited).
    pub(crate) fn child_q(&self, child: u32) -> f32 {
        self.nodes[child as usize].completed_mean(|| self.mixed_value(ROOT))
    }

    /// Gumbel MuZero's `v_mix` of node `id`, for its side to move: its own network value and its visited
    /// children's mean values weighted by their priors, `(v + N sum pi(c) q(c) / sum pi(c)) / (1 + N)` over the
    /// visited children, N their visits: an unvisited child's value in the completed policy, as the paper and
    /// DeepMind's mctx have it in place of the node's mean, which follows the visits, not the priors.
    pub(crate) fn mixed_value(&self, id: u32) -> f32 {
        let node = &self.nodes[id as usize];
        let (mut visits, mut prior, mut weighted) = (0u32, 0.0f32, 0.0f32);
        for c in self.children_of(node).filter(|c| c.visits > 0) {
            visits += c.visits;
            prior += c.prior;
            weighted += c.prior * c.value_sum / c.visits as f32;
        }
        let own = -node.network_value;
        if prior <= 0.0 {
            return own;
        }
        (own + visits as f32 * weighted / prior) / (1 + visits) as f32
    }

    /// The root children's completed values (as [`Tree::child_q`], the root's v_mix computed once) and the
    /// [`Sigma`] they are compared by.
    pub(crate) fn root_completed(&self) -> (Vec<f32>, Sigma) {
        let mut mixed = None;
        let completed: Vec<f32> = self
            .children(ROOT)
            .map(|c| c.completed_mean(|| *mixed.get_or_insert_with(|| self.mixed_value(ROOT))))
            .collect();
        let most = self.children(ROOT).map(|c| c.visits).max().unwrap_or(0);
        let sigma = Sigma::new(&self.config, most, &completed);
        (completed, sigma)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::InteriorSelection;
    use crate::evaluator::{Evaluation, Evaluator};
    use crate::testing::{quiet, rng, three_root_moves};
    use othello_core::{Position, Rules};

    /// v_mix by hand: a root the network values at 0.5 for its mover, children of priors 0.5, 0.3 and 0.2, the
    /// first two visited twice (mean 0.2) and once (-0.4): (0.5 + 3 (0.5 * 0.2 + 0.3 * -0.4) / 0.8) / 4 = 0.10625,
    /// the unvisited third's value in the completed policy; with no child visited, the network's value.
    #[test]
    fn an_unvisited_root_move_is_valued_at_the_mixed_value() {
        let mut tree = three_root_moves(MctsConfig::default());
        tree.nodes[ROOT as usize].children = 0;
        assert_eq!(tree.mixed_value(ROOT), 0.5);
        tree.nodes[ROOT as usize].children = 3;
        assert!((tree.mixed_value(ROOT) - 0.10625).abs() < 1e-6, "{}", tree.mixed_value(ROOT));
        assert!((tree.child_q(3) - 0.10625).abs() < 1e-6);
        assert!((tree.child_q(1) - 0.2).abs() < 1e-6);
    }

    /// The policy target's log odds against the prior, worked by hand on [`three_root_moves`] (c_scale 0.1, so
    /// sigma's weight is (50 + 2) * 0.1 = 5.2): by the value range, q = 0.2, -0.4 and 0.10625 add 5.2 (q + 1) / 2;
    /// rescaled by their least (-0.4) and greatest (0.2), 5.2 (q + 0.4) / 0.6, the best move 5.2 above the worst.
    #[test]
    fn gumbel_q_rescale_spans_the_compared_values() {
        for (rescale, sigma) in [(false, [3.12, 1.56, 2.876_25]), (true, [5.2, 0.0, 4.3875])] {
            let config = MctsConfig { gumbel_q_scale: 0.1, gumbel_q_rescale: rescale, ..MctsConfig::default() };
            let tree = three_root_moves(config);
            let target = tree.gumbel_policy_target();
            let children: Vec<&Node> = tree.children(ROOT).collect();
            let share = |i: usize| target[children[i].mv.policy_index()];
            for (i, prior) in [(0, 0.5f32), (2, 0.2)] {
                let log_odds = (share(i) / share(1)).ln();
                let expected = (prior / 0.3).ln() + sigma[i] - sigma[1];
                assert!((log_odds - expected).abs() < 1e-4, "{rescale}, {i}: {log_odds} against {expected}");
            }
            assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }

    /// Priors that favour higher squares, every value 0: the improved policy is then the prior.
    struct SlopedPriors;

    impl Evaluator for SlopedPriors {
        fn evaluate(&mut self, _rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
            out.clear();
            let policy = std::array::from_fn(|i| (i + 1) as f32);
            out.resize(positions.len(), Evaluation { policy, ..Evaluation::default() });
        }
    }

    /// Uniform priors; a position's value the disc count's lead of its side to move, squashed.
    struct DiscLead;

    impl Evaluator for DiscLead {
        fn evaluate(&mut self, _rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
            out.clear();
            out.extend(positions.iter().map(|p| {
                let lead = p.player.count() as f32 - p.opponent.count() as f32;
                Evaluation { value: (lead / 8.0).tanh(), ..Evaluation::default() }
            }));
        }
    }

    /// Below the root, Gumbel's choice makes each child's visits follow the improved policy: with every value 0
    /// that is the prior, to within one visit (the rule's guarantee, Danihelka et al. 2022); with values, the
    /// improved policy of the values the search found.
    #[test]
    fn gumbel_interior_visits_follow_the_improved_policy() {
        let config = MctsConfig { interior: InteriorSelection::Gumbel, ..quiet() };
        let start = Rules::othello().start_position();
        let mut tree = Tree::new(Rules::othello(), start, config.clone(), rng(3));
        tree.search(&mut SlopedPriors, 2000, 1);
        let mut interior = 0;
        for node in tree.children(ROOT).filter(|c| c.children >= 2) {
            let children: Vec<&Node> = tree.children_of(node).collect();
            let total: u32 = children.iter().map(|c| c.visits).sum();
            assert_eq!(total + 1, node.visits);
            let prior: f32 = children.iter().map(|c| c.prior).sum();
            for c in children {
                let share = c.prior / prior * total as f32;
                assert!((c.visits as f32 - share).abs() <= 1.0, "{} visits where the prior gives {share}", c.visits);
            }
            interior += 1;
        }
        assert!(interior >= 4, "{interior} interior nodes");

        // With values, against the improved policy of the final values (the paper's formula, unvisited children at
        // the parent's v_mix): early visits followed earlier values, so within a distance (0.05-0.13 here; with the
        // values' sign reversed in the rule about 1).
        let mut tree = Tree::new(Rules::othello(), start, config, rng(3));
        tree.search(&mut DiscLead, 2000, 8);
        let root = &tree.nodes[ROOT as usize];
        let visited = |&c: &u32| tree.nodes[c as usize].visits >= 100;
        for id in (root.first_child..root.first_child + root.children).filter(visited) {
            let children: Vec<&Node> = tree.children(id).collect();
            let total: u32 = children.iter().map(|c| c.visits).sum();
            let most = children.iter().map(|c| c.visits).max().unwrap();
            let parent_q = tree.mixed_value(id);
            let logits: Vec<f32> = children
                .iter()
                .map(|c| {
                    let q = if c.visits > 0 { c.value_sum / c.visits as f32 } else { parent_q };
                    c.prior.ln() + (50.0 + most as f32) * (q + 1.0) / 2.0
                })
                .collect();
            let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let sum: f32 = logits.iter().map(|l| (l - max).exp()).sum();
            let distance: f32 = children
                .iter()
                .zip(&logits)
                .map(|(c, l)| ((l - max).exp() / sum - c.visits as f32 / total as f32).abs())
                .sum::<f32>()
                / 2.0;
            assert!(distance < 0.3, "visits {distance} from the improved policy (total variation)");
        }
    }
}
