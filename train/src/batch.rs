//! Training batches: positions drawn from the replay window, each seen through a random symmetry of the board
//! (planes, policy target, legal-move mask and ownership transformed together), as flat host arrays.

use othello_core::{Square, Symmetry, POLICY_SIZE};
use othello_net::{encode, PLANES};
use othello_run::shard::{unpack_rules, Shard};
use rand::Rng;

use crate::window::ReplayWindow;

/// The additive mask of an illegal policy entry: exp() of it is exactly 0 in f32, and unlike -inf it never
/// makes 0 * log p a NaN.
pub const ILLEGAL: f32 = -1e9;

/// One batch, row-major, `n` rows.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub n: usize,
    /// [n, PLANES, 8, 8]
    pub planes: Vec<f32>,
    /// [n, 65]: the policy target (zero on illegal entries).
    pub policy: Vec<f32>,
    /// [n, 65]: 0 on legal entries, [`ILLEGAL`] elsewhere.
    pub legal_mask: Vec<f32>,
    /// [n]: 1 where the policy target comes from a full search, 0 for cheap searches (value targets only).
    pub policy_weight: Vec<f32>,
    /// [n]: final result for the side to move, -1..1.
    pub value: Vec<f32>,
    /// [n]: the search's value of the move played for the side to move, -1..1 (the result where none).
    pub search_value: Vec<f32>,
    /// [n]: final disc margin / 64.
    pub margin: Vec<f32>,
    /// [n, 64]: final ownership, -1..1.
    pub ownership: Vec<f32>,
}

/// Where each square goes under a symmetry, for every symmetry and board size (4, 6, 8).
pub struct SquareMaps {
    maps: [[[u8; 64]; 8]; 3],
}

impl Default for SquareMaps {
    fn default() -> SquareMaps {
        let mut maps = [[[u8::MAX; 64]; 8]; 3];
        for (k, size) in [4u8, 6, 8].into_iter().enumerate() {
            let mask = othello_core::Rules::othello().with_size(size).expect("a supported size").mask();
            for sym in Symmetry::ALL {
                for sq in (0..64u8).filter(|&s| mask >> s & 1 == 1) {
                    let square = Square::new(sq).expect("0..64 is a square");
                    maps[k][sym.index()][sq as usize] = sym.apply_square(square, size).index() as u8;
                }
            }
        }
        SquareMaps { maps }
    }
}

impl SquareMaps {
    /// Square `i` of a `size` board goes to `map[i]` (u8::MAX off the board).
    pub fn get(&self, sym: Symmetry, size: u8) -> &[u8; 64] {
        &self.maps[(size as usize / 2 - 2).min(2)][sym.index()]
    }
}

impl Batch {
    pub fn with_capacity(n: usize) -> Batch {
        Batch {
            n: 0,
            planes: Vec::with_capacity(n * PLANES.len() * 64),
            policy: Vec::with_capacity(n * POLICY_SIZE),
            legal_mask: Vec::with_capacity(n * POLICY_SIZE),
            policy_weight: Vec::with_capacity(n),
            value: Vec::with_capacity(n),
            search_value: Vec::with_capacity(n),
            margin: Vec::with_capacity(n),
            ownership: Vec::with_capacity(n * 64),
        }
    }

