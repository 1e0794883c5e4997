//! Done-when of the trainer: a tiny network trained on WTHOR-imported shards for a few hundred steps lowers its
//! policy loss and agrees with held-out expert moves more often than a random legal move does.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::tensor::Device;
use othello_core::wthor::WthorFile;
use othello_core::Rules;
use othello_net::NetConfig;
use othello_run::RunDir;
use othello_train::agreement::expert_agreement;
use othello_train::import::import_wthor;
use othello_train::log::read_scalars;
use othello_train::trainer::fingerprint;
use othello_train::{Stop, TrainConfig, TrainOptions, Trainer};

fn wthor(year: u32) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../data/wthor/WTH_{year}.wtb"))
}

#[test]
fn training_on_expert_games_learns_expert_moves() {
    let scratch = tempfile::tempdir().unwrap();
    let run = RunDir::new(scratch.path());
    let report = import_wthor(&[wthor(1985)], &run.replay(), 200).unwrap();
    assert!(report.positions > 50_000, "{report:?}");

    let network = NetConfig::new(2, 32);
    let config = TrainConfig {
        batch_size: 128,
        learning_rate: 2e-3,
        warmup_steps: 20,
        min_positions: 1,
        samples_per_position: 100.0,
        window_min: 1_000_000,
        log_every: 25,
        checkpoint_every: 100,
        ..Default::default()
    };
    let opts = TrainOptions {
        run: run.clone(),
        rules: Rules::othello(),
        network: network.clone(),
        config,
        seed: 3,
        config_hash: fingerprint("wthor test"),
        device: Device::flex(),
        exit_when_starved: true,
        deadline: None,
    };
    let held_out = WthorFile::parse(&std::fs::read(wthor(1986)).unwrap()).unwrap().games[..300].to_vec();
    let device = Device::flex();
    let before = expert_agreement(&network.init_seeded(&device, 3), &device, &held_out);

    let mut trainer = Trainer::open(opts).unwrap();
    assert_eq!(trainer.train(Some(300), &mut |_| {}).unwrap(), Stop::Steps);

    // The policy loss falls: the last three logged means are well below the first three.
    let rows = read_scalars(&run.scalars()).unwrap();
    assert_eq!(rows.len(), 12);
    let policy = |r: &[Vec<f64>]| r.iter().map(|row| row[7]).sum::<f64>() / r.len() as f64;
    let (early, late) = (policy(&rows[..3]), policy(&rows[9..]));
    assert!(late < early - 0.1, "policy loss {early:.3} -> {late:.3}");

    let after = expert_agreement(&trainer.network().valid(), &device, &held_out);
    eprintln!(
        "expert agreement on {} held-out positions: random init {:.3}, trained {:.3}, random move {:.3}",
        after.positions,
        before.rate(),
        after.rate(),
        after.random_rate()
    );
    assert!(after.positions > 10_000);
    assert!(after.rate() > after.random_rate() + 0.08, "{after:?}");
    assert!(after.rate() > before.rate() + 0.05, "{before:?} -> {after:?}");
}
