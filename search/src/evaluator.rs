//! What MCTS asks of a position: a prior over the moves and a value.

use othello_core::playout::below;
use othello_core::{Position, Rules, Status, POLICY_SIZE};
use rand_pcg::Pcg64Mcg;

/// The evaluation of one position, from its side to move's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Non-negative weights over the moves (only the legal ones are read; the tree normalises them).
    pub policy: [f32; POLICY_SIZE],
    /// Expected result in [-1, 1]: 1 a win, -1 a loss.
    pub value: f32,
    /// Expected final disc margin, in discs (0 where the evaluator does not say).
    pub margin: f32,
}

impl Default for Evaluation {
    fn default() -> Evaluation {
        Evaluation { policy: [1.0; POLICY_SIZE], value: 0.0, margin: 0.0 }
    }
}

/// Evaluates a batch of positions at once (one network call for the leaves of many trees).
pub trait Evaluator {
    fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>);
    /// Positions this evaluator has sent through a network so far (cache hits excluded); 0 for the others.
    fn network_evaluations(&self) -> u64 {
        0
    }
}

/// A uniform prior and a value of 0: MCTS then relies on exact terminal values alone.
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, _rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
        out.clear();
        out.resize(positions.len(), Evaluation::default());
    }
}

/// A uniform prior and the mean result and margin of `rollouts` uniformly random games. The games are seeded from the
/// position and `seed`, so that an evaluation depends on nothing else (not on what was evaluated before).
pub struct RolloutEvaluator {
    seed: u64,
    rollouts: u32,
}

impl RolloutEvaluator {
    pub fn new(seed: u64, rollouts: u32) -> RolloutEvaluator {
        RolloutEvaluator { seed, rollouts: rollouts.max(1) }
    }

    /// One random game from `pos` to the end: its final disc margin for `pos`'s side to move.
    fn rollout(rules: &Rules, pos: &Position, rng: &mut Pcg64Mcg) -> i32 {
        let mut p = *pos;
        loop {
            match rules.status(&p) {
                Status::Over => return rules.outcome(&p).margin_for(pos.side),
                Status::MustPass => p = p.pass(),
                Status::Moves(m) => {
                    let sq = m.nth(below(rng, m.count())).expect("n < count");
                    p = rules.play_legal(&p, sq);
                }
            }
        }
    }
}

impl Evaluator for RolloutEvaluator {
    fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
        out.clear();
        for pos in positions {
            let mut rng = othello_core::playout::game_rng(self.seed, pos.hash());
            let margins: Vec<i32> = (0..self.rollouts).map(|_| Self::rollout(rules, pos, &mut rng)).collect();
            let n = self.rollouts as f32;
            let value = margins.iter().map(|m| m.signum() as f32).sum::<f32>() / n;
            let margin = margins.iter().sum::<i32>() as f32 / n;
            out.push(Evaluation { value, margin, ..Evaluation::default() });
        }
    }
}