    /// Appends row `row` of `shard` seen through `sym`.
    pub fn push(&mut self, shard: &Shard, row: usize, sym: Symmetry, maps: &SquareMaps) {
        let rules = unpack_rules(shard.rules[row]);
        let pos = shard.position(row);
        encode(&rules, &pos, sym, &mut self.planes);
        let map = maps.get(sym, rules.size);
        let source = &shard.policy[row * POLICY_SIZE..(row + 1) * POLICY_SIZE];
        let mut policy = [0f32; POLICY_SIZE];
        for (sq, &p) in source[..64].iter().enumerate() {
            if let Some(&to) = map.get(sq).filter(|&&to| to != u8::MAX) {
                policy[to as usize] = p;
            }
        }
        policy[64] = source[64];
        let legal = sym.apply(rules.legal_moves(&pos), rules.size).0;
        let mut mask = [ILLEGAL; POLICY_SIZE];
        for (sq, m) in mask[..64].iter_mut().enumerate() {
            if legal >> sq & 1 == 1 {
                *m = 0.0;
            }
        }
        if legal == 0 {
            mask[64] = 0.0;
        }
        let mut ownership = [0f32; 64];
        for (sq, &o) in shard.ownership[row * 64..(row + 1) * 64].iter().enumerate() {
            if let Some(&to) = map.get(sq).filter(|&&to| to != u8::MAX) {
                ownership[to as usize] = o as f32;
            }
        }
        self.policy.extend_from_slice(&policy);
        self.legal_mask.extend_from_slice(&mask);
        self.policy_weight.push(shard.full_search[row] as f32);
        self.value.push(shard.value[row]);
        self.search_value.push(shard.search_value[row]);
        self.margin.push(shard.margin[row] as f32 / 64.0);
        self.ownership.extend_from_slice(&ownership);
        self.n += 1;
    }

    /// `n` samples drawn uniformly from the newest `size` positions of `window`, each through a random
    /// symmetry.
    pub fn draw(n: usize, maps: &SquareMaps, rng: &mut impl Rng, window: &ReplayWindow, size: u64) -> Batch {
        let mut batch = Batch::with_capacity(n);
        for _ in 0..n {
            let Some((shard, row)) = window.sample(size, rng) else { break };
            let sym = Symmetry::from_index(rng.random_range(0..8));
            batch.push(shard, row, sym, maps);
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::Rules;
    use othello_run::Provenance;
    use othello_search::RolloutEvaluator;
    use othello_selfplay::{play_game, SelfPlayConfig};

    fn shard(rules: Rules) -> Shard {
        let config = SelfPlayConfig { sims: 16, ..Default::default() };
        let record = play_game(rules, &mut RolloutEvaluator::new(3, 1), &config, 3);
        let mut shard = Shard::default();
        shard.push_game(&record, Provenance { model: 0, game: 0, worker: 0 });
        shard
    }

    /// Every symmetry of every sample: the transformed targets agree with the transformed position, encoded
    /// independently (the symmetry applied to the position first, then encoded as it is).
    #[test]
    fn augmented_samples_are_the_samples_of_the_transformed_positions() {
        let maps = SquareMaps::default();
        for rules in ["othello", "othello,6x6", "traditional", "reverse,4x4"] {
            let rules: Rules = rules.parse().unwrap();
            let shard = shard(rules);
            for row in 0..shard.len() {
                for sym in Symmetry::ALL {
                    let mut batch = Batch::default();
                    batch.push(&shard, row, sym, &maps);
                    let moved = sym.apply_position(&shard.position(row), rules.size);
                    let mut planes = vec![];
                    encode(&rules, &moved, Symmetry::IDENTITY, &mut planes);
                    assert_eq!(batch.planes, planes);
                    let legal = rules.legal_moves(&moved);
                    let policy_sum: f32 = batch.policy.iter().sum();
                    assert!((policy_sum - 1.0).abs() < 1e-4);
                    for (sq, (&p, &m)) in batch.policy.iter().zip(&batch.legal_mask).enumerate().take(64) {
                        assert_eq!(m == 0.0, legal.0 >> sq & 1 == 1);
                        assert!(p == 0.0 || m == 0.0, "target on an illegal square");
                    }
                    // Ownership: the final owner of a square moves with it.
                    for sq in 0..64u8 {
                        let Some(square) = Square::new(sq).filter(|_| rules.mask() >> sq & 1 == 1) else { continue };
                        let to = sym.apply_square(square, rules.size).index();
                        assert_eq!(batch.ownership[to], shard.ownership[row * 64 + sq as usize] as f32);
                    }
                }
            }
        }
    }
}
