//! The network as an MCTS evaluator: positions encoded as planes, one forward pass per batch, a random symmetry
//! per position, and a cache of evaluations keyed by the position hash.

use std::collections::HashMap;

use burn::tensor::Device;
use othello_core::{Position, Rules, Symmetry};
use othello_net::{predict, Network, Predictor};

use crate::evaluator::{Evaluation, Evaluator};

/// Evaluates with a network on a Burn device.
pub struct NetworkEvaluator {
    predictor: Predictor,
    /// Picks each position's symmetry: a hash of the position and this salt, so that an evaluation is a
    /// function of the position (reproducible games whatever else is in the batch or the cache).
    symmetry_salt: u64,
    /// Evaluate each position through a pseudo-random one of the 8 symmetries (on by default).
    pub random_symmetry: bool,
    cache: HashMap<u64, Evaluation>,
    /// Entries kept before the cache is cleared (0 turns it off).
    pub cache_capacity: usize,
    pub hits: u64,
    pub misses: u64,
}

impl NetworkEvaluator {
    pub fn new(net: Network, device: Device, symmetry_salt: u64) -> NetworkEvaluator {
        NetworkEvaluator {
            predictor: Predictor::new(net, device),
            symmetry_salt,
            random_symmetry: true,
            cache: HashMap::new(),
            cache_capacity: 1 << 18,
            hits: 0,
            misses: 0,
        }
    }

    /// One forward pass over `positions`, each seen through its symmetry; results mapped back to the position.
    pub fn evaluate_with(&self, rules: &Rules, positions: &[Position], symmetries: &[Symmetry]) -> Vec<Evaluation> {
        predict(&self.predictor, rules, positions, symmetries)
            .into_iter()
            .map(|p| Evaluation { policy: p.policy, value: p.value, margin: p.margin })
            .collect()
    }
}

impl Evaluator for NetworkEvaluator {
    fn network_evaluations(&self) -> u64 {
        self.misses
    }

    fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
        out.clear();
        out.resize(positions.len(), Evaluation::default());
        let mut missing = Vec::new();
        for (i, pos) in positions.iter().enumerate() {
            match self.cache.get(&pos.hash()) {
                Some(e) if self.cache_capacity > 0 => {
                    out[i] = e.clone();
                    self.hits += 1;
                }
                _ => missing.push(i),
            }
        }
        self.misses += missing.len() as u64;
        let batch: Vec<Position> = missing.iter().map(|&i| positions[i]).collect();
        let symmetries: Vec<Symmetry> = batch
            .iter()
            .map(|p| {
                let h = othello_core::position::hash_discs(p.hash(), self.symmetry_salt);
                if self.random_symmetry {
                    Symmetry::from_index((h >> 61) as usize)
                } else {
                    Symmetry::IDENTITY
                }
            })
            .collect();
        let evals = self.evaluate_with(rules, &batch, &symmetries);
        if self.cache.len() + evals.len() > self.cache_capacity {
            self.cache.clear();
        }
        for (&i, e) in missing.iter().zip(evals) {
            if self.cache_capacity > 0 {
                self.cache.insert(positions[i].hash(), e.clone());
            }
            out[i] = e;
        }
    }
}
