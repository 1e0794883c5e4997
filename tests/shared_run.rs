//! The stages as separate processes on one run directory, as a scheduler would start them on a cluster: two
//! self-play workers, the trainer and the evaluation stage at once, one worker killed with `kill -9` mid-run and
//! started again.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use othello_run::{read_shards, RunDir};

mod common;
use common::{bin, csv_records, poll_until, temp_run};

fn wait_until(what: &str, limit: Duration, done: impl FnMut() -> bool) {
    assert!(poll_until(limit, done), "waited {limit:?} for {what}");
}

/// Complete shards of one worker (`w<id>-...npz`; files being written start with a dot).
fn shards_of(replay: &Path, worker: u32) -> usize {
    let prefix = format!("w{worker:04}-");
    std::fs::read_dir(replay)
        .map(|d| d.filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().starts_with(&prefix)).count())
        .unwrap_or(0)
}

#[test]
fn two_workers_a_trainer_and_an_evaluator_share_a_run_through_a_killed_worker() {
    let scratch = [temp_run("shared-run"), temp_run("shared-run-logs")];
    let [run, logs] = scratch.each_ref().map(|d| d.path());
    let dir = RunDir::new(run);
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/ci.toml");
    std::fs::copy(&config, dir.config()).unwrap();
    let r = run.to_str().unwrap();
    let spawn = |args: &[&str], log: &str| -> Child {
        let err = std::fs::File::create(logs.join(log)).unwrap();
        bin().args(args).stdout(Stdio::null()).stderr(err).spawn().unwrap()
    };
    let worker = |id: &str, log: &str| {
        spawn(&["selfplay", "--run", r, "--games", "1000000", "--threads", "1", "--worker", id], log)
    };
    let mut workers = [worker("0", "w0.log"), worker("1", "w1.log")];
    let mut trainer = spawn(&["train", "--run", r], "train.log");
    let mut evaluator = spawn(&["evaluate", "--run", r, "--watch"], "eval.log");

    // Worker 1 dies while it writes (it writes a shard every few hundred milliseconds), and comes back.
    wait_until("worker 1's shards", Duration::from_secs(180), || shards_of(&dir.replay(), 1) >= 3);
    workers[1].kill().unwrap(); // SIGKILL
    workers[1].wait().unwrap();
    workers[1] = worker("1", "w1-again.log");

    // The trainer reaches its steps (the config's 120) without an error; the evaluation stage rates the last.
    let mut status = None;
    wait_until("the trainer to finish", Duration::from_secs(600), || {
        status = trainer.try_wait().unwrap();
        status.is_some()
    });
    let status = status.unwrap();
    let train_log = std::fs::read_to_string(logs.join("train.log")).unwrap();
    assert!(status.success() && !train_log.to_lowercase().contains("error"), "{train_log}");
    wait_until("the last checkpoint's rating", Duration::from_secs(300), || {
        std::fs::read_to_string(dir.eval().join("ratings.json")).is_ok_and(|t| t.contains("model-000000120"))
    });
    assert!(shards_of(&dir.replay(), 1) > 3, "the restarted worker goes on writing");
    for child in workers.iter_mut().chain([&mut evaluator]) {
        child.kill().unwrap();
        child.wait().unwrap();
    }

    // Every shard whole, every game in exactly one shard, every evaluation game stored once.
    let (shards, bad) = read_shards(&dir.replay());
    assert!(bad.is_empty(), "{bad:?}");
    let mut shards_of_game: BTreeMap<u64, usize> = BTreeMap::new();
    for (_, s) in &shards {
        for g in s.game.iter().copied().collect::<HashSet<u64>>() {
            *shards_of_game.entry(g).or_default() += 1;
        }
    }
    assert!(shards_of_game.values().all(|&n| n == 1), "a game was counted twice");
    assert!(shards_of_game.keys().any(|g| g >> 32 == 0) && shards_of_game.keys().any(|g| g >> 32 == 1));
    let results = std::fs::read_to_string(dir.eval().join("results.csv")).unwrap();
    let keys: Vec<String> = csv_records(&results).into_iter().map(|row| row[0].clone()).collect();
    assert_eq!(keys.len(), keys.iter().collect::<HashSet<_>>().len(), "an evaluation game stored twice");
}
