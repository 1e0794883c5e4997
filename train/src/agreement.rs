//! Expert-move agreement: how often a network's most probable legal move is the move a tournament player chose,
//! next to the agreement of a uniformly random legal move.

use burn::tensor::Device;
use othello_core::wthor::WthorGame;
use othello_core::{Position, Rules, Symmetry};
use othello_net::{predict, Network, Predictor};

use crate::import::expert_positions;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agreement {
    pub positions: usize,
    /// Positions where the network's top legal move is the expert's.
    pub agreed: usize,
    /// Expected agreements of a uniformly random legal move (the sum of 1 / legal moves).
    pub random_expected: f64,
}

impl Agreement {
    pub fn rate(&self) -> f64 {
        self.agreed as f64 / self.positions.max(1) as f64
    }
    pub fn random_rate(&self) -> f64 {
        self.random_expected / self.positions.max(1) as f64
    }
}

/// Agreement of `net` (inference mode) with the moves of `games`, over positions with at least two legal moves.
pub fn expert_agreement(net: &Network, device: &Device, games: &[WthorGame]) -> Agreement {
    let mut decisions: Vec<(Rules, Position, usize)> = Vec::new();
    for game in games {
        let Ok(played) = game.replay() else { continue };
        let rules = played.rules;
        decisions.extend(
            expert_positions(&played)
                .filter(|(_, pos, _)| rules.legal_moves(pos).count() > 1)
                .map(|(_, pos, sq)| (rules, pos, sq)),
        );
    }
    let predictor = Predictor::new(net.clone(), device.clone());
    let mut result = Agreement::default();
    for chunk in decisions.chunks(256) {
        let Some(&(rules, _, _)) = chunk.first() else { continue };
        let positions: Vec<Position> = chunk.iter().map(|(_, p, _)| *p).collect();
        let evals = predict(&predictor, &rules, &positions, &vec![Symmetry::IDENTITY; positions.len()]);
        for ((rules, pos, expert), eval) in chunk.iter().zip(evals) {
            let legal = rules.legal_moves(pos);
            let best = legal.into_iter().max_by(|a, b| eval.policy[a.index()].total_cmp(&eval.policy[b.index()]));
            result.positions += 1;
            result.agreed += best.is_some_and(|sq| sq.index() == *expert) as usize;
            result.random_expected += 1.0 / legal.count() as f64;
        }
    }
    result
}
