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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{play_game, SelfPlayConfig};
    use othello_net::NetConfig;
    use othello_run::{read_shards, Provenance, Shard};

    fn tiny() -> (NetConfig, Network, Device) {
        let device = Device::flex();
        let config = NetConfig::new(1, 8);
        let net = config.init_seeded(&device, 7);
        (config, net, device)
    }

    /// Self-play with a tiny network writes shards that hold only legal, consistent, reproducible games.
    #[test]
    fn self_play_with_a_tiny_network() {
        let rules = Rules::othello();
        let config = SelfPlayConfig { simulations: 12, ..SelfPlayConfig::default() };
        let play = |seed| {
            let (_, net, device) = tiny();
            let mut ev = NetworkEvaluator::new(net, device, seed);
            play_game(rules, &mut ev, &config, seed)
        };
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let mut shard = Shard::default();
        for seed in 0..2 {
            let (a, b) = (play(seed), play(seed));
            assert_eq!(a.game.moves(), b.game.moves(), "same seed and model, same game");
            shard.push_game(&a, Provenance { model: 1, game: seed, worker: 0 });
        }
        shard.write_atomic(&dir, "s.npz").unwrap();
        let (good, bad) = read_shards(&dir);
        assert!(bad.is_empty() && good.len() == 1);
        let s = &good[0].1;
        for i in 0..s.len() {
            let pos = Position::from_colors(
                othello_core::Bitboard(if s.side[i] == 0 { s.player[i] } else { s.opponent[i] }),
                othello_core::Bitboard(if s.side[i] == 0 { s.opponent[i] } else { s.player[i] }),
                if s.side[i] == 0 { othello_core::Color::Black } else { othello_core::Color::White },
            );
            let legal = rules.legal_moves(&pos).0;
            for sq in 0..64 {
                assert!(s.policy[i * 65 + sq] == 0.0 || legal >> sq & 1 == 1);
            }
        }
    }
}
