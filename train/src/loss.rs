//! The training objective: policy cross-entropy over the legal moves, value and auxiliary losses, with the
//! configured weights; and the figures logged beside them.

use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use othello_core::POLICY_SIZE;
use othello_net::{Network, PLANES};

use crate::batch::Batch;
use crate::train_config::TrainConfig;

/// The figures of one step (or the mean of several).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepFigures {
    pub loss: f32,
    pub policy_loss: f32,
    pub value_loss: f32,
    pub margin_loss: f32,
    pub ownership_loss: f32,
    /// Entropy of the predicted policy over the legal moves (nats).
    pub policy_entropy: f32,
    /// Share of decided games whose winner the value head predicts (sign of the value against the result).
    pub value_accuracy: f32,
}

impl StepFigures {
    /// Names and values, in the order of the CSV log's columns.
    pub fn named(&self) -> [(&'static str, f32); 7] {
        [
            ("loss", self.loss),
            ("policy_loss", self.policy_loss),
            ("value_loss", self.value_loss),
            ("margin_loss", self.margin_loss),
            ("ownership_loss", self.ownership_loss),
            ("policy_entropy", self.policy_entropy),
            ("value_accuracy", self.value_accuracy),
        ]
    }

    pub fn add(&mut self, other: &StepFigures, weight: f32) {
        self.loss += other.loss * weight;
        self.policy_loss += other.policy_loss * weight;
        self.value_loss += other.value_loss * weight;
        self.margin_loss += other.margin_loss * weight;
        self.ownership_loss += other.ownership_loss * weight;
        self.policy_entropy += other.policy_entropy * weight;
        self.value_accuracy += other.value_accuracy * weight;
    }
}

/// The batch as tensors on `device`.
#[derive(Clone)]
pub struct Targets {
    pub planes: Tensor<4>,
    pub policy: Tensor<2>,
    pub legal_mask: Tensor<2>,
    pub policy_weight: Tensor<2>,
    /// The sum of the policy weights (at least 1): the policy loss is the mean over the rows with a policy target,
    /// so that rows without one (playout cap randomization's cheap moves) do not thin the policy's gradient.
    pub policy_rows: f32,
    pub value: Tensor<2>,
    pub search_value: Tensor<2>,
    pub margin: Tensor<2>,
    pub ownership: Tensor<2>,
}

impl Targets {
    pub fn new(batch: &Batch, device: &Device) -> Targets {
        let n = batch.n;
        let t2 = |v: &[f32], w: usize| Tensor::<2>::from_data(TensorData::new(v.to_vec(), [n, w]), device);
        Targets {
            planes: Tensor::from_data(TensorData::new(batch.planes.clone(), [n, PLANES.len(), 8, 8]), device),
            policy: t2(&batch.policy, POLICY_SIZE),
            legal_mask: t2(&batch.legal_mask, POLICY_SIZE),
            policy_weight: t2(&batch.policy_weight, 1),
            policy_rows: batch.policy_weight.iter().sum::<f32>().max(1.0),
            value: t2(&batch.value, 1),
            search_value: t2(&batch.search_value, 1),
            margin: t2(&batch.margin, 1),
            ownership: t2(&batch.ownership, 64),
        }
    }
}

/// The weighted loss of `net` on a batch (to differentiate), and its figures.
pub fn loss(net: &Network, t: Targets, config: &TrainConfig) -> (Tensor<1>, StepFigures) {
    let out = net.forward(t.planes);
    let log_policy = log_softmax(out.policy + t.legal_mask, 1);
    let policy_loss = (t.policy * log_policy.clone() * t.policy_weight).sum().div_scalar(t.policy_rows).neg();
    let w = config.search_value_weight;
    let value_target = t.value.clone().mul_scalar(1.0 - w) + t.search_value.mul_scalar(w);
    let value_loss = (out.value.clone() - value_target).square().mean();
    let margin_loss = (out.margin - t.margin).square().mean();
    let ownership_loss = (out.ownership - t.ownership).square().mean();
    let total = policy_loss.clone().mul_scalar(config.policy_weight)
        + value_loss.clone().mul_scalar(config.value_weight)
        + margin_loss.clone().mul_scalar(config.margin_weight)
        + ownership_loss.clone().mul_scalar(config.ownership_weight);

    let log_policy = log_policy.detach();
    let entropy = (log_policy.clone().exp() * log_policy).sum_dim(1).mean().neg();
    let predicted = out.value.detach().into_data().try_into_vec::<f32>().unwrap_or_default();
    let actual = t.value.into_data().try_into_vec::<f32>().unwrap_or_default();
    let decided: Vec<(f32, f32)> = predicted.into_iter().zip(actual).filter(|(_, a)| *a != 0.0).collect();
    let right = decided.iter().filter(|(p, a)| p.signum() == a.signum()).count();
    let figures = StepFigures {
        loss: total.clone().detach().into_scalar(),
        policy_loss: policy_loss.into_scalar(),
        value_loss: value_loss.into_scalar(),
        margin_loss: margin_loss.into_scalar(),
        ownership_loss: ownership_loss.into_scalar(),
        policy_entropy: entropy.into_scalar(),
        value_accuracy: if decided.is_empty() { 0.0 } else { right as f32 / decided.len() as f32 },
    };
    (total, figures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::SquareMaps;
    use othello_core::{Rules, Symmetry};
    use othello_net::NetConfig;
    use othello_run::{GameRecord, Provenance, Shard};

    /// A batch of every row of `shard`, as stored.
    fn every_row(shard: &Shard) -> Batch {
        let mut batch = Batch::default();
        for row in 0..shard.len() {
            batch.push(shard, row, Symmetry::IDENTITY, &SquareMaps::default());
        }
        batch
    }

    /// The value loss against `(1 - w) z + w q`, computed here from the network's own value output.
    #[test]
    fn the_value_target_mixes_the_search_value_by_its_weight() {
        let mut shard = Shard::default();
        for seed in 0..2 {
            shard
                .push_game(&GameRecord::random(Rules::othello(), seed), Provenance { model: 0, game: seed, worker: 0 });
        }
        shard.search_value = (0..shard.len()).map(|i| (i % 7) as f32 / 3.5 - 0.9).collect();
        let batch = every_row(&shard);
        let device = Device::flex();
        let net = NetConfig::new(1, 8).init_seeded(&device, 3);
        let predicted: Vec<f32> =
            net.forward(Targets::new(&batch, &device).planes).value.into_data().try_into_vec().unwrap();
        for w in [0.0f32, 0.5, 1.0] {
            let config = TrainConfig { search_value_weight: w, ..Default::default() };
            let (_, figures) = loss(&net, Targets::new(&batch, &device), &config);
            let expected = predicted
                .iter()
                .zip(batch.value.iter().zip(&batch.search_value))
                .map(|(p, (z, q))| (p - ((1.0 - w) * z + w * q)).powi(2))
                .sum::<f32>()
                / batch.n as f32;
            assert!((figures.value_loss - expected).abs() < 1e-5, "w {w}: {} not {expected}", figures.value_loss);
        }
        assert!(batch.value != batch.search_value);
    }

    /// The policy loss is the cross-entropy averaged over the rows with a policy target only, computed here from
    /// the network's own logits: rows without one (half of these) neither add to it nor dilute it.
    #[test]
    fn the_policy_loss_is_the_mean_over_rows_with_a_policy_target() {
        let mut shard = Shard::default();
        shard.push_game(&GameRecord::random(Rules::othello(), 5), Provenance { model: 0, game: 5, worker: 0 });
        let batch = every_row(&shard);
        let weighted = batch.policy_weight.iter().filter(|&&w| w > 0.0).count();
        assert!(weighted > 0 && weighted < batch.n, "some rows without a policy target");
        let device = Device::flex();
        let net = NetConfig::new(1, 8).init_seeded(&device, 4);
        let logits: Vec<f32> =
            net.forward(Targets::new(&batch, &device).planes).policy.into_data().try_into_vec().unwrap();
        let mut total = 0.0f64;
        for row in (0..batch.n).filter(|&r| batch.policy_weight[r] > 0.0) {
            let at = |i: usize| row * POLICY_SIZE + i;
            let masked: Vec<f64> = (0..POLICY_SIZE).map(|i| (logits[at(i)] + batch.legal_mask[at(i)]) as f64).collect();
            let max = masked.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let log_sum = max + masked.iter().map(|x| (x - max).exp()).sum::<f64>().ln();
            total -= (0..POLICY_SIZE).map(|i| batch.policy[at(i)] as f64 * (masked[i] - log_sum)).sum::<f64>();
        }
        let expected = total / weighted as f64;
        let (_, figures) = loss(&net, Targets::new(&batch, &device), &TrainConfig::default());
        assert!((figures.policy_loss as f64 - expected).abs() < 1e-4, "{} not {expected}", figures.policy_loss);
    }
}
