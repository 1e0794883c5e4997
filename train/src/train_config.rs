//! The `[train]` section of a run config. Every default documented here is what an unset key means.

use othello_net::DeviceChoice;
use othello_run::config_check::{check_counts, check_numbers, spelled, Range, NOT_NEGATIVE, POSITIVE, SHARE};
use serde::{Deserialize, Serialize};

/// The optimiser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// AdamW, with decoupled weight decay.
    Adamw,
    /// SGD with momentum and L2 weight decay.
    Sgd,
}

/// The learning rate after the warm-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decay {
    /// The peak rate throughout.
    Constant,
    /// Half a cosine from the peak down to `final_lr_fraction` of it at `decay_steps`.
    Cosine,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Positions per training step. Default 256.
    pub batch_size: usize,
    /// Default "adamw".
    pub optimizer: Optimizer,
    /// Peak learning rate. Default 1e-3 (AdamW); SGD wants about 0.02.
    pub learning_rate: f64,
    /// SGD momentum. Default 0.9.
    pub momentum: f64,
    /// Weight decay (decoupled for AdamW, L2 for SGD). Default 1e-4.
    pub weight_decay: f32,
    /// Steps of linear warm-up from 0 to the peak rate. Default 200.
    pub warmup_steps: u64,
    /// After the warm-up. Default "cosine".
    pub decay: Decay,
    /// Where the cosine decay ends (then the rate stays at its floor). Default 100,000.
    pub decay_steps: u64,
    /// The floor of the decay as a fraction of the peak. Default 0.05.
    pub final_lr_fraction: f64,
    /// Loss weights. Defaults: policy 1, value 1, margin 0.1, ownership 0.1.
    pub policy_weight: f32,
    pub value_weight: f32,
    pub margin_weight: f32,
    pub ownership_weight: f32,
    /// The share of the value target taken from the search's value of the move played instead of the game's
    /// result: the target is `(1 - w) z + w q`. It lowers the target's variance (a game's result hangs on every
    /// later move) at the price of the search's bias. Default 0 (the result alone).
    pub search_value_weight: f32,
    /// The replay window (KataGo's power law): with N positions seen so far, training samples from the newest
    /// `min(N, c * (1 + beta * ((N / c)^alpha - 1) / alpha))` positions, `c` = `window_min`. Defaults: c 20,000,
    /// alpha 0.75, beta 0.4.
    pub window_min: u64,
    pub window_alpha: f64,
    pub window_beta: f64,
    /// Training starts once this many positions have arrived. Default 1,500.
    pub min_positions: u64,
    /// The throttle: at most this many training samples per self-play position that has arrived, so that a slow
    /// self-play side does not make the trainer overfit (the trainer waits for data instead). Default 4.
    pub samples_per_position: f64,
    /// Write a checkpoint (model, optimiser state, sidecar) every this many steps. Default 500.
    pub checkpoint_every: u64,
    /// Write TensorBoard scalars every this many steps. Default 20.
    pub log_every: u64,
    /// Checkpoints kept with their optimiser state (older models keep their weights and sidecar, so ratings
    /// can still play them). Default 2.
    pub keep_optimizer_states: usize,
    /// Seconds between looks at the replay directory while waiting for data. Default 5.
    pub poll_seconds: f64,
    /// Stop after this many steps (0: never). Default 0; `--steps` overrides it.
    pub max_steps: u64,
    /// Where training runs: "flex" (CPU), or "wgpu" / "cuda" / "tch" in builds with those features. Default "flex".
    pub device: DeviceChoice,
    /// Trainer steps after which the network gains one residual block (increasing): a network that grows during
    /// the run, small while it learns fast and deeper once it has more to learn. A new block begins as the
    /// identity, so the network plays as before it grew; checkpoints record the architecture they have. A step a
    /// run has passed cannot be added later (its checkpoint would have fewer blocks than the key says: an error
    /// naming the checkpoint). Default none: `[network] blocks` throughout.
    pub grow_blocks_at: Vec<u64>,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            batch_size: 256,
            optimizer: Optimizer::Adamw,
            learning_rate: 1e-3,
            momentum: 0.9,
            weight_decay: 1e-4,
            warmup_steps: 200,
            decay: Decay::Cosine,
            decay_steps: 100_000,
            final_lr_fraction: 0.05,
            policy_weight: 1.0,
            value_weight: 1.0,
            margin_weight: 0.1,
            ownership_weight: 0.1,
            search_value_weight: 0.0,
            window_min: 20_000,
            window_alpha: 0.75,
            window_beta: 0.4,
            min_positions: 1_500,
            samples_per_position: 4.0,
            checkpoint_every: 500,
            log_every: 20,
            keep_optimizer_states: 2,
            poll_seconds: 5.0,
            max_steps: 0,
            device: DeviceChoice::Flex,
            grow_blocks_at: Vec::new(),
        }
    }
}

