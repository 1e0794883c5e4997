//! The trainer's throughput figures (`othello-zero bench train`): a bare Burn training step on one fixed batch,
//! the trainer's whole step (draw, augment, encode, upload, step), and the loader alone.

use std::time::Instant;

use burn::tensor::Device;
use othello_core::Rules;
use othello_net::NetConfig;
use othello_run::{GameRecord, Provenance, RunDir, Shard, ShardError};

use crate::loss::Targets;
use crate::trainer::{fingerprint, TrainError, TrainOptions, Trainer};
use crate::TrainConfig;

/// Samples per second of each way to train.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrainBench {
    pub bare: f64,
    pub trainer: f64,
    pub loader: f64,
    pub positions: u64,
}

/// Fills the run's replay directory with `games` games of random moves ([`GameRecord::random`]): real positions
/// and targets of the shard format, produced in a moment.
pub fn synthetic_replay(run: &RunDir, games: u64) -> Result<u64, ShardError> {
    let mut total = 0;
    for chunk in 0..games.div_ceil(50) {
        let mut shard = Shard::default();
        for game in chunk * 50..((chunk + 1) * 50).min(games) {
            shard.push_game(&GameRecord::random(Rules::othello(), game), Provenance { model: 0, game, worker: 0 });
        }
        total += shard.len() as u64;
        shard.write_atomic(&run.replay(), &format!("bench-{chunk:04}.npz"))?;
    }
    Ok(total)
}

/// Measures each rate for about `seconds`, `rounds` times in turn (the best of each is kept, so that a busy
/// moment on the machine does not decide the ratio).
pub fn bench_train(
    run: &RunDir,
    network: NetConfig,
    batch_size: usize,
    seconds: f64,
    rounds: u32,
) -> Result<TrainBench, TrainError> {
    let config = TrainConfig { batch_size, min_positions: 1, samples_per_position: 1e12, ..Default::default() };
    let opts = TrainOptions {
        run: run.clone(),
        rules: Rules::othello(),
        network,
        config,
        seed: 1,
        config_hash: fingerprint("bench"),
        device: Device::flex(),
        exit_when_starved: true,
        deadline: None,
    };
    let mut trainer = Trainer::open(opts)?;
    let mut result = TrainBench { positions: trainer.refresh().positions, ..Default::default() };
    let (batch, _) = trainer.next_batch();
    let fixed = Targets::new(&batch, trainer.device());
    let per_second = |seconds: f64, f: &mut dyn FnMut() -> usize| {
        f();
        let t = Instant::now();
        let mut samples = 0;
        while t.elapsed().as_secs_f64() < seconds {
            samples += f();
        }
        samples as f64 / t.elapsed().as_secs_f64()
    };
    for _ in 0..rounds.max(1) {
        let bare = per_second(seconds, &mut || {
            trainer.step_on(fixed.clone());
            batch_size
        });
        let whole = per_second(seconds, &mut || {
            let (batch, _) = trainer.next_batch();
            trainer.train_on(&batch);
            batch.n
        });
        let loader = per_second(seconds.min(2.0), &mut || trainer.next_batch().0.n);
        result.bare = result.bare.max(bare);
        result.trainer = result.trainer.max(whole);
        result.loader = result.loader.max(loader);
    }
    Ok(result)
}
