//! End-to-end tests of the self-play stage: shards that numpy reads the same, and workers killed with `kill -9`.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use othello_run::{read_shards, RunDir};

mod common;
use common::{bin, poll_until, python_env, temp_run};

/// A small, fast config for the tests.
fn write_config(run: &Path, games_per_shard: usize) {
    let text = format!(
        "seed = 3\nrules = \"othello,6x6\"\n[selfplay]\nsims = 24\ngames_per_shard = {games_per_shard}\n\
         full_search_share = 0.5\ncheap_sims = 8\nevaluator = \"rollouts\"\nrollouts = 1\n"
    );
    std::fs::write(RunDir::new(run).config(), text).unwrap();
}

#[test]
fn numpy_reads_what_rust_wrote() {
    let scratch = temp_run("numpy");
    let run = scratch.path();
    write_config(run, 4);
    let out = bin().args(["selfplay", "--run", run.to_str().unwrap(), "--games", "4"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (shards, bad) = read_shards(&RunDir::new(run).replay());
    assert!(bad.is_empty() && shards.len() == 1, "{bad:?}");
    let (path, s) = &shards[0];
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/load_shard.py");
    let python = python_env();
    let py = Command::new(&python).arg(&script).arg(path).output().expect("python3 runs");
    assert!(py.status.success(), "{}", String::from_utf8_lossy(&py.stderr));
    let own: u32 = s.player.iter().map(|b| b.count_ones()).sum();
    let opp: u32 = s.opponent.iter().map(|b| b.count_ones()).sum();
    let want = format!(
        "{} {own} {opp} {:.3} {} {} {} {:.3}",
        s.len(),
        s.policy.iter().sum::<f32>(),
        s.value.iter().sum::<f32>() as i64,
        s.margin.iter().map(|&m| m as i64).sum::<i64>(),
        s.full_search.iter().map(|&f| f as u64).sum::<u64>(),
        s.search_value.iter().map(|&q| q as f64).sum::<f64>()
    );
    assert_eq!(String::from_utf8_lossy(&py.stdout).trim(), want);
}

#[test]
fn a_worker_killed_with_sigkill_leaves_only_whole_shards_and_resumes() {
    let scratch = temp_run("kill");
    let run = scratch.path();
    write_config(run, 1);
    let mut child = bin()
        .args(["selfplay", "--run", run.to_str().unwrap(), "--games", "100000", "--threads", "2"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let replay = RunDir::new(run).replay();
    let count = || {
        std::fs::read_dir(&replay)
            .map(|d| d.filter_map(|e| e.ok()).filter(|e| !e.file_name().to_string_lossy().starts_with('.')).count())
            .unwrap_or(0)
    };
    poll_until(Duration::from_secs(120), || count() >= 6);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let (shards, bad) = read_shards(&replay);
    assert!(bad.is_empty(), "a killed worker left a damaged shard visible: {bad:?}");
    assert!(shards.len() >= 6);
    let games: std::collections::BTreeSet<u64> = shards.iter().flat_map(|(_, s)| s.game.clone()).collect();
    // A restart up to two games past the number on disk plays only the missing games.
    let target = games.len() as u64 + 2;
    let out =
        bin().args(["selfplay", "--run", run.to_str().unwrap(), "--games", &target.to_string()]).output().unwrap();
    assert!(out.status.success());
    let (after, bad) = read_shards(&replay);
    assert!(bad.is_empty());
    // Each game lies whole in one shard.
    let mut shards_of_game: std::collections::BTreeMap<u64, usize> = Default::default();
    for (_, s) in &after {
        let games_here: std::collections::BTreeSet<u64> = s.game.iter().copied().collect();
        for g in games_here {
            *shards_of_game.entry(g).or_default() += 1;
        }
    }
    assert!(shards_of_game.values().all(|&n| n == 1), "a game was played twice");
    // Every index below the target is there now; any above it was finished before the kill (many games are in
    // flight at once, so they finish out of order).
    let after_restart: std::collections::BTreeSet<u64> = shards_of_game.into_keys().collect();
    assert!((0..target).all(|g| after_restart.contains(&g)), "every game index up to the target is there");
    assert!(after_restart.iter().all(|g| *g < target || games.contains(g)));
}