/// The largest batch the trainer takes.
pub const MAX_BATCH_SIZE: usize = 1 << 16;

impl TrainConfig {
    /// Checks the values serde cannot: each count and number in its range, NaN and infinities refused, so that a
    /// mistyped key is an error naming it, not a run whose weights turn to NaN or a panic far from the config.
    pub fn validate(&self) -> Result<(), String> {
        check_counts(
            "[train]",
            &[
                ("batch_size", self.batch_size as u64, MAX_BATCH_SIZE as u64),
                ("checkpoint_every", self.checkpoint_every, u64::MAX),
                ("log_every", self.log_every, u64::MAX),
                ("window_min", self.window_min, u64::MAX),
            ],
        )?;
        check_numbers(
            "[train]",
            &[
                ("learning_rate", self.learning_rate, POSITIVE),
                ("samples_per_position", self.samples_per_position, POSITIVE),
                (
                    "momentum",
                    self.momentum,
                    Range { within: |x| (0.0..1.0).contains(&x), expected: "0 to 1, 1 excluded" },
                ),
                ("weight_decay", spelled(self.weight_decay), NOT_NEGATIVE),
                ("final_lr_fraction", self.final_lr_fraction, SHARE),
                ("policy_weight", spelled(self.policy_weight), NOT_NEGATIVE),
                ("value_weight", spelled(self.value_weight), NOT_NEGATIVE),
                ("margin_weight", spelled(self.margin_weight), NOT_NEGATIVE),
                ("ownership_weight", spelled(self.ownership_weight), NOT_NEGATIVE),
                ("search_value_weight", spelled(self.search_value_weight), SHARE),
                ("window_alpha", self.window_alpha, POSITIVE),
                ("window_beta", self.window_beta, NOT_NEGATIVE),
                (
                    "poll_seconds",
                    self.poll_seconds,
                    Range { within: |x| x > 0.0 && x <= 3600.0, expected: "more than 0, at most 3600" },
                ),
            ],
        )?;
        let steps = &self.grow_blocks_at;
        if steps.first() == Some(&0) || steps.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!("[train] grow_blocks_at = {steps:?} (expected increasing steps, from 1)"));
        }
        Ok(())
    }

    /// Residual blocks the network has gained by the checkpoint of `step`.
    pub fn blocks_added_by(&self, step: u64) -> usize {
        self.grow_blocks_at.iter().filter(|&&at| at <= step).count()
    }

    /// The learning rate at `step` (counted from 0): linear warm-up, then constant or cosine decay.
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        let peak = self.learning_rate;
        if step < self.warmup_steps {
            return peak * (step + 1) as f64 / self.warmup_steps as f64;
        }
        match self.decay {
            Decay::Cosine => {
                let span = self.decay_steps.saturating_sub(self.warmup_steps).max(1) as f64;
                let t = ((step - self.warmup_steps) as f64 / span).min(1.0);
                let floor = peak * self.final_lr_fraction;
                floor + (peak - floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
            Decay::Constant => peak,
        }
    }

    /// Positions in the replay window once `seen` positions have arrived.
    pub fn window_size(&self, seen: u64) -> u64 {
        let c = self.window_min as f64;
        let n = seen as f64;
        if n <= c {
            return seen;
        }
        let w = c * (1.0 + self.window_beta * ((n / c).powf(self.window_alpha) - 1.0) / self.window_alpha);
        (w as u64).min(seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_warms_up_then_decays_to_its_floor() {
        let c = TrainConfig { warmup_steps: 10, decay_steps: 110, ..Default::default() };
        assert!((c.learning_rate_at(0) - 1e-4).abs() < 1e-12);
        assert!((c.learning_rate_at(9) - 1e-3).abs() < 1e-12);
        assert!((c.learning_rate_at(10) - 1e-3).abs() < 1e-12);
        assert!((c.learning_rate_at(60) - 0.525e-3).abs() < 1e-9, "{}", c.learning_rate_at(60));
        assert!((c.learning_rate_at(110) - 0.05e-3).abs() < 1e-12);
        assert!((c.learning_rate_at(10_000) - 0.05e-3).abs() < 1e-12);
        let mut previous = f64::INFINITY;
        for step in 10..200 {
            let lr = c.learning_rate_at(step);
            assert!(lr <= previous);
            previous = lr;
        }
    }

    /// Every number out of its range, NaN and the infinities among them, is an error naming its key; the
    /// default and the edges of the ranges pass.
    #[test]
    fn numbers_out_of_range_name_their_key() {
        assert_eq!(TrainConfig::default().validate(), Ok(()));
        type Set = fn(&mut TrainConfig);
        let wrong: [(&str, Set); 16] = [
            ("learning_rate", |c| c.learning_rate = f64::INFINITY),
            ("samples_per_position", |c| c.samples_per_position = 0.0),
            ("momentum", |c| c.momentum = 1.0),
            ("momentum", |c| c.momentum = f64::NAN),
            ("weight_decay", |c| c.weight_decay = -1e-4),
            ("weight_decay", |c| c.weight_decay = f32::NAN),
            ("final_lr_fraction", |c| c.final_lr_fraction = 1.5),
            ("policy_weight", |c| c.policy_weight = f32::NAN),
            ("value_weight", |c| c.value_weight = -1.0),
            ("margin_weight", |c| c.margin_weight = f32::INFINITY),
            ("ownership_weight", |c| c.ownership_weight = -0.1),
            ("window_beta", |c| c.window_beta = f64::INFINITY),
            ("poll_seconds", |c| c.poll_seconds = f64::INFINITY),
            ("poll_seconds", |c| c.poll_seconds = f64::NAN),
            ("poll_seconds", |c| c.poll_seconds = 0.0),
            ("log_every", |c| c.log_every = 0),
        ];
        for (key, set) in wrong {
            let mut c = TrainConfig::default();
            set(&mut c);
            let err = c.validate().unwrap_err();
            assert!(err.starts_with(&format!("[train] {key} =")), "{key}: {err}");
        }
        let edges = TrainConfig { momentum: 0.0, weight_decay: 0.0, final_lr_fraction: 1.0, ..Default::default() };
        assert_eq!(edges.validate(), Ok(()));
    }

    #[test]
    fn blocks_are_gained_after_increasing_steps() {
        let c = TrainConfig { grow_blocks_at: vec![100, 300], ..Default::default() };
        assert_eq!(c.validate(), Ok(()));
        let added: Vec<usize> = [0, 99, 100, 299, 300, 10_000].iter().map(|&s| c.blocks_added_by(s)).collect();
        assert_eq!(added, [0, 0, 1, 1, 2, 2]);
        for wrong in [vec![0, 5], vec![300, 100], vec![100, 100]] {
            let c = TrainConfig { grow_blocks_at: wrong, ..Default::default() };
            assert!(c.validate().is_err_and(|e| e.contains("grow_blocks_at")), "{:?}", c.grow_blocks_at);
        }
    }

    #[test]
    fn the_window_follows_katagos_power_law() {
        let c = TrainConfig::default();
        assert_eq!(c.window_size(5_000), 5_000);
        assert_eq!(c.window_size(20_000), 20_000);
        // KataGo's formula at N = 16c: c (1 + 0.4 (16^0.75 - 1) / 0.75) = c (1 + 0.4 * 7 / 0.75).
        let expected = 20_000.0 * (1.0 + 0.4 * 7.0 / 0.75);
        assert!((c.window_size(320_000) as f64 - expected).abs() < 1.0);
        // It grows, but more slowly than the data.
        assert!(c.window_size(1_000_000) > c.window_size(500_000));
        assert!(c.window_size(1_000_000) < 1_000_000 / 4);
    }
}
