//! The network's answer for positions: one forward pass over a batch, each position seen through a symmetry, the
//! policy mapped back to the position's own squares.

use burn::tensor::{Device, Tensor, TensorData};
use othello_core::{Position, Rules, Symmetry, POLICY_SIZE};

use crate::folded::{values, FoldedNetwork};
use crate::network::Network;
use othello_core::planes::{encode, PLANES};

/// The network's view of one position, from its side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// The policy over the legal moves (the pass when it is forced) as unnormalised weights: the exponentials of
    /// their logits less the largest of them, so the best legal move weighs 1; every other entry is 0. In the
    /// position's own square order.
    pub policy: [f32; POLICY_SIZE],
    /// Expected result in [-1, 1].
    pub value: f32,
    /// Expected final disc margin, in discs (the margin head's output times 64).
    pub margin: f32,
}

/// A network ready to answer for positions: on the CPU through its folded twin ([`FoldedNetwork`], faster than
/// burn's CPU convolution), elsewhere through burn on its device.
pub enum Predictor {
    Folded(Box<FoldedNetwork>),
    Burn { net: Box<Network>, device: Device },
}

impl Predictor {
    /// The folded network when `device` is the CPU's (and the network folds), else burn's.
    pub fn new(net: Network, device: Device) -> Predictor {
        match (device == Device::flex()).then(|| FoldedNetwork::new(&net)).flatten() {
            Some(folded) => Predictor::Folded(Box::new(folded)),
            None => Predictor::burn(net, device),
        }
    }

    /// Burn's forward pass on `device`, whatever it is.
    pub fn burn(net: Network, device: Device) -> Predictor {
        Predictor::Burn { net: Box::new(net), device }
    }

    /// Policy logits, values and margins / 64 of `n` positions' planes.
    fn forward(&self, planes: Vec<f32>, n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        match self {
            Predictor::Folded(folded) => {
                let out = folded.forward(&planes, n);
                (out.policy, out.value, out.margin)
            }
            Predictor::Burn { net, device } => {
                let input = Tensor::<4>::from_data(TensorData::new(planes, [n, PLANES.len(), 8, 8]), device);
                let out = net.forward(input);
                let read = |t: Tensor<2>| values(t).unwrap_or_default();
                (read(out.policy), read(out.value), read(out.margin))
            }
        }
    }
}

/// One forward pass over `positions`, position i seen through `symmetries[i]`; results mapped back to the position.
pub fn predict(
    predictor: &Predictor,
    rules: &Rules,
    positions: &[Position],
    symmetries: &[Symmetry],
) -> Vec<Prediction> {
    let n = positions.len();
    if n == 0 {
        return vec![];
    }
    let mut planes = Vec::with_capacity(n * PLANES.len() * 64);
    for (pos, &sym) in positions.iter().zip(symmetries) {
        encode(rules, pos, sym, &mut planes);
    }
    let (logits, values, margins) = predictor.forward(planes, n);
    let board = rules.mask();
    (0..n)
        .map(|i| {
            let row = logits.get(i * POLICY_SIZE..(i + 1) * POLICY_SIZE).unwrap_or(&[]);
            let inverse = symmetries[i].inverse();
            // Output index k is a square of the transformed board (or the pass): map it back, keep the legal ones.
            let legal = rules.legal_moves(&positions[i]).0;
            let pass_only = legal == 0;
            let mapped: Vec<(usize, f32)> = row
                .iter()
                .enumerate()
                .filter_map(|(k, &logit)| match othello_core::Square::new(k as u8) {
                    Some(sq) if board >> k & 1 == 1 => Some((inverse.apply_square(sq, rules.size).index(), logit)),
                    Some(_) => None, // off a smaller board
                    None => Some((64, logit)),
                })
                .filter(|&(target, _)| if target == 64 { pass_only } else { legal >> target & 1 == 1 })
                .collect();
            // The maximum over the legal moves alone: an illegal move's large logit must not push theirs to 0.
            let max = mapped.iter().map(|m| m.1).fold(f32::NEG_INFINITY, f32::max);
            let mut policy = [0.0f32; POLICY_SIZE];
            for (target, logit) in mapped {
                policy[target] = (logit - max).exp();
            }
            let (value, margin) = (values.get(i).copied().unwrap_or(0.0), margins.get(i).copied().unwrap_or(0.0));
            Prediction { policy, value, margin: 64.0 * margin }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::NetConfig;
    use crate::testing::{positions, tiny};

    /// Seeing a position through a symmetry and mapping the policy back equals evaluating the transformed
    /// position directly and transforming its policy: the bookkeeping of the symmetries is exact.
    #[test]
    fn symmetries_map_the_policy_back_to_the_position() {
        let (_, net, device) = tiny();
        let predictors = [Predictor::new(net.clone(), device.clone()), Predictor::burn(net, device)];
        for (predictor, rules) in
            predictors.iter().flat_map(|p| [(p, Rules::othello()), (p, Rules::othello().with_size(6).unwrap())])
        {
            let pos = positions(&rules);
            for sym in Symmetry::ALL {
                let through = predict(predictor, &rules, &pos, &vec![sym; pos.len()]);
                let moved: Vec<Position> = pos.iter().map(|p| sym.apply_position(p, rules.size)).collect();
                let direct = predict(predictor, &rules, &moved, &vec![Symmetry::IDENTITY; pos.len()]);
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
        let eval = |net: Network| predict(&Predictor::new(net, device.clone()), &rules, &pos, &ids);
        let (ea, eb, ec) = (eval(a), eval(b), eval(c));
        assert!(ea == eb, "the same seed gives the same network");
        assert!(ea != ec, "another seed gives another network");
    }

    /// Only legal moves get weight, and the best of them weighs exactly 1, whatever the illegal outputs are (a
    /// random network gives illegal squares the largest logit often).
    #[test]
    fn the_policy_covers_the_legal_moves_with_the_best_at_one() {
        let (_, net, device) = tiny();
        let predictor = Predictor::new(net, device);
        for rules in [Rules::othello(), Rules::othello().with_size(6).unwrap()] {
            let pos = positions(&rules);
            for sym in Symmetry::ALL {
                for (p, prediction) in pos.iter().zip(predict(&predictor, &rules, &pos, &vec![sym; pos.len()])) {
                    let legal = rules.legal_moves(p).0;
                    let best = prediction.policy.iter().copied().fold(0.0f32, f32::max);
                    assert_eq!(best, 1.0);
                    for (k, &w) in prediction.policy.iter().enumerate() {
                        let allowed = if k == 64 { legal == 0 } else { legal >> k & 1 == 1 };
                        assert!(allowed == (w > 0.0), "square {k}: weight {w}, legal {allowed}");
                    }
                }
            }
        }
    }
}
