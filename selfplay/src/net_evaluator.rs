//! The network as an MCTS evaluator: positions encoded as planes, one forward pass per batch, a random symmetry
//! per position, and a cache of evaluations keyed by the position hash.

use std::collections::HashMap;

use burn::tensor::{Device, Tensor, TensorData};
use othello_core::stability::stable_discs;
use othello_core::{Position, Rules, Symmetry};

use crate::evaluator::{Evaluation, Evaluator, POLICY_SIZE};
use crate::network::{Network, PLANES};

/// Appends the input planes of `pos` (seen through `sym`) to `out`: `PLANES.len()` planes of 64 floats.
pub fn encode(rules: &Rules, pos: &Position, sym: Symmetry, out: &mut Vec<f32>) {
    let size = rules.size;
    let t = |b: u64| sym.apply(othello_core::Bitboard(b), size).0;
    let (own, opp) = (t(pos.player.0), t(pos.opponent.0));
    let legal = t(rules.legal_moves(pos).0);
    let board = rules.mask();
    let (own_stable, opp_stable) = if size == 8 { (stable_discs(own, opp), stable_discs(opp, own)) } else { (0, 0) };
    for plane in [own, opp, legal, board, own_stable, opp_stable] {
        out.extend((0..64).map(|sq| (plane >> sq & 1) as f32));
    }
}

/// Evaluates with a network on a Burn device.
pub struct NetworkEvaluator {
    net: Network,
    device: Device,
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
            net,
            device,
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
        let n = positions.len();
        if n == 0 {
            return vec![];
        }
        let mut planes = Vec::with_capacity(n * PLANES.len() * 64);
        for (pos, &sym) in positions.iter().zip(symmetries) {
            encode(rules, pos, sym, &mut planes);
        }
        let input = Tensor::<4>::from_data(TensorData::new(planes, [n, PLANES.len(), 8, 8]), &self.device);
        let out = self.net.forward(input);
        let logits: Vec<f32> = out.policy.into_data().try_into_vec::<f32>().unwrap_or_default();
        let board = rules.mask();
        let values: Vec<f32> = out.value.into_data().try_into_vec::<f32>().unwrap_or_default();
        (0..n)
            .map(|i| {
                let row = logits.get(i * POLICY_SIZE..(i + 1) * POLICY_SIZE).unwrap_or(&[]);
                let inverse = symmetries[i].inverse();
                let mut policy = [0.0f32; POLICY_SIZE];
                let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                for (k, &logit) in row.iter().enumerate() {
                    // Output index k is a square of the transformed board (or the pass): map it back.
                    let target = match othello_core::Square::new(k as u8) {
                        Some(sq) if board >> k & 1 == 1 => inverse.apply_square(sq, rules.size).index(),
                        Some(_) => continue, // off a smaller board
                        None => 64,
                    };
                    policy[target] = (logit - max).exp();
                }
                Evaluation { policy, value: values.get(i).copied().unwrap_or(0.0) }
            })
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
    use crate::game::{play_game, SelfPlayConfig};
    use crate::model::{load_model, save_model, ModelInfo};
    use crate::network::NetConfig;
    use crate::shard::{read_shards, Provenance, Shard};
    use othello_core::{Game, Move, Status};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    fn tiny() -> (NetConfig, Network, Device) {
        let device = Device::flex();
        let config = NetConfig::new(1, 8);
        let net = config.init_seeded(&device, 7);
        (config, net, device)
    }

    fn positions(rules: &Rules) -> Vec<Position> {
        let mut g = Game::new(*rules);
        let mut out = vec![*g.position()];
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        while !g.is_over() && out.len() < 20 {
            let mv = match g.status() {
                Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
                _ => Move::Pass,
            };
            g.push(mv).unwrap();
            out.push(*g.position());
        }
        out
    }

    /// Seeing a position through a symmetry and mapping the policy back equals evaluating the transformed
    /// position directly and transforming its policy: the bookkeeping of the symmetries is exact.
    #[test]
    fn symmetries_map_the_policy_back_to_the_position() {
        let (_, net, device) = tiny();
        let ev = NetworkEvaluator::new(net, device, 2);
        for rules in [Rules::othello(), Rules::othello().with_size(6).unwrap()] {
            let pos = positions(&rules);
            for sym in Symmetry::ALL {
                let through = ev.evaluate_with(&rules, &pos, &vec![sym; pos.len()]);
                let moved: Vec<Position> = pos.iter().map(|p| sym.apply_position(p, rules.size)).collect();
                let direct = ev.evaluate_with(&rules, &moved, &vec![Symmetry::IDENTITY; pos.len()]);
                for (i, (a, b)) in through.iter().zip(&direct).enumerate() {
                    assert!((a.value - b.value).abs() < 1e-5);
                    for sq in othello_core::Bitboard(rules.mask()) {
                        let t = sym.apply_square(sq, rules.size).index();
                        assert!((a.policy[sq.index()] - b.policy[t]).abs() < 1e-5, "position {i} square {sq}");
                    }
                }
            }
        }
    }

    #[test]
    fn seeded_initialisation_is_reproducible() {
        let (_, a, device) = tiny();
        let (_, b, _) = tiny();
        let c = NetConfig::new(1, 8).init_seeded(&device, 8);
        let rules = Rules::othello();
        let pos = positions(&rules);
        let ids = vec![Symmetry::IDENTITY; pos.len()];
        let eval = |net: Network| NetworkEvaluator::new(net, device.clone(), 0).evaluate_with(&rules, &pos, &ids);
        let (ea, eb, ec) = (eval(a), eval(b), eval(c));
        assert!(ea == eb, "the same seed gives the same network");
        assert!(ea != ec, "another seed gives another network");
    }

    #[test]
    fn checkpoints_round_trip_and_refuse_another_architecture() {
        let (config, net, device) = tiny();
        let dir = std::env::temp_dir().join(format!("oz-model-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let info = ModelInfo { architecture: config.clone(), step: 5, samples: 0, training: None };
        let path = save_model(&dir, &net, &info).unwrap();
        assert_eq!(crate::model::newest_model(&dir), Some(path.clone()));
        let (loaded, read) = load_model(&path, Some(&config), &device).unwrap();
        assert_eq!(read, info);
        let rules = Rules::othello();
        let pos = positions(&rules);
        let ids = vec![Symmetry::IDENTITY; pos.len()];
        let a = NetworkEvaluator::new(net, device.clone(), 0).evaluate_with(&rules, &pos, &ids);
        let b = NetworkEvaluator::new(loaded, device.clone(), 0).evaluate_with(&rules, &pos, &ids);
        assert_eq!(a, b);
        let err = load_model(&path, Some(&NetConfig::new(2, 8)), &device).unwrap_err();
        assert!(err.to_string().contains("1x8") && err.to_string().contains("2x8"), "{err}");
        // Damaged weights are an error, not a panic.
        let weights = path.with_extension("bpk");
        let bytes = std::fs::read(&weights).unwrap();
        std::fs::write(&weights, &bytes[..bytes.len() / 3]).unwrap();
        assert!(load_model(&path, None, &device).is_err());
        let _ = std::fs::remove_dir_all(&dir);
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
        let dir = std::env::temp_dir().join(format!("oz-netplay-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
